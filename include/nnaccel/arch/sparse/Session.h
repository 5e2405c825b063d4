/// \file
/// One complete sparse-engine run, as `nnaccel simulate --arch sparse` does it: quantize (int8),
/// compile, execute the program on the cycle-level simulator, check every layer's output bit
/// for bit against the int8 reference executor, time the dense baseline and the oracle bound,
/// and fill the common report (with the sparse engine's densities, speedup and losses).
#pragma once

#include "nnaccel/arch/sparse/Compiler.h"
#include "nnaccel/arch/sparse/Program.h"
#include "nnaccel/arch/sparse/Simulator.h"
#include "nnaccel/report/Report.h"
#include "nnaccel/tensor/Tensor.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace nnaccel::arch::sparse {

struct SessionOptions {
  bool verify = true;        ///< compare every layer against the int8 reference executor
  bool baselineRows = false; ///< add a per-layer sparse-vs-dense section to the report
  bool denseBaseline = true; ///< time the PTIS-dense baseline (every report's speedup)
  int threads = 1;           ///< SimOptions::threads
  /// Graph inputs (Graph::inputs order); empty: driver::randomInputs(g, inputSeed).
  std::vector<Tensor> inputs;
  uint64_t inputSeed = 0x6e6e61636365;
  /// Density sweeps (SimOptions::syntheticActivationDensity): every array layer reads seeded
  /// synthetic activations of this density and is verified on its own input; the other layers
  /// are not checked.
  std::optional<double> activationDensity;
  /// Progress: (what, done, total), called from the run loop.
  std::function<void(const std::string&, size_t, size_t)> progress;
};

/// Whole-model figures of a run.
struct Totals {
  int64_t cycles = 0, denseCycles = 0, oracleCycles = 0;
  double energyPj = 0, denseEnergyPj = 0;
  double weightDensity = 1, activationDensity = 1; ///< over the array layers, weighted
  SlotLosses losses;
  double speedup() const;     ///< denseCycles / cycles
  double energyRatio() const; ///< denseEnergyPj / energyPj
};

struct SessionResult {
  Program program;
  report::RunReport report;
  std::vector<LayerDetail> details; ///< per program layer
  Totals totals;
  std::vector<Tensor> outputs; ///< graph outputs as fp32 (dequantized)
};

/// Runs \p g (shape-inferred, passes applied) on \p config. Throws nnaccel::Error for a config
/// that cannot run the model; a verification failure is reported in report.verdict.
SessionResult simulateModel(const ir::Graph& g, const SparseConfig& config,
                            const SessionOptions& options);

} // namespace nnaccel::arch::sparse
