/// \file
/// The stream engine's simulator (Simulator.h): kernel tiles on the everted aperture engine, aux
/// tiles on the patch functions, streams per bus set with their measured timing.
#include "nnaccel/arch/stream/Simulator.h"

#include "nnaccel/arch/stream/Aperture.h"
#include "nnaccel/arch/stream/MassMultiplier.h"
#include "nnaccel/arch/stream/Patch.h"
#include "nnaccel/quant/Requantize.h"
#include "nnaccel/support/Error.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fmt/format.h>
#include <functional>
#include <map>
#include <set>

namespace nnaccel::arch::stream {

namespace {

/// Runs \p stage over every frame of \p in (back to back); the outputs and their steps.
StreamTrace runStage(StreamStage& stage, const SetStream& in) {
  std::vector<std::vector<Value>> frames;
  const auto per = static_cast<size_t>(in.frame.values());
  for (int64_t f = 0; f < in.frames; ++f)
    frames.emplace_back(in.values.begin() + static_cast<std::ptrdiff_t>(per * f),
                        in.values.begin() + static_cast<std::ptrdiff_t>(per * (f + 1)));
  return runFrames(stage, frames);
}

const quant::CountMultiplier& countMultiplier(const std::vector<quant::CountMultiplier>& ms,
                                              int64_t count) {
  for (const quant::CountMultiplier& m : ms)
    if (m.count == count)
      return m;
  NNACCEL_ASSERT(false) << "no multiplier for window count " << count;
  return ms.front();
}

/// The primary input bus's sets: each carries 16 T channels of the images, raster order,
/// \p frames frames: frame k is image k of the input's batch (cyclically when \p frames is
/// larger).
std::vector<SetStream> inputSetStreams(const Program& p, const Tensor& input, int64_t frames) {
  const FrameShape f = p.input.frame;
  const int64_t images = input.numElements() / f.values();
  NNACCEL_ASSERT(images >= 1 && images * f.values() == input.numElements()) << "input size";
  std::vector<std::vector<Value>> pos;
  for (int64_t i = 0; i < images; ++i) {
    const int8_t* first = input.data<int8_t>() + i * f.values();
    const std::vector<Value> data(first, first + f.values());
    pos.push_back(p.inputPixelMajor ? data : toPositionMajor(data, f));
  }
  const int64_t perSet = p.input.lanes * p.input.tm;
  std::vector<SetStream> sets;
  for (size_t s = 0; s < p.inputSets.size(); ++s) {
    SetStream st;
    const int64_t c0 = static_cast<int64_t>(s) * perSet;
    const int64_t c1 = std::min(f.channels, c0 + perSet);
    st.frame = FrameShape{f.rows, f.cols, c1 - c0};
    st.frames = frames;
    st.cyclesPerPosition = p.input.cyclesPerPosition;
    for (int64_t fr = 0; fr < frames; ++fr)
      for (int64_t q = 0; q < f.positions(); ++q)
        for (int64_t ch = c0; ch < c1; ++ch)
          st.values.push_back(
              pos[static_cast<size_t>(fr % images)][static_cast<size_t>(q * f.channels + ch)]);
    sets.push_back(std::move(st));
  }
  return sets;
}

/// Per driven set (bus, slot): the tiles that read it.
std::map<std::pair<int64_t, int64_t>, int64_t> readersOfSets(const Program& p) {
  std::map<std::pair<int64_t, int64_t>, int64_t> readers;
  for (const KernelTile& t : p.kernelTiles) {
    ++readers[{t.input.bus, t.input.slot}];
    if (t.aux != KernelTile::Aux::None)
      ++readers[{t.auxInput.bus, t.auxInput.slot}];
  }
  for (const AuxTile& t : p.auxTiles) {
    ++readers[{t.primary.bus, t.primary.slot}];
    if (t.hasAux)
      ++readers[{t.aux.bus, t.aux.slot}];
  }
  return readers;
}

/// The sets kept after their last reader: layer outputs and the primary outputs.
std::set<std::pair<int64_t, int64_t>> keptSets(const Program& p) {
  std::set<std::pair<int64_t, int64_t>> keep;
  for (const Layer& l : p.layers)
    for (const BusRef& b : l.outSets)
      keep.insert({b.bus, b.slot});
  for (const OutputSelect& o : p.outputs)
    for (const BusRef& b : o.sets)
      keep.insert({b.bus, b.slot});
  return keep;
}

/// The evaluation order: row by row; kernel tiles left to right, then aux tiles.
struct TilesByRow {
  std::vector<std::vector<size_t>> kernel, aux; ///< per row, tile indices in order
};

TilesByRow tilesByRow(const Program& p) {
  TilesByRow order;
  order.kernel.resize(static_cast<size_t>(p.rowsUsed + 1));
  order.aux.resize(static_cast<size_t>(p.rowsUsed + 1));
  for (size_t i = 0; i < p.kernelTiles.size(); ++i)
    order.kernel[static_cast<size_t>(p.kernelTiles[i].row)].push_back(i);
  for (size_t i = 0; i < p.auxTiles.size(); ++i)
    order.aux[static_cast<size_t>(p.auxTiles[i].row)].push_back(i);
  for (size_t r = 0; r < order.kernel.size(); ++r) {
    std::sort(order.kernel[r].begin(), order.kernel[r].end(),
              [&](size_t a, size_t b) { return p.kernelTiles[a].index < p.kernelTiles[b].index; });
    std::sort(order.aux[r].begin(), order.aux[r].end(),
              [&](size_t a, size_t b) { return p.auxTiles[a].index < p.auxTiles[b].index; });
  }
  return order;
}

/// Layer \p li's figures after the run: its tiles, MACs, FIFO bits, one frame's \p energy, and
/// its first output and latency from its sets' start cycles (\p startCycleOf).
LayerDetail layerDetail(const Program& p, size_t li, const LayerDetail::Energy& energy,
                        const std::function<int64_t(const BusRef&)>& startCycleOf) {
  const Layer& l = p.layers[li];
  LayerDetail d;
  d.kernelTiles = static_cast<int64_t>(l.kernelTiles.size());
  for (int64_t a : l.auxTiles) {
    const AuxTile& t = p.auxTiles[static_cast<size_t>(a)];
    if (t.layer == l.name)
      ++d.auxTiles;
  }
  d.issuedMacs = l.issuedMacs;
  d.discardedMacs = l.discardedMacs;
  d.fifoBits = l.fifoValues * p.config.accumulatorBits;
  d.energy = energy;
  if (!l.outSets.empty()) {
    d.firstOutputCycle = startCycleOf(l.outSets[0]);
    int64_t inStart = 0;
    if (!l.inputs.empty())
      for (size_t lj = 0; lj < li; ++lj)
        for (ir::ValueId v : p.layers[lj].outputs)
          if (v == l.inputs[0] && !p.layers[lj].outSets.empty())
            inStart = startCycleOf(p.layers[lj].outSets[0]);
    d.latencyCycles = d.firstOutputCycle - inStart;
  }
  return d;
}

/// Kernel tile \p t's block of the kernel as the aperture engine takes it (its used input
/// channels only).
ApertureKernel apertureKernel(const KernelTile& t) {
  ApertureKernel k;
  k.kernelRows = t.subRows;
  k.kernelCols = t.subCols;
  k.inChannels = t.inUsedChannels;
  k.outChannels = t.outChannels;
  k.anchorRow = t.anchorRow;
  k.anchorCol = t.anchorCol;
  k.weights.assign(t.weights.begin(), t.weights.end());
  k.bias.assign(t.bias.begin(), t.bias.end());
  return k;
}

/// Channels [c0, c1) of every position of \p in.
SetStream sliceChannels(const SetStream& in, int64_t c0, int64_t c1) {
  SetStream sliced;
  sliced.frame = FrameShape{in.frame.rows, in.frame.cols, c1 - c0};
  sliced.frames = in.frames;
  sliced.values.reserve(static_cast<size_t>(sliced.frame.values() * in.frames));
  for (int64_t q = 0; q < in.frame.positions() * in.frames; ++q)
    for (int64_t ch = c0; ch < c1; ++ch)
      sliced.values.push_back(in.values[static_cast<size_t>(q * in.frame.channels + ch)]);
  return sliced;
}

/// Kernel tile \p t's output stream from the engine's trace \p tr over frames \p f: relabelled
/// by the tile's offsets (a block whose kernel anchor lies outside it).
SetStream relabelled(const KernelTile& t, const FrameShape& f, const StreamTrace& tr,
                     const SetStream& in) {
  SetStream out;
  out.frame = FrameShape{f.rows, f.cols, t.outChannels};
  out.frames = in.frames;
  out.cyclesPerPosition = in.cyclesPerPosition;
  out.values.assign(tr.values.size(), 0);
  const int64_t oc = t.outChannels, R = f.rows, C = f.cols;
  for (int64_t fr = 0; fr < in.frames; ++fr)
    for (int64_t y = 0; y < R; ++y)
      for (int64_t x = 0; x < C; ++x) {
        const int64_t sy = y + t.offsetRows, sx = x + t.offsetCols;
        if (sy < 0 || sy >= R || sx < 0 || sx >= C)
          continue;
        const auto dst = static_cast<size_t>(((fr * R + y) * C + x) * oc);
        const auto src = static_cast<size_t>(((fr * R + sy) * C + sx) * oc);
        std::copy_n(tr.values.begin() + static_cast<std::ptrdiff_t>(src), oc,
                    out.values.begin() + static_cast<std::ptrdiff_t>(dst));
      }
  return out;
}

/// Energy of kernel tile \p t over one frame of \p positions into \p en: every applied group
/// pair's select-adds in the h x w cells (and, when it applies several pairs, each pair's weights
/// loaded from the store), the mass multiplier's adds (\p massMultiplierAdders each) for each
/// input value it reads, the bias adds, the row FIFOs 4705 and 4706. The output set's bus is
/// charged by the caller.
void chargeKernelTile(const KernelTile& t, const StreamConfig& c, const EnergyPrices& e,
                      int64_t positions, int64_t massMultiplierAdders, LayerDetail::Energy& en) {
  const auto positionsPerFrame = static_cast<double>(positions);
  const auto lanes = static_cast<double>(c.lanes);
  std::set<int64_t> inGroups;
  for (const GroupPair& gp : t.pairs)
    inGroups.insert(gp.inGroup);
  const auto cellPairs = positionsPerFrame * static_cast<double>(t.subRows * t.subCols) *
                         static_cast<double>(t.pairs.size());
  en.cellsPj += cellPairs * lanes * lanes * e.cellSelectAddPj +
                positionsPerFrame * static_cast<double>(t.outChannels) * e.unitAddPj;
  if (t.pairs.size() > 1)
    en.weightsPj += cellPairs * lanes * e.weightLoadPj; // one word per cell per pair
  en.massMultipliersPj += positionsPerFrame * static_cast<double>(inGroups.size()) * lanes *
                          static_cast<double>(massMultiplierAdders) * e.massMultiplierAddPj;
  const int64_t fifoPasses = (t.subRows - 1) + (t.auxDelayPositions > 0 ? 1 : 0);
  en.fifosPj += positionsPerFrame * static_cast<double>(fifoPasses * t.outChannels) * e.fifoValuePj;
}

/// Mux 4913: the second set's values follow the first's within each position (the sets'
/// channels side by side, each value held half as long).
void alternateSets(const SetStream& pin, const SetStream& ain, SetStream& out) {
  const int64_t ca = pin.frame.channels, cb = ain.frame.channels;
  out.frame.channels = ca + cb;
  out.values.clear();
  out.values.reserve(pin.values.size() + ain.values.size());
  for (size_t q = 0; q < pin.values.size() / static_cast<size_t>(ca); ++q) {
    const auto a0 = pin.values.begin() + static_cast<std::ptrdiff_t>(q * ca);
    const auto b0 = ain.values.begin() + static_cast<std::ptrdiff_t>(q * cb);
    out.values.insert(out.values.end(), a0, a0 + ca);
    out.values.insert(out.values.end(), b0, b0 + cb);
  }
}

/// Mux 4912 on the \p lanes-wide sets: the primary's lowest k lanes, then the aux's lowest
/// lanes; the set keeps its configured channels.
void concatSets(const AuxTile& t, int64_t lanes, const SetStream& pin, const SetStream& ain,
                const std::string& where, SetStream& out) {
  const int64_t ca = pin.frame.channels, cb = ain.frame.channels, k = t.concatLanes;
  const int64_t ch = t.channels;
  NNACCEL_ASSERT(k <= ca && ch - k <= cb && ch <= lanes && ca <= lanes && cb <= lanes)
      << where << ": k " << k << " of " << ca << " + " << cb << " lanes into " << ch;
  out.frame.channels = ch;
  out.values.clear();
  out.values.reserve(static_cast<size_t>(pin.frame.positions() * pin.frames * ch));
  std::vector<Value> a(static_cast<size_t>(lanes)), b(static_cast<size_t>(lanes));
  for (int64_t q = 0; q < pin.frame.positions() * pin.frames; ++q) {
    std::copy_n(pin.values.begin() + static_cast<std::ptrdiff_t>(q * ca), ca, a.begin());
    std::copy_n(ain.values.begin() + static_cast<std::ptrdiff_t>(q * cb), cb, b.begin());
    const std::vector<Value> m = concatMux(a, b, k);
    out.values.insert(out.values.end(), m.begin(), m.begin() + ch);
  }
}

/// Adder 4904: \p ain added to \p out (a copy of the primary), as partial sums or as the int8
/// residual add. For the residual add the auxiliary set may carry fewer channels than the
/// primary (padded channels: Mapper::lowerAdd): the lanes it does not drive add 0.
void addSets(const AuxTile& t, const SetStream* ain, const std::string& where, SetStream& out) {
  NNACCEL_ASSERT(ain && (ain->values.size() == out.values.size() ||
                         (t.add == AuxAdd::Scaled && ain->frame.channels < out.frame.channels &&
                          ain->frame.positions() == out.frame.positions())))
      << where << ": operands of " << out.values.size() << " values";
  if (t.add == AuxAdd::Partial) {
    // Block rows of one kernel (adder 4904): the sum is as late as the lower rows.
    out.latencyPositions = ain->latencyPositions;
    for (size_t q = 0; q < out.values.size(); ++q)
      out.values[q] += ain->values[q];
    return;
  }
  // The int8 residual add (quant::addSub's rule): each operand scaled, summed, requantized.
  const quant::AddSubMultipliers& m = t.addScales;
  const auto ca = static_cast<size_t>(out.frame.channels);
  const auto cb = static_cast<size_t>(ain->frame.channels);
  const quant::ZeroPoints& z = t.zero; // an undriven lane is real 0: the code z.in[1]
  for (size_t q = 0; q < out.values.size(); ++q) {
    const size_t position = q / ca, lane = q % ca;
    const Value bq = lane < cb ? ain->values[position * cb + lane] : z.in[1];
    const int64_t va = quant::addSubOperand(out.values[q] - z.in[0], m.leftShift, m.a);
    const int64_t vb = quant::addSubOperand(bq - z.in[1], m.leftShift, m.b);
    out.values[q] = quant::requantizeTo(static_cast<int32_t>(va + vb), m.output, z.out);
  }
}

/// The channel-scale multiplier (AuxAdd::Scale): every value of \p out (a copy of the primary)
/// times its channel's entry of \p ain's vector for the same frame, by the int8 Mul rule.
void scaleSets(const AuxTile& t, const SetStream& ain, const std::string& where, SetStream& out) {
  const int64_t ca = out.frame.channels, cb = ain.frame.channels;
  NNACCEL_ASSERT(ain.frame.positions() == 1 && ain.frames == out.frames && t.auxFirstChannel >= 0 &&
                 t.auxFirstChannel + ca <= cb)
      << where << ": channel scale of " << ca << " lanes from a vector of " << cb;
  const int64_t positions = out.frame.positions();
  for (int64_t f = 0; f < out.frames; ++f)
    for (int64_t q = 0; q < positions; ++q)
      for (int64_t k = 0; k < ca; ++k) {
        Value& v = out.values[static_cast<size_t>((f * positions + q) * ca + k)];
        const Value s = ain.values[static_cast<size_t>(f * cb + t.auxFirstChannel + k)];
        v = quant::mulValue(t.mulScale, v - t.zero.in[0], s - t.zero.in[1], t.zero.out);
      }
}

/// One output of aux tile \p t's element-pair stage (Multiply, Compare, Extremum) on \p a, \p b.
Value pairValue(const AuxTile& t, Value a, Value b) {
  const quant::ZeroPoints& z = t.zero;
  switch (t.add) {
  case AuxAdd::Multiply:
    return quant::mulValue(t.mulScale, a - z.in[0], b - z.in[1], z.out);
  case AuxAdd::Compare:
    return quant::compareValue(t.comparison, t.compareScales[0], t.compareScales[1], a, b, z.in[0],
                               z.in[1]);
  default:
    return quant::minMaxValue(t.extremumMax, t.compareScales[0], t.compareScales[1], a, b, z);
  }
}

/// Aux tile \p t's two-input stage on \p out (a copy of the primary \p pin): the alternating
/// mux, the concat mux, the channel-scale multiplier or the adder, when the tile has one.
void combineOperands(const AuxTile& t, int64_t lanes, const SetStream& pin, const SetStream* ain,
                     const std::string& where, SetStream& out) {
  if (t.function == AuxFunction::Alternate && ain) {
    alternateSets(pin, *ain, out);
  } else if (t.function == AuxFunction::Concat) {
    NNACCEL_ASSERT(ain) << where << ": concat mux without a second input";
    concatSets(t, lanes, pin, *ain, where, out);
  } else if (t.add == AuxAdd::Scale) {
    NNACCEL_ASSERT(ain) << where << ": channel scale without a vector";
    scaleSets(t, *ain, where, out);
  } else if (t.add == AuxAdd::Multiply || t.add == AuxAdd::Compare || t.add == AuxAdd::Extremum) {
    NNACCEL_ASSERT(ain && ain->values.size() == out.values.size())
        << where << ": operands of " << out.values.size() << " values";
    for (size_t q = 0; q < out.values.size(); ++q)
      out.values[q] = pairValue(t, out.values[q], ain->values[q]);
  } else if (t.add != AuxAdd::None) {
    addSets(t, ain, where, out);
  }
}

/// Aux tile \p t's requantizer and LUT 4906 on \p out, when in use.
void requantizeAndLookUp(const AuxTile& t, const std::string& where, SetStream& out) {
  if (!t.requantize.empty()) {
    const int64_t ch = out.frame.channels;
    NNACCEL_ASSERT(static_cast<int64_t>(t.requantize.size()) == ch) << where << ": requantizer";
    for (size_t q = 0; q < out.values.size(); ++q)
      out.values[q] =
          quant::requantizeTo(out.values[q], t.requantize[q % static_cast<size_t>(ch)], t.zero.out);
  }
  if (!t.lutEnabled)
    return;
  const auto ch = static_cast<size_t>(out.frame.channels);
  NNACCEL_ASSERT(t.channelLuts.empty() || t.channelLuts.size() == ch)
      << where << ": " << t.channelLuts.size() << " tables for " << ch << " channels";
  for (size_t q = 0; q < out.values.size(); ++q) {
    Value& v = out.values[q];
    NNACCEL_ASSERT(v >= -128 && v <= 127) << where << ": LUT index " << v << " is not int8";
    const auto& table = t.channelLuts.empty() ? t.lut : t.channelLuts[q % ch];
    v = table[static_cast<size_t>(v + 128)];
  }
}

/// Energy of aux tile \p t over one frame into \p en: values through the FIFOs, the adder or
/// mux, the LUT, the patch function's input (and its row FIFOs), and its inputs read across a
/// chip link (\p primaryCrosses, \p auxCrosses). The output set's bus is charged by the caller.
void chargeAuxTile(const AuxTile& t, const StreamConfig& c, const EnergyPrices& e,
                   const SetStream& pin, const SetStream* ain, const SetStream& out,
                   bool primaryCrosses, bool auxCrosses, LayerDetail::Energy& en) {
  const auto positions = static_cast<double>(pin.frame.positions());
  const auto inValues = positions * static_cast<double>(pin.frame.channels);
  const double auxValues =
      ain ? static_cast<double>(ain->frame.positions() * ain->frame.channels) : 0.0;
  en.fifosPj += ((t.primaryDelayPositions > 0 ? inValues : 0.0) +
                 (t.auxDelayPositions > 0 ? auxValues : 0.0)) *
                e.auxFifoValuePj;
  if (t.add == AuxAdd::Scale || t.add == AuxAdd::Multiply)
    en.auxPj += positions * static_cast<double>(out.frame.channels) * e.auxMultiplyPj;
  else if (t.add != AuxAdd::None || (ain && t.function != AuxFunction::Bypass))
    en.auxPj += positions * static_cast<double>(out.frame.channels) * e.auxOpPj;
  if (!t.requantize.empty() || t.lutEnabled)
    en.auxPj += positions * static_cast<double>(out.frame.channels) * e.lutLookupPj;
  if (t.function == AuxFunction::Interpolate) {
    // Per output value: a multiply per tap (2 x 2 when both axes interpolate) and their adds.
    const double taps = (t.window.interpolateRows.interpolates ? 2.0 : 1.0) *
                        (t.window.interpolateCols.interpolates ? 2.0 : 1.0);
    en.auxPj += static_cast<double>(t.window.outRows * t.window.outCols) *
                static_cast<double>(out.frame.channels) *
                (taps * e.auxMultiplyPj + (taps - 1.0) * e.auxOpPj);
  }
  if (isPatchFunction(t.function)) {
    en.auxPj += positions * static_cast<double>(out.frame.channels) * e.auxOpPj;
    en.fifosPj += positions * static_cast<double>((t.window.kernelRows - 1) * out.frame.channels) *
                  e.auxFifoValuePj;
  }
  const auto lanes = static_cast<double>(c.lanes);
  if (primaryCrosses)
    en.busesPj +=
        std::ceil(static_cast<double>(pin.frame.channels) / lanes) * positions * e.chipLinkSetPj;
  if (auxCrosses)
    en.busesPj +=
        std::ceil(static_cast<double>(ain->frame.channels) / lanes) * positions * e.chipLinkSetPj;
}

/// The window of a pooling patch function from aux tile window \p w.
PoolWindow poolWindowOf(const PatchWindow& w) {
  PoolWindow pw;
  pw.kernelRows = w.kernelRows;
  pw.kernelCols = w.kernelCols;
  pw.strideRows = w.strideRows;
  pw.strideCols = w.strideCols;
  pw.padTop = w.padTop;
  pw.padLeft = w.padLeft;
  pw.padBottom = w.padBottom;
  pw.padRight = w.padRight;
  pw.outRows = w.outRows;
  pw.outCols = w.outCols;
  return pw;
}

/// The stage running aux tile \p t's patch function on frames of \p frame.
std::unique_ptr<StreamStage> patchStage(const AuxTile& t, const FrameShape& frame,
                                        const std::string& where) {
  const PatchWindow& w = t.window;
  // The sum is of q - zero.in[0] (runPatch subtracts it on the way in), requantized onto
  // zero.out (the int8 average rule, quant::averagePool).
  auto averageRule = [&t](int64_t sum, int64_t count) {
    const int32_t zOut = t.zero.out;
    return static_cast<Value>(
        quant::requantizeWide(sum, countMultiplier(t.averageMultipliers, count).multiplier,
                              quant::kInt8Min - zOut, quant::kInt8Max - zOut) +
        zOut);
  };
  switch (t.function) {
  case AuxFunction::MaxPool:
    return std::make_unique<PatchPool>(PatchPool::max(frame, poolWindowOf(w)));
  case AuxFunction::Average:
    return std::make_unique<PatchPool>(
        PatchPool::average(frame, poolWindowOf(w), averageRule, w.countIncludePad));
  case AuxFunction::GlobalAverage:
    return std::make_unique<GlobalAverage>(frame, averageRule);
  case AuxFunction::Sample: {
    SampleWindow sw;
    sw.offsetRows = w.padTop;
    sw.offsetCols = w.padLeft;
    sw.strideRows = w.strideRows;
    sw.strideCols = w.strideCols;
    sw.outRows = w.outRows;
    sw.outCols = w.outCols;
    return std::make_unique<Sample>(frame, sw);
  }
  case AuxFunction::Expand:
  case AuxFunction::DepthToSpace: {
    ExpandParams ep;
    ep.factorRows = w.factorRows;
    ep.factorCols = w.factorCols;
    ep.depthToSpace = t.function == AuxFunction::DepthToSpace;
    NNACCEL_ASSERT(!ep.depthToSpace || frame.channels == t.channels * w.factorRows * w.factorCols)
        << where << ": " << frame.channels << " channels into " << w.factorRows << "x"
        << w.factorCols << " phases of " << t.channels;
    return std::make_unique<Expand>(frame, ep);
  }
  case AuxFunction::Interpolate:
    return std::make_unique<Interpolate>(frame, interpolateParams(w));
  case AuxFunction::Subset: {
    std::vector<int64_t> keep(static_cast<size_t>(t.channels));
    for (int64_t k = 0; k < t.channels; ++k)
      keep[static_cast<size_t>(k)] = t.laneOffset + k;
    return std::make_unique<Subset>(frame, std::move(keep));
  }
  default:
    NNACCEL_ASSERT(false) << where << ": function " << auxFunctionName(t.function)
                          << " is not simulated";
  }
  return nullptr;
}

/// Aux tile \p t's patch function run on \p out, which becomes its output retimed to an even
/// rate. Returns the output FIFO's latency in cycles: the worst lead of a result's readiness
/// over its slot, within the first frame.
int64_t runPatch(const AuxTile& t, const std::string& where, SetStream& out) {
  const int64_t P = out.cyclesPerPosition;
  const std::unique_ptr<StreamStage> stage = patchStage(t, out.frame, where);
  const bool average =
      t.function == AuxFunction::Average || t.function == AuxFunction::GlobalAverage;
  if (average && t.zero.in[0] != 0) // a subtractor before the pool's accumulators
    for (Value& v : out.values)
      v -= t.zero.in[0];
  const StreamTrace tr = runStage(*stage, out);
  const FrameShape of = stage->outputShape();
  const int64_t Pout = std::max<int64_t>(1, P * out.frame.positions() / of.positions());
  int64_t patchDelayCycles = 0;
  for (int64_t q = 0; q < of.positions(); ++q)
    patchDelayCycles =
        std::max(patchDelayCycles, tr.emitStep[static_cast<size_t>(q)] * P - q * Pout);
  SetStream r;
  r.frame = of;
  r.frames = out.frames;
  r.cyclesPerPosition = Pout;
  r.values = tr.values;
  out = std::move(r);
  return patchDelayCycles;
}

} // namespace

Simulator::Simulator(const Program& program, const quant::QuantizedModel& qm)
    : program_(program), qm_(qm) {}

void Simulator::setInput(const Tensor& int8Input) {
  NNACCEL_ASSERT(int8Input.dtype() == DType::I8) << "the stream input is int8";
  input_ = int8Input;
}

const SetStream& Simulator::set(const BusRef& b) const {
  auto it = sets_.find({b.bus, b.slot});
  NNACCEL_ASSERT(it != sets_.end()) << "bus " << b.bus << " slot " << b.slot << " is not driven";
  return it->second;
}

void Simulator::checkMeet(const std::string& where, int64_t primaryArrival, int64_t auxArrival,
                          int64_t cyclesPerPosition) {
  // Each value is held for one position: the two operands of a position are present together
  // only when their (delayed) arrivals are less than a position apart.
  const int64_t skew = std::abs(primaryArrival - auxArrival);
  if (skew >= cyclesPerPosition)
    violations_.push_back(fmt::format("{}: operands arrive {} cycles apart after their FIFOs "
                                      "(one position is {} cycles)",
                                      where, skew, cyclesPerPosition));
}

void Simulator::checkLatch(const std::string& where, int64_t primaryArrival, int64_t vectorArrival,
                           int64_t vectorHoldCycles) {
  // The vector of a frame is held for one frame period: the primary's frame must begin while
  // it is there, so that the latch takes that frame's vector.
  if (primaryArrival < vectorArrival || primaryArrival >= vectorArrival + vectorHoldCycles)
    violations_.push_back(fmt::format("{}: the frame begins at cycle {}, its scale vector is "
                                      "held from cycle {} for {} cycles",
                                      where, primaryArrival, vectorArrival, vectorHoldCycles));
}

LayerDetail::Energy& Simulator::energyOf(const std::string& name) {
  return energy_[name];
}

bool Simulator::crossesChip(const BusRef& src, int64_t readerRow) const {
  const int64_t rows = program_.config.rows;
  return src.bus >= 0 && readerRow > src.bus && readerRow % rows == 0;
}

void Simulator::chargeBus(LayerDetail::Energy& e, int64_t channels, int64_t positions, bool crosses,
                          bool partialSums) {
  const EnergyPrices& t = prices_;
  const auto sets =
      static_cast<double>((channels + program_.config.lanes - 1) / program_.config.lanes);
  e.busesPj += sets * static_cast<double>(positions) *
               ((partialSums ? t.busPartialSetTransferPj : t.busSetTransferPj) +
                (crosses ? (partialSums ? t.chipLinkPartialSetPj : t.chipLinkSetPj) : 0.0));
}

void Simulator::released(const BusRef& b) {
  const std::pair<int64_t, int64_t> key{b.bus, b.slot};
  auto it = readersLeft_.find(key);
  NNACCEL_ASSERT(it != readersLeft_.end() && it->second > 0) << "bus " << b.bus << " reader";
  if (--it->second == 0 && !keep_.contains(key))
    sets_.erase(key);
}

void Simulator::run(const SimOptions& options) {
  const Program& p = program_;
  const StreamConfig& c = p.config;
  images_ = std::max<int64_t>(1, input_.numElements() / p.input.frame.values());
  frames_ = std::max<int64_t>(images_, options.frames);
  sets_.clear();
  violations_.clear();
  kernelStart_.assign(p.kernelTiles.size(), 0);
  energy_.clear();
  prices_ = energyPrices(c);
  // Claim 17's local multipliers form no multiples; a negator counts as an adder.
  const MassMultiplierCost mm =
      massMultiplierCost(c.multiplierForm, static_cast<int>(c.weightBits), true);
  massMultiplierAdders_ = c.localMultipliers ? 0 : mm.adders + mm.negators;
  std::vector<SetStream> inputs = inputSetStreams(p, input_, frames_);
  for (size_t s = 0; s < p.inputSets.size(); ++s)
    sets_[{p.inputSets[s].bus, p.inputSets[s].slot}] = std::move(inputs[s]);
  // Readers of every set; layer outputs and the primary outputs stay for verification.
  readersLeft_ = readersOfSets(p);
  keep_ = keptSets(p);
  const TilesByRow order = tilesByRow(p);
  for (size_t r = 0; r < order.kernel.size(); ++r) {
    for (size_t i : order.kernel[r]) {
      runKernelTile(i);
      const KernelTile& t = p.kernelTiles[i];
      released(t.input);
      if (t.aux != KernelTile::Aux::None)
        released(t.auxInput);
    }
    for (size_t i : order.aux[r]) {
      runAuxTile(i);
      const AuxTile& t = p.auxTiles[i];
      released(t.primary);
      if (t.hasAux)
        released(t.aux);
    }
  }
  // Per-layer figures.
  const auto startCycleOf = [&](const BusRef& b) { return set(b).startCycle; };
  details_.assign(p.layers.size(), LayerDetail{});
  for (size_t li = 0; li < p.layers.size(); ++li) {
    details_[li] = layerDetail(p, li, energy_[p.layers[li].name], startCycleOf);
    if (options.onLayerDone)
      options.onLayerDone(li);
  }
  auto countBypass = [&](const std::string& layer) {
    for (size_t li = 0; li < p.layers.size(); ++li)
      if (p.layers[li].name == layer)
        ++details_[li].bypassTiles;
  };
  for (const AuxTile& t : p.auxTiles)
    if (t.function == AuxFunction::Bypass && t.add == AuxAdd::None && !t.lutEnabled &&
        t.requantize.empty())
      countBypass(t.layer);
  for (const KernelTile& t : p.kernelTiles)
    if (t.bypass)
      countBypass(t.layer);
  firstOutputCycle_ = 0;
  for (const OutputSelect& o : p.outputs)
    for (const BusRef& b : o.sets)
      firstOutputCycle_ = std::max(firstOutputCycle_, set(b).startCycle);
  framePeriodCycles_ = p.input.frame.positions() * p.input.cyclesPerPosition;
}

void Simulator::runKernelTile(size_t i) {
  const KernelTile& t = program_.kernelTiles[i];
  const StreamConfig& c = program_.config;
  const SetStream& in = set(t.input);
  NNACCEL_ASSERT(in.frame.channels == t.inChannels)
      << "kernel tile r" << t.row << ".k" << t.index << ": input set has " << in.frame.channels
      << " channels, configured for " << t.inChannels;
  // The lanes of the groups this tile applies (the rest have no weights here): the engine reads
  // only those, so that simulating a zero-weight lane costs nothing.
  const int64_t c0 = t.inFirstChannel, used = t.inUsedChannels, c1 = c0 + used;
  NNACCEL_ASSERT(used > 0 && c1 <= t.inChannels) << "kernel tile r" << t.row << ".k" << t.index;
  const FrameShape f{in.frame.rows, in.frame.cols, used};
  EvertedConv engine(f, apertureKernel(t));
  SetStream operand = sliceChannels(in, c0, c1);
  if (t.inputZero != 0) // the subtractor before the mass multipliers: real 0 multiplies to 0
    for (Value& v : operand.values)
      v -= t.inputZero;
  const StreamTrace tr = runStage(engine, operand);
  // The engine's outputs form an unbroken stream Lat positions behind its input.
  const int64_t lat = engine.latencyPositions();
  for (size_t q = 0; q < tr.emitStep.size(); ++q)
    NNACCEL_ASSERT(tr.emitStep[q] == static_cast<int64_t>(q) + lat)
        << "kernel tile r" << t.row << ".k" << t.index << ": position " << q << " at step "
        << tr.emitStep[q];
  SetStream out = relabelled(t, f, tr, in);
  const int64_t latPositions = lat + t.offsetRows * f.cols + t.offsetCols;
  const SetStream* partial = t.aux != KernelTile::Aux::None ? &set(t.auxInput) : nullptr;
  const KernelTileTiming timing = kernelTileTiming(
      t, c, in.startCycle, latPositions, in.cyclesPerPosition, partial ? partial->startCycle : 0);
  const int64_t start = timing.startCycle;
  if (partial) {
    NNACCEL_ASSERT(partial->values.size() == out.values.size()) << "aux input size";
    for (size_t q = 0; q < out.values.size(); ++q)
      out.values[q] += partial->values[q];
    // FIFO 4706 must hold the partial until this tile's own sums of the same position are
    // complete: a position or more early, it would meet an earlier position's sums.
    if (timing.partialEarlyCycles >= in.cyclesPerPosition)
      violations_.push_back(fmt::format(
          "kernel tile r{}.k{} (layer '{}'): FIFO 4706 delays {} positions; the partial still "
          "arrives {} cycles before the sums (one position is {} cycles)",
          t.row, t.index, t.layer, t.auxDelayPositions, timing.partialEarlyCycles,
          in.cyclesPerPosition));
  }
  LayerDetail::Energy& en = energyOf(t.layer);
  chargeKernelTile(t, c, prices_, in.frame.positions(), massMultiplierAdders_, en);
  // A kernel tile drives int32 partial sums (docs/arch/Stream.md, "Kernel-tile output").
  chargeBus(en, t.outChannels, in.frame.positions(), crossesChip(t.input, t.row), true);
  out.startCycle = start;
  out.latencyPositions = latPositions;
  kernelStart_[i] = start;
  if (start != t.startCycle)
    violations_.push_back(fmt::format("kernel tile r{}.k{} (layer '{}'): output starts at cycle "
                                      "{}, the compiler planned {}",
                                      t.row, t.index, t.layer, start, t.startCycle));
  sets_[{t.row, t.outSlot}] = std::move(out);
}

void Simulator::runAuxTile(size_t i) {
  const AuxTile& t = program_.auxTiles[i];
  const StreamConfig& c = program_.config;
  const SetStream& pin = set(t.primary);
  const int64_t P = pin.cyclesPerPosition;
  SetStream out;
  out.frame = pin.frame;
  out.frames = pin.frames;
  out.cyclesPerPosition = P;
  out.values = pin.values;
  out.latencyPositions = pin.latencyPositions; // a bypass carries a partial's latency along
  const std::string where = fmt::format("aux tile r{}.a{} (layer '{}')", t.row, t.index, t.layer);
  const SetStream* ain = t.hasAux ? &set(t.aux) : nullptr;
  if (ain && t.add == AuxAdd::Scale) {
    checkLatch(where, pin.startCycle + t.primaryDelayPositions * P,
               ain->startCycle + t.auxDelayPositions * ain->cyclesPerPosition,
               ain->cyclesPerPosition);
  } else if (ain) {
    // Both inputs of a position must be present together (each value is held a position).
    NNACCEL_ASSERT(ain->frame.positions() == pin.frame.positions() && ain->frames == pin.frames)
        << where << ": sets of different frames";
    checkMeet(where, pin.startCycle + t.primaryDelayPositions * P,
              ain->startCycle + t.auxDelayPositions * P, P);
  }
  combineOperands(t, c.lanes, pin, ain, where, out);
  requantizeAndLookUp(t, where, out);
  chargeAuxTile(t, c, prices_, pin, ain, out, crossesChip(t.primary, t.row),
                ain && crossesChip(t.aux, t.row), energyOf(t.layer));
  const int64_t patchDelayCycles = isPatchFunction(t.function) ? runPatch(t, where, out) : 0;
  out.startCycle =
      auxTileStartCycle(t, c, pin.startCycle, ain ? ain->startCycle : 0, P, patchDelayCycles);
  chargeBus(energyOf(t.layer), out.frame.channels, out.frame.positions(), false, false);
  if (out.startCycle != t.startCycle)
    violations_.push_back(fmt::format("{}: output starts at cycle {}, the compiler planned {}",
                                      where, out.startCycle, t.startCycle));
  sets_[{t.row, t.outSlot}] = std::move(out);
}

bool Simulator::hasValue(ir::ValueId v) const {
  for (const Layer& l : program_.layers)
    for (ir::ValueId o : l.outputs)
      if (o == v && !l.outSets.empty())
        return true;
  return false;
}

Tensor Simulator::value(ir::ValueId v) const {
  for (const Layer& l : program_.layers) {
    if (l.outSets.empty() || std::find(l.outputs.begin(), l.outputs.end(), v) == l.outputs.end())
      continue;
    const FrameShape f = l.out.frame;
    std::vector<int8_t> bytes;
    for (int64_t fr = 0; fr < images_; ++fr) {
      std::vector<Value> pos(static_cast<size_t>(f.values()));
      int64_t c0 = 0;
      for (const BusRef& b : l.outSets) {
        const SetStream& s = set(b);
        const int64_t ch = s.frame.channels;
        const int64_t base = fr * f.positions() * ch;
        for (int64_t q = 0; q < f.positions(); ++q)
          for (int64_t k = 0; k < ch; ++k)
            pos[static_cast<size_t>(q * f.channels + c0 + k)] =
                s.values[static_cast<size_t>(base + q * ch + k)];
        c0 += ch;
      }
      NNACCEL_ASSERT(c0 == f.channels)
          << "layer " << l.name << ": sets carry " << c0 << " of " << f.channels << " channels";
      for (Value x : l.outPixelMajor ? pos : toChannelMajor(pos, f)) {
        NNACCEL_ASSERT(x >= -128 && x <= 127) << "layer " << l.name << " is not int8";
        bytes.push_back(static_cast<int8_t>(x));
      }
    }
    Dims shape = qm_.graph.value(v).shape;
    if (!shape.empty())
      shape[0] *= images_; // the batch's images, one per frame
    return Tensor::fromVector<int8_t>(shape, bytes);
  }
  NNACCEL_ASSERT(false) << "value " << v << " is not on the chip";
  return {};
}

std::vector<report::LayerStats> Simulator::layerStats() const {
  const Program& p = program_;
  const StreamConfig& c = p.config;
  std::vector<report::LayerStats> out;
  const int64_t period = framePeriodCycles_;
  for (size_t li = 0; li < p.layers.size(); ++li) {
    const Layer& l = p.layers[li];
    const LayerDetail& d = details_[li];
    report::LayerStats s;
    s.name = l.name;
    s.op = l.op;
    s.shape = fmt::format("{}x{}x{}", l.out.frame.channels, l.out.frame.rows, l.out.frame.cols);
    s.unit = l.kind == LayerKind::View            ? "view"
             : l.kind == LayerKind::OutputCircuit ? "output"
             : d.kernelTiles > 0                  ? "tiles"
                                                  : "aux";
    s.note = l.note;
    // Per-frame figures times the frames streamed.
    s.usefulMacs = l.usefulMacs * frames_;
    s.issuedMacs = d.issuedMacs * frames_;
    // Every layer streams concurrently: each is busy for the whole run (the pipeline's cycles
    // are not a sum over layers). The total row carries the run: the first output's latency,
    // then one frame period per frame, back to back.
    s.cycles = li + 1 == p.layers.size() ? runCycles() : 0;
    s.busyCycles = s.cycles;
    s.causes.compute = s.cycles; // the pipeline takes a position every cycle it is fed
    const int64_t slots = d.kernelTiles * 9 * c.lanes * c.lanes * period;
    s.utilization = slots > 0 ? static_cast<double>(l.usefulMacs) / static_cast<double>(slots) : 0;
    const auto frames = static_cast<double>(frames_);
    s.metrics.emplace_back("kernel_tiles", static_cast<double>(d.kernelTiles));
    s.metrics.emplace_back("aux_tiles", static_cast<double>(d.auxTiles));
    s.metrics.emplace_back("fifo_kbit", static_cast<double>(d.fifoBits) / 1000.0);
    s.metrics.emplace_back("latency_cyc", static_cast<double>(d.latencyCycles));
    s.counts.emplace_back("discarded_macs", d.discardedMacs);
    s.counts.emplace_back("fifo_bits", d.fifoBits);
    s.counts.emplace_back("bypass_tiles", d.bypassTiles);
    s.energyPj = d.energy.totalPj() * frames;
    s.energy.compute = (d.energy.cellsPj + d.energy.massMultipliersPj) * frames;
    s.energy.onChip = (d.energy.weightsPj + d.energy.fifosPj) * frames;
    s.energy.postProcess = d.energy.auxPj * frames;
    s.energy.interconnect = d.energy.busesPj * frames;
    out.push_back(std::move(s));
  }
  return out;
}

} // namespace nnaccel::arch::stream
