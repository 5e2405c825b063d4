/// \file
/// `nnaccel arch list [--json|--csv]` (every registered engine's shipped presets, one summary
/// table per engine in the engine's own columns; as JSON, one record per engine and preset) and
/// `nnaccel arch show ENGINE [--preset NAME | --config FILE]` (the effective config as YAML in
/// the engine's config-file schema, so its output is a starting point for a custom --config
/// file), and `nnaccel arch tech [--node N] [--vdd V] [--json|--csv]` (the technology model's
/// energy and area reference table at a node: docs/Technology.md).
#include "ArchOptions.h"
#include "Command.h"
#include "ListOutput.h"
#include "TextTable.h"
#include "nnaccel/support/Error.h"
#include "nnaccel/tech/Components.h"

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
  }

  void run() override {
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
  ListOutput listOutput_;
  ListOutput techOutput_;
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
