// Cross-layer channel equalization before calibration (private to the quant module;
// docs/Quantization.md "Channel equalization").
#pragma once

#include "nnaccel/ir/Graph.h"
#include "nnaccel/tensor/Tensor.h"

#include <vector>

namespace nnaccel::quant::detail {

/// Rescales the channels between each convolution and the convolutions that read its output
/// (directly or through a Relu, LeakyRelu or PRelu, which commute with a positive per-channel
/// scale) so that the fp32 function is unchanged and the value between them, quantized with one
/// scale per tensor, no longer wastes its int8 range on a few wide channels (Nagel et al.,
/// "Data-Free Quantization Through Weight Equalization and Bias Correction", ICCV 2019, §4.1,
/// with the producer's range measured on the calibration runs instead of read off its weights:
/// nnaccel quantizes weights per output channel, so the per-tensor activation is what the
/// equalization has to balance). Channel c of the producer is divided by
/// s_c = sqrt(a_c / w_c), where a_c is the channel's calibrated max|x| and w_c the largest
/// |weight| the consumers apply to it, and the consumers' weights of channel c are multiplied
/// by s_c, so both ranges become sqrt(a_c · w_c). Only constant weights used by one node each
/// are changed. Returns the number of producer/consumer groups equalized.
int equalizeChannels(ir::Graph& g, const std::vector<std::vector<Tensor>>& inputSets);

} // namespace nnaccel::quant::detail
