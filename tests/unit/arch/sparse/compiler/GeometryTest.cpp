/// \file
/// Tests of the sparse engine's planar tiling and halo descriptors (Geometry.h, seed 001 §2.3,
/// Tables 7 and 8): the printed Table 8 reproduced for the 51 x 51 tile it really describes
/// (digest erratum 6), the corrected 50 x 50 table, invalid descriptors at the array's edges
/// and corners, uneven tiles, asymmetric (even-kernel) halos, the transposed-convolution scale,
/// the neighbour-only rule and chooseAxisTiles backing off to fewer PEs, and a seeded property
/// test that every valid halo cell lands in the owning neighbour's home region.
#include "nnaccel/arch/sparse/Geometry.h"

#include "nnaccel/support/Rng.h"

#include <gtest/gtest.h>

namespace nnaccel::arch::sparse {
namespace {

/// One row of Table 8: x1, x2, y1, y2, xo, yo, PE (dx, dy).
struct Row {
  int64_t x1, x2, y1, y2, xo, yo;
  int32_t peDx, peDy;
};

void expectRows(const PeFrame& f, const std::vector<Row>& rows) {
  ASSERT_EQ(f.halos.size(), rows.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    SCOPED_TRACE(i);
    const HaloDescriptor& d = f.halos[i];
    const Row& r = rows[i];
    EXPECT_TRUE(d.valid);
    EXPECT_EQ((std::vector<int64_t>{d.x1, d.x2, d.y1, d.y2, d.xo, d.yo}),
              (std::vector<int64_t>{r.x1, r.x2, r.y1, r.y2, r.xo, r.yo}));
    EXPECT_EQ(d.peDx, r.peDx);
    EXPECT_EQ(d.peDy, r.peDy);
  }
}

/// A 3 x 3 grid of square tiles of \p tile pixels for a same-padded 3 x 3 kernel: every
/// product of input u lands on output u + d, d in [-1, 1].
std::vector<PeFrame> sameConvGrid(int64_t tile) {
  const AxisMap m{3 * tile, 3 * tile, 1, -1, 1};
  const AxisTiles t = tileAxis(m, 3);
  return makeFrames(t, t);
}

// Follows digest erratum 6: the printed Table 8 ("W = H = 50") is internally the table of a
// 51 x 51 tile (home 1..51, halos at 0 and 52, a 53 x 53 accumulator frame, offsets +-51).
TEST(SparseGeometry, PrintedTable8IsThe51x51Tile) {
  const std::vector<PeFrame> frames = sameConvGrid(51);
  ASSERT_EQ(frames.size(), 9u);
  const PeFrame& f = frames[4]; // the interior PE (1, 1)
  EXPECT_EQ(f.outX0, 51);
  EXPECT_EQ(f.outY0, 51);
  EXPECT_EQ(f.outW, 51);
  EXPECT_EQ(f.outH, 51);
  EXPECT_EQ(f.haloLeft, 1);
  EXPECT_EQ(f.haloRight, 1);
  EXPECT_EQ(f.haloTop, 1);
  EXPECT_EQ(f.haloBottom, 1);
  EXPECT_EQ(f.width(), 53);
  EXPECT_EQ(f.height(), 53);
  expectRows(f, {
                    {0, 0, 1, 51, 51, 0, -1, 0},      // Left
                    {1, 51, 0, 0, 0, 51, 0, -1},      // Top
                    {52, 52, 1, 51, -51, 0, 1, 0},    // Right
                    {1, 51, 52, 52, 0, -51, 0, 1},    // Bottom
                    {0, 0, 0, 0, 51, 51, -1, -1},     // Upper-Left
                    {52, 52, 0, 0, -51, 51, 1, -1},   // Upper-Right
                    {52, 52, 52, 52, -51, -51, 1, 1}, // Lower-Right
                    {0, 0, 52, 52, 51, -51, -1, 1},   // Lower-Left
                });
  // The text's worked reading: Left sends (0, 1:51) to (51, 1:51) of the left PE, whose home
  // region is 1..51.
  EXPECT_EQ(f.halos[0].x1 + f.halos[0].xo, 51);
  EXPECT_EQ(frames[3].haloLeft + frames[3].outW - 1, 51);
}

// Follows digest erratum 6: the consistent table for W = H = 50 (the digest's corrected rows).
TEST(SparseGeometry, CorrectedTableFor50x50Tiles) {
  const std::vector<PeFrame> frames = sameConvGrid(50);
  const PeFrame& f = frames[4];
  EXPECT_EQ(f.width(), 52); // ¶0106: 50 x 50 inputs give a 52 x 52 accumulator
  EXPECT_EQ(f.height(), 52);
  expectRows(f, {
                    {0, 0, 1, 50, 50, 0, -1, 0},
                    {1, 50, 0, 0, 0, 50, 0, -1},
                    {51, 51, 1, 50, -50, 0, 1, 0},
                    {1, 50, 51, 51, 0, -50, 0, 1},
                    {0, 0, 0, 0, 50, 50, -1, -1},
                    {51, 51, 0, 0, -50, 50, 1, -1},
                    {51, 51, 51, 51, -50, -50, 1, 1},
                    {0, 0, 51, 51, 50, -50, -1, 1},
                });
}

TEST(SparseGeometry, EdgePeLacksThreeNeighboursAndCornerPeFive) {
  const std::vector<PeFrame> frames = sameConvGrid(50);
  auto invalidSides = [](const PeFrame& f) {
    std::vector<std::pair<int32_t, int32_t>> sides;
    for (const HaloDescriptor& d : f.halos)
      if (!d.valid)
        sides.emplace_back(d.peDx, d.peDy);
    return sides;
  };
  using Sides = std::vector<std::pair<int32_t, int32_t>>;
  // Every PE still has all eight regions (the image edge's halo cells exist in the frame).
  for (const PeFrame& f : frames)
    EXPECT_EQ(f.halos.size(), 8u);
  EXPECT_EQ(invalidSides(frames[3]), (Sides{{-1, 0}, {-1, -1}, {-1, 1}})); // left edge
  EXPECT_EQ(invalidSides(frames[1]), (Sides{{0, -1}, {-1, -1}, {1, -1}})); // top edge
  EXPECT_EQ(invalidSides(frames[5]), (Sides{{1, 0}, {1, -1}, {1, 1}}));    // right edge
  EXPECT_EQ(invalidSides(frames[7]), (Sides{{0, 1}, {1, 1}, {-1, 1}}));    // bottom edge
  EXPECT_EQ(invalidSides(frames[0]), (Sides{{-1, 0}, {0, -1}, {-1, -1}, {1, -1}, {-1, 1}}));
  EXPECT_EQ(invalidSides(frames[8]), (Sides{{1, 0}, {0, 1}, {1, -1}, {1, 1}, {-1, 1}}));
  EXPECT_TRUE(invalidSides(frames[4]).empty());
  // An invalid descriptor keeps its source range but no offset.
  const HaloDescriptor& left = frames[0].halos[0];
  EXPECT_FALSE(left.valid);
  EXPECT_EQ((std::vector<int64_t>{left.x1, left.x2, left.y1, left.y2, left.xo, left.yo}),
            (std::vector<int64_t>{0, 0, 1, 50, 0, 0}));
  EXPECT_EQ(left.cells(), 50);
}

TEST(SparseGeometry, SinglePeHasOnlyInvalidDescriptors) {
  const AxisMap m{7, 7, 1, -2, 2};
  const AxisTiles t = tileAxis(m, 1);
  EXPECT_EQ(t.haloLo, (std::vector<int64_t>{2}));
  EXPECT_EQ(t.haloHi, (std::vector<int64_t>{2}));
  const std::vector<PeFrame> frames = makeFrames(t, t);
  ASSERT_EQ(frames.size(), 1u);
  EXPECT_EQ(frames[0].width(), 11);
  ASSERT_EQ(frames[0].halos.size(), 8u);
  for (const HaloDescriptor& d : frames[0].halos)
    EXPECT_FALSE(d.valid);
}

TEST(SparseGeometry, UnevenTiles) {
  const AxisMap m{10, 10, 1, -1, 1};
  const AxisTiles t = tileAxis(m, 3);
  EXPECT_EQ(t.in, (Split{10, 3}));
  EXPECT_EQ(t.out, (Split{10, 3}));
  EXPECT_EQ(t.in.begin(1), 3);
  EXPECT_EQ(t.in.length(0), 3);
  EXPECT_EQ(t.in.length(1), 3);
  EXPECT_EQ(t.in.length(2), 4);
  EXPECT_EQ(t.haloLo, (std::vector<int64_t>{1, 1, 1}));
  EXPECT_EQ(t.haloHi, (std::vector<int64_t>{1, 1, 1}));
  const AxisMap one{1, 1, 1, 0, 0};
  const std::vector<PeFrame> frames = makeFrames(t, tileAxis(one, 1));
  ASSERT_EQ(frames.size(), 3u);
  EXPECT_EQ(frames[2].inX0, 6);
  EXPECT_EQ(frames[2].inW, 4);
  EXPECT_EQ(frames[2].outW, 4);
  EXPECT_EQ(frames[2].width(), 6);
  EXPECT_EQ(frames[2].height(), 1);
  // 1-row plane: only the left and right regions are non-empty.
  ASSERT_EQ(frames[1].halos.size(), 2u);
  const HaloDescriptor& right = frames[1].halos[1];
  EXPECT_EQ(right.peDx, 1);
  EXPECT_EQ((std::vector<int64_t>{right.x1, right.x2, right.y1, right.y2, right.xo, right.yo}),
            (std::vector<int64_t>{4, 4, 0, 0, -3, 0}));
  EXPECT_TRUE(right.valid);
  // Right of PE 1 lands on the first home cell of PE 2.
  EXPECT_EQ(right.x1 + right.xo, frames[2].haloLeft);
}

TEST(SparseGeometry, EvenKernelGivesOneSidedHalos) {
  // Kernel 2, pad_begin 1: displacements {1, 0}, so products reach only to the right.
  const AxisMap m{8, 8, 1, 0, 1};
  const AxisTiles t = tileAxis(m, 4);
  EXPECT_EQ(t.haloLo, (std::vector<int64_t>{0, 0, 0, 0}));
  EXPECT_EQ(t.haloHi, (std::vector<int64_t>{1, 1, 1, 1}));
  const std::vector<PeFrame> frames = makeFrames(t, tileAxis(AxisMap{1, 1, 1, 0, 0}, 1));
  ASSERT_EQ(frames[0].halos.size(), 1u); // the empty regions are omitted
  EXPECT_EQ(frames[0].halos[0].peDx, 1);
  EXPECT_TRUE(frames[0].halos[0].valid);
  EXPECT_FALSE(frames[3].halos[0].valid); // past the plane's right edge
  // Valid conv output shrinking: in 8 -> out 7 (no pad), displacements {0, -1}.
  const AxisTiles v = tileAxis(AxisMap{8, 7, 1, -1, 0}, 2);
  EXPECT_EQ(v.out, (Split{7, 2}));
  // PE 0: inputs 0..3 reach outputs -1..3 (tile 0..2); PE 1: inputs 4..7 reach 3..7 (tile
  // 3..6): the cells -1 and 7 are outside the plane but still in the frames.
  EXPECT_EQ(v.haloLo, (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(v.haloHi, (std::vector<int64_t>{1, 1}));
}

TEST(SparseGeometry, TransposedScale) {
  // ConvTranspose kernel 3, stride 2, pad 1, output_padding 1: out = 2u + k - 1, 4 -> 8.
  const AxisMap m{4, 8, 2, -1, 1};
  const AxisTiles t = tileAxis(m, 2);
  EXPECT_EQ(t.out, (Split{8, 2}));
  EXPECT_EQ(t.haloLo, (std::vector<int64_t>{1, 1}));
  EXPECT_EQ(t.haloHi, (std::vector<int64_t>{0, 0}));
  EXPECT_TRUE(haloReachesOnlyNeighbours(m, t));
  const std::vector<PeFrame> frames = makeFrames(t, tileAxis(AxisMap{1, 1, 1, 0, 0}, 1));
  ASSERT_EQ(frames[1].halos.size(), 1u);
  const HaloDescriptor& left = frames[1].halos[0];
  EXPECT_EQ(left.peDx, -1);
  EXPECT_TRUE(left.valid);
  EXPECT_EQ(left.xo, 4);
  EXPECT_EQ(left.x1 + left.xo, 4); // output 3: the last home cell of PE 0 (home 1..4)
  EXPECT_EQ(frames[0].haloLeft + frames[0].outW - 1, 4);
  // Kernel 2, stride 2, no pad: tiles are disjoint, no halo at all.
  const AxisTiles d = tileAxis(AxisMap{4, 8, 2, 0, 1}, 4);
  EXPECT_EQ(d.haloLo, (std::vector<int64_t>{0, 0, 0, 0}));
  EXPECT_EQ(d.haloHi, (std::vector<int64_t>{0, 0, 0, 0}));
}

TEST(SparseGeometry, InputHalosHoldTheNeighboursBorder) {
  // 3 taps, pad 1 on 8 pixels over 2 PEs (seed 001 ¶0070's first technique): no output halo;
  // PE 0 holds inputs 0..4 (its 0..3 and PE 1's 4), PE 1 holds 3..7.
  const AxisTiles t = tileAxisInputHalos(AxisMap{8, 8, 1, -1, 1}, 2);
  EXPECT_EQ(t.haloLo, (std::vector<int64_t>{0, 0}));
  EXPECT_EQ(t.haloHi, (std::vector<int64_t>{0, 0}));
  EXPECT_EQ(t.heldLo, (std::vector<int64_t>{0, 3}));
  EXPECT_EQ(t.heldHi, (std::vector<int64_t>{4, 7}));
  const std::vector<PeFrame> f = makeFrames(t, tileAxis(AxisMap{1, 1, 1, 0, 0}, 1));
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[0].inX0, 0);
  EXPECT_EQ(f[0].inW, 5);
  EXPECT_EQ(f[0].inHaloLeft, 0);
  EXPECT_EQ(f[0].inHaloRight, 1);
  EXPECT_EQ(f[1].inX0, 3);
  EXPECT_EQ(f[1].inW, 5);
  EXPECT_EQ(f[1].inHaloLeft, 1);
  EXPECT_EQ(f[1].inHaloRight, 0);
  EXPECT_EQ(f[0].width(), 4); // the frame is the home tile: nothing to exchange
  EXPECT_TRUE(f[0].halos.empty());
  // Transposed, stride 2 (out = 2u + d, d in [-1, 1]), 4 -> 8: PE 0 (outputs 0..3) needs
  // inputs 0..2, PE 1 (4..7) needs 2..3.
  const AxisTiles tr = tileAxisInputHalos(AxisMap{4, 8, 2, -1, 1}, 2);
  EXPECT_EQ(tr.heldLo, (std::vector<int64_t>{0, 2}));
  EXPECT_EQ(tr.heldHi, (std::vector<int64_t>{2, 3}));
}

TEST(SparseGeometry, InputHalosHoldEveryInputTheirTileNeeds) {
  // Property test: an input u reaches output u * scale + d (d in [dMin, dMax]); whenever that
  // output is in PE i's tile, PE i holds u.
  Rng rng(11);
  for (int trial = 0; trial < 400; ++trial) {
    AxisMap m;
    m.inSize = 1 + static_cast<int64_t>(rng.nextU64() % 20);
    m.scale = 1 + static_cast<int64_t>(rng.nextU64() % 3);
    m.dMin = -static_cast<int64_t>(rng.nextU64() % 4);
    m.dMax = m.dMin + static_cast<int64_t>(rng.nextU64() % 6);
    m.outSize = std::max<int64_t>(1, (m.inSize - 1) * m.scale + m.dMax + 1 -
                                         static_cast<int64_t>(rng.nextU64() % 3));
    const int64_t parts = 1 + static_cast<int64_t>(rng.nextU64() % std::min(m.inSize, m.outSize));
    const AxisTiles t = tileAxisInputHalos(m, parts);
    for (int64_t i = 0; i < parts; ++i) {
      const int64_t lo = t.heldLo[static_cast<size_t>(i)], hi = t.heldHi[static_cast<size_t>(i)];
      EXPECT_GE(lo, 0);
      EXPECT_LT(hi, m.inSize);
      for (int64_t u = 0; u < m.inSize; ++u)
        for (int64_t d = m.dMin; d <= m.dMax; ++d) {
          const int64_t o = u * m.scale + d;
          if (o >= t.out.begin(i) && o < t.out.end(i)) {
            EXPECT_TRUE(u >= lo && u <= hi) << "trial " << trial << " PE " << i << " u " << u;
          }
        }
    }
  }
}

TEST(SparseGeometry, WideHaloFallsBackToFewerPes) {
  // A 7-tap kernel (pad 3) on a 6-pixel plane: over 6 PEs the halo (3) is wider than a
  // neighbour's tile (1), so contributions would reach PEs two away.
  const AxisMap m{6, 6, 1, -3, 3};
  EXPECT_FALSE(haloReachesOnlyNeighbours(m, tileAxis(m, 6)));
  EXPECT_FALSE(haloReachesOnlyNeighbours(m, tileAxis(m, 3)));
  EXPECT_TRUE(haloReachesOnlyNeighbours(m, tileAxis(m, 2)));
  const AxisTiles t = chooseAxisTiles(m, 6);
  EXPECT_EQ(t.in.parts, 2);
  EXPECT_EQ(t.haloLo, (std::vector<int64_t>{3, 3}));
  EXPECT_EQ(t.haloHi, (std::vector<int64_t>{3, 3}));
  EXPECT_EQ(chooseAxisTiles(m, 1).in.parts, 1);
  // The same kernel on a 64-pixel plane keeps all 8 PEs (tiles of 8 > halo 3).
  EXPECT_EQ(chooseAxisTiles(AxisMap{64, 64, 1, -3, 3}, 8).in.parts, 8);
  // Never more PEs than input or output pixels.
  EXPECT_EQ(chooseAxisTiles(AxisMap{3, 20, 7, 0, 6}, 8).in.parts, 3);
  EXPECT_EQ(chooseAxisTiles(AxisMap{20, 2, 1, -18, 0}, 8).in.parts, 1);
}

TEST(SparseGeometry, HaloCellsLandInTheNeighboursHomeRegion) {
  // Property test over random axes: home regions partition the output plane; a halo cell is
  // sent (valid) exactly when it lies inside the plane, and then to the same output pixel in
  // the neighbour's home region.
  Rng rng(0x9e0);
  auto pick = [&](int64_t lo, int64_t hi) {
    return lo + static_cast<int64_t>(rng.nextU64() % static_cast<uint64_t>(hi - lo + 1));
  };
  for (int iter = 0; iter < 300; ++iter) {
    AxisMap ax, ay;
    for (AxisMap* m : {&ax, &ay}) {
      m->inSize = pick(1, 30);
      m->scale = pick(1, 3);
      m->dMin = pick(-4, 2);
      m->dMax = m->dMin + pick(0, 5);
      m->outSize = std::max<int64_t>(1, (m->inSize - 1) * m->scale + pick(-3, 4));
    }
    const AxisTiles tx = chooseAxisTiles(ax, pick(1, 8));
    const AxisTiles ty = chooseAxisTiles(ay, pick(1, 8));
    ASSERT_TRUE(haloReachesOnlyNeighbours(ax, tx));
    ASSERT_TRUE(haloReachesOnlyNeighbours(ay, ty));
    const std::vector<PeFrame> frames = makeFrames(tx, ty);
    const int64_t gx = tx.in.parts;
    std::vector<int> owner(static_cast<size_t>(ax.outSize * ay.outSize), 0);
    for (size_t p = 0; p < frames.size(); ++p) {
      const PeFrame& f = frames[p];
      for (int64_t y = f.outY0; y < f.outY0 + f.outH; ++y)
        for (int64_t x = f.outX0; x < f.outX0 + f.outW; ++x)
          ++owner[static_cast<size_t>(y * ax.outSize + x)];
      // Every product of the PE's input tile lands inside its frame.
      const int64_t lo = f.inX0 * ax.scale + ax.dMin,
                    hi = (f.inX0 + f.inW - 1) * ax.scale + ax.dMax;
      EXPECT_GE(lo, f.outX0 - f.haloLeft);
      EXPECT_LE(hi, f.outX0 - f.haloLeft + f.width() - 1);
      for (const HaloDescriptor& d : f.halos) {
        for (int64_t y = d.y1; y <= d.y2; ++y) {
          for (int64_t x = d.x1; x <= d.x2; ++x) {
            const int64_t ox = f.outX0 - f.haloLeft + x, oy = f.outY0 - f.haloTop + y;
            const bool inside = ox >= 0 && ox < ax.outSize && oy >= 0 && oy < ay.outSize;
            // Dropped cells lie outside the plane; sent cells inside it.
            ASSERT_EQ(d.valid, inside) << "halo cell (" << ox << ", " << oy << ")";
            if (!d.valid)
              continue;
            const int64_t q = (static_cast<int64_t>(p) / gx + d.peDy) * gx +
                              static_cast<int64_t>(p) % gx + d.peDx;
            const PeFrame& n = frames[static_cast<size_t>(q)];
            const int64_t nx = x + d.xo, ny = y + d.yo;
            EXPECT_EQ(n.outX0 - n.haloLeft + nx, ox);
            EXPECT_EQ(n.outY0 - n.haloTop + ny, oy);
            EXPECT_TRUE(nx >= n.haloLeft && nx < n.haloLeft + n.outW); // the home region
            EXPECT_TRUE(ny >= n.haloTop && ny < n.haloTop + n.outH);
          }
        }
      }
    }
    for (int o : owner)
      ASSERT_EQ(o, 1) << "home regions do not partition the output plane";
  }
}

/// A 2-D pooling of an 8 x 8 plane: kernel \p k, stride \p s, padding \p pad.
ir::PoolParams pool8x8(int64_t k, int64_t s, int64_t pad) {
  ir::PoolParams p;
  p.channels = 1;
  p.inSpatial = {8, 8};
  const int64_t out = (8 + 2 * pad - k) / s + 1;
  p.outSpatial = {out, out};
  p.kernel = {k, k};
  p.strides = {s, s};
  p.dilations = {1, 1};
  p.padsBegin = p.padsEnd = {pad, pad};
  return p;
}

Tiling grid(int64_t size, int64_t parts) {
  return Tiling{Split{size, parts}, Split{size, parts}};
}

TEST(SparseGeometry, PoolWindowsAcrossTileEdgesReadTheNeighboursValues) {
  // 3x3 stride 2 pad 1 over 4x4 input tiles: pooled tile (1, y) reads input columns [3, 8),
  // one column of which PE (0, y) holds; PE (1, 1) also reads a row and a corner.
  const PoolTileWork w = poolTileWork(pool8x8(3, 2, 1), grid(8, 2), grid(4, 2));
  EXPECT_EQ(w.windowOps, (std::vector<int64_t>{36, 36, 36, 36})); // 2 x 2 outputs x 9
  EXPECT_EQ(w.haloValues, (std::vector<int64_t>{0, 4, 4, 9}));
  EXPECT_EQ(w.totalWindowOps(), 144);
  EXPECT_EQ(w.totalHaloValues(), 17);
  EXPECT_EQ(w.maxPeOps(), 45);
}

TEST(SparseGeometry, AlignedPoolWindowsExchangeNothing) {
  const PoolTileWork w = poolTileWork(pool8x8(2, 2, 0), grid(8, 2), grid(4, 2));
  EXPECT_EQ(w.totalHaloValues(), 0);
  EXPECT_EQ(w.maxPeOps(), 16);
}

TEST(SparseGeometry, GlobalPoolingIsAReductionOfOnePartialPerPe) {
  const PoolTileWork w = poolTileWork(pool8x8(8, 1, 0), grid(8, 2), grid(1, 1));
  EXPECT_EQ(w.windowOps, (std::vector<int64_t>{16, 16, 16, 16}));
  EXPECT_EQ(w.haloValues, (std::vector<int64_t>{3, 0, 0, 0}));
  EXPECT_EQ(w.maxPeOps(), 19);
}

TEST(SparseGeometryDeathTest, PoolTileWorkRejectsTilingsOfOtherPlanes) {
  EXPECT_DEATH(poolTileWork(pool8x8(2, 2, 0), grid(6, 2), grid(4, 2)),
               "pooling tilings do not match its planes");
}

TEST(SparseGeometryDeathTest, TileAxisRejectsImpossibleSplits) {
  EXPECT_DEATH(tileAxis(AxisMap{4, 4, 1, 0, 0}, 0), "cannot split 4 -> 4 over 0 PEs");
  EXPECT_DEATH(tileAxis(AxisMap{4, 2, 1, 0, 0}, 3), "cannot split 4 -> 2 over 3 PEs");
}

} // namespace
} // namespace nnaccel::arch::sparse
