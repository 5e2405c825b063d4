/// \file
/// Property tests of the broadcast schedule (Schedule.h, seed 004 §2.4 generalized): over a grid
/// of row widths, vector widths, PE counts, strides, dummy taps and valid (non-padding) ranges,
/// with and without broadcasting, every schedule is checked against a brute-force model of the
/// header's rules: deliveries equal live taps, reads equal distinct live positions (or live
/// taps), each operand gets each live tap once in increasing order, no PE loads two operands
/// at once, the reader is the header's choice and a receiver, and the re-use histogram adds up.
/// The patent's own FIG. 6/7/8 vectors are in SeedVectorsTest.cpp.
#include "nnaccel/arch/broadcast/Schedule.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <map>
#include <set>

namespace nnaccel::arch::broadcast {
namespace {

bool live(const PassShape& s, int64_t k, int64_t n) {
  const int64_t j = k * s.stride + n;
  return n < s.realTaps && j >= s.validBegin && j < s.validEnd;
}

/// The header's reader rule by brute force: the PE of the lowest operand whose first live tap
/// is \p j, else that of the largest operand holding j as a live tap.
int32_t expectedReader(const PassShape& s, int64_t pes, int64_t j) {
  int64_t largest = -1;
  for (int64_t k = 0; k < s.operands; ++k) {
    int64_t first = -1;
    for (int64_t n = 0; n < s.taps && first < 0; ++n) {
      if (live(s, k, n))
        first = k * s.stride + n;
    }
    if (first == j)
      return static_cast<int32_t>(k % pes);
    const int64_t n = j - k * s.stride;
    if (n >= 0 && n < s.taps && live(s, k, n))
      largest = k;
  }
  return static_cast<int32_t>(largest % pes);
}

void checkSchedule(const PassShape& s, int64_t pes, bool broadcast) {
  const RowSchedule rs = scheduleRow(s, pes, broadcast);
  EXPECT_EQ(rs.shape, s);
  EXPECT_EQ(rs.pes, pes);
  EXPECT_EQ(rs.broadcast, broadcast);

  // Brute force: live taps per operand, live positions and their holders.
  std::vector<int32_t> liveTaps(static_cast<size_t>(s.operands), 0);
  std::map<int64_t, std::vector<int64_t>> holders; // position -> operands, ascending
  int64_t totalLive = 0;
  for (int64_t k = 0; k < s.operands; ++k) {
    for (int64_t n = 0; n < s.taps; ++n) {
      if (live(s, k, n)) {
        ++liveTaps[static_cast<size_t>(k)];
        holders[k * s.stride + n].push_back(k);
        ++totalLive;
      }
    }
  }
  EXPECT_EQ(rs.liveTaps, liveTaps);
  EXPECT_EQ(rs.writes(), totalLive);
  EXPECT_EQ(rs.reads(), broadcast ? static_cast<int64_t>(holders.size()) : totalLive);
  EXPECT_EQ(rs.broadcasts(), rs.writes() - rs.reads());

  // Slots tile the delivery list in order, in increasing position.
  int64_t next = 0, lastPosition = -1;
  std::vector<int64_t> nextTap(static_cast<size_t>(s.operands), -1);
  std::vector<int64_t> firstSlot(static_cast<size_t>(s.operands), -1);
  std::vector<int64_t> lastSlot(static_cast<size_t>(s.operands), -1);
  std::vector<int32_t> received(static_cast<size_t>(s.operands), 0);
  for (size_t i = 0; i < rs.slots.size(); ++i) {
    const Slot& slot = rs.slots[i];
    ASSERT_EQ(slot.firstDelivery, next);
    ASSERT_GE(slot.deliveries, 1);
    next += slot.deliveries;
    ASSERT_LE(next, rs.writes());
    if (broadcast) {
      EXPECT_GT(slot.position, lastPosition);
    } else {
      EXPECT_GE(slot.position, lastPosition);
    }
    lastPosition = slot.position;
    std::set<int32_t> pesOfSlot;
    for (int32_t d = slot.firstDelivery; d < slot.firstDelivery + slot.deliveries; ++d) {
      const Delivery& del = rs.deliveries[static_cast<size_t>(d)];
      ASSERT_GE(del.operand, 0);
      ASSERT_LT(del.operand, s.operands);
      const auto k = static_cast<size_t>(del.operand);
      EXPECT_EQ(del.pe, del.operand % pes);
      EXPECT_EQ(del.operand * s.stride + del.tap, slot.position);
      EXPECT_TRUE(live(s, del.operand, del.tap));
      EXPECT_GT(del.tap, nextTap[k]) << "operand " << k << " taps out of order";
      nextTap[k] = del.tap;
      ++received[k];
      if (firstSlot[k] < 0)
        firstSlot[k] = static_cast<int64_t>(i);
      lastSlot[k] = static_cast<int64_t>(i);
      EXPECT_TRUE(pesOfSlot.insert(del.pe).second) << "two deliveries to one PE in a slot";
      // Reader first, then ascending operand.
      if (d > slot.firstDelivery + 1) {
        EXPECT_GT(del.operand, rs.deliveries[static_cast<size_t>(d - 1)].operand);
      }
    }
    // The reader is a receiver: the first delivery's PE.
    EXPECT_EQ(slot.reader, rs.deliveries[static_cast<size_t>(slot.firstDelivery)].pe);
    if (broadcast) {
      EXPECT_EQ(slot.reader, expectedReader(s, pes, slot.position)) << "position " << slot.position;
      EXPECT_EQ(slot.deliveries,
                static_cast<int32_t>(holders[slot.position].size())); // every holder, once
    }
  }
  EXPECT_EQ(next, rs.writes());
  EXPECT_EQ(received, liveTaps); // each live tap exactly once (increasing, checked above)

  // No PE receives for two operands whose loading windows overlap (whenever P * stride >= N;
  // without broadcasting smaller P are allowed and then do overlap).
  for (int64_t k = 0; k < s.operands && pes * s.stride >= s.taps; ++k) {
    for (int64_t k2 = k + pes; k2 < s.operands; k2 += pes) {
      const auto a = static_cast<size_t>(k), b = static_cast<size_t>(k2);
      if (firstSlot[a] >= 0 && firstSlot[b] >= 0) {
        EXPECT_LT(lastSlot[a], firstSlot[b]) << "operands " << k << " and " << k2;
      }
    }
  }

  // Re-use histogram: index = receivers per read, r = 1 .. N.
  const std::vector<int64_t> h = rs.reuseHistogram();
  ASSERT_EQ(h.size(), static_cast<size_t>(s.taps + 1));
  EXPECT_EQ(h[0], 0);
  int64_t reads = 0, writes = 0;
  for (size_t r = 0; r < h.size(); ++r) {
    reads += h[r];
    writes += static_cast<int64_t>(r) * h[r];
  }
  EXPECT_EQ(reads, rs.reads());
  EXPECT_EQ(writes, rs.writes());
  if (!broadcast) {
    EXPECT_EQ(h[1], rs.reads());
  }
}

TEST(BroadcastSchedule, PropertiesOverAParameterGrid) {
  int64_t shapes = 0;
  for (int64_t w = 4; w <= 40; ++w) {
    for (int64_t n = 2; n <= 5 && n <= w; ++n) {
      for (int64_t stride = 1; stride <= 3; ++stride) {
        const int64_t operands = (w - n) / stride + 1;
        for (int64_t realTaps = 1; realTaps <= n; ++realTaps) {
          const std::pair<int64_t, int64_t> ranges[] = {{0, w},     {1, w - 1}, {2, w},
                                                        {0, w - 3}, {n, w - n}, {w / 2, w / 2}};
          for (const auto& [begin, end] : ranges) {
            const PassShape shape{w, operands, n, stride, realTaps, begin, end};
            for (int64_t pes = n; pes <= 8; ++pes) {
              SCOPED_TRACE(testing::Message()
                           << "W " << w << " N " << n << " stride " << stride << " real "
                           << realTaps << " valid [" << begin << ", " << end << ") P " << pes);
              checkSchedule(shape, pes, true);
              checkSchedule(shape, pes, false);
              ++shapes;
              if (HasFailure())
                return;
            }
          }
        }
      }
    }
  }
  EXPECT_GT(shapes, 10000);
}

TEST(BroadcastSchedule, ConventionalAndLowPeCountsWithoutBroadcast) {
  // N = 1 (the 1x1 decomposition): one operand per position, every read delivered once.
  const RowSchedule c = scheduleRow(PassShape{10, 10, 1, 1, 1, 0, 10}, 4, true);
  EXPECT_EQ(c.reads(), 10);
  EXPECT_EQ(c.writes(), 10);
  EXPECT_EQ(c.reuseHistogram(), (std::vector<int64_t>{0, 10}));
  // Without broadcasting P < N is allowed (each operand loads its own taps).
  checkSchedule(PassShape{12, 10, 3, 1, 3, 0, 12}, 2, false);
  // Stride >= N: no sharing at all, even with broadcasting.
  const RowSchedule s = scheduleRow(PassShape{12, 4, 3, 3, 3, 0, 12}, 1, true);
  EXPECT_EQ(s.reads(), 12);
  EXPECT_EQ(s.broadcasts(), 0);
}

TEST(BroadcastSchedule, OperandsWithoutLiveTapsReceiveNothing) {
  // Valid range [5, 7) of a 12-wide row, N = 3: operands 0..2 and 7..9 are all padding.
  const RowSchedule rs = scheduleRow(PassShape{12, 10, 3, 1, 3, 5, 7}, 4, true);
  EXPECT_EQ(rs.liveTaps, (std::vector<int32_t>{0, 0, 0, 1, 2, 2, 1, 0, 0, 0}));
  EXPECT_EQ(rs.reads(), 2);
  EXPECT_EQ(rs.writes(), 6);
  // Position 5 is the first valid one: every holder starts there, the lowest (3) reads it.
  EXPECT_EQ(rs.slots[0].reader, 3);
  // Position 6: operand 6 starts there.
  EXPECT_EQ(rs.slots[1].reader, 6 % 4);
  // Nothing valid at all.
  const RowSchedule none = scheduleRow(PassShape{12, 10, 3, 1, 3, 4, 4}, 4, true);
  EXPECT_EQ(none.reads(), 0);
  EXPECT_EQ(none.liveTaps, std::vector<int32_t>(10, 0));
  EXPECT_EQ(none.reuseHistogram(), (std::vector<int64_t>{0, 0, 0, 0}));
}

TEST(BroadcastScheduleDeathTest, RejectsInfeasibleShapes) {
  // P * stride < N with broadcasting: two unfinished operands would share a PE.
  EXPECT_DEATH(scheduleRow(PassShape{18, 16, 3, 1, 3, 0, 18}, 2, true), "P \\* stride >= N");
  // Operands running past the stream.
  EXPECT_DEATH(scheduleRow(PassShape{18, 17, 3, 1, 3, 0, 18}, 4, false), "do not fit");
}

} // namespace
} // namespace nnaccel::arch::broadcast
