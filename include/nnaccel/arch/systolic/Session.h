/// \file
/// One complete systolic run, as `nnaccel simulate` does it: quantize (int8), compile, execute
/// the program on the simulator, check every layer's output against the reference executor,
/// and fill the common report; optionally the same for the patents' baselines.
///
/// Verification: int8 programs must match the int8 reference executor (quant::Int8Executor) bit
/// for bit on every layer output; fp32 programs must satisfy, for every layer output,
/// max|sim - ref| <= kF32RelativeTolerance * max(max|ref|, 1e-30) (an error relative to the
/// tensor's magnitude: the array sums in a different order than oneDNN). The first mismatching
/// layer and element are reported in the verdict.
#pragma once
#include "nnaccel/arch/common/Session.h"
#include "nnaccel/arch/systolic/Compiler.h"
#include "nnaccel/arch/systolic/Program.h"
#include "nnaccel/report/Report.h"
#include "nnaccel/tensor/Tensor.h"

#include <optional>
#include <string>
#include <vector>

namespace nnaccel::arch::systolic {

inline constexpr double kF32RelativeTolerance = 1e-5;

/// The shared run options (verify, baselineRows, inputs, inputSeed, progress; Session.h in
/// arch/common) and the systolic engine's own. verify = false runs the cycle model only (no
/// data, no verification); baselineRows also compiles and simulates the baselines.
struct SessionOptions : common::RunOptions {
  DType dtype = DType::I8;
  bool exact = false; ///< step the PE grid cycle by cycle
  /// A program to run instead of compiling one (it must have been compiled from the same model
  /// and config; `nnaccel simulate --program`).
  std::optional<Program> program;
};

struct SessionResult {
  Program program;
  report::RunReport report;
  std::vector<Tensor> outputs; ///< graph outputs as fp32 (dequantized for int8)
  /// With the DRAM row-buffer model: the DMAs' DRAM bytes over the cycles they held DRAM, the
  /// bandwidth the run achieved (the report's roofline uses it); else 0.
  double effectiveDramBytesPerCycle = 0;
};

/// Runs \p g (shape-inferred, passes applied) on \p config. Throws nnaccel::Error for a config
/// that cannot run the model; a verification failure is reported in report.verdict, not thrown.
SessionResult simulateModel(const ir::Graph& g, const SystolicConfig& config,
                            const SessionOptions& options);

} // namespace nnaccel::arch::systolic
