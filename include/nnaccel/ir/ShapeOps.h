/// \file
/// The values of the shape-manipulating ops, defined once for shape inference (which folds
/// them) and for the executors (which evaluate them): Squeeze/Unsqueeze output shapes, the
/// Shape op's tensor, a Constant node's tensor and ConstantOfShape's output.
///
/// Each function takes parameters already resolved by OpParams.h (squeezeAxes, ...) or reads
/// the node itself, and throws nnaccel::Error with the node's context on invalid attributes,
/// so folding at compile time and evaluating at run time cannot disagree.
#pragma once

#include "nnaccel/ir/Graph.h"

#include <optional>
#include <span>
#include <vector>

namespace nnaccel::ir {

/// Product of \p dims (1 for none), or nullopt if a dim is negative or the product exceeds
/// \p limit. Each step is checked before it multiplies, so it never overflows; every element
/// count, MAC count or budget computed from model-provided shapes goes through it.
std::optional<int64_t> checkedProduct(std::span<const int64_t> dims, int64_t limit);

/// \p shape without the axes in \p axes (normalized to [0, rank), as squeezeAxes returns them).
Dims squeezedShape(const Dims& shape, const std::vector<int64_t>& axes);

/// \p shape with extent-1 axes inserted at \p axes (positions in the output, normalized to
/// [0, rank + axes.size()), as unsqueezeAxes returns them).
Dims unsqueezedShape(const Dims& shape, const std::vector<int64_t>& axes);

/// The s64 tensor a Shape node \p id produces for an input of shape \p inputShape: the dims
/// in [start, end) (attributes from opset 15, negative values count from the end, clamped to
/// [0, rank] like Python slicing; empty when start >= end).
Tensor shapeOpValue(const Graph& g, NodeId id, const Dims& inputShape);

/// A Constant node's value from its attributes (exactly one of value, value_float,
/// value_floats, value_int, value_ints). value_float/value_int give scalars,
/// value_floats/value_ints 1-D tensors. Errors carry \p context with key = the attribute:
/// Model for a count other than one, a non-value attribute or a wrong attribute type,
/// Unsupported for value_string(s) and other value kinds nnaccel cannot hold.
Tensor constantNodeValue(const AttrMap& attrs, const ErrorContext& context);
/// The same for Constant node \p id of \p g (context: the node).
Tensor constantNodeValue(const Graph& g, NodeId id);

/// ConstantOfShape resolved: the output dims (from the integer shape tensor) and the fill
/// scalar (attribute `value`, one element; default f32 0, whose dtype is the output's).
struct ConstantOfShapeSpec {
  Dims shape;
  Tensor fill;
};
/// Validates \p shape (1-D s32/s64, dims >= 0 and at most 2^31-1) and the `value` attribute.
ConstantOfShapeSpec constantOfShapeSpec(const Graph& g, NodeId id, const Tensor& shape);
/// The materialized output of \p spec (every element = fill).
Tensor constantOfShapeValue(const ConstantOfShapeSpec& spec);
/// constantOfShapeValue(constantOfShapeSpec(g, id, shape)): what an executor evaluates.
Tensor constantOfShapeValue(const Graph& g, NodeId id, const Tensor& shape);

} // namespace nnaccel::ir
