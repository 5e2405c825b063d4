/// \file
/// The systolic config's schema (one walk over every key, used to parse, validate and print
/// it), its cross-field invariants and the file loader. Schema reference: docs/arch/Systolic.md.
#include "nnaccel/arch/systolic/Config.h"

#include "nnaccel/config/ConfigReader.h"
#include "nnaccel/config/Presets.h"
#include "nnaccel/support/Error.h"

#include <algorithm>
#include <fmt/format.h>

namespace nnaccel::arch::systolic {

namespace {

using config::EnumName;
using config::IntRange;
using config::kBytesPerCycleRange;
using config::kClockMhzRange;
using config::kEnergyPjRange;
using config::RealRange;

constexpr EnumName<PsumZeroMode> kZeroModeList[] = {
    {"reset", PsumZeroMode::Reset},
    {"written_flags", PsumZeroMode::WrittenFlags},
};
constexpr std::span<const EnumName<PsumZeroMode>> kZeroModes = kZeroModeList;
constexpr EnumName<DType> kDTypeList[] = {{"int8", DType::I8}, {"fp32", DType::F32}};
constexpr std::span<const EnumName<DType>> kDTypes = kDTypeList;

// Bounds (rationale in docs/arch/Systolic.md): the upper bounds keep every product the compiler
// and the simulator form (entries x columns, latency x count) far inside int64.
constexpr int64_t kMaxPeDim = 4096;
constexpr IntRange kPeDim{1, kMaxPeDim};
constexpr IntRange kSbufBytes{1024, int64_t{1} << 30};
constexpr int64_t kMinWorkingBytes = 1024;
constexpr IntRange kResidentBytes{0, int64_t{1} << 30};
constexpr IntRange kPsumEntries{1, int64_t{1} << 24};
constexpr IntRange kPerCycle{1, int64_t{1} << 24};
constexpr IntRange kCycles{0, 1'000'000'000};
constexpr IntRange kLanes{1, kMaxPeDim};

/// The schema: every key, in file order, with its member and its range. \p Visitor is
/// config::ConfigReader (Config = SystolicConfig), ConfigChecker or ConfigWriter (const).
template <typename Visitor, typename Config> void walkSchema(Visitor& v, Config& c) {
  v.text("name", c.name);
  v.real("clock_mhz", c.clockMhz, kClockMhzRange);
  common::walkTechnology(v, c.technology);
  v.section("array", [&] {
    v.integer("rows", c.peRows, kPeDim);
    v.integer("cols", c.peCols, kPeDim);
    v.integer("weight_load_cycles", c.weightLoadCycles, kCycles);
    v.boolean("shadow_weights", c.shadowWeights);
  });
  v.section("sbuf", [&] {
    v.integer("bytes_per_partition", c.sbufBytesPerPartition, kSbufBytes);
    v.integer("resident_bytes_per_partition", c.sbufResidentBytesPerPartition, kResidentBytes);
    v.real("dma_bytes_per_cycle", c.sbufDmaBytesPerCycle, kBytesPerCycleRange);
    v.integer("dma_latency_cycles", c.sbufDmaLatencyCycles, kCycles);
  });
  v.section("psum", [&] {
    v.integer("entries_per_column", c.psumEntriesPerColumn, kPsumEntries);
    v.integer("max_tile_rows", c.psumMaxTileRows, kPsumEntries);
    v.integer("max_tile_cols", c.psumMaxTileCols, kPsumEntries);
    v.choice("zero_mode", c.psumZeroMode, kZeroModes);
    v.integer("reset_entries_per_cycle", c.psumResetEntriesPerCycle, kPerCycle);
  });
  v.choiceList("dtypes", c.dtypes, kDTypes);
  v.section("activation", [&] { v.integer("latency_cycles", c.actLatencyCycles, kCycles); });
  v.section("pool", [&] {
    v.integer("lanes", c.poolLanes, kLanes);
    v.integer("latency_cycles", c.poolLatencyCycles, kCycles);
  });
  v.section("dram", [&] {
    common::walkDramPart(v, c.dram);
    v.optionalReal("bytes_per_cycle", c.dramBytesPerCycle, kBytesPerCycleRange);
    v.optionalInteger("latency_cycles", c.dramLatencyCycles, kCycles);
  });
  v.section("energy", [&] {
    auto& e = c.energy;
    v.optionalReal("mac_int8_pj", e.macInt8Pj, kEnergyPjRange);
    v.optionalReal("mac_fp32_pj", e.macFp32Pj, kEnergyPjRange);
    v.optionalReal("sbuf_read_pj_per_byte", e.sbufReadPjPerByte, kEnergyPjRange);
    v.optionalReal("sbuf_write_pj_per_byte", e.sbufWritePjPerByte, kEnergyPjRange);
    v.optionalReal("psum_read_pj_per_entry", e.psumReadPjPerEntry, kEnergyPjRange);
    v.optionalReal("psum_write_pj_per_entry", e.psumWritePjPerEntry, kEnergyPjRange);
    v.optionalReal("dram_read_pj_per_byte", e.dramReadPjPerByte, kEnergyPjRange);
    v.optionalReal("dram_write_pj_per_byte", e.dramWritePjPerByte, kEnergyPjRange);
    v.optionalReal("dram_activate_pj", e.dramActivatePj, kEnergyPjRange);
    v.optionalReal("act_op_pj", e.actOpPj, kEnergyPjRange);
    v.optionalReal("pool_op_pj", e.poolOpPj, kEnergyPjRange);
    v.optionalReal("weight_load_pj_per_byte", e.weightLoadPjPerByte, kEnergyPjRange);
  });
}

} // namespace

common::DramSettings SystolicConfig::dramSettings() const {
  return {dramBytesPerCycle, dramLatencyCycles, energy.dramReadPjPerByte, energy.dramWritePjPerByte,
          energy.dramActivatePj};
}

common::DramFigures SystolicConfig::dramFigures() const {
  return common::dramFigures(dram, dramSettings(), clockMhz);
}

bool SystolicConfig::supports(DType t) const {
  return std::find(dtypes.begin(), dtypes.end(), t) != dtypes.end();
}

void validate(const SystolicConfig& c, const std::string& file) {
  config::ConfigChecker checker(file);
  walkSchema(checker, c);
  common::processNodeOf(c.technology, checker);
  common::checkDramPart(c.dram, c.dramSettings(), checker, "dram", common::kDramEnergyKeys);
  // Cross-field: the lowerings need a working area of at least kMinWorkingBytes.
  if (c.sbufResidentBytesPerPartition > c.sbufBytesPerPartition - kMinWorkingBytes) {
    checker.fail(
        "sbuf.resident_bytes_per_partition",
        fmt::format("{} leaves less than {} of the {} bytes per partition for working tiles",
                    c.sbufResidentBytesPerPartition, kMinWorkingBytes, c.sbufBytesPerPartition));
  }
  // Cross-field: one output tile must fit in a PE column's summation buffer. Each side is
  // >= 1 here, so rows * cols <= entries <=> rows <= entries / cols (no overflow).
  if (c.psumMaxTileRows > c.psumEntriesPerColumn / c.psumMaxTileCols) {
    checker.fail("psum.max_tile_rows",
                 fmt::format("{} x {} = {} exceeds psum.entries_per_column = {}", c.psumMaxTileRows,
                             c.psumMaxTileCols, c.psumTileEntries(), c.psumEntriesPerColumn));
  }
}

SystolicConfig parseSystolicConfigOver(const SystolicConfig& base, const std::string& yamlText,
                                       const std::string& file) {
  return config::parseConfigOver(
      base, yamlText, file, [](auto& reader, SystolicConfig& c) { walkSchema(reader, c); },
      [](const SystolicConfig& c, const std::string& f) { validate(c, f); });
}

SystolicConfig parseSystolicConfig(const std::string& yamlText, const std::string& file) {
  SystolicConfig base = systolicPreset("small");
  static const SystolicConfig
      kDefaults; // its name (a temporary trips GCC 12's -Wmaybe-uninitialized)
  base.name = kDefaults.name;
  return parseSystolicConfigOver(base, yamlText, file);
}

SystolicConfig loadSystolicConfigFile(const std::string& path) {
  return parseSystolicConfig(config::readConfigFile(path), path);
}

std::string toYaml(const SystolicConfig& c) {
  config::ConfigWriter writer(
      "nnaccel systolic architecture config (schema: docs/arch/Systolic.md)");
  walkSchema(writer, c);
  return writer.yaml();
}

} // namespace nnaccel::arch::systolic
