/// \file
/// Shape and type inference for every op of Ops.def, with static folding of shape arithmetic.
///
/// inferShapes() walks the graph in topological order and sets dtype and shape of every node
/// output. When all inputs of a shape-arithmetic node are constants (Shape, Gather, Slice,
/// Concat, Unsqueeze, Squeeze, Cast, Reshape, ConstantOfShape, Constant, Identity and integer
/// Add/Sub/Mul/Div), the output is computed and stored as a constant, so patterns such as
/// Shape->Gather->Unsqueeze->Concat->Reshape resolve to a static Reshape. Zero or negative
/// dimensions, mismatched ranks, invalid attributes and tensors beyond the limits below are
/// reported as nnaccel::Error naming the node. Folding here allocates at most 4096 elements
/// per node, so inference itself never needs memory proportional to a tensor's size.
#pragma once

#include "nnaccel/ir/Graph.h"

#include <cstdint>

namespace nnaccel::ir {

/// Largest element count of one tensor nnaccel compiles (2^32: 16 GiB of f32). A graph input
/// or inferred value above it is rejected as ErrorKind::Unsupported.
inline constexpr int64_t kMaxTensorElements = int64_t{1} << 32;

/// Largest rank of MatMul operands and Concat inputs: the reference executor runs both on
/// oneDNN, whose tensors have at most 12 dimensions (DNNL_MAX_NDIMS). Higher ranks are
/// rejected as ErrorKind::Unsupported by shape inference.
inline constexpr int64_t kMaxKernelRank = 12;

/// Infers every value's type and shape; graph inputs must already have shapes. Finally checks
/// every graph output against the type the model declared for it (Value::declaredShape,
/// Value::declaredDType): a disagreement is an Error(Model) naming the output.
void inferShapes(Graph& g);

/// Infers the outputs of one node from its (already inferred) inputs.
void inferNode(Graph& g, NodeId id);

} // namespace nnaccel::ir
