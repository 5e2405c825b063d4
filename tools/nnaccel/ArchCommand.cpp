/// \file
/// `nnaccel arch list` (every engine's shipped presets, one summary table per engine) and
/// `nnaccel arch show ENGINE [--preset NAME | --config FILE]` (the effective config as YAML in
/// the engine's config-file schema, so its output is a starting point for a custom --config
/// file).
#include "ArchOptions.h"
#include "Command.h"
#include "TextTable.h"
#include "nnaccel/arch/sparse/Config.h"
#include "nnaccel/arch/systolic/Config.h"

#include <fmt/core.h>

namespace nnaccel::cli {

namespace {

constexpr auto kLeft = TextTable::Align::Left;
constexpr auto kRight = TextTable::Align::Right;

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

/// Peak int8 throughput in TOPS (every multiplier busy, a multiply-accumulate counting as two
/// operations), to 6 significant digits: 16x16 PEs at 1000 MHz -> "0.512".
std::string peakTopsText(int64_t multipliers, double clockMhz) {
  return numberText(2.0 * static_cast<double>(multipliers) * clockMhz / 1e6);
}

void listSystolic() {
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
    table.addRow(
        {"systolic", name, fmt::format("{}x{}", c.peRows, c.peCols),
         bytesText(c.sbufBytesPerPartition), fmt::format("{} entries", c.psumEntriesPerColumn),
         fmt::format("{}x{}", c.psumMaxTileRows, c.psumMaxTileCols), numberText(c.clockMhz),
         numberText(c.dramBytesPerCycle), peakTopsText(c.peRows * c.peCols, c.clockMhz)});
  }
  fmt::print("{}", table.render());
  fmt::print("systolic: weight-stationary systolic array (default preset: {}); see 'nnaccel arch "
             "show systolic --preset NAME'\n",
             kDefaultSystolicPreset);
}

void listSparse() {
  TextTable table({{"engine", kLeft},
                   {"preset", kLeft},
                   {"PE grid", kRight},
                   {"mults/PE (FxI)", kRight},
                   {"accumulators/PE", kRight},
                   {"weight FIFO", kRight},
                   {"IA/OA RAM", kRight},
                   {"clock MHz", kRight},
                   {"DRAM B/cycle", kRight},
                   {"peak int8 TOPS", kRight}});
  for (const std::string& name : arch::sparse::sparsePresetNames()) {
    const arch::sparse::SparseConfig c = arch::sparse::sparsePreset(name);
    table.addRow({"sparse", name, fmt::format("{}x{}", c.peRows, c.peCols),
                  fmt::format("{}x{}", c.weightsPerVector, c.activationsPerVector),
                  fmt::format("{} banks x {}", c.accumulatorBanks, c.accumulatorBankEntries),
                  fmt::format("{} vectors", c.weightFifoEntries),
                  fmt::format("{}/{}", bytesText(c.iaRamBytes), bytesText(c.oaRamBytes)),
                  numberText(c.clockMhz), numberText(c.dramBytesPerCycle),
                  peakTopsText(c.peCount() * c.multipliersPerPe(), c.clockMhz)});
  }
  fmt::print("{}", table.render());
  fmt::print("sparse: SCNN compressed-sparse PE grid (default preset: {}); see 'nnaccel arch show "
             "sparse --preset NAME'\n",
             kDefaultSparsePreset);
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
        ->check(CLI::IsMember(kEngines));
    arch_.configure(*show_, false);
  }

  void run() override {
    if (list_->parsed()) {
      listSystolic();
      fmt::print("\n");
      listSparse();
      return;
    }
    arch_.setEngine(engine_);
    if (arch_.engine() == "sparse") {
      fmt::print("{}", arch::sparse::toYaml(arch_.sparseConfig()));
    } else {
      fmt::print("{}", arch::systolic::toYaml(arch_.systolicConfig()));
    }
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
