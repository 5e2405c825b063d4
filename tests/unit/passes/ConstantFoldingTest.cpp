// Tests for constant folding on the reference executor: large float subgraphs are evaluated and
// removed, folded graph outputs keep their names and values, nodes already folded by shape
// inference are dropped, and nodes the executor cannot evaluate are left in place.
#include "nnaccel/passes/ConstantFolding.h"

#include "PassTestUtil.h"

#include <gtest/gtest.h>

using namespace nnaccel;
using namespace nnaccel::ir;
using namespace nnaccel::ir::test;
using namespace nnaccel::passes;
using namespace nnaccel::passes::test;

TEST(ConstantFolding, EvaluatesWeightSubgraphsOfAnySize) {
  GraphBuilder b(13);
  const ValueId x = b.input("x", {1, 64, 2, 2});
  // A weight stored transposed and rescaled: Transpose(w_t) * 0.5, 64*64 = 4096+ elements so
  // shape inference leaves it alone.
  std::vector<float> wt(64 * 65);
  for (size_t i = 0; i < wt.size(); ++i) {
    wt[i] = static_cast<float>(i);
  }
  const ValueId wT = b.floats("w_t", {64, 65}, wt); // stored [C, M]
  const ValueId w2 = b.op(OpKind::Transpose, "tr", {wT});
  const ValueId half = b.op(OpKind::Mul, "half", {w2, b.floats("k", {0.5f})});
  const ValueId w4 = b.op(OpKind::Reshape, "w4", {half, b.ints("shape", {65, 64, 1, 1})});
  const ValueId y = b.op(OpKind::Conv, "conv", {x, w4});
  b.g.outputs = {y};
  inferShapes(b.g);
  EXPECT_FALSE(b.g.value(w2).constant);
  EXPECT_EQ(foldConstants(b.g), 3u);
  ASSERT_EQ(b.g.numNodes(), 1u);
  EXPECT_EQ(b.g.node(0).op, OpKind::Conv);
  EXPECT_EQ(b.g.node(0).inputs[1], w4);
  const Tensor& w = *b.g.value(w4).constant;
  EXPECT_EQ(w.shape(), (Dims{65, 64, 1, 1}));
  // w4[m, c] = 0.5 * w_t[c, m] = 0.5 * (c * 65 + m).
  EXPECT_EQ(w.data<float>()[0 * 64 + 1], 0.5f * 65.0f);
  EXPECT_EQ(w.data<float>()[3 * 64 + 2], 0.5f * (2 * 65 + 3));
  EXPECT_EQ(b.g.value(w4).producer, -1);
  verify(b.g);
}

TEST(ConstantFolding, FoldedGraphOutputsKeepTheirNamesAndValues) {
  GraphBuilder b(13);
  const ValueId x = b.input("x", {2});
  const ValueId sig = b.op(OpKind::Sigmoid, "probs", {b.floats("logits", {0.0f, 2.0f})});
  const ValueId y = b.op(OpKind::Add, "y", {x, sig});
  b.g.outputs = {y, sig};
  inferShapes(b.g);
  EXPECT_EQ(foldConstants(b.g), 1u);
  EXPECT_EQ(b.g.value(sig).name, "probs");
  EXPECT_EQ(b.g.outputs[1], sig);
  const std::vector<Tensor> out = runGraph(b.g, {Tensor::fromVector<float>({2}, {1.0f, 1.0f})});
  EXPECT_EQ(out[1].data<float>()[0], 0.5f);
  EXPECT_FLOAT_EQ(out[1].data<float>()[1], 0.880797f);
  EXPECT_FLOAT_EQ(out[0].data<float>()[1], 1.880797f);
}

TEST(ConstantFolding, RemovesNodesFoldedByShapeInference) {
  GraphBuilder b(13);
  const ValueId x = b.input("x", {2, 3, 4});
  const ValueId s = b.op(OpKind::Shape, "shape", {x});
  const ValueId n = b.op(OpKind::Gather, "n", {s, b.ints("i", {0})});
  const ValueId target =
      b.op(OpKind::Concat, "target", {n, b.ints("m1", {-1})}, attrs({{"axis", int64_t{0}}}));
  const ValueId y = b.op(OpKind::Reshape, "flat", {x, target});
  b.g.outputs = {y};
  inferShapes(b.g);
  EXPECT_EQ(foldConstants(b.g), 3u);
  ASSERT_EQ(b.g.numNodes(), 1u);
  EXPECT_EQ(b.g.node(0).op, OpKind::Reshape);
  EXPECT_EQ(b.g.value(target).constant->toInt64Vector(), (std::vector<int64_t>{2, -1}));
  verify(b.g);
}

TEST(ConstantFolding, LeavesRuntimeAndUnsupportedNodes) {
  GraphBuilder b(13);
  const ValueId x = b.input("x", {1, 1, 2, 2});
  const ValueId r = b.op(OpKind::Relu, "relu", {x});
  // A 4-D-spatial Conv on constants: valid IR, but the reference executor does not evaluate it
  // (Unsupported), so it must stay a node rather than be folded to anything else.
  const ValueId c = b.op(OpKind::Conv, "conv4d",
                         {b.floats("cx", {1, 1, 2, 2, 2, 2}, std::vector<float>(16, 1.0f)),
                          b.floats("cw", {1, 1, 1, 1, 1, 1}, {2.0f})});
  b.g.outputs = {r, c};
  inferShapes(b.g);
  EXPECT_EQ(foldConstants(b.g), 0u);
  EXPECT_EQ(b.g.numNodes(), 2u);
  EXPECT_FALSE(b.g.value(c).constant);
}
