/// \file
/// binary16 <-> fp32 by bit manipulation (tensor/Half.h): no dependence on the compiler's or
/// the CPU's half support, so results are the same on every machine.
#include "nnaccel/tensor/Half.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace nnaccel {

float halfBitsToFloat(uint16_t bits) {
  const float sign = (bits & 0x8000u) != 0 ? -1.0f : 1.0f;
  const int exponent = (bits >> 10) & 0x1f;
  const int mantissa = bits & 0x3ff;
  if (exponent == 0x1f)
    return mantissa == 0 ? sign * INFINITY : std::numeric_limits<float>::quiet_NaN();
  if (exponent == 0) // zero or subnormal: mantissa * 2^-24
    return sign * std::ldexp(static_cast<float>(mantissa), -24);
  return sign * std::ldexp(static_cast<float>(mantissa | 0x400), exponent - 25);
}

float roundToHalf(float x) {
  if (!std::isfinite(x) || x == 0.0f)
    return x;
  const float a = std::fabs(x);
  int e = 0;
  std::frexp(a, &e); // a = f * 2^e, f in [0.5, 1)
  // Half keeps 11 significant bits down to 2^-14 (normal), then a fixed step of 2^-24.
  const int step = std::max(e - 11, -24);
  const float q = std::nearbyint(std::ldexp(a, -step)); // ties to even (default rounding)
  const float r = std::ldexp(q, step);
  return std::copysign(r >= 65520.0f ? INFINITY : r, x);
}

} // namespace nnaccel
