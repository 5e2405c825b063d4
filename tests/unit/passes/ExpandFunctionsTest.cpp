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
