// Tests of the element-wise kernels: every activation against numpy formulas and bit for bit
// against ir::applyActivation (exact for loop kinds, within 5e-7 relative for oneDNN eltwise
// kinds), integer Relu/Clip (clampInteger), PRelu slope broadcasting, and Add/Sub/Mul/Div with
// numpy broadcasting on the oneDNN path, the loop path and for s8/u8/s32/s64 (wrapping, as ONNX's
// uint8 arithmetic does modulo 256).
#include "TestUtil.h"
#include "nnaccel/reference/Kernels.h"

#include <cstring>
#include <gtest/gtest.h>
#include <limits>

using namespace nnaccel;
using namespace nnaccel::reference;
using ir::OpKind;
using nnaccel::reference::test::expectTensorNear;
using nnaccel::reference::test::seqTensor;
using nnaccel::reference::test::tensorOf;
using nnaccel::reference::test::valuesOf;

namespace {
// 10
const std::vector<float> kSigmoid = {3.78350585e-44, 0.0474258736, 0.268941432, 0.377540678, 0.5,
                                     0.622459352,    0.731058598,  0.952574134, 1,           1};
// 10
const std::vector<float> kTanh = {
    -1, -0.995054781, -0.761594176, -0.462117165, 0, 0.462117165, 0.761594176, 0.995054781, 1, 1};
// 10
const std::vector<float> kElu = {
    -0.699999988, -0.665149033, -0.442484379, -0.275428534, 0, 0.5, 1, 3, 20, 100};
// 10
const std::vector<float> kSoftplus = {
    3.78350585e-44, 0.048587352, 0.313261688, 0.474076986, 0.693147182,
    0.974076986,    1.31326163,  3.04858732,  20,          100};
// 10
const std::vector<float> kSelu = {-1.75813627, -1.67060387, -1.11135411, -0.691772759, 0,
                                  0.525349975, 1.05069995,  3.15210009,  21.0139999,   105.07};
// 10
const std::vector<float> kHardSigmoid = {0,           0,           0.300000012, 0.400000006, 0.5,
                                         0.600000024, 0.699999988, 1,           1,           1};
// 10
const std::vector<float> kHardSwish = {-0,          -0, -0.333333343, -0.208333328, 0, 0.291666657,
                                       0.666666687, 3,  20,           100};
// 2x4x3
const std::vector<float> kBcastAdd = {1.375, 1.25, 3.5,   1.25,  1.125, 3.375, 1.125, 1,
                                      3.25,  1,    0.875, 3.125, 3.375, 3.25,  3.125, 3.25,
                                      3.125, 3,    3.125, 3,     2.875, 3,     2.875, 2.75};
// 2x4x3
const std::vector<float> kBcastSub = {-3.375, -3.5, -1.25,  -3.25,  -3.375, -1.125, -3.125, -3.25,
                                      -1,     -3,   -3.125, -0.875, -1.375, -1.5,   -1.625, -1.25,
                                      -1.375, -1.5, -1.125, -1.25,  -1.375, -1,     -1.125, -1.25};
// 2x4x3
const std::vector<float> kBcastMul = {-2.375, -2.671875, 2.671875, -2.25, -2.53125, 2.53125,
                                      -2.125, -2.390625, 2.390625, -2,    -2.25,    2.25,
                                      2.375,  2.078125,  1.78125,  2.25,  1.96875,  1.6875,
                                      2.125,  1.859375,  1.59375,  2,     1.75,     1.5};
// 2x4x3
const std::vector<float> kBcastDiv = {
    -0.421052635, -0.473684222, 0.473684222, -0.444444448, -0.5,        0.5,
    -0.470588237, -0.529411793, 0.529411793, -0.5,         -0.5625,     0.5625,
    0.421052635,  0.368421048,  0.315789461, 0.444444448,  0.388888896, 0.333333343,
    0.470588237,  0.411764711,  0.352941185, 0.5,          0.4375,      0.375};

const Tensor kX = tensorOf<float>({2, 5}, {-100, -3, -1, -0.5f, 0, 0.5f, 1, 3, 20, 100});

ir::ActivationParams act(OpKind kind, float alpha = 0, float beta = 0, float gamma = 0) {
  return ir::ActivationParams{.kind = kind, .alpha = alpha, .beta = beta, .gamma = gamma};
}

/// The activation tolerance: oneDNN's vectorized exp/tanh are within a few ulp of libm.
void expectActivation(const ir::ActivationParams& p, const std::vector<float>& expected) {
  SCOPED_TRACE(std::string(ir::opName(p.kind)));
  expectTensorNear(activation(p, kX), {2, 5}, expected, 1e-6f, 1e-7f);
}
} // namespace

TEST(EltwiseKernels, PiecewiseLinearActivationsExact) {
  expectTensorNear(activation(act(OpKind::Relu), kX), {2, 5}, {0, 0, 0, 0, 0, 0.5f, 1, 3, 20, 100},
                   0, 0);
  expectTensorNear(activation(act(OpKind::LeakyRelu, 0.25f), kX), {2, 5},
                   {-25, -0.75f, -0.25f, -0.125f, 0, 0.5f, 1, 3, 20, 100}, 0, 0);
  expectTensorNear(activation(act(OpKind::Clip, -1.0f, 2.5f), kX), {2, 5},
                   {-1, -1, -1, -0.5f, 0, 0.5f, 1, 2.5f, 2.5f, 2.5f}, 0, 0);
  const float inf = std::numeric_limits<float>::infinity();
  expectTensorNear(activation(act(OpKind::Clip, -inf, inf), kX), {2, 5},
                   {-100, -3, -1, -0.5f, 0, 0.5f, 1, 3, 20, 100}, 0, 0);
}

TEST(EltwiseKernels, TranscendentalActivations) {
  expectActivation(act(OpKind::Sigmoid), kSigmoid);
  expectActivation(act(OpKind::Tanh), kTanh);
  expectActivation(act(OpKind::Elu, 0.7f), kElu);
  expectActivation(act(OpKind::Softplus), kSoftplus);
  expectActivation(act(OpKind::Selu, 1.6733f, 0, 1.0507f), kSelu);
  expectActivation(act(OpKind::HardSigmoid, 0.2f, 0.5f), kHardSigmoid);
  expectActivation(act(OpKind::HardSwish, 1.0f / 6, 0.5f), kHardSwish);
}

TEST(EltwiseKernels, ActivationAgreesWithApplyActivation) {
  // 4001 inputs over [-50, 50] (steps of 1/40, plus +-0 and large magnitudes). Kinds oneDNN
  // lacks or computes inaccurately (HardSigmoid, HardSwish, Selu, Softplus) are loops over
  // ir::applyActivation, and Relu/LeakyRelu/Clip are exact on oneDNN: equal values. Kinds
  // on oneDNN eltwise (vectorized exp/tanh) agree with the scalar formula within 4 ulp-scale
  // relative error; engines that need the reference's exact fp32 bits call activation().
  std::vector<float> xs;
  for (int i = -2000; i <= 2000; ++i) {
    xs.push_back(static_cast<float>(i) / 40.0f);
  }
  for (float v : {-0.0f, 1e-30f, -1e-30f, 88.7f, -88.7f, 1e30f, -1e30f}) {
    xs.push_back(v);
  }
  const Tensor x = tensorOf<float>({static_cast<int64_t>(xs.size())}, xs);
  struct Case {
    ir::ActivationParams p;
    bool exact;
  };
  const std::vector<Case> kinds = {{act(OpKind::Relu), true},
                                   {act(OpKind::LeakyRelu, 0.01f), true},
                                   {act(OpKind::Clip, -1.5f, 6.0f), true},
                                   {act(OpKind::Sigmoid), false},
                                   {act(OpKind::HardSigmoid, 0.2f, 0.5f), true},
                                   {act(OpKind::HardSwish), true},
                                   {act(OpKind::Tanh), false},
                                   {act(OpKind::Elu, 1.0f), false},
                                   {act(OpKind::Selu, 1.67326319f, 0, 1.05070102f), true},
                                   {act(OpKind::Softplus), true}};
  for (const Case& c : kinds) {
    SCOPED_TRACE(std::string(ir::opName(c.p.kind)));
    const std::vector<float> got = valuesOf<float>(activation(c.p, x));
    ASSERT_EQ(got.size(), xs.size());
    int mismatches = 0;
    for (size_t i = 0; i < xs.size(); ++i) {
      const float want = ir::applyActivation(c.p, xs[i]);
      // (== rather than memcmp: oneDNN's relu returns +0 for -0.)
      const bool ok = c.exact ? got[i] == want
                              : std::fabs(got[i] - want) <= 5e-7f * std::max(1.0f, std::fabs(want));
      if (!ok && mismatches++ < 5) {
        ADD_FAILURE() << "x=" << xs[i] << ": got " << got[i] << ", applyActivation " << want;
      }
    }
    EXPECT_EQ(mismatches, 0);
  }
}

TEST(EltwiseKernels, ClipMinAboveMaxGivesMax) {
  // ONNX (like numpy.clip): min > max gives max everywhere; no oneDNN error.
  expectTensorNear(activation(act(OpKind::Clip, 2.0f, -1.0f), kX), {2, 5},
                   {-1, -1, -1, -1, -1, -1, -1, -1, -1, -1}, 0, 0);
}

TEST(EltwiseKernels, IntegerReluAndClip) {
  const Tensor x = tensorOf<int8_t>({4}, {-128, -3, 5, 127});
  EXPECT_EQ(valuesOf<int8_t>(activation(act(OpKind::Relu), x)),
            (std::vector<int8_t>{0, 0, 5, 127}));
  EXPECT_EQ(valuesOf<int8_t>(activation(act(OpKind::Clip, -4, 6), x)),
            (std::vector<int8_t>{-4, -3, 5, 6}));
  const Tensor xi = tensorOf<int64_t>({3}, {-7, 0, 9});
  EXPECT_EQ(valuesOf<int64_t>(activation(act(OpKind::Clip, -1, 1), xi)),
            (std::vector<int64_t>{-1, 0, 1}));
}

TEST(EltwiseKernels, IntegerClampEdgeCases) {
  // Non-integer Clip bounds round inward: [-2.5, 3.5] keeps the integers -2..3.
  const Tensor x = tensorOf<int8_t>({4}, {-3, -2, 3, 4});
  EXPECT_EQ(valuesOf<int8_t>(activation(act(OpKind::Clip, -2.5f, 3.5f), x)),
            (std::vector<int8_t>{-2, -2, 3, 3}));
  // Bounds beyond the type saturate; u8 Relu is the identity.
  const Tensor u = tensorOf<uint8_t>({3}, {0, 17, 255});
  EXPECT_EQ(valuesOf<uint8_t>(clampInteger(u, -1000, 1000)), (std::vector<uint8_t>{0, 17, 255}));
  EXPECT_EQ(valuesOf<uint8_t>(activation(act(OpKind::Relu), u)),
            (std::vector<uint8_t>{0, 17, 255}));
  EXPECT_EQ(valuesOf<uint8_t>(clampInteger(u, 10, 20)), (std::vector<uint8_t>{10, 17, 20}));
  // min > max gives max everywhere (numpy's clip).
  EXPECT_EQ(valuesOf<int8_t>(clampInteger(x, 5, 1)), (std::vector<int8_t>{1, 1, 1, 1}));
  // s64 bounds beyond 2^24 are exact (2^40 + 1 is not a float).
  const int64_t big = (int64_t{1} << 40) + 1;
  const Tensor w = tensorOf<int64_t>({3}, {big - 1, big, big + 1});
  EXPECT_EQ(valuesOf<int64_t>(clampInteger(w, big, big)), (std::vector<int64_t>{big, big, big}));
  try {
    clampInteger(tensorOf<bool>({1}, {true}), 0, 1);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Unsupported);
    EXPECT_STREQ(e.what(), "integer clamp on bool input is not supported (s8, u8, s32, s64)");
  }
}

TEST(EltwiseKernels, RejectsIntegerSigmoid) {
  try {
    activation(act(OpKind::Sigmoid), tensorOf<int32_t>({1}, {1}));
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Unsupported);
    EXPECT_STREQ(e.what(), "Sigmoid on s32 input is not supported (expected f32)");
  }
}

TEST(EltwiseKernels, PReluBroadcastsSlope) {
  // x [2, 3, 2], slope [3, 1]: one slope per middle-axis row.
  const Tensor x = tensorOf<float>({2, 3, 2}, {-1, 1, -2, 2, -4, 4, 1, -1, 2, -2, 4, -4});
  const Tensor slope = tensorOf<float>({3, 1}, {0.5f, 0.25f, -1});
  expectTensorNear(prelu(x, slope), {2, 3, 2}, {-0.5f, 1, -0.5f, 2, 4, 4, 1, -0.5f, 2, -0.5f, 4, 4},
                   0, 0);
}

TEST(EltwiseKernels, BinaryBothOperandsBroadcast) {
  // [2, 1, 3] op [4, 1] -> [2, 4, 3]: neither operand has the output shape (loop path).
  const Tensor a = seqTensor({2, 1, 3}, 26);
  Tensor b = seqTensor({4, 1}, 27);
  for (float& v : b.values<float>()) {
    v += 2.0f;
  }
  expectTensorNear(binary(OpKind::Add, a, b), {2, 4, 3}, kBcastAdd, 0, 0);
  expectTensorNear(binary(OpKind::Sub, a, b), {2, 4, 3}, kBcastSub, 0, 0);
  expectTensorNear(binary(OpKind::Mul, a, b), {2, 4, 3}, kBcastMul, 0, 0);
  expectTensorNear(binary(OpKind::Div, a, b), {2, 4, 3}, kBcastDiv, 0, 0);
}

TEST(EltwiseKernels, BinaryOneSidedBroadcastMatchesLoops) {
  // out == a.shape (oneDNN binary), out == b.shape (oneDNN with operands swapped for Add/Mul,
  // loops for Sub/Div): IEEE add/sub/mul/div are exact-rounded either way, so equality holds.
  const Tensor full = seqTensor({2, 3, 4}, 40);
  const Tensor row = tensorOf<float>({4}, {1, -2, 4, 8});
  for (OpKind op : {OpKind::Add, OpKind::Sub, OpKind::Mul, OpKind::Div}) {
    SCOPED_TRACE(std::string(ir::opName(op)));
    const Tensor left = binary(op, full, row);
    const Tensor right = binary(op, row, full);
    const float* pf = full.data<float>();
    for (int64_t i = 0; i < full.numElements(); ++i) {
      const float r = row.data<float>()[i % 4];
      const float x = pf[i];
      const float l = op == OpKind::Add   ? x + r
                      : op == OpKind::Sub ? x - r
                      : op == OpKind::Mul ? x * r
                                          : x / r;
      const float rr = op == OpKind::Add   ? r + x
                       : op == OpKind::Sub ? r - x
                       : op == OpKind::Mul ? r * x
                                           : r / x;
      EXPECT_EQ(left.data<float>()[i], l) << i;
      EXPECT_EQ(right.data<float>()[i], rr) << i;
    }
  }
}

TEST(EltwiseKernels, IntegerBinary) {
  const Tensor a = tensorOf<int64_t>({4}, {7, -7, 7, -7});
  const Tensor b = tensorOf<int64_t>({4}, {2, 2, -2, -2});
  EXPECT_EQ(valuesOf<int64_t>(binary(OpKind::Div, a, b)), (std::vector<int64_t>{3, -3, -3, 3}));
  EXPECT_EQ(valuesOf<int64_t>(binary(OpKind::Mul, a, tensorOf<int64_t>({}, {3}))),
            (std::vector<int64_t>{21, -21, 21, -21}));
  const Tensor s = tensorOf<int32_t>({2, 1}, {10, 20});
  const Tensor t = tensorOf<int32_t>({3}, {1, 2, 3});
  EXPECT_EQ(valuesOf<int32_t>(binary(OpKind::Sub, s, t)),
            (std::vector<int32_t>{9, 8, 7, 19, 18, 17}));
  // Overflow wraps instead of being undefined.
  const Tensor big = tensorOf<int32_t>({1}, {std::numeric_limits<int32_t>::max()});
  EXPECT_EQ(valuesOf<int32_t>(binary(OpKind::Add, big, tensorOf<int32_t>({1}, {1}))),
            (std::vector<int32_t>{std::numeric_limits<int32_t>::min()}));
}

TEST(EltwiseKernels, ByteBinaryWraps) {
  // ONNX's uint8 arithmetic wraps modulo 256 (test_add_uint8 and friends); int8 wraps in two's
  // complement; Div truncates toward zero and int8 min / -1 wraps to min.
  const Tensor a = tensorOf<uint8_t>({4}, {200, 5, 16, 7});
  const Tensor b = tensorOf<uint8_t>({4}, {100, 10, 17, 2});
  EXPECT_EQ(valuesOf<uint8_t>(binary(OpKind::Add, a, b)), (std::vector<uint8_t>{44, 15, 33, 9}));
  EXPECT_EQ(valuesOf<uint8_t>(binary(OpKind::Sub, a, b)), (std::vector<uint8_t>{100, 251, 255, 5}));
  EXPECT_EQ(valuesOf<uint8_t>(binary(OpKind::Mul, a, b)), (std::vector<uint8_t>{32, 50, 16, 14}));
  EXPECT_EQ(valuesOf<uint8_t>(binary(OpKind::Div, a, b)), (std::vector<uint8_t>{2, 0, 0, 3}));
  const Tensor c = tensorOf<int8_t>({4}, {127, -128, -7, 7});
  const Tensor d = tensorOf<int8_t>({4}, {1, -1, 2, -2});
  EXPECT_EQ(valuesOf<int8_t>(binary(OpKind::Add, c, d)), (std::vector<int8_t>{-128, 127, -5, 5}));
  EXPECT_EQ(valuesOf<int8_t>(binary(OpKind::Div, c, d)), (std::vector<int8_t>{127, -128, -3, -3}));
  EXPECT_EQ(valuesOf<int8_t>(binary(OpKind::Mul, c, tensorOf<int8_t>({}, {2}))),
            (std::vector<int8_t>{-2, 0, -14, 14}));
}

TEST(EltwiseKernels, BinaryErrors) {
  try {
    binary(OpKind::Div, tensorOf<int32_t>({2}, {1, 2}), tensorOf<int32_t>({2}, {1, 0}));
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Model);
    EXPECT_STREQ(e.what(), "integer division by zero");
  }
  try {
    binary(OpKind::Add, seqTensor({2, 3}, 1), seqTensor({2}, 1));
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "shapes 2x3 and 2 do not broadcast");
  }
  try {
    binary(OpKind::Add, seqTensor({2}, 1), tensorOf<int32_t>({2}, {1, 2}));
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Unsupported);
    EXPECT_STREQ(e.what(), "Add of f32 and s32 operands is not supported");
  }
  try {
    binary(OpKind::Div, tensorOf<uint8_t>({2}, {1, 2}), tensorOf<uint8_t>({2}, {1, 0}));
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Model);
    EXPECT_STREQ(e.what(), "integer division by zero");
  }
  try {
    binary(OpKind::Mul, tensorOf<bool>({1}, {true}), tensorOf<bool>({1}, {true}));
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Unsupported);
    EXPECT_STREQ(e.what(), "Mul on bool input is not supported (f32, s8, u8, s32, s64)");
  }
}
