// Tests for the opset 1-6 -> 7 upgrade (src/frontend/LegacyOpsetUpgrade.cpp): every rewrite on
// small IR graphs as the importer builds them (legacy attributes still present, node opset =
// the file's), every rejection with its message, and that errors name the file's own opset.
#include "LegacyOpsetUpgrade.h"

#include "../../support/TensorValues.h"
#include "../ir/GraphBuilder.h"
#include "OnnxModelBuilder.h"
#include "nnaccel/ir/ShapeInference.h"

#include <gtest/gtest.h>

using namespace nnaccel;
using namespace nnaccel::ir;
using namespace nnaccel::ir::test;
using nnaccel::frontend::detail::upgradeLegacyOpset;

namespace {

/// A graph whose nodes are at legacy opset \p opset, as the importer leaves them.
GraphBuilder legacy(int64_t opset) {
  GraphBuilder b(opset);
  b.g.opsetVersion = opset;
  return b;
}

std::string upgradeError(GraphBuilder& b, int64_t opset) {
  return errorOf([&] { upgradeLegacyOpset(b.g, opset); });
}

using nnaccel::test::floatValues;

} // namespace

TEST(LegacyOpsetUpgrade, EveryNodeEndsAtOpset7AndInferred) {
  GraphBuilder b = legacy(6);
  const ValueId x = b.input("x", {1, 2, 3, 3});
  const ValueId r = b.op(OpKind::Relu, "relu", {x});
  const ValueId y = b.op(OpKind::Sigmoid, "sig", {r});
  b.g.outputs = {y};
  upgradeLegacyOpset(b.g, 6);
  EXPECT_EQ(b.g.opsetVersion, 7);
  EXPECT_EQ(b.g.sourceOpset, 6);
  for (const Node& n : b.g.nodes()) {
    EXPECT_EQ(n.opset, 7) << n.name;
  }
  EXPECT_TRUE(b.g.value(y).shapeKnown);
  EXPECT_EQ(b.g.value(y).shape, (Dims{1, 2, 3, 3}));
}

TEST(LegacyOpsetUpgrade, ConsumedInputsAreDroppedBeforeOpset6) {
  GraphBuilder b = legacy(5);
  const ValueId x = b.input("x", {4});
  b.op(OpKind::Relu, "relu", {x}, attrs({{"consumed_inputs", Dims{0}}}));
  upgradeLegacyOpset(b.g, 5);
  EXPECT_TRUE(b.g.node(0).attrs.empty());
}

TEST(LegacyOpsetUpgrade, Reshape1ShapeAttributeBecomesAConstantInput) {
  GraphBuilder b = legacy(1);
  const ValueId x = b.input("x", {2, 3, 4});
  const ValueId y = b.op(OpKind::Reshape, "reshape", {x}, attrs({{"shape", Dims{0, -1}}}));
  upgradeLegacyOpset(b.g, 1);
  const Node& n = b.g.node(0);
  ASSERT_EQ(n.inputs.size(), 2u);
  EXPECT_FALSE(n.attrs.has("shape"));
  const Value& shape = b.g.value(n.inputs[1]);
  EXPECT_EQ(shape.name, "reshape_shape");
  ASSERT_TRUE(shape.constant);
  EXPECT_EQ(*shape.constant, Tensor::fromVector<int64_t>({2}, {0, -1}));
  EXPECT_EQ(b.g.value(y).shape, (Dims{2, 12}));

  GraphBuilder both = legacy(1);
  both.op(OpKind::Reshape, "reshape", {both.input("x", {6}), both.ints("s", {2, 3})},
          attrs({{"shape", Dims{3, 2}}}));
  EXPECT_EQ(upgradeError(both, 1),
            "model.onnx: node 'reshape' (Reshape, opset 1): Reshape-1 has both a shape attribute "
            "and a shape input");
}

TEST(LegacyOpsetUpgrade, Pad1PaddingsAndConcat1DefaultAxis) {
  GraphBuilder b = legacy(1);
  const ValueId x = b.input("x", {1, 2});
  const ValueId p = b.op(OpKind::Pad, "pad", {x}, attrs({{"paddings", Dims{0, 1, 0, 2}}}));
  const ValueId c = b.op(OpKind::Concat, "cat", {x, x});
  const ValueId c0 = b.op(OpKind::Concat, "cat0", {x, x}, attrs({{"axis", int64_t{0}}}));
  upgradeLegacyOpset(b.g, 1);
  EXPECT_EQ(b.g.node(0).attrs.getInts("pads", {}), (Dims{0, 1, 0, 2}));
  EXPECT_FALSE(b.g.node(0).attrs.has("paddings"));
  EXPECT_EQ(b.g.value(p).shape, (Dims{1, 5}));
  EXPECT_EQ(b.g.node(1).attrs.getInt("axis", -1), 1); // the opset-1 default
  EXPECT_EQ(b.g.value(c).shape, (Dims{1, 4}));
  EXPECT_EQ(b.g.node(2).attrs.getInt("axis", -1), 0); // an explicit axis is kept
  EXPECT_EQ(b.g.value(c0).shape, (Dims{2, 2}));
}

TEST(LegacyOpsetUpgrade, LegacyBroadcastOfArithmetic) {
  GraphBuilder b = legacy(6);
  const ValueId a = b.input("a", {2, 3, 4});
  // Trailing alignment (axis = rank(A) - rank(B)): numpy broadcasting means the same.
  const ValueId tail = b.op(OpKind::Add, "tail", {a, b.input("t", {4})},
                            attrs({{"broadcast", int64_t{1}}, {"axis", int64_t{2}}}));
  // Middle axis: the constant gets trailing 1-dims. A negative axis counts from A's end.
  const ValueId mid = b.op(OpKind::Mul, "mid", {a, b.floats("c", {10, 20, 30})},
                           attrs({{"broadcast", int64_t{1}}, {"axis", int64_t{-2}}}));
  // broadcast without axis and broadcast=0 with an axis: attributes dropped, nothing else.
  const ValueId plain =
      b.op(OpKind::Sub, "plain", {a, b.input("u", {3, 4})}, attrs({{"broadcast", int64_t{1}}}));
  const ValueId off =
      b.op(OpKind::Div, "off", {a, a}, attrs({{"broadcast", int64_t{0}}, {"axis", int64_t{1}}}));
  upgradeLegacyOpset(b.g, 6);
  for (NodeId id = 0; id < 4; ++id) {
    EXPECT_TRUE(b.g.node(id).attrs.empty()) << b.g.node(id).name;
  }
  EXPECT_EQ(b.g.value(b.g.node(0).inputs[1]).name, "t");
  const Value& c = b.g.value(b.g.node(1).inputs[1]);
  EXPECT_EQ(c.name, "c_bcast");
  EXPECT_EQ(c.constant->shape(), (Dims{3, 1}));
  EXPECT_EQ(floatValues(*c.constant), (std::vector<float>{10, 20, 30}));
  EXPECT_EQ(floatValues(*b.g.value(*b.g.findValue("c")).constant),
            (std::vector<float>{10, 20, 30})); // the original stays for other users
  for (ValueId v : {tail, mid, plain, off}) {
    EXPECT_EQ(b.g.value(v).shape, (Dims{2, 3, 4}));
  }
}

TEST(LegacyOpsetUpgrade, LegacyBroadcastErrors) {
  GraphBuilder nonConst = legacy(6);
  nonConst.op(OpKind::Add, "add", {nonConst.input("a", {2, 3, 4}), nonConst.input("b", {3})},
              attrs({{"broadcast", int64_t{1}}, {"axis", int64_t{1}}}));
  EXPECT_EQ(upgradeError(nonConst, 6),
            "model.onnx: node 'add' (Add, opset 6): legacy broadcast of non-constant input 'b' at "
            "axis 1 has no opset-7 equivalent");
  EXPECT_EQ(errorKindOf([&] { upgradeLegacyOpset(nonConst.g, 6); }), ErrorKind::Unsupported);

  for (int64_t axis : {int64_t{2}, int64_t{-4}}) {
    GraphBuilder misfit = legacy(6);
    misfit.op(OpKind::Sub, "sub", {misfit.input("a", {2, 3}), misfit.floats("b", {1, 2})},
              attrs({{"broadcast", int64_t{1}}, {"axis", axis}}));
    EXPECT_EQ(upgradeError(misfit, 6),
              "model.onnx: node 'sub' (Sub, opset 6): legacy broadcast axis=" +
                  std::to_string(axis) + " does not fit input ranks 2 and 1");
    EXPECT_EQ(errorKindOf([&] { upgradeLegacyOpset(misfit.g, 6); }), ErrorKind::Model);
  }

  // The rewrite needs the operand ranks.
  GraphBuilder unknown = legacy(6);
  const ValueId shapeless = unknown.g.addValue("s", DType::F32);
  unknown.g.inputs.push_back(shapeless);
  unknown.op(OpKind::Add, "add", {unknown.input("a", {2, 3}), shapeless},
             attrs({{"broadcast", int64_t{1}}, {"axis", int64_t{0}}}));
  EXPECT_EQ(upgradeError(unknown, 6),
            "model.onnx: node 'add' (Add, opset 6): the shape of input 's' is unknown, so the "
            "opset-6 node cannot be converted to opset 7");
}

TEST(LegacyOpsetUpgrade, GemmBroadcastIsDropped) {
  GraphBuilder b = legacy(6);
  const ValueId y =
      b.op(OpKind::Gemm, "fc", {b.input("a", {2, 3}), b.input("w", {3, 4}), b.input("c", {4})},
           attrs({{"broadcast", int64_t{1}}, {"alpha", 2.0f}}));
  upgradeLegacyOpset(b.g, 6);
  EXPECT_FALSE(b.g.node(0).attrs.has("broadcast"));
  EXPECT_EQ(b.g.node(0).attrs.getFloat("alpha", 0.0f), 2.0f);
  EXPECT_EQ(b.g.value(y).shape, (Dims{2, 4}));
}

TEST(LegacyOpsetUpgrade, PReluSlopesStayPerChannel) {
  GraphBuilder b = legacy(6);
  const ValueId x = b.input("x", {1, 3, 2, 2});
  b.op(OpKind::PRelu, "per_channel", {x, b.floats("slope", {0.1f, 0.2f, 0.3f})});
  b.op(OpKind::PRelu, "shared", {x, b.floats("one", {0.5f})});
  b.op(OpKind::PRelu, "matrix", {b.input("m", {2, 3}), b.floats("row", {1, 2, 3})});
  upgradeLegacyOpset(b.g, 6);
  const Value& perChannel = b.g.value(b.g.node(0).inputs[1]);
  EXPECT_EQ(perChannel.name, "slope_per_channel");
  EXPECT_EQ(perChannel.constant->shape(), (Dims{3, 1, 1}));
  EXPECT_EQ(floatValues(*perChannel.constant), (std::vector<float>{0.1f, 0.2f, 0.3f}));
  // A shared slope, and the slope of an [N, C] input, broadcast the same way in opset 7.
  EXPECT_EQ(b.g.value(b.g.node(1).inputs[1]).name, "one");
  EXPECT_EQ(b.g.value(b.g.node(2).inputs[1]).name, "row");

  GraphBuilder runtime = legacy(6);
  runtime.op(OpKind::PRelu, "prelu", {runtime.input("x", {1, 3, 2, 2}), runtime.input("s", {3})});
  EXPECT_EQ(upgradeError(runtime, 6),
            "model.onnx: node 'prelu' (PRelu, opset 6): slope 's' is not a constant, so its "
            "opset-6 per-channel layout cannot be converted to opset 7");
  EXPECT_EQ(errorKindOf([&] { upgradeLegacyOpset(runtime.g, 6); }), ErrorKind::Unsupported);
}

TEST(LegacyOpsetUpgrade, IsTestOfBatchNormAndDropout) {
  GraphBuilder b = legacy(6);
  const ValueId x = b.input("x", {1, 2, 2, 2});
  const ValueId bn = b.op(OpKind::BatchNormalization, "bn",
                          {x, b.floats("s", {1, 1}), b.floats("bb", {0, 0}), b.floats("m", {0, 0}),
                           b.floats("v", {1, 1})},
                          attrs({{"is_test", int64_t{1}}, {"epsilon", 1e-3f}}));
  b.op(OpKind::Dropout, "drop", {bn}, attrs({{"is_test", int64_t{1}}, {"ratio", 0.5f}}));
  upgradeLegacyOpset(b.g, 6);
  EXPECT_FALSE(b.g.node(0).attrs.has("is_test"));
  EXPECT_EQ(b.g.node(0).attrs.getFloat("epsilon", 0.0f), 1e-3f);
  EXPECT_FALSE(b.g.node(1).attrs.has("is_test"));
  EXPECT_EQ(b.g.node(1).attrs.getFloat("ratio", 0.0f), 0.5f);

  for (const AttrMap& a : {attrs({{"is_test", int64_t{0}}}), AttrMap{}}) { // default: training
    GraphBuilder training = legacy(6);
    training.op(OpKind::BatchNormalization, "bn",
                {training.input("x", {1, 1, 2}), training.floats("s", {1}),
                 training.floats("bb", {0}), training.floats("m", {0}), training.floats("v", {1})},
                a);
    EXPECT_EQ(upgradeError(training, 6), "model.onnx: node 'bn' (BatchNormalization, opset 6): "
                                         "is_test=0 (training mode) is not supported");
    EXPECT_EQ(errorKindOf([&] { upgradeLegacyOpset(training.g, 6); }), ErrorKind::Unsupported);
  }
}

TEST(LegacyOpsetUpgrade, FormsWithoutAnOpset7MeaningAreRejected) {
  GraphBuilder cast = legacy(5);
  cast.op(OpKind::Cast, "cast", {cast.input("x", {2})}, attrs({{"to", std::string("INT32")}}));
  EXPECT_EQ(upgradeError(cast, 5), "model.onnx: node 'cast' (Cast, opset 5): Cast-1 (string 'to' "
                                   "attribute, before opset 6) is not supported");
  EXPECT_EQ(errorKindOf([&] { upgradeLegacyOpset(cast.g, 5); }), ErrorKind::Unsupported);

  GraphBuilder up = legacy(6);
  up.op(OpKind::Upsample, "up", {up.input("x", {1, 1, 2, 2})},
        attrs({{"height_scale", 2.0f}, {"width_scale", 2.0f}}));
  EXPECT_EQ(upgradeError(up, 6), "model.onnx: node 'up' (Upsample, opset 6): the experimental "
                                 "Upsample-1 (before opset 7) is not supported");
  EXPECT_EQ(errorKindOf([&] { upgradeLegacyOpset(up.g, 6); }), ErrorKind::Unsupported);
}

TEST(LegacyOpsetUpgrade, InferenceErrorsNameTheDeclaredOpset) {
  // The node is inferred with opset-7 rules, but the message shows the file's opset 6.
  GraphBuilder b = legacy(6);
  b.op(OpKind::Conv, "conv3", {b.input("x", {1, 64, 8, 8}), b.input("w", {6, 21, 3, 3})},
       attrs({{"group", int64_t{3}}}));
  EXPECT_EQ(upgradeError(b, 6), "model.onnx: node 'conv3' (Conv, opset 6): group=3 does not "
                                "divide input channels=64");
  // So do later errors on the upgraded graph (here: a declared output type).
  GraphBuilder later = legacy(3);
  const ValueId y = later.op(OpKind::Relu, "relu", {later.input("x", {2, 2})});
  later.g.value(y).declaredShape = Dims{4};
  later.g.outputs = {y};
  upgradeLegacyOpset(later.g, 3);
  EXPECT_EQ(errorOf([&] { inferShapes(later.g); }),
            "model.onnx: node 'relu' (Relu, opset 3): output 'relu' is declared 4 but infers to "
            "2x2");
}

TEST(LegacyOpsetUpgrade, ImportedLegacyModelErrorsNameTheFileOpset) {
  using namespace nnaccel::frontend::testing;
  ModelBuilder m(6, 3);
  m.input("x", {int64_t{1}, int64_t{64}, int64_t{8}, int64_t{8}});
  m.initializer(floatTensor("W", {6, 21, 3, 3}, std::vector<float>(6 * 21 * 9, 0.0f)));
  auto& conv = m.node("Conv", {"x", "W"}, {"y"}, "conv3");
  attrInt(conv, "group", 3);
  m.output("y");
  const Error e = importError(m);
  EXPECT_STREQ(e.what(), "m.onnx: node 'conv3' (Conv, opset 6): group=3 does not divide input "
                         "channels=64");
  EXPECT_EQ(e.context().opset, 6);
}
