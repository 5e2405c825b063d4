/// \file
/// Tests of one PE's arbitrated scatter crossbar (src/arch/sparse/sim/Crossbar.h, seed 001 §1.4,
/// Fig. 3C, Table 6): the digest's derived 4 x 4 product vector (§3.7: four 2-way bank
/// conflicts, drained in exactly 2 cycles), round-robin arbitration, FIFO-full back-pressure,
/// FIFO depth 1 versus 2 throughput under the simulator's cycle protocol, read-after-write
/// hazard stalls without forwarding, the hash bank mapping spreading a bank-strided pattern,
/// virtual output queues removing head-of-line blocking, the two-stage network of Fig. 3E
/// (blocking at a stage-1 output where one stage does not, with exact cycle counts) and the
/// combining buffer of ¶0103 (read-add-write counts on hand-built address sequences).
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

// --- the two-stage crossbar (Fig. 3E) ----------------------------------------------------------

/// The patent's P = 16, A = 32 two-stage network: stage 1 is 4 instances (lanes 4i .. 4i + 3) of
/// a 4 -> 8 crossbar, stage 2 is 8 instances of a 4 -> 4 crossbar (instance o: banks b with
/// b mod 8 = o).
CrossbarParams twoStageParams() {
  CrossbarParams p = scnnParams();
  p.stages = 2;
  p.stage1Inputs = 4;
  return p;
}

TEST(SparseCrossbarTwoStage, PatentTopology) {
  const Crossbar x(twoStageParams());
  EXPECT_EQ(x.instanceOf(0), 0u);
  EXPECT_EQ(x.instanceOf(8), 0u);
  EXPECT_EQ(x.instanceOf(31), 7u);
  EXPECT_EQ(x.instanceOf(13), 5u);
}

TEST(SparseCrossbarTwoStage, OneGroupToOneStage1OutputIsSerialised) {
  // Lanes 0 and 1 share stage-1 instance 0; banks 0 and 8 both sit behind its output 0. One
  // stage grants both in a cycle; two stages pass one per cycle through that output.
  for (const int stages : {1, 2}) {
    CrossbarParams p = stages == 1 ? scnnParams() : twoStageParams();
    Crossbar x(p);
    x.push(0, 0); // bank 0
    x.push(1, 8); // bank 8
    EXPECT_EQ(drain(x, 0), stages) << stages;
    EXPECT_EQ(x.stats().grants, 2);
    EXPECT_EQ(x.stats().deniedRequests, stages - 1);
    EXPECT_EQ(x.stats().stage1Denials, stages - 1);
  }
  // Different groups to the same stage-2 instance, different banks: no conflict at all.
  Crossbar x(twoStageParams());
  x.push(0, 0); // group 0, bank 0
  x.push(4, 8); // group 1, bank 8
  EXPECT_EQ(drain(x, 0), 1);
  // Different groups to one bank: blocked at stage 2, as with one stage.
  Crossbar y(twoStageParams());
  y.push(0, 0);
  y.push(4, 32);
  EXPECT_EQ(drain(y, 0), 2);
  EXPECT_EQ(y.stats().stage1Denials, 0);
  EXPECT_EQ(y.stats().deniedRequests, 1);
}

TEST(SparseCrossbarTwoStage, AStage1WinnerLosingItsBankHoldsTheOutput) {
  // Lane 0 (group 0) and lane 4 (group 1) want bank 0; lane 5 (group 1) wants bank 8, behind
  // the same stage-1 output as lane 4. One stage: cycle 1 grants lanes 0 and 5, cycle 2 lane 4.
  // Two stages: cycle 1, stage 1 passes lanes 0 and 4 (lane 5 loses to lane 4), bank 0 grants
  // lane 0, so lane 4 wasted the output; cycle 2 lane 4 again (its pointer did not move), cycle 3
  // lane 5: 3 cycles.
  for (const int stages : {1, 2}) {
    SCOPED_TRACE(stages);
    Crossbar x(stages == 1 ? scnnParams() : twoStageParams());
    x.push(0, 0);
    x.push(4, 32);
    x.push(5, 8);
    std::vector<int64_t> grants;
    for (int64_t t = 0; !x.empty(); ++t) {
      const int64_t before = x.stats().grants;
      x.arbitrate(t);
      grants.push_back(x.stats().grants - before);
    }
    EXPECT_EQ(grants, stages == 1 ? (std::vector<int64_t>{2, 1}) : (std::vector<int64_t>{1, 1, 1}));
    EXPECT_EQ(x.stats().stage1Denials, stages == 1 ? 0 : 2);
    EXPECT_EQ(x.stats().deniedRequests, stages == 1 ? 1 : 3);
  }
}

TEST(SparseCrossbarTwoStage, DigestVectorLosesNothing) {
  // The digest's §3.7 vector: each of its four 2-way bank conflicts is within one stage-1
  // group (lanes 1 and 3 to bank 7, 5 and 7 to 12, ...), so the stage-1 outputs see exactly the
  // bank conflicts: 2 cycles and 4 denials, as with one stage, all four at stage 1.
  Crossbar x(twoStageParams());
  for (int lane = 0; lane < 16; ++lane)
    x.push(lane, kDigestAddresses[static_cast<size_t>(lane)]);
  x.arbitrate(1);
  EXPECT_EQ(x.stats().grants, 12);
  EXPECT_EQ(x.stats().stage1Denials, 4);
  x.arbitrate(2);
  EXPECT_TRUE(x.empty());
  EXPECT_EQ(x.stats().grants, 16);
  EXPECT_EQ(x.stats().deniedRequests, 4);
}

TEST(SparseCrossbarTwoStage, StreamThroughOneStage1OutputPerGroup) {
  // Lane 4g + j sends every vector to bank 8j + 2g: 16 distinct banks (one stage: one vector
  // per cycle, 10 vectors in 11 cycles), but each group's 4 products leave through one stage-1
  // output (instance 2g), one per cycle. With depth-2 FIFOs the array issues at cycles 0, 1,
  // then every 4 cycles (5, 9, ..., 33); the last vector's 7 products per group left after
  // cycle 33 drain in cycles 34..40: empty at 41.
  std::vector<uint32_t> addresses;
  for (uint32_t g = 0; g < 4; ++g)
    for (uint32_t j = 0; j < 4; ++j)
      addresses.push_back(8 * j + 2 * g);
  EXPECT_EQ(runStream(scnnParams(), addresses, 10), 11);
  EXPECT_EQ(runStream(twoStageParams(), addresses, 10), 41);
  // Conflict-free for both: banks 0..15 (lane l -> bank l; group g's banks 4g .. 4g + 3 sit
  // behind four different stage-1 outputs).
  std::vector<uint32_t> distinct;
  for (uint32_t i = 0; i < 16; ++i)
    distinct.push_back(i * 33);
  EXPECT_EQ(runStream(twoStageParams(), distinct, 10), 11);
}

TEST(SparseCrossbarTwoStage, SmallerShapes) {
  // The tiny preset's F = I = 2, A = 8: stage 1 is 2 instances of 2 -> 4, stage 2 is 4 of
  // 2 -> 2. Lanes 0 and 1 (group 0) to banks 1 and 5 (both behind output 1): 2 cycles.
  CrossbarParams p;
  p.lanes = 4;
  p.banks = 8;
  p.stages = 2;
  p.stage1Inputs = 2;
  Crossbar x(p);
  EXPECT_EQ(x.instanceOf(5), 1u);
  x.push(0, 1);
  x.push(1, 5);
  x.push(2, 2); // group 1, another output
  EXPECT_EQ(drain(x, 0), 2);
  EXPECT_EQ(x.stats().grants, 3);
  EXPECT_EQ(x.stats().stage1Denials, 1);
  // Hazards apply at the bank, as with one stage.
  p.forwarding = false;
  Crossbar y(p);
  y.push(0, 3);
  y.push(0, 3);
  EXPECT_EQ(drain(y, 0), 3);
  EXPECT_EQ(y.stats().hazardStalls, 1);
}

// --- the combining buffer (¶0103) ------------------------------------------------------------

TEST(SparseCrossbarCombining, CommitsOnlyWhatLeavesTheBuffer) {
  // One lane, bank 0 of 4 (addresses multiples of 4), 2 entries: 0, 4 enter; 0 and 4 combine;
  // 8 finds the buffer full and commits 0; 0 commits 4; the end flushes 8 and 0. Six products,
  // 4 read-add-writes (one per entry ever allocated), 2 combined.
  const std::vector<uint32_t> sequence = {0, 4, 0, 4, 8, 0};
  for (const int entries : {0, 2}) {
    SCOPED_TRACE(entries);
    CrossbarParams p;
    p.lanes = 1;
    p.banks = 4;
    p.fifoDepth = 8;
    p.combiningEntries = entries;
    Crossbar x(p);
    for (uint32_t a : sequence)
      x.push(0, a);
    int64_t commitsWhileQueued = -1;
    int cycles = 0;
    for (int64_t t = 0; !x.empty(); ++t, ++cycles) {
      x.arbitrate(t);
      if (t == 5)
        commitsWhileQueued = x.stats().commits; // the sixth grant
    }
    EXPECT_EQ(x.stats().grants, 6);
    if (entries == 0) {
      EXPECT_EQ(cycles, 6);
      EXPECT_EQ(x.stats().commits, 6) << "every grant is a read-add-write";
      EXPECT_EQ(x.stats().combined, 0);
    } else {
      EXPECT_EQ(commitsWhileQueued, 2) << "the two evictions";
      EXPECT_EQ(x.stats().combined, 2);
      EXPECT_EQ(x.stats().commits, 4);
      EXPECT_EQ(cycles, 6 + 2) << "the two entries left drain one per cycle at the end";
    }
  }
}

TEST(SparseCrossbarCombining, BanksFlushInParallel) {
  // Sixteen lanes, each product for its own bank: every bank holds one entry after the grant
  // cycle, and the flush commits them all in the next cycle.
  CrossbarParams p = scnnParams();
  p.combiningEntries = 8;
  Crossbar x(p);
  for (int lane = 0; lane < 16; ++lane)
    x.push(lane, static_cast<uint32_t>(lane));
  x.arbitrate(0);
  EXPECT_EQ(x.stats().grants, 16);
  EXPECT_EQ(x.stats().commits, 0);
  EXPECT_FALSE(x.empty()) << "entries are still buffered";
  EXPECT_TRUE(x.ready());
  x.arbitrate(1);
  EXPECT_TRUE(x.empty());
  EXPECT_EQ(x.stats().commits, 16);
}

TEST(SparseCrossbarCombining, RepeatedAddressesAcrossLanesCombine) {
  // The digest vector twice over (16 distinct addresses, then the same 16 again): with 8
  // entries per bank every second-vector product combines, so 16 bank read-add-writes serve
  // 32 products; without a buffer 32.
  for (const int entries : {0, 8}) {
    CrossbarParams p = scnnParams();
    p.combiningEntries = entries;
    Crossbar x(p);
    for (int v = 0; v < 2; ++v) {
      for (int lane = 0; lane < 16; ++lane)
        x.push(lane, kDigestAddresses[static_cast<size_t>(lane)]);
    }
    const int cycles = drain(x, 0);
    EXPECT_EQ(x.stats().grants, 32);
    EXPECT_EQ(x.stats().commits, entries == 0 ? 32 : 16);
    EXPECT_EQ(x.stats().combined, entries == 0 ? 0 : 16);
    // Grants are timed as before (banks 7, 12, 20 and 24 get 4 products each: 4 cycles); the
    // buffered entries then drain one per bank and cycle, and those banks hold 2 each.
    EXPECT_EQ(cycles, entries == 0 ? 4 : 4 + 2);
  }
}

TEST(SparseCrossbarCombining, AnIdleCycleCommitsAndTheNextProductStartsAnew) {
  // With nothing queued, every bank commits its oldest entry (the modelled policy: the group's
  // end drains the buffers this way, and so does a cycle without products, e.g. a weight
  // stall); a later product for the same address is then a new entry.
  CrossbarParams p;
  p.lanes = 1;
  p.banks = 4;
  p.combiningEntries = 8;
  Crossbar x(p);
  x.push(0, 5);
  x.arbitrate(0); // granted into the buffer
  EXPECT_EQ(x.stats().commits, 0);
  x.arbitrate(1); // idle: commit
  EXPECT_EQ(x.stats().commits, 1);
  EXPECT_TRUE(x.empty());
  x.push(0, 5);
  x.push(0, 5);
  EXPECT_EQ(drain(x, 2), 3); // two grants (the second combines), one flush
  EXPECT_EQ(x.stats().combined, 1);
  EXPECT_EQ(x.stats().commits, 2);
}

TEST(SparseCrossbarCombining, WorksWithVirtualOutputQueuesAndTwoStages) {
  for (const bool voq : {false, true}) {
    SCOPED_TRACE(voq);
    CrossbarParams p = voq ? scnnParams() : twoStageParams();
    p.virtualOutputQueues = voq;
    p.combiningEntries = 4;
    Crossbar x(p);
    x.push(0, 0);
    x.push(1, 0);  // the same address from another lane: combines
    x.push(2, 32); // bank 0, another address
    drain(x, 0);
    EXPECT_EQ(x.stats().grants, 3);
    EXPECT_EQ(x.stats().combined, 1);
    EXPECT_EQ(x.stats().commits, 2);
  }
}

} // namespace
} // namespace nnaccel::arch::sparse
