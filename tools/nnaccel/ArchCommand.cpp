/// \file
/// `nnaccel arch list` (the engines and their shipped presets, one summary row each) and
/// `nnaccel arch show ENGINE [--preset NAME | --config FILE]` (the effective config as YAML in
/// the config-file schema, so its output is a starting point for a custom --config file).
#include "ArchOptions.h"
#include "Command.h"
#include "TextTable.h"
#include "nnaccel/arch/systolic/Config.h"

#include <fmt/core.h>

namespace nnaccel::cli {

namespace {

/// 16384 -> "16 KiB", 2097152 -> "2 MiB", 1000 -> "1000 B".
std::string bytesText(int64_t bytes) {
  if (bytes >= (int64_t{1} << 20) && bytes % (int64_t{1} << 20) == 0) {
    return fmt::format("{} MiB", bytes >> 20);
  }
  if (bytes >= 1024 && bytes % 1024 == 0) {
    return fmt::format("{} KiB", bytes >> 10);
  }
  return fmt::format("{} B", bytes);
}

void listEngines() {
  constexpr auto kLeft = TextTable::Align::Left;
  constexpr auto kRight = TextTable::Align::Right;
  TextTable table({{"engine", kLeft},
                   {"preset", kLeft},
                   {"PE array", kRight},
                   {"SBUF/partition", kRight},
                   {"PSUM/column", kRight},
                   {"max tile", kRight},
                   {"clock MHz", kRight},
                   {"DRAM B/cycle", kRight},
                   {"peak int8 TOPS", kRight}});
  for (const std::string& name : arch::systolic::systolicPresetNames()) {
    const arch::systolic::SystolicConfig c = arch::systolic::systolicPreset(name);
    const double peakTops = 2.0 * static_cast<double>(c.peRows * c.peCols) * c.clockMhz / 1e6;
    table.addRow(
        {"systolic", name, fmt::format("{}x{}", c.peRows, c.peCols),
         bytesText(c.sbufBytesPerPartition), fmt::format("{} entries", c.psumEntriesPerColumn),
         fmt::format("{}x{}", c.psumMaxTileRows, c.psumMaxTileCols), numberText(c.clockMhz),
         numberText(c.dramBytesPerCycle), fmt::format("{:.2f}", peakTops)});
  }
  fmt::print("{}", table.render());
  fmt::print("systolic: weight-stationary systolic array (default preset: {}); see 'nnaccel arch "
             "show systolic --preset NAME'\n",
             kDefaultSystolicPreset);
}

class ArchCommand final : public Command {
public:
  void configure(CLI::App& app) override {
    app.require_subcommand(1);
    list_ = app.add_subcommand("list", "list the accelerator engines and their presets");
    show_ = app.add_subcommand("show", "print an engine's effective config as YAML (the schema "
                                       "of --config files)");
    show_->add_option("ENGINE", engine_, "accelerator engine")
        ->required()
        ->check(CLI::IsMember({"systolic"}));
    arch_.configure(*show_, false);
  }

  void run() override {
    if (list_->parsed()) {
      listEngines();
      return;
    }
    fmt::print("{}", arch::systolic::toYaml(arch_.systolicConfig()));
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
