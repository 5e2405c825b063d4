/// \file
/// A sweep as an HTML page built from report/Html.h's parts: the front as a scatter on the
/// spec's first two Pareto axes (each axis logarithmic when it spans a factor of ten, else
/// linear and zoomed to the data), cycles and energy against each numeric parameter's values
/// (one line per setting of the others), bars of cycles and energy per point, and the point
/// table with thousands separators.
#include "nnaccel/explore/SweepHtml.h"

#include "nnaccel/report/Html.h"
#include "nnaccel/report/TextTable.h"

#include <charconv>
#include <fmt/format.h>
#include <optional>

namespace nnaccel::explore {

namespace {

/// "array.rows=64, array.cols=32".
std::string pointLabel(const SweepResult& r, const PointResult& p) {
  std::string out;
  for (size_t i = 0; i < p.values.size() && i < r.spec.params.size(); ++i)
    out += fmt::format("{}{}={}", i == 0 ? "" : ", ", r.spec.params[i].key, p.values[i]);
  return out.empty() ? "base config" : out;
}

/// The bar charts' short category: each param's last key segment and value, "rows=64 cols=32"
/// ("base config" with no params).
std::string shortLabel(const SweepResult& r, const PointResult& p) {
  std::string out;
  for (size_t i = 0; i < p.values.size() && i < r.spec.params.size(); ++i) {
    const std::string& key = r.spec.params[i].key;
    out += fmt::format("{}{}={}", i == 0 ? "" : " ", key.substr(key.rfind('.') + 1), p.values[i]);
  }
  return out.empty() ? "base config" : out;
}

/// \p text as a number when all of it is one ("64", "0.5"), else nullopt.
std::optional<double> numberOf(const std::string& text) {
  double v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size())
    return std::nullopt;
  return v;
}

/// Cycles and energy against parameter \p param's values: one line per setting of the other
/// parameters. Nothing when the parameter is not numeric or takes one value.
void addParameterCharts(report::HtmlPage& page, const SweepResult& r, size_t param) {
  const std::string& key = r.spec.params[param].key;
  std::vector<report::LineSeries> cycles, energy; // in the order the points give the settings
  std::vector<double> seen;
  for (const PointResult& p : r.points) {
    if (p.status != PointStatus::Ok || param >= p.values.size())
      continue;
    const std::optional<double> x = numberOf(p.values[param]);
    if (!x)
      return;
    if (std::find(seen.begin(), seen.end(), *x) == seen.end())
      seen.push_back(*x);
    std::string others;
    for (size_t i = 0; i < p.values.size() && i < r.spec.params.size(); ++i)
      if (i != param)
        others +=
            fmt::format("{}{}={}", others.empty() ? "" : " ", r.spec.params[i].key, p.values[i]);
    const std::string name = others.empty() ? "all points" : others;
    auto at = std::find_if(cycles.begin(), cycles.end(),
                           [&](const report::LineSeries& s) { return s.name == name; });
    if (at == cycles.end()) {
      cycles.push_back({name, {}});
      energy.push_back({name, {}});
      at = cycles.end() - 1;
    }
    const auto k = static_cast<size_t>(at - cycles.begin());
    cycles[k].points.emplace_back(*x, static_cast<double>(p.cycles));
    energy[k].points.emplace_back(*x, p.energyPj / 1e6);
  }
  if (seen.size() < 2)
    return;
  page.chart(report::lines("sweep-cycles-by-" + key, fmt::format("cycles against {}", key), key,
                           "cycles", cycles, true));
  page.chart(report::lines("sweep-energy-by-" + key, fmt::format("energy against {}", key), key,
                           "energy (uJ)", energy, true));
}

} // namespace

std::string renderSweepHtml(const SweepResult& r) {
  const SweepSpec& s = r.spec;
  report::HtmlPage page(fmt::format("nnaccel sweep: {} on {} ({})", s.model, s.engine, s.config));
  page.paragraph(fmt::format(
      "{} point(s){}; objective: {}; Pareto front minimizes {}; {}.", r.points.size(),
      r.shard.whole() ? "" : fmt::format(" (shard {})", shardText(r.shard)),
      objectiveName(s.objective), fmt::join(s.paretoAxes, ", "),
      s.verify ? "every point verified against the int8 reference" : "timing only (not verified)"));

  const std::string& xAxis = s.paretoAxes.at(0);
  const std::string& yAxis = s.paretoAxes.at(1);
  std::vector<report::ScatterPoint> scatter;
  std::vector<std::string> labels;
  report::Series cycles{"cycles", {}}, energy{"energy (uJ)", {}};
  for (const PointResult& p : r.points) {
    if (p.status != PointStatus::Ok)
      continue;
    scatter.push_back(report::ScatterPoint{fmt::format("point {} ({})", p.index, pointLabel(r, p)),
                                           metricValue(p, xAxis), metricValue(p, yAxis), p.pareto});
    labels.push_back(shortLabel(r, p));
    cycles.values.push_back(static_cast<double>(p.cycles));
    energy.values.push_back(p.energyPj / 1e6);
  }
  page.heading("Pareto front");
  page.chart(report::scatter(
      "sweep-pareto", fmt::format("{} against {} (front highlighted and joined)", yAxis, xAxis),
      xAxis, yAxis, scatter, true));
  for (size_t i = 0; i < s.params.size(); ++i)
    addParameterCharts(page, r, i);
  page.chart(report::groupedBars("sweep-cycles", "cycles per point", labels, {cycles}, "cycles"));
  page.chart(report::groupedBars("sweep-energy", "energy per point", labels, {energy}, "uJ"));

  std::vector<std::string> header = {"point"};
  for (const Param& p : s.params)
    header.push_back(p.key);
  for (const char* column :
       {"status", "cycles", "time (us)", "energy (uJ)", "utilization", "DRAM bytes", "multipliers",
        "SRAM bytes", "area (mm2)", "front", "best", "error"})
    header.emplace_back(column);
  std::vector<std::vector<std::string>> rows;
  for (const PointResult& p : r.points) {
    std::vector<std::string> row = {fmt::format("{}", p.index)};
    for (const std::string& v : p.values)
      row.push_back(v);
    const bool ok = p.status == PointStatus::Ok;
    row.push_back(statusName(p.status));
    row.push_back(ok ? report::groupThousands(p.cycles) : "");
    row.push_back(ok ? fmt::format("{:.2f}", p.timeUs) : "");
    row.push_back(ok ? fmt::format("{:.3f}", p.energyPj / 1e6) : "");
    row.push_back(ok ? fmt::format("{:.1f} %", 100 * p.utilization) : "");
    row.push_back(ok ? report::groupThousands(p.dramBytes) : "");
    row.push_back(p.multipliers > 0 ? report::groupThousands(p.multipliers) : "");
    row.push_back(p.sramBytes > 0 ? report::groupThousands(p.sramBytes) : "");
    row.push_back(p.areaMm2 > 0 ? fmt::format("{:.4g}", p.areaMm2) : "");
    row.push_back(p.pareto ? "*" : "");
    row.push_back(p.best ? "best" : "");
    row.push_back(p.error);
    rows.push_back(std::move(row));
  }
  page.heading("Points");
  page.table(header, rows);
  return page.render();
}

} // namespace nnaccel::explore
