// Tests for shape/dtype inference of every op, the static folding of shape arithmetic
// (Shape -> Gather -> Unsqueeze -> Concat -> Reshape becomes a static Reshape) and the error
// paths (zero dimensions, non-constant shape inputs, mismatched ranks, ...). Expected shapes are
// hand-computed; the MatMul/Resize/Slice/Pad ones were also checked with onnx 1.12.
#include "nnaccel/ir/ShapeInference.h"

#include "GraphBuilder.h"

#include <gtest/gtest.h>

using namespace nnaccel;
using namespace nnaccel::ir;
using namespace nnaccel::ir::test;

namespace {
const Value& inferred(GraphBuilder& b, ValueId v) {
  inferShapes(b.g);
  return b.g.value(v);
}
std::vector<int64_t> constantValues(const Graph& g, ValueId v) {
  EXPECT_TRUE(g.value(v).constant) << g.value(v).name << " was not folded";
  return g.value(v).constant ? g.value(v).constant->toInt64Vector() : std::vector<int64_t>{};
}
} // namespace

TEST(ShapeInference, SmallCnn) {
  GraphBuilder b(13);
  const ValueId x = b.input("x", {1, 3, 32, 32});
  ValueId y =
      b.op(OpKind::Conv, "conv", {x, b.floats("w", {8, 3, 3, 3}, std::vector<float>(216, 0.1f))},
           attrs({{"pads", Dims{1, 1, 1, 1}}, {"strides", Dims{2, 2}}}));
  y = b.op(OpKind::BatchNormalization, "bn",
           {y, b.input("s", {8}), b.input("bb", {8}), b.input("m", {8}), b.input("v", {8})});
  y = b.op(OpKind::Relu, "relu", {y});
  const ValueId pool = b.op(OpKind::MaxPool, "pool", {y},
                            attrs({{"kernel_shape", Dims{2, 2}}, {"strides", Dims{2, 2}}}));
  y = b.op(OpKind::GlobalAveragePool, "gap", {pool});
  y = b.op(OpKind::Flatten, "flat", {y});
  y = b.op(OpKind::Gemm, "fc", {y, b.input("fw", {10, 8}), b.input("fb", {10})},
           attrs({{"transB", int64_t{1}}}));
  y = b.op(OpKind::Softmax, "prob", {y});
  b.g.outputs = {y};
  inferShapes(b.g);
  EXPECT_EQ(b.g.value(*b.g.findValue("conv")).shape, (Dims{1, 8, 16, 16}));
  EXPECT_EQ(b.g.value(*b.g.findValue("relu")).shape, (Dims{1, 8, 16, 16}));
  EXPECT_EQ(b.g.value(pool).shape, (Dims{1, 8, 8, 8}));
  EXPECT_EQ(b.g.value(*b.g.findValue("gap")).shape, (Dims{1, 8, 1, 1}));
  EXPECT_EQ(b.g.value(*b.g.findValue("flat")).shape, (Dims{1, 8}));
  EXPECT_EQ(b.g.value(y).shape, (Dims{1, 10}));
  EXPECT_EQ(b.g.value(y).dtype, DType::F32);
  EXPECT_FALSE(b.g.value(y).constant);
}

TEST(ShapeInference, NodesOutOfOrderAreSortedFirst) {
  GraphBuilder b;
  const ValueId x = b.input("x", {2, 3});
  const ValueId mid = b.g.addValue("mid", DType::F32);
  Node second;
  second.op = OpKind::Tanh;
  second.name = "second";
  second.inputs = {mid};
  second.outputs = {b.g.addValue("out", DType::F32)};
  b.g.addNode(second);
  Node first;
  first.op = OpKind::Relu;
  first.name = "first";
  first.inputs = {x};
  first.outputs = {mid};
  b.g.addNode(first);
  EXPECT_EQ(inferred(b, *b.g.findValue("out")).shape, (Dims{2, 3}));
  EXPECT_EQ(b.g.node(0).name, "first");
}

TEST(ShapeInference, ActivationsAndPRelu) {
  GraphBuilder b(17);
  const ValueId x = b.input("x", {1, 3, 4, 4});
  std::vector<ValueId> outs;
  for (OpKind k :
       {OpKind::Relu, OpKind::LeakyRelu, OpKind::Sigmoid, OpKind::HardSigmoid, OpKind::HardSwish,
        OpKind::Tanh, OpKind::Elu, OpKind::Selu, OpKind::Softplus, OpKind::Clip}) {
    outs.push_back(b.op(k, std::string(opName(k)), {x}));
  }
  outs.push_back(
      b.op(OpKind::PRelu, "prelu", {x, b.floats("slope", {3, 1, 1}, {0.1f, 0.2f, 0.3f})}));
  inferShapes(b.g);
  for (ValueId v : outs) {
    EXPECT_EQ(b.g.value(v).shape, (Dims{1, 3, 4, 4})) << b.g.value(v).name;
    EXPECT_EQ(b.g.value(v).dtype, DType::F32);
  }
}

TEST(ShapeInference, IntegerClampsAndMaxPoolKeepTheirDType) {
  // What the reference executor runs on integers: Relu/Clip on s8/u8/s32/s64, max pooling and
  // global max pooling on s8/u8; the output has the input's dtype.
  GraphBuilder b(13);
  std::vector<std::pair<ValueId, DType>> outs;
  for (DType t : {DType::I8, DType::U8, DType::I32, DType::I64}) {
    const auto named = [t](const char* prefix) {
      std::string name(prefix);
      name += dtypeName(t);
      return name;
    };
    const ValueId x = b.input(named("x"), {1, 2, 4, 4}, t);
    outs.emplace_back(b.op(OpKind::Relu, named("relu"), {x}), t);
    outs.emplace_back(b.op(OpKind::Clip, named("clip"), {x}), t);
    if (t == DType::I8 || t == DType::U8) {
      outs.emplace_back(b.op(OpKind::MaxPool, named("pool"), {x},
                             attrs({{"kernel_shape", Dims{2, 2}}, {"strides", Dims{2, 2}}})),
                        t);
      outs.emplace_back(b.op(OpKind::GlobalMaxPool, named("gmp"), {x}), t);
    }
  }
  inferShapes(b.g);
  for (const auto& [v, t] : outs) {
    EXPECT_EQ(b.g.value(v).dtype, t) << b.g.value(v).name;
  }
  EXPECT_EQ(b.g.value(outs[2].first).shape, (Dims{1, 2, 2, 2}));
  EXPECT_EQ(b.g.value(outs[3].first).shape, (Dims{1, 2, 1, 1}));
}

TEST(ShapeInference, BroadcastingBinaryAndMatMul) {
  GraphBuilder b(13);
  const ValueId add = b.op(OpKind::Add, "add", {b.input("a", {2, 1, 4}), b.input("b", {3, 1})});
  const ValueId mm1 =
      b.op(OpKind::MatMul, "mm1", {b.input("m1a", {2, 3, 4}), b.input("m1b", {4, 5})});
  const ValueId mm2 = b.op(OpKind::MatMul, "mm2", {b.input("m2a", {4}), b.input("m2b", {2, 4, 5})});
  const ValueId mm3 =
      b.op(OpKind::MatMul, "mm3", {b.input("m3a", {2, 1, 3, 4}), b.input("m3b", {5, 4, 3})});
  const ValueId mm4 = b.op(OpKind::MatMul, "mm4", {b.input("m4a", {3}), b.input("m4b", {3})});
  const ValueId mm5 = b.op(OpKind::MatMul, "mm5", {b.input("m5a", {6, 3}), b.input("m5b", {3})});
  inferShapes(b.g);
  EXPECT_EQ(b.g.value(add).shape, (Dims{2, 3, 4}));
  EXPECT_EQ(b.g.value(mm1).shape, (Dims{2, 3, 5}));
  EXPECT_EQ(b.g.value(mm2).shape, (Dims{2, 5}));
  EXPECT_EQ(b.g.value(mm3).shape, (Dims{2, 5, 3, 3}));
  EXPECT_EQ(b.g.value(mm4).shape, (Dims{}));
  EXPECT_EQ(b.g.value(mm5).shape, (Dims{6}));
}

TEST(ShapeInference, DataMovementOps) {
  GraphBuilder b(13);
  const ValueId x = b.input("x", {2, 3, 4});
  const ValueId cat =
      b.op(OpKind::Concat, "cat", {x, b.input("x2", {2, 5, 4})}, attrs({{"axis", int64_t{-2}}}));
  const ValueId flat0 = b.op(OpKind::Flatten, "flat0", {x}, attrs({{"axis", int64_t{0}}}));
  const ValueId flatm1 = b.op(OpKind::Flatten, "flatm1", {x}, attrs({{"axis", int64_t{-1}}}));
  const ValueId tr = b.op(OpKind::Transpose, "tr", {x});
  const ValueId tr2 = b.op(OpKind::Transpose, "tr2", {x}, attrs({{"perm", Dims{1, 0, 2}}}));
  const ValueId rs = b.op(OpKind::Reshape, "rs", {x, b.ints("shape", {4, 0, -1})});
  const ValueId sq = b.op(OpKind::Squeeze, "sq", {b.input("ones", {1, 3, 1, 5})});
  const ValueId usq = b.op(OpKind::Unsqueeze, "usq", {x, b.ints("axes", {-1, 0})});
  const ValueId pad =
      b.op(OpKind::Pad, "pad",
           {b.input("img", {1, 3, 4, 5}), b.ints("pads", {0, 0, 1, 2, 0, 0, 1, -1})});
  const ValueId d2s = b.op(OpKind::DepthToSpace, "d2s", {b.input("deep", {1, 8, 2, 3})},
                           attrs({{"blocksize", int64_t{2}}}));
  const ValueId id = b.op(OpKind::Identity, "id", {x});
  const ValueId gather =
      b.op(OpKind::Gather, "gather",
           {b.input("table", {5, 4, 3}),
            b.constant("idx", Tensor::fromVector<int64_t>({2, 3}, {0, 1, 2, 3, 2, 1}))},
           attrs({{"axis", int64_t{1}}}));
  const ValueId gather2 =
      b.op(OpKind::Gather, "gather2",
           {b.input("table2", {5, 4}), b.constant("i0", Tensor::scalar<int64_t>(-1))});
  const ValueId slice =
      b.op(OpKind::Slice, "slice",
           {b.input("big", {20, 10, 5}), b.ints("st", {20, 10, 4}), b.ints("en", {0, 0, 1}),
            b.ints("ax", {0, 1, 2}), b.ints("sp", {-1, -3, -2})});
  inferShapes(b.g);
  EXPECT_EQ(b.g.value(cat).shape, (Dims{2, 8, 4}));
  EXPECT_EQ(b.g.value(flat0).shape, (Dims{1, 24}));
  EXPECT_EQ(b.g.value(flatm1).shape, (Dims{6, 4}));
  EXPECT_EQ(b.g.value(tr).shape, (Dims{4, 3, 2}));
  EXPECT_EQ(b.g.value(tr2).shape, (Dims{3, 2, 4}));
  EXPECT_EQ(b.g.value(rs).shape, (Dims{4, 3, 2}));
  EXPECT_EQ(b.g.value(sq).shape, (Dims{3, 5}));
  EXPECT_EQ(b.g.value(usq).shape, (Dims{1, 2, 3, 4, 1}));
  EXPECT_EQ(b.g.value(pad).shape, (Dims{1, 3, 6, 6}));
  EXPECT_EQ(b.g.value(d2s).shape, (Dims{1, 2, 4, 6}));
  EXPECT_EQ(b.g.value(id).shape, (Dims{2, 3, 4}));
  EXPECT_EQ(b.g.value(gather).shape, (Dims{5, 2, 3, 3}));
  EXPECT_EQ(b.g.value(gather2).shape, (Dims{4}));
  EXPECT_EQ(b.g.value(slice).shape, (Dims{19, 3, 2}));
}

TEST(ShapeInference, ResizeUpsampleDropoutCast) {
  GraphBuilder b;
  const ValueId x = b.input("x", {1, 1, 4, 4});
  const ValueId up =
      b.op(OpKind::Resize, "up", {x, b.floats("roi", {}), b.floats("s", {1, 1, 2, 2})}, {}, 13);
  const ValueId sz =
      b.op(OpKind::Resize, "sz", {x, kNoValue, kNoValue, b.ints("sizes", {1, 1, 7, 8})},
           attrs({{"mode", std::string("linear")}}), 13);
  const ValueId u7 =
      b.op(OpKind::Upsample, "u7", {x}, attrs({{"scales", std::vector<float>{1, 1, 2, 3}}}), 7);
  const NodeId drop13 = b.node(OpKind::Dropout, "drop13", {x}, {"d13", "mask13"}, {}, 13);
  const NodeId drop7 =
      b.node(OpKind::Dropout, "drop7", {x}, {"d7", "mask7"}, attrs({{"ratio", 0.5f}}), 7);
  const ValueId cast = b.op(OpKind::Cast, "cast", {x}, attrs({{"to", int64_t{6}}}));
  inferShapes(b.g);
  EXPECT_EQ(b.g.value(up).shape, (Dims{1, 1, 8, 8}));
  EXPECT_EQ(b.g.value(sz).shape, (Dims{1, 1, 7, 8}));
  EXPECT_EQ(b.g.value(u7).shape, (Dims{1, 1, 8, 12}));
  EXPECT_EQ(b.g.value(b.g.node(drop13).outputs[1]).dtype, DType::Bool);
  EXPECT_EQ(b.g.value(b.g.node(drop13).outputs[1]).shape, (Dims{1, 1, 4, 4}));
  EXPECT_EQ(b.g.value(b.g.node(drop7).outputs[1]).dtype, DType::F32);
  EXPECT_EQ(b.g.value(b.g.node(drop7).outputs[0]).shape, (Dims{1, 1, 4, 4}));
  EXPECT_EQ(b.g.value(cast).dtype, DType::I32);
  EXPECT_EQ(b.g.value(cast).shape, (Dims{1, 1, 4, 4}));
}

// --- static folding of shape arithmetic ----------------------------------------------------------

TEST(ShapeFolding, ShapeGatherUnsqueezeConcatReshapeBecomesStatic) {
  // The PyTorch flatten export: x.view(x.size(0), -1).
  GraphBuilder b(13);
  const ValueId x = b.input("x", {2, 3, 4, 5});
  const ValueId shape = b.op(OpKind::Shape, "shape", {x});
  const ValueId batch =
      b.op(OpKind::Gather, "batch", {shape, b.constant("zero", Tensor::scalar<int64_t>(0))});
  const ValueId batch1 = b.op(OpKind::Unsqueeze, "batch1", {batch, b.ints("axes", {0})});
  const ValueId target = b.op(OpKind::Concat, "target", {batch1, b.ints("minus1", {-1})},
                              attrs({{"axis", int64_t{0}}}));
  const ValueId y = b.op(OpKind::Reshape, "flat", {x, target});
  b.g.outputs = {y};
  inferShapes(b.g);
  EXPECT_EQ(constantValues(b.g, shape), (std::vector<int64_t>{2, 3, 4, 5}));
  EXPECT_EQ(b.g.value(batch).shape, (Dims{}));
  EXPECT_EQ(constantValues(b.g, batch), (std::vector<int64_t>{2}));
  EXPECT_EQ(constantValues(b.g, batch1), (std::vector<int64_t>{2}));
  EXPECT_EQ(constantValues(b.g, target), (std::vector<int64_t>{2, -1}));
  EXPECT_EQ(b.g.value(y).shape, (Dims{2, 60}));
  EXPECT_FALSE(b.g.value(y).constant); // x is runtime data
}

TEST(ShapeFolding, IntegerArithmeticCastSliceAndConstantOfShape) {
  GraphBuilder b(15);
  const ValueId x = b.input("x", {1, 3, 8, 6});
  const ValueId hw = b.op(OpKind::Shape, "hw", {x}, attrs({{"start", int64_t{2}}}));
  const ValueId twice = b.op(OpKind::Mul, "twice", {hw, b.ints("two", {2})});
  const ValueId half = b.op(OpKind::Div, "half", {b.ints("neg", {-7, 7}), b.ints("two2", {2})});
  const ValueId diff =
      b.op(OpKind::Sub, "diff", {twice, b.constant("one", Tensor::scalar<int64_t>(1))});
  const ValueId sum = b.op(OpKind::Add, "sum",
                           {b.constant("i32a", Tensor::fromVector<int32_t>({2}, {1, 2})),
                            b.constant("i32b", Tensor::scalar<int32_t>(40))});
  const ValueId asFloat = b.op(OpKind::Cast, "asfloat", {hw}, attrs({{"to", int64_t{1}}}));
  const ValueId scaled = b.op(OpKind::Mul, "scaled", {asFloat, b.floats("scale", {1.5f})});
  const ValueId rev = b.op(OpKind::Slice, "rev",
                           {b.ints("seq", {0, 1, 2, 3, 4, 5}), b.ints("st", {-1}),
                            b.ints("en", {std::numeric_limits<int64_t>::min()}), b.ints("ax", {0}),
                            b.ints("sp", {-2})});
  const ValueId filled = b.op(OpKind::ConstantOfShape, "filled", {b.ints("dims", {2, 2})},
                              attrs({{"value", Tensor::fromVector<int64_t>({1}, {7})}}));
  const ValueId zeros = b.op(OpKind::ConstantOfShape, "zeros", {b.ints("dims2", {3})});
  const ValueId sq = b.op(OpKind::Squeeze, "sq", {b.ints("single", {9})});
  const ValueId ident = b.op(OpKind::Identity, "ident", {hw});
  const ValueId g2 =
      b.op(OpKind::Gather, "g2",
           {b.constant("mat", Tensor::fromVector<int64_t>({2, 3}, {1, 2, 3, 4, 5, 6})),
            b.ints("cols", {2, 0})},
           attrs({{"axis", int64_t{1}}}));
  const NodeId constNode =
      b.node(OpKind::Constant, "k", {}, {"k"}, attrs({{"value_ints", Dims{4, 5}}}));
  inferShapes(b.g);
  EXPECT_EQ(constantValues(b.g, hw), (std::vector<int64_t>{8, 6}));
  EXPECT_EQ(constantValues(b.g, twice), (std::vector<int64_t>{16, 12}));
  EXPECT_EQ(constantValues(b.g, half), (std::vector<int64_t>{-3, 3})); // truncation toward zero
  EXPECT_EQ(constantValues(b.g, diff), (std::vector<int64_t>{15, 11}));
  EXPECT_EQ(b.g.value(sum).dtype, DType::I32);
  EXPECT_EQ(constantValues(b.g, sum), (std::vector<int64_t>{41, 42}));
  ASSERT_TRUE(b.g.value(scaled).constant);
  EXPECT_EQ(b.g.value(scaled).constant->data<float>()[0], 12.0f);
  EXPECT_EQ(b.g.value(scaled).constant->data<float>()[1], 9.0f);
  EXPECT_EQ(constantValues(b.g, rev), (std::vector<int64_t>{5, 3, 1}));
  EXPECT_EQ(b.g.value(filled).shape, (Dims{2, 2}));
  EXPECT_EQ(constantValues(b.g, filled), (std::vector<int64_t>{7, 7, 7, 7}));
  ASSERT_TRUE(b.g.value(zeros).constant);
  EXPECT_EQ(b.g.value(zeros).dtype, DType::F32);
  EXPECT_EQ(b.g.value(zeros).constant->data<float>()[2], 0.0f);
  EXPECT_EQ(b.g.value(sq).shape, (Dims{}));
  EXPECT_EQ(constantValues(b.g, sq), (std::vector<int64_t>{9}));
  EXPECT_EQ(constantValues(b.g, ident), (std::vector<int64_t>{8, 6}));
  EXPECT_EQ(b.g.value(g2).shape, (Dims{2, 2}));
  EXPECT_EQ(constantValues(b.g, g2), (std::vector<int64_t>{3, 1, 6, 4}));
  EXPECT_EQ(constantValues(b.g, b.g.node(constNode).outputs[0]), (std::vector<int64_t>{4, 5}));
}

TEST(ShapeFolding, LargeFloatTensorsAreLeftToTheConstantFoldingPass) {
  GraphBuilder b(13);
  const ValueId big = b.floats("w", {8192}, std::vector<float>(8192, 1.0f));
  const ValueId rs = b.op(OpKind::Reshape, "rs", {big, b.ints("shape", {64, -1})});
  const ValueId mul = b.op(OpKind::Mul, "mul", {big, big});
  const ValueId small =
      b.op(OpKind::Reshape, "small",
           {b.floats("w2", {2, 3}, {1, 2, 3, 4, 5, 6}), b.ints("shape2", {3, 2})});
  inferShapes(b.g);
  EXPECT_EQ(b.g.value(rs).shape, (Dims{64, 128}));
  EXPECT_FALSE(b.g.value(rs).constant);
  EXPECT_FALSE(b.g.value(mul).constant);
  ASSERT_TRUE(b.g.value(small).constant);
  EXPECT_EQ(b.g.value(small).constant->shape(), (Dims{3, 2}));
  EXPECT_EQ(b.g.value(small).constant->data<float>()[5], 6.0f);
}

// --- errors --------------------------------------------------------------------------------------

TEST(ShapeInferenceErrors, ZeroDimensionsAndGraphInputs) {
  {
    GraphBuilder b(13);
    b.op(OpKind::Slice, "empty", {b.input("x", {4}), b.ints("st", {3}), b.ints("en", {1})});
    EXPECT_EQ(errorOf([&] { inferShapes(b.g); }),
              "model.onnx: node 'empty' (Slice, opset 13): output 'empty' has shape 0; "
              "zero-sized dimensions are not supported");
    EXPECT_EQ(errorKindOf([&] { inferShapes(b.g); }), ErrorKind::Unsupported);
  }
  {
    GraphBuilder b;
    const ValueId x = b.g.addValue("x", DType::F32);
    b.g.inputs = {x};
    EXPECT_EQ(errorOf([&] { inferShapes(b.g); }),
              "model.onnx: graph input 'x' has no static shape");
    EXPECT_EQ(errorKindOf([&] { inferShapes(b.g); }), ErrorKind::Unsupported);
  }
  {
    GraphBuilder b;
    b.input("x", {1, 0, 3});
    EXPECT_EQ(errorOf([&] { inferShapes(b.g); }),
              "model.onnx: graph input 'x' has shape 1x0x3; dimensions must be positive and at "
              "most 2147483647");
  }
}

TEST(ShapeInferenceErrors, NonConstantShapeInputs) {
  GraphBuilder b(13);
  const ValueId x = b.input("x", {2, 3});
  const ValueId s = b.input("target", {2}, DType::I64);
  b.op(OpKind::Reshape, "reshape", {x, s});
  EXPECT_EQ(
      errorOf([&] { inferShapes(b.g); }),
      "model.onnx: node 'reshape' (Reshape, opset 13): shape input 'target' is not a constant");
  EXPECT_EQ(errorKindOf([&] { inferShapes(b.g); }), ErrorKind::Unsupported);

  GraphBuilder c(13);
  c.op(OpKind::ConstantOfShape, "cos", {c.input("dims", {2}, DType::I64)});
  EXPECT_EQ(errorOf([&] { inferShapes(c.g); }),
            "model.onnx: node 'cos' (ConstantOfShape, opset 13): shape input 'dims' is not a "
            "constant");
}

TEST(ShapeInferenceErrors, InvalidNodes) {
  const auto check = [](const std::function<void(GraphBuilder&)>& build, const std::string& msg) {
    GraphBuilder b(13);
    build(b);
    EXPECT_EQ(errorOf([&] { inferShapes(b.g); }), msg);
  };
  check(
      [](GraphBuilder& b) {
        b.op(OpKind::Conv, "conv3", {b.input("x", {1, 64, 8, 8}), b.input("w", {16, 21, 3, 3})},
             attrs({{"group", int64_t{3}}}));
      },
      "model.onnx: node 'conv3' (Conv, opset 13): group=3 does not divide input channels=64");
  check(
      [](GraphBuilder& b) {
        b.op(OpKind::Add, "add", {b.input("a", {2, 3}), b.input("b", {2, 3}, DType::I64)});
      },
      "model.onnx: node 'add' (Add, opset 13): input dtypes differ: f32 and s64");
  check(
      [](GraphBuilder& b) {
        b.op(OpKind::Add, "add", {b.input("a", {2, 3}), b.input("b", {4, 3})});
      },
      "model.onnx: node 'add' (Add, opset 13): cannot broadcast shapes 2x3 and 4x3");
  check(
      [](GraphBuilder& b) {
        b.op(OpKind::MatMul, "mm", {b.input("a", {2, 3}), b.input("b", {4, 5})});
      },
      "model.onnx: node 'mm' (MatMul, opset 13): inner dimensions differ: 2x3 and 4x5");
  check(
      [](GraphBuilder& b) {
        b.op(OpKind::MatMul, "mm", {b.input("a", {2, 3, 4}), b.input("b", {3, 4, 5})});
      },
      "model.onnx: node 'mm' (MatMul, opset 13): cannot broadcast shapes 2 and 3");
  check(
      [](GraphBuilder& b) {
        b.op(OpKind::Concat, "cat", {b.input("a", {2, 3}), b.input("b", {3, 3})},
             attrs({{"axis", int64_t{1}}}));
      },
      "model.onnx: node 'cat' (Concat, opset 13): input 'b' of shape 3x3 does not match 2x3 "
      "outside axis 1");
  check(
      [](GraphBuilder& b) {
        b.op(OpKind::Gather, "g", {b.input("a", {3, 2}), b.ints("i", {0, 3})});
      },
      "model.onnx: node 'g' (Gather, opset 13): index 3 is out of range for axis 0 of extent 3");
  check(
      [](GraphBuilder& b) {
        b.op(OpKind::Gather, "g", {b.input("a", {3, 2}), b.floats("i", {0})});
      },
      "model.onnx: node 'g' (Gather, opset 13): indices 'i' must be s32 or s64, found f32");
  check(
      [](GraphBuilder& b) {
        b.op(OpKind::PRelu, "prelu", {b.input("x", {1, 3, 4, 4}), b.input("s", {2, 1, 1, 1})});
      },
      "model.onnx: node 'prelu' (PRelu, opset 13): slope 's' of shape 2x1x1x1 does not broadcast "
      "to "
      "the input shape 1x3x4x4");
  check([](GraphBuilder& b) { b.op(OpKind::Sigmoid, "sigmoid", {b.input("x", {4}, DType::I64)}); },
        "model.onnx: node 'sigmoid' (Sigmoid, opset 13): input 'x' has dtype s64; this op supports "
        "f32 only");
  check(
      [](GraphBuilder& b) {
        b.op(OpKind::MaxPool, "pool", {b.input("x", {1, 1, 4, 4}, DType::I32)},
             attrs({{"kernel_shape", Dims{2, 2}}}));
      },
      "model.onnx: node 'pool' (MaxPool, opset 13): input 'x' has dtype s32; this op supports "
      "f32 only");
  check(
      [](GraphBuilder& b) {
        b.op(OpKind::AveragePool, "avg", {b.input("x", {1, 1, 4, 4}, DType::U8)},
             attrs({{"kernel_shape", Dims{2, 2}}}));
      },
      "model.onnx: node 'avg' (AveragePool, opset 13): input 'x' has dtype u8; this op supports "
      "f32 only");
  check(
      [](GraphBuilder& b) {
        b.node(OpKind::Relu, "relu", {b.input("x", {4})}, {"y", "z"});
      },
      "model.onnx: node 'relu' (Relu, opset 13): node has 2 outputs, this op produces at most 1");
  check(
      [](GraphBuilder& b) {
        b.op(OpKind::Div, "div", {b.ints("a", {4}), b.ints("b", {0})});
      },
      "model.onnx: node 'div' (Div, opset 13): integer division by zero");
  check(
      [](GraphBuilder& b) {
        b.op(OpKind::ConstantOfShape, "cos", {b.ints("d", {2, -1})});
      },
      "model.onnx: node 'cos' (ConstantOfShape, opset 13): shape [2, -1] has a negative dimension");
  check(
      [](GraphBuilder& b) {
        b.node(OpKind::Dropout, "drop",
               {b.input("x", {4}), kNoValue, b.constant("t", Tensor::scalar(true))}, {"y"});
      },
      "model.onnx: node 'drop' (Dropout, opset 13): training_mode=true is not supported (inference "
      "only)");
  check(
      [](GraphBuilder& b) {
        b.node(OpKind::Dropout, "drop",
               {b.input("x", {4}), kNoValue, b.input("train", {}, DType::Bool)}, {"y"});
      },
      "model.onnx: node 'drop' (Dropout, opset 13): training_mode input 'train' is not a constant");
  check(
      [](GraphBuilder& b) {
        b.node(OpKind::Constant, "k", {}, {"k"}, attrs({{"value_string", std::string("hi")}}));
      },
      "model.onnx: node 'k' (Constant, opset 13): 'value_string': string constants are not "
      "supported");
  check(
      [](GraphBuilder& b) {
        b.op(OpKind::Conv, "conv", {b.input("x", {1, 1, 4, 4}), b.g.addValue("w", DType::F32)});
      },
      "model.onnx: node 'conv' (Conv, opset 13): input 'w' has no inferred shape");
}

TEST(ShapeInferenceErrors, AbsurdValuesAreRejectedWithoutOverflow) {
  const auto check = [](const std::function<void(GraphBuilder&)>& build, const std::string& msg) {
    GraphBuilder b(13);
    build(b);
    EXPECT_EQ(errorOf([&] { inferShapes(b.g); }), msg);
  };
  check(
      [](GraphBuilder& b) {
        b.op(OpKind::Conv, "conv", {b.input("x", {1, 1, 4, 4}), b.input("w", {1, 1, 1, 1})},
             attrs({{"strides", Dims{1000000000000, 1}}}));
      },
      "model.onnx: node 'conv' (Conv, opset 13): strides value 1000000000000 is too large");
  check(
      [](GraphBuilder& b) {
        b.op(OpKind::Reshape, "rs",
             {b.input("x", {2, 3, 4}), b.ints("s", {2147483647, 2147483647, 2147483647})});
      },
      "model.onnx: node 'rs' (Reshape, opset 13): cannot reshape 2x3x4 (24 elements) to "
      "[2147483647, 2147483647, 2147483647] (too many elements)");
  check(
      [](GraphBuilder& b) {
        b.op(OpKind::Resize, "up",
             {b.input("x", {1, 1, 2, 2}), kNoValue, kNoValue,
              b.ints("sz", {2147483647, 2147483647, 2147483647, 2147483647})});
      },
      "model.onnx: node 'up' (Resize, opset 13): output 'up' has shape "
      "2147483647x2147483647x2147483647x2147483647, more than the 2^32 elements per tensor "
      "nnaccel supports");
  check(
      [](GraphBuilder& b) {
        b.op(OpKind::Resize, "up",
             {b.input("x", {1, 1, 2, 2}), kNoValue, b.floats("s", {1, 1, 1e30f, 1})});
      },
      "model.onnx: node 'up' (Resize, opset 13): scale 1e+30 gives a too large output extent on "
      "axis 2");
  check(
      [](GraphBuilder& b) {
        b.input("x", {1, 4294967296});
      },
      "model.onnx: graph input 'x' has shape 1x4294967296; dimensions must be positive and at "
      "most 2147483647");

  // Integer shape arithmetic wraps like two's complement instead of overflowing.
  GraphBuilder b(13);
  const int64_t max = std::numeric_limits<int64_t>::max();
  const int64_t min = std::numeric_limits<int64_t>::min();
  const ValueId mul = b.op(OpKind::Mul, "mul", {b.ints("a", {max}), b.ints("two", {2})});
  const ValueId div = b.op(OpKind::Div, "div", {b.ints("m", {min}), b.ints("neg1", {-1})});
  const ValueId step = b.op(OpKind::Slice, "step",
                            {b.input("x", {20}), b.ints("st", {3}), b.ints("en", {max}),
                             b.ints("ax", {0}), b.ints("sp", {max})});
  inferShapes(b.g);
  EXPECT_EQ(b.g.value(mul).constant->toInt64Vector(), std::vector<int64_t>{-2});
  EXPECT_EQ(b.g.value(div).constant->toInt64Vector(), std::vector<int64_t>{min});
  EXPECT_EQ(b.g.value(step).shape, (Dims{1}));
}

TEST(ShapeInferenceErrors, RemainingParameterErrors) {
  struct Case {
    std::function<void(GraphBuilder&)> build;
    std::string message;
  };
  const std::vector<Case> cases = {
      {[](GraphBuilder& b) {
         b.op(OpKind::DepthToSpace, "d2s", {b.input("x", {1, 4, 2, 2})},
              attrs({{"blocksize", int64_t{2}}, {"mode", std::string("DRC")}}));
       },
       "node 'd2s' (DepthToSpace, opset 13): unknown mode 'DRC' (expected one of DCR, CRD)"},
      {[](GraphBuilder& b) {
         b.op(OpKind::DepthToSpace, "d2s", {b.input("x", {1, 4, 2, 2})},
              attrs({{"blocksize", int64_t{0}}}));
       },
       "node 'd2s' (DepthToSpace, opset 13): blocksize must be positive, got 0"},
      {[](GraphBuilder& b) {
         b.op(OpKind::DepthToSpace, "d2s", {b.input("x", {4, 2, 2})},
              attrs({{"blocksize", int64_t{2}}}));
       },
       "node 'd2s' (DepthToSpace, opset 13): input 'x' must be 4-D (N, C, H, W), found 4x2x2"},
      {[](GraphBuilder& b) {
         b.op(OpKind::BatchNormalization, "bn",
              {b.input("x", {1, 2}), b.input("s", {2}), b.input("bb", {2}), b.input("m", {2}),
               b.input("v", {2})},
              attrs({{"epsilon", -1.0f}}));
       },
       "node 'bn' (BatchNormalization, opset 13): epsilon must be >= 0, got -1"},
      {[](GraphBuilder& b) {
         b.op(OpKind::BatchNormalization, "bn",
              {b.input("x", {4}), b.input("s", {4}), b.input("bb", {4}), b.input("m", {4}),
               b.input("v", {4})});
       },
       "node 'bn' (BatchNormalization, opset 13): input 'x' must have rank >= 2 (N, C, ...), found "
       "4"},
      {[](GraphBuilder& b) {
         b.op(OpKind::Softmax, "sm", {b.constant("x", Tensor::scalar(1.0f))});
       },
       "node 'sm' (Softmax, opset 13): input 'x' must have rank >= 1"},
      {[](GraphBuilder& b) {
         b.op(OpKind::Upsample, "up", {b.input("x", {1, 1, 2, 2})}, {}, 7);
       },
       "node 'up' (Upsample, opset 7): missing required attribute 'scales'"},
      {[](GraphBuilder& b) {
         b.op(OpKind::Upsample, "up", {b.input("x", {1, 1, 2, 2}), b.floats("s", {1, 1, 2, 2})},
              attrs({{"scales", std::vector<float>{1, 1, 2, 2}}}), 7);
       },
       "node 'up' (Upsample, opset 7): scales is an attribute, not an input, before opset 9"},
      {[](GraphBuilder& b) {
         b.op(OpKind::Upsample, "up", {b.input("x", {1, 1, 2, 2}), b.ints("s", {1, 1, 2, 2})}, {},
              9);
       },
       "node 'up' (Upsample, opset 9): scales must be a float tensor, found s64"},
      {[](GraphBuilder& b) {
         b.op(OpKind::Resize, "rs",
              {b.input("x", {1, 1, 2, 2}), b.floats("roi", {0, 1}), kNoValue,
               b.ints("sz", {1, 1, 3, 3})},
              attrs({{"coordinate_transformation_mode", std::string("tf_crop_and_resize")}}));
       },
       "node 'rs' (Resize, opset 13): roi has 2 values, expected 8 (starts and ends per axis)"},
      {[](GraphBuilder& b) {
         b.op(OpKind::Resize, "rs",
              {b.input("x", {1, 1, 2, 2}), kNoValue, kNoValue, b.ints("sz", {3, 3})});
       },
       "node 'rs' (Resize, opset 13): sizes [3, 3] has 2 values, expected 4 (one per axis)"},
      {[](GraphBuilder& b) {
         b.op(OpKind::Resize, "rs",
              {b.input("x", {1, 1, 2, 2}), kNoValue, kNoValue, b.ints("sz", {1, 1, 0, 3})});
       },
       "node 'rs' (Resize, opset 13): sizes must be positive, got [1, 1, 0, 3]"},
      {[](GraphBuilder& b) {
         b.op(OpKind::Pad, "pad",
              {b.input("x", {2, 2}), b.ints("p", {0, 0, 0, 0}), b.floats("v", {1, 2})});
       },
       "node 'pad' (Pad, opset 13): constant_value must be a scalar, found shape 2"},
      {[](GraphBuilder& b) {
         b.op(OpKind::Pad, "pad", {b.input("x", {2, 2}), b.ints("p", {0, 0, 0, 0})}, {}, 7);
       },
       "node 'pad' (Pad, opset 7): pads is an attribute, not an input, before opset 11"},
      {[](GraphBuilder& b) {
         b.op(OpKind::Pad, "pad", {b.input("x", {2, 2})}, {}, 7);
       },
       "node 'pad' (Pad, opset 7): missing required attribute 'pads'"},
      {[](GraphBuilder& b) {
         b.op(OpKind::Slice, "sl", {b.input("x", {4}), b.ints("st", {0}), b.ints("en", {2})}, {},
              9);
       },
       "node 'sl' (Slice, opset 9): starts and ends are attributes, not inputs, before opset 10"},
      {[](GraphBuilder& b) {
         b.op(OpKind::Slice, "sl", {b.input("x", {4})}, attrs({{"starts", Dims{0}}}), 9);
       },
       "node 'sl' (Slice, opset 9): missing required attribute 'ends'"},
      {[](GraphBuilder& b) {
         b.op(OpKind::Clip, "clip", {b.input("x", {4}), b.constant("lo", Tensor::scalar(0.0f))}, {},
              7);
       },
       "node 'clip' (Clip, opset 7): min and max are attributes, not inputs, before opset 11"},
      {[](GraphBuilder& b) {
         b.op(OpKind::Reshape, "rs",
              {b.input("x", {2, 2}), b.constant("s", Tensor::fromVector<int64_t>({1, 2}, {4, 1}))});
       },
       "node 'rs' (Reshape, opset 13): shape must be 1-D, found shape 1x2"},
      {[](GraphBuilder& b) {
         b.op(OpKind::Concat, "cat", {}, attrs({{"axis", int64_t{0}}}));
       },
       "node 'cat' (Concat, opset 13): Concat needs at least one input"},
      {[](GraphBuilder& b) {
         b.op(OpKind::Concat, "cat", {b.input("a", {2}), b.input("b", {2}, DType::I64)},
              attrs({{"axis", int64_t{0}}}));
       },
       "node 'cat' (Concat, opset 13): input 'b' has dtype s64, expected f32"},
      {[](GraphBuilder& b) {
         b.op(OpKind::ConstantOfShape, "cos", {b.ints("d", {2})},
              attrs({{"value", Tensor::fromVector<float>({2}, {1, 2})}}));
       },
       "node 'cos' (ConstantOfShape, opset 13): attribute 'value' must hold one element, found "
       "shape 2"},
      {[](GraphBuilder& b) {
         b.node(OpKind::Constant, "k", {}, {"k"},
                attrs({{"value_int", int64_t{1}}, {"value_float", 1.0f}}));
       },
       "node 'k' (Constant, opset 13): constant must have exactly one value attribute, found 2"},
      {[](GraphBuilder& b) {
         b.op(OpKind::MatMul, "mm", {b.input("a", {2}), b.constant("b", Tensor::scalar(1.0f))});
       },
       "node 'mm' (MatMul, opset 13): MatMul operands must have rank >= 1, found 2 and scalar"},
      {[](GraphBuilder& b) {
         b.op(OpKind::Conv, "conv", {b.input("x", {1, 1, 4, 4}), b.input("w", {1, 1, 1, 1})},
              attrs({{"pads", Dims{1, 1, 1, 1}}, {"auto_pad", std::string("VALID")}}));
       },
       "node 'conv' (Conv, opset 13): pads [1, 1, 1, 1] cannot be combined with auto_pad=VALID"},
  };
  for (const Case& c : cases) {
    GraphBuilder b(13);
    c.build(b);
    EXPECT_EQ(errorOf([&] { inferShapes(b.g); }), "model.onnx: " + c.message);
  }
}

TEST(ShapeInferenceErrors, RanksAboveTheKernelLimitAreUnsupported) {
  // MatMul and Concat run on oneDNN, whose tensors have at most 12 dimensions.
  const Dims rank12(12, 1);
  Dims rank13(13, 1);
  rank13.back() = 2;
  GraphBuilder ok(13);
  const ValueId y12 = ok.op(OpKind::MatMul, "mm", {ok.input("a", rank12), ok.input("b", rank12)});
  ok.g.outputs = {y12};
  EXPECT_EQ(inferred(ok, y12).shape, rank12);

  GraphBuilder mm(13);
  mm.op(OpKind::MatMul, "mm", {mm.input("a", rank13), mm.input("b", {2, 3})});
  EXPECT_EQ(errorOf([&] { inferShapes(mm.g); }),
            "model.onnx: node 'mm' (MatMul, opset 13): input 'a' of shape "
            "1x1x1x1x1x1x1x1x1x1x1x1x2: rank 13 exceeds the 12 dimensions nnaccel supports");
  EXPECT_EQ(errorKindOf([&] { inferShapes(mm.g); }), ErrorKind::Unsupported);
  // The second operand is checked too (a rank-13 B broadcasts A to rank 13).
  GraphBuilder mmB(13);
  mmB.op(OpKind::MatMul, "mm", {mmB.input("a", {1, 2}), mmB.input("b", rank13)});
  EXPECT_EQ(errorOf([&] { inferShapes(mmB.g); }),
            "model.onnx: node 'mm' (MatMul, opset 13): input 'b' of shape "
            "1x1x1x1x1x1x1x1x1x1x1x1x2: rank 13 exceeds the 12 dimensions nnaccel supports");

  GraphBuilder cat(13);
  cat.op(OpKind::Concat, "cat", {cat.input("a", rank13), cat.input("b", rank13)},
         attrs({{"axis", int64_t{0}}}));
  EXPECT_EQ(errorOf([&] { inferShapes(cat.g); }),
            "model.onnx: node 'cat' (Concat, opset 13): input 'a' of shape "
            "1x1x1x1x1x1x1x1x1x1x1x1x2: rank 13 exceeds the 12 dimensions nnaccel supports");
}

TEST(ShapeInferenceErrors, TensorsAbove2To32ElementsAreUnsupported) {
  // ConstantOfShape of 10^12 elements (4 TB of f32): rejected before anything allocates it.
  GraphBuilder huge(13);
  huge.op(OpKind::ConstantOfShape, "cos", {huge.ints("dims", {1000000, 1000000})});
  EXPECT_EQ(errorOf([&] { inferShapes(huge.g); }),
            "model.onnx: node 'cos' (ConstantOfShape, opset 13): output 'cos' has shape "
            "1000000x1000000, more than the 2^32 elements per tensor nnaccel supports");
  EXPECT_EQ(errorKindOf([&] { inferShapes(huge.g); }), ErrorKind::Unsupported);
  // Exactly 2^32 elements is accepted (and not folded: far above the folding limit).
  GraphBuilder limit(13);
  const ValueId y = limit.op(OpKind::ConstantOfShape, "cos", {limit.ints("dims", {65536, 65536})});
  EXPECT_EQ(inferred(limit, y).shape, (Dims{65536, 65536}));
  EXPECT_FALSE(limit.g.value(y).constant);

  GraphBuilder input(13);
  input.op(OpKind::Relu, "relu", {input.input("x", {65536, 65537})});
  EXPECT_EQ(errorOf([&] { inferShapes(input.g); }),
            "model.onnx: graph input 'x' has shape 65536x65537, more than the 2^32 elements per "
            "tensor nnaccel supports");
  EXPECT_EQ(errorKindOf([&] { inferShapes(input.g); }), ErrorKind::Unsupported);
}

TEST(ShapeInference, DeclaredOutputTypesMustAgree) {
  // y = Gemm(x[1,8], w[10,8]^T): 1x10 f32.
  const auto model = [](std::optional<Dims> shape, std::optional<DType> dtype) {
    GraphBuilder b(13);
    const ValueId y = b.op(OpKind::Gemm, "fc", {b.input("x", {1, 8}), b.input("w", {10, 8})},
                           attrs({{"transB", int64_t{1}}}));
    b.g.value(y).declaredShape = std::move(shape);
    b.g.value(y).declaredDType = dtype;
    b.g.outputs = {y};
    return b;
  };
  const auto error = [](GraphBuilder b) { return errorOf([&] { inferShapes(b.g); }); };
  // Agreement: exact, with unknown dims, or nothing declared.
  EXPECT_EQ(error(model(Dims{1, 10}, DType::F32)), "<no error>");
  EXPECT_EQ(error(model(Dims{-1, 10}, std::nullopt)), "<no error>");
  EXPECT_EQ(error(model(Dims{-1, -1}, DType::F32)), "<no error>");
  EXPECT_EQ(error(model(std::nullopt, std::nullopt)), "<no error>");
  // Disagreement names the output and its producer.
  const std::string ctx = "model.onnx: node 'fc' (Gemm, opset 13): ";
  EXPECT_EQ(error(model(Dims{7, 7}, DType::F32)),
            ctx + "output 'fc' is declared 7x7 but infers to 1x10");
  EXPECT_EQ(error(model(Dims{-1, 11}, std::nullopt)),
            ctx + "output 'fc' is declared ?x11 but infers to 1x10");
  EXPECT_EQ(error(model(Dims{1, 10, 1}, std::nullopt)),
            ctx + "output 'fc' is declared 1x10x1 but infers to 1x10");
  EXPECT_EQ(error(model(Dims{}, std::nullopt)),
            ctx + "output 'fc' is declared scalar but infers to 1x10");
  EXPECT_EQ(error(model(Dims{1, 10}, DType::I64)),
            ctx + "output 'fc' is declared s64 but infers to f32");
  GraphBuilder kind = model(Dims{7, 7}, std::nullopt);
  EXPECT_EQ(errorKindOf([&] { inferShapes(kind.g); }), ErrorKind::Model);

  // An output with no producing node (a graph input passed through) is named with the file.
  GraphBuilder passThrough(13);
  const ValueId x = passThrough.input("x", {2, 3});
  passThrough.g.value(x).declaredShape = Dims{3, 2};
  passThrough.g.outputs = {x};
  EXPECT_EQ(errorOf([&] { inferShapes(passThrough.g); }),
            "model.onnx: output 'x' is declared 3x2 but infers to 2x3");
}

TEST(ShapeInference, ReductionsPowAndVariadicOpsRejectBadOperands) {
  GraphBuilder a(13);
  const ValueId x = a.input("x", {2, 3, 4});
  a.op(OpKind::ReduceMean, "dup", {x}, attrs({{"axes", Dims{1, -2}}}));
  EXPECT_EQ(errorOf([&] { inferShapes(a.g); }),
            "model.onnx: node 'dup' (ReduceMean, opset 13): axes [1, -2] contain a duplicate");

  GraphBuilder b(13);
  const ValueId y = b.input("y", {2, 3});
  b.op(OpKind::Pow, "pow", {y, b.input("e", {3}, DType::Bool)});
  EXPECT_EQ(errorOf([&] { inferShapes(b.g); }),
            "model.onnx: node 'pow' (Pow, opset 13): exponent 'e' is bool");

  GraphBuilder c(13);
  c.op(OpKind::Sum, "mixed", {c.input("f", {2}), c.input("i", {2}, DType::I64)});
  EXPECT_EQ(errorOf([&] { inferShapes(c.g); }),
            "model.onnx: node 'mixed' (Sum, opset 13): input dtypes differ: f32 and s64");

  GraphBuilder d(13);
  d.op(OpKind::Mean, "ints", {d.input("j", {2}, DType::I64), d.input("k", {2}, DType::I64)});
  EXPECT_NE(errorOf([&] { inferShapes(d.g); }).find("node 'ints' (Mean, opset 13)"),
            std::string::npos);
}

TEST(ShapeInference, NormalizationsInferTheirOutputsAndRejectBadParameters) {
  // LayerNormalization: the statistics outputs have the normalized axes set to 1.
  GraphBuilder ok(17);
  const ValueId x = ok.input("x", {2, 3, 4});
  const NodeId ln = ok.node(OpKind::LayerNormalization, "ln",
                            {x, ok.floats("s", {3, 4}, std::vector<float>(12, 1.0f))},
                            {"y", "mean", "inv"}, attrs({{"axis", int64_t{1}}}));
  inferShapes(ok.g);
  EXPECT_EQ(ok.value(ok.g.node(ln).outputs[0]).shape, (Dims{2, 3, 4}));
  EXPECT_EQ(ok.value(ok.g.node(ln).outputs[1]).shape, (Dims{2, 1, 1}));
  EXPECT_EQ(ok.value(ok.g.node(ln).outputs[2]).shape, (Dims{2, 1, 1}));

  const auto fails = [](OpKind op, std::vector<float> scale, AttrMap a, Dims shape = {1, 3, 4, 4},
                        int64_t opset = 17) {
    GraphBuilder b(opset);
    const ValueId in = b.input("x", shape);
    std::vector<ValueId> ins{in};
    if (op != OpKind::LRN) {
      const auto n = static_cast<int64_t>(scale.size());
      ins.push_back(b.floats("s", {n}, scale));
      if (op == OpKind::InstanceNormalization)
        ins.push_back(b.floats("b", {n}, scale));
    }
    b.op(op, "n", ins, std::move(a), opset);
    return errorOf([&] { inferShapes(b.g); });
  };
  EXPECT_EQ(fails(OpKind::LRN, {}, attrs({{"size", int64_t{0}}}), {1, 3, 4, 4}, 13),
            "model.onnx: node 'n' (LRN, opset 13): size must be positive, got 0");
  EXPECT_EQ(fails(OpKind::LRN, {}, attrs({{"size", int64_t{3}}}), {1, 3}, 13),
            "model.onnx: node 'n' (LRN, opset 13): input 'x' must have rank >= 3 (N, C, "
            "spatial...), found 1x3");
  EXPECT_EQ(fails(OpKind::InstanceNormalization, {1.0f, 1.0f}, {}, {1, 3, 4, 4}, 13),
            "model.onnx: node 'n' (InstanceNormalization, opset 13): 's' has shape 2, expected 3 "
            "(one per channel)");
  EXPECT_EQ(fails(OpKind::LayerNormalization, {1.0f, 1.0f, 1.0f}, {}),
            "model.onnx: node 'n' (LayerNormalization, opset 17): 's' has shape 3, which does not "
            "broadcast onto the normalized dims 4");
  EXPECT_EQ(fails(OpKind::LayerNormalization, {1.0f}, attrs({{"epsilon", -1.0f}})),
            "model.onnx: node 'n' (LayerNormalization, opset 17): epsilon must be finite and "
            "non-negative, got -1");
  EXPECT_EQ(fails(OpKind::LayerNormalization, {1.0f}, attrs({{"stash_type", int64_t{0}}})),
            "model.onnx: node 'n' (LayerNormalization, opset 17): stash_type other than 1 "
            "(float32 statistics) is not supported");
}
