/// \file
/// One complete sparse-engine run, as `nnaccel simulate --arch sparse` does it: quantize (int8),
/// compile, execute the program on the cycle-level simulator, check every layer's output bit
/// for bit against the int8 reference executor, time the dense baseline and the oracle bound,
/// and fill the common report (with the sparse engine's densities, speedup and losses).
#pragma once

#include "nnaccel/arch/common/Session.h"
#include "nnaccel/arch/sparse/Compiler.h"
#include "nnaccel/arch/sparse/Program.h"
#include "nnaccel/arch/sparse/Simulator.h"
#include "nnaccel/report/Report.h"
#include "nnaccel/tensor/Tensor.h"

#include <optional>
#include <string>
#include <vector>

namespace nnaccel::arch::sparse {

/// verify, baselineRows (a per-layer sparse-vs-dense section), inputs, inputSeed, progress.
struct SessionOptions : common::RunOptions {
  bool denseBaseline = true; ///< time the PTIS-dense baseline (every report's speedup)
  int threads = 1;           ///< SimOptions::threads
  /// Density sweeps and per-layer densities (SimOptions::syntheticActivationDensities): every
  /// array layer given a density reads seeded synthetic activations of it and is verified on its
  /// own input; the other layers are not checked.
  engines::LayerDensities activationDensities;
};

/// Whole-model figures of a run.
struct Totals {
  int64_t cycles = 0, denseCycles = 0, oracleCycles = 0;
  double energyPj = 0, denseEnergyPj = 0;
  double denseOptEnergyPj = 0; ///< DCNN-opt (baseline.dataflow dot_product), else 0
  double weightDensity = 1, activationDensity = 1; ///< over the array layers, weighted
  SlotLosses losses;
  double speedup() const;     ///< denseCycles / cycles
  double energyRatio() const; ///< denseEnergyPj / energyPj
};

using SessionResult = common::SessionResult<Program, LayerDetail, Totals>;

/// Runs \p g (shape-inferred, passes applied) on \p config. Throws nnaccel::Error for a config
/// that cannot run the model; a verification failure is reported in report.verdict.
SessionResult simulateModel(const ir::Graph& g, const SparseConfig& config,
                            const SessionOptions& options);

} // namespace nnaccel::arch::sparse
