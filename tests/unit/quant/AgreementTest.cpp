// Tests of the fp32-versus-int8 agreement metrics (quant/Agreement.cpp) on hand-computed data.
#include "nnaccel/quant/Agreement.h"

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
