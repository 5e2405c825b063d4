/// \file
/// nnaccel's one seeded random number generator: zoo weights, int8 calibration inputs, the
/// seeded random inputs of `nnaccel run` and the int8 evaluation inputs all draw from it.
///
/// Every draw must be identical on every platform and compiler, so nothing here uses the
/// standard library's distributions (std::normal_distribution's output is implementation-
/// defined) or transcendental functions (libm results may differ in the last bit):
///  - the stream is xoshiro256** (Blackman and Vigna) whose 256-bit state is filled with four
///    successive splitmix64 outputs of the seed;
///  - uniform floats take the top 24 bits of one draw (exact in float), then one float
///    multiply and one float add;
///  - "normal" floats are an Irwin-Hall approximation: the sum of the four 16-bit lanes of one
///    draw, centred and scaled to unit variance (bounded at +-3.46 sigma, like a truncated
///    normal). Only integer operations, one float multiply and one float add are involved.
/// The float conversions live in src/support/Rng.cpp, compiled with -ffp-contract=off so no
/// compiler fuses their multiply-add into an FMA. Rng::forStream derives independent streams
/// from a seed and a name (the zoo gives each weight tensor its own stream).
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

namespace nnaccel {

/// One step of splitmix64: advances \p state and returns the next output.
constexpr uint64_t splitmix64(uint64_t& state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

/// 64-bit FNV-1a hash of \p text (turns stream names into stream ids).
constexpr uint64_t fnv1a64(std::string_view text) {
  uint64_t h = 0xCBF29CE484222325ULL;
  for (char c : text) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001B3ULL;
  }
  return h;
}

class Rng {
public:
  /// xoshiro256** seeded with four successive splitmix64 outputs of \p seed.
  explicit constexpr Rng(uint64_t seed) {
    for (uint64_t& word : s_) {
      word = splitmix64(seed);
    }
  }
  /// The stream named \p streamName under seed \p seed: Rng(splitmix64(seed) ^ fnv1a64(name)).
  static constexpr Rng forStream(uint64_t seed, std::string_view streamName) {
    uint64_t mixed = seed;
    return Rng(splitmix64(mixed) ^ fnv1a64(streamName));
  }

  /// Next raw 64-bit output of xoshiro256**.
  constexpr uint64_t nextU64() {
    const uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }

  /// Uniform integer in [lo, hi], both included (lo <= hi): lo + one draw modulo the range
  /// size (the modulo bias is below 2^-40 for ranges under 2^24; for test data and sampling).
  constexpr int64_t uniformInt(int64_t lo, int64_t hi) {
    return lo + static_cast<int64_t>(nextU64() % static_cast<uint64_t>(hi - lo + 1));
  }

  /// Uniform in [lo, hi) (hi only by float rounding): lo + (hi - lo) * u with
  /// u = (top 24 bits of one draw) * 2^-24 in [0, 1). uniform(-1, 1) is exactly 2u - 1.
  float uniform(float lo, float hi);
  /// Approximately normal with the given mean and standard deviation (Irwin-Hall, 4 lanes).
  float normal(float mean, float stddev);

  /// Fills \p out with uniform(lo, hi) / normal(mean, stddev) draws, one draw per element, in
  /// order (the same values as calling uniform/normal once per element).
  void fillUniform(std::span<float> out, float lo, float hi);
  void fillNormal(std::span<float> out, float mean, float stddev);

private:
  static constexpr uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

  uint64_t s_[4] = {};
};

} // namespace nnaccel
