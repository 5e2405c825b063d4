/// \file
/// The run options, quantization and run data shared by the engines' sessions (Session.h).
#include "nnaccel/arch/common/Session.h"

#include "nnaccel/arch/common/Lowering.h"
#include "nnaccel/support/Interrupt.h"

#include <fmt/format.h>

namespace nnaccel::arch::common {

void RunOptions::reportProgress(const std::string& what, size_t done, size_t total) const {
  if (interruptRequested())
    throw Interrupted();
  if (progress)
    progress(what, done, total);
}

quant::QuantizedModel quantizeForRun(const ir::Graph& g, const RunOptions& options,
                                     std::string_view engine, ZeroPointSupport zeroPoints) {
  quant::checkFiniteInt8Inputs(g, options.inputs); // before they calibrate the model
  options.reportProgress("quantizing", 0, 1);
  quant::QuantizedModel qm = quant::quantize(g, options.calibrationSets, options.calibration);
  if (zeroPoints == ZeroPointSupport::SymmetricOnly)
    refuseZeroPoints(qm, engine); // before the int8 reference runs
  return qm;
}

std::pair<std::string, std::string> quantizationSummary(const quant::QuantizedModel& qm,
                                                        const RunOptions& options) {
  std::string note;
  if (qm.rounding == quant::Rounding::HalfEven) {
    note = "the model's own QuantizeLinear/DequantizeLinear scales (rounding half to even); "
           "values they leave open calibrated by ";
  } else {
    note = "calibrated by ";
  }
  const quant::CalibrationOptions& c = options.calibration;
  note += std::string(quant::calibrationMethodName(c.method));
  if (c.method == quant::CalibrationMethod::Percentile)
    note += fmt::format(" {}", c.percentile);
  note += fmt::format(" on {} {} input set{}", qm.calibrationCount,
                      options.calibrationSets.empty() ? "seeded random" : "given",
                      qm.calibrationCount == 1 ? "" : "s");
  if (c.equalize)
    note += fmt::format("; channels equalized in {} group{}", qm.equalizedGroups,
                        qm.equalizedGroups == 1 ? "" : "s");
  if (c.asymmetric)
    note += "; asymmetric activations (zero points)";
  if (c.biasCorrection)
    note += fmt::format("; bias corrected in {} output channel{}", qm.correctedBiasChannels,
                        qm.correctedBiasChannels == 1 ? "" : "s");
  return {"int8 scales", note};
}

std::vector<Tensor> runInputs(const ir::Graph& g, const RunOptions& options) {
  return options.inputs.empty() ? quant::randomInputs(g, options.inputSeed) : options.inputs;
}

Int8Run::Int8Run(const ir::Graph& g, const quant::QuantizedModel& qm, const RunOptions& options,
                 bool withReference)
    : inputs(runInputs(g, options)) { // quantizeForRun checked options.inputs
  if (withReference) {
    options.reportProgress("int8 reference", 0, 1);
    reference.emplace(qm);
    reference->run(inputs, [&](size_t done, size_t total) {
      options.reportProgress("int8 reference", done, total);
    });
  }
}

} // namespace nnaccel::arch::common
