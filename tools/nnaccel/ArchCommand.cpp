/// \file
/// `nnaccel arch list` (every engine's shipped presets, one summary table per engine: systolic,
/// sparse, broadcast) and
/// `nnaccel arch show ENGINE [--preset NAME | --config FILE]` (the effective config as YAML in
/// the engine's config-file schema, so its output is a starting point for a custom --config
/// file).
#include "ArchOptions.h"
#include "Command.h"
#include "TextTable.h"
#include "nnaccel/arch/broadcast/Config.h"
#include "nnaccel/arch/sparse/Config.h"
#include "nnaccel/arch/stream/Config.h"
#include "nnaccel/arch/systolic/Config.h"
#include "nnaccel/support/Error.h"

#include <fmt/core.h>
#include <string_view>

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

/// The line under an engine's table: what it is, its default preset, how to see a preset.
void printEngineFooter(std::string_view engine, std::string_view description,
                       std::string_view defaultPreset) {
  fmt::print("{}: {} (default preset: {}); see 'nnaccel arch show {} --preset NAME'\n", engine,
             description, defaultPreset, engine);
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
  printEngineFooter("systolic", "weight-stationary systolic array", kDefaultSystolicPreset);
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
  printEngineFooter("sparse", "SCNN compressed-sparse PE grid", kDefaultSparsePreset);
}

void listBroadcast() {
  TextTable table({{"engine", kLeft},
                   {"preset", kLeft},
                   {"PE columns x PEs", kRight},
                   {"group", kRight},
                   {"MACs/PE", kRight},
                   {"RF in/weight/out", kRight},
                   {"lanes/column", kRight},
                   {"reads/cycle", kRight},
                   {"N", kRight},
                   {"clock MHz", kRight},
                   {"memory B/cycle", kRight},
                   {"peak int8 TOPS", kRight}});
  for (const std::string& name : arch::broadcast::broadcastPresetNames()) {
    const arch::broadcast::BroadcastConfig c = arch::broadcast::broadcastPreset(name);
    table.addRow({"broadcast", name, fmt::format("{}x{}", c.columns, c.pesPerColumn),
                  fmt::format("{} PEs", c.groupSize), std::to_string(c.macLanesPerPe),
                  fmt::format("{}/{}/{}", bytesText(c.inputRfBytes), bytesText(c.weightRfBytes),
                              bytesText(c.outputRfBytes)),
                  fmt::format("{}x{} B", c.lanesPerColumn, c.laneBytes),
                  std::to_string(c.readsPerCycle),
                  c.vectorWidth == 0 ? std::string("auto") : std::to_string(c.vectorWidth),
                  numberText(c.clockMhz), numberText(c.memoryBytesPerCycle),
                  peakTopsText(c.macsPerCycle(), c.clockMhz)});
  }
  fmt::print("{}", table.render());
  printEngineFooter("broadcast", "1xN kernel decomposition with activation broadcasting",
                    kDefaultBroadcastPreset);
}

void listStream() {
  TextTable table({{"engine", kLeft},
                   {"preset", kLeft},
                   {"rows", kRight},
                   {"kernel tiles", kRight},
                   {"aux tiles", kRight},
                   {"tile", kRight},
                   {"weight pairs", kRight},
                   {"max width", kRight},
                   {"chips", kRight},
                   {"clock MHz", kRight},
                   {"peak int8 TOPS", kRight}});
  for (const std::string& name : arch::stream::streamPresetNames()) {
    const arch::stream::StreamConfig c = arch::stream::streamPreset(name);
    table.addRow({"stream", name, std::to_string(c.rows), std::to_string(c.kernelTileCount()),
                  std::to_string(c.auxTileCount()),
                  fmt::format("{}x{}, {}x{} lanes", c.kernelSize, c.kernelSize, c.lanes, c.lanes),
                  std::to_string(c.weightStorePairs), std::to_string(c.maxArrayWidthPositions),
                  std::to_string(c.chips), numberText(c.clockMhz),
                  peakTopsText(c.macsPerCycle(), c.clockMhz)});
  }
  fmt::print("{}", table.render());
  printEngineFooter("stream", "everted pixel-synchronous pipeline of duplicate 3x3 tiles",
                    kDefaultStreamPreset);
}

/// One engine of `arch list` and `arch show`, in kEngines order.
struct EngineEntry {
  std::string_view name;
  void (*list)();                              ///< prints its preset table and footer
  std::string (*showYaml)(const ArchOptions&); ///< the effective config as YAML
};

const EngineEntry kEngineEntries[] = {
    {"systolic", listSystolic,
     [](const ArchOptions& a) { return arch::systolic::toYaml(a.systolicConfig()); }},
    {"sparse", listSparse,
     [](const ArchOptions& a) { return arch::sparse::toYaml(a.sparseConfig()); }},
    {"broadcast", listBroadcast,
     [](const ArchOptions& a) { return arch::broadcast::toYaml(a.broadcastConfig()); }},
    {"stream", listStream,
     [](const ArchOptions& a) { return arch::stream::toYaml(a.streamConfig()); }},
};

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
      for (const EngineEntry& e : kEngineEntries) {
        if (&e != &kEngineEntries[0]) {
          fmt::print("\n");
        }
        e.list();
      }
      return;
    }
    arch_.setEngine(engine_);
    for (const EngineEntry& e : kEngineEntries) {
      if (e.name == arch_.engine()) {
        fmt::print("{}", e.showYaml(arch_));
        return;
      }
    }
    NNACCEL_UNREACHABLE("ENGINE is checked against kEngines");
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
