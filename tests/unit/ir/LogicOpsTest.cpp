// Tests for the comparison, logical and broadcasting op values (src/ir/LogicOps.cpp) and their
// shape inference, folding and errors. Expected values are hand-computed from the ONNX operator
// specification (numpy broadcasting; comparisons with NaN are false).
#include "nnaccel/ir/LogicOps.h"

#include "GraphBuilder.h"
#include "nnaccel/ir/ShapeInference.h"

#include <gtest/gtest.h>
#include <limits>

using namespace nnaccel;
using namespace nnaccel::ir;
using namespace nnaccel::ir::test;

namespace {
std::vector<bool> bools(const Tensor& t) {
  EXPECT_EQ(t.dtype(), DType::Bool);
  return std::vector<bool>(t.data<bool>(), t.data<bool>() + t.numElements());
}
Tensor boolTensor(Dims shape, const std::vector<bool>& v) {
  Tensor t(DType::Bool, std::move(shape));
  for (size_t i = 0; i < v.size(); ++i)
    t.data<bool>()[i] = v[i];
  return t;
}
} // namespace

TEST(LogicOps, ComparisonsBroadcastAndTreatNaNAsUnordered) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const Tensor a = Tensor::fromVector<float>({2, 2}, {1, 2, nan, 4});
  const Tensor b = Tensor::fromVector<float>({2}, {2, 2});
  EXPECT_EQ(bools(compareValues(OpKind::Equal, a, b)), (std::vector<bool>{0, 1, 0, 0}));
  EXPECT_EQ(bools(compareValues(OpKind::Greater, a, b)), (std::vector<bool>{0, 0, 0, 1}));
  EXPECT_EQ(bools(compareValues(OpKind::Less, a, b)), (std::vector<bool>{1, 0, 0, 0}));
  EXPECT_EQ(bools(compareValues(OpKind::GreaterOrEqual, a, b)), (std::vector<bool>{0, 1, 0, 1}));
  EXPECT_EQ(bools(compareValues(OpKind::LessOrEqual, a, b)), (std::vector<bool>{1, 1, 0, 0}));
  // 64-bit integers compare exactly (2^53 + 1 is not representable as a double).
  const int64_t big = (int64_t{1} << 53) + 1;
  const Tensor i = Tensor::fromVector<int64_t>({2}, {big, -3});
  const Tensor j = Tensor::fromVector<int64_t>({2}, {big - 1, -3});
  EXPECT_EQ(bools(compareValues(OpKind::Equal, i, j)), (std::vector<bool>{0, 1}));
  EXPECT_EQ(compareValues(OpKind::Less, a, Tensor::fromVector<float>({3, 1, 1}, {0, 1, 2})).shape(),
            (Dims{3, 2, 2}));
}

TEST(LogicOps, NotAndOrXor) {
  const Tensor a = boolTensor({4}, {0, 0, 1, 1});
  const Tensor b = boolTensor({4}, {0, 1, 0, 1});
  EXPECT_EQ(bools(logicalValues(OpKind::Not, a, nullptr)), (std::vector<bool>{1, 1, 0, 0}));
  EXPECT_EQ(bools(logicalValues(OpKind::And, a, &b)), (std::vector<bool>{0, 0, 0, 1}));
  EXPECT_EQ(bools(logicalValues(OpKind::Or, a, &b)), (std::vector<bool>{0, 1, 1, 1}));
  EXPECT_EQ(bools(logicalValues(OpKind::Xor, a, &b)), (std::vector<bool>{0, 1, 1, 0}));
}

TEST(LogicOps, WhereExpandAndTile) {
  const Tensor c = boolTensor({2, 1}, {1, 0});
  const Tensor x = Tensor::fromVector<float>({3}, {1, 2, 3});
  const Tensor y = Tensor::fromVector<float>({1}, {-1});
  const Tensor w = whereValues(c, x, y);
  EXPECT_EQ(w.shape(), (Dims{2, 3}));
  EXPECT_EQ(w.castTo(DType::I64).toInt64Vector(), (std::vector<int64_t>{1, 2, 3, -1, -1, -1}));

  const Tensor e = expandValues(Tensor::fromVector<int64_t>({2, 1}, {7, 8}), {2, 2, 3});
  EXPECT_EQ(e.toInt64Vector(), (std::vector<int64_t>{7, 7, 7, 8, 8, 8, 7, 7, 7, 8, 8, 8}));

  const Tensor t = tileValues(Tensor::fromVector<int64_t>({2, 2}, {1, 2, 3, 4}), {2, 1});
  EXPECT_EQ(t.shape(), (Dims{4, 2}));
  EXPECT_EQ(t.toInt64Vector(), (std::vector<int64_t>{1, 2, 3, 4, 1, 2, 3, 4}));
  EXPECT_EQ(tileValues(Tensor::fromVector<int64_t>({2}, {5, 6}), {3}).toInt64Vector(),
            (std::vector<int64_t>{5, 6, 5, 6, 5, 6}));
}

TEST(LogicOps, BroadcastAllOfSeveralShapes) {
  EXPECT_EQ(broadcastAll({{2, 1}, {3}, {1, 1, 1}}), (Dims{1, 2, 3}));
  EXPECT_EQ(broadcastAll({{2}, {3}}), std::nullopt);
  EXPECT_EQ(broadcastAll({}), (Dims{}));
}

TEST(LogicOps, ShapeInferenceFoldsShapeArithmetic) {
  // PyTorch's Expand export: Where(Equal(shape, -1), 1, shape) computes the target shape.
  GraphBuilder b(13);
  const ValueId x = b.input("x", {3, 1});
  const ValueId shape = b.ints("shape", {-1, 4});
  const ValueId eq = b.op(OpKind::Equal, "eq", {shape, b.ints("minus1", {-1})});
  const ValueId target = b.op(OpKind::Where, "where", {eq, b.ints("one", {1}), shape});
  const ValueId out = b.op(OpKind::Expand, "expand", {x, target});
  const ValueId tiled = b.op(OpKind::Tile, "tile", {out, b.ints("reps", {2, 1})});
  const ValueId arg = b.op(OpKind::ArgMax, "arg", {tiled}, attrs({{"axis", int64_t{1}}}));
  const ValueId gt = b.op(OpKind::Greater, "gt", {x, b.floats("zero", {0})});
  b.op(OpKind::Not, "not", {gt});
  b.g.outputs = {tiled, arg};
  inferShapes(b.g);
  ASSERT_TRUE(b.value(target).constant);
  EXPECT_EQ(b.value(target).constant->toInt64Vector(), (std::vector<int64_t>{1, 4}));
  EXPECT_EQ(b.value(out).shape, (Dims{3, 4}));
  EXPECT_EQ(b.value(tiled).shape, (Dims{6, 4}));
  EXPECT_EQ(b.value(arg).shape, (Dims{6, 1}));
  EXPECT_EQ(b.value(arg).dtype, DType::I64);
  EXPECT_EQ(b.value(gt).dtype, DType::Bool);
}

TEST(LogicOps, ShapeInferenceNamesTheNodeAndReason) {
  auto error = [](OpKind op, std::vector<std::pair<Dims, DType>> ins,
                  std::vector<int64_t> param = {}) {
    GraphBuilder b(13);
    std::vector<ValueId> ids;
    for (size_t i = 0; i < ins.size(); ++i)
      ids.push_back(b.input("i" + std::to_string(i), ins[i].first, ins[i].second));
    if (!param.empty())
      ids.push_back(b.ints("p", param));
    b.op(op, "n", ids);
    return errorOf([&] { inferShapes(b.g); });
  };
  const DType f = DType::F32, i = DType::I64, t = DType::Bool;
  EXPECT_EQ(error(OpKind::Equal, {{{2}, f}, {{2}, i}}),
            "model.onnx: node 'n' (Equal, opset 13): inputs must share one numeric dtype, found "
            "f32 and s64");
  EXPECT_EQ(error(OpKind::Less, {{{2}, f}, {{3}, f}}).find("node 'n' (Less, opset 13)") !=
                std::string::npos,
            true);
  EXPECT_EQ(error(OpKind::And, {{{2}, t}, {{2}, f}}),
            "model.onnx: node 'n' (And, opset 13): input 'i1' has dtype f32; logical ops take "
            "bool");
  EXPECT_EQ(error(OpKind::Where, {{{2}, f}, {{2}, f}, {{2}, f}}),
            "model.onnx: node 'n' (Where, opset 13): condition 'i0' has dtype f32; it must be "
            "bool");
  EXPECT_EQ(error(OpKind::Where, {{{2}, t}, {{2}, f}, {{2}, i}}),
            "model.onnx: node 'n' (Where, opset 13): X and Y dtypes differ: f32 and s64");
  EXPECT_EQ(error(OpKind::Where, {{{2}, t}, {{3}, f}, {{3}, f}}),
            "model.onnx: node 'n' (Where, opset 13): shapes 2, 3 and 3 do not broadcast "
            "together");
  EXPECT_EQ(error(OpKind::Expand, {{{3}, f}}, {2, 2}),
            "model.onnx: node 'n' (Expand, opset 13): cannot expand 3 to [2, 2] (extents "
            "differ and neither is 1)");
  EXPECT_EQ(error(OpKind::Expand, {{{3}, f}}, {-2, 3}),
            "model.onnx: node 'n' (Expand, opset 13): shape [-2, 3] has the negative entry -2");
  EXPECT_EQ(error(OpKind::Tile, {{{3, 2}, f}}, {2}),
            "model.onnx: node 'n' (Tile, opset 13): repeats [2] has 1 entries for an input of "
            "rank 2");
  EXPECT_EQ(error(OpKind::Tile, {{{3}, f}}, {0}),
            "model.onnx: node 'n' (Tile, opset 13): repeats [0] has the entry 0; every count "
            "must be at least 1");
}
