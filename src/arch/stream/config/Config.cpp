/// \file
/// The stream engine's config schema: one walk over every key, used to parse, validate and
/// print it; its cross-field invariants (row overrides naming existing rows, the one modelled
/// kernel size, bit widths, the lookup table, the primary output mux); the structure accessors
/// (tiles per row, bus sets, mux choices, latencies); and the file loader. Every key is listed
/// and explained in configs/stream/fig44.yaml.
///
/// Why one walk: parsing, validate() and toYaml() must agree on every key's name, range and
/// position; the shared visitors of arch/common/ConfigReader.h guarantee that when the schema
/// is written once.
#include "nnaccel/arch/stream/Config.h"

#include "nnaccel/arch/common/Dram.h"
#include "nnaccel/config/ConfigReader.h"
#include "nnaccel/config/Presets.h"
#include "nnaccel/support/Error.h"
#include "nnaccel/tech/Dram.h"

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <optional>

namespace nnaccel::arch::stream {

namespace {

using config::EnumName;
using config::IntRange;
using config::kClockMhzRange;
using config::kEnergyPjRange;
using config::RealRange;

constexpr EnumName<MultiplierForm> kMultiplierFormList[] = {
    {"shifted_terms", MultiplierForm::ShiftedTerms},
    {"signed_digit", MultiplierForm::SignedDigit},
    {"shared_pairs", MultiplierForm::SharedPairs},
    {"shared_quads", MultiplierForm::SharedQuads},
};
constexpr std::span<const EnumName<MultiplierForm>> kMultiplierForms = kMultiplierFormList;
constexpr EnumName<DataType> kDataTypeList[] = {
    {"int8", DataType::Int8},
};
constexpr std::span<const EnumName<DataType>> kDataTypes = kDataTypeList;
/// Floating-point formats the patent allows (Fig. 48's mantissa + shift weights, ¶ on sources
/// of any format): known spellings, rejected as not modelled yet.
constexpr std::string_view kUnmodelledDataTypeList[] = {"fp16", "bf16"};
constexpr std::span<const std::string_view> kUnmodelledDataTypes = kUnmodelledDataTypeList;

/// The one kernel size the tiles model (claim 10: 3x3); larger kernels are composed (§8.5).
constexpr int64_t kModelledKernelSize = 3;

// Bounds: far beyond any real design, while every product the compiler and the simulator form
// (tiles x lanes^2 x cells x chips, positions x time-multiplexed values) stays far inside int64.
constexpr IntRange kRows{3, 1024}; // claim 1: at least three rows of kernel tiles
constexpr IntRange kTilesPerRow{1, 1024};
constexpr IntRange kAuxTilesPerRow{0, 1024}; // aux tiles are optional (claim 3)
constexpr IntRange kKernelSize{1, 64};
constexpr IntRange kLanes{1, 256};
constexpr IntRange kWeightStorePairs{1, int64_t{1} << 20};
constexpr IntRange kArrayWidth{1, int64_t{1} << 20};
constexpr IntRange kFifoPositions{0, int64_t{1} << 30}; // 0: no delay possible
constexpr IntRange kLutEntries{2, int64_t{1} << 16};
constexpr IntRange kPatch{1, 64};
constexpr IntRange kInputSets{1, 64};
constexpr IntRange kExternalSets{0, 64}; // external circuitry is optional (claims 7-9)
constexpr IntRange kOutputSets{1, 64};
constexpr IntRange kNarrowBits{1, 16}; // activations and weights: 2^bits table entries
constexpr IntRange kWideBits{1, 64};   // partial sums, biases, accumulators
constexpr IntRange kStages{0, 1024};   // 0: combinational
constexpr IntRange kChips{1, 1024};
constexpr IntRange kLinkCycles{0, 1'000'000'000};

/// A per-row count: its value for every row and the rows that differ.
template <typename Visitor, typename Counts>
void walkPerRow(Visitor& v, std::string_view key, Counts& counts, IntRange range) {
  v.integer(key, counts.everyRow, range);
  v.integerMap("row_overrides", counts.rowOverrides, range);
}

/// The schema: every key, in file order, with its member and its range. \p Visitor is
/// config::ConfigReader (Config = StreamConfig), ConfigChecker or ConfigWriter (const).
template <typename Visitor, typename Config> void walkSchema(Visitor& v, Config& c) {
  v.text("name", c.name);
  v.text("description", c.description);
  v.real("clock_mhz", c.clockMhz, kClockMhzRange);
  common::walkTechnology(v, c.technology);
  v.section("kernel_tiles", [&] {
    v.integer("rows", c.rows, kRows);
    walkPerRow(v, "tiles_per_row", c.kernelTilesPerRow, kTilesPerRow);
    v.integer("kernel_size", c.kernelSize, kKernelSize);
    v.integer("lanes", c.lanes, kLanes);
    v.integer("weight_store_pairs", c.weightStorePairs, kWeightStorePairs);
    v.integer("max_array_width", c.maxArrayWidthPositions, kArrayWidth);
    v.integer("aux_fifo_positions", c.auxFifoPositions, kFifoPositions);
  });
  v.section("aux_tiles", [&] {
    walkPerRow(v, "tiles_per_row", c.auxTilesPerRow, kAuxTilesPerRow);
    v.integer("fifo_positions", c.auxTileFifoPositions, kFifoPositions);
    v.integer("lut_entries", c.lutEntries, kLutEntries);
    v.integer("max_patch", c.maxPatch, kPatch);
  });
  v.section("external", [&] {
    v.integer("input_sets", c.inputBusSets, kInputSets);
    v.integer("sets_per_row", c.externalSetsPerRow, kExternalSets);
    v.integer("primary_output_sets", c.primaryOutputSets, kOutputSets);
  });
  v.section("bus", [&] {
    v.integer("partial_sum_bits", c.partialSumBits, kWideBits);
    v.integer("activation_bits", c.activationBits, kNarrowBits);
  });
  v.section("numerics", [&] {
    v.choice("data_type", c.dataType, kDataTypes, kUnmodelledDataTypes);
    v.integer("weight_bits", c.weightBits, kNarrowBits);
    v.integer("bias_bits", c.biasBits, kWideBits);
    v.integer("accumulator_bits", c.accumulatorBits, kWideBits);
  });
  v.section("mass_multiplier", [&] {
    v.choice("form", c.multiplierForm, kMultiplierForms);
    v.boolean("local_multipliers", c.localMultipliers);
    v.integer("pipeline_stages", c.multiplierPipelineStages, kStages);
  });
  v.section("latency", [&] {
    v.integer("adder_tree_cycles", c.adderTreeCycles, kStages);
    v.integer("summation_cell_cycles", c.summationCellCycles, kStages);
    v.integer("unit_adder_cycles", c.unitAdderCycles, kStages);
    v.integer("aux_adder_cycles", c.auxAdderCycles, kStages);
    v.integer("lut_cycles", c.lutCycles, kStages);
    v.integer("patch_cycles", c.patchCycles, kStages);
    v.integer("bus_hop_cycles", c.busHopCycles, kStages);
  });
  v.section("chips", [&] {
    v.integer("count", c.chips, kChips);
    v.integer("link_latency_cycles", c.chipLinkLatencyCycles, kLinkCycles);
  });
  v.section("baseline", [&] {
    v.text("dram", c.baselineDram);
    v.integer("dram_channels", c.baselineDramChannels, common::kDramChannels);
  });
  v.section("energy", [&] {
    auto& e = c.energy;
    v.optionalReal("cell_select_add_pj", e.cellSelectAddPj, kEnergyPjRange);
    v.optionalReal("mass_multiplier_add_pj", e.massMultiplierAddPj, kEnergyPjRange);
    v.optionalReal("weight_load_pj", e.weightLoadPj, kEnergyPjRange);
    v.optionalReal("fifo_value_pj", e.fifoValuePj, kEnergyPjRange);
    v.optionalReal("unit_add_pj", e.unitAddPj, kEnergyPjRange);
    v.optionalReal("aux_fifo_value_pj", e.auxFifoValuePj, kEnergyPjRange);
    v.optionalReal("lut_lookup_pj", e.lutLookupPj, kEnergyPjRange);
    v.optionalReal("aux_op_pj", e.auxOpPj, kEnergyPjRange);
    v.optionalReal("aux_multiply_pj", e.auxMultiplyPj, kEnergyPjRange);
    v.optionalReal("bus_set_transfer_pj", e.busSetTransferPj, kEnergyPjRange);
    v.optionalReal("bus_partial_set_transfer_pj", e.busPartialSetTransferPj, kEnergyPjRange);
    v.optionalReal("chip_link_set_pj", e.chipLinkSetPj, kEnergyPjRange);
    v.optionalReal("chip_link_partial_set_pj", e.chipLinkPartialSetPj, kEnergyPjRange);
  });
}

/// The row \p name denotes: its decimal index as toYaml writes it ("0", "12"), or nullopt.
std::optional<int64_t> rowIndexOf(const std::string& name) {
  if (name.empty() || name.size() > 9 || (name.size() > 1 && name[0] == '0')) {
    return std::nullopt;
  }
  int64_t row = 0;
  for (const char ch : name) {
    if (ch < '0' || ch > '9') {
      return std::nullopt;
    }
    row = row * 10 + (ch - '0');
  }
  return row;
}

/// Every override of \p counts (in section \p section) names one of the \p rows rows.
void checkRowOverrides(const config::ConfigChecker& checker, std::string_view section,
                       const PerRowCount& counts, int64_t rows) {
  for (const auto& [name, count] : counts.rowOverrides) {
    const std::optional<int64_t> row = rowIndexOf(name);
    if (!row || *row >= rows) {
      checker.fail(
          fmt::format("{}.row_overrides.{}", section, name),
          fmt::format("no such row (kernel_tiles.rows is {}: rows 0 to {})", rows, rows - 1));
    }
  }
}

} // namespace

int64_t PerRowCount::inRow(int64_t row) const {
  NNACCEL_ASSERT(row >= 0) << "row " << row << " of a per-row count";
  for (const auto& [name, count] : rowOverrides) {
    if (rowIndexOf(name) == row) {
      return count;
    }
  }
  return everyRow;
}

int64_t StreamConfig::tilesInRow(int64_t row) const {
  NNACCEL_ASSERT(row >= 0 && row < rows) << "row " << row << " of " << rows;
  return kernelTilesPerRow.inRow(row);
}

int64_t StreamConfig::auxTilesInRow(int64_t row) const {
  NNACCEL_ASSERT(row >= 0 && row < rows) << "row " << row << " of " << rows;
  return auxTilesPerRow.inRow(row);
}

int64_t StreamConfig::kernelTileCount() const {
  int64_t total = 0;
  for (int64_t row = 0; row < rows; ++row) {
    total += tilesInRow(row);
  }
  return total;
}

int64_t StreamConfig::auxTileCount() const {
  int64_t total = 0;
  for (int64_t row = 0; row < rows; ++row) {
    total += auxTilesInRow(row);
  }
  return total;
}

int64_t StreamConfig::outputBusSets(int64_t row) const {
  return tilesInRow(row) + auxTilesInRow(row) + externalSetsPerRow;
}

int64_t StreamConfig::rowMuxChoices(int64_t row) const {
  const int64_t inputSets = row == 0 ? inputBusSets : outputBusSets(row - 1);
  return inputSets + outputBusSets(row);
}

int64_t StreamConfig::macsPerCycle() const {
  return chips * kernelTileCount() * kernelSize * kernelSize * lanes * lanes;
}

double StreamConfig::baselineDramBytesPerCycle() const {
  const tech::DramStandard& d = tech::dramStandard(baselineDram);
  return d.peakBytesPerNs() * static_cast<double>(baselineDramChannels) * 1000.0 / clockMhz;
}

int64_t StreamConfig::kernelTileLatencyCycles() const {
  return multiplierPipelineStages + adderTreeCycles + summationCellCycles + unitAdderCycles;
}

void validate(const StreamConfig& c, const std::string& file) {
  config::ConfigChecker checker(file);
  walkSchema(checker, c);
  common::processNodeOf(c.technology, checker);
  // Cross-field rules (each key is in range here).
  const std::vector<std::string> standards = tech::dramStandardNames();
  if (std::find(standards.begin(), standards.end(), c.baselineDram) == standards.end())
    checker.fail("baseline.dram", fmt::format("unknown DRAM standard '{}' (expected one of: {})",
                                              c.baselineDram, fmt::join(standards, ", ")));
  checkRowOverrides(checker, "kernel_tiles", c.kernelTilesPerRow, c.rows);
  checkRowOverrides(checker, "aux_tiles", c.auxTilesPerRow, c.rows);
  if (c.kernelSize != kModelledKernelSize) {
    // Larger kernels are composed of 3x3 tiles (digest §8.5); other tile sizes are not modelled.
    checker.fail("kernel_tiles.kernel_size",
                 fmt::format("{} is not modelled by this engine yet (supported: {})", c.kernelSize,
                             kModelledKernelSize));
  }
  if (c.maxArrayWidthPositions < c.kernelSize) {
    // The row FIFOs delay by C - N + 1 positions (digest §4.4); C < N is not handled (§12).
    checker.fail("kernel_tiles.max_array_width",
                 fmt::format("{} is narrower than kernel_tiles.kernel_size ({})",
                             c.maxArrayWidthPositions, c.kernelSize));
  }
  if (c.accumulatorBits < c.weightBits + c.activationBits) {
    checker.fail("numerics.accumulator_bits",
                 fmt::format("{} cannot hold one product of numerics.weight_bits ({}) x "
                             "bus.activation_bits ({}): must be >= {}",
                             c.accumulatorBits, c.weightBits, c.activationBits,
                             c.weightBits + c.activationBits));
  }
  if (c.biasBits > c.accumulatorBits) {
    checker.fail("numerics.bias_bits",
                 fmt::format("{} exceeds numerics.accumulator_bits ({}): the bias is added into "
                             "the accumulator",
                             c.biasBits, c.accumulatorBits));
  }
  if (c.partialSumBits < c.activationBits || c.partialSumBits > c.accumulatorBits) {
    checker.fail("bus.partial_sum_bits",
                 fmt::format("{} is outside bus.activation_bits ({}) to numerics.accumulator_bits "
                             "({}): a bus lane carries activations or accumulator partial sums",
                             c.partialSumBits, c.activationBits, c.accumulatorBits));
  }
  const int64_t activationValues = int64_t{1} << c.activationBits;
  if ((c.lutEntries & (c.lutEntries - 1)) != 0 || c.lutEntries < activationValues) {
    checker.fail("aux_tiles.lut_entries",
                 fmt::format("{} is not a power of two >= {} (2^bus.activation_bits): the table "
                             "maps every activation value",
                             c.lutEntries, activationValues));
  }
  if (c.primaryOutputSets > c.primaryOutputChoices()) {
    checker.fail("external.primary_output_sets",
                 fmt::format("{} exceeds the {} sets of the last row's output bus (kernel tiles, "
                             "aux tiles and external inputs of row {})",
                             c.primaryOutputSets, c.primaryOutputChoices(), c.rows - 1));
  }
}

StreamConfig parseStreamConfigOver(const StreamConfig& base, const std::string& yamlText,
                                   const std::string& file) {
  return config::parseConfigOver(
      base, yamlText, file, [](auto& reader, StreamConfig& c) { walkSchema(reader, c); },
      [](const StreamConfig& c, const std::string& f) { validate(c, f); });
}

StreamConfig parseStreamConfig(const std::string& yamlText, const std::string& file) {
  StreamConfig base = streamPreset("fig44");
  // A file's own name and description start as a custom config's (one default object: GCC 12
  // mistakes two temporaries' string members for uninitialized in the unity build).
  static const StreamConfig kDefaults;
  base.name = kDefaults.name;
  base.description = kDefaults.description;
  return parseStreamConfigOver(base, yamlText, file);
}

StreamConfig loadStreamConfigFile(const std::string& path) {
  return parseStreamConfig(config::readConfigFile(path), path);
}

std::string toYaml(const StreamConfig& c) {
  config::ConfigWriter writer("nnaccel stream (everted pipeline ASIC of duplicate 3x3 kernel "
                              "tiles) architecture config (every key: configs/stream/fig44.yaml)");
  walkSchema(writer, c);
  return writer.yaml();
}

} // namespace nnaccel::arch::stream
