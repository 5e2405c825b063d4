// Tests of the pooling kernels against naive numpy loops (expected_values.py) with ONNX
// semantics: ceil_mode, dilations, pads, count_include_pad (the ceil_mode overhang past pads_end
// is not counted), global pooling, 1-D and int8 max pooling, and a max pooling shape oneDNN has no
// plain-layout jit kernel for (run channels-last) against a direct loop.
#include "TestUtil.h"
#include "nnaccel/reference/Kernels.h"

#include <algorithm>
#include <gtest/gtest.h>

using namespace nnaccel;
using namespace nnaccel::reference;
using nnaccel::reference::test::expectTensorNear;
using nnaccel::reference::test::seqTensor;

namespace {
// 1x2x4x4
const std::vector<float> kMaxCeil = {0.875, 0.75,  1.125, 1,     0.875, 0.75,  1.125,  1.125,
                                     1,     0.875, 1.125, 1.125, 0.25,  0.125, -0.125, -0.375,
                                     1.125, 1,     0.75,  0.5,   1.125, 1,     0.75,   0.5,
                                     1.125, 1.125, 0.875, 0.625, 0.5,   0.375, 0.125,  -0.125};
// 1x2x4x3
const std::vector<float> kMaxDilated = {0,     0,     1,     0.75,  0.75,  1.125, 0.875, 0.875,
                                        0.625, 0.125, 0.125, 1.125, 0.25,  0.25,  0,     1,
                                        1,     0.75,  1.125, 1.125, 0.875, 0.375, 0.375, 0.125};
// 1x2x3x3
const std::vector<float> kAvgExclude = {
    0,           -0.1875,       0.354166657,  0.0625, -0.125,      -0.111111112,
    0.145833328, -0.0416666679, -0.027777778, 0.25,   0.0625,      -0.1875,
    0.3125,      0.125,         -0.125,       0,      0.208333328, -0.0416666679};
// 1x2x3x3
const std::vector<float> kAvgInclude = {0,
                                        -0.125,
                                        0.236111104,
                                        0.0416666679,
                                        -0.125,
                                        -0.111111112,
                                        0.0972222239,
                                        -0.0416666679,
                                        -0.027777778,
                                        0.111111112,
                                        0.0416666679,
                                        -0.125,
                                        0.208333328,
                                        0.125,
                                        -0.125,
                                        0,
                                        0.208333328,
                                        -0.0416666679};
// 1x2x4x4
const std::vector<float> kAvgIncludeCeil = {0,
                                            -0.125,
                                            0.236111104,
                                            0.208333328,
                                            0.0416666679,
                                            -0.125,
                                            -0.111111112,
                                            0.145833328,
                                            0.0972222239,
                                            -0.0416666679,
                                            -0.027777778,
                                            0.1875,
                                            0.0625,
                                            0,
                                            -0.125,
                                            -0.09375,
                                            0.111111112,
                                            0.0416666679,
                                            -0.125,
                                            -0.104166664,
                                            0.208333328,
                                            0.125,
                                            -0.125,
                                            -0.125,
                                            0,
                                            0.208333328,
                                            -0.0416666679,
                                            -0.0833333358,
                                            0.145833328,
                                            0.125,
                                            0,
                                            -0.03125};
// 1x2x4x4
const std::vector<float> kAvgExcludeCeil = {0,
                                            -0.1875,
                                            0.354166657,
                                            0.625,
                                            0.0625,
                                            -0.125,
                                            -0.111111112,
                                            0.291666657,
                                            0.145833328,
                                            -0.0416666679,
                                            -0.027777778,
                                            0.375,
                                            0.1875,
                                            0,
                                            -0.25,
                                            -0.375,
                                            0.25,
                                            0.0625,
                                            -0.1875,
                                            -0.3125,
                                            0.3125,
                                            0.125,
                                            -0.125,
                                            -0.25,
                                            0,
                                            0.208333328,
                                            -0.0416666679,
                                            -0.166666672,
                                            0.4375,
                                            0.25,
                                            0,
                                            -0.125};
// 1x1x3
const std::vector<float> kAvgIncludeAsymCeil = {0.208333328, 0.375, 0, -0.125};
// 1x2x4
const std::vector<float> kMax1d = {-0.375, -0.5, -0.75, 1.125, 0.875, 0.75, 0.5, 0.25};

using Kind = ir::PoolParams::Kind;

/// The parameters OpParams would resolve (ceil_mode drops a last window starting in the pad).
ir::PoolParams paramsFor(Kind kind, const Dims& x, Dims kernel, Dims strides, Dims dilations,
                         Dims padsBegin, Dims padsEnd, bool ceil, bool includePad) {
  ir::PoolParams p;
  p.kind = kind;
  p.spatialRank = static_cast<int64_t>(x.size()) - 2;
  p.batch = x[0];
  p.channels = x[1];
  p.inSpatial.assign(x.begin() + 2, x.end());
  p.kernel = kernel;
  p.strides = strides;
  p.dilations = dilations;
  p.padsBegin = padsBegin;
  p.padsEnd = padsEnd;
  p.ceilMode = ceil;
  p.countIncludePad = includePad;
  for (size_t i = 0; i < p.inSpatial.size(); ++i) {
    const int64_t span =
        p.inSpatial[i] + padsBegin[i] + padsEnd[i] - ((kernel[i] - 1) * dilations[i] + 1);
    int64_t out = (ceil ? (span + strides[i] - 1) / strides[i] : span / strides[i]) + 1;
    if (ceil && (out - 1) * strides[i] >= p.inSpatial[i] + padsBegin[i]) {
      --out;
    }
    p.outSpatial.push_back(out);
  }
  return p;
}

const Dims kPoolX{1, 2, 6, 6};
} // namespace

TEST(PoolKernels, MaxPoolCeilMode) {
  const auto p = paramsFor(Kind::Max, kPoolX, {3, 3}, {2, 2}, {1, 1}, {1, 1}, {1, 1}, true, false);
  expectTensorNear(pool(p, seqTensor(kPoolX, 21)), {1, 2, 4, 4}, kMaxCeil);
}

TEST(PoolKernels, MaxPoolDilations) {
  const auto p = paramsFor(Kind::Max, kPoolX, {2, 2}, {1, 2}, {2, 2}, {0, 1}, {0, 0}, false, false);
  expectTensorNear(pool(p, seqTensor(kPoolX, 21)), {1, 2, 4, 3}, kMaxDilated);
}

TEST(PoolKernels, AveragePoolExcludePad) {
  const auto p =
      paramsFor(Kind::Average, kPoolX, {3, 3}, {2, 2}, {1, 1}, {1, 1}, {1, 1}, false, false);
  expectTensorNear(pool(p, seqTensor(kPoolX, 21)), {1, 2, 3, 3}, kAvgExclude);
}

TEST(PoolKernels, AveragePoolIncludePad) {
  const auto p =
      paramsFor(Kind::Average, kPoolX, {3, 3}, {2, 2}, {1, 1}, {1, 1}, {1, 1}, false, true);
  expectTensorNear(pool(p, seqTensor(kPoolX, 21)), {1, 2, 3, 3}, kAvgInclude);
}

TEST(PoolKernels, AveragePoolIncludePadCeilDoesNotCountOverhang) {
  const auto p =
      paramsFor(Kind::Average, kPoolX, {3, 3}, {2, 2}, {1, 1}, {1, 1}, {1, 1}, true, true);
  const Tensor y = pool(p, seqTensor(kPoolX, 21));
  expectTensorNear(y, {1, 2, 4, 4}, kAvgIncludeCeil);
}

TEST(PoolKernels, AveragePoolExcludePadCeil) {
  const auto p =
      paramsFor(Kind::Average, kPoolX, {3, 3}, {2, 2}, {1, 1}, {1, 1}, {1, 1}, true, false);
  expectTensorNear(pool(p, seqTensor(kPoolX, 21)), {1, 2, 4, 4}, kAvgExcludeCeil);
}

TEST(PoolKernels, AveragePoolIncludePadCeilAsymmetric1d) {
  // x = 8, k = 3, s = 3, pads (2, 1): the last window covers x[7], the pad and the overhang.
  const Dims x{1, 1, 8};
  const auto p = paramsFor(Kind::Average, x, {3}, {3}, {1}, {2}, {1}, true, true);
  expectTensorNear(pool(p, seqTensor(x, 22)), {1, 1, 4}, kAvgIncludeAsymCeil);
}

TEST(PoolKernels, HandComputedAveragePoolCeilCountIncludePad) {
  // x = [1, 2, 3, 4], k=3, s=2, pads (1, 1), ceil: windows [-1..1], [1..3], [3..5]. The last
  // covers x[3], the explicit pad at 4 and the overhang at 5: divisor 2, not 3 (onnxruntime).
  const Dims x{1, 1, 4};
  const auto p = paramsFor(Kind::Average, x, {3}, {2}, {1}, {1}, {1}, true, true);
  ASSERT_EQ(p.outSpatial, Dims{3});
  const Tensor y = pool(p, test::tensorOf<float>(x, {1, 2, 3, 4}));
  expectTensorNear(y, {1, 1, 3}, {(0 + 1 + 2) / 3.0f, (2 + 3 + 4) / 3.0f, (4 + 0) / 2.0f});
}

TEST(PoolKernels, MaxPool1d) {
  const Dims x{1, 2, 9};
  const auto p = paramsFor(Kind::Max, x, {3}, {2}, {1}, {1}, {0}, false, false);
  expectTensorNear(pool(p, seqTensor(x, 23)), {1, 2, 4}, kMax1d);
}

TEST(PoolKernels, MaxPoolInt8) {
  const Dims x{1, 1, 2, 3};
  const auto p = paramsFor(Kind::Max, x, {2, 2}, {1, 1}, {1, 1}, {0, 0}, {0, 0}, false, false);
  const Tensor y = pool(p, test::tensorOf<int8_t>(x, {-128, 5, -3, 7, -1, 127}));
  EXPECT_EQ(test::valuesOf<int8_t>(y), (std::vector<int8_t>{7, 127}));
}

TEST(PoolKernels, MaxPoolUint8) {
  // Values above 127 must compare as unsigned (200 > 100), padding never wins.
  const Dims x{1, 1, 2, 3};
  const auto p = paramsFor(Kind::Max, x, {2, 2}, {1, 1}, {1, 1}, {1, 1}, {0, 0}, false, false);
  const Tensor y = pool(p, test::tensorOf<uint8_t>(x, {0, 200, 3, 100, 1, 255}));
  EXPECT_EQ(y.dtype(), DType::U8);
  EXPECT_EQ(test::valuesOf<uint8_t>(y), (std::vector<uint8_t>{0, 200, 200, 100, 200, 255}));
}

TEST(PoolKernels, LargeMaxPoolRunsChannelsLastExactly) {
  // VGG-16's first pool: oneDNN 2.6 would run it with its slow simple_nchw kernel on the plain
  // layout, so the kernel pools channels-last. A maximum is exact: compare with direct loops.
  const Dims x{1, 64, 224, 224};
  const auto p = paramsFor(Kind::Max, x, {2, 2}, {2, 2}, {1, 1}, {0, 0}, {0, 0}, false, false);
  Tensor in(DType::F32, x);
  float* src = in.data<float>();
  for (int64_t i = 0; i < in.numElements(); ++i) {
    src[i] = static_cast<float>((i * 7919) % 10007) - 5003.0f;
  }
  const Tensor y = pool(p, in);
  ASSERT_EQ(y.shape(), (Dims{1, 64, 112, 112}));
  const float* dst = y.data<float>();
  int64_t mismatches = 0;
  for (int64_t c = 0; c < 64; ++c) {
    for (int64_t oh = 0; oh < 112; ++oh) {
      for (int64_t ow = 0; ow < 112; ++ow) {
        const float* win = src + (c * 224 + 2 * oh) * 224 + 2 * ow;
        const float want = std::max({win[0], win[1], win[224], win[225]});
        mismatches += dst[(c * 112 + oh) * 112 + ow] != want;
      }
    }
  }
  EXPECT_EQ(mismatches, 0);
}

TEST(PoolKernels, GlobalPools) {
  const Dims x{1, 2, 2, 3};
  const Tensor t = test::tensorOf<float>(x, {1, 2, 3, 4, 5, 6, -1, -2, -3, -4, -5, 12});
  ir::PoolParams p;
  p.global = true;
  p.spatialRank = 2;
  p.batch = 1;
  p.channels = 2;
  p.inSpatial = {2, 3};
  p.kind = Kind::Average;
  expectTensorNear(pool(p, t), {1, 2, 1, 1}, {3.5f, -0.5f});
  p.kind = Kind::Max;
  expectTensorNear(pool(p, t), {1, 2, 1, 1}, {6.0f, 12.0f});
}

TEST(PoolKernels, RejectsInt8AveragePool) {
  const Dims x{1, 1, 2, 2};
  const auto p = paramsFor(Kind::Average, x, {2, 2}, {1, 1}, {1, 1}, {0, 0}, {0, 0}, false, false);
  try {
    pool(p, Tensor(DType::I8, x));
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Unsupported);
    EXPECT_STREQ(e.what(), "average pooling on s8 input is not supported (expected f32)");
  }
}

TEST(PoolKernels, OneDnnRejectionBecomesUnsupportedError) {
  // Stride 0 (OpParams rejects it for ONNX models) is refused by oneDNN; the dnnl::error
  // surfaces as an nnaccel::Error, not as a foreign exception.
  const Dims x{1, 1, 4};
  auto p = paramsFor(Kind::Max, x, {2}, {1}, {1}, {0}, {0}, false, false);
  p.strides = {0};
  try {
    pool(p, Tensor(DType::F32, x));
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Unsupported);
    EXPECT_STREQ(e.what(), "oneDNN cannot run pooling: could not create a descriptor for a "
                           "pooling forward propagation primitive");
  }
}

TEST(PoolKernels, MaxPoolIndicesRowAndColumnMajor) {
  // Two planes (n = 0 and n = 1) of 2x3, 2x2 windows at stride 1: windows (0,0) and (0,1).
  // Plane 0 maxima: 5 at (0,1), 6 at (1,2). Plane 1 ties: the first in row-major window order,
  // (0,0) and (0,2). Flat index = plane * 6 + spatial offset, the spatial offset row-major
  // (h * 3 + w) or column-major for storage_order=1 (h + w * 2).
  const Dims x{2, 1, 2, 3};
  const Tensor in = test::tensorOf<float>(x, {1, 5, 2, 4, 3, 6, 9, 0, 9, 0, 9, 0});
  auto p = paramsFor(Kind::Max, x, {2, 2}, {1, 1}, {1, 1}, {0, 0}, {0, 0}, false, false);
  const Tensor rowMajor = maxPoolIndices(p, in);
  EXPECT_EQ(rowMajor.dtype(), DType::I64);
  EXPECT_EQ(rowMajor.shape(), (Dims{2, 1, 1, 2}));
  EXPECT_EQ(test::valuesOf<int64_t>(rowMajor), (std::vector<int64_t>{1, 5, 6, 8}));
  p.storageOrderColumnMajor = true;
  EXPECT_EQ(test::valuesOf<int64_t>(maxPoolIndices(p, in)), (std::vector<int64_t>{2, 5, 6, 10}));
  EXPECT_EQ(test::valuesOf<float>(pool(p, in)), (std::vector<float>{5, 6, 9, 9}));
}

TEST(PoolKernels, MaxPoolIndicesSkipPaddingWithDilation) {
  // 1x5 int8 row, kernel 1x2 dilated by 2, pads 1/1, stride 2: windows tap columns (-1, 1),
  // (1, 3), (3, 5); padding (and column 5) is never selected.
  const Dims x{1, 1, 1, 5};
  const Tensor in = test::tensorOf<int8_t>(x, {-128, 5, -3, 7, -1});
  const auto p = paramsFor(Kind::Max, x, {1, 2}, {1, 2}, {1, 2}, {0, 1}, {0, 1}, false, false);
  EXPECT_EQ(test::valuesOf<int64_t>(maxPoolIndices(p, in)), (std::vector<int64_t>{1, 3, 3}));
  EXPECT_EQ(test::valuesOf<int8_t>(pool(p, in)), (std::vector<int8_t>{5, 7, 7}));
  // A dilated window whose taps (-1 and 2) both miss the extent-2 axis reports -1.
  const Dims x2{1, 1, 1, 2};
  const auto empty = paramsFor(Kind::Max, x2, {1, 2}, {1, 1}, {1, 3}, {0, 1}, {0, 1}, false, false);
  ASSERT_EQ(empty.outSpatial, (Dims{1, 1}));
  EXPECT_EQ(test::valuesOf<int64_t>(maxPoolIndices(empty, test::tensorOf<float>(x2, {1, 2}))),
            (std::vector<int64_t>{-1}));
}
