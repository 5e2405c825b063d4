/// \file
/// The stream engine's ASIC description (seed 002, Figs. 44-51: a fixed ASIC of duplicate 3x3
/// kernel processing tiles in rows, composed into whole CNNs by configurable muxes): the rows of
/// kernel tiles (kernel size, lanes, weight store for time multiplexing, FIFO capacities), the
/// auxiliary function tiles of each row, the external interface sets, the bus and number
/// formats, the mass multipliers, the pipeline latencies, the clock, chained ASICs and the
/// per-operation energy table.
///
/// Why a plain struct: the compiler, the simulator and the report read the same numbers, so a
/// config is loaded and validated once (loadStreamConfigFile / streamPreset; every key is listed
/// with its meaning in configs/stream/fig44.yaml) and then passed around by const reference.
/// Every field carries its unit in its name; a loaded config is always valid, and it always has
/// claim 1's structure: an input bus, at least three rows of kernel tiles, each row driving its
/// own output bus that feeds back into the row's muxes, and the last bus reaching the primary
/// output through a single mux (4412).
#pragma once

#include "nnaccel/arch/common/Technology.h"
#include "nnaccel/arch/stream/MassMultiplier.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace nnaccel::arch::stream {

enum class DataType { Int8 }; ///< int8 activations and weights (fp16/bf16: not modelled)

/// A count that is the same in every row of tiles except the rows listed: rowOverrides maps a
/// row index, as written in the file ("0" .. "rows-1"), to that row's count.
struct PerRowCount {
  int64_t everyRow = 0;
  std::vector<std::pair<std::string, int64_t>> rowOverrides;

  /// The count of \p row (0-based, asserted >= 0): its override, else everyRow.
  int64_t inRow(int64_t row) const;

  bool operator==(const PerRowCount&) const = default;
};

/// Energy per event in picojoules. Each on-chip event is `auto` (nullopt) by default: priced
/// through the technology model from the components it uses (config/Pricing.cpp,
/// docs/arch/Stream.md "Energy and area"); a number overrides it.
struct EnergyTable {
  std::optional<double> cellSelectAddPj;     ///< one multiple selected (or multiplied) and added
  std::optional<double> massMultiplierAddPj; ///< one add/subtract forming a multiple
  std::optional<double> weightLoadPj;     ///< one cell's weights (a lane-wide word) from the store
  std::optional<double> fifoValuePj;      ///< one value written and read in a kernel tile's FIFOs
  std::optional<double> unitAddPj;        ///< one output value's bias add in adder 4707
  std::optional<double> auxFifoValuePj;   ///< one value written and read in an aux tile's FIFOs
  std::optional<double> lutLookupPj;      ///< one lane's lookup in the activation table 4906
  std::optional<double> auxOpPj;          ///< one lane's add/compare/select in an aux tile
  std::optional<double> auxMultiplyPj;    ///< one lane's multiply in a channel-scale aux tile
  std::optional<double> busSetTransferPj; ///< one set of activations along a bus through a mux
  std::optional<double> busPartialSetTransferPj; ///< one set of partial sums (a kernel tile's)
  std::optional<double> chipLinkSetPj;        ///< one set of activations across a chip-to-chip link
  std::optional<double> chipLinkPartialSetPj; ///< one set of partial sums across it

  bool operator==(const EnergyTable&) const = default;
};

/// EnergyTable with every `auto` priced (energyPrices()): what the simulator charges.
struct EnergyPrices {
  double cellSelectAddPj = 0, massMultiplierAddPj = 0, weightLoadPj = 0, fifoValuePj = 0;
  double unitAddPj = 0, auxFifoValuePj = 0, lutLookupPj = 0, auxOpPj = 0, auxMultiplyPj = 0;
  double busSetTransferPj = 0, busPartialSetTransferPj = 0, chipLinkSetPj = 0;
  double chipLinkPartialSetPj = 0;
};

struct StreamConfig {
  std::string name = "custom";                      ///< preset name or the file's `name`
  std::string description = "a custom stream ASIC"; ///< one line for listings
  double clockMhz = 150.0;
  common::TechnologyConfig technology{.node = "28nm"}; ///< node and supply (docs/Technology.md)

  // --- kernel processing tiles 4405 (Figs. 44, 46-48) ----------------------------------------
  int64_t rows = 4;                      ///< rows of kernel tiles, each with its output bus 4406
  PerRowCount kernelTilesPerRow{6};      ///< kernel tiles of each row
  int64_t kernelSize = 3;                ///< the common kernel size (3x3; only 3 is modelled)
  int64_t lanes = 16;                    ///< inputs = outputs of a tile, the lanes of a bus set
  int64_t weightStorePairs = 64;         ///< input-group x output-group weight sets a tile holds
  int64_t maxArrayWidthPositions = 1920; ///< row FIFOs 4705 capacity: the widest array (columns)
  int64_t auxFifoPositions = 16;         ///< FIFO 4706's largest delay of the auxiliary input

  // --- auxiliary function tiles 4408 (Figs. 49, 50) ----------------------------------------
  PerRowCount auxTilesPerRow{2};        ///< aux tiles of each row (0: none)
  int64_t auxTileFifoPositions = 15360; ///< FIFO 4902's largest delay of the primary input
  int64_t lutEntries = 256;             ///< entries of the common lookup table 4906
  int64_t maxPatch = 3;                 ///< largest patch side of MaxPool/Average/Sample/Expand

  // --- external interfaces (Figs. 44, 51) and the primary input/output ---------------------
  int64_t inputBusSets = 1;       ///< lane sets of the input bus 4402
  int64_t externalSetsPerRow = 3; ///< sets each row exports via 4409 and takes back via 5101
  int64_t primaryOutputSets = 1;  ///< sets the primary output mux 4412 selects from the last bus

  // --- buses and number formats ----------------------------------------------------------------
  int64_t partialSumBits = 32; ///< a lane of partial sums (chained tiles, composite kernels)
  int64_t activationBits = 8;  ///< a lane of activations
  DataType dataType = DataType::Int8;
  int64_t weightBits = 8; ///< B: a weight's bits (2^B multiples per mass multiplier)
  int64_t biasBits = 32;
  int64_t accumulatorBits = 32; ///< a summation cell's sums and the FIFOs' values

  // --- mass multipliers 4603 (Figs. 3-6) ------------------------------------------------------
  MultiplierForm multiplierForm = MultiplierForm::SharedPairs; ///< how the multiples are built
  /// Claim 17: each convolution unit multiplies with local dual-input multipliers fed the raw
  /// lane values over a narrow bus, instead of selecting from mass multipliers (the form and
  /// the mass multiplier energy are then unused).
  bool localMultipliers = false;
  int64_t multiplierPipelineStages = 3; ///< cycles from a lane's value to its products

  // --- pipeline latencies, in cycles ------------------------------------------------------------
  int64_t adderTreeCycles = 2;     ///< adder tree 4806 (16 scaled products -> 1)
  int64_t summationCellCycles = 1; ///< adders 4810-4812 and the cell's output register
  int64_t unitAdderCycles = 1;     ///< adder 4707: bias + the delayed auxiliary input
  int64_t auxAdderCycles = 1;      ///< adder 4904
  int64_t lutCycles = 1;           ///< lookup table 4906
  int64_t patchCycles = 1;         ///< a patch function 5002 (MaxPool, Average, ...)
  int64_t busHopCycles = 1;        ///< a registered mux between a bus and a tile input

  // --- chained ASICs (Fig. 51: external I/O connecting several units) ---------------------------
  int64_t chips = 1;                  ///< identical ASICs chained through external interfaces
  int64_t chipLinkLatencyCycles = 16; ///< from one chip's external output to the next's bus

  // --- the conventional baseline ---------------------------------------------------------
  /// The frame-buffer accelerator the throughput is compared with (seed 002's "two orders of
  /// magnitude", docs/Validation.md): the same multiply-accumulators per cycle, every layer's
  /// input and output frames and its weights moved through DRAM of this standard
  /// (tech/Dram.h) and channel count, one layer after another.
  std::string baselineDram = "lpddr4-3200";
  int64_t baselineDramChannels = 1;
  /// The baseline's DRAM bytes per cycle of clockMhz (a validated config).
  double baselineDramBytesPerCycle() const;

  EnergyTable energy;

  /// Kernel tiles of \p row (0-based, asserted < rows) / all rows of one chip.
  int64_t tilesInRow(int64_t row) const;
  int64_t kernelTileCount() const;
  /// Aux tiles of \p row (0-based, asserted < rows) / all rows of one chip.
  int64_t auxTilesInRow(int64_t row) const;
  int64_t auxTileCount() const;
  /// Sets on row \p row's output bus 4406: one per kernel tile, aux tile and external input.
  int64_t outputBusSets(int64_t row) const;
  /// Sets a mux of row \p row (4403, each half of 4407) chooses from: the row's input bus (the
  /// input bus 4402 for row 0, else the previous row's output bus) and the row's own bus.
  int64_t rowMuxChoices(int64_t row) const;
  /// Sets the primary output mux 4412 chooses from: the last row's output bus.
  int64_t primaryOutputChoices() const { return outputBusSets(rows - 1); }
  /// Multiply-selects per cycle over all chips: every cell (kernel positions x output lanes) of
  /// every tile applying one weight to each input lane.
  int64_t macsPerCycle() const;
  /// Multiples a mass multiplier provides (2^weightBits, 0 included).
  int64_t multiplesPerMassMultiplier() const { return int64_t{1} << weightBits; }
  /// Cycles from a tile input to the kernel tile's output register (multiplier, adder tree,
  /// cell, unit adder), not counting the kernel's positional delay (digest §4.5 Lat).
  int64_t kernelTileLatencyCycles() const;
  /// Cycles through an aux tile using its adder, LUT and a patch function.
  int64_t auxTileLatencyCycles() const { return auxAdderCycles + lutCycles + patchCycles; }

  bool operator==(const StreamConfig&) const = default;
};

/// Checks every invariant (ranges; claim 1's >= 3 rows; row overrides naming existing rows;
/// kernel size 3; bit widths that hold a product, a bias and a partial sum; a lookup table
/// covering every activation; 4412 within the last bus); throws nnaccel::Error (Config) naming
/// \p file and the key.
void validate(const StreamConfig& c, const std::string& file = "<config>");

/// Parses and validates a YAML document (every key in configs/stream/fig44.yaml). Unknown keys,
/// wrong types and impossible values throw nnaccel::Error (Config) naming \p file and the dotted
/// key path. Keys absent from the document keep the `fig44` preset's values; name "custom" and
/// the in-code description.
StreamConfig parseStreamConfig(const std::string& yamlText, const std::string& file);
/// As parseStreamConfig, but keys absent from the document keep \p base's values.
StreamConfig parseStreamConfigOver(const StreamConfig& base, const std::string& yamlText,
                                   const std::string& file);
/// Reads and parses the file at \p path (errors name the path as given; Io if unreadable).
StreamConfig loadStreamConfigFile(const std::string& path);

/// The shipped presets, among them "fig44" (the default: the patent's Fig. 44 example, 4 rows
/// of 6 kernel tiles).
std::vector<std::string> streamPresetNames();
/// The preset \p name; throws Error (Usage) listing the presets when there is none.
StreamConfig streamPreset(const std::string& name);
/// The effective config as YAML in the schema's layout (parseStreamConfig round-trips it).
std::string toYaml(const StreamConfig& c);

/// The components of the \p chips chips a run uses (the config's `chips.count` when 0), priced
/// at the config's node (config/Pricing.cpp).
common::Inventory streamInventory(const StreamConfig& c, int64_t chips = 0);
/// Every energy event with its price and basis (`nnaccel arch cost stream`).
std::vector<engines::CostTable::Event> energyEvents(const StreamConfig& c);
/// What the simulator charges per event.
EnergyPrices energyPrices(const StreamConfig& c);

} // namespace nnaccel::arch::stream
