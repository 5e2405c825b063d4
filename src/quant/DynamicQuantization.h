// ONNX Runtime's dynamically quantized layers in an int8 model (private to the quant module;
// docs/Quantization.md, "Dynamically quantized models").
#pragma once

#include "nnaccel/ir/Graph.h"

namespace nnaccel::quant::detail {

/// Rewrites, in the graph an int8 model is built from, each layer that ONNX Runtime's dynamic
/// quantization wrote (DynamicQuantizeLinear -> ConvInteger or MatMulInteger with constant
/// weights -> Cast to f32 -> Mul by the input scale times the constant weight scale) as a Conv
/// or MatMul of the float input with the model's own weights: (W - W_zero) * W_scale, marked as
/// its int8 codes and scales (Value::dequantizedFrom, as a QDQ model's weights), so the
/// quantizer keeps them. The input's scale, which the model computes from each input at run
/// time, becomes a calibrated static scale like any activation's: an accelerator with static
/// scales has no other form. Layers that do not match, or whose weights have a zero point other
/// than 0, stay (and run as float islands).
/// Returns the number of layers rewritten.
int staticizeDynamicQuantization(ir::Graph& g);

} // namespace nnaccel::quant::detail
