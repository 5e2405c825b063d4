/// \file
/// Integer quotients shared by every module: the floor and the ceiling of a / b for a positive
/// divisor and a dividend of any sign (C++ division truncates toward zero). Window bounds,
/// tile counts and padding arithmetic all use these, so there is one definition to trust
/// instead of a private copy per file.
#pragma once

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

static_assert(floorDiv(-3, 2) == -2 && floorDiv(3, 2) == 1 && floorDiv(-4, 2) == -2);
static_assert(ceilDiv(-3, 2) == -1 && ceilDiv(3, 2) == 2 && ceilDiv(-4, 2) == -2);

} // namespace nnaccel
