/// \file
/// Data movement (Transpose, Slice, DepthToSpace, Pad in every mode, a subsampling nearest
/// Resize) as DMA address generation: the shared strided passes of arch/common/Elementwise.h
/// become DRAM-to-DRAM DMA_COPY instructions (a constant Pad's border a zero fill, an edge or
/// reflect one's border copies of single rows), three pattern levels each and one instruction
/// per index of any further outer axis. Seed 000's DMA engine moves tensors between memories with
/// address patterns (docs/arch/SystolicIsa.md); nothing passes through the array.
#include "CompilerContext.h"
#include "nnaccel/arch/common/Elementwise.h"
#include "nnaccel/support/Error.h"

#include <algorithm>

namespace nnaccel::arch::systolic {

namespace {

/// One pass axis: its extent and the element strides of its source and destination.
struct PassAxis {
  int64_t extent = 1, src = 0, dst = 0;
};

/// The pass's axes with extent > 1, outermost first.
std::vector<PassAxis> movingAxes(const common::ElementwisePass& p) {
  std::vector<PassAxis> axes;
  for (size_t k = 0; k < p.extents.size(); ++k)
    if (p.extents[k] > 1)
      axes.push_back({p.extents[k], p.a.strides.empty() ? 0 : p.a.strides[k], p.out.strides[k]});
  return axes;
}

} // namespace

std::string dataMovementObstacle(const common::ElementwiseLayer& l) {
  for (const common::ElementwisePass& p : l.passes) {
    if (p.func != common::ElementwiseFunc::Copy && p.func != common::ElementwiseFunc::Fill)
      return "a data movement that changes values";
    for (const PassAxis& a : movingAxes(p))
      if (a.src < 0 || a.dst < 0)
        return "a negative-step slice (DMA patterns step forward)";
  }
  return {};
}

void lowerDataMovement(CompilerContext& ctx, const common::ElementwiseLayer& l, int32_t inTensor,
                       int32_t outTensor) {
  const Range src = ctx.dramRange(inTensor), dst = ctx.dramRange(outTensor);
  const int64_t inBase = ctx.program.tensors[static_cast<size_t>(inTensor)].addr;
  const int64_t outBase = ctx.program.tensors[static_cast<size_t>(outTensor)].addr;
  for (const common::ElementwisePass& p : l.passes) {
    if (p.points() == 0)
      continue;
    std::vector<PassAxis> axes = movingAxes(p);
    while (axes.size() < 3)
      axes.insert(axes.begin(), PassAxis{});
    // Axes beyond the three pattern levels: one DMA_COPY per index of the outer ones.
    const size_t outer = axes.size() - 3;
    int64_t outerCount = 1;
    for (size_t k = 0; k < outer; ++k)
      outerCount *= axes[k].extent;
    for (int64_t n = 0; n < outerCount; ++n) {
      int64_t srcOff = p.a.offset, dstOff = p.out.offset;
      for (int64_t k = static_cast<int64_t>(outer) - 1, rest = n; k >= 0; --k) {
        const PassAxis& a = axes[static_cast<size_t>(k)];
        srcOff += (rest % a.extent) * a.src;
        dstOff += (rest % a.extent) * a.dst;
        rest /= a.extent;
      }
      const PassAxis &ap = axes[outer], &ao = axes[outer + 1], &ai = axes[outer + 2];
      DmaCopy op;
      op.fillZero = p.func == common::ElementwiseFunc::Fill;
      op.fillValue = op.fillZero ? p.zero.out : 0; // the code of real 0
      op.elemBytes = 1;
      op.partitionCount = ap.extent;
      op.outerCount = ao.extent;
      op.innerCount = ai.extent;
      op.src = DramPattern{inBase + srcOff, ap.src, ao.src, ai.src};
      op.dst = DramPattern{outBase + dstOff, ap.dst, ao.dst, ai.dst};
      ctx.emitter.emit(op, op.fillZero ? std::vector<Range>{} : std::vector<Range>{src}, {dst});
    }
  }
}

} // namespace nnaccel::arch::systolic
