/// \file
/// Tests of ConvInteger, MatMulInteger and DynamicQuantizeLinear (reference/IntegerKernels.cpp):
/// reductions far beyond 2^24, which the kernels sum in exact f32 chunks, equal an int64 loop
/// over the same integers; per-channel and per-column zero points; a zero point that fits no
/// axis is an error; an all-zero input quantizes to scale 0 and codes 0.
#include "TestUtil.h"
#include "nnaccel/reference/Kernels.h"
#include "nnaccel/support/Error.h"

#include <gtest/gtest.h>
#include <random>

namespace nnaccel::reference {
namespace {

using test::valuesOf;

template <typename T> Tensor randomCodes(Dims shape, int lo, int hi, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> code(lo, hi);
  Tensor t(std::is_same_v<T, uint8_t> ? DType::U8 : DType::I8, std::move(shape));
  for (int64_t i = 0; i < t.numElements(); ++i)
    t.data<T>()[i] = static_cast<T>(code(rng));
  return t;
}

/// A 3x3, pad 1, stride 1 convolution of x [1, C, 5, 5] with w [M, C, 3, 3].
ir::ConvParams conv3x3(int64_t c, int64_t m) {
  ir::ConvParams p;
  p.inChannels = c;
  p.outChannels = m;
  p.inSpatial = p.outSpatial = {5, 5};
  p.kernel = {3, 3};
  p.strides = p.dilations = {1, 1};
  p.padsBegin = p.padsEnd = {1, 1};
  p.outputPadding = {0, 0};
  return p;
}

TEST(ConvInteger, ReductionsBeyondTwoToThe24EqualAnInt64Loop) {
  // 64 channels x 9 taps of (x - 3) * (w - wz[m]), large and of one sign (x in [200, 255],
  // w - wz up to 255): the sums pass 2^24, where one f32 sum would drop low bits, so the kernel
  // sums chunks of channels; the result must equal the plain integer loop.
  const int64_t c = 64, m = 4;
  const Tensor x = randomCodes<uint8_t>({1, c, 5, 5}, 200, 255, 1);
  const Tensor w = randomCodes<int8_t>({m, c, 3, 3}, 90, 127, 2);
  const Tensor xz = Tensor::scalar<uint8_t>(3);
  const Tensor wz = Tensor::fromVector<int8_t>({m}, {-128, -100, -7, 0});
  const Tensor y = convInteger(conv3x3(c, m), x, w, &xz, &wz);
  ASSERT_EQ(y.dtype(), DType::I32);
  ASSERT_EQ(y.shape(), (Dims{1, m, 5, 5}));
  int64_t largest = 0;
  for (int64_t o = 0; o < m; ++o)
    for (int64_t r = 0; r < 5; ++r)
      for (int64_t q = 0; q < 5; ++q) {
        int64_t sum = 0;
        for (int64_t ci = 0; ci < c; ++ci)
          for (int64_t kr = 0; kr < 3; ++kr)
            for (int64_t kc = 0; kc < 3; ++kc) {
              const int64_t ir = r + kr - 1, ic = q + kc - 1;
              if (ir < 0 || ir >= 5 || ic < 0 || ic >= 5)
                continue;
              const int64_t xv = x.data<uint8_t>()[(ci * 5 + ir) * 5 + ic] - 3;
              const int64_t wv =
                  w.data<int8_t>()[((o * c + ci) * 3 + kr) * 3 + kc] - wz.data<int8_t>()[o];
              sum += xv * wv;
            }
        largest = std::max(largest, std::abs(sum));
        ASSERT_EQ(y.data<int32_t>()[(o * 5 + r) * 5 + q], sum) << o << "," << r << "," << q;
      }
  EXPECT_GT(largest, int64_t{1} << 24); // beyond what one f32 sum holds exactly
}

TEST(MatMulInteger, ReductionsBeyondTwoToThe24EqualAnInt64Loop) {
  // K = 2000 products of up to 255 * 255 per output, per-column zero points of B: the first
  // columns' sums pass 2^24.
  const int64_t rows = 3, k = 2000, cols = 5;
  const Tensor a = randomCodes<uint8_t>({rows, k}, 200, 255, 3);
  const Tensor b = randomCodes<uint8_t>({k, cols}, 0, 255, 4);
  const Tensor az = Tensor::scalar<uint8_t>(0);
  const Tensor bz = Tensor::fromVector<uint8_t>({cols}, {0, 1, 128, 200, 255});
  int64_t largest = 0;
  const Tensor y = matmulInteger(a, b, &az, &bz);
  ASSERT_EQ(y.shape(), (Dims{rows, cols}));
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t j = 0; j < cols; ++j) {
      int64_t sum = 0;
      for (int64_t i = 0; i < k; ++i)
        sum += int64_t{a.data<uint8_t>()[r * k + i]} *
               (int64_t{b.data<uint8_t>()[i * cols + j]} - bz.data<uint8_t>()[j]);
      largest = std::max(largest, std::abs(sum));
      ASSERT_EQ(y.data<int32_t>()[r * cols + j], sum) << r << "," << j;
    }
  EXPECT_GT(largest, int64_t{1} << 24);
}

TEST(MatMulInteger, AZeroPointThatFitsNoAxisIsAnError) {
  const Tensor a = randomCodes<uint8_t>({2, 4}, 0, 255, 5);
  const Tensor b = randomCodes<uint8_t>({4, 3}, 0, 255, 6);
  const Tensor bz = Tensor::fromVector<uint8_t>({2}, {1, 2}); // 3 columns
  try {
    matmulInteger(a, b, nullptr, &bz);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Unsupported);
    EXPECT_NE(std::string(e.what()).find("a zero point of 2 values does not match axis 1"),
              std::string::npos)
        << e.what();
  }
}

TEST(DynamicQuantizeLinear, AnAllZeroInputHasScaleZeroAndCodesZero) {
  const std::vector<Tensor> r = dynamicQuantizeLinear(Tensor(DType::F32, {4}));
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(valuesOf<uint8_t>(r[0]), (std::vector<uint8_t>{0, 0, 0, 0}));
  EXPECT_EQ(r[1].data<float>()[0], 0.0f);
  EXPECT_EQ(r[2].data<uint8_t>()[0], 0);
  // A positive-only input: the range still holds 0, so 0 is code 0 and the maximum code 255.
  const std::vector<Tensor> p =
      dynamicQuantizeLinear(Tensor::fromVector<float>({3}, {0, 1, 2.55f}));
  EXPECT_EQ(p[2].data<uint8_t>()[0], 0);
  EXPECT_EQ(valuesOf<uint8_t>(p[0]), (std::vector<uint8_t>{0, 100, 255}));
}

} // namespace
} // namespace nnaccel::reference
