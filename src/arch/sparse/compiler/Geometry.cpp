/// \file
/// Planar tiling, halo widths and halo descriptors generated from the geometry (Geometry.h).
#include "nnaccel/arch/sparse/Geometry.h"

#include "nnaccel/support/Error.h"
#include "nnaccel/support/IntMath.h"

#include <algorithm>
#include <numeric>

namespace nnaccel::arch::sparse {

namespace {

/// \p m's input and output each split evenly over \p parts PEs (no halos yet).
AxisTiles evenSplits(const AxisMap& m, int64_t parts) {
  NNACCEL_ASSERT(parts >= 1 && parts <= std::min(m.inSize, m.outSize))
      << "cannot split " << m.inSize << " -> " << m.outSize << " over " << parts << " PEs";
  AxisTiles t;
  t.in = Split{m.inSize, parts};
  t.out = Split{m.outSize, parts};
  return t;
}

} // namespace

AxisTiles tileAxis(const AxisMap& m, int64_t parts) {
  AxisTiles t = evenSplits(m, parts);
  for (int64_t i = 0; i < parts; ++i) {
    const int64_t lo = t.in.begin(i) * m.scale + m.dMin;
    const int64_t hi = (t.in.end(i) - 1) * m.scale + m.dMax;
    t.haloLo.push_back(std::max<int64_t>(0, t.out.begin(i) - lo));
    t.haloHi.push_back(std::max<int64_t>(0, hi - (t.out.end(i) - 1)));
  }
  return t;
}

AxisTiles tileAxisInputHalos(const AxisMap& m, int64_t parts) {
  AxisTiles t = evenSplits(m, parts);
  t.haloLo.assign(static_cast<size_t>(parts), 0);
  t.haloHi.assign(static_cast<size_t>(parts), 0);
  for (int64_t i = 0; i < parts; ++i) {
    // u * scale + d lands in [out.begin, out.end) for some d in [dMin, dMax].
    const int64_t lo = ceilDiv(t.out.begin(i) - m.dMax, m.scale);
    const int64_t hi = floorDiv(t.out.end(i) - 1 - m.dMin, m.scale);
    t.heldLo.push_back(std::clamp<int64_t>(lo, 0, m.inSize - 1));
    t.heldHi.push_back(std::clamp<int64_t>(hi, t.heldLo.back() - 1, m.inSize - 1));
  }
  return t;
}

bool haloReachesOnlyNeighbours(const AxisMap& m, const AxisTiles& t) {
  const int64_t parts = t.in.parts;
  for (int64_t i = 0; i < parts; ++i) {
    const int64_t lo = t.in.begin(i) * m.scale + m.dMin;
    const int64_t hi = (t.in.end(i) - 1) * m.scale + m.dMax;
    if (i > 0 && lo < t.out.begin(i - 1))
      return false;
    if (i + 1 < parts && hi >= t.out.end(i + 1))
      return false;
  }
  return true;
}

AxisTiles chooseAxisTiles(const AxisMap& m, int64_t maxParts) {
  for (int64_t parts = std::min({maxParts, m.inSize, m.outSize}); parts > 1; --parts) {
    AxisTiles t = tileAxis(m, parts);
    if (haloReachesOnlyNeighbours(m, t))
      return t;
  }
  return tileAxis(m, 1);
}

namespace {

/// Frame-coordinate range [first, last] of the region on side \p side (-1 halo before, 0 home,
/// +1 halo after) of PE \p i.
std::pair<int64_t, int64_t> regionRange(const AxisTiles& t, int64_t i, int side) {
  const int64_t lo = t.haloLo[static_cast<size_t>(i)];
  const int64_t own = t.out.length(i);
  if (side < 0)
    return {0, lo - 1};
  if (side == 0)
    return {lo, lo + own - 1};
  return {lo + own, lo + own + t.haloHi[static_cast<size_t>(i)] - 1};
}

/// The input range PE \p i holds on axis \p t (its tile, or its held range with input halos)
/// and how many of its positions lie before / after its own tile.
void setHeld(const AxisTiles& t, int64_t i, int64_t& first, int64_t& length, int64_t& before,
             int64_t& after) {
  first = t.in.begin(i);
  length = t.in.length(i);
  before = after = 0;
  if (t.heldLo.empty())
    return;
  const int64_t lo = t.heldLo[static_cast<size_t>(i)], hi = t.heldHi[static_cast<size_t>(i)];
  before = std::clamp<int64_t>(first - lo, 0, hi - lo + 1);
  after = std::clamp<int64_t>(hi + 1 - t.in.end(i), 0, hi - lo + 1 - before);
  first = lo;
  length = hi - lo + 1;
}

/// Output coordinate of frame cell 0 of PE \p i.
int64_t frameOrigin(const AxisTiles& t, int64_t i) {
  return t.out.begin(i) - t.haloLo[static_cast<size_t>(i)];
}

} // namespace

std::vector<PeFrame> makeFrames(const AxisTiles& x, const AxisTiles& y) {
  const int64_t gx = x.in.parts, gy = y.in.parts;
  std::vector<PeFrame> frames;
  frames.reserve(static_cast<size_t>(gx * gy));
  for (int64_t py = 0; py < gy; ++py) {
    for (int64_t px = 0; px < gx; ++px) {
      PeFrame f;
      setHeld(x, px, f.inX0, f.inW, f.inHaloLeft, f.inHaloRight);
      setHeld(y, py, f.inY0, f.inH, f.inHaloTop, f.inHaloBottom);
      f.outX0 = x.out.begin(px);
      f.outW = x.out.length(px);
      f.outY0 = y.out.begin(py);
      f.outH = y.out.length(py);
      f.haloLeft = x.haloLo[static_cast<size_t>(px)];
      f.haloRight = x.haloHi[static_cast<size_t>(px)];
      f.haloTop = y.haloLo[static_cast<size_t>(py)];
      f.haloBottom = y.haloHi[static_cast<size_t>(py)];
      // Table 7's eight regions: left, top, right, bottom, then the four corners.
      constexpr int kSides[8][2] = {{-1, 0},  {0, -1}, {1, 0}, {0, 1},
                                    {-1, -1}, {1, -1}, {1, 1}, {-1, 1}};
      for (const auto& side : kSides) {
        const auto [x1, x2] = regionRange(x, px, side[0]);
        const auto [y1, y2] = regionRange(y, py, side[1]);
        if (x2 < x1 || y2 < y1)
          continue;
        HaloDescriptor d;
        d.x1 = x1;
        d.x2 = x2;
        d.y1 = y1;
        d.y2 = y2;
        d.peDx = side[0];
        d.peDy = side[1];
        const int64_t nx = px + side[0], ny = py + side[1];
        d.valid = nx >= 0 && nx < gx && ny >= 0 && ny < gy;
        if (d.valid) {
          d.xo = frameOrigin(x, px) - frameOrigin(x, nx);
          d.yo = frameOrigin(y, py) - frameOrigin(y, ny);
        }
        f.halos.push_back(d);
      }
      frames.push_back(std::move(f));
    }
  }
  return frames;
}

namespace {

/// A half-open range [lo, hi) of one axis (empty when hi <= lo).
struct AxisRange {
  int64_t lo = 0, hi = 0;
  int64_t length() const { return std::max<int64_t>(0, hi - lo); }
  AxisRange operator&(const AxisRange& o) const { return {std::max(lo, o.lo), std::min(hi, o.hi)}; }
};

/// PE \p i's tile of \p s, empty beyond its parts.
AxisRange tileOf(const Split& s, int64_t i) {
  return i < s.parts ? AxisRange{s.begin(i), s.end(i)} : AxisRange{};
}

/// The input positions along spatial axis \p axis that the windows of PE \p i's pooled
/// outputs (its tile of \p pooled) read, clipped to the input.
AxisRange windowReach(const ir::PoolParams& p, size_t axis, const Split& pooled, int64_t i) {
  if (pooled.length(i) == 0)
    return {};
  const int64_t dilation = p.dilations.empty() ? 1 : p.dilations[axis];
  const int64_t lo = pooled.begin(i) * p.strides[axis] - p.padsBegin[axis];
  const int64_t hi =
      (pooled.end(i) - 1) * p.strides[axis] - p.padsBegin[axis] + (p.kernel[axis] - 1) * dilation;
  return AxisRange{lo, hi + 1} & AxisRange{0, p.inSpatial[axis]};
}

} // namespace

int64_t PoolTileWork::totalWindowOps() const {
  return std::accumulate(windowOps.begin(), windowOps.end(), int64_t{0});
}
int64_t PoolTileWork::totalHaloValues() const {
  return std::accumulate(haloValues.begin(), haloValues.end(), int64_t{0});
}
int64_t PoolTileWork::maxPeOps() const {
  int64_t most = 0;
  for (size_t i = 0; i < windowOps.size(); ++i)
    most = std::max(most, windowOps[i] + haloValues[i]);
  return most;
}

PoolTileWork poolTileWork(const ir::PoolParams& p, const Tiling& source, const Tiling& pooled) {
  NNACCEL_ASSERT(p.spatialRank == 2 && source.x.size == p.inSpatial[1] &&
                 source.y.size == p.inSpatial[0] && pooled.x.size == p.outSpatial[1] &&
                 pooled.y.size == p.outSpatial[0])
      << "pooling tilings do not match its planes";
  PoolTileWork w;
  const int64_t window = p.kernel[0] * p.kernel[1];
  if (pooled.pes() == 1 && source.pes() > 1) {
    // A reduction to one output pixel: each PE reduces its own tile (exact partial sums or
    // maxima) and sends one partial to the owner, PE 0, which combines them.
    const AxisRange rx = windowReach(p, 1, pooled.x, 0), ry = windowReach(p, 0, pooled.y, 0);
    int64_t partials = 0;
    for (int64_t py = 0; py < source.y.parts; ++py)
      for (int64_t px = 0; px < source.x.parts; ++px) {
        const int64_t own =
            (rx & tileOf(source.x, px)).length() * (ry & tileOf(source.y, py)).length();
        w.windowOps.push_back(own);
        w.haloValues.push_back(0);
        partials += own > 0 && (px > 0 || py > 0) ? 1 : 0;
      }
    w.haloValues[0] = partials;
    return w;
  }
  for (int64_t py = 0; py < pooled.y.parts; ++py)
    for (int64_t px = 0; px < pooled.x.parts; ++px) {
      const AxisRange rx = windowReach(p, 1, pooled.x, px), ry = windowReach(p, 0, pooled.y, py);
      const int64_t own =
          (rx & tileOf(source.x, px)).length() * (ry & tileOf(source.y, py)).length();
      w.windowOps.push_back(pooled.x.length(px) * pooled.y.length(py) * window);
      w.haloValues.push_back(rx.length() * ry.length() - own);
    }
  return w;
}

} // namespace nnaccel::arch::sparse
