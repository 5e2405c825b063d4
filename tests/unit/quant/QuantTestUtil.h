// Helpers shared by the quantizer and int8 executor tests: seeded random fp32 tensors, graph
// finishing (shape inference + verification), and an exact 128-bit requantization reference.
#pragma once

#include "../ir/GraphBuilder.h"
#include "nnaccel/ir/ShapeInference.h"
#include "nnaccel/ir/Verifier.h"
#include "nnaccel/quant/Requantize.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <random>

namespace nnaccel::quant::test {

using ir::test::attrs;
using ir::test::errorOf;
using ir::test::GraphBuilder;

/// Uniform fp32 tensor in [lo, hi) from \p rng.
inline Tensor randomTensor(const Dims& shape, std::mt19937_64& rng, float lo = -1.0f,
                           float hi = 1.0f) {
  Tensor t(DType::F32, shape);
  std::uniform_real_distribution<float> d(lo, hi);
  for (float& v : t.values<float>()) {
    v = d(rng);
  }
  return t;
}

/// Uniform int8 tensor with values in [lo, hi] from \p rng.
inline Tensor randomS8(const Dims& shape, std::mt19937_64& rng, int lo = -128, int hi = 127) {
  Tensor t(DType::I8, shape);
  std::uniform_int_distribution<int> d(lo, hi);
  for (int8_t& v : t.values<int8_t>()) {
    v = static_cast<int8_t>(d(rng));
  }
  return t;
}

/// Marks \p outputs, infers shapes and verifies; returns the finished graph.
inline ir::Graph finish(GraphBuilder& b, const std::vector<ir::ValueId>& outputs) {
  b.g.outputs = outputs;
  ir::inferShapes(b.g);
  ir::verify(b.g);
  return b.g;
}

/// Node id of the node called \p name.
inline ir::NodeId nodeNamed(const ir::Graph& g, const std::string& name) {
  for (size_t i = 0; i < g.numNodes(); ++i) {
    if (g.node(static_cast<ir::NodeId>(i)).name == name) {
      return static_cast<ir::NodeId>(i);
    }
  }
  ADD_FAILURE() << "no node " << name;
  return 0;
}

__extension__ using Int128 = __int128;

/// round-half-away(acc * M / 2^(31 + shift)) by 128-bit arithmetic, saturated to [lo, hi].
inline int64_t referenceRequantize(int64_t acc, QuantMultiplier q, int64_t lo = -128,
                                   int64_t hi = 127) {
  const Int128 x = static_cast<Int128>(acc) * q.multiplier;
  const Int128 d = static_cast<Int128>(1) << (31 + q.shift);
  const Int128 mag = x < 0 ? -x : x;
  const Int128 r = (2 * mag + d) / (2 * d);
  return std::clamp<int64_t>(static_cast<int64_t>(x < 0 ? -r : r), lo, hi);
}

inline std::vector<int8_t> s8(const Tensor& t) {
  auto v = t.values<int8_t>();
  return {v.begin(), v.end()};
}

inline float maxAbsOf(const Tensor& t) {
  float m = 0.0f;
  for (float v : t.values<float>()) {
    m = std::max(m, std::fabs(v));
  }
  return m;
}

} // namespace nnaccel::quant::test
