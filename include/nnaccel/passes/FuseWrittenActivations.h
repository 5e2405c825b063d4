/// \file
/// Written-out HardSigmoid, HardSwish, GELU, SiLU/Swish and Mish fused back into single nodes.
///
/// Why: exporters without those ops (PaddlePaddle, PyTorch before opset 14 and GELU before
/// opset 20, TensorFlow converters) write them out: HardSigmoid as `Clip(x + a, 0, b) / d` (or
/// `* m`), HardSwish as `x * Clip(x + 3, 0, 6) / 6` in either order of the product and the
/// division, GELU as `0.5 * x * (1 + erf(x / sqrt 2))` or its tanh approximation. Each is one
/// function; as one node every engine runs it as one lookup table (one layer, one pass over
/// the data) instead of three or four element-wise layers, and in int8 it is quantized once,
/// from the fp32 function, instead of rounding every intermediate.
///
/// Rules (constants scalar, every intermediate value read only inside the pattern and not a
/// graph output; run after canonicalizeOperands, so constants are second):
///  - `Div(Clip(Add(x, a), 0, b), d)` with b == d, or `Mul(Clip(Add(x, a), 0, b), m)` with
///    b * m == 1, becomes `HardSigmoid(x)` with alpha = 1/b, beta = a/b;
///  - `Div(Mul(x, Clip(Add(x, a), 0, b)), d)` with b == d becomes `Mul(x, HardSigmoid(x))`;
///  - `Mul(x, HardSigmoid(x))` with alpha 1/6 and beta 1/2 (HardSwish's) becomes `HardSwish(x)`;
///  - the product of x, 0.5 and `Add(Erf(x / sqrt 2), 1)` (Div by sqrt 2 or Mul by 1/sqrt 2), in
///    any association of its two Muls, becomes `Gelu(x)`; with `Add(Tanh(Mul(Add(x,
///    Mul(Pow(x, 3), 0.044715)), sqrt(2/pi))), 1)` instead, `Gelu(x, approximate="tanh")`;
///  - `Mul(x, Sigmoid(x))` (SiLU, EfficientNet's and YOLO's activation) becomes `Swish(x)`, and
///    `Mul(x, Sigmoid(Mul(x, a)))` `Swish(x, alpha=a)`;
///  - `Mul(x, Tanh(Softplus(x)))`, or with softplus written `Log(Add(Exp(x), 1))`, becomes
///    `Mish(x)`.
/// The fp32 results differ from the written-out form by rounding only (one formula instead of
/// three roundings).
#pragma once

#include "nnaccel/ir/Graph.h"

#include <cstddef>

namespace nnaccel::passes {

/// Applies the rules to a fixpoint; returns the number of nodes created. Needs inferred shapes.
std::size_t fuseWrittenActivations(ir::Graph& g);

} // namespace nnaccel::passes
