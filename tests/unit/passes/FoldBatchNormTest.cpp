// Tests for BatchNormalization folding: exact folded constants on a hand-computed case, numeric
// equivalence on the reference executor for Conv (groups, depthwise), ConvTranspose (groups)
// and Gemm (transB, C shapes, beta), untouched shared weights, and the cases that must not fold.
#include "nnaccel/passes/FoldBatchNorm.h"

#include "PassTestUtil.h"
#include "nnaccel/ir/OpParams.h"

#include <functional>
#include <gtest/gtest.h>

using namespace nnaccel;
using namespace nnaccel::ir;
using namespace nnaccel::ir::test;
using namespace nnaccel::passes;
using namespace nnaccel::passes::test;

namespace {

/// Appends BatchNormalization 'bn' over \p x with \p channels random (valid) parameters.
ValueId addBatchNorm(GraphBuilder& b, ValueId x, int64_t channels, uint32_t seed,
                     const std::string& name = "bn") {
  std::vector<float> var = pseudoRandom(channels, seed + 3);
  for (float& v : var) {
    v = v * v + 0.1f;
  }
  return b.op(OpKind::BatchNormalization, name,
              {x, b.floats(name + "_scale", pseudoRandom(channels, seed)),
               b.floats(name + "_b", pseudoRandom(channels, seed + 1)),
               b.floats(name + "_mean", pseudoRandom(channels, seed + 2)),
               b.floats(name + "_var", var)},
              attrs({{"epsilon", 1e-3f}}));
}

/// Folds \p b's graph and checks the output matches the unfolded graph on the executor.
void expectEquivalentAfterFolding(GraphBuilder& b, const Dims& inputShape, size_t expectedFolds) {
  inferShapes(b.g);
  Graph before = b.g;
  const Tensor input = randomTensor(inputShape, 99);
  const std::vector<Tensor> ref = runGraph(before, {input});
  EXPECT_EQ(foldBatchNorm(b.g), expectedFolds);
  EXPECT_EQ(countOps(b.g, OpKind::BatchNormalization), 0u);
  const std::vector<Tensor> got = runGraph(b.g, {input});
  ASSERT_EQ(got.size(), ref.size());
  for (size_t i = 0; i < got.size(); ++i) {
    float scale = 1.0f;
    for (float v : ref[i].values<float>()) {
      scale = std::max(scale, std::fabs(v));
    }
    // Folding changes where fp32 rounding happens (W*s rounded before accumulation).
    EXPECT_LE(maxAbsDiff(got[i], ref[i]), 2e-5f * scale) << "output " << i;
  }
}

} // namespace

TEST(FoldBatchNorm, HandComputedOneByOneConv) {
  GraphBuilder b(13);
  const ValueId x = b.input("x", {1, 1, 1, 2});
  const ValueId conv = b.op(OpKind::Conv, "conv", {x, b.floats("w", {2, 1, 1, 1}, {2.0f, -1.0f})});
  // s = scale / sqrt(var + eps): channel 0: 4 / sqrt(3 + 1) = 2, t = 0.5 - 1 * 2 = -1.5;
  // channel 1: 1 / sqrt(0.25 + 1) = 0.894427191, t = 0.
  const ValueId y = b.op(OpKind::BatchNormalization, "bn",
                         {conv, b.floats("scale", {4.0f, 1.0f}), b.floats("bias", {0.5f, 0.0f}),
                          b.floats("mean", {1.0f, 0.0f}), b.floats("var", {3.0f, 0.25f})},
                         attrs({{"epsilon", 1.0f}}));
  b.g.outputs = {y};
  inferShapes(b.g);
  ASSERT_EQ(foldBatchNorm(b.g), 1u);
  ASSERT_EQ(b.g.numNodes(), 1u);
  const Node& n = b.g.node(0);
  EXPECT_EQ(n.op, OpKind::Conv);
  EXPECT_EQ(n.outputs[0], y);
  EXPECT_EQ(b.g.outputs, std::vector<ValueId>{y});
  EXPECT_EQ(b.g.value(y).name, "bn");
  EXPECT_EQ(b.g.value(y).producer, 0);
  const Tensor& w = *b.g.value(n.inputs[1]).constant;
  EXPECT_EQ(w.data<float>()[0], 4.0f);
  EXPECT_FLOAT_EQ(w.data<float>()[1], -0.894427191f);
  const Tensor& bias = *b.g.value(n.inputs[2]).constant;
  EXPECT_EQ(bias.data<float>()[0], -1.5f);
  EXPECT_EQ(bias.data<float>()[1], 0.0f);
  // The original weight is untouched (it may be shared).
  EXPECT_EQ(b.g.value(*b.g.findValue("w")).constant->data<float>()[0], 2.0f);
  // Executed: conv gives [6, -2] and [-3, 1]; BN gives [10.5, -5.5] and [-2.6832816, 0.8944272].
  const std::vector<Tensor> out =
      runGraph(b.g, {Tensor::fromVector<float>({1, 1, 1, 2}, {3.0f, -1.0f})});
  EXPECT_EQ(out[0].data<float>()[0], 10.5f);
  EXPECT_EQ(out[0].data<float>()[1], -5.5f);
  EXPECT_FLOAT_EQ(out[0].data<float>()[2], -2.6832816f);
  EXPECT_FLOAT_EQ(out[0].data<float>()[3], 0.8944272f);
}

TEST(FoldBatchNorm, ConvWithBiasGroupsAndDepthwiseIsEquivalent) {
  GraphBuilder b(13);
  const ValueId x = b.input("x", {1, 4, 6, 6});
  ValueId y = b.op(
      OpKind::Conv, "conv_g2",
      {x, b.floats("w1", {6, 2, 3, 3}, pseudoRandom(108, 1)), b.floats("b1", pseudoRandom(6, 2))},
      attrs({{"group", int64_t{2}}, {"pads", Dims{1, 1, 1, 1}}}));
  y = addBatchNorm(b, y, 6, 10, "bn1");
  y = b.op(OpKind::Relu, "relu", {y});
  y = b.op(OpKind::Conv, "conv_dw", {y, b.floats("w2", {6, 1, 3, 3}, pseudoRandom(54, 3))},
           attrs({{"group", int64_t{6}}, {"strides", Dims{2, 2}}}));
  y = addBatchNorm(b, y, 6, 20, "bn2");
  b.g.outputs = {y};
  expectEquivalentAfterFolding(b, {1, 4, 6, 6}, 2);
  EXPECT_EQ(b.g.value(b.g.outputs[0]).name, "bn2");
}

TEST(FoldBatchNorm, ConvTransposeWithGroupsIsEquivalent) {
  GraphBuilder b(13);
  const ValueId x = b.input("x", {1, 4, 3, 3});
  // W is [C=4, M/group=3, 3, 3] with group 2, so M = 6 and input channel c feeds outputs
  // (c / 2) * 3 + j.
  ValueId y =
      b.op(OpKind::ConvTranspose, "deconv", {x, b.floats("w", {4, 3, 3, 3}, pseudoRandom(108, 5))},
           attrs({{"group", int64_t{2}}, {"strides", Dims{2, 2}}, {"output_padding", Dims{1, 1}}}));
  y = addBatchNorm(b, y, 6, 30);
  b.g.outputs = {y};
  expectEquivalentAfterFolding(b, {1, 4, 3, 3}, 1);
  EXPECT_EQ(b.g.node(0).inputs.size(), 3u); // a bias was created
}

TEST(FoldBatchNorm, GemmVariantsAreEquivalent) {
  struct Case {
    bool transB;
    Dims cShape; // empty: no C
    float beta;
  };
  for (const Case& c : {Case{false, {5}, 1.0f}, Case{true, {3, 1}, 0.5f}, Case{true, {}, 1.0f},
                        Case{false, {1}, 0.0f}, Case{false, {3, 5}, 2.0f}}) {
    GraphBuilder b(13);
    const ValueId a = b.input("a", {3, 4});
    std::vector<ValueId> ins = {
        a, b.floats("w", c.transB ? Dims{5, 4} : Dims{4, 5}, pseudoRandom(20, 7))};
    if (!c.cShape.empty()) {
      ins.push_back(b.floats("c", c.cShape, pseudoRandom(numElements(c.cShape), 8)));
    }
    ValueId y =
        b.op(OpKind::Gemm, "fc", ins,
             attrs({{"transB", int64_t{c.transB ? 1 : 0}}, {"beta", c.beta}, {"alpha", 0.75f}}));
    y = addBatchNorm(b, y, 5, 40);
    b.g.outputs = {y};
    SCOPED_TRACE("transB=" + std::to_string(c.transB) + " C=" + dimsToString(c.cShape));
    expectEquivalentAfterFolding(b, {3, 4}, 1);
    EXPECT_EQ(b.g.node(0).attrs.getFloat("beta", 0.0f), 1.0f);
  }
}

TEST(FoldBatchNorm, SharedWeightsAreNotMutated) {
  GraphBuilder b(13);
  const ValueId x = b.input("x", {1, 2, 4, 4});
  const ValueId w = b.floats("w", {2, 2, 1, 1}, {1.0f, 2.0f, 3.0f, 4.0f});
  const ValueId y1 = addBatchNorm(b, b.op(OpKind::Conv, "c1", {x, w}), 2, 50, "bn1");
  const ValueId y2 = addBatchNorm(b, b.op(OpKind::Conv, "c2", {x, w}), 2, 60, "bn2");
  b.g.outputs = {y1, y2};
  expectEquivalentAfterFolding(b, {1, 2, 4, 4}, 2);
  EXPECT_EQ(b.g.value(w).constant->data<float>()[3], 4.0f);
  EXPECT_NE(b.g.node(0).inputs[1], b.g.node(1).inputs[1]);
}

TEST(FoldBatchNorm, LeavesUnfoldablePatternsAlone) {
  GraphBuilder b(13);
  const ValueId x = b.input("x", {1, 2, 4, 4});
  const ValueId w = b.floats("w", {2, 2, 1, 1}, {1.0f, 2.0f, 3.0f, 4.0f});
  // Conv output also used elsewhere.
  const ValueId c1 = b.op(OpKind::Conv, "c1", {x, w});
  const ValueId y1 = addBatchNorm(b, c1, 2, 1, "bn1");
  const ValueId other = b.op(OpKind::Relu, "other", {c1});
  // BN parameters that are runtime inputs.
  const ValueId c2 = b.op(OpKind::Conv, "c2", {x, w});
  const ValueId y2 = b.op(OpKind::BatchNormalization, "bn2",
                          {c2, b.input("s", {2}), b.floats("bb", {0, 0}), b.floats("m", {0, 0}),
                           b.floats("v", {1, 1})});
  // Producer that is not a Conv/ConvTranspose/Gemm.
  const ValueId y3 = addBatchNorm(b, b.op(OpKind::Relu, "r", {x}), 2, 3, "bn3");
  // Conv weight that is a runtime input.
  const ValueId y4 =
      addBatchNorm(b, b.op(OpKind::Conv, "c4", {x, b.input("w_dyn", {2, 2, 1, 1})}), 2, 4, "bn4");
  b.g.outputs = {y1, other, y2, y3, y4};
  inferShapes(b.g);
  EXPECT_EQ(foldBatchNorm(b.g), 0u);
  EXPECT_EQ(countOps(b.g, OpKind::BatchNormalization), 4u);
}

namespace {

/// conv (4 -> 6 channels, 3x3) on a 1x4x5x5 input, then \p tail applied to its output.
GraphBuilder convThen(const std::function<ValueId(GraphBuilder&, ValueId)>& tail) {
  GraphBuilder b(13);
  const ValueId x = b.input("x", {1, 4, 5, 5});
  const ValueId conv = b.op(OpKind::Conv, "conv",
                            {x, b.floats("w", {6, 4, 3, 3}, pseudoRandom(6 * 4 * 9, 5)),
                             b.floats("bias", pseudoRandom(6, 6))},
                            attrs({{"pads", Dims{1, 1, 1, 1}}}));
  b.g.outputs = {tail(b, conv)};
  return b;
}

/// Folds the constant affine nodes of \p b; checks the count, that only the conv is left, and
/// that the output matches the unfolded graph on the reference executor.
void expectAffineFolded(GraphBuilder& b, size_t expectedFolds) {
  inferShapes(b.g);
  Graph before = b.g;
  const Tensor input = randomTensor({1, 4, 5, 5}, 99);
  const std::vector<Tensor> ref = runGraph(before, {input});
  EXPECT_EQ(foldConstantAffine(b.g), expectedFolds);
  EXPECT_EQ(b.g.numNodes(), 1u);
  const std::vector<Tensor> got = runGraph(b.g, {input});
  float scale = 1.0f;
  for (float v : ref[0].values<float>())
    scale = std::max(scale, std::fabs(v));
  EXPECT_LE(maxAbsDiff(got[0], ref[0]), 2e-5f * scale);
}

} // namespace

TEST(FoldConstantAffine, PerChannelScaleThenShiftFoldIntoTheConv) {
  GraphBuilder b = convThen([](GraphBuilder& g, ValueId y) {
    const ValueId scaled =
        g.op(OpKind::Mul, "scale", {y, g.floats("s", {1, 6, 1, 1}, pseudoRandom(6, 7))});
    const ValueId shifted =
        g.op(OpKind::Add, "shift", {g.floats("t", {6, 1, 1}, pseudoRandom(6, 8)), scaled});
    const ValueId divided = g.op(OpKind::Div, "div", {shifted, g.floats("d", {}, {4.0f})});
    return g.op(OpKind::Sub, "sub", {divided, g.floats("c", {1}, {0.25f})});
  });
  expectAffineFolded(b, 4);
}

TEST(FoldConstantAffine, WhatIsNotAPerChannelAffineMapStays) {
  const auto count = [](const std::function<ValueId(GraphBuilder&, ValueId)>& tail) {
    GraphBuilder b = convThen(tail);
    inferShapes(b.g);
    return foldConstantAffine(b.g);
  };
  // c - x, x / 0, a constant varying along the rows, and a conv output read twice.
  EXPECT_EQ(count([](GraphBuilder& g, ValueId y) {
              return g.op(OpKind::Sub, "rsub", {g.floats("c", {}, {1.0f}), y});
            }),
            0u);
  EXPECT_EQ(
      count([](GraphBuilder& g, ValueId y) {
        return g.op(OpKind::Div, "div0", {y, g.floats("z", {6, 1, 1}, std::vector<float>(6))});
      }),
      0u);
  EXPECT_EQ(count([](GraphBuilder& g, ValueId y) {
              return g.op(OpKind::Mul, "rows", {y, g.floats("r", {5, 1}, pseudoRandom(5, 3))});
            }),
            0u);
  EXPECT_EQ(count([](GraphBuilder& g, ValueId y) {
              const ValueId m = g.op(OpKind::Mul, "m", {y, g.floats("s", {}, {2.0f})});
              return g.op(OpKind::Add, "twice", {m, y});
            }),
            0u);
}
