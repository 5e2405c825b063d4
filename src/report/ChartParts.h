/// \file
/// The drawing parts the chart functions of Html.h share (private to the report module): the
/// palette, the short number format, the plot frame, the linear axis and the legend. One copy,
/// so bar charts (Html.cpp) and x-y charts (XyCharts.cpp) look alike.
#pragma once

#include "nnaccel/report/Html.h"

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace nnaccel::report::chart {

/// Colour \p i of a colour-blind-safe palette (Okabe-Ito), cycled.
const char* colour(size_t i);
/// 0.5 -> "0.5", 1234 -> "1.23K", 2.5e9 -> "2.5G".
std::string shortNumber(double v);
/// A "nice" upper bound and step for a linear axis from 0 to \p max (1, 2 or 5 x 10^k steps).
std::pair<double, double> niceAxis(double max);

/// Plot area of a chart in SVG pixels.
struct Frame {
  double width, height, left, right, top, bottom;
  double plotWidth() const { return width - left - right; }
  double plotHeight() const { return height - top - bottom; }
};

/// `<figure class="chart" data-chart="ID">` with its caption and the opening `<svg>`.
std::string figureOpen(const std::string& id, const std::string& title, const Frame& f);
inline constexpr const char* kFigureClose = "</svg></figure>\n";

/// A horizontal grid line at pixel row \p y with \p value's tick label on the left.
std::string yGridLine(const Frame& f, double y, double value);
/// The y axis title \p label, rotated, left of the plot.
std::string yTitle(const Frame& f, const std::string& label);
/// A linear y axis from 0 to \p max with gridlines and the unit.
std::string linearYAxis(const Frame& f, double max, double step, const std::string& unit);

/// Legend entries left to right from the plot's left edge, wrapping onto a new line of
/// kLegendLineHeight px when the next entry would pass the chart's right edge.
inline constexpr double kLegendLineHeight = 16;
double legendEntryWidth(const Series& s);
size_t legendLines(double width, double left, const std::vector<Series>& series);
std::string legend(const Frame& f, const std::vector<Series>& series);

} // namespace nnaccel::report::chart
