/// \file
/// Removal of Identity, inference-mode Dropout and identity Transpose nodes.
///
/// Why: all are copies at inference time; exporters leave Identity and Dropout around graph
/// outputs and after classifier heads, and converters from TensorFlow leave NHWC<->NCHW
/// Transpose pairs that cancel. Removing them lets BatchNorm folding and activation fusion see
/// the real producer/consumer pairs, and no engine moves data for nothing.
///
/// A Transpose is a copy when its permutation is the identity, or when the permutation composed
/// with that of the Transpose producing its input is: it is then a copy of that Transpose's
/// input, and the first Transpose stays only while something else reads it (removeDeadNodes).
///
/// A Dropout is removed only when its mask output is absent or unused and its training_mode
/// input is absent or a constant false. Uses of the node's output are rewired to its input.
/// Graph output names never change: when the removed node produced a graph output, its input
/// value takes over that name (the old output value is renamed out of the way). When that input
/// is itself a graph input or another graph output, renaming would change the interface, so the
/// node is kept.
#pragma once

#include "nnaccel/ir/Graph.h"

#include <cstddef>

namespace nnaccel::passes {

/// Removes removable Identity/Dropout/Transpose nodes; returns the number removed.
std::size_t eliminateIdentity(ir::Graph& g);

} // namespace nnaccel::passes
