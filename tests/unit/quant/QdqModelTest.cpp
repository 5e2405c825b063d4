/// \file
/// Tests of QDQ models in int8 (quant/QdqModel.cpp and the quantizer's use of a model's own
/// scales): the Quantize/Dequantize pairs vanish into scales, the weights keep their int8 codes
/// (-128 included) and per-channel scales, the biases their int32 codes, and the int8 executor
/// lands within one output step of the model's fp32 (fake-quantized) semantics. What has no
/// symmetric int8 form is a one-line error naming the node.
#include "nnaccel/quant/QdqModel.h"

#include "../../support/ErrorOf.h"
#include "../../support/QdqGraph.h"
#include "QuantTestUtil.h"
#include "nnaccel/quant/Agreement.h"
#include "nnaccel/quant/Int8Executor.h"
#include "nnaccel/reference/Executor.h"

#include <cmath>
#include <gtest/gtest.h>

namespace nnaccel::quant {
namespace {

using test::nodeNamed;

TEST(QdqModel, WeightScalesFollowAConstantTransposeOfTheWeights) {
  // A MatMul whose per-channel int8 weights [N, K] (axis 0) reach it through a constant
  // Transpose, as converters of TensorFlow models write it. The fold carries the scales through
  // the permutation (axis 0 -> 1, B's output channels): the quantizer keeps the model's codes
  // and scales (before: it re-derived its own, silently).
  Rng rng(7);
  ir::Graph g;
  const ir::ValueId x = g.addValue("x", DType::F32, {1, 16});
  g.inputs = {x};
  const testing::qdq::Weights w = testing::qdq::weights(g, rng, "fc", {5, 16}, 0, 0.1f, false);
  ir::AttrMap perm;
  perm.set("perm", std::vector<int64_t>{1, 0});
  const ir::ValueId wt = testing::qdq::node(g, ir::OpKind::Transpose, "wt", {w.weights}, perm);
  const ir::ValueId xq = testing::qdq::wrap(g, x, "x", 0.1f);
  g.outputs = {
      testing::qdq::wrap(g, testing::qdq::node(g, ir::OpKind::MatMul, "fc", {xq, wt}), "fc", 0.2f)};
  driver::prepareGraph(g);
  const ir::NodeId fc = nodeNamed(g, "fc");
  const ir::Value& weights = g.value(g.node(fc).inputs[1]);
  ASSERT_TRUE(weights.dequantizedFrom.has_value());
  EXPECT_EQ(weights.dequantizedFrom->axis, 1);
  const QuantizedModel m = quantize(g, {});
  const QuantNode& q = m.node(nodeNamed(m.graph, "fc"));
  EXPECT_EQ(q.weightScales, w.scales);
  // The weight operand of the (canonicalized) layer is the model's codes in [K, N] or, for a
  // Gemm with transB, [N, K] as the model stored them: either way each code is the model's.
  const Dims& shape = q.weights.shape();
  ASSERT_EQ(q.weights.numElements(), 80);
  const bool nk = shape == Dims{5, 16};
  for (int64_t k = 0; k < 16; ++k)
    for (int64_t n = 0; n < 5; ++n)
      ASSERT_EQ(q.weights.data<int8_t>()[nk ? n * 16 + k : k * 5 + n],
                w.codes[static_cast<size_t>(n * 16 + k)])
          << k << "," << n << " in " << dimsToString(shape);
}

/// A MatMul x[1, 16] @ W whose per-axis int8 weights (\p shape, \p axis) reach it through a
/// constant Reshape to [16, N].
ir::Graph reshapedWeightsMatMul(Rng& rng, const Dims& shape, int64_t axis,
                                testing::qdq::Weights& w) {
  ir::Graph g;
  const ir::ValueId x = g.addValue("x", DType::F32, {1, 16});
  g.inputs = {x};
  w = testing::qdq::weights(g, rng, "fc", shape, axis, 0.1f, false);
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  n /= 16;
  const ir::ValueId target = g.addConstant("target", Tensor::fromVector<int64_t>({2}, {16, n}));
  const ir::ValueId wr =
      testing::qdq::node(g, ir::OpKind::Reshape, "w_reshape", {w.weights, target});
  const ir::ValueId xq = testing::qdq::wrap(g, x, "x", 0.1f);
  g.outputs = {
      testing::qdq::wrap(g, testing::qdq::node(g, ir::OpKind::MatMul, "fc", {xq, wr}), "fc", 0.2f)};
  return g;
}

TEST(QdqModel, WeightScalesFollowAReshapeThatKeepsTheirAxis) {
  // [16, 1, 5] per-axis on axis 2 reshaped to [16, 5]: the 5 output channels stay the last axis.
  Rng rng(11);
  testing::qdq::Weights w;
  ir::Graph g = reshapedWeightsMatMul(rng, {16, 1, 5}, 2, w);
  driver::prepareGraph(g);
  const ir::Value& weights = g.value(g.node(nodeNamed(g, "fc")).inputs[1]);
  ASSERT_TRUE(weights.dequantizedFrom.has_value());
  EXPECT_EQ(weights.dequantizedFrom->axis, 1);
  const QuantizedModel m = quantize(g, {});
  EXPECT_EQ(m.node(nodeNamed(m.graph, "fc")).weightScales, w.scales);
}

TEST(QdqModel, AReshapeThatSplitsTheQuantizationAxisIsRefusedNamingTheNode) {
  // [2, 40] per-axis on axis 0 reshaped to [16, 5]: no output axis holds the 2 channels, so the
  // model's codes cannot be kept. Before, the quantizer derived its own scales silently.
  Rng rng(12);
  testing::qdq::Weights w;
  ir::Graph g = reshapedWeightsMatMul(rng, {2, 40}, 0, w);
  const std::string e =
      nnaccel::test::errorOf([&] { driver::prepareGraph(g); }, ErrorKind::Unsupported);
  EXPECT_NE(e.find("w_reshape"), std::string::npos) << e;
  EXPECT_NE(e.find("splits or merges the quantization axis"), std::string::npos) << e;
}

TEST(QdqModel, PairsBecomeScalesAndWeightsKeepTheirCodes) {
  const ir::Graph g = testing::qdqGraph();
  const QuantizedModel m = quantize(g, {});
  for (size_t i = 0; i < m.graph.numNodes(); ++i) {
    const ir::OpKind op = m.graph.node(static_cast<ir::NodeId>(i)).op;
    EXPECT_NE(op, ir::OpKind::QuantizeLinear);
    EXPECT_NE(op, ir::OpKind::DequantizeLinear);
  }
  EXPECT_EQ(m.scale(m.graph.inputs[0]), 1.0f / 127.0f);
  const ir::NodeId c1 = nodeNamed(m.graph, "c1");
  const ir::NodeId relu = nodeNamed(m.graph, "r1");
  EXPECT_EQ(m.scale(m.graph.node(relu).outputs[0]), 0.04f);
  EXPECT_EQ(m.scale(m.graph.node(c1).outputs[0]), 0.04f); // taken back through the Relu
  EXPECT_EQ(m.scale(m.graph.outputs[0]), 0.2f);
  // The model's rounding (ONNX's: half to even) on every multiplier; nnaccel's own stays.
  EXPECT_EQ(m.rounding, Rounding::HalfEven);
  EXPECT_EQ(m.node(c1).multipliers.at(0).rounding, Rounding::HalfEven);
  EXPECT_EQ(m.node(nodeNamed(m.graph, "cat")).inputMultipliers.at(1).rounding, Rounding::HalfEven);
  test::GraphBuilder builder;
  const ir::Graph plain =
      test::finish(builder, {builder.op(ir::OpKind::Relu, "r", {builder.input("x", {1, 4})})});
  EXPECT_EQ(quantize(plain, {}).rounding, Rounding::HalfAway);
  for (const char* name : {"c1", "dw", "fc"}) {
    SCOPED_TRACE(name);
    const ir::NodeId id = nodeNamed(m.graph, name);
    const QuantNode& q = m.node(id);
    const ir::Value& w = m.graph.value(m.graph.node(id).inputs[1]);
    ASSERT_TRUE(w.dequantizedFrom.has_value());
    EXPECT_EQ(q.weightScales, w.dequantizedFrom->scales);
    // Codes: the folded f32 weights are code * scale exactly.
    bool lowest = false;
    const std::span<const float> f = w.constant->values<float>();
    for (int64_t e = 0; e < q.weights.numElements(); ++e)
      lowest = lowest || q.weights.data<int8_t>()[e] == -128;
    EXPECT_TRUE(lowest) << "the codes include -128 (QdqGraph.h puts one first)";
    if (std::string(name) != "fc") {
      const std::vector<float>& s = w.dequantizedFrom->scales;
      const int64_t perChannel = q.weights.numElements() / static_cast<int64_t>(s.size());
      for (int64_t e = 0; e < q.weights.numElements(); ++e)
        ASSERT_EQ(q.weights.data<int8_t>()[e],
                  static_cast<int8_t>(std::lround(f[static_cast<size_t>(e)] /
                                                  s[static_cast<size_t>(e / perChannel)])));
      const ir::Value& b = m.graph.value(m.graph.node(id).inputs[2]);
      ASSERT_TRUE(b.dequantizedFrom.has_value());
      for (size_t c = 0; c < q.bias.size(); ++c)
        EXPECT_EQ(q.bias[c],
                  std::lround(b.constant->data<float>()[c] / b.dequantizedFrom->scales[c]));
    }
  }
}

class QdqForms : public ::testing::TestWithParam<bool> {};

// A QDQ Concat's inputs move onto its scale through fp32 as the QDQ form defines it (ONNX
// Runtime's unfused graph does exactly this): each by its rescale table, which the int8
// executor applies; in the test graph every odd Relu code (0.04 -> 0.08) is a tie.
TEST_P(QdqForms, ConcatInputsMoveOntoTheOutputScaleThroughFp32) {
  const QuantizedModel m = quantize(testing::qdqGraph(GetParam()), {});
  const ir::NodeId cat = nodeNamed(m.graph, "cat");
  const ir::Node& n = m.graph.node(cat);
  const ir::ValueId out = n.outputs[0];
  ASSERT_EQ(m.node(cat).inputTables.size(), 2u);
  Int8Executor exec(m);
  exec.run(randomInputs(m.graph, 5));
  const QuantTensor y = exec.value(out);
  int64_t at = 0;
  for (size_t i = 0; i < 2; ++i) {
    const ir::ValueId in = n.inputs[i];
    const std::vector<int8_t> table =
        rescaleTable(m.scale(in), m.zeroPoint(in), m.scale(out), m.zeroPoint(out));
    ASSERT_NE(m.node(cat).inputTable(i), nullptr);
    EXPECT_EQ(*m.node(cat).inputTable(i), table);
    const QuantTensor x = exec.value(in);
    for (int64_t e = 0; e < x.data.numElements(); ++e, ++at) // batch 1: slices follow each other
      ASSERT_EQ(y.data.data<int8_t>()[at],
                table[static_cast<size_t>(x.data.data<int8_t>()[e] + 128)])
          << "input " << i << " element " << e;
  }
  // nnaccel's own quantization keeps its multiplier rule: no tables.
  test::GraphBuilder b;
  const ir::ValueId x = b.input("x", {1, 2, 4});
  const ir::Graph plain =
      test::finish(b, {b.op(ir::OpKind::Concat, "c", {b.op(ir::OpKind::Relu, "r", {x}), x},
                            test::attrs({{"axis", int64_t{1}}}))});
  EXPECT_TRUE(quantize(plain, {}).node(nodeNamed(plain, "c")).inputTables.empty());
}

TEST_P(QdqForms, Int8LandsWithinOneOutputStepOfTheModelsOwnSemantics) {
  const ir::Graph g = testing::qdqGraph(GetParam());
  const QuantizedModel m = quantize(g, {});
  EXPECT_EQ(m.firstAsymmetricValue() != ir::kNoValue, GetParam());
  const std::vector<Tensor> in = randomInputs(g, 3);
  const Tensor fp = reference::Executor(g).run(in)[0]; // the QDQ graph: fake quantization
  const Tensor q = Int8Executor(m).run(in).dequantized[0];
  ASSERT_EQ(fp.shape(), q.shape());
  int64_t exact = 0;
  for (int64_t i = 0; i < fp.numElements(); ++i) {
    const float d = std::fabs(fp.data<float>()[i] - q.data<float>()[i]);
    EXPECT_LE(d, 0.2f * 1.0001f) << "element " << i;
    exact += d == 0.0f ? 1 : 0;
  }
  // The requantization rule differs from the fp32 fake-quantized graph's (fixed-point
  // multiplier, docs/Quantization.md): most elements agree exactly, none by more than a step.
  EXPECT_GT(exact, fp.numElements() * 3 / 4);
}

INSTANTIATE_TEST_SUITE_P(SymmetricAndAsymmetric, QdqForms, ::testing::Bool());

/// x -> Q/DQ with the given zero point -> Relu.
ir::Graph asymmetricGraph(int zero, bool uint8) {
  ir::Graph g;
  g.name = "asym";
  const ir::ValueId x = g.addValue("x", DType::F32, {1, 2});
  g.inputs = {x};
  const ir::ValueId s = g.addConstant("s", Tensor::scalar(0.1f));
  const ir::ValueId z = uint8 ? g.addConstant("z", Tensor::scalar(static_cast<uint8_t>(zero)))
                              : g.addConstant("z", Tensor::scalar(static_cast<int8_t>(zero)));
  const ir::ValueId q = testing::qdq::node(g, ir::OpKind::QuantizeLinear, "q", {x, s, z}, {},
                                           uint8 ? DType::U8 : DType::I8);
  g.outputs = {
      testing::qdq::node(g, ir::OpKind::Relu, "r",
                         {testing::qdq::node(g, ir::OpKind::DequantizeLinear, "dq", {q, s, z})})};
  driver::prepareGraph(g);
  return g;
}

/// x -> QuantizeLinear -> \p between (an op on the int8 codes) -> DequantizeLinear -> Relu: a
/// QOperator model's Reshape between two QLinear nodes.
ir::Graph codesBetween(ir::OpKind between) {
  ir::Graph g;
  g.name = "codes";
  const ir::ValueId x = g.addValue("x", DType::F32, {1, 2, 3});
  g.inputs = {x};
  const ir::ValueId s = g.addConstant("s", Tensor::scalar(0.1f));
  const ir::ValueId z = g.addConstant("z", Tensor::scalar(int8_t{0}));
  const ir::ValueId q =
      testing::qdq::node(g, ir::OpKind::QuantizeLinear, "q", {x, s, z}, {}, DType::I8);
  std::vector<ir::ValueId> ins{q};
  if (between == ir::OpKind::Reshape)
    ins.push_back(g.addConstant("shape", Tensor::fromVector<int64_t>({2}, {1, 6})));
  const ir::ValueId moved = testing::qdq::node(g, between, "mid", ins, {}, DType::I8);
  g.outputs = {testing::qdq::node(
      g, ir::OpKind::Relu, "r",
      {testing::qdq::node(g, ir::OpKind::DequantizeLinear, "dq", {moved, s, z})})};
  driver::prepareGraph(g);
  return g;
}

TEST(QdqModel, CodesMovedBetweenAPairRunOnTheFloatSide) {
  ir::Graph g = codesBetween(ir::OpKind::Reshape);
  const std::map<ir::ValueId, ActivationQuant> scales = absorbQdqPairs(g);
  EXPECT_EQ(scales.size(), 1u);
  ASSERT_EQ(g.numNodes(), 2u); // Reshape of x, Relu
  EXPECT_EQ(g.node(0).op, ir::OpKind::Reshape);
  EXPECT_EQ(g.value(g.node(0).outputs[0]).dtype, DType::F32);
  EXPECT_EQ(g.node(0).inputs[0], g.inputs[0]);
  ir::Graph bad = codesBetween(ir::OpKind::Relu);
  EXPECT_EQ(nnaccel::test::errorOf([&] { absorbQdqPairs(bad); }, ErrorKind::Unsupported),
            "node 'mid' (Relu, opset 13): it reads the integer output of QuantizeLinear 'q' but "
            "is not a DequantizeLinear with the same scale and zero point (nor a Reshape, "
            "Transpose, ... on the way to one)");
}

/// Input x of \p xType -> one \p op (scale 0.1, int8 zero point 0) of output type \p outType
/// named \p name -> the graph's output, prepared like a loaded model.
ir::Graph oneQdqNode(ir::OpKind op, const std::string& name, DType xType, DType outType) {
  ir::Graph g;
  g.name = name;
  const ir::ValueId x = g.addValue("x", xType, {1, 2});
  g.inputs = {x};
  g.outputs = {testing::qdq::node(
      g, op, name,
      {x, g.addConstant("s", Tensor::scalar(0.1f)), g.addConstant("z", Tensor::scalar(int8_t{0}))},
      {}, outType)};
  driver::prepareGraph(g);
  return g;
}

TEST(QdqModel, IntegerValuesThatNoPairWrapsAreRefused) {
  using testing::qdq::node;
  { // a QuantizeLinear whose codes leave the graph
    ir::Graph g = oneQdqNode(ir::OpKind::QuantizeLinear, "q", DType::F32, DType::I8);
    EXPECT_EQ(nnaccel::test::errorOf([&] { absorbQdqPairs(g); }, ErrorKind::Unsupported),
              "node 'q' (QuantizeLinear, opset 13): its integer output leaves the graph; nnaccel "
              "runs QDQ models whose QuantizeLinear outputs are dequantized again");
  }
  { // a DequantizeLinear of an int8 graph input
    ir::Graph g = oneQdqNode(ir::OpKind::DequantizeLinear, "dq", DType::I8, DType::F32);
    EXPECT_EQ(nnaccel::test::errorOf([&] { absorbQdqPairs(g); }, ErrorKind::Unsupported),
              "node 'dq' (DequantizeLinear, opset 13): a DequantizeLinear of a computed integer "
              "tensor that no QuantizeLinear of this graph produced (an integer graph input) has "
              "no int8 form here");
  }
  { // one value quantized at two scales
    ir::Graph g;
    g.name = "two";
    const ir::ValueId x = g.addValue("x", DType::F32, {1, 2});
    g.inputs = {x};
    const ir::ValueId z = g.addConstant("z", Tensor::scalar(int8_t{0}));
    std::vector<ir::ValueId> outs;
    for (float scale : {0.1f, 0.2f}) {
      const std::string n = scale == 0.1f ? "a" : "b";
      const ir::ValueId s = g.addConstant("s" + n, Tensor::scalar(scale));
      const ir::ValueId q = node(g, ir::OpKind::QuantizeLinear, "q" + n, {x, s, z}, {}, DType::I8);
      outs.push_back(node(g, ir::OpKind::DequantizeLinear, "dq" + n, {q, s, z}));
    }
    g.outputs = outs;
    driver::prepareGraph(g);
    EXPECT_EQ(nnaccel::test::errorOf([&] { absorbQdqPairs(g); }, ErrorKind::Unsupported),
              "node 'qb' (QuantizeLinear, opset 13): value 'x' is quantized twice (scale 0.1 zero "
              "point 0, and scale 0.2 zero point 0)");
  }
  { // a per-axis activation scale
    ir::Graph g;
    g.name = "axis";
    const ir::ValueId x = g.addValue("x", DType::F32, {1, 2});
    g.inputs = {x};
    const ir::ValueId s = g.addConstant("s", Tensor::fromVector<float>({2}, {0.1f, 0.2f}));
    const ir::ValueId z = g.addConstant("z", Tensor::fromVector<int8_t>({2}, {0, 0}));
    const ir::ValueId q = node(g, ir::OpKind::QuantizeLinear, "q", {x, s, z}, {}, DType::I8);
    g.outputs = {node(g, ir::OpKind::DequantizeLinear, "dq", {q, s, z})};
    driver::prepareGraph(g);
    EXPECT_EQ(nnaccel::test::errorOf([&] { absorbQdqPairs(g); }, ErrorKind::Unsupported),
              "node 'q' (QuantizeLinear, opset 13): a per-axis activation scale (nnaccel holds "
              "one scale per activation tensor)");
  }
}

/// x -> Q/DQ -> Conv 1x1 (weights behind a DequantizeLinear with zero point \p weightZero) ->
/// Relu -> Q/DQ at \p reluScale, with the Conv output also wrapped at \p convScale when > 0.
ir::Graph weightGraph(int weightZero, float convScale, float reluScale) {
  using testing::qdq::node;
  using testing::qdq::wrap;
  ir::Graph g;
  g.name = "w";
  const ir::ValueId x = g.addValue("x", DType::F32, {1, 2, 2, 2});
  g.inputs = {x};
  const ir::ValueId w =
      node(g, ir::OpKind::DequantizeLinear, "wdq",
           {g.addConstant("w", Tensor::fromVector<int8_t>({2, 2, 1, 1}, {1, 2, 3, 4})),
            g.addConstant("ws", Tensor::scalar(0.01f)),
            g.addConstant("wz", Tensor::scalar(static_cast<int8_t>(weightZero)))});
  ir::ValueId c = node(g, ir::OpKind::Conv, "conv", {wrap(g, x, "x", 0.01f), w});
  if (convScale > 0)
    c = wrap(g, c, "c", convScale);
  g.outputs = {wrap(g, node(g, ir::OpKind::Relu, "relu", {c}), "r", reluScale)};
  driver::prepareGraph(g);
  return g;
}

TEST(QdqModel, WeightsAndScalesTheInt8LayersCannotHoldAreRefused) {
  EXPECT_NO_THROW(quantize(weightGraph(0, 0.0f, 0.05f), {}));
  EXPECT_EQ(nnaccel::test::errorOf([&] { quantize(weightGraph(1, 0.0f, 0.05f), {}); },
                                   ErrorKind::Unsupported),
            "node 'conv' (Conv, opset 13): its weights are s8 with a zero point; nnaccel's "
            "weights are symmetric int8");
  // The Relu keeps its input's int8 codes: one scale on both sides.
  EXPECT_EQ(nnaccel::test::errorOf([&] { quantize(weightGraph(0, 0.04f, 0.05f), {}); },
                                   ErrorKind::Unsupported),
            "node 'relu' (Relu, opset 13): the model quantizes its input at scale 0.04 (zero "
            "point 0) and its output at 0.05 (zero point 0), but Relu keeps its input's int8 "
            "codes (one quantization on both sides)");
}

TEST(QdqModel, WeightScalesAlongAnotherAxisThanTheOutputChannelsAreRefused) {
  using testing::qdq::node;
  using testing::qdq::wrap;
  ir::Graph g;
  g.name = "rows";
  const ir::ValueId x = g.addValue("x", DType::F32, {1, 2});
  g.inputs = {x};
  ir::AttrMap rows;
  rows.set("axis", int64_t{0}); // B [K, N] scaled per row: per input channel (the pipeline
                                // turns the 2-D MatMul into a Gemm)
  const ir::ValueId w =
      node(g, ir::OpKind::DequantizeLinear, "wdq",
           {g.addConstant("w", Tensor::fromVector<int8_t>({2, 3}, {1, 2, 3, 4, 5, 6})),
            g.addConstant("ws", Tensor::fromVector<float>({2}, {0.01f, 0.02f})),
            g.addConstant("wz", Tensor::fromVector<int8_t>({2}, {0, 0}))},
           rows);
  g.outputs = {wrap(g, node(g, ir::OpKind::MatMul, "mm", {wrap(g, x, "x", 0.01f), w}), "y", 0.1f)};
  driver::prepareGraph(g);
  EXPECT_EQ(nnaccel::test::errorOf([&] { quantize(g, {}); }, ErrorKind::Unsupported),
            "node 'mm' (Gemm, opset 13): its weights are quantized per index along axis 0, not "
            "per output channel");
}

TEST(QdqModel, ZeroPointsAreKeptAsInt8Codes) {
  // uint8 codes u are held as the int8 codes u - 128: zero point z becomes z - 128.
  for (auto [zero, uint8, expected] :
       {std::tuple{0, true, -128}, std::tuple{128, true, 0}, std::tuple{200, true, 72},
        std::tuple{3, false, 3}, std::tuple{-20, false, -20}}) {
    ir::Graph g = asymmetricGraph(zero, uint8);
    const std::map<ir::ValueId, ActivationQuant> scales = absorbQdqPairs(g);
    ASSERT_EQ(scales.size(), 1u);
    EXPECT_EQ(scales.begin()->second, (ActivationQuant{0.1f, expected})) << zero;
  }
}

TEST(QdqModel, AZeroPointIsReproducedByTheInt8Executor) {
  // x -> Q(0.1, uint8 zero point 0) -> DQ -> Relu: the input's codes are u - 128, and the Relu
  // clamps at the code of real 0 (-128).
  const QuantizedModel m = quantize(asymmetricGraph(0, true), {});
  EXPECT_EQ(m.zeroPoint(m.graph.inputs[0]), -128);
  Int8Executor exec(m);
  const Tensor x = Tensor::fromVector<float>({1, 2}, {-0.3f, 1.26f});
  const Int8Result r = exec.run({x});
  EXPECT_EQ(r.outputs[0].zeroPoint, -128);
  EXPECT_EQ(r.outputs[0].data.values<int8_t>()[0], -128);     // max(0, -0.3) = 0
  EXPECT_EQ(r.outputs[0].data.values<int8_t>()[1], 13 - 128); // round(12.6) = 13
  EXPECT_FLOAT_EQ(r.dequantized[0].values<float>()[1], 1.3f);
}

} // namespace
} // namespace nnaccel::quant
