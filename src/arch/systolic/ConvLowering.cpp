/// \file
/// Lowering of one convolution-like layer onto the weight-stationary array (seed 000 §4.2's data
/// scheduler, generalised): output-channel blocks of peCols (several groups packed
/// block-diagonally when they are small, e.g. depthwise), input-channel blocks of peRows that
/// accumulate into the same PSUM tile, output tiles sized from the PSUM capacity, and one
/// LOAD_WEIGHTS + MATMUL per weight element that touches the tile (AccessPlan.h; padding and
/// zero insertion are never streamed). Inputs stay resident in the state buffer when they fit,
/// else each tile's input window is streamed with double buffering.
#include "CompilerContext.h"
#include "nnaccel/support/Error.h"

#include <algorithm>
#include <cstring>
#include <fmt/format.h>

namespace nnaccel::arch::systolic {
namespace {

int64_t ceilDiv(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}

struct CBlock {
  int64_t begin = 0, count = 0;
  int64_t slot = 0; ///< index among the layer's distinct input-channel blocks
};
struct MBlock {
  int64_t begin = 0, count = 0;
  std::vector<CBlock> cBlocks;
  int64_t weightOffset = 0; ///< byte offset of this block's packed weights
};

/// Output-channel blocks with their input-channel blocks.
std::vector<MBlock> makeBlocks(const ConvDesc& d, int64_t peRows, int64_t peCols,
                               int64_t& distinctCBlocks) {
  const int64_t cg = d.inChannels / d.groups, mg = d.outChannels / d.groups;
  std::vector<MBlock> blocks;
  distinctCBlocks = 0;
  if (cg <= peRows && mg <= peCols) {
    const int64_t pack = std::min({d.groups, peRows / cg, peCols / mg});
    for (int64_t g0 = 0; g0 < d.groups; g0 += pack) {
      const int64_t n = std::min(pack, d.groups - g0);
      blocks.push_back(MBlock{g0 * mg, n * mg, {CBlock{g0 * cg, n * cg, distinctCBlocks++}}, 0});
    }
    return blocks;
  }
  for (int64_t grp = 0; grp < d.groups; ++grp) {
    const int64_t firstSlot = distinctCBlocks;
    int64_t slots = 0;
    for (int64_t m0 = 0; m0 < mg; m0 += peCols) {
      MBlock b{grp * mg + m0, std::min(peCols, mg - m0), {}, 0};
      int64_t k = 0;
      for (int64_t c0 = 0; c0 < cg; c0 += peRows, ++k)
        b.cBlocks.push_back(CBlock{grp * cg + c0, std::min(peRows, cg - c0), firstSlot + k});
      slots = k;
      blocks.push_back(std::move(b));
    }
    distinctCBlocks += slots;
  }
  return blocks;
}

int64_t kernelVolume(const ConvDesc& d) {
  return d.h.kernel * d.w.kernel;
}

/// Bytes per partition of one block's packed weights for one input-channel block.
int64_t blockWeightBytes(const ConvDesc& d, int64_t mCount, int64_t elemBytes) {
  return mCount * kernelVolume(d) * elemBytes;
}

std::optional<IndexRange> inputRange(const ConvDesc& d, const AxisGeometry& g, int64_t first,
                                     int64_t len) {
  return d.transposed ? transposedInputRange(g, first, len) : convInputRange(g, first, len);
}

std::optional<WeightPlan> weightPlan(const ConvDesc& d, int64_t y0, int64_t th, int64_t x0,
                                     int64_t tw, int64_t r, int64_t s) {
  return d.transposed ? transposedWeightPlan(d.h, d.w, y0, th, x0, tw, r, s)
                      : convWeightPlan(d.h, d.w, y0, th, x0, tw, r, s);
}

/// The largest input window (rows x cols) any tile of size th x tw reads.
int64_t maxWindowElems(const ConvDesc& d, int64_t th, int64_t tw) {
  int64_t rows = 0, cols = 0;
  for (int64_t y0 = 0; y0 < d.h.out; y0 += th)
    if (auto r = inputRange(d, d.h, y0, std::min(th, d.h.out - y0)))
      rows = std::max(rows, r->size());
  for (int64_t x0 = 0; x0 < d.w.out; x0 += tw)
    if (auto c = inputRange(d, d.w, x0, std::min(tw, d.w.out - x0)))
      cols = std::max(cols, c->size());
  return rows * cols;
}

struct Layout {
  int64_t th = 1, tw = 1; ///< tile shape (PSUM pitch = tw)
  int64_t psumHalves = 1, psumHalfEntries = 0;
  int64_t weightBufs = 1, weightBufBytes = 0;
  int64_t outChunks = 1, outBufBytes = 0; ///< per output buffer (two buffers)
  bool resident = false;
  int64_t inBufBytes = 0;      ///< resident: whole input; streamed: one window set (two buffers)
  int64_t windowSlotBytes = 0; ///< streamed: bytes per input-channel block within a window set
  // SBUF addresses
  int64_t weightAddr[2] = {0, 0}, outAddr[2] = {0, 0}, inAddr[2] = {0, 0};
};

} // namespace

int64_t usefulConvMacs(const ConvDesc& d) {
  int64_t pairs = 0;
  for (int64_t r = 0; r < d.h.kernel; ++r)
    for (int64_t s = 0; s < d.w.kernel; ++s)
      if (auto plan = weightPlan(d, 0, d.h.out, 0, d.w.out, r, s))
        pairs += plan->count();
  return pairs * d.batch * (d.inChannels / d.groups) * d.outChannels;
}

int64_t packedWeightBytes(const CompilerContext& ctx, const ConvDesc& d) {
  int64_t distinct = 0;
  int64_t total = 0;
  for (const MBlock& b : makeBlocks(d, ctx.config.peRows, ctx.config.peCols, distinct))
    for (const CBlock& c : b.cBlocks)
      total += c.count * blockWeightBytes(d, b.count, ctx.elemBytes);
  return total;
}

std::vector<uint8_t> packWeights(const CompilerContext& ctx, const ConvDesc& d) {
  int64_t distinct = 0;
  const auto blocks = makeBlocks(d, ctx.config.peRows, ctx.config.peCols, distinct);
  const int64_t cg = d.inChannels / d.groups, mg = d.outChannels / d.groups;
  const int64_t kv = kernelVolume(d);
  std::vector<uint8_t> bytes(static_cast<size_t>(packedWeightBytes(ctx, d)), 0);
  size_t pos = 0;
  for (const MBlock& b : blocks)
    for (const CBlock& cb : b.cBlocks)
      for (int64_t p = 0; p < cb.count; ++p) {
        const int64_t c = cb.begin + p;
        for (int64_t m = 0; m < b.count; ++m) {
          const int64_t mGlobal = b.begin + m;
          const bool sameGroup = c / cg == mGlobal / mg;
          for (int64_t k = 0; k < kv; ++k, pos += static_cast<size_t>(ctx.elemBytes))
            if (sameGroup)
              d.weightAt(mGlobal, c, k / d.w.kernel, k % d.w.kernel, bytes.data() + pos);
        }
      }
  NNACCEL_ASSERT(pos == bytes.size()) << "packed weight size mismatch";
  return bytes;
}

void emitPipelined(int64_t steps, const std::function<void(int64_t)>& load,
                   const std::function<void(int64_t)>& compute,
                   const std::function<void(int64_t)>& drain,
                   const std::function<bool(int64_t)>& canPrefetch) {
  if (steps == 0)
    return;
  load(0);
  for (int64_t k = 0; k < steps; ++k) {
    const bool next = k + 1 < steps;
    const bool early = next && (!canPrefetch || canPrefetch(k + 1));
    if (early)
      load(k + 1);
    compute(k);
    drain(k);
    if (next && !early)
      load(k + 1);
  }
}

void lowerConv(CompilerContext& ctx, const ConvDesc& d) {
  const SystolicConfig& cfg = ctx.config;
  const int64_t eb = ctx.elemBytes;
  int64_t distinct = 0;
  std::vector<MBlock> blocks = makeBlocks(d, cfg.peRows, cfg.peCols, distinct);
  {
    int64_t off = 0;
    for (MBlock& b : blocks) {
      b.weightOffset = off;
      for (const CBlock& c : b.cBlocks)
        off += c.count * blockWeightBytes(d, b.count, eb);
    }
  }
  const int64_t maxCBlocks = static_cast<int64_t>(
      std::max_element(blocks.begin(), blocks.end(), [](const MBlock& a, const MBlock& b) {
        return a.cBlocks.size() < b.cBlocks.size();
      })->cBlocks.size());
  int64_t maxMCount = 0;
  for (const MBlock& b : blocks)
    maxMCount = std::max(maxMCount, b.count);

  // ---- layout: PSUM tile, SBUF carve-up ----------------------------------------------------
  Layout L;
  L.psumHalves = cfg.psumEntriesPerColumn >= 2 ? 2 : 1;
  L.psumHalfEntries = cfg.psumEntriesPerColumn / L.psumHalves;
  L.tw = std::min({d.w.out, cfg.psumMaxTileCols, L.psumHalfEntries});
  L.th = std::min({d.h.out, cfg.psumMaxTileRows, L.psumHalfEntries / L.tw});
  const int64_t weightSetBytes = maxCBlocks * blockWeightBytes(d, maxMCount, eb);
  L.outChunks = ceilDiv(maxMCount, cfg.peRows);
  const int64_t sbuf = ctx.sbufBytes();
  auto fits = [&](int64_t weightBufs, int64_t th, int64_t tw, bool resident, int64_t& inBytes) {
    const int64_t out = 2 * L.outChunks * th * tw * eb;
    inBytes = resident ? distinct * d.h.in * d.w.in * eb
                       : 2 * maxCBlocks * maxWindowElems(d, th, tw) * eb;
    return weightBufs * weightSetBytes + out + inBytes <= sbuf;
  };
  int64_t inBytes = 0;
  bool placed = false;
  for (int64_t wb : {int64_t{2}, int64_t{1}}) {
    if (fits(wb, L.th, L.tw, true, inBytes)) {
      L.weightBufs = wb;
      L.resident = true;
      placed = true;
      break;
    }
  }
  if (!placed) {
    // Stream windows: shrink the tile (rows first) until two window sets fit.
    for (int64_t wb : {int64_t{2}, int64_t{1}}) {
      int64_t th = L.th, tw = L.tw;
      while (!fits(wb, th, tw, false, inBytes) && (th > 1 || tw > 1)) {
        if (th > 1)
          th = (th + 1) / 2;
        else
          tw = (tw + 1) / 2;
      }
      if (fits(wb, th, tw, false, inBytes)) {
        L.weightBufs = wb;
        L.th = th;
        L.tw = tw;
        placed = true;
        break;
      }
    }
  }
  if (!placed)
    ctx.g.fail(d.node,
               fmt::format("does not fit the state buffer ({} bytes per partition) even with a "
                           "1x1 output tile: the weights of one output-channel block need {} "
                           "bytes per partition",
                           sbuf, weightSetBytes),
               ErrorKind::Config);
  L.weightBufBytes = weightSetBytes;
  L.outBufBytes = L.outChunks * L.th * L.tw * eb;
  if (L.resident) {
    L.inBufBytes = inBytes;
  } else {
    L.windowSlotBytes = maxWindowElems(d, L.th, L.tw) * eb;
    L.inBufBytes = maxCBlocks * L.windowSlotBytes;
  }
  {
    int64_t a = 0;
    for (int64_t i = 0; i < L.weightBufs; ++i, a += L.weightBufBytes)
      L.weightAddr[i] = a;
    if (L.weightBufs == 1)
      L.weightAddr[1] = L.weightAddr[0];
    for (int i = 0; i < 2; ++i, a += L.outBufBytes)
      L.outAddr[i] = a;
    L.inAddr[0] = a;
    L.inAddr[1] = L.resident ? a : a + L.inBufBytes;
  }

  // ---- constants: packed weights and activation tables ------------------------------------
  const int64_t weightsDram =
      d.packedWeightsAddr >= 0 ? d.packedWeightsAddr : ctx.addSegment(packWeights(ctx, d));
  const int64_t weightsDramBytes = packedWeightBytes(ctx, d);
  std::vector<int64_t> actTableDram;
  for (const MBlock& b : blocks) {
    std::vector<uint8_t> rec(static_cast<size_t>(b.count * kActRecordBytes), 0);
    for (int64_t m = 0; m < b.count; ++m)
      d.actRecord(b.begin + m, rec.data() + m * kActRecordBytes);
    actTableDram.push_back(ctx.addSegment(std::move(rec)));
  }

  // ---- steps -------------------------------------------------------------------------------
  struct Step {
    int64_t n, block, y0, x0, th, tw;
    bool firstOfBlock, firstOfImage;
  };
  std::vector<Step> steps;
  for (int64_t n = 0; n < d.batch; ++n)
    for (size_t bi = 0; bi < blocks.size(); ++bi) {
      bool first = true;
      for (int64_t y0 = 0; y0 < d.h.out; y0 += L.th)
        for (int64_t x0 = 0; x0 < d.w.out; x0 += L.tw) {
          steps.push_back(Step{n, static_cast<int64_t>(bi), y0, x0, std::min(L.th, d.h.out - y0),
                               std::min(L.tw, d.w.out - x0), first, bi == 0 && y0 == 0 && x0 == 0});
          first = false;
        }
    }

  Emitter& em = ctx.emitter;
  const Range inDram = ctx.dramRange(d.inTensor);
  const Range outDram = ctx.dramRange(d.outTensor);
  const int64_t inBase = ctx.program.tensors[static_cast<size_t>(d.inTensor)].addr;
  const int64_t outBase = ctx.program.tensors[static_cast<size_t>(d.outTensor)].addr;
  auto sbufRange = [](int64_t addr, int64_t bytes) {
    return Range{Space::Sbuf, addr, addr + bytes};
  };
  int64_t blockCounter = -1; // index of the block whose weights were last loaded

  // Input window of a step: rows/cols of the input plane held in SBUF and its pitch.
  struct Window {
    int64_t row0 = 0, rows = 0, col0 = 0, cols = 0;
  };
  auto windowOf = [&](const Step& st) {
    Window w;
    if (L.resident)
      return Window{0, d.h.in, 0, d.w.in};
    auto rr = inputRange(d, d.h, st.y0, st.th);
    auto cr = inputRange(d, d.w, st.x0, st.tw);
    if (!rr || !cr)
      return w; // the tile reads no input (transposed tails)
    return Window{rr->first, rr->size(), cr->first, cr->size()};
  };
  auto inSlotAddr = [&](int64_t k, const CBlock& cb, int64_t cbIndex) {
    if (L.resident)
      return L.inAddr[0] + cb.slot * d.h.in * d.w.in * eb;
    return L.inAddr[k % 2] + cbIndex * L.windowSlotBytes;
  };
  auto loadInput = [&](int64_t n, int64_t k, const CBlock& cb, int64_t cbIndex, const Window& w) {
    if (w.rows == 0 || w.cols == 0)
      return;
    const int64_t dst = inSlotAddr(k, cb, cbIndex);
    DmaLoad op;
    op.space = OnChip::Sbuf;
    op.elemBytes = eb;
    op.partitionStart = 0;
    op.partitionCount = cb.count;
    op.outerCount = w.rows;
    op.innerCount = w.cols;
    op.dram.addr = inBase + (n * d.inNStride + cb.begin * d.inCStride + w.row0 * d.inYStride +
                             w.col0 * d.inXStride) *
                                eb;
    op.dram.partitionStride = d.inCStride * eb;
    op.dram.outerStride = d.inYStride * eb;
    op.dram.innerStep = d.inXStride * eb;
    op.sbufAddr = dst;
    op.sbufOuterStride = w.cols * eb;
    em.emit(op, {inDram}, {sbufRange(dst, w.rows * w.cols * eb)});
  };

  auto load = [&](int64_t k) {
    const Step& st = steps[static_cast<size_t>(k)];
    const MBlock& b = blocks[static_cast<size_t>(st.block)];
    if (st.firstOfBlock) {
      ++blockCounter;
      const int64_t wbuf = L.weightAddr[blockCounter % L.weightBufs == 0 ? 0 : 1];
      for (size_t j = 0; j < b.cBlocks.size(); ++j) {
        const CBlock& cb = b.cBlocks[j];
        const int64_t bytesPerPartition = blockWeightBytes(d, b.count, eb);
        int64_t off = b.weightOffset;
        for (size_t i = 0; i < j; ++i)
          off += b.cBlocks[i].count * bytesPerPartition;
        DmaLoad op;
        op.elemBytes = eb;
        op.partitionCount = cb.count;
        op.outerCount = 1;
        op.innerCount = b.count * kernelVolume(d);
        op.dram.addr = weightsDram + off;
        op.dram.partitionStride = bytesPerPartition;
        op.dram.innerStep = eb;
        op.sbufAddr = wbuf + static_cast<int64_t>(j) * bytesPerPartition;
        op.sbufOuterStride = bytesPerPartition;
        em.emit(op, {Range{Space::Dram, weightsDram, weightsDram + weightsDramBytes}},
                {sbufRange(op.sbufAddr, bytesPerPartition)});
      }
      DmaLoad t;
      t.space = OnChip::ActTable;
      t.elemBytes = 1;
      t.partitionCount = b.count;
      t.innerCount = kActRecordBytes;
      t.dram.addr = actTableDram[static_cast<size_t>(st.block)];
      t.dram.partitionStride = kActRecordBytes;
      t.dram.innerStep = 1;
      t.sbufAddr = (blockCounter % kActTableSlots) * kActRecordBytes;
      const int64_t slot = blockCounter % kActTableSlots;
      em.emit(t, {Range{Space::Dram, t.dram.addr, t.dram.addr + b.count * kActRecordBytes}},
              {Range{Space::ActTable, slot, slot + 1}});
    }
    if (L.resident) {
      if (st.firstOfImage) {
        int64_t seen = -1;
        for (const MBlock& mb : blocks)
          for (const CBlock& cb : mb.cBlocks)
            if (cb.slot > seen) {
              seen = cb.slot;
              loadInput(st.n, k, cb, 0, Window{0, d.h.in, 0, d.w.in});
            }
      }
    } else {
      const Window w = windowOf(st);
      for (size_t j = 0; j < b.cBlocks.size(); ++j)
        loadInput(st.n, k, b.cBlocks[j], static_cast<int64_t>(j), w);
    }
  };

  // Which block's weights / act slot a step uses: blocks are loaded in step order.
  std::vector<int64_t> blockOrdinal(steps.size());
  {
    int64_t c = -1;
    for (size_t k = 0; k < steps.size(); ++k) {
      if (steps[k].firstOfBlock)
        ++c;
      blockOrdinal[k] = c;
    }
  }

  auto psumBase = [&](int64_t k) { return (k % L.psumHalves) * L.psumHalfEntries; };

  auto compute = [&](int64_t k) {
    const Step& st = steps[static_cast<size_t>(k)];
    const MBlock& b = blocks[static_cast<size_t>(st.block)];
    const int64_t ord = blockOrdinal[static_cast<size_t>(k)];
    const int64_t wbuf = L.weightAddr[ord % L.weightBufs == 0 ? 0 : 1];
    const int64_t pbase = psumBase(k);
    const Range psum{Space::Psum, pbase, pbase + L.th * L.tw};
    const Window w = windowOf(st);
    const int64_t pitch = w.cols;

    struct Item {
      size_t cb;
      int64_t r, s;
      WeightPlan plan;
    };
    std::vector<Item> items;
    for (size_t j = 0; j < b.cBlocks.size(); ++j)
      for (int64_t r = 0; r < d.h.kernel; ++r)
        for (int64_t s = 0; s < d.w.kernel; ++s)
          if (auto plan = weightPlan(d, st.y0, st.th, st.x0, st.tw, r, s))
            items.push_back(Item{j, r, s, *plan});
    // The tile must start from zero: either a first MATMUL that writes every entry
    // (overwrite), a PSUM_RESET (FIG. 7A), or the written flags (FIG. 7B).
    bool overwriteFirst = false;
    if (cfg.psumZeroMode == PsumZeroMode::Reset) {
      auto full = std::find_if(items.begin(), items.end(),
                               [&](const Item& it) { return it.plan.count() == st.th * st.tw; });
      if (full != items.end()) {
        std::rotate(items.begin(), full, full + 1);
        overwriteFirst = true;
      } else {
        em.emit(PsumReset{pbase, L.th * L.tw, b.count}, {}, {psum});
      }
    }
    const int64_t bytesPerPartition = blockWeightBytes(d, b.count, eb);
    for (size_t i = 0; i < items.size(); ++i) {
      const Item& it = items[i];
      const CBlock& cb = b.cBlocks[it.cb];
      LoadWeights lw;
      lw.addr = wbuf + static_cast<int64_t>(it.cb) * bytesPerPartition +
                (it.r * d.w.kernel + it.s) * eb; // ORIGINAL (r, s)
      lw.rows = cb.count;
      lw.cols = b.count;
      lw.colStride = kernelVolume(d) * eb;
      em.emit(
          lw,
          {sbufRange(wbuf + static_cast<int64_t>(it.cb) * bytesPerPartition, bytesPerPartition)},
          {});
      const int64_t inAddr = inSlotAddr(k, cb, static_cast<int64_t>(it.cb));
      Matmul mm;
      mm.rows = cb.count;
      mm.cols = b.count;
      mm.src = inAddr +
               ((it.plan.rows.srcFirst - w.row0) * pitch + (it.plan.cols.srcFirst - w.col0)) * eb;
      mm.srcInnerStep = it.plan.cols.srcStep * eb;
      mm.srcInnerCount = it.plan.cols.count;
      mm.srcOuterStride = it.plan.rows.srcStep * pitch * eb;
      mm.srcOuterCount = it.plan.rows.count;
      mm.dst = pbase + it.plan.rows.dstFirst * L.tw + it.plan.cols.dstFirst;
      mm.dstInnerStep = it.plan.cols.dstStep;
      mm.dstInnerCount = it.plan.cols.count;
      mm.dstOuterStride = it.plan.rows.dstStep * L.tw;
      mm.dstOuterCount = it.plan.rows.count;
      mm.accumulate = !(i == 0 && overwriteFirst);
      const int64_t slotBytes = L.resident ? d.h.in * d.w.in * eb : L.windowSlotBytes;
      em.emit(mm, {sbufRange(inAddr, slotBytes)}, {psum});
    }
  };

  auto drain = [&](int64_t k) {
    const Step& st = steps[static_cast<size_t>(k)];
    const MBlock& b = blocks[static_cast<size_t>(st.block)];
    const int64_t ord = blockOrdinal[static_cast<size_t>(k)];
    const int64_t pbase = psumBase(k);
    const Range psum{Space::Psum, pbase, pbase + L.th * L.tw};
    const int64_t obuf = L.outAddr[k % 2];
    const int64_t chunkBytes = L.th * L.tw * eb;
    for (int64_t c = 0; c < L.outChunks; ++c) {
      const int64_t col0 = c * cfg.peRows;
      if (col0 >= b.count)
        break;
      const int64_t cols = std::min(cfg.peRows, b.count - col0);
      Activate a;
      a.psum = pbase;
      a.psumRowStride = L.tw;
      a.rows = st.th;
      a.rowLen = st.tw;
      a.colStart = col0;
      a.cols = cols;
      a.dstPartition = 0;
      a.dst = obuf + c * chunkBytes;
      a.dstRowStride = L.tw * eb;
      a.elemBytes = eb;
      a.tableSlot = ord % kActTableSlots;
      a.func = d.func;
      a.clampLo = d.clampLo;
      a.clampHi = d.clampHi;
      a.alpha = d.alpha;
      a.beta = d.beta;
      a.gamma = d.gamma;
      a.releaseEntries = cfg.psumZeroMode == PsumZeroMode::WrittenFlags;
      const Range table{Space::ActTable, a.tableSlot, a.tableSlot + 1};
      std::vector<Range> writes{sbufRange(a.dst, chunkBytes)};
      if (a.releaseEntries)
        writes.push_back(psum);
      em.emit(a, {psum, table}, writes);
      DmaStore s;
      s.elemBytes = eb;
      s.partitionCount = cols;
      s.outerCount = st.th;
      s.innerCount = st.tw;
      s.dram.addr = outBase + (st.n * d.outNStride + (b.begin + col0) * d.outCStride +
                               st.y0 * d.outYStride + st.x0 * d.outXStride) *
                                  eb;
      s.dram.partitionStride = d.outCStride * eb;
      s.dram.outerStride = d.outYStride * eb;
      s.dram.innerStep = d.outXStride * eb;
      s.sbufAddr = a.dst;
      s.sbufOuterStride = L.tw * eb;
      em.emit(s, {sbufRange(a.dst, chunkBytes)}, {outDram});
    }
  };

  // A new image's resident input and a new block's weights in a single weight buffer overwrite
  // what the previous step still reads: they cannot be prefetched.
  auto canPrefetch = [&](int64_t k) {
    const Step& st = steps[static_cast<size_t>(k)];
    return !(L.resident && st.firstOfImage) && !(L.weightBufs == 1 && st.firstOfBlock);
  };
  emitPipelined(static_cast<int64_t>(steps.size()), load, compute, drain, canPrefetch);
}

} // namespace nnaccel::arch::systolic
