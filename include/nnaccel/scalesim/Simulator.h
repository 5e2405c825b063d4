/// \file
/// SCALE-Sim v2's cycle and access counts for a systolic array, computed without its
/// cycle-by-cycle demand matrices.
///
/// SCALE-Sim turns every layer into an ifmap, a filter and an ofmap operand matrix, folds them
/// onto the array for the dataflow (os, ws, is), writes one demand row per cycle and pushes each
/// row through a double-buffered scratchpad (two read buffers and a write buffer). nnaccel
/// reproduces the same numbers, quirks included, from the fold geometry: the ofmap demand of a
/// cycle is a closed-form count, the read buffers see the same address stream but repeated
/// passes whose outcome is known are skipped, and the write buffer advances in bulk between
/// drains. docs/ScaleSim.md derives each number and lists the quirks.
#pragma once

#include "nnaccel/scalesim/Config.h"
#include "nnaccel/scalesim/Topology.h"

#include <cstdint>
#include <string>
#include <vector>

namespace nnaccel::scalesim {

/// One layer's row of SCALE-Sim's three reports. Cycles are signed: SCALE-Sim prefetches
/// before cycle 0, so DRAM start cycles are negative.
struct LayerReport {
  // COMPUTE_REPORT.csv
  int64_t totalCycles = 0;
  int64_t stallCycles = 0;
  double overallUtilPct = 0;
  double mappingEfficiencyPct = 0;
  double computeUtilPct = 0;
  // BANDWIDTH_REPORT.csv, words per cycle
  double avgIfmapSramBw = 0;
  double avgFilterSramBw = 0;
  double avgOfmapSramBw = 0;
  double avgIfmapDramBw = 0;
  double avgFilterDramBw = 0;
  double avgOfmapDramBw = 0;
  // DETAILED_ACCESS_REPORT.csv
  int64_t ifmapSramStartCycle = 0;
  int64_t ifmapSramStopCycle = 0;
  int64_t ifmapSramReads = 0;
  int64_t filterSramStartCycle = 0;
  int64_t filterSramStopCycle = 0;
  int64_t filterSramReads = 0;
  int64_t ofmapSramStartCycle = 0;
  int64_t ofmapSramStopCycle = 0;
  int64_t ofmapSramWrites = 0;
  int64_t ifmapDramStartCycle = 0;
  int64_t ifmapDramStopCycle = 0;
  int64_t ifmapDramReads = 0;
  int64_t filterDramStartCycle = 0;
  int64_t filterDramStopCycle = 0;
  int64_t filterDramReads = 0;
  int64_t ofmapDramStartCycle = 0;
  int64_t ofmapDramStopCycle = 0;
  int64_t ofmapDramWrites = 0;
};

/// SCALE-Sim's numbers for one layer. Throws nnaccel::Error(Config) for a config SCALE-Sim
/// cannot run (checked by parseConfigText; configs built in code are checked here too).
LayerReport simulateLayer(const Layer& layer, const Config& config);

/// simulateLayer for every layer, in order.
std::vector<LayerReport> simulateTopology(const Topology& topology, const Config& config);

/// The three reports as SCALE-Sim writes them (same headers, separators, trailing commas and
/// number formatting: Python's repr for the floats, ".0" on the cycles SCALE-Sim holds as
/// floats).
std::string formatComputeReport(const std::vector<LayerReport>& reports);
std::string formatBandwidthReport(const std::vector<LayerReport>& reports);
std::string formatDetailedAccessReport(const std::vector<LayerReport>& reports);

/// Writes COMPUTE_REPORT.csv, BANDWIDTH_REPORT.csv and DETAILED_ACCESS_REPORT.csv into
/// OUTDIR/config.runName (creating the directories) and returns that directory. Error(Io) when
/// it cannot.
std::string writeReports(const std::string& outDir, const Config& config,
                         const std::vector<LayerReport>& reports);

/// \p value as Python's repr() prints a float ("100.0", "85.82781456953643", "1e-05", "1e+16").
std::string formatPythonFloat(double value);

} // namespace nnaccel::scalesim
