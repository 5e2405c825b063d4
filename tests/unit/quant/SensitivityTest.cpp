// Tests for the int8 sensitivity analysis: one row per value the int8 model holds at a scale,
// the worst first, each measured by fake-quantizing that value alone; and the all-at-once fake
// quantization equals the hand-composed rounding of every value.
#include "nnaccel/quant/Sensitivity.h"

#include "QuantTestUtil.h"
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
