/// \file
/// The aux-tile functions of the stream compiler (Mapper.h) other than concatenation: patch
/// functions (pooling, Sample, Expand), activation LUTs (folded into the producing aux tile
/// where they can be), the output circuit, residual adds, and the alternating muxes that merge
/// sets to a larger time multiplexing.
#include "Mapper.h"
#include "nnaccel/ir/OpParams.h"
#include "nnaccel/support/Error.h"

#include <algorithm>
#include <fmt/format.h>

namespace nnaccel::arch::stream::detail {

std::array<int8_t, 256> composeLuts(const std::array<int8_t, 256>& inner,
                                    const std::array<int8_t, 256>& outer) {
  return makeLut([&](int32_t q) {
    return outer[static_cast<size_t>(inner[static_cast<size_t>(q + 128)] + 128)];
  });
}

void appendLut(AuxTile& t, const ChannelLuts& tables) {
  const auto ch = static_cast<size_t>(t.channels);
  NNACCEL_ASSERT(tables.size() == 1 || tables.size() == ch)
      << t.layer << ": " << tables.size() << " tables for " << ch << " channels";
  if (tables.size() == 1 && t.channelLuts.empty()) {
    t.lut = t.lutEnabled ? composeLuts(t.lut, tables[0]) : tables[0];
  } else {
    ChannelLuts composed(ch);
    for (size_t k = 0; k < ch; ++k) {
      const auto& outer = tables[tables.size() == 1 ? 0 : k];
      const auto& inner = t.channelLuts.empty() ? t.lut : t.channelLuts[k];
      composed[k] = t.lutEnabled ? composeLuts(inner, outer) : outer;
    }
    t.channelLuts = std::move(composed);
  }
  t.lutEnabled = true;
}

// ---- patch functions ---------------------------------------------------------------------------

/// A patch function on every set of \p in for layer \p li: folded into the set's producing aux
/// tile when \p fuse and that tile's output mux still bypasses, else one new aux tile per set.
/// Returns the new placement. DepthToSpace turns each set's channels into positions: a set of
/// T time slots leaves with T / phases (at least 1), each value held as long as before.
Placed Mapper::applyPatch(size_t li, const Placed& in, AuxFunction fn, const PatchWindow& w,
                          std::vector<quant::CountMultiplier> counts, bool fuse,
                          quant::ZeroPoints averageZero) {
  const FrameShape f = in.format.frame;
  const int64_t phases = fn == AuxFunction::DepthToSpace ? w.factorRows * w.factorCols : 1;
  FrameShape of{w.outRows, w.outCols, f.channels / phases};
  const int64_t P = in.format.cyclesPerPosition;
  // The output rate: the input frame's cycles spread evenly over the output positions.
  const int64_t Pout = std::max<int64_t>(1, P * f.positions() / of.positions());
  Placed out;
  out.format = in.format; // the lanes keep their time multiplexing; each value is held longer
  out.format.frame = of;
  out.format.cyclesPerPosition = Pout;
  out.format.tm = std::max<int64_t>(1, in.format.tm / phases);
  const int64_t delay = retimeDelayCycles(fn, w, f, P, Pout);
  for (size_t si = 0; si < in.sets.size(); ++si) {
    const int64_t inChannels = channelsOfSet(in.sets[si]);
    NNACCEL_ASSERT(inChannels % phases == 0) << inChannels << " channels in " << phases;
    const size_t ti = patchTileFor(li, in, si, fuse);
    AuxTile& t = aux(ti);
    t.function = fn;
    t.window = w;
    t.averageMultipliers = counts;
    if (fn == AuxFunction::Average || fn == AuxFunction::GlobalAverage)
      t.zero = averageZero; // never fused: the tile is the pool's own
    t.channels = inChannels / phases;
    appendAuxSet(out, ti, planAux(ti, P, delay), false);
    // Row FIFOs of the patch (one row of per-column partial results per window row beyond the
    // first) and the output FIFO that spreads the results evenly (its peak: the delay).
    program_.layers[li].fifoValues +=
        ((w.kernelRows - 1) * f.cols + ceilDiv(delay, std::max<int64_t>(1, P))) * inChannels;
  }
  return out;
}

/// The aux tile to run a patch function of layer \p li on set \p si of \p in: the set's
/// producing tile when \p fuse and its output mux still bypasses, else a new one.
size_t Mapper::patchTileFor(size_t li, const Placed& in, size_t si, bool fuse) {
  const int64_t producer = si < in.producerAux.size() ? in.producerAux[si] : -1;
  if (!fuse || producer < 0 || aux(static_cast<size_t>(producer)).function != AuxFunction::Bypass)
    return newAuxFor(li, in.sets[si].bus, in.sets[si], nullptr);
  const auto ti = static_cast<size_t>(producer);
  const size_t pl = auxLayer_.at(ti);
  if (pl != li) { // the producing layer's output continues into this function
    program_.layers[pl].outSets.clear();
    program_.layers[pl].note =
        fmt::format("output mux of its last aux tile runs '{}'", program_.layers[li].name);
    program_.layers[li].auxTiles.push_back(static_cast<int64_t>(ti));
  }
  return ti;
}

void Mapper::lowerPool(ir::NodeId id) {
  const ir::Node& n = g_.node(id);
  const ir::PoolParams pp = ir::poolParams(g_, id);
  const Placed in = at(n.inputs[0], n.outputs[0]);
  Layer& l = addLayer(id, "");
  const size_t li = program_.layers.size() - 1;
  l.in = in.format;
  const bool global = n.op == ir::OpKind::GlobalAveragePool || n.op == ir::OpKind::GlobalMaxPool;
  const bool average = n.op == ir::OpKind::AveragePool || n.op == ir::OpKind::GlobalAveragePool;
  const PatchWindow w = poolWindow(id, pp, in.format.frame);
  const AuxFunction fn = !average ? AuxFunction::MaxPool
                         : global ? AuxFunction::GlobalAverage
                                  : AuxFunction::Average;
  std::vector<quant::CountMultiplier> counts;
  if (average)
    counts = qm_.node(id).countMultipliers;
  // A max pool folds into the producing tile (after its LUT) when it is the only reader.
  const bool fuse = !average && soleConsumer(n.inputs[0]) == id;
  Placed out = applyPatch(li, in, fn, w, counts, fuse, qm_.zeroPointsOf(id));
  program_.layers[li].out = out.format;
  program_.layers[li].outSets = out.sets;
  placed_[n.outputs[0]] = std::move(out);
}

/// The window of pooling node \p id (parameters \p pp) over frame \p f, checked against the aux
/// tiles' patch.
PatchWindow Mapper::poolWindow(ir::NodeId id, const ir::PoolParams& pp, const FrameShape& f) const {
  const ir::Node& n = g_.node(id);
  PatchWindow w;
  if (n.op == ir::OpKind::GlobalAveragePool || n.op == ir::OpKind::GlobalMaxPool) {
    w.kernelRows = f.rows;
    w.kernelCols = f.cols;
    w.outRows = w.outCols = 1;
    return w;
  }
  if (pp.kernel.size() != 2)
    throw Error(ErrorKind::Unsupported, ErrorContext{.node = n.name},
                fmt::format("{}-D pooling; the ASIC streams 2-D frames", pp.kernel.size()));
  for (size_t i = 0; i < pp.dilations.size(); ++i)
    if (pp.dilations[i] != 1)
      throw Error(ErrorKind::Unsupported, ErrorContext{.node = n.name},
                  fmt::format("dilated pooling is not a patch function"));
  w.kernelRows = pp.kernel[0];
  w.kernelCols = pp.kernel[1];
  w.strideRows = pp.strides[0];
  w.strideCols = pp.strides[1];
  w.padTop = pp.padsBegin[0];
  w.padLeft = pp.padsBegin[1];
  w.padBottom = pp.padsEnd[0];
  w.padRight = pp.padsEnd[1];
  w.outRows = pp.outSpatial[0];
  w.outCols = pp.outSpatial[1];
  w.countIncludePad = pp.countIncludePad;
  if (std::max(w.kernelRows, w.kernelCols) > c_.maxPatch)
    throw Error(ErrorKind::Config, ErrorContext{.key = "aux_tiles.max_patch"},
                fmt::format("a {}x{} pooling window exceeds the aux tiles' "
                            "largest patch {}",
                            w.kernelRows, w.kernelCols, c_.maxPatch));
  return w;
}

/// Resize / Upsample "nearest" by whole factors: Expand (4911, Fig. 50) on every set. The output
/// has more positions than the input, so each lasts fewer cycles: the stream must have been
/// downsampled enough before (P divisible by the factors, T still <= P).
void Mapper::lowerExpand(ir::NodeId id) {
  const ir::Node& n = g_.node(id);
  const Placed in = at(n.inputs[0], n.outputs[0]);
  const FrameShape f = in.format.frame;
  const Dims& os = g_.value(n.outputs[0]).shape;
  const bool shaped = os.size() == 4 && os[0] == 1 && os[1] == f.channels && os[2] % f.rows == 0 &&
                      os[3] % f.cols == 0;
  const int64_t fr = shaped ? os[2] / f.rows : 0, fc = shaped ? os[3] / f.cols : 0;
  bool nearest = shaped;
  const std::vector<int32_t>& index = qm_.node(id).gatherIndex;
  for (int64_t c = 0; nearest && c < f.channels; ++c)
    for (int64_t oy = 0; nearest && oy < os[2]; ++oy)
      for (int64_t ox = 0; ox < os[3]; ++ox)
        if (index[static_cast<size_t>((c * os[2] + oy) * os[3] + ox)] !=
            (c * f.rows + oy / fr) * f.cols + ox / fc) {
          nearest = false;
          break;
        }
  if (!nearest)
    throw Error(ErrorKind::Unsupported, ErrorContext{.node = n.name},
                fmt::format("{} to {}: only nearest upsampling by whole factors maps onto "
                            "Expand (4911)",
                            ir::opName(n.op), dimsToString(os)));
  checkUpsamplingRate(n, in.format, fr, fc, "Expand");
  PatchWindow w;
  w.factorRows = fr;
  w.factorCols = fc;
  w.outRows = os[2];
  w.outCols = os[3];
  placeUpsampling(id, in, AuxFunction::Expand, w);
}

/// Upsampling node \p id of stream \p in as patch function \p fn with window \p w: its layer,
/// folded into the producing aux tile when \p id is the stream's only reader.
void Mapper::placeUpsampling(ir::NodeId id, const Placed& in, AuxFunction fn,
                             const PatchWindow& w) {
  const ir::Node& n = g_.node(id);
  Layer& l = addLayer(id, "");
  const size_t li = program_.layers.size() - 1;
  l.in = in.format;
  Placed out = applyPatch(li, in, fn, w, {}, soleConsumer(n.inputs[0]) == id);
  program_.layers[li].out = out.format;
  program_.layers[li].outSets = out.sets;
  placed_[n.outputs[0]] = std::move(out);
}

/// A stream upsampled by \p fr x \p fc leaves at fr * fc output positions per input one: the
/// input must hold each position that many cycles, and as many more times T (one-line error
/// naming node \p n otherwise).
void Mapper::checkUpsamplingRate(const ir::Node& n, const StreamFormat& in, int64_t fr, int64_t fc,
                                 const char* unit) const {
  const int64_t P = in.cyclesPerPosition, factor = fr * fc;
  if (P % factor != 0 || P / factor < in.tm)
    throw Error(ErrorKind::Unsupported, ErrorContext{.node = n.name},
                fmt::format("{} by {}x{} needs {} cycles per input position (and {} for "
                            "its time multiplexing T{}); the stream has {}. Upsampling a "
                            "faster stream needs N-up output sets, which the ASIC's 1-up "
                            "buses do not carry",
                            unit, fr, fc, factor, factor * in.tm, in.tm, P));
}

/// A linear Resize of the two spatial axes by whole factors: Interpolate on every set
/// (nnaccel's addition: the patent's aux tile has Expand, which only duplicates). Each output
/// is the int8 interpolation rule (quant::interpolateAt) over the tables the quantizer built.
void Mapper::lowerInterpolate(ir::NodeId id) {
  const ir::Node& n = g_.node(id);
  const Placed in = at(n.inputs[0], n.outputs[0]);
  const FrameShape f = in.format.frame;
  const Dims& os = g_.value(n.outputs[0]).shape;
  const std::vector<quant::InterpolationAxis>& axes = qm_.node(id).interpolation;
  // An axis each of whose outputs copies its own input (a second tap, if any, has no weight:
  // the int8 rule's sum and shift then both carry the same factor, so the result is unchanged).
  auto copies = [](const quant::InterpolationAxis& a, int64_t extent) {
    if (static_cast<int64_t>(a.index0.size()) != extent)
      return false;
    for (size_t o = 0; o < a.index0.size(); ++o)
      if (a.index0[o] != static_cast<int32_t>(o) ||
          (a.interpolates && a.weight1[o] != 0 && a.index1[o] != a.index0[o]))
        return false;
    return true;
  };
  if (os.size() != 4 || axes.size() != 4 || os[0] != 1 || !copies(axes[0], 1) ||
      !copies(axes[1], f.channels))
    throw Error(ErrorKind::Unsupported, ErrorContext{.node = n.name},
                fmt::format("{} to {}: only a resize of the two spatial axes of a frame maps "
                            "onto Interpolate",
                            ir::opName(n.op), dimsToString(os)));
  if (os[2] % f.rows != 0 || os[3] % f.cols != 0)
    throw Error(ErrorKind::Unsupported, ErrorContext{.node = n.name},
                fmt::format("linear resize of {}x{} to {}x{}: only whole upsampling factors "
                            "keep a whole number of cycles per output position",
                            f.rows, f.cols, os[2], os[3]));
  const int64_t fr = os[2] / f.rows, fc = os[3] / f.cols;
  checkUpsamplingRate(n, in.format, fr, fc, "Interpolate");
  PatchWindow w;
  w.factorRows = fr;
  w.factorCols = fc;
  w.outRows = os[2];
  w.outCols = os[3];
  w.interpolateRows = axes[2];
  w.interpolateCols = axes[3];
  placeUpsampling(id, in, AuxFunction::Interpolate, w);
}

// ---- lookup tables and the output circuit ----------------------------------------------------

/// \p lut applied to stream \p source as node \p id's output; \p alone: the node is the
/// source's only reader (directly or through an element-wise chain).
void Mapper::lowerLut(ir::NodeId id, const ChannelLuts& tables, ir::ValueId source, bool alone) {
  const ir::Node& n = g_.node(id);
  const Placed in = at(source, n.outputs[0]);
  Layer& l = addLayer(id, "");
  const size_t li = program_.layers.size() - 1;
  l.in = in.format;
  l.out = in.format;
  Placed out = in;
  int64_t c0 = 0; // the set's first channel
  for (size_t si = 0; si < in.sets.size(); ++si) {
    const int64_t ch = channelsOfSet(in.sets[si]);
    const ChannelLuts setTables =
        tables.size() == 1 ? tables : ChannelLuts(tables.begin() + c0, tables.begin() + c0 + ch);
    c0 += ch;
    const int64_t producer = si < in.producerAux.size() ? in.producerAux[si] : -1;
    // Fold into the producing aux tile when this is its value's only reader and its output mux
    // still bypasses (the LUT sits before the patch function, Fig. 49).
    if (alone && producer >= 0 &&
        aux(static_cast<size_t>(producer)).function == AuxFunction::Bypass) {
      foldLut(li, id, static_cast<size_t>(producer), setTables, in, out, si);
      continue;
    }
    const size_t ti = newAuxFor(li, in.sets[si].bus, in.sets[si], nullptr);
    AuxTile& t = aux(ti);
    appendLut(t, setTables);
    const BusRef ref{t.row, t.outSlot};
    const int64_t start = planAux(ti, in.format.cyclesPerPosition);
    noteSet(ref, t.channels, start);
    out.sets[si] = ref;
    out.timing[si] = SetTiming{start};
    out.producerAux[si] = static_cast<int64_t>(ti);
  }
  program_.layers[li].outSets = out.sets;
  placed_[n.outputs[0]] = std::move(out);
}

/// \p lut of node \p id (layer \p li) folded into aux tile \p producer, which writes set \p si
/// of \p in: composed after the tile's own LUT, the tile replanned into \p out.
void Mapper::foldLut(size_t li, ir::NodeId id, size_t producer, const ChannelLuts& tables,
                     const Placed& in, Placed& out, size_t si) {
  AuxTile& t = aux(producer);
  appendLut(t, tables); // the tile's LUT stage may come into use: replanned
  const BusRef ref{t.row, t.outSlot};
  const int64_t start = planAux(producer, in.format.cyclesPerPosition);
  noteSet(ref, t.channels, start);
  out.timing[si] = SetTiming{start};
  // The producing layer's sets now carry this node's output.
  Layer& pl = program_.layers[auxLayer_.at(producer)];
  pl.outputs = {g_.node(id).outputs[0]};
  program_.layers[li].note = fmt::format("lookup table 4906 of '{}' (folded)", pl.name);
  program_.layers[li].outputs.clear();
}

/// The table of a float-island unary op, evaluated by the int8 reference's own rule on each of
/// the 256 int8 inputs.
/// A Softmax feeding a graph output: the primary output circuit 4413 ("typically SoftMax")
/// computes it as the values leave the chip.
bool Mapper::isOutputFunction(ir::NodeId id) const {
  const ir::Node& n = g_.node(id);
  if (n.op != ir::OpKind::Softmax)
    return false;
  for (ir::ValueId o : g_.outputs)
    if (o == n.outputs[0])
      return true;
  return false;
}

void Mapper::lowerOutputFunction(ir::NodeId id) {
  const ir::Node& n = g_.node(id);
  const StreamFormat f = at(n.inputs[0], n.outputs[0]).format;
  Layer& l = addLayer(id, "primary output circuit 4413 (as the values leave the chip)");
  l.kind = LayerKind::OutputCircuit;
  l.in = l.out = f;
  outputFunctions_[n.outputs[0]] = n.inputs[0];
}

// ---- residual adds and set merging -------------------------------------------------------------

/// A residual Add on adders 4904, set by set. An operand that is channel padding (a Concat
/// with zeros fused into this Add, fusePaddingIntoAdd) is the auxiliary input with fewer
/// channels: the adder adds 0 on the lanes it does not drive, and a set of the other operand
/// beyond it passes a LUT that applies the add with 0 (the int8 rule of a zero operand).
void Mapper::lowerAdd(ir::NodeId id) {
  const ir::Node& n = g_.node(id);
  const bool padA = paddedOf_.contains(n.inputs[0]), padB = paddedOf_.contains(n.inputs[1]);
  if (padA && padB)
    throw Error(ErrorKind::Unsupported, ErrorContext{.node = n.name},
                "both operands are channel padding");
  Placed a = at(padA ? paddedOf_.at(n.inputs[0]) : n.inputs[0], n.outputs[0]);
  Placed b = at(padB ? paddedOf_.at(n.inputs[1]) : n.inputs[1], n.outputs[0]);
  quant::AddSubMultipliers scales = qm_.node(id).addSub;
  quant::ZeroPoints zero = qm_.zeroPointsOf(id);
  if (padA) { // the padded operand is the auxiliary input (addition commutes with its scale)
    std::swap(a, b);
    std::swap(scales.a, scales.b);
    std::swap(zero.in[0], zero.in[1]);
  }
  const bool padded = padA || padB;
  combineStreams(
      id, std::move(a), std::move(b), padded,
      padded ? "one operand is channel padding: its missing lanes add 0" : "",
      [&](AuxTile& t) {
        t.add = AuxAdd::Scaled;
        t.addScales = scales;
        t.zero = zero;
      },
      [&](AuxTile& t) { // a set beyond the padding: the rule with a zero operand (real 0)
        t.lutEnabled = true;
        t.lut = makeLut(
            [&](int32_t v) { return quant::addSubValue(false, scales, v, zero.in[1], zero); });
      });
}

/// A Mul of two frames streamed together (AuxAdd::Multiply) or a comparison of two (Compare),
/// set by set like a residual Add.
void Mapper::lowerPair(ir::NodeId id) {
  const ir::Node& n = g_.node(id);
  const quant::QuantNode& q = qm_.node(id);
  const bool multiply = q.kind == quant::QuantOpKind::Mul;
  const char* note = multiply                                ? "a multiplier beside adder 4904"
                     : q.kind == quant::QuantOpKind::Compare ? "adder 4904 compares"
                                                             : "adder 4904 compares and selects";
  combineStreams(id, at(n.inputs[0], n.outputs[0]), at(n.inputs[1], n.outputs[0]), false, note,
                 [&](AuxTile& t) {
                   t.zero = qm_.zeroPointsOf(id);
                   if (multiply) {
                     t.add = AuxAdd::Multiply;
                     t.mulScale = q.mulMultiplier;
                     return;
                   }
                   t.compareScales = {q.inputMultipliers.at(0), q.inputMultipliers.at(1)};
                   if (q.kind == quant::QuantOpKind::Compare) {
                     t.add = AuxAdd::Compare;
                     t.comparison = quant::comparisonOf(n.op);
                   } else {
                     t.add = AuxAdd::Extremum;
                     t.extremumMax = n.op == ir::OpKind::Max;
                   }
                 });
}

/// Node \p id's streams \p a and \p b combined set by set on aux tiles whose two-input stage
/// \p configure sets: merged to one T (alternating muxes), the earlier operand delayed by a
/// FIFO. With \p padded, \p b may lack the last sets of \p a: those pass alone, through a tile
/// \p configureLone sets.
void Mapper::combineStreams(ir::NodeId id, Placed a, Placed b, bool padded, std::string note,
                            const std::function<void(AuxTile&)>& configure,
                            const std::function<void(AuxTile&)>& configureLone) {
  const ir::Node& n = g_.node(id);
  checkAddFrames(n, a, b, padded);
  addLayer(id, std::move(note));
  const size_t li = program_.layers.size() - 1;
  // Operands on different time multiplexing (a shortcut from a pool keeps its producer's T; a
  // convolution's output takes the canonical one) meet at the larger T.
  const int64_t T = std::max(a.format.tm, b.format.tm);
  a = mergeSets(li, std::move(a), T);
  b = mergeSets(li, std::move(b), T);
  checkAddSets(n, a, b, padded, T);
  program_.layers[li].in = program_.layers[li].out = a.format;
  Placed out;
  out.format = a.format;
  const int64_t P = a.format.cyclesPerPosition;
  for (size_t si = 0; si < a.sets.size(); ++si) {
    if (si >= b.sets.size()) {
      const size_t ti = newAuxFor(li, a.sets[si].bus, a.sets[si], nullptr);
      NNACCEL_ASSERT(configureLone) << n.name << ": a set without its operand";
      configureLone(aux(ti));
      appendAuxSet(out, ti, planAux(ti, P), true);
      continue;
    }
    const int64_t row = std::max(a.sets[si].bus, b.sets[si].bus);
    const size_t ti = newAuxFor(li, row, a.sets[si], &b.sets[si]);
    configure(aux(ti));
    alignOperands(li, aux(ti), P);
    appendAuxSet(out, ti, planAux(ti, P), true);
  }
  program_.layers[li].outSets = out.sets;
  placed_[n.outputs[0]] = std::move(out);
}

/// Throws unless Add \p n's operands stream the same frame at the same rate (with \p padded,
/// the auxiliary \p b may carry fewer channels).
void Mapper::checkAddFrames(const ir::Node& n, const Placed& a, const Placed& b,
                            bool padded) const {
  const FrameShape fa = a.format.frame, fb = b.format.frame;
  const bool channelsFit = padded ? fb.channels < fa.channels : fb.channels == fa.channels;
  if (fa.rows != fb.rows || fa.cols != fb.cols || !channelsFit ||
      a.format.cyclesPerPosition != b.format.cyclesPerPosition)
    throw Error(ErrorKind::Unsupported, ErrorContext{.node = n.name},
                fmt::format("{} of streams {}x{}x{} and {}x{}x{} (broadcasting is "
                            "not a stream function)",
                            ir::opName(n.op), fa.rows, fa.cols, fa.channels, fb.rows, fb.cols,
                            fb.channels));
}

/// Throws unless the sets of \p a and \p b pair up for adders 4904: the same channels set by
/// set, or, with \p padded, \p b's sets those of \p a but its last one narrower or missing.
void Mapper::checkAddSets(const ir::Node& n, const Placed& a, const Placed& b, bool padded,
                          int64_t T) const {
  bool pairs = padded ? b.sets.size() <= a.sets.size() : b.sets.size() == a.sets.size();
  for (size_t si = 0; pairs && si < b.sets.size(); ++si) {
    const int64_t ca = channelsOfSet(a.sets[si]), cb = channelsOfSet(b.sets[si]);
    pairs = si + 1 == b.sets.size() && padded ? cb <= ca : cb == ca;
  }
  if (!pairs)
    throw Error(ErrorKind::Unsupported, ErrorContext{.node = n.name},
                fmt::format("its operands' sets split the channels differently (one is a "
                            "concatenation of inputs that are not whole sets at T{}); adder "
                            "4904 adds set by set",
                            T));
}

/// Fuses channel padding \p id (Concat of a stream and constant zeros, on the stream's scale)
/// into the residual Add that is its only reader: the Add takes the unpadded stream as its
/// narrower operand. Returns false (nothing done) when \p id is not such a Concat.
bool Mapper::fusePaddingIntoAdd(ir::NodeId id) {
  const ir::Node& n = g_.node(id);
  if (n.inputs.size() != 2 || g_.value(n.inputs[0]).constant || !zeroOperandChannels(n.inputs[1]) ||
      ir::concatAxis(g_, id) != 1 || concatRescale(id, 0).has_value())
    return false;
  const std::optional<ir::NodeId> reader = soleConsumer(n.outputs[0]);
  if (!reader || g_.node(*reader).op != ir::OpKind::Add ||
      qm_.node(*reader).kind != quant::QuantOpKind::AddSub)
    return false;
  paddedOf_[n.outputs[0]] = n.inputs[0];
  Layer& l = addLayer(id, "channel padding with zeros, fused into the residual Add that reads "
                          "it (adder 4904 adds 0 on the lanes the unpadded stream does not "
                          "drive): no tile");
  l.kind = LayerKind::View;
  l.in = at(n.inputs[0], n.outputs[0]).format;
  l.out = l.in;
  l.out.frame.channels = g_.value(n.outputs[0]).shape[1];
  return true;
}

/// True when a set of \p p other than the last carries fewer than 16 T channels (the sets of a
/// concatenation at T > 1 whose inputs are not whole sets).
bool Mapper::isRagged(const Placed& p) const {
  for (size_t si = 0; si + 1 < p.sets.size(); ++si)
    if (channelsOfSet(p.sets[si]) != p.format.lanes * p.format.tm)
      return true;
  return false;
}

/// \p in with its sets merged pairwise by alternating muxes 4913 (claim 21; Fig. 54 node 5412)
/// until its time multiplexing is \p tm: each step puts sets 2k and 2k+1 (or a last odd set
/// alone) on one set holding each value half as long. Needs tm <= P (every value still held at
/// least one cycle).
Placed Mapper::mergeSets(size_t li, Placed in, int64_t tm) {
  const int64_t P = in.format.cyclesPerPosition;
  NNACCEL_ASSERT(tm <= P && in.format.tm <= tm) << "merge to T" << tm << " at P" << P;
  if (in.format.tm < tm && isRagged(in))
    throw Error(ErrorKind::Unsupported, ErrorContext{.node = program_.layers[li].name},
                fmt::format("an input's sets are ragged (a concatenation of inputs that are not "
                            "whole sets at T{}); alternating mux 4913 cannot merge them to T{}",
                            in.format.tm, tm));
  while (in.format.tm < tm) {
    Placed out;
    out.format = in.format;
    out.format.tm *= 2;
    for (size_t si = 0; si < in.sets.size(); si += 2) {
      const bool pair = si + 1 < in.sets.size();
      const BusRef a = in.sets[si];
      const int64_t row = pair ? std::max(a.bus, in.sets[si + 1].bus) : a.bus;
      const size_t ti = newAuxFor(li, row, a, pair ? &in.sets[si + 1] : nullptr);
      AuxTile& t = aux(ti);
      t.function = AuxFunction::Alternate;
      if (pair) {
        t.channels += channelsOfSet(in.sets[si + 1]);
        alignOperands(li, t, P);
      }
      appendAuxSet(out, ti, planAux(ti, P), false);
    }
    NNACCEL_ASSERT(static_cast<int64_t>(out.sets.size()) == out.format.sets())
        << "merged sets " << out.sets.size() << " for " << out.format.sets();
    in = std::move(out);
  }
  return in;
}

} // namespace nnaccel::arch::stream::detail
