/// \file
/// Tests of the HTML report's parts: escaping of every text that reaches the page, charts that
/// stay well-formed (finite coordinates, no hang) on NaN, infinite, zero and negative values,
/// the roofline of a machine without DRAM, legends that wrap, the host-layer table, and a page
/// that needs nothing from the network.
#include "nnaccel/report/Html.h"

#include <cmath>
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
  const std::string r = roofline("r", "t", 1024, 1e-310, {{"l", kInf, 10}, {"m", 4, kNaN}});
  expectFiniteGeometry(r);
  // No points, no DRAM: the flat roof is drawn but is not a mark.
  const std::string flat = roofline("f", "t", 100, 0, {});
  EXPECT_EQ(count(flat, "class=\"mark"), 0u);
  EXPECT_NE(flat.find("class=\"roof\""), std::string::npos);
}

TEST(Html, RooflinePlacesLayersWithoutDramTrafficAtTheRightEdge) {
  const std::string r =
      roofline("r", "t", 1024, 32, {{"a", 8, 200}, {"b", 0, 500, /*withoutDram=*/true}});
  EXPECT_EQ(count(r, "class=\"mark\""), 2u);
  EXPECT_NE(r.find("b: no DRAM traffic"), std::string::npos);
  expectFiniteGeometry(r);
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
