/// \file
/// Integer quotients shared by every module: the floor and the ceiling of a / b for a positive
/// divisor and a dividend of any sign (C++ division truncates toward zero). Window bounds,
/// tile counts and padding arithmetic all use these, so there is one definition to trust
/// instead of a private copy per file. transferCycles is the one rate division of the cycle
/// models.
#pragma once

#include "nnaccel/support/Error.h"

#include <cmath>
#include <cstdint>

namespace nnaccel {

/// floor(a / b) for b > 0 and any a.
constexpr int64_t floorDiv(int64_t a, int64_t b) {
  const int64_t q = a / b;
  return (a % b != 0 && a < 0) ? q - 1 : q;
}

/// ceil(a / b) for b > 0 and any a; for a >= 0 this is (a + b - 1) / b.
constexpr int64_t ceilDiv(int64_t a, int64_t b) {
  const int64_t q = a / b;
  return (a % b != 0 && a > 0) ? q + 1 : q;
}

/// The cycles \p bytes take at \p bytesPerCycle: ceil(bytes / rate). Every engine schema
/// bounds its rates to config::kBytesPerCycleRange (at least 1/1024 byte per cycle), so for any
/// byte count below 2^52 the result is far inside int64; anything else is an internal error,
/// never a wrapped count (docs/ErrorHandling.md "Numeric guards").
inline int64_t transferCycles(int64_t bytes, double bytesPerCycle) {
  const double cycles = std::ceil(static_cast<double>(bytes) / bytesPerCycle);
  NNACCEL_ASSERT(cycles >= 0 && cycles < 0x1p62)
      << bytes << " bytes at " << bytesPerCycle << " bytes/cycle overflow the cycle count";
  return static_cast<int64_t>(cycles);
}

static_assert(floorDiv(-3, 2) == -2 && floorDiv(3, 2) == 1 && floorDiv(-4, 2) == -2);
static_assert(ceilDiv(-3, 2) == -1 && ceilDiv(3, 2) == 2 && ceilDiv(-4, 2) == -2);

} // namespace nnaccel
