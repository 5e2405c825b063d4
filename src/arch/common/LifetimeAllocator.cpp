/// \file
/// LifetimeAllocator (LifetimeAllocator.h): first fit over the gaps between live blocks.
#include "nnaccel/arch/common/LifetimeAllocator.h"

#include "nnaccel/support/Error.h"

#include <algorithm>

namespace nnaccel::arch::common {

LifetimeAllocator::LifetimeAllocator(int64_t capacityBytes, int64_t alignBytes)
    : capacityBytes_(capacityBytes), alignBytes_(alignBytes) {
  NNACCEL_ASSERT(capacityBytes >= 0 && alignBytes >= 1) << "capacity " << capacityBytes;
}

void LifetimeAllocator::retire(int64_t now) {
  std::erase_if(live_, [&](const Block& b) { return b.lastUse < now; });
}

std::optional<int64_t> LifetimeAllocator::allocate(int64_t bytes, int64_t lastUse) {
  NNACCEL_ASSERT(bytes >= 0) << "bytes " << bytes;
  const int64_t size = std::max<int64_t>(bytes, 1);
  if (size > capacityBytes_)
    return std::nullopt;
  int64_t gapLo = 0;
  for (size_t i = 0; i <= live_.size(); ++i) {
    const int64_t gapHi = i < live_.size() ? live_[i].lo : capacityBytes_;
    if (gapHi - gapLo >= size) {
      live_.insert(live_.begin() + static_cast<std::ptrdiff_t>(i),
                   Block{gapLo, gapLo + size, lastUse});
      peakBytes_ = std::max(peakBytes_, liveBytes());
      return gapLo;
    }
    if (i < live_.size())
      gapLo = (live_[i].hi + alignBytes_ - 1) / alignBytes_ * alignBytes_;
  }
  return std::nullopt;
}

void LifetimeAllocator::extend(int64_t offset, int64_t lastUse) {
  auto it = std::find_if(live_.begin(), live_.end(),
                         [&](const Block& b) { return b.lo <= offset && offset < b.hi; });
  NNACCEL_ASSERT(it != live_.end()) << "offset " << offset << " is not in a live block";
  it->lastUse = std::max(it->lastUse, lastUse);
}

int64_t LifetimeAllocator::liveBytes() const {
  int64_t sum = 0;
  for (const Block& b : live_)
    sum += b.hi - b.lo;
  return sum;
}

} // namespace nnaccel::arch::common
