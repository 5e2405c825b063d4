/// \file
/// The engine-neutral run report: totals and utilization (finalize), the human-readable table
/// (formatTable: per-layer rows, totals, host-fallback notes, baseline comparison, verdict) and
/// the JSON form (toJson: every field, exact numbers, stable key order).
#include "nnaccel/report/Report.h"

#include "nnaccel/report/TextTable.h"
#include "nnaccel/support/Error.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace nnaccel::report {

void LayerStats::addBreakdown(const std::string& key, int64_t keyCycles) {
  for (auto& [entryKey, entryCycles] : breakdown) {
    if (entryKey == key) {
      entryCycles += keyCycles;
      return;
    }
  }
  breakdown.emplace_back(key, keyCycles);
}

CycleCauses& CycleCauses::operator+=(const CycleCauses& o) {
  compute += o.compute;
  memory += o.memory;
  fillDrain += o.fillDrain;
  conflict += o.conflict;
  sync += o.sync;
  idle += o.idle;
  host += o.host;
  other += o.other;
  return *this;
}

EnergyParts& EnergyParts::operator+=(const EnergyParts& o) {
  compute += o.compute;
  onChip += o.onChip;
  interconnect += o.interconnect;
  dram += o.dram;
  postProcess += o.postProcess;
  host += o.host;
  clock += o.clock;
  other += o.other;
  return *this;
}

namespace {

/// Puts what the engine left unattributed into `other`.
void completeAttribution(LayerStats& l) {
  l.causes.other = 0;
  const int64_t attributed = l.causes.sum();
  NNACCEL_ASSERT(attributed <= l.cycles)
      << "layer '" << l.name << "': " << attributed << " cycles attributed to causes, but it took "
      << l.cycles;
  l.causes.other = l.cycles - attributed;
  l.energy.other = 0;
  const double parts = l.energy.sum();
  // Parts and the total are sums of the same products in different orders.
  NNACCEL_ASSERT(parts <= l.energyPj * (1 + 1e-9) + 1e-6)
      << "layer '" << l.name << "': " << parts << " pJ attributed to parts, but it used "
      << l.energyPj;
  l.energy.other = std::max(0.0, l.energyPj - parts);
}

} // namespace

double RunReport::utilizationOf(const LayerStats& l) const {
  const int64_t peak = peakMacs();
  if (peak <= 0 || l.cycles <= 0)
    return 0.0;
  return static_cast<double>(l.usefulMacs) /
         (static_cast<double>(peak) * static_cast<double>(l.cycles));
}

void RunReport::markInterrupted(size_t layersDone, size_t layersPlannedCount) {
  NNACCEL_ASSERT(layersDone <= layers.size()) << "more layers done than reported";
  layers.resize(layersDone);
  interrupted = true;
  layersPlanned = static_cast<int64_t>(layersPlannedCount);
}

std::string RunReport::technologyName() const {
  return technology.present() ? fmt::format("{} at {} V", technology.node, technology.vddV) : "";
}

double RunReport::secondsOf(int64_t cycles) const {
  return clockMhz > 0 ? static_cast<double>(cycles) / (clockMhz * 1e6) : 0.0;
}

void RunReport::finalize() {
  LayerStats sum;
  sum.name = "total";
  for (LayerStats& l : layers) {
    // The clock network runs every cycle of the layer, host layers included (the chip waits).
    const double clockPj = technology.clockPjPerCycle * static_cast<double>(l.cycles);
    l.energyPj += clockPj - l.energy.clock; // finalize may run again
    l.energy.clock = clockPj;
    completeAttribution(l);
    l.utilization = utilizationOf(l);
    // W x s = J: leakage x cycles / (MHz x 1e6) x 1e12 pJ, formed as (W x 1e6) x cycles / MHz.
    l.staticEnergyPj =
        clockMhz > 0 ? technology.leakageW * 1e6 * static_cast<double>(l.cycles) / clockMhz : 0.0;
    sum.staticEnergyPj += l.staticEnergyPj;
    sum.usefulMacs += l.usefulMacs;
    sum.effectualMacs += l.effectualMacs;
    sum.issuedMacs += l.issuedMacs;
    sum.streamedElements += l.streamedElements;
    sum.instructions += l.instructions;
    sum.cycles += l.cycles;
    sum.busyCycles += l.busyCycles;
    sum.stallCycles += l.stallCycles;
    for (const auto& [key, cycles] : l.breakdown) {
      sum.addBreakdown(key, cycles);
    }
    for (const auto& [key, n] : l.counts) {
      auto it = std::find_if(sum.counts.begin(), sum.counts.end(),
                             [&, &name = key](const auto& e) { return e.first == name; });
      if (it == sum.counts.end())
        sum.counts.emplace_back(key, n);
      else
        it->second += n;
    }
    sum.causes += l.causes;
    sum.sbuf += l.sbuf;
    sum.psum += l.psum;
    sum.dram += l.dram;
    sum.energyPj += l.energyPj;
    sum.energy += l.energy;
  }
  sum.utilization = utilizationOf(sum);
  total = std::move(sum);
}

// --- table --------------------------------------------------------------------------------------

namespace {

/// 950 -> "950", 416520 -> "417K", 1814083072 -> "1.81G" (three significant digits).
std::string human(int64_t value) {
  static constexpr const char* kSuffixes[] = {"", "K", "M", "G", "T", "P"};
  double v = static_cast<double>(value);
  size_t s = 0;
  while (std::fabs(v) >= 999.5 && s + 1 < std::size(kSuffixes)) {
    v /= 1000.0;
    ++s;
  }
  if (s == 0) {
    return std::to_string(value);
  }
  const int decimals = std::fabs(v) >= 99.95 ? 0 : std::fabs(v) >= 9.995 ? 1 : 2;
  return fmt::format("{:.{}f}{}", v, decimals, kSuffixes[s]);
}

std::string percent(double fraction) {
  return fmt::format("{:.1f}", 100.0 * fraction);
}

double busyFraction(const LayerStats& l) {
  return l.cycles > 0 ? static_cast<double>(l.busyCycles) / static_cast<double>(l.cycles) : 0.0;
}

/// Aligned columns: two spaces apart, numbers right-aligned, trailing blanks trimmed.
class Table {
public:
  struct Column {
    std::string header;
    bool right;
  };
  explicit Table(std::vector<Column> columns) : columns_(std::move(columns)) {}
  void row(std::vector<std::string> cells) {
    NNACCEL_ASSERT(cells.size() <= columns_.size()) << "row has more cells than columns";
    cells.resize(columns_.size());
    rows_.push_back(std::move(cells));
  }
  void rule() { rows_.emplace_back(); }
  void addColumn(Column c) { columns_.push_back(std::move(c)); }

  std::string render() const {
    std::vector<size_t> widths;
    for (size_t c = 0; c < columns_.size(); ++c) {
      size_t w = columns_[c].header.size();
      for (const auto& r : rows_) {
        w = r.empty() ? w : std::max(w, r[c].size());
      }
      widths.push_back(w);
    }
    std::vector<std::string> header;
    for (const Column& c : columns_) {
      header.push_back(c.header);
    }
    std::string out = line(header, widths);
    out += line({}, widths);
    for (const auto& r : rows_) {
      out += line(r, widths);
    }
    return out;
  }

private:
  std::string line(const std::vector<std::string>& cells, const std::vector<size_t>& widths) const {
    std::string out;
    for (size_t c = 0; c < columns_.size(); ++c) {
      const std::string cell = cells.empty() ? std::string(widths[c], '-') : cells[c];
      const std::string pad(widths[c] - cell.size(), ' ');
      out += (c > 0 ? "  " : "") + (columns_[c].right ? pad + cell : cell + pad);
    }
    out.erase(out.find_last_not_of(' ') + 1);
    return out + "\n";
  }

  std::vector<Column> columns_;
  std::vector<std::vector<std::string>> rows_; ///< an empty row is a rule
};

std::vector<std::string> layerCellsBase(const LayerStats& l) {
  return {l.name,
          l.op,
          l.shape,
          l.unit,
          human(l.usefulMacs),
          human(l.cycles),
          percent(busyFraction(l)),
          percent(l.utilization),
          fmt::format("{:.1f}", static_cast<double>(l.dram.readBytes + l.dram.writeBytes) / 1024.0),
          fmt::format("{:.3f}", l.energyPj / 1e6),
          l.hostFallback ? "HOST" : ""};
}

/// A metric cell in the table's one number format: a count (an integer) as the MACs and cycles
/// columns print it, "845" or "1.06K"; a ratio or fraction with two decimals, "1.68".
std::string metricText(double v) {
  if (v == static_cast<double>(static_cast<int64_t>(v)))
    return human(static_cast<int64_t>(v));
  return fmt::format("{:.2f}", v);
}

/// The metric keys of \p layers, in order of first appearance.
std::vector<std::string> metricKeys(const std::vector<LayerStats>& layers) {
  std::vector<std::string> keys;
  for (const LayerStats& l : layers)
    for (const auto& [key, value] : l.metrics)
      if (std::find(keys.begin(), keys.end(), key) == keys.end())
        keys.push_back(key);
  return keys;
}

std::vector<std::string> layerCells(const LayerStats& l, const std::vector<std::string>& keys) {
  std::vector<std::string> cells = layerCellsBase(l);
  for (const std::string& key : keys) {
    std::string cell;
    for (const auto& [k, v] : l.metrics)
      if (k == key)
        cell = metricText(v);
    cells.insert(cells.end() - 1, cell);
  }
  return cells;
}

/// "4.00x" (baseline / method), "-" when the method side is 0.
std::string ratio(int64_t method, int64_t baseline) {
  if (method == 0) {
    return baseline == 0 ? "1.00x" : "-";
  }
  return fmt::format("{:.2f}x", static_cast<double>(baseline) / static_cast<double>(method));
}

std::string baselineSection(const std::vector<BaselineRow>& rows) {
  Table t({{"layer", false},
           {"metric", false},
           {"method", true},
           {"baseline", true},
           {"baseline/method", true}});
  std::string notes;
  for (const BaselineRow& r : rows) {
    if (!r.applicable) {
      t.row({r.layer, "(baseline not applicable)", "", "", ""});
      t.rule();
      notes += fmt::format("  {}: baseline not applicable: {}\n", r.layer, r.what);
      continue;
    }
    using Side = BaselineRow::Side;
    const std::pair<const char*, int64_t (*)(const Side&)> metrics[] = {
        {"streamed elements", [](const Side& s) { return s.streamedElements; }},
        {"MACs issued", [](const Side& s) { return s.issuedMacs; }},
        {"cycles", [](const Side& s) { return s.cycles; }},
        {"memory ops", [](const Side& s) { return s.memoryOps; }},
        {"DRAM bytes", [](const Side& s) { return s.dram.readBytes + s.dram.writeBytes; }},
        {"SBUF bytes", [](const Side& s) { return s.sbuf.readBytes + s.sbuf.writeBytes; }},
    };
    bool first = true;
    for (const auto& [metric, get] : metrics) {
      const int64_t m = get(r.method);
      const int64_t b = get(r.baseline);
      t.row({first ? r.layer : "", metric, human(m), human(b), ratio(m, b)});
      first = false;
    }
    if (r.method.energyPj > 0 || r.baseline.energyPj > 0) {
      const double m = r.method.energyPj, b = r.baseline.energyPj;
      t.row({"", "energy uJ", fmt::format("{:.3f}", m / 1e6), fmt::format("{:.3f}", b / 1e6),
             m > 0 ? fmt::format("{:.2f}x", b / m) : "-"});
    }
    t.rule();
    notes += fmt::format("  {}: baseline = {}\n", r.layer, r.what);
  }
  return "baseline vs method:\n" + t.render() + notes;
}

/// An interrupted run's line: what ran, and whether what ran was checked.
std::string interruptedLine(const RunReport& r) {
  const Verdict& v = r.verdict;
  return fmt::format("INTERRUPTED after {} of {} layers: the totals cover those layers only; {}",
                     r.layers.size(), r.layersPlanned,
                     v.checked ? fmt::format("their outputs match the {}, {} elements", v.reference,
                                             groupThousands(v.comparedElements))
                               : "their outputs were not checked");
}

std::string verdictLine(const RunReport& r) {
  const Verdict& v = r.verdict;
  if (r.interrupted && (!v.checked || v.passed))
    return interruptedLine(r);
  if (!v.checked) {
    return "NOT CHECKED: outputs were not compared against a reference";
  }
  const std::string what = fmt::format("{} on {} '{}'", r.model, r.engine, r.config);
  if (v.passed) {
    return fmt::format("VERIFIED: {} matches the {}, {} elements{}", what, v.reference,
                       groupThousands(v.comparedElements),
                       v.detail.empty() ? "" : " (" + v.detail + ")");
  }
  return fmt::format("MISMATCH: {} differs from the {}: {} ({} elements compared)", what,
                     v.reference, v.detail.empty() ? "outputs differ" : v.detail,
                     groupThousands(v.comparedElements));
}

} // namespace

std::string RunReport::technologyLine() const {
  std::string parts;
  for (const auto& [name, mm2] : technology.areaMm2ByComponent)
    parts += fmt::format("{}{} {}%", parts.empty() ? "" : ", ", name,
                         percent(technology.areaMm2 > 0 ? mm2 / technology.areaMm2 : 0.0));
  const double seconds = secondsOf(total.cycles);
  const std::string power = seconds > 0
                                ? fmt::format("; average power {:.3g} W at {} MHz",
                                              energyPerInferencePj() * 1e-12 / seconds, clockMhz)
                                : "";
  return fmt::format("technology: {}; area {:.4g} mm2 ({}); leakage {:.3g} mW; energy per "
                     "inference {:.3f} uJ (dynamic {:.3f}, of which clock network {:.3f}, + static "
                     "{:.3f}){}\n",
                     technologyName(), technology.areaMm2, parts, technology.leakageW * 1e3,
                     energyPerInferencePj() / 1e6, total.energyPj / 1e6, total.energy.clock / 1e6,
                     total.staticEnergyPj / 1e6, power);
}

std::string RunReport::formatTable() const {
  std::string out = fmt::format(
      "{} '{}': {} PEs{} at {} MHz, model {}, {}{}\n", engine, config, groupThousands(peCount),
      peakMacs() != peCount ? fmt::format(" ({} MACs/cycle)", groupThousands(peakMacs())) : "",
      clockMhz, model, dtype, exact ? ", exact array model" : "");
  Table t({{"layer", false},
           {"op", false},
           {"shape", false},
           {"unit", false},
           {"MACs", true},
           {"cycles", true},
           {"busy%", true},
           {"util%", true},
           {"DRAM KiB", true},
           {"energy uJ", true}});
  const std::vector<std::string> keys = metricKeys(layers);
  for (const std::string& key : keys)
    t.addColumn({key, true});
  t.addColumn({"host", false});
  for (const LayerStats& l : layers) {
    t.row(layerCells(l, keys));
  }
  t.rule();
  LayerStats totalRow = total;
  totalRow.name = "total";
  t.row(layerCells(totalRow, keys));
  out += t.render();

  const double micros = clockMhz > 0 ? static_cast<double>(total.cycles) / clockMhz : 0.0;
  out += fmt::format("total: {} cycles ({:.1f} us at {} MHz), {} MACs, utilization {}%, DRAM {} "
                     "bytes, energy {:.3f} uJ\n",
                     groupThousands(total.cycles), micros, clockMhz,
                     groupThousands(total.usefulMacs), percent(total.utilization),
                     groupThousands(total.dram.readBytes + total.dram.writeBytes),
                     total.energyPj / 1e6);
  if (technology.present())
    out += technologyLine();

  for (const auto& [name, value] : summary)
    out += fmt::format("{}: {}\n", name, value);
  const std::string hostNotes = hostFallbackGroups(layers, "  ");
  const auto hostLayers = std::count_if(layers.begin(), layers.end(),
                                        [](const LayerStats& l) { return l.hostFallback; });
  if (!hostNotes.empty()) {
    const auto share = [](double part, double whole) { return whole > 0 ? part / whole : 0.0; };
    out += fmt::format(
        "HOST: {} of {} layers ran on the host, charged by the host model (link transfers and "
        "host compute): {} cycles ({}% of the total), {:.3f} uJ ({}% of the energy):\n",
        hostLayers, layers.size(), groupThousands(total.causes.host),
        percent(share(static_cast<double>(total.causes.host), static_cast<double>(total.cycles))),
        total.energy.host / 1e6, percent(share(total.energy.host, total.energyPj)));
    out += hostNotes;
  }
  if (!baseline.empty()) {
    out += "\n" + baselineSection(baseline);
  }
  return out + "\n" + verdictLine(*this) + "\n";
}

// --- JSON ---------------------------------------------------------------------------------------

namespace {

using Json = nlohmann::ordered_json;

Json trafficJson(const Traffic& t) {
  return Json{{"read_bytes", t.readBytes}, {"write_bytes", t.writeBytes}};
}

Json causesJson(const CycleCauses& c) {
  return Json{{"compute", c.compute},   {"memory", c.memory}, {"fill_drain", c.fillDrain},
              {"conflict", c.conflict}, {"sync", c.sync},     {"idle", c.idle},
              {"host", c.host},         {"other", c.other}};
}

Json energyJson(const EnergyParts& e) {
  return Json{{"compute", e.compute},
              {"on_chip", e.onChip},
              {"interconnect", e.interconnect},
              {"dram", e.dram},
              {"post_process", e.postProcess},
              {"host", e.host},
              {"clock", e.clock},
              {"other", e.other}};
}

Json layerJson(const LayerStats& l) {
  Json breakdown = Json::object();
  for (const auto& [key, cycles] : l.breakdown) {
    breakdown[key] = breakdown.value(key, int64_t{0}) + cycles;
  }
  Json j;
  j["name"] = l.name;
  j["op"] = l.op;
  j["shape"] = l.shape;
  j["unit"] = l.unit;
  j["host_fallback"] = l.hostFallback;
  j["host_bytes"] = l.hostBytes;
  j["note"] = l.note;
  j["useful_macs"] = l.usefulMacs;
  j["effectual_macs"] = l.effectualMacs;
  j["issued_macs"] = l.issuedMacs;
  j["streamed_elements"] = l.streamedElements;
  j["instructions"] = l.instructions;
  j["cycles"] = l.cycles;
  j["busy_cycles"] = l.busyCycles;
  j["stall_cycles"] = l.stallCycles;
  j["breakdown"] = std::move(breakdown);
  j["cycles_by_cause"] = causesJson(l.causes);
  j["sbuf"] = trafficJson(l.sbuf);
  j["psum"] = trafficJson(l.psum);
  j["dram"] = trafficJson(l.dram);
  j["energy_pj"] = l.energyPj;
  j["energy_pj_by_component"] = energyJson(l.energy);
  j["static_energy_pj"] = l.staticEnergyPj;
  j["utilization"] = l.utilization;
  Json metrics = Json::object();
  for (const auto& [key, value] : l.metrics)
    metrics[key] = value;
  j["metrics"] = std::move(metrics);
  Json counts = Json::object();
  for (const auto& [key, value] : l.counts)
    counts[key] = value;
  j["counts"] = std::move(counts);
  return j;
}

Json sideJson(const BaselineRow::Side& s) {
  Json j;
  j["streamed_elements"] = s.streamedElements;
  j["issued_macs"] = s.issuedMacs;
  j["cycles"] = s.cycles;
  j["memory_ops"] = s.memoryOps;
  j["dram"] = trafficJson(s.dram);
  j["sbuf"] = trafficJson(s.sbuf);
  j["energy_pj"] = s.energyPj;
  return j;
}

} // namespace

std::string RunReport::toJson() const {
  Json j;
  j["schema"] = "nnaccel.report";
  j["schema_version"] = kSchemaVersion;
  j["engine"] = engine;
  j["config"] = config;
  j["model"] = model;
  j["dtype"] = dtype;
  j["pe_count"] = peCount;
  j["clock_mhz"] = clockMhz;
  j["peak_macs_per_cycle"] = peakMacsPerCycle;
  j["dram_bytes_per_cycle"] = dramBytesPerCycle;
  j["on_chip_bytes_per_cycle"] = onChipBytesPerCycle;
  j["exact"] = exact;
  if (technology.present()) {
    j["technology"] = {{"node", technology.node}, {"vdd_v", technology.vddV}};
    j["area_mm2"] = technology.areaMm2;
    Json parts = Json::object();
    for (const auto& [name, mm2] : technology.areaMm2ByComponent)
      parts[name] = mm2;
    j["area_mm2_by_component"] = std::move(parts);
    j["leakage_w"] = technology.leakageW;
  } else {
    j["technology"] = nullptr;
    j["area_mm2"] = nullptr;
    j["area_mm2_by_component"] = nullptr;
    j["leakage_w"] = nullptr;
  }
  j["static_energy_pj"] = total.staticEnergyPj;
  j["energy_per_inference_pj"] = energyPerInferencePj();
  const double seconds = secondsOf(total.cycles);
  if (seconds > 0)
    j["average_power_w"] = energyPerInferencePj() * 1e-12 / seconds;
  else
    j["average_power_w"] = nullptr;
  j["layers"] = Json::array();
  for (const LayerStats& l : layers) {
    j["layers"].push_back(layerJson(l));
  }
  j["total"] = layerJson(total);
  j["baseline"] = Json::array();
  for (const BaselineRow& r : baseline) {
    Json row;
    row["layer"] = r.layer;
    row["what"] = r.what;
    row["applicable"] = r.applicable;
    row["method"] = sideJson(r.method);
    row["baseline"] = sideJson(r.baseline);
    j["baseline"].push_back(std::move(row));
  }
  Json summaryJson = Json::object();
  for (const auto& [name, value] : summary)
    summaryJson[name] = value;
  j["summary"] = std::move(summaryJson);
  Json v;
  v["checked"] = verdict.checked;
  v["passed"] = verdict.passed;
  v["reference"] = verdict.reference;
  v["detail"] = verdict.detail;
  v["compared_elements"] = verdict.comparedElements;
  j["verdict"] = std::move(v);
  if (interrupted)
    j["interrupted"] = {{"layers_done", layers.size()}, {"layers_planned", layersPlanned}};
  else
    j["interrupted"] = nullptr;
  j["config_yaml"] = configYaml;
  // Names come from model files: invalid UTF-8 is replaced, never thrown.
  return j.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

// --- CSV ----------------------------------------------------------------------------------------

std::string csvField(const std::string& text) {
  if (text.find_first_of(",\"\r\n") == std::string::npos)
    return text;
  std::string out = "\"";
  for (char ch : text) {
    out += ch;
    if (ch == '"')
      out += '"';
  }
  out += '"';
  return out;
}

namespace {

/// The columns after engine, config, model, dtype and the layer's name (csvHeader's order).
constexpr const char* kLayerColumns =
    "op,unit,host_fallback,useful_macs,effectual_macs,issued_macs,cycles,busy_cycles,stall_cycles,"
    "cause_compute,cause_memory,cause_fill_drain,cause_conflict,cause_sync,cause_idle,"
    "cause_host,cause_other,utilization,sbuf_read_bytes,sbuf_write_bytes,psum_read_bytes,psum_"
    "write_bytes,"
    "dram_read_bytes,dram_write_bytes,energy_pj,energy_compute_pj,energy_on_chip_pj,"
    "energy_interconnect_pj,energy_dram_pj,energy_post_process_pj,energy_host_pj,energy_clock_pj,"
    "energy_other_pj,"
    "static_energy_pj,technology,area_mm2,verified";

} // namespace

std::string RunReport::csvHeader() {
  return fmt::format("schema_version,engine,config,model,dtype,layer,{}\n", kLayerColumns);
}

std::string RunReport::csvNotRunRow(const std::string& engine, const std::string& config,
                                    const std::string& model, const std::string& reason) {
  // kLayerColumns after `op, unit` are figures, up to the final `verified`.
  const std::string columns = kLayerColumns;
  const auto figures = std::count(columns.begin(), columns.end(), ',') - 2;
  return fmt::format("{},{},{},{},,(model),,,{},{}\n", kSchemaVersion, csvField(engine),
                     csvField(config), csvField(model), std::string(figures - 1, ','),
                     csvField(fmt::format("not mapped: {}", reason)));
}

std::string RunReport::toCsvRows() const {
  // Verified: the run's verdict (per-layer checks stop at the first mismatch).
  const std::string verified = verdict.checked && !verdict.passed ? "no"
                               : interrupted                      ? "interrupted"
                               : !verdict.checked                 ? "unchecked"
                                                                  : "yes";
  std::string out;
  const auto row = [&](const LayerStats& l) {
    const CycleCauses& c = l.causes;
    const EnergyParts& e = l.energy;
    out += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},"
                       "{},{},{},{},{},{},"
                       "{},{},{},{},{},{},{},{},{},{},{},{}\n",
                       kSchemaVersion, csvField(engine), csvField(config), csvField(model), dtype,
                       csvField(l.name), csvField(l.op), csvField(l.unit), l.hostFallback ? 1 : 0,
                       l.usefulMacs, l.effectualMacs, l.issuedMacs, l.cycles, l.busyCycles,
                       l.stallCycles, c.compute, c.memory, c.fillDrain, c.conflict, c.sync, c.idle,
                       c.host, c.other, l.utilization, l.sbuf.readBytes, l.sbuf.writeBytes,
                       l.psum.readBytes, l.psum.writeBytes, l.dram.readBytes, l.dram.writeBytes,
                       l.energyPj, e.compute, e.onChip, e.interconnect, e.dram, e.postProcess,
                       e.host, e.clock, e.other, l.staticEnergyPj, csvField(technologyName()),
                       technology.present() ? fmt::format("{}", technology.areaMm2) : "", verified);
  };
  for (const LayerStats& l : layers)
    row(l);
  row(total);
  return out;
}

std::string listWithNotes(const std::vector<std::string>& items, size_t limit) {
  std::string list;
  for (size_t i = 0; i < items.size() && i < limit; ++i)
    list.append(i > 0 ? "; " : "").append(items[i]);
  if (items.size() > limit)
    list.append(fmt::format("; and {} more (see each layer's note)", items.size() - limit));
  return list;
}

std::string hostFallbackGroups(const std::vector<LayerStats>& layers, const std::string& indent,
                               size_t namesShown) {
  // Groups in the order their first layer runs.
  std::vector<std::pair<std::string, std::vector<std::string>>> groups; // "(op): reason", names
  for (const LayerStats& l : layers) {
    if (!l.hostFallback)
      continue;
    const std::string key =
        fmt::format("({}): {}", l.op, l.note.empty() ? "runs on the host" : l.note);
    auto it =
        std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == key; });
    if (it == groups.end())
      it = groups.insert(groups.end(), {key, {}});
    it->second.push_back(l.name);
  }
  std::string out;
  for (const auto& [key, names] : groups) {
    std::string shown;
    for (size_t i = 0; i < names.size() && i < namesShown; ++i)
      shown += (i > 0 ? ", " : "") + names[i];
    if (names.size() > namesShown)
      shown += fmt::format(" and {} more", names.size() - namesShown);
    out += fmt::format("{}{} {} {}: {}\n", indent, names.size(),
                       names.size() == 1 ? "layer" : "layers", key, shown);
  }
  return out;
}

} // namespace nnaccel::report
