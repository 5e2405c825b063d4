/// \file
/// The broadcast engine's two decomposing modules (seed 004 §2.1-2.2, modules 320 and 330), as
/// pure functions the compiler uses and the tests check against the patent's figures.
///
/// Kernel decomposition splits each kernel row into 1xN kernel vectors. When N does not divide
/// the kernel width the kernel is expanded with zero-valued dummy columns on the right (FIG. 5)
/// or, when N divides the height, transposed (and with it the input and the result). The
/// vectors of one row across all channels are a *segment* (1 x N x C); the segments stacked
/// along Z in (row, vector) order form the *weight operand* 1 x N x (W_ef/N * H_f * C), with a
/// sparsity bitmap whose dummy (and zero) bits are clear. Tensor decomposition gives every
/// output point an *input operand* of the same layout (inputOperandPosition).
#pragma once

#include "nnaccel/arch/broadcast/Config.h"

#include <cstdint>
#include <functional>
#include <vector>

namespace nnaccel::arch::broadcast {

/// How one layer's kernels are cut into 1xN vectors. "Rows" and "width" are those of the
/// decomposed kernel: after the transpose, the original kernel's columns are its rows.
struct Decomposition {
  int64_t vectorWidth = 1;   ///< N (1: the conventional 1x1 decomposition)
  bool transposed = false;   ///< kernel (and input, output) transposed first (¶0064)
  int64_t rows = 1;          ///< H_f of the decomposed kernel
  int64_t width = 1;         ///< W_f of the decomposed kernel
  int64_t expandedWidth = 1; ///< W_ef = N * ceil(W_f / N) (W_f when N divides it)

  int64_t vectorsPerRow() const { return expandedWidth / vectorWidth; } ///< V
  int64_t segments() const { return rows * vectorsPerRow(); }           ///< H_f * V
  int64_t dummyColumns() const { return expandedWidth - width; }
  bool conventional() const { return vectorWidth == 1; }
  /// Taps of vector v that hold real weights (N, or fewer for the last vector of a row).
  int64_t realTaps(int64_t v) const;
  bool operator==(const Decomposition&) const = default;
};

/// Decomposes a kernelH x kernelW kernel into 1 x \p n vectors. n == 1 (or a 1x1 kernel) gives
/// the conventional decomposition (V = W_f vectors of one weight). Otherwise 1 < n must hold
/// with n <= kernelW, or n <= kernelH with a transpose: when n does not divide kernelW, the
/// policy picks dummy columns or, where n divides kernelH, the transpose (a kernel narrower
/// than n is always transposed). Returns nullopt-like `vectorWidth == 0` when \p n fits
/// neither axis.
Decomposition decomposeKernel(int64_t kernelH, int64_t kernelW, int64_t n, NonDivisible policy);

/// A filter's weights: w(channel, ky, kx) in the *original* kernel's coordinates.
using KernelFn = std::function<int8_t(int64_t channel, int64_t ky, int64_t kx)>;

/// The weight operand of one filter (FIG. 4/5): `depth` = segments * channels values per tap
/// position n, stored tap-major: value(n, z) = values[n * depth + z] with z = g * C + c and
/// segment g = r * V + v (seed 004 §2.1 index formula). Dummy positions hold 0 with bit 0.
struct WeightOperand {
  int64_t taps = 0;  ///< N
  int64_t depth = 0; ///< W_ef / N * H_f * C
  std::vector<int8_t> values;
  std::vector<uint8_t> bitmap; ///< 1 where the weight is real and non-zero
  int8_t value(int64_t n, int64_t z) const { return values[static_cast<size_t>(n * depth + z)]; }
  bool bit(int64_t n, int64_t z) const { return bitmap[static_cast<size_t>(n * depth + z)] != 0; }
};

/// Builds the weight operand of a filter with \p channels input channels.
WeightOperand makeWeightOperand(const Decomposition& d, int64_t channels, const KernelFn& w);

/// One convolution axis pair in the decomposed frame: x is the axis the kernel vectors run
/// along (the input's width, or its height after a transpose).
struct ConvAxes {
  int64_t inH = 1, inW = 1, outH = 1, outW = 1;
  int64_t strideY = 1, strideX = 1, dilationY = 1, dilationX = 1, padTop = 0, padLeft = 0;
};

/// The input position tap n of vector v of kernel row r of output (oy, ox)'s input operand reads
/// (tensor decomposition, seed 004 §2.2): (y, x) in the decomposed frame. Positions outside
/// [0, inH) x [0, inW) are padding: never read from memory (bitmap-skipped,
/// docs/arch/Broadcast.md).
struct InputPosition {
  int64_t y = 0, x = 0;
};
InputPosition inputOperandPosition(const ConvAxes& a, int64_t oy, int64_t ox, int64_t r, int64_t v,
                                   int64_t n, int64_t vectorWidth);

} // namespace nnaccel::arch::broadcast
