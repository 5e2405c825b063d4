/// \file
/// The values of the comparison, logical and broadcasting ops (Equal, Greater, Less,
/// GreaterOrEqual, LessOrEqual, Not, And, Or, Xor, Where, Expand, Tile), defined once for shape
/// inference (which folds them when their inputs are small constants, as exporters' shape
/// arithmetic needs: `Where(Equal(shape, -1), 1, shape)` before an Expand) and for the
/// executors, so folding at compile time and evaluating at run time cannot disagree.
///
/// Plain loops over any dtype: numeric operands compare as f32 (IEEE: every comparison with a
/// NaN is false) or exactly as 64-bit integers; the others copy elements bytewise.
#pragma once

#include "nnaccel/ir/OpKind.h"
#include "nnaccel/tensor/Tensor.h"

#include <optional>
#include <vector>

namespace nnaccel::ir {

/// Numpy broadcast of \p shapes (right-aligned); nullopt when two extents differ and neither is
/// 1.
std::optional<Dims> broadcastAll(const std::vector<Dims>& shapes);

/// Comparison \p op of \p a and \p b (one numeric dtype), broadcast: a bool tensor.
Tensor compareValues(OpKind op, const Tensor& a, const Tensor& b);
/// Not of \p a, or And/Or/Xor of \p a and \p b (bool tensors, broadcast): a bool tensor.
Tensor logicalValues(OpKind op, const Tensor& a, const Tensor* b);
/// Where: \p x where \p cond (bool) is true, else \p y (one dtype), all three broadcast.
Tensor whereValues(const Tensor& cond, const Tensor& x, const Tensor& y);
/// \p x broadcast to \p outShape (numpy rules; Expand's output shape, see expandShape).
Tensor expandValues(const Tensor& x, const Dims& outShape);
/// \p x repeated repeats[a] times along each axis a.
Tensor tileValues(const Tensor& x, const std::vector<int64_t>& repeats);

} // namespace nnaccel::ir
