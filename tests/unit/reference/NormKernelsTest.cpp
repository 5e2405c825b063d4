// Tests of BatchNormalization (inference) against numpy, for 4-D and 2-D inputs.
#include "TestUtil.h"
#include "nnaccel/reference/Kernels.h"

#include <cmath>
#include <gtest/gtest.h>

using namespace nnaccel;
using namespace nnaccel::reference;
using nnaccel::reference::test::expectTensorNear;
using nnaccel::reference::test::seqTensor;
using nnaccel::reference::test::tensorOf;

namespace {
// 2x3x2x2
const std::vector<float> kBatchnorm = {
    -0.784849107, -0.802879274, -0.820909441, -0.838939667, -1,          -1,
    -1,           -1,           -1.10938275,  -1.09376562,  -1.07814837, -1.06253123,
    -1.00121129,  -1.01924145,  -1.03727162,  -1.05530179,  -1,          -1,
    -1,           -1,           -1.21870315,  -1.20308602,  -1.18746877, -1.17185163};
} // namespace

TEST(NormKernels, BatchNorm4d) {
  Tensor var = seqTensor({3}, 35);
  for (float& v : var.values<float>()) {
    v = std::fabs(v) + 0.25f;
  }
  const Tensor y = batchNorm({.epsilon = 1e-3f, .channels = 3}, seqTensor({2, 3, 2, 2}, 31),
                             seqTensor({3}, 32), seqTensor({3}, 33), seqTensor({3}, 34), var);
  expectTensorNear(y, {2, 3, 2, 2}, kBatchnorm, 1e-5f, 1e-6f);
}

TEST(NormKernels, BatchNorm2dHandComputed) {
  // y = 2 * (x - 1) / sqrt(3 + 1) + 0.5 on channel 0, y = x on channel 1.
  const Tensor x = tensorOf<float>({2, 2}, {1, 5, 3, -5});
  const Tensor y = batchNorm({.epsilon = 1.0f, .channels = 2}, x, tensorOf<float>({2}, {2, 1}),
                             tensorOf<float>({2}, {0.5f, 0}), tensorOf<float>({2}, {1, 0}),
                             tensorOf<float>({2}, {3, 0}));
  expectTensorNear(y, {2, 2}, {0.5f, 5 / std::sqrt(1.0f), 2.5f, -5});
}
