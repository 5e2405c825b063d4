/// \file
/// BufferAllocator (BufferAllocator.h): first fit over the extents free for a lifetime.
#include "nnaccel/arch/common/BufferAllocator.h"

#include "nnaccel/support/Error.h"

#include <algorithm>

namespace nnaccel::arch::common {

std::vector<std::pair<int64_t, int64_t>> BufferAllocator::freeExtents(int64_t first,
                                                                      int64_t last) const {
  std::vector<std::pair<int64_t, int64_t>> used;
  for (const Placed& p : placed_)
    if (p.request.firstLayer <= last && first <= p.request.lastLayer)
      used.emplace_back(p.offsetBytes, p.offsetBytes + p.request.bytes);
  std::sort(used.begin(), used.end());
  std::vector<std::pair<int64_t, int64_t>> free;
  int64_t at = 0;
  for (const auto& [begin, end] : used) {
    if (begin > at)
      free.emplace_back(at, begin);
    at = std::max(at, end);
  }
  if (at < capacityBytes_)
    free.emplace_back(at, capacityBytes_);
  return free;
}

std::optional<int64_t> BufferAllocator::place(const BufferRequest& r, End end) {
  NNACCEL_ASSERT(r.bytes >= 0 && r.firstLayer <= r.lastLayer)
      << "BufferAllocator: " << r.bytes << " bytes over layers " << r.firstLayer << ".."
      << r.lastLayer;
  if (r.bytes == 0)
    return 0; // takes no space
  auto free = freeExtents(r.firstLayer, r.lastLayer);
  if (end == End::Top)
    std::reverse(free.begin(), free.end());
  for (const auto& [first, last] : free)
    if (last - first >= r.bytes) {
      const int64_t offset = end == End::Top ? last - r.bytes : first;
      placed_.push_back(Placed{r, offset});
      return offset;
    }
  return std::nullopt;
}

int64_t BufferAllocator::largestFreeBytes(int64_t firstLayer, int64_t lastLayer) const {
  int64_t largest = 0;
  for (const auto& [begin, end] : freeExtents(firstLayer, lastLayer))
    largest = std::max(largest, end - begin);
  return largest;
}

int64_t BufferAllocator::peakLiveBytes() const {
  int64_t peak = 0;
  // The live set only grows at a step where a buffer starts.
  for (const Placed& at : placed_) {
    int64_t live = 0;
    for (const Placed& p : placed_)
      if (p.request.firstLayer <= at.request.firstLayer &&
          at.request.firstLayer <= p.request.lastLayer)
        live += p.request.bytes;
    peak = std::max(peak, live);
  }
  return peak;
}

int64_t BufferAllocator::peakBytes() const {
  int64_t peak = 0;
  for (const Placed& p : placed_)
    peak = std::max(peak, p.offsetBytes + p.request.bytes);
  return peak;
}

} // namespace nnaccel::arch::common
