/// \file
/// Engine assignment, mnemonics and equality of systolic instructions (include/.../Isa.h), plus
/// the small Program.h helpers that need no codec.
#include "nnaccel/arch/systolic/Isa.h"

#include "nnaccel/arch/systolic/Program.h"
#include "nnaccel/support/Error.h"

#include <cstring>
#include <type_traits>

namespace nnaccel::arch::systolic {
namespace {

template <class... Fs> struct Overloaded : Fs... { using Fs::operator()...; };
template <class... Fs> Overloaded(Fs...) -> Overloaded<Fs...>;

} // namespace

Engine engineOf(const Op& op) {
  return std::visit(Overloaded{
                        [](const DmaLoad&) { return Engine::Dma; },
                        [](const DmaStore&) { return Engine::Dma; },
                        [](const DmaCopy&) { return Engine::Dma; },
                        [](const LoadWeights&) { return Engine::Pe; },
                        [](const Matmul&) { return Engine::Pe; },
                        [](const PsumReset&) { return Engine::Pe; },
                        [](const Activate&) { return Engine::Act; },
                        [](const Pool&) { return Engine::Pool; },
                        [](const HostOp&) { return Engine::Host; },
                        [](const Barrier&) { return Engine::Control; },
                        // The vector unit shares the pooling engine's SBUF lanes (Isa.h).
                        [](const Vector&) { return Engine::Pool; },
                    },
                    op);
}

const char* engineName(Engine e) {
  switch (e) {
  case Engine::Dma:
    return "DMA";
  case Engine::Pe:
    return "PE";
  case Engine::Act:
    return "ACT";
  case Engine::Pool:
    return "POOL";
  case Engine::Host:
    return "HOST";
  case Engine::Control:
    return "CTRL";
  }
  return "?";
}

const char* mnemonic(const Op& op) {
  static constexpr const char* kNames[] = {"DMA_LOAD", "DMA_STORE",  "DMA_COPY", "LOAD_WEIGHTS",
                                           "MATMUL",   "PSUM_RESET", "ACTIVATE", "POOL",
                                           "HOST",     "BARRIER",    "VECTOR"};
  static_assert(std::size(kNames) == std::variant_size_v<Op>);
  return kNames[op.index()];
}

namespace {
// Field-wise equality; every op struct is an aggregate of scalars, DramPattern and enums.
bool samePattern(const DramPattern& a, const DramPattern& b) {
  return a.addr == b.addr && a.partitionStride == b.partitionStride &&
         a.outerStride == b.outerStride && a.innerStep == b.innerStep;
}
bool sameFloat(float a, float b) {
  return std::memcmp(&a, &b, sizeof a) == 0;
}

bool sameOp(const DmaLoad& a, const DmaLoad& b) {
  return a.space == b.space && a.elemBytes == b.elemBytes && a.partitionStart == b.partitionStart &&
         a.partitionCount == b.partitionCount && a.outerCount == b.outerCount &&
         a.innerCount == b.innerCount && samePattern(a.dram, b.dram) && a.sbufAddr == b.sbufAddr &&
         a.sbufOuterStride == b.sbufOuterStride;
}
bool sameOp(const DmaStore& a, const DmaStore& b) {
  return a.elemBytes == b.elemBytes && a.partitionStart == b.partitionStart &&
         a.partitionCount == b.partitionCount && a.outerCount == b.outerCount &&
         a.innerCount == b.innerCount && samePattern(a.dram, b.dram) && a.sbufAddr == b.sbufAddr &&
         a.sbufOuterStride == b.sbufOuterStride;
}
bool sameOp(const DmaCopy& a, const DmaCopy& b) {
  return a.fillZero == b.fillZero && a.elemBytes == b.elemBytes &&
         a.partitionCount == b.partitionCount && a.outerCount == b.outerCount &&
         a.innerCount == b.innerCount && samePattern(a.src, b.src) && samePattern(a.dst, b.dst);
}
bool sameOp(const LoadWeights& a, const LoadWeights& b) {
  return a.addr == b.addr && a.rows == b.rows && a.cols == b.cols && a.colStride == b.colStride;
}
bool sameOp(const Matmul& a, const Matmul& b) {
  return a.rows == b.rows && a.cols == b.cols && a.src == b.src &&
         a.srcInnerStep == b.srcInnerStep && a.srcInnerCount == b.srcInnerCount &&
         a.srcOuterStride == b.srcOuterStride && a.srcOuterCount == b.srcOuterCount &&
         a.dst == b.dst && a.dstInnerStep == b.dstInnerStep && a.dstInnerCount == b.dstInnerCount &&
         a.dstOuterStride == b.dstOuterStride && a.dstOuterCount == b.dstOuterCount &&
         a.accumulate == b.accumulate;
}
bool sameOp(const PsumReset& a, const PsumReset& b) {
  return a.addr == b.addr && a.entries == b.entries && a.cols == b.cols;
}
bool sameOp(const Activate& a, const Activate& b) {
  return a.psum == b.psum && a.psumRowStride == b.psumRowStride && a.rows == b.rows &&
         a.rowLen == b.rowLen && a.colStart == b.colStart && a.cols == b.cols &&
         a.dstPartition == b.dstPartition && a.dst == b.dst && a.dstRowStride == b.dstRowStride &&
         a.elemBytes == b.elemBytes && a.tableSlot == b.tableSlot && a.func == b.func &&
         a.clampLo == b.clampLo && a.clampHi == b.clampHi && sameFloat(a.alpha, b.alpha) &&
         sameFloat(a.beta, b.beta) && sameFloat(a.gamma, b.gamma) &&
         a.releaseEntries == b.releaseEntries;
}
bool sameOp(const Pool& a, const Pool& b) {
  return a.kind == b.kind && a.elemBytes == b.elemBytes && a.partitionStart == b.partitionStart &&
         a.partitions == b.partitions && a.src == b.src && a.srcRowStride == b.srcRowStride &&
         a.srcRow0 == b.srcRow0 && a.srcRows == b.srcRows && a.inH == b.inH && a.inW == b.inW &&
         a.dst == b.dst && a.dstRowStride == b.dstRowStride && a.outRow0 == b.outRow0 &&
         a.outRows == b.outRows && a.outW == b.outW && a.kernelH == b.kernelH &&
         a.kernelW == b.kernelW && a.strideH == b.strideH && a.strideW == b.strideW &&
         a.padTop == b.padTop && a.padLeft == b.padLeft && a.padBottom == b.padBottom &&
         a.padRight == b.padRight && a.dilH == b.dilH && a.dilW == b.dilW &&
         a.countIncludePad == b.countIncludePad && a.tableRow0 == b.tableRow0;
}
bool sameOp(const HostOp& a, const HostOp& b) {
  return a.node == b.node && a.layer == b.layer;
}
bool sameOp(const Barrier&, const Barrier&) {
  return true;
}
bool sameOp(const Vector& a, const Vector& b) {
  return a == b;
}

} // namespace

bool operator==(const Instruction& a, const Instruction& b) {
  if (a.op.index() != b.op.index())
    return false;
  for (size_t i = 0; i < a.sync.waits.size(); ++i)
    if (a.sync.waits[i].sem != b.sync.waits[i].sem ||
        a.sync.waits[i].count != b.sync.waits[i].count)
      return false;
  if (a.sync.signal != b.sync.signal)
    return false;
  return std::visit(
      [&](const auto& x) {
        using T = std::decay_t<decltype(x)>;
        return sameOp(x, std::get<T>(b.op));
      },
      a.op);
}

int64_t DramTensor::bytes() const {
  return numElements(shape) * static_cast<int64_t>(dtypeSizeBytes(dtype));
}

const char* layerUnitName(LayerUnit u) {
  switch (u) {
  case LayerUnit::PeArray:
    return "array";
  case LayerUnit::Pool:
    return "pool";
  case LayerUnit::Host:
    return "host";
  case LayerUnit::View:
    return "view";
  case LayerUnit::Vector:
    return "vector";
  }
  return "?";
}

} // namespace nnaccel::arch::systolic
