/// \file
/// The cycle-level model of one Conv layer on the PE array (internal to the simulator): the
/// layer sequencer's weight broadcast, every PE's Table 4 sequence through its scatter
/// crossbar, the double-buffered accumulators, the halo exchange, the barrier and the
/// post-processing timeline; functionally it accumulates every product and produces the
/// layer's int8 output. The same model, in dense mode, times the PTIS-dense baseline.
#pragma once

#include "nnaccel/arch/sparse/Program.h"
#include "nnaccel/arch/sparse/Simulator.h"

#include <cstdint>
#include <functional>
#include <vector>

namespace nnaccel::arch::sparse {

/// One entry of a PE's input-activation buffer: value (0 for a zero-valued pad) and position
/// in the PE's tile.
struct IaEntry {
  int32_t value;
  int32_t x, y;
};

/// The compacted input of one layer: per used PE and plane, the entries in buffer order.
struct LayerInput {
  int64_t planes = 0;
  /// entries of (pe, plane) are entries[begin[pe * planes + plane] .. begin[... + 1]).
  std::vector<IaEntry> entries;
  std::vector<int64_t> begin;
  std::vector<int64_t> bitsPerPe; ///< compressed size (values + codes) per PE
  /// Per (pe, plane) as `begin`: the input pixels of the PE's tile (what a dense machine reads;
  /// plane positions that hold no pixel, as the gaps of a dilated layer, are not counted).
  std::vector<int64_t> pixels;
  int64_t nonZeros = 0, denseElements = 0; ///< denseElements: the sum of `pixels`
  /// Input halos: non-zeros held as a copy of another PE's input (PeFrame's inHalo* margins).
  int64_t replicated = 0;
};

/// Compacts the dense int8 input of \p layer into every PE's activation buffer (the memory
/// interface / previous layer's compaction, Table 10 corrected: x fastest, running index -1).
LayerInput compactInput(const ConvLayer& layer, const SparseConfig& config, const int8_t* input);

/// Result of one layer on the array.
struct ArrayResult {
  std::vector<int8_t> output; ///< dense int8, the layer's output layout (sparse mode only)
  LayerDetail detail;         ///< cycles, losses, accesses (sparse or dense side filled)
  std::vector<int64_t> oaBitsPerPe;
};

/// Runs \p layer on the array. Sparse mode: functional + timing from \p input. Dense mode
/// (PTIS-dense baseline): timing and access counts only. \p threads >= 2 steps the two halves
/// of the PE grid on two threads (identical results).
/// \p progress, when set, is called every kProgressCycles cycles with the share of the layer's
/// weight vectors broadcast so far.
ArrayResult runArray(const ConvLayer& layer, const SparseConfig& config, const LayerInput& input,
                     bool dense, int threads = 1,
                     const std::function<void(double)>& progress = nullptr);

} // namespace nnaccel::arch::sparse
