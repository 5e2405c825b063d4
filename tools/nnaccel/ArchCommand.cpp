/// \file
/// `nnaccel arch list` (every registered engine's shipped presets, one summary table per engine
/// in the engine's own columns) and
/// `nnaccel arch show ENGINE [--preset NAME | --config FILE]` (the effective config as YAML in
/// the engine's config-file schema, so its output is a starting point for a custom --config
/// file).
#include "ArchOptions.h"
#include "Command.h"
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

class ArchCommand final : public Command {
public:
  void configure(CLI::App& app) override {
    app.require_subcommand(1);
    list_ = app.add_subcommand("list", "list the accelerator engines and their presets");
    show_ = app.add_subcommand("show", "print an engine's effective config as YAML (the schema "
                                       "of its --config files)");
    show_->add_option("ENGINE", engine_, "accelerator engine")
        ->required()
        ->check(oneOf(engines::engineNames()));
    arch_.configure(*show_, false);
  }

  void run() override {
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
  ArchOptions arch_;
  std::string engine_;
};

} // namespace

std::unique_ptr<Command> makeArchCommand() {
  return std::make_unique<ArchCommand>();
}

} // namespace nnaccel::cli
