// The float conversions of nnaccel's seeded generator (uniform and Irwin-Hall "normal"), kept
// out of the header so they are compiled once with -ffp-contract=off: the same seed gives the
// same bits on every platform (see nnaccel/support/Rng.h).
#include "nnaccel/support/Rng.h"

#include <cmath>

namespace nnaccel {

namespace {

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

} // namespace nnaccel
