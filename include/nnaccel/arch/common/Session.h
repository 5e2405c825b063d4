/// \file
/// The parts of a verified int8 session that every engine shares: the run options (verify,
/// inputs, progress), the result (program, common report, per-layer details, totals, graph
/// outputs) and the run's preparation (quantized model, graph inputs, the int8 reference
/// executor's values). One definition, so that every engine quantizes, draws its random inputs
/// and reports progress the same way; LayerVerifier (Verify.h) checks the layers.
#pragma once

#include "nnaccel/engines/Engine.h"
#include "nnaccel/ir/Graph.h"
#include "nnaccel/quant/Int8Executor.h"
#include "nnaccel/quant/QuantizedModel.h"
#include "nnaccel/report/Report.h"
#include "nnaccel/support/Interrupt.h"
#include "nnaccel/tensor/Tensor.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace nnaccel::arch::common {

/// The options every engine's SessionOptions starts with.
struct RunOptions {
  bool verify = true;        ///< compare every layer against the int8 reference executor
  bool baselineRows = false; ///< add per-layer method-vs-baseline rows to the report
  /// Graph inputs (Graph::inputs order); empty: quant::randomInputs(g, inputSeed).
  std::vector<Tensor> inputs;
  uint64_t inputSeed = 0x6e6e61636365;
  /// Calibration of the int8 model (engines::RunOptions::calibrationSets, ::calibration).
  std::vector<std::vector<Tensor>> calibrationSets;
  quant::CalibrationOptions calibration;
  /// Progress: (what, done, total), called from the run loop.
  std::function<void(const std::string&, size_t, size_t)> progress;
  /// Inside a layer: (layer index, layers, fraction done) (engines::RunOptions::layerProgress).
  std::function<void(size_t, size_t, double)> layerProgress;

  /// Calls progress, when it is set; throws nnaccel::Interrupted first when the user asked the
  /// run to stop (support/Interrupt.h). Every progress point is therefore a place a run can
  /// stop: between layers, and between the reference's nodes.
  void reportProgress(const std::string& what, size_t done, size_t total) const;
};

/// Runs \p simulate (a simulator's run loop, which calls reportProgress between layers); true
/// when the user interrupted it there (nnaccel::Interrupted), false when it ran to the end.
template <typename F> bool runUntilInterrupted(F&& simulate) {
  try {
    simulate();
    return false;
  } catch (const Interrupted&) {
    return true;
  }
}

/// An engine's SessionOptions (derived from RunOptions) with the shared fields taken from the
/// registry's run options \p o.
template <typename SessionOptions> SessionOptions sessionOptions(const engines::RunOptions& o) {
  SessionOptions so;
  so.verify = o.verify;
  so.baselineRows = o.baselineRows;
  so.inputs = o.inputs;
  so.inputSeed = o.inputSeed;
  so.calibrationSets = o.calibrationSets;
  const auto method = quant::calibrationMethodFromName(o.calibrationMethod);
  if (!method)
    throw Error(ErrorKind::Usage, ErrorContext{},
                "unknown calibration method '" + o.calibrationMethod +
                    "' (minmax, percentile, mse or entropy)");
  so.calibration = {*method, o.calibrationPercentile, o.calibrationEqualize,
                    o.calibrationAsymmetric, o.calibrationBiasCorrection};
  so.progress = o.progress;
  so.layerProgress = o.layerProgress;
  return so;
}

/// What an engine's session returns; \p Program, \p LayerDetail and \p Totals are the engine's.
template <typename Program, typename LayerDetail, typename Totals> struct SessionResult {
  Program program;
  report::RunReport report;
  std::vector<LayerDetail> details; ///< per program layer
  Totals totals;
  std::vector<Tensor> outputs; ///< graph outputs as fp32 (dequantized)
};

/// Whether an engine's int8 datapath reproduces activation zero points (real = s * (q - z)).
enum class ZeroPointSupport { SymmetricOnly, Asymmetric };

/// Refuses non-finite options.inputs (quant::checkFiniteInt8Inputs: every int8 run passes
/// here first), reports "quantizing" and quantizes \p g with the run's calibration. An engine
/// that holds symmetric activations only refuses a model with a zero point (an asymmetric QDQ
/// model) with Error(Unsupported) naming the node that produces the first such value, rather
/// than verify against a different int8 model.
quant::QuantizedModel quantizeForRun(const ir::Graph& g, const RunOptions& options,
                                     std::string_view engine,
                                     ZeroPointSupport zeroPoints = ZeroPointSupport::SymmetricOnly);

/// The report's summary line on where \p qm's int8 scales came from: a QDQ model's own scales,
/// or the calibration (method, input sets, channel equalization) of \p options. Added by every
/// engine's session, so a reader of a report knows which int8 model was verified.
std::pair<std::string, std::string> quantizationSummary(const quant::QuantizedModel& qm,
                                                        const RunOptions& options);

/// The run's graph inputs: options.inputs, or quant::randomInputs(g, options.inputSeed) when it
/// is empty (Error(Unsupported) for an input that is not f32).
std::vector<Tensor> runInputs(const ir::Graph& g, const RunOptions& options);

/// The data of an int8 run: its graph inputs and, when asked for, the int8 reference
/// executor's values on them.
struct Int8Run {
  /// Takes runInputs(g, options);
  /// with \p withReference, reports "int8 reference" and runs quant::Int8Executor on them.
  /// \p qm must outlive the run.
  Int8Run(const ir::Graph& g, const quant::QuantizedModel& qm, const RunOptions& options,
          bool withReference);

  std::vector<Tensor> inputs;
  std::optional<quant::Int8Executor> reference;
};

} // namespace nnaccel::arch::common
