/// \file
/// The arbitrated scatter crossbar of one SCNN PE (seed 001 §1.4, Fig. 3C): one input FIFO per
/// multiplier lane, a one-hot request from each FIFO head to its accumulator bank, one grant per
/// bank per cycle (round robin), dequeue of the winners at the end of the cycle, and the
/// read-add-write hazard of a bank's accumulator (forwarded, or stalled for the write latency).
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
};

struct CrossbarStats {
  int64_t pushes = 0;         ///< products entering the crossbar
  int64_t grants = 0;         ///< accumulator read-add-writes
  int64_t deniedRequests = 0; ///< requests that lost arbitration (bank conflicts)
  int64_t hazardStalls = 0;   ///< bank-cycles lost to a read-after-write hazard
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
                   p.fifoDepth >= 1 && p.fifoDepth <= 128)
        << "crossbar parameters";
  }

  /// No input FIFO is full: the multiplier array may issue this cycle.
  bool ready() const { return p_.virtualOutputQueues ? fullQueues_ == 0 : fullMask_ == 0; }
  bool empty() const { return p_.virtualOutputQueues ? queued_ == 0 : nonEmptyMask_ == 0; }

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
    if (p_.virtualOutputQueues) {
      arbitrateVoq(cycle);
      return;
    }
    if (nonEmptyMask_ == 0)
      return;
    // Counted in locals: a counter in memory updated per grant is a store-to-load chain.
    const int64_t requests = nonEmptyLanes_; // every non-empty lane's head requests its bank
    int64_t granted = 0, stalls = 0;
    int exposed = 0;
    for (size_t w = 0; w < activeBanks_.size(); ++w) {
      uint64_t active = activeBanks_[w];
      for (uint64_t bits = active; bits != 0; bits &= bits - 1) {
        const auto b = static_cast<uint32_t>(w * 64 + static_cast<size_t>(std::countr_zero(bits)));
        const uint64_t r = req_[b];
        const int winner = roundRobinWinner(b, r);
        if (!p_.forwarding && hazard(b, headAddr(winner), cycle)) {
          ++stalls;
          continue;
        }
        ++granted;
        rr_[b] = winner + 1 == p_.lanes ? 0 : static_cast<uint32_t>(winner + 1);
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
    stats_.hazardStalls += stalls;
    for (int i = 0; i < exposed; ++i)
      request(exposed_[static_cast<size_t>(i)]);
  }

  const CrossbarStats& stats() const { return stats_; }

private:
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
    stats_.hazardStalls += stalls;
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
  CrossbarStats stats_;
};

} // namespace nnaccel::arch::sparse
