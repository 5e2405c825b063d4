// The values of the comparison, logical and broadcasting ops (LogicOps.h), shared by shape
// inference's folding and the executors.
#include "nnaccel/ir/LogicOps.h"

#include "NodeInputs.h"
#include "nnaccel/support/Error.h"

#include <cstring>

namespace nnaccel::ir {

using detail::copyElement;

namespace {

/// Element strides reading a row-major \p shape as \p out (right-aligned, 0 where broadcast).
Dims stridesOver(const Dims& shape, const Dims& out) {
  Dims strides(out.size(), 0);
  int64_t step = 1;
  for (size_t d = shape.size(); d-- > 0;) {
    const size_t at = out.size() - shape.size() + d;
    strides[at] = shape[d] == 1 ? 0 : step;
    step *= shape[d];
  }
  return strides;
}

/// Calls f(outIndex, sourceOffsets) for every element of \p out in row-major order.
template <size_t K, typename F>
void forEachBroadcast(const Dims& out, const std::array<const Dims*, K>& shapes, F&& f) {
  std::array<Dims, K> strides;
  for (size_t k = 0; k < K; ++k)
    strides[k] = stridesOver(*shapes[k], out);
  const int64_t total = numElements(out);
  Dims index(out.size(), 0);
  for (int64_t i = 0; i < total; ++i) {
    std::array<int64_t, K> at{};
    for (size_t k = 0; k < K; ++k)
      for (size_t d = 0; d < out.size(); ++d)
        at[k] += index[d] * strides[k][d];
    f(i, at);
    for (size_t d = out.size(); d-- > 0;) {
      if (++index[d] < out[d])
        break;
      index[d] = 0;
    }
  }
}

template <typename T> bool compare(OpKind op, T a, T b) {
  switch (op) {
  case OpKind::Equal:
    return a == b;
  case OpKind::Greater:
    return a > b;
  case OpKind::Less:
    return a < b;
  case OpKind::GreaterOrEqual:
    return a >= b;
  default:
    return a <= b;
  }
}

Dims broadcastOrAssert(const std::vector<Dims>& shapes) {
  std::optional<Dims> out = broadcastAll(shapes);
  NNACCEL_ASSERT(out.has_value()) << "operands do not broadcast";
  return *out;
}

} // namespace

std::optional<Dims> broadcastAll(const std::vector<Dims>& shapes) {
  size_t rank = 0;
  for (const Dims& s : shapes)
    rank = std::max(rank, s.size());
  Dims out(rank, 1);
  for (const Dims& s : shapes) {
    for (size_t d = 0; d < s.size(); ++d) {
      int64_t& o = out[rank - s.size() + d];
      if (s[d] == o || s[d] == 1)
        continue;
      if (o != 1)
        return std::nullopt;
      o = s[d];
    }
  }
  return out;
}

Tensor compareValues(OpKind op, const Tensor& a, const Tensor& b) {
  NNACCEL_ASSERT(isComparison(op) && a.dtype() == b.dtype()) << "compareValues operands";
  const Dims out = broadcastOrAssert({a.shape(), b.shape()});
  Tensor r(DType::Bool, out);
  bool* dst = r.data<bool>();
  const bool isFloat = a.dtype() == DType::F32;
  forEachBroadcast<2>(out, {&a.shape(), &b.shape()}, [&](int64_t i, std::array<int64_t, 2> at) {
    dst[i] = isFloat ? compare(op, a.data<float>()[at[0]], b.data<float>()[at[1]])
                     : compare(op, a.elementAsInt64(at[0]), b.elementAsInt64(at[1]));
  });
  return r;
}

Tensor logicalValues(OpKind op, const Tensor& a, const Tensor* b) {
  NNACCEL_ASSERT(isLogical(op) && a.dtype() == DType::Bool && (op == OpKind::Not) == !b)
      << "logicalValues operands";
  const Tensor& other = b ? *b : a;
  const Dims out = broadcastOrAssert({a.shape(), other.shape()});
  Tensor r(DType::Bool, out);
  bool* dst = r.data<bool>();
  forEachBroadcast<2>(out, {&a.shape(), &other.shape()}, [&](int64_t i, std::array<int64_t, 2> at) {
    const bool x = a.data<bool>()[at[0]], y = other.data<bool>()[at[1]];
    dst[i] = op == OpKind::Not   ? !x
             : op == OpKind::And ? (x && y)
             : op == OpKind::Or  ? (x || y)
                                 : (x != y);
  });
  return r;
}

Tensor whereValues(const Tensor& cond, const Tensor& x, const Tensor& y) {
  NNACCEL_ASSERT(cond.dtype() == DType::Bool && x.dtype() == y.dtype()) << "whereValues operands";
  const Dims out = broadcastOrAssert({cond.shape(), x.shape(), y.shape()});
  Tensor r(x.dtype(), out);
  forEachBroadcast<3>(out, {&cond.shape(), &x.shape(), &y.shape()},
                      [&](int64_t i, std::array<int64_t, 3> at) {
                        if (cond.data<bool>()[at[0]])
                          copyElement(x, at[1], r, i);
                        else
                          copyElement(y, at[2], r, i);
                      });
  return r;
}

Tensor expandValues(const Tensor& x, const Dims& outShape) {
  Tensor r(x.dtype(), outShape);
  forEachBroadcast<1>(outShape, {&x.shape()},
                      [&](int64_t i, std::array<int64_t, 1> at) { copyElement(x, at[0], r, i); });
  return r;
}

Tensor tileValues(const Tensor& x, const std::vector<int64_t>& repeats) {
  const Dims& in = x.shape();
  NNACCEL_ASSERT(repeats.size() == in.size()) << "tile repeats per axis";
  Dims out(in.size());
  for (size_t d = 0; d < in.size(); ++d)
    out[d] = in[d] * repeats[d];
  Tensor r(x.dtype(), out);
  const Dims inStrides = stridesOver(in, in);
  Dims index(out.size(), 0);
  for (int64_t i = 0; i < r.numElements(); ++i) {
    int64_t src = 0;
    for (size_t d = 0; d < out.size(); ++d)
      src += (index[d] % in[d]) * inStrides[d];
    copyElement(x, src, r, i);
    for (size_t d = out.size(); d-- > 0;) {
      if (++index[d] < out[d])
        break;
      index[d] = 0;
    }
  }
  return r;
}

} // namespace nnaccel::ir
