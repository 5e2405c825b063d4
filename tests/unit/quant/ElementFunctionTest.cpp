// Tests of element-wise chains as one table (quant/ElementFunction.cpp): the HardSwish an
// exporter writes out (x * clip(x + 3, 0, 6) / 6) and a product of two functions of one value
// give, through their tables, exactly the int8 executor's bits, and so do threshold masks
// (comparisons and Where against scalar constants); chains stop at two different
// sources, at broadcasting, at per-channel tables and at the engine's fused nodes.
#include "nnaccel/quant/ElementFunction.h"

#include "QuantTestUtil.h"
#include "nnaccel/quant/Int8Executor.h"

#include <gtest/gtest.h>

namespace nnaccel::quant {
namespace {

using namespace nnaccel::quant::test;
using ir::OpKind;

Tensor scalar(float v) {
  return Tensor::fromVector<float>({1}, {v});
}

TEST(ElementFunction, DecomposedHardSwishIsOneTableWithTheExecutorsBits) {
  std::mt19937_64 rng(3);
  GraphBuilder b;
  const auto x = b.input("x", {1, 4, 5, 5});
  const auto c = b.op(OpKind::Conv, "conv", {x, b.constant("w", randomTensor({4, 4, 1, 1}, rng))});
  const auto a = b.op(OpKind::Add, "add3", {c, b.constant("three", scalar(3.0f))});
  const auto k =
      b.op(OpKind::Clip, "clip",
           {a, b.constant("lo", Tensor::scalar(0.0f)), b.constant("hi", Tensor::scalar(6.0f))});
  const auto m = b.op(OpKind::Mul, "mul", {c, k});
  const auto d = b.op(OpKind::Div, "div6", {m, b.constant("six", scalar(6.0f))});
  const auto s = b.op(OpKind::Sigmoid, "sig", {d});
  const auto y = b.op(OpKind::Mul, "gate", {s, d}); // two functions of one source again
  const ir::Graph g = finish(b, {y});
  std::vector<std::vector<Tensor>> sets{{randomTensor({1, 4, 5, 5}, rng, -4.0f, 4.0f)}};
  QuantizedModel qm = quantize(g, sets);
  for (const bool zeroPoints : {false, true}) {
    SCOPED_TRACE(zeroPoints ? "with zero points" : "symmetric");
    if (zeroPoints) // as an asymmetric QDQ model would quantize them: the rules take them
      for (auto [v, z] : {std::pair{c, -9}, std::pair{a, 20}, std::pair{m, -3}, std::pair{d, 5}})
        qm.zeroPoints[static_cast<size_t>(v)] = z;
    const auto fs = elementFunctions(qm, {});
    EXPECT_FALSE(fs[static_cast<size_t>(c)]); // the convolution is a source
    for (ir::ValueId v : {a, k, m, d, s, y}) {
      ASSERT_TRUE(fs[static_cast<size_t>(v)]) << g.value(v).name;
      EXPECT_EQ(fs[static_cast<size_t>(v)]->source, c);
    }
    Int8Executor ex(qm);
    ex.run(sets[0]);
    const std::vector<int8_t> src = s8(ex.value(c).data), got = s8(ex.value(y).data);
    const ElementFunction& f = *fs[static_cast<size_t>(y)];
    for (size_t i = 0; i < src.size(); ++i)
      ASSERT_EQ(f.table[static_cast<size_t>(src[i] + 128)], got[i]) << "element " << i;
  }
}

TEST(ElementFunction, ThresholdMasksAreOneTableWithTheExecutorsBits) {
  // x where x > 0.3 else 0, a comparison of two functions of x, and 0.5 < x with the constant
  // first: each a table of the convolution's output. A Where whose operand is another tensor
  // is not (two sources).
  std::mt19937_64 rng(4);
  GraphBuilder b;
  const auto x = b.input("x", {1, 4, 5, 5});
  const auto other = b.input("other", {1, 4, 5, 5});
  const auto c = b.op(OpKind::Conv, "conv", {x, b.constant("w", randomTensor({4, 4, 1, 1}, rng))});
  const auto above = b.op(OpKind::Greater, "above", {c, b.constant("t", scalar(0.3f))});
  const auto masked = b.op(OpKind::Where, "masked", {above, c, b.constant("z", scalar(0.0f))});
  const auto relu = b.op(OpKind::Relu, "relu", {c});
  const auto same = b.op(OpKind::Equal, "same", {c, relu});
  const auto below = b.op(OpKind::Less, "below", {b.constant("h", scalar(0.5f)), c});
  const auto mixed = b.op(OpKind::Where, "mixed", {above, c, other});
  const ir::Graph g = finish(b, {masked, same, below, mixed});
  std::vector<std::vector<Tensor>> sets{
      {randomTensor({1, 4, 5, 5}, rng, -2.0f, 2.0f), randomTensor({1, 4, 5, 5}, rng)}};
  QuantizedModel qm = quantize(g, sets);
  for (const bool zeroPoints : {false, true}) {
    SCOPED_TRACE(zeroPoints ? "with zero points" : "symmetric");
    if (zeroPoints)
      for (auto [v, z] : {std::pair{c, 11}, std::pair{masked, -40}})
        qm.zeroPoints[static_cast<size_t>(v)] = z;
    const auto fs = elementFunctions(qm, {});
    EXPECT_FALSE(fs[static_cast<size_t>(mixed)]);
    Int8Executor ex(qm);
    ex.run(sets[0]);
    const std::vector<int8_t> src = s8(ex.value(c).data);
    for (ir::ValueId v : {above, masked, same, below}) {
      ASSERT_TRUE(fs[static_cast<size_t>(v)]) << g.value(v).name;
      const ElementFunction& f = *fs[static_cast<size_t>(v)];
      EXPECT_EQ(f.source, c);
      const std::vector<int8_t> got = s8(ex.value(v).data);
      for (size_t i = 0; i < src.size(); ++i)
        ASSERT_EQ(f.table[static_cast<size_t>(src[i] + 128)], got[i])
            << g.value(v).name << " element " << i;
    }
  }
}

TEST(ElementFunction, StopsAtTwoSourcesBroadcastsPerChannelTablesAndFusedNodes) {
  std::mt19937_64 rng(4);
  GraphBuilder b;
  const auto x = b.input("x", {1, 3, 4, 4});
  const auto z = b.input("z", {1, 3, 4, 4});
  const auto r = b.op(OpKind::Relu, "relu", {x});
  const auto two = b.op(OpKind::Add, "two", {r, z}); // two sources
  const auto gap = b.op(OpKind::GlobalAveragePool, "gap", {r});
  const auto se = b.op(OpKind::Mul, "se", {r, gap}); // broadcast
  const auto pc = b.op(OpKind::Mul, "pc", {r, b.constant("c", randomTensor({3, 1, 1}, rng))});
  const ir::Graph g = finish(b, {two, se, pc});
  const QuantizedModel qm =
      quantize(g, {{randomTensor({1, 3, 4, 4}, rng), randomTensor({1, 3, 4, 4}, rng)}});
  ASSERT_EQ(qm.node(nodeNamed(g, "pc")).lookupAxis, 1);
  const auto fs = elementFunctions(qm, {});
  ASSERT_TRUE(fs[static_cast<size_t>(r)]);
  EXPECT_EQ(fs[static_cast<size_t>(r)]->source, x);
  EXPECT_FALSE(fs[static_cast<size_t>(two)]);
  EXPECT_FALSE(fs[static_cast<size_t>(se)]);
  EXPECT_FALSE(fs[static_cast<size_t>(pc)]);
  // The Relu as an engine's fused activation: its output is a source itself.
  EXPECT_FALSE(elementFunctions(qm, {nodeNamed(g, "relu")})[static_cast<size_t>(r)]);
}

} // namespace
} // namespace nnaccel::quant
