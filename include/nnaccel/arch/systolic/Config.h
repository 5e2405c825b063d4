/// \file
/// The systolic engine's architecture description (seeds 000 + 003): the weight-stationary PE
/// array, its memories, the DMA path and the energy table.
///
/// Why a plain struct: the compiler, the simulator and the report all read the same numbers,
/// so a config is loaded and validated once (loadSystolicConfig*, schema in
/// docs/arch/Systolic.md) and then passed around by const reference. Every field carries its
/// unit in its name; a loaded config is always valid (validate() enforces the invariants the
/// compiler and simulator rely on).
#pragma once
#include "nnaccel/arch/common/Dram.h"
#include "nnaccel/arch/common/Technology.h"
#include "nnaccel/tensor/DType.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace nnaccel::arch::systolic {

/// How never-written summation-buffer entries read as zero (seed 000 FIG. 7A / 7B).
enum class PsumZeroMode {
  Reset,        ///< PSUM_RESET instructions zero a tile before its first MATMUL (FIG. 7A)
  WrittenFlags, ///< per-entry written flags + read multiplexer (FIG. 7B); no reset instruction
};

/// Per-event energies in picojoules. Each on-chip event is `auto` (nullopt) by default: priced
/// through the technology model from the components the event uses (Pricing.cpp,
/// docs/arch/Systolic.md "Energy and area"); a number overrides it. The DRAM events are `auto`
/// when the `dram:` section names a standard (arch/common/Dram.h), else numbers.
struct EnergyTable {
  std::optional<double> macInt8Pj;                 ///< one int8 x int8 multiply + int32 add
  std::optional<double> macFp32Pj;                 ///< one fp32 multiply-add
  std::optional<double> sbufReadPjPerByte;         ///< state buffer (SRAM) read
  std::optional<double> sbufWritePjPerByte;        ///< state buffer (SRAM) write
  std::optional<double> psumReadPjPerEntry;        ///< one 32-bit summation-buffer entry read
  std::optional<double> psumWritePjPerEntry;       ///< one 32-bit summation-buffer entry write
  std::optional<double> dramReadPjPerByte = 80.0;  ///< DRAM read
  std::optional<double> dramWritePjPerByte = 80.0; ///< DRAM write
  std::optional<double> dramActivatePj = 0.0;      ///< one row activation (the row-buffer model)
  std::optional<double> actOpPj;  ///< one activation-engine element (requantize/activation)
  std::optional<double> poolOpPj; ///< one pooling-engine window element
  std::optional<double> weightLoadPjPerByte; ///< moving one weight byte into a PE register

  bool operator==(const EnergyTable&) const = default;
};

/// The energy of each event as the cycle model charges it: EnergyTable with every `auto`
/// resolved (energyPrices()).
struct EnergyPrices {
  double macInt8Pj = 0, macFp32Pj = 0;
  double sbufReadPjPerByte = 0, sbufWritePjPerByte = 0;
  double psumReadPjPerEntry = 0, psumWritePjPerEntry = 0;
  double dramReadPjPerByte = 0, dramWritePjPerByte = 0, dramActivatePj = 0;
  double actOpPj = 0, poolOpPj = 0, weightLoadPjPerByte = 0;
};

struct SystolicConfig {
  std::string name = "custom"; ///< preset name or the config file's `name`

  // --- PE array --------------------------------------------------------------------------
  int64_t peRows = 16; ///< Ra: input-channel partitions; PE row p reads SBUF partition p
  int64_t peCols = 16; ///< Ca: output channels; PE column m writes PSUM column m
  /// Cycles to load one set of weights into the array (shifting in from the top: ~peRows).
  int64_t weightLoadCycles = 16;
  /// PEs hold a shadow weight register: the next LOAD_WEIGHTS overlaps the current MATMUL.
  bool shadowWeights = true;

  // --- on-chip memories --------------------------------------------------------------------
  int64_t sbufBytesPerPartition = 16 * 1024; ///< state buffer, per partition (= per PE row)
  /// The top of every partition that holds layer outputs between layers (the resident region,
  /// seed 000 [0071]); the lowerings tile inside the rest. 0: every activation goes to DRAM.
  int64_t sbufResidentBytesPerPartition = 0;
  double sbufDmaBytesPerCycle = 64.0; ///< DMA between the resident region and working tiles
  int64_t sbufDmaLatencyCycles = 8;   ///< first-byte latency of such an on-chip descriptor
  int64_t psumEntriesPerColumn = 512; ///< 32-bit accumulators per PE column
  int64_t psumMaxTileRows = 16;       ///< largest output tile shape (rows x cols) ...
  int64_t psumMaxTileCols = 32;       ///< ... with rows * cols <= psumEntriesPerColumn
  PsumZeroMode psumZeroMode = PsumZeroMode::Reset;
  /// PSUM_RESET clears this many entries per column per cycle.
  int64_t psumResetEntriesPerCycle = 8;

  // --- data types ------------------------------------------------------------------------
  /// Supported element types: i8 (int8 inputs/weights, int32 accumulation) and/or f32.
  std::vector<DType> dtypes = {DType::I8, DType::F32};

  // --- post-processing engines -------------------------------------------------------------
  int64_t actLatencyCycles = 4;  ///< activation-engine pipeline depth
  int64_t poolLanes = 16;        ///< pooling-engine lanes (partitions processed in parallel)
  int64_t poolLatencyCycles = 4; ///< pooling-engine pipeline depth

  // --- DRAM / DMA --------------------------------------------------------------------------
  common::DramPart dram;                          ///< the DRAM part: a standard, or custom
  std::optional<double> dramBytesPerCycle = 16.0; ///< DMA bandwidth (auto: the standard's peak)
  std::optional<int64_t> dramLatencyCycles = 100; ///< first byte of a descriptor (auto: tRCD+CL)

  double clockMhz = 1000.0;
  common::TechnologyConfig technology;
  EnergyTable energy;

  int64_t psumTileEntries() const { return psumMaxTileRows * psumMaxTileCols; }
  /// The DRAM part's settings and its figures at clockMhz (a validated config).
  common::DramSettings dramSettings() const;
  common::DramFigures dramFigures() const;
  /// SBUF bytes per partition the lowerings may tile in (below the resident region).
  int64_t sbufWorkingBytesPerPartition() const {
    return sbufBytesPerPartition - sbufResidentBytesPerPartition;
  }
  bool supports(DType t) const;

  bool operator==(const SystolicConfig&) const = default;
};

/// Checks every invariant; throws nnaccel::Error (Config) naming \p file and the key.
void validate(const SystolicConfig& c, const std::string& file = "<config>");

/// Parses and validates a YAML document (schema in docs/arch/Systolic.md). Unknown keys, wrong
/// types and impossible values throw nnaccel::Error (Config) naming \p file and the key path
/// (ErrorContext::key), e.g. `edge.yaml: 'array.rows': must be >= 1 (got 0)`; malformed YAML
/// names the line. Keys absent from the document keep their defaults: the small preset's
/// values (note: these differ from a default-constructed SystolicConfig), name "custom".
SystolicConfig parseSystolicConfig(const std::string& yamlText, const std::string& file);
/// As parseSystolicConfig, but keys absent from the document keep \p base's values.
SystolicConfig parseSystolicConfigOver(const SystolicConfig& base, const std::string& yamlText,
                                       const std::string& file);
/// Reads and parses the file at \p path (errors name the path as given; Io if unreadable).
SystolicConfig loadSystolicConfigFile(const std::string& path);

/// The shipped presets: "small" (16x16, for tests), "edge" (32x32), "server" (128x64).
std::vector<std::string> systolicPresetNames();
/// The preset \p name; throws Error (Usage) listing the presets when there is none.
SystolicConfig systolicPreset(const std::string& name);
/// The effective config as YAML in the schema's layout (parseSystolicConfig round-trips it).
std::string toYaml(const SystolicConfig& c);

/// The machine's components (PE array, state and summation buffers, post-processing engines)
/// priced at its technology (Pricing.cpp). \p c must be valid.
common::Inventory systolicInventory(const SystolicConfig& c);
/// Every event's price, in the `energy:` section's order.
/// (`nnaccel arch cost`: the config's number, or the sum of the components the event uses).
std::vector<engines::CostTable::Event> energyEvents(const SystolicConfig& c);
/// Every event's energy: the config's number where it gives one, else the technology's price.
EnergyPrices energyPrices(const SystolicConfig& c);

} // namespace nnaccel::arch::systolic
