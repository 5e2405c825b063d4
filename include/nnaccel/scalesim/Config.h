/// \file
/// SCALE-Sim v2 run configuration (.cfg) as SCALE-Sim reads it, so users keep their config files.
///
/// The file is Python-configparser INI: `[section]` headers, `key: value` or `key = value`
/// lines, keys matched case-insensitively, values stripped, whole-line `#`/`;` comments, a
/// [DEFAULT] section whose keys every section inherits. SCALE-Sim reads `run_name` from
/// [general], `InterfaceBandwidth` (CALC or USER) from [run_presets], and the array, SRAM,
/// offset, dataflow and (USER only) bandwidth keys from [architecture_presets]; other keys
/// (MemoryBanks, TopologyCsvLoc) are ignored. See docs/ScaleSim.md for every rule and error.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace nnaccel::scalesim {

/// Which operand stays in the processing elements while the others stream through.
enum class Dataflow {
  OutputStationary, ///< "os"
  WeightStationary, ///< "ws"
  InputStationary,  ///< "is"
};

/// How SCALE-Sim sizes the DRAM side of the read buffers (the `InterfaceBandwidth` key).
enum class BandwidthMode {
  Calc, ///< "CALC": reads never stall; the DRAM bandwidth needed is estimated
  User, ///< "USER": the first `Bandwidth` value (words per cycle) limits prefetches; reads stall
};

struct Config {
  std::string runName; ///< reports go to OUTDIR/runName (OUTDIR itself when empty)
  BandwidthMode bandwidthMode = BandwidthMode::Calc;
  int64_t arrayRows = 0;        ///< ArrayHeight (processing-element rows)
  int64_t arrayCols = 0;        ///< ArrayWidth
  int64_t ifmapSramKiB = 0;     ///< IfmapSramSzkB; SCALE-Sim's kB is 1024 bytes of 1-byte words
  int64_t filterSramKiB = 0;    ///< FilterSramSzkB
  int64_t ofmapSramKiB = 0;     ///< OfmapSramSzkB
  int64_t ifmapAddrOffset = 0;  ///< IfmapOffset: first ifmap word address
  int64_t filterAddrOffset = 0; ///< FilterOffset
  int64_t ofmapAddrOffset = 0;  ///< OfmapOffset
  Dataflow dataflow = Dataflow::OutputStationary;
  /// `Bandwidth` in USER mode, words per cycle; SCALE-Sim uses only the first value.
  std::vector<int64_t> userBandwidthWordsPerCycle;
};

/// Parses the text of a SCALE-Sim .cfg file; \p fileName names it in errors. Throws
/// nnaccel::Error(Config) naming the file, the line or key, and the reason.
Config parseConfigText(const std::string& text, const std::string& fileName);
/// Reads and parses \p path (Error(Io) when it cannot be read).
Config parseConfigFile(const std::string& path);

/// "os", "ws" or "is".
const char* dataflowName(Dataflow dataflow);

} // namespace nnaccel::scalesim
