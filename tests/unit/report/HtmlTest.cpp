/// \file
/// Tests of the HTML report's parts: escaping of every text that reaches the page, charts that
/// stay well-formed (finite coordinates, no hang) on NaN, infinite, zero and negative values,
/// the roofline of a machine without DRAM and its two memory levels, axes that zoom or go
/// logarithmic with the data, line charts, legends that wrap, the engine's own per-layer
/// charts, the host-layer table, and a page that needs nothing from the network.
#include "nnaccel/report/Html.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <limits>
#include <regex>

namespace {

using namespace nnaccel::report;

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

/// Every number in an SVG coordinate or size attribute is finite.
void expectFiniteGeometry(const std::string& svg) {
  EXPECT_EQ(svg.find("nan"), std::string::npos) << svg;
  EXPECT_EQ(svg.find("inf\""), std::string::npos) << svg;
  EXPECT_EQ(svg.find("=\"-inf"), std::string::npos) << svg;
}

size_t count(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1))
    ++n;
  return n;
}

TEST(Html, EscapesEveryCharacterThatCouldBreakThePage) {
  EXPECT_EQ(escapeHtml(R"(<script>"a" & 'b'</script>)"),
            "&lt;script&gt;&quot;a&quot; &amp; &#39;b&#39;&lt;/script&gt;");
  const std::string svg = stackedBars("id\"x", "<title>", {"<layer>"}, {{"a&b", {1}}}, "u<");
  EXPECT_EQ(svg.find("<layer>"), std::string::npos);
  EXPECT_EQ(svg.find("a&b"), std::string::npos);
  EXPECT_NE(svg.find("data-chart=\"id&quot;x\""), std::string::npos);
}

TEST(Html, BarsIgnoreValuesThatAreNotFinitePositiveNumbers) {
  const std::string svg = stackedBars("s", "t", {"a", "b", "c", "d"},
                                      {{"x", {kNaN, kInf, -5, 2}}, {"y", {1, 0, kNaN, 3}}}, "u");
  expectFiniteGeometry(svg);
  // Marks only for the finite positive values: x@d, y@a, y@d.
  EXPECT_EQ(count(svg, "class=\"mark\""), 3u);
  const std::string grouped = groupedBars("g", "t", {"a", "b"}, {{"x", {kInf, 1}}}, "u");
  expectFiniteGeometry(grouped);
  EXPECT_EQ(count(grouped, "class=\"mark\""), 1u);
  // No categories at all: a frame, no marks, no crash.
  EXPECT_EQ(count(stackedBars("e", "t", {}, {}, "u"), "class=\"mark\""), 0u);
}

TEST(Html, LogChartsSurviveExtremeAndMissingValues) {
  // Inputs like these once looped forever (an infinite log axis).
  const std::string s = scatter("p", "t", "x", "y",
                                {{"a", kInf, 1, true},
                                 {"b", 1e-310, 5, true},
                                 {"c", 10, kNaN},
                                 {"d", 3, 4, false},
                                 {"e", -1, 2, true}},
                                true);
  expectFiniteGeometry(s);
  EXPECT_EQ(count(s, "<circle class=\"mark\""), 2u); // b and d are placeable
  const std::string r = roofline("r", "t", 1024, 1e-310, 0, {{"l", kInf, 10}, {"m", 4, kNaN}});
  expectFiniteGeometry(r);
  // No points, no DRAM: the flat roof is drawn but is not a mark.
  const std::string flat = roofline("f", "t", 100, 0, 0, {});
  EXPECT_EQ(count(flat, "class=\"mark"), 0u);
  EXPECT_NE(flat.find("class=\"roof\""), std::string::npos);
}

TEST(Html, RooflinePlacesLayersWithoutDramTrafficAtTheRightEdge) {
  const std::string r =
      roofline("r", "t", 1024, 32, 0, {{"a", 8, 200}, {"b", 0, 500, /*withoutDram=*/true}});
  EXPECT_EQ(count(r, "class=\"mark\""), 2u);
  EXPECT_NE(r.find("b: no DRAM traffic"), std::string::npos);
  expectFiniteGeometry(r);
}

/// The tick labels of a chart's axes, in drawing order.
std::vector<std::string> tickLabels(const std::string& svg) {
  const std::regex re(R"re(class="tick" text-anchor="(?:middle|end)">([^<]*)</text>)re");
  std::vector<std::string> out;
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), re); it != std::sregex_iterator();
       ++it)
    out.push_back((*it)[1].str());
  return out;
}

TEST(Html, ScatterAxesZoomToNarrowDataAndGoLogarithmicOverDecades) {
  // Energies of 682 to 721 uJ against cycles of 1.1M to 4.2M: both linear, the energy axis
  // zoomed to the data (the old decade axes put every point on one line).
  const std::vector<ScatterPoint> narrow = {{"a", 1.1e6, 682}, {"b", 4.2e6, 721}};
  const std::vector<std::string> ticks = tickLabels(scatter("n", "t", "x", "y", narrow, true));
  EXPECT_NE(std::find(ticks.begin(), ticks.end(), "680"), ticks.end());
  EXPECT_NE(std::find(ticks.begin(), ticks.end(), "720"), ticks.end());
  EXPECT_EQ(std::find(ticks.begin(), ticks.end(), "100"), ticks.end());
  EXPECT_NE(std::find(ticks.begin(), ticks.end(), "0"), ticks.end()) << "cycles start at 0";
  // Three decades of y: a log axis with a tick per decade.
  const std::vector<ScatterPoint> wide = {{"a", 1, 2}, {"b", 2, 3000}};
  const std::vector<std::string> logTicks = tickLabels(scatter("w", "t", "x", "y", wide, true));
  for (const char* decade : {"1", "10", "100", "1K", "10K"})
    EXPECT_NE(std::find(logTicks.begin(), logTicks.end(), decade), logTicks.end()) << decade;
}

TEST(Html, LinesDrawOnePolylinePerSeriesWithALegend) {
  const std::string svg = lines("l", "t", "array.rows", "cycles",
                                {{"cols=32", {{32, 4.2e6}, {64, 2.9e6}, {128, 2.4e6}}},
                                 {"cols=64", {{32, 2.3e6}, {64, kNaN}, {128, 1.3e6}}}},
                                true);
  expectFiniteGeometry(svg);
  EXPECT_EQ(count(svg, "class=\"mark\""), 5u); // the NaN point is left out
  EXPECT_EQ(count(svg, "<polyline"), 2u);
  EXPECT_EQ(count(svg, "class=\"legend\""), 2u);
  EXPECT_NE(svg.find("cols=32: array.rows = 64, 2.9M"), std::string::npos);
}

TEST(Html, RooflineDrawsARoofAndPointsPerMemoryLevelAndLabelsTheLargestLayers) {
  std::vector<RooflinePoint> points;
  for (int i = 0; i < 20; ++i)
    points.push_back({"layer" + std::to_string(i), 4.0 + i, 100.0 + i, false, 0.5 + i * 0.1,
                      static_cast<double>(i)});
  const std::string r = roofline("r", "t", 1024, 32, 512, points);
  expectFiniteGeometry(r);
  EXPECT_EQ(count(r, "class=\"roof\""), 2u);
  EXPECT_EQ(count(r, "<circle class=\"mark\""), 20u); // DRAM
  EXPECT_EQ(count(r, "<rect class=\"mark\""), 20u);   // on-chip buffer
  EXPECT_NE(r.find("DRAM (32 B/cycle)"), std::string::npos);
  EXPECT_NE(r.find("on-chip buffer (512 B/cycle)"), std::string::npos);
  // The 12 layers with the most multiplies carry a label; the smallest do not.
  EXPECT_NE(r.find(">layer19</text>"), std::string::npos);
  EXPECT_NE(r.find(">layer8</text>"), std::string::npos);
  EXPECT_EQ(r.find(">layer7</text>"), std::string::npos);
}

TEST(Html, LongLegendsWrapInsideTheChart) {
  std::vector<Series> series;
  for (int i = 0; i < 12; ++i)
    series.push_back({"a rather long series name", {1.0}});
  const std::string svg = stackedBars("w", "t", {"x"}, series, "u");
  const std::regex widthRe(R"re(width="([0-9.]+)" height)re");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(svg, m, widthRe));
  const double width = std::stod(m[1].str());
  const std::regex textRe(R"re(<text x="([0-9.]+)" y="[0-9.]+" class="legend">)re");
  size_t legends = 0;
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), textRe); it != std::sregex_iterator();
       ++it) {
    ++legends;
    EXPECT_LT(std::stod((*it)[1].str()) + 7.0 * 25, width + 1) << "legend entry past the edge";
  }
  EXPECT_EQ(legends, 12u);
}

TEST(Html, RunPageChartsTheEnginesOwnMetricsAndCountGroups) {
  RunReport r;
  r.engine = "sparse";
  r.peakMacsPerCycle = 16;
  r.clockMhz = 1000;
  for (const char* name : {"c1", "c2"}) {
    LayerStats l;
    l.name = name;
    l.cycles = l.causes.compute = 100;
    l.usefulMacs = 800;
    l.metrics = {{"speedup", 1.5}, {"w_density", 0.5}};
    l.counts = {{"multiplies", 7}, {"slots.useful", 80}, {"slots.idle_pes", 20}};
    r.layers.push_back(l);
  }
  r.finalize();
  const std::string page = renderRunHtml(r);
  for (const char* id : {"sparse-metric-speedup", "sparse-metric-w_density", "sparse-counts-slots"})
    EXPECT_NE(page.find(fmt::format("data-chart=\"{}\"", id)), std::string::npos) << id;
  EXPECT_EQ(page.find("sparse-metric-multiplies"), std::string::npos); // counts are not charted
  EXPECT_NE(page.find("sparse: slots per layer"), std::string::npos);
  EXPECT_NE(page.find(">idle_pes</text>"), std::string::npos);
}

TEST(Html, RunPageListsHostLayersAndNeedsNoNetwork) {
  RunReport r;
  r.engine = "systolic";
  r.config = "small";
  r.model = "m<1>";
  r.peCount = 4;
  r.peakMacsPerCycle = 4;
  r.clockMhz = 1000;
  LayerStats conv;
  conv.name = "conv";
  conv.usefulMacs = 100;
  conv.cycles = 50;
  conv.causes.compute = 25;
  LayerStats host;
  host.name = "softmax";
  host.op = "Softmax";
  host.hostFallback = true;
  host.note = "no integer form";
  r.layers = {conv, host};
  r.finalize();
  const std::string html = renderRunHtml(r);
  EXPECT_NE(html.find("softmax (host)"), std::string::npos);
  EXPECT_NE(html.find("1 of 2 layers run on the host"), std::string::npos);
  EXPECT_NE(html.find("m&lt;1&gt;"), std::string::npos);
  EXPECT_EQ(html.find("src="), std::string::npos);
  EXPECT_EQ(html.find("https://"), std::string::npos);
  EXPECT_NE(html.find("<pre id=\"chart-check\">"), std::string::npos);
  // An empty report still renders.
  RunReport empty;
  empty.finalize();
  EXPECT_NE(renderRunHtml(empty).find("</html>"), std::string::npos);
}

} // namespace
