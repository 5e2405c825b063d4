/// \file
/// Planar tiling, output-halo widths and halo descriptors of the sparse engine, generated from a
/// layer's geometry (seed 001 §2.3, Tables 7 and 8; digest erratum 6: the printed Table 8 is
/// the 51 x 51 tile's, so descriptors are derived, never copied).
///
/// One axis at a time: the input plane [0, inSize) and the output [0, outSize) are each split
/// evenly over `parts` PEs (Split). A product of input coordinate u and a weight of
/// displacement d lands on output u * scale + d, d in [dMin, dMax]. A PE's halo on each side is
/// how far its products reach past the output tile it owns. The mapping is legal when every
/// halo lands only in the adjacent PE's tile (the eight-descriptor scheme cannot express more);
/// halo cells outside the output plane belong to no PE and are dropped (invalid descriptors).
#pragma once

#include "nnaccel/arch/sparse/Program.h"
#include "nnaccel/ir/OpParams.h"

#include <optional>
#include <vector>

namespace nnaccel::arch::sparse {

/// One spatial axis of a layer in the Cartesian-product mapping.
struct AxisMap {
  int64_t inSize = 1;  ///< input-plane extent
  int64_t outSize = 1; ///< output extent
  int64_t scale = 1;   ///< input coordinate multiplier (transposed convolution: stride)
  int64_t dMin = 0, dMax = 0;
};

/// An axis split over PEs with each PE's halo widths.
struct AxisTiles {
  Split in, out;
  std::vector<int64_t> haloLo, haloHi; ///< per PE: frame cells before / after its output tile
  /// Input halos (tileAxisInputHalos): per PE the input range [heldLo, heldHi] it holds, its
  /// `in` tile plus the neighbours' inputs its products need. Empty with output halos.
  std::vector<int64_t> heldLo, heldHi;
};

/// Splits \p m over \p parts PEs (1 <= parts <= min(inSize, outSize)) and computes the halos.
AxisTiles tileAxis(const AxisMap& m, int64_t parts);
/// Input halos (seed 001 ¶0070): \p m's output split over \p parts PEs (1 <= parts <=
/// min(inSize, outSize)), each holding every input whose products can land in its tile and
/// accumulating that tile alone (no output halos). Any parts is legal: nothing is exchanged.
AxisTiles tileAxisInputHalos(const AxisMap& m, int64_t parts);
/// True when every PE's products reach only its own and the adjacent PEs' output tiles.
bool haloReachesOnlyNeighbours(const AxisMap& m, const AxisTiles& t);
/// The largest PE count <= maxParts for which haloReachesOnlyNeighbours holds.
AxisTiles chooseAxisTiles(const AxisMap& m, int64_t maxParts);

/// The frames (output tile + halos) and the eight halo descriptors of every PE of the grid
/// x.in.parts x y.in.parts (PE index py * gridX + px).
std::vector<PeFrame> makeFrames(const AxisTiles& x, const AxisTiles& y);

/// The PoolTileWork (Program.h) of \p p when the input lies in \p source (a tiling of the input
/// plane) and the pooled output in \p pooled; PE (px, py) of one is PE (px, py) of the other.
PoolTileWork poolTileWork(const ir::PoolParams& p, const Tiling& source, const Tiling& pooled);

} // namespace nnaccel::arch::sparse
