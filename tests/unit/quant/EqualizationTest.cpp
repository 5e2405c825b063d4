/// \file
/// Tests of channel equalization before calibration (quant/Equalization.cpp, reached through
/// CalibrationOptions::equalize): the rescaled fp32 graph computes the same function, the value
/// between the convolutions loses its channel spread, int8 agrees better with fp32 on a layer
/// whose channels differ by 1000x, and what cannot be rescaled (shared weights, a graph output
/// between, a non-convolution reader, a QDQ model) is left alone.
#include "QuantTestUtil.h"
#include "nnaccel/quant/Agreement.h"
#include "nnaccel/quant/Int8Executor.h"
#include "nnaccel/reference/Executor.h"

#include <cmath>
#include <cstdio>
#include <gtest/gtest.h>

namespace nnaccel::quant {
namespace {

using test::finish;
using test::GraphBuilder;
using test::randomTensor;

/// x[1,3,8,8] -> conv1 (3->8, 3x3, bias) -> Relu -> conv2 (8->4, 1x1), where conv1's channel 0
/// is scaled up by \p wide (its Relu output is that much wider than the others) and conv2's
/// weights of that channel down by as much.
ir::Graph convReluConv(std::mt19937_64& rng, float wide) {
  GraphBuilder b;
  const ir::ValueId x = b.input("x", {1, 3, 8, 8});
  Tensor w1 = randomTensor({8, 3, 3, 3}, rng);
  for (int64_t i = 0; i < 27; ++i)
    w1.data<float>()[i] *= wide;
  Tensor b1 = randomTensor({8}, rng, 0.0f, 0.5f);
  b1.data<float>()[0] *= wide;
  const ir::ValueId c1 = b.op(ir::OpKind::Conv, "conv1",
                              {x, b.constant("w1", std::move(w1)), b.constant("b1", std::move(b1))},
                              ir::test::attrs({{"pads", std::vector<int64_t>{1, 1, 1, 1}}}));
  const ir::ValueId r = b.op(ir::OpKind::Relu, "relu", {c1});
  // conv2 weighs the wide channel down by as much, as trained networks do: every channel
  // contributes to the output alike, and the narrow ones are what per-tensor int8 loses.
  Tensor w2 = randomTensor({4, 8, 1, 1}, rng);
  for (int64_t m = 0; m < 4; ++m)
    w2.data<float>()[m * 8] /= wide;
  const ir::ValueId c2 = b.op(ir::OpKind::Conv, "conv2", {r, b.constant("w2", std::move(w2))});
  return finish(b, {c2});
}

std::vector<std::vector<Tensor>> inputSets(std::mt19937_64& rng, int count) {
  std::vector<std::vector<Tensor>> sets;
  for (int i = 0; i < count; ++i)
    sets.push_back({randomTensor({1, 3, 8, 8}, rng)});
  return sets;
}

double int8Cosine(const ir::Graph& g, const std::vector<std::vector<Tensor>>& calib,
                  const std::vector<Tensor>& eval, bool equalize) {
  CalibrationOptions o;
  o.equalize = equalize;
  const QuantizedModel m = quantize(g, calib, o);
  EXPECT_EQ(m.equalizedGroups, equalize ? 1 : 0);
  const Tensor fp32 = reference::Executor(g).run(eval).front();
  const Tensor int8 = Int8Executor(m).run(eval).dequantized.front();
  return measureAgreement(fp32, int8).cosineSimilarity;
}

QuantizedModel equalized(const ir::Graph& g, const std::vector<std::vector<Tensor>>& calib) {
  CalibrationOptions o;
  o.equalize = true;
  return quantize(g, calib, o);
}

/// The rescaled fp32 graph computes what \p g computes on \p eval, up to float rounding.
void expectSameFunction(const ir::Graph& g, const ir::Graph& rescaled,
                        const std::vector<Tensor>& eval) {
  const std::vector<Tensor> before = reference::Executor(g).run(eval);
  const std::vector<Tensor> after = reference::Executor(rescaled).run(eval);
  ASSERT_EQ(before.size(), after.size());
  for (size_t i = 0; i < before.size(); ++i)
    EXPECT_LT(measureAgreement(before[i], after[i]).relativeError, 1e-5) << "output " << i;
}

TEST(Equalization, KeepsTheFunctionAndBalancesTheChannelsBetweenTheConvolutions) {
  std::mt19937_64 rng(3);
  const ir::Graph g = convReluConv(rng, 1000.0f);
  const QuantizedModel m = equalized(g, inputSets(rng, 4));
  ASSERT_EQ(m.equalizedGroups, 1);
  const std::vector<Tensor> eval = inputSets(rng, 1).front();
  expectSameFunction(g, m.graph, eval);
  // The Relu output's channels: 1000x apart before, within a small factor after.
  const auto spread = [&](const ir::Graph& graph) {
    reference::Executor e(graph);
    e.run(eval);
    const Tensor& r =
        e.values()[static_cast<size_t>(graph.node(test::nodeNamed(graph, "relu")).outputs[0])];
    float lo = INFINITY, hi = 0;
    for (int64_t c = 0; c < 8; ++c) {
      float widest = 0;
      for (int64_t i = 0; i < 64; ++i)
        widest = std::max(widest, std::fabs(r.data<float>()[c * 64 + i]));
      lo = widest > 0 ? std::min(lo, widest) : lo;
      hi = std::max(hi, widest);
    }
    return hi / lo;
  };
  EXPECT_GT(spread(g), 300.0f);
  EXPECT_LT(spread(m.graph), 30.0f);
}

TEST(Equalization, BringsInt8CloserToFp32WhenOneChannelIsFarWider) {
  std::mt19937_64 rng(5);
  const ir::Graph g = convReluConv(rng, 1000.0f);
  const std::vector<std::vector<Tensor>> calib = inputSets(rng, 4);
  const std::vector<Tensor> eval = inputSets(rng, 1).front();
  const double plain = int8Cosine(g, calib, eval, false);
  const double equalized = int8Cosine(g, calib, eval, true);
  std::printf("int8 vs fp32 cosine: %.6f per tensor, %.6f equalized\n", plain, equalized);
  EXPECT_LT(plain, 0.99);
  EXPECT_GT(equalized, 0.995);
}

/// [m, c, 1, 1] weights whose output channel 0 is \p f times wider than the others (f > 1), or
/// whose input channel 0 is weighted down by 1/f (f < 1): a pair equalization would rescale.
Tensor skewed(std::mt19937_64& rng, int64_t m, int64_t c, float f) {
  Tensor w = randomTensor({m, c, 1, 1}, rng);
  for (int64_t i = 0; i < m * c; ++i)
    if ((f > 1 && i < c) || (f < 1 && i % c == 0))
      w.data<float>()[i] *= f;
  return w;
}

TEST(Equalization, LeavesAloneWhatCannotBeRescaled) {
  // Every graph holds a conv1 -> conv2 pair 1000x out of balance, which equalization rescales
  // when nothing stops it (the first case); each other case adds one obstacle.
  std::mt19937_64 rng(7);
  const std::vector<std::vector<Tensor>> calib = inputSets(rng, 2);
  struct Pair {
    GraphBuilder b;
    ir::ValueId x, c1, w2;
  };
  const auto pair = [&](Pair& p, ir::ValueId between = ir::kNoValue) {
    p.x = p.b.input("x", {1, 3, 8, 8});
    p.c1 = p.b.op(ir::OpKind::Conv, "conv1", {p.x, p.b.constant("w1", skewed(rng, 3, 3, 1000))});
    p.w2 = p.b.constant("w2", skewed(rng, 3, 3, 1e-3f));
    return p.b.op(ir::OpKind::Conv, "conv2", {between == ir::kNoValue ? p.c1 : between, p.w2});
  };
  const auto groups = [&](Pair& p, const std::vector<ir::ValueId>& outputs) {
    return equalized(finish(p.b, outputs), calib).equalizedGroups;
  };
  {
    Pair p; // the control: nothing in the way
    const ir::ValueId c2 = pair(p);
    EXPECT_EQ(groups(p, {c2}), 1);
  }
  {
    Pair p; // conv1's output is also a graph output: its channels are what the user reads
    const ir::ValueId c2 = pair(p);
    EXPECT_EQ(groups(p, {p.c1, c2}), 0);
  }
  {
    Pair p; // an Add reads conv1's output besides conv2: it would see rescaled channels
    const ir::ValueId c2 = pair(p);
    EXPECT_EQ(groups(p, {p.b.op(ir::OpKind::Add, "add", {p.c1, c2})}), 0);
  }
  {
    Pair p; // conv3 shares conv2's weights: rescaling them for conv2 would change conv3
    const ir::ValueId c2 = pair(p);
    const ir::ValueId c3 = p.b.op(ir::OpKind::Conv, "conv3", {p.x, p.w2});
    EXPECT_EQ(groups(p, {p.b.op(ir::OpKind::Add, "add", {c2, c3})}), 0);
  }
  {
    // A Clip (Relu6) between does not commute with a per-channel scale.
    GraphBuilder b;
    const ir::ValueId x = b.input("x0", {1, 3, 8, 8});
    const ir::ValueId c0 =
        b.op(ir::OpKind::Conv, "conv0", {x, b.constant("w0", skewed(rng, 3, 3, 1000))});
    const ir::ValueId r6 = b.op(ir::OpKind::Clip, "relu6",
                                {c0, b.floats("lo", {}, {0.0f}), b.floats("hi", {}, {6.0f})});
    const ir::ValueId out =
        b.op(ir::OpKind::Conv, "conv_after", {r6, b.constant("wa", skewed(rng, 3, 3, 1e-3f))});
    EXPECT_EQ(equalized(finish(b, {out}), calib).equalizedGroups, 0);
  }
}

TEST(Equalization, RescalesDepthwiseAndGroupedConsumersPerInputChannel) {
  // conv1 (3->8) -> depthwise 3x3 (group 8) and a grouped 1x1 (group 2): both consumers take
  // each input channel's scale on the weights that read it; the function is unchanged.
  std::mt19937_64 rng(9);
  GraphBuilder b;
  const ir::ValueId x = b.input("x", {1, 3, 8, 8});
  Tensor w1 = randomTensor({8, 3, 1, 1}, rng);
  for (int64_t i = 3; i < 6; ++i)
    w1.data<float>()[i] *= 200.0f; // channel 1 is wide
  const ir::ValueId c1 = b.op(ir::OpKind::Conv, "conv1", {x, b.constant("w1", std::move(w1))});
  const ir::ValueId dw =
      b.op(ir::OpKind::Conv, "dw", {c1, b.constant("wd", randomTensor({8, 1, 3, 3}, rng))},
           ir::test::attrs({{"group", int64_t{8}}, {"pads", std::vector<int64_t>{1, 1, 1, 1}}}));
  const ir::ValueId gc =
      b.op(ir::OpKind::Conv, "grouped", {c1, b.constant("wg", randomTensor({4, 4, 1, 1}, rng))},
           ir::test::attrs({{"group", int64_t{2}}}));
  const ir::Graph g = finish(b, {dw, gc});
  const QuantizedModel m = equalized(g, inputSets(rng, 3));
  EXPECT_EQ(m.equalizedGroups, 1);
  expectSameFunction(g, m.graph, inputSets(rng, 1).front());
}

} // namespace
} // namespace nnaccel::quant
