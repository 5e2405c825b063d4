/// \file
/// Per-weight access parameters of seeds 000 (transposed convolution without zero insertion)
/// and 003 (dilated convolution): closed forms per axis, 2-D plans, and DMA input windows.
///
/// Everything reduces to one affine map per axis, input a <-> output y with
/// y*stride + k*dilation - padBegin = a (Conv) or a*stride + k*dilation - padBegin = y
/// (ConvTranspose), intersected with the tile [tileFirst, tileFirst + tileLen) and the input
/// [0, in). Both intersections are intervals, so a plan is (first, step, count) per axis.
/// Derivations and the mapping to the patents' terms are in docs/arch/SystolicAccessPlan.md.
///
/// The geometry comes from the compiler, which validated the model, so malformed geometry is
/// an internal error (NNACCEL_ASSERT), as is any intermediate value that would overflow int64.
#include "nnaccel/arch/systolic/AccessPlan.h"

#include "nnaccel/support/Error.h"
#include "nnaccel/support/IntMath.h"

#include <algorithm>

namespace nnaccel::arch::systolic {
namespace {

int64_t addChecked(int64_t a, int64_t b) {
  int64_t result = 0;
  NNACCEL_ASSERT(!__builtin_add_overflow(a, b, &result))
      << "access plan: " << a << " + " << b << " overflows int64";
  return result;
}

int64_t subChecked(int64_t a, int64_t b) {
  int64_t result = 0;
  NNACCEL_ASSERT(!__builtin_sub_overflow(a, b, &result))
      << "access plan: " << a << " - " << b << " overflows int64";
  return result;
}

int64_t mulChecked(int64_t a, int64_t b) {
  int64_t result = 0;
  NNACCEL_ASSERT(!__builtin_mul_overflow(a, b, &result))
      << "access plan: " << a << " * " << b << " overflows int64";
  return result;
}

void checkGeometry(const AxisGeometry& g) {
  NNACCEL_ASSERT(g.in >= 1 && g.out >= 1 && g.kernel >= 1 && g.stride >= 1 && g.dilation >= 1 &&
                 g.padBegin >= 0)
      << "access plan: bad axis geometry in=" << g.in << " out=" << g.out << " kernel=" << g.kernel
      << " stride=" << g.stride << " dilation=" << g.dilation << " padBegin=" << g.padBegin;
}

/// The tile must be a non-empty part of the output [0, out).
void checkTile(const AxisGeometry& g, int64_t tileFirst, int64_t tileLen) {
  checkGeometry(g);
  NNACCEL_ASSERT(tileFirst >= 0 && tileLen >= 1 && addChecked(tileFirst, tileLen) <= g.out)
      << "access plan: tile [" << tileFirst << ", +" << tileLen << ") outside output extent "
      << g.out;
}

/// k*dilation - padBegin: where kernel index k shifts the input/output correspondence.
int64_t kernelShift(const AxisGeometry& g, int64_t k) {
  NNACCEL_ASSERT(k >= 0 && k < g.kernel)
      << "access plan: kernel index " << k << " outside [0, " << g.kernel << ")";
  return subChecked(mulChecked(k, g.dilation), g.padBegin);
}

/// Last index (inclusive) of a tile; overflow-checked by checkTile.
int64_t tileLast(int64_t tileFirst, int64_t tileLen) {
  return tileFirst + tileLen - 1;
}

/// Hull of the input indices that the plans of every kernel position read.
template <class PlanFn>
std::optional<IndexRange> inputHull(const AxisGeometry& g, int64_t tileFirst, int64_t tileLen,
                                    PlanFn planFn) {
  std::optional<IndexRange> hull;
  for (int64_t k = 0; k < g.kernel; ++k) {
    const std::optional<AxisPlan> plan = planFn(g, tileFirst, tileLen, k);
    if (!plan) {
      continue;
    }
    const int64_t last = plan->srcFirst + (plan->count - 1) * plan->srcStep;
    if (!hull) {
      hull = IndexRange{plan->srcFirst, last};
    } else {
      hull->first = std::min(hull->first, plan->srcFirst);
      hull->last = std::max(hull->last, last);
    }
  }
  return hull;
}

} // namespace

std::optional<AxisPlan> convAxisPlan(const AxisGeometry& g, int64_t tileFirst, int64_t tileLen,
                                     int64_t k) {
  checkTile(g, tileFirst, tileLen);
  const int64_t shift = kernelShift(g, k);
  // Input a = o*stride + shift lies in [0, in) iff o in [ceil(-shift/S), floor((in-1-shift)/S)].
  const int64_t outFirst = std::max(tileFirst, ceilDiv(subChecked(0, shift), g.stride));
  const int64_t outLast =
      std::min(tileLast(tileFirst, tileLen), floorDiv(subChecked(g.in - 1, shift), g.stride));
  if (outFirst > outLast) {
    return std::nullopt;
  }
  return AxisPlan{.srcFirst = addChecked(mulChecked(outFirst, g.stride), shift),
                  .srcStep = g.stride,
                  .dstFirst = outFirst - tileFirst,
                  .dstStep = 1,
                  .count = outLast - outFirst + 1};
}

std::optional<AxisPlan> transposedAxisPlan(const AxisGeometry& g, int64_t tileFirst,
                                           int64_t tileLen, int64_t k) {
  checkTile(g, tileFirst, tileLen);
  const int64_t shift = kernelShift(g, k);
  // Output y = i*stride + shift lies in the tile iff
  // i in [ceil((tileFirst-shift)/S), floor((tileLast-shift)/S)]; clip to the input [0, in).
  const int64_t inFirst = std::max<int64_t>(0, ceilDiv(subChecked(tileFirst, shift), g.stride));
  const int64_t inLast =
      std::min(g.in - 1, floorDiv(subChecked(tileLast(tileFirst, tileLen), shift), g.stride));
  if (inFirst > inLast) {
    return std::nullopt;
  }
  return AxisPlan{.srcFirst = inFirst,
                  .srcStep = 1,
                  .dstFirst = addChecked(mulChecked(inFirst, g.stride), shift) - tileFirst,
                  .dstStep = g.stride,
                  .count = inLast - inFirst + 1};
}

int64_t dilatedBorder(const AxisGeometry& g) {
  checkGeometry(g);
  return subChecked(mulChecked(g.kernel - 1, g.dilation), g.padBegin);
}

int64_t dilatedFirst(const AxisGeometry& g, const AxisPlan& plan) {
  return addChecked(mulChecked(plan.srcFirst, g.stride), dilatedBorder(g));
}

namespace {
/// Combines two axis plans into a 2-D plan (nullopt if either is empty).
std::optional<WeightPlan> combine(const std::optional<AxisPlan>& rows,
                                  const std::optional<AxisPlan>& cols) {
  if (!rows || !cols) {
    return std::nullopt;
  }
  (void)mulChecked(rows->count, cols->count); // WeightPlan::count() must not overflow
  return WeightPlan{*rows, *cols};
}
} // namespace

std::optional<WeightPlan> convWeightPlan(const AxisGeometry& h, const AxisGeometry& w,
                                         int64_t tileRow0, int64_t tileRows, int64_t tileCol0,
                                         int64_t tileCols, int64_t r, int64_t s) {
  return combine(convAxisPlan(h, tileRow0, tileRows, r), convAxisPlan(w, tileCol0, tileCols, s));
}

std::optional<WeightPlan> transposedWeightPlan(const AxisGeometry& h, const AxisGeometry& w,
                                               int64_t tileRow0, int64_t tileRows, int64_t tileCol0,
                                               int64_t tileCols, int64_t r, int64_t s) {
  return combine(transposedAxisPlan(h, tileRow0, tileRows, r),
                 transposedAxisPlan(w, tileCol0, tileCols, s));
}

std::optional<IndexRange> convInputRange(const AxisGeometry& g, int64_t tileFirst,
                                         int64_t tileLen) {
  return inputHull(g, tileFirst, tileLen, convAxisPlan);
}

std::optional<IndexRange> transposedInputRange(const AxisGeometry& g, int64_t tileFirst,
                                               int64_t tileLen) {
  return inputHull(g, tileFirst, tileLen, transposedAxisPlan);
}

} // namespace nnaccel::arch::systolic
