/// \file
/// LifetimeAllocator: blocks fit, spill when the buffer is full, reuse the bytes of retired
/// outputs, stay aligned, and live as long as their latest alias.
#include "nnaccel/arch/common/LifetimeAllocator.h"

#include <gtest/gtest.h>

namespace nnaccel::arch::common {
namespace {

TEST(LifetimeAllocator, PlacesBlocksFirstFitAndAligned) {
  LifetimeAllocator a(1024, 64);
  EXPECT_EQ(a.allocate(100, 5), 0);
  EXPECT_EQ(a.allocate(10, 5), 128); // after 100 bytes rounded up to 64
  EXPECT_EQ(a.liveBytes(), 110);
}

TEST(LifetimeAllocator, SpillsWhatDoesNotFit) {
  LifetimeAllocator a(256, 64);
  EXPECT_EQ(a.allocate(200, 3), 0);
  EXPECT_EQ(a.allocate(100, 3), std::nullopt); // 56 bytes left
  EXPECT_EQ(a.allocate(300, 9), std::nullopt); // larger than the buffer
  // An empty output still takes a byte, and the gap after 200 bytes starts aligned at 256.
  EXPECT_EQ(a.allocate(0, 3), std::nullopt);
}

TEST(LifetimeAllocator, ReusesTheBytesOfRetiredBlocks) {
  LifetimeAllocator a(256, 64);
  EXPECT_EQ(a.allocate(128, 1), 0);
  EXPECT_EQ(a.allocate(128, 2), 128);
  a.retire(2); // the first block's last use (1) is over; the second is read at step 2
  EXPECT_EQ(a.liveBytes(), 128);
  EXPECT_EQ(a.allocate(128, 4), 0);
  EXPECT_EQ(a.peakBytes(), 256);
}

TEST(LifetimeAllocator, AnAliasExtendsItsBlock) {
  LifetimeAllocator a(256, 64);
  ASSERT_EQ(a.allocate(128, 1), 0);
  a.extend(10, 7); // a view of the block is read at step 7
  a.retire(5);
  EXPECT_EQ(a.liveBytes(), 128);
  a.retire(8);
  EXPECT_EQ(a.liveBytes(), 0);
}

} // namespace
} // namespace nnaccel::arch::common
