/// \file
/// The x-y charts of Html.h: the roofline (log-log, one roof and one set of points per memory
/// level), the scatter plot (a sweep's Pareto front) and line charts (a figure against a swept
/// parameter), on axes that pick a linear or logarithmic scale from the data.
///
/// Why the scale is chosen per axis: a sweep's energies often differ by a few per cent (682 to
/// 721 uJ); on decade axes they all sit on one line, and on an axis from zero the differences
/// vanish. A factor of ten or more is drawn logarithmically, anything narrower linearly and,
/// when it is far from zero, zoomed to the data.
#include "ChartParts.h"
#include "nnaccel/report/Html.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <functional>
#include <limits>
#include <numeric>

namespace nnaccel::report {

using namespace chart;

namespace {

/// A value a log axis can place: finite and positive.
bool plottable(double v) {
  return std::isfinite(v) && v > 0;
}

/// One axis of an x-y chart: logarithmic in whole decades, or linear in nice steps.
struct PlotAxis {
  bool log = false;
  double lo = 0, hi = 1; ///< log: decades (10^lo .. 10^hi); linear: values
  double step = 0.25;    ///< linear: the tick step
  /// A log axis is at most kMaxDecades wide (ticks per decade); values outside are clamped.
  static constexpr double kMaxDecades = 24;
  /// Data whose smallest value is below this share of its largest is drawn from zero.
  static constexpr double kFromZeroShare = 0.4;

  static PlotAxis logCovering(double minValue, double maxValue) {
    PlotAxis a;
    a.log = true;
    a.lo = std::floor(std::log10(minValue));
    a.hi = std::ceil(std::log10(maxValue));
    if (!std::isfinite(a.lo) || !std::isfinite(a.hi)) { // callers filter, this is the last guard
      a.lo = std::isfinite(a.lo) ? a.lo : 0;
      a.hi = std::isfinite(a.hi) ? a.hi : a.lo + 1;
    }
    a.lo = std::max(a.lo, a.hi - kMaxDecades);
    if (a.hi <= a.lo)
      a.hi = a.lo + 1;
    return a;
  }

  /// Linear over nice steps: from zero for data near zero, else zoomed to [minValue, maxValue].
  static PlotAxis linearCovering(double minValue, double maxValue) {
    PlotAxis a;
    if (minValue >= 0 && minValue < kFromZeroShare * maxValue)
      minValue = 0;
    double range = maxValue - minValue;
    if (!(range > 0)) // one value: a band around it
      range = std::max(std::fabs(maxValue) * 0.1, 1.0);
    a.step = niceAxis(range).second;
    a.lo = std::floor(minValue / a.step + 1e-9) * a.step;
    a.hi = std::ceil(maxValue / a.step - 1e-9) * a.step;
    if (a.hi <= a.lo)
      a.hi = a.lo + a.step;
    return a;
  }

  /// The scale for data [minValue, maxValue]: log when \p allowLog and the data spans a factor
  /// of ten or more (all positive), else linear.
  static PlotAxis covering(double minValue, double maxValue, bool allowLog) {
    if (allowLog && plottable(minValue) && maxValue >= 10 * minValue)
      return logCovering(minValue, maxValue);
    return linearCovering(minValue, maxValue);
  }

  double fraction(double v) const {
    const double t = log ? std::log10(v) : v;
    return std::clamp((t - lo) / (hi - lo), 0.0, 1.0);
  }

  /// The tick values: each decade, or each step.
  std::vector<double> ticks() const {
    std::vector<double> out;
    const double by = log ? 1.0 : step;
    for (double t = lo; t <= hi + by * 1e-6; t += by)
      out.push_back(log ? std::pow(10.0, t) : t);
    return out;
  }
};

/// Grid lines, tick labels and axis titles of \p x and \p y.
std::string axes(const Frame& f, const PlotAxis& x, const PlotAxis& y, const std::string& xLabel,
                 const std::string& yLabel) {
  std::string out;
  for (double v : x.ticks()) {
    const double px = f.left + f.plotWidth() * x.fraction(v);
    out += fmt::format("<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" "
                       "class=\"grid\"/><text x=\"{:.1f}\" y=\"{:.1f}\" class=\"tick\" "
                       "text-anchor=\"middle\">{}</text>\n",
                       px, f.top, px, f.top + f.plotHeight(), px, f.top + f.plotHeight() + 14,
                       shortNumber(v));
  }
  for (double v : y.ticks())
    out += yGridLine(f, f.top + f.plotHeight() * (1.0 - y.fraction(v)), v);
  out += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" class=\"axis\" "
                     "text-anchor=\"middle\">{}</text>\n",
                     f.left + f.plotWidth() / 2, f.height - 6, escapeHtml(xLabel));
  return out + yTitle(f, yLabel);
}

/// Pixel positions on \p f of the axes' values.
struct Place {
  const Frame& f;
  const PlotAxis &x, &y;
  double px(double v) const { return f.left + f.plotWidth() * x.fraction(v); }
  double py(double v) const { return f.top + f.plotHeight() * (1.0 - y.fraction(v)); }
};

/// The points of a roofline that carry a label: all when there are few, else the
/// kLabelledPoints layers with the most multiplies (the ones that decide the run).
constexpr size_t kLabelledPoints = 12;
std::vector<bool> labelledPoints(const std::vector<RooflinePoint>& points) {
  std::vector<bool> out(points.size(), points.size() <= kLabelledPoints);
  if (points.size() <= kLabelledPoints)
    return out;
  std::vector<size_t> order(points.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return points[a].macs > points[b].macs; });
  for (size_t i = 0; i < kLabelledPoints; ++i)
    out[order[i]] = true;
  return out;
}

/// One memory level of a roofline: its bandwidth and each point's intensity against it.
struct RoofLevel {
  std::string name;
  double bytesPerCycle;
  std::function<double(const RooflinePoint&)> intensity;
  bool hollow; ///< drawn as open squares (on-chip) instead of filled circles (DRAM)
};

/// The roof of \p level: bandwidth x intensity up to the ridge, then flat at \p peak.
std::string roofLine(const Place& at, const RoofLevel& level, double peak, size_t index) {
  const double x0 = at.x.ticks().front(), x1 = at.x.ticks().back();
  const double y0 = at.y.ticks().front();
  const double ridge = peak / level.bytesPerCycle;
  const double slopeStart = std::max(x0, y0 / level.bytesPerCycle);
  std::string points =
      fmt::format("{:.1f},{:.1f} ", at.px(slopeStart), at.py(slopeStart * level.bytesPerCycle));
  points += fmt::format("{:.1f},{:.1f} {:.1f},{:.1f}", at.px(std::clamp(ridge, x0, x1)),
                        at.py(peak), at.px(x1), at.py(peak));
  return fmt::format("<polyline class=\"roof\" points=\"{}\" fill=\"none\" stroke=\"{}\" "
                     "stroke-width=\"2\"{}><title>{} roof: {} bytes/cycle, ridge at {} "
                     "multiplies/byte</title></polyline>\n",
                     points, index == 0 ? "#333" : colour(index),
                     index == 0 ? "" : " stroke-dasharray=\"6 4\"", escapeHtml(level.name),
                     shortNumber(level.bytesPerCycle), shortNumber(ridge));
}

/// One layer's point at one level.
std::string roofPoint(const Place& at, const RoofLevel& level, const RooflinePoint& p, double x,
                      size_t index, bool noTraffic) {
  const std::string tip =
      noTraffic
          ? fmt::format("{}: no {} traffic, {} multiplies/cycle", escapeHtml(p.label),
                        escapeHtml(level.name), shortNumber(p.macsPerCycle))
          : fmt::format("{}: {} multiplies per {} byte, {} multiplies/cycle", escapeHtml(p.label),
                        shortNumber(x), escapeHtml(level.name), shortNumber(p.macsPerCycle));
  const double cx = at.px(x), cy = at.py(p.macsPerCycle);
  const char* fill = noTraffic || level.hollow ? "none" : colour(index);
  if (level.hollow)
    return fmt::format("<rect class=\"mark\" x=\"{:.1f}\" y=\"{:.1f}\" width=\"7\" height=\"7\" "
                       "fill=\"{}\" stroke=\"{}\" stroke-width=\"1.5\"><title>{}</title></rect>\n",
                       cx - 3.5, cy - 3.5, fill, colour(index), tip);
  return fmt::format("<circle class=\"mark\" cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"4\" fill=\"{}\" "
                     "fill-opacity=\"0.75\" stroke=\"{}\" stroke-width=\"1.5\"><title>{}</title>"
                     "</circle>\n",
                     cx, cy, fill, colour(index), tip);
}

} // namespace

std::string roofline(const std::string& id, const std::string& title, double peakMacsPerCycle,
                     double dramBytesPerCycle, double onChipBytesPerCycle,
                     const std::vector<RooflinePoint>& points) {
  const Frame f{640, 420, 70, 20, 40, 44};
  const double peak = plottable(peakMacsPerCycle) ? peakMacsPerCycle : 1.0;
  std::vector<RoofLevel> levels;
  if (plottable(dramBytesPerCycle))
    levels.push_back({"DRAM", dramBytesPerCycle,
                      [](const RooflinePoint& p) { return p.macsPerDramByte; }, false});
  if (plottable(onChipBytesPerCycle))
    levels.push_back({"on-chip buffer", onChipBytesPerCycle,
                      [](const RooflinePoint& p) { return p.macsPerOnChipByte; }, true});
  double xMin = std::numeric_limits<double>::infinity(), xMax = 0;
  double yMin = peak, yMax = peak;
  for (const RooflinePoint& p : points) {
    if (!plottable(p.macsPerCycle))
      continue;
    yMin = std::min(yMin, p.macsPerCycle);
    yMax = std::max(yMax, p.macsPerCycle);
    for (const RoofLevel& level : levels)
      if (plottable(level.intensity(p))) {
        xMin = std::min(xMin, level.intensity(p));
        xMax = std::max(xMax, level.intensity(p));
      }
  }
  for (const RoofLevel& level : levels) { // every ridge point is on the plot
    xMin = std::min(xMin, peak / level.bytesPerCycle / 10);
    xMax = std::max(xMax, peak / level.bytesPerCycle * 10);
  }
  const PlotAxis xa =
      PlotAxis::logCovering(plottable(xMin) ? xMin : 0.1, plottable(xMax) ? xMax : 10);
  const PlotAxis ya = PlotAxis::logCovering(std::max(yMin, 1e-3), std::max(yMax, 1.0));
  const Place at{f, xa, ya};
  std::string out = figureOpen(id, title, f) +
                    axes(f, xa, ya, "operational intensity (multiplies per byte of the level)",
                         "multiplies / cycle");
  // The roofs are drawn for reference and are not "marks": the chart check counts points only.
  if (levels.empty())
    out += fmt::format("<polyline class=\"roof\" points=\"{:.1f},{:.1f} {:.1f},{:.1f}\" "
                       "fill=\"none\" stroke=\"#333\" stroke-width=\"2\"><title>roof: {} "
                       "multiplies/cycle peak, no memory level with a bandwidth</title>"
                       "</polyline>\n",
                       at.px(xa.ticks().front()), at.py(peak), at.px(xa.ticks().back()),
                       at.py(peak), shortNumber(peak));
  std::vector<Series> legendEntries;
  for (size_t i = 0; i < levels.size(); ++i) {
    out += roofLine(at, levels[i], peak, i);
    legendEntries.push_back(
        {fmt::format("{} ({} B/cycle){}", levels[i].name, shortNumber(levels[i].bytesPerCycle),
                     levels[i].hollow ? ", open squares" : ""),
         {}});
  }
  const std::vector<bool> labelled = labelledPoints(points);
  for (size_t k = 0; k < points.size(); ++k) {
    const RooflinePoint& p = points[k];
    if (!plottable(p.macsPerCycle))
      continue;
    for (size_t i = 0; i < std::max<size_t>(1, levels.size()); ++i) {
      const bool none = levels.empty() || !plottable(levels[i].intensity(p)) ||
                        (i == 0 && !levels[i].hollow && p.withoutDram);
      // No traffic at a level: infinite intensity, drawn hollow at the right edge.
      const double x = none ? xa.ticks().back() : levels[i].intensity(p);
      out += roofPoint(at, levels.empty() ? RoofLevel{"DRAM", 0, nullptr, false} : levels[i], p, x,
                       i, none);
      if (labelled[k] && i == 0)
        out += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" class=\"tick\">{}</text>\n",
                           at.px(x) + 6, at.py(p.macsPerCycle) - 5, escapeHtml(p.label));
    }
  }
  if (!legendEntries.empty())
    out += legend(f, legendEntries);
  return out + kFigureClose;
}

std::string scatter(const std::string& id, const std::string& title, const std::string& xLabel,
                    const std::string& yLabel, const std::vector<ScatterPoint>& points,
                    bool logAxes) {
  const Frame f{640, 400, 70, 20, 20, 44};
  double xMin = std::numeric_limits<double>::infinity(), xMax = -xMin;
  double yMin = xMin, yMax = -xMin;
  // A point a chart can place: finite (positive too when a log scale is allowed).
  const auto placeable = [&](const ScatterPoint& p) {
    return std::isfinite(p.x) && std::isfinite(p.y) && (!logAxes || (p.x > 0 && p.y > 0));
  };
  for (const ScatterPoint& p : points) {
    if (!placeable(p))
      continue;
    xMin = std::min(xMin, p.x);
    xMax = std::max(xMax, p.x);
    yMin = std::min(yMin, p.y);
    yMax = std::max(yMax, p.y);
  }
  if (!(xMax >= xMin) || !(yMax >= yMin)) { // nothing to plot: an empty frame
    xMin = yMin = 1;
    xMax = yMax = 10;
  }
  const PlotAxis xa = PlotAxis::covering(xMin, xMax, logAxes);
  const PlotAxis ya = PlotAxis::covering(yMin, yMax, logAxes);
  const Place at{f, xa, ya};
  std::string out = figureOpen(id, title, f) + axes(f, xa, ya, xLabel, yLabel);
  std::vector<const ScatterPoint*> front;
  for (const ScatterPoint& p : points)
    if (p.highlighted && placeable(p))
      front.push_back(&p);
  std::sort(front.begin(), front.end(), [](const auto* a, const auto* b) { return a->x < b->x; });
  if (front.size() > 1) {
    std::string line;
    for (const ScatterPoint* p : front)
      line += fmt::format("{:.1f},{:.1f} ", at.px(p->x), at.py(p->y));
    out += fmt::format("<polyline class=\"mark front\" points=\"{}\" fill=\"none\" "
                       "stroke=\"{}\" stroke-width=\"1.5\"/>\n",
                       line, colour(3));
  }
  for (const ScatterPoint& p : points) {
    if (!placeable(p))
      continue;
    out += fmt::format("<circle class=\"mark\" cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"{}\" fill=\"{}\">"
                       "<title>{}: {}, {}</title></circle>\n",
                       at.px(p.x), at.py(p.y), p.highlighted ? 5 : 3.5,
                       p.highlighted ? colour(3) : colour(0), escapeHtml(p.label), shortNumber(p.x),
                       shortNumber(p.y));
  }
  return out + kFigureClose;
}

std::string lines(const std::string& id, const std::string& title, const std::string& xLabel,
                  const std::string& yLabel, const std::vector<LineSeries>& series, bool allowLog) {
  std::vector<Series> names;
  double xMin = std::numeric_limits<double>::infinity(), xMax = -xMin;
  double yMin = xMin, yMax = -xMin;
  const auto placeable = [&](double x, double y) {
    return std::isfinite(x) && std::isfinite(y) && (!allowLog || (x > 0 && y > 0));
  };
  for (const LineSeries& s : series) {
    names.push_back({s.name, {}});
    for (const auto& [x, y] : s.points)
      if (placeable(x, y)) {
        xMin = std::min(xMin, x);
        xMax = std::max(xMax, x);
        yMin = std::min(yMin, y);
        yMax = std::max(yMax, y);
      }
  }
  if (!(xMax >= xMin) || !(yMax >= yMin)) {
    xMin = yMin = 1;
    xMax = yMax = 10;
  }
  Frame f{640, 400, 70, 20, 28, 44};
  const double extra =
      series.size() > 1
          ? kLegendLineHeight * static_cast<double>(legendLines(f.width, f.left, names) - 1)
          : 0.0;
  f.top += extra;
  f.height += extra;
  const PlotAxis xa = PlotAxis::covering(xMin, xMax, allowLog);
  const PlotAxis ya = PlotAxis::covering(yMin, yMax, allowLog);
  const Place at{f, xa, ya};
  std::string out = figureOpen(id, title, f) + axes(f, xa, ya, xLabel, yLabel);
  for (size_t s = 0; s < series.size(); ++s) {
    std::vector<std::pair<double, double>> pts;
    for (const auto& [x, y] : series[s].points)
      if (placeable(x, y))
        pts.emplace_back(x, y);
    std::sort(pts.begin(), pts.end());
    std::string line;
    for (const auto& [x, y] : pts)
      line += fmt::format("{:.1f},{:.1f} ", at.px(x), at.py(y));
    if (pts.size() > 1)
      out += fmt::format("<polyline points=\"{}\" fill=\"none\" stroke=\"{}\" "
                         "stroke-width=\"1.5\"/>\n",
                         line, colour(s));
    for (const auto& [x, y] : pts)
      out += fmt::format("<circle class=\"mark\" cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3.5\" "
                         "fill=\"{}\"><title>{}: {} = {}, {}</title></circle>\n",
                         at.px(x), at.py(y), colour(s), escapeHtml(series[s].name),
                         escapeHtml(xLabel), shortNumber(x), shortNumber(y));
  }
  if (series.size() > 1)
    out += legend(f, names);
  return out + kFigureClose;
}

} // namespace nnaccel::report
