// Tests for writing LRN, InstanceNormalization, LayerNormalization and the composite reductions
// out as reductions and element-wise ops: each expansion computes what the direct reference
// kernel computes (within fp32 rounding of the intermediate steps), keeps the output names, and
// leaves none of the original ops; LayerNormalization's Mean and InvStdDev outputs are wired.
#include "nnaccel/passes/ExpandFunctions.h"

#include "PassTestUtil.h"
#include "nnaccel/ir/ShapeInference.h"

#include <gtest/gtest.h>

using namespace nnaccel;
using namespace nnaccel::ir;
using namespace nnaccel::ir::test;
using namespace nnaccel::passes;
using namespace nnaccel::passes::test;

namespace {

/// Expands \p b's graph and checks every output against the unexpanded graph on the executor
/// (relative to the output's magnitude), and that no node of \p op is left.
void expectSameAfterExpansion(GraphBuilder& b, const Dims& inputShape, OpKind op,
                              float tolerance = 2e-6f) {
  inferShapes(b.g);
  Graph before = b.g;
  const Tensor input = randomTensor(inputShape, 7);
  const std::vector<Tensor> ref = runGraph(before, {input});
  const std::vector<std::string> names = [&] {
    std::vector<std::string> n;
    for (ValueId v : b.g.outputs)
      n.push_back(b.g.value(v).name);
    return n;
  }();
  EXPECT_EQ(expandFunctions(b.g), 1u);
  EXPECT_EQ(countOps(b.g, op), 0u);
  for (size_t i = 0; i < b.g.outputs.size(); ++i)
    EXPECT_EQ(b.g.value(b.g.outputs[i]).name, names[i]);
  const std::vector<Tensor> got = runGraph(b.g, {input});
  ASSERT_EQ(got.size(), ref.size());
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_EQ(got[i].shape(), ref[i].shape()) << "output " << i;
    float scale = 1.0f;
    for (float v : ref[i].values<float>())
      scale = std::max(scale, std::fabs(v));
    EXPECT_LE(maxAbsDiff(got[i], ref[i]), tolerance * scale) << "output " << i;
  }
}

} // namespace

TEST(ExpandFunctions, CompositeReductionsMatchTheirDirectKernels) {
  for (OpKind op : {OpKind::ReduceL1, OpKind::ReduceL2, OpKind::ReduceSumSquare,
                    OpKind::ReduceLogSum, OpKind::ReduceLogSumExp}) {
    for (int64_t keep : {0, 1}) {
      SCOPED_TRACE(std::string(opName(op)) + " keepdims=" + std::to_string(keep));
      GraphBuilder b(13);
      ValueId x = b.input("x", {2, 3, 4, 5});
      if (op == OpKind::ReduceLogSum) // a positive sum to take the log of
        x = b.op(OpKind::Exp, "pos", {x});
      b.g.outputs = {
          b.op(op, "r", {x}, attrs({{"axes", std::vector<int64_t>{1, -1}}, {"keepdims", keep}}))};
      expectSameAfterExpansion(b, {2, 3, 4, 5}, op);
    }
  }
}

TEST(ExpandFunctions, LrnMatchesItsDirectKernelForOddAndEvenWindows) {
  for (int64_t size : {1, 2, 3, 5}) {
    SCOPED_TRACE("size " + std::to_string(size));
    GraphBuilder b(13);
    const ValueId x = b.input("x", {2, 7, 3, 4});
    b.g.outputs = {b.op(OpKind::LRN, "lrn", {x},
                        attrs({{"size", size}, {"alpha", 0.3f}, {"beta", 0.75f}, {"bias", 2.0f}}))};
    expectSameAfterExpansion(b, {2, 7, 3, 4}, OpKind::LRN);
  }
}

TEST(ExpandFunctions, InstanceNormalizationMatchesItsDirectKernel) {
  GraphBuilder b(13);
  const ValueId x = b.input("x", {2, 3, 5, 4});
  b.g.outputs = {b.op(OpKind::InstanceNormalization, "in",
                      {x, b.floats("s", pseudoRandom(3, 1)), b.floats("b", pseudoRandom(3, 2))},
                      attrs({{"epsilon", 1e-3f}}))};
  expectSameAfterExpansion(b, {2, 3, 5, 4}, OpKind::InstanceNormalization, 1e-5f);
}

TEST(ExpandFunctions, LayerNormalizationWiresItsStatisticsOutputs) {
  for (int64_t axis : {-1, 1}) {
    SCOPED_TRACE("axis " + std::to_string(axis));
    GraphBuilder b(17);
    const ValueId x = b.input("x", {2, 3, 6});
    const Dims affine = axis == -1 ? Dims{6} : Dims{3, 6};
    const int64_t n = numElements(affine);
    const NodeId ln = b.node(
        OpKind::LayerNormalization, "ln",
        {x, b.floats("s", affine, pseudoRandom(n, 3)), b.floats("b", affine, pseudoRandom(n, 4))},
        {"y", "mean", "inv"}, attrs({{"axis", axis}}), 17);
    b.g.outputs = b.g.node(ln).outputs;
    expectSameAfterExpansion(b, {2, 3, 6}, OpKind::LayerNormalization, 1e-5f);
  }
}

TEST(ExpandFunctions, ConstantInputsAndOtherOpsAreLeftToFolding) {
  GraphBuilder b(13);
  const ValueId c = b.floats("c", {2, 2}, {1.0f, 2.0f, 3.0f, 4.0f});
  b.g.outputs = {b.op(OpKind::ReduceL2, "r", {c}),
                 b.op(OpKind::ReduceProd, "p", {b.input("x", {3})})};
  inferShapes(b.g);
  EXPECT_EQ(expandFunctions(b.g), 0u);
  EXPECT_EQ(countOps(b.g, OpKind::ReduceL2), 1u);
  EXPECT_EQ(countOps(b.g, OpKind::ReduceProd), 1u);
}

// QLinearConv written out as ONNX defines it: the graph after expansion computes the same
// integer codes as the direct integer formula on this small case (a 1x1 convolution).
TEST(ExpandFunctions, QLinearConvBecomesDequantizeConvQuantize) {
  GraphBuilder b(13);
  const ValueId x = b.input("x", {1, 2, 1, 2}, DType::U8);
  auto scalar = [&](const std::string& name, Tensor t) { return b.constant(name, std::move(t)); };
  const NodeId id =
      b.node(OpKind::QLinearConv, "qc",
             {x, scalar("xs", Tensor::scalar(0.5f)), scalar("xz", Tensor::scalar(uint8_t{10})),
              scalar("w", Tensor::fromVector<int8_t>({1, 2, 1, 1}, {3, -2})),
              scalar("ws", Tensor::fromVector<float>({1}, {0.25f})),
              scalar("wz", Tensor::fromVector<int8_t>({1}, {0})),
              scalar("ys", Tensor::scalar(0.125f)), scalar("yz", Tensor::scalar(uint8_t{100})),
              scalar("bias", Tensor::fromVector<int32_t>({1}, {4}))},
             {"y"}, {}, 10);
  b.g.outputs = {b.g.node(id).outputs[0]};
  inferShapes(b.g);
  EXPECT_EQ(b.g.value(b.g.outputs[0]).dtype, DType::U8);
  EXPECT_EQ(expandFunctions(b.g), 1u);
  EXPECT_EQ(countOps(b.g, OpKind::QLinearConv), 0u);
  EXPECT_EQ(countOps(b.g, OpKind::Conv), 1u);
  EXPECT_EQ(countOps(b.g, OpKind::QuantizeLinear), 1u);
  // channel 0 codes (12, 8) are (1, -1), channel 1's (14, 16) are (2, 3); w is (0.75, -0.5),
  // the bias 4 * (0.5 * 0.25) = 0.5: y = 0.75 * c0 - 0.5 * c1 + 0.5 = (0.25, -1.75), codes
  // 0.25 / 0.125 + 100 = 102 and -1.75 / 0.125 + 100 = 86
  const Tensor in = Tensor::fromVector<uint8_t>({1, 2, 1, 2}, {12, 8, 14, 16});
  const Tensor y = reference::Executor(b.g).run({in})[0];
  EXPECT_EQ(y.data<uint8_t>()[0], 102);
  EXPECT_EQ(y.data<uint8_t>()[1], 86);
}

TEST(ExpandFunctions, QLinearScalesMustBeConstants) {
  GraphBuilder b(13);
  const ValueId x = b.input("x", {1, 1, 1, 1}, DType::U8);
  const ValueId xs = b.input("xs", {});
  const NodeId id =
      b.node(OpKind::QLinearMatMul, "qm",
             {x, xs, b.constant("xz", Tensor::scalar(uint8_t{0})),
              b.constant("w", Tensor::fromVector<uint8_t>({1, 1}, {1})),
              b.constant("ws", Tensor::scalar(1.0f)), b.constant("wz", Tensor::scalar(uint8_t{0})),
              b.constant("ys", Tensor::scalar(1.0f)), b.constant("yz", Tensor::scalar(uint8_t{0}))},
             {"y"}, {}, 10);
  b.g.outputs = {b.g.node(id).outputs[0]};
  inferShapes(b.g);
  EXPECT_EQ(errorOf([&] { expandFunctions(b.g); }),
            "model.onnx: node 'qm' (QLinearMatMul, opset 10): input 1 ('xs', a scale or zero "
            "point) is not a constant");
}
