// Tests of the Conv/ConvTranspose kernels against naive numpy loops (expected_values.py):
// strides, asymmetric pads, dilations, groups, depthwise, 1-D/3-D, bias, output_padding.
#include "TestUtil.h"
#include "nnaccel/reference/Kernels.h"

#include <gtest/gtest.h>

using namespace nnaccel;
using namespace nnaccel::reference;
using nnaccel::reference::test::expectTensorNear;
using nnaccel::reference::test::seqTensor;

namespace {
// 1x3x2x5
const std::vector<float> kConv2dAsym = {
    -0.890625, 0.375,    0.15625,  -0.0625,   0.21875,   0.21875,   0,       0.671875,
    0.453125,  0.46875,  0.734375, -0.953125, -0.5625,   -0.171875, 0.25,    2.484375,
    3.03125,   0.90625,  1.453125, 0.015625,  -0.3125,   -0.5,      -0.6875, -0.875,
    -0.3125,   0.890625, 0.421875, -0.640625, -1.109375, -0.4375};
// 1x4x4x4
const std::vector<float> kConv2dGroup2 = {
    0.8125,    1.109375,  1.484375,  0.984375,  1.703125,  -0.328125, -1.671875, -2.09375,
    -0.515625, -2.4375,   -2,        -1.203125, 1.484375,  1.53125,   0.75,      0.5,
    0.3125,    0.265625,  0.75,      0.53125,   1.171875,  -0.96875,  -2,        -2.109375,
    -0.609375, -2.421875, -1.671875, -0.78125,  1.765625,  2.15625,   1.484375,  1.125,
    -0.5625,   -0.578125, -0.578125, -0.4375,   0.28125,   -0.5625,   -0.6875,   -0.765625,
    0.125,     0.421875,  1.484375,  1,         -0.828125, 0.515625,  2.328125,  2,
    -0.3125,   -0.296875, -0.484375, -0.4375,   -0.609375, -1.296875, -1.40625,  -1.140625,
    -0.03125,  0.34375,   1.71875,   1.65625,   0.203125,  1.671875,  3.890625,  3.96875};
// 2x6x2x2
const std::vector<float> kConv2dDepthwise = {
    -0.484375, -1.421875, -0.03125,  0.890625,  0.234375,  0.5625,    1.171875,  0.015625,
    -0.5,      -0.296875, -2.09375,  -1.359375, 1.0625,    0.28125,   0.375,     0.109375,
    -0.109375, 2.921875,  -0.578125, -1.65625,  -0.375,    -0.28125,  -0.40625,  -0.515625,
    1.078125,  1.15625,   1.53125,   1.953125,  -1.015625, -1.078125, 0,         0.390625,
    1.375,     1.5625,    -1.546875, -2.265625, 0.125,     0.59375,   -0.328125, 0,
    -0.296875, -0.09375,  1.328125,  -0.078125, -0.703125, -0.6875,   -0.046875, 0.078125};
// 1x2x3
const std::vector<float> kConv1d = {-0.78125, -1.296875, -0.765625, -0.90625, -0.859375, -0.984375};
// 1x2x2x2x2
const std::vector<float> kConv3d = {-0.3125,  0,        0.625,     0.9375, -1.953125, -2.53125,
                                    -1.90625, -1.59375, -3.828125, -4,     -4.34375,  -4.515625,
                                    -0.03125, 2.171875, 1.828125,  1.65625};
// 1x4x7x9
const std::vector<float> kConvT2d = {
    0.4375,    0.875, 0.046875,  0.875, -0.28125,  0.875, 0.203125,  0.875, 0.59375,
    1.375,     0.875, 1.71875,   0.875, 1.9375,    0.875, 1.53125,   0.875, 1.1875,
    0.765625,  0.875, 0.75,      0.875, 0.84375,   0.875, 1,         0.875, 1.015625,
    1.140625,  0.875, 1.34375,   0.875, 1.515625,  0.875, 1.34375,   0.875, 1.140625,
    1.09375,   0.875, 1.453125,  0.875, 1.96875,   0.875, 1.796875,  0.875, 1.4375,
    0.59375,   0.875, 0.203125,  0.875, -0.28125,  0.875, 0.046875,  0.875, 0.4375,
    0.875,     0.875, 0.875,     0.875, 0.875,     0.875, 0.875,     0.875, 0.875,
    0.9375,    0.75,  1.015625,  0.75,  1,         0.75,  0.859375,  0.75,  0.78125,
    0.84375,   0.75,  0.765625,  0.75,  0.546875,  0.75,  0.546875,  0.75,  0.625,
    0.796875,  0.75,  0.78125,   0.75,  0.71875,   0.75,  0.71875,   0.75,  0.734375,
    0.5625,    0.75,  0.296875,  0.75,  -0.015625, 0.75,  0.265625,  0.75,  0.53125,
    0.65625,   0.75,  0.546875,  0.75,  0.4375,    0.75,  0.578125,  0.75,  0.6875,
    0.75,      0.75,  0.78125,   0.75,  0.859375,  0.75,  0.90625,   0.75,  0.875,
    0.75,      0.75,  0.75,      0.75,  0.75,      0.75,  0.75,      0.75,  0.75,
    1.09375,   0.625, 1.734375,  0.625, 2.5625,    0.625, 2.140625,  0.625, 1.5,
    1.703125,  0.625, 1.6875,    0.625, 0.90625,   0.625, -0.96875,  0.625, -0.953125,
    1.375,     0.625, 2.34375,   0.625, 1.765625,  0.625, 0.765625,  0.625, -0.5,
    1.375,     0.625, -0.0625,   0.625, -4.25,     0.625, -0.15625,  0.625, 1.28125,
    -0.125,    0.625, -0.90625,  0.625, -1.703125, 0.625, -0.90625,  0.625, -0.125,
    -0.5,      0.625, 0.765625,  0.625, 1.765625,  0.625, 2.34375,   0.625, 1.375,
    0.625,     0.625, 0.625,     0.625, 0.625,     0.625, 0.625,     0.625, 0.625,
    0.1875,    0.5,   -0.109375, 0.5,   -0.375,    0.5,   -0.015625, 0.5,   0.28125,
    -0.453125, 0.5,   -1.328125, 0.5,   -0.015625, 0.5,   0.734375,  0.5,   1.3125,
    0,         0.5,   -0.4375,   0.5,   0.390625,  0.5,   0.640625,  0.5,   0.78125,
    1.25,      0.5,   1.875,     0.5,   2.703125,  0.5,   1.75,      0.5,   0.828125,
    1,         0.5,   1.3125,    0.5,   1.453125,  0.5,   1,         0.5,   0.6875,
    0.625,     0.5,   0.609375,  0.5,   0.46875,   0.5,   0.390625,  0.5,   0.40625,
    0.5,       0.5,   0.5,       0.5,   0.5,       0.5,   0.5,       0.5,   0.5};
// 1x1x8
const std::vector<float> kConvT1d = {0.390625, 0.109375,  0.40625, -0.03125,
                                     0.421875, -0.171875, -0.125,  0.25};

struct ConvCase {
  Dims x, w;
  int64_t group = 1;
  Dims strides, dilations, padsBegin, padsEnd, outputPadding;
  bool transposed = false;
};

/// The parameters OpParams would resolve for \p c (output extent by the ONNX formulas;
/// ConvTranspose's padsEnd absorbs output_padding).
ir::ConvParams paramsFor(const ConvCase& c) {
  ir::ConvParams p;
  p.spatialRank = static_cast<int64_t>(c.x.size()) - 2;
  p.batch = c.x[0];
  p.inChannels = c.x[1];
  p.group = c.group;
  p.transposed = c.transposed;
  p.outChannels = c.transposed ? c.w[1] * c.group : c.w[0];
  p.kernel.assign(c.w.begin() + 2, c.w.end());
  p.inSpatial.assign(c.x.begin() + 2, c.x.end());
  p.strides = c.strides;
  p.dilations = c.dilations;
  p.padsBegin = c.padsBegin;
  p.outputPadding = c.outputPadding.empty() ? Dims(p.inSpatial.size(), 0) : c.outputPadding;
  for (size_t i = 0; i < p.inSpatial.size(); ++i) {
    const int64_t dk = (p.kernel[i] - 1) * p.dilations[i] + 1;
    if (c.transposed) {
      p.outSpatial.push_back(p.strides[i] * (p.inSpatial[i] - 1) + p.outputPadding[i] + dk -
                             c.padsBegin[i] - c.padsEnd[i]);
      p.padsEnd.push_back(c.padsEnd[i] - p.outputPadding[i]);
    } else {
      p.outSpatial.push_back((p.inSpatial[i] + c.padsBegin[i] + c.padsEnd[i] - dk) / p.strides[i] +
                             1);
      p.padsEnd.push_back(c.padsEnd[i]);
    }
  }
  return p;
}

Dims outShape(const ir::ConvParams& p) {
  Dims d{p.batch, p.outChannels};
  d.insert(d.end(), p.outSpatial.begin(), p.outSpatial.end());
  return d;
}
} // namespace

TEST(ConvKernels, Conv2dStridesAsymmetricPadsDilationBias) {
  // Also exercises a negative oneDNN right padding: (5 + 1 - 3) / 2 leaves a remainder.
  const ConvCase c{.x = {1, 2, 5, 6},
                   .w = {3, 2, 3, 2},
                   .strides = {2, 1},
                   .dilations = {1, 2},
                   .padsBegin = {1, 0},
                   .padsEnd = {0, 1}};
  const ir::ConvParams p = paramsFor(c);
  const Tensor b = seqTensor({3}, 3);
  const Tensor y = conv(p, seqTensor(c.x, 1), seqTensor(c.w, 2), &b);
  expectTensorNear(y, {1, 3, 2, 5}, kConv2dAsym);
}

TEST(ConvKernels, Conv2dGroups) {
  const ConvCase c{.x = {1, 4, 4, 4},
                   .w = {4, 2, 3, 3},
                   .group = 2,
                   .strides = {1, 1},
                   .dilations = {1, 1},
                   .padsBegin = {1, 1},
                   .padsEnd = {1, 1}};
  const Tensor y = conv(paramsFor(c), seqTensor(c.x, 4), seqTensor(c.w, 5), nullptr);
  expectTensorNear(y, {1, 4, 4, 4}, kConv2dGroup2);
}

TEST(ConvKernels, DepthwiseWithMultiplierStrideDilation) {
  const ConvCase c{.x = {2, 3, 6, 5},
                   .w = {6, 1, 3, 3},
                   .group = 3,
                   .strides = {2, 2},
                   .dilations = {2, 2},
                   .padsBegin = {1, 2},
                   .padsEnd = {1, 0}};
  const ir::ConvParams p = paramsFor(c);
  EXPECT_TRUE(p.isDepthwise());
  const Tensor b = seqTensor({6}, 8);
  const Tensor y = conv(p, seqTensor(c.x, 6), seqTensor(c.w, 7), &b);
  expectTensorNear(y, {2, 6, 2, 2}, kConv2dDepthwise);
}

TEST(ConvKernels, Conv1d) {
  const ConvCase c{.x = {1, 2, 7},
                   .w = {2, 2, 3},
                   .strides = {2},
                   .dilations = {2},
                   .padsBegin = {2},
                   .padsEnd = {1}};
  const Tensor b = seqTensor({2}, 11);
  const Tensor y = conv(paramsFor(c), seqTensor(c.x, 9), seqTensor(c.w, 10), &b);
  expectTensorNear(y, {1, 2, 3}, kConv1d);
}

TEST(ConvKernels, Conv3d) {
  const ConvCase c{.x = {1, 1, 3, 3, 3},
                   .w = {2, 1, 2, 2, 2},
                   .strides = {1, 1, 1},
                   .dilations = {1, 1, 1},
                   .padsBegin = {0, 0, 0},
                   .padsEnd = {0, 0, 0}};
  const Tensor b = seqTensor({2}, 14);
  const Tensor y = conv(paramsFor(c), seqTensor(c.x, 12), seqTensor(c.w, 13), &b);
  expectTensorNear(y, {1, 2, 2, 2, 2}, kConv3d);
}

TEST(ConvKernels, HandComputedConv) {
  // 1x1x3x3 input 1..9, 2x2 kernel of ones, stride 1, no pad: window sums.
  const ConvCase c{.x = {1, 1, 3, 3},
                   .w = {1, 1, 2, 2},
                   .strides = {1, 1},
                   .dilations = {1, 1},
                   .padsBegin = {0, 0},
                   .padsEnd = {0, 0}};
  const Tensor x = test::tensorOf<float>(c.x, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  const Tensor w = test::tensorOf<float>(c.w, {1, 1, 1, 1});
  const Tensor b = test::tensorOf<float>({1}, {0.5f});
  expectTensorNear(conv(paramsFor(c), x, w, &b), {1, 1, 2, 2}, {12.5f, 16.5f, 24.5f, 28.5f});
}

TEST(ConvKernels, ConvTranspose2dGroupsStridesPadsDilationOutputPadding) {
  const ConvCase c{.x = {1, 2, 3, 3},
                   .w = {2, 2, 3, 3},
                   .group = 2,
                   .strides = {2, 2},
                   .dilations = {1, 2},
                   .padsBegin = {1, 0},
                   .padsEnd = {0, 1},
                   .outputPadding = {1, 1},
                   .transposed = true};
  const ir::ConvParams p = paramsFor(c);
  ASSERT_EQ(outShape(p), (Dims{1, 4, 7, 9}));
  const Tensor b = seqTensor({4}, 17);
  const Tensor y = conv(p, seqTensor(c.x, 15), seqTensor(c.w, 16), &b);
  expectTensorNear(y, outShape(p), kConvT2d);
}

TEST(ConvKernels, ConvTranspose1dOutputPaddingGetsOnlyBias) {
  // The last output position is reached by no input (output_padding): it holds the bias.
  const ConvCase c{.x = {1, 1, 3},
                   .w = {1, 1, 3},
                   .strides = {2},
                   .dilations = {1},
                   .padsBegin = {0},
                   .padsEnd = {0},
                   .outputPadding = {1},
                   .transposed = true};
  const Tensor b = seqTensor({1}, 20);
  const Tensor y = conv(paramsFor(c), seqTensor(c.x, 18), seqTensor(c.w, 19), &b);
  expectTensorNear(y, {1, 1, 8}, kConvT1d);
  EXPECT_EQ(y.data<float>()[7], b.data<float>()[0]);
}

TEST(ConvKernels, DilatedConvTransposePastItsFullOutputGetsOnlyBias) {
  // oneDNN 2.6 refuses a dilated deconvolution with a negative end padding; the kernel runs the
  // full output and extends it. x = [1, 2, 3], w = [1, 1], dilation 2: y[i + 2k] += x[i], full
  // output 5; output_padding 1 adds a sixth position no input reaches.
  const ConvCase c{.x = {1, 1, 3},
                   .w = {1, 1, 2},
                   .strides = {1},
                   .dilations = {2},
                   .padsBegin = {0},
                   .padsEnd = {0},
                   .outputPadding = {1},
                   .transposed = true};
  const Tensor b = test::tensorOf<float>({1}, {0.5f});
  const Tensor y = conv(paramsFor(c), test::tensorOf<float>(c.x, {1, 2, 3}),
                        test::tensorOf<float>(c.w, {1, 1}), &b);
  expectTensorNear(y, {1, 1, 6}, {1.5f, 2.5f, 4.5f, 2.5f, 3.5f, 0.5f});
}

TEST(ConvKernels, DilatedConvTranspose2dPastItsFullOutputExtendsTheRowsWithBias) {
  // Batch 2, 2 -> 3 channels, dilation 3 along y with output_padding 2: the first rows are the
  // same convolution without output_padding, the last 2 rows of every plane the bias.
  ConvCase c{.x = {2, 2, 4, 3},
             .w = {2, 3, 2, 2},
             .strides = {1, 1},
             .dilations = {3, 1},
             .padsBegin = {0, 0},
             .padsEnd = {0, 0},
             .outputPadding = {2, 0},
             .transposed = true};
  const Tensor x = seqTensor(c.x, 31), w = seqTensor(c.w, 32), b = seqTensor({3}, 33);
  const ir::ConvParams p = paramsFor(c);
  const Tensor y = conv(p, x, w, &b);
  c.outputPadding = {0, 0};
  const Tensor full = conv(paramsFor(c), x, w, &b);
  ASSERT_EQ(y.shape(), (Dims{2, 3, 9, 4}));
  ASSERT_EQ(full.shape(), (Dims{2, 3, 7, 4}));
  for (int64_t plane = 0; plane < 6; ++plane)
    for (int64_t row = 0; row < 9; ++row)
      for (int64_t col = 0; col < 4; ++col) {
        const float got = y.data<float>()[(plane * 9 + row) * 4 + col];
        EXPECT_FLOAT_EQ(got, row < 7 ? full.data<float>()[(plane * 7 + row) * 4 + col]
                                     : b.data<float>()[plane % 3]);
      }
}

TEST(ConvKernels, HandComputedConvTranspose) {
  // x = [1, 2, 3], w = [1, 1, 1], stride 2: y[2i + k] += x[i].
  const ConvCase c{.x = {1, 1, 3},
                   .w = {1, 1, 3},
                   .strides = {2},
                   .dilations = {1},
                   .padsBegin = {0},
                   .padsEnd = {0},
                   .transposed = true};
  const Tensor x = test::tensorOf<float>(c.x, {1, 2, 3});
  const Tensor w = test::tensorOf<float>(c.w, {1, 1, 1});
  expectTensorNear(conv(paramsFor(c), x, w, nullptr), {1, 1, 7}, {1, 1, 3, 2, 5, 3, 3});
}

TEST(ConvKernels, RejectsNonFloatInput) {
  const ConvCase c{.x = {1, 1, 3},
                   .w = {1, 1, 1},
                   .strides = {1},
                   .dilations = {1},
                   .padsBegin = {0},
                   .padsEnd = {0}};
  const Tensor x(DType::I8, c.x);
  try {
    conv(paramsFor(c), x, seqTensor(c.w, 1), nullptr);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Unsupported);
    EXPECT_STREQ(e.what(), "Conv on s8 input is not supported (expected f32)");
  }
}
