/// \file
/// The HTML report: inline-SVG charts (axes, nice ticks, legends, log scales for the roofline
/// and Pareto plots), the page skeleton with its chart check, and the standard sections of one
/// run report. Every number on a chart comes from the RunReport; nothing is fetched.
#include "nnaccel/report/Html.h"

#include "ChartParts.h"
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

using namespace chart;

namespace {

/// A bar's value: negative, NaN and infinite values draw nothing (and do not stretch the axis).
double barValue(double v) {
  return std::isfinite(v) && v > 0 ? v : 0.0;
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

/// The engine's own per-layer figures (LayerStats::metrics: sparse densities and speed-up,
/// broadcast reads and reuse, stream tiles, FIFO bits and latency), one bar chart each, and
/// each group of counts named GROUP.PART (the sparse array's multiplier slots by loss) as one
/// stacked chart. Engine-neutral: the names come from the report.
void addEngineCharts(HtmlPage& page, const RunReport& r, const std::string& idPrefix,
                     const std::vector<std::string>& names) {
  std::vector<std::string> metrics, groups;
  for (const LayerStats& l : r.layers) {
    for (const auto& [key, value] : l.metrics)
      if (std::find(metrics.begin(), metrics.end(), key) == metrics.end())
        metrics.push_back(key);
    for (const auto& [key, value] : l.counts)
      if (const size_t dot = key.find('.');
          dot != std::string::npos &&
          std::find(groups.begin(), groups.end(), key.substr(0, dot)) == groups.end())
        groups.push_back(key.substr(0, dot));
  }
  const auto valueOf = [](const auto& pairs, const std::string& key) {
    for (const auto& [k, v] : pairs)
      if (k == key)
        return static_cast<double>(v);
    return 0.0;
  };
  for (const std::string& group : groups) {
    std::vector<Series> parts;
    for (const LayerStats& l : r.layers)
      for (const auto& count : l.counts) { // not a structured binding: clang 14 (the fuzz
                                           // build) cannot capture one in the lambda
        const std::string part = count.first.substr(std::min(count.first.size(), group.size() + 1));
        if (count.first.starts_with(group + ".") &&
            std::none_of(parts.begin(), parts.end(),
                         [&](const Series& s) { return s.name == part; }))
          parts.push_back({part, {}});
      }
    for (Series& s : parts)
      for (const LayerStats& l : r.layers)
        s.values.push_back(valueOf(l.counts, group + "." + s.name));
    page.chart(stackedBars(idPrefix + "counts-" + group,
                           fmt::format("{}: {} per layer", r.engine, group), names, parts, group));
  }
  for (const std::string& key : metrics) {
    Series s{key, {}};
    for (const LayerStats& l : r.layers)
      s.values.push_back(valueOf(l.metrics, key));
    page.chart(groupedBars(idPrefix + "metric-" + key,
                           fmt::format("{}: {} per layer", r.engine, key), names, {s}, key));
  }
}

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

} // namespace

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
  if (r.technology.present()) {
    std::string line = r.technologyLine();
    line.pop_back(); // its newline
    page.paragraph(line);
    std::vector<std::vector<std::string>> parts;
    for (const auto& [name, mm2] : r.technology.areaMm2ByComponent)
      parts.push_back({name, fmt::format("{:.4g}", mm2),
                       fmt::format("{:.1f} %", 100 * mm2 / r.technology.areaMm2)});
    page.table({"component", "area (mm2)", "share"}, parts);
  }
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
       seriesOf(r, "clock network", [](const LayerStats& l) { return l.energy.clock / 1e6; }),
       seriesOf(r, "other", [](const LayerStats& l) { return l.energy.other / 1e6; })},
      "uJ"));
  addEngineCharts(page, r, idPrefix, names);
  std::vector<RooflinePoint> points;
  for (const LayerStats& l : r.layers) {
    const int64_t dram = l.dram.readBytes + l.dram.writeBytes;
    const int64_t onChip = l.sbuf.readBytes + l.sbuf.writeBytes;
    if (l.usefulMacs <= 0 || l.cycles <= 0)
      continue;
    const auto macs = static_cast<double>(l.usefulMacs);
    points.push_back(RooflinePoint{l.name, dram > 0 ? macs / static_cast<double>(dram) : 0.0,
                                   macs / static_cast<double>(l.cycles), dram == 0,
                                   onChip > 0 ? macs / static_cast<double>(onChip) : 0.0, macs});
  }
  page.chart(roofline(idPrefix + "roofline", fmt::format("{}: roofline", r.engine),
                      static_cast<double>(std::max<int64_t>(1, r.peakMacsPerCycle)),
                      r.dramBytesPerCycle, r.onChipBytesPerCycle, points));
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
