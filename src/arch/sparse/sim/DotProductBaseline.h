/// \file
/// The SCNN paper's dense accelerator, DCNN (PT-IS-DP-dense; ISCA 2017 §5, Table 5), as the
/// baseline of a Conv layer (internal to the simulator; baseline.dataflow: dot_product). The
/// paper states its resources (64 PEs, 1,024 multipliers, 2 MB of activation SRAM) and its
/// dataflow's name, not its microarchitecture; the model is our reading, chosen before any
/// result was compared (docs/arch/SparseCycleModel.md §10a):
///  - the same planar tiling and PE grid as the SCNN layer, and its output-channel groups (Kc)
///    widened to F where Kc < F (an F-unit dot-product machine is not built with groups
///    narrower than its units);
///  - input stationary: a PE holds the I input channels of one input pixel of its tile and
///    streams the weights of every (r, s) tap and output channel of the group past it;
///  - a PE's F x I multipliers are F dot-product units of I input channels: one cycle gives F
///    output channels' partial sums of one tap, each the sum of I products, so an accumulator
///    read-add-write serves I multiplies;
///  - every pixel, tap and channel is issued (dense), zeros included; the output-channel groups
///    end at a barrier across the PEs, and the last group's post-processing is exposed;
///  - where SCNN runs a layer as output-channel slices (fully-connected layers; activation
///    broadcast), DCNN's groups are dealt to the PEs the same way, each PE holding the frame.
/// Its time is analytic: the dense machine's work does not depend on the data.
#pragma once

#include "ArrayModel.h"

namespace nnaccel::arch::sparse {

struct DotProductWork {
  int64_t computeCycles = 0; ///< issue cycles, barriers per group, and the exposed tail
  /// On-chip events of DCNN (multiplies: every valid lane; weight-buffer reads one weight per
  /// multiply; activation reads once per pixel and group; one accumulator read-add-write per
  /// dot product; the output written once). DRAM, halos and post-processing are the caller's.
  AccessCounts access;
};

/// DCNN's work on \p layer with \p input's pixels (LayerInput::pixels) on \p config's grid.
DotProductWork dotProductWork(const ConvLayer& layer, const SparseConfig& config,
                              const LayerInput& input);

} // namespace nnaccel::arch::sparse
