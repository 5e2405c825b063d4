// Tests of the fp32-versus-int8 agreement metrics (quant/Agreement.cpp) on hand-computed data:
// one pair, pairs accumulated over several evaluation inputs, and a whole quantized model.
#include "nnaccel/quant/Agreement.h"

#include "../ir/GraphBuilder.h"
#include "nnaccel/ir/ShapeInference.h"

#include <cmath>
#include <gtest/gtest.h>

namespace nnaccel::quant {
namespace {

TEST(Agreement, ErrorsAndCosineHandComputed) {
  const Tensor a = Tensor::fromVector<float>({4}, {1.0f, 2.0f, -2.0f, 0.0f});
  const Tensor b = Tensor::fromVector<float>({4}, {1.0f, 2.5f, -2.0f, -1.0f});
  const Agreement r = measureAgreement(a, b);
  EXPECT_EQ(r.count, 4);
  EXPECT_DOUBLE_EQ(r.maxAbsError, 1.0);
  EXPECT_DOUBLE_EQ(r.meanAbsError, 0.375);
  // dot = 1 + 5 + 4 = 10; |a| = 3; |b| = sqrt(1 + 6.25 + 4 + 1) = 3.5.
  EXPECT_DOUBLE_EQ(r.cosineSimilarity, 10.0 / (3.0 * 3.5));
  EXPECT_FALSE(r.top1Agreement.has_value());
  EXPECT_DOUBLE_EQ(measureAgreement(a, a).cosineSimilarity, 1.0);
}

TEST(Agreement, ZeroVectors) {
  const Tensor z(DType::F32, {3});
  const Tensor one = Tensor::fromVector<float>({3}, {0.0f, 1.0f, 0.0f});
  EXPECT_EQ(measureAgreement(z, z).cosineSimilarity, 1.0);
  EXPECT_EQ(measureAgreement(z, one).cosineSimilarity, 0.0);
  EXPECT_EQ(measureAgreement(one, z).cosineSimilarity, 0.0);
}

TEST(Agreement, TopOneOverTheClassAxis) {
  EXPECT_TRUE(isClassifierOutput({1, 1000}));
  EXPECT_TRUE(isClassifierOutput({4, 10, 1, 1}));
  EXPECT_FALSE(isClassifierOutput({1, 21, 8, 8}));
  EXPECT_FALSE(isClassifierOutput({10}));
  EXPECT_FALSE(isClassifierOutput({3, 1}));
  EXPECT_FALSE(isClassifierOutput({1, 512, 1})); // a detector's per-anchor scores
  // Three rows; the second disagrees; ties resolve to the first maximum.
  const Tensor a = Tensor::fromVector<float>({3, 3}, {0, 5, 1, 2, 1, 0, 3, 3, 1});
  const Tensor b = Tensor::fromVector<float>({3, 3}, {0, 4, 1, 1, 2, 0, 3, 3, 3});
  EXPECT_EQ(argmaxPerRow(a), (std::vector<int64_t>{1, 0, 0}));
  EXPECT_EQ(argmaxPerRow(b), (std::vector<int64_t>{1, 1, 0}));
  const Agreement r = measureAgreement(a, b);
  ASSERT_TRUE(r.top1Agreement.has_value());
  EXPECT_DOUBLE_EQ(*r.top1Agreement, 2.0 / 3.0);
  const Tensor a4 = a.reshaped({3, 3, 1, 1});
  EXPECT_DOUBLE_EQ(*measureAgreement(a4, b.reshaped({3, 3, 1, 1})).top1Agreement, 2.0 / 3.0);
}

TEST(Agreement, AccumulatesOverSeveralPairs) {
  // Pair 1 agrees exactly; pair 2: ref (0, 2), test (3, 2): errors 3, 0, dot 4, |ref|^2 4,
  // |test|^2 13, cosine 4 / (2 sqrt(13)), and its top-1 differs (class 1 vs class 0).
  AgreementAccumulator acc;
  EXPECT_EQ(acc.result().samples, 0);
  acc.add(Tensor::fromVector<float>({1, 2}, {1, 0}), Tensor::fromVector<float>({1, 2}, {1, 0}));
  acc.add(Tensor::fromVector<float>({1, 2}, {0, 2}), Tensor::fromVector<float>({1, 2}, {3, 2}));
  const Agreement r = acc.result();
  EXPECT_EQ(r.samples, 2);
  EXPECT_EQ(r.count, 4);
  EXPECT_DOUBLE_EQ(r.maxAbsError, 3.0);
  EXPECT_DOUBLE_EQ(r.meanAbsError, 0.75);
  // Over both pairs as one vector: dot 1 + 4 = 5, |ref|^2 = 5, |test|^2 = 1 + 13 = 14.
  EXPECT_DOUBLE_EQ(r.cosineSimilarity, 5.0 / std::sqrt(5.0 * 14.0));
  EXPECT_DOUBLE_EQ(r.minCosineSimilarity, 4.0 / (2.0 * std::sqrt(13.0)));
  ASSERT_TRUE(r.top1Agreement.has_value());
  EXPECT_EQ(r.top1Rows, 2);
  EXPECT_EQ(r.top1Matches, 1);
  EXPECT_DOUBLE_EQ(*r.top1Agreement, 0.5);
  // One pair that is not classifier-shaped turns top-1 off for the whole set.
  acc.add(Tensor::fromVector<float>({2}, {1, 1}), Tensor::fromVector<float>({2}, {1, 1}));
  EXPECT_FALSE(acc.result().top1Agreement.has_value());
  EXPECT_EQ(acc.result().top1Rows, 0);
  // A single pair: the minimum is the cosine itself.
  const Agreement one = measureAgreement(Tensor::fromVector<float>({2}, {0, 2}),
                                         Tensor::fromVector<float>({2}, {3, 2}));
  EXPECT_EQ(one.samples, 1);
  EXPECT_DOUBLE_EQ(one.minCosineSimilarity, one.cosineSimilarity);
}

TEST(Agreement, ModelAgreementRunsBothExecutorsOnEverySet) {
  // y = Relu(x) on 4 values, calibrated on x = (1, -1, 0.5, 0.25): s = 1/127. Evaluation set 1
  // is exactly representable (q = 127, 0, 0, -127 -> no error); set 2 is not: 0.3 * 127 = 38.1
  // -> 38 -> 38/127 = 0.2992126, error 0.0007874.
  ir::test::GraphBuilder b;
  const auto x = b.input("x", {1, 4});
  const auto y = b.op(ir::OpKind::Relu, "relu", {x});
  b.g.outputs = {y};
  ir::inferShapes(b.g);
  const QuantizedModel m =
      quantize(b.g, {{Tensor::fromVector<float>({1, 4}, {1.0f, -1.0f, 0.5f, 0.25f})}});
  const std::vector<std::vector<Tensor>> sets = {
      {Tensor::fromVector<float>({1, 4}, {1.0f, 0.0f, 0.0f, -1.0f})},
      {Tensor::fromVector<float>({1, 4}, {0.3f, 0.0f, 0.0f, 0.0f})}};
  const std::vector<std::optional<Agreement>> a = measureModelAgreement(m, sets);
  ASSERT_EQ(a.size(), 1u);
  ASSERT_TRUE(a[0].has_value());
  EXPECT_EQ(a[0]->samples, 2);
  EXPECT_EQ(a[0]->count, 8);
  EXPECT_NEAR(a[0]->maxAbsError, 0.3 - 38.0 / 127.0, 1e-7);
  EXPECT_NEAR(a[0]->meanAbsError, (0.3 - 38.0 / 127.0) / 8.0, 1e-8);
  ASSERT_TRUE(a[0]->top1Agreement.has_value()); // [1, 4] is classifier-shaped
  EXPECT_EQ(a[0]->top1Matches, 2);
}

TEST(Agreement, RejectsMismatchedTensors) {
  try {
    measureAgreement(Tensor(DType::F32, {2, 3}), Tensor(DType::F32, {3, 2}));
    FAIL() << "accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Usage);
    EXPECT_STREQ(e.what(), "cannot compare f32 2x3 with f32 3x2");
  }
  try {
    measureAgreement(Tensor(DType::F32, {2}), Tensor(DType::I8, {2}));
    FAIL() << "accepted";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "cannot compare f32 2 with s8 2");
  }
}

} // namespace
} // namespace nnaccel::quant
