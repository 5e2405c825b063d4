/// \file
/// The integer arithmetic of nnaccel's int8 inference: the one requantization rule, the fp32 ->
/// int8 quantization rule and dequantization.
///
/// Every engine (systolic, sparse, broadcast, stream) must reproduce the int8 reference
/// executor bit for bit, so the rules live here, header-only, and engines call these functions
/// (or re-implement exactly what is written in docs/Quantization.md).
///
/// Rounding mode: round half AWAY from zero, everywhere (requantization, activation and weight
/// quantization, bias quantization, Clip bounds).
///
/// Requantization: a real multiplier m > 0 is represented as QuantMultiplier{M, shift} with
///   m ~= M * 2^-(31 + shift),   M in [2^30, 2^31),   shift in [kMinShift, kMaxShift] = [-30, 31]
/// so the total right shift R = 31 + shift is in [1, 62] and m in [2^-32, 2^30). Multipliers
/// below 2^-32 are represented by the zero multiplier {M = 0, shift = kMaxShift}: for every
/// int32 accumulator |acc * m| < 0.5, so rounding gives 0 exactly and M = 0 is not an
/// approximation. Multipliers >= 2^30 (or not finite, or <= 0) are rejected.
///
///   multiplyRounded(acc, q) = sign(x) * floor((|x| + 2^(R-1)) / 2^R),  x = (int64) acc * M
///   requantize(acc, q, lo, hi) = clamp(multiplyRounded(acc, q), lo, hi)
///
/// |x| < 2^62, so everything fits in 64-bit integers; no floating point is used at run time.
///
/// Average pooling sums a window in int64 (a window may hold more than 2^24 int8 values, whose
/// sum would overflow int32) and applies the same rule to the int64 sum with a 128-bit product
/// (requantizeWide); on int32 values the two functions agree exactly.
#pragma once

#include "nnaccel/support/Error.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string_view>
#include <vector>

namespace nnaccel::quant {

/// Allowed shift range: total right shift R = 31 + shift in [1, 62].
inline constexpr int32_t kMinShift = -30;
inline constexpr int32_t kMaxShift = 31;
/// int8 activation range; weights use the symmetric range [-127, 127].
inline constexpr int32_t kInt8Min = -128;
inline constexpr int32_t kInt8Max = 127;
inline constexpr int32_t kWeightMax = 127;

/// How a requantization rounds a result exactly half-way between two integers: away from zero
/// (nnaccel's rule for the models it quantizes itself) or to the even neighbour (ONNX's
/// QuantizeLinear and ONNX Runtime's integer kernels: the rule of imported QDQ models).
enum class Rounding : uint8_t { HalfAway, HalfEven };
std::string_view roundingName(Rounding r);

/// m = multiplier * 2^-(31 + shift), applied with `rounding`. The default is exactly 1.0.
struct QuantMultiplier {
  int32_t multiplier = int32_t{1} << 30;
  int32_t shift = -1;
  Rounding rounding = Rounding::HalfAway;

  /// Exactly 1.0 (whatever the rounding: nothing is ever half-way).
  constexpr bool isIdentity() const { return multiplier == int32_t{1} << 30 && shift == -1; }

  /// True for the zero multiplier or M in [2^30, 2^31) with shift in range.
  constexpr bool isValid() const {
    const bool zero = multiplier == 0 && shift == kMaxShift;
    const bool normal =
        multiplier >= (int32_t{1} << 30) && shift >= kMinShift && shift <= kMaxShift;
    return zero || normal;
  }
  /// The represented real value (for diagnostics and tests; never used to compute results).
  double toDouble() const { return std::ldexp(static_cast<double>(multiplier), -(31 + shift)); }

  bool operator==(const QuantMultiplier&) const = default;
};

/// The QuantMultiplier nearest to \p m (M = round-half-away(frac * 2^31) where m = frac * 2^e,
/// frac in [0.5, 1); a carry to 2^31 renormalizes to 2^30 with e + 1). Relative error
/// <= 2^-31. m < 2^-32 gives the zero multiplier, which is exact when every accumulator the
/// multiplier scales has |acc| <= \p maxAbsAccumulator with maxAbsAccumulator * m < 0.5 (always
/// true for int32 accumulators: 2^31 * 2^-32 = 0.5, and m < 2^-32 strictly). Throws
/// nnaccel::Error (Unsupported, no context; callers add the node) when m is not finite, m <= 0,
/// m >= 2^30 after rounding, or m < 2^-32 while maxAbsAccumulator * m >= 0.5.
QuantMultiplier quantizeMultiplier(double m, int64_t maxAbsAccumulator = int64_t{1} << 31);

/// round(acc * M / 2^(31 + shift)) computed exactly in 64-bit integers, without saturation,
/// a half-way result rounded as q.rounding says (away from zero, or to even). The result
/// magnitude is at most 2^61.
constexpr int64_t multiplyRounded(int32_t acc, QuantMultiplier q) {
  NNACCEL_ASSERT(q.isValid()) << "invalid QuantMultiplier{" << q.multiplier << ", " << q.shift
                              << "}";
  const int64_t x = static_cast<int64_t>(acc) * q.multiplier;
  const int32_t rshift = 31 + q.shift;
  const uint64_t mag = x < 0 ? static_cast<uint64_t>(-x) : static_cast<uint64_t>(x);
  const uint64_t half = uint64_t{1} << (rshift - 1);
  uint64_t rounded = (mag + half) >> rshift;
  if (q.rounding == Rounding::HalfEven && (mag & ((half << 1) - 1)) == half)
    rounded &= ~uint64_t{1}; // a tie went up to an odd value: take the even neighbour below
  return x < 0 ? -static_cast<int64_t>(rounded) : static_cast<int64_t>(rounded);
}

/// The requantization rule: multiplyRounded then saturate to [lo, hi] (int8 by default; a fused
/// Relu/Clip narrows the range, see docs/Quantization.md).
constexpr int32_t requantize(int32_t acc, QuantMultiplier q, int32_t lo = kInt8Min,
                             int32_t hi = kInt8Max) {
  const int64_t r = multiplyRounded(acc, q);
  return r < lo ? lo : (r > hi ? hi : static_cast<int32_t>(r));
}

/// The requantization rule onto an output with zero point \p zOut (real = s * (q - zOut)):
/// clamp(multiplyRounded(acc, q) + zOut, lo, hi), the bounds being codes of the output. ONNX's
/// QLinearConv/QuantizeLinear: saturate(round(acc * m) + zero_point). zOut = 0 is requantize().
constexpr int32_t requantizeTo(int32_t acc, QuantMultiplier q, int32_t zOut, int32_t lo = kInt8Min,
                               int32_t hi = kInt8Max) {
  const int64_t r = multiplyRounded(acc, q) + zOut;
  return r < lo ? lo : (r > hi ? hi : static_cast<int32_t>(r));
}

/// The requantization rule on an int64 \p acc (average-pool window sums): the same formula as
/// multiplyRounded + clamp, with x = acc * M computed exactly in 128 bits (|x| < 2^94) and the
/// rounded quotient saturated to [lo, hi]. Equal to requantize() for every int32 \p acc.
constexpr int32_t requantizeWide(int64_t acc, QuantMultiplier q, int32_t lo = kInt8Min,
                                 int32_t hi = kInt8Max) {
  NNACCEL_ASSERT(q.isValid()) << "invalid QuantMultiplier{" << q.multiplier << ", " << q.shift
                              << "}";
  __extension__ using Int128 = __int128;
  __extension__ using UInt128 = unsigned __int128;
  const Int128 x = static_cast<Int128>(acc) * q.multiplier;
  const int32_t rshift = 31 + q.shift;
  const UInt128 mag = x < 0 ? static_cast<UInt128>(-x) : static_cast<UInt128>(x);
  const UInt128 half = UInt128{1} << (rshift - 1);
  UInt128 rounded = (mag + half) >> rshift;
  if (q.rounding == Rounding::HalfEven && (mag & ((half << 1) - 1)) == half)
    rounded &= ~UInt128{1};
  // rounded < 2^93: compare as signed 128-bit values, then narrow.
  const Int128 r = x < 0 ? -static_cast<Int128>(rounded) : static_cast<Int128>(rounded);
  return r < lo ? lo : (r > hi ? hi : static_cast<int32_t>(r));
}

/// round-half-away(x) saturated to [lo, hi]; NaN gives 0. The fp32 -> integer step of every
/// quantization (std::round rounds half away from zero and is exact).
inline int64_t roundHalfAwayClamped(double x, int64_t lo, int64_t hi) {
  if (std::isnan(x)) {
    return 0;
  }
  if (x <= static_cast<double>(lo)) {
    return lo;
  }
  if (x >= static_cast<double>(hi)) {
    return hi;
  }
  return static_cast<int64_t>(std::round(x));
}

/// Activation quantization: q = clamp(round(x / scale) + zero, lo, hi) with x / scale an IEEE
/// fp32 division, a half-way quotient rounded away from zero, or to even under
/// Rounding::HalfEven (ONNX QuantizeLinear: saturate(round(x / y_scale) + y_zero_point)); NaN
/// gives the zero point. \p scale must be > 0; \p lo and \p hi are codes (zero included).
inline int8_t quantizeValue(float x, float scale, int32_t lo = kInt8Min, int32_t hi = kInt8Max,
                            Rounding rounding = Rounding::HalfAway, int32_t zero = 0) {
  const float q = x / scale;
  if (std::isnan(q))
    return static_cast<int8_t>(std::clamp(zero, lo, hi));
  // Round first (an integer-valued float), then offset: |round(q)| beyond the int8 range
  // saturates either way, so clamping the rounded quotient to [lo - zero, hi - zero] is exact.
  const auto lower = static_cast<int64_t>(lo) - zero, upper = static_cast<int64_t>(hi) - zero;
  const int64_t r =
      rounding == Rounding::HalfEven
          ? static_cast<int64_t>(std::clamp<float>(std::nearbyint(q), static_cast<float>(lower),
                                                   static_cast<float>(upper)))
          : roundHalfAwayClamped(static_cast<double>(q), lower, upper);
  return static_cast<int8_t>(r + zero);
}

/// Dequantization: x = (q - zero) * scale, an fp32 multiplication of the exact integer
/// difference (ONNX DequantizeLinear).
inline float dequantizeValue(int32_t q, float scale, int32_t zero = 0) {
  return static_cast<float>(q - zero) * scale;
}

/// The 256-entry table (indexed by q + 128) that moves an int8 code from (\p sIn, \p zIn) onto
/// (\p sOut, \p zOut) through fp32 as ONNX defines the QDQ form: quantizeValue(dequantizeValue(q,
/// sIn, zIn), sOut, HalfEven, zOut), i.e. nearbyint(fl(fl((q - zIn) * sIn) / sOut)) + zOut. Where
/// (q - zIn) * sIn / sOut is exactly half-way between two codes, the fp32 rounding of the
/// product decides the side, which no multiplier-and-shift rule reproduces; ONNX Runtime's
/// unfused QDQ graph computes exactly this (docs/Quantization.md, "QDQ models").
std::vector<int8_t> rescaleTable(float sIn, int32_t zIn, float sOut, int32_t zOut);

/// Bias quantization: round-half-away(b / (sIn * sW)) with the division and product in double,
/// saturated to [-limit, limit] (limit <= INT32_MAX, see the accumulator bound in
/// docs/Quantization.md).
inline int32_t quantizeBias(float b, float sIn, float sW,
                            int32_t limit = std::numeric_limits<int32_t>::max()) {
  const double x = static_cast<double>(b) / (static_cast<double>(sIn) * static_cast<double>(sW));
  return static_cast<int32_t>(roundHalfAwayClamped(x, -static_cast<int64_t>(limit), limit));
}

} // namespace nnaccel::quant
