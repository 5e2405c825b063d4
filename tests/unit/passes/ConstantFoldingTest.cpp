// Tests for constant folding on the reference executor: large float subgraphs are evaluated and
// removed, folded graph outputs keep their names and values, nodes already folded by shape
// inference are dropped, nodes the executor cannot evaluate or that exceed the size / MAC
// budget are left in place, and running out of memory is an error naming the node.
#include "nnaccel/passes/ConstantFolding.h"

#include "PassTestUtil.h"

#include <gtest/gtest.h>

using namespace nnaccel;
using namespace nnaccel::ir;
using namespace nnaccel::ir::test;
using namespace nnaccel::passes;
using namespace nnaccel::passes::test;

TEST(ConstantFolding, EvaluatesWeightSubgraphsAboveTheInferenceLimit) {
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

TEST(ConstantFolding, NodesOverTheOutputBudgetAreLeftToTheExecutor) {
  // ConstantOfShape of 2^24 + 1 f32 elements: one element over the default 64 MiB.
  GraphBuilder b(13);
  const ValueId big = b.op(OpKind::ConstantOfShape, "big", {b.ints("dims", {4097, 4096})},
                           attrs({{"value", Tensor::scalar(1.5f)}}));
  const ValueId fits = b.op(OpKind::ConstantOfShape, "fits", {b.ints("dims2", {4096, 4096})},
                            attrs({{"value", Tensor::scalar(2.5f)}}));
  b.g.outputs = {big, fits};
  inferShapes(b.g);
  EXPECT_EQ(foldConstants(b.g), 1u);
  ASSERT_EQ(b.g.numNodes(), 1u);
  EXPECT_EQ(b.g.node(0).name, "big");
  EXPECT_FALSE(b.g.value(big).constant);
  ASSERT_TRUE(b.g.value(fits).constant);
  EXPECT_EQ(b.g.value(fits).constant->numElements(), 4096 * 4096);
  EXPECT_EQ(b.g.value(fits).constant->data<float>()[4096 * 4096 - 1], 2.5f);
  verify(b.g);

  // Bytes count the dtype: a Cast of 4097 values (above the shape-inference limit) to s64
  // needs 8 * 4097 = 32776 bytes.
  GraphBuilder s(13);
  const ValueId ints = s.op(OpKind::Cast, "ints", {s.floats("v", std::vector<float>(4097, 3.0f))},
                            attrs({{"to", int64_t{7}}}));
  s.g.outputs = {ints};
  inferShapes(s.g);
  EXPECT_FALSE(s.g.value(ints).constant);
  EXPECT_EQ(foldConstants(s.g, FoldOptions{.maxOutputBytes = 32775}), 0u);
  EXPECT_EQ(foldConstants(s.g, FoldOptions{.maxOutputBytes = 32776}), 1u);
  EXPECT_EQ(s.g.value(ints).constant->data<int64_t>()[4096], 3);
  GraphBuilder f(13);
  const ValueId sig = f.op(OpKind::Sigmoid, "sig", {f.floats("z", {4}, {0, 0, 0, 0})});
  f.g.outputs = {sig};
  inferShapes(f.g);
  EXPECT_EQ(foldConstants(f.g, FoldOptions{.maxOutputBytes = 15}), 0u); // 16 bytes needed
  EXPECT_EQ(foldConstants(f.g, FoldOptions{.maxOutputBytes = 16}), 1u);
  EXPECT_EQ(f.g.value(sig).constant->data<float>()[3], 0.5f);
}

TEST(ConstantFolding, ComputeHeavyNodesOverTheMacBudgetAreLeftToTheExecutor) {
  // Conv over a constant 1x4x8x8 image with 6x4x3x3 weights: 6*8*8*4*9 = 13824 MACs.
  GraphBuilder b(13);
  const ValueId conv = b.op(OpKind::Conv, "conv",
                            {b.floats("img", {1, 4, 8, 8}, pseudoRandom(256, 1)),
                             b.floats("w", {6, 4, 3, 3}, pseudoRandom(216, 2))},
                            attrs({{"pads", Dims{1, 1, 1, 1}}}));
  // MatMul [3, 5] x [5, 7]: 105 MACs; Gemm [2, 3] x [3, 4]: 24 MACs.
  const ValueId mm = b.op(
      OpKind::MatMul, "mm",
      {b.floats("a", {3, 5}, pseudoRandom(15, 3)), b.floats("bm", {5, 7}, pseudoRandom(35, 4))});
  const ValueId gemm = b.op(
      OpKind::Gemm, "gemm",
      {b.floats("ga", {2, 3}, pseudoRandom(6, 5)), b.floats("gb", {3, 4}, pseudoRandom(12, 6))});
  b.g.outputs = {conv, mm, gemm};
  inferShapes(b.g);
  GraphBuilder copy = b;
  EXPECT_EQ(foldConstants(b.g, FoldOptions{.maxMacs = 104}), 1u); // only the Gemm
  EXPECT_EQ(b.g.numNodes(), 2u);
  EXPECT_TRUE(b.g.value(gemm).constant);
  EXPECT_EQ(foldConstants(b.g, FoldOptions{.maxMacs = 13823}), 1u); // now the MatMul
  EXPECT_TRUE(b.g.value(mm).constant);
  EXPECT_FALSE(b.g.value(conv).constant);
  EXPECT_EQ(foldConstants(b.g, FoldOptions{.maxMacs = 13824}), 1u);
  ASSERT_TRUE(b.g.value(conv).constant);
  // The folded values are the executor's: run the unfolded copy and compare bit for bit.
  const std::vector<Tensor> expected = runGraph(copy.g, {});
  EXPECT_EQ(*b.g.value(conv).constant, expected[0]);
  EXPECT_EQ(*b.g.value(mm).constant, expected[1]);
  EXPECT_EQ(*b.g.value(gemm).constant, expected[2]);
}

TEST(ConstantFolding, OutOfMemoryIsAnErrorNamingTheNode) {
  GraphBuilder b(13);
  const ValueId sig = b.op(OpKind::Sigmoid, "sig", {b.floats("z", {0.0f})});
  b.g.outputs = {sig};
  inferShapes(b.g);
  FoldOptions options;
  options.evaluate = [](const Graph&, NodeId,
                        const std::vector<const Tensor*>&) -> std::vector<Tensor> {
    throw std::bad_alloc();
  };
  EXPECT_EQ(errorOf([&] { foldConstants(b.g, options); }),
            "model.onnx: node 'sig' (Sigmoid, opset 13): out of memory while folding this "
            "all-constant node at compile time");
  EXPECT_EQ(errorKindOf([&] { foldConstants(b.g, options); }), ErrorKind::Unsupported);
  // The evaluator is what folding uses: a substitute's result becomes the constant.
  options.evaluate = [](const Graph&, NodeId, const std::vector<const Tensor*>&) {
    return std::vector<Tensor>{Tensor::fromVector<float>({1}, {42.0f})};
  };
  EXPECT_EQ(foldConstants(b.g, options), 1u);
  EXPECT_EQ(b.g.value(sig).constant->data<float>()[0], 42.0f);
}
