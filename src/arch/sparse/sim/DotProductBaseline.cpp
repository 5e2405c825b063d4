/// \file
/// DCNN (PT-IS-DP-dense) on one Conv layer: DotProductBaseline.h states the model.
#include "DotProductBaseline.h"

#include "nnaccel/support/IntMath.h"

#include <algorithm>

namespace nnaccel::arch::sparse {
namespace {

/// Per conv group that the output channels [first, first + count) touch: (input channels,
/// output channels of the range in it). A depthwise layer's range spans many conv groups of one
/// input channel each.
std::vector<std::pair<int64_t, int64_t>> convGroupShares(const ConvLayer& l, int64_t first,
                                                         int64_t count) {
  const int64_t inPerGroup = l.inChannels / l.convGroups;
  const int64_t outPerGroup = l.outChannels / l.convGroups;
  std::vector<std::pair<int64_t, int64_t>> shares;
  for (int64_t k = first; k < first + count;) {
    const int64_t end = std::min(first + count, (k / outPerGroup + 1) * outPerGroup);
    shares.emplace_back(inPerGroup, end - k);
    k = end;
  }
  return shares;
}

/// The busiest of min(\p pes, groups) PEs when \p groupCycles are dealt to them in
/// contiguous, balanced runs (as the compiler deals SCNN's groups).
int64_t busiestSlice(const std::vector<int64_t>& groupCycles, int64_t pes) {
  const auto groups = static_cast<int64_t>(groupCycles.size());
  const int64_t slices = std::max<int64_t>(1, std::min(pes, groups));
  int64_t busiest = 0;
  for (int64_t s = 0; s < slices; ++s) {
    int64_t cycles = 0;
    for (int64_t g = s * groups / slices; g < (s + 1) * groups / slices; ++g)
      cycles += groupCycles[static_cast<size_t>(g)];
    busiest = std::max(busiest, cycles);
  }
  return busiest;
}

} // namespace

DotProductWork dotProductWork(const ConvLayer& l, const SparseConfig& config,
                              const LayerInput& in) {
  const int64_t F = config.weightsPerVector, I = config.activationsPerVector;
  const int64_t phases = l.phasesX * l.phasesY;
  const int64_t bytes = config.valueBits / 8;
  const auto pes = static_cast<int64_t>(l.frames.size());
  DotProductWork w;
  // DCNN's output-channel groups: SCNN's Kc, but never narrower than its F dot-product units.
  const int64_t width = std::max(l.kc, F);
  // With output-channel slices (ConvLayer::sliceFirstGroup) every PE holds the one frame and
  // DCNN deals its groups to the PEs as SCNN does: the layer takes the busiest PE's groups.
  const bool sliced = !l.sliceFirstGroup.empty();
  std::vector<int64_t> groupCycles;
  int64_t lastGroup = 0;
  for (int64_t first = 0; first < l.outChannels; first += width) {
    lastGroup = std::min(width, l.outChannels - first);
    const auto shares = convGroupShares(l, first, lastGroup);
    // Per tap of one output channel: dot products and channels of the group.
    int64_t issuesPerTap = 0, macsPerTap = 0, rmwPerTap = 0, channelsRead = 0;
    for (const auto& [channels, outs] : shares) {
      issuesPerTap += ceilDiv(channels, I) * ceilDiv(outs, F);
      macsPerTap += channels * outs;
      rmwPerTap += ceilDiv(channels, I) * outs;
      channelsRead += channels;
    }
    int64_t slowest = 0;
    for (int64_t pe = 0; pe < pes; ++pe) {
      int64_t cycles = 0;
      for (int64_t phase = 0; phase < phases; ++phase) {
        // Channel 0's phase planes: every channel's tile has the same pixels.
        const int64_t pixels = in.pixels[static_cast<size_t>(pe * in.planes + phase)];
        const int64_t taps = l.denseTapsPerPlane[static_cast<size_t>(phase)];
        cycles += pixels * taps * issuesPerTap;
        w.access.multiplies += pixels * taps * macsPerTap;
        w.access.accumulatorRmw += pixels * taps * rmwPerTap;
        w.access.iaReadBytes += pixels * channelsRead * bytes;
      }
      slowest = std::max(slowest, cycles);
    }
    if (sliced)
      groupCycles.push_back(slowest);
    else
      w.computeCycles += slowest; // the barrier: the next group starts when every PE is done
  }
  if (sliced)
    w.computeCycles = busiestSlice(groupCycles, config.peCount());
  // The last group's post-processing is exposed (one op per output value and channel, plus a
  // fused pooling's window elements and received values, as on SCNN's PPU).
  int64_t home = 0;
  for (size_t pe = 0; pe < l.frames.size(); ++pe)
    home = std::max(home, l.frames[pe].outW * l.frames[pe].outH +
                              (l.fusedPool ? l.fusedPool->peOpsPerChannel[pe] : 0));
  w.computeCycles += ceilDiv(home * lastGroup, config.ppuOpsPerCycle);
  w.access.weightFifoReadBytes = w.access.multiplies * bytes;
  // Broadcast to every PE, or each slice's weights to its PE alone.
  w.access.weightFifoWriteBytes = l.denseWeights * bytes * (sliced ? 1 : pes);
  const ir::PoolParams* pool = l.fusedPool ? &l.fusedPool->pool.params : nullptr;
  w.access.oaWriteBytes =
      l.outChannels * bytes * (pool ? pool->outSpatial[0] * pool->outSpatial[1] : l.outH * l.outW);
  return w;
}

} // namespace nnaccel::arch::sparse
