// Tests of calibration and quantization (quant/Quantizer.cpp): seeded calibration inputs,
// determinism, degenerate scales (all-zero channels and tensors), node classification and
// island reasons, folded nodes, and every error path's message.
#include "QuantTestUtil.h"
#include "nnaccel/quant/Agreement.h"
#include "nnaccel/quant/Int8Executor.h"
#include "nnaccel/reference/Executor.h"
#include "nnaccel/support/Rng.h"

#include <cmath>
#include <gtest/gtest.h>

namespace nnaccel::quant {
namespace {

using namespace nnaccel::quant::test;
using ir::OpKind;

ir::Graph convReluGraph(uint64_t seed) {
  std::mt19937_64 rng(seed);
  GraphBuilder b;
  const auto x = b.input("x", {1, 3, 8, 8});
  const auto c = b.op(OpKind::Conv, "conv",
                      {x, b.constant("w", randomTensor({5, 3, 3, 3}, rng)),
                       b.constant("b", randomTensor({5}, rng))},
                      attrs({{"pads", Dims{1, 1, 1, 1}}}));
  const auto r = b.op(OpKind::Relu, "relu", {c});
  const auto p = b.op(OpKind::GlobalAveragePool, "gap", {r});
  return finish(b, {p});
}

TEST(Calibration, InputsAreSeededUniformInMinusOneOne) {
  const ir::Graph g = convReluGraph(1);
  const auto a = makeCalibrationInputs(g, 3, 99);
  const auto b = makeCalibrationInputs(g, 3, 99);
  const auto c = makeCalibrationInputs(g, 3, 100);
  ASSERT_EQ(a.size(), 3u);
  ASSERT_EQ(a[0].size(), 1u);
  EXPECT_EQ(a[0][0].shape(), (Dims{1, 3, 8, 8}));
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  EXPECT_NE(a[0][0], a[1][0]);
  // The documented generator: 2 * (top 24 bits of nnaccel::Rng(seed)) * 2^-24 - 1, drawn set by
  // set, element by element.
  Rng rng(99);
  for (const auto& set : a) {
    for (float v : set[0].values<float>()) {
      const float u = static_cast<float>(rng.nextU64() >> 40) / 16777216.0f;
      ASSERT_EQ(v, 2.0f * u - 1.0f);
    }
  }
  // Golden values from an independent Python re-implementation of xoshiro256**/splitmix64:
  // Rng(99)'s first draws are 0x5944A7EB55C8EAB4 and 0x90624E3D31D8867E.
  EXPECT_EQ(a[0][0].data<float>()[0], 2.0f * (0x5944A7 / 16777216.0f) - 1.0f);
  EXPECT_EQ(a[0][0].data<float>()[1], 2.0f * (0x90624E / 16777216.0f) - 1.0f);
  double sum = 0.0;
  for (const auto& set : a) {
    for (float v : set[0].values<float>()) {
      ASSERT_GE(v, -1.0f);
      ASSERT_LT(v, 1.0f);
      sum += v;
    }
  }
  EXPECT_LT(std::fabs(sum / (3 * 192)), 0.1);
}

TEST(Calibration, QuantizationIsDeterministic) {
  const ir::Graph g = convReluGraph(2);
  const QuantizedModel m1 = quantize(g, {});
  const QuantizedModel m2 = quantize(g, {});
  const QuantizedModel m3 =
      quantize(g, makeCalibrationInputs(g, kDefaultCalibrationCount, kDefaultCalibrationSeed));
  const QuantizedModel other = quantize(g, makeCalibrationInputs(g, 2, 5));
  EXPECT_EQ(m1.scales, m2.scales);
  EXPECT_EQ(m1.scales, m3.scales);
  EXPECT_NE(m1.scales, other.scales);
  for (size_t i = 0; i < g.numNodes(); ++i) {
    EXPECT_EQ(m1.nodes[i].weights, m2.nodes[i].weights);
    EXPECT_EQ(m1.nodes[i].bias, m2.nodes[i].bias);
    EXPECT_EQ(m1.nodes[i].multipliers, m2.nodes[i].multipliers);
    EXPECT_EQ(m1.nodes[i].countMultipliers.size(), m2.nodes[i].countMultipliers.size());
  }
  const auto in = makeCalibrationInputs(g, 1, 7)[0];
  Int8Executor e1(m1), e2(m2);
  const Int8Result r1 = e1.run(in), r2 = e2.run(in);
  EXPECT_EQ(r1.outputs[0].data, r2.outputs[0].data);
  EXPECT_EQ(r1.dequantized[0], r2.dequantized[0]);
  // Running twice gives the same bits too.
  EXPECT_EQ(e1.run(in).outputs[0].data, r1.outputs[0].data);
}

TEST(Calibration, ScalesAreMaxAbsOverAllRuns) {
  GraphBuilder b;
  const auto x = b.input("x", {4});
  const auto y = b.op(OpKind::Sigmoid, "sig", {x});
  const ir::Graph g = finish(b, {y});
  const std::vector<std::vector<Tensor>> sets{
      {Tensor::fromVector<float>({4}, {0.5f, -2.0f, 1.0f, 0.0f})},
      {Tensor::fromVector<float>({4}, {3.0f, 0.0f, -1.0f, 0.0f})}};
  const QuantizedModel m = quantize(g, sets);
  EXPECT_EQ(m.scale(x), 3.0f / 127.0f);
  EXPECT_EQ(m.calibratedMaxAbs[static_cast<size_t>(x)], 3.0f);
  // A Sigmoid's output lies in [0, 1] by definition: scale 1/127 whatever the calibration saw
  // (its calibrated max|y| is sigmoid(3), recorded all the same).
  EXPECT_EQ(m.scale(y), 1.0f / 127.0f);
  EXPECT_FLOAT_EQ(m.calibratedMaxAbs[static_cast<size_t>(y)], 1.0f / (1.0f + std::exp(-3.0f)));
}

TEST(Calibration, AsymmetricRangesSpreadOverAllCodesWithAZeroPoint) {
  // x in [-1, 3] -> Relu -> r -> Sigmoid -> y, and x -> Neg -> n in [-3, 1].
  GraphBuilder b;
  const auto x = b.input("x", {5});
  const auto r = b.op(OpKind::Relu, "r", {x});
  const auto y = b.op(OpKind::Sigmoid, "y", {r});
  const auto n = b.op(OpKind::Neg, "n", {x});
  const ir::Graph g = finish(b, {y, n});
  const std::vector<std::vector<Tensor>> sets{
      {Tensor::fromVector<float>({5}, {-1.0f, 0.0f, 0.5f, 2.0f, 3.0f})}};
  CalibrationOptions o;
  o.asymmetric = true;
  const QuantizedModel m = quantize(g, sets, o);
  // [-1, 3]: scale 4/255, real 0 at round(-128 + 63.75) = -64.
  EXPECT_FLOAT_EQ(m.scale(x), 4.0f / 255.0f);
  EXPECT_EQ(m.zeroPoint(x), -64);
  // A Relu keeps its input's codes and clamps at the zero point.
  EXPECT_EQ(m.zeroPoint(r), -64);
  EXPECT_EQ(m.node(m.graph.value(r).producer).clampMin, -64);
  // A Sigmoid's [0, 1] over the 256 codes; Neg's own range [-3, 1].
  EXPECT_EQ(m.scale(y), 1.0f / 255.0f);
  EXPECT_EQ(m.zeroPoint(y), -128);
  EXPECT_FLOAT_EQ(m.scale(n), 4.0f / 255.0f);
  EXPECT_EQ(m.zeroPoint(n), 63); // round(-128 + 3 / (4/255)) = round(63.25)
  // Every code lands within half a step of fp32 (the input's codes), and real 0 exactly.
  const Int8Result res = Int8Executor(m).run(sets[0]);
  const std::span<const float> got = res.dequantized[1].values<float>();
  const std::vector<float> want{1.0f, -0.0f, -0.5f, -2.0f, -3.0f};
  for (size_t i = 0; i < want.size(); ++i)
    EXPECT_NEAR(got[i], want[i], 0.5f * 4.0f / 255.0f + 1e-6f) << i;
  EXPECT_EQ(got[1], 0.0f);
  // Symmetric (the default): zero points 0.
  EXPECT_EQ(quantize(g, sets).firstAsymmetricValue(), ir::kNoValue);
}

TEST(Calibration, ClippingMethodsCutOutliersAndKeepInputsAndOutputs) {
  // x -> Abs -> h -> Sigmoid -> y: 4000 values in [0, 1] and one outlier at 100 in h (a
  // lookup's output has a scale of its own; a Relu's would be its input's).
  GraphBuilder b;
  const auto x = b.input("x", {4001});
  const auto h = b.op(OpKind::Abs, "h", {x});
  const auto y = b.op(OpKind::Sigmoid, "y", {h});
  const ir::Graph g = finish(b, {y});
  std::vector<float> v(4001);
  for (size_t i = 0; i < 4000; ++i)
    v[i] = static_cast<float>(i % 1000) / 1000.0f;
  v[4000] = 100.0f;
  const std::vector<std::vector<Tensor>> sets{{Tensor::fromVector<float>({4001}, v)}};
  const auto hScale = [&](CalibrationMethod method, double percentile = 99.99) {
    CalibrationOptions o;
    o.method = method;
    o.percentile = percentile;
    const QuantizedModel m = quantize(g, sets, o);
    EXPECT_EQ(m.scale(x), 100.0f / 127.0f) << "a graph input is never clipped";
    EXPECT_EQ(m.calibration.method, method);
    EXPECT_EQ(m.calibratedMaxAbs[static_cast<size_t>(h)], 100.0f) << "the raw max, unclipped";
    return m.scale(h) * 127.0f; // the threshold T
  };
  EXPECT_EQ(hScale(CalibrationMethod::MinMax), 100.0f);
  // 99.9 % of the values lie below 1 (the 2048 bins are 100/2048 wide: T is the bin edge).
  EXPECT_NEAR(hScale(CalibrationMethod::Percentile, 99.9), 1.0f, 100.0f / 2048.0f);
  // Entropy cuts the lone outlier; MSE keeps nearly all of it: clipping it far costs up to 99^2,
  // more than the rounding error of the 4000 others at step 100/127 (4000 * 0.79^2 / 12 = 207).
  const float entropy = hScale(CalibrationMethod::Entropy);
  EXPECT_GT(entropy, 0.9f);
  EXPECT_LT(entropy, 10.0f);
  EXPECT_GT(hScale(CalibrationMethod::Mse), 90.0f);
  // |x| ~ Exp(1) (a Laplace(0, 1) tensor), 2^20 values by the inverse CDF on a grid, max 13.9:
  // the MSE-optimal 8-bit clipping of a Laplace(0, b) is about 9.89 b (Banner, Nahshan and
  // Soudry, "Post training 4-bit quantization of convolutional networks for rapid-deployment",
  // NeurIPS 2019, Table 1 / ACIQ), which the histogram search finds.
  const int64_t n = int64_t{1} << 20;
  GraphBuilder lb;
  const auto lx = lb.input("x", {n});
  const auto lh = lb.op(OpKind::Abs, "h", {lx});
  const ir::Graph lg = finish(lb, {lb.op(OpKind::Sigmoid, "y", {lh})});
  std::vector<float> laplace(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i)
    laplace[static_cast<size_t>(i)] =
        (i % 2 ? 1.0f : -1.0f) *
        static_cast<float>(-std::log1p(-(static_cast<double>(i) + 0.5) / static_cast<double>(n)));
  CalibrationOptions mse;
  mse.method = CalibrationMethod::Mse;
  const float t = quantize(lg, {{Tensor::fromVector<float>({n}, laplace)}}, mse).scale(lh) * 127.0f;
  EXPECT_NEAR(t, 9.89f, 1.0f);
  EXPECT_EQ(calibrationMethodFromName("mse"), CalibrationMethod::Mse);
  EXPECT_FALSE(calibrationMethodFromName("kl").has_value());
  CalibrationOptions bad;
  bad.method = CalibrationMethod::Percentile;
  bad.percentile = 0.0;
  EXPECT_THROW(quantize(g, sets, bad), Error);
}

TEST(Quantizer, AllZeroChannelsAndTensorsGetUsableScales) {
  GraphBuilder b;
  const auto x = b.input("x", {1, 2, 3, 3});
  // Channel 1 of the weights is all zero, with a bias of 0.5.
  std::vector<float> w(2 * 2 * 9, 0.0f);
  for (size_t i = 0; i < 18; ++i) {
    w[i] = (static_cast<float>(i) - 9.0f) / 10.0f;
  }
  const auto c = b.op(OpKind::Conv, "conv",
                      {x, b.floats("w", {2, 2, 3, 3}, w), b.floats("b", {2}, {0.0f, 0.5f})},
                      attrs({{"pads", Dims{1, 1, 1, 1}}}));
  const auto z = b.op(OpKind::Mul, "zero", {b.floats("zeros", {}, {0.0f}), x}); // integer Mul
  const ir::Graph g = finish(b, {c, z});
  const QuantizedModel m = quantize(g, {});
  const QuantNode& q = m.node(0);
  EXPECT_EQ(q.weightScales[0], 0.9f / 127.0f);
  EXPECT_EQ(q.weightScales[1], 1.0f / 127.0f);
  for (int64_t i = 18; i < 36; ++i) {
    ASSERT_EQ(q.weights.data<int8_t>()[i], 0);
  }
  EXPECT_EQ(q.bias[1], quantizeBias(0.5f, m.scale(x), 1.0f / 127.0f));
  // The all-zero product: scale 1, and the all-zero constant too.
  EXPECT_EQ(m.scale(z), 1.0f);
  EXPECT_EQ(m.constants[static_cast<size_t>(g.node(1).inputs[0])].scale, 1.0f);
  Int8Executor ex(m);
  const auto in = makeCalibrationInputs(g, 1, 3)[0];
  const Int8Result r = ex.run(in);
  // Channel 1 of the conv is the bias alone: 0.5 everywhere, to within one output step.
  for (int64_t i = 9; i < 18; ++i) {
    EXPECT_NEAR(r.dequantized[0].data<float>()[i], 0.5f, m.scale(c));
  }
  for (float v : r.dequantized[1].values<float>()) {
    ASSERT_EQ(v, 0.0f);
  }
}

TEST(Quantizer, ClassifiesNodesAndExplainsFloatIslands) {
  std::mt19937_64 rng(3);
  GraphBuilder b;
  const auto x = b.input("x", {3, 4});
  const auto wIn = b.input("w_in", {5, 4});
  const auto dyn = b.op(OpKind::Gemm, "dyn", {x, wIn}, attrs({{"transB", int64_t{1}}}));
  const auto full = b.op(
      OpKind::Gemm, "full_c",
      {x, b.constant("B", randomTensor({4, 5}, rng)), b.constant("C", randomTensor({3, 5}, rng))});
  const auto x4 = b.op(OpKind::Reshape, "to4d", {x, b.ints("shape4", {1, 1, 3, 4})});
  const auto refl = b.op(OpKind::Pad, "reflect", {x4, b.ints("pads", {0, 0, 1, 1, 0, 0, 1, 1})},
                         attrs({{"mode", std::string("reflect")}}));
  const auto padOne =
      b.op(OpKind::Pad, "pad_one",
           {x4, b.ints("pads1", {0, 0, 1, 1, 0, 0, 1, 1}), b.floats("one", {}, {1.5f})});
  const auto div = b.op(OpKind::Div, "div", {x, x});
  const ir::Graph g = finish(b, {dyn, full, refl, padOne, div});
  const QuantizedModel m = quantize(g, {});
  auto reason = [&](const char* name) { return m.node(nodeNamed(g, name)).islandReason; };
  EXPECT_EQ(reason("dyn"), "B is not a 2-D f32 constant");
  EXPECT_EQ(reason("full_c"), "C is not a per-column bias (shape 3x5)");
  // Edge and reflect copy int8 codes at the input's scale: data movement, not an island.
  EXPECT_EQ(reason("reflect"), "");
  EXPECT_EQ(m.node(nodeNamed(g, "reflect")).kind, QuantOpKind::DataMovement);
  EXPECT_EQ(reason("pad_one"), "its pad value is not 0");
  EXPECT_EQ(m.node(nodeNamed(g, "div")).kind, QuantOpKind::Mul); // a Div of two tensors
  EXPECT_EQ(m.node(nodeNamed(g, "to4d")).kind, QuantOpKind::DataMovement);
  // Islands still agree closely with fp32.
  Int8Executor ex(m);
  const auto in = makeCalibrationInputs(g, 1, 4)[0];
  const Int8Result r = ex.run(in);
  const std::vector<Tensor> f = reference::Executor(g).run(in);
  for (size_t o = 0; o < f.size(); ++o) {
    EXPECT_GT(measureAgreement(f[o], r.dequantized[o]).cosineSimilarity, 0.999) << o;
  }
  EXPECT_EQ(quantOpKindName(QuantOpKind::FloatIsland), "float-island");
  EXPECT_EQ(quantOpKindName(QuantOpKind::AddSub), "add-sub");
}

TEST(Quantizer, LookupTablesTabulateTheFp32FunctionPerChannel) {
  // PRelu with a per-channel slope and Div by a per-channel divisor get one table per channel;
  // Tanh and Div by a scalar one table. Every table entry is quantize(f(dequantize(q))).
  std::mt19937_64 rng(41);
  GraphBuilder b;
  const auto x = b.input("x", {1, 3, 2, 4});
  const auto slope = b.floats("slope", {3, 1, 1}, {0.1f, -0.5f, 2.0f});
  const auto prelu = b.op(OpKind::PRelu, "prelu", {x, slope});
  const auto divisor = b.floats("divisor", {1, 1, 1, 4}, {1.0f, 2.0f, -4.0f, 8.0f});
  const auto divLast = b.op(OpKind::Div, "div_last", {prelu, divisor});
  const auto tanh = b.op(OpKind::Tanh, "tanh", {divLast});
  const auto half = b.op(OpKind::Div, "half", {tanh, b.floats("two", {}, {2.0f})});
  const ir::Graph g = finish(b, {half});
  const QuantizedModel m = quantize(g, {});
  struct Expect {
    const char* name;
    int64_t axis;
  };
  for (const Expect& e :
       {Expect{"prelu", 1}, Expect{"div_last", 3}, Expect{"tanh", -1}, Expect{"half", -1}}) {
    SCOPED_TRACE(e.name);
    const ir::NodeId id = nodeNamed(g, e.name);
    const QuantNode& q = m.node(id);
    ASSERT_EQ(q.kind, QuantOpKind::Lookup);
    EXPECT_EQ(q.lookupAxis, e.axis);
    const ir::Node& n = g.node(id);
    const int64_t tables = e.axis < 0 ? 1 : g.value(n.outputs[0]).shape[size_t(e.axis)];
    ASSERT_EQ(static_cast<int64_t>(q.lookupTables.size()), tables * kLookupEntries);
    const float sIn = m.scale(n.inputs[0]), sOut = m.scale(n.outputs[0]);
    const std::vector<float> slopes{0.1f, -0.5f, 2.0f}, divisors{1.0f, 2.0f, -4.0f, 8.0f};
    for (int64_t t = 0; t < tables; ++t) {
      for (int32_t v = -128; v <= 127; ++v) {
        const float in = dequantizeValue(v, sIn);
        float f = 0;
        if (e.axis == 1)
          f = in < 0 ? in * slopes[size_t(t)] : in;
        else if (e.axis == 3)
          f = in / divisors[size_t(t)];
        else if (std::string(e.name) == "tanh")
          f = std::tanh(in);
        else
          f = in / 2.0f;
        const int8_t got = q.lookupTables[size_t(t * kLookupEntries + v + 128)];
        // tanh may differ from libm by one ulp in the reference kernel: one step at most.
        EXPECT_NEAR(got, quantizeValue(f, sOut), std::string(e.name) == "tanh" ? 1 : 0)
            << "table " << t << " q " << v;
      }
    }
  }
  // The executor applies table t to the elements at index t along the axis.
  Int8Executor ex(m);
  const auto in = makeCalibrationInputs(g, 1, 9)[0];
  ex.run(in);
  const std::vector<Tensor> f = reference::Executor(g).run(in);
  EXPECT_GT(measureAgreement(f[0], ex.value(half).dequantize()).cosineSimilarity, 0.99);
}

TEST(Quantizer, TensorOpConstantIsALookup) {
  // HardSwish as exporters decompose it: x * clip(x + 3, 0, 6) / 6. The constant Add and Div
  // are tables; the Clip a clamp; the tensor-tensor Mul the integer rule.
  GraphBuilder b;
  const auto x = b.input("x", {1, 4, 3, 3});
  const auto plus3 = b.op(OpKind::Add, "plus3", {x, b.floats("three", {}, {3.0f})});
  const auto clip =
      b.op(OpKind::Clip, "clip", {plus3, b.floats("lo", {}, {0.0f}), b.floats("hi", {}, {6.0f})});
  const auto prod = b.op(OpKind::Mul, "prod", {x, clip});
  const auto out = b.op(OpKind::Div, "div6", {prod, b.floats("six", {}, {6.0f})});
  const auto perChannel =
      b.op(OpKind::Sub, "minus_c", {out, b.floats("c", {4, 1, 1}, {1, 2, 3, 4})});
  const ir::Graph g = finish(b, {perChannel});
  const QuantizedModel m = quantize(g, {});
  EXPECT_EQ(m.node(nodeNamed(g, "plus3")).kind, QuantOpKind::Lookup);
  EXPECT_EQ(m.node(nodeNamed(g, "clip")).kind, QuantOpKind::Clamp);
  EXPECT_EQ(m.node(nodeNamed(g, "prod")).kind, QuantOpKind::Mul);
  EXPECT_EQ(m.node(nodeNamed(g, "div6")).kind, QuantOpKind::Lookup);
  EXPECT_EQ(m.node(nodeNamed(g, "minus_c")).kind, QuantOpKind::Lookup);
  EXPECT_EQ(m.node(nodeNamed(g, "minus_c")).lookupAxis, 1);
  Int8Executor ex(m);
  const auto in = makeCalibrationInputs(g, 1, 12)[0];
  const Int8Result r = ex.run(in);
  const std::vector<Tensor> f = reference::Executor(g).run(in);
  EXPECT_GT(measureAgreement(f[0], r.dequantized[0]).cosineSimilarity, 0.999);
}

TEST(Quantizer, ExpErfAndGeluAreLookups) {
  // GELU as an op (opset 20) and as exporters decompose it with Erf; Exp of a small input.
  GraphBuilder b(20);
  const auto x = b.input("x", {1, 4, 3, 3});
  const auto gelu = b.op(OpKind::Gelu, "gelu", {x});
  const auto erf = b.op(OpKind::Erf, "erf",
                        {b.op(OpKind::Div, "scaled", {x, b.floats("r2", {}, {1.41421356f})})});
  const auto gate = b.op(OpKind::Mul, "gate",
                         {x, b.op(OpKind::Add, "one_plus", {erf, b.floats("one", {}, {1.0f})})});
  const auto exp =
      b.op(OpKind::Exp, "exp", {b.op(OpKind::Mul, "small", {x, b.floats("tenth", {}, {0.1f})})});
  const ir::Graph g = finish(b, {gelu, gate, exp});
  const QuantizedModel m = quantize(g, {});
  for (const char* name : {"gelu", "erf", "exp"})
    EXPECT_EQ(m.node(nodeNamed(g, name)).kind, QuantOpKind::Lookup) << name;
  Int8Executor ex(m);
  const auto in = makeCalibrationInputs(g, 1, 12)[0];
  const Int8Result r = ex.run(in);
  const std::vector<Tensor> f = reference::Executor(g).run(in);
  for (size_t i = 0; i < 3; ++i)
    EXPECT_GT(measureAgreement(f[i], r.dequantized[i]).cosineSimilarity, 0.99) << i;
}

TEST(Quantizer, PowByAConstantIsALookupByATensorAnIsland) {
  GraphBuilder b;
  const auto x = b.input("x", {1, 4, 3, 3});
  const auto y = b.input("y", {1, 4, 3, 3});
  const auto sq = b.op(OpKind::Pow, "square", {x, b.floats("two", {}, {2.0f})});
  const auto both = b.op(OpKind::Pow, "both", {sq, y});
  const ir::Graph g = finish(b, {both});
  std::mt19937_64 rng(3);
  const QuantizedModel m =
      quantize(g, {{randomTensor({1, 4, 3, 3}, rng), randomTensor({1, 4, 3, 3}, rng)}});
  EXPECT_EQ(m.node(nodeNamed(g, "square")).kind, QuantOpKind::Lookup);
  EXPECT_EQ(m.node(nodeNamed(g, "both")).kind, QuantOpKind::FloatIsland);
  EXPECT_EQ(m.node(nodeNamed(g, "both")).islandReason, "its exponent is not a constant");
}

TEST(Quantizer, MinMaxWithAConstantAreLookupsAndOfTwoTensorsCompareRequantized) {
  GraphBuilder b;
  const auto x = b.input("x", {1, 4, 3, 3});
  const auto y = b.input("y", {1, 4, 3, 3});
  const auto floor = b.op(OpKind::Max, "floor", {x, b.floats("lo", {4, 1, 1}, {0, -1, 1, 0.5f})});
  const auto cap = b.op(OpKind::Min, "cap", {floor, b.floats("hi", {}, {2.0f})});
  const auto both = b.op(OpKind::Max, "both", {cap, y});
  const ir::Graph g = finish(b, {both});
  const QuantizedModel m = quantize(g, {});
  EXPECT_EQ(m.node(nodeNamed(g, "floor")).kind, QuantOpKind::Lookup);
  EXPECT_EQ(m.node(nodeNamed(g, "floor")).lookupAxis, 1);
  EXPECT_EQ(m.node(nodeNamed(g, "cap")).kind, QuantOpKind::Lookup);
  // Two computed tensors: both onto the output scale, then compared.
  const QuantNode& qb = m.node(nodeNamed(g, "both"));
  EXPECT_EQ(qb.kind, QuantOpKind::MinMax);
  ASSERT_EQ(qb.inputMultipliers.size(), 2u);
  EXPECT_EQ(qb.inputMultipliers[1],
            quantizeMultiplier(static_cast<double>(m.scale(y)) / m.scale(both)));
  Int8Executor ex(m);
  const auto in = makeCalibrationInputs(g, 1, 12)[0];
  const std::vector<Tensor> f = reference::Executor(g).run(in);
  EXPECT_GT(measureAgreement(f[0], ex.run(in).dequantized[0]).cosineSimilarity, 0.99);
}

TEST(Quantizer, AStandaloneBatchNormIsAPerChannelLookup) {
  // A BatchNormalization after an Add (nothing to fold it into): one table per channel, and
  // its statistics broadcast along the channel axis.
  GraphBuilder b;
  const auto x = b.input("x", {1, 3, 2, 5});
  const auto y = b.input("y", {1, 3, 2, 5});
  const auto sum = b.op(OpKind::Add, "sum", {x, y});
  const auto bn = b.op(
      OpKind::BatchNormalization, "bn",
      {sum, b.floats("gamma", {3}, {1.0f, -2.0f, 0.5f}), b.floats("beta", {3}, {0.0f, 1.0f, -1.0f}),
       b.floats("mean", {3}, {0.1f, 0.2f, 0.3f}), b.floats("var", {3}, {1.0f, 4.0f, 0.25f})});
  const ir::Graph g = finish(b, {bn});
  const QuantizedModel m = quantize(g, {});
  const QuantNode& q = m.node(nodeNamed(g, "bn"));
  ASSERT_EQ(q.kind, QuantOpKind::Lookup);
  EXPECT_EQ(q.lookupAxis, 1);
  EXPECT_EQ(q.lookupTables.size(), 3u * 256u);
  Int8Executor ex(m);
  const auto in = makeCalibrationInputs(g, 1, 13)[0];
  const Int8Result r = ex.run(in);
  const std::vector<Tensor> f = reference::Executor(g).run(in);
  EXPECT_GT(measureAgreement(f[0], r.dequantized[0]).cosineSimilarity, 0.999);
}

TEST(Quantizer, LookupNeedsOneVaryingAxisAndNoBroadcast) {
  GraphBuilder b;
  const auto x = b.input("x", {2, 3});
  const auto two = b.op(OpKind::Div, "two_axes", {x, b.floats("d", {2, 3}, {1, 2, 3, 4, 5, 6})});
  const auto widen =
      b.op(OpKind::Div, "widen", {x, b.floats("w", {2, 2, 3}, std::vector<float>(12, 2.0f))});
  const auto row = b.input("row", {3});
  const auto rank1 = b.op(OpKind::PRelu, "rank1", {row, b.floats("s", {3}, {0.1f, 0.2f, 0.3f})});
  const ir::Graph g = finish(b, {two, widen, rank1});
  const QuantizedModel m = quantize(g, {});
  auto reason = [&](const char* name) { return m.node(nodeNamed(g, name)).islandReason; };
  EXPECT_EQ(reason("two_axes"), "its constant operand varies along more than one axis");
  EXPECT_EQ(reason("widen"), "a constant operand broadcasts the input to a larger shape");
  EXPECT_EQ(reason("rank1"), "its constant operand varies along the only axis of a rank-1 value");
}

TEST(Quantizer, LinearResizeThatOnlyCopiesIsAGather) {
  // ASPP's image-pooling branch: a bilinear resize of a 1x1 map is a broadcast, exactly a
  // copy; a 2x bilinear upsample of a 2x2 map interpolates and stays a float island.
  GraphBuilder b;
  const auto x = b.input("x", {1, 3, 1, 1});
  const auto y = b.input("y", {1, 1, 2, 2});
  auto linear = [&](const char* name, ir::ValueId in, std::vector<int64_t> sizes) {
    return b.op(OpKind::Resize, name,
                {in, ir::kNoValue, ir::kNoValue, b.ints(std::string(name) + "_sizes", sizes)},
                attrs({{"mode", std::string("linear")},
                       {"coordinate_transformation_mode", std::string("align_corners")}}));
  };
  const auto spread = linear("spread", x, {1, 3, 5, 4});
  const auto interp = linear("interp", y, {1, 1, 4, 4});
  const ir::Graph g = finish(b, {spread, interp});
  const QuantizedModel m = quantize(g, {});
  const QuantNode& q = m.node(nodeNamed(g, "spread"));
  ASSERT_EQ(q.kind, QuantOpKind::Gather);
  EXPECT_EQ(q.gatherIndex[0], 0);
  EXPECT_EQ(q.gatherIndex[20], 1);
  EXPECT_EQ(q.gatherIndex[59], 2);
  // 2 -> 4 with align_corners: coordinates 0, 1/3, 2/3, 1 on each spatial axis; the second
  // tap weighs round(1024/3) = 341 and round(2048/3) = 683; the ends copy one element.
  const QuantNode& i = m.node(nodeNamed(g, "interp"));
  ASSERT_EQ(i.kind, QuantOpKind::Interpolate);
  ASSERT_EQ(i.interpolation.size(), 4u);
  EXPECT_FALSE(i.interpolation[0].interpolates);
  EXPECT_FALSE(i.interpolation[1].interpolates);
  for (size_t a : {2, 3}) {
    const InterpolationAxis& ax = i.interpolation[a];
    EXPECT_TRUE(ax.interpolates);
    EXPECT_EQ(ax.index0, (std::vector<int32_t>{0, 0, 0, 1}));
    EXPECT_EQ(ax.index1, (std::vector<int32_t>{0, 1, 1, 1}));
    EXPECT_EQ(ax.weight1, (std::vector<int32_t>{0, 341, 683, 0}));
  }
  EXPECT_EQ(m.scale(interp), m.scale(y)); // scale preserving
}

TEST(Int8Kernels, SoftmaxDividesTableExponentialsByTheirSum) {
  // s_in = ln(2) / 4: a difference of 4 codes halves the exponential. Table entries
  // round(2^15 * 2^(-d/4)); the line {8, 4, 0} has e = {32768, 16384, 8192}, sum 57344, so
  // p16 = {37449, 18725, 9362} (round(e * 65536 / sum)); with s_out = 1/127 the multiplier is
  // 127 / 65536 and the outputs round(p16 * 127 / 65536) = {73, 36, 18}.
  const double sIn = std::log(2.0) / 4;
  std::vector<int32_t> table;
  for (int d = 0; d < 256; ++d)
    table.push_back(static_cast<int32_t>(std::lround(std::ldexp(std::exp(-d * sIn), 15))));
  EXPECT_EQ(table[0], 32768);
  EXPECT_EQ(table[4], 16384);
  const QuantMultiplier m = quantizeMultiplier(127.0 / 65536.0, 65536);
  const Tensor x = Tensor::fromVector<int8_t>({2, 3}, {8, 4, 0, -128, -128, -128});
  const Tensor y = softmax(x, LineGeometry{2, 3, 1}, table, m);
  EXPECT_EQ(y.toInt64Vector(), (std::vector<int64_t>{73, 36, 18, 42, 42, 42}));
  // Lines along axis 1 of [2, 3, 2]: elements k * 2 apart.
  const LineGeometry geo = softmaxGeometry(ir::SoftmaxParams{1, false}, {2, 3, 2});
  EXPECT_EQ(geo.outer, 2);
  EXPECT_EQ(geo.length, 3);
  EXPECT_EQ(geo.inner, 2);
  const LineGeometry flat = softmaxGeometry(ir::SoftmaxParams{1, true}, {2, 3, 2});
  EXPECT_EQ(flat.length, 6);
  EXPECT_EQ(flat.inner, 1);
}

TEST(Int8Kernels, DivMultipliesByARoundedReciprocal) {
  // All scales 1: the multiplier is 2^-23 and out = round(qa * round(2^23 / qb) / 2^23).
  const QuantMultiplier m = quantizeMultiplier(std::ldexp(1.0, -kReciprocalBits), 1 << 30);
  EXPECT_EQ(divValue(m, 10, 4), 3);   // 2.5 rounds away from zero
  EXPECT_EQ(divValue(m, -10, 4), -3); // -2.5
  EXPECT_EQ(divValue(m, 7, -3), -2);  // -2.33
  EXPECT_EQ(divValue(m, -128, 1), -128);
  // A zero divisor saturates like x / 0 = +-inf; 0 / 0 gives 0.
  EXPECT_EQ(divValue(m, 5, 0), 127);
  EXPECT_EQ(divValue(m, -5, 0), -128);
  EXPECT_EQ(divValue(m, 0, 0), 0);
}

TEST(Quantizer, ReductionsOverSeparateAxesAreFloatIslands) {
  GraphBuilder b;
  const auto x = b.input("x", {2, 3, 4});
  const auto gap = b.op(OpKind::ReduceMean, "gap", {x}, attrs({{"axes", Dims{0, 2}}}));
  const auto row = b.op(OpKind::ReduceMax, "row", {x}, attrs({{"axes", Dims{2}}}));
  const ir::Graph g = finish(b, {gap, row});
  const QuantizedModel m = quantize(g, {});
  EXPECT_EQ(m.node(nodeNamed(g, "gap")).kind, QuantOpKind::FloatIsland);
  EXPECT_EQ(m.node(nodeNamed(g, "gap")).islandReason, "its reduced axes are not contiguous");
  EXPECT_EQ(m.node(nodeNamed(g, "row")).kind, QuantOpKind::Reduce);
}

TEST(Int8Kernels, ReductionsRunAlongContiguousLines) {
  const std::optional<LineGeometry> ch = reduceGeometry({1}, {2, 3, 4});
  ASSERT_TRUE(ch);
  EXPECT_EQ(ch->outer, 2);
  EXPECT_EQ(ch->length, 3);
  EXPECT_EQ(ch->inner, 4);
  EXPECT_EQ(reduceGeometry({1, 2}, {2, 3, 4})->length, 12);
  EXPECT_EQ(reduceGeometry({0, 2}, {2, 3, 4}), std::nullopt); // axis 1 kept between them
  EXPECT_EQ(reduceGeometry({0, 2}, {2, 1, 4})->length, 8);    // an extent-1 gap is no gap
  // Mean of {3, 4, 6} = 13 / 3 at the input scale (multiplier 1/3): round(4.33) = 4; the
  // maximum 6 requantized by 1/2 gives 3; Sum of {-1, -2} by 1: -3.
  const QuantMultiplier third = quantizeMultiplier(1.0 / 3.0, 384);
  EXPECT_EQ(reduceLine(Reduction::Mean, std::array<int8_t, 3>{3, 4, 6}.data(), 1, 3, third), 4);
  EXPECT_EQ(reduceLine(Reduction::Max, std::array<int8_t, 3>{3, 4, 6}.data(), 1, 3,
                       quantizeMultiplier(0.5)),
            3);
  EXPECT_EQ(reduceLine(Reduction::Sum, std::array<int8_t, 4>{-1, 9, -2, 9}.data(), 2, 2,
                       quantizeMultiplier(1.0)),
            -3);
}

TEST(Int8Kernels, InterpolationRoundsTheWeightedSumHalfAwayFromZero) {
  // One axis, 2 -> 3: output 1 is (x0 + x1) / 2 with weights 512/512; output 2 copies x1.
  InterpolationAxis ax;
  ax.interpolates = true;
  ax.index0 = {0, 0, 1};
  ax.index1 = {0, 1, 1};
  ax.weight1 = {0, 512, 0};
  const std::vector<InterpolationAxis> axes{ax};
  auto run = [&](int8_t a, int8_t b) {
    return interpolate(Tensor::fromVector<int8_t>({2}, {a, b}), axes, {3}).toInt64Vector();
  };
  EXPECT_EQ(run(10, 21), (std::vector<int64_t>{10, 16, 21}));       // 15.5 -> 16
  EXPECT_EQ(run(-10, -21), (std::vector<int64_t>{-10, -16, -21}));  // -15.5 -> -16
  EXPECT_EQ(run(-128, 127), (std::vector<int64_t>{-128, -1, 127})); // -0.5 -> -1
  // Two axes: 2x2 -> 1x1 at the centre, each tap weighing 1/4: (1 + 2 + 3 + 5) / 4 = 2.75 -> 3.
  InterpolationAxis mid;
  mid.interpolates = true;
  mid.index0 = {0};
  mid.index1 = {1};
  mid.weight1 = {512};
  const std::vector<InterpolationAxis> both{mid, mid};
  EXPECT_EQ(
      interpolate(Tensor::fromVector<int8_t>({2, 2}, {1, 2, 3, 5}), both, {1, 1}).toInt64Vector(),
      (std::vector<int64_t>{3}));
}

TEST(Int8Kernels, LookupIndexesTablesAlongTheAxis) {
  std::vector<int8_t> tables(2 * kLookupEntries);
  for (int64_t i = 0; i < kLookupEntries; ++i) {
    tables[size_t(i)] = static_cast<int8_t>(i - 128);                  // identity
    tables[size_t(kLookupEntries + i)] = static_cast<int8_t>(127 - i); // -q - 1
  }
  const Tensor x = Tensor::fromVector<int8_t>({2, 2}, {5, -7, 5, -7});
  EXPECT_EQ(lookup(x, tables, 0).values<int8_t>()[2], -6);
  EXPECT_EQ(lookup(x, tables, 1).toInt64Vector(), (std::vector<int64_t>{5, 6, 5, 6}));
  EXPECT_EQ(lookup(x, std::span(tables).first(kLookupEntries), -1).toInt64Vector(),
            (std::vector<int64_t>{5, -7, 5, -7}));
}

TEST(Quantizer, FoldedShapeArithmeticIsSkipped) {
  GraphBuilder b;
  const auto x = b.input("x", {2, 3, 4});
  const auto shape = b.op(OpKind::Shape, "shape", {x});
  const auto n0 =
      b.op(OpKind::Gather, "gather", {shape, b.ints("i0", {0})}, attrs({{"axis", int64_t{0}}}));
  const auto target =
      b.op(OpKind::Concat, "concat", {n0, b.ints("m1", {-1})}, attrs({{"axis", int64_t{0}}}));
  const auto y = b.op(OpKind::Reshape, "reshape", {x, target});
  const ir::Graph g = finish(b, {y});
  const QuantizedModel m = quantize(g, {});
  EXPECT_EQ(m.node(nodeNamed(g, "shape")).kind, QuantOpKind::Folded);
  EXPECT_EQ(m.node(nodeNamed(g, "concat")).kind, QuantOpKind::Folded);
  EXPECT_EQ(m.node(nodeNamed(g, "reshape")).kind, QuantOpKind::DataMovement);
  Int8Executor ex(m);
  const Int8Result r = ex.run(makeCalibrationInputs(g, 1, 5)[0]);
  EXPECT_EQ(r.outputs[0].data.shape(), (Dims{2, 12}));
  // A folded constant reads back as its raw value.
  EXPECT_EQ(ex.value(target).data.toInt64Vector(), (std::vector<int64_t>{2, -1}));
}

// --- error paths ---------------------------------------------------------------------------------

TEST(QuantizerErrors, CalibrationInputGeneration) {
  const ir::Graph g = convReluGraph(4);
  EXPECT_EQ(errorOf([&] { makeCalibrationInputs(g, 0, 1); }),
            "model.onnx: calibration count must be at least 1, got 0");
  GraphBuilder b;
  const auto idx = b.input("idx", {3}, DType::I64);
  const ir::Graph gi = finish(b, {b.op(OpKind::Identity, "id", {idx})});
  EXPECT_EQ(errorOf([&] { makeCalibrationInputs(gi, 1, 1); }),
            "model.onnx: cannot generate calibration data for input 'idx' of dtype s64 (only f32 "
            "inputs)");
  EXPECT_EQ(errorOf([&] { quantize(gi, {}); }),
            "model.onnx: cannot generate calibration data for input 'idx' of dtype s64 (only f32 "
            "inputs)");
}

TEST(QuantizerErrors, NonFiniteValues) {
  GraphBuilder b;
  const auto x = b.input("x", {3});
  const auto y = b.op(OpKind::Div, "div", {x, b.floats("zero", {}, {0.0f})});
  const ir::Graph g = finish(b, {y});
  EXPECT_EQ(errorOf([&] { quantize(g, {}); }),
            "model.onnx: node 'div' (Div, opset 17): calibration produced a non-finite value in "
            "'div'");
  // A bad calibration input is a data error (exit code 1 in the CLI), not a usage error: it
  // names the set and the element, and the input's file when the caller knows it.
  const std::vector<Tensor> good{Tensor::fromVector<float>({3}, {1.0f, 2.0f, 0.5f})};
  const std::vector<Tensor> bad{
      Tensor::fromVector<float>({3}, {1.0f, std::numeric_limits<float>::quiet_NaN(), 0.0f})};
  const std::vector<Tensor> inf{
      Tensor::fromVector<float>({3}, {1.0f, 2.0f, -std::numeric_limits<float>::infinity()})};
  try {
    quantize(g, {good, bad});
    FAIL() << "accepted a NaN";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Model);
    EXPECT_STREQ(e.what(), "model.onnx: calibration input set 1: input 'x' holds a non-finite "
                           "value (nan at element 1)");
  }
  try {
    checkCalibrationInputs(g, inf, {"x.npy"});
    FAIL() << "accepted an infinity";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Io);
    EXPECT_STREQ(e.what(), "x.npy: input 'x' holds a non-finite value (-inf at element 2); int8 "
                           "calibration needs finite inputs");
  }
  EXPECT_NO_THROW(checkCalibrationInputs(g, good, {"x.npy"}));
  // An int8 run refuses a non-finite input the same way (before: NaN quantized to 0 and the
  // run verified), in the reference executor as in every engine (arch/common Int8Run).
  GraphBuilder r;
  const ir::Graph gr = finish(r, {r.op(OpKind::Relu, "relu", {r.input("x", {3})})});
  EXPECT_NO_THROW(checkFiniteInt8Inputs(gr, good));
  const QuantizedModel qm = quantize(gr, {good});
  for (const auto& [inputs, what] :
       {std::pair{bad, "nan at element 1"}, {inf, "-inf at element 2"}})
    try {
      Int8Executor(qm).run(inputs);
      FAIL() << "accepted " << what;
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::Unsupported);
      EXPECT_EQ(std::string(e.what()),
                std::string("model.onnx: input 'x' holds a non-finite value (") + what +
                    "); int8 has no code for it, so int8 runs need finite inputs (--dtype fp32 "
                    "takes them)");
    }

  GraphBuilder c;
  const auto xc = c.input("x", {1, 1, 2, 2});
  const auto conv =
      c.op(OpKind::Conv, "conv",
           {xc, c.floats("w", {1, 1, 1, 1}, {std::numeric_limits<float>::infinity()})});
  const ir::Graph gc = finish(c, {conv});
  EXPECT_EQ(errorOf([&] { quantize(gc, {}); }),
            "model.onnx: node 'conv' (Conv, opset 17): weights 'w' hold a non-finite value");

  GraphBuilder d;
  const auto xd = d.input("x", {1, 1, 2, 2});
  const auto convB = d.op(OpKind::Conv, "conv",
                          {xd, d.floats("w", {1, 1, 1, 1}, {0.5f}),
                           d.floats("b", {1}, {std::numeric_limits<float>::quiet_NaN()})});
  const ir::Graph gd = finish(d, {convB});
  EXPECT_EQ(errorOf([&] { quantize(gd, {}); }),
            "model.onnx: node 'conv' (Conv, opset 17): bias 'b' holds a non-finite value");
}

TEST(QuantizerErrors, MultiplierOutOfRange) {
  // Input channel 0 is huge but unused (weight 0); the output only sees channel 1, so
  // s_in * s_w / s_out = (1e10 / 127) * (1 / 127) / (1e-3 / 127) ~ 7.9e10 >= 2^30.
  GraphBuilder b;
  const auto x = b.input("x", {1, 2, 1, 1});
  const auto y = b.op(OpKind::Conv, "conv", {x, b.floats("w", {1, 2, 1, 1}, {0.0f, 1.0f})});
  const ir::Graph g = finish(b, {y});
  const std::vector<Tensor> in{Tensor::fromVector<float>({1, 2, 1, 1}, {1e10f, 1e-3f})};
  EXPECT_EQ(errorOf([&] { quantize(g, {in}); }),
            "model.onnx: node 'conv' (Conv, opset 17): output channel 0: requantization "
            "multiplier 7.87401585e+10 is too large (the supported range is [2^-32, 2^30))");
}

TEST(Quantizer, MatMulOfTwoTensorsIsIntegerUnlessAnOperandIsConstantAOr1D) {
  GraphBuilder b;
  const auto x = b.input("x", {2, 4, 3});
  const auto xt = b.input("xt", {2, 3, 4});
  const auto v = b.input("v", {3});
  const auto tensors = b.op(OpKind::MatMul, "tensors", {x, xt});
  const auto constA =
      b.op(OpKind::MatMul, "constA", {b.constant("A", Tensor(DType::F32, {2, 4})), x});
  const auto vector = b.op(OpKind::MatMul, "vector", {x, v});
  const ir::Graph g = finish(b, {tensors, constA, vector});
  const QuantizedModel m = quantize(g, makeCalibrationInputs(g, 1, 3));
  EXPECT_EQ(m.node(nodeNamed(g, "tensors")).kind, QuantOpKind::TensorMatMul);
  EXPECT_EQ(m.node(nodeNamed(g, "constA")).islandReason,
            "A is a constant and B is computed (only B may be the constant operand)");
  EXPECT_EQ(m.node(nodeNamed(g, "vector")).islandReason,
            "a 1-D operand (both operands need rank >= 2 to multiply two tensors)");
}

TEST(Quantizer, MatMulOfTwoTensorsTooLongForInt32StaysFloat) {
  const int64_t k = 131072; // 131072 * 128 * 128 > INT32_MAX
  GraphBuilder b;
  const auto x = b.input("x", {1, k});
  const auto y = b.input("y", {k, 1});
  const auto z = b.op(OpKind::MatMul, "mm", {x, y});
  const ir::Graph g = finish(b, {z});
  EXPECT_EQ(quantize(g, makeCalibrationInputs(g, 1, 3)).node(0).islandReason,
            "reduction length 131072 may overflow the int32 accumulator (at most 131071 "
            "products of two int8 values)");
}

// A range whose scale max|x|/127 underflows f32 (a model multiplying by 1e-44; a calibration
// input of denormals) is a one-line error naming the value, never an abort.
TEST(Quantizer, RangesTooSmallForAnInt8ScaleAreTheAllZeroValue) {
  // Degenerate data quantizes and runs (issue 20): a value whose magnitudes all lie below 127
  // times the smallest normal f32 has no int8 scale, and every code of it would be 0 at any
  // representable one, so it is the all-zero value at the all-zero scale (before: an assertion
  // abort, then a refusal). Denormal inputs through a Relu give zeros, bit-exact.
  GraphBuilder b2;
  const auto x2 = b2.input("x", {1, 2});
  const ir::Graph g2 = finish(b2, {b2.op(OpKind::Relu, "relu", {x2})});
  const std::vector<Tensor> denormal{Tensor::fromVector<float>({1, 2}, {1e-40f, -2e-40f})};
  const QuantizedModel m = quantize(g2, {denormal});
  EXPECT_EQ(m.scale(g2.inputs[0]), 1.0f);
  const Int8Result r = Int8Executor(m).run(denormal);
  const std::span<const float> y = r.dequantized.at(0).values<float>();
  EXPECT_EQ(std::vector<float>(y.begin(), y.end()), (std::vector<float>{0.0f, 0.0f}));
  GraphBuilder b;
  const auto x = b.input("x", {1, 4});
  const auto t = b.op(OpKind::Mul, "tiny", {x, b.constant("c", Tensor::scalar(1e-44f))});
  const ir::Graph g = finish(b, {b.op(OpKind::Relu, "relu", {t})});
  const QuantizedModel tiny = quantize(g, {});
  EXPECT_EQ(tiny.scale(g.node(test::nodeNamed(g, "tiny")).outputs[0]), 1.0f);
}

TEST(QuantizerErrors, ReductionTooLongForTheInt32Accumulator) {
  const int64_t k = 132105; // 132105 * 128 * 127 > INT32_MAX
  GraphBuilder b;
  const auto x = b.input("x", {1, k});
  const auto y = b.op(OpKind::MatMul, "mm", {x, b.constant("B", Tensor(DType::F32, {k, 1}))});
  const ir::Graph g = finish(b, {y});
  EXPECT_EQ(errorOf([&] { quantize(g, {}); }),
            "model.onnx: node 'mm' (MatMul, opset 17): reduction length 132105 may overflow the "
            "int32 accumulator (at most 132104 int8 products)");
}

} // namespace
} // namespace nnaccel::quant
