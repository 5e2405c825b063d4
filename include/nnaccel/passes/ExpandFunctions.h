/// \file
/// Normalizations and composite reductions written out as the reductions and element-wise ops
/// they are made of, the way ONNX defines several of them (as function bodies).
///
/// Why: every engine already runs ReduceMean/ReduceSum, the global and average pools, unary
/// lookup tables (Pow by a constant, Sqrt, Log, Exp, Abs) and element-wise Add/Sub/Mul/Div in
/// int8 on its own units. Written out, an LRN (AlexNet, GoogLeNet), an InstanceNormalization
/// (style transfer, some segmenters), a LayerNormalization (opset 17 exports of the text
/// recognizers) or a ReduceL2 (embedding heads) runs there too, instead of falling back to the
/// host as a float island.
///
/// Rewrites (x the data input; every new node is named after the original, whose output values
/// keep their names):
///  - ReduceL1 = ReduceSum(Abs(x)); ReduceL2 = Sqrt(ReduceSum(Pow(x, 2)));
///    ReduceSumSquare = ReduceSum(Pow(x, 2)); ReduceLogSum = Log(ReduceSum(x));
///    ReduceLogSumExp = Log(ReduceSum(Exp(x))) (ONNX's definitions; axes and keepdims kept);
///  - LRN: the channel window's sum of squares is an average pool over the channels of x^2 seen
///    as [N, 1, C, spatial] (kernel size x 1, pads floor((size-1)/2) and the rest, counting the
///    padding so that the average is the sum / size); y = x * Pow(bias + alpha * avg, -beta);
///  - InstanceNormalization / LayerNormalization: mean = ReduceMean(x), d = x - mean,
///    var = ReduceMean(Pow(d, 2)), y = d / Sqrt(var + epsilon) * scale + B over the normalized
///    axes (InstanceNormalization's per-channel scale and B reshaped to [C, 1, ...]);
///    LayerNormalization's Mean output is `mean` and its InvStdDev output Reciprocal(Sqrt(...)).
/// ReduceProd stays as it is (no decomposition into ops the engines run).
///
/// Numerics: each step rounds to fp32, so the result differs from the direct reference kernels
/// (reference/Kernels.h, which accumulate in double throughout) by a few fp32 ulp of the
/// intermediate values; docs/Passes.md gives the measured bounds.
#pragma once

#include "nnaccel/ir/Graph.h"

#include <cstddef>

namespace nnaccel::passes {

/// Expands every LRN, InstanceNormalization, LayerNormalization and ReduceL1/L2/SumSquare/
/// LogSum/LogSumExp of a computed tensor; returns the number of nodes expanded. Needs inferred
/// shapes; leaves the graph topologically sorted with new values' shapes inferred.
std::size_t expandFunctions(ir::Graph& g);

} // namespace nnaccel::passes
