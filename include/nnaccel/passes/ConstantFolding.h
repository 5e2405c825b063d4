/// \file
/// Constant folding: every node whose inputs are all constants is evaluated once at compile
/// time with the reference executor (reference::evalNode) and replaced by constant values.
///
/// Why: exported models compute weights and shape tensors with small subgraphs (a Transpose of
/// a weight, a Reshape of a bias, Shape arithmetic over a float scale); engines should only
/// ever see real data-flow nodes. Shape inference already folds small shape arithmetic; this
/// pass folds everything else within a budget, with exactly the executor's semantics.
///
/// Budget: a node is folded only if its outputs together hold at most
/// FoldOptions::maxOutputBytes and, for Conv/ConvTranspose/Gemm/MatMul, it needs at most
/// FoldOptions::maxMacs multiply-accumulates. A bigger all-constant node (a ConstantOfShape of
/// a billion elements, a convolution over a constant image) stays in the graph and is
/// evaluated by the executor at run time, so compiling or `nnaccel info` never materializes or
/// computes it.
///
/// Preconditions: the graph is shape-inferred. Effect: folded nodes are removed, their output
/// values keep their ids, names, dtypes and shapes and now carry Value::constant (so a folded
/// value that is a graph output stays a correct graph output). A node the executor cannot
/// evaluate (Error of kind Unsupported) is left in place. Running out of memory while folding
/// a node is an Error(Unsupported) naming the node, never a std::bad_alloc.
#pragma once

#include "nnaccel/ir/Graph.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

namespace nnaccel::passes {

/// Default budget: 64 MiB of folded output per node.
inline constexpr int64_t kFoldMaxOutputBytes = int64_t{64} << 20;
/// Default budget: 2^28 multiply-accumulates per Conv/ConvTranspose/Gemm/MatMul node (a
/// fraction of a second on the reference executor).
inline constexpr int64_t kFoldMaxMacs = int64_t{1} << 28;

/// Evaluates node \p id on its constant inputs (nullptr for omitted ones).
using NodeEvaluator = std::function<std::vector<Tensor>(const ir::Graph&, ir::NodeId,
                                                        const std::vector<const Tensor*>&)>;

struct FoldOptions {
  int64_t maxOutputBytes = kFoldMaxOutputBytes;
  int64_t maxMacs = kFoldMaxMacs;
  /// How nodes are evaluated; empty means reference::evalNode (tests substitute their own).
  NodeEvaluator evaluate;
};

/// Folds every all-constant node within the budget; returns the number of nodes removed.
std::size_t foldConstants(ir::Graph& g, const FoldOptions& options = {});

} // namespace nnaccel::passes
