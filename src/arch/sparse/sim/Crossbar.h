/// \file
/// The arbitrated scatter crossbar of one SCNN PE (seed 001 §1.4, Fig. 3C): one input FIFO per
/// multiplier lane, a one-hot request from each FIFO head to its accumulator bank, one grant per
/// bank per cycle (round robin), dequeue of the winners at the end of the cycle, and the
/// read-add-write hazard of a bank's accumulator (forwarded, or stalled for the write latency).
/// Its variants (§1.4): virtual output queues (one FIFO per lane and bank), the two-stage network
/// of Fig. 3E (arbitration at a stage-1 output, then at the bank), and a combining buffer in
/// front of each bank (a product whose address is buffered is added there; the bank's SRAM is
/// read-added-written only when an entry leaves the buffer). docs/arch/SparseCycleModel.md §6.
///
/// Cycle protocol (ArrayModel.cpp): ready() is sampled at the start of a cycle (the multiplier
/// array issues only when no FIFO is full — any full FIFO stalls the whole array), then
/// arbitrate() grants and dequeues, then the issued products are pushed (pushAll). The
/// products' values are added to the accumulators once the PE has issued a whole plane
/// (ArrayModel.cpp, accumulatePlane: integer sums do not depend on the order); the crossbar
/// models only where and when each product is written.
#pragma once

#include "nnaccel/support/Error.h"

#include <bit>
#include <cstdint>
#include <vector>

namespace nnaccel::arch::sparse {

struct CrossbarParams {
  int lanes = 16;    ///< P = F x I input ports
  int banks = 32;    ///< A (a power of two)
  int fifoDepth = 2; ///< entries per input FIFO
  bool hashBanks = false;
  bool forwarding = true;     ///< back-to-back adds to one address do not stall
  int writeLatencyCycles = 1; ///< without forwarding: cycles before a written address is readable
  /// Virtual output queueing (seed 001 §1.4, digest: "several input FIFOs per accumulator unit"):
  /// each lane has one FIFO of fifoDepth per bank instead of one, so a product waiting for a
  /// busy bank no longer blocks the lane's products for other banks (no head-of-line blocking).
  bool virtualOutputQueues = false;
  /// 1, or 2: the two-stage network of Fig. 3E (per-lane FIFOs only). Stage 1 is P /
  /// stage1Inputs instances of a stage1Inputs -> G2 crossbar (lanes l with l / stage1Inputs =
  /// i share instance i); stage 2 is G2 = A / (P / stage1Inputs) instances of a (P /
  /// stage1Inputs) -> (A / G2) crossbar, instance o serving the banks b with b mod G2 = o. Both
  /// arbitrations complete in the cycle: no FIFOs between the stages.
  int stages = 1;
  int stage1Inputs = 4; ///< two stages: lanes per stage-1 instance (F)
  /// Entries of each bank's combining buffer (0: none). A granted product whose address is
  /// buffered is added into that entry; otherwise it takes a free entry, or, when the buffer is
  /// full, the oldest entry is committed (one accumulator read-add-write) and the product takes
  /// its place. When no product is queued, every bank commits its oldest entry per cycle (the
  /// group's end drains the buffers through this; empty() waits for it).
  int combiningEntries = 0;
};

struct CrossbarStats {
  int64_t pushes = 0;         ///< products entering the crossbar
  int64_t grants = 0;         ///< products granted their bank
  int64_t deniedRequests = 0; ///< requests that lost arbitration (at either stage)
  int64_t stage1Denials = 0;  ///< two stages: requests that lost at their stage-1 output
  int64_t hazardStalls = 0;   ///< bank-cycles lost to a read-after-write hazard
  int64_t combined = 0;       ///< grants added into a combining-buffer entry
  /// Accumulator (SRAM) read-add-writes: the grants, or with a combining buffer the entries
  /// committed from it.
  int64_t commits = 0;
};

class Crossbar {
public:
  explicit Crossbar(const CrossbarParams& p)
      : p_(p), bankMask_(static_cast<uint32_t>(p.banks - 1)),
        slotMask_(std::bit_ceil(static_cast<unsigned>(p.fifoDepth)) - 1),
        queues_(static_cast<size_t>(p.lanes) *
                (p.virtualOutputQueues ? static_cast<size_t>(p.banks) : 1)),
        addr_(queues_ * (slotMask_ + 1)), head_(queues_), count_(queues_),
        rr_(static_cast<size_t>(p.banks)), req_(static_cast<size_t>(p.banks)),
        activeBanks_(static_cast<size_t>((p.banks + 63) / 64)),
        exposed_(static_cast<size_t>(p.lanes)), lastAddr_(static_cast<size_t>(p.banks), UINT32_MAX),
        lastCycle_(static_cast<size_t>(p.banks), INT64_MIN / 2) {
    NNACCEL_ASSERT(p.lanes >= 1 && p.lanes <= 64 && std::has_single_bit(unsigned(p.banks)) &&
                   p.fifoDepth >= 1 && p.fifoDepth <= 128 && p.combiningEntries >= 0 &&
                   (p.stages == 1 || p.stages == 2))
        << "crossbar parameters";
    if (p.stages == 2) {
      NNACCEL_ASSERT(!p.virtualOutputQueues && p.stage1Inputs >= 1 &&
                     p.lanes % p.stage1Inputs == 0 && p.banks % (p.lanes / p.stage1Inputs) == 0)
          << "two-stage crossbar parameters";
      const int groups = p.lanes / p.stage1Inputs;
      instances_ = p.banks / groups;
      groupMask_ = p.stage1Inputs == 64 ? ~uint64_t{0} : (uint64_t{1} << p.stage1Inputs) - 1;
      instReq_.assign(static_cast<size_t>(instances_), 0);
      activeInst_.assign(static_cast<size_t>((instances_ + 63) / 64), 0);
      rr1_.assign(static_cast<size_t>(groups * instances_), 0);
    }
    if (p.combiningEntries > 0) {
      const auto n = static_cast<size_t>(p.combiningEntries);
      cbAddr_.assign(static_cast<size_t>(p.banks) * n, 0);
      cbHead_.assign(static_cast<size_t>(p.banks), 0);
      cbCount_.assign(static_cast<size_t>(p.banks), 0);
    }
  }

  /// No input FIFO is full: the multiplier array may issue this cycle.
  bool ready() const { return p_.virtualOutputQueues ? fullQueues_ == 0 : fullMask_ == 0; }
  /// Nothing queued and nothing left in a combining buffer: the group's writes are done.
  bool empty() const { return queuesEmpty() && buffered_ == 0; }

  uint32_t bankOf(uint32_t address) const {
    if (!p_.hashBanks)
      return address & bankMask_;
    uint32_t h = 0;
    const int bits = std::countr_zero(unsigned(p_.banks));
    for (uint32_t a = address; a != 0; a >>= bits)
      h ^= a;
    return h & bankMask_;
  }

  /// One product for multiplier lane \p lane (its FIFO must not be full).
  void push(int lane, uint32_t address) { pushAll(&lane, &address, 1); }

  /// The products of one issue: lane \p lanes[i] gets address \p addresses[i] (each lane at
  /// most once; its FIFO must not be full). The same as push() per product, with the masks and
  /// counters kept in registers across the vector.
  void pushAll(const int* lanes, const uint32_t* addresses, int n) {
    if (p_.virtualOutputQueues) {
      pushVoq(lanes, addresses, n);
      return;
    }
    uint64_t nonEmpty = nonEmptyMask_, full = fullMask_;
    const auto depth = static_cast<uint8_t>(p_.fifoDepth);
    for (int i = 0; i < n; ++i) {
      const int lane = lanes[i];
      const auto l = static_cast<size_t>(lane);
      const uint8_t count = count_[l];
      NNACCEL_ASSERT(count < depth) << "push into a full crossbar FIFO";
      addr_[l * (slotMask_ + 1) + ((head_[l] + count) & slotMask_)] = addresses[i];
      count_[l] = static_cast<uint8_t>(count + 1);
      const uint64_t bit = uint64_t{1} << lane;
      if (count == 0) { // the new entry is the head: it requests its bank
        const uint32_t b = bankOf(addresses[i]);
        req_[b] |= bit;
        activeBanks_[b / 64] |= uint64_t{1} << (b % 64);
        ++nonEmptyLanes_;
      }
      nonEmpty |= bit;
      full |= count + 1 == depth ? bit : 0;
    }
    nonEmptyMask_ = nonEmpty;
    fullMask_ = full;
    stats_.pushes += n;
  }

  /// Requests, grants and dequeues of cycle \p cycle. The request masks are kept up to date as
  /// heads change (req_[b]: the lanes whose head entry targets bank b), so a cycle costs one
  /// step per requested bank, not per waiting lane; heads exposed by this cycle's dequeues
  /// request from the next cycle on.
  void arbitrate(int64_t cycle) {
    if (queuesEmpty()) {
      flushCombining();
      return;
    }
    if (p_.virtualOutputQueues) {
      arbitrateVoq(cycle);
      return;
    }
    if (p_.stages == 2) {
      arbitrateTwoStage(cycle);
      return;
    }
    grantBanks<false>(cycle, nonEmptyLanes_, 0); // every non-empty lane's head requests
  }

  /// Each requested bank grants one of its requesters (round robin) and dequeues it; with two
  /// stages (\p TwoStage) only among the stage-1 winners \p passed, and a grant also moves the
  /// winner's stage-1 pointer. \p requests: the heads that requested this cycle.
  template <bool TwoStage> void grantBanks(int64_t cycle, int64_t requests, uint64_t passed) {
    // Counted in locals: a counter in memory updated per grant is a store-to-load chain.
    int64_t granted = 0, stalls = 0;
    int exposed = 0;
    for (size_t w = 0; w < activeBanks_.size(); ++w) {
      uint64_t active = activeBanks_[w];
      for (uint64_t bits = active; bits != 0; bits &= bits - 1) {
        const auto b = static_cast<uint32_t>(w * 64 + static_cast<size_t>(std::countr_zero(bits)));
        const uint64_t r = req_[b];
        const uint64_t candidates = TwoStage ? r & passed : r;
        if (TwoStage && candidates == 0)
          continue; // every requester lost at stage 1
        const int winner = roundRobinWinner(b, candidates);
        if (!p_.forwarding && hazard(b, headAddr(winner), cycle)) {
          ++stalls;
          continue;
        }
        ++granted;
        if (p_.combiningEntries > 0)
          combine(b, headAddr(winner));
        rr_[b] = winner + 1 == p_.lanes ? 0 : static_cast<uint32_t>(winner + 1);
        if constexpr (TwoStage)
          advanceStage1(b, winner);
        const uint64_t left = r & ~(uint64_t{1} << winner);
        req_[b] = left;
        // Branch-free: which banks keep requests and which lanes expose a new head are
        // data-dependent and mispredict.
        active &= ~(uint64_t{left == 0} << (b % 64));
        exposed_[static_cast<size_t>(exposed)] = winner;
        exposed += pop(winner) ? 1 : 0;
      }
      activeBanks_[w] = active;
    }
    stats_.deniedRequests += requests - granted;
    stats_.grants += granted;
    stats_.commits += p_.combiningEntries > 0 ? 0 : granted;
    stats_.hazardStalls += stalls;
    for (int i = 0; i < exposed; ++i)
      request(exposed_[static_cast<size_t>(i)]);
  }

  const CrossbarStats& stats() const { return stats_; }
  /// Two stages: the stage-2 instance (stage-1 output) serving bank \p b.
  uint32_t instanceOf(uint32_t b) const { return b & static_cast<uint32_t>(instances_ - 1); }

private:
  bool queuesEmpty() const { return p_.virtualOutputQueues ? queued_ == 0 : nonEmptyMask_ == 0; }
  /// Bank \p b's grant among the requesting lanes \p r: the first at or after its round-robin
  /// pointer, wrapping around.
  int roundRobinWinner(uint32_t b, uint64_t r) const {
    const uint64_t after = r & ~((uint64_t{1} << rr_[b]) - 1);
    return std::countr_zero(after != 0 ? after : r);
  }
  /// Without forwarding: true when bank \p b wrote \p address within the write latency (the
  /// grant waits); otherwise records this access and returns false.
  bool hazard(uint32_t b, uint32_t address, int64_t cycle) {
    if (address == lastAddr_[b] && cycle - lastCycle_[b] <= p_.writeLatencyCycles)
      return true;
    lastAddr_[b] = address;
    lastCycle_[b] = cycle;
    return false;
  }

  uint32_t headAddr(int lane) const {
    const auto l = static_cast<size_t>(lane);
    return addr_[l * (slotMask_ + 1) + head_[l]];
  }
  /// Dequeues lane \p lane's head; true when another entry becomes its head.
  bool pop(int lane) {
    const auto l = static_cast<size_t>(lane);
    head_[l] = static_cast<uint8_t>((head_[l] + 1) & slotMask_);
    const uint8_t left = --count_[l];
    fullMask_ &= ~(uint64_t{1} << lane);
    const bool emptied = left == 0;
    nonEmptyMask_ &= ~(uint64_t{emptied} << lane);
    nonEmptyLanes_ -= emptied ? 1 : 0;
    return !emptied;
  }
  /// Lane \p lane's head requests its bank.
  void request(int lane) {
    const uint32_t b = bankOf(headAddr(lane));
    req_[b] |= uint64_t{1} << lane;
    activeBanks_[b / 64] |= uint64_t{1} << (b % 64);
  }

  // --- virtual output queues: queue (lane, bank) is lane * banks + bank ---------------------
  void pushVoq(const int* lanes, const uint32_t* addresses, int n) {
    const auto depth = static_cast<uint8_t>(p_.fifoDepth);
    for (int i = 0; i < n; ++i) {
      const uint32_t b = bankOf(addresses[i]);
      const size_t q = static_cast<size_t>(lanes[i]) * static_cast<size_t>(p_.banks) + b;
      const uint8_t count = count_[q];
      NNACCEL_ASSERT(count < depth) << "push into a full crossbar queue";
      addr_[q * (slotMask_ + 1) + ((head_[q] + count) & slotMask_)] = addresses[i];
      count_[q] = static_cast<uint8_t>(count + 1);
      req_[b] |= uint64_t{1} << lanes[i];
      activeBanks_[b / 64] |= uint64_t{1} << (b % 64);
      fullQueues_ += count + 1 == depth ? 1 : 0;
    }
    queued_ += n;
    stats_.pushes += n;
  }

  /// One grant per requested bank among the lanes with a product queued for it (round robin);
  /// a lane's other queues are not blocked.
  void arbitrateVoq(int64_t cycle) {
    int64_t requests = 0, granted = 0, stalls = 0;
    for (size_t w = 0; w < activeBanks_.size(); ++w) {
      uint64_t active = activeBanks_[w];
      for (uint64_t bits = active; bits != 0; bits &= bits - 1) {
        const auto b = static_cast<uint32_t>(w * 64 + static_cast<size_t>(std::countr_zero(bits)));
        const uint64_t r = req_[b];
        requests += std::popcount(r);
        const int winner = roundRobinWinner(b, r);
        const size_t q = static_cast<size_t>(winner) * static_cast<size_t>(p_.banks) + b;
        if (!p_.forwarding && hazard(b, addr_[q * (slotMask_ + 1) + head_[q]], cycle)) {
          ++stalls;
          continue;
        }
        ++granted;
        if (p_.combiningEntries > 0)
          combine(b, addr_[q * (slotMask_ + 1) + head_[q]]);
        rr_[b] = winner + 1 == p_.lanes ? 0 : static_cast<uint32_t>(winner + 1);
        fullQueues_ -= count_[q] == p_.fifoDepth ? 1 : 0;
        head_[q] = static_cast<uint8_t>((head_[q] + 1) & slotMask_);
        if (--count_[q] == 0) {
          req_[b] &= ~(uint64_t{1} << winner);
          active &= ~(uint64_t{req_[b] == 0} << (b % 64));
        }
      }
      activeBanks_[w] = active;
    }
    queued_ -= granted;
    stats_.deniedRequests += requests - granted;
    stats_.grants += granted;
    stats_.commits += p_.combiningEntries > 0 ? 0 : granted;
    stats_.hazardStalls += stalls;
  }

  // --- two stages (Fig. 3E) ------------------------------------------------------------------
  /// Stage 1: each (stage-1 instance, output) grants one of the instance's lanes whose head
  /// targets a bank behind that output (round robin); stage 2: each bank grants one of the
  /// stage-1 winners requesting it (round robin). Only a product that wins both is dequeued;
  /// a stage-1 winner that loses at its bank holds that output for the cycle (there is no FIFO
  /// between the stages to take it). A stage-1 pointer moves only when its winner is dequeued.
  void arbitrateTwoStage(int64_t cycle) {
    const int64_t requests = nonEmptyLanes_;
    const auto instMask = static_cast<uint32_t>(instances_ - 1);
    // Each stage-1 output's requesters: the lanes whose head targets one of its banks.
    for (size_t w = 0; w < activeBanks_.size(); ++w) {
      for (uint64_t bits = activeBanks_[w]; bits != 0; bits &= bits - 1) {
        const auto b = static_cast<uint32_t>(w * 64 + static_cast<size_t>(std::countr_zero(bits)));
        const uint32_t o = b & instMask;
        instReq_[o] |= req_[b];
        activeInst_[o / 64] |= uint64_t{1} << (o % 64);
      }
    }
    // Stage 1: one winner per stage-1 instance and output.
    uint64_t passed = 0;
    const int width = p_.stage1Inputs;
    for (size_t w = 0; w < activeInst_.size(); ++w) {
      for (uint64_t bits = activeInst_[w]; bits != 0; bits &= bits - 1) {
        const auto o = static_cast<uint32_t>(w * 64 + static_cast<size_t>(std::countr_zero(bits)));
        uint64_t r = instReq_[o];
        instReq_[o] = 0;
        while (r != 0) {
          const int group = std::countr_zero(r) / width;
          const uint64_t mine = r & (groupMask_ << (group * width));
          r &= ~mine;
          const uint32_t ptr = rr1_[static_cast<size_t>(group * instances_) + o];
          const uint64_t after = mine & ~((uint64_t{1} << ptr) - 1);
          passed |= uint64_t{1} << std::countr_zero(after != 0 ? after : mine);
        }
      }
      activeInst_[w] = 0;
    }
    // Stage 2: each bank among the stage-1 winners requesting it.
    stats_.stage1Denials += requests - std::popcount(passed);
    grantBanks<true>(cycle, requests, passed);
  }

  /// Two stages: the stage-1 pointer of bank \p b's output in \p winner's instance moves past
  /// the winner.
  void advanceStage1(uint32_t b, int winner) {
    const int width = p_.stage1Inputs;
    const int group = winner / width;
    rr1_[static_cast<size_t>(group * instances_) + (b & static_cast<uint32_t>(instances_ - 1))] =
        winner + 1 == (group + 1) * width ? static_cast<uint32_t>(group * width)
                                          : static_cast<uint32_t>(winner + 1);
  }

  // --- combining buffers: bank b's entries are a ring of combiningEntries addresses ----------
  /// A product for \p address granted bank \p b enters its combining buffer.
  void combine(uint32_t b, uint32_t address) {
    const auto n = static_cast<uint32_t>(p_.combiningEntries);
    uint32_t* ring = &cbAddr_[static_cast<size_t>(b) * n];
    const uint32_t head = cbHead_[b], count = cbCount_[b];
    for (uint32_t k = 0, s = head; k < count; ++k, s = s + 1 == n ? 0 : s + 1) {
      if (ring[s] == address) {
        ++stats_.combined;
        return;
      }
    }
    if (count < n) { // a free entry
      ring[head + count < n ? head + count : head + count - n] = address;
      cbCount_[b] = count + 1;
      ++buffered_;
      return;
    }
    // Full: the oldest entry is committed and the product takes its slot (now the newest).
    ring[head] = address;
    cbHead_[b] = head + 1 == n ? 0 : head + 1;
    ++stats_.commits;
  }

  /// No product queued: every bank commits its oldest buffered entry.
  void flushCombining() {
    if (buffered_ == 0)
      return;
    const auto n = static_cast<uint32_t>(p_.combiningEntries);
    for (size_t b = 0; b < cbCount_.size(); ++b) {
      if (cbCount_[b] == 0)
        continue;
      cbHead_[b] = cbHead_[b] + 1 == n ? 0 : cbHead_[b] + 1;
      --cbCount_[b];
      --buffered_;
      ++stats_.commits;
    }
  }

  CrossbarParams p_;
  uint32_t bankMask_;
  uint32_t slotMask_;                   ///< FIFO slots are a power of two >= the depth
  size_t queues_;                       ///< lanes, or lanes x banks with virtual output queues
  int64_t fullQueues_ = 0, queued_ = 0; ///< virtual output queues: full ones, entries held
  std::vector<uint32_t> addr_;
  std::vector<uint8_t> head_, count_;
  std::vector<uint32_t> rr_;
  std::vector<uint64_t> req_;
  std::vector<uint64_t> activeBanks_; ///< bit b: some head requests bank b
  std::vector<int> exposed_;          ///< heads exposed during this cycle's dequeues
  int64_t nonEmptyLanes_ = 0;
  std::vector<uint32_t> lastAddr_;
  std::vector<int64_t> lastCycle_;
  uint64_t fullMask_ = 0, nonEmptyMask_ = 0;
  // two stages
  int instances_ = 1;                ///< stage-2 instances (stage-1 outputs) G2
  uint64_t groupMask_ = 0;           ///< the lanes of stage-1 instance 0
  std::vector<uint64_t> instReq_;    ///< per stage-1 output: the lanes requesting it
  std::vector<uint64_t> activeInst_; ///< bit o: some lane requests stage-1 output o
  std::vector<uint32_t> rr1_;        ///< per (stage-1 instance, output): round-robin lane
  // combining buffers
  std::vector<uint32_t> cbAddr_, cbHead_, cbCount_;
  int64_t buffered_ = 0; ///< entries held over all banks
  CrossbarStats stats_;
};

} // namespace nnaccel::arch::sparse
