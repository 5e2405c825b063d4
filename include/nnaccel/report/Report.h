/// \file
/// The one report format every engine produces (`nnaccel simulate` prints it as a table and
/// writes it as JSON with --report). Engine-neutral: it depends only on support.
///
/// A report is per layer plus a total row, with the same columns for every engine: layer, op,
/// shape, unit (array / pool / host / view), MACs, cycles, busy/stall breakdown, the cycles by
/// cause, utilization, on-chip and DRAM traffic in bytes, energy and its parts, and a
/// host-fallback marker. Optional sections: the baseline-versus-method comparison (--baseline)
/// and the verification verdict. The JSON and CSV forms are one versioned schema
/// (docs/report-schema.md, kSchemaVersion).
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace nnaccel::report {

/// The version of the JSON/CSV schema (docs/report-schema.md): bumped when a field changes
/// meaning or disappears; fields may be added within a version.
inline constexpr int kSchemaVersion = 1;

struct Traffic {
  int64_t readBytes = 0;
  int64_t writeBytes = 0;
  Traffic& operator+=(const Traffic& o) {
    readBytes += o.readBytes;
    writeBytes += o.writeBytes;
    return *this;
  }
};

/// A CSV field as RFC 4180 writes it: quoted, with quotes doubled, when it holds a comma, a
/// quote or a line break; as is otherwise. Every CSV nnaccel writes goes through it.
std::string csvField(const std::string& text);

/// Where a layer's cycles went, in engine-neutral causes (each engine's mapping is in
/// docs/report-schema.md). RunReport::finalize puts whatever an engine did not attribute into
/// `other`, so the causes always sum to the layer's cycles.
struct CycleCauses {
  int64_t compute = 0;   ///< the main compute unit issued work
  int64_t memory = 0;    ///< waiting for DRAM or on-chip memory reads (bandwidth, latency)
  int64_t fillDrain = 0; ///< pipeline fill and drain, weight loading, post-processing drain
  int64_t conflict = 0;  ///< bank or crossbar conflicts, load imbalance between units
  int64_t sync = 0;      ///< waiting for another unit (barriers, semaphores, resets)
  int64_t idle = 0;      ///< units with no work mapped to them
  int64_t host = 0;      ///< a host-fallback layer: link transfers and host compute (HostModel)
  int64_t other = 0;     ///< not attributed by the engine
  int64_t sum() const {
    return compute + memory + fillDrain + conflict + sync + idle + host + other;
  }
  CycleCauses& operator+=(const CycleCauses& o);
};

/// A layer's energy by component, in picojoules; `other` makes the parts sum to energyPj.
struct EnergyParts {
  double compute = 0;      ///< multiplies and accumulations in the datapath
  double onChip = 0;       ///< SRAM, register files, FIFOs and partial-sum storage
  double interconnect = 0; ///< crossbars, broadcast links, buses, halo and chip links
  double dram = 0;         ///< off-chip reads and writes
  double postProcess = 0;  ///< activation, pooling, lookup tables, requantization
  double host = 0;         ///< a host-fallback layer: the link and the host (HostModel)
  /// the clock network, every cycle of the layer (RunReport::finalize, from the technology)
  double clock = 0;
  double other = 0; ///< not attributed by the engine
  double sum() const {
    return compute + onChip + interconnect + dram + postProcess + host + clock + other;
  }
  EnergyParts& operator+=(const EnergyParts& o);
};

struct LayerStats {
  std::string name;
  std::string op;
  std::string shape;
  std::string unit;          ///< "array", "pool", "vector", "host", "view"
  bool hostFallback = false; ///< ran on the host: counted, never hidden
  /// A host layer's bytes between accelerator and host (its operands and results), which the
  /// host model (engines/HostModel.h) charges; 0 on the engine's own units.
  int64_t hostBytes = 0;
  std::string note; ///< host-fallback reason etc.

  int64_t usefulMacs = 0; ///< the operator's own MACs (ir::nodeMacs, as `info` counts)
  /// MACs of non-zero operand pairs that reach an output (engines that skip zeros: sparse);
  /// 0 where the engine does not count them.
  int64_t effectualMacs = 0;
  int64_t issuedMacs = 0;       ///< PE-array MAC slots used by issued vectors (rows x cols x n)
  int64_t streamedElements = 0; ///< input vectors streamed into the array (per PE row)
  int64_t instructions = 0;
  int64_t cycles = 0;      ///< cycles attributed to the layer (they sum to the total)
  int64_t busyCycles = 0;  ///< cycles the main compute unit did useful work
  int64_t stallCycles = 0; ///< cycles the main compute unit waited (DMA, weights, sync)
  /// Engine-specific named cycle counts (e.g. "pe.stream", "pe.weightload", "dma.busy").
  std::vector<std::pair<std::string, int64_t>> breakdown;
  CycleCauses causes;       ///< `cycles` by cause (finalize completes `other`)
  Traffic sbuf, psum, dram; ///< bytes (PSUM: 4 bytes per entry access)
  double energyPj = 0;      ///< dynamic energy (the parts below)
  EnergyParts energy;       ///< `energyPj` by component (finalize completes `other`)
  /// Leakage over the layer's time: RunReport::technology.leakageW x cycles / clock (finalize;
  /// 0 without a technology)
  double staticEnergyPj = 0;
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
  /// False when the baseline cannot run this layer on the machine; `what` then says why and
  /// both sides are the method's (the row is listed, never dropped).
  bool applicable = true;
};

struct Verdict {
  bool checked = false;
  bool passed = false;
  std::string reference; ///< "int8 reference executor (bit-exact)" / "fp32 reference ..."
  std::string detail;    ///< first mismatching layer and element, or the max error
  int64_t comparedElements = 0;
};

/// The technology a run is priced at (docs/Technology.md): its node and supply, the machine's
/// area by component and its static power. Empty (no node) for an engine that does not price
/// itself through the technology model yet.
struct TechnologySummary {
  std::string node; ///< "7nm"
  double vddV = 0;
  double areaMm2 = 0;
  /// Named parts of the machine (e.g. "pe_array", "sbuf"), summing to areaMm2.
  std::vector<std::pair<std::string, double>> areaMm2ByComponent;
  double leakageW = 0; ///< static power of the whole machine
  /// The clock network's energy per cycle: it runs every cycle (finalize charges it per layer as
  /// the `clock` energy part).
  double clockPjPerCycle = 0;

  /// The clock network's energy over \p cycles (a baseline's or a variant's time is clocked too).
  double clockPj(int64_t cycles) const { return clockPjPerCycle * static_cast<double>(cycles); }

  bool present() const { return !node.empty(); }
};

struct RunReport {
  std::string engine; ///< the registered engine name
  std::string config; ///< preset/config name
  std::string model;
  std::string dtype;   ///< "int8" / "fp32"
  int64_t peCount = 0; ///< processing elements (each may hold several multipliers)
  double clockMhz = 0;
  /// Roofline: multiplies the machine can start per cycle, and its DRAM bandwidth (0: none).
  /// Utilization is usefulMacs / (peakMacsPerCycle x cycles) on every engine.
  int64_t peakMacsPerCycle = 0;
  double dramBytesPerCycle = 0;
  /// The roofline's on-chip roof: the bandwidth of the buffer whose traffic the layers' `sbuf`
  /// counts (0: none drawn).
  double onChipBytesPerCycle = 0;
  /// The effective architecture config (YAML), shown in the HTML report.
  std::string configYaml;
  TechnologySummary technology;
  bool exact = false;
  std::vector<LayerStats> layers;
  LayerStats total; ///< sums; utilization over the total cycles
  std::vector<BaselineRow> baseline;
  /// Engine-specific headline figures ("speedup vs dense": "2.61x"), printed after the totals
  /// and written as a "summary" object in JSON.
  std::vector<std::pair<std::string, std::string>> summary;
  Verdict verdict;
  /// Set when the user stopped the run (Ctrl-C): `layers` holds the first layers of
  /// layersPlanned, and every total covers those layers only (markInterrupted).
  bool interrupted = false;
  int64_t layersPlanned = 0;

  /// Keeps the first \p layersDone layers and marks the report interrupted (before finalize()).
  void markInterrupted(size_t layersDone, size_t layersPlannedCount);
  /// peakMacsPerCycle, or peCount when it is not set (one multiplier per PE).
  int64_t peakMacs() const { return peakMacsPerCycle > 0 ? peakMacsPerCycle : peCount; }
  /// \p l's usefulMacs over peakMacs() x its cycles (0 without cycles or a peak).
  double utilizationOf(const LayerStats& l) const;
  /// Recomputes `total` from `layers` and every utilization from peakMacs(), completes every
  /// layer's causes and energy parts with `other` (asserting the engine did not attribute more
  /// than the layer's cycles or energy), and sets each layer's static energy from the
  /// technology's leakage and the clock.
  void finalize();
  /// The table's technology line: node, area by component, leakage, energy per inference and
  /// average power.
  std::string technologyLine() const;
  /// "7nm at 0.7 V", or "" without a technology.
  std::string technologyName() const;
  /// Seconds of \p cycles at clockMhz (0 without a clock).
  double secondsOf(int64_t cycles) const;
  /// Dynamic plus static energy of the whole run, in picojoules.
  double energyPerInferencePj() const { return total.energyPj + total.staticEnergyPj; }
  /// Human-readable per-layer table with a totals row, the baseline section and the verdict.
  std::string formatTable() const;
  /// The same content as JSON (stable key order; schema in docs/report-schema.md).
  std::string toJson() const;
  /// One CSV row per layer and a total row, with csvHeader()'s columns.
  std::string toCsvRows() const;
  /// The CSV columns shared by every engine (docs/report-schema.md), with a final newline.
  static std::string csvHeader();
  /// The one CSV row of a run that did not happen (`compare`: the engine could not take the
  /// budget or the model): csvHeader()'s columns, layer "(model)", every figure empty, and
  /// `verified` = "not mapped: REASON".
  static std::string csvNotRunRow(const std::string& engine, const std::string& config,
                                  const std::string& model, const std::string& reason);
};

/// A summary line's list: the first \p limit of \p items joined by "; ", then "; and N more
/// (see each layer's note)" when there are more.
std::string listWithNotes(const std::vector<std::string>& items, size_t limit);

/// The host-fallback layers of \p layers grouped by op and reason, one line each, prefixed by
/// \p indent: "  16 layers (Add): no unit adds two tensors: layer1.0.add, layer1.1.add,
/// layer2.0.add and 13 more". A group names at most \p namesShown layers (the report's rows
/// and --report list every one). Empty when no layer ran on the host.
std::string hostFallbackGroups(const std::vector<LayerStats>& layers, const std::string& indent,
                               size_t namesShown = 3);

} // namespace nnaccel::report
