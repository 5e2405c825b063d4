/// \file
/// The compare budget: its schema (one walk used to read, check and print it), the embedded
/// default, and the derivation of each engine's config from it (docs/Compare.md). A derived
/// config is the preset with the budget's keys applied through the engine's schema
/// (engines::applyOverrides), so its checks are the engine's own.
#include "nnaccel/compare/Budget.h"

#include "nnaccel/arch/common/ConfigReader.h"
#include "nnaccel/arch/common/Presets.h"
#include "nnaccel/support/Error.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <span>

namespace nnaccel::compare {

namespace detail {
std::span<const arch::common::EmbeddedConfig> budgetFiles(); // generated from configs/budgets
} // namespace detail

namespace {

using arch::common::IntRange;
using arch::common::RealRange;

constexpr IntRange kMultipliers{1, int64_t{1} << 30};
constexpr IntRange kSramBytes{1024, int64_t{1} << 40};
constexpr RealRange kPositive{0.0, true};

/// A fraction in (0, 1): checked after the walk (RealRange has no upper bound).
void checkShare(const arch::common::ConfigPath& path, const std::string& key, double share) {
  if (!(share > 0.0 && share < 1.0))
    path.fail(key, fmt::format("must be between 0 and 1, exclusive (got {})", share));
}

template <typename Visitor, typename B> void walkSchema(Visitor& v, B& b) {
  v.text("name", b.name);
  v.integer("multipliers", b.multipliers, kMultipliers);
  v.integer("sram_bytes", b.sramBytes, kSramBytes);
  v.real("clock_mhz", b.clockMhz, kPositive);
  v.real("dram_bytes_per_cycle", b.dramBytesPerCycle, kPositive);
  v.section("systolic", [&] {
    v.text("preset", b.systolicPreset);
    v.real("rows_per_col", b.systolicRowsPerCol, kPositive);
    v.real("psum_share", b.systolicPsumShare, kPositive);
  });
  v.section("sparse", [&] {
    v.text("preset", b.sparsePreset);
    v.real("ia_share", b.sparseIaShare, kPositive);
  });
  v.section("broadcast", [&] { v.text("preset", b.broadcastPreset); });
  v.section("stream", [&] { v.text("preset", b.streamPreset); });
}

void checkPreset(const arch::common::ConfigPath& path, const std::string& engine,
                 const std::string& preset) {
  const std::vector<std::string> names = engines::presetNames(engine);
  if (std::find(names.begin(), names.end(), preset) == names.end())
    path.fail(engine + ".preset", fmt::format("unknown {} preset '{}' (expected one of: {})",
                                              engine, preset, fmt::join(names, ", ")));
}

void validate(const Budget& b, const std::string& file) {
  arch::common::ConfigPath path(file);
  checkShare(path, "systolic.psum_share", b.systolicPsumShare);
  checkShare(path, "sparse.ia_share", b.sparseIaShare);
  checkPreset(path, "systolic", b.systolicPreset);
  checkPreset(path, "sparse", b.sparsePreset);
  checkPreset(path, "broadcast", b.broadcastPreset);
  checkPreset(path, "stream", b.streamPreset);
}

Budget parseOver(const Budget& base, const std::string& yamlText, const std::string& file) {
  Budget b = arch::common::parseConfigOver(
      base, yamlText, file, [](auto& reader, Budget& x) { walkSchema(reader, x); },
      [](const Budget& x, const std::string& f) { validate(x, f); });
  b.file = file;
  return b;
}

[[noreturn]] void refuse(const Budget& b, const std::string& engine, const std::string& reason) {
  throw Error(ErrorKind::Config, ErrorContext{.file = b.file, .key = engine}, reason);
}

std::string integer(int64_t v) {
  return std::to_string(v);
}
std::string real(double v) {
  return fmt::format("{}", v);
}

engines::EngineConfig derived(const Budget& b, const std::string& engine, const std::string& preset,
                              std::vector<engines::Override> keys) {
  // Named for what it is: the preset reshaped by the budget, never the preset itself.
  std::string name = fmt::format("{}@budget:{}", preset, b.name);
  std::string quoted = "\""; // a YAML double-quoted scalar: whatever the budget's name holds
  for (char ch : name) {
    if (ch == '"' || ch == '\\')
      quoted += '\\';
    quoted += ch;
  }
  keys.push_back({"name", quoted + "\""});
  try {
    return engines::applyOverrides(engines::loadPreset(engine, preset), keys,
                                   fmt::format("{} (budget for {})", b.file, engine));
  } catch (const Error& e) {
    const std::string key = e.context().key.empty() ? "" : fmt::format("'{}': ", e.context().key);
    refuse(b, engine,
           fmt::format("the budget gives an impossible {} config: {}{}", engine, key, e.reason()));
  }
}

engines::EngineConfig deriveSystolic(const Budget& b) {
  // rows x cols = multipliers, rows as close to sqrt(multipliers x aspect) as divides.
  const double ideal = std::sqrt(static_cast<double>(b.multipliers) * b.systolicRowsPerCol);
  int64_t rows = 0;
  const auto distance = [&](int64_t d) { return std::fabs(static_cast<double>(d) - ideal); };
  const auto consider = [&](int64_t d) {
    if (rows == 0 || distance(d) < distance(rows) || (distance(d) == distance(rows) && d < rows))
      rows = d;
  };
  for (int64_t d = 1; d * d <= b.multipliers; ++d)
    if (b.multipliers % d == 0) {
      consider(d);
      consider(b.multipliers / d);
    }
  const int64_t cols = b.multipliers / rows;
  const auto psumBytes =
      static_cast<int64_t>(static_cast<double>(b.sramBytes) * b.systolicPsumShare);
  const int64_t entries = psumBytes / (cols * 4);
  const int64_t sbufPerPartition = (b.sramBytes - psumBytes) / rows;
  const engines::EngineConfig base = engines::loadPreset("systolic", b.systolicPreset);
  const auto& p = std::get<arch::systolic::SystolicConfig>(base.variant());
  // The largest PSUM tile keeps the preset's column count and as many rows as fit.
  const int64_t tileCols = std::min(p.psumMaxTileCols, std::max<int64_t>(1, entries));
  const int64_t tileRows = std::max<int64_t>(1, std::min(p.psumMaxTileRows, entries / tileCols));
  return derived(b, "systolic", b.systolicPreset,
                 {{"clock_mhz", real(b.clockMhz)},
                  {"array.rows", integer(rows)},
                  {"array.cols", integer(cols)},
                  {"array.weight_load_cycles", integer(rows)},
                  {"sbuf.bytes_per_partition", integer(sbufPerPartition)},
                  {"psum.entries_per_column", integer(entries)},
                  {"psum.max_tile_rows", integer(tileRows)},
                  {"psum.max_tile_cols", integer(tileCols)},
                  {"dram.bytes_per_cycle", real(b.dramBytesPerCycle)}});
}

engines::EngineConfig deriveSparse(const Budget& b) {
  const engines::EngineConfig base = engines::loadPreset("sparse", b.sparsePreset);
  const auto& p = std::get<arch::sparse::SparseConfig>(base.variant());
  const int64_t perPe = p.multipliersPerPe();
  if (b.multipliers % perPe != 0)
    refuse(b, "sparse",
           fmt::format("{} multipliers are not a whole number of {} PEs ({} x {} multipliers "
                       "each)",
                       b.multipliers, b.sparsePreset, p.weightsPerVector, p.activationsPerVector));
  const int64_t pes = b.multipliers / perPe;
  int64_t rows = 1;
  for (int64_t d = 1; d * d <= pes; ++d)
    if (pes % d == 0)
      rows = d;
  const int64_t cols = pes / rows;
  const engines::Resources preset = engines::resources(base);
  // What a PE keeps besides its RAMs (weight FIFO, accumulators) is fixed by the preset.
  const int64_t fixedPerPe = preset.sramBytes / p.peCount() - p.iaRamBytes - p.oaRamBytes;
  const int64_t ramPerPe = b.sramBytes / pes - fixedPerPe;
  if (ramPerPe < 2)
    refuse(b, "sparse",
           fmt::format("{} SRAM bytes over {} PEs leave no activation RAM after each PE's "
                       "{}-byte weight FIFO and accumulators",
                       b.sramBytes, pes, fixedPerPe));
  const auto ia = static_cast<int64_t>(static_cast<double>(ramPerPe) * b.sparseIaShare);
  return derived(b, "sparse", b.sparsePreset,
                 {{"clock_mhz", real(b.clockMhz)},
                  {"pe_array.rows", integer(rows)},
                  {"pe_array.cols", integer(cols)},
                  {"buffers.ia_ram_bytes", integer(ia)},
                  {"buffers.oa_ram_bytes", integer(ramPerPe - ia)},
                  {"dram.bytes_per_cycle", real(b.dramBytesPerCycle)}});
}

engines::EngineConfig deriveBroadcast(const Budget& b) {
  const engines::EngineConfig base = engines::loadPreset("broadcast", b.broadcastPreset);
  const auto& p = std::get<arch::broadcast::BroadcastConfig>(base.variant());
  const int64_t perColumn = p.pesPerColumn * p.macLanesPerPe;
  if (b.multipliers % perColumn != 0)
    refuse(b, "broadcast",
           fmt::format("{} multipliers are not a whole number of {} PE columns ({} PEs x {} MAC "
                       "lanes each)",
                       b.multipliers, b.broadcastPreset, p.pesPerColumn, p.macLanesPerPe));
  const int64_t columns = b.multipliers / perColumn;
  const int64_t pes = columns * p.pesPerColumn;
  // The weight RFs take what the input/output RFs and column buffers leave.
  const int64_t weightRf =
      (b.sramBytes - columns * p.columnBufferBytes) / pes - p.inputRfBytes - p.outputRfBytes;
  if (weightRf < 1)
    refuse(b, "broadcast",
           fmt::format("{} SRAM bytes leave no weight register file for {} PEs", b.sramBytes, pes));
  return derived(b, "broadcast", b.broadcastPreset,
                 {{"clock_mhz", real(b.clockMhz)},
                  {"pe_array.columns", integer(columns)},
                  {"register_files.weight_bytes", integer(weightRf)},
                  {"memory.bytes_per_cycle", real(b.dramBytesPerCycle)}});
}

engines::EngineConfig deriveStream(const Budget& b) {
  const engines::EngineConfig base = engines::loadPreset("stream", b.streamPreset);
  const auto& p = std::get<arch::stream::StreamConfig>(base.variant());
  const int64_t perChip = p.macsPerCycle() / p.chips;
  const int64_t chips = b.multipliers / perChip;
  if (chips >= 1 && b.multipliers % perChip != 0)
    refuse(b, "stream",
           fmt::format("{} multipliers are not a whole number of {} chips ({} multiply-select "
                       "cells each; {} or {} would be)",
                       b.multipliers, b.streamPreset, perChip, chips * perChip,
                       (chips + 1) * perChip));
  if (chips < 1)
    refuse(b, "stream",
           fmt::format("{} multipliers are less than one {} chip's {} multiply-select cells "
                       "({} kernel tiles x {}x{} positions x {}x{} lanes): the stream design "
                       "spends a cell on every weight of the model",
                       b.multipliers, b.streamPreset, perChip, p.kernelTileCount(), p.kernelSize,
                       p.kernelSize, p.lanes, p.lanes));
  return derived(b, "stream", b.streamPreset,
                 {{"clock_mhz", real(b.clockMhz)}, {"chips.count", integer(chips)}});
}

} // namespace

Budget parseBudget(const std::string& yamlText, const std::string& file) {
  Budget base = defaultBudget();
  base.name = "custom";
  return parseOver(base, yamlText, file);
}

Budget defaultBudget() {
  static const Budget kDefault = [] {
    for (const arch::common::EmbeddedConfig& f : detail::budgetFiles())
      if (f.name == "default")
        return parseOver(Budget{}, std::string(f.text), std::string(f.fileName));
    NNACCEL_ASSERT(false) << "configs/budgets/default.yaml is not compiled in";
    return Budget{};
  }();
  return kDefault;
}

Budget loadBudgetFile(const std::string& path) {
  return parseBudget(arch::common::readConfigFile(path), path);
}

std::string toYaml(const Budget& b) {
  arch::common::ConfigWriter writer("nnaccel compare budget (schema: docs/Compare.md)");
  walkSchema(writer, b);
  return writer.yaml();
}

engines::EngineConfig deriveConfig(const Budget& budget, const std::string& engine) {
  if (engine == "systolic")
    return deriveSystolic(budget);
  if (engine == "sparse")
    return deriveSparse(budget);
  if (engine == "broadcast")
    return deriveBroadcast(budget);
  if (engine == "stream")
    return deriveStream(budget);
  throw Error(ErrorKind::Usage, {}, fmt::format("unknown engine '{}'", engine));
}

} // namespace nnaccel::compare
