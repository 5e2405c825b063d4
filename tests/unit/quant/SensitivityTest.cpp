// Tests for the int8 sensitivity analysis: one row per value the int8 model holds at a scale,
// the worst first, each measured by fake-quantizing that value alone; and the all-at-once fake
// quantization equals the hand-composed rounding of every value; the precision-fallback curve
// keeps the worst values in fp32, k = 0, 1, 2, 4, ..., until its target holds.
#include "nnaccel/quant/Sensitivity.h"

#include "QuantTestUtil.h"
#include "nnaccel/quant/Agreement.h"
#include "nnaccel/reference/Executor.h"

#include <cmath>
#include <gtest/gtest.h>

using namespace nnaccel;
using namespace nnaccel::quant;
using namespace nnaccel::quant::test;
using ir::OpKind;

namespace {

/// clamp(round(x / s), -127, 127) * s.
float fq(float x, float s) {
  return std::clamp(std::nearbyint(x / s), -127.0f, 127.0f) * s;
}

} // namespace

TEST(Sensitivity, OneRowPerScaledValueWorstFirst) {
  // x -> Abs -> a -> Exp -> y, and x -> Neg -> b (a second output).
  GraphBuilder gb;
  const auto x = gb.input("x", {64});
  const auto a = gb.op(OpKind::Abs, "a", {x});
  const auto y = gb.op(OpKind::Exp, "y", {a});
  const auto b = gb.op(OpKind::Neg, "b", {x});
  const ir::Graph g = finish(gb, {y, b});
  std::vector<float> v(64);
  for (size_t i = 0; i < v.size(); ++i)
    v[i] = std::sin(static_cast<float>(i)) * 3.0f;
  const std::vector<Tensor> in{Tensor::fromVector<float>({64}, v)};
  const QuantizedModel m = quantize(g, {in});
  const std::vector<ValueSensitivity> rows = measureSensitivity(m, in);
  ASSERT_EQ(rows.size(), 4u); // x, a, y, b
  for (size_t i = 1; i < rows.size(); ++i)
    EXPECT_LE(rows[i - 1].worstOutput.cosineSimilarity, rows[i].worstOutput.cosineSimilarity);
  for (const ValueSensitivity& r : rows) {
    EXPECT_GT(r.worstOutput.cosineSimilarity, 0.99) << r.name;
    EXPECT_LT(r.worstOutput.cosineSimilarity, 1.0 + 1e-12) << r.name;
    EXPECT_EQ(r.scale, m.scale(r.value));
    EXPECT_EQ(r.clippedFraction, 0.0) << "calibrated on this very input";
    EXPECT_EQ(r.op, r.name == "x"   ? "input"
                    : r.name == "a" ? "Abs"
                    : r.name == "y" ? "Exp"
                                    : "Neg");
  }
  // The input feeds both outputs: rounding it alone costs at least as much as rounding 'a'.
  const auto row = [&](const std::string& name) {
    return *std::find_if(rows.begin(), rows.end(), [&](const auto& r) { return r.name == name; });
  };
  EXPECT_LE(row("x").worstOutput.cosineSimilarity, row("b").worstOutput.cosineSimilarity);

  // All at once: y = fq(exp(fq(|fq(x)|))) element by element.
  const std::vector<Tensor> fake = runFakeQuantized(m, in);
  const float sx = m.scale(x), sa = m.scale(a), sy = m.scale(y);
  for (size_t i = 0; i < v.size(); ++i)
    EXPECT_FLOAT_EQ(fake[0].values<float>()[i], fq(std::exp(fq(std::fabs(fq(v[i], sx)), sa)), sy))
        << i;
}

TEST(Sensitivity, FallbackKeepsTheWorstValuesInFp32UntilTheTargetHolds) {
  // x -> Exp -> e -> Mul(e, 100) -> y: the exponential of a coarse input is what int8 loses.
  GraphBuilder gb;
  const auto x = gb.input("x", {256});
  const auto e = gb.op(OpKind::Exp, "e", {x});
  const auto y = gb.op(OpKind::Mul, "y", {e, gb.constant("k", Tensor::scalar<float>(100.0f))});
  const ir::Graph g = finish(gb, {y});
  std::vector<float> v(256);
  for (size_t i = 0; i < v.size(); ++i)
    v[i] = std::sin(0.37f * static_cast<float>(i)) * 4.0f;
  const std::vector<Tensor> in{Tensor::fromVector<float>({256}, v)};
  const QuantizedModel m = quantize(g, {in});
  const std::vector<ValueSensitivity> rows = measureSensitivity(m, in);
  ASSERT_EQ(rows.size(), 3u); // x, e, y

  // An unreachable target: k = 0, 1, 2, then every value (3), which is the fp32 graph itself.
  const std::vector<FallbackStep> all = measureFallback(m, in, rows, 2.0);
  ASSERT_EQ(all.size(), 4u);
  const size_t expected[] = {0, 1, 2, 3};
  for (size_t i = 0; i < all.size(); ++i)
    EXPECT_EQ(all[i].keptInFp32, expected[i]);
  const Tensor fp32 = reference::Executor(g).run(in).front();
  EXPECT_EQ(runFakeQuantized(m, in, {x, e, y}).front(), fp32);
  EXPECT_NEAR(all.back().worstOutput.cosineSimilarity, 1.0, 1e-12);
  EXPECT_EQ(all.back().worstOutputName, "y");
  // Step 0 is the all-at-once fake quantization.
  const Agreement none = measureAgreement(fp32, runFakeQuantized(m, in).front());
  EXPECT_EQ(all.front().worstOutput.cosineSimilarity, none.cosineSimilarity);

  // A target int8 already meets: one step, nothing kept.
  const std::vector<FallbackStep> met = measureFallback(m, in, rows, none.cosineSimilarity - 1e-9);
  ASSERT_EQ(met.size(), 1u);
  EXPECT_EQ(met[0].keptInFp32, 0u);
}

TEST(Sensitivity, AComparisonRoundsBothOperandsAlike) {
  // M-LSD's peak mask y = s * (s == maxpool3x3(s)), s = sigmoid(x): rounding the pooled map
  // alone would never equal the unrounded one (cosine 0); int8 rounds both, and so do the
  // single-value rows and the fallback curve.
  GraphBuilder b;
  const auto x = b.input("x", {1, 2, 8, 8});
  const auto s = b.op(OpKind::Sigmoid, "s", {x});
  const auto pooled =
      b.op(OpKind::MaxPool, "pool", {s},
           ir::test::attrs({{"kernel_shape", Dims{3, 3}}, {"pads", Dims{1, 1, 1, 1}}}));
  const auto peak = b.op(OpKind::Equal, "peak", {s, pooled});
  const auto mask = b.op(OpKind::Cast, "mask", {peak}, ir::test::attrs({{"to", int64_t{1}}}));
  const ir::Graph g = finish(b, {b.op(OpKind::Mul, "y", {s, mask})});
  std::mt19937_64 rng(5);
  const std::vector<Tensor> in{randomTensor({1, 2, 8, 8}, rng, -4.0f, 4.0f)};
  const QuantizedModel m = quantize(g, {in});
  const std::vector<ValueSensitivity> rows = measureSensitivity(m, in);
  for (const ValueSensitivity& r : rows)
    EXPECT_GT(r.worstOutput.cosineSimilarity, 0.5) << r.name;
  for (const FallbackStep& step : measureFallback(m, in, rows, 2.0))
    EXPECT_GT(step.worstOutput.cosineSimilarity, 0.5) << step.keptInFp32 << " kept";
}
