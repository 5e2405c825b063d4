/// \file
/// requantizeChannelsLast (quant/Kernels.h): the epilogue of the int8 executor's oneDNN
/// convolutions. It adds the passes' channels-last sums and the bias, applies the one
/// requantization rule (requantizeTo, quant/Requantize.h) to each sum and writes the codes in
/// the ONNX layout, eight channels at a time with AVX2 where the CPU has it: |acc| * M as an
/// exact 64-bit product (vpmuludq), the rounding bias added and the total right shift applied
/// per lane, ties to even where a channel's multiplier says so, the magnitude saturated, the sign
/// put back, the zero point added and the result clamped. That is multiplyRounded's arithmetic
/// step for step, so the bits are the scalar rule's (OneDnnAccumulateTest compares them, and the
/// executor against its loops). Blocks of eight positions by eight channels are transposed in
/// registers on the way out, so the layout change costs no pass of its own.
#include "nnaccel/quant/Kernels.h"

#include <algorithm>
#include <array>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace nnaccel::quant {

namespace {

/// Channels per vector step.
constexpr int64_t kChannelsPerStep = 8;
/// Most passes a call takes (two sources times two weight pieces).
constexpr size_t kMaxPasses = 4;
/// Rounded magnitudes above this saturate alike: with zOut, lo and hi int8 codes, +-2^20 + zOut
/// lies beyond [lo, hi] on the side of +-(any larger magnitude) + zOut.
constexpr int64_t kMagnitudeCap = int64_t{1} << 20;

/// True when this CPU runs the AVX2 paths (checked once).
bool hasAvx2() {
#if defined(__x86_64__)
  static const bool avx2 = __builtin_cpu_supports("avx2");
  return avx2;
#else
  return false;
#endif
}

/// The vector kernels take int8 codes for the zero point and the clamp (see kMagnitudeCap).
void checkCodes(int32_t zOut, int32_t lo, int32_t hi) {
  NNACCEL_ASSERT(kInt8Min <= lo && lo <= hi && hi <= kInt8Max && kInt8Min <= zOut &&
                 zOut <= kInt8Max)
      << "int8 requantization wants int8 codes: clamp [" << lo << ", " << hi << "], zero point "
      << zOut;
}

/// Sum \p at of pass \p k: an int32, or an f32 holding an integer below 2^24 (the fp32 pass).
int32_t passValue(const reference::Int8ConvPasses& sums, size_t k, int64_t at) {
  if (!sums.floatSums)
    return sums.passes[k][at];
  return static_cast<int32_t>(reinterpret_cast<const float*>(sums.passes[k])[at]);
}

/// Where sum \p at (row \p r, channel \p c, channels-last) goes in the ONNX layout
/// [images, channels, positions].
int64_t onnxIndex(const reference::Int8ConvPasses& sums, int64_t r, int64_t c) {
  const int64_t image = r / sums.positions, position = r % sums.positions;
  return (image * sums.channels + c) * sums.positions + position;
}

/// The scalar rule for channels [c0, channels) of every row.
void requantizeTail(const reference::Int8ConvPasses& sums, int64_t c0,
                    std::span<const int32_t> bias, std::span<const QuantMultiplier> multipliers,
                    int32_t zOut, int32_t lo, int32_t hi, int8_t* out) {
  for (int64_t r = 0; r < sums.rows; ++r) {
    for (int64_t c = c0; c < sums.channels; ++c) {
      const int64_t at = r * sums.channels + c;
      auto acc = static_cast<uint32_t>(bias.empty() ? 0 : bias[static_cast<size_t>(c)]);
      for (size_t k = 0; k < sums.passes.size(); ++k) // wrap-around: the true sum fits int32
        acc +=
            static_cast<uint32_t>(sums.factors[k]) * static_cast<uint32_t>(passValue(sums, k, at));
      out[onnxIndex(sums, r, c)] = static_cast<int8_t>(requantizeTo(
          static_cast<int32_t>(acc), multipliers[static_cast<size_t>(c)], zOut, lo, hi));
    }
  }
}

#if defined(__x86_64__)
/// The rules of eight consecutive channels as the vector code uses them: 64-bit lanes of the
/// even channels (0, 2, 4, 6) and of the odd ones, and the channels' biases.
struct alignas(32) RuleChunk {
  int64_t multiplier[2][4];
  int64_t shift[2][4];   ///< total right shift R = 31 + shift
  int64_t half[2][4];    ///< 2^(R - 1)
  int64_t lowBits[2][4]; ///< 2^R - 1
  int64_t toEven[2][4];  ///< all ones where ties round to even
  int32_t bias[kChannelsPerStep];
  int32_t shiftAbove32[kChannelsPerStep]; ///< R - 32, by channel (the short path)
  /// Every R >= 32 and no tie to even: the short path, see requantize8.
  bool wideShifts = false;
};

std::vector<RuleChunk> ruleChunks(int64_t chunks, std::span<const int32_t> bias,
                                  std::span<const QuantMultiplier> multipliers, bool& anyToEven) {
  std::vector<RuleChunk> rules(static_cast<size_t>(chunks));
  anyToEven = false;
  for (int64_t j = 0; j < chunks; ++j) {
    RuleChunk& rule = rules[static_cast<size_t>(j)];
    rule.wideShifts = true;
    for (int64_t lane = 0; lane < kChannelsPerStep; ++lane) {
      const auto c = static_cast<size_t>(j * kChannelsPerStep + lane);
      const QuantMultiplier q = multipliers[c];
      NNACCEL_ASSERT(q.isValid()) << "invalid QuantMultiplier{" << q.multiplier << ", " << q.shift
                                  << "}";
      const auto parity = static_cast<size_t>(lane % 2), slot = static_cast<size_t>(lane / 2);
      const int32_t rshift = 31 + q.shift;
      rule.multiplier[parity][slot] = q.multiplier;
      rule.shift[parity][slot] = rshift;
      rule.half[parity][slot] = int64_t{1} << (rshift - 1);
      rule.lowBits[parity][slot] = (int64_t{1} << rshift) - 1;
      rule.toEven[parity][slot] = q.rounding == Rounding::HalfEven ? -1 : 0;
      rule.bias[lane] = bias.empty() ? 0 : bias[c];
      rule.shiftAbove32[lane] = std::max(rshift - 32, 0);
      rule.wideShifts = rule.wideShifts && rshift >= 32 && q.rounding == Rounding::HalfAway;
      anyToEven = anyToEven || q.rounding == Rounding::HalfEven;
    }
  }
  return rules;
}

[[gnu::target("avx2"), gnu::always_inline]] inline __m256i load256(const void* p) {
  return _mm256_loadu_si256(static_cast<const __m256i*>(p));
}

/// round(|x| / 2^R) of four 64-bit magnitudes |x| < 2^62 as multiplyRounded computes it, capped
/// at kMagnitudeCap.
[[gnu::target("avx2"), gnu::always_inline]] inline __m256i
roundedShift(__m256i magnitude, const RuleChunk& rule, size_t parity, bool anyToEven) {
  const __m256i half = load256(rule.half[parity]);
  __m256i rounded =
      _mm256_srlv_epi64(_mm256_add_epi64(magnitude, half), load256(rule.shift[parity]));
  if (anyToEven) { // a tie went up to an odd value: take the even neighbour below
    const __m256i tie =
        _mm256_cmpeq_epi64(_mm256_and_si256(magnitude, load256(rule.lowBits[parity])), half);
    const __m256i clearLowest = _mm256_and_si256(
        _mm256_and_si256(tie, load256(rule.toEven[parity])), _mm256_set1_epi64x(1));
    rounded = _mm256_andnot_si256(clearLowest, rounded);
  }
  const __m256i cap = _mm256_set1_epi64x(kMagnitudeCap);
  return _mm256_blendv_epi8(rounded, cap, _mm256_cmpgt_epi64(rounded, cap));
}

/// round(|acc| * M / 2^R) of eight int32 sums, capped at kMagnitudeCap or below 2^31: the 64-bit
/// products |acc| * M < 2^62 of the even and of the odd lanes, rounded and shifted. With every
/// R >= 32 and ties away from zero (the usual case) the short path: (x + 2^(R-1)) >> R is
/// ((x + 2^(R-1)) >> 32) >> (R - 32), the first shift a choice of 32-bit halves and the second a
/// shift of 32-bit lanes.
[[gnu::target("avx2"), gnu::always_inline]] inline __m256i
roundedMagnitudes(__m256i acc, const RuleChunk& rule, bool anyToEven) {
  const __m256i magnitude = _mm256_abs_epi32(acc); // INT32_MIN: 2^31 as an unsigned lane
  const __m256i even = _mm256_mul_epu32(magnitude, load256(rule.multiplier[0]));
  const __m256i odd =
      _mm256_mul_epu32(_mm256_srli_epi64(magnitude, 32), load256(rule.multiplier[1]));
  if (rule.wideShifts) {
    const __m256i roundedEven = _mm256_add_epi64(even, load256(rule.half[0]));
    const __m256i roundedOdd = _mm256_add_epi64(odd, load256(rule.half[1]));
    const __m256i high = _mm256_blend_epi32(_mm256_srli_epi64(roundedEven, 32), roundedOdd, 0xAA);
    return _mm256_srlv_epi32(high, load256(rule.shiftAbove32));
  }
  const __m256i roundedEven = roundedShift(even, rule, 0, anyToEven);
  const __m256i roundedOdd = roundedShift(odd, rule, 1, anyToEven);
  return _mm256_blend_epi32(roundedEven, _mm256_slli_epi64(roundedOdd, 32), 0xAA);
}

/// requantizeTo of eight int32 sums with the eight channels' rules.
[[gnu::target("avx2"), gnu::always_inline]] inline __m256i requantize8(__m256i acc,
                                                                       const RuleChunk& rule,
                                                                       bool anyToEven, __m256i zOut,
                                                                       __m256i lo, __m256i hi) {
  const __m256i rounded = roundedMagnitudes(acc, rule, anyToEven);
  const __m256i value = _mm256_add_epi32(_mm256_sign_epi32(rounded, acc), zOut);
  return _mm256_min_epi32(_mm256_max_epi32(value, lo), hi);
}

/// Stores eight vectors of eight int8 codes held as int32 (\p v[i]: position i, lanes the
/// channels) transposed: channel c's eight positions at dst + c * stride.
[[gnu::target("avx2"), gnu::always_inline]] inline void
storeTransposed(const __m256i v[8], int8_t* dst, int64_t stride) {
  // Bytes of lane 0: positions 0-3 of channels 0-3 (position-major), lane 1: channels 4-7.
  const __m256i first =
      _mm256_packs_epi16(_mm256_packs_epi32(v[0], v[1]), _mm256_packs_epi32(v[2], v[3]));
  const __m256i second =
      _mm256_packs_epi16(_mm256_packs_epi32(v[4], v[5]), _mm256_packs_epi32(v[6], v[7]));
  // Channel-major in each lane: four positions of channel 0, of channel 1, ...
  const __m256i order = _mm256_setr_epi8(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15, 0, 4,
                                         8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
  const __m256i a = _mm256_shuffle_epi8(first, order), b = _mm256_shuffle_epi8(second, order);
  // Eight positions per channel: channels 0, 1 (lane 0) and 4, 5 (lane 1); then 2, 3 and 6, 7.
  const __m256i low = _mm256_unpacklo_epi32(a, b), high = _mm256_unpackhi_epi32(a, b);
  const __m128i channels[4] = {_mm256_castsi256_si128(low), _mm256_castsi256_si128(high),
                               _mm256_extracti128_si256(low, 1), _mm256_extracti128_si256(high, 1)};
  for (int k = 0; k < 4; ++k) { // channels 2k (low half) and 2k + 1 (high half)
    int8_t* at = dst + (2 * k) * stride;
    _mm_storel_epi64(reinterpret_cast<__m128i*>(at), channels[k]);
    // The high half through an unaligned 64-bit store (_mm_storeh_pd stores a typed double,
    // which needs 8-byte alignment).
    _mm_storel_epi64(reinterpret_cast<__m128i*>(at + stride),
                     _mm_unpackhi_epi64(channels[k], channels[k]));
  }
}

/// The vector path's state for one call: the passes, their factors and the clamp, in locals
/// rather than read through `sums` (the int8 stores may alias anything, so the compiler would
/// reload those on every step).
struct VectorSums {
  std::array<const int32_t*, kMaxPasses> pass{};
  std::array<int32_t, kMaxPasses> factor{};
  size_t passes = 0;
  bool unitFactors = true, floatSums = false, anyToEven = false;
  int64_t channels = 0;
  int32_t zOut = 0, lo = 0, hi = 0;
};

/// requantizeTo of row \p r's sums of channels [8j, 8j + 8).
[[gnu::target("avx2"), gnu::always_inline]] inline __m256i
requantizedChunk(const VectorSums& s, const RuleChunk& rule, int64_t r, int64_t j) {
  const int64_t at = r * s.channels + j * kChannelsPerStep;
  __m256i acc = load256(rule.bias); // wrap-around adds: the true sum fits int32
  for (size_t k = 0; k < s.passes; ++k) {
    const __m256i v = // f32 sums are integers: the conversion is exact
        s.floatSums
            ? _mm256_cvtps_epi32(_mm256_loadu_ps(reinterpret_cast<const float*>(s.pass[k] + at)))
            : load256(s.pass[k] + at);
    acc = _mm256_add_epi32(
        acc, s.unitFactors ? v : _mm256_mullo_epi32(v, _mm256_set1_epi32(s.factor[k])));
  }
  return requantize8(acc, rule, s.anyToEven, _mm256_set1_epi32(s.zOut), _mm256_set1_epi32(s.lo),
                     _mm256_set1_epi32(s.hi));
}

/// The codes of one position's chunk of eight channels, stored one channel plane apart.
[[gnu::target("avx2"), gnu::always_inline]] inline void storeScattered(__m256i v, int8_t* dst,
                                                                       int64_t stride) {
  const __m128i words = _mm_packs_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
  const __m128i bytes = _mm_packs_epi16(words, words);
  if (stride == 1) { // one position per image: the layouts agree
    _mm_storel_epi64(reinterpret_cast<__m128i*>(dst), bytes);
    return;
  }
  alignas(16) int8_t codes[16];
  _mm_store_si128(reinterpret_cast<__m128i*>(codes), bytes);
  for (int64_t l = 0; l < kChannelsPerStep; ++l)
    dst[l * stride] = codes[l];
}

/// The whole chunks of eight channels, written in the ONNX layout: blocks of eight positions
/// transposed in registers, the positions left over one at a time.
[[gnu::target("avx2")]] void requantizeChunksAvx2(const VectorSums& s,
                                                  const std::vector<RuleChunk>& rules,
                                                  int64_t images, int64_t positions, int8_t* out) {
  const RuleChunk* rule = rules.data();
  const auto chunks = static_cast<int64_t>(rules.size());
  const int64_t wholePositions = positions / kChannelsPerStep * kChannelsPerStep;
  for (int64_t n = 0; n < images; ++n) {
    int8_t* image = out + n * s.channels * positions;
    for (int64_t p0 = 0; p0 < wholePositions; p0 += kChannelsPerStep) {
      const int64_t r0 = n * positions + p0;
      for (int64_t j = 0; j < chunks; ++j) {
        __m256i v[kChannelsPerStep];
        for (int64_t i = 0; i < kChannelsPerStep; ++i)
          v[i] = requantizedChunk(s, rule[j], r0 + i, j);
        storeTransposed(v, image + j * kChannelsPerStep * positions + p0, positions);
      }
    }
    for (int64_t p = wholePositions; p < positions; ++p)
      for (int64_t j = 0; j < chunks; ++j)
        storeScattered(requantizedChunk(s, rule[j], n * positions + p, j),
                       image + j * kChannelsPerStep * positions + p, positions);
  }
}

/// Eight codes held as int32 stored as bytes at \p dst.
[[gnu::target("avx2"), gnu::always_inline]] inline void storeCodes(__m256i v, int8_t* dst) {
  const __m128i words = _mm_packs_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
  _mm_storel_epi64(reinterpret_cast<__m128i*>(dst), _mm_packs_epi16(words, words));
}

/// requantizeValues's whole groups of eight with one rule (every lane of \p rule alike);
/// returns how many elements it did.
[[gnu::target("avx2")]] int64_t requantizeFlatAvx2(const int32_t* acc, int64_t count,
                                                   const RuleChunk& rule, bool anyToEven,
                                                   int32_t zOut, int32_t lo, int32_t hi,
                                                   int8_t* out) {
  const __m256i z = _mm256_set1_epi32(zOut), low = _mm256_set1_epi32(lo),
                high = _mm256_set1_epi32(hi);
  int64_t i = 0;
  for (; i + kChannelsPerStep <= count; i += kChannelsPerStep)
    storeCodes(requantize8(load256(acc + i), rule, anyToEven, z, low, high), out + i);
  return i;
}

/// Eight codes as table indices (code + 128).
[[gnu::target("avx2"), gnu::always_inline]] inline __m256i tableIndices(const int8_t* codes) {
  return _mm256_add_epi32(
      _mm256_cvtepi8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(codes))),
      _mm256_set1_epi32(128));
}

/// addSubLookup's whole groups of eight (AVX2 gathers from the tables); returns how many
/// elements it did.
[[gnu::target("avx2")]] int64_t addSubLookupAvx2(const int32_t* tableA, const int32_t* tableB,
                                                 const int8_t* a, const int8_t* b, int64_t count,
                                                 const RuleChunk& rule, bool anyToEven,
                                                 int32_t zOut, int8_t* out) {
  const __m256i z = _mm256_set1_epi32(zOut), low = _mm256_set1_epi32(kInt8Min),
                high = _mm256_set1_epi32(kInt8Max);
  int64_t i = 0;
  for (; i + kChannelsPerStep <= count; i += kChannelsPerStep) {
    const __m256i sum = _mm256_add_epi32(_mm256_i32gather_epi32(tableA, tableIndices(a + i), 4),
                                         _mm256_i32gather_epi32(tableB, tableIndices(b + i), 4));
    storeCodes(requantize8(sum, rule, anyToEven, z, low, high), out + i);
  }
  return i;
}
#endif

} // namespace

void requantizeChannelsLast(const reference::Int8ConvPasses& sums, std::span<const int32_t> bias,
                            std::span<const QuantMultiplier> multipliers, int32_t zOut, int32_t lo,
                            int32_t hi, int8_t* out) {
  NNACCEL_ASSERT(static_cast<int64_t>(multipliers.size()) == sums.channels)
      << multipliers.size() << " multipliers for " << sums.channels << " channels";
  NNACCEL_ASSERT(bias.empty() || static_cast<int64_t>(bias.size()) == sums.channels)
      << "bias has " << bias.size() << " entries for " << sums.channels << " output channels";
  NNACCEL_ASSERT(!sums.passes.empty() && sums.passes.size() == sums.factors.size())
      << sums.passes.size() << " passes with " << sums.factors.size() << " factors";
  NNACCEL_ASSERT(sums.passes.size() <= kMaxPasses) << sums.passes.size() << " passes";
  checkCodes(zOut, lo, hi);
  std::vector<int32_t> withOffsets; // bias + the passes' zero-point offsets
  if (!sums.offsets.empty()) {
    NNACCEL_ASSERT(static_cast<int64_t>(sums.offsets.size()) == sums.channels)
        << sums.offsets.size() << " offsets for " << sums.channels << " channels";
    withOffsets = sums.offsets;
    for (size_t c = 0; c < withOffsets.size() && !bias.empty(); ++c)
      withOffsets[c] = static_cast<int32_t>(static_cast<uint32_t>(withOffsets[c]) +
                                            static_cast<uint32_t>(bias[c]));
    bias = withOffsets;
  }
  NNACCEL_ASSERT(sums.positions > 0 && sums.rows % sums.positions == 0)
      << sums.rows << " rows of " << sums.positions << " positions";
  int64_t vectorChannels = 0;
#if defined(__x86_64__)
  if (hasAvx2() && sums.channels >= kChannelsPerStep) {
    VectorSums s;
    s.passes = sums.passes.size();
    std::copy(sums.passes.begin(), sums.passes.end(), s.pass.begin());
    std::copy(sums.factors.begin(), sums.factors.end(), s.factor.begin());
    s.unitFactors =
        std::all_of(sums.factors.begin(), sums.factors.end(), [](int32_t f) { return f == 1; });
    s.floatSums = sums.floatSums;
    s.channels = sums.channels;
    s.zOut = zOut;
    s.lo = lo;
    s.hi = hi;
    const int64_t chunks = sums.channels / kChannelsPerStep;
    const std::vector<RuleChunk> rules = ruleChunks(chunks, bias, multipliers, s.anyToEven);
    requantizeChunksAvx2(s, rules, sums.rows / sums.positions, sums.positions, out);
    vectorChannels = chunks * kChannelsPerStep;
  }
#endif
  requantizeTail(sums, vectorChannels, bias, multipliers, zOut, lo, hi, out);
}

void requantizeValues(std::span<const int32_t> acc, QuantMultiplier m, int32_t zOut, int32_t lo,
                      int32_t hi, int8_t* out) {
  checkCodes(zOut, lo, hi);
  const auto count = static_cast<int64_t>(acc.size());
  int64_t done = 0;
#if defined(__x86_64__)
  if (hasAvx2()) {
    const QuantMultiplier same[kChannelsPerStep] = {m, m, m, m, m, m, m, m};
    bool anyToEven = false;
    const std::vector<RuleChunk> rule = ruleChunks(1, {}, same, anyToEven);
    done = requantizeFlatAvx2(acc.data(), count, rule[0], anyToEven, zOut, lo, hi, out);
  }
#endif
  for (int64_t i = done; i < count; ++i)
    out[i] = static_cast<int8_t>(requantizeTo(acc[static_cast<size_t>(i)], m, zOut, lo, hi));
}

void addSubLookup(std::span<const int32_t, 256> tableA, std::span<const int32_t, 256> tableB,
                  const int8_t* a, const int8_t* b, int64_t count, QuantMultiplier output,
                  int32_t zOut, int8_t* out) {
  checkCodes(zOut, kInt8Min, kInt8Max);
  int64_t done = 0;
#if defined(__x86_64__)
  if (hasAvx2()) {
    const QuantMultiplier same[kChannelsPerStep] = {output, output, output, output,
                                                    output, output, output, output};
    bool anyToEven = false;
    const std::vector<RuleChunk> rule = ruleChunks(1, {}, same, anyToEven);
    done =
        addSubLookupAvx2(tableA.data(), tableB.data(), a, b, count, rule[0], anyToEven, zOut, out);
  }
#endif
  for (int64_t i = done; i < count; ++i) {
    const int32_t sum =
        tableA[static_cast<uint8_t>(a[i] + 128)] + tableB[static_cast<uint8_t>(b[i] + 128)];
    out[i] = static_cast<int8_t>(requantizeTo(sum, output, zOut));
  }
}

} // namespace nnaccel::quant
