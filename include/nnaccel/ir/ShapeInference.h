/// \file
/// Shape and type inference for every op of Ops.def, with static folding of shape arithmetic.
///
/// inferShapes() walks the graph in topological order and sets dtype and shape of every node
/// output. When all inputs of a shape-arithmetic node are constants (Shape, Gather, Slice,
/// Concat, Unsqueeze, Squeeze, Cast, Reshape, ConstantOfShape, Constant, Identity and integer
/// Add/Sub/Mul/Div), the output is computed and stored as a constant, so patterns such as
/// Shape->Gather->Unsqueeze->Concat->Reshape resolve to a static Reshape. Zero or negative
/// dimensions, mismatched ranks and invalid attributes are reported as nnaccel::Error naming
/// the node.
#pragma once

#include "nnaccel/ir/Graph.h"

namespace nnaccel::ir {

/// Infers every value's type and shape; graph inputs must already have shapes.
void inferShapes(Graph& g);

/// Infers the outputs of one node from its (already inferred) inputs.
void inferNode(Graph& g, NodeId id);

} // namespace nnaccel::ir
