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
