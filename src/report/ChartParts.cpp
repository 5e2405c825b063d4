/// \file
/// The parts every chart is drawn with (ChartParts.h): palette, number format, axes, frame, legend.
#include "ChartParts.h"

#include "nnaccel/report/Html.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

namespace nnaccel::report::chart {
namespace {

/// Colour-blind-safe palette, cycled: Okabe-Ito's eight colours, then Tol's wine and black,
/// so that ten series (the sparse array's slot losses) stay distinct.
constexpr const char* kPalette[] = {"#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7",
                                    "#56B4E9", "#F0E442", "#999999", "#882255", "#000000"};

} // namespace

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

std::string figureOpen(const std::string& id, const std::string& title, const Frame& f) {
  return fmt::format("<figure class=\"chart\" data-chart=\"{}\"><figcaption>{}</figcaption>\n"
                     "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" "
                     "viewBox=\"0 0 {} {}\" role=\"img\" aria-label=\"{}\">\n",
                     escapeHtml(id), escapeHtml(title), f.width, f.height, f.width, f.height,
                     escapeHtml(title));
}

std::string yGridLine(const Frame& f, double y, double value) {
  return fmt::format("<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" "
                     "class=\"grid\"/><text x=\"{:.1f}\" y=\"{:.1f}\" class=\"tick\" "
                     "text-anchor=\"end\">{}</text>\n",
                     f.left, y, f.width - f.right, y, f.left - 4, y + 4, shortNumber(value));
}

std::string yTitle(const Frame& f, const std::string& label) {
  return fmt::format("<text x=\"12\" y=\"{:.1f}\" class=\"axis\" transform=\"rotate(-90 12 "
                     "{:.1f})\" text-anchor=\"middle\">{}</text>\n",
                     f.top + f.plotHeight() / 2, f.top + f.plotHeight() / 2, escapeHtml(label));
}

std::string linearYAxis(const Frame& f, double max, double step, const std::string& unit) {
  std::string out;
  for (double v = 0; v <= max + step * 1e-6; v += step)
    out += yGridLine(f, f.top + f.plotHeight() * (1.0 - v / max), v);
  return out + yTitle(f, unit);
}

/// Legend entries left to right from the plot's left edge, wrapping onto a new line of 16 px
/// when the next entry would pass the chart's right edge (barFrame leaves room for them).
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

} // namespace nnaccel::report::chart
