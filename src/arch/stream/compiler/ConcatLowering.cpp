/// \file
/// Concatenation along channels for the stream compiler (Mapper.h): the bus arrangement where
/// the inputs are whole sets (Fig. 54's 5411), else output sets packed from pieces of the
/// inputs' sets by concat muxes 4912, with rescaling LUTs and the FIFOs that align every output
/// set to the latest.
#include "Mapper.h"
#include "nnaccel/support/Error.h"

#include <algorithm>
#include <fmt/format.h>

namespace nnaccel::arch::stream::detail {

namespace {

/// Aux tile \p t's LUT 4906 requantizing int8 by \p r (a concat input onto the output's scale
/// and zero point).
void setRescaleLut(AuxTile& t, const ConcatRescale& r) {
  t.lutEnabled = true;
  t.lut = makeLut([&](int32_t v) {
    return r.table.empty() ? quant::requantizeTo(v - r.zIn, r.m, r.zOut)
                           : int32_t{r.table[static_cast<size_t>(v - quant::kInt8Min)]};
  });
}

} // namespace

/// Concatenation along channels. Where every input but the last is whole sets, it is the bus
/// arrangement (Fig. 54's 5411): the sets side by side. Otherwise (T = 1) each output set is
/// packed from pieces of the inputs' sets by concat muxes 4912, the lowest k lanes of one set
/// then the lowest 16 - k of the next, with a channel Subset first where a piece does not start
/// at lane 0. Inputs on another scale pass a LUT (an int8 -> int8 requantization) before any
/// mux. Finally every output set is aligned to the latest by FIFOs, so the concatenated stream's
/// sets are position-synchronous like any other's.
void Mapper::lowerConcat(ir::NodeId id) {
  const ir::Node& n = g_.node(id);
  const Dims& os = g_.value(n.outputs[0]).shape;
  if (os.size() != 4 || ir::concatAxis(g_, id) != 1)
    throw Error(ErrorKind::Unsupported, ErrorContext{.node = n.name},
                fmt::format("Concat along an axis other than channels"));
  int64_t T = 1;
  std::vector<Placed> parts = concatInputs(id, T);
  Layer& l = addLayer(id, "bus arrangement (5411: no tile)");
  const size_t li = program_.layers.size() - 1;
  for (size_t i = 0; i < parts.size(); ++i)
    if (parts[i].sets.empty()) // a constant zero operand: padded channels
      parts[i] = zeroChannels(li, parts, parts[i].format.frame.channels, T);
  int64_t channels = 0;
  bool packed = false; // T1: some output set needs concat muxes
  // T > 1: mux 4912 packs the lanes of one time slot, so an input that ends inside a set cannot
  // share it with the next; the sets stay as they are (ragged: fewer channels than 16 T) and the
  // consumer reads each with its own channel range.
  bool ragged = false;
  const int64_t perSet = c_.lanes * T;
  for (size_t i = 0; i < parts.size(); ++i) {
    parts[i] = mergeSets(li, std::move(parts[i]), T);
    const int64_t ch = parts[i].format.frame.channels;
    if ((i + 1 < parts.size() && ch % perSet != 0) || isRagged(parts[i]))
      (T > 1 ? ragged : packed) = true;
    channels += ch;
  }
  const int64_t P = parts[0].format.cyclesPerPosition;
  Placed out;
  out.format = parts[0].format;
  out.format.frame.channels = channels;
  l.in = parts[0].format;
  l.out = out.format;
  if (packed)
    l.note = "concat muxes 4912 pack the output sets";
  if (ragged)
    l.note = fmt::format("bus arrangement of ragged sets (inputs not whole {}-channel sets at "
                         "T{})",
                         perSet, T);
  // Phase 1: each output set, a whole input set passed on or a chain of muxes.
  std::vector<ConcatSet> built;
  for (const std::vector<ConcatPiece>& ps : concatPieces(parts, out.format.sets(), perSet, ragged))
    built.push_back(packConcatSet(li, id, parts, ps, out.format, T));
  // Phase 2: align every output set to the latest.
  alignConcatSets(li, built, P, out);
  program_.layers[li].outSets = out.sets;
  placed_[n.outputs[0]] = std::move(out);
}

/// The placed inputs of concatenation \p id (same frame and position rate), and in \p T the
/// largest time multiplexing among them.
std::vector<Placed> Mapper::concatInputs(ir::NodeId id, int64_t& T) {
  const ir::Node& n = g_.node(id);
  std::vector<Placed> parts;
  for (size_t i = 0; i < n.inputs.size(); ++i) {
    if (const std::optional<int64_t> zeros = zeroOperandChannels(n.inputs[i])) {
      Placed z; // placed by zeroChannels once a streamed input fixes the format
      z.format.frame.channels = *zeros;
      parts.push_back(std::move(z));
      continue;
    }
    parts.push_back(at(n.inputs[i], n.outputs[0]));
    const Placed& p = parts.back();
    if (p.format.frame.rows != parts[0].format.frame.rows ||
        p.format.frame.cols != parts[0].format.frame.cols ||
        p.format.cyclesPerPosition != parts[0].format.cyclesPerPosition)
      throw Error(ErrorKind::Unsupported, ErrorContext{.node = n.name},
                  fmt::format("inputs differ in frame size or position rate"));
    T = std::max(T, p.format.tm);
  }
  const auto streamed =
      std::find_if(parts.begin(), parts.end(), [](const Placed& p) { return !p.sets.empty(); });
  if (streamed == parts.end())
    throw Error(ErrorKind::Unsupported, ErrorContext{.node = n.name},
                "every input is a constant: nothing streams");
  for (Placed& p : parts)
    if (p.sets.empty()) {
      const int64_t zeros = p.format.frame.channels;
      p.format = streamed->format;
      p.format.frame.channels = zeros;
    }
  return parts;
}

/// The channels of \p v when it is a graph constant of zeros shaped [1, C, H, W] (an exporter's
/// channel padding: Pad, or Concat with zeros), else nullopt.
std::optional<int64_t> Mapper::zeroOperandChannels(ir::ValueId v) const {
  const ir::Value& val = g_.value(v);
  if (!val.constant || val.shape.size() != 4 || val.shape[0] != 1)
    return std::nullopt;
  const std::span<const float> x = val.constant->values<float>();
  if (val.constant->dtype() != DType::F32 ||
      !std::all_of(x.begin(), x.end(), [](float f) { return f == 0.0f; }))
    return std::nullopt;
  return val.shape[1];
}

/// \p channels zero channels in step with the streamed inputs of a concatenation (layer \p li;
/// sets of up to 16 T channels at its time multiplexing \p T): aux tiles that keep the lowest lanes
/// of the first streamed input's first set (a channel Subset) and map every value to 0 through LUT
/// 4906 — a constant operand as padded channels, with the tiles it costs.
Placed Mapper::zeroChannels(size_t li, const std::vector<Placed>& parts, int64_t channels,
                            int64_t T) {
  const Placed& src =
      *std::find_if(parts.begin(), parts.end(), [](const Placed& p) { return !p.sets.empty(); });
  Placed z;
  z.format = src.format;
  z.format.frame.channels = channels;
  const BusRef from = src.sets.front();
  const int64_t perSet = std::min(c_.lanes * T, channelsOfSet(from));
  for (int64_t c0 = 0; c0 < channels; c0 += perSet) {
    const size_t ti = newAuxFor(li, from.bus, from, nullptr);
    AuxTile& t = aux(ti);
    t.function = AuxFunction::Subset;
    t.laneOffset = 0;
    t.channels = std::min(perSet, channels - c0);
    t.window.outRows = src.format.frame.rows;
    t.window.outCols = src.format.frame.cols;
    t.lutEnabled = true;
    t.lut = makeLut([](int32_t) { return 0; });
    appendAuxSet(z, ti, planAux(ti, src.format.cyclesPerPosition), false);
  }
  return z;
}

/// The pieces of each output set, in channel order: each input set whole when \p ragged, else
/// the inputs' lanes packed into \p outSets sets of \p perSet channels.
std::vector<std::vector<ConcatPiece>> Mapper::concatPieces(const std::vector<Placed>& parts,
                                                           int64_t outSets, int64_t perSet,
                                                           bool ragged) const {
  std::vector<std::vector<ConcatPiece>> pieces(static_cast<size_t>(outSets));
  if (ragged)
    pieces.clear();
  int64_t at = 0;
  for (size_t i = 0; i < parts.size(); ++i)
    for (size_t si = 0; si < parts[i].sets.size(); ++si) {
      const int64_t ch = channelsOfSet(parts[i].sets[si]);
      if (ragged) {
        pieces.push_back({ConcatPiece{i, si, 0, ch}});
        continue;
      }
      for (int64_t lane = 0; lane < ch;) {
        const int64_t take = std::min(perSet - at % perSet, ch - lane);
        pieces[static_cast<size_t>(at / perSet)].push_back(ConcatPiece{i, si, lane, take});
        lane += take;
        at += take;
      }
    }
  return pieces;
}

/// The requantization of concatenation \p id's input \p part onto the output's scale and zero
/// point, if any (none when both are the input's).
std::optional<ConcatRescale> Mapper::concatRescale(ir::NodeId id, size_t part) const {
  const ir::Node& n = g_.node(id);
  const ir::ValueId in = n.inputs.at(part);
  const quant::QuantNode& q = qm_.node(id);
  const std::vector<int8_t>* table = q.inputTable(part);
  const ConcatRescale r{q.inputMultipliers.at(part), g_.isConstant(in) ? 0 : qm_.zeroPoint(in),
                        qm_.zeroPoint(n.outputs[0]), table ? *table : std::vector<int8_t>{}};
  return r.m.isIdentity() && r.zIn == r.zOut ? std::nullopt : std::optional(r);
}

/// One output set of concatenation \p id (layer \p li) from pieces \p ps: a whole input set
/// passed on, or (T1 only) a chain of concat muxes over the pieces.
ConcatSet Mapper::packConcatSet(size_t li, ir::NodeId id, const std::vector<Placed>& parts,
                                const std::vector<ConcatPiece>& ps, const StreamFormat& out,
                                int64_t T) {
  const ConcatPiece& p0 = ps.front();
  const BusRef s0 = parts[p0.part].sets[p0.set];
  if (ps.size() == 1 && p0.lane0 == 0 && p0.lanes == channelsOfSet(s0))
    return ConcatSet{s0, concatRescale(id, p0.part), -1};
  NNACCEL_ASSERT(T == 1) << g_.node(id).name << ": packing at T" << T;
  const int64_t P = out.cyclesPerPosition;
  ConcatSet b;
  int64_t accLanes = 0;
  for (const ConcatPiece& pc : ps) {
    BusRef src = parts[pc.part].sets[pc.set];
    const std::optional<ConcatRescale> m = concatRescale(id, pc.part);
    if (pc.lane0 > 0 || m)
      src = prepareConcatPiece(li, src, pc, m, out);
    if (accLanes == 0) {
      NNACCEL_ASSERT(channelsOfSet(src) == pc.lanes) << g_.node(id).name << ": first piece";
      b.set = src;
      accLanes = pc.lanes;
      continue;
    }
    const size_t ti = newAuxFor(li, std::max(b.set.bus, src.bus), b.set, &src);
    AuxTile& t = aux(ti);
    t.function = AuxFunction::Concat;
    t.concatLanes = accLanes;
    t.channels = accLanes + pc.lanes;
    alignOperands(li, t, P);
    b.set = BusRef{t.row, t.outSlot};
    b.mux = static_cast<int64_t>(ti);
    noteSet(b.set, t.channels, planAux(ti, P));
    accLanes = t.channels;
  }
  return b;
}

/// A prep tile for piece \p pc of set \p src: its lanes moved down to lane 0 (a channel
/// Subset) and rescaled by \p rescale. Returns the tile's set.
BusRef Mapper::prepareConcatPiece(size_t li, BusRef src, const ConcatPiece& pc,
                                  const std::optional<ConcatRescale>& rescale,
                                  const StreamFormat& out) {
  const size_t ti = newAuxFor(li, src.bus, src, nullptr);
  AuxTile& t = aux(ti);
  if (pc.lane0 > 0) {
    t.function = AuxFunction::Subset;
    t.laneOffset = pc.lane0;
    t.channels = pc.lanes;
    t.window.outRows = out.frame.rows;
    t.window.outCols = out.frame.cols;
  }
  if (rescale)
    setRescaleLut(t, *rescale);
  const BusRef set{t.row, t.outSlot};
  noteSet(set, t.channels, planAux(ti, out.cyclesPerPosition));
  return set;
}

/// Every output set of \p built delayed to the latest's start (a set less than a position early
/// passes as it is) and still-pending rescales applied; appended to \p out.
void Mapper::alignConcatSets(size_t li, const std::vector<ConcatSet>& built, int64_t P,
                             Placed& out) {
  int64_t latest = 0;
  for (const ConcatSet& b : built)
    latest = std::max(latest, startOf(b.set));
  for (const ConcatSet& b : built) {
    const int64_t early = latest - startOf(b.set);
    if (b.mux >= 0) { // delay both inputs of the last mux
      AuxTile& t = aux(static_cast<size_t>(b.mux));
      const int64_t e = early / P;
      t.primaryDelayPositions += e;
      t.auxDelayPositions += e;
      checkAuxFifos(li, t);
      program_.layers[li].fifoValues += e * (channelsOfSet(t.primary) + channelsOfSet(t.aux));
      appendAuxSet(out, static_cast<size_t>(b.mux), planAux(static_cast<size_t>(b.mux), P), false);
      continue;
    }
    if (!b.rescale && early < P) {
      out.sets.push_back(b.set);
      out.timing.push_back(SetTiming{startOf(b.set)});
      out.producerAux.push_back(-1);
      continue;
    }
    const size_t ti = newAuxFor(li, b.set.bus, b.set, nullptr);
    AuxTile& t = aux(ti);
    t.primaryDelayPositions = std::max<int64_t>(0, latest - startOf(t.primary)) / P;
    checkAuxFifos(li, t);
    program_.layers[li].fifoValues += t.primaryDelayPositions * t.channels;
    if (b.rescale)
      setRescaleLut(t, *b.rescale);
    appendAuxSet(out, ti, planAux(ti, P), false);
  }
}

/// A Slice of a frame's channels (step 1, every other axis whole): each input set it overlaps
/// passes whole (a bus arrangement) or through a channel Subset (Fig. 30A) on an aux tile, so
/// the output's sets may be ragged.
void Mapper::lowerSlice(ir::NodeId id) {
  const ir::Node& n = g_.node(id);
  const Placed in = at(n.inputs[0], n.outputs[0]);
  const ir::SliceParams sp = ir::sliceParams(g_, id);
  const Dims& shape = g_.value(n.inputs[0]).shape;
  bool channels = shape.size() == 4 && !in.flattenedFrame && !in.pixelMajor;
  for (size_t a = 0; channels && a < shape.size(); ++a)
    channels = sp.steps[a] == 1 && (a == 1 || (sp.starts[a] == 0 && sp.ends[a] == shape[a]));
  if (!channels || sp.ends[1] <= sp.starts[1])
    throw Error(ErrorKind::Unsupported, ErrorContext{.node = n.name},
                "only a slice of a frame's channels (step 1) is a channel Subset on the chip");
  const int64_t c0 = sp.starts[1], c1 = sp.ends[1];
  Layer& l = addLayer(id, "channel Subset (Fig. 30A)");
  const size_t li = program_.layers.size() - 1;
  l.in = in.format;
  Placed out = in;
  out.sets.clear();
  out.timing.clear();
  out.producerAux.clear();
  out.format.frame.channels = c1 - c0;
  const int64_t P = in.format.cyclesPerPosition;
  for (int64_t si = 0, first = 0; si < static_cast<int64_t>(in.sets.size()); ++si) {
    const BusRef set = in.sets[static_cast<size_t>(si)];
    const int64_t count = channelsOfSet(set), lo = std::max(c0, first),
                  hi = std::min(c1, first + count);
    if (lo == first && hi == first + count) {
      out.sets.push_back(set);
      out.timing.push_back(in.timing[static_cast<size_t>(si)]);
      out.producerAux.push_back(-1);
    } else if (lo < hi) {
      const size_t ti = newAuxFor(li, set.bus, set, nullptr);
      AuxTile& t = aux(ti);
      t.function = AuxFunction::Subset;
      t.laneOffset = lo - first;
      t.channels = hi - lo;
      t.window.outRows = in.format.frame.rows;
      t.window.outCols = in.format.frame.cols;
      appendAuxSet(out, ti, planAux(ti, P), true);
    }
    first += count;
  }
  program_.layers[li].out = out.format;
  program_.layers[li].outSets = out.sets;
  placed_[n.outputs[0]] = std::move(out);
}

} // namespace nnaccel::arch::stream::detail
