/// \file
/// Tests of ONNX Runtime's dynamically quantized layers in int8 (quant/DynamicQuantization.cpp):
/// DynamicQuantizeLinear -> ConvInteger -> Cast -> Mul by (input scale * weight scale) becomes a
/// Conv with the model's own int8 weights and scale, whose int8 run agrees with the fp32
/// reference of the dynamic graph; a layer outside the pattern is left as written.
#include "QuantTestUtil.h"
#include "nnaccel/quant/Agreement.h"
#include "nnaccel/quant/Int8Executor.h"
#include "nnaccel/reference/Executor.h"

#include <gtest/gtest.h>

namespace nnaccel::quant {
namespace {

using test::finish;
using test::GraphBuilder;
using test::randomTensor;

/// x [1,4,6,6] -> DynamicQuantizeLinear -> ConvInteger (8x4x3x3 int8 weights, pad 1; with a
/// weight zero point \p weightZero when it is not 0) -> Cast -> Mul by (x_scale *
/// \p weightScale), or by x_scale alone when \p scaled is false.
ir::Graph dynamicConv(std::mt19937_64& rng, float weightScale, bool scaled = true,
                      int8_t weightZero = 0) {
  GraphBuilder b;
  const ir::ValueId x = b.input("x", {1, 4, 6, 6});
  const ir::NodeId d = b.node(ir::OpKind::DynamicQuantizeLinear, "dq", {x}, {"q", "s", "z"});
  const ir::Node dq = b.g.node(d);
  Tensor w(DType::I8, {8, 4, 3, 3});
  std::uniform_int_distribution<int> code(-127, 127);
  for (int64_t i = 0; i < w.numElements(); ++i)
    w.data<int8_t>()[i] = static_cast<int8_t>(code(rng));
  std::vector<ir::ValueId> operands{dq.outputs[0], b.constant("w", std::move(w)), dq.outputs[2]};
  if (weightZero != 0)
    operands.push_back(b.constant("wz", Tensor::scalar<int8_t>(weightZero)));
  const ir::ValueId c = b.op(ir::OpKind::ConvInteger, "conv", operands,
                             ir::test::attrs({{"pads", std::vector<int64_t>{1, 1, 1, 1}}}));
  const ir::ValueId f = b.op(ir::OpKind::Cast, "cast", {c}, ir::test::attrs({{"to", int64_t{1}}}));
  const ir::ValueId scale =
      scaled ? b.op(ir::OpKind::Mul, "scale",
                    {dq.outputs[1], b.constant("ws", Tensor::scalar<float>(weightScale))})
             : dq.outputs[1];
  return finish(b, {b.op(ir::OpKind::Mul, "y", {f, scale})});
}

TEST(DynamicQuantization, ALayerBecomesAStaticConvWithTheModelsWeights) {
  std::mt19937_64 rng(3);
  const ir::Graph g = dynamicConv(rng, 0.01f);
  std::vector<std::vector<Tensor>> calib;
  for (int i = 0; i < 3; ++i)
    calib.push_back({randomTensor({1, 4, 6, 6}, rng)});
  const QuantizedModel m = quantize(g, calib);
  EXPECT_EQ(m.staticizedLayers, 1);
  const ir::NodeId conv = test::nodeNamed(m.graph, "conv/static");
  ASSERT_EQ(m.graph.node(conv).op, ir::OpKind::Conv);
  const ir::Value& w = m.graph.value(m.graph.node(conv).inputs[1]);
  ASSERT_TRUE(w.dequantizedFrom.has_value());
  EXPECT_EQ(w.dequantizedFrom->scales, std::vector<float>{0.01f});
  EXPECT_EQ(m.node(conv).weightScales, std::vector<float>(8, 0.01f)); // the model's, kept
  for (const ir::Node& n : m.graph.nodes())
    EXPECT_NE(n.op, ir::OpKind::DynamicQuantizeLinear) << n.name;
  // The int8 run (a calibrated static input scale) against the dynamic graph's fp32 reference.
  const std::vector<Tensor> eval{randomTensor({1, 4, 6, 6}, rng)};
  const Tensor fp32 = reference::Executor(g).run(eval).front();
  const Tensor int8 = Int8Executor(m).run(eval).dequantized.front();
  EXPECT_GT(measureAgreement(fp32, int8).cosineSimilarity, 0.999);
}

TEST(DynamicQuantization, ALayerOutsideThePatternIsLeftAsWritten) {
  // Rescaled by the input scale alone (no constant weight scale beside it): not the pattern.
  // Weights with a zero point, which the int8 layers cannot hold: left as written too, so the
  // model still runs (its layer as float islands) instead of being refused.
  for (const bool scaled : {false, true}) {
    std::mt19937_64 rng(4);
    const QuantizedModel m = quantize(dynamicConv(rng, 0.01f, scaled, scaled ? 5 : 0), {});
    EXPECT_EQ(m.staticizedLayers, 0) << scaled;
    EXPECT_EQ(m.node(test::nodeNamed(m.graph, "conv")).kind, QuantOpKind::FloatIsland);
  }
}

} // namespace
} // namespace nnaccel::quant
