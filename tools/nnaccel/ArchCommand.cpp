/// \file
/// `nnaccel arch list [--json|--csv]` (every registered engine's shipped presets, one summary
/// table per engine in the engine's own columns; as JSON, one record per engine and preset) and
/// `nnaccel arch show ENGINE [--preset NAME | --config FILE]` (the effective config as YAML in
/// the engine's config-file schema, so its output is a starting point for a custom --config
/// file).
#include "ArchOptions.h"
#include "Command.h"
#include "ListOutput.h"
#include "TextTable.h"
#include "nnaccel/support/Error.h"

#include <fmt/core.h>
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
  }

  void run() override {
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
  ListOutput listOutput_;
  ArchOptions arch_;
  std::string engine_;
};

} // namespace

std::unique_ptr<Command> makeArchCommand() {
  return std::make_unique<ArchCommand>();
}

} // namespace nnaccel::cli
