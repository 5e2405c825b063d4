/// \file
/// The bit-reproducible random number generator behind the zoo's seeded weights.
///
/// Zoo weights must be identical on every platform and compiler, so nothing here uses the
/// standard library's distributions (std::normal_distribution's output is implementation-
/// defined) or transcendental functions (libm results may differ in the last bit):
///  - the stream is xoshiro256** whose 256-bit state is filled by splitmix64 from the seed;
///  - uniform floats take the top 24 bits of one draw (exact in float), then one float
///    multiply and one float add;
///  - "normal" floats are an Irwin-Hall approximation: the sum of the four 16-bit lanes of one
///    draw, centred and scaled to unit variance (bounded at +-3.46 sigma, like a truncated
///    normal). Only integer operations, one float multiply and one float add are involved.
/// Each weight tensor gets its own stream, derived from the model seed and the tensor's name
/// (Rng::forStream), so adding or reordering layers never changes the weights of the others.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

namespace nnaccel::zoo {

/// One step of splitmix64: advances \p state and returns the next output.
uint64_t splitmix64(uint64_t& state);
/// 64-bit FNV-1a hash of \p text (used to turn tensor names into stream ids).
uint64_t fnv1a64(std::string_view text);

class Rng {
public:
  /// xoshiro256** seeded with four successive splitmix64 outputs of \p seed.
  explicit Rng(uint64_t seed);
  /// The stream for the tensor named \p streamName under model seed \p seed.
  static Rng forStream(uint64_t seed, std::string_view streamName);

  /// Next raw 64-bit output of xoshiro256**.
  uint64_t nextU64();
  /// Uniform in [lo, hi] (hi only by float rounding): lo + (hi - lo) * u with
  /// u = (top 24 bits) * 2^-24 in [0, 1).
  float uniform(float lo, float hi);
  /// Approximately normal with the given mean and standard deviation (Irwin-Hall, 4 lanes).
  float normal(float mean, float stddev);

  /// Fills \p out with uniform(lo, hi) / normal(mean, stddev) draws, one draw per element.
  void fillUniform(std::span<float> out, float lo, float hi);
  void fillNormal(std::span<float> out, float mean, float stddev);

private:
  uint64_t s_[4];
};

} // namespace nnaccel::zoo
