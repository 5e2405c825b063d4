/// \file
/// The sparse (SCNN) config's schema: one walk over every key, used to parse, validate and print
/// it; its cross-field invariants; and the file loader. Schema reference: docs/arch/Sparse.md.
///
/// Why one walk: parsing, validate() and toYaml() must agree on every key's name, range and
/// position; the shared visitors of arch/common/ConfigReader.h guarantee that when the schema
/// is written once.
#include "nnaccel/arch/sparse/Config.h"

#include "nnaccel/config/ConfigReader.h"
#include "nnaccel/config/Presets.h"
#include "nnaccel/support/Error.h"

#include <fmt/format.h>

namespace nnaccel::arch::sparse {

namespace {

using config::EnumName;
using config::IntRange;
using config::kBytesPerCycleRange;
using config::kClockMhzRange;
using config::kEnergyPjRange;
using config::RealRange;

constexpr EnumName<BankMapping> kBankMappingList[] = {
    {"low_bits", BankMapping::LowBits},
    {"hash", BankMapping::Hash},
};
constexpr std::span<const EnumName<BankMapping>> kBankMappings = kBankMappingList;
constexpr EnumName<AddressRounding> kAddressRoundingList[] = {
    {"exact", AddressRounding::Exact},
    {"power_of_two", AddressRounding::PowerOfTwo},
};
constexpr std::span<const EnumName<AddressRounding>> kAddressRoundings = kAddressRoundingList;
constexpr EnumName<Broadcast> kBroadcastList[] = {
    {"auto", Broadcast::Auto},
    {"weights", Broadcast::Weights},
    {"activations", Broadcast::Activations},
};
constexpr std::span<const EnumName<Broadcast>> kBroadcasts = kBroadcastList;
constexpr EnumName<Halos> kHalosList[] = {
    {"output", Halos::Output},
    {"input", Halos::Input},
};
constexpr std::span<const EnumName<Halos>> kHalos = kHalosList;
constexpr EnumName<CrossbarQueues> kCrossbarQueueList[] = {
    {"per_lane", CrossbarQueues::PerLane},
    {"per_bank", CrossbarQueues::PerBank},
};
constexpr std::span<const EnumName<CrossbarQueues>> kCrossbarQueues = kCrossbarQueueList;
constexpr EnumName<BaselineDataflow> kBaselineDataflowList[] = {
    {"cartesian_product", BaselineDataflow::CartesianProduct},
    {"dot_product", BaselineDataflow::DotProduct},
};
constexpr std::span<const EnumName<BaselineDataflow>> kBaselineDataflows = kBaselineDataflowList;
constexpr EnumName<WeightCodeTable> kWeightCodeList[] = {
    {"zero_run_length", WeightCodeTable::ZeroRunLength},
    {"fig4c", WeightCodeTable::Fig4C},
    {"fig5d", WeightCodeTable::Fig5D},
    {"fig5e", WeightCodeTable::Fig5E},
};
constexpr std::span<const EnumName<WeightCodeTable>> kWeightCodes = kWeightCodeList;
constexpr EnumName<ActivationCodeTable> kActivationCodeList[] = {
    {"zero_run_length", ActivationCodeTable::ZeroRunLength},
    {"fig4c", ActivationCodeTable::Fig4C},
    {"fig5a", ActivationCodeTable::Fig5A},
    {"fig5b", ActivationCodeTable::Fig5B},
    {"fig5c", ActivationCodeTable::Fig5C},
};
constexpr std::span<const EnumName<ActivationCodeTable>> kActivationCodes = kActivationCodeList;

// Bounds (rationale in docs/arch/Sparse.md): far beyond any real design, while every product
// the compiler and the simulator form (PEs x multipliers x entries, latency x count) stays far
// inside int64.
constexpr IntRange kPeDim{1, 1024};
constexpr IntRange kVectorWidth{1, 256};
constexpr IntRange kBanks{1, 4096};
constexpr IntRange kEntries{1, int64_t{1} << 24};
constexpr IntRange kFifoDepth{1, 128};        // the crossbar model's FIFO slots
constexpr IntRange kCombiningEntries{0, 256}; // searched per product: a buffer, not a cache
constexpr IntRange kCrossbarStages{1, 2};     // Fig. 3C and Fig. 3E
constexpr IntRange kRamBytes{1, int64_t{1} << 30};
constexpr IntRange kPerCycle{1, 1024};
constexpr IntRange kCycles{0, 1'000'000'000};
constexpr IntRange kValueBits{8, 32};
constexpr IntRange kAccumulatorBits{16, 64};
constexpr IntRange kIndexBits{1, 16};
constexpr IntRange kBaselineSramBytes{1, int64_t{1} << 40};

/// Width of the codes of the patent's code tables (Figs. 4C, 5A-5E list 16 codes each).
constexpr int64_t kCodeTableIndexBits = 4;

/// The schema: every key, in file order, with its member and its range. \p Visitor is
/// config::ConfigReader (Config = SparseConfig), ConfigChecker or ConfigWriter (const).
template <typename Visitor, typename Config> void walkSchema(Visitor& v, Config& c) {
  v.text("name", c.name);
  v.real("clock_mhz", c.clockMhz, kClockMhzRange);
  common::walkTechnology(v, c.technology);
  v.section("pe_array", [&] {
    v.integer("rows", c.peRows, kPeDim);
    v.integer("cols", c.peCols, kPeDim);
    v.integer("weights_per_vector", c.weightsPerVector, kVectorWidth);
    v.integer("activations_per_vector", c.activationsPerVector, kVectorWidth);
    v.choice("broadcast", c.broadcast, kBroadcasts);
    v.choice("halos", c.halos, kHalos);
  });
  v.section("accumulators", [&] {
    v.integer("banks", c.accumulatorBanks, kBanks);
    v.integer("entries_per_bank", c.accumulatorBankEntries, kEntries);
    v.boolean("double_buffered", c.doubleBufferedAccumulators);
    v.boolean("forwarding", c.accumulatorForwarding);
    v.integer("write_latency_cycles", c.accumulatorWriteLatencyCycles, kCycles);
    v.choice("address_rounding", c.addressRounding, kAddressRoundings);
    v.integer("combining_entries", c.combiningBufferEntries, kCombiningEntries);
  });
  v.section("crossbar", [&] {
    v.integer("fifo_depth", c.crossbarFifoDepth, kFifoDepth);
    v.choice("bank_mapping", c.bankMapping, kBankMappings);
    v.choice("queues", c.crossbarQueues, kCrossbarQueues);
    v.integer("stages", c.crossbarStages, kCrossbarStages);
  });
  v.section("buffers", [&] {
    v.integer("weight_fifo_entries", c.weightFifoEntries, kEntries);
    v.integer("ia_ram_bytes", c.iaRamBytes, kRamBytes);
    v.integer("oa_ram_bytes", c.oaRamBytes, kRamBytes);
    v.integer("broadcast_vectors_per_cycle", c.broadcastVectorsPerCycle, kPerCycle);
  });
  v.section("post_processing", [&] {
    v.integer("ops_per_cycle", c.ppuOpsPerCycle, kPerCycle);
    v.integer("halo_link_latency_cycles", c.haloLinkLatencyCycles, kCycles);
    v.boolean("fuse_pooling", c.fusePooling);
  });
  v.section("numerics", [&] {
    v.integer("value_bits", c.valueBits, kValueBits);
    v.integer("accumulator_bits", c.accumulatorBits, kAccumulatorBits);
  });
  v.section("encoding", [&] {
    v.integer("index_bits", c.indexBits, kIndexBits);
    v.choice("weight_codes", c.weightCodes, kWeightCodes);
    v.choice("activation_codes", c.activationCodes, kActivationCodes);
  });
  v.section("dram", [&] {
    common::walkDramPart(v, c.dram);
    v.optionalReal("bytes_per_cycle", c.dramBytesPerCycle, kBytesPerCycleRange);
    v.optionalInteger("latency_cycles", c.dramLatencyCycles, kCycles);
  });
  v.section("baseline", [&] {
    v.choice("dataflow", c.baselineDataflow, kBaselineDataflows);
    v.integer("sram_bytes", c.baselineSramBytes, kBaselineSramBytes);
  });
  v.section("energy", [&] {
    auto& e = c.energy;
    v.optionalReal("multiply_pj", e.multiplyPj, kEnergyPjRange);
    v.optionalReal("accumulator_rmw_pj", e.accumulatorRmwPj, kEnergyPjRange);
    v.optionalReal("crossbar_pj", e.crossbarPj, kEnergyPjRange);
    v.optionalReal("weight_fifo_read_pj_per_byte", e.weightFifoReadPjPerByte, kEnergyPjRange);
    v.optionalReal("weight_fifo_write_pj_per_byte", e.weightFifoWritePjPerByte, kEnergyPjRange);
    v.optionalReal("ia_ram_read_pj_per_byte", e.iaRamReadPjPerByte, kEnergyPjRange);
    v.optionalReal("oa_ram_write_pj_per_byte", e.oaRamWritePjPerByte, kEnergyPjRange);
    v.optionalReal("halo_pj", e.haloPj, kEnergyPjRange);
    v.optionalReal("ppu_op_pj", e.ppuOpPj, kEnergyPjRange);
    v.optionalReal("dram_read_pj_per_byte", e.dramReadPjPerByte, kEnergyPjRange);
    v.optionalReal("dram_write_pj_per_byte", e.dramWritePjPerByte, kEnergyPjRange);
    v.optionalReal("dram_activate_pj", e.dramActivatePj, kEnergyPjRange);
  });
}

bool isPowerOfTwo(int64_t x) {
  return x > 0 && (x & (x - 1)) == 0;
}

} // namespace

common::DramSettings SparseConfig::dramSettings() const {
  return {dramBytesPerCycle, dramLatencyCycles, energy.dramReadPjPerByte, energy.dramWritePjPerByte,
          energy.dramActivatePj};
}

common::DramFigures SparseConfig::dramFigures() const {
  return common::dramFigures(dram, dramSettings(), clockMhz);
}

void validate(const SparseConfig& c, const std::string& file) {
  config::ConfigChecker checker(file);
  walkSchema(checker, c);
  common::processNodeOf(c.technology, checker);
  common::checkDramPart(c.dram, c.dramSettings(), checker, "dram", common::kDramEnergyKeys);
  // Cross-field rules (each key is in range here).
  if (!isPowerOfTwo(c.accumulatorBanks)) {
    // The bank is the low log2(A) address bits (or their hash): seed 001 ¶0096.
    checker.fail("accumulators.banks",
                 fmt::format("must be a power of two (got {})", c.accumulatorBanks));
  }
  if (c.bankMapping == BankMapping::Hash && c.accumulatorBanks < 2) {
    checker.fail("crossbar.bank_mapping", "hash needs accumulators.banks >= 2 (got 1)");
  }
  if (c.crossbarStages == 2) {
    // Fig. 3E generalised: stage 1 is I instances of an F -> A / I crossbar (the F products of
    // one activation share one), stage 2 is A / I instances of an I -> I crossbar.
    const int64_t f = c.weightsPerVector, i = c.activationsPerVector, a = c.accumulatorBanks;
    if (c.crossbarQueues == CrossbarQueues::PerBank) {
      checker.fail("crossbar.stages", "2 needs crossbar.queues: per_lane (virtual output "
                                      "queues are modelled for the single-stage crossbar only)");
    } else if (f < 2 || i < 2 || a % i != 0) {
      checker.fail("crossbar.stages",
                   fmt::format("2 cannot split F x I = {} x {} lanes onto {} banks: it needs F "
                               ">= 2, I >= 2 and I dividing accumulators.banks (stage 1: I "
                               "instances of F -> A / I, stage 2: A / I instances of I -> I)",
                               f, i, a));
    }
  }
  // The crossbar model keeps one request bit per multiplier lane in a 64-bit word.
  if (c.weightsPerVector * c.activationsPerVector > 64) {
    checker.fail("pe_array.activations_per_vector",
                 fmt::format("F x I = {} x {} = {} multipliers per PE exceeds the 64 the "
                             "crossbar model supports",
                             c.weightsPerVector, c.activationsPerVector,
                             c.weightsPerVector * c.activationsPerVector));
  }
  if (c.accumulatorBits < c.valueBits) {
    checker.fail("numerics.accumulator_bits",
                 fmt::format("{} is narrower than numerics.value_bits = {}", c.accumulatorBits,
                             c.valueBits));
  }
  // The patent's code tables have 16 codes: 4-bit indices.
  if (c.weightCodes != WeightCodeTable::ZeroRunLength && c.indexBits != kCodeTableIndexBits) {
    checker.fail("encoding.index_bits",
                 fmt::format("the weight code table needs {}-bit codes (got {})",
                             kCodeTableIndexBits, c.indexBits));
  }
  if (c.activationCodes != ActivationCodeTable::ZeroRunLength &&
      c.indexBits != kCodeTableIndexBits) {
    checker.fail("encoding.index_bits",
                 fmt::format("the activation code table needs {}-bit codes (got {})",
                             kCodeTableIndexBits, c.indexBits));
  }
}

SparseConfig parseSparseConfigOver(const SparseConfig& base, const std::string& yamlText,
                                   const std::string& file) {
  return config::parseConfigOver(
      base, yamlText, file, [](auto& reader, SparseConfig& c) { walkSchema(reader, c); },
      [](const SparseConfig& c, const std::string& f) { validate(c, f); });
}

SparseConfig parseSparseConfig(const std::string& yamlText, const std::string& file) {
  SparseConfig base = sparsePreset("scnn");
  static const SparseConfig
      kDefaults; // its name (a temporary trips GCC 12's -Wmaybe-uninitialized)
  base.name = kDefaults.name;
  return parseSparseConfigOver(base, yamlText, file);
}

SparseConfig loadSparseConfigFile(const std::string& path) {
  return parseSparseConfig(config::readConfigFile(path), path);
}

std::string toYaml(const SparseConfig& c) {
  config::ConfigWriter writer("nnaccel sparse (SCNN) architecture config (schema: "
                              "docs/arch/Sparse.md)");
  walkSchema(writer, c);
  return writer.yaml();
}

} // namespace nnaccel::arch::sparse
