/// \file
/// SCALE-Sim's operand matrices (operand_matrix.py) as index arithmetic, and the fold geometry
/// of systolic_compute_{os,ws,is}.py: fold counts, lines per fold, ofmap lines, read segments.
#include "Folds.h"

namespace nnaccel::scalesim::detail {

LayerMatrices::LayerMatrices(const Layer& layer) {
  const int64_t ofmapH = layer.ofmapHeight(), ofmapW = layer.ofmapWidth();
  const int64_t h = layer.ifmapHeight, w = layer.ifmapWidth, ch = layer.channels;
  const int64_t sh = layer.strideHeight, sw = layer.strideWidth;
  pixels_ = ofmapH * ofmapW;
  window_ = layer.filterHeight * layer.filterWidth * ch;
  filters_ = layer.numFilters;
  ifmapWords_ = h * w * ch;
  allValid_ =
      (ofmapH - 1) * sh + layer.filterHeight <= h && (ofmapW - 1) * sw + layer.filterWidth <= w;

  pixelBase_.resize(static_cast<size_t>(pixels_));
  pixelRowRoom_.resize(static_cast<size_t>(pixels_));
  pixelColRoom_.resize(static_cast<size_t>(pixels_));
  for (int64_t p = 0; p < pixels_; ++p) {
    const int64_t row = (p / ofmapW) * sh, col = (p % ofmapW) * sw;
    pixelBase_[static_cast<size_t>(p)] = (row * w + col) * ch;
    pixelRowRoom_[static_cast<size_t>(p)] = h - row;
    pixelColRoom_[static_cast<size_t>(p)] = w - col;
  }
  windowOffset_.resize(static_cast<size_t>(window_));
  windowRow_.resize(static_cast<size_t>(window_));
  windowCol_.resize(static_cast<size_t>(window_));
  const int64_t rowWords = layer.filterWidth * ch;
  for (int64_t k = 0; k < window_; ++k) {
    const int64_t r = k / rowWords, c = (k % rowWords) / ch, channel = k % ch;
    windowOffset_[static_cast<size_t>(k)] = (r * w + c) * ch + channel;
    windowRow_[static_cast<size_t>(k)] = r;
    windowCol_[static_cast<size_t>(k)] = c;
  }

  // Ifmap rows (columns) some window touches: the union of [o * stride, o * stride + filter).
  auto covered = [](int64_t outputs, int64_t stride, int64_t filter, int64_t size) {
    int64_t count = 0, end = 0;
    for (int64_t o = 0; o < outputs; ++o) {
      const int64_t lo = std::max(o * stride, end), hi = std::min(o * stride + filter, size);
      if (hi > lo) {
        count += hi - lo;
        end = hi;
      }
    }
    return count;
  };
  distinctIfmapIds_ =
      covered(ofmapH, sh, layer.filterHeight, h) * covered(ofmapW, sw, layer.filterWidth, w) * ch;
}

Folds::Folds(const LayerMatrices& m, const Config& c)
    : dataflow(c.dataflow), arrayRows(c.arrayRows), arrayCols(c.arrayCols) {
  switch (dataflow) {
  case Dataflow::OutputStationary:
    spatialRows = m.pixels();
    spatialCols = m.filters();
    temporal = m.window();
    linesPerFold = temporal + arrayRows + arrayCols - 2;
    break;
  case Dataflow::WeightStationary:
    spatialRows = m.window();
    spatialCols = m.filters();
    temporal = m.pixels();
    linesPerFold = 2 * arrayRows + arrayCols + temporal - 2;
    break;
  case Dataflow::InputStationary:
    spatialRows = m.window();
    spatialCols = m.pixels();
    temporal = m.filters();
    linesPerFold = 2 * arrayRows + arrayCols + temporal - 2;
    break;
  }
  rowFolds = (spatialRows + arrayRows - 1) / arrayRows;
  colFolds = (spatialCols + arrayCols - 1) / arrayCols;
}

Folds::OfmapShape Folds::ofmapShape(int64_t colFold, int64_t rowFold) const {
  if (dataflow == Dataflow::OutputStationary) {
    // T - 1 idle lines, then the array's rows drain bottom row first, skewed by column.
    return {temporal - 1, arrayRows - rowsUsed(rowFold), arrayRows, colsUsed(colFold)};
  }
  // 2 * rows - 1 lines to fill, then one output row per streamed element, skewed by column.
  return {2 * arrayRows - 1, 0, temporal, colsUsed(colFold)};
}

std::vector<Segment> readSegments(const Folds& f, Operand op) {
  const bool ifmap = op == Operand::Ifmap;
  switch (f.dataflow) {
  case Dataflow::OutputStationary:
    if (ifmap) {
      return {{0, f.rowFolds, f.colFolds}}; // every column fold re-reads all row folds
    } else {
      std::vector<Segment> out;
      for (int64_t fc = 0; fc < f.colFolds; ++fc) {
        out.push_back({fc * f.rowFolds, 1, f.rowFolds}); // one filter block per row fold
      }
      return out;
    }
  case Dataflow::WeightStationary:
    if (ifmap) {
      return {{0, f.rowFolds, f.colFolds}};
    }
    return {{0, f.numFolds(), 1}};
  case Dataflow::InputStationary:
    if (ifmap) {
      return {{0, f.numFolds(), 1}};
    }
    return {{0, f.rowFolds, f.colFolds}};
  }
  return {};
}

} // namespace nnaccel::scalesim::detail
