/// \file
/// The one report format every engine produces (`nnaccel simulate` prints it as a table and
/// writes it as JSON with --report). Engine-neutral: it depends only on support.
///
/// A report is per layer plus a total row, with the same columns for every engine: layer, op,
/// shape, unit (array / pool / host / view), MACs, cycles, busy/stall breakdown, utilization,
/// on-chip and DRAM traffic in bytes, energy, and a host-fallback marker. Optional sections:
/// the baseline-versus-method comparison (--baseline) and the verification verdict.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace nnaccel::report {

struct Traffic {
  int64_t readBytes = 0;
  int64_t writeBytes = 0;
  Traffic& operator+=(const Traffic& o) {
    readBytes += o.readBytes;
    writeBytes += o.writeBytes;
    return *this;
  }
};

struct LayerStats {
  std::string name;
  std::string op;
  std::string shape;
  std::string unit;          ///< "array", "pool", "host", "view"
  bool hostFallback = false; ///< ran on the host: counted, never hidden
  std::string note;          ///< host-fallback reason etc.

  int64_t usefulMacs = 0;       ///< the operator's own MACs
  int64_t issuedMacs = 0;       ///< PE-array MAC slots used by issued vectors (rows x cols x n)
  int64_t streamedElements = 0; ///< input vectors streamed into the array (per PE row)
  int64_t instructions = 0;
  int64_t cycles = 0;      ///< cycles attributed to the layer (they sum to the total)
  int64_t busyCycles = 0;  ///< cycles the main compute unit did useful work
  int64_t stallCycles = 0; ///< cycles the main compute unit waited (DMA, weights, sync)
  /// Engine-specific named cycle counts (e.g. "pe.stream", "pe.weightload", "dma.busy").
  std::vector<std::pair<std::string, int64_t>> breakdown;
  Traffic sbuf, psum, dram; ///< bytes (PSUM: 4 bytes per entry access)
  double energyPj = 0;
  double utilization = 0; ///< usefulMacs / (PEs x cycles)
  /// Engine-specific per-layer figures (e.g. the sparse engine's "w_density", "speedup"): extra
  /// table columns, in order of first appearance, and a "metrics" object in JSON.
  std::vector<std::pair<std::string, double>> metrics;
  /// Engine-specific access counts (e.g. "accumulator_rmw", "crossbar_traversals"): summed into
  /// the total, written as a "counts" object in JSON (not table columns).
  std::vector<std::pair<std::string, int64_t>> counts;

  void addBreakdown(const std::string& key, int64_t cycles);
};

/// Method versus baseline for one layer (seed 000 FIG. 3, zero-inserted dilated kernel).
struct BaselineRow {
  std::string layer;
  std::string what; ///< e.g. "transposed: zero insertion + rotated weight copy"
  struct Side {
    int64_t streamedElements = 0, issuedMacs = 0, cycles = 0, memoryOps = 0;
    Traffic dram, sbuf;
    double energyPj = 0; ///< shown when either side has one
  } method, baseline;
};

struct Verdict {
  bool checked = false;
  bool passed = false;
  std::string reference; ///< "int8 reference executor (bit-exact)" / "fp32 reference ..."
  std::string detail;    ///< first mismatching layer and element, or the max error
  int64_t comparedElements = 0;
};

struct RunReport {
  std::string engine; ///< "systolic"
  std::string config; ///< preset/config name
  std::string model;
  std::string dtype; ///< "int8" / "fp32"
  int64_t peCount = 0;
  double clockMhz = 0;
  bool exact = false;
  std::vector<LayerStats> layers;
  LayerStats total; ///< sums; utilization over the total cycles
  std::vector<BaselineRow> baseline;
  /// Engine-specific headline figures ("speedup vs dense": "2.61x"), printed after the totals
  /// and written as a "summary" object in JSON.
  std::vector<std::pair<std::string, std::string>> summary;
  Verdict verdict;

  /// Recomputes `total` from `layers` and every utilization from \p peCount.
  void finalize();
  /// Human-readable per-layer table with a totals row, the baseline section and the verdict.
  std::string formatTable() const;
  /// The same content as JSON (stable key order).
  std::string toJson() const;
};

} // namespace nnaccel::report
