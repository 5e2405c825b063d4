/// \file
/// Canonical operand forms: constant operands of commutative element-wise ops moved second, a
/// dense MatMul written as Gemm, and a Split written as Slices.
///
/// Why: exporters write both `Mul(x, c)` and `Mul(c, x)` (PaddleOCR's learnable affine blocks
/// scale by `Mul(c, x)`), and the quantizer tabulates `x op c` as a unary function of x (a
/// Lookup) only with the constant second. Add and Mul commute exactly in IEEE arithmetic (and
/// ONNX broadcasting is symmetric), so swapping their two operands changes no result bit. Min
/// and Max are left alone: with a NaN operand their result depends on the order.
///
/// Exporters also write a dense layer as MatMul(x, W) + Add(b) (PaddleOCR's classifier head).
/// A MatMul of a computed [M, K] matrix by a constant [K, N] one is exactly Gemm(x, W) (alpha
/// 1, beta 1, no C), which foldConstantAffine then gives its bias, so that every engine sees
/// one dense layer with a bias instead of a product and a per-channel Add.
///
/// A Split of a computed tensor becomes one Slice per output (each output value kept, node
/// order re-sorted): every engine already moves a Slice as address generation, and single-
/// output nodes are what their layers are built from (M-LSD line detectors split a tensor).
///
/// Min and Max of other than two inputs, Sum and Mean become left-to-right chains of two-input
/// nodes (Mean: Adds, then one Div by the count; one input: Identity), which is the order the
/// reference evaluates them in, so the fp32 results are the same bits; engines and the
/// quantizer then see only two-input element-wise nodes.
///
/// A ReduceMean (ReduceMax) of a computed [N, C, H, W] tensor over axes {2, 3} is the global
/// average (max) pool every engine runs; keepdims 0 adds a Reshape to [N, C]. The fp32 result
/// may differ from the reduction's in the last bit (the pool sums in another order), as with
/// BatchNorm folding.
#pragma once

#include "nnaccel/ir/Graph.h"

#include <cstddef>

namespace nnaccel::passes {

/// Swaps the operands of every two-input Add and Mul whose first operand is a constant and
/// whose second is not, turns every such MatMul into Gemm, every Split of a computed tensor
/// into Slices, every variadic Min/Max/Sum/Mean into a chain and every spatial
/// ReduceMean/ReduceMax into a global pool; returns the number of nodes changed. Needs inferred
/// shapes.
std::size_t canonicalizeOperands(ir::Graph& g);

} // namespace nnaccel::passes
