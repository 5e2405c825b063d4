// Tests for the canonical operand forms: constants moved second in Add and Mul (not in Sub, Min
// or Max), dense MatMul as Gemm (not a batched or constant-by-tensor MatMul), results unchanged
// bit for bit, and the bias Add of a MatMul folded by the default pipeline.
#include "nnaccel/passes/CanonicalizeOperands.h"

#include "PassTestUtil.h"
#include "nnaccel/passes/Pipeline.h"

#include <gtest/gtest.h>

using namespace nnaccel;
using namespace nnaccel::ir;
using namespace nnaccel::ir::test;
using namespace nnaccel::passes;
using namespace nnaccel::passes::test;

TEST(CanonicalizeOperands, MovesConstantsSecondInAddAndMulOnly) {
  GraphBuilder b(13);
  const ValueId x = b.input("x", {2, 3});
  const ValueId c = b.constant("c", randomTensor({3}, 7));
  const ValueId m = b.op(OpKind::Mul, "mul", {c, x});
  const ValueId a = b.op(OpKind::Add, "add", {c, m});
  const ValueId s = b.op(OpKind::Sub, "sub", {c, a});
  const ValueId mx = b.op(OpKind::Max, "max", {c, s});
  b.g.outputs = {mx};
  inferShapes(b.g);
  Graph before = b.g;
  const Tensor in = randomTensor({2, 3}, 1);
  const std::vector<Tensor> ref = runGraph(before, {in});

  EXPECT_EQ(canonicalizeOperands(b.g), 2u);
  EXPECT_EQ(b.g.node(0).inputs, (std::vector<ValueId>{x, c}));
  EXPECT_EQ(b.g.node(1).inputs, (std::vector<ValueId>{m, c}));
  EXPECT_EQ(b.g.node(2).inputs, (std::vector<ValueId>{c, a})); // Sub does not commute
  EXPECT_EQ(b.g.node(3).inputs, (std::vector<ValueId>{c, s})); // Max: NaN order matters
  EXPECT_EQ(canonicalizeOperands(b.g), 0u);                    // idempotent
  EXPECT_EQ(maxAbsDiff(runGraph(b.g, {in})[0], ref[0]), 0.0f);
}

TEST(CanonicalizeOperands, DenseMatMulBecomesGemmAndTakesItsBias) {
  GraphBuilder b(9); // before opset 11 Gemm needs C: the rewritten node declares 11
  const ValueId x = b.input("x", {2, 5});
  const ValueId w = b.constant("w", randomTensor({5, 3}, 3));
  const ValueId y = b.op(OpKind::MatMul, "fc", {x, w});
  const ValueId z = b.op(OpKind::Add, "bias", {y, b.constant("b", randomTensor({3}, 4))});
  b.g.outputs = {z};
  inferShapes(b.g);
  Graph before = b.g;
  const Tensor in = randomTensor({2, 5}, 2);
  const std::vector<Tensor> ref = runGraph(before, {in});

  runDefaultPipeline(b.g);
  ASSERT_EQ(b.g.numNodes(), 1u);
  EXPECT_EQ(b.g.node(0).op, OpKind::Gemm);
  EXPECT_EQ(b.g.node(0).opset, 11);
  EXPECT_LE(maxAbsDiff(runGraph(b.g, {in})[0], ref[0]), 1e-6f);
}

TEST(CanonicalizeOperands, KeepsBatchedAndConstantLeftMatMul) {
  GraphBuilder b(13);
  const ValueId x = b.input("x", {2, 4, 5});
  const ValueId batched =
      b.op(OpKind::MatMul, "batched", {x, b.constant("w", randomTensor({5, 3}, 3))});
  const ValueId v = b.input("v", {5, 2});
  const ValueId left = b.op(OpKind::MatMul, "left", {b.constant("m", randomTensor({3, 5}, 5)), v});
  b.g.outputs = {batched, left};
  inferShapes(b.g);
  EXPECT_EQ(canonicalizeOperands(b.g), 0u);
  EXPECT_EQ(countOps(b.g, OpKind::MatMul), 2u);
}

TEST(CanonicalizeOperands, SplitBecomesSlicesKeepingItsOutputs) {
  for (const int64_t opset : {int64_t{11}, int64_t{13}}) {
    SCOPED_TRACE(opset);
    GraphBuilder b(opset);
    const ValueId x = b.input("x", {1, 7, 4});
    const ValueId r = b.op(OpKind::Relu, "relu", {x});
    AttrMap a = attrs({{"axis", int64_t{-2}}});
    std::vector<ValueId> ins{r};
    if (opset < 13)
      a.set("split", std::vector<int64_t>{2, 0, 5});
    else
      ins.push_back(b.ints("sizes", {2, 0, 5}));
    const NodeId split = b.node(OpKind::Split, "split", ins, {"p", "", "q"}, a);
    const ValueId p = b.g.node(split).outputs[0], q = b.g.node(split).outputs[2];
    const ValueId s = b.op(OpKind::Sigmoid, "sig", {q});
    b.g.outputs = {p, s};
    inferShapes(b.g);
    EXPECT_EQ(b.g.value(q).shape, (Dims{1, 5, 4}));
    Graph before = b.g;
    const Tensor in = randomTensor({1, 7, 4}, 3);
    const std::vector<Tensor> ref = runGraph(before, {in});

    EXPECT_EQ(canonicalizeOperands(b.g), 1u);
    EXPECT_EQ(countOps(b.g, OpKind::Split), 0u);
    EXPECT_EQ(countOps(b.g, OpKind::Slice), 2u); // the omitted output needs none
    EXPECT_EQ(b.g.node(b.g.value(q).producer).op, OpKind::Slice);
    EXPECT_EQ(b.g.outputs, (std::vector<ValueId>{p, s})); // the same values
    const std::vector<Tensor> got = runGraph(b.g, {in});
    for (size_t o = 0; o < 2; ++o)
      EXPECT_EQ(maxAbsDiff(got[o], ref[o]), 0.0f) << o;
  }
}

TEST(CanonicalizeOperands, SplitSizesThatDoNotFitAreModelErrors) {
  GraphBuilder b(13);
  const ValueId x = b.input("x", {5, 2});
  b.node(OpKind::Split, "halves", {x}, {"a", "b"});
  EXPECT_EQ(
      errorOf([&] { inferShapes(b.g); }),
      "model.onnx: node 'halves' (Split, opset 13): axis 0 of extent 5 does not split into 2 equal "
      "parts");
  GraphBuilder c(13);
  const ValueId y = c.input("y", {5, 2});
  c.node(OpKind::Split, "bad", {y, c.ints("sizes", {2, 2})}, {"a", "b"});
  EXPECT_EQ(errorOf([&] { inferShapes(c.g); }), "model.onnx: node 'bad' (Split, opset 13): split "
                                                "[2, 2] does not give 2 outputs summing to the "
                                                "extent 5 of axis 0");
}

TEST(CanonicalizeOperands, SpatialReduceMeanAndMaxAreGlobalPools) {
  GraphBuilder b(13);
  const ValueId x = b.input("x", {2, 3, 4, 5});
  const ValueId r = b.op(OpKind::Relu, "relu", {x});
  const ValueId mean = b.op(OpKind::ReduceMean, "mean", {r}, attrs({{"axes", Dims{-1, 2}}}));
  const ValueId flat =
      b.op(OpKind::ReduceMax, "max", {r}, attrs({{"axes", Dims{2, 3}}, {"keepdims", int64_t{0}}}));
  const ValueId chan = b.op(OpKind::ReduceMean, "chan", {r}, attrs({{"axes", Dims{1}}}));
  b.g.outputs = {mean, flat, chan};
  inferShapes(b.g);
  EXPECT_EQ(b.g.value(flat).shape, (Dims{2, 3}));
  EXPECT_EQ(b.g.value(chan).shape, (Dims{2, 1, 4, 5}));
  Graph before = b.g;
  const Tensor in = randomTensor({2, 3, 4, 5}, 9);
  const std::vector<Tensor> ref = runGraph(before, {in});

  EXPECT_EQ(canonicalizeOperands(b.g), 2u);
  EXPECT_EQ(countOps(b.g, OpKind::GlobalAveragePool), 1u);
  EXPECT_EQ(countOps(b.g, OpKind::GlobalMaxPool), 1u);
  EXPECT_EQ(countOps(b.g, OpKind::Reshape), 1u);    // keepdims 0
  EXPECT_EQ(countOps(b.g, OpKind::ReduceMean), 1u); // over channels: kept
  EXPECT_EQ(b.g.outputs, (std::vector<ValueId>{mean, flat, chan}));
  const std::vector<Tensor> got = runGraph(b.g, {in});
  for (size_t o = 0; o < 3; ++o)
    EXPECT_LE(maxAbsDiff(got[o], ref[o]), 1e-6f) << o;
}

TEST(CanonicalizeOperands, VariadicOpsBecomeChainsWithTheSameBits) {
  GraphBuilder b(13);
  const ValueId x = b.input("x", {2, 3});
  const ValueId y = b.input("y", {3});
  const ValueId z = b.input("z", {2, 1});
  const ValueId sum = b.op(OpKind::Sum, "sum", {x, y, z});
  const ValueId mean = b.op(OpKind::Mean, "mean", {x, y, z});
  const ValueId hi = b.op(OpKind::Max, "hi", {x, y, z});
  const ValueId one = b.op(OpKind::Min, "one", {x});
  b.g.outputs = {sum, mean, hi, one};
  inferShapes(b.g);
  EXPECT_EQ(b.g.value(sum).shape, (Dims{2, 3}));
  Graph before = b.g;
  const std::vector<Tensor> in{randomTensor({2, 3}, 1), randomTensor({3}, 2),
                               randomTensor({2, 1}, 3)};
  const std::vector<Tensor> ref = runGraph(before, in);

  EXPECT_EQ(canonicalizeOperands(b.g), 4u);
  for (OpKind op : {OpKind::Sum, OpKind::Mean})
    EXPECT_EQ(countOps(b.g, op), 0u);
  EXPECT_EQ(countOps(b.g, OpKind::Add), 4u); // two for Sum, two for Mean
  EXPECT_EQ(countOps(b.g, OpKind::Div), 1u);
  EXPECT_EQ(countOps(b.g, OpKind::Max), 2u);
  EXPECT_EQ(countOps(b.g, OpKind::Identity), 1u);
  EXPECT_EQ(b.g.outputs, (std::vector<ValueId>{sum, mean, hi, one}));
  const std::vector<Tensor> got = runGraph(b.g, in);
  for (size_t o = 0; o < ref.size(); ++o)
    EXPECT_EQ(maxAbsDiff(got[o], ref[o]), 0.0f) << o;
}
