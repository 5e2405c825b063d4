/// \file
/// compareTensor (arch/common/Verify.h), the verdict of every engine's fp32 run: relative
/// tolerance over finite values, and the NaN/Inf policy (identical non-finite values agree,
/// anything else against a non-finite value is a mismatch naming the element).
#include "nnaccel/arch/common/Verify.h"

#include <gtest/gtest.h>
#include <limits>

namespace nnaccel::arch::common {
namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

std::optional<std::string> compareF32(std::vector<float> got, std::vector<float> ref) {
  int64_t compared = 0;
  const Dims shape{static_cast<int64_t>(got.size())};
  return compareTensor(Tensor::fromVector<float>(shape, got), Tensor::fromVector<float>(shape, ref),
                       false, 1e-5, compared);
}

TEST(CompareTensor, IdenticalNonFiniteValuesAgree) {
  // Before: a NaN against the same NaN was reported as a MISMATCH.
  EXPECT_EQ(compareF32({1.0f, kNaN, kInf, -kInf}, {1.0f, kNaN, kInf, -kInf}), std::nullopt);
  EXPECT_EQ(compareF32({kNaN}, {-kNaN}), std::nullopt); // any NaN payload or sign
}

TEST(CompareTensor, ANonFiniteValueAgainstAnythingElseIsAMismatch) {
  EXPECT_EQ(compareF32({1.0f, kNaN}, {1.0f, 2.0f}).value().substr(0, 36),
            "element [1] = nan but the reference ");
  EXPECT_NE(compareF32({2.0f}, {kNaN}), std::nullopt);
  EXPECT_NE(compareF32({kInf}, {-kInf}), std::nullopt);
  EXPECT_NE(compareF32({1e30f}, {kInf}), std::nullopt);
}

TEST(CompareTensor, FiniteValuesUseTheRelativeToleranceOfTheFiniteMaximum) {
  // The infinity in the reference does not widen the tolerance of its finite neighbours.
  EXPECT_EQ(compareF32({kInf, 1.0f, 100.0f}, {kInf, 1.0f, 100.0f + 1e-4f}), std::nullopt);
  EXPECT_NE(compareF32({kInf, 1.0f, 100.0f}, {kInf, 1.0f, 100.1f}), std::nullopt);
}

} // namespace
} // namespace nnaccel::arch::common
