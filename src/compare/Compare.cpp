/// \file
/// The comparison run (one engine after another, each error kept with its engine) and its
/// four forms: text tables, JSON, CSV and HTML.
#include "nnaccel/compare/Compare.h"

#include "nnaccel/report/Html.h"
#include "nnaccel/report/TextTable.h"
#include "nnaccel/support/Error.h"
#include "nnaccel/support/Interrupt.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <map>
#include <nlohmann/json.hpp>

namespace nnaccel::compare {

Comparison compareModel(const ir::Graph& g, const Budget& budget,
                        const std::vector<std::string>& engineList,
                        const engines::RunOptions& options,
                        const std::function<void(const std::string&)>& onEngine) {
  Comparison c;
  c.model = g.name;
  c.budget = budget;
  for (const std::string& engine : engineList) {
    EngineRun run;
    run.engine = engine;
    if (interruptRequested()) { // Ctrl-C: the engines after the interrupted one do not run
      run.error = "not run: interrupted (Ctrl-C)";
      run.interrupted = true;
      c.runs.push_back(std::move(run));
      continue;
    }
    if (onEngine)
      onEngine(engine);
    try {
      run.config = deriveConfig(budget, engine);
      run.resources = engines::resources(*run.config);
      run.cost = budgetCost(*run.config);
      run.report = engines::simulate(g, *run.config, options);
      run.interrupted = run.report->interrupted;
    } catch (const Interrupted&) {
      run.error = "interrupted (Ctrl-C) before its first layer finished";
      run.interrupted = true;
    } catch (const Error& e) {
      // Kept with the engine: one engine's refusal must not hide the others' results.
      run.error = e.what();
    } catch (const std::exception& e) {
      // A bug in nnaccel, not bad input: kept too, flagged, and the command fails at the end.
      run.error = fmt::format("internal error: {}", e.what());
      run.internalError = true;
    }
    c.runs.push_back(std::move(run));
  }
  return c;
}

namespace {

/// Layer names in first-seen order over every engine's report.
std::vector<std::string> layerUnion(const Comparison& c) {
  std::vector<std::string> names;
  for (const EngineRun& r : c.runs) {
    if (!r.report)
      continue;
    for (const report::LayerStats& l : r.report->layers)
      if (std::find(names.begin(), names.end(), l.name) == names.end())
        names.push_back(l.name);
  }
  return names;
}

const report::LayerStats* findLayer(const report::RunReport& r, const std::string& name) {
  for (const report::LayerStats& l : r.layers)
    if (l.name == name)
      return &l;
  return nullptr;
}

/// Aligned text columns: the first left-aligned, the rest right-aligned.
std::string alignedTable(const std::vector<std::vector<std::string>>& rows) {
  std::vector<size_t> widths;
  for (const auto& row : rows)
    for (size_t i = 0; i < row.size(); ++i) {
      widths.resize(std::max(widths.size(), row.size()), 0);
      widths[i] = std::max(widths[i], row[i].size());
    }
  std::string out;
  for (const auto& row : rows) {
    std::string line;
    for (size_t i = 0; i < row.size(); ++i) {
      if (i > 0)
        line += "  ";
      line += i == 0 ? fmt::format("{:<{}}", row[i], widths[i])
                     : fmt::format("{:>{}}", row[i], widths[i]);
    }
    while (!line.empty() && line.back() == ' ')
      line.pop_back();
    out += fmt::format("{}\n", line);
  }
  return out;
}

/// What the budget equalizes and what it does not, said wherever totals are compared.
std::string caveat(const Budget& b) {
  const std::string equal =
      b.areaMm2 > 0 || b.powerW > 0
          ? fmt::format("{}{}{} (the largest machine that fits, in whole multipliers, PEs, "
                        "columns or chips), clock and DRAM bandwidth",
                        b.areaMm2 > 0 ? fmt::format("area ({} mm2)", b.areaMm2) : "",
                        b.areaMm2 > 0 && b.powerW > 0 ? " and " : "",
                        b.powerW > 0 ? fmt::format("peak power ({} W)", b.powerW) : "")
          : "multipliers, SRAM bytes, clock and DRAM bandwidth";
  return fmt::format(
      "note: the budget equalizes {}; energy and area are priced by the technology model at {}; "
      "DRAM bytes use each engine's own data width (a preset's value bits); host layers are "
      "charged by one host model (link and host, the same for every engine)",
      equal, b.node == "auto" ? "each engine's own node" : b.node);
}

/// "3/40 (12.5% of cycles)": the layers that ran on the host, of all layers, and the share of
/// the total cycles the host model charged them ("0/40" when none did).
std::string hostLayers(const report::RunReport& r) {
  const auto host = std::count_if(r.layers.begin(), r.layers.end(),
                                  [](const report::LayerStats& l) { return l.hostFallback; });
  if (host == 0 || r.total.cycles <= 0)
    return fmt::format("{}/{}", host, r.layers.size());
  return fmt::format("{}/{} ({:.1f}% of cycles)", host, r.layers.size(),
                     100.0 * static_cast<double>(r.total.causes.host) /
                         static_cast<double>(r.total.cycles));
}

std::string verdictText(const report::RunReport& r) {
  if (r.verdict.checked && !r.verdict.passed)
    return "MISMATCH";
  if (r.interrupted) // its totals cover only the layers that finished
    return fmt::format("INTERRUPTED after {} of {} layers", r.layers.size(), r.layersPlanned);
  if (!r.verdict.checked)
    return "not checked";
  return "bit-exact";
}

/// The engine's resources, and what differs from the budget by more than 1 % (e.g. an engine
/// with no DRAM interface, the bytes integer division leaves over).
std::string resourcesLine(const EngineRun& r, const Budget& b) {
  if (!r.config)
    return "";
  const engines::Resources& x = r.resources;
  std::vector<std::string> differs;
  const auto check = [&](const char* what, double got, double want) {
    if (std::fabs(got - want) > 0.01 * std::fabs(want))
      differs.emplace_back(what);
  };
  // With an area or power budget the multipliers and SRAM are what fits: not compared.
  if (b.areaMm2 <= 0 && b.powerW <= 0) {
    check("multipliers", static_cast<double>(x.multipliers), static_cast<double>(b.multipliers));
    check("SRAM", static_cast<double>(x.sramBytes), static_cast<double>(b.sramBytes));
  }
  if (b.areaMm2 > 0 && r.cost.areaMm2 > b.areaMm2)
    differs.emplace_back("area");
  if (b.powerW > 0 && r.cost.peakPowerW > b.powerW)
    differs.emplace_back("power");
  check("clock", x.clockMhz, b.clockMhz);
  check("DRAM bandwidth", x.dramBytesPerCycle, b.dramBytesPerCycle);
  return fmt::format(
      "{} multipliers, {} SRAM bytes, {} MHz, {} DRAM B/cycle, {:.3g} mm2 and "
      "{:.3g} W peak at {} ({}){}",
      report::groupThousands(x.multipliers), report::groupThousands(x.sramBytes), x.clockMhz,
      x.dramBytesPerCycle, r.cost.areaMm2, r.cost.peakPowerW, r.cost.table.node, r.config->name(),
      differs.empty() ? "" : fmt::format(" NOT AT BUDGET: {}", fmt::join(differs, ", ")));
}

} // namespace

std::string formatComparison(const Comparison& c) {
  const Budget& b = c.budget;
  std::string out = fmt::format(
      "compare '{}' under budget '{}': {} multipliers, {} SRAM bytes, {} MHz, {} DRAM "
      "B/cycle{}{}{}\n",
      c.model, b.name, report::groupThousands(b.multipliers), report::groupThousands(b.sramBytes),
      b.clockMhz, b.dramBytesPerCycle, b.node != "auto" ? fmt::format(", at {}", b.node) : "",
      b.areaMm2 > 0 ? fmt::format(", area {} mm2", b.areaMm2) : "",
      b.powerW > 0 ? fmt::format(", peak power {} W", b.powerW) : "");
  for (const EngineRun& r : c.runs)
    out += fmt::format("  {:<10} {}\n", r.engine,
                       r.config ? resourcesLine(r, b) : fmt::format("no config: {}", r.error));

  const std::vector<std::string> names = layerUnion(c);
  struct Metric {
    const char* title;
    std::string (*cell)(const report::LayerStats&);
  };
  const Metric metrics[] = {
      {"cycles", [](const report::LayerStats& l) { return report::groupThousands(l.cycles); }},
      {"utilization (%)",
       [](const report::LayerStats& l) { return fmt::format("{:.1f}", 100 * l.utilization); }},
      {"DRAM bytes (read + write)",
       [](const report::LayerStats& l) {
         return report::groupThousands(l.dram.readBytes + l.dram.writeBytes);
       }},
      {"energy (uJ)",
       [](const report::LayerStats& l) { return fmt::format("{:.3f}", l.energyPj / 1e6); }},
  };
  bool anyMissing = false;
  for (const Metric& m : metrics) {
    std::vector<std::vector<std::string>> rows;
    std::vector<std::string> header = {"layer"};
    for (const EngineRun& r : c.runs)
      header.push_back(r.engine);
    rows.push_back(header);
    for (const std::string& name : names) {
      std::vector<std::string> row = {name};
      for (const EngineRun& r : c.runs) {
        const report::LayerStats* l = r.report ? findLayer(*r.report, name) : nullptr;
        if (l == nullptr) {
          row.push_back(r.report ? "-" : "n/a");
          anyMissing = anyMissing || r.report.has_value();
        } else {
          row.push_back(fmt::format("{}{}", m.cell(*l), l->hostFallback ? " H" : ""));
        }
      }
      rows.push_back(std::move(row));
    }
    std::vector<std::string> total = {"total"};
    for (const EngineRun& r : c.runs)
      total.push_back(r.report ? m.cell(r.report->total) : "n/a");
    rows.push_back(std::move(total));
    out += fmt::format("\n{} per layer:\n{}", m.title, alignedTable(rows));
  }
  out += "\n";
  if (anyMissing)
    out += "-: not a separate layer on that engine (fused into a neighbour or folded away)\n";

  std::vector<std::vector<std::string>> totals = {{"engine", "cycles", "time (us)", "utilization",
                                                   "DRAM bytes", "energy (uJ)", "host layers",
                                                   "verdict"}};
  for (const EngineRun& r : c.runs) {
    if (!r.report) {
      totals.push_back({r.engine, "n/a", "n/a", "n/a", "n/a", "n/a", "n/a",
                        r.interrupted ? "not run (Ctrl-C)" : "not mapped"});
      continue;
    }
    const report::LayerStats& t = r.report->total;
    const double clock = r.report->clockMhz > 0 ? r.report->clockMhz : r.resources.clockMhz;
    totals.push_back({r.engine, report::groupThousands(t.cycles),
                      fmt::format("{:.2f}", static_cast<double>(t.cycles) / clock),
                      fmt::format("{:.1f} %", 100 * t.utilization),
                      report::groupThousands(t.dram.readBytes + t.dram.writeBytes),
                      fmt::format("{:.3f}", t.energyPj / 1e6), hostLayers(*r.report),
                      verdictText(*r.report)});
  }
  out += fmt::format("totals:\n{}{}\n", alignedTable(totals), caveat(b));

  std::string unmapped;
  for (const EngineRun& r : c.runs) {
    if (!r.report) {
      unmapped +=
          fmt::format("  {}: {}{}\n", r.engine, r.interrupted ? "" : "not mapped: ", r.error);
      continue;
    }
    const std::string host = report::hostFallbackGroups(r.report->layers, "    ");
    if (!host.empty())
      unmapped += fmt::format("  {}: on the host (H):\n{}", r.engine, host);
    if (r.report->verdict.checked && !r.report->verdict.passed)
      unmapped +=
          fmt::format("  {}: verification failed: {}\n", r.engine, r.report->verdict.detail);
  }
  if (!unmapped.empty())
    out += fmt::format("\nnot mapped or not verified:\n{}", unmapped);
  return out;
}

std::string comparisonJson(const Comparison& c) {
  using Json = nlohmann::ordered_json;
  const Budget& b = c.budget;
  Json j;
  j["schema"] = "nnaccel.compare";
  j["schema_version"] = report::kSchemaVersion;
  j["model"] = c.model;
  j["budget"] = Json{{"name", b.name},
                     {"multipliers", b.multipliers},
                     {"sram_bytes", b.sramBytes},
                     {"clock_mhz", b.clockMhz},
                     {"dram_bytes_per_cycle", b.dramBytesPerCycle},
                     {"node", b.node},
                     {"area_mm2", b.areaMm2},
                     {"power_w", b.powerW}};
  j["engines"] = Json::array();
  for (const EngineRun& r : c.runs) {
    Json e;
    e["engine"] = r.engine;
    e["status"] = r.interrupted ? "interrupted" : r.report ? "ok" : "not_mapped";
    e["error"] = r.error;
    e["resources"] = Json{{"multipliers", r.resources.multipliers},
                          {"sram_bytes", r.resources.sramBytes},
                          {"clock_mhz", r.resources.clockMhz},
                          {"dram_bytes_per_cycle", r.resources.dramBytesPerCycle},
                          {"area_mm2", r.cost.areaMm2},
                          {"peak_power_w", r.cost.peakPowerW}};
    e["report"] = r.report ? Json::parse(r.report->toJson()) : Json(nullptr);
    j["engines"].push_back(std::move(e));
  }
  return j.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

std::string comparisonCsv(const Comparison& c) {
  std::string out = report::RunReport::csvHeader();
  for (const EngineRun& r : c.runs) {
    if (r.report) {
      out += r.report->toCsvRows();
      continue;
    }
    out += report::RunReport::csvNotRunRow(r.engine, r.config ? r.config->name() : "", c.model,
                                           r.error);
  }
  return out;
}

namespace {

/// Per-layer charts across engines: one category per layer name (in the order the engines
/// first list them), one series per engine that ran, for cycles, energy and DRAM bytes. A layer
/// an engine does not have under that name (it fused or split it) is 0 in that engine's series.
void addPerLayerCharts(report::HtmlPage& page, const Comparison& c) {
  std::vector<std::string> layers;
  for (const EngineRun& r : c.runs)
    if (r.report)
      for (const report::LayerStats& l : r.report->layers)
        if (std::find(layers.begin(), layers.end(), l.name) == layers.end())
          layers.push_back(l.name);
  if (layers.empty())
    return;
  std::vector<report::Series> cycles, energy, dram;
  for (const EngineRun& r : c.runs) {
    if (!r.report)
      continue;
    for (auto* s : {&cycles, &energy, &dram})
      s->push_back(report::Series{r.engine, std::vector<double>(layers.size(), 0.0)});
    for (const report::LayerStats& l : r.report->layers) {
      const size_t i =
          static_cast<size_t>(std::find(layers.begin(), layers.end(), l.name) - layers.begin());
      cycles.back().values[i] += static_cast<double>(l.cycles);
      energy.back().values[i] += l.energyPj / 1e6;
      dram.back().values[i] += static_cast<double>(l.dram.readBytes + l.dram.writeBytes);
    }
  }
  page.heading("Per layer, across engines");
  page.paragraph("Each layer's bar per engine, matched by layer name; 0 where an engine lowers "
                 "the layer into others (a fused activation) or runs it under another name.");
  page.chart(
      report::groupedBars("compare-layer-cycles", "cycles per layer", layers, cycles, "cycles"));
  page.chart(report::groupedBars("compare-layer-energy", "energy per layer", layers, energy, "uJ"));
  page.chart(
      report::groupedBars("compare-layer-dram", "DRAM traffic per layer", layers, dram, "bytes"));
}

} // namespace

std::string renderComparisonHtml(const Comparison& c) {
  report::HtmlPage page(
      fmt::format("nnaccel compare: {} under budget '{}'", c.model, c.budget.name));
  const Budget& b = c.budget;
  page.paragraph(fmt::format("Budget: {} multipliers, {} SRAM bytes, {} MHz, {} DRAM "
                             "bytes/cycle. Each engine's config is derived from it "
                             "(docs/Compare.md).",
                             b.multipliers, b.sramBytes, b.clockMhz, b.dramBytesPerCycle));
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> engines;
  report::Series cycles{"cycles", {}}, energy{"energy (uJ)", {}}, dram{"DRAM bytes", {}};
  for (const EngineRun& r : c.runs) {
    if (!r.report) {
      rows.push_back({r.engine, "not mapped", "", "", "", "", "", r.error});
      continue;
    }
    const report::LayerStats& t = r.report->total;
    rows.push_back({r.engine, report::groupThousands(t.cycles),
                    fmt::format("{:.1f} %", 100 * t.utilization),
                    report::groupThousands(t.dram.readBytes + t.dram.writeBytes),
                    fmt::format("{:.3f}", t.energyPj / 1e6), hostLayers(*r.report),
                    verdictText(*r.report), resourcesLine(r, c.budget)});
    engines.push_back(r.engine);
    cycles.values.push_back(static_cast<double>(t.cycles));
    energy.values.push_back(t.energyPj / 1e6);
    dram.values.push_back(static_cast<double>(t.dram.readBytes + t.dram.writeBytes));
  }
  page.heading("Totals");
  page.table({"engine", "cycles", "utilization", "DRAM bytes", "energy (uJ)", "host layers",
              "verdict", "resources / reason"},
             rows);
  page.paragraph(caveat(c.budget));
  page.chart(report::groupedBars("compare-cycles", "total cycles per engine", engines, {cycles},
                                 "cycles"));
  page.chart(
      report::groupedBars("compare-energy", "total energy per engine", engines, {energy}, "uJ"));
  page.chart(
      report::groupedBars("compare-dram", "DRAM traffic per engine", engines, {dram}, "bytes"));
  addPerLayerCharts(page, c);
  for (const EngineRun& r : c.runs) {
    if (!r.report)
      continue;
    page.heading(fmt::format("{} ({})", r.engine, r.report->config));
    report::addRunSections(page, *r.report, r.engine + "-");
  }
  return page.render();
}

} // namespace nnaccel::compare
