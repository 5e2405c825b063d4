/// \file
/// Stream timing for the stream compiler (Mapper.h): every set's channels and first-position
/// cycle, aux tile starts by the shared rule (Program.h), and the alignment FIFOs that make two
/// operands meet or a patch's output leave at an even rate.
#include "Mapper.h"
#include "nnaccel/support/Error.h"

#include <algorithm>
#include <fmt/format.h>
#include <memory>

namespace nnaccel::arch::stream::detail {

/// Aux tile \p ti's start by the shared rule (Program.h), from its inputs' planned starts
/// (\p P: its input's cycles per position; \p patchDelayCycles: its patch stage's retiming).
int64_t Mapper::planAux(size_t ti, int64_t P, int64_t patchDelayCycles) const {
  const AuxTile& t = program_.auxTiles[ti];
  return auxTileStartCycle(t, c_, startOf(t.primary), t.hasAux ? startOf(t.aux) : 0, P,
                           patchDelayCycles);
}

int64_t Mapper::channelsOfSet(BusRef s) const {
  auto it = setChannels_.find({s.bus, s.slot});
  NNACCEL_ASSERT(it != setChannels_.end()) << "unknown set " << s.bus << ":" << s.slot;
  return it->second;
}

int64_t Mapper::startOf(BusRef s) const {
  auto it = setStart_.find({s.bus, s.slot});
  NNACCEL_ASSERT(it != setStart_.end()) << "unknown set " << s.bus << ":" << s.slot;
  return it->second;
}

void Mapper::noteSet(BusRef s, int64_t channels, int64_t startCycle) {
  setChannels_[{s.bus, s.slot}] = channels;
  setStart_[{s.bus, s.slot}] = startCycle;
  if (s.bus < 0)
    return;
  // Record the figure on the tile that drives the slot.
  for (KernelTile& t : program_.kernelTiles)
    if (t.row == s.bus && t.outSlot == s.slot)
      t.startCycle = startCycle;
  for (AuxTile& t : program_.auxTiles)
    if (t.row == s.bus && t.outSlot == s.slot)
      t.startCycle = startCycle;
}

/// Aux tile \p t's FIFOs within the configured length (else a one-line error).
void Mapper::checkAuxFifos(size_t li, const AuxTile& t) const {
  const int64_t d = std::max(t.primaryDelayPositions, t.auxDelayPositions);
  if (d > c_.auxTileFifoPositions)
    throw Error(ErrorKind::Config, ErrorContext{.key = "aux_tiles.fifo_positions"},
                fmt::format("layer '{}': a set must wait {} positions; the aux tile FIFO "
                            "holds {}",
                            program_.layers[li].name, d, c_.auxTileFifoPositions));
}

/// The two inputs of aux tile \p t made to meet: the earlier waits in a FIFO (4902 on the
/// primary, or the auxiliary alignment FIFO) for the whole positions it leads by, so that the
/// two arrive less than a position apart (each value is held a position).
void Mapper::alignOperands(size_t li, AuxTile& t, int64_t P) {
  const int64_t sa = startOf(t.primary), sb = startOf(t.aux);
  t.primaryDelayPositions = sa <= sb ? (sb - sa) / P : 0;
  t.auxDelayPositions = sa <= sb ? 0 : (sa - sb) / P;
  checkAuxFifos(li, t);
  program_.layers[li].fifoValues += t.primaryDelayPositions * channelsOfSet(t.primary) +
                                    t.auxDelayPositions * channelsOfSet(t.aux);
}

/// Cycles from a patch input position's arrival until the output position it completes can be
/// emitted at the even output rate Pout (the output FIFO's latency), computed over one frame.
int64_t Mapper::retimeDelayCycles(AuxFunction fn, const PatchWindow& w, const FrameShape& f,
                                  int64_t P, int64_t Pout) {
  int64_t worst = 0;
  if (fn == AuxFunction::Expand || fn == AuxFunction::DepthToSpace ||
      fn == AuxFunction::Interpolate) {
    // Several outputs per input step: the schedule is the stage's own, dry-run over one frame
    // of one channel (the simulator measures the same stage).
    ExpandParams ep;
    ep.factorRows = w.factorRows;
    ep.factorCols = w.factorCols;
    const FrameShape one{f.rows, f.cols, 1};
    std::unique_ptr<StreamStage> e;
    if (fn == AuxFunction::Interpolate)
      e = std::make_unique<Interpolate>(one, interpolateParams(w));
    else
      e = std::make_unique<Expand>(one, ep);
    const std::vector<std::vector<Value>> frame{
        std::vector<Value>(static_cast<size_t>(f.positions()), 0)};
    const StreamTrace tr = runFrames(*e, frame);
    for (int64_t q = 0; q < w.outRows * w.outCols; ++q)
      worst = std::max(worst, tr.emitStep[static_cast<size_t>(q)] * P - q * Pout);
    return worst;
  }
  for (int64_t oy = 0; oy < w.outRows; ++oy)
    for (int64_t ox = 0; ox < w.outCols; ++ox) {
      // The input position that completes output (oy, ox): its window's last in-array one.
      int64_t y, x;
      if (fn == AuxFunction::Sample) {
        y = w.padTop + w.strideRows * oy;
        x = w.padLeft + w.strideCols * ox;
      } else {
        y = std::min(f.rows - 1, oy * w.strideRows - w.padTop + w.kernelRows - 1);
        x = std::min(f.cols - 1, ox * w.strideCols - w.padLeft + w.kernelCols - 1);
      }
      const int64_t ready = (y * f.cols + x) * P;
      const int64_t slot = (oy * w.outCols + ox) * Pout;
      worst = std::max(worst, ready - slot);
    }
  return worst;
}

} // namespace nnaccel::arch::stream::detail
