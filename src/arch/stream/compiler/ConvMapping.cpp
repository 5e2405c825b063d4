/// \file
/// Convolution and dense layers for the stream compiler (Mapper.h). Any kernel size is composed
/// from blocks of at most 3x3 on kernel tiles (digest §8.5); a block row is a chain of tiles
/// ganged through their auxiliary inputs over the input sets and kernel columns (Fig. 45); aux
/// tiles sum the block rows vertically, requantize and apply the fused activation; a strided or
/// "valid" convolution is the "same" one followed by a Sample.
#include "Mapper.h"
#include "nnaccel/ir/OpParams.h"
#include "nnaccel/support/Error.h"

#include <algorithm>
#include <fmt/format.h>

namespace nnaccel::arch::stream::detail {

namespace {

/// The blocks of a dilated kernel axis: one cell per tap, \p dilation cells apart (a 3x3
/// dilation-5 kernel is nine 1x1 blocks of its 11x11 extent, chained and summed like any
/// composite kernel's; the zero cells between them are never configured).
std::vector<std::pair<int64_t, int64_t>> dilatedBlocks(int64_t taps, int64_t dilation) {
  std::vector<std::pair<int64_t, int64_t>> blocks;
  for (int64_t i = 0; i < taps; ++i)
    blocks.emplace_back(i * dilation, 1);
  return blocks;
}

/// \p blocks with every block wider than \p maxWidth cut into pieces of at most that width.
std::vector<std::pair<int64_t, int64_t>>
narrowedBlocks(const std::vector<std::pair<int64_t, int64_t>>& blocks, int64_t maxWidth) {
  NNACCEL_ASSERT(maxWidth >= 1) << "frame width " << maxWidth;
  std::vector<std::pair<int64_t, int64_t>> out;
  for (const auto& [q0, w] : blocks)
    for (int64_t at = 0; at < w; at += maxWidth)
      out.emplace_back(q0 + at, std::min(maxWidth, w - at));
  return out;
}

} // namespace

bool ConvPlan::connected(int64_t in0, int64_t in1, int64_t out0, int64_t out1) const {
  for (int64_t gi = in0 / inChannelsPerGroup; gi <= (in1 - 1) / inChannelsPerGroup; ++gi)
    if (gi >= out0 / outChannelsPerGroup && gi <= (out1 - 1) / outChannelsPerGroup)
      return true;
  return false;
}

void Mapper::lowerConv(ir::NodeId id) {
  const ir::Node& n = g_.node(id);
  const ir::ConvParams cp = ir::convParams(g_, id);
  if (cp.spatialRank != 2 || cp.batch != 1)
    throw Error(ErrorKind::Unsupported, ErrorContext{.node = n.name, .op = "Conv"},
                fmt::format("{}-D convolution with batch {}; the ASIC streams 2-D "
                            "frames",
                            cp.spatialRank, cp.batch));
  ConvSpec s;
  s.id = id;
  s.name = n.name;
  s.inChannels = cp.inChannels;
  s.outChannels = cp.outChannels;
  s.group = cp.group;
  // A dilated kernel is its dilated extent with zeros between the taps; planConv gives each tap
  // row and column its own block, so no tile holds a zero cell.
  s.dilationY = cp.dilations[0];
  s.dilationX = cp.dilations[1];
  s.kh = (cp.kernel[0] - 1) * s.dilationY + 1;
  s.kw = (cp.kernel[1] - 1) * s.dilationX + 1;
  s.strideY = cp.strides[0];
  s.strideX = cp.strides[1];
  s.padTop = cp.padsBegin[0];
  s.padLeft = cp.padsBegin[1];
  s.outH = cp.outSpatial[0];
  s.outW = cp.outSpatial[1];
  const int8_t* w = qm_.node(id).weights.data<int8_t>();
  const int64_t cg = cp.inChannels / cp.group, kh = cp.kernel[0], kw = cp.kernel[1];
  const int64_t dy = s.dilationY, dx = s.dilationX;
  s.weight = [=](int64_t m, int64_t c, int64_t ky, int64_t kx) -> int8_t {
    if (ky % dy != 0 || kx % dx != 0)
      return 0;
    return w[((m * cg + c) * kh + ky / dy) * kw + kx / dx];
  };
  mapFusedConv(std::move(s));
}

void Mapper::lowerDense(ir::NodeId id) {
  const ir::Node& n = g_.node(id);
  const common::FullyConnected fc = common::fullyConnected(qm_, id);
  if (fc.rows != 1)
    throw Error(ErrorKind::Unsupported, ErrorContext{.node = n.name},
                fmt::format("only a dense layer over one vector (batch 1) maps onto the ASIC; "
                            "this one has {} rows",
                            fc.rows));
  const Placed& in = at(n.inputs[0], n.outputs[0]);
  const FrameShape f = in.format.frame;
  if (f.values() != fc.reduction)
    throw Error(ErrorKind::Unsupported, ErrorContext{.node = n.name},
                fmt::format("dense over {} values but its input stream carries {}", fc.reduction,
                            f.values()));
  // A dense layer is a convolution whose kernel is the whole frame ("valid": one output
  // position, Fig. 27B); its reduction order (c, h, w) is ONNX Flatten's.
  ConvSpec s;
  s.id = id;
  s.name = n.name;
  s.inChannels = f.channels;
  s.outChannels = fc.columns;
  s.kh = f.rows;
  s.kw = f.cols;
  s.outH = s.outW = 1;
  const int64_t h = f.rows, wd = f.cols;
  s.weight = [=](int64_t m, int64_t c, int64_t ky, int64_t kx) {
    return fc.weight(m, (c * h + ky) * wd + kx);
  };
  mapFusedConv(std::move(s));
}

/// \p s completed with node's bias, requantization and the activation fused into it, mapped.
void Mapper::mapFusedConv(ConvSpec s) {
  const quant::QuantNode& q = qm_.node(s.id);
  const ir::Node& n = g_.node(s.id);
  s.bias = q.bias;
  s.multipliers = q.multipliers;
  s.clamp = common::fusedClamp(qm_, s.id);
  s.input = n.inputs[0];
  s.output = s.clamp ? s.clamp->output : n.outputs[0];
  if (s.clamp)
    consumed_.insert(s.clamp->node);
  mapConv(s);
}

void Mapper::mapConv(const ConvSpec& s) {
  const ConvPlan plan = planConv(s);
  // Kernel tiles start where they can read the input: a set written by an aux tile on bus r
  // is readable by kernel tiles from row r + 1 on.
  int64_t maxBus = -1;
  for (const BusRef& b : plan.in.sets)
    maxBus = std::max(maxBus, b.bus);
  placer_.advanceToRow(maxBus + 1);

  Placed out;
  out.format = plan.out;
  for (int64_t o = 0; o < plan.out.sets(); ++o)
    mapConvOutSet(plan, o, out);
  Layer& l = program_.layers[plan.layer];
  l.latencyPositions =
      blockLatencyPositions(0, s.kh, 0, s.kw, plan.anchorRow, plan.anchorCol, plan.frame.cols);
  if (plan.needSample)
    out = sampleConvOutput(plan, out);
  program_.layers[plan.layer].out = out.format;
  program_.layers[plan.layer].outSets = out.sets;
  placed_[s.output] = std::move(out);
}

/// The convolution's shared figures, checked against what the tiles can do, and its layer.
ConvPlan Mapper::planConv(const ConvSpec& s) {
  ConvPlan p;
  p.spec = &s;
  p.in = at(s.input, s.output);
  p.frame = p.in.format.frame;
  const FrameShape f = p.frame;
  p.cyclesPerPosition = p.in.format.cyclesPerPosition;
  if (f.cols > c_.maxArrayWidthPositions)
    throw Error(ErrorKind::Config, ErrorContext{.key = "kernel_tiles.max_array_width"},
                fmt::format("array width {} exceeds the tiles' row FIFOs ({} "
                            "positions)",
                            f.cols, c_.maxArrayWidthPositions));
  // Anchor: the kernel element on the output position (below/right of centre for even sizes).
  // The "same" stream's output (i, j) is centred on input (i, j); the layer's output (oy, ox) is
  // the same-stream position (strideY*oy - padTop + ay, ...): a Sample picks it.
  p.anchorRow = s.anchorRow >= 0 ? s.anchorRow : s.kh / 2;
  p.anchorCol = s.anchorCol >= 0 ? s.anchorCol : s.kw / 2;
  p.offY = p.anchorRow - s.padTop;
  p.offX = p.anchorCol - s.padLeft;
  p.needSample = !(s.strideY == 1 && s.strideX == 1 && p.offY == 0 && p.offX == 0 &&
                   s.outH == f.rows && s.outW == f.cols);
  if (p.needSample) {
    const int64_t lastY = p.offY + s.strideY * (s.outH - 1),
                  lastX = p.offX + s.strideX * (s.outW - 1);
    if (p.offY < 0 || p.offX < 0 || lastY >= f.rows || lastX >= f.cols)
      throw Error(ErrorKind::Unsupported, ErrorContext{.node = s.name},
                  fmt::format("padding {}x{} with kernel {}x{} puts outputs outside "
                              "the array's \"same\" positions; not mappable by Sample",
                              s.padTop, s.padLeft, s.kh, s.kw));
  }
  p.pairsPerPosition = std::min(p.cyclesPerPosition, c_.weightStorePairs);
  p.out = formatFor(FrameShape{f.rows, f.cols, s.outChannels}, p.cyclesPerPosition);
  // The input sets' channel ranges: [16 T s, 16 T (s + 1)) except after a concatenation of
  // inputs that are not whole sets at T > 1, whose sets are ragged (their own channel counts).
  p.setFirstChannel.assign(p.in.sets.size() + 1, 0);
  for (size_t si = 0; si < p.in.sets.size(); ++si)
    p.setFirstChannel[si + 1] = p.setFirstChannel[si] + channelsOfSet(p.in.sets[si]);
  NNACCEL_ASSERT(p.setFirstChannel.back() == s.inChannels)
      << s.name << ": sets carry " << p.setFirstChannel.back() << " channels";
  p.inChannelsPerGroup = s.inChannels / s.group;
  p.outChannelsPerGroup = s.outChannels / s.group;
  Layer& layer = addLayer(s.id, "");
  p.layer = program_.layers.size() - 1;
  layer.outputs = {s.output}; // the fused activation's output when there is one
  layer.in = p.in.format;
  layer.out = p.out;
  const int64_t tapsY = (s.kh - 1) / s.dilationY + 1, tapsX = (s.kw - 1) / s.dilationX + 1;
  layer.usefulMacs = s.outH * s.outW * s.outChannels * p.inChannelsPerGroup * tapsY * tapsX;
  p.rowBlocks = s.dilationY > 1 ? dilatedBlocks(tapsY, s.dilationY) : kernelBlocks(s.kh);
  // A tile's aperture block is at most as wide as the frame (the everted row holds one block
  // width of partial sums, EvertedConv::validated): on a frame narrower than a block the block
  // splits into frame-wide pieces, summed like a composite kernel's.
  p.colBlocks = narrowedBlocks(
      s.dilationX > 1 ? dilatedBlocks(tapsX, s.dilationX) : kernelBlocks(s.kw), f.cols);
  return p;
}

ConvOutSet Mapper::convOutSet(const ConvPlan& plan, int64_t o) const {
  ConvOutSet os;
  os.oc0 = o * c_.lanes * plan.out.tm;
  os.oc1 = std::min(plan.spec->outChannels, os.oc0 + c_.lanes * plan.out.tm);
  os.outGroups = ceilDiv(os.oc1 - os.oc0, c_.lanes);
  os.chunk = std::max<int64_t>(1, plan.pairsPerPosition / os.outGroups);
  return os;
}

/// Output set \p o of the convolution: a chain of kernel tiles per block row, the block rows
/// summed vertically on aux tiles; appended to \p out.
void Mapper::mapConvOutSet(const ConvPlan& plan, int64_t o, Placed& out) {
  const ConvOutSet os = convOutSet(plan, o);
  std::vector<ChainEnd> blockRows;
  bool biasPlaced = false; // in the first tile of the anchor's block (a grouped convolution
                           // skips the tiles of unconnected input sets)
  for (const auto& [r0, h] : plan.rowBlocks)
    blockRows.push_back(mapBlockRow(plan, os, r0, h, biasPlaced));
  std::pair<ChainEnd, size_t> acc{blockRows[0], 0};
  if (blockRows.size() == 1)
    acc = sumBlockRows(plan, os, blockRows[0], nullptr, true);
  for (size_t r = 1; r < blockRows.size(); ++r)
    acc = sumBlockRows(plan, os, acc.first, &blockRows[r], r + 1 == blockRows.size());
  out.sets.push_back(acc.first.set);
  out.timing.push_back(SetTiming{acc.first.startCycle});
  out.producerAux.push_back(static_cast<int64_t>(acc.second));
}

/// The chain of kernel tiles of block row (r0, h): across the kernel's column blocks, the input
/// sets and their groups a tile at a time, each tile adding its predecessor's partial.
ChainEnd Mapper::mapBlockRow(const ConvPlan& plan, const ConvOutSet& os, int64_t r0, int64_t h,
                             bool& biasPlaced) {
  const int64_t P = plan.cyclesPerPosition;
  std::optional<ChainEnd> chain;
  int64_t prevRow = -1;
  for (const auto& [q0, w] : plan.colBlocks) {
    const int64_t lat =
        blockLatencyPositions(r0, h, q0, w, plan.anchorRow, plan.anchorCol, plan.frame.cols);
    for (size_t si = 0; si < plan.in.sets.size(); ++si) {
      ConvTileShare sh{.r0 = r0, .h = h, .q0 = q0, .w = w, .set = si};
      sh.ic0 = plan.setFirstChannel[si];
      sh.ic1 = plan.setFirstChannel[si + 1];
      const int64_t groupsHere = ceilDiv(sh.ic1 - sh.ic0, c_.lanes);
      for (sh.g0 = 0; sh.g0 < groupsHere; sh.g0 += os.chunk) {
        sh.g1 = std::min(groupsHere, sh.g0 + os.chunk);
        sh.cin0 = sh.ic0 + sh.g0 * c_.lanes;
        sh.cin1 = std::min(sh.ic1, sh.ic0 + sh.g1 * c_.lanes);
        if (!plan.connected(sh.cin0, sh.cin1, os.oc0, os.oc1))
          continue;
        const size_t ti = placeConvTile(plan, os, sh);
        KernelTile& t = program_.kernelTiles[ti];
        anchorConvTile(plan, os, sh, t, biasPlaced);
        const int64_t start = chain
                                  ? chainConvTile(plan, t, lat, *chain, prevRow)
                                  : kernelTileTiming(t, c_, startOf(t.input), lat, P, 0).startCycle;
        Layer& l = program_.layers[plan.layer];
        // The row FIFOs 4705 (h - 1 of them in use) hold a row of partial sums each.
        l.fifoValues += (h - 1) * plan.frame.cols * t.outChannels;
        l.issuedMacs += plan.frame.positions() * h * w * c_.lanes * c_.lanes *
                        static_cast<int64_t>(t.pairs.size());
        const BusRef outRef{t.row, t.outSlot};
        noteSet(outRef, t.outChannels, start);
        chain = ChainEnd{outRef, start, lat};
        prevRow = t.row;
      }
    }
  }
  NNACCEL_ASSERT(chain.has_value()) << plan.spec->name << ": empty chain";
  return *chain;
}

/// A new kernel tile for share \p sh of output set \p os: its input brought within reach, its
/// group pairs and weights.
size_t Mapper::placeConvTile(const ConvPlan& plan, const ConvOutSet& os, const ConvTileShare& sh) {
  const std::string& name = plan.spec->name;
  const size_t ti = placer_.newKernelTile(name);
  program_.layers[plan.layer].kernelTiles.push_back(static_cast<int64_t>(ti));
  const int64_t row = program_.kernelTiles[ti].row;
  const int64_t index = program_.kernelTiles[ti].index;
  const BusRef input = bringTo(plan.in.sets[sh.set], row, index, name);
  NNACCEL_ASSERT(placer_.readable(input, row, index))
      << name << ": input set not readable from row " << row;
  KernelTile& t = program_.kernelTiles[ti];
  t.input = input;
  t.inputZero = qm_.zeroPoint(plan.spec->input);
  t.inChannels = sh.ic1 - sh.ic0;
  t.outChannels = os.oc1 - os.oc0;
  for (int64_t gi = sh.g0; gi < sh.g1; ++gi)
    for (int64_t go = 0; go < os.outGroups; ++go)
      if (plan.connected(sh.ic0 + gi * c_.lanes, std::min(sh.ic1, sh.ic0 + (gi + 1) * c_.lanes),
                         os.oc0 + go * c_.lanes, std::min(os.oc1, os.oc0 + (go + 1) * c_.lanes)))
        t.pairs.push_back(GroupPair{gi, go});
  t.subRows = sh.h;
  t.subCols = sh.w;
  t.inFirstChannel = sh.cin0 - sh.ic0;
  t.inUsedChannels = sh.cin1 - sh.cin0;
  fillConvWeights(plan, os, sh, t);
  return ti;
}

void Mapper::fillConvWeights(const ConvPlan& plan, const ConvOutSet& os, const ConvTileShare& sh,
                             KernelTile& t) const {
  const int64_t h = sh.h, w = sh.w, cgIn = plan.inChannelsPerGroup;
  t.weights.assign(static_cast<size_t>(t.outChannels * t.inUsedChannels * h * w), 0);
  for (int64_t m = os.oc0; m < os.oc1; ++m)
    for (int64_t c = sh.cin0; c < sh.cin1; ++c) {
      if (c / cgIn != m / plan.outChannelsPerGroup)
        continue;
      for (int64_t y = 0; y < h; ++y)
        for (int64_t x = 0; x < w; ++x)
          t.weights[static_cast<size_t>(
              (((m - os.oc0) * t.inUsedChannels + (c - sh.cin0)) * h + y) * w + x)] =
              plan.spec->weight(m, c % cgIn, sh.r0 + y, sh.q0 + x);
    }
}

/// The tile's anchor, output relabelling and (once per output set) the bias.
void Mapper::anchorConvTile(const ConvPlan& plan, const ConvOutSet& os, const ConvTileShare& sh,
                            KernelTile& t, bool& biasPlaced) const {
  const int64_t ay = plan.anchorRow, ax = plan.anchorCol;
  // The anchor inside the block when the kernel's anchor is; else its nearest cell, and the
  // outputs relabelled (the windows shifted out lie wholly off the array).
  t.anchorRow = std::clamp<int64_t>(ay - sh.r0, 0, sh.h - 1);
  t.anchorCol = std::clamp<int64_t>(ax - sh.q0, 0, sh.w - 1);
  t.offsetRows = t.anchorRow - (ay - sh.r0);
  t.offsetCols = t.anchorCol - (ax - sh.q0);
  t.bias.assign(static_cast<size_t>(t.outChannels), 0);
  // The bias enters once, in the block holding the anchor: its outputs are never relabelled, so
  // no position loses it.
  if (t.offsetRows == 0 && t.offsetCols == 0 && !biasPlaced) {
    for (int64_t m = os.oc0; m < os.oc1; ++m)
      t.bias[static_cast<size_t>(m - os.oc0)] = plan.spec->bias[static_cast<size_t>(m)];
    biasPlaced = true;
  }
}

/// Kernel tile \p t (block latency \p lat) adding the partial of the chain before it: the
/// auxiliary input and its delay FIFO 4706. Returns the tile's start cycle.
int64_t Mapper::chainConvTile(const ConvPlan& plan, KernelTile& t, int64_t lat,
                              const ChainEnd& chain, int64_t prevRow) {
  const int64_t P = plan.cyclesPerPosition;
  // The preceding tile's partial enters the auxiliary input: hard-wired in the row, or through
  // mux 4404 for a row's first tile (Fig. 45 ganging).
  t.aux = prevRow == t.row ? KernelTile::Aux::PreviousTile : KernelTile::Aux::RowAbove;
  NNACCEL_ASSERT(prevRow == t.row || t.index == 0) << "chain broken";
  // The hard-wired auxiliary input is the tile immediately to the left (a bypass kernel tile is
  // never claimed inside a row a chain is filling: bypasses go to the rows above it).
  NNACCEL_ASSERT(prevRow != t.row || chain.set.slot == t.index - 1)
      << plan.spec->name << ": chain tile r" << t.row << ".k" << t.index << " follows slot "
      << chain.set.slot;
  t.auxInput = chain.set;
  NNACCEL_ASSERT(lat >= chain.latencyPositions) << "chain order";
  // FIFO 4706: the block latencies' difference, corrected by the whole positions the partial
  // would still arrive early (this tile's input came later, through bypasses) or late (the
  // neighbour's own adder and waits).
  t.auxDelayPositions = lat - chain.latencyPositions;
  const KernelTileTiming first =
      kernelTileTiming(t, c_, startOf(t.input), lat, P, chain.startCycle);
  t.auxDelayPositions = std::max<int64_t>(0, t.auxDelayPositions + first.partialEarlyCycles / P -
                                                 first.ownWaitCycles / P);
  if (t.auxDelayPositions > c_.auxFifoPositions)
    throw Error(ErrorKind::Config, ErrorContext{.key = "kernel_tiles.aux_fifo_positions"},
                fmt::format("a block needs its neighbour's partial "
                            "delayed {} positions; FIFO 4706 holds {}",
                            t.auxDelayPositions, c_.auxFifoPositions));
  const KernelTileTiming k = kernelTileTiming(t, c_, startOf(t.input), lat, P, chain.startCycle);
  // The own sums' wait for a late partial: whole positions held in the output register chain
  // (within one position the sums are simply held).
  program_.layers[plan.layer].fifoValues +=
      (t.auxDelayPositions + k.ownWaitCycles / P) * t.outChannels;
  return k.startCycle;
}

/// Vertical sum of block rows on an aux tile (adder 4904, FIFO 4902 on the earlier, upper,
/// partial): \p upper alone when \p lower is null; the \p last also requantizes and applies the
/// activation LUT. Returns the sum's end and its aux tile.
std::pair<ChainEnd, size_t> Mapper::sumBlockRows(const ConvPlan& plan, const ConvOutSet& os,
                                                 const ChainEnd& upper, const ChainEnd* lower,
                                                 bool last) {
  const ConvSpec& s = *plan.spec;
  const int64_t P = plan.cyclesPerPosition;
  const int64_t row = std::max(upper.set.bus, lower ? lower->set.bus : upper.set.bus);
  const size_t ti = newAuxFor(plan.layer, row, upper.set, lower ? &lower->set : nullptr);
  AuxTile& a = aux(ti);
  int64_t lat = upper.latencyPositions;
  if (lower) {
    // FIFO 4902 holds the upper rows' partial (or the alignment FIFO the lower's) until the
    // same position of both is present.
    a.add = AuxAdd::Partial;
    alignOperands(plan.layer, a, P);
    lat = lower->latencyPositions;
  }
  if (last) {
    for (int64_t m = os.oc0; m < os.oc1; ++m)
      a.requantize.push_back(s.multipliers[static_cast<size_t>(m)]);
    a.zero.out = qm_.zeroPoint(s.output); // a fused clamp keeps its input's zero point
    if (s.clamp) {
      const int32_t lo = s.clamp->clampMin, hi = s.clamp->clampMax;
      a.lutEnabled = true;
      a.lut = makeLut([=](int32_t v) { return std::clamp(v, lo, hi); });
    }
  }
  const int64_t start = planAux(ti, P);
  const BusRef ref{a.row, a.outSlot};
  noteSet(ref, a.channels, start);
  return std::make_pair(ChainEnd{ref, start, lat}, ti);
}

/// The "same" stream \p out sampled down to the layer's outputs (stride, padding).
Placed Mapper::sampleConvOutput(const ConvPlan& plan, const Placed& out) {
  const ConvSpec& s = *plan.spec;
  PatchWindow w;
  w.strideRows = s.strideY;
  w.strideCols = s.strideX;
  w.padTop = plan.offY;
  w.padLeft = plan.offX;
  w.outRows = s.outH;
  w.outCols = s.outW;
  Placed sampled = applyPatch(plan.layer, out, AuxFunction::Sample, w, {}, true);
  // Multiplies at positions the Sample discards.
  Layer& l = program_.layers[plan.layer];
  l.discardedMacs = l.issuedMacs - l.issuedMacs / plan.frame.positions() * (s.outH * s.outW);
  return sampled;
}

} // namespace nnaccel::arch::stream::detail
