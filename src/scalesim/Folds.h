/// \file
/// How SCALE-Sim v2 folds one layer onto the array, and the demand it generates, without the
/// demand matrices: which operand-matrix element each array row or column reads in which cycle
/// of a fold, how many ofmap words each cycle writes, and the order in which the read buffers
/// prefetch. Internal to src/scalesim (Simulator.cpp and ReadBuffers.cpp); docs/ScaleSim.md
/// derives every formula from SCALE-Sim's systolic_compute_{os,ws,is}.py.
#pragma once

#include "nnaccel/scalesim/Config.h"
#include "nnaccel/scalesim/Topology.h"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace nnaccel::scalesim::detail {

/// The two read operands. Addresses are compact ids: ifmap (row * W + col) * C + channel,
/// filter filterIndex * window + windowIndex (SCALE-Sim's addresses minus the offsets).
enum class Operand { Ifmap, Filter };

/// The layer's operand matrices: ifmap [pixels][window], filter [window][filters].
class LayerMatrices {
public:
  explicit LayerMatrices(const Layer& layer);

  int64_t pixels() const { return pixels_; }         ///< ofmap pixels per filter (rows of ifmap)
  int64_t window() const { return window_; }         ///< filterH * filterW * channels
  int64_t filters() const { return filters_; }       ///< number of filters
  int64_t ifmapWords() const { return ifmapWords_; } ///< id range of the ifmap
  int64_t filterWords() const { return window_ * filters_; }

  /// Compact ifmap id of element [pixel][windowIndex], or -1 where SCALE-Sim's window reaches
  /// past the ifmap edge (its ceil-rounded ofmap size allows that).
  int64_t ifmapId(int64_t pixel, int64_t windowIndex) const {
    const size_t p = static_cast<size_t>(pixel), k = static_cast<size_t>(windowIndex);
    if (windowRow_[k] >= pixelRowRoom_[p] || windowCol_[k] >= pixelColRoom_[p]) {
      return -1;
    }
    return pixelBase_[p] + windowOffset_[k];
  }
  /// ifmapId for a layer whose windows all lie inside the ifmap (allInside()).
  int64_t ifmapIdInside(int64_t pixel, int64_t windowIndex) const {
    return pixelBase_[static_cast<size_t>(pixel)] + windowOffset_[static_cast<size_t>(windowIndex)];
  }
  /// True when no window reaches past the ifmap edge (no -1 reads).
  bool allInside() const { return allValid_; }
  int64_t filterId(int64_t windowIndex, int64_t filter) const {
    return filter * window_ + windowIndex;
  }
  /// Distinct valid ifmap ids in the whole matrix.
  int64_t distinctIfmapIds() const { return distinctIfmapIds_; }

private:
  int64_t pixels_ = 0, window_ = 0, filters_ = 0, ifmapWords_ = 0, distinctIfmapIds_ = 0;
  bool allValid_ = true;
  std::vector<int64_t> pixelBase_, pixelRowRoom_, pixelColRoom_;
  std::vector<int64_t> windowOffset_, windowRow_, windowCol_;
};

/// The fold geometry of one layer on one array for one dataflow. Folds run column fold outer,
/// row fold inner (fold = colFold * rowFolds + rowFold); every fold takes linesPerFold demand
/// lines (cycles before stalls).
struct Folds {
  Dataflow dataflow = Dataflow::OutputStationary;
  int64_t arrayRows = 0, arrayCols = 0;
  int64_t spatialRows = 0; ///< Sr: mapped onto the array rows
  int64_t spatialCols = 0; ///< Sc: mapped onto the array columns
  int64_t temporal = 0;    ///< T: streamed through in time
  int64_t rowFolds = 0, colFolds = 0;
  int64_t linesPerFold = 0;

  Folds(const LayerMatrices& m, const Config& c);

  int64_t numFolds() const { return rowFolds * colFolds; }
  int64_t totalLines() const { return numFolds() * linesPerFold; }
  int64_t rowsUsed(int64_t rowFold) const {
    return std::min(arrayRows, spatialRows - rowFold * arrayRows);
  }
  int64_t colsUsed(int64_t colFold) const {
    return std::min(arrayCols, spatialCols - colFold * arrayCols);
  }

  /// Ofmap words written in line \p line of a fold: c in [0, cols) with
  /// lo <= line - prefix - c < hi.
  struct OfmapShape {
    int64_t prefix = 0, lo = 0, hi = 0, cols = 0;
    int64_t count(int64_t line) const {
      const int64_t cMin = std::max<int64_t>(0, line - prefix - hi + 1);
      const int64_t cMax = std::min(cols - 1, line - prefix - lo);
      return cMax >= cMin ? cMax - cMin + 1 : 0;
    }
    int64_t firstLine() const { return prefix + lo; }
    int64_t lastLine() const { return prefix + hi - 1 + cols - 1; }
  };
  OfmapShape ofmapShape(int64_t colFold, int64_t rowFold) const;
};

/// A run of folds whose read stream repeats: rep r covers folds
/// [firstFold + r * foldsPerRep, firstFold + (r + 1) * foldsPerRep), and every rep reads the
/// same addresses in the same order as rep 0.
struct Segment {
  int64_t firstFold = 0;
  int64_t foldsPerRep = 1;
  int64_t reps = 1;
};

/// The segments of \p op's read stream, in stream order.
std::vector<Segment> readSegments(const Folds& f, Operand op);

/// Calls fn(lineInFold, id) for every read of \p op in fold (colFold, rowFold), in SCALE-Sim's
/// order (line by line, array row/column ascending within a line). id is -1 for an ifmap
/// element past the edge.
template <typename Fn>
void forEachRead(const LayerMatrices& m, const Folds& f, Operand op, int64_t colFold,
                 int64_t rowFold, Fn&& fn) {
  const int64_t ar = f.arrayRows, ac = f.arrayCols;
  // A skewed demand: column c reads elem(c, t) in line prefix + c + t, t in [0, len).
  auto skewed = [&](int64_t used, int64_t len, int64_t prefix, auto&& elem) {
    for (int64_t l = 0; l < used + len - 1; ++l) {
      const int64_t cLo = std::max<int64_t>(0, l - len + 1);
      const int64_t cHi = std::min(used - 1, l);
      for (int64_t c = cLo; c <= cHi; ++c) {
        fn(prefix + l, elem(c, l - c));
      }
    }
  };
  // A block loaded bottom row first: line l loads row arrayRows - 1 - l, columns ascending.
  auto block = [&](int64_t rows, int64_t cols, auto&& elem) {
    for (int64_t l = ar - rows; l < ar; ++l) {
      const int64_t r = ar - 1 - l;
      for (int64_t c = 0; c < cols; ++c) {
        fn(l, elem(r, c));
      }
    }
  };
  const int64_t rows = f.rowsUsed(rowFold), cols = f.colsUsed(colFold);
  const int64_t r0 = rowFold * ar, c0 = colFold * ac;
  // The ifmap reads, with the edge check compiled out when no window crosses the edge.
  auto ifmapReads = [&](auto&& id) {
    switch (f.dataflow) {
    case Dataflow::OutputStationary:
      skewed(rows, m.window(), 0, [&](int64_t c, int64_t t) { return id(r0 + c, t); });
      break;
    case Dataflow::WeightStationary:
      skewed(rows, m.pixels(), ar, [&](int64_t c, int64_t t) { return id(t, r0 + c); });
      break;
    case Dataflow::InputStationary:
      block(rows, cols, [&](int64_t r, int64_t c) { return id(c0 + c, r0 + r); });
      break;
    }
  };
  if (op == Operand::Ifmap) {
    if (m.allInside()) {
      ifmapReads([&](int64_t p, int64_t k) { return m.ifmapIdInside(p, k); });
    } else {
      ifmapReads([&](int64_t p, int64_t k) { return m.ifmapId(p, k); });
    }
    return;
  }
  switch (f.dataflow) {
  case Dataflow::OutputStationary:
    skewed(cols, m.window(), 0, [&](int64_t c, int64_t t) { return m.filterId(t, c0 + c); });
    break;
  case Dataflow::WeightStationary:
    block(rows, cols, [&](int64_t r, int64_t c) { return m.filterId(r0 + r, c0 + c); });
    break;
  case Dataflow::InputStationary:
    skewed(rows, m.filters(), ar, [&](int64_t c, int64_t t) { return m.filterId(r0 + c, t); });
    break;
  }
}

/// Calls fn(lineInFold, reads) for every line of fold (colFold, rowFold) in which the filter
/// buffer reads (every filter read is valid), in line order: the line structure of forEachRead
/// without enumerating the reads.
template <typename Fn>
void forEachFilterLine(const Folds& f, int64_t colFold, int64_t rowFold, Fn&& fn) {
  const int64_t rows = f.rowsUsed(rowFold), cols = f.colsUsed(colFold);
  auto skewed = [&](int64_t used, int64_t len, int64_t prefix) {
    for (int64_t l = 0; l < used + len - 1; ++l) {
      fn(prefix + l, std::min(used - 1, l) - std::max<int64_t>(0, l - len + 1) + 1);
    }
  };
  switch (f.dataflow) {
  case Dataflow::OutputStationary:
    skewed(cols, f.temporal, 0);
    break;
  case Dataflow::WeightStationary:
    for (int64_t l = f.arrayRows - rows; l < f.arrayRows; ++l) {
      fn(l, cols);
    }
    break;
  case Dataflow::InputStationary:
    skewed(rows, f.temporal, f.arrayRows);
    break;
  }
}

/// The prefetch order of \p op's read buffer in USER mode: SCALE-Sim stacks one block per fold
/// of the operand (blocks x rows, width columns, unused columns empty) and reads it row by row
/// or, for the skewed operands, anti-diagonal by anti-diagonal. Calls fn(id) for every slot,
/// id -1 for an empty one; returns the number of slots.
template <typename Fn>
int64_t forEachPrefetch(const LayerMatrices& m, const Folds& f, Operand op, Fn&& fn) {
  const int64_t ar = f.arrayRows, ac = f.arrayCols;
  int64_t blocks = 0, blockRows = 0, width = 0;
  bool diagonal = true;
  auto elem = [&](int64_t b, int64_t t, int64_t c) -> int64_t {
    switch (f.dataflow) {
    case Dataflow::OutputStationary:
      return op == Operand::Ifmap ? m.ifmapId(b * ar + c, t) : m.filterId(t, b * ac + c);
    case Dataflow::WeightStationary:
      return op == Operand::Ifmap ? m.ifmapId(t, b * ar + c) : m.filterId(t, b * ac + c);
    case Dataflow::InputStationary:
      return op == Operand::Ifmap ? m.ifmapId(b * ac + c, t) : m.filterId(b * ar + c, t);
    }
    return -1;
  };
  const bool ifmap = op == Operand::Ifmap;
  switch (f.dataflow) {
  case Dataflow::OutputStationary:
    blocks = ifmap ? f.rowFolds : f.colFolds;
    blockRows = m.window();
    width = ifmap ? ar : ac;
    break;
  case Dataflow::WeightStationary:
    blocks = ifmap ? f.rowFolds : f.colFolds;
    blockRows = ifmap ? m.pixels() : m.window();
    width = ifmap ? ar : ac;
    diagonal = ifmap;
    break;
  case Dataflow::InputStationary:
    blocks = ifmap ? f.colFolds : f.rowFolds;
    blockRows = ifmap ? m.window() : m.filters();
    width = ifmap ? ac : ar;
    diagonal = !ifmap;
    break;
  }
  auto used = [&](int64_t b) {
    // Blocks run over the folds of the array side the operand's block is cut along.
    const bool alongCols = (f.dataflow == Dataflow::OutputStationary && !ifmap) ||
                           (f.dataflow == Dataflow::WeightStationary && !ifmap) ||
                           (f.dataflow == Dataflow::InputStationary && ifmap);
    return alongCols ? f.colsUsed(b) : f.rowsUsed(b);
  };
  const int64_t rowsTotal = blocks * blockRows;
  auto slot = [&](int64_t row, int64_t c) {
    const int64_t b = row / blockRows;
    fn(c < used(b) ? elem(b, row - b * blockRows, c) : int64_t{-1});
  };
  if (diagonal) {
    for (int64_t d = 0; d < rowsTotal + width - 1; ++d) {
      const int64_t hi = std::min(d, rowsTotal - 1);
      const int64_t lo = std::max<int64_t>(0, d - width + 1);
      for (int64_t row = hi; row >= lo; --row) {
        slot(row, d - row);
      }
    }
  } else {
    for (int64_t row = 0; row < rowsTotal; ++row) {
      for (int64_t c = 0; c < width; ++c) {
        slot(row, c);
      }
    }
  }
  return rowsTotal * width;
}

} // namespace nnaccel::scalesim::detail
