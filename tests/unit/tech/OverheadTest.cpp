// The chip-level overhead shares (src/tech/Overhead.cpp): the clock network's share of power
// and area as DaDianNao's Table VI gives them, control's share of area as the TPU v1 paper's.
#include "nnaccel/tech/Overhead.h"

#include <gtest/gtest.h>

namespace nnaccel::tech {
namespace {

TEST(Overhead, PublishedSharesAreTheSourcesFigures) {
  const ChipShares s = publishedChipShares();
  EXPECT_DOUBLE_EQ(s.clockPower, 0.0448);        // the table's 4.48 %
  EXPECT_NEAR(s.clockPower, 0.71 / 15.97, 5e-4); // of its 0.71 W of 15.97 W, rounded
  EXPECT_DOUBLE_EQ(s.clockArea, 0.0087);
  EXPECT_DOUBLE_EQ(s.controlArea, 0.02);
  // Control's leakage is logic's: the Aladdin adder rate, 8.6 mW/mm^2.
  EXPECT_NEAR(logicLeakageWPerUm2() * 1e6, 8.6e-3, 0.1e-3);
}

} // namespace
} // namespace nnaccel::tech
