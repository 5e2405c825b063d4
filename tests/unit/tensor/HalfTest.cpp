/// \file
/// Tests of tensor/Half.h: binary16 decoding and rounding to half precision, against values
/// worked out from the format (1 sign, 5 exponent bits of bias 15, 10 mantissa bits).
#include "nnaccel/tensor/Half.h"

#include <cmath>
#include <gtest/gtest.h>

namespace nnaccel {
namespace {

TEST(Half, BitPatternsDecodeExactly) {
  EXPECT_EQ(halfBitsToFloat(0x3c00), 1.0f);
  EXPECT_EQ(halfBitsToFloat(0xc000), -2.0f);
  EXPECT_EQ(halfBitsToFloat(0x7bff), 65504.0f);              // the largest half
  EXPECT_EQ(halfBitsToFloat(0x0400), std::ldexp(1.0f, -14)); // the smallest normal
  EXPECT_EQ(halfBitsToFloat(0x0001), std::ldexp(1.0f, -24)); // the smallest subnormal
  EXPECT_EQ(halfBitsToFloat(0x3555), 0.333251953125f);       // 1/3 rounded
  EXPECT_EQ(halfBitsToFloat(0x7c00), INFINITY);
  EXPECT_TRUE(std::signbit(halfBitsToFloat(0x8000))); // -0
  EXPECT_TRUE(std::isnan(halfBitsToFloat(0x7e00)));
}

TEST(Half, RoundingIsToNearestEvenWithOverflowToInfinity) {
  EXPECT_EQ(roundToHalf(1.0f / 3.0f), 0.333251953125f);
  EXPECT_EQ(roundToHalf(1.0f + std::ldexp(1.0f, -11)), 1.0f); // a tie: to the even 1.0
  EXPECT_EQ(roundToHalf(1.0f + 3 * std::ldexp(1.0f, -11)), 1.0f + std::ldexp(1.0f, -9));
  EXPECT_EQ(roundToHalf(65519.0f), 65504.0f);
  EXPECT_EQ(roundToHalf(65520.0f), INFINITY); // the tie above 65504
  EXPECT_EQ(roundToHalf(-1e6f), -INFINITY);
  EXPECT_EQ(roundToHalf(std::ldexp(1.0f, -25)), 0.0f); // half the smallest: to 0
  EXPECT_EQ(roundToHalf(std::ldexp(3.0f, -26)), std::ldexp(1.0f, -24));
  EXPECT_TRUE(std::isnan(roundToHalf(NAN)));
  for (uint32_t bits = 0; bits < 0x7c00; bits += 37) { // every finite half is a fixed point
    const float h = halfBitsToFloat(static_cast<uint16_t>(bits));
    EXPECT_EQ(roundToHalf(h), h) << bits;
  }
}

} // namespace
} // namespace nnaccel
