/// \file
/// Activation fusion marking (Node::fusedActivation).
///
/// Why: accelerators apply an activation in the output stage of a Conv/Gemm for free; the
/// engines decide whether they do. This pass only records the opportunity: a Conv,
/// ConvTranspose, Gemm or MatMul whose output 0 is used by exactly one node, is not a graph
/// output, and that node is a unary activation (Relu, LeakyRelu, Clip, Sigmoid, HardSigmoid,
/// HardSwish, Tanh, Elu, Selu, Softplus) reading it as input 0. The graph itself is unchanged
/// (the activation node stays); existing marks are recomputed from scratch.
#pragma once

#include "nnaccel/ir/Graph.h"

#include <cstddef>

namespace nnaccel::passes {

/// Marks every fusable producer/activation pair; returns the number of marks.
std::size_t fuseActivations(ir::Graph& g);

} // namespace nnaccel::passes
