// Tests for Tensor storage, shapes and conversions.
#include "nnaccel/tensor/Tensor.h"

#include <cmath>
#include <cstdint>
#include <gtest/gtest.h>

using namespace nnaccel;

TEST(Tensor, ZeroFilledWithShape) {
  Tensor t(DType::F32, {2, 3});
  EXPECT_EQ(t.numElements(), 6);
  EXPECT_EQ(t.sizeBytes(), 24u);
  for (float v : t.values<float>()) {
    EXPECT_EQ(v, 0.0f);
  }
}

TEST(Tensor, FromVectorReshapeAndCast) {
  auto t = Tensor::fromVector<float>({2, 2}, {1.5f, -2.7f, 3.0f, 0.0f});
  auto r = t.reshaped({4});
  EXPECT_EQ(r.shape(), Dims({4}));
  auto i = t.castTo(DType::I64);
  EXPECT_EQ(i.toInt64Vector(), (std::vector<int64_t>{1, -2, 3, 0}));
  EXPECT_EQ(dimsToString({1, 3, 224, 224}), "1x3x224x224");
  EXPECT_EQ(dimsToString({}), "scalar");
  EXPECT_EQ(rowMajorStrides({2, 3, 4}), Dims({12, 4, 1}));
}

TEST(Tensor, FloatToIntCastSaturatesInsteadOfUndefinedBehaviour) {
  auto t = Tensor::fromVector<float>({4}, {1e30f, -1e30f, std::nanf(""), -2.9f});
  EXPECT_EQ(t.castTo(DType::I8).toInt64Vector(), (std::vector<int64_t>{127, -128, 0, -2}));
  EXPECT_EQ(t.castTo(DType::I64).toInt64Vector(),
            (std::vector<int64_t>{INT64_MAX, INT64_MIN, 0, -2}));
}

TEST(TensorDeathTest, WrongTypedAccessIsAnInternalError) {
  Tensor t(DType::I8, {3});
  EXPECT_DEATH((void)t.data<float>(), "tensor holds s8, accessed as f32");
}
