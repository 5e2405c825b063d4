// Conversion of a real requantization multiplier to its integer (multiplier, shift) form; the
// run-time rule itself is header-only in nnaccel/quant/Requantize.h.
#include "nnaccel/quant/Requantize.h"

#include <sstream>
#include <string>

namespace nnaccel::quant {

namespace {
[[noreturn]] void rejectMultiplier(double m, const std::string& why) {
  std::ostringstream os;
  os.precision(9);
  os << "requantization multiplier " << m << " " << why;
  throw Error(ErrorKind::Unsupported, {}, os.str());
}
} // namespace

std::string_view roundingName(Rounding r) {
  return r == Rounding::HalfEven ? "half to even" : "half away from zero";
}

std::vector<int8_t> rescaleTable(float sIn, int32_t zIn, float sOut, int32_t zOut) {
  std::vector<int8_t> table;
  table.reserve(256);
  for (int32_t q = kInt8Min; q <= kInt8Max; ++q)
    table.push_back(quantizeValue(dequantizeValue(q, sIn, zIn), sOut, kInt8Min, kInt8Max,
                                  Rounding::HalfEven, zOut));
  return table;
}

QuantMultiplier quantizeMultiplier(double m, int64_t maxAbsAccumulator) {
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
    // Exactly zero when |acc * m| < 0.5 for every accumulator (always so for int32 ones).
    if (static_cast<double>(maxAbsAccumulator) * m >= 0.5) {
      rejectMultiplier(m, ("is below 2^-32 but accumulators reach " +
                           std::to_string(maxAbsAccumulator) +
                           " in magnitude (the supported range is [2^-32, 2^30))"));
    }
    return QuantMultiplier{0, kMaxShift};
  }
  return QuantMultiplier{static_cast<int32_t>(mantissa), static_cast<int32_t>(shift)};
}

} // namespace nnaccel::quant
