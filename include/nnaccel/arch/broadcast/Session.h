/// \file
/// One complete broadcast-engine run, as `nnaccel simulate --arch broadcast` does it: quantize
/// (int8), compile, execute the program on the simulator, check every layer's output bit for
/// bit against the int8 reference executor, time both baselines (conventional 1x1
/// decomposition; 1xN without broadcasting) and fill the common report. Also the sweep over N
/// and the broadcast-group size that `nnaccel sweep vector-width` prints.
#pragma once

#include "nnaccel/arch/broadcast/Compiler.h"
#include "nnaccel/arch/broadcast/Program.h"
#include "nnaccel/arch/broadcast/Simulator.h"
#include "nnaccel/arch/common/Session.h"
#include "nnaccel/report/Report.h"
#include "nnaccel/tensor/Tensor.h"

#include <string>
#include <vector>

namespace nnaccel::arch::broadcast {

/// verify, baselineRows (per-layer method-vs-baseline rows), inputs, inputSeed, progress.
struct SessionOptions : common::RunOptions {
  bool baselines = true; ///< time both baselines (the report's ratios)
};

/// Whole-model figures of a run (array layers; host layers add their cycles to every variant).
struct Totals {
  std::array<VariantStats, kVariants> variants;
  /// Baseline activation bytes read / the method's (read operations move channel chunks of
  /// different sizes in different decompositions: bytes are the comparable measure).
  double readReduction(Variant baseline) const;
  double speedup(Variant baseline) const; ///< baseline cycles / method cycles
};

using SessionResult = common::SessionResult<Program, LayerDetail, Totals>;

/// Runs \p g (shape-inferred, passes applied) on \p config. Throws nnaccel::Error for a config
/// that cannot run the model; a verification failure is reported in report.verdict.
SessionResult simulateModel(const ir::Graph& g, const BroadcastConfig& config,
                            const SessionOptions& options);

/// One point of the N x P sweep for one layer.
struct SweepPoint {
  int64_t vectorWidth = 0; ///< N (1: conventional); the compiler's N when it clipped
  int64_t groupSize = 0;   ///< P
  int64_t cycles = 0;
  int64_t activationReads = 0;
  double energyPj = 0;
};

struct SweepLayer {
  std::string name, op, kernel; ///< kernel: "3x3 s1" etc.
  std::vector<SweepPoint> points;
  size_t best = 0; ///< fewest cycles, then fewest reads, then smallest N
};

/// Times every array layer of \p g (timing only, no verification) for every N in \p widths
/// (each clipped to what the layer's kernel takes; 1 = conventional; a clipped width already
/// measured at that P is listed once) and every group size in \p groupSizes (each must divide
/// the column and hold N; infeasible points are skipped). Empty when no point is feasible.
std::vector<SweepLayer> sweepDecompositions(const ir::Graph& g, const BroadcastConfig& config,
                                            const std::vector<int64_t>& widths,
                                            const std::vector<int64_t>& groupSizes);

} // namespace nnaccel::arch::broadcast
