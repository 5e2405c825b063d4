// Tests for activation-fusion marking: which producer/activation pairs are marked, which are
// not (multiple uses, graph outputs, non-unary consumers), and that the graph is unchanged.
#include "nnaccel/passes/FuseActivation.h"

#include "PassTestUtil.h"

#include <gtest/gtest.h>

using namespace nnaccel;
using namespace nnaccel::ir;
using namespace nnaccel::ir::test;
using namespace nnaccel::passes;
using namespace nnaccel::passes::test;

TEST(FuseActivation, MarksSingleUseProducerActivationPairs) {
  GraphBuilder b(13);
  const ValueId x = b.input("x", {1, 2, 4, 4});
  const ValueId w = b.floats("w", {2, 2, 1, 1}, {1, 0, 0, 1});
  const ValueId conv = b.op(OpKind::Conv, "conv", {x, w});
  const ValueId relu = b.op(OpKind::Relu, "relu", {conv});
  const ValueId deconv = b.op(OpKind::ConvTranspose, "deconv", {relu, w});
  const ValueId leaky = b.op(OpKind::LeakyRelu, "leaky", {deconv});
  const ValueId flat = b.op(OpKind::Flatten, "flat", {leaky});
  const ValueId fc =
      b.op(OpKind::Gemm, "fc", {flat, b.floats("fw", {32, 8}, std::vector<float>(256, 0.1f))});
  const ValueId clip =
      b.op(OpKind::Clip, "clip",
           {fc, b.constant("lo", Tensor::scalar(0.0f)), b.constant("hi", Tensor::scalar(6.0f))});
  const ValueId mm =
      b.op(OpKind::MatMul, "mm", {clip, b.floats("mw", {8, 3}, std::vector<float>(24, 0.2f))});
  const ValueId sig = b.op(OpKind::Sigmoid, "sig", {mm});
  b.g.outputs = {sig};
  inferShapes(b.g);
  const size_t nodes = b.g.numNodes();
  EXPECT_EQ(fuseActivations(b.g), 4u);
  EXPECT_EQ(b.g.numNodes(), nodes);
  const auto markOf = [&](const std::string& name) {
    for (const Node& n : b.g.nodes()) {
      if (n.name == name) {
        return n.fusedActivation;
      }
    }
    return std::optional<FusedActivation>{};
  };
  ASSERT_TRUE(markOf("conv"));
  EXPECT_EQ(b.g.node(markOf("conv")->activationNode).name, "relu");
  EXPECT_EQ(markOf("conv")->kind, OpKind::Relu);
  EXPECT_EQ(markOf("deconv")->kind, OpKind::LeakyRelu);
  EXPECT_EQ(markOf("fc")->kind, OpKind::Clip);
  EXPECT_EQ(b.g.node(markOf("mm")->activationNode).name, "sig");
  EXPECT_FALSE(markOf("relu"));
  verify(b.g);
  // Marks survive re-sorting and shape inference, and a second run gives the same marks.
  inferShapes(b.g);
  verify(b.g);
  EXPECT_EQ(fuseActivations(b.g), 4u);
  (void)relu;
  (void)leaky;
  (void)clip;
  (void)sig;
}

TEST(FuseActivation, SkipsSharedOutputsGraphOutputsAndNonUnaryConsumers) {
  GraphBuilder b(13);
  const ValueId x = b.input("x", {1, 2, 4, 4});
  const ValueId w = b.floats("w", {2, 2, 1, 1}, {1, 0, 0, 1});
  const ValueId shared = b.op(OpKind::Conv, "shared", {x, w});
  const ValueId r1 = b.op(OpKind::Relu, "r1", {shared});
  const ValueId sum = b.op(OpKind::Add, "sum", {shared, r1});
  const ValueId exposed = b.op(OpKind::Conv, "exposed", {sum, w});
  const ValueId r2 = b.op(OpKind::Relu, "r2", {exposed});
  const ValueId toPrelu = b.op(OpKind::Conv, "to_prelu", {r2, w});
  const ValueId prelu =
      b.op(OpKind::PRelu, "prelu", {toPrelu, b.floats("slope", {2, 1, 1}, {0.1f, 0.1f})});
  const ValueId toAdd = b.op(OpKind::Conv, "to_add", {prelu, w});
  const ValueId out = b.op(OpKind::Add, "out", {toAdd, x});
  b.g.outputs = {out, exposed};
  inferShapes(b.g);
  b.g.node(0).fusedActivation = FusedActivation{1, OpKind::Relu}; // stale mark is cleared
  EXPECT_EQ(fuseActivations(b.g), 0u);
  for (const Node& n : b.g.nodes()) {
    EXPECT_FALSE(n.fusedActivation) << n.name;
  }
}
