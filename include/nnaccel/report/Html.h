/// \file
/// Self-contained HTML reports: charts drawn as inline SVG by nnaccel itself, no script, font or
/// style sheet fetched from anywhere, so the file opens offline and can be mailed or archived.
///
/// Two layers:
///  - chart functions (stackedBars, bars, roofline, scatter) return one `<figure class="chart">`
///    with an SVG whose marks (bars, points, lines) carry class "mark";
///  - HtmlPage collects headings, text, tables and charts and renders the page. A small inline
///    script, run when the page loads, measures every chart's marks and writes the result into
///    `<pre id="chart-check">` (JSON: chart id -> marks drawn with a non-zero size), which the
///    headless-browser test reads back from the rendered DOM.
/// addRunSections() adds the standard sections of one run report (cycles by cause, utilization,
/// traffic by level, energy by component, roofline, config); `simulate`, `compare` and `sweep`
/// build their pages from these parts. Engine-neutral: depends only on Report.h.
#pragma once

#include "nnaccel/report/Report.h"

#include <string>
#include <utility>
#include <vector>

namespace nnaccel::report {

/// One series of a bar chart: a name for the legend and a value per category.
struct Series {
  std::string name;
  std::vector<double> values;
};

/// Stacked vertical bars, one per category (e.g. per layer), one segment per series. \p id
/// names the chart in the page's chart check; \p unit labels the y axis.
std::string stackedBars(const std::string& id, const std::string& title,
                        const std::vector<std::string>& categories,
                        const std::vector<Series>& series, const std::string& unit);
/// Side-by-side bars: for each category one bar per series (a single series: plain bars).
std::string groupedBars(const std::string& id, const std::string& title,
                        const std::vector<std::string>& categories,
                        const std::vector<Series>& series, const std::string& unit);

/// A hierarchical roofline (log-log): attainable multiplies per cycle against operational
/// intensity (multiplies per byte moved at a memory level), one roof min(peak, bandwidth x
/// intensity) per level with a bandwidth (DRAM solid, the on-chip buffer dashed), and one point
/// per layer and level (DRAM filled circles, on-chip open squares), the layers with the most
/// multiplies labelled. A machine without either level has a flat roof. Roofs are not marks;
/// points that are not finite are left out.
struct RooflinePoint {
  std::string label;
  double macsPerDramByte = 0;
  double macsPerCycle = 0;
  bool withoutDram = false;     ///< no DRAM traffic: drawn hollow at the right edge
  double macsPerOnChipByte = 0; ///< against the on-chip buffer's traffic (0: none)
  double macs = 0;              ///< the layer's multiplies: the largest layers are labelled
};
std::string roofline(const std::string& id, const std::string& title, double peakMacsPerCycle,
                     double dramBytesPerCycle, double onChipBytesPerCycle,
                     const std::vector<RooflinePoint>& points);

/// A scatter plot with highlighted points joined by a line in x order (a Pareto front). Each
/// axis is logarithmic when \p logAxes and its data spans a factor of ten or more, else linear
/// (zoomed to the data when it lies far from zero).

struct ScatterPoint {
  std::string label;
  double x = 0, y = 0;
  bool highlighted = false;
};
std::string scatter(const std::string& id, const std::string& title, const std::string& xLabel,
                    const std::string& yLabel, const std::vector<ScatterPoint>& points,
                    bool logAxes);

/// Lines through (x, y) points, one per series, with a legend when there are several: a figure
/// against a swept parameter's values. Axes as scatter's.
struct LineSeries {
  std::string name;
  std::vector<std::pair<double, double>> points;
};
std::string lines(const std::string& id, const std::string& title, const std::string& xLabel,
                  const std::string& yLabel, const std::vector<LineSeries>& series, bool allowLog);

/// \p text with &, <, >, " and ' escaped.
std::string escapeHtml(const std::string& text);

class HtmlPage {
public:
  explicit HtmlPage(std::string title) : title_(std::move(title)) {}
  void heading(const std::string& text, int level = 2);
  void paragraph(const std::string& text);
  /// A table with a header row; cells are text (escaped).
  void table(const std::vector<std::string>& header,
             const std::vector<std::vector<std::string>>& rows);
  /// A block of preformatted text (a config file).
  void preformatted(const std::string& text);
  /// A chart from one of the chart functions (already HTML).
  void chart(const std::string& figureHtml);
  std::string render() const;

private:
  std::string title_;
  std::string body_;
};

/// The standard sections of one run: summary, cycles by cause, utilization, traffic by level,
/// energy by component, roofline and the config used. \p idPrefix keeps chart ids unique when
/// a page holds several runs.
void addRunSections(HtmlPage& page, const RunReport& r, const std::string& idPrefix);

/// A page for a single run (`simulate --html`).
std::string renderRunHtml(const RunReport& r);

} // namespace nnaccel::report
