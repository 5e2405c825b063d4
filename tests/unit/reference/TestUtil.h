// Helpers shared by the reference-kernel tests: the deterministic input sequence that
// expected_values.py also uses, and element-wise comparison of a tensor with expected values.
#pragma once

#include "nnaccel/tensor/Tensor.h"

#include <cmath>
#include <gtest/gtest.h>
#include <vector>

namespace nnaccel::reference::test {

/// Multiples of 1/8 in [-9/8, 9/8]: ((i * 37 + seed * 11) % 19 - 9) / 8 (expected_values.py: seq).
inline Tensor seqTensor(Dims shape, int seed) {
  Tensor t(DType::F32, std::move(shape));
  float* p = t.data<float>();
  for (int64_t i = 0; i < t.numElements(); ++i) {
    p[i] = static_cast<float>((i * 37 + seed * 11) % 19 - 9) / 8.0f;
  }
  return t;
}

/// Expects \p t to have \p shape and values within atol + rtol * |expected|.
inline void expectTensorNear(const Tensor& t, const Dims& shape, const std::vector<float>& expected,
                             float rtol = 1e-5f, float atol = 1e-6f) {
  ASSERT_EQ(t.dtype(), DType::F32);
  ASSERT_EQ(dimsToString(t.shape()), dimsToString(shape));
  ASSERT_EQ(static_cast<size_t>(t.numElements()), expected.size());
  const float* p = t.data<float>();
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_NEAR(p[i], expected[i], atol + rtol * std::fabs(expected[i])) << "element " << i;
  }
}

/// Tensor of typed values.
template <typename T> Tensor tensorOf(Dims shape, std::vector<T> values) {
  return Tensor::fromVector<T>(std::move(shape), values);
}

template <typename T> std::vector<T> valuesOf(const Tensor& t) {
  auto v = t.values<T>();
  return std::vector<T>(v.begin(), v.end());
}

} // namespace nnaccel::reference::test
