/// \file
/// The oneDNN accumulators of the int8 executor (quant/OneDnnAccumulate.cpp) against the integer
/// loops they replace (the oracle, AccumulateKernels.cpp), bit for bit: seeded random Conv and
/// ConvTranspose layers (1-3 spatial axes, strides, asymmetric pads, dilations, groups including
/// depthwise, zero points, narrow and full-range inputs; ConvTranspose checks the fallback),
/// reductions long enough to need the nibble split, random Gemm layers (transposed A), and
/// whole zoo models run by Int8Executor both ways.
#include "nnaccel/passes/Pipeline.h"
#include "nnaccel/quant/Agreement.h"
#include "nnaccel/quant/Int8Executor.h"
#include "nnaccel/quant/Kernels.h"
#include "nnaccel/zoo/Zoo.h"

#include <gtest/gtest.h>
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

TEST(OneDnnAccumulate, RandomGemmsMatchTheLoops) {
  std::mt19937 rng(99);
  for (int trial = 0; trial < 40; ++trial) {
    auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    const int64_t m = pick(1, 9), k = pick(1, 300), n = pick(1, 40);
    const bool transA = trial % 2 == 1;
    const InputRange r = kRanges[trial % 3];
    const Tensor a = randomS8(rng, transA ? Dims{k, m} : Dims{m, k}, r.lo, r.hi);
    const Tensor w = randomS8(rng, {n, k}, -128, 127);
    const std::vector<int32_t> bias = randomBias(rng, n);
    const int32_t zIn = trial % 3 == 0 ? 0 : pick(-128, 127);
    reference::Int8ConvCache cache;
    SCOPED_TRACE("trial " + std::to_string(trial));
    expectSameBits(matmulAccumulateOneDnn(a, transA, w, bias, zIn, cache),
                   matmulAccumulate(a, transA, w, bias, zIn));
  }
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
