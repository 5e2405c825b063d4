// Tests of Gemm (transposes, alpha/beta, C broadcasting), MatMul (batch broadcasting, 1-D
// operands) and Softmax (single axis and opset < 13 2-D coercion) against hand-computed and
// numpy values.
#include "TestUtil.h"
#include "nnaccel/reference/Kernels.h"

#include <gtest/gtest.h>

using namespace nnaccel;
using namespace nnaccel::reference;
using nnaccel::reference::test::expectTensorNear;
using nnaccel::reference::test::seqTensor;
using nnaccel::reference::test::tensorOf;

namespace {
// 2x3x2x2
const std::vector<float> kMatmulBatch = {
    -1.0625,  -0.78125,  -1.03125, -0.90625, 0.625,    0.90625,   -0.28125,  -0.15625,
    0.234375, 0.515625,  3.140625, 3.265625, 1.375,    1.046875,  0.8125,    0.625,
    -0.59375, -0.921875, -0.3125,  -0.5,     -0.78125, -1.109375, -0.546875, -0.734375};
// 2x3x2
const std::vector<float> kSoftmaxAxis1 = {0.419228941, 0.419228941, 0.326495826,  0.326495826,
                                          0.254275203, 0.254275203, 0.0629179478, 0.0629179478,
                                          0.52680552,  0.52680552,  0.410276532,  0.410276532};
// 2x3x2
const std::vector<float> kSoftmaxCoerceAxis1 = {
    0.222698346,  0.19653061,   0.173437655, 0.153058186, 0.135073379, 0.119201839,
    0.0334226042, 0.0294953436, 0.279844016, 0.246961489, 0.217942744, 0.192333803};
// 2x3x2
const std::vector<float> kSoftmaxAxis2 = {0.53120935, 0.468790621, 0.53120935, 0.468790621,
                                          0.53120935, 0.468790621, 0.53120935, 0.468790621,
                                          0.53120935, 0.468790621, 0.53120935, 0.468790621};

// A = [[1, 2, 3], [4, 5, 6]], B = [[1, 0], [0, 1], [1, 1]]: A B = [[4, 5], [10, 11]].
const Tensor kA = tensorOf<float>({2, 3}, {1, 2, 3, 4, 5, 6});
const Tensor kAt = tensorOf<float>({3, 2}, {1, 4, 2, 5, 3, 6});
const Tensor kB = tensorOf<float>({3, 2}, {1, 0, 0, 1, 1, 1});
const Tensor kBt = tensorOf<float>({2, 3}, {1, 0, 1, 0, 1, 1});

ir::GemmParams gemmP(float alpha, float beta, bool transA, bool transB, bool hasC) {
  return ir::GemmParams{.alpha = alpha,
                        .beta = beta,
                        .transA = transA,
                        .transB = transB,
                        .m = 2,
                        .k = 3,
                        .n = 2,
                        .hasC = hasC};
}
} // namespace

TEST(DenseKernels, GemmTransposes) {
  for (bool ta : {false, true}) {
    for (bool tb : {false, true}) {
      SCOPED_TRACE(std::to_string(ta) + std::to_string(tb));
      const Tensor y = gemm(gemmP(1, 1, ta, tb, false), ta ? kAt : kA, tb ? kBt : kB, nullptr);
      expectTensorNear(y, {2, 2}, {4, 5, 10, 11}, 0, 0);
    }
  }
}

TEST(DenseKernels, GemmAlphaBetaAndCBroadcast) {
  const Tensor row = tensorOf<float>({2}, {1, -1});
  expectTensorNear(gemm(gemmP(0.5f, 2, false, false, true), kA, kB, &row), {2, 2},
                   {4, 0.5f, 7, 3.5f}, 0, 0);
  const Tensor col = tensorOf<float>({2, 1}, {1, -1});
  expectTensorNear(gemm(gemmP(1, 1, false, false, true), kA, kB, &col), {2, 2}, {5, 6, 9, 10}, 0,
                   0);
  const Tensor scalar = tensorOf<float>({}, {3});
  expectTensorNear(gemm(gemmP(2, -1, false, false, true), kA, kB, &scalar), {2, 2}, {5, 7, 17, 19},
                   0, 0);
  const Tensor full = tensorOf<float>({2, 2}, {1, 2, 3, 4});
  expectTensorNear(gemm(gemmP(1, 1, false, false, true), kA, kB, &full), {2, 2}, {5, 7, 13, 15}, 0,
                   0);
}

TEST(DenseKernels, MatMul2dAnd1d) {
  expectTensorNear(matmul(kA, kB), {2, 2}, {4, 5, 10, 11}, 0, 0);
  const Tensor v3 = tensorOf<float>({3}, {1, 1, 2});
  expectTensorNear(matmul(kA, v3), {2}, {9, 21}, 0, 0); // [2,3] x [3] -> [2]
  const Tensor v2 = tensorOf<float>({2}, {1, -1});
  expectTensorNear(matmul(v2, kA), {3}, {-3, -3, -3}, 0, 0); // [2] x [2,3] -> [3]
  expectTensorNear(matmul(v3, v3), {}, {6}, 0, 0);           // [3] x [3] -> scalar
  // 1-D x N-D: the vector multiplies every batch matrix.
  const Tensor batch = tensorOf<float>({2, 2, 3}, {1, 2, 3, 4, 5, 6, 1, 0, 0, 0, 1, 0});
  expectTensorNear(matmul(v2, batch), {2, 3}, {-3, -3, -3, 1, -1, 0}, 0, 0);
}

TEST(DenseKernels, MatMulBatchBroadcast) {
  // [2, 1, 2, 3] x [3, 3, 2] -> [2, 3, 2, 2].
  expectTensorNear(matmul(seqTensor({2, 1, 2, 3}, 28), seqTensor({3, 3, 2}, 29)), {2, 3, 2, 2},
                   kMatmulBatch);
}

TEST(DenseKernels, MatMulRejectsInnerMismatch) {
  try {
    matmul(kA, kA);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "matmul inner dimensions differ: 2x3 x 2x3");
  }
}

TEST(DenseKernels, Softmax) {
  const Tensor x = seqTensor({2, 3, 2}, 30);
  expectTensorNear(softmax({.axis = 1, .coerce2d = false}, x), {2, 3, 2}, kSoftmaxAxis1);
  expectTensorNear(softmax({.axis = 1, .coerce2d = true}, x), {2, 3, 2}, kSoftmaxCoerceAxis1);
  expectTensorNear(softmax({.axis = 2, .coerce2d = false}, x), {2, 3, 2}, kSoftmaxAxis2);
  // Large inputs do not overflow: softmax([1000, 1000]) = [0.5, 0.5].
  expectTensorNear(softmax({.axis = 0, .coerce2d = false}, tensorOf<float>({2}, {1000, 1000})), {2},
                   {0.5f, 0.5f});
}
