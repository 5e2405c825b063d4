/// \file
/// Channel scale on the aux tiles (Mapper, Mapper.h): a Mul of a frame [N, C, H, W] by a
/// per-frame vector [N, C, 1, 1] computed on the chip, i.e. squeeze-and-excitation's x * s.
/// The patent's aux tiles have an adder but no multiplier; nnaccel adds one beside adder 4904
/// (AuxAdd::Scale) and documents it as its own choice (docs/arch/Stream.md, "Channel scale").
/// The vector exists only once its whole frame has been pooled, so the frame waits for it in
/// FIFO 4902: a frame of latency and a frame of FIFO per set, the period unchanged.
#include "Mapper.h"
#include "nnaccel/support/Error.h"

#include <fmt/format.h>

namespace nnaccel::arch::stream::detail {

/// The input index (0 or 1) of Mul node \p id's frame when its other input is a per-frame
/// channel vector it scales (same batch and channels, 1x1 spatially); nullopt otherwise.
std::optional<size_t> Mapper::channelScaleFrame(ir::NodeId id) const {
  const ir::Node& n = g_.node(id);
  if (n.op != ir::OpKind::Mul || n.inputs.size() != 2 || g_.isConstant(n.inputs[0]) ||
      g_.isConstant(n.inputs[1]))
    return std::nullopt;
  const Dims& out = g_.value(n.outputs[0]).shape;
  for (size_t xi = 0; xi < 2; ++xi) {
    const Dims& x = g_.value(n.inputs[xi]).shape;
    const Dims& s = g_.value(n.inputs[1 - xi]).shape;
    if (x == out && s.size() == 4 && x.size() == 4 && s[0] == x[0] && s[1] == x[1] && s[2] == 1 &&
        s[3] == 1 && x[2] * x[3] > 1)
      return xi;
  }
  return std::nullopt;
}

void Mapper::lowerScale(ir::NodeId id, size_t xi) {
  const ir::Node& n = g_.node(id);
  const Placed x = at(n.inputs[xi], n.outputs[0]);
  const Placed s = at(n.inputs[1 - xi], n.outputs[0]);
  const int64_t P = x.format.cyclesPerPosition;
  const int64_t period = P * x.format.frame.positions();
  if (s.format.frame.positions() != 1 || s.format.cyclesPerPosition != period ||
      s.format.frame.channels != x.format.frame.channels)
    throw Error(ErrorKind::Unsupported, ErrorContext{.node = n.name},
                fmt::format("the channel vector streams {}x{}x{} at {} cycles per position; a "
                            "channel scale needs one position per frame of {} cycles",
                            s.format.frame.rows, s.format.frame.cols, s.format.frame.channels,
                            s.format.cyclesPerPosition, period));
  addLayer(id, "channel scale: the frame waits in FIFO 4902 for its vector, then a multiplier "
               "beside adder 4904 scales each channel");
  const size_t li = program_.layers.size() - 1;
  program_.layers[li].in = program_.layers[li].out = x.format;
  Placed out;
  out.format = x.format;
  int64_t c0 = 0;
  for (size_t si = 0; si < x.sets.size(); ++si) {
    const int64_t ch = channelsOfSet(x.sets[si]);
    const auto [sj, first] = vectorSetOf(n, s, c0, ch);
    const int64_t row = std::max(x.sets[si].bus, s.sets[sj].bus);
    const size_t ti = newAuxFor(li, row, x.sets[si], &s.sets[sj]);
    AuxTile& t = aux(ti);
    t.add = AuxAdd::Scale;
    t.mulScale = qm_.node(id).mulMultiplier;
    t.zero = qm_.zeroPointsOf(id); // the frame is input xi, the vector the other
    if (xi == 1)
      std::swap(t.zero.in[0], t.zero.in[1]);
    t.auxFirstChannel = first;
    latchVector(li, t, P, period);
    appendAuxSet(out, ti, planAux(ti, P), true);
    c0 += ch;
  }
  program_.layers[li].outSets = out.sets;
  placed_[n.outputs[0]] = std::move(out);
}

/// The set of vector \p s holding channels [c0, c0 + channels) and the first one's index in it.
std::pair<size_t, int64_t> Mapper::vectorSetOf(const ir::Node& n, const Placed& s, int64_t c0,
                                               int64_t channels) const {
  int64_t at = 0;
  for (size_t sj = 0; sj < s.sets.size(); ++sj) {
    const int64_t ch = channelsOfSet(s.sets[sj]);
    if (c0 >= at && c0 + channels <= at + ch)
      return {sj, c0 - at};
    at += ch;
  }
  throw Error(ErrorKind::Unsupported, ErrorContext{.node = n.name},
              fmt::format("channels {}..{} of the frame span two sets of its channel vector", c0,
                          c0 + channels - 1));
}

/// Aux tile \p t's FIFOs for a channel scale: the primary waits (FIFO 4902) until its frame's
/// vector is there; a vector that came a whole frame or more early waits in the aux FIFO.
void Mapper::latchVector(size_t li, AuxTile& t, int64_t P, int64_t period) {
  const int64_t sa = startOf(t.primary), sb = startOf(t.aux);
  t.primaryDelayPositions = sb > sa ? ceilDiv(sb - sa, P) : 0;
  t.auxDelayPositions = sa > sb ? (sa - sb) / period : 0;
  checkAuxFifos(li, t);
  program_.layers[li].fifoValues +=
      t.primaryDelayPositions * channelsOfSet(t.primary) + t.auxDelayPositions * t.channels;
}

} // namespace nnaccel::arch::stream::detail
