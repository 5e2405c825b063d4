// Tests for the fusion of written-out HardSigmoid and HardSwish: the exporters' forms become one
// node with the same fp32 results (to rounding), and near-misses are left alone.
#include "nnaccel/passes/FuseWrittenActivations.h"

#include "PassTestUtil.h"
#include "nnaccel/ir/OpParams.h"
#include "nnaccel/passes/CanonicalizeOperands.h"

#include <gtest/gtest.h>

using namespace nnaccel;
using namespace nnaccel::ir;
using namespace nnaccel::ir::test;
using namespace nnaccel::passes;
using namespace nnaccel::passes::test;

namespace {

ValueId scalarConst(GraphBuilder& b, const std::string& name, float v) {
  return b.floats(name, {1}, {v});
}

/// Clip(x + a, 0, hi) at opset 13 (bounds as inputs).
ValueId shiftedClip(GraphBuilder& b, const std::string& p, ValueId x, float a, float hi) {
  const ValueId s = b.op(OpKind::Add, p + "add", {x, scalarConst(b, p + "a", a)});
  return b.op(
      OpKind::Clip, p + "clip",
      {s, b.constant(p + "lo", Tensor::scalar(0.0f)), b.constant(p + "hi", Tensor::scalar(hi))});
}

/// Runs the pass on \p b's graph with outputs \p outs; expects \p created nodes and the same
/// outputs within 1e-6.
void expectFused(GraphBuilder& b, const std::vector<ValueId>& outs, size_t created) {
  b.g.outputs = outs;
  inferShapes(b.g);
  Graph before = b.g;
  const Tensor in = randomTensor(b.g.value(b.g.inputs[0]).shape, 5);
  Tensor wide(DType::F32, in.shape()); // inputs across [-5, 5): every branch of the functions
  for (int64_t i = 0; i < in.numElements(); ++i)
    wide.data<float>()[i] = 5.0f * in.data<float>()[i];
  const std::vector<Tensor> ref = runGraph(before, {wide});
  canonicalizeOperands(b.g);
  EXPECT_EQ(fuseWrittenActivations(b.g), created);
  const std::vector<Tensor> got = runGraph(b.g, {wide});
  for (size_t o = 0; o < outs.size(); ++o)
    EXPECT_LE(maxAbsDiff(got[o], ref[o]), 1e-6f) << o;
}

} // namespace

TEST(FuseWrittenActivations, PaddleAndTorchHardSwishBecomeOneNode) {
  GraphBuilder b(13);
  const ValueId x = b.input("x", {2, 3, 4, 4});
  // PaddleOCR: (x * clip(x + 3, 0, 6)) / 6.
  const ValueId paddle = b.op(
      OpKind::Div, "p_div",
      {b.op(OpKind::Mul, "p_mul", {x, shiftedClip(b, "p_", x, 3, 6)}), scalarConst(b, "p_six", 6)});
  // PyTorch: x * (clip(x + 3, 0, 6) * (1/6)), the constant first as exporters write it.
  const ValueId torch =
      b.op(OpKind::Mul, "t_mul",
           {b.op(OpKind::Mul, "t_scale",
                 {scalarConst(b, "t_sixth", 1.0f / 6), shiftedClip(b, "t_", x, 3, 6)}),
            x});
  expectFused(b, {paddle, torch}, 4); // each: a HardSigmoid, then the HardSwish
  EXPECT_EQ(countOps(b.g, OpKind::HardSwish), 2u);
  EXPECT_EQ(b.g.numNodes(), 2u);
  EXPECT_EQ(b.g.node(b.g.value(paddle).producer).op, OpKind::HardSwish);
}

TEST(FuseWrittenActivations, ScaledClipsAreHardSigmoids) {
  GraphBuilder b(13);
  const ValueId x = b.input("x", {1, 8});
  const ValueId sixth =
      b.op(OpKind::Div, "div", {shiftedClip(b, "a_", x, 3, 6), scalarConst(b, "six", 6)});
  const ValueId third = b.op(OpKind::Mul, "mul",
                             {shiftedClip(b, "b_", x, 1.5f, 3), scalarConst(b, "third", 1.0f / 3)});
  expectFused(b, {sixth, third}, 2);
  const ir::ActivationParams p = ir::activationParams(b.g, b.g.value(third).producer);
  EXPECT_EQ(p.kind, OpKind::HardSigmoid);
  EXPECT_FLOAT_EQ(p.alpha, 1.0f / 3);
  EXPECT_FLOAT_EQ(p.beta, 0.5f);
}

TEST(FuseWrittenActivations, NearMissesAreLeftAlone) {
  GraphBuilder b(13);
  const ValueId x = b.input("x", {1, 8});
  // The divisor is not the clip's upper bound: not a HardSigmoid.
  const ValueId off =
      b.op(OpKind::Div, "off", {shiftedClip(b, "a_", x, 3, 6), scalarConst(b, "five", 5)});
  // The shifted value is also a graph output: the Add must stay.
  const ValueId shared = b.op(OpKind::Add, "shared", {x, scalarConst(b, "three", 3)});
  const ValueId clip = b.op(
      OpKind::Clip, "clip",
      {shared, b.constant("lo", Tensor::scalar(0.0f)), b.constant("hi", Tensor::scalar(6.0f))});
  const ValueId kept = b.op(OpKind::Div, "kept", {clip, scalarConst(b, "six", 6)});
  expectFused(b, {off, shared, kept}, 0);
  EXPECT_EQ(countOps(b.g, OpKind::HardSigmoid), 0u);
}

TEST(FuseWrittenActivations, WrittenOutGeluInBothFormsAndAssociationsBecomesOneNode) {
  GraphBuilder b(13);
  const ValueId x = b.input("x", {2, 3, 4, 4});
  // PyTorch's erf form: (x * (erf(x / sqrt 2) + 1)) * 0.5.
  const auto onePlusErf = [&](const std::string& p, bool reciprocal) {
    const ValueId scaled =
        reciprocal ? b.op(OpKind::Mul, p + "scale", {x, scalarConst(b, p + "k", 0.70710678f)})
                   : b.op(OpKind::Div, p + "scale", {x, scalarConst(b, p + "k", 1.4142135f)});
    return b.op(OpKind::Add, p + "add",
                {b.op(OpKind::Erf, p + "erf", {scaled}), scalarConst(b, p + "one", 1.0f)});
  };
  const ValueId torch =
      b.op(OpKind::Mul, "t_half",
           {b.op(OpKind::Mul, "t_mul", {x, onePlusErf("t_", false)}), scalarConst(b, "t_h", 0.5f)});
  // Another association: (0.5 * x) * (1 + erf(x * 0.7071)).
  const ValueId other =
      b.op(OpKind::Mul, "o_mul",
           {b.op(OpKind::Mul, "o_half", {scalarConst(b, "o_h", 0.5f), x}), onePlusErf("o_", true)});
  // The tanh approximation: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
  const ValueId cube = b.op(OpKind::Pow, "a_pow", {x, scalarConst(b, "a_three", 3.0f)});
  const ValueId inner =
      b.op(OpKind::Add, "a_sum",
           {x, b.op(OpKind::Mul, "a_cubic", {cube, scalarConst(b, "a_c", 0.044715f)})});
  const ValueId t =
      b.op(OpKind::Tanh, "a_tanh",
           {b.op(OpKind::Mul, "a_scale", {inner, scalarConst(b, "a_k", 0.7978845608f)})});
  const ValueId approx = b.op(OpKind::Mul, "a_mul",
                              {b.op(OpKind::Mul, "a_half", {x, scalarConst(b, "a_h", 0.5f)}),
                               b.op(OpKind::Add, "a_add", {t, scalarConst(b, "a_one", 1.0f)})});
  expectFused(b, {torch, other, approx}, 3);
  EXPECT_EQ(countOps(b.g, OpKind::Gelu), 3u);
  EXPECT_EQ(countOps(b.g, OpKind::Erf) + countOps(b.g, OpKind::Tanh) + countOps(b.g, OpKind::Mul),
            0u);
  size_t tanhForm = 0;
  for (const Node& n : b.g.nodes())
    tanhForm +=
        n.op == OpKind::Gelu && activationParams(b.g, &n - &b.g.nodes()[0]).tanhApproximation;
  EXPECT_EQ(tanhForm, 1u);
}

TEST(FuseWrittenActivations, AGeluNearMissStaysWrittenOut) {
  GraphBuilder b(13);
  const ValueId x = b.input("x", {8});
  // erf(x / 2) is no GELU: the divisor must be sqrt(2).
  const ValueId e =
      b.op(OpKind::Erf, "erf", {b.op(OpKind::Div, "div", {x, scalarConst(b, "two", 2.0f)})});
  const ValueId y = b.op(
      OpKind::Mul, "half",
      {b.op(OpKind::Mul, "mul", {x, b.op(OpKind::Add, "add", {e, scalarConst(b, "one", 1.0f)})}),
       scalarConst(b, "h", 0.5f)});
  expectFused(b, {y}, 0);
  EXPECT_EQ(countOps(b.g, OpKind::Gelu), 0u);
}

TEST(FuseWrittenActivations, SiluSwishAndMishBecomeOneNode) {
  GraphBuilder b(13);
  const ValueId x = b.input("x", {2, 3, 4, 4});
  // SiLU as PyTorch writes it: x * sigmoid(x), the sigmoid first.
  const ValueId silu = b.op(OpKind::Mul, "silu", {b.op(OpKind::Sigmoid, "s_sig", {x}), x});
  // Swish with a slope: x * sigmoid(1.702 x) (the sigmoid approximation of GELU).
  const ValueId swish =
      b.op(OpKind::Mul, "swish",
           {x, b.op(OpKind::Sigmoid, "w_sig",
                    {b.op(OpKind::Mul, "w_scale", {x, scalarConst(b, "w_a", 1.702f)})})});
  // Mish with a Softplus node, and with softplus written out (Darknet/YOLOv4 exports).
  const ValueId mish =
      b.op(OpKind::Mul, "mish",
           {x, b.op(OpKind::Tanh, "m_tanh", {b.op(OpKind::Softplus, "m_sp", {x})})});
  const ValueId spelled =
      b.op(OpKind::Add, "e_add", {b.op(OpKind::Exp, "e_exp", {x}), scalarConst(b, "e_one", 1.0f)});
  const ValueId mish2 =
      b.op(OpKind::Mul, "mish2",
           {x, b.op(OpKind::Tanh, "e_tanh", {b.op(OpKind::Log, "e_log", {spelled})})});
  expectFused(b, {silu, swish, mish, mish2}, 4);
  EXPECT_EQ(countOps(b.g, OpKind::Swish), 2u);
  EXPECT_EQ(countOps(b.g, OpKind::Mish), 2u);
  EXPECT_EQ(countOps(b.g, OpKind::Mul) + countOps(b.g, OpKind::Sigmoid) +
                countOps(b.g, OpKind::Tanh) + countOps(b.g, OpKind::Exp),
            0u);
  for (const Node& n : b.g.nodes()) {
    if (n.op == OpKind::Swish && n.outputs[0] == swish) {
      EXPECT_FLOAT_EQ(activationParams(b.g, static_cast<NodeId>(&n - &b.g.nodes()[0])).alpha,
                      1.702f);
    }
  }
}

TEST(FuseWrittenActivations, AGateOfAnotherValueIsNoSwish) {
  GraphBuilder b(13);
  const ValueId x = b.input("x", {8});
  const ValueId y = b.op(OpKind::Abs, "y", {x});
  // x * sigmoid(|x|): the gate reads another value.
  const ValueId z = b.op(OpKind::Mul, "z", {x, b.op(OpKind::Sigmoid, "sig", {y})});
  expectFused(b, {z}, 0);
  EXPECT_EQ(countOps(b.g, OpKind::Swish), 0u);
}
