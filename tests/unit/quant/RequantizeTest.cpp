// Tests of the requantization rule and the fp32 <-> int8 conversions (quant/Requantize.h):
// hand-computed ties and saturation, extreme multipliers and shifts, and millions of seeded
// random cases against two independent exact references (128-bit integers and x87 long double),
// and the same rule on int64 sums (requantizeWide, average pooling).
#include "nnaccel/quant/Requantize.h"

#include <cmath>
#include <gtest/gtest.h>
#include <random>

namespace nnaccel::quant {
namespace {

__extension__ using Int128 = __int128;

/// Exact reference: round-half-away(acc * M / 2^R) by 128-bit division with remainder.
int64_t referenceRounded(int32_t acc, QuantMultiplier q) {
  const Int128 x = static_cast<Int128>(acc) * q.multiplier;
  const Int128 d = static_cast<Int128>(1) << (31 + q.shift);
  Int128 quotient = x / d; // truncates toward zero
  const Int128 rem = x % d;
  const Int128 twiceRem = rem < 0 ? -2 * rem : 2 * rem;
  if (twiceRem >= d) {
    quotient += x < 0 ? -1 : 1;
  }
  return static_cast<int64_t>(quotient);
}

/// Second reference: x87 long double holds the 62-bit product exactly, ldexp is exact and
/// roundl rounds half away from zero.
int64_t longDoubleRounded(int32_t acc, QuantMultiplier q) {
  const long double x = static_cast<long double>(acc) * static_cast<long double>(q.multiplier);
  return static_cast<int64_t>(std::roundl(std::ldexp(x, -(31 + q.shift))));
}

QuantMultiplier qm(int32_t m, int32_t shift) {
  return QuantMultiplier{m, shift};
}

TEST(Requantize, TiesRoundHalfAwayFromZero) {
  const QuantMultiplier half = quantizeMultiplier(0.5);
  EXPECT_EQ(half, qm(1 << 30, 0));
  EXPECT_EQ(requantize(5, half), 3);   // 2.5
  EXPECT_EQ(requantize(-5, half), -3); // -2.5
  EXPECT_EQ(requantize(3, half), 2);   // 1.5
  EXPECT_EQ(requantize(-3, half), -2); // -1.5
  EXPECT_EQ(requantize(1, half), 1);   // 0.5
  EXPECT_EQ(requantize(-1, half), -1); // -0.5
  EXPECT_EQ(requantize(4, half), 2);   // exact
  const QuantMultiplier quarter = quantizeMultiplier(0.25);
  EXPECT_EQ(requantize(2, quarter), 1);    // 0.5
  EXPECT_EQ(requantize(-2, quarter), -1);  // -0.5
  EXPECT_EQ(requantize(1, quarter), 0);    // 0.25
  EXPECT_EQ(requantize(-1, quarter), 0);   // -0.25
  EXPECT_EQ(requantize(10, quarter), 3);   // 2.5
  EXPECT_EQ(requantize(-10, quarter), -3); // -2.5
  EXPECT_EQ(requantize(0, quarter), 0);
}

// An imported QDQ model's rule (ONNX QuantizeLinear, ONNX Runtime's kernels): a result exactly
// half-way goes to the even neighbour; everything else rounds as before.
TEST(Requantize, HalfEvenRoundsTiesToTheEvenNeighbour) {
  QuantMultiplier half = quantizeMultiplier(0.5);
  half.rounding = Rounding::HalfEven;
  EXPECT_EQ(requantize(5, half), 2);   // 2.5
  EXPECT_EQ(requantize(-5, half), -2); // -2.5
  EXPECT_EQ(requantize(3, half), 2);   // 1.5
  EXPECT_EQ(requantize(-3, half), -2); // -1.5
  EXPECT_EQ(requantize(1, half), 0);   // 0.5
  EXPECT_EQ(requantize(-1, half), 0);  // -0.5
  QuantMultiplier third = quantizeMultiplier(1.0 / 3.0);
  third.rounding = Rounding::HalfEven;
  for (int32_t acc = -300; acc <= 300; ++acc) // no ties: the same as half away
    EXPECT_EQ(requantize(acc, third), requantize(acc, quantizeMultiplier(1.0 / 3.0))) << acc;
  QuantMultiplier quarter = quantizeMultiplier(0.25);
  quarter.rounding = Rounding::HalfEven;
  EXPECT_EQ(requantizeWide(int64_t{10}, quarter), 2);   // 2.5
  EXPECT_EQ(requantizeWide(int64_t{-14}, quarter), -4); // -3.5
  EXPECT_TRUE(half.isIdentity() == false);
  EXPECT_TRUE((QuantMultiplier{int32_t{1} << 30, -1, Rounding::HalfEven}).isIdentity());
  EXPECT_EQ(quantizeValue(0.25f, 0.5f, kInt8Min, kInt8Max, Rounding::HalfEven), 0);
  EXPECT_EQ(quantizeValue(0.75f, 0.5f, kInt8Min, kInt8Max, Rounding::HalfEven), 2);
  EXPECT_EQ(quantizeValue(0.25f, 0.5f), 1);
}

// A QDQ Concat input moved from 0.02 to 0.04 through fp32 (DequantizeLinear, QuantizeLinear):
// every odd code is an exact half, and the fp32 product decides the side. Anchors computed
// with numpy float32: 107 * 0.02f / 0.04f = 53.499996, 109 -> 54.500004, 105 -> 52.5 exactly.
TEST(Requantize, RescaleTableGoesThroughFp32AsTheQdqFormDefinesIt) {
  const std::vector<int8_t> t = rescaleTable(0.02f, 0, 0.04f, 0);
  ASSERT_EQ(t.size(), 256u);
  const auto at = [&](int32_t q) { return int32_t{t[static_cast<size_t>(q + 128)]}; };
  EXPECT_EQ(at(107), 53); // the multiplier rule's half to even gives 54
  EXPECT_EQ(at(109), 55); // ... and 54
  EXPECT_EQ(at(105), 52); // an exact fp32 half: to even, as the multiplier rule
  EXPECT_EQ(at(-107), -53);
  EXPECT_EQ(at(-128), -64);
  EXPECT_EQ(at(0), 0);
  // Everywhere else the two rules agree, and they never differ by more than one code.
  QuantMultiplier half = quantizeMultiplier(0.5);
  half.rounding = Rounding::HalfEven;
  int differ = 0;
  for (int32_t q = kInt8Min; q <= kInt8Max; ++q) {
    const int32_t rule = requantize(q, half);
    EXPECT_LE(std::abs(at(q) - rule), 1) << q;
    if (at(q) != rule) {
      EXPECT_NE(q % 2, 0) << q << " is not a tie";
      ++differ;
    }
  }
  EXPECT_EQ(differ, 10); // -109 -107 -61 -27 -15 15 27 61 107 109
  // Zero points on both sides, and saturation at the output's range.
  const std::vector<int8_t> z = rescaleTable(0.02f, 5, 0.01f, -12);
  EXPECT_EQ(z[static_cast<size_t>(5 + 128)], -12);      // real 0 -> the output's zero point
  EXPECT_EQ(z[static_cast<size_t>(100 + 128)], 127);    // 1.9 / 0.01 saturates
  EXPECT_EQ(z[static_cast<size_t>(-70 + 128)], -128);   // -1.5 / 0.01 saturates
  EXPECT_EQ(z[static_cast<size_t>(10 + 128)], 10 - 12); // 0.1 / 0.01 = 10
}

TEST(Requantize, WorkedExampleFromDocs) {
  // docs/Quantization.md: m = 0.0123 -> M = 1690499128 (0.0123 = 0.7872 * 2^-6), shift = 6.
  const QuantMultiplier q = quantizeMultiplier(0.0123);
  EXPECT_EQ(q, qm(1690499128, 6));
  // acc = 1000: 1000 * 1690499128 / 2^37 = 12.300000002 -> 12.
  EXPECT_EQ(multiplyRounded(1000, q), 12);
  // acc = -2033: -2033 * 0.0123 = -25.0059 -> -25.
  EXPECT_EQ(multiplyRounded(-2033, q), -25);
  // acc = 20000: 246.0 -> saturates to 127.
  EXPECT_EQ(requantize(20000, q), 127);
  EXPECT_EQ(requantize(-20000, q), -128);
}

TEST(Requantize, SaturatesToInt8AndToCustomRange) {
  const QuantMultiplier one = quantizeMultiplier(1.0);
  EXPECT_EQ(one, qm(1 << 30, -1));
  EXPECT_EQ(requantize(127, one), 127);
  EXPECT_EQ(requantize(128, one), 127);
  EXPECT_EQ(requantize(-128, one), -128);
  EXPECT_EQ(requantize(-129, one), -128);
  EXPECT_EQ(requantize(std::numeric_limits<int32_t>::max(), one), 127);
  EXPECT_EQ(requantize(std::numeric_limits<int32_t>::min(), one), -128);
  // A fused Relu narrows the range to [0, 127], a fused Relu6 to [0, q(6)].
  EXPECT_EQ(requantize(-7, one, 0, 127), 0);
  EXPECT_EQ(requantize(50, one, 0, 42), 42);
  EXPECT_EQ(requantize(30, one, 0, 42), 30);
}

TEST(Requantize, ExtremeMultipliersAndShifts) {
  const int32_t maxM = std::numeric_limits<int32_t>::max();
  const int32_t minAcc = std::numeric_limits<int32_t>::min();
  const int32_t maxAcc = std::numeric_limits<int32_t>::max();
  // Largest multiplier: R = 1.
  EXPECT_EQ(multiplyRounded(1, qm(maxM, kMinShift)), int64_t{1} << 30); // (2^31-1)/2 = 2^30-0.5
  EXPECT_EQ(multiplyRounded(-1, qm(maxM, kMinShift)), -(int64_t{1} << 30));
  EXPECT_EQ(multiplyRounded(minAcc, qm(maxM, kMinShift)),
            -((int64_t{1} << 61) - (int64_t{1} << 30)));
  EXPECT_EQ(requantize(minAcc, qm(maxM, kMinShift)), -128);
  EXPECT_EQ(requantize(1, qm(maxM, kMinShift)), 127);
  // Smallest normal multiplier: R = 62.
  EXPECT_EQ(multiplyRounded(minAcc, qm(1 << 30, kMaxShift)), -1); // exactly -0.5: a tie
  EXPECT_EQ(multiplyRounded(maxAcc, qm(1 << 30, kMaxShift)), 0);  // 0.5 - 2^-32
  EXPECT_EQ(multiplyRounded(minAcc, qm(maxM, kMaxShift)), -1);    // -(1 - 2^-31)
  EXPECT_EQ(multiplyRounded(maxAcc, qm(maxM, kMaxShift)), 1);     // 1 - 2^-30
  EXPECT_EQ(multiplyRounded(1 << 30, qm(maxM, kMaxShift)), 0);    // 0.5 - 2^-32
  // The zero multiplier maps everything to 0.
  EXPECT_EQ(multiplyRounded(minAcc, qm(0, kMaxShift)), 0);
  EXPECT_EQ(multiplyRounded(maxAcc, qm(0, kMaxShift)), 0);
}

TEST(Requantize, QuantizeMultiplierRepresentation) {
  EXPECT_EQ(quantizeMultiplier(0.75), qm(3 << 29, 0));
  EXPECT_EQ(quantizeMultiplier(3.0), qm(3 << 29, -2));
  EXPECT_EQ(quantizeMultiplier(std::ldexp(1.0, -32)), qm(1 << 30, kMaxShift));
  EXPECT_EQ(quantizeMultiplier(std::ldexp(1.0, 29)), qm(1 << 30, -30));
  EXPECT_EQ(quantizeMultiplier(std::ldexp(1.9, 29)).shift, -30);
  // Below 2^-32 the multiplier is exactly the zero multiplier.
  EXPECT_EQ(quantizeMultiplier(std::ldexp(1.0, -33)), qm(0, kMaxShift));
  EXPECT_EQ(quantizeMultiplier(1e-300), qm(0, kMaxShift));
  // A mantissa that rounds up to 2^31 renormalizes.
  EXPECT_EQ(quantizeMultiplier(1.0 - std::ldexp(1.0, -40)), qm(1 << 30, -1));
  // m just below 2^-32 rounds up to 2^-32 and stays representable.
  EXPECT_EQ(quantizeMultiplier(std::ldexp(1.0 - std::ldexp(1.0, -40), -32)),
            qm(1 << 30, kMaxShift));
  EXPECT_DOUBLE_EQ(qm(3 << 29, 0).toDouble(), 0.75);
}

void expectRejected(double m, int64_t maxAbsAccumulator, const std::string& reason) {
  try {
    quantizeMultiplier(m, maxAbsAccumulator);
    FAIL() << "accepted " << m;
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Unsupported);
    EXPECT_EQ(e.reason(), reason);
  }
}

void expectRejected(double m, const std::string& reason) {
  expectRejected(m, int64_t{1} << 31, reason);
}

TEST(Requantize, QuantizeMultiplierRejectsOutOfRange) {
  expectRejected(std::ldexp(1.0, 30),
                 "requantization multiplier 1.07374182e+09 is too large (the supported range is "
                 "[2^-32, 2^30))");
  // Rounds up to 2^30.
  expectRejected(std::ldexp(1.0 - std::ldexp(1.0, -40), 30),
                 "requantization multiplier 1.07374182e+09 is too large (the supported range is "
                 "[2^-32, 2^30))");
  expectRejected(1e300, "requantization multiplier 1e+300 is too large (the supported "
                        "range is [2^-32, 2^30))");
  expectRejected(0.0, "requantization multiplier 0 is not positive");
  expectRejected(-0.5, "requantization multiplier -0.5 is not positive");
  expectRejected(std::numeric_limits<double>::infinity(),
                 "requantization multiplier inf is not finite");
  expectRejected(std::nan(""), "requantization multiplier nan is not finite");
}

TEST(Requantize, QuantizeMultiplierRelativeErrorIsAtMost2PowMinus31) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> exponent(-32.0, 30.0);
  for (int i = 0; i < 200000; ++i) {
    const double m = std::exp2(exponent(rng));
    const QuantMultiplier q = quantizeMultiplier(m);
    ASSERT_TRUE(q.isValid());
    if (q.multiplier == 0) {
      ASSERT_LT(m, std::ldexp(1.0, -32));
      continue;
    }
    ASSERT_LE(std::fabs(q.toDouble() - m) / m, std::ldexp(1.0, -31)) << m;
  }
}

/// A random valid multiplier; a quarter of them are powers of two (M = 2^30), which makes
/// exact ties frequent.
QuantMultiplier randomMultiplier(std::mt19937_64& rng) {
  std::uniform_int_distribution<int32_t> mant(1 << 30, std::numeric_limits<int32_t>::max());
  std::uniform_int_distribution<int32_t> shift(kMinShift, kMaxShift);
  const bool pow2 = (rng() & 3) == 0;
  return QuantMultiplier{pow2 ? (1 << 30) : mant(rng), shift(rng)};
}

/// A random accumulator: full int32 range, small magnitudes, or an exact tie for \p q.
int32_t randomAcc(std::mt19937_64& rng, QuantMultiplier q) {
  switch (rng() % 4) {
  case 0:
    return static_cast<int32_t>(static_cast<uint32_t>(rng()));
  case 1:
    return static_cast<int32_t>(rng() % 2001) - 1000;
  case 2:
    return static_cast<int32_t>(rng() % 200001) - 100000;
  default: {
    // With M = 2^30 and R = 31 + shift, acc * M / 2^R = acc / 2^t (t = R - 30) is a tie when
    // acc = (2k + 1) * 2^(t-1). For other M this just draws a value near a power of two.
    const int32_t t = 1 + q.shift;
    if (t < 1 || t > 31) {
      return static_cast<int32_t>(rng() % 255) - 127;
    }
    const int64_t unit = int64_t{1} << (t - 1);
    const int64_t maxK = ((int64_t{1} << 31) / unit - 1) / 2;
    const int64_t k = static_cast<int64_t>(rng() % static_cast<uint64_t>(maxK + 1));
    const int64_t v = (2 * k + 1) * unit;
    return static_cast<int32_t>((rng() & 1) ? -v : v);
  }
  }
}

TEST(Requantize, MillionsOfRandomCasesMatchExactReferences) {
  std::mt19937_64 rng(20240601);
  int64_t ties = 0;
  for (int i = 0; i < 3000000; ++i) {
    const QuantMultiplier q = randomMultiplier(rng);
    const int32_t acc = randomAcc(rng, q);
    const int64_t expected = referenceRounded(acc, q);
    const int64_t got = multiplyRounded(acc, q);
    ASSERT_EQ(got, expected) << "acc=" << acc << " M=" << q.multiplier << " shift=" << q.shift;
    ASSERT_EQ(longDoubleRounded(acc, q), expected);
    const int32_t clamped = static_cast<int32_t>(std::clamp<int64_t>(expected, -128, 127));
    ASSERT_EQ(requantize(acc, q), clamped);
    ASSERT_EQ(requantizeWide(acc, q), clamped); // the int64 form is the same rule
    // Half away from zero is odd-symmetric.
    if (acc != std::numeric_limits<int32_t>::min()) {
      ASSERT_EQ(multiplyRounded(-acc, q), -got);
    }
    const Int128 x = static_cast<Int128>(acc) * q.multiplier;
    const Int128 d = static_cast<Int128>(1) << (31 + q.shift);
    ties += (x % d != 0 && 2 * (x < 0 ? -(x % d) : x % d) == d) ? 1 : 0;
  }
  EXPECT_GT(ties, 100000); // the generator really exercises ties
}

TEST(Requantize, WideRuleIsExactOnInt64Sums) {
  // Average-pool sums beyond int32. -127 * 2^25 (a 2^25-element window of -127) times
  // m = 2^-26 = {2^30, shift 25} is exactly -63.5: half away from zero gives -64.
  const QuantMultiplier half = quantizeMultiplier(std::ldexp(1.0, -26));
  EXPECT_EQ(half, qm(1 << 30, 25));
  EXPECT_EQ(requantizeWide(-127 * (int64_t{1} << 25), half), -64);
  EXPECT_EQ(requantizeWide(127 * (int64_t{1} << 25), half), 64);
  // A tie far outside int8, kept by an int32-wide clamp: (2^34 + 8) / 16 = 2^30 + 0.5.
  const int32_t lo = std::numeric_limits<int32_t>::min(), hi = std::numeric_limits<int32_t>::max();
  EXPECT_EQ(requantizeWide((int64_t{1} << 34) + 8, qm(1 << 30, 3), lo, hi), (1 << 30) + 1);
  EXPECT_EQ(requantizeWide(-(int64_t{1} << 34) - 8, qm(1 << 30, 3), lo, hi), -(1 << 30) - 1);
  // The largest product: |acc| near 2^62 times M near 2^31 (2^93) saturates, no overflow.
  EXPECT_EQ(requantizeWide(int64_t{1} << 62, qm(std::numeric_limits<int32_t>::max(), -30)), 127);
  EXPECT_EQ(requantizeWide(-(int64_t{1} << 62), qm(std::numeric_limits<int32_t>::max(), -30)),
            -128);
  // Random int64 sums against the 128-bit division reference.
  std::mt19937_64 rng(41);
  for (int i = 0; i < 200000; ++i) {
    const QuantMultiplier q = randomMultiplier(rng);
    const auto acc = static_cast<int64_t>(rng()) >> (rng() % 40);
    const Int128 x = static_cast<Int128>(acc) * q.multiplier;
    const Int128 d = static_cast<Int128>(1) << (31 + q.shift);
    const Int128 mag = x < 0 ? -x : x;
    const Int128 r = (2 * mag + d) / (2 * d);
    const Int128 exact = x < 0 ? -r : r;
    const Int128 clamped = exact < lo ? lo : (exact > hi ? hi : exact);
    ASSERT_EQ(requantizeWide(acc, q, lo, hi), static_cast<int32_t>(clamped))
        << "acc=" << acc << " M=" << q.multiplier << " shift=" << q.shift;
  }
}

TEST(Requantize, ZeroMultiplierOnlyWhereItIsExact) {
  // m = 2^-33 rounds to the zero multiplier: exact for int32 accumulators (|acc * m| <= 0.25)
  // and for sums up to 2^31 in magnitude, not for sums that reach 2^32 (|acc * m| = 0.5).
  const double m = std::ldexp(1.0, -33);
  EXPECT_EQ(quantizeMultiplier(m), qm(0, kMaxShift));
  EXPECT_EQ(quantizeMultiplier(m, int64_t{1} << 31), qm(0, kMaxShift));
  expectRejected(m, int64_t{1} << 32,
                 "requantization multiplier 1.16415322e-10 is below 2^-32 but accumulators reach "
                 "4294967296 in magnitude (the supported range is [2^-32, 2^30))");
}

TEST(Requantize, MonotonicInTheAccumulator) {
  std::mt19937_64 rng(3);
  for (int i = 0; i < 200000; ++i) {
    const QuantMultiplier q = randomMultiplier(rng);
    const int32_t acc = static_cast<int32_t>(rng() % 2000001) - 1000000;
    ASSERT_LE(multiplyRounded(acc, q), multiplyRounded(acc + 1, q));
  }
}

/// Reference rounding of a float quotient: floor(v + 0.5) for v >= 0, mirrored below zero, in
/// double (v + 0.5 is exact in double for any float v).
int64_t referenceRoundFloat(float v) {
  const double d = static_cast<double>(v);
  return d >= 0 ? static_cast<int64_t>(std::floor(d + 0.5))
                : -static_cast<int64_t>(std::floor(-d + 0.5));
}

TEST(Quantize, ActivationTiesSaturationAndSpecialValues) {
  EXPECT_EQ(quantizeValue(2.5f, 1.0f), 3);
  EXPECT_EQ(quantizeValue(-2.5f, 1.0f), -3);
  EXPECT_EQ(quantizeValue(1.5f, 1.0f), 2);
  EXPECT_EQ(quantizeValue(-1.5f, 1.0f), -2);
  EXPECT_EQ(quantizeValue(0.5f, 1.0f), 1);
  EXPECT_EQ(quantizeValue(-0.5f, 1.0f), -1);
  EXPECT_EQ(quantizeValue(0.49999997f, 1.0f), 0);
  EXPECT_EQ(quantizeValue(0.375f, 0.25f), 2);   // 1.5
  EXPECT_EQ(quantizeValue(-0.375f, 0.25f), -2); // -1.5
  EXPECT_EQ(quantizeValue(126.5f, 1.0f), 127);
  EXPECT_EQ(quantizeValue(127.49f, 1.0f), 127);
  EXPECT_EQ(quantizeValue(200.0f, 1.0f), 127);
  EXPECT_EQ(quantizeValue(-128.4f, 1.0f), -128);
  EXPECT_EQ(quantizeValue(-128.5f, 1.0f), -128);
  EXPECT_EQ(quantizeValue(-1e30f, 1.0f), -128);
  EXPECT_EQ(quantizeValue(std::numeric_limits<float>::infinity(), 1.0f), 127);
  EXPECT_EQ(quantizeValue(-std::numeric_limits<float>::infinity(), 1.0f), -128);
  EXPECT_EQ(quantizeValue(std::nanf(""), 1.0f), 0);
  // The quotient is an fp32 division: 0.25f / 0.1f rounds to exactly 2.5f, hence 3.
  EXPECT_EQ(0.25f / 0.1f, 2.5f);
  EXPECT_EQ(quantizeValue(0.25f, 0.1f), 3);
  // Weights use the symmetric range.
  EXPECT_EQ(quantizeValue(-1000.0f, 1.0f, -kWeightMax, kWeightMax), -127);
  EXPECT_FLOAT_EQ(dequantizeValue(-3, 0.25f), -0.75f);
}

TEST(Quantize, RandomActivationsMatchReference) {
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<float> value(-300.0f, 300.0f);
  std::uniform_real_distribution<float> logScale(-8.0f, 2.0f);
  for (int i = 0; i < 1000000; ++i) {
    const float scale = std::exp2(logScale(rng));
    // Half of the values sit exactly on a tie of the quotient.
    float x = value(rng) * scale / 100.0f;
    if (rng() & 1) {
      x = (static_cast<float>(static_cast<int>(rng() % 301) - 150) + 0.5f) * scale;
    }
    const int64_t expected = std::clamp<int64_t>(referenceRoundFloat(x / scale), -128, 127);
    ASSERT_EQ(quantizeValue(x, scale), expected) << x << " / " << scale;
    // Dequantize then quantize again is the identity on int8 values.
    const int8_t q = static_cast<int8_t>(expected);
    ASSERT_EQ(quantizeValue(dequantizeValue(q, scale), scale), q);
  }
}

TEST(Quantize, BiasRoundsInDoubleAndSaturates) {
  EXPECT_EQ(quantizeBias(0.75f, 0.5f, 0.5f), 3);    // 3.0
  EXPECT_EQ(quantizeBias(0.625f, 0.5f, 0.5f), 3);   // 2.5 -> 3
  EXPECT_EQ(quantizeBias(-0.625f, 0.5f, 0.5f), -3); // -2.5 -> -3
  EXPECT_EQ(quantizeBias(1e10f, 1e-3f, 1e-3f), std::numeric_limits<int32_t>::max());
  EXPECT_EQ(quantizeBias(-1e10f, 1e-3f, 1e-3f), -std::numeric_limits<int32_t>::max());
  EXPECT_EQ(quantizeBias(1e10f, 1e-3f, 1e-3f, 1000), 1000);
  // 1e6 / (0.01 * 0.003): not representable in float, exact rounding happens in double.
  const double exact = 1e6 / (static_cast<double>(0.01f) * static_cast<double>(0.003f));
  EXPECT_EQ(quantizeBias(1e6f, 0.01f, 0.003f, std::numeric_limits<int32_t>::max()),
            std::numeric_limits<int32_t>::max());
  EXPECT_GT(exact, 2147483647.0);
  EXPECT_EQ(
      quantizeBias(12.34f, 0.01f, 0.003f),
      static_cast<int32_t>(std::round(static_cast<double>(12.34f) /
                                      (static_cast<double>(0.01f) * static_cast<double>(0.003f)))));
}

} // namespace
} // namespace nnaccel::quant
