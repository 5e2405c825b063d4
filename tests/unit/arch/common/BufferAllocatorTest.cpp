/// \file
/// BufferAllocator: first fit over lifetimes (fits, spills, reuse of a dead buffer's bytes,
/// staging from the top, zero-byte requests, no buffer at all).
#include "nnaccel/arch/common/BufferAllocator.h"

#include <gtest/gtest.h>

namespace nnaccel::arch::common {
namespace {

TEST(BufferAllocatorTest, PlacesFirstFitAndReusesTheBytesOfDeadBuffers) {
  BufferAllocator a(256);
  EXPECT_EQ(a.place({100, 0, 2}), 0);
  EXPECT_EQ(a.place({100, 1, 3}), 100);
  // Layer 2 has 56 bytes left: a third buffer live there does not fit, and nothing is placed.
  EXPECT_EQ(a.largestFreeBytes(2, 2), 56);
  EXPECT_EQ(a.place({100, 2, 2}), std::nullopt);
  // From layer 3 the first buffer is dead: its bytes are free again.
  EXPECT_EQ(a.largestFreeBytes(3, 4), 100);
  EXPECT_EQ(a.place({100, 3, 4}), 0);
  EXPECT_EQ(a.largestFreeBytes(4, 4), 156);
  EXPECT_EQ(a.peakBytes(), 200);
}

TEST(BufferAllocatorTest, StagesFromTheTopAndTakesZeroBytesAnywhere) {
  BufferAllocator a(256);
  EXPECT_EQ(a.place({50, 0, 0}, BufferAllocator::End::Top), 206);
  EXPECT_EQ(a.place({200, 0, 0}), 0); // the bottom is untouched
  EXPECT_EQ(a.place({10, 0, 0}), std::nullopt);
  EXPECT_EQ(a.place({0, 0, 0}), 0);
  EXPECT_EQ(a.peakBytes(), 256);
  BufferAllocator none(0); // no global buffer: every non-empty buffer spills
  EXPECT_EQ(none.place({1, 0, 0}), std::nullopt);
  EXPECT_EQ(none.largestFreeBytes(0, 0), 0);
}

} // namespace
} // namespace nnaccel::arch::common
