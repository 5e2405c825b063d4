/// \file
/// Tests of empirical bias correction after calibration (quant/BiasCorrection.cpp, reached
/// through CalibrationOptions::biasCorrection): the per-channel mean error that clipping leaves
/// in a layer's int8 output shrinks, on the calibration sets and on others of the same
/// distribution; the correction is deterministic; a QDQ model keeps its own biases.
#include "../../support/QdqGraph.h"
#include "QuantTestUtil.h"
#include "nnaccel/quant/Int8Executor.h"
#include "nnaccel/reference/Executor.h"

#include <cmath>
#include <gtest/gtest.h>

namespace nnaccel::quant {
namespace {

using test::finish;
using test::GraphBuilder;
using test::randomTensor;

/// x[1,4,8,8] -> conv1 (4->8, 3x3, bias +2: a skewed output) -> conv2 (8->4, 1x1, weights in
/// [0, 1)). A percentile range clips conv1's upper tail more than its lower, so conv2 reads
/// values whose mean is too low: a per-channel bias a correction can remove.
ir::Graph skewedConvs(std::mt19937_64& rng) {
  GraphBuilder b;
  const ir::ValueId x = b.input("x", {1, 4, 8, 8});
  Tensor b1(DType::F32, {8});
  for (int64_t c = 0; c < 8; ++c)
    b1.data<float>()[c] = 2.0f;
  const ir::ValueId c1 =
      b.op(ir::OpKind::Conv, "conv1",
           {x, b.constant("w1", randomTensor({8, 4, 3, 3}, rng)), b.constant("b1", std::move(b1))},
           ir::test::attrs({{"pads", std::vector<int64_t>{1, 1, 1, 1}}}));
  const ir::ValueId c2 = b.op(ir::OpKind::Conv, "conv2",
                              {c1, b.constant("w2", randomTensor({4, 8, 1, 1}, rng, 0.0f, 1.0f))});
  return finish(b, {c2});
}

std::vector<std::vector<Tensor>> skewedInputSets(std::mt19937_64& rng, int count) {
  std::vector<std::vector<Tensor>> sets;
  for (int i = 0; i < count; ++i)
    sets.push_back({randomTensor({1, 4, 8, 8}, rng)});
  return sets;
}

/// Sum over output channels of |mean(int8 - fp32)| of the graph's output on \p sets.
double meanChannelError(const QuantizedModel& m, const std::vector<std::vector<Tensor>>& sets) {
  std::vector<double> sum(4, 0.0);
  int64_t perChannel = 0;
  for (const std::vector<Tensor>& set : sets) {
    const Tensor fp32 = reference::Executor(m.graph).run(set).front();
    const Tensor int8 = Int8Executor(m).run(set).dequantized.front();
    const int64_t inner = fp32.numElements() / 4;
    for (int64_t i = 0; i < fp32.numElements(); ++i)
      sum[static_cast<size_t>(i / inner)] += int8.data<float>()[i] - fp32.data<float>()[i];
    perChannel += inner;
  }
  double total = 0;
  for (double s : sum)
    total += std::fabs(s / static_cast<double>(perChannel));
  return total;
}

QuantizedModel quantized(const ir::Graph& g, const std::vector<std::vector<Tensor>>& calib,
                         bool biasCorrection) {
  CalibrationOptions o;
  o.method = CalibrationMethod::Percentile;
  o.percentile = 90.0;
  o.biasCorrection = biasCorrection;
  return quantize(g, calib, o);
}

TEST(BiasCorrection, RemovesTheMeanErrorThatClippingLeaves) {
  std::mt19937_64 rng(11);
  const ir::Graph g = skewedConvs(rng);
  const std::vector<std::vector<Tensor>> calib = skewedInputSets(rng, 4);
  const std::vector<std::vector<Tensor>> eval = skewedInputSets(rng, 4);
  const QuantizedModel plain = quantized(g, calib, false);
  const QuantizedModel corrected = quantized(g, calib, true);
  EXPECT_EQ(plain.correctedBiasChannels, 0);
  EXPECT_GT(corrected.correctedBiasChannels, 0);
  const double before = meanChannelError(plain, calib);
  ASSERT_GT(before, 0.05); // the skew is there to remove
  EXPECT_LT(meanChannelError(corrected, calib), 0.25 * before);
  EXPECT_LT(meanChannelError(corrected, eval), 0.5 * meanChannelError(plain, eval));
  // Only biases move: scales, weights and multipliers are the uncorrected model's.
  EXPECT_EQ(corrected.scales, plain.scales);
  for (size_t i = 0; i < plain.nodes.size(); ++i)
    EXPECT_EQ(corrected.nodes[i].weightScales, plain.nodes[i].weightScales);
}

TEST(BiasCorrection, IsDeterministic) {
  std::mt19937_64 rng(12);
  const ir::Graph g = skewedConvs(rng);
  const std::vector<std::vector<Tensor>> calib = skewedInputSets(rng, 3);
  const QuantizedModel a = quantized(g, calib, true);
  const QuantizedModel b = quantized(g, calib, true);
  for (size_t i = 0; i < a.nodes.size(); ++i)
    EXPECT_EQ(a.nodes[i].bias, b.nodes[i].bias);
}

TEST(BiasCorrection, LeavesAQdqModelsOwnBiasesAlone) {
  Rng rng(3);
  ir::Graph g;
  const ir::ValueId x = g.addValue("x", DType::F32, {1, 16});
  g.inputs = {x};
  const testing::qdq::Weights w = testing::qdq::weights(g, rng, "fc", {16, 5}, 1, 0.1f, false);
  const ir::ValueId xq = testing::qdq::wrap(g, x, "x", 0.1f);
  g.outputs = {testing::qdq::wrap(
      g, testing::qdq::node(g, ir::OpKind::MatMul, "fc", {xq, w.weights}), "fc", 0.2f)};
  driver::prepareGraph(g);
  CalibrationOptions o;
  o.biasCorrection = true;
  EXPECT_EQ(quantize(g, {}, o).correctedBiasChannels, 0);
}

} // namespace
} // namespace nnaccel::quant
