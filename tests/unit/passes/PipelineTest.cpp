// Tests for the default pipeline on a small exported-style model: the result has no
// BatchNormalization, Identity, Dropout or shape-arithmetic nodes, a static Reshape, fusion
// marks, unchanged interface names, and computes the same outputs on the reference executor.
#include "nnaccel/passes/Pipeline.h"

#include "PassTestUtil.h"

#include <gtest/gtest.h>

using namespace nnaccel;
using namespace nnaccel::ir;
using namespace nnaccel::ir::test;
using namespace nnaccel::passes;
using namespace nnaccel::passes::test;

TEST(Pipeline, CleansUpAnExportedStyleModel) {
  GraphBuilder b(13);
  const ValueId x = b.input("input", {2, 3, 8, 8});
  ValueId y = b.op(OpKind::Conv, "conv1", {x, b.floats("w1", {4, 3, 3, 3}, pseudoRandom(108, 1))},
                   attrs({{"pads", Dims{1, 1, 1, 1}}, {"strides", Dims{2, 2}}}));
  y = b.op(OpKind::BatchNormalization, "bn1",
           {y, b.floats("g", pseudoRandom(4, 2)), b.floats("beta", pseudoRandom(4, 3)),
            b.floats("mu", pseudoRandom(4, 4)), b.floats("var", {0.5f, 1.0f, 1.5f, 2.0f})});
  y = b.op(OpKind::Relu, "relu1", {y});
  y = b.op(OpKind::Identity, "copy", {y});
  // x.view(x.size(0), -1)
  const ValueId shape = b.op(OpKind::Shape, "shape", {y});
  const ValueId n =
      b.op(OpKind::Gather, "n", {shape, b.constant("zero", Tensor::scalar<int64_t>(0))});
  const ValueId n1 = b.op(OpKind::Unsqueeze, "n1", {n, b.ints("axes", {0})});
  const ValueId target =
      b.op(OpKind::Concat, "target", {n1, b.ints("m1", {-1})}, attrs({{"axis", int64_t{0}}}));
  y = b.op(OpKind::Reshape, "flat", {y, target});
  // A weight computed by a float subgraph.
  const ValueId fcW =
      b.op(OpKind::Transpose, "fc_w", {b.floats("fc_wt", {64, 10}, pseudoRandom(640, 5))});
  y = b.op(OpKind::Gemm, "fc", {y, fcW, b.floats("fc_b", pseudoRandom(10, 6))},
           attrs({{"transB", int64_t{1}}}));
  y = b.op(OpKind::Dropout, "drop", {y});
  y = b.op(OpKind::Softmax, "output", {y});
  b.g.outputs = {y};

  Graph before = b.g;
  const Tensor input = randomTensor({2, 3, 8, 8}, 7);
  const std::vector<Tensor> ref = runGraph(before, {input});

  runDefaultPipeline(b.g);
  for (OpKind gone : {OpKind::BatchNormalization, OpKind::Identity, OpKind::Dropout, OpKind::Shape,
                      OpKind::Gather, OpKind::Unsqueeze, OpKind::Concat, OpKind::Transpose}) {
    EXPECT_EQ(countOps(b.g, gone), 0u) << opName(gone);
  }
  ASSERT_EQ(b.g.numNodes(), 5u); // conv1, relu1, flat, fc, output
  EXPECT_EQ(b.g.node(0).op, OpKind::Conv);
  ASSERT_TRUE(b.g.node(0).fusedActivation);
  EXPECT_EQ(b.g.node(b.g.node(0).fusedActivation->activationNode).name, "relu1");
  EXPECT_EQ(b.g.value(b.g.node(2).outputs[0]).shape, (Dims{2, 64}));
  EXPECT_EQ(b.g.value(b.g.outputs[0]).name, "output");
  EXPECT_EQ(b.g.value(b.g.inputs[0]).name, "input");

  const std::vector<Tensor> got = runGraph(b.g, {input});
  EXPECT_LE(maxAbsDiff(got[0], ref[0]), 1e-6f);
}

TEST(Pipeline, BatchNormAfterABiasAddOfAConvTransposeFolds) {
  // PaddlePaddle's upsampling: ConvTranspose without bias, Add of a [1, C, 1, 1] bias, then BN.
  GraphBuilder b(13);
  const ValueId x = b.input("x", {1, 4, 3, 3});
  const ValueId up =
      b.op(OpKind::ConvTranspose, "up", {x, b.floats("w", {4, 2, 2, 2}, pseudoRandom(32, 3))},
           attrs({{"strides", Dims{2, 2}}}));
  const ValueId biased =
      b.op(OpKind::Add, "bias", {up, b.floats("b", {1, 2, 1, 1}, {0.5f, -0.25f})});
  const ValueId y = b.op(OpKind::BatchNormalization, "bn",
                         {biased, b.floats("s", {1.5f, 0.5f}), b.floats("t", {0.1f, 0.2f}),
                          b.floats("m", {0.3f, -0.1f}), b.floats("v", {2.0f, 0.5f})});
  b.g.outputs = {y};
  inferShapes(b.g);
  Graph before = b.g;
  const Tensor in = randomTensor({1, 4, 3, 3}, 8);
  const std::vector<Tensor> ref = runGraph(before, {in});
  runDefaultPipeline(b.g);
  EXPECT_EQ(b.g.numNodes(), 1u);
  EXPECT_EQ(countOps(b.g, OpKind::ConvTranspose), 1u);
  EXPECT_LE(maxAbsDiff(runGraph(b.g, {in})[0], ref[0]), 1e-5f);
}

TEST(Pipeline, ReportsInvalidModels) {
  GraphBuilder b(13);
  const ValueId x = b.input("x", {1, 64, 8, 8});
  const ValueId y =
      b.op(OpKind::Conv, "conv3", {x, b.floats("w", {16, 21, 1, 1}, std::vector<float>(336, 0.0f))},
           attrs({{"group", int64_t{3}}}));
  b.g.outputs = {y};
  EXPECT_EQ(errorOf([&] { runDefaultPipeline(b.g); }),
            "model.onnx: node 'conv3' (Conv, opset 13): group=3 does not divide input channels=64");
}
