/// \file
/// The broadcast engine's architecture description (seed 004, Intel: 1xN kernel decomposition
/// with activation broadcasting between PEs): the PE array (columns of PEs, split into broadcast
/// groups), each PE's MAC lanes and input / weight / output register files, the data read
/// module's loading lanes, the PE-to-PE broadcast links, the column buffers, the global buffer
/// (on-chip SRAM), memory 310 (the DRAM behind it), the numerics, the compiler's decomposition
/// choice and the per-access energy table.
///
/// Why a plain struct: the compiler, the simulator and the report read the same numbers, so a
/// config is loaded and validated once (loadBroadcastConfigFile / broadcastPreset; schema in
/// docs/arch/Broadcast.md) and then passed around by const reference. Every field carries its
/// unit in its name; a loaded config is always valid.
#pragma once

#include "nnaccel/arch/common/Dram.h"
#include "nnaccel/arch/common/Technology.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace nnaccel::arch::broadcast {

/// What a PE's input register file does when the next operand would overwrite one whose MACs
/// have not finished (seed 004 §2.4 "buffer space"; the patent leaves it open).
enum class RfPolicy {
  Stall,        ///< one operand buffer: the read of the next operand waits for the MACs
  DoubleBuffer, ///< two operand buffers: the next operand loads while the PE computes
};

/// Where the partial sums of a multi-segment kernel (H_f rows x V vectors) are added (seed 004
/// ¶0078 and FIG. 9).
enum class Accumulation {
  Pe,     ///< one PE processes every segment of its operand and accumulates locally
  Column, ///< the broadcast groups of a column take different segments of the same operands;
          ///< the column buffer adds their column-level partial sums before the drain
};

/// What the compiler does with a kernel row whose width N does not divide (seed 004 ¶0062-0064).
enum class NonDivisible {
  Expand,    ///< append zero-valued dummy columns on the right (cleared in the bitmap)
  Transpose, ///< if N divides the height: transpose kernel and input, transpose the result back
};

enum class DataType { Int8 }; ///< int8 operands, int32 accumulation (fp16/bf16: not modelled)

/// Per-access energies in picojoules. Each on-chip event is `auto` (nullopt) by default: priced
/// through the technology model from the components it uses (config/Pricing.cpp,
/// docs/arch/Broadcast.md "Energy and area"); a number overrides it. Memory 310's are `auto` when
/// its section names a DRAM standard (arch/common/Dram.h), else numbers.
struct EnergyTable {
  std::optional<double> macPj;                   ///< one int8 x int8 multiply-accumulate (int32)
  std::optional<double> inputRfWritePjPerByte;   ///< activation written into a PE's input RF
  std::optional<double> inputRfReadPjPerByte;    ///< activation read by the multiplier
  std::optional<double> weightRfWritePjPerByte;  ///< weight written into a PE's weight RF
  std::optional<double> weightRfReadPjPerByte;   ///< weight read by the multiplier
  std::optional<double> outputRfAccessPjPerByte; ///< partial sum read or written (4 bytes each)
  std::optional<double> broadcastPjPerByte;      ///< one PE-to-PE link transfer
  std::optional<double> columnBufferAccessPjPerByte;  ///< column buffer write or read
  std::optional<double> globalBufferReadPjPerByte;    ///< global buffer read
  std::optional<double> globalBufferWritePjPerByte;   ///< global buffer write (drain, staging)
  std::optional<double> memoryReadPjPerByte = 160.0;  ///< memory 310 read (auto: its standard)
  std::optional<double> memoryWritePjPerByte = 160.0; ///< memory 310 write
  std::optional<double> memoryActivatePj = 0.0;       ///< one row activation (the row-buffer model)

  bool operator==(const EnergyTable&) const = default;
};

/// The `energy:` keys of memory 310's read, write and activation events.
inline constexpr std::array<std::string_view, 3> kMemoryEnergyKeys{
    "memory_read_pj_per_byte", "memory_write_pj_per_byte", "memory_activate_pj"};

/// EnergyTable with every `auto` priced (energyPrices()): what the simulator charges.
struct EnergyPrices {
  double macPj = 0, inputRfWritePjPerByte = 0, inputRfReadPjPerByte = 0;
  double weightRfWritePjPerByte = 0, weightRfReadPjPerByte = 0, outputRfAccessPjPerByte = 0;
  double broadcastPjPerByte = 0, columnBufferAccessPjPerByte = 0;
  double globalBufferReadPjPerByte = 0, globalBufferWritePjPerByte = 0;
  double memoryReadPjPerByte = 0, memoryWritePjPerByte = 0, memoryActivatePj = 0;
};

struct BroadcastConfig {
  std::string name = "custom"; ///< preset name or the config file's `name`
  double clockMhz = 1000.0;

  // --- PE array (seed 004 FIG. 9) ----------------------------------------------------------
  int64_t columns = 4;        ///< PE columns, each with its column buffer and loading lanes
  int64_t pesPerColumn = 4;   ///< PEs in one column
  int64_t groupSize = 4;      ///< P: PEs sharing activations by broadcast (divides pesPerColumn)
  int64_t macLanesPerPe = 16; ///< multiply-accumulates one PE performs per cycle

  // --- register files, per PE (FIG. 10) ----------------------------------------------------
  int64_t inputRfBytes = 256;   ///< activation memory (input operands)
  int64_t weightRfBytes = 1024; ///< weight memory (weight-operand segments)
  int64_t outputRfBytes = 256;  ///< output memory: 4-byte partial sums
  RfPolicy inputRfPolicy = RfPolicy::DoubleBuffer;

  // --- data read module (¶0073-0075) --------------------------------------------------------
  int64_t lanesPerColumn = 4; ///< data loading lanes of one PE column (split among its groups)
  int64_t laneBytes = 16;     ///< bytes one lane carries per cycle
  int64_t readsPerCycle = 4;  ///< read operations one group may start per cycle (<= its lanes)

  // --- PE-to-PE broadcast links (¶0072, FIG. 7/8) -------------------------------------------
  int64_t broadcastLatencyCycles = 0; ///< extra cycles from the reader PE to a receiver (FIG. 8: 0)
  int64_t broadcastFanOut = 4;        ///< receivers one activation reaches per cycle

  // --- column buffers (FIG. 9) ---------------------------------------------------------------
  int64_t columnBufferBytes = 2048; ///< per column: outputs on their way out, partial sums
  int64_t drainBytesPerCycle = 16;  ///< column buffer -> global buffer or memory 310
  Accumulation accumulation = Accumulation::Pe;

  // --- numerics and sparsity (¶0095-0102) -----------------------------------------------------
  DataType dataType = DataType::Int8;
  /// The multiplier's time depends on the weights' density (¶0102): zero weights are skipped by
  /// their sparsity-bitmap bit. Off: every non-dummy weight takes a MAC slot.
  bool skipZeroWeights = true;

  // --- global buffer: on-chip SRAM between memory 310 and the data read module --------------
  /// Activations live here between layers when they fit; weights are staged here per layer.
  int64_t globalBufferCapacityBytes = int64_t{4} << 20;
  double globalBufferBytesPerCycle = 512.0; ///< all columns together
  int64_t globalBufferLatencyCycles = 2;    ///< first access of a layer that touches no DRAM

  // --- memory 310: the DRAM behind the global buffer (¶0058) ----------------------------------
  common::DramPart memory;                          ///< memory 310's part: a standard, or custom
  std::optional<double> memoryBytesPerCycle = 32.0; ///< all columns together (auto: the peak)
  std::optional<int64_t> memoryLatencyCycles = 100; ///< a layer's first DRAM access (auto: tRCD+CL)

  // --- kernel decomposition: the compiler's choice (¶0060-0064) ------------------------------
  /// N for every layer with a kernel at least N wide (narrower kernels use their width); 0 picks
  /// N per layer to minimize the compiler's cycle estimate.
  int64_t vectorWidth = 0;
  NonDivisible nonDivisible = NonDivisible::Expand;
  /// Per-layer N (graph node name, N; N = 1 forces the conventional 1x1 decomposition).
  std::vector<std::pair<std::string, int64_t>> layerVectorWidths;

  common::TechnologyConfig technology{"16nm"}; ///< the npu preset's node
  EnergyTable energy;

  int64_t peCount() const { return columns * pesPerColumn; }
  int64_t groupsPerColumn() const { return pesPerColumn / groupSize; }
  int64_t groups() const { return columns * groupsPerColumn(); }
  int64_t lanesPerGroup() const { return lanesPerColumn / groupsPerColumn(); }
  int64_t macsPerCycle() const { return peCount() * macLanesPerPe; }

  /// Memory 310's settings and figures at clockMhz (a validated config).
  common::DramSettings memorySettings() const;
  common::DramFigures memoryFigures() const;

  bool operator==(const BroadcastConfig&) const = default;
};

/// Checks every invariant (ranges and cross-field rules: P divides the column, P >= N, lanes
/// shared evenly by a column's groups, ...); throws nnaccel::Error (Config) naming \p file and
/// the key.
void validate(const BroadcastConfig& c, const std::string& file = "<config>");

/// Parses and validates a YAML document (schema in docs/arch/Broadcast.md). Unknown keys, wrong
/// types and impossible values throw nnaccel::Error (Config) naming \p file and the dotted key
/// path. Keys absent from the document keep the `npu` preset's values; name "custom".
BroadcastConfig parseBroadcastConfig(const std::string& yamlText, const std::string& file);
/// As parseBroadcastConfig, but keys absent from the document keep \p base's values.
BroadcastConfig parseBroadcastConfigOver(const BroadcastConfig& base, const std::string& yamlText,
                                         const std::string& file);
/// Reads and parses the file at \p path (errors name the path as given; Io if unreadable).
BroadcastConfig loadBroadcastConfigFile(const std::string& path);

/// The shipped presets: "npu" (the default: 8 columns of 8 PEs in broadcast groups of 4, the
/// patent's 4 x 16-byte lanes per column) and "fig8" (one column of the 4 PEs of FIGs. 7 and 8,
/// N = 3: the seed's examples).
std::vector<std::string> broadcastPresetNames();
/// The preset \p name; throws Error (Usage) listing the presets when there is none.
BroadcastConfig broadcastPreset(const std::string& name);
/// The effective config as YAML in the schema's layout (parseBroadcastConfig round-trips it).
std::string toYaml(const BroadcastConfig& c);

/// The machine's components (MAC lanes, register files, column buffers, global buffer) priced at
/// its technology (config/Pricing.cpp). \p c must be valid.
common::Inventory broadcastInventory(const BroadcastConfig& c);
/// Every event's price (`nnaccel arch cost`: the config's number, or the sum of the components
/// the event uses): the auto-priced keys in the `energy:` section's order, then the rest.
std::vector<engines::CostTable::Event> energyEvents(const BroadcastConfig& c);
/// Every event's energy: the config's number where it gives one, else the technology's price.
EnergyPrices energyPrices(const BroadcastConfig& c);

} // namespace nnaccel::arch::broadcast
