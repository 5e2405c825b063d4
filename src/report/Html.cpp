/// \file
/// The HTML report: inline-SVG charts (axes, nice ticks, legends, log scales for the roofline
/// and Pareto plots), the page skeleton with its chart check, and the standard sections of one
/// run report. Every number on a chart comes from the RunReport; nothing is fetched.
#include "nnaccel/report/Html.h"

#include "nnaccel/report/TextTable.h"
#include "nnaccel/support/Error.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <functional>
#include <limits>

namespace nnaccel::report {

std::string escapeHtml(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char ch : text) {
    switch (ch) {
    case '&':
      out += "&amp;";
      break;
    case '<':
      out += "&lt;";
      break;
    case '>':
      out += "&gt;";
      break;
    case '"':
      out += "&quot;";
      break;
    case '\'':
      out += "&#39;";
      break;
    default:
      out += ch;
    }
  }
  return out;
}

namespace {

/// Colour-blind-safe palette (Okabe-Ito), cycled.
constexpr const char* kPalette[] = {"#0072B2", "#E69F00", "#009E73", "#D55E00",
                                    "#CC79A7", "#56B4E9", "#F0E442", "#999999"};
const char* colour(size_t i) {
  return kPalette[i % std::size(kPalette)];
}

/// 0.5 -> "0.5", 1234 -> "1.23K", 2.5e9 -> "2.5G".
std::string shortNumber(double v) {
  static constexpr const char* kSuffixes[] = {"", "K", "M", "G", "T", "P", "E"};
  if (v == 0)
    return "0";
  size_t s = 0;
  double m = v;
  while (std::fabs(m) >= 1000.0 && s + 1 < std::size(kSuffixes)) {
    m /= 1000.0;
    ++s;
  }
  std::string text = fmt::format("{:.3g}", m);
  return text + kSuffixes[s];
}

/// A "nice" upper bound and step for a linear axis from 0 to \p max (1, 2 or 5 x 10^k steps).
std::pair<double, double> niceAxis(double max) {
  if (!(max > 0) || !std::isfinite(max))
    return {1.0, 0.25};
  const double rough = max / 5.0;
  const double power = std::pow(10.0, std::floor(std::log10(rough)));
  double step = power;
  for (double f : {1.0, 2.0, 2.5, 5.0, 10.0}) {
    step = f * power;
    if (step >= rough)
      break;
  }
  return {std::ceil(max / step - 1e-9) * step, step};
}

/// A bar's value: negative, NaN and infinite values draw nothing (and do not stretch the axis).
double barValue(double v) {
  return std::isfinite(v) && v > 0 ? v : 0.0;
}

/// Plot area of a chart in SVG pixels.
struct Frame {
  double width, height, left, right, top, bottom;
  double plotWidth() const { return width - left - right; }
  double plotHeight() const { return height - top - bottom; }
};

std::string figureOpen(const std::string& id, const std::string& title, const Frame& f) {
  return fmt::format("<figure class=\"chart\" data-chart=\"{}\"><figcaption>{}</figcaption>\n"
                     "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" "
                     "viewBox=\"0 0 {} {}\" role=\"img\" aria-label=\"{}\">\n",
                     escapeHtml(id), escapeHtml(title), f.width, f.height, f.width, f.height,
                     escapeHtml(title));
}

constexpr const char* kFigureClose = "</svg></figure>\n";

/// A linear y axis from 0 to \p max with gridlines and the unit.
std::string linearYAxis(const Frame& f, double max, double step, const std::string& unit) {
  std::string out;
  for (double v = 0; v <= max + step * 1e-6; v += step) {
    const double y = f.top + f.plotHeight() * (1.0 - v / max);
    out += fmt::format("<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" "
                       "class=\"grid\"/><text x=\"{:.1f}\" y=\"{:.1f}\" class=\"tick\" "
                       "text-anchor=\"end\">{}</text>\n",
                       f.left, y, f.width - f.right, y, f.left - 4, y + 4, shortNumber(v));
  }
  out += fmt::format("<text x=\"12\" y=\"{:.1f}\" class=\"axis\" transform=\"rotate(-90 12 "
                     "{:.1f})\" text-anchor=\"middle\">{}</text>\n",
                     f.top + f.plotHeight() / 2, f.top + f.plotHeight() / 2, escapeHtml(unit));
  return out;
}

/// Category labels under the plot, rotated when there are many.
std::string categoryLabels(const Frame& f, const std::vector<std::string>& categories) {
  std::string out;
  const double slot = f.plotWidth() / static_cast<double>(std::max<size_t>(1, categories.size()));
  for (size_t i = 0; i < categories.size(); ++i) {
    const double x = f.left + slot * (static_cast<double>(i) + 0.5);
    const double y = f.top + f.plotHeight() + 10;
    out += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" class=\"tick\" text-anchor=\"end\" "
                       "transform=\"rotate(-55 {:.1f} {:.1f})\">{}</text>\n",
                       x, y, x, y, escapeHtml(categories[i]));
  }
  return out;
}

/// Legend entries left to right from the plot's left edge, wrapping onto a new line of 16 px
/// when the next entry would pass the chart's right edge (barFrame leaves room for them).
constexpr double kLegendLineHeight = 16;
double legendEntryWidth(const Series& s) {
  return 24 + 7.0 * static_cast<double>(s.name.size());
}
size_t legendLines(double width, double left, const std::vector<Series>& series) {
  size_t lines = 1;
  double x = left;
  for (const Series& s : series) {
    if (x > left && x + legendEntryWidth(s) > width) {
      ++lines;
      x = left;
    }
    x += legendEntryWidth(s);
  }
  return lines;
}
std::string legend(const Frame& f, const std::vector<Series>& series) {
  std::string out;
  double x = f.left, y = 6;
  for (size_t s = 0; s < series.size(); ++s) {
    if (x > f.left && x + legendEntryWidth(series[s]) > f.width) {
      x = f.left;
      y += kLegendLineHeight;
    }
    out += fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"10\" height=\"10\" "
                       "fill=\"{}\"/><text x=\"{:.1f}\" y=\"{:.1f}\" class=\"legend\">{}</text>\n",
                       x, y, colour(s), x + 14, y + 9, escapeHtml(series[s].name));
    x += legendEntryWidth(series[s]);
  }
  return out;
}

/// The frame of a bar chart: wide enough for its bars, with a top margin for the legend's lines.
Frame barFrame(size_t categories, size_t barsPerCategory, const std::vector<Series>& series) {
  const double slot = std::max(18.0, 9.0 * static_cast<double>(barsPerCategory) + 6.0);
  const double plot = std::max(480.0, slot * static_cast<double>(categories));
  Frame f{plot + 90, 360, 70, 20, 28, 110};
  const double extra =
      kLegendLineHeight * static_cast<double>(legendLines(f.width, f.left, series) - 1);
  f.top += extra;
  f.height += extra;
  return f;
}

} // namespace

std::string stackedBars(const std::string& id, const std::string& title,
                        const std::vector<std::string>& categories,
                        const std::vector<Series>& series, const std::string& unit) {
  const Frame f = barFrame(categories.size(), 1, series);
  double max = 0;
  for (size_t c = 0; c < categories.size(); ++c) {
    double sum = 0;
    for (const Series& s : series) {
      NNACCEL_ASSERT(s.values.size() == categories.size()) << "series '" << s.name << "'";
      sum += barValue(s.values[c]);
    }
    max = std::max(max, sum);
  }
  const auto [top, step] = niceAxis(max);
  std::string out = figureOpen(id, title, f) + linearYAxis(f, top, step, unit);
  const double slot = f.plotWidth() / static_cast<double>(std::max<size_t>(1, categories.size()));
  for (size_t c = 0; c < categories.size(); ++c) {
    double base = 0;
    for (size_t s = 0; s < series.size(); ++s) {
      const double v = barValue(series[s].values[c]);
      if (v <= 0)
        continue;
      const double y0 = f.top + f.plotHeight() * (1.0 - base / top);
      const double y1 = f.top + f.plotHeight() * (1.0 - (base + v) / top);
      out += fmt::format("<rect class=\"mark\" x=\"{:.1f}\" y=\"{:.2f}\" width=\"{:.1f}\" "
                         "height=\"{:.2f}\" fill=\"{}\"><title>{}: {} {} {}</title></rect>\n",
                         f.left + slot * static_cast<double>(c) + slot * 0.15, y1, slot * 0.7,
                         std::max(0.0, y0 - y1), colour(s), escapeHtml(categories[c]),
                         escapeHtml(series[s].name), shortNumber(v), escapeHtml(unit));
      base += v;
    }
  }
  return out + categoryLabels(f, categories) + legend(f, series) + kFigureClose;
}

std::string groupedBars(const std::string& id, const std::string& title,
                        const std::vector<std::string>& categories,
                        const std::vector<Series>& series, const std::string& unit) {
  const Frame f = barFrame(categories.size(), series.size(), series);
  double max = 0;
  for (const Series& s : series) {
    NNACCEL_ASSERT(s.values.size() == categories.size()) << "series '" << s.name << "'";
    for (double v : s.values)
      max = std::max(max, barValue(v));
  }
  const auto [top, step] = niceAxis(max);
  std::string out = figureOpen(id, title, f) + linearYAxis(f, top, step, unit);
  const double slot = f.plotWidth() / static_cast<double>(std::max<size_t>(1, categories.size()));
  const double bar = slot * 0.8 / static_cast<double>(std::max<size_t>(1, series.size()));
  for (size_t c = 0; c < categories.size(); ++c)
    for (size_t s = 0; s < series.size(); ++s) {
      const double v = barValue(series[s].values[c]);
      if (v <= 0)
        continue;
      const double y = f.top + f.plotHeight() * (1.0 - v / top);
      out += fmt::format("<rect class=\"mark\" x=\"{:.1f}\" y=\"{:.2f}\" width=\"{:.1f}\" "
                         "height=\"{:.2f}\" fill=\"{}\"><title>{}: {} {} {}</title></rect>\n",
                         f.left + slot * static_cast<double>(c) + slot * 0.1 +
                             bar * static_cast<double>(s),
                         y, bar, f.top + f.plotHeight() - y, colour(s), escapeHtml(categories[c]),
                         escapeHtml(series[s].name), shortNumber(v), escapeHtml(unit));
    }
  return out + categoryLabels(f, categories) + (series.size() > 1 ? legend(f, series) : "") +
         kFigureClose;
}

namespace {

/// A log10 axis covering [lo, hi] in whole decades.
struct LogAxis {
  double lo, hi; // decades: 10^lo .. 10^hi
  /// At most kMaxDecades wide (ticks are drawn per decade); values outside are clamped.
  static constexpr double kMaxDecades = 24;
  static LogAxis covering(double minValue, double maxValue) {
    double lo = std::floor(std::log10(minValue));
    double hi = std::ceil(std::log10(maxValue));
    if (!std::isfinite(lo) || !std::isfinite(hi)) { // callers filter, this is the last guard
      lo = std::isfinite(lo) ? lo : 0;
      hi = std::isfinite(hi) ? hi : lo + 1;
    }
    lo = std::max(lo, hi - kMaxDecades);
    if (hi <= lo)
      hi = lo + 1;
    return {lo, hi};
  }
  double fraction(double v) const { return std::clamp((std::log10(v) - lo) / (hi - lo), 0.0, 1.0); }
};

/// A value a log axis can place: finite and positive.
bool plottable(double v) {
  return std::isfinite(v) && v > 0;
}

std::string logAxes(const Frame& f, const LogAxis& x, const LogAxis& y, const std::string& xLabel,
                    const std::string& yLabel) {
  std::string out;
  for (double d = x.lo; d <= x.hi + 1e-9; d += 1) {
    const double px = f.left + f.plotWidth() * (d - x.lo) / (x.hi - x.lo);
    out += fmt::format("<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" "
                       "class=\"grid\"/><text x=\"{:.1f}\" y=\"{:.1f}\" class=\"tick\" "
                       "text-anchor=\"middle\">{}</text>\n",
                       px, f.top, px, f.top + f.plotHeight(), px, f.top + f.plotHeight() + 14,
                       shortNumber(std::pow(10.0, d)));
  }
  for (double d = y.lo; d <= y.hi + 1e-9; d += 1) {
    const double py = f.top + f.plotHeight() * (1.0 - (d - y.lo) / (y.hi - y.lo));
    out += fmt::format("<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" "
                       "class=\"grid\"/><text x=\"{:.1f}\" y=\"{:.1f}\" class=\"tick\" "
                       "text-anchor=\"end\">{}</text>\n",
                       f.left, py, f.width - f.right, py, f.left - 4, py + 4,
                       shortNumber(std::pow(10.0, d)));
  }
  out += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" class=\"axis\" "
                     "text-anchor=\"middle\">{}</text>\n",
                     f.left + f.plotWidth() / 2, f.height - 6, escapeHtml(xLabel));
  out += fmt::format("<text x=\"12\" y=\"{:.1f}\" class=\"axis\" transform=\"rotate(-90 12 "
                     "{:.1f})\" text-anchor=\"middle\">{}</text>\n",
                     f.top + f.plotHeight() / 2, f.top + f.plotHeight() / 2, escapeHtml(yLabel));
  return out;
}

} // namespace

std::string roofline(const std::string& id, const std::string& title, double peakMacsPerCycle,
                     double dramBytesPerCycle, const std::vector<RooflinePoint>& points) {
  const Frame f{640, 400, 70, 20, 20, 44};
  const double peak = plottable(peakMacsPerCycle) ? peakMacsPerCycle : 1.0;
  const bool hasDram = plottable(dramBytesPerCycle);
  double xMin = std::numeric_limits<double>::infinity(), xMax = 0;
  double yMin = peak, yMax = peak;
  for (const RooflinePoint& p : points) {
    if (!plottable(p.macsPerCycle))
      continue;
    yMin = std::min(yMin, p.macsPerCycle);
    yMax = std::max(yMax, p.macsPerCycle);
    if (p.withoutDram || !plottable(p.macsPerDramByte))
      continue;
    xMin = std::min(xMin, p.macsPerDramByte);
    xMax = std::max(xMax, p.macsPerDramByte);
  }
  // The ridge point (peak / bandwidth) is always on the plot.
  const double ridge = hasDram ? peak / dramBytesPerCycle : 1.0;
  if (plottable(ridge)) {
    xMin = std::min(xMin, ridge / 10);
    xMax = std::max(xMax, ridge * 10);
  }
  const LogAxis xa = LogAxis::covering(plottable(xMin) ? xMin : 0.1, plottable(xMax) ? xMax : 10);
  const LogAxis ya = LogAxis::covering(std::max(yMin, 1e-3), std::max(yMax, 1.0));
  std::string out =
      figureOpen(id, title, f) +
      logAxes(f, xa, ya, "operational intensity (multiplies per DRAM byte)", "multiplies / cycle");
  const auto px = [&](double x) { return f.left + f.plotWidth() * xa.fraction(x); };
  const auto py = [&](double y) { return f.top + f.plotHeight() * (1.0 - ya.fraction(y)); };
  // The roof: bandwidth-bound slope up to the ridge, then flat at the peak. It is drawn for
  // reference and is not a "mark": the chart check counts the layers' points only.
  const double x0 = std::pow(10.0, xa.lo), x1 = std::pow(10.0, xa.hi);
  std::string roof;
  if (hasDram) {
    const double slopeStart = std::max(x0, std::pow(10.0, ya.lo) / dramBytesPerCycle);
    roof = fmt::format("{:.1f},{:.1f} ", px(slopeStart), py(slopeStart * dramBytesPerCycle));
  } else {
    roof = fmt::format("{:.1f},{:.1f} ", px(x0), py(peak));
  }
  roof += fmt::format("{:.1f},{:.1f} {:.1f},{:.1f}", px(std::clamp(ridge, x0, x1)), py(peak),
                      px(x1), py(peak));
  out += fmt::format("<polyline class=\"roof\" points=\"{}\" fill=\"none\" stroke=\"#333\" "
                     "stroke-width=\"2\"><title>roof: {} multiplies/cycle peak, {} bytes/cycle "
                     "DRAM</title></polyline>\n",
                     roof, shortNumber(peak), hasDram ? shortNumber(dramBytesPerCycle) : "no");
  for (const RooflinePoint& p : points) {
    if (!plottable(p.macsPerCycle))
      continue;
    if (p.withoutDram || !plottable(p.macsPerDramByte)) {
      // No DRAM traffic: infinite intensity, drawn hollow at the right edge.
      out += fmt::format("<circle class=\"mark\" cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"4\" "
                         "fill=\"none\" stroke=\"{}\" stroke-width=\"1.5\"><title>{}: no DRAM "
                         "traffic, {} multiplies/cycle</title></circle>\n",
                         px(x1), py(p.macsPerCycle), colour(0), escapeHtml(p.label),
                         shortNumber(p.macsPerCycle));
      continue;
    }
    out += fmt::format("<circle class=\"mark\" cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"4\" fill=\"{}\" "
                       "fill-opacity=\"0.75\"><title>{}: {} multiplies/byte, {} "
                       "multiplies/cycle</title></circle>\n",
                       px(p.macsPerDramByte), py(p.macsPerCycle), colour(0), escapeHtml(p.label),
                       shortNumber(p.macsPerDramByte), shortNumber(p.macsPerCycle));
  }
  return out + kFigureClose;
}

std::string scatter(const std::string& id, const std::string& title, const std::string& xLabel,
                    const std::string& yLabel, const std::vector<ScatterPoint>& points,
                    bool logAxes_) {
  const Frame f{640, 400, 70, 20, 20, 44};
  double xMin = std::numeric_limits<double>::infinity(), xMax = 0;
  double yMin = std::numeric_limits<double>::infinity(), yMax = 0;
  // A point a chart can place: finite, and positive on log axes.
  const auto placeable = [&](const ScatterPoint& p) {
    return std::isfinite(p.x) && std::isfinite(p.y) && (!logAxes_ || (p.x > 0 && p.y > 0));
  };
  for (const ScatterPoint& p : points) {
    if (!placeable(p))
      continue;
    xMin = std::min(xMin, p.x);
    xMax = std::max(xMax, p.x);
    yMin = std::min(yMin, p.y);
    yMax = std::max(yMax, p.y);
  }
  if (!(xMax > 0) || !(yMax > 0)) { // nothing to plot: an empty frame
    xMin = yMin = 1;
    xMax = yMax = 10;
  }
  std::string out = figureOpen(id, title, f);
  std::function<double(double)> px, py;
  if (logAxes_) {
    const LogAxis xa = LogAxis::covering(xMin, xMax), ya = LogAxis::covering(yMin, yMax);
    out += logAxes(f, xa, ya, xLabel, yLabel);
    px = [=](double x) { return f.left + f.plotWidth() * xa.fraction(x); };
    py = [=](double y) { return f.top + f.plotHeight() * (1.0 - ya.fraction(y)); };
  } else {
    const auto [xTop, xStep] = niceAxis(xMax);
    const auto [yTop, yStep] = niceAxis(yMax);
    out += linearYAxis(f, yTop, yStep, yLabel);
    for (double v = 0; v <= xTop + xStep * 1e-6; v += xStep)
      out += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" class=\"tick\" "
                         "text-anchor=\"middle\">{}</text>\n",
                         f.left + f.plotWidth() * v / xTop, f.top + f.plotHeight() + 14,
                         shortNumber(v));
    out += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" class=\"axis\" "
                       "text-anchor=\"middle\">{}</text>\n",
                       f.left + f.plotWidth() / 2, f.height - 6, escapeHtml(xLabel));
    // Copies, not the structured bindings: clang 14 (the fuzz build) cannot capture those.
    px = [=, top = xTop](double x) { return f.left + f.plotWidth() * x / top; };
    py = [=, top = yTop](double y) { return f.top + f.plotHeight() * (1.0 - y / top); };
  }
  std::vector<const ScatterPoint*> front;
  for (const ScatterPoint& p : points)
    if (p.highlighted && placeable(p))
      front.push_back(&p);
  std::sort(front.begin(), front.end(), [](const auto* a, const auto* b) { return a->x < b->x; });
  if (front.size() > 1) {
    std::string line;
    for (const ScatterPoint* p : front)
      line += fmt::format("{:.1f},{:.1f} ", px(p->x), py(p->y));
    out += fmt::format("<polyline class=\"mark front\" points=\"{}\" fill=\"none\" "
                       "stroke=\"{}\" stroke-width=\"1.5\"/>\n",
                       line, colour(3));
  }
  for (const ScatterPoint& p : points) {
    if (!placeable(p))
      continue;
    out += fmt::format("<circle class=\"mark\" cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"{}\" fill=\"{}\">"
                       "<title>{}: {}, {}</title></circle>\n",
                       px(p.x), py(p.y), p.highlighted ? 5 : 3.5,
                       p.highlighted ? colour(3) : colour(0), escapeHtml(p.label), shortNumber(p.x),
                       shortNumber(p.y));
  }
  return out + kFigureClose;
}

// --- page ---------------------------------------------------------------------------------------

void HtmlPage::heading(const std::string& text, int level) {
  body_ += fmt::format("<h{0}>{1}</h{0}>\n", std::clamp(level, 1, 4), escapeHtml(text));
}

void HtmlPage::paragraph(const std::string& text) {
  body_ += "<p>" + escapeHtml(text) + "</p>\n";
}

void HtmlPage::table(const std::vector<std::string>& header,
                     const std::vector<std::vector<std::string>>& rows) {
  body_ += "<table><thead><tr>";
  for (const std::string& h : header)
    body_ += "<th>" + escapeHtml(h) + "</th>";
  body_ += "</tr></thead><tbody>\n";
  for (const auto& row : rows) {
    body_ += "<tr>";
    for (const std::string& cell : row)
      body_ += "<td>" + escapeHtml(cell) + "</td>";
    body_ += "</tr>\n";
  }
  body_ += "</tbody></table>\n";
}

void HtmlPage::preformatted(const std::string& text) {
  body_ += "<pre class=\"config\">" + escapeHtml(text) + "</pre>\n";
}

void HtmlPage::chart(const std::string& figureHtml) {
  body_ += figureHtml;
}

std::string HtmlPage::render() const {
  // The chart check: for every chart, the number of marks drawn with a non-zero size, written
  // into #chart-check once the page is laid out (read back by the headless-browser test).
  static constexpr const char* kCheckScript = R"(<script>
(function () {
  var out = {};
  document.querySelectorAll('figure.chart').forEach(function (f) {
    var n = 0;
    f.querySelectorAll('.mark').forEach(function (m) {
      var r = m.getBoundingClientRect();
      if (r.width > 0 || r.height > 0) n++;
    });
    out[f.getAttribute('data-chart')] = n;
  });
  document.getElementById('chart-check').textContent = JSON.stringify(out);
})();
</script>
)";
  static constexpr const char* kStyle = R"(<style>
body { font-family: sans-serif; margin: 24px; color: #222; max-width: 1400px; }
h1 { font-size: 1.5em; } h2 { font-size: 1.25em; margin-top: 1.6em; border-bottom: 1px solid #ccc; }
h3 { font-size: 1.05em; }
table { border-collapse: collapse; font-size: 0.85em; margin: 8px 0; }
th, td { border: 1px solid #ccc; padding: 2px 6px; text-align: right; }
th { background: #f2f2f2; } td:first-child, th:first-child { text-align: left; }
figure.chart { margin: 12px 0; overflow-x: auto; }
figcaption { font-weight: bold; font-size: 0.9em; margin-bottom: 4px; }
svg text { font-family: sans-serif; } .tick { font-size: 10px; fill: #444; }
.axis { font-size: 11px; fill: #222; } .legend { font-size: 11px; fill: #222; }
.grid { stroke: #e4e4e4; stroke-width: 1; }
pre.config { background: #f7f7f7; padding: 8px; font-size: 0.8em; max-height: 360px; overflow: auto; }
#chart-check { display: none; }
</style>
)";
  return fmt::format("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
                     "<title>{0}</title>\n{1}</head><body>\n<h1>{0}</h1>\n{2}"
                     "<pre id=\"chart-check\"></pre>\n{3}</body></html>\n",
                     escapeHtml(title_), kStyle, body_, kCheckScript);
}

// --- the sections of one run --------------------------------------------------------------------

namespace {

/// The layers' names as chart categories; a host-fallback layer is marked (its bars are the
/// host model's link and host cost: the `host` cause and energy part).
std::vector<std::string> layerNames(const RunReport& r) {
  std::vector<std::string> names;
  for (const LayerStats& l : r.layers)
    names.push_back(l.hostFallback ? fmt::format("{} (host)", l.name) : l.name);
  return names;
}

template <typename F> Series seriesOf(const RunReport& r, const std::string& name, F value) {
  Series s{name, {}};
  for (const LayerStats& l : r.layers)
    s.values.push_back(static_cast<double>(value(l)));
  return s;
}

} // namespace

/// The summary table's verdict: checked, mismatched, or interrupted after some layers.
std::string verdictCell(const RunReport& r) {
  const Verdict& v = r.verdict;
  if (v.checked && !v.passed)
    return "MISMATCH: " + v.detail;
  const std::string verdict = v.checked ? "bit-exact vs " + v.reference : "not checked";
  if (r.interrupted)
    return fmt::format("INTERRUPTED after {} of {} layers (totals cover them only); {}",
                       r.layers.size(), r.layersPlanned, verdict);
  return verdict;
}

void addRunSections(HtmlPage& page, const RunReport& r, const std::string& idPrefix) {
  const std::vector<std::string> names = layerNames(r);
  const LayerStats& t = r.total;
  const double micros = r.clockMhz > 0 ? static_cast<double>(t.cycles) / r.clockMhz : 0.0;
  page.table({"engine", "config", "model", "dtype", "cycles", "time (us)", "utilization",
              "DRAM bytes", "energy (uJ)", "verified"},
             {{r.engine, r.config, r.model, r.dtype, groupThousands(t.cycles),
               fmt::format("{:.2f}", micros), fmt::format("{:.1f} %", 100 * t.utilization),
               groupThousands(t.dram.readBytes + t.dram.writeBytes),
               fmt::format("{:.3f}", t.energyPj / 1e6), verdictCell(r)}});
  for (const auto& [name, value] : r.summary)
    page.paragraph(fmt::format("{}: {}", name, value));
  std::vector<std::vector<std::string>> host;
  for (const LayerStats& l : r.layers)
    if (l.hostFallback)
      host.push_back({l.name, l.op, l.note});
  if (!host.empty()) {
    page.paragraph(fmt::format("{} of {} layers run on the host: the host model charges their "
                               "link transfers and host compute ({} cycles, {:.3f} uJ), shown "
                               "as the `host` cause and energy part.",
                               host.size(), r.layers.size(), t.causes.host, t.energy.host / 1e6));
    page.table({"layer on the host", "op", "reason"}, host);
  }

  page.chart(stackedBars(
      idPrefix + "cycles", fmt::format("{}: cycles per layer by cause", r.engine), names,
      {seriesOf(r, "compute", [](const LayerStats& l) { return l.causes.compute; }),
       seriesOf(r, "memory stall", [](const LayerStats& l) { return l.causes.memory; }),
       seriesOf(r, "fill/drain", [](const LayerStats& l) { return l.causes.fillDrain; }),
       seriesOf(r, "conflicts", [](const LayerStats& l) { return l.causes.conflict; }),
       seriesOf(r, "sync", [](const LayerStats& l) { return l.causes.sync; }),
       seriesOf(r, "idle", [](const LayerStats& l) { return l.causes.idle; }),
       seriesOf(r, "host", [](const LayerStats& l) { return l.causes.host; }),
       seriesOf(r, "other", [](const LayerStats& l) { return l.causes.other; })},
      "cycles"));
  page.chart(groupedBars(
      idPrefix + "utilization", fmt::format("{}: utilization per layer", r.engine), names,
      {seriesOf(r, "utilization", [](const LayerStats& l) { return 100.0 * l.utilization; })},
      "% of peak multiplies"));
  page.chart(stackedBars(
      idPrefix + "traffic", fmt::format("{}: memory traffic per layer by level", r.engine), names,
      {seriesOf(r, "DRAM",
                [](const LayerStats& l) { return l.dram.readBytes + l.dram.writeBytes; }),
       seriesOf(r, "on-chip buffer",
                [](const LayerStats& l) { return l.sbuf.readBytes + l.sbuf.writeBytes; }),
       seriesOf(r, "partial sums",
                [](const LayerStats& l) { return l.psum.readBytes + l.psum.writeBytes; })},
      "bytes"));
  page.chart(stackedBars(
      idPrefix + "energy", fmt::format("{}: energy per layer by component", r.engine), names,
      {seriesOf(r, "compute", [](const LayerStats& l) { return l.energy.compute / 1e6; }),
       seriesOf(r, "on-chip memory", [](const LayerStats& l) { return l.energy.onChip / 1e6; }),
       seriesOf(r, "interconnect", [](const LayerStats& l) { return l.energy.interconnect / 1e6; }),
       seriesOf(r, "DRAM", [](const LayerStats& l) { return l.energy.dram / 1e6; }),
       seriesOf(r, "post-processing",
                [](const LayerStats& l) { return l.energy.postProcess / 1e6; }),
       seriesOf(r, "host", [](const LayerStats& l) { return l.energy.host / 1e6; }),
       seriesOf(r, "other", [](const LayerStats& l) { return l.energy.other / 1e6; })},
      "uJ"));
  std::vector<RooflinePoint> points;
  for (const LayerStats& l : r.layers) {
    const int64_t dram = l.dram.readBytes + l.dram.writeBytes;
    if (l.usefulMacs <= 0 || l.cycles <= 0)
      continue;
    points.push_back(RooflinePoint{
        l.name, dram > 0 ? static_cast<double>(l.usefulMacs) / static_cast<double>(dram) : 0.0,
        static_cast<double>(l.usefulMacs) / static_cast<double>(l.cycles), dram == 0});
  }
  page.chart(roofline(idPrefix + "roofline", fmt::format("{}: roofline", r.engine),
                      static_cast<double>(std::max<int64_t>(1, r.peakMacsPerCycle)),
                      r.dramBytesPerCycle, points));
  if (!r.configYaml.empty()) {
    page.heading(fmt::format("{} config used", r.engine), 3);
    page.preformatted(r.configYaml);
  }
}

std::string renderRunHtml(const RunReport& r) {
  HtmlPage page(fmt::format("nnaccel: {} on {} ({})", r.model, r.engine, r.config));
  addRunSections(page, r, r.engine + "-");
  return page.render();
}

} // namespace nnaccel::report
