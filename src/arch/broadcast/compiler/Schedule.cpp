/// \file
/// The broadcast schedule of one row pass (Schedule.h; seed 004 §2.4, FIG. 8 generalized to
/// stride, dummy taps and padding). Built in O(positions + operands + deliveries): for each
/// position the operands holding it as a live tap form one contiguous range of k, so neither
/// mode searches.
#include "nnaccel/arch/broadcast/Schedule.h"

#include "nnaccel/support/Error.h"
#include "nnaccel/support/IntMath.h"

#include <algorithm>
#include <cstdint>

namespace nnaccel::arch::broadcast {

std::vector<int64_t> RowSchedule::reuseHistogram() const {
  std::vector<int64_t> histogram(static_cast<size_t>(shape.taps + 1), 0);
  for (const Slot& s : slots)
    ++histogram[static_cast<size_t>(s.deliveries)];
  return histogram;
}

RowSchedule scheduleRow(const PassShape& shape, int64_t pes, bool broadcast) {
  const int64_t positions = shape.positions, operands = shape.operands, taps = shape.taps;
  const int64_t stride = shape.stride;
  NNACCEL_ASSERT(positions >= 0 && operands >= 0 && taps >= 1 && stride >= 1 && pes >= 1)
      << "scheduleRow: " << positions << " positions, " << operands << " operands, N " << taps
      << ", stride " << stride << ", " << pes << " PEs";
  NNACCEL_ASSERT(operands == 0 || (operands - 1) * stride + taps <= positions)
      << "scheduleRow: " << operands << " operands of N " << taps << " at stride " << stride
      << " do not fit " << positions << " positions";
  NNACCEL_ASSERT(!broadcast || pes * stride >= taps)
      << "scheduleRow: broadcasting needs P * stride >= N (P " << pes << ", stride " << stride
      << ", N " << taps << ")";

  RowSchedule s;
  s.shape = shape;
  s.pes = pes;
  s.broadcast = broadcast;
  // Live taps: n < liveWidth, at positions in [begin, end).
  const int64_t liveWidth = std::clamp<int64_t>(shape.realTaps, 0, taps);
  const int64_t begin = std::max<int64_t>(shape.validBegin, 0);
  const int64_t end = std::min(shape.validEnd, positions);
  const auto peOf = [pes](int64_t k) { return static_cast<int32_t>(k % pes); };

  s.liveTaps.assign(static_cast<size_t>(operands), 0);
  int64_t totalLive = 0;
  for (int64_t k = 0; k < operands; ++k) {
    const int64_t first = std::max(k * stride, begin), last = std::min(k * stride + liveWidth, end);
    const int64_t live = std::max<int64_t>(last - first, 0);
    s.liveTaps[static_cast<size_t>(k)] = static_cast<int32_t>(live);
    totalLive += live;
  }
  NNACCEL_ASSERT(totalLive <= INT32_MAX)
      << "scheduleRow: " << totalLive << " deliveries in one pass";
  s.deliveries.reserve(static_cast<size_t>(totalLive));
  s.slots.reserve(static_cast<size_t>(broadcast ? std::max<int64_t>(end - begin, 0) : totalLive));
  if (operands == 0 || liveWidth == 0 || begin >= end)
    return s;

  // Operands holding position j as a live tap: k in [kLo, kHi], each at tap j - k * stride.
  const int64_t firstLive = begin, lastLive = std::min(end, (operands - 1) * stride + liveWidth);
  for (int64_t j = firstLive; j < lastLive; ++j) {
    const int64_t kLo = std::max<int64_t>(0, ceilDiv(j - liveWidth + 1, stride));
    const int64_t kHi = std::min(operands - 1, floorDiv(j, stride));
    if (kLo > kHi)
      continue; // between two operands' real taps (dummy columns at stride > N)
    const auto delivery = [&](int64_t k) {
      return Delivery{peOf(k), static_cast<int32_t>(k), static_cast<int32_t>(j - k * stride)};
    };
    if (!broadcast) {
      for (int64_t k = kLo; k <= kHi; ++k) {
        s.slots.push_back(Slot{j, peOf(k), static_cast<int32_t>(s.deliveries.size()), 1});
        s.deliveries.push_back(delivery(k));
      }
      continue;
    }
    // The reader: the operand whose first live tap is j (at the first valid position every
    // holder starts there: the lowest k), else the operand starting at j, else the last holder.
    int64_t readerK = kHi;
    if (j == begin)
      readerK = kLo;
    else if (j % stride == 0 && j / stride <= kHi)
      readerK = j / stride;
    s.slots.push_back(Slot{j, peOf(readerK), static_cast<int32_t>(s.deliveries.size()),
                           static_cast<int32_t>(kHi - kLo + 1)});
    s.deliveries.push_back(delivery(readerK));
    for (int64_t k = kLo; k <= kHi; ++k) {
      if (k != readerK)
        s.deliveries.push_back(delivery(k));
    }
  }
  return s;
}

} // namespace nnaccel::arch::broadcast
