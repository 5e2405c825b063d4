/// \file
/// The broadcast engine's config schema: one walk over every key, used to parse, validate and
/// print it; its cross-field invariants (P divides the column, P >= N, lanes shared evenly by a
/// column's groups, register files that hold one operand); and the file loader. Schema
/// reference: docs/arch/Broadcast.md.
///
/// Why one walk: parsing, validate() and toYaml() must agree on every key's name, range and
/// position; the shared visitors of arch/common/ConfigReader.h guarantee that when the schema
/// is written once.
#include "nnaccel/arch/broadcast/Config.h"

#include "nnaccel/config/ConfigReader.h"
#include "nnaccel/config/Presets.h"
#include "nnaccel/support/Error.h"

#include <fmt/format.h>

namespace nnaccel::arch::broadcast {

namespace {

using config::EnumName;
using config::IntRange;
using config::kBytesPerCycleRange;
using config::kClockMhzRange;
using config::kEnergyPjRange;
using config::RealRange;

constexpr EnumName<RfPolicy> kRfPolicyList[] = {
    {"stall", RfPolicy::Stall},
    {"double_buffer", RfPolicy::DoubleBuffer},
};
constexpr std::span<const EnumName<RfPolicy>> kRfPolicies = kRfPolicyList;
constexpr EnumName<Accumulation> kAccumulationList[] = {
    {"pe", Accumulation::Pe},
    {"column", Accumulation::Column},
};
constexpr std::span<const EnumName<Accumulation>> kAccumulations = kAccumulationList;
constexpr EnumName<NonDivisible> kNonDivisibleList[] = {
    {"expand", NonDivisible::Expand},
    {"transpose", NonDivisible::Transpose},
};
constexpr std::span<const EnumName<NonDivisible>> kNonDivisibles = kNonDivisibleList;
constexpr EnumName<DataType> kDataTypeList[] = {
    {"int8", DataType::Int8},
};
constexpr std::span<const EnumName<DataType>> kDataTypes = kDataTypeList;
/// The patent's other formats (¶0096): known spellings, rejected as not modelled yet.
constexpr std::string_view kUnmodelledDataTypeList[] = {"fp16", "bf16"};
constexpr std::span<const std::string_view> kUnmodelledDataTypes = kUnmodelledDataTypeList;

// Bounds (rationale in docs/arch/Broadcast.md): far beyond any real design, while every product
// the compiler and the simulator form (PEs x MAC lanes x bytes, latency x count) stays far
// inside int64.
constexpr IntRange kPeDim{1, 1024};    // columns, PEs per column, group size, N
constexpr IntRange kMacLanes{1, 4096}; // MACs per PE per cycle
constexpr IntRange kRfBytes{1, int64_t{1} << 30};
/// Bytes of one partial sum in the output RF (int32 accumulation): its smallest size.
constexpr int64_t kPartialSumBytes = 4;
constexpr IntRange kOutputRfBytes{kPartialSumBytes, int64_t{1} << 30};
constexpr IntRange kLanes{1, 1024};
constexpr IntRange kLaneBytes{1, 4096};
constexpr IntRange kPerCycle{1, 1024};
constexpr IntRange kBufferBytes{1, int64_t{1} << 30};
constexpr IntRange kGlobalBufferBytes{0, int64_t{1} << 40}; // 0: no buffer, everything in DRAM
constexpr IntRange kBytesPerCycle{1, int64_t{1} << 20};
constexpr IntRange kCycles{0, 1'000'000'000};
constexpr IntRange kVectorWidth{0, 1024}; // 0 = the compiler picks N per layer
constexpr IntRange kLayerVectorWidth{1, 1024};

/// The schema: every key, in file order, with its member and its range. \p Visitor is
/// config::ConfigReader (Config = BroadcastConfig), ConfigChecker or ConfigWriter (const).
template <typename Visitor, typename Config> void walkSchema(Visitor& v, Config& c) {
  v.text("name", c.name);
  v.real("clock_mhz", c.clockMhz, kClockMhzRange);
  common::walkTechnology(v, c.technology);
  v.section("pe_array", [&] {
    v.integer("columns", c.columns, kPeDim);
    v.integer("pes_per_column", c.pesPerColumn, kPeDim);
    v.integer("group_size", c.groupSize, kPeDim);
    v.integer("mac_lanes_per_pe", c.macLanesPerPe, kMacLanes);
  });
  v.section("register_files", [&] {
    v.integer("input_bytes", c.inputRfBytes, kRfBytes);
    v.integer("weight_bytes", c.weightRfBytes, kRfBytes);
    v.integer("output_bytes", c.outputRfBytes, kOutputRfBytes);
    v.choice("input_policy", c.inputRfPolicy, kRfPolicies);
  });
  v.section("data_read", [&] {
    v.integer("lanes_per_column", c.lanesPerColumn, kLanes);
    v.integer("lane_bytes", c.laneBytes, kLaneBytes);
    v.integer("reads_per_cycle", c.readsPerCycle, kPerCycle);
  });
  v.section("broadcast", [&] {
    v.integer("latency_cycles", c.broadcastLatencyCycles, kCycles);
    v.integer("fan_out", c.broadcastFanOut, kPerCycle);
  });
  v.section("column_buffer", [&] {
    v.integer("bytes", c.columnBufferBytes, kBufferBytes);
    v.integer("drain_bytes_per_cycle", c.drainBytesPerCycle, kBytesPerCycle);
    v.choice("accumulation", c.accumulation, kAccumulations);
  });
  v.section("numerics", [&] {
    v.choice("data_type", c.dataType, kDataTypes, kUnmodelledDataTypes);
    v.boolean("skip_zero_weights", c.skipZeroWeights);
  });
  v.section("global_buffer", [&] {
    v.integer("capacity_bytes", c.globalBufferCapacityBytes, kGlobalBufferBytes);
    v.real("bytes_per_cycle", c.globalBufferBytesPerCycle, kBytesPerCycleRange);
    v.integer("latency_cycles", c.globalBufferLatencyCycles, kCycles);
  });
  v.section("memory", [&] {
    common::walkDramPart(v, c.memory);
    v.optionalReal("bytes_per_cycle", c.memoryBytesPerCycle, kBytesPerCycleRange);
    v.optionalInteger("latency_cycles", c.memoryLatencyCycles, kCycles);
  });
  v.section("decomposition", [&] {
    v.integer("vector_width", c.vectorWidth, kVectorWidth);
    v.choice("non_divisible", c.nonDivisible, kNonDivisibles);
    v.integerMap("layers", c.layerVectorWidths, kLayerVectorWidth);
  });
  v.section("energy", [&] {
    auto& e = c.energy;
    v.optionalReal("mac_pj", e.macPj, kEnergyPjRange);
    v.optionalReal("input_rf_write_pj_per_byte", e.inputRfWritePjPerByte, kEnergyPjRange);
    v.optionalReal("input_rf_read_pj_per_byte", e.inputRfReadPjPerByte, kEnergyPjRange);
    v.optionalReal("weight_rf_write_pj_per_byte", e.weightRfWritePjPerByte, kEnergyPjRange);
    v.optionalReal("weight_rf_read_pj_per_byte", e.weightRfReadPjPerByte, kEnergyPjRange);
    v.optionalReal("output_rf_access_pj_per_byte", e.outputRfAccessPjPerByte, kEnergyPjRange);
    v.optionalReal("broadcast_pj_per_byte", e.broadcastPjPerByte, kEnergyPjRange);
    v.optionalReal("column_buffer_access_pj_per_byte", e.columnBufferAccessPjPerByte,
                   kEnergyPjRange);
    v.optionalReal("global_buffer_read_pj_per_byte", e.globalBufferReadPjPerByte, kEnergyPjRange);
    v.optionalReal("global_buffer_write_pj_per_byte", e.globalBufferWritePjPerByte, kEnergyPjRange);
    v.optionalReal("memory_read_pj_per_byte", e.memoryReadPjPerByte, kEnergyPjRange);
    v.optionalReal("memory_write_pj_per_byte", e.memoryWritePjPerByte, kEnergyPjRange);
    v.optionalReal("memory_activate_pj", e.memoryActivatePj, kEnergyPjRange);
  });
}

/// P >= N (digest §2.4): the N operands that contain one activation load at the same time, so
/// they need N distinct PEs of the broadcast group. \p key names the N (vector_width or a
/// per-layer entry).
void checkVectorWidthFitsGroup(const config::ConfigChecker& checker, const std::string& key,
                               int64_t vectorWidth, int64_t groupSize) {
  if (vectorWidth > groupSize) {
    checker.fail(key, fmt::format("{} exceeds pe_array.group_size ({}): the N operands that share "
                                  "an activation need N distinct PEs",
                                  vectorWidth, groupSize));
  }
}

} // namespace

common::DramSettings BroadcastConfig::memorySettings() const {
  return {memoryBytesPerCycle, memoryLatencyCycles, energy.memoryReadPjPerByte,
          energy.memoryWritePjPerByte, energy.memoryActivatePj};
}

common::DramFigures BroadcastConfig::memoryFigures() const {
  return common::dramFigures(memory, memorySettings(), clockMhz);
}

void validate(const BroadcastConfig& c, const std::string& file) {
  config::ConfigChecker checker(file);
  walkSchema(checker, c);
  common::processNodeOf(c.technology, checker);
  common::checkDramPart(c.memory, c.memorySettings(), checker, "memory", kMemoryEnergyKeys);
  // Cross-field rules (each key is in range here).
  if (c.pesPerColumn % c.groupSize != 0) {
    checker.fail("pe_array.group_size",
                 fmt::format("{} does not divide pe_array.pes_per_column ({}): a column holds "
                             "whole broadcast groups",
                             c.groupSize, c.pesPerColumn));
  }
  // Each group of a column gets its own lanes (lanesPerColumn / groupsPerColumn >= 1).
  if (c.lanesPerColumn % c.groupsPerColumn() != 0) {
    checker.fail("data_read.lanes_per_column",
                 fmt::format("{} is not a multiple of the {} broadcast groups per column "
                             "(pe_array.pes_per_column / pe_array.group_size): each group needs "
                             "the same number of lanes",
                             c.lanesPerColumn, c.groupsPerColumn()));
  }
  if (c.readsPerCycle > c.lanesPerGroup()) {
    checker.fail("data_read.reads_per_cycle",
                 fmt::format("{} exceeds the lanes of one broadcast group ({} = "
                             "data_read.lanes_per_column {} / {} groups per column)",
                             c.readsPerCycle, c.lanesPerGroup(), c.lanesPerColumn,
                             c.groupsPerColumn()));
  }
  if (c.vectorWidth > 0) {
    checkVectorWidthFitsGroup(checker, "decomposition.vector_width", c.vectorWidth, c.groupSize);
  }
  for (const auto& [layer, vectorWidth] : c.layerVectorWidths) {
    checkVectorWidthFitsGroup(checker, "decomposition.layers." + layer, vectorWidth, c.groupSize);
  }
  // The register files must hold one operand's share for the largest N the group allows (N <=
  // P), counting one-byte (int8) activations and weights: the smallest useful capacities, not a
  // statement that a layer fits (the compiler checks each layer's C against them).
  const bool doubleBuffered = c.inputRfPolicy == RfPolicy::DoubleBuffer;
  const int64_t inputOperands = doubleBuffered ? 2 : 1;
  if (c.inputRfBytes < inputOperands * c.groupSize) {
    checker.fail("register_files.input_bytes",
                 fmt::format("{} cannot hold {} operand{} of pe_array.group_size ({}) one-byte "
                             "activations (register_files.input_policy: {}): must be >= {}",
                             c.inputRfBytes, inputOperands, doubleBuffered ? "s" : "", c.groupSize,
                             doubleBuffered ? "double_buffer" : "stall",
                             inputOperands * c.groupSize));
  }
  if (c.weightRfBytes < c.groupSize) {
    checker.fail("register_files.weight_bytes",
                 fmt::format("{} cannot hold one kernel vector of pe_array.group_size ({}) "
                             "one-byte weights: must be >= {}",
                             c.weightRfBytes, c.groupSize, c.groupSize));
  }
  if (c.columnBufferBytes < c.drainBytesPerCycle) {
    checker.fail("column_buffer.bytes",
                 fmt::format("{} is less than column_buffer.drain_bytes_per_cycle ({})",
                             c.columnBufferBytes, c.drainBytesPerCycle));
  }
}

BroadcastConfig parseBroadcastConfigOver(const BroadcastConfig& base, const std::string& yamlText,
                                         const std::string& file) {
  return config::parseConfigOver(
      base, yamlText, file, [](auto& reader, BroadcastConfig& c) { walkSchema(reader, c); },
      [](const BroadcastConfig& c, const std::string& f) { validate(c, f); });
}

BroadcastConfig parseBroadcastConfig(const std::string& yamlText, const std::string& file) {
  BroadcastConfig base = broadcastPreset("npu");
  static const BroadcastConfig
      kDefaults; // its name (a temporary trips GCC 12's -Wmaybe-uninitialized)
  base.name = kDefaults.name;
  return parseBroadcastConfigOver(base, yamlText, file);
}

BroadcastConfig loadBroadcastConfigFile(const std::string& path) {
  return parseBroadcastConfig(config::readConfigFile(path), path);
}

std::string toYaml(const BroadcastConfig& c) {
  config::ConfigWriter writer("nnaccel broadcast (1xN decomposition, activation broadcasting) "
                              "architecture config (schema: docs/arch/Broadcast.md)");
  walkSchema(writer, c);
  return writer.yaml();
}

} // namespace nnaccel::arch::broadcast
