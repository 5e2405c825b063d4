/// \file
/// The stream program's shared rules (Program.h): stream formats, function names and the timing
/// of a kernel tile and an aux tile. The compiler plans every start cycle with these functions
/// and the simulator recomputes them from the sets it measured, so the two cannot drift apart.
#include "nnaccel/arch/stream/Program.h"

#include "nnaccel/support/Error.h"

#include <algorithm>

namespace nnaccel::arch::stream {

int64_t StreamFormat::sets() const {
  return (frame.channels + lanes * tm - 1) / (lanes * tm);
}
int64_t StreamFormat::holdCycles() const {
  return cyclesPerPosition / tm;
}

std::string_view auxFunctionName(AuxFunction f) {
  switch (f) {
  case AuxFunction::Bypass:
    return "bypass";
  case AuxFunction::MaxPool:
    return "maxpool";
  case AuxFunction::Average:
    return "average";
  case AuxFunction::Sample:
    return "sample";
  case AuxFunction::Expand:
    return "expand";
  case AuxFunction::GlobalAverage:
    return "global-average";
  case AuxFunction::Alternate:
    return "alternate";
  case AuxFunction::Concat:
    return "concat";
  case AuxFunction::Subset:
    return "subset";
  case AuxFunction::DepthToSpace:
    return "depth-to-space";
  case AuxFunction::Interpolate:
    return "interpolate";
  }
  return "?";
}

InterpolateParams interpolateParams(const PatchWindow& w) {
  auto axis = [](const quant::InterpolationAxis& a) {
    return InterpolateAxis{a.interpolates, a.index0, a.index1, a.weight1};
  };
  return InterpolateParams{axis(w.interpolateRows), axis(w.interpolateCols),
                           quant::kInterpolationWeightBits, [](int64_t sum, int shift) {
                             return static_cast<Value>(quant::interpolationRound(sum, shift));
                           }};
}

bool isPatchFunction(AuxFunction f) {
  switch (f) {
  case AuxFunction::MaxPool:
  case AuxFunction::Average:
  case AuxFunction::Sample:
  case AuxFunction::Expand:
  case AuxFunction::GlobalAverage:
  case AuxFunction::Subset:
  case AuxFunction::DepthToSpace:
  case AuxFunction::Interpolate:
    return true;
  case AuxFunction::Bypass:
  case AuxFunction::Alternate:
  case AuxFunction::Concat:
    return false;
  }
  return false;
}

KernelTileTiming kernelTileTiming(const KernelTile& t, const StreamConfig& c,
                                  int64_t inputStartCycle, int64_t latencyPositions,
                                  int64_t cyclesPerPosition, int64_t partialStartCycle) {
  const int64_t sumsReady = inputStartCycle + latencyPositions * cyclesPerPosition +
                            c.kernelTileLatencyCycles() - c.unitAdderCycles;
  KernelTileTiming r;
  if (t.aux == KernelTile::Aux::None) {
    r.startCycle = sumsReady + c.unitAdderCycles; // the bias enters in adder 4707
    return r;
  }
  const int64_t partialArrival = partialStartCycle + t.auxDelayPositions * cyclesPerPosition;
  r.partialEarlyCycles = std::max<int64_t>(0, sumsReady - partialArrival);
  r.ownWaitCycles = std::max<int64_t>(0, partialArrival - sumsReady);
  r.startCycle = std::max(sumsReady, partialArrival) + c.unitAdderCycles;
  return r;
}

int64_t auxTileStartCycle(const AuxTile& t, const StreamConfig& c, int64_t primaryStartCycle,
                          int64_t auxStartCycle, int64_t cyclesPerPosition,
                          int64_t patchDelayCycles) {
  int64_t at = primaryStartCycle + t.primaryDelayPositions * cyclesPerPosition;
  // A channel scale's vector is latched when the primary's frame begins: it is there by then
  // (the aux FIFO counts whole frames), so the primary alone sets the pace.
  if (t.hasAux && t.add != AuxAdd::Scale)
    at = std::max(at, auxStartCycle + t.auxDelayPositions * cyclesPerPosition);
  bool staged = false;
  if (t.add != AuxAdd::None) {
    NNACCEL_ASSERT(t.hasAux) << "aux tile r" << t.row << ".a" << t.index << ": adder, one input";
    at += c.auxAdderCycles;
    staged = true;
  }
  if (!t.requantize.empty() || t.lutEnabled) {
    at += c.lutCycles;
    staged = true;
  }
  if (isPatchFunction(t.function)) {
    at += c.patchCycles + patchDelayCycles;
    staged = true;
  }
  // Muxes 4912/4913 and a plain bypass or alignment FIFO: the output register, one hop.
  if (!staged)
    at += c.busHopCycles;
  return at;
}

} // namespace nnaccel::arch::stream
