/// \file
/// `nnaccel arch list [--json|--csv]` (every registered engine's shipped presets, one summary
/// table per engine in the engine's own columns; as JSON, one record per engine and preset) and
/// `nnaccel arch show ENGINE [--preset NAME | --config FILE]` (the effective config as YAML in
/// the engine's config-file schema, so its output is a starting point for a custom --config
/// file), `nnaccel arch tech [--node N] [--vdd V] [--json|--csv]` (the technology model's
/// energy and area reference table at a node: docs/Technology.md), and `nnaccel arch cost
/// ENGINE [--preset NAME | --config FILE] [--json]` (a config priced through it: its components'
/// area, leakage and per-action energy, and each event's price).
#include "ArchOptions.h"
#include "Command.h"
#include "ListOutput.h"
#include "TextTable.h"
#include "nnaccel/support/Error.h"
#include "nnaccel/tech/Components.h"
#include "nnaccel/tech/Dram.h"

#include <fmt/core.h>
#include <optional>
#include <vector>

namespace nnaccel::cli {

namespace {

/// One engine's `arch list` table (its own columns from the registry, one row per preset) and
/// the line under it: what it is, its default preset, how to see a preset.
void listEngine(const engines::Engine& e) {
  const engines::PresetSummary summary = e.presetSummary();
  std::vector<TextTable::Column> columns = {{"engine", TextTable::Align::Left},
                                            {"preset", TextTable::Align::Left}};
  for (const std::string& c : summary.columns)
    columns.push_back({c, TextTable::Align::Right});
  TextTable table(columns);
  const std::vector<std::string> presets = e.presetNames();
  for (size_t i = 0; i < summary.rows.size(); ++i) {
    std::vector<std::string> row = {e.name(), presets.at(i)};
    row.insert(row.end(), summary.rows[i].begin(), summary.rows[i].end());
    table.addRow(row);
  }
  fmt::print("{}", table.render());
  fmt::print("{}: {} (default preset: {}); see 'nnaccel arch show {} --preset NAME'\n", e.name(),
             e.description(), e.defaultPreset(), e.name());
}

/// One record per engine and preset: the engine's description and default, the preset, and the
/// engine's own summary columns under their names.
nlohmann::ordered_json presetRecords() {
  nlohmann::ordered_json records = nlohmann::ordered_json::array();
  for (const engines::Engine* e : engines::allEngines()) {
    const engines::PresetSummary summary = e->presetSummary();
    const std::vector<std::string> presets = e->presetNames();
    for (size_t i = 0; i < summary.rows.size(); ++i) {
      nlohmann::ordered_json r = {{"engine", e->name()},
                                  {"preset", presets.at(i)},
                                  {"default", presets.at(i) == e->defaultPreset()},
                                  {"description", e->description()}};
      for (size_t c = 0; c < summary.columns.size(); ++c)
        r[summary.columns[c]] = summary.rows[i].at(c);
      records.push_back(std::move(r));
    }
  }
  return records;
}

/// One record per reference component at \p at: per-action energies, area, leakage, source.
nlohmann::ordered_json techRecords(const tech::ProcessNode& at) {
  nlohmann::ordered_json records = nlohmann::ordered_json::array();
  for (const tech::ComponentSpec& s : tech::referenceComponents()) {
    const tech::ComponentCost c = tech::costOf(s, at);
    records.push_back({{"node", at.name},
                       {"vdd_v", at.vddV},
                       {"component", tech::describe(s)},
                       {"class", tech::componentClassName(s.cls)},
                       {"read_energy_pj", c.readEnergyPj},
                       {"write_energy_pj", c.writeEnergyPj},
                       {"area_um2", c.areaUm2},
                       {"leakage_uw", c.leakageW * 1e6},
                       {"source", c.source}});
  }
  return records;
}

void printTechTable(const tech::ProcessNode& at) {
  TextTable table({{"component", TextTable::Align::Left},
                   {"action pJ", TextTable::Align::Right},
                   {"write pJ", TextTable::Align::Right},
                   {"area um2", TextTable::Align::Right},
                   {"leakage uW", TextTable::Align::Right},
                   {"source", TextTable::Align::Left}});
  for (const nlohmann::ordered_json& r : techRecords(at)) {
    const double write = r["write_energy_pj"].get<double>();
    table.addRow({r["component"].get<std::string>(),
                  fmt::format("{:.4g}", r["read_energy_pj"].get<double>()),
                  write > 0 ? fmt::format("{:.4g}", write) : "-",
                  fmt::format("{:.5g}", r["area_um2"].get<double>()),
                  fmt::format("{:.3g}", r["leakage_uw"].get<double>()),
                  r["source"].get<std::string>()});
  }
  fmt::print("technology {} at {} V (supply: {}); an adder's or multiplier's action is one "
             "operation, storage's one read of its width\n",
             at.name, at.vddV, at.vddSource);
  fmt::print("{}", table.render());
  fmt::print("scaled from each source's node by the Stillmaker-Baas equations; sources and "
             "choices: docs/Technology.md\n");
}

/// One record per DRAM standard: one channel's organisation, bandwidth, timings and energies.
nlohmann::ordered_json dramRecords() {
  nlohmann::ordered_json records = nlohmann::ordered_json::array();
  for (const std::string& name : tech::dramStandardNames()) {
    const tech::DramStandard& d = tech::dramStandard(name);
    records.push_back({{"standard", d.name},
                       {"channel", d.organisation},
                       {"peak_gb_per_s", d.peakBytesPerNs()},
                       {"banks", d.banks},
                       {"row_bytes", d.rowBytes},
                       {"burst_bytes", d.burstBytes},
                       {"trcd_ns", d.tRcdNs},
                       {"tcl_ns", d.tClNs},
                       {"trp_ns", d.tRpNs},
                       {"tras_ns", d.tRasNs},
                       {"activate_pj", d.activatePj},
                       {"read_pj_per_bit", d.readPjPerBit},
                       {"write_pj_per_bit", d.writePjPerBit},
                       {"io_read_pj_per_bit", d.ioReadPjPerBit},
                       {"io_write_pj_per_bit", d.ioWritePjPerBit},
                       {"phy_pj_per_bit", d.phyPjPerBit},
                       {"source", d.source}});
  }
  return records;
}

void printDramTable() {
  TextTable table({{"standard", TextTable::Align::Left},
                   {"GB/s", TextTable::Align::Right},
                   {"banks", TextTable::Align::Right},
                   {"row B", TextTable::Align::Right},
                   {"tRCD/CL/tRP/tRAS ns", TextTable::Align::Right},
                   {"activate pJ", TextTable::Align::Right},
                   {"core r/w pJ/bit", TextTable::Align::Right},
                   {"I/O r/w pJ/bit", TextTable::Align::Right},
                   {"PHY pJ/bit", TextTable::Align::Right},
                   {"channel", TextTable::Align::Left}});
  for (const nlohmann::ordered_json& r : dramRecords())
    table.addRow(
        {r["standard"].get<std::string>(), fmt::format("{:.1f}", r["peak_gb_per_s"].get<double>()),
         std::to_string(r["banks"].get<int64_t>()), std::to_string(r["row_bytes"].get<int64_t>()),
         fmt::format("{:.1f}/{:.1f}/{:.1f}/{:.1f}", r["trcd_ns"].get<double>(),
                     r["tcl_ns"].get<double>(), r["trp_ns"].get<double>(),
                     r["tras_ns"].get<double>()),
         fmt::format("{:.0f}", r["activate_pj"].get<double>()),
         fmt::format("{:.2f}/{:.2f}", r["read_pj_per_bit"].get<double>(),
                     r["write_pj_per_bit"].get<double>()),
         fmt::format("{:.2f}/{:.2f}", r["io_read_pj_per_bit"].get<double>(),
                     r["io_write_pj_per_bit"].get<double>()),
         fmt::format("{:.2f}", r["phy_pj_per_bit"].get<double>()),
         r["channel"].get<std::string>()});
  fmt::print("DRAM standards, one channel each (energies above background: the device's core "
             "and I/O from datasheet currents or termination, the controller's PHY from "
             "CACTI-IO)\n{}",
             table.render());
  fmt::print("sources: each record's 'source' (--json) and docs/Technology.md \"DRAM\"\n");
}

nlohmann::ordered_json costJson(const std::string& engine, const std::string& config,
                                const engines::CostTable& t) {
  nlohmann::ordered_json j = {{"engine", engine},
                              {"config", config},
                              {"technology", {{"node", t.node}, {"vdd_v", t.vddV}}}};
  double areaMm2 = 0, leakageW = 0;
  nlohmann::ordered_json parts = nlohmann::ordered_json::array();
  for (const engines::CostTable::Component& c : t.components) {
    const auto n = static_cast<double>(c.count);
    areaMm2 += c.areaUm2 * n * 1e-6;
    leakageW += c.leakageW * n;
    parts.push_back({{"name", c.name},
                     {"group", c.group},
                     {"component", c.what},
                     {"count", c.count},
                     {"action_energy_pj", c.actionPj},
                     {"write_energy_pj", c.writePj},
                     {"area_um2_each", c.areaUm2},
                     {"area_mm2", c.areaUm2 * n * 1e-6},
                     {"leakage_w", c.leakageW * n},
                     {"source", c.source}});
  }
  j["area_mm2"] = areaMm2;
  j["leakage_w"] = leakageW;
  j["components"] = std::move(parts);
  nlohmann::ordered_json events = nlohmann::ordered_json::array();
  for (const engines::CostTable::Event& e : t.events)
    events.push_back({{"key", e.key}, {"pj", e.pj}, {"basis", e.basis}});
  j["events"] = std::move(events);
  return j;
}

void printCostTable(const nlohmann::ordered_json& j) {
  fmt::print("{} '{}' at {} ({} V): area {:.4g} mm2, leakage {:.3g} mW\n",
             j["engine"].get<std::string>(), j["config"].get<std::string>(),
             j["technology"]["node"].get<std::string>(), j["technology"]["vdd_v"].get<double>(),
             j["area_mm2"].get<double>(), j["leakage_w"].get<double>() * 1e3);
  TextTable parts({{"component", TextTable::Align::Left},
                   {"group", TextTable::Align::Left},
                   {"is", TextTable::Align::Left},
                   {"count", TextTable::Align::Right},
                   {"action pJ", TextTable::Align::Right},
                   {"write pJ", TextTable::Align::Right},
                   {"area mm2", TextTable::Align::Right},
                   {"leakage mW", TextTable::Align::Right}});
  for (const nlohmann::ordered_json& c : j["components"]) {
    const double write = c["write_energy_pj"].get<double>();
    parts.addRow({c["name"].get<std::string>(), c["group"].get<std::string>(),
                  c["component"].get<std::string>(), std::to_string(c["count"].get<int64_t>()),
                  fmt::format("{:.4g}", c["action_energy_pj"].get<double>()),
                  write > 0 ? fmt::format("{:.4g}", write) : "-",
                  fmt::format("{:.4g}", c["area_mm2"].get<double>()),
                  fmt::format("{:.3g}", c["leakage_w"].get<double>() * 1e3)});
  }
  fmt::print("{}", parts.render());
  TextTable events({{"energy key", TextTable::Align::Left},
                    {"pJ", TextTable::Align::Right},
                    {"from", TextTable::Align::Left}});
  for (const nlohmann::ordered_json& e : j["events"])
    events.addRow({e["key"].get<std::string>(), fmt::format("{:.4g}", e["pj"].get<double>()),
                   e["basis"].get<std::string>()});
  fmt::print("\n{}", events.render());
  fmt::print("components: docs/Technology.md (sources) and the engine's design notes (which "
             "components an event uses); a number under 'energy:' overrides an event\n");
}

class ArchCommand final : public Command {
public:
  void configure(CLI::App& app) override {
    app.require_subcommand(1);
    list_ = app.add_subcommand("list", "list the accelerator engines and their presets");
    listOutput_.configure(*list_, "one record per engine and preset");
    show_ = app.add_subcommand("show", "print an engine's effective config as YAML (the schema "
                                       "of its --config files)");
    show_->add_option("ENGINE", engine_, "accelerator engine")
        ->required()
        ->check(oneOf(engines::engineNames()));
    arch_.configure(*show_, false);
    tech_ = app.add_subcommand("tech", "print the technology model's energy and area reference "
                                       "table at a process node");
    tech_->add_option("--node", node_, "process node")
        ->check(oneOf(tech::nodeNames()))
        ->capture_default_str();
    tech_->add_option("--vdd", vddV_, "supply voltage in V (default: the node's nominal)");
    techOutput_.configure(*tech_, "one record per component");
    dram_ = app.add_subcommand("dram", "print the DRAM standards of the technology model: one "
                                       "channel's bandwidth, banks, row, timings and energies");
    dramOutput_.configure(*dram_, "one record per standard");
    cost_ = app.add_subcommand("cost", "price an engine config through the technology model: "
                                       "its components' area, leakage and energy per action, and "
                                       "each event's energy");
    cost_->add_option("ENGINE", costEngine_, "accelerator engine")
        ->required()
        ->check(oneOf(engines::engineNames()));
    costArch_.configure(*cost_, false);
    cost_->add_flag("--json", costJson_, "print the table as one JSON object");
  }

  void run() override {
    if (cost_->parsed()) {
      costArch_.setEngine(costEngine_);
      const engines::EngineConfig config = costArch_.engineConfig();
      const std::optional<engines::CostTable> t = costArch_.implementation().costTable(config);
      if (!t)
        throw Error(ErrorKind::Unsupported, {},
                    fmt::format("the {} engine still prices its events with its own 'energy:' "
                                "table; it has no technology description yet",
                                costEngine_));
      const nlohmann::ordered_json j = costJson(costEngine_, config.name(), *t);
      if (costJson_)
        fmt::print("{}\n", j.dump(2));
      else
        printCostTable(j);
      return;
    }
    if (dram_->parsed()) {
      if (dramOutput_.table())
        printDramTable();
      else
        dramOutput_.print(dramRecords());
      return;
    }
    if (tech_->parsed()) {
      const tech::ProcessNode at = tech::node(node_, vddV_);
      if (techOutput_.table())
        printTechTable(at);
      else
        techOutput_.print(techRecords(at));
      return;
    }
    if (list_->parsed() && !listOutput_.table()) {
      listOutput_.print(presetRecords());
      return;
    }
    if (list_->parsed()) {
      const std::vector<const engines::Engine*> all = engines::allEngines();
      for (const engines::Engine* e : all) {
        if (e != all.front())
          fmt::print("\n");
        listEngine(*e);
      }
      return;
    }
    arch_.setEngine(engine_);
    fmt::print("{}", arch_.engineConfig().toYaml());
  }

private:
  CLI::App* list_ = nullptr;
  CLI::App* show_ = nullptr;
  CLI::App* tech_ = nullptr;
  CLI::App* dram_ = nullptr;
  CLI::App* cost_ = nullptr;
  ArchOptions costArch_;
  std::string costEngine_;
  bool costJson_ = false;
  ListOutput listOutput_;
  ListOutput techOutput_;
  ListOutput dramOutput_;
  std::string node_ = "45nm";
  std::optional<double> vddV_;
  ArchOptions arch_;
  std::string engine_;
};

} // namespace

std::unique_ptr<Command> makeArchCommand() {
  return std::make_unique<ArchCommand>();
}

} // namespace nnaccel::cli
