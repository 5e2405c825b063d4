/// \file
/// Helpers for the pass tests: deterministic pseudo-random tensors and running a graph on the
/// reference executor to compare outputs before and after a pass.
#pragma once

#include "../ir/GraphBuilder.h"
#include "nnaccel/ir/ShapeInference.h"
#include "nnaccel/ir/Verifier.h"
#include "nnaccel/reference/Executor.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <gtest/gtest.h>

namespace nnaccel::passes::test {

/// Values in [-1, 1) from a fixed linear congruential sequence (no platform dependence).
inline std::vector<float> pseudoRandom(int64_t n, uint32_t seed) {
  std::vector<float> v(static_cast<size_t>(n));
  uint32_t s = seed * 2654435761u + 12345u;
  for (float& x : v) {
    s = s * 1664525u + 1013904223u;
    x = static_cast<float>(s >> 8) / static_cast<float>(1u << 24) * 2.0f - 1.0f;
  }
  return v;
}

inline Tensor randomTensor(Dims shape, uint32_t seed) {
  const int64_t n = numElements(shape);
  return Tensor::fromVector<float>(std::move(shape), pseudoRandom(n, seed));
}

/// Runs \p g (inferred and verified here) on \p inputs with the reference executor.
inline std::vector<Tensor> runGraph(ir::Graph& g, const std::vector<Tensor>& inputs) {
  ir::inferShapes(g);
  ir::verify(g);
  reference::Executor ex(g);
  return ex.run(inputs);
}

/// Largest |a - b| over two f32 tensors of the same shape.
inline float maxAbsDiff(const Tensor& a, const Tensor& b) {
  EXPECT_EQ(a.shape(), b.shape());
  float m = 0.0f;
  for (int64_t i = 0; i < std::min(a.numElements(), b.numElements()); ++i) {
    m = std::max(m, std::fabs(a.data<float>()[i] - b.data<float>()[i]));
  }
  return m;
}

/// Number of nodes of kind \p op.
inline size_t countOps(const ir::Graph& g, ir::OpKind op) {
  return static_cast<size_t>(std::count_if(g.nodes().begin(), g.nodes().end(),
                                           [&](const ir::Node& n) { return n.op == op; }));
}

} // namespace nnaccel::passes::test
