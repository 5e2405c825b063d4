/// \file
/// The sparse machine model: executes a Program (and nothing else) cycle by cycle on the
/// PT-IS-CP-sparse PE array and produces the values, the common report's per-layer statistics
/// and the sparse engine's own per-layer detail (densities, losses by cause, access counts, the
/// dense baseline and the oracle bound). docs/arch/SparseCycleModel.md gives every rule.
///
/// Per Conv layer: the memory interface compacts each PE's input tile (or it is already resident
/// from the previous layer's compaction); the layer sequencer broadcasts the compressed weight
/// vectors of every output-channel group (stalling while any PE's weight FIFO is full, and at
/// the DRAM rate); each PE runs the Table 4 sequence, one F x I Cartesian product per cycle,
/// through the arbitrated scatter crossbar into its accumulator banks; at the end of a group it
/// swaps its double-buffered accumulators, exchanges output halos with its neighbours (Table 7),
/// waits at the barrier, and its post-processing unit applies bias, requantization and the
/// clamp and compacts the outputs (Tables 9 and 10), overlapping the next group.
/// The same program is also timed as the dense PTIS-dense baseline (DCNN: same multipliers,
/// buffers, tiling and post-processing; every weight and activation is read and multiplied) and
/// bounded by the oracle (useful products / multipliers).
#pragma once

#include "nnaccel/arch/sparse/Program.h"
#include "nnaccel/engines/Engine.h"
#include "nnaccel/quant/QuantizedModel.h"
#include "nnaccel/report/Report.h"
#include "nnaccel/tensor/Tensor.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace nnaccel::arch::sparse {

/// Access counts of one layer (each is what the energy table is multiplied by).
struct AccessCounts {
  int64_t multiplies = 0; ///< products of two non-zero operands
  int64_t crossbarTraversals = 0;
  int64_t accumulatorRmw = 0; ///< crossbar grants + halo adds
  int64_t weightFifoWriteBytes = 0, weightFifoReadBytes = 0;
  int64_t iaReadBytes = 0, oaWriteBytes = 0;
  int64_t haloMessages = 0;
  int64_t ppuOps = 0;
  int64_t dramReadBytes = 0, dramWriteBytes = 0;
  double dramActivations = 0; ///< DRAM rows the transfers open (the row-buffer model; else 0)
  AccessCounts& operator+=(const AccessCounts& o);
};

/// Where the multiplier slots of a layer went (cycles x PEs x F x I in total).
struct SlotLosses {
  int64_t useful = 0;        ///< products landing inside the output plane
  int64_t outsidePlane = 0;  ///< products landing in a halo cell outside the plane (dropped)
  int64_t fragmentation = 0; ///< empty lanes of issued vectors (partial vectors, pads)
  int64_t conflicts = 0;     ///< crossbar not ready, and draining the FIFOs after a group
  int64_t starvation = 0;    ///< waiting for weights (broadcast / DRAM / FIFO full elsewhere)
  int64_t imbalance = 0;     ///< a PE finished while others still compute
  int64_t haloPpu = 0;       ///< accumulator swap blocked by halo / post-processing, and tails
  int64_t dram = 0;          ///< the layer waits for DRAM (input re-tiling, spills)
  int64_t idlePes = 0;       ///< PEs of the grid the layer's tiling leaves unused
  int64_t total() const;
  SlotLosses& operator+=(const SlotLosses& o);
};

/// The sparse engine's own view of one layer (beyond the common LayerStats).
struct LayerDetail {
  int64_t cycles = 0;
  int64_t denseCycles = 0;  ///< the dense baseline (baseline.dataflow) on the same grid
  int64_t oracleCycles = 0; ///< useful products / multipliers, rounded up
  double weightDensity = 1, activationDensity = 1, outputDensity = 1;
  int64_t products = 0; ///< issued products of two non-zero operands
  SlotLosses losses;
  AccessCounts access, denseAccess;
  double energyPj = 0, denseEnergyPj = 0;
  /// baseline.dataflow dot_product: DCNN-opt, DCNN with zero-gated multipliers and compressed
  /// DRAM transfers (the same cycles as DCNN); absent for the Cartesian-product baseline.
  std::optional<AccessCounts> denseOptAccess;
  double denseOptEnergyPj = 0;
  int64_t accumulatorOverflows = 0; ///< outputs whose sum did not fit accumulatorBits (wrapped)
  int64_t groups = 0, kc = 0, gridX = 0, gridY = 0;
  bool inputFromDram = false, outputToDram = false;
  int64_t outputPeBytes = 0; ///< the busiest PE's compressed share of the stored output
};

struct SimOptions {
  /// Also time the dense baseline (PTIS-dense) of every Conv layer.
  bool denseBaseline = true;
  /// 2: step the two halves of the PE grid on two threads (a per-cycle hand-off; worth it on an
  /// otherwise idle machine with two cores or more). The results are identical for any value.
  int threads = 1;
  /// Called after every layer (in program order) with its index; for progress.
  std::function<void(size_t layer)> onLayerDone;
  /// Called inside a Conv layer's cycle loop with the fraction of the layer done; for progress.
  std::function<void(size_t layer, double fraction)> onLayerProgress;
  /// Density sweeps and per-layer densities: every Conv layer given a density reads a synthetic
  /// input instead of its producer's output (seeded uniform non-zero int8 values at exactly
  /// round(density * n) seeded positions), so the activation density is the one asked for,
  /// layer by layer. Each layer stays verifiable on its own input (Simulator::layerInput); the
  /// model's end-to-end output is then meaningless.
  engines::LayerDensities syntheticActivationDensities;
  uint64_t syntheticSeed = 0x73776565705fULL; // "sweep_"
};

/// Energy of \p a under \p e, picojoules.
double energyPj(const AccessCounts& a, const EnergyPrices& e);
/// The same energy by component (compute, on-chip, interconnect, post-processing, DRAM).
report::EnergyParts energyParts(const AccessCounts& a, const EnergyPrices& e);

class Simulator {
public:
  /// \p qm supplies the host layers' semantics (quant::evalQuantizedNode) and the value scales.
  Simulator(const Program& program, const quant::QuantizedModel& qm);
  ~Simulator();
  Simulator(const Simulator&) = delete;
  Simulator& operator=(const Simulator&) = delete;

  /// Graph input \p i (fp32; quantized with the value's scale).
  void setInput(size_t i, const Tensor& value);
  void run(const SimOptions& options = {});
  /// The int8 value the machine produced for graph value \p v (s8, the graph's shape).
  const Tensor& value(ir::ValueId v) const;
  const std::vector<report::LayerStats>& layerStats() const;
  const std::vector<LayerDetail>& layerDetails() const;
  /// The input a Conv layer of the last run read (its producer's value, or the synthetic one).
  const Tensor& layerInput(size_t layer) const;

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

} // namespace nnaccel::arch::sparse
