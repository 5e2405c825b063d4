/// \file
/// Removal of Identity and inference-mode Dropout nodes.
///
/// Why: both are copies at inference time; exporters leave them around graph outputs and after
/// classifier heads. Removing them lets BatchNorm folding and activation fusion see the real
/// producer/consumer pairs.
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

/// Removes removable Identity/Dropout nodes; returns the number removed.
std::size_t eliminateIdentity(ir::Graph& g);

} // namespace nnaccel::passes
