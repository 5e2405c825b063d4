/// \file
/// Tests of QuantizeLinear and DequantizeLinear (reference/QuantizeKernels.cpp): rounding half to
/// even, saturation, per-axis parameters, and the round trip.
#include "TestUtil.h"
#include "nnaccel/ir/OpParams.h"
#include "nnaccel/reference/Kernels.h"

#include <gtest/gtest.h>

namespace nnaccel::reference {
namespace {

using test::valuesOf;

TEST(QuantizeLinear, RoundsHalfToEvenAndSaturates) {
  ir::QdqParams p;
  p.scales = {0.5f};
  p.zeros = {10};
  p.quantized = DType::U8;
  // x / 0.5 = 0.5, 1.5, 2.5, -0.5, -30, 500 -> 0, 2, 2, -0 (+10), saturated at 0 and 255
  const Tensor x = Tensor::fromVector<float>({6}, {0.25f, 0.75f, 1.25f, -0.25f, -15.0f, 250.0f});
  EXPECT_EQ(valuesOf<uint8_t>(quantizeLinear(p, x)),
            (std::vector<uint8_t>{10, 12, 12, 10, 0, 255}));
  p.quantized = DType::I8;
  p.zeros = {0};
  EXPECT_EQ(valuesOf<int8_t>(quantizeLinear(p, x)), (std::vector<int8_t>{0, 2, 2, 0, -30, 127}));
}

TEST(QuantizeLinear, PerAxisParametersFollowTheAxis) {
  ir::QdqParams p;
  p.axis = 1;
  p.scales = {1.0f, 0.5f};
  p.zeros = {0, -1};
  p.quantized = DType::I8;
  const Tensor x = Tensor::fromVector<float>({1, 2, 2}, {1.0f, 2.0f, 1.0f, 2.0f});
  const Tensor q = quantizeLinear(p, x);
  EXPECT_EQ(valuesOf<int8_t>(q), (std::vector<int8_t>{1, 2, 1, 3}));
  EXPECT_EQ(valuesOf<float>(dequantizeLinear(p, q)), (std::vector<float>{1.0f, 2.0f, 1.0f, 2.0f}));
}

TEST(DequantizeLinear, Int32BiasesScaleWithoutZeroPoint) {
  ir::QdqParams p;
  p.scales = {0.125f};
  p.zeros = {0};
  p.quantized = DType::I32;
  EXPECT_EQ(valuesOf<float>(dequantizeLinear(p, Tensor::fromVector<int32_t>({2}, {-8, 100000}))),
            (std::vector<float>{-1.0f, 12500.0f}));
}

} // namespace
} // namespace nnaccel::reference
