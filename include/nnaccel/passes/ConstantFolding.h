/// \file
/// Constant folding: every node whose inputs are all constants is evaluated once at compile
/// time with the reference executor (reference::evalNode) and replaced by constant values.
///
/// Why: exported models compute weights and shape tensors with small subgraphs (a Transpose of
/// a weight, a Reshape of a bias, Shape arithmetic over a float scale); engines should only
/// ever see real data-flow nodes. Shape inference already folds small shape arithmetic; this
/// pass folds everything else, whatever the size, with exactly the executor's semantics.
///
/// Preconditions: the graph is shape-inferred. Effect: folded nodes are removed, their output
/// values keep their ids, names, dtypes and shapes and now carry Value::constant (so a folded
/// value that is a graph output stays a correct graph output). A node the executor cannot
/// evaluate (Error of kind Unsupported) is left in place.
#pragma once

#include "nnaccel/ir/Graph.h"

#include <cstddef>

namespace nnaccel::passes {

/// Folds every all-constant node; returns the number of nodes removed.
std::size_t foldConstants(ir::Graph& g);

} // namespace nnaccel::passes
