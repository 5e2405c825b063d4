// Tests for the parameter-input table and bindParameterInputs (src/ir/InputRoles.cpp): which
// node inputs are compile-time parameters, and how graph inputs that only feed parameters are
// turned into constants while data inputs, mixed-use inputs and graph outputs stay inputs.
#include "nnaccel/ir/InputRoles.h"

#include "GraphBuilder.h"
#include "nnaccel/ir/ShapeInference.h"

#include <gtest/gtest.h>

using namespace nnaccel;
using namespace nnaccel::ir;
using namespace nnaccel::ir::test;

TEST(InputRoles, ParameterSlotsPerOp) {
  // Data inputs are never parameters.
  for (OpKind op : allOps()) {
    if (op != OpKind::ConstantOfShape) {
      EXPECT_FALSE(isParameterInput(op, 0)) << opName(op);
    }
  }
  EXPECT_TRUE(isParameterInput(OpKind::ConstantOfShape, 0));
  for (OpKind op : {OpKind::Reshape, OpKind::Upsample, OpKind::Squeeze, OpKind::Unsqueeze}) {
    EXPECT_TRUE(isParameterInput(op, 1)) << opName(op);
    EXPECT_FALSE(isParameterInput(op, 2)) << opName(op);
  }
  for (OpKind op : {OpKind::Resize, OpKind::Pad, OpKind::Slice, OpKind::Clip, OpKind::Dropout}) {
    EXPECT_TRUE(isParameterInput(op, 1)) << opName(op);
    EXPECT_TRUE(isParameterInput(op, 3)) << opName(op);
  }
  // Weights, biases and the second operand of arithmetic are data.
  for (OpKind op : {OpKind::Conv, OpKind::ConvTranspose, OpKind::Gemm, OpKind::MatMul, OpKind::Add,
                    OpKind::PRelu, OpKind::BatchNormalization, OpKind::Gather, OpKind::Concat}) {
    EXPECT_FALSE(isParameterInput(op, 1)) << opName(op);
    EXPECT_FALSE(isParameterInput(op, 2)) << opName(op);
  }
}

TEST(InputRoles, BindParameterInputs) {
  GraphBuilder b(13);
  const ValueId x = b.input("x", {2, 3});
  const ValueId shape = b.input("shape", {2}, DType::I64); // only a Reshape shape: bound
  const ValueId pads = b.input("pads", {4}, DType::I64);   // a parameter and data: kept
  const ValueId echoed = b.input("axes", {1}, DType::I64); // a parameter and an output: kept
  const ValueId unused = b.input("unused", {1});           // no use at all: kept
  const ValueId reshaped = b.op(OpKind::Reshape, "reshape", {x, shape});
  const ValueId padded = b.op(OpKind::Pad, "pad", {x, pads});
  const ValueId padsCopy = b.op(OpKind::Identity, "pads_copy", {pads});
  const ValueId unsq = b.op(OpKind::Unsqueeze, "unsq", {x, echoed});
  b.g.outputs = {reshaped, padded, padsCopy, unsq, echoed};

  const std::vector<Tensor> values = {
      Tensor::fromVector<float>({2, 3}, {1, 2, 3, 4, 5, 6}),
      Tensor::fromVector<int64_t>({2}, {3, 2}),
      Tensor::fromVector<int64_t>({4}, {0, 1, 0, 1}),
      Tensor::fromVector<int64_t>({1}, {0}),
      Tensor::fromVector<float>({1}, {9}),
  };
  const std::vector<Tensor> runtime = bindParameterInputs(b.g, values);

  EXPECT_EQ(b.g.inputs, (std::vector<ValueId>{x, pads, echoed, unused}));
  ASSERT_EQ(runtime.size(), 4u);
  EXPECT_EQ(runtime[0], values[0]);
  EXPECT_EQ(runtime[1], values[2]);
  EXPECT_EQ(runtime[2], values[3]);
  EXPECT_EQ(runtime[3], values[4]);
  const Value& bound = b.g.value(shape);
  ASSERT_TRUE(bound.constant);
  EXPECT_EQ(*bound.constant, values[1]);
  EXPECT_TRUE(bound.shapeKnown);
  EXPECT_EQ(bound.shape, (Dims{2}));
  EXPECT_EQ(bound.dtype, DType::I64);
  EXPECT_FALSE(b.g.value(pads).constant);
  EXPECT_FALSE(b.g.value(echoed).constant);

  // The bound shape now makes the Reshape static; the Unsqueeze axes are still an input.
  EXPECT_EQ(errorOf([&] { inferShapes(b.g); }),
            "model.onnx: node 'pad' (Pad, opset 13): pads input 'pads' is not a constant");
}

TEST(InputRoles, BoundInputTakesTheGivenDtypeAndShape) {
  GraphBuilder b(13);
  const ValueId x = b.input("x", {4});
  const ValueId scales = b.input("scales", {1}); // declared [1], bound to a [1] tensor of 2.0
  const ValueId y = b.op(OpKind::Upsample, "up", {x, scales}, {}, 9);
  b.g.outputs = {y};
  const std::vector<Tensor> runtime = bindParameterInputs(
      b.g, {Tensor::fromVector<float>({4}, {1, 2, 3, 4}), Tensor::fromVector<float>({1}, {2.0f})});
  ASSERT_EQ(runtime.size(), 1u);
  EXPECT_EQ(b.g.inputs, (std::vector<ValueId>{x}));
  inferShapes(b.g);
  EXPECT_EQ(b.g.value(y).shape, (Dims{8}));
}
