/// \file
/// The ofmap write buffer model (src/scalesim/WriteBuffer.h) on hand-computed sequences: a drain
/// starts when less than the active half is free, drains frees whole rows (a partial row in the
/// middle of a drain counts as full, as in SCALE-Sim), and a write into a full buffer while a
/// drain runs stalls until the drain ends.
#include "WriteBuffer.h"

#include <gtest/gtest.h>

using nnaccel::scalesim::detail::WriteBuffer;

namespace {

TEST(ScaleSimWriteBuffer, DrainsWhenHalfFullAndCountsPartialRowsAsFull) {
  WriteBuffer b(1024, 4); // 512 active + 512 drain words, 4 words per row
  // 512 words fit; the 513th starts a drain of 128 full rows in cycles 0..127 and leaves a
  // 1-word partial row; the other 87 words land while the drain runs, without a stall.
  EXPECT_EQ(b.write(600, 0), 0);
  EXPECT_EQ(b.dramWrites(), 512);
  EXPECT_EQ(b.firstDrainCycle(), 0);
  EXPECT_EQ(b.lastDrainCycle(), 127);
  // Left: the 1-word row, 21 full rows and a 3-word row. Drained from cycle 200 as 23 rows,
  // the middle 1-word row counts 4 words: 23 * 4 - 1 = 91 for the 88 words written.
  b.drainAll(200);
  EXPECT_EQ(b.dramWrites(), 512 + 91);
  EXPECT_EQ(b.lastDrainCycle(), 222);
}

TEST(ScaleSimWriteBuffer, FullBufferStallsUntilTheDrainEnds) {
  WriteBuffer b(1024, 1);
  EXPECT_EQ(b.write(1024, 0), 0); // drain of 512 one-word rows in cycles 0..511
  EXPECT_EQ(b.lastDrainCycle(), 511);
  // 511 words fill the buffer, the 512th finds it full in cycle 1: wait until cycle 511.
  EXPECT_EQ(b.write(600, 1), 510);
  EXPECT_EQ(b.lastDrainCycle(), 511 + 511); // the next drain starts right at cycle 511
}

TEST(ScaleSimWriteBuffer, SmallWritesNeverDrainUntilTheEnd) {
  WriteBuffer b(2048, 8);
  for (int cycle = 0; cycle < 100; ++cycle) {
    EXPECT_EQ(b.write(5, cycle), 0);
  }
  EXPECT_EQ(b.dramWrites(), 0);
  EXPECT_EQ(b.firstDrainCycle(), -1);
  b.drainAll(100); // 500 words: 62 full rows and a 4-word row, drained in cycles 100..162
  EXPECT_EQ(b.dramWrites(), 500);
  EXPECT_EQ(b.firstDrainCycle(), 100);
  EXPECT_EQ(b.lastDrainCycle(), 162);
}

} // namespace
