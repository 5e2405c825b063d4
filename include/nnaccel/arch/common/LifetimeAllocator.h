/// \file
/// First-fit allocation of an on-chip activation buffer over layer lifetimes: a layer's output
/// stays on chip from the layer that produces it until its last consumer, then its bytes are
/// free for later outputs. The compilers ask it before they give an activation a DRAM address
/// (systolic: the SBUF resident region; broadcast: the global buffer), and spill to DRAM what
/// does not fit. Times are the compiler's own step numbers (graph node ids in schedule order).
#pragma once
#include <cstdint>
#include <optional>
#include <vector>

namespace nnaccel::arch::common {

class LifetimeAllocator {
public:
  /// A buffer of \p capacityBytes; every block starts at a multiple of \p alignBytes.
  LifetimeAllocator(int64_t capacityBytes, int64_t alignBytes);

  /// Frees every block whose last use is before step \p now.
  void retire(int64_t now);
  /// Offset of a new block of \p bytes live until step \p lastUse inclusive, or nullopt when no
  /// free gap holds it (the caller spills to DRAM).
  std::optional<int64_t> allocate(int64_t bytes, int64_t lastUse);
  /// Keeps the block holding \p offset live until at least \p lastUse (an alias of it is read
  /// later). The block must be live.
  void extend(int64_t offset, int64_t lastUse);

  int64_t capacityBytes() const { return capacityBytes_; }
  /// Bytes held by live blocks (after the last retire), and the most ever held at once.
  int64_t liveBytes() const;
  int64_t peakBytes() const { return peakBytes_; }

private:
  struct Block {
    int64_t lo = 0, hi = 0, lastUse = 0;
  };
  int64_t capacityBytes_, alignBytes_;
  int64_t peakBytes_ = 0;
  std::vector<Block> live_; ///< sorted by lo, disjoint
};

} // namespace nnaccel::arch::common
