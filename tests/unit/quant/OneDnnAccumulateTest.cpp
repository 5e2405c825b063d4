/// \file
/// The oneDNN accumulators of the int8 executor (quant/OneDnnAccumulate.cpp) against the integer
/// loops they replace (the oracle, AccumulateKernels.cpp), bit for bit: seeded random Conv and
/// ConvTranspose layers (1-3 spatial axes, strides, asymmetric pads, dilations, groups including
/// depthwise, zero points, narrow and full-range inputs; ConvTranspose checks the fallback),
/// both as s32 sums and requantized to int8 (the executor's path, random per-channel
/// multipliers of every shift and rounding), each route of int8ConvMapped forced once (int8
/// passes with and without oneDNN's zero point, the source split, the nibble split, the fp32
/// pass, the loops), reductions long enough to need the nibble split, random Gemm layers
/// (transposed A), the vector requantization kernels against the scalar rule, and whole zoo
/// models and the ONNX conformance cases run by Int8Executor both ways.
#include "../../conformance/BackendCases.h"
#include "nnaccel/passes/Pipeline.h"
#include "nnaccel/quant/Agreement.h"
#include "nnaccel/quant/Int8Executor.h"
#include "nnaccel/quant/Kernels.h"
#include "nnaccel/zoo/Zoo.h"

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <gtest/gtest.h>
#include <optional>
#include <random>

namespace nnaccel::quant {
namespace {

#ifndef NNACCEL_ONEDNN_ZOO_SLOW // the slow build runs the zoo models alone
Tensor randomS8(std::mt19937& rng, const Dims& shape, int lo, int hi) {
  Tensor t(DType::I8, shape);
  std::uniform_int_distribution<int> d(lo, hi);
  for (int8_t& v : t.values<int8_t>())
    v = static_cast<int8_t>(d(rng));
  return t;
}

/// A random Conv or ConvTranspose geometry with 1 to 3 spatial axes.
ir::ConvParams randomConv(std::mt19937& rng, bool transposed) {
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  ir::ConvParams p;
  p.transposed = transposed;
  p.spatialRank = pick(1, 3);
  p.batch = pick(1, 2);
  const int64_t group = pick(0, 2) == 0 ? pick(2, 4) : 1;
  const bool depthwise = pick(0, 3) == 0;
  p.group = depthwise ? pick(2, 16) : group;
  p.inChannels = p.group * (depthwise ? 1 : pick(1, 12));
  p.outChannels = p.group * (depthwise ? 1 : pick(1, 12));
  for (int64_t a = 0; a < p.spatialRank; ++a) {
    const int64_t in = p.spatialRank == 3 ? pick(1, 5) : pick(1, 11);
    const int64_t kernel = pick(1, 3), stride = pick(1, 3), dilation = pick(1, 2);
    const int64_t span = (kernel - 1) * dilation + 1;
    const int64_t padBegin = pick(0, kernel - 1), padEnd = pick(0, kernel - 1);
    int64_t out = transposed ? stride * (in - 1) + span - padBegin - padEnd
                             : (in + padBegin + padEnd - span) / stride + 1;
    if (out < 1)
      return randomConv(rng, transposed);
    p.inSpatial.push_back(in);
    p.outSpatial.push_back(out);
    p.kernel.push_back(kernel);
    p.strides.push_back(stride);
    p.dilations.push_back(dilation);
    p.padsBegin.push_back(padBegin);
    p.padsEnd.push_back(padEnd);
    p.outputPadding.push_back(0);
  }
  return p;
}

Dims inputShape(const ir::ConvParams& p) {
  Dims d{p.batch, p.inChannels};
  d.insert(d.end(), p.inSpatial.begin(), p.inSpatial.end());
  return d;
}

Dims weightShape(const ir::ConvParams& p) {
  Dims d = p.transposed ? Dims{p.inChannels, p.outChannels / p.group}
                        : Dims{p.outChannels, p.inChannels / p.group};
  d.insert(d.end(), p.kernel.begin(), p.kernel.end());
  return d;
}

std::vector<int32_t> randomBias(std::mt19937& rng, int64_t channels) {
  std::vector<int32_t> b(static_cast<size_t>(channels));
  std::uniform_int_distribution<int32_t> d(-100000, 100000);
  for (int32_t& v : b)
    v = d(rng);
  return b;
}

void expectSameBits(const Tensor& oneDnn, const Tensor& loops) {
  ASSERT_EQ(oneDnn.shape(), loops.shape());
  const auto a = oneDnn.values<int32_t>(), b = loops.values<int32_t>();
  int64_t differing = 0;
  for (size_t i = 0; i < a.size(); ++i)
    differing += a[i] != b[i];
  EXPECT_EQ(differing, 0) << "of " << a.size();
}

/// Input ranges: post-ReLU, narrow around a zero point, full s8.
struct InputRange {
  int lo, hi;
};
constexpr InputRange kRanges[] = {{0, 127}, {-20, 90}, {-128, 127}};

TEST(OneDnnAccumulate, RandomConvolutionsMatchTheLoops) {
  std::mt19937 rng(2024);
  for (int trial = 0; trial < 120; ++trial) {
    const bool transposed = trial % 4 == 3;
    const ir::ConvParams p = randomConv(rng, transposed);
    const InputRange r = kRanges[trial % 3];
    const int32_t zIn = trial % 2 == 0 ? 0 : std::uniform_int_distribution<int>(-128, 127)(rng);
    const Tensor x = randomS8(rng, inputShape(p), r.lo, r.hi);
    const Tensor w = randomS8(rng, weightShape(p), -128, 127);
    const std::vector<int32_t> bias =
        trial % 5 == 0 ? std::vector<int32_t>{} : randomBias(rng, p.outChannels);
    SCOPED_TRACE("trial " + std::to_string(trial) + (transposed ? " ConvTranspose" : " Conv") +
                 " in " + dimsToString(inputShape(p)) + " w " + dimsToString(weightShape(p)) +
                 " group " + std::to_string(p.group) + " zIn " + std::to_string(zIn));
    reference::Int8ConvCache cache;
    for (int run = 0; run < 2; ++run) // the second run uses the kept weights
      expectSameBits(convAccumulateOneDnn(p, x, w, bias, zIn, cache),
                     convAccumulate(p, x, w, bias, zIn));
  }
}

TEST(OneDnnAccumulate, LongReductionsSplitTheWeightsAndStayExact) {
  // 3x3 over 512 channels of full-range weights: |sums| reach 2^24, so the weights go in nibbles.
  std::mt19937 rng(7);
  ir::ConvParams p;
  p.batch = 1;
  p.inChannels = 512;
  p.outChannels = 8;
  p.inSpatial = p.outSpatial = {5, 5};
  p.kernel = {3, 3};
  p.strides = p.dilations = {1, 1};
  p.padsBegin = p.padsEnd = {1, 1};
  p.outputPadding = {0, 0};
  const Tensor w = randomS8(rng, weightShape(p), 100, 127);
  for (const InputRange r : kRanges) {
    const Tensor x = randomS8(rng, inputShape(p), r.lo, r.hi);
    reference::Int8ConvCache cache;
    expectSameBits(convAccumulateOneDnn(p, x, w, {}, 3, cache), convAccumulate(p, x, w, {}, 3));
  }
}

/// Random Gemm \p trial: A of up to 9 x 300 (transposed on odd trials, in one of kRanges),
/// up to 40 output columns, full-range weights, a bias and an input zero point (0 every third
/// trial).
struct RandomGemm {
  Tensor a, w;
  bool transA = false;
  std::vector<int32_t> bias;
  int32_t zIn = 0;
};
RandomGemm randomGemm(std::mt19937& rng, int trial) {
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  const int64_t m = pick(1, 9), k = pick(1, 300), n = pick(1, 40);
  RandomGemm g;
  g.transA = trial % 2 == 1;
  const InputRange r = kRanges[trial % 3];
  g.a = randomS8(rng, g.transA ? Dims{k, m} : Dims{m, k}, r.lo, r.hi);
  g.w = randomS8(rng, {n, k}, -128, 127);
  g.bias = randomBias(rng, n);
  g.zIn = trial % 3 == 0 ? 0 : pick(-128, 127);
  return g;
}

TEST(OneDnnAccumulate, RandomGemmsMatchTheLoops) {
  std::mt19937 rng(99);
  for (int trial = 0; trial < 40; ++trial) {
    const RandomGemm g = randomGemm(rng, trial);
    reference::Int8ConvCache cache;
    SCOPED_TRACE("trial " + std::to_string(trial));
    expectSameBits(matmulAccumulateOneDnn(g.a, g.transA, g.w, g.bias, g.zIn, cache),
                   matmulAccumulate(g.a, g.transA, g.w, g.bias, g.zIn));
  }
}
/// A random requantization rule: mostly multipliers of real layers (2^-20 to 0.5), some of
/// every representable shift, ties to even, the zero multiplier, and multipliers >= 0.5 (total
/// right shifts below 32, the vector code's long path).
QuantMultiplier randomRule(std::mt19937& rng) {
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  QuantMultiplier q;
  switch (pick(0, 5)) {
  case 0:
    q = QuantMultiplier{0, kMaxShift};
    break;
  case 1:
    q.multiplier = std::uniform_int_distribution<int32_t>(int32_t{1} << 30, INT32_MAX)(rng);
    q.shift = pick(kMinShift, kMaxShift);
    break;
  case 2:
    q = quantizeMultiplier(std::ldexp(1.0 + pick(0, 1000) / 1000.0, -pick(0, 1)));
    break;
  default:
    q = quantizeMultiplier(std::ldexp(1.0 + pick(0, 1000) / 1000.0, -pick(2, 20)));
  }
  q.rounding = pick(0, 3) == 0 ? Rounding::HalfEven : Rounding::HalfAway;
  return q;
}

std::vector<QuantMultiplier> randomRules(std::mt19937& rng, int64_t channels) {
  std::vector<QuantMultiplier> rules;
  for (int64_t c = 0; c < channels; ++c)
    rules.push_back(randomRule(rng));
  return rules;
}

void expectSameCodes(const Tensor& fast, const Tensor& loops) {
  ASSERT_EQ(fast.dtype(), DType::I8);
  ASSERT_EQ(fast.shape(), loops.shape());
  const auto a = fast.values<int8_t>(), b = loops.values<int8_t>();
  int64_t differing = 0;
  for (size_t i = 0; i < a.size(); ++i)
    differing += a[i] != b[i];
  EXPECT_EQ(differing, 0) << "of " << a.size();
}

/// The executor's requantized Conv output on oneDNN against the loops' accumulators
/// requantized by requantizePerChannel, on two calls (the second with the first's output as the
/// recycled tensor); returns the route of the second call.
reference::Int8ConvRoute
expectConvRequantizedLikeTheLoops(std::mt19937& rng, const ir::ConvParams& p, const Tensor& x,
                                  const Tensor& w, const std::vector<int32_t>& bias, ZeroPoints z) {
  const std::vector<QuantMultiplier> rules = randomRules(rng, p.outChannels);
  const Tensor want = requantizePerChannel(convAccumulate(p, x, w, bias, z.in[0]), 1, rules,
                                           kInt8Min, kInt8Max, z.out);
  reference::Int8ConvCache cache;
  Tensor y = convRequantizeOneDnn(p, x, w, bias, rules, z, cache);
  expectSameCodes(y, want);
  std::memset(y.rawData(), 0x5a, y.sizeBytes()); // the recycled storage's old codes must go
  expectSameCodes(convRequantizeOneDnn(p, x, w, bias, rules, z, cache, std::move(y)), want);
  return cache.lastRoute();
}

TEST(OneDnnAccumulate, RandomConvolutionsRequantizeLikeTheLoops) {
  std::mt19937 rng(2025);
  int floatPasses = 0, int8Layers = 0, zeroPointPasses = 0, plainPasses = 0, loops = 0;
  for (int trial = 0; trial < 150; ++trial) {
    const bool transposed = trial % 10 == 9;
    const ir::ConvParams p = randomConv(rng, transposed);
    const InputRange r = kRanges[trial % 3];
    auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    const ZeroPoints z{{trial % 2 == 0 ? 0 : pick(-128, 127), 0, 0},
                       trial % 4 < 2 ? 0 : pick(-128, 127)};
    const Tensor x = randomS8(rng, inputShape(p), r.lo, r.hi);
    const Tensor w = randomS8(rng, weightShape(p), -128, 127);
    const std::vector<int32_t> bias =
        trial % 5 == 0 ? std::vector<int32_t>{} : randomBias(rng, p.outChannels);
    SCOPED_TRACE("trial " + std::to_string(trial) + (transposed ? " ConvTranspose" : " Conv") +
                 " in " + dimsToString(inputShape(p)) + " w " + dimsToString(weightShape(p)) +
                 " group " + std::to_string(p.group) + " zIn " + std::to_string(z.in[0]) +
                 " zOut " + std::to_string(z.out));
    const reference::Int8ConvRoute route = expectConvRequantizedLikeTheLoops(rng, p, x, w, bias, z);
    floatPasses += route.floatPass ? 1 : 0;
    int8Layers += route.int8Passes > 0 ? 1 : 0;
    plainPasses += route.plainPasses;
    zeroPointPasses += route.int8Passes - route.plainPasses;
    loops += !route.floatPass && route.int8Passes == 0 ? 1 : 0;
  }
  // Every route ran: the fp32 pass (full-range inputs), int8 passes with and without oneDNN's
  // zero point, and the loops (ConvTranspose).
  EXPECT_GT(floatPasses, 10);
  EXPECT_GT(int8Layers, 10);
  EXPECT_GT(plainPasses, 10);
  EXPECT_GT(zeroPointPasses, 5);
  EXPECT_GE(loops, 15);
}

/// A 2-D Conv with \p channels inputs and \p outChannels outputs on a 6x7 image, 3x3 kernel with
/// \p pads on each side.
ir::ConvParams convLayer(int64_t channels, int64_t outChannels, int64_t kernel, int64_t pads) {
  ir::ConvParams p;
  p.spatialRank = 2;
  p.batch = 2;
  p.inChannels = channels;
  p.outChannels = outChannels;
  p.inSpatial = {6, 7};
  p.kernel = {kernel, kernel};
  p.outSpatial = {6 + 2 * pads - kernel + 1, 7 + 2 * pads - kernel + 1};
  p.strides = p.dilations = {1, 1};
  p.padsBegin = p.padsEnd = {pads, pads};
  p.outputPadding = {0, 0};
  return p;
}

TEST(OneDnnAccumulate, EachRouteMatchesTheLoops) {
  std::mt19937 rng(31);
  struct Case {
    const char* name;
    ir::ConvParams p;
    InputRange x, w;
    int32_t zIn;
    reference::Int8ConvRoute route;
  };
  const Case cases[] = {
      // Non-negative codes, zero point 0: one int8 pass without oneDNN's zero point.
      {"plain", convLayer(9, 12, 3, 1), {0, 127}, {-128, 127}, 0, {1, 1, false}},
      // A zero point with padding: oneDNN's run-time zero point.
      {"zero point", convLayer(9, 12, 3, 1), {0, 127}, {-128, 127}, 5, {1, 0, false}},
      // A zero point without padding: corrected per channel afterwards.
      {"corrected", convLayer(9, 12, 3, 0), {0, 127}, {-128, 127}, -7, {1, 1, false}},
      // Negative codes: the source shifted by its minimum, one pass.
      {"shifted", convLayer(9, 12, 3, 1), {-20, 90}, {-128, 127}, 3, {1, 0, false}},
      // Full range and a small reduction: one exact fp32 pass instead of two int8 ones.
      {"fp32", convLayer(9, 12, 3, 1), {-128, 127}, {-128, 127}, 0, {0, 0, true}},
      // Full range, zero point -128, a reduction of L1 ~ 10^5: fp32 is not exact (L1 * 255 >=
      // 2^24) but the source split at 128 is (L1 * 128 < 2^24).
      {"split", convLayer(1024, 8, 1, 0), {-128, 127}, {90, 110}, -128, {2, 2, false}},
      // Non-negative codes and a long reduction: the weights in nibbles.
      {"nibbles", convLayer(512, 8, 3, 1), {0, 127}, {100, 127}, 3, {2, 0, false}},
      // Full range and a long reduction: the source split and the weights in nibbles, four
      // passes (the rest, zero point 0, without oneDNN's zero point).
      {"split nibbles", convLayer(512, 8, 3, 1), {-128, 127}, {100, 127}, 3, {4, 2, false}},
      // Low nibbles of 15: even the four passes could reach 2^24 (4608 * 15 * 259), the loops.
      {"loops", convLayer(512, 8, 3, 1), {-128, 127}, {127, 127}, 3, {0, 0, false}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const Tensor x = randomS8(rng, inputShape(c.p), c.x.lo, c.x.hi);
    const Tensor w = randomS8(rng, weightShape(c.p), c.w.lo, c.w.hi);
    const std::vector<int32_t> bias = randomBias(rng, c.p.outChannels);
    const reference::Int8ConvRoute route =
        expectConvRequantizedLikeTheLoops(rng, c.p, x, w, bias, {{c.zIn, 0, 0}, 11});
    EXPECT_EQ(route.int8Passes, c.route.int8Passes);
    EXPECT_EQ(route.plainPasses, c.route.plainPasses);
    EXPECT_EQ(route.floatPass, c.route.floatPass);
    reference::Int8ConvCache cache;
    expectSameBits(convAccumulateOneDnn(c.p, x, w, bias, c.zIn, cache),
                   convAccumulate(c.p, x, w, bias, c.zIn));
  }
}

TEST(OneDnnAccumulate, RandomGemmsRequantizeLikeTheLoops) {
  std::mt19937 rng(98);
  for (int trial = 0; trial < 40; ++trial) {
    const RandomGemm g = randomGemm(rng, trial);
    const ZeroPoints z{{g.zIn, 0, 0}, std::uniform_int_distribution<int>(-128, 127)(rng)};
    const std::vector<QuantMultiplier> rules =
        randomRules(rng, static_cast<int64_t>(g.bias.size()));
    reference::Int8ConvCache cache;
    SCOPED_TRACE("trial " + std::to_string(trial));
    expectSameCodes(matmulRequantizeOneDnn(g.a, g.transA, g.w, g.bias, rules, z, cache),
                    requantizePerChannel(matmulAccumulate(g.a, g.transA, g.w, g.bias, z.in[0]), 1,
                                         rules, kInt8Min, kInt8Max, z.out));
  }
}

/// Random channels-last sums of \p passes passes: int32 (any value, extremes included) or, as
/// the fp32 pass leaves them, f32 integers below 2^24.
struct RandomSums {
  std::vector<std::vector<int32_t>> passes;
  reference::Int8ConvPasses sums;
};

RandomSums randomSums(std::mt19937& rng, int64_t images, int64_t positions, int64_t channels,
                      int passes, bool floatSums, bool offsets) {
  RandomSums r;
  r.sums.rows = images * positions;
  r.sums.positions = positions;
  r.sums.channels = channels;
  r.sums.floatSums = floatSums;
  const size_t count = static_cast<size_t>(r.sums.rows * channels);
  std::uniform_int_distribution<int32_t> any(INT32_MIN, INT32_MAX),
      small(-(1 << 24) + 1, (1 << 24) - 1);
  for (int k = 0; k < passes; ++k) {
    std::vector<int32_t> v(count);
    for (size_t i = 0; i < count; ++i) {
      const int kind = std::uniform_int_distribution<int>(0, 9)(rng);
      int32_t sum = kind == 0   ? INT32_MIN
                    : kind == 1 ? INT32_MAX
                    : kind == 2 ? 2 * (any(rng) / 2) + 1
                                : any(rng);
      if (floatSums) {
        const float f = static_cast<float>(kind < 3 ? small(rng) : small(rng) / 64);
        std::memcpy(&sum, &f, sizeof f);
      }
      v[i] = sum;
    }
    r.passes.push_back(std::move(v));
    r.sums.passes.push_back(r.passes.back().data());
    r.sums.factors.push_back(k == 0 ? 1 : std::uniform_int_distribution<int32_t>(-20, 20)(rng));
  }
  if (offsets)
    for (int64_t c = 0; c < channels; ++c)
      r.sums.offsets.push_back(any(rng));
  return r;
}

/// requantizeChannelsLast's result by the scalar rule: the sums added in wrap-around int32, the
/// codes written in the ONNX layout.
std::vector<int8_t> requantizedByTheRule(const reference::Int8ConvPasses& s,
                                         const std::vector<int32_t>& bias,
                                         const std::vector<QuantMultiplier>& rules, int32_t zOut,
                                         int32_t lo, int32_t hi) {
  std::vector<int8_t> out(static_cast<size_t>(s.rows * s.channels));
  for (int64_t r = 0; r < s.rows; ++r)
    for (int64_t c = 0; c < s.channels; ++c) {
      const auto ch = static_cast<size_t>(c);
      uint32_t acc = (bias.empty() ? 0u : static_cast<uint32_t>(bias[ch])) +
                     (s.offsets.empty() ? 0u : static_cast<uint32_t>(s.offsets[ch]));
      for (size_t k = 0; k < s.passes.size(); ++k) {
        int32_t v = s.passes[k][r * s.channels + c];
        if (s.floatSums) {
          float f = 0;
          std::memcpy(&f, &v, sizeof f);
          v = static_cast<int32_t>(f);
        }
        acc += static_cast<uint32_t>(s.factors[k]) * static_cast<uint32_t>(v);
      }
      const int64_t image = r / s.positions, position = r % s.positions;
      out[static_cast<size_t>((image * s.channels + c) * s.positions + position)] =
          static_cast<int8_t>(requantizeTo(static_cast<int32_t>(acc), rules[ch], zOut, lo, hi));
    }
  return out;
}

TEST(OneDnnAccumulate, VectorRequantizationFollowsTheRule) {
  std::mt19937 rng(5);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (int trial = 0; trial < 400; ++trial) {
    const int64_t channels = std::array<int64_t, 7>{1, 3, 8, 13, 16, 35, 64}[trial % 7];
    const int64_t positions = std::array<int64_t, 6>{1, 5, 8, 17, 24, 49}[trial / 7 % 6];
    const bool floatSums = trial % 5 == 4;
    RandomSums r = randomSums(rng, pick(1, 2), positions, channels, floatSums ? 1 : pick(1, 4),
                              floatSums, trial % 3 == 0);
    const std::vector<QuantMultiplier> rules = randomRules(rng, channels);
    const std::vector<int32_t> bias =
        trial % 4 == 0 ? std::vector<int32_t>{} : randomBias(rng, channels);
    const int32_t zOut = pick(-128, 127), lo = pick(-128, 0), hi = pick(lo, 127);
    std::vector<int8_t> out(static_cast<size_t>(r.sums.rows * channels), 0x11);
    requantizeChannelsLast(r.sums, bias, rules, zOut, lo, hi, out.data());
    SCOPED_TRACE("trial " + std::to_string(trial));
    ASSERT_EQ(out, requantizedByTheRule(r.sums, bias, rules, zOut, lo, hi));
  }
}

TEST(OneDnnAccumulate, VectorRequantizationOfValuesAndAddTablesFollowsTheRule) {
  std::mt19937 rng(6);
  for (int trial = 0; trial < 200; ++trial) {
    const auto count = static_cast<size_t>(std::uniform_int_distribution<int>(0, 70)(rng));
    RandomSums r = randomSums(rng, 1, 1, static_cast<int64_t>(count), 1, false, false);
    const QuantMultiplier rule = randomRule(rng);
    const int32_t zOut = std::uniform_int_distribution<int32_t>(-128, 127)(rng);
    std::vector<int8_t> out(count), want(count);
    requantizeValues(r.passes[0], rule, zOut, -100, 120, out.data());
    for (size_t i = 0; i < count; ++i)
      want[i] = static_cast<int8_t>(requantizeTo(r.passes[0][i], rule, zOut, -100, 120));
    ASSERT_EQ(out, want) << "trial " << trial;
    // Add tables whose sums stay within int32, and random codes.
    std::array<int32_t, 256> tableA{}, tableB{};
    std::uniform_int_distribution<int32_t> half(INT32_MIN / 2 + 1, INT32_MAX / 2);
    for (size_t q = 0; q < 256; ++q) {
      tableA[q] = half(rng);
      tableB[q] = half(rng);
    }
    const Tensor a = randomS8(rng, {static_cast<int64_t>(count)}, -128, 127);
    const Tensor b = randomS8(rng, {static_cast<int64_t>(count)}, -128, 127);
    addSubLookup(tableA, tableB, a.data<int8_t>(), b.data<int8_t>(), static_cast<int64_t>(count),
                 rule, zOut, out.data());
    for (size_t i = 0; i < count; ++i)
      want[i] = static_cast<int8_t>(
          requantizeTo(tableA[static_cast<uint8_t>(a.data<int8_t>()[i] + 128)] +
                           tableB[static_cast<uint8_t>(b.data<int8_t>()[i] + 128)],
                       rule, zOut));
    ASSERT_EQ(out, want) << "trial " << trial;
  }
}

TEST(OneDnnAccumulateDeathTest, VectorRequantizationRejectsWhatItCannotRepresent) {
  std::mt19937 rng(8);
  RandomSums r = randomSums(rng, 1, 4, 8, 1, false, false);
  const std::vector<QuantMultiplier> rules(8, quantizeMultiplier(0.01));
  std::vector<int8_t> out(32);
  EXPECT_DEATH(requantizeChannelsLast(r.sums, {}, rules, 200, -128, 127, out.data()),
               "int8 requantization wants int8 codes");
  EXPECT_DEATH(requantizeChannelsLast(r.sums, {}, rules, 0, 10, 5, out.data()),
               "int8 requantization wants int8 codes");
  EXPECT_DEATH(
      requantizeChannelsLast(r.sums, {}, std::span(rules).first(7), 0, -128, 127, out.data()),
      "7 multipliers for 8 channels");
  EXPECT_DEATH(
      requantizeChannelsLast(r.sums, std::vector<int32_t>(3), rules, 0, -128, 127, out.data()),
      "bias has 3 entries for 8 output channels");
  reference::Int8ConvPasses tooMany = r.sums;
  tooMany.passes.assign(5, r.passes[0].data());
  tooMany.factors.assign(5, 1);
  EXPECT_DEATH(requantizeChannelsLast(tooMany, {}, rules, 0, -128, 127, out.data()), "5 passes");
  reference::Int8ConvPasses unfactored = r.sums;
  unfactored.factors.clear();
  EXPECT_DEATH(requantizeChannelsLast(unfactored, {}, rules, 0, -128, 127, out.data()),
               "1 passes with 0 factors");
  reference::Int8ConvPasses offsets = r.sums;
  offsets.offsets.assign(3, 0);
  EXPECT_DEATH(requantizeChannelsLast(offsets, {}, rules, 0, -128, 127, out.data()),
               "3 offsets for 8 channels");
  reference::Int8ConvPasses ragged = r.sums;
  ragged.positions = 3;
  EXPECT_DEATH(requantizeChannelsLast(ragged, {}, rules, 0, -128, 127, out.data()),
               "4 rows of 3 positions");
  EXPECT_DEATH(requantizeValues(r.passes[0], rules[0], -129, -128, 127, out.data()),
               "int8 requantization wants int8 codes");
}
#endif

/// Every output and every value of a zoo model's int8 run, oneDNN versus the loops.
void expectZooModelIdentical(const char* name) {
  const zoo::ZooModel* zm = zoo::findZooModel(name);
  ASSERT_NE(zm, nullptr);
  ir::Graph g = zm->build(zoo::kDefaultSeed);
  passes::runDefaultPipeline(g);
  const QuantizedModel m = quantize(g, {});
  const std::vector<Tensor> in = makeCalibrationInputs(g, 1, kDefaultEvaluationSeed).front();
  Int8Executor oneDnn(m, Int8Accumulation::OneDnn), loops(m, Int8Accumulation::Loops);
  oneDnn.run(in);
  oneDnn.run(in); // a second run with the kept primitives and weights
  loops.run(in);
  ASSERT_EQ(oneDnn.values().size(), loops.values().size());
  for (size_t v = 0; v < loops.values().size(); ++v)
    EXPECT_TRUE(oneDnn.values()[v].data == loops.values()[v].data) << "value " << v;
}

#ifndef NNACCEL_ONEDNN_ZOO_SLOW
/// Whether \p g has a node the int8 executor accumulates (Conv, ConvTranspose, Gemm, MatMul).
bool accumulates(const ir::Graph& g) {
  return std::any_of(g.nodes().begin(), g.nodes().end(), [](const ir::Node& n) {
    return n.op == ir::OpKind::Conv || n.op == ir::OpKind::ConvTranspose ||
           n.op == ir::OpKind::Gemm || n.op == ir::OpKind::MatMul;
  });
}

/// Quantizes \p g (calibrated on \p inputs, or on the default random inputs when empty), runs
/// it on oneDNN (twice: kept primitives and recycled outputs) and with the loops, and compares
/// every value. Returns false when the case does not quantize or run (an unsupported op or
/// input: the loops' error, which oneDNN must give too).
bool compareConformanceCase(const ir::Graph& g, const std::vector<Tensor>& inputs) {
  std::optional<QuantizedModel> m;
  std::vector<Tensor> in = inputs;
  try {
    m = inputs.empty() ? quantize(g, {}) : quantize(g, {inputs});
    if (in.empty())
      in = makeCalibrationInputs(g, 1, kDefaultEvaluationSeed).front();
  } catch (const Error&) {
    return false;
  }
  Int8Executor oneDnn(*m, Int8Accumulation::OneDnn), loops(*m, Int8Accumulation::Loops);
  try {
    loops.run(in);
  } catch (const Error&) {
    EXPECT_THROW(oneDnn.run(in), Error);
    return false;
  }
  oneDnn.run(in);
  oneDnn.run(in);
  EXPECT_EQ(oneDnn.values().size(), loops.values().size());
  for (size_t v = 0; v < loops.values().size() && v < oneDnn.values().size(); ++v)
    EXPECT_TRUE(oneDnn.values()[v].data == loops.values()[v].data) << "value " << v;
  return true;
}

/// The ONNX conformance cases (Debian's libonnx-testdata; the manifest's passing cases) with a
/// convolution or matrix product: as loaded (weights fed as inputs run as float islands or
/// tensor products) and with test_data_set_0's weights bound as constants (so they reach the
/// accumulators), every value of the int8 run identical on oneDNN and on the loops.
TEST(OneDnnConformance, Int8ExecutorMatchesTheLoops) {
  int compared = 0;
  conformance::forEachLoadedCase(accumulates, [&](const std::string& name, const ir::Graph& g) {
    SCOPED_TRACE(name);
    compared += compareConformanceCase(g, {}) ? 1 : 0;
  });
  const conformance::ArrayOps ops{.convTranspose = true};
  conformance::forEachBoundCase(
      ops, [&](const std::string& name, const ir::Graph& g, const std::vector<Tensor>& inputs) {
        SCOPED_TRACE(name + " (bound weights)");
        compared += compareConformanceCase(g, inputs) ? 1 : 0;
      });
  std::printf("%d conformance cases compared\n", compared);
  if (std::filesystem::exists(conformance::dataRoot())) {
    EXPECT_GE(compared, 50);
  }
}
#endif

class OneDnnZoo : public ::testing::TestWithParam<const char*> {};
TEST_P(OneDnnZoo, Int8ExecutorMatchesTheLoops) {
  expectZooModelIdentical(GetParam());
}
#ifdef NNACCEL_ONEDNN_ZOO_SLOW
INSTANTIATE_TEST_SUITE_P(Models, OneDnnZoo,
                         ::testing::Values("resnet50", "mobilenetv2", "resnet18", "vgg16"));
#else
INSTANTIATE_TEST_SUITE_P(Models, OneDnnZoo, ::testing::Values("lenet5", "dcgan"));
#endif

} // namespace
} // namespace nnaccel::quant
