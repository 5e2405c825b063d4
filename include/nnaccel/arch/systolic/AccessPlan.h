/// \file
/// Per-weight access parameters: for one output tile and one weight element (r, s), which input
/// elements meet that weight and which summation-buffer entries receive their partial sums.
///
/// This is the heart of seeds 000 and 003. One closed form covers normal, strided, dilated
/// (seed 003 §2.2-2.3, "projection") and transposed convolution without zero insertion (seed
/// 000 §3.5: fetch/write parameters from the ROTATED coordinates and the stride; the weight is
/// read at its ORIGINAL coordinates). Padding is never streamed: out-of-range positions are
/// clipped away, so a weight that touches no entry of a tile gets no plan at all. The patent's
/// flat (start, step, count) triples cannot express multi-row blocks (digest 000 §5.2-5.3), so
/// plans are 2-D: (outer count, outer stride) x (inner count, inner step).
///
/// All coordinates are in elements of one channel plane; the compiler turns them into bytes.
///
/// Preconditions (the compiler validates the model first, so a violation is an internal error,
/// NNACCEL_ASSERT): in, out, kernel, stride, dilation >= 1; padBegin >= 0; 0 <= k < kernel; the
/// tile is a non-empty part of [0, out); no intermediate value overflows int64.
/// Formulas, patent mapping and the corrections followed: docs/arch/SystolicAccessPlan.md.
#pragma once
#include <cstdint>
#include <optional>

namespace nnaccel::arch::systolic {

/// One spatial axis of a convolution.
struct AxisGeometry {
  int64_t in = 1;     ///< input extent (H or W)
  int64_t out = 1;    ///< output extent
  int64_t kernel = 1; ///< undilated kernel extent
  int64_t stride = 1;
  int64_t dilation = 1; ///< seed 003's rate D (1 = ordinary)
  int64_t padBegin = 0; ///< Conv: leading pad; ConvTranspose: PyTorch-style crop (>= 0)
};

/// What one weight position contributes to one tile, along one axis.
struct AxisPlan {
  int64_t srcFirst = 0; ///< first input index streamed
  int64_t srcStep = 1;  ///< input index increment (Conv: stride; ConvTranspose: 1)
  int64_t dstFirst = 0; ///< first tile entry index (0-based within the tile) written
  int64_t dstStep = 1;  ///< tile entry increment (Conv: 1; ConvTranspose: stride)
  int64_t count = 0;    ///< elements (= writes) along this axis
};

/// Normal or dilated convolution: output o reads input o*stride + k*dilation - padBegin.
/// For tile entries [tileFirst, tileFirst + tileLen) and kernel index k, returns the plan, or
/// nullopt when no entry of the tile meets an in-range input (padding only).
std::optional<AxisPlan> convAxisPlan(const AxisGeometry& g, int64_t tileFirst, int64_t tileLen,
                                     int64_t k);

/// Transposed convolution (scatter form): input i contributes to output
/// i*stride + k*dilation - padBegin. Same contract as convAxisPlan. \p k is the ORIGINAL kernel
/// index; the rotated index (kernel-1-k) and the dilated-input view are in rotatedIndex() /
/// dilatedFirst() for reporting and the patent cross-checks.
std::optional<AxisPlan> transposedAxisPlan(const AxisGeometry& g, int64_t tileFirst,
                                           int64_t tileLen, int64_t k);

/// Seed 000 Eq. 6/7: the 180-degree rotated index of original index k.
inline int64_t rotatedIndex(int64_t kernel, int64_t k) {
  return kernel - 1 - k;
}
/// Seed 000 §3.5: the zero border B = (kernel-1)*dilation - padBegin of the zero-inserted
/// ("dilated") input of a transposed convolution; input i sits at dilated coordinate i*stride+B.
int64_t dilatedBorder(const AxisGeometry& g);
/// Seed 000 para [0108]: coordinate, in the zero-inserted ("dilated") input with border
/// B = (kernel-1)*dilation - padBegin, of the first input element the plan streams; dividing
/// (it - B) by the stride gives plan.srcFirst (the start address of FIG. 6G). It also equals
/// tileFirst + plan.dstFirst + rotatedIndex(kernel, k)*dilation (first destination shifted by
/// the rotated coordinate, the patent's offset 650). Meaningful for transposedAxisPlan only.
int64_t dilatedFirst(const AxisGeometry& g, const AxisPlan& plan);

/// A full 2-D plan for one weight (r, s) and one tile: rows = H axis, cols = W axis.
struct WeightPlan {
  AxisPlan rows, cols;
  int64_t count() const { return rows.count * cols.count; }
};

/// 2-D plans; nullopt when either axis is empty.
std::optional<WeightPlan> convWeightPlan(const AxisGeometry& h, const AxisGeometry& w,
                                         int64_t tileRow0, int64_t tileRows, int64_t tileCol0,
                                         int64_t tileCols, int64_t r, int64_t s);
std::optional<WeightPlan> transposedWeightPlan(const AxisGeometry& h, const AxisGeometry& w,
                                               int64_t tileRow0, int64_t tileRows, int64_t tileCol0,
                                               int64_t tileCols, int64_t r, int64_t s);

/// Visits a plan's elements in stream order (rows outer, columns inner), calling
/// f(srcRow, srcCol, dstRow, dstCol) with input coordinates and 0-based tile entry coordinates:
/// the meaning of a plan, shared by the functional model and the tests.
template <class F> void forEachElement(const WeightPlan& plan, F&& f) {
  for (int64_t o = 0; o < plan.rows.count; ++o) {
    for (int64_t i = 0; i < plan.cols.count; ++i) {
      f(plan.rows.srcFirst + o * plan.rows.srcStep, plan.cols.srcFirst + i * plan.cols.srcStep,
        plan.rows.dstFirst + o * plan.rows.dstStep, plan.cols.dstFirst + i * plan.cols.dstStep);
    }
  }
}

/// The input index range [first, last] any kernel position of a tile reads (for DMA windows);
/// nullopt when the tile reads no input at all (only possible for ConvTranspose tails).
struct IndexRange {
  int64_t first = 0, last = -1;
  int64_t size() const { return last - first + 1; }
};
std::optional<IndexRange> convInputRange(const AxisGeometry& g, int64_t tileFirst, int64_t tileLen);
std::optional<IndexRange> transposedInputRange(const AxisGeometry& g, int64_t tileFirst,
                                               int64_t tileLen);

} // namespace nnaccel::arch::systolic
