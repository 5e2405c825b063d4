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
  EXPECT_EQ(a.peakLiveBytes(), 200); // layers 1 and 2: two buffers of 100
}

TEST(BufferAllocatorTest, StagesFromTheTopAndTakesZeroBytesAnywhere) {
  BufferAllocator a(256);
  EXPECT_EQ(a.place({50, 0, 0}, BufferAllocator::End::Top), 206);
  EXPECT_EQ(a.place({200, 0, 0}), 0); // the bottom is untouched
  EXPECT_EQ(a.place({10, 0, 0}), std::nullopt);
  EXPECT_EQ(a.place({0, 0, 0}), 0);
  EXPECT_EQ(a.peakBytes(), 256);
  EXPECT_EQ(a.peakLiveBytes(), 250); // the staged 50 at the top and the 200 at the bottom
  BufferAllocator staged(1000);      // a short staged buffer at the top: the extent is not the use
  EXPECT_EQ(staged.place({10, 0, 0}, BufferAllocator::End::Top), 990);
  EXPECT_EQ(staged.place({20, 1, 1}), 0);
  EXPECT_EQ(staged.peakBytes(), 1000);
  EXPECT_EQ(staged.peakLiveBytes(), 20);
  BufferAllocator none(0); // no global buffer: every non-empty buffer spills
  EXPECT_EQ(none.place({1, 0, 0}), std::nullopt);
  EXPECT_EQ(none.largestFreeBytes(0, 0), 0);
}

} // namespace
} // namespace nnaccel::arch::common
