/// \file
/// The broadcast engine's kernel and tensor decomposing modules (Decompose.h; seed 004 §2.1-2.2,
/// modules 320 and 330): the choice between plain 1xN vectors, dummy columns and the transpose,
/// the weight operand with its sparsity bitmap, and the input position of an operand's tap.
/// Pure functions: the compiler calls them per layer, the tests check them against FIG. 4/5.
#include "nnaccel/arch/broadcast/Decompose.h"

#include "nnaccel/support/Error.h"

#include <algorithm>

namespace nnaccel::arch::broadcast {

namespace {

int64_t roundUp(int64_t value, int64_t multiple) {
  return (value + multiple - 1) / multiple * multiple;
}

/// Vectors of width \p n along a decomposed kernel of \p rows x \p width, with dummy columns on
/// the right when n does not divide the width (FIG. 5).
Decomposition vectors(int64_t n, bool transposed, int64_t rows, int64_t width) {
  return Decomposition{n, transposed, rows, width, roundUp(width, n)};
}

} // namespace

int64_t Decomposition::realTaps(int64_t v) const {
  return std::clamp<int64_t>(width - v * vectorWidth, 0, vectorWidth);
}

Decomposition decomposeKernel(int64_t kernelH, int64_t kernelW, int64_t n, NonDivisible policy) {
  NNACCEL_ASSERT(kernelH >= 1 && kernelW >= 1 && n >= 1)
      << "decomposeKernel: kernel " << kernelH << "x" << kernelW << ", N " << n;
  if (n == 1 || (kernelH == 1 && kernelW == 1))
    return Decomposition{1, false, kernelH, kernelW, kernelW}; // conventional 1x1 (¶0021)
  if (n <= kernelW) {
    // N does not divide the width: dummy columns (¶0062), or the transpose where N divides the
    // height (¶0064).
    const bool transpose =
        kernelW % n != 0 && policy == NonDivisible::Transpose && kernelH % n == 0;
    return transpose ? vectors(n, true, kernelW, kernelH) : vectors(n, false, kernelH, kernelW);
  }
  if (n <= kernelH) // narrower than N: transposed, and expanded if N does not divide the height
    return vectors(n, true, kernelW, kernelH);
  Decomposition none;
  none.vectorWidth = 0; // N fits neither axis
  return none;
}

WeightOperand makeWeightOperand(const Decomposition& d, int64_t channels, const KernelFn& w) {
  NNACCEL_ASSERT(d.vectorWidth >= 1 && channels >= 1)
      << "makeWeightOperand: N " << d.vectorWidth << ", " << channels << " channels";
  WeightOperand op;
  op.taps = d.vectorWidth;
  op.depth = d.segments() * channels;
  const auto size = static_cast<size_t>(op.taps * op.depth);
  op.values.assign(size, 0);
  op.bitmap.assign(size, 0);
  const int64_t vectorsPerRow = d.vectorsPerRow();
  for (int64_t r = 0; r < d.rows; ++r) {
    for (int64_t v = 0; v < vectorsPerRow; ++v) {
      const int64_t g = r * vectorsPerRow + v;
      for (int64_t n = 0; n < d.realTaps(v); ++n) {
        const int64_t x = v * d.vectorWidth + n;
        // Transposed: the original kernel's columns are the decomposed rows (¶0064).
        const int64_t ky = d.transposed ? x : r, kx = d.transposed ? r : x;
        for (int64_t c = 0; c < channels; ++c) {
          const auto i = static_cast<size_t>(n * op.depth + g * channels + c);
          op.values[i] = w(c, ky, kx);
          op.bitmap[i] = op.values[i] != 0 ? 1 : 0;
        }
      }
    }
  }
  return op;
}

InputPosition inputOperandPosition(const ConvAxes& a, int64_t oy, int64_t ox, int64_t r, int64_t v,
                                   int64_t n, int64_t vectorWidth) {
  return InputPosition{oy * a.strideY + r * a.dilationY - a.padTop,
                       ox * a.strideX + (v * vectorWidth + n) * a.dilationX - a.padLeft};
}

} // namespace nnaccel::arch::broadcast
