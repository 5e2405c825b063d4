/// \file
/// BatchNormalization, and Mul/Div/Add/Sub by per-channel constants, folded into the preceding
/// Conv, ConvTranspose or Gemm.
///
/// Why: inference-mode BatchNormalization is a per-channel affine map y = s * x + t with
/// s = scale / sqrt(var + epsilon) and t = B - mean * s, so it can be absorbed into the weights
/// and bias of the layer that produces x; engines then see one layer instead of two.
///
/// Matched pattern: a BatchNormalization whose input is output 0 of a Conv, ConvTranspose or
/// Gemm, used by nothing else (and not a graph output), with constant f32 BN parameters and
/// constant producer weights/bias. Rewrite (new constants; shared initializers are never
/// modified):
///  - Conv, weight [M, C/group, k...]: W'[m] = W[m] * s[m];
///  - ConvTranspose, weight [C, M/group, k...]: element (c, j, ...) belongs to output channel
///    m = (c / (C/group)) * (M/group) + j and is scaled by s[m];
///  - both: bias' = bias * s + t (bias = t when the node had none);
///  - Gemm (channel = column n of Y): op(B)[:, n] *= s[n] (rows of B when transB=1, columns
///    otherwise), C' = beta * C * s + t broadcast over n (t alone when C is absent or beta = 0)
///    and beta := 1.
/// The producer then writes the BatchNormalization's output value directly, so names and uses
/// downstream are unchanged, and the BatchNormalization node is removed.
///
/// Numerics: s and t are computed in double and the folded weights and bias are rounded to
/// fp32 once. The folded layer therefore differs from conv-then-BN by fp32 rounding only (the
/// products W*s are rounded before accumulation instead of after it): typically a few ulp of
/// the output, relative error around 1e-6; see docs/Passes.md.
#pragma once

#include "nnaccel/ir/Graph.h"

#include <cstddef>

namespace nnaccel::passes {

/// Folds every matching BatchNormalization; returns the number folded.
std::size_t foldBatchNorm(ir::Graph& g);

/// The same folding for Mul, Div, Add and Sub of a Conv/ConvTranspose/Gemm output (read by
/// nothing else) by a constant that varies along the output channels only (or is a scalar):
/// s = c, 1/c or 1 and t = 0, c or -c per channel (x - c only; c - x is not an affine map of
/// this form with s = 1). Exporters write per-channel scale-and-shift this way (PaddleOCR's
/// learnable affine blocks, TensorFlow's BiasAdd after a converted Conv). Chains fold one
/// node after another in the same pass (the layer then writes the folded node's output).
/// Same numerics as foldBatchNorm. Returns the number folded.
std::size_t foldConstantAffine(ir::Graph& g);

} // namespace nnaccel::passes
