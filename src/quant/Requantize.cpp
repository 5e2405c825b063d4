// Conversion of a real requantization multiplier to its integer (multiplier, shift) form; the
// run-time rule itself is header-only in nnaccel/quant/Requantize.h.
#include "nnaccel/quant/Requantize.h"

#include <sstream>

namespace nnaccel::quant {

namespace {
[[noreturn]] void rejectMultiplier(double m, const char* why) {
  std::ostringstream os;
  os.precision(9);
  os << "requantization multiplier " << m << " " << why;
  throw Error(ErrorKind::Unsupported, {}, os.str());
}
} // namespace

QuantMultiplier quantizeMultiplier(double m) {
  if (!std::isfinite(m)) {
    rejectMultiplier(m, "is not finite");
  }
  if (m <= 0.0) {
    rejectMultiplier(m, "is not positive");
  }
  int exponent = 0;
  const double frac = std::frexp(m, &exponent); // m = frac * 2^exponent, frac in [0.5, 1)
  int64_t mantissa = static_cast<int64_t>(std::round(std::ldexp(frac, 31)));
  if (mantissa == (int64_t{1} << 31)) {
    mantissa = int64_t{1} << 30;
    ++exponent;
  }
  // m ~= mantissa * 2^(exponent - 31) = mantissa * 2^-(31 + shift)  =>  shift = -exponent.
  const int64_t shift = -static_cast<int64_t>(exponent);
  if (shift < kMinShift) {
    rejectMultiplier(m, "is too large (the supported range is [2^-32, 2^30))");
  }
  if (shift > kMaxShift) {
    return QuantMultiplier{0, kMaxShift}; // |acc * m| < 0.5 for every int32 acc: exactly zero
  }
  return QuantMultiplier{static_cast<int32_t>(mantissa), static_cast<int32_t>(shift)};
}

} // namespace nnaccel::quant
