/// \file
/// First-fit allocation of lifetime-bounded buffers in one on-chip address space: a layer's
/// output is live from the step that produces it to its last reader, so two outputs whose
/// lifetimes do not overlap may share bytes. Requests arrive in program order and a placed
/// buffer is never moved or evicted, so a value either stays on chip for its whole lifetime or
/// the caller spills it to DRAM: no eviction policy, and the simulators need no address-level
/// model of it. Used for the systolic SBUF resident region (compiler/Residency.cpp) and the
/// broadcast global buffer (MemoryPlan.h). Steps are the caller's (layer or node indices).
#pragma once

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

namespace nnaccel::arch::common {

/// A buffer of \p bytes live from step firstLayer to step lastLayer (inclusive).
struct BufferRequest {
  int64_t bytes = 0;
  int64_t firstLayer = 0, lastLayer = 0;
};

/// First-fit allocation of lifetime-bounded buffers in one address space of capacityBytes.
class BufferAllocator {
public:
  explicit BufferAllocator(int64_t capacityBytes) : capacityBytes_(capacityBytes) {}

  /// Where place() looks first.
  enum class End { Bottom, Top };
  /// Places \p r in the first free extent over its lifetime that holds it (no placed buffer
  /// with an overlapping lifetime covers it), from the bottom of the address space or, for
  /// \p end Top, from the top (short-lived buffers there do not split the long-lived ones'
  /// space); nothing (and nothing placed) when no such extent exists.
  std::optional<int64_t> place(const BufferRequest& r, End end = End::Bottom);
  /// The largest extent free over the whole of steps [firstLayer, lastLayer].
  int64_t largestFreeBytes(int64_t firstLayer, int64_t lastLayer) const;
  /// The highest byte any placed buffer reaches (staged buffers placed from the top reach the
  /// capacity, so this is the address space's extent, not its use).
  int64_t peakBytes() const;
  /// The most bytes live at any one step: the buffer's peak use.
  int64_t peakLiveBytes() const;
  int64_t capacityBytes() const { return capacityBytes_; }

private:
  /// Free extents [begin, end) over steps [first, last], in address order.
  std::vector<std::pair<int64_t, int64_t>> freeExtents(int64_t first, int64_t last) const;

  struct Placed {
    BufferRequest request;
    int64_t offsetBytes = 0;
  };
  int64_t capacityBytes_ = 0;
  std::vector<Placed> placed_;
};

} // namespace nnaccel::arch::common
