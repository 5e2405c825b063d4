// Index arithmetic shared by the loop kernels: numpy broadcasting of shapes, broadcast strides,
// and iteration over a multi-dimensional index space with per-operand element strides (used by
// binary element-wise ops, PRelu, Gemm's C, MatMul batches, transposes and slices).
#pragma once

#include "nnaccel/tensor/Tensor.h"

#include <array>
#include <cstdint>

namespace nnaccel::reference {

/// Numpy broadcast of \p a and \p b; throws nnaccel::Error (Model, no context) if incompatible.
Dims broadcastShape(const Dims& a, const Dims& b);

/// Element strides that read a row-major tensor of \p shape as if it had shape \p outShape
/// (right-aligned; 0 on broadcast axes). Asserts \p shape broadcasts to \p outShape.
Dims broadcastStrides(const Dims& shape, const Dims& outShape);

/// Calls f(offsets) for every index of \p shape in row-major order, where offsets[k] is
/// base[k] + sum_i index[i] * strides[k][i] (signed, so negative strides walk backwards).
/// The innermost axis is a tight loop; a rank-0 shape visits once.
template <size_t K, typename F>
void forEachIndex(const Dims& shape, const std::array<const Dims*, K>& strides,
                  std::array<int64_t, K> base, F&& f) {
  const size_t rank = shape.size();
  if (numElements(shape) == 0) {
    return;
  }
  if (rank == 0) {
    f(base);
    return;
  }
  Dims idx(rank, 0);
  const int64_t inner = shape[rank - 1];
  std::array<int64_t, K> innerStride{};
  for (size_t k = 0; k < K; ++k) {
    innerStride[k] = (*strides[k])[rank - 1];
  }
  std::array<int64_t, K> off = base;
  for (;;) {
    std::array<int64_t, K> o = off;
    for (int64_t i = 0; i < inner; ++i) {
      f(o);
      for (size_t k = 0; k < K; ++k) {
        o[k] += innerStride[k];
      }
    }
    // Advance the outer index (axes rank-2 .. 0) like an odometer.
    size_t axis = rank - 1;
    for (;;) {
      if (axis == 0) {
        return;
      }
      --axis;
      if (++idx[axis] < shape[axis]) {
        for (size_t k = 0; k < K; ++k) {
          off[k] += (*strides[k])[axis];
        }
        break;
      }
      for (size_t k = 0; k < K; ++k) {
        off[k] -= (*strides[k])[axis] * (shape[axis] - 1);
      }
      idx[axis] = 0;
    }
  }
}

} // namespace nnaccel::reference
