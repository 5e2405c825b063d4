/// \file
/// The broadcast engine's memory plan: which layer outputs stay in the global buffer (on-chip
/// SRAM) between layers, which go to memory 310 (the DRAM behind it) and why, and which operands
/// a layer stages into the buffer before it runs (docs/arch/BroadcastCompiler.md, "Memory
/// hierarchy").
///
/// Why first fit over lifetimes: a layer's output is live from its producer to its last
/// consumer, so two outputs whose lifetimes do not overlap may share bytes. Requests arrive in
/// program order and a placed buffer is never moved or evicted, so a value either stays on chip
/// for its whole lifetime or is written to memory 310 once and read back from there: the plan
/// needs no eviction policy and the simulator no address-level model.
#pragma once

#include "nnaccel/arch/broadcast/Program.h"
#include "nnaccel/ir/Graph.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace nnaccel::arch::broadcast {

/// A buffer of \p bytes live from layer firstLayer to layer lastLayer (program indices,
/// inclusive).
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
  /// The largest extent free over the whole of layers [firstLayer, lastLayer].
  int64_t largestFreeBytes(int64_t firstLayer, int64_t lastLayer) const;
  /// The highest byte any placed buffer reaches (the buffer's peak use).
  int64_t peakBytes() const;
  int64_t capacityBytes() const { return capacityBytes_; }

private:
  /// Free extents [begin, end) over layers [first, last], in address order.
  std::vector<std::pair<int64_t, int64_t>> freeExtents(int64_t first, int64_t last) const;

  struct Placed {
    BufferRequest request;
    int64_t offsetBytes = 0;
  };
  int64_t capacityBytes_ = 0;
  std::vector<Placed> placed_;
};

/// Fills every layer's LayerMemory and the program's bufferPeakBytes for the global buffer of
/// program.config. Model inputs and outputs and the values a host layer reads or writes live in
/// memory 310; each other output stays in the buffer when it fits for its whole lifetime (a View
/// extends the lifetime of the value it renames). Before a Conv layer runs, its weights and a
/// memory-310 input are staged into the buffer when they fit beside the live values (weights
/// first); otherwise the schedule reads them from memory 310 directly.
void planMemory(Program& program, const ir::Graph& g);

} // namespace nnaccel::arch::broadcast
