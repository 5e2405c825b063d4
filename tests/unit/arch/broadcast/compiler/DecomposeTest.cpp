/// \file
/// Tests of the broadcast engine's decomposing modules (Decompose.h, seed 004 §2.1-2.2): every
/// branch of decomposeKernel (plain, dummy columns, transpose, transpose of a narrow kernel with
/// and without expansion, N fitting neither axis, the conventional 1x1 fallbacks), the weight
/// operand's tap-major layout and bitmap (dummies, zero weights, transposed kernels) and the
/// input position of a tap under stride, dilation and padding. The patent's FIG. 4/5 vectors
/// are in SeedVectorsTest.cpp.
#include "nnaccel/arch/broadcast/Decompose.h"

#include <gtest/gtest.h>

namespace nnaccel::arch::broadcast {
namespace {

/// {N, transposed, rows, width, expandedWidth}.
Decomposition dec(int64_t n, bool transposed, int64_t rows, int64_t width, int64_t expanded) {
  return Decomposition{n, transposed, rows, width, expanded};
}

TEST(BroadcastDecomposeKernel, DividingWidthIsPlainUnderEitherPolicy) {
  for (NonDivisible p : {NonDivisible::Expand, NonDivisible::Transpose}) {
    const Decomposition d = decomposeKernel(3, 3, 3, p);
    EXPECT_EQ(d, dec(3, false, 3, 3, 3));
    EXPECT_EQ(d.vectorsPerRow(), 1);
    EXPECT_EQ(d.segments(), 3);
    EXPECT_EQ(d.dummyColumns(), 0);
    EXPECT_EQ(d.realTaps(0), 3);
    EXPECT_FALSE(d.conventional());
    // 6x4 with N = 4: N divides the width, so no transpose even though it divides nothing else.
    EXPECT_EQ(decomposeKernel(6, 4, 4, p), dec(4, false, 6, 4, 4));
    EXPECT_EQ(decomposeKernel(3, 6, 2, p), dec(2, false, 3, 6, 6));
  }
}

TEST(BroadcastDecomposeKernel, ExpandAddsDummyColumns) {
  // FIG. 5: 5x5, N = 3 -> 5x6 expanded, two vectors per row, the second with one dummy.
  const Decomposition d = decomposeKernel(5, 5, 3, NonDivisible::Expand);
  EXPECT_EQ(d, dec(3, false, 5, 5, 6));
  EXPECT_EQ(d.vectorsPerRow(), 2);
  EXPECT_EQ(d.segments(), 10);
  EXPECT_EQ(d.dummyColumns(), 1);
  EXPECT_EQ(d.realTaps(0), 3);
  EXPECT_EQ(d.realTaps(1), 2);
  EXPECT_EQ(decomposeKernel(2, 7, 4, NonDivisible::Expand), dec(4, false, 2, 7, 8));
}

TEST(BroadcastDecomposeKernel, TransposePolicyNeedsNToDivideTheHeight) {
  // 3 divides neither 5 nor 5: the transpose policy falls back to dummy columns.
  EXPECT_EQ(decomposeKernel(5, 5, 3, NonDivisible::Transpose), dec(3, false, 5, 5, 6));
  // 4x6 with N = 4: N does not divide 6 but divides 4 -> transposed, rows 6 of width 4.
  const Decomposition t = decomposeKernel(4, 6, 4, NonDivisible::Transpose);
  EXPECT_EQ(t, dec(4, true, 6, 4, 4));
  EXPECT_EQ(t.segments(), 6);
  EXPECT_EQ(t.dummyColumns(), 0);
  // The same kernel under Expand keeps its orientation.
  EXPECT_EQ(decomposeKernel(4, 6, 4, NonDivisible::Expand), dec(4, false, 4, 6, 8));
}

TEST(BroadcastDecomposeKernel, NarrowKernelsAreAlwaysTransposed) {
  for (NonDivisible p : {NonDivisible::Expand, NonDivisible::Transpose}) {
    EXPECT_EQ(decomposeKernel(1, 7, 7, p), dec(7, false, 1, 7, 7)); // a 1x7 row kernel
    EXPECT_EQ(decomposeKernel(7, 1, 7, p), dec(7, true, 1, 7, 7));  // 7x1: its column is a row
    // 5x2 with N = 3: narrower than N, transposed, then expanded since 3 does not divide 5.
    const Decomposition d = decomposeKernel(5, 2, 3, p);
    EXPECT_EQ(d, dec(3, true, 2, 5, 6));
    EXPECT_EQ(d.realTaps(1), 2);
  }
}

TEST(BroadcastDecomposeKernel, NFittingNeitherAxisIsRejected) {
  EXPECT_EQ(decomposeKernel(3, 3, 4, NonDivisible::Expand).vectorWidth, 0);
  EXPECT_EQ(decomposeKernel(3, 3, 4, NonDivisible::Transpose).vectorWidth, 0);
  EXPECT_EQ(decomposeKernel(1, 2, 3, NonDivisible::Expand).vectorWidth, 0);
}

TEST(BroadcastDecomposeKernel, ConventionalFallbacks) {
  // A 1x1 kernel is conventional whatever N is (digest §7: N = 1 and 1x1 kernels fall back).
  EXPECT_EQ(decomposeKernel(1, 1, 3, NonDivisible::Expand), dec(1, false, 1, 1, 1));
  EXPECT_TRUE(decomposeKernel(1, 1, 3, NonDivisible::Transpose).conventional());
  // N = 1: V = W_f vectors of one weight each, every tap real.
  const Decomposition d = decomposeKernel(3, 5, 1, NonDivisible::Transpose);
  EXPECT_EQ(d, dec(1, false, 3, 5, 5));
  EXPECT_TRUE(d.conventional());
  EXPECT_EQ(d.vectorsPerRow(), 5);
  EXPECT_EQ(d.segments(), 15);
  for (int64_t v = 0; v < 5; ++v)
    EXPECT_EQ(d.realTaps(v), 1);
}

TEST(BroadcastDecomposeKernelDeathTest, RejectsNonPositiveSizes) {
  EXPECT_DEATH(decomposeKernel(3, 3, 0, NonDivisible::Expand), "decomposeKernel");
  EXPECT_DEATH(decomposeKernel(0, 3, 3, NonDivisible::Expand), "decomposeKernel");
}

/// w(c, ky, kx) = 1 + 10 * ky + kx + 100 * c, distinct and non-zero for the small kernels here.
int8_t distinct(int64_t c, int64_t ky, int64_t kx) {
  return static_cast<int8_t>(1 + 10 * ky + kx + 100 * c);
}

TEST(BroadcastWeightOperand, PlainLayoutIsTapMajorBySegmentThenChannel) {
  const Decomposition d = decomposeKernel(3, 3, 3, NonDivisible::Expand);
  const WeightOperand op = makeWeightOperand(d, 2, distinct);
  EXPECT_EQ(op.taps, 3);
  EXPECT_EQ(op.depth, 6); // 1 x 3 x (3/3 * 3 * 2)
  ASSERT_EQ(op.values.size(), 18U);
  ASSERT_EQ(op.bitmap.size(), 18U);
  for (int64_t n = 0; n < 3; ++n) {
    for (int64_t r = 0; r < 3; ++r) {
      for (int64_t c = 0; c < 2; ++c) {
        EXPECT_EQ(op.value(n, r * 2 + c), distinct(c, r, n));
        EXPECT_TRUE(op.bit(n, r * 2 + c));
        EXPECT_EQ(op.values[static_cast<size_t>(n * 6 + r * 2 + c)], distinct(c, r, n));
      }
    }
  }
}

TEST(BroadcastWeightOperand, DummyColumnsAreZeroWithClearBits) {
  const Decomposition d = decomposeKernel(5, 5, 3, NonDivisible::Expand);
  const int64_t channels = 3;
  const WeightOperand op = makeWeightOperand(d, channels, distinct);
  EXPECT_EQ(op.depth, 10 * channels);
  int64_t clear = 0;
  for (int64_t r = 0; r < 5; ++r) {
    for (int64_t v = 0; v < 2; ++v) {
      for (int64_t n = 0; n < 3; ++n) {
        for (int64_t c = 0; c < channels; ++c) {
          const int64_t z = (r * 2 + v) * channels + c, x = v * 3 + n;
          if (x < 5) {
            EXPECT_EQ(op.value(n, z), distinct(c, r, x));
            EXPECT_TRUE(op.bit(n, z));
          } else {
            EXPECT_EQ(op.value(n, z), 0);
            EXPECT_FALSE(op.bit(n, z));
            ++clear;
          }
        }
      }
    }
  }
  EXPECT_EQ(clear, 5 * channels);
}

TEST(BroadcastWeightOperand, ZeroWeightsAreRealButClearInTheBitmap) {
  const Decomposition d = decomposeKernel(3, 3, 3, NonDivisible::Expand);
  const WeightOperand op = makeWeightOperand(d, 1, [](int64_t, int64_t ky, int64_t kx) {
    return static_cast<int8_t>(ky == kx ? 0 : -(ky * 3 + kx));
  });
  for (int64_t r = 0; r < 3; ++r) {
    for (int64_t n = 0; n < 3; ++n) {
      EXPECT_EQ(op.value(n, r), r == n ? 0 : -(r * 3 + n));
      EXPECT_EQ(op.bit(n, r), r != n);
    }
  }
}

TEST(BroadcastWeightOperand, TransposedKernelColumnsBecomeRows) {
  // 4x6 with N = 4 transposed: decomposed row r = original column kx, tap n = original row ky.
  const Decomposition d = decomposeKernel(4, 6, 4, NonDivisible::Transpose);
  ASSERT_TRUE(d.transposed);
  const WeightOperand op = makeWeightOperand(d, 2, distinct);
  EXPECT_EQ(op.depth, 6 * 2);
  for (int64_t r = 0; r < 6; ++r) {
    for (int64_t n = 0; n < 4; ++n) {
      for (int64_t c = 0; c < 2; ++c) {
        EXPECT_EQ(op.value(n, r * 2 + c), distinct(c, n, r));
        EXPECT_TRUE(op.bit(n, r * 2 + c));
      }
    }
  }
  // 5x2 with N = 3: transposed and expanded; the dummy is the sixth original row.
  const Decomposition e = decomposeKernel(5, 2, 3, NonDivisible::Expand);
  const WeightOperand te = makeWeightOperand(e, 1, distinct);
  EXPECT_EQ(te.depth, 4); // 2 rows x 2 vectors
  for (int64_t r = 0; r < 2; ++r) {
    for (int64_t v = 0; v < 2; ++v) {
      for (int64_t n = 0; n < 3; ++n) {
        const int64_t ky = v * 3 + n;
        EXPECT_EQ(te.value(n, r * 2 + v), ky < 5 ? distinct(0, ky, r) : 0);
        EXPECT_EQ(te.bit(n, r * 2 + v), ky < 5);
      }
    }
  }
}

TEST(BroadcastWeightOperand, ConventionalOperandHasOneTap) {
  const Decomposition d = decomposeKernel(2, 3, 1, NonDivisible::Expand);
  const WeightOperand op = makeWeightOperand(d, 2, distinct);
  EXPECT_EQ(op.taps, 1);
  EXPECT_EQ(op.depth, 2 * 3 * 2);
  for (int64_t r = 0; r < 2; ++r) {
    for (int64_t v = 0; v < 3; ++v) {
      for (int64_t c = 0; c < 2; ++c)
        EXPECT_EQ(op.value(0, (r * 3 + v) * 2 + c), distinct(c, r, v));
    }
  }
}

TEST(BroadcastInputOperand, PositionsFollowStrideDilationAndPadding) {
  ConvAxes a;
  a.inH = 7;
  a.inW = 9;
  // Stride 1, no padding: operand (oy, ox) row r, vector v, tap n reads (oy + r, ox + vN + n).
  EXPECT_EQ(inputOperandPosition(a, 2, 3, 1, 1, 2, 3).y, 3);
  EXPECT_EQ(inputOperandPosition(a, 2, 3, 1, 1, 2, 3).x, 3 + 3 + 2);
  a.strideY = 2;
  a.strideX = 3;
  a.dilationY = 2;
  a.dilationX = 3;
  a.padTop = 1;
  a.padLeft = 2;
  const InputPosition p = inputOperandPosition(a, 2, 1, 2, 1, 1, 2);
  EXPECT_EQ(p.y, 2 * 2 + 2 * 2 - 1);
  EXPECT_EQ(p.x, 1 * 3 + (1 * 2 + 1) * 3 - 2);
  // The first tap of the first operand lands in the padding (outside the input).
  const InputPosition pad = inputOperandPosition(a, 0, 0, 0, 0, 0, 2);
  EXPECT_EQ(pad.y, -1);
  EXPECT_EQ(pad.x, -2);
}

} // namespace
} // namespace nnaccel::arch::broadcast
