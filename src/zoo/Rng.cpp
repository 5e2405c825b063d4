// The zoo's bit-reproducible generator: splitmix64 seeding, xoshiro256** stream, integer-only
// uniform and Irwin-Hall "normal" conversions (see Rng.h for why no std:: distributions).
#include "nnaccel/zoo/Rng.h"

#include <cmath>

namespace nnaccel::zoo {

namespace {

uint64_t rotl(uint64_t x, int k) {
  return (x << k) | (x >> (64 - k));
}

/// Sum of the four 16-bit lanes of \p x, centred: in [-131070, 131070], mean 0.
int32_t centredLaneSum(uint64_t x) {
  const uint64_t sum = (x & 0xffff) + ((x >> 16) & 0xffff) + ((x >> 32) & 0xffff) + (x >> 48);
  return static_cast<int32_t>(sum) - 131070;
}

/// Float factor turning a centred lane sum into a draw of standard deviation \p stddev. Each
/// lane is uniform on {0..65535} with variance (65536^2 - 1) / 12; four lanes add up. sqrt and
/// division are correctly rounded in IEEE 754, so the factor is the same everywhere.
float laneScale(float stddev) {
  const double laneSumStd = std::sqrt(4.0 * (65536.0 * 65536.0 - 1.0) / 12.0);
  return static_cast<float>(static_cast<double>(stddev) / laneSumStd);
}

/// Top 24 bits of \p x as a float in [0, 1) (exact).
float unitFloat(uint64_t x) {
  return static_cast<float>(x >> 40) * 0x1p-24f;
}

} // namespace

uint64_t splitmix64(uint64_t& state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

uint64_t fnv1a64(std::string_view text) {
  uint64_t h = 0xCBF29CE484222325ULL;
  for (char c : text) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001B3ULL;
  }
  return h;
}

Rng::Rng(uint64_t seed) {
  for (uint64_t& word : s_) {
    word = splitmix64(seed);
  }
}

Rng Rng::forStream(uint64_t seed, std::string_view streamName) {
  uint64_t mixed = seed;
  return Rng(splitmix64(mixed) ^ fnv1a64(streamName));
}

uint64_t Rng::nextU64() {
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

float Rng::uniform(float lo, float hi) {
  return lo + (hi - lo) * unitFloat(nextU64());
}

float Rng::normal(float mean, float stddev) {
  return mean + static_cast<float>(centredLaneSum(nextU64())) * laneScale(stddev);
}

void Rng::fillUniform(std::span<float> out, float lo, float hi) {
  const float width = hi - lo;
  for (float& v : out) {
    v = lo + width * unitFloat(nextU64());
  }
}

void Rng::fillNormal(std::span<float> out, float mean, float stddev) {
  const float scale = laneScale(stddev);
  for (float& v : out) {
    v = mean + static_cast<float>(centredLaneSum(nextU64())) * scale;
  }
}

} // namespace nnaccel::zoo
