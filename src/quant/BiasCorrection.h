// Empirical bias correction after calibration (private to the quant module;
// docs/Quantization.md "Bias correction").
#pragma once

#include "nnaccel/quant/QuantizedModel.h"

#include <vector>

namespace nnaccel::quant::detail {

/// Shifts the int32 bias of every integer convolution, Gemm and MatMul so that, over the
/// calibration sets, the mean of each output channel's int8 result equals the fp32 mean:
/// Nagel et al.'s empirical bias correction ("Data-Free Quantization Through Weight
/// Equalization and Bias Correction", ICCV 2019, §4.2, the variant that measures E[ỹ − y] on
/// data) and Finkelstein et al., "Fighting Quantization Bias With Bias" (2019). The layers are
/// corrected in graph order, each measured on inputs that the already corrected layers above
/// produced (the int8 executor's own, node by node), so a correction accounts for the errors
/// that reach it. Elements whose fp32 value lies outside the output's int8 range are left out
/// of the mean: their error is clipping, which a bias cannot undo. Returns the number of
/// output channels whose bias changed.
int64_t correctBiases(QuantizedModel& model, const std::vector<std::vector<Tensor>>& inputSets);

} // namespace nnaccel::quant::detail
