/// \file
/// Tests of one PE's arbitrated scatter crossbar (src/arch/sparse/sim/Crossbar.h, seed 001 §1.4,
/// Fig. 3C, Table 6): the digest's derived 4 x 4 product vector (§3.7: four 2-way bank
/// conflicts, drained in exactly 2 cycles), round-robin arbitration, FIFO-full back-pressure,
/// FIFO depth 1 versus 2 throughput under the simulator's cycle protocol, read-after-write
/// hazard stalls without forwarding, the hash bank mapping spreading a bank-strided pattern, and
/// virtual output queues removing head-of-line blocking.
#include "Crossbar.h"

#include <gtest/gtest.h>
#include <vector>

namespace nnaccel::arch::sparse {
namespace {

CrossbarParams scnnParams() {
  CrossbarParams p;
  p.lanes = 16;
  p.banks = 32;
  p.fifoDepth = 2;
  return p;
}

/// Arbitrates from cycle \p first until the crossbar is empty; returns the cycles taken.
int drain(Crossbar& x, int64_t first, int limit = 1000) {
  int cycles = 0;
  for (int64_t t = first; !x.empty() && cycles < limit; ++t, ++cycles)
    x.arbitrate(t);
  return cycles;
}

// Digest §3.7 derived example: F = I = 4, weights (2,0,0), (0,1,0), (1,2,0), (0,1,1), IA at
// (7,3), (12,3), (20,3), (24,3), max_x_oa = 32, max_y_oa = 8, lane t = f + i * F.
const std::vector<uint32_t> kDigestAddresses = {105, 135, 168, 391, 110, 140, 173, 396,
                                                118, 148, 181, 404, 122, 152, 185, 408};

TEST(SparseCrossbar, DigestVectorBanks) {
  const Crossbar x(scnnParams());
  std::vector<uint32_t> banks;
  for (uint32_t a : kDigestAddresses)
    banks.push_back(x.bankOf(a));
  EXPECT_EQ(banks,
            (std::vector<uint32_t>{9, 7, 8, 7, 14, 12, 13, 12, 22, 20, 21, 20, 26, 24, 25, 24}));
}

TEST(SparseCrossbar, DigestVectorDrainsInTwoCyclesWithFourDenials) {
  Crossbar x(scnnParams());
  EXPECT_TRUE(x.ready());
  EXPECT_TRUE(x.empty());
  for (int lane = 0; lane < 16; ++lane)
    x.push(lane, kDigestAddresses[static_cast<size_t>(lane)]);
  EXPECT_TRUE(x.ready()) << "one entry per depth-2 FIFO";
  EXPECT_FALSE(x.empty());
  x.arbitrate(1);
  EXPECT_EQ(x.stats().grants, 12);        // 8 private banks + one winner in each of 4 pairs
  EXPECT_EQ(x.stats().deniedRequests, 4); // the four 2-way conflicts
  EXPECT_FALSE(x.empty());
  x.arbitrate(2);
  EXPECT_TRUE(x.empty());
  EXPECT_EQ(x.stats().pushes, 16);
  EXPECT_EQ(x.stats().grants, 16);
  EXPECT_EQ(x.stats().deniedRequests, 4);
  EXPECT_EQ(x.stats().hazardStalls, 0);
}

TEST(SparseCrossbar, EveryFifoDepthDrainsTheDigestVectorInTwoCycles) {
  // The FIFO depth changes back-pressure, never which products a cycle grants.
  for (int depth = 1; depth <= 5; ++depth) {
    SCOPED_TRACE(depth);
    CrossbarParams p = scnnParams();
    p.fifoDepth = depth;
    Crossbar x(p);
    for (int lane = 0; lane < 16; ++lane)
      x.push(lane, kDigestAddresses[static_cast<size_t>(lane)]);
    EXPECT_EQ(x.ready(), depth > 1);
    x.arbitrate(1);
    EXPECT_EQ(x.stats().grants, 12);
    EXPECT_EQ(x.stats().deniedRequests, 4);
    x.arbitrate(2);
    EXPECT_TRUE(x.empty());
    EXPECT_EQ(x.stats().grants, 16);
  }
}

TEST(SparseCrossbar, EmptyArbitrationIsANoOp) {
  Crossbar x(scnnParams());
  x.arbitrate(0);
  EXPECT_TRUE(x.empty());
  EXPECT_EQ(x.stats().grants, 0);
}

TEST(SparseCrossbar, FullFifoStopsTheArray) {
  Crossbar x(scnnParams());
  x.push(3, 7);
  EXPECT_TRUE(x.ready());
  x.push(3, 39); // the same bank: lane 3's FIFO (depth 2) is now full
  EXPECT_FALSE(x.ready()) << "any full FIFO stalls the multiplier array";
  x.arbitrate(0);
  EXPECT_TRUE(x.ready()) << "one entry left";
  EXPECT_FALSE(x.empty());
  x.arbitrate(1);
  EXPECT_TRUE(x.empty());
}

TEST(SparseCrossbar, RoundRobinServesTheOtherLaneNext) {
  // Lanes 0 and 1 compete for bank 0; lane 1 has a second product for bank 1. Round robin:
  // lane 0, then lane 1 (its bank-1 product is then free), then lane 0 and lane 1 together:
  // 3 cycles. A fixed-priority arbiter would serve lane 0 twice and need 4.
  CrossbarParams p = scnnParams();
  p.lanes = 2;
  p.banks = 4;
  Crossbar x(p);
  x.push(0, 0);
  x.push(0, 4);
  x.push(1, 8);
  x.push(1, 1);
  EXPECT_EQ(drain(x, 0), 3);
  EXPECT_EQ(x.stats().grants, 4);
  EXPECT_EQ(x.stats().deniedRequests, 2);
}

TEST(SparseCrossbar, ContinuousContentionGrantsOnePerCycle) {
  // Four lanes (depth-1 FIFOs) with products for one bank, refilled whenever the array may
  // issue: the bank grants one product per cycle, so a vector issues at cycle 0, its four
  // products drain at cycles 1..4 and the array is ready again at cycle 5.
  CrossbarParams p;
  p.lanes = 4;
  p.banks = 8;
  p.fifoDepth = 1;
  Crossbar x(p);
  int issues = 0;
  for (int64_t t = 0; t < 400; ++t) {
    const bool ready = x.ready();
    x.arbitrate(t);
    if (ready) {
      for (int lane = 0; lane < 4; ++lane)
        x.push(lane, static_cast<uint32_t>(8 * (lane + 1)));
      ++issues;
    }
  }
  EXPECT_EQ(issues, 80);
  EXPECT_TRUE(x.empty());
  EXPECT_EQ(x.stats().grants, 320);
  EXPECT_EQ(x.stats().deniedRequests, 80 * (3 + 2 + 1));
}

/// Issues \p vectors copies of \p addresses (one product per lane) under the simulator's cycle
/// protocol (ready sampled, arbitrate, push) and returns the cycle the crossbar is empty.
int64_t runStream(const CrossbarParams& p, const std::vector<uint32_t>& addresses, int vectors) {
  Crossbar x(p);
  int issued = 0;
  int64_t t = 0;
  for (; issued < vectors || !x.empty(); ++t) {
    const bool ready = x.ready();
    x.arbitrate(t);
    if (ready && issued < vectors) {
      for (int lane = 0; lane < p.lanes; ++lane)
        x.push(lane, addresses[static_cast<size_t>(lane)]);
      ++issued;
    }
  }
  return t;
}

TEST(SparseCrossbar, FifoDepthOneHalvesThroughput) {
  // Conflict-free vectors: depth 2 accepts one vector per cycle, depth 1 one every 2 cycles
  // (a just-filled FIFO is full when ready() is sampled).
  std::vector<uint32_t> distinct;
  for (uint32_t i = 0; i < 16; ++i)
    distinct.push_back(i * 33); // banks 0, 1, ..., 15
  CrossbarParams p = scnnParams();
  EXPECT_EQ(runStream(p, distinct, 10), 11);
  p.fifoDepth = 1;
  EXPECT_EQ(runStream(p, distinct, 10), 20);
  // With the digest vector's 2-way conflicts: depth 1 takes 3 cycles per vector (issue, two
  // drain cycles), depth 2 overlaps the second drain cycle with the next issue.
  p.fifoDepth = 1;
  EXPECT_EQ(runStream(p, kDigestAddresses, 10), 30);
  p.fifoDepth = 2;
  const int64_t depth2 = runStream(p, kDigestAddresses, 10);
  EXPECT_LT(depth2, 30);
  EXPECT_GE(depth2, 21) << "each vector still needs 2 bank-cycles on its conflicting banks";
  p.fifoDepth = 3;
  EXPECT_LE(runStream(p, kDigestAddresses, 10), depth2);
}

TEST(SparseCrossbar, HazardStallsWithoutForwarding) {
  CrossbarParams p = scnnParams();
  p.lanes = 1;
  p.forwarding = false;
  p.writeLatencyCycles = 1;
  {
    Crossbar x(p);
    x.push(0, 5);
    x.push(0, 5); // back-to-back adds to one address
    EXPECT_EQ(drain(x, 10), 3);
    EXPECT_EQ(x.stats().hazardStalls, 1);
    EXPECT_EQ(x.stats().grants, 2);
    EXPECT_EQ(x.stats().deniedRequests, 1);
  }
  {
    p.writeLatencyCycles = 3;
    Crossbar x(p);
    x.push(0, 5);
    x.push(0, 5);
    EXPECT_EQ(drain(x, 0), 5);
    EXPECT_EQ(x.stats().hazardStalls, 3);
  }
  {
    Crossbar x(p);
    x.push(0, 5);
    x.push(0, 37); // same bank, different address: no hazard
    EXPECT_EQ(drain(x, 0), 2);
    EXPECT_EQ(x.stats().hazardStalls, 0);
  }
  {
    p.forwarding = true;
    Crossbar x(p);
    x.push(0, 5);
    x.push(0, 5);
    EXPECT_EQ(drain(x, 0), 2);
    EXPECT_EQ(x.stats().hazardStalls, 0);
  }
}

TEST(SparseCrossbar, HashMappingSpreadsABankStride) {
  // Sixteen products 32 addresses apart: low-bit mapping puts all in bank 0 (16 cycles),
  // the XOR-folded hash spreads them over 16 banks (one cycle).
  std::vector<uint32_t> strided;
  for (uint32_t i = 0; i < 16; ++i)
    strided.push_back(32 * i + 3);
  CrossbarParams p = scnnParams();
  {
    Crossbar x(p);
    for (int lane = 0; lane < 16; ++lane)
      x.push(lane, strided[static_cast<size_t>(lane)]);
    EXPECT_EQ(drain(x, 0), 16);
    EXPECT_EQ(x.stats().deniedRequests, 15 * 16 / 2);
  }
  p.hashBanks = true;
  Crossbar x(p);
  EXPECT_EQ(x.bankOf(105), 9u ^ 3u); // 105 = 3 * 32 + 9
  EXPECT_EQ(x.bankOf(32 * 5 + 3), 6u);
  EXPECT_EQ(x.bankOf((7u << 10) | (1u << 5) | 2u), 7u ^ 1u ^ 2u);
  for (int lane = 0; lane < 16; ++lane)
    x.push(lane, strided[static_cast<size_t>(lane)]);
  EXPECT_EQ(drain(x, 0), 1);
  EXPECT_EQ(x.stats().deniedRequests, 0);
}

TEST(SparseCrossbar, VirtualOutputQueuesRemoveHeadOfLineBlocking) {
  // Lanes 0 and 1 both want bank 0 first; lane 1 also has a product for bank 1 behind it.
  // With one FIFO per lane, bank 0 grants lane 0 and lane 1's bank-1 product waits behind its
  // head: 3 cycles. With a queue per lane and bank, bank 1 serves lane 1 in the first cycle.
  for (const bool voq : {false, true}) {
    CrossbarParams p = scnnParams();
    p.virtualOutputQueues = voq;
    Crossbar x(p);
    x.push(0, 0);  // bank 0
    x.push(1, 32); // bank 0
    x.push(1, 1);  // bank 1
    EXPECT_EQ(drain(x, 1), voq ? 2 : 3) << (voq ? "per bank" : "per lane");
    EXPECT_EQ(x.stats().grants, 3);
    EXPECT_TRUE(x.ready());
  }
  // Back-pressure is per queue: a full (lane, bank) queue stalls the array.
  CrossbarParams p = scnnParams();
  p.virtualOutputQueues = true;
  p.fifoDepth = 1;
  Crossbar x(p);
  x.push(3, 5);
  EXPECT_FALSE(x.ready());
  x.arbitrate(1);
  EXPECT_TRUE(x.ready());
  EXPECT_TRUE(x.empty());
}

} // namespace
} // namespace nnaccel::arch::sparse
