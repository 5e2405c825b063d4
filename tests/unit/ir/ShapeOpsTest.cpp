// Tests for the shared shape-op helpers (src/ir/ShapeOps.cpp): checkedProduct, Squeeze/Unsqueeze
// shapes, the Shape op's value with start/end, Constant node decoding and ConstantOfShape, with
// every error message. Expected values are hand-computed from the ONNX operator specification.
#include "nnaccel/ir/ShapeOps.h"

#include "GraphBuilder.h"

#include <gtest/gtest.h>
#include <limits>

using namespace nnaccel;
using namespace nnaccel::ir;
using namespace nnaccel::ir::test;

TEST(CheckedProduct, ProductsLimitsAndOverflow) {
  const int64_t max = std::numeric_limits<int64_t>::max();
  EXPECT_EQ(checkedProduct(Dims{}, 10), 1);
  EXPECT_EQ(checkedProduct(Dims{2, 3, 4}, 24), 24);
  EXPECT_EQ(checkedProduct(Dims{2, 3, 4}, 23), std::nullopt);
  EXPECT_EQ(checkedProduct(Dims{0, max, max}, 10), 0); // an empty tensor never overflows
  EXPECT_EQ(checkedProduct(Dims{2, -1}, max), std::nullopt);
  // 2^32 * 2^32 = 2^64 overflows int64: detected before multiplying.
  EXPECT_EQ(checkedProduct(Dims{int64_t{1} << 32, int64_t{1} << 32}, max), std::nullopt);
  EXPECT_EQ(checkedProduct(Dims{int64_t{1} << 31, int64_t{1} << 31}, max), int64_t{1} << 62);
  const Dims dims{5, 6, 7};
  EXPECT_EQ(checkedProduct(std::span(dims).subspan(1), 100), 42);
}

TEST(ShapeOps, SqueezedAndUnsqueezedShapes) {
  EXPECT_EQ(squeezedShape({1, 3, 1, 5}, {0, 2}), (Dims{3, 5}));
  EXPECT_EQ(squeezedShape({1, 1}, {0, 1}), (Dims{}));
  EXPECT_EQ(squeezedShape({2, 3}, {}), (Dims{2, 3}));
  EXPECT_EQ(unsqueezedShape({3, 5}, {0, 2}), (Dims{1, 3, 1, 5}));
  EXPECT_EQ(unsqueezedShape({3, 5}, {2}), (Dims{3, 5, 1}));
  EXPECT_EQ(unsqueezedShape({}, {0}), (Dims{1}));
  // Round trip: unsqueezing the squeezed axes restores the shape.
  EXPECT_EQ(unsqueezedShape(squeezedShape({1, 4, 1, 2, 1}, {0, 2, 4}), {0, 2, 4}),
            (Dims{1, 4, 1, 2, 1}));
}

TEST(ShapeOps, ShapeOpValueWithStartAndEnd) {
  const auto shapeOf = [](int64_t opset, AttrMap a) {
    GraphBuilder b(opset);
    b.op(OpKind::Shape, "shape", {b.input("x", {2, 3, 4, 5})}, std::move(a));
    return shapeOpValue(b.g, 0, {2, 3, 4, 5}).toInt64Vector();
  };
  EXPECT_EQ(shapeOf(13, {}), (std::vector<int64_t>{2, 3, 4, 5}));
  EXPECT_EQ(shapeOf(15, attrs({{"start", int64_t{1}}})), (std::vector<int64_t>{3, 4, 5}));
  EXPECT_EQ(shapeOf(15, attrs({{"start", int64_t{-3}}, {"end", int64_t{-1}}})),
            (std::vector<int64_t>{3, 4}));
  // Clamped like Python slicing; start >= end gives an empty shape tensor.
  EXPECT_EQ(shapeOf(15, attrs({{"start", int64_t{-10}}, {"end", int64_t{10}}})),
            (std::vector<int64_t>{2, 3, 4, 5}));
  EXPECT_EQ(shapeOf(15, attrs({{"start", int64_t{3}}, {"end", int64_t{1}}})),
            (std::vector<int64_t>{}));
  GraphBuilder b(15);
  b.op(OpKind::Shape, "shape", {b.input("x", {2})}, attrs({{"start", 1.5f}}));
  EXPECT_EQ(errorOf([&] { shapeOpValue(b.g, 0, {2}); }),
            "model.onnx: node 'shape' (Shape, opset 15): 'start': attribute has type float, which "
            "this op does not accept");
  GraphBuilder scalar(13);
  scalar.op(OpKind::Shape, "shape", {scalar.input("s", {})});
  const Tensor t = shapeOpValue(scalar.g, 0, {}); // a scalar's shape is an empty s64 vector
  EXPECT_EQ(t.dtype(), DType::I64);
  EXPECT_EQ(t.shape(), (Dims{0}));
}

TEST(ShapeOps, ConstantNodeValues) {
  const ErrorContext ctx{.file = "m.onnx", .node = "k", .op = "Constant", .opset = 13};
  Tensor t = constantNodeValue(attrs({{"value", Tensor::fromVector<int32_t>({2}, {7, -7})}}), ctx);
  EXPECT_EQ(t, Tensor::fromVector<int32_t>({2}, {7, -7}));
  t = constantNodeValue(attrs({{"value_float", 2.5f}}), ctx);
  EXPECT_EQ(t, Tensor::scalar(2.5f));
  t = constantNodeValue(attrs({{"value_floats", std::vector<float>{1, 2}}}), ctx);
  EXPECT_EQ(t, Tensor::fromVector<float>({2}, {1, 2}));
  t = constantNodeValue(attrs({{"value_int", int64_t{-3}}}), ctx);
  EXPECT_EQ(t, Tensor::scalar(int64_t{-3}));
  t = constantNodeValue(attrs({{"value_ints", std::vector<int64_t>{4, 5, 6}}}), ctx);
  EXPECT_EQ(t, Tensor::fromVector<int64_t>({3}, {4, 5, 6}));

  const auto error = [&](const AttrMap& a) { return errorOf([&] { constantNodeValue(a, ctx); }); };
  const std::string prefix = "m.onnx: node 'k' (Constant, opset 13): ";
  EXPECT_EQ(error({}), prefix + "constant must have exactly one value attribute, found 0");
  EXPECT_EQ(error(attrs({{"value_int", int64_t{1}}, {"value_float", 1.0f}})),
            prefix + "constant must have exactly one value attribute, found 2");
  EXPECT_EQ(error(attrs({{"value_strings", std::vector<std::string>{"a"}}})),
            prefix + "'value_strings': string constants are not supported");
  EXPECT_EQ(errorKindOf([&] {
              constantNodeValue(attrs({{"value_string", std::string("a")}}), ctx);
            }),
            ErrorKind::Unsupported);
  EXPECT_EQ(error(attrs({{"sparse_value", int64_t{1}}})),
            prefix + "'sparse_value': is not a value attribute of Constant");
  EXPECT_EQ(error(attrs({{"value_int", 1.0f}})),
            prefix + "'value_int': has type float, which Constant does not accept");
  EXPECT_EQ(error(attrs({{"value", int64_t{1}}})),
            prefix + "'value': has type int, which Constant does not accept");

  // The graph overload takes the node's context.
  GraphBuilder b(13);
  b.node(OpKind::Constant, "k", {}, {"k"}, attrs({{"value_floats", std::vector<float>{}}}));
  EXPECT_EQ(constantNodeValue(b.g, 0).shape(), (Dims{0}));
  b.node(OpKind::Constant, "bad", {}, {"bad"}, {});
  EXPECT_EQ(errorOf([&] { constantNodeValue(b.g, 1); }),
            "model.onnx: node 'bad' (Constant, opset 13): constant must have exactly one value "
            "attribute, found 0");
}

TEST(ShapeOps, ConstantOfShape) {
  GraphBuilder b(13);
  const ValueId dims = b.ints("dims", {2, 3});
  b.op(OpKind::ConstantOfShape, "zeros", {dims});
  b.op(OpKind::ConstantOfShape, "sevens", {dims},
       attrs({{"value", Tensor::fromVector<int32_t>({1}, {7})}}));
  // Default fill: f32 zero.
  Tensor zeros = constantOfShapeValue(b.g, 0, *b.g.value(dims).constant);
  EXPECT_EQ(zeros, Tensor::fromVector<float>({2, 3}, std::vector<float>(6, 0.0f)));
  const ConstantOfShapeSpec spec = constantOfShapeSpec(b.g, 1, *b.g.value(dims).constant);
  EXPECT_EQ(spec.shape, (Dims{2, 3}));
  EXPECT_EQ(spec.fill, Tensor::scalar(int32_t{7})); // the [1] attribute becomes a scalar
  EXPECT_EQ(constantOfShapeValue(spec),
            Tensor::fromVector<int32_t>({2, 3}, std::vector<int32_t>(6, 7)));
  // An empty shape tensor gives a scalar; a zero dimension an empty tensor.
  EXPECT_EQ(constantOfShapeValue(b.g, 1, Tensor::fromVector<int64_t>({0}, {})),
            Tensor::scalar(int32_t{7}));
  EXPECT_EQ(constantOfShapeValue(b.g, 0, Tensor::fromVector<int64_t>({2}, {0, 4})).shape(),
            (Dims{0, 4}));

  const auto error = [&](NodeId id, const Tensor& shape) {
    return errorOf([&] { constantOfShapeSpec(b.g, id, shape); });
  };
  const std::string prefix = "model.onnx: node 'zeros' (ConstantOfShape, opset 13): ";
  EXPECT_EQ(error(0, Tensor::fromVector<int64_t>({2}, {2, -1})),
            prefix + "shape [2, -1] has a negative dimension");
  EXPECT_EQ(error(0, Tensor::fromVector<float>({1}, {2})),
            prefix + "shape must be an integer tensor, found f32");
  EXPECT_EQ(error(0, Tensor::fromVector<int64_t>({1, 1}, {2})),
            prefix + "shape must be 1-D, found shape 1x1");
  EXPECT_EQ(error(0, Tensor::fromVector<int64_t>({1}, {int64_t{1} << 40})),
            prefix + "shape value 1099511627776 is too large");
  b.op(OpKind::ConstantOfShape, "two", {dims},
       attrs({{"value", Tensor::fromVector<float>({2}, {1, 2})}}));
  EXPECT_EQ(error(2, *b.g.value(dims).constant),
            "model.onnx: node 'two' (ConstantOfShape, opset 13): attribute 'value' must hold one "
            "element, found shape 2");
  b.op(OpKind::ConstantOfShape, "typed", {dims}, attrs({{"value", 1.0f}}));
  EXPECT_EQ(error(3, *b.g.value(dims).constant),
            "model.onnx: node 'typed' (ConstantOfShape, opset 13): 'value': attribute has type "
            "float, which this op does not accept");
}
