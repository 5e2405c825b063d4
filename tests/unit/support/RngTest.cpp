// Tests for nnaccel's reproducible generator (support/Rng.h): reference vectors of splitmix64,
// FNV-1a and xoshiro256**, golden zoo weights computed by an independent Python/numpy
// re-implementation, and the moments of the uniform and Irwin-Hall normal conversions.
#include "nnaccel/support/Rng.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <gtest/gtest.h>
#include <vector>

using namespace nnaccel;

TEST(Rng, ReferenceVectors) {
  uint64_t state = 0;
  EXPECT_EQ(splitmix64(state), 0xE220A8397B1DCDAFULL); // splitmix64 reference, seed 0
  EXPECT_EQ(fnv1a64(""), 0xCBF29CE484222325ULL);
  EXPECT_EQ(fnv1a64("a"), 0xAF63DC4C8601EC8CULL);
  // xoshiro256** seeded through splitmix64 (values from the Python re-implementation, whose
  // xoshiro256** reproduces the reference outputs 11520, 0, 1509978240 for state {1,2,3,4}).
  Rng r(2026);
  EXPECT_EQ(r.nextU64(), 0x92E011592E98AE15ULL);
  EXPECT_EQ(r.nextU64(), 0x489F37946D6D18D8ULL);
  EXPECT_EQ(r.nextU64(), 0xD0009E279D9CDEDAULL);
}

TEST(Rng, GoldenWeightsAreBitExact) {
  // resnet18 "conv1.weight" under seed 2026: He std sqrt(2 / 147), first four draws; and
  // "fc.bias": U(-1/sqrt(512), 1/sqrt(512)). Bit patterns from the Python re-implementation.
  std::vector<float> w(4);
  Rng::forStream(2026, "conv1.weight")
      .fillNormal(w, 0.0f, static_cast<float>(std::sqrt(2.0 / 147.0)));
  const uint32_t expectedW[] = {3194485160u, 3163298736u, 1027921730u, 3190460324u};
  for (size_t i = 0; i < w.size(); ++i) {
    EXPECT_EQ(std::bit_cast<uint32_t>(w[i]), expectedW[i]) << i << ": " << w[i];
  }
  const auto bound = static_cast<float>(1.0 / std::sqrt(512.0));
  std::vector<float> b(3);
  Rng::forStream(2026, "fc.bias").fillUniform(b, -bound, bound);
  const uint32_t expectedB[] = {3171017610u, 3076550656u, 1026005563u};
  for (size_t i = 0; i < b.size(); ++i) {
    EXPECT_EQ(std::bit_cast<uint32_t>(b[i]), expectedB[i]) << i << ": " << b[i];
  }
  EXPECT_FLOAT_EQ(w[0], -0.2265383005142212f);
  EXPECT_FLOAT_EQ(b[0], -0.031711138784885406f);
}

TEST(Rng, SingleDrawsMatchFills) {
  std::vector<float> filled(8);
  Rng::forStream(7, "x").fillNormal(filled, 0.5f, 2.0f);
  Rng single = Rng::forStream(7, "x");
  for (float v : filled) {
    EXPECT_EQ(single.normal(0.5f, 2.0f), v);
  }
  Rng::forStream(7, "y").fillUniform(filled, -3.0f, 1.0f);
  single = Rng::forStream(7, "y");
  for (float v : filled) {
    EXPECT_EQ(single.uniform(-3.0f, 1.0f), v);
  }
}

TEST(Rng, StreamsDependOnSeedAndName) {
  EXPECT_NE(Rng::forStream(1, "a.weight").nextU64(), Rng::forStream(2, "a.weight").nextU64());
  EXPECT_NE(Rng::forStream(1, "a.weight").nextU64(), Rng::forStream(1, "a.bias").nextU64());
  EXPECT_EQ(Rng::forStream(1, "a.weight").nextU64(), Rng::forStream(1, "a.weight").nextU64());
}

TEST(Rng, NormalMomentsAndBounds) {
  std::vector<float> v(1 << 20);
  Rng(42).fillNormal(v, 0.0f, 1.0f);
  double sum = 0, sumSq = 0, sumQuad = 0;
  for (float x : v) {
    sum += x;
    sumSq += double(x) * x;
    sumQuad += double(x) * x * x * x;
  }
  const double n = static_cast<double>(v.size());
  EXPECT_NEAR(sum / n, 0.0, 0.005);
  EXPECT_NEAR(sumSq / n, 1.0, 0.005);
  // Irwin-Hall with 4 terms has kurtosis 3 - 6/(5*4) = 2.7 (a normal has 3).
  EXPECT_NEAR(sumQuad / n, 2.7, 0.03);
  const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
  EXPECT_GE(*lo, -3.4642f);
  EXPECT_LE(*hi, 3.4642f);
  EXPECT_LT(*lo, -3.0f); // the tails are actually reached
  EXPECT_GT(*hi, 3.0f);
}

TEST(Rng, UniformRangeAndMean) {
  std::vector<float> v(1 << 20);
  Rng(43).fillUniform(v, 0.8f, 1.2f);
  double sum = 0;
  for (float x : v) {
    sum += x;
  }
  const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
  EXPECT_GE(*lo, 0.8f);
  EXPECT_LE(*hi, 1.2f);
  EXPECT_LT(*lo, 0.8001f);
  EXPECT_GT(*hi, 1.1999f);
  EXPECT_NEAR(sum / static_cast<double>(v.size()), 1.0, 0.001);
}
