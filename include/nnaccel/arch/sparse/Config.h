/// \file
/// The sparse engine's architecture description (seed 001, SCNN / PT-IS-CP-sparse): the PE
/// grid, each PE's F x I multiplier array, the scatter crossbar and accumulator banks, the
/// weight FIFO, the activation RAMs, the post-processing unit, DRAM, numeric widths, the
/// compressed encodings and the per-access energy table.
///
/// Why a plain struct: the compiler, the simulator and the report read the same numbers, so a
/// config is loaded and validated once (loadSparseConfigFile / sparsePreset; schema in
/// docs/arch/Sparse.md) and then passed around by const reference. Every field carries its unit
/// in its name; a loaded config is always valid.
#pragma once

#include "nnaccel/arch/common/Dram.h"
#include "nnaccel/arch/common/Technology.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace nnaccel::arch::sparse {

/// How a product's accumulator address picks its bank (seed 001 ¶0096: low bits or a hash).
/// The dense accelerator the speedup and energy ratio of every report are against.
enum class BaselineDataflow {
  /// PT-IS-CP-dense: this machine's PEs, buffers and Cartesian product on dense data (the
  /// patent's and the digest's dense counterpart), timed cycle by cycle.
  CartesianProduct,
  /// PT-IS-DP-dense, the SCNN paper's DCNN (ISCA 2017 §5, Table 5): the same PEs, tiling and
  /// output-channel groups, each PE's F x I multipliers as F dot products of I input channels,
  /// and a shared activation SRAM of baseline.sram_bytes (DCNN-opt: the same, with zero-gated
  /// multipliers and compressed DRAM transfers; SparseCycleModel.md §10a).
  DotProduct,
};

/// Eq. 1's accumulator address a = x + y * W + k * W * H (W, H: the frame with halos).
enum class AddressRounding {
  Exact,      ///< W and H as they are: every accumulator entry usable
  PowerOfTwo, ///< W and H rounded up to powers of two (a cheap multiply; digest §2.2): unused
              ///< entries
};

/// What the layer sequencer broadcasts to every PE (seed 001 ¶0048: "broadcasts a weight
/// vector to each PE ... and sequences through multiple activation vectors", or "broadcasts an
/// input activation vector to each PE ... and sequences through multiple weight vectors").
enum class Broadcast {
  Auto,    ///< activations for fully-connected layers, weights for convolutions
  Weights, ///< each PE holds a tile of the plane (¶0069); weight vectors are broadcast
  /// each PE holds the whole input and a slice of the output channels (their weights alone);
  /// a convolution whose whole-plane accumulator frame does not fit is tiled as with `weights`
  Activations,
};

/// How convolution windows that cross a PE's tile edge are resolved (seed 001 ¶0070).
enum class Halos {
  /// accumulators sized for the tile plus its output halos, whose partial sums are sent to the
  /// neighbours after each output-channel group (Tables 7, 8; SCNN's choice)
  Output,
  /// input buffers sized for the tile plus the input halos replicated from the neighbours; a
  /// PE accumulates only its own tile and drops the products that land outside it
  Input,
};

/// The scatter crossbar's input queueing (seed 001 §1.4).
enum class CrossbarQueues {
  PerLane, ///< one FIFO per multiplier lane (Fig. 3C): a product for a busy bank blocks its lane
  PerBank, ///< virtual output queueing: one FIFO per lane and bank, no head-of-line blocking
};

enum class BankMapping {
  LowBits, ///< bank = address mod banks
  Hash,    ///< bank = (address XOR-folded over log2(banks)-bit chunks) mod banks
};

/// Code tables of the compressed formats (seed 001 Figs. 4C, 5A–5E, or plain zero-run-length
/// with `indexBits`-bit zero counts).
enum class WeightCodeTable { ZeroRunLength, Fig4C, Fig5D, Fig5E };
enum class ActivationCodeTable { ZeroRunLength, Fig4C, Fig5A, Fig5B, Fig5C };

/// Per-access energies in picojoules. Each on-chip event is `auto` (nullopt) by default: priced
/// through the technology model from the components it uses (config/Pricing.cpp,
/// docs/arch/Sparse.md "Energy and area"); a number overrides it. DRAM's are `auto` when the
/// `dram:` section names a standard (arch/common/Dram.h), else numbers.
struct EnergyTable {
  std::optional<double> multiplyPj;              ///< one value x value multiply
  std::optional<double> accumulatorRmwPj;        ///< one accumulator read-add-write
  std::optional<double> crossbarPj;              ///< one product through the scatter crossbar
  std::optional<double> weightFifoReadPjPerByte; ///< weight FIFO read (per byte incl. index bits)
  std::optional<double> weightFifoWritePjPerByte;
  std::optional<double> iaRamReadPjPerByte;  ///< input-activation RAM read
  std::optional<double> oaRamWritePjPerByte; ///< output-activation RAM write
  std::optional<double> haloPj;              ///< one halo (value, position) message to a neighbour
  std::optional<double> ppuOpPj;             ///< one post-processing operation
  std::optional<double> dramReadPjPerByte = 160.0; ///< auto with a DRAM standard
  std::optional<double> dramWritePjPerByte = 160.0;
  std::optional<double> dramActivatePj = 0.0; ///< one row activation (the row-buffer model)

  bool operator==(const EnergyTable&) const = default;
};

/// EnergyTable with every `auto` priced (energyPrices()): what the simulator charges.
struct EnergyPrices {
  double multiplyPj = 0, accumulatorRmwPj = 0, crossbarPj = 0;
  double weightFifoReadPjPerByte = 0, weightFifoWritePjPerByte = 0;
  double iaRamReadPjPerByte = 0, oaRamWritePjPerByte = 0;
  double haloPj = 0, ppuOpPj = 0, dramReadPjPerByte = 0, dramWritePjPerByte = 0;
  double dramActivatePj = 0;
};

struct SparseConfig {
  std::string name = "custom"; ///< preset name or the config file's `name`
  double clockMhz = 1000.0;

  // --- PE grid and multipliers (seed 001 §1.2) -------------------------------------------
  int64_t peRows = 8;                    ///< PE grid rows (tiles of the activation plane in y)
  int64_t peCols = 8;                    ///< PE grid columns (tiles in x)
  int64_t weightsPerVector = 4;          ///< F: non-zero weights read per cycle
  int64_t activationsPerVector = 4;      ///< I: non-zero activations read per cycle
  Broadcast broadcast = Broadcast::Auto; ///< what the layer sequencer broadcasts (¶0048)
  Halos halos = Halos::Output;           ///< output or input halos (¶0070)

  // --- scatter crossbar and accumulators ------------------------------------------------------
  int64_t accumulatorBanks = 32;          ///< A (a power of two)
  int64_t accumulatorBankEntries = 32;    ///< entries per bank (per buffer)
  bool doubleBufferedAccumulators = true; ///< post-processing drains the secondary set
  int64_t crossbarFifoDepth = 2;          ///< per multiplier-lane input FIFO (2 or 3 in the patent)
  BankMapping bankMapping = BankMapping::LowBits;
  CrossbarQueues crossbarQueues = CrossbarQueues::PerLane;
  /// Back-to-back adds to one address: forwarded (no stall) or stalled for the write latency.
  bool accumulatorForwarding = true;
  int64_t accumulatorWriteLatencyCycles = 1; ///< read-add-write: write address delayed this long
  AddressRounding addressRounding = AddressRounding::Exact;
  /// Entries of a combining buffer in front of each bank (seed 001 ¶0103; 0: none): a product
  /// whose address is buffered is added into that entry, and the bank's read-add-write happens
  /// only when an entry leaves the buffer (full, or at the group's end).
  int64_t combiningBufferEntries = 0;
  /// 1: the single-stage crossbar of Fig. 3C; 2: the two-stage network of Fig. 3E (stage 1: I
  /// instances of an F -> A / I crossbar, stage 2: A / I instances of an I -> I crossbar).
  int64_t crossbarStages = 1;

  // --- buffers ---------------------------------------------------------------------------
  int64_t weightFifoEntries = 50;       ///< F-wide weight vectors per PE weight FIFO
  int64_t iaRamBytes = 10 * 1024;       ///< input-activation RAM per PE (values + indices)
  int64_t oaRamBytes = 10 * 1024;       ///< output-activation RAM per PE
  int64_t broadcastVectorsPerCycle = 1; ///< weight vectors the layer sequencer sends per cycle

  // --- post-processing unit ----------------------------------------------------------------
  int64_t ppuOpsPerCycle = 1;        ///< halo send / non-linear / compaction ops per cycle
  int64_t haloLinkLatencyCycles = 2; ///< one halo message PE to neighbour
  /// A pooling that alone reads a convolution's output runs in that layer's post-processing,
  /// before compression (seed 001 ¶0082); false: a separate pass over the stored output.
  bool fusePooling = true;

  // --- numerics ----------------------------------------------------------------------------
  int64_t valueBits = 16;       ///< stored width of a weight or activation value
  int64_t accumulatorBits = 24; ///< accumulator width (two's complement, wraps on overflow)

  // --- compressed encodings (seed 001 §3) ------------------------------------------------------
  int64_t indexBits = 4; ///< zero-count / code width
  WeightCodeTable weightCodes = WeightCodeTable::ZeroRunLength;
  ActivationCodeTable activationCodes = ActivationCodeTable::ZeroRunLength;

  // --- DRAM --------------------------------------------------------------------------------
  common::DramPart dram;                          ///< the DRAM part: a standard, or custom
  std::optional<double> dramBytesPerCycle = 32.0; ///< auto: the standard's peak at clock_mhz
  std::optional<int64_t> dramLatencyCycles = 100; ///< auto: the standard's tRCD + CL

  // --- the dense baseline -------------------------------------------------------------------
  BaselineDataflow baselineDataflow = BaselineDataflow::CartesianProduct;
  int64_t baselineSramBytes = 2 * 1024 * 1024; ///< dot_product: the DCNN's activation SRAM

  common::TechnologyConfig technology{"16nm"}; ///< the SCNN paper's node (the scnn preset)

  EnergyTable energy;

  int64_t peCount() const { return peRows * peCols; }
  /// The DRAM part's settings and its figures at clockMhz (a validated config).
  common::DramSettings dramSettings() const;
  common::DramFigures dramFigures() const;
  int64_t multipliersPerPe() const { return weightsPerVector * activationsPerVector; }
  int64_t accumulatorEntries() const { return accumulatorBanks * accumulatorBankEntries; }
  /// Eq. 1's multiplier for a frame extent of \p cells (addressRounding).
  int64_t addressStride(int64_t cells) const {
    if (addressRounding == AddressRounding::Exact || cells <= 1)
      return cells;
    int64_t p = 1;
    while (p < cells)
      p *= 2;
    return p;
  }

  bool operator==(const SparseConfig&) const = default;
};

/// Checks every invariant (ranges and cross-field rules: banks a power of two, value and
/// accumulator widths able to hold int8 data, ...); throws nnaccel::Error (Config) naming
/// \p file and the key.
void validate(const SparseConfig& c, const std::string& file = "<config>");

/// Parses and validates a YAML document (schema in docs/arch/Sparse.md). Unknown keys, wrong
/// types and impossible values throw nnaccel::Error (Config) naming \p file and the dotted key
/// path. Keys absent from the document keep the `scnn` preset's values; name "custom".
SparseConfig parseSparseConfig(const std::string& yamlText, const std::string& file);
/// As parseSparseConfig, but keys absent from the document keep \p base's values.
SparseConfig parseSparseConfigOver(const SparseConfig& base, const std::string& yamlText,
                                   const std::string& file);
/// Reads and parses the file at \p path (errors name the path as given; Io if unreadable).
SparseConfig loadSparseConfigFile(const std::string& path);

/// The shipped presets: "scnn" (the patent's 8x8 PEs of 4x4 multipliers) and "tiny" (2x2 PEs,
/// small accumulators: for tests that need many groups, halos and stalls on small layers).
std::vector<std::string> sparsePresetNames();
/// The preset \p name; throws Error (Usage) listing the presets when there is none.
SparseConfig sparsePreset(const std::string& name);
/// The effective config as YAML in the schema's layout (parseSparseConfig round-trips it).
std::string toYaml(const SparseConfig& c);

/// The machine's components (multipliers, accumulator banks, weight FIFOs, activation RAMs,
/// post-processing) priced at its technology (config/Pricing.cpp). \p c must be valid.
common::Inventory sparseInventory(const SparseConfig& c);
/// Every event's price (`nnaccel arch cost`: the config's number, or the sum of the components
/// the event uses), in the `energy:` section's order of the auto-priced keys, then the rest.
std::vector<engines::CostTable::Event> energyEvents(const SparseConfig& c);
/// Every event's energy: the config's number where it gives one, else the technology's price.
EnergyPrices energyPrices(const SparseConfig& c);

} // namespace nnaccel::arch::sparse
