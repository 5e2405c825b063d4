/// \file
/// Lowering of MaxPool / AveragePool / global pooling onto the pooling engine (seed 000 §1.5:
/// one execution channel per column; here one lane per partition, poolLanes at a time). Each
/// channel block of peRows partitions is processed in bands of output rows whose input rows
/// fit the state buffer, double-buffered like the convolutions.
#include "CompilerContext.h"
#include "nnaccel/support/Error.h"

#include <algorithm>
#include <cstring>

namespace nnaccel::arch::systolic {

bool lowerPool(CompilerContext& ctx, const PoolDesc& d) {
  const SystolicConfig& cfg = ctx.config;
  const int64_t eb = ctx.elemBytes;
  if (static_cast<int64_t>(d.countTable.size()) > kPoolTableEntries)
    return false;
  // Input rows a band of `band` output rows starting at oy0 reads.
  auto inRows = [&](int64_t oy0, int64_t band, int64_t& first) {
    const int64_t lo = std::max<int64_t>(0, oy0 * d.strideH - d.padTop);
    const int64_t hi =
        std::min(d.inH - 1, (oy0 + band - 1) * d.strideH - d.padTop + (d.kernelH - 1) * d.dilH);
    first = lo;
    return std::max<int64_t>(0, hi - lo + 1);
  };
  auto bandBytes = [&](int64_t band) {
    int64_t maxRows = 0, first = 0;
    for (int64_t oy0 = 0; oy0 < d.outH; oy0 += band)
      maxRows = std::max(maxRows, inRows(oy0, std::min(band, d.outH - oy0), first));
    return 2 * (maxRows * d.inW + band * d.outW) * eb;
  };
  int64_t band = d.outH;
  while (band > 1 && bandBytes(band) > ctx.sbufBytes())
    band = (band + 1) / 2;
  if (bandBytes(band) > ctx.sbufBytes())
    return false;
  int64_t maxInRows = 0;
  {
    int64_t first = 0;
    for (int64_t oy0 = 0; oy0 < d.outH; oy0 += band)
      maxInRows = std::max(maxInRows, inRows(oy0, std::min(band, d.outH - oy0), first));
  }
  const int64_t inBufBytes = maxInRows * d.inW * eb;
  const int64_t outBufBytes = band * d.outW * eb;
  const int64_t inAddr[2] = {0, inBufBytes};
  const int64_t outAddr[2] = {2 * inBufBytes, 2 * inBufBytes + outBufBytes};

  Emitter& em = ctx.emitter;
  const Range inDram = ctx.dramRange(d.inTensor);
  const Range outDram = ctx.dramRange(d.outTensor);
  const int64_t inBase = ctx.program.tensors[static_cast<size_t>(d.inTensor)].addr;
  const int64_t outBase = ctx.program.tensors[static_cast<size_t>(d.outTensor)].addr;

  if (!d.countTable.empty()) {
    std::vector<uint8_t> table(d.countTable.size() * kPoolRecordBytes, 0);
    for (size_t i = 0; i < d.countTable.size(); ++i)
      std::memcpy(table.data() + i * kPoolRecordBytes, d.countTable[i].data(), 3 * sizeof(int32_t));
    const int64_t bytes = static_cast<int64_t>(table.size());
    const int64_t addr = ctx.addSegment(std::move(table));
    DmaLoad t;
    t.space = OnChip::PoolTable;
    t.elemBytes = 1;
    t.partitionCount = 1;
    t.innerCount = bytes;
    t.dram.addr = addr;
    t.dram.innerStep = 1;
    em.emit(t, {Range{Space::Dram, addr, addr + bytes}}, {Range{Space::PoolTable, 0, 1}});
  }

  struct Step {
    int64_t n, c0, cCount, oy0, rows, inRow0, inRows;
  };
  std::vector<Step> steps;
  for (int64_t n = 0; n < d.batch; ++n)
    for (int64_t c0 = 0; c0 < d.channels; c0 += cfg.peRows)
      for (int64_t oy0 = 0; oy0 < d.outH; oy0 += band) {
        Step s{n, c0, std::min(cfg.peRows, d.channels - c0), oy0, std::min(band, d.outH - oy0),
               0, 0};
        s.inRows = inRows(s.oy0, s.rows, s.inRow0);
        steps.push_back(s);
      }
  const int64_t plane = d.inH * d.inW, outPlane = d.outH * d.outW;
  auto sbuf = [](int64_t a, int64_t bytes) { return Range{Space::Sbuf, a, a + bytes}; };
  auto load = [&](int64_t k) {
    const Step& s = steps[static_cast<size_t>(k)];
    if (s.inRows == 0)
      return;
    DmaLoad op;
    op.elemBytes = eb;
    op.partitionCount = s.cCount;
    op.outerCount = s.inRows;
    op.innerCount = d.inW;
    op.dram.addr = inBase + ((s.n * d.channels + s.c0) * plane + s.inRow0 * d.inW) * eb;
    op.dram.partitionStride = plane * eb;
    op.dram.outerStride = d.inW * eb;
    op.dram.innerStep = eb;
    op.sbufAddr = inAddr[k % 2];
    op.sbufOuterStride = d.inW * eb;
    em.emit(op, {inDram}, {sbuf(op.sbufAddr, inBufBytes)});
  };
  auto compute = [&](int64_t k) {
    const Step& s = steps[static_cast<size_t>(k)];
    Pool p;
    p.kind = d.kind;
    p.elemBytes = eb;
    p.partitions = s.cCount;
    p.src = inAddr[k % 2];
    p.srcRowStride = d.inW * eb;
    p.srcRow0 = s.inRow0;
    p.srcRows = s.inRows;
    p.inH = d.inH;
    p.inW = d.inW;
    p.dst = outAddr[k % 2];
    p.dstRowStride = d.outW * eb;
    p.outRow0 = s.oy0;
    p.outRows = s.rows;
    p.outW = d.outW;
    p.kernelH = d.kernelH;
    p.kernelW = d.kernelW;
    p.strideH = d.strideH;
    p.strideW = d.strideW;
    p.padTop = d.padTop;
    p.padLeft = d.padLeft;
    p.padBottom = d.padBottom;
    p.padRight = d.padRight;
    p.dilH = d.dilH;
    p.dilW = d.dilW;
    p.countIncludePad = d.countIncludePad;
    std::vector<Range> reads{sbuf(p.src, inBufBytes)};
    if (!d.countTable.empty())
      reads.push_back(Range{Space::PoolTable, 0, 1});
    em.emit(p, reads, {sbuf(p.dst, outBufBytes)});
  };
  auto drain = [&](int64_t k) {
    const Step& s = steps[static_cast<size_t>(k)];
    DmaStore op;
    op.elemBytes = eb;
    op.partitionCount = s.cCount;
    op.outerCount = 1;
    op.innerCount = s.rows * d.outW;
    op.dram.addr = outBase + ((s.n * d.channels + s.c0) * outPlane + s.oy0 * d.outW) * eb;
    op.dram.partitionStride = outPlane * eb;
    op.dram.innerStep = eb;
    op.sbufAddr = outAddr[k % 2];
    op.sbufOuterStride = s.rows * d.outW * eb;
    em.emit(op, {sbuf(op.sbufAddr, outBufBytes)}, {outDram});
  };
  emitPipelined(static_cast<int64_t>(steps.size()), load, compute, drain);
  return true;
}

} // namespace nnaccel::arch::systolic
