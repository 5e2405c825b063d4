/// \file
/// The fold geometry and demand enumeration (src/scalesim/Folds.h) against the counts they must
/// add up to: reads per operand equal SCALE-Sim's SRAM read counts, ofmap writes per line add
/// up to the ofmap (once per row fold in ws and is), every read lies in its line range, an
/// ifmap read is -1 exactly where a window crosses the edge, and the prefetch order visits
/// every operand element.
#include "Folds.h"

#include <gtest/gtest.h>
#include <set>

using namespace nnaccel::scalesim;
using namespace nnaccel::scalesim::detail;

namespace {

Layer layer(int64_t h, int64_t w, int64_t r, int64_t s, int64_t c, int64_t n, int64_t sh,
            int64_t sw) {
  Layer l;
  l.name = "l";
  l.ifmapHeight = h;
  l.ifmapWidth = w;
  l.filterHeight = r;
  l.filterWidth = s;
  l.channels = c;
  l.numFilters = n;
  l.strideHeight = sh;
  l.strideWidth = sw;
  return l;
}

Config config(Dataflow df, int64_t rows, int64_t cols) {
  Config c;
  c.dataflow = df;
  c.arrayRows = rows;
  c.arrayCols = cols;
  c.ifmapSramKiB = c.filterSramKiB = c.ofmapSramKiB = 1;
  return c;
}

TEST(ScaleSimFolds, MatricesAndEdges) {
  const LayerMatrices m(layer(10, 10, 3, 3, 3, 8, 2, 2)); // ceil: 5 x 5, last window past edge
  EXPECT_EQ(m.pixels(), 25);
  EXPECT_EQ(m.window(), 27);
  EXPECT_FALSE(m.allInside());
  EXPECT_EQ(m.ifmapId(0, 0), 0);
  EXPECT_EQ(m.ifmapId(24, 26), -1);                // pixel (4, 4) tap (2, 2): row 10
  EXPECT_EQ(m.ifmapId(24, 0), ((8 * 10) + 8) * 3); // its first tap is inside
  EXPECT_EQ(m.distinctIfmapIds(), 10 * 10 * 3);
  // Windows at rows 0, 3, 6, 9 and 12 (ceil(13 / 3) = 5): rows 2, 5, 8, 11 are never read and
  // the last window starts past the edge.
  const LayerMatrices gaps(layer(12, 12, 2, 2, 3, 6, 3, 3));
  EXPECT_FALSE(gaps.allInside());
  EXPECT_EQ(gaps.distinctIfmapIds(), 8 * 8 * 3);
  EXPECT_EQ(gaps.filterId(5, 2), 2 * 12 + 5);
}

class FoldsPerDataflow : public ::testing::TestWithParam<Dataflow> {};

TEST_P(FoldsPerDataflow, ReadsAndWritesAddUp) {
  const Layer l = layer(10, 7, 3, 2, 3, 11, 2, 1);
  const LayerMatrices m(l);
  const Folds f(m, config(GetParam(), 5, 3));
  int64_t ifmapReads = 0, filterReads = 0, ofmapWrites = 0, edgeReads = 0;
  std::set<int64_t> ifmapIds;
  for (int64_t fc = 0; fc < f.colFolds; ++fc) {
    for (int64_t fr = 0; fr < f.rowFolds; ++fr) {
      forEachRead(m, f, Operand::Ifmap, fc, fr, [&](int64_t line, int64_t id) {
        EXPECT_GE(line, 0);
        EXPECT_LT(line, f.linesPerFold);
        ++ifmapReads;
        edgeReads += id < 0 ? 1 : 0;
        ifmapIds.insert(id);
      });
      forEachRead(m, f, Operand::Filter, fc, fr, [&](int64_t line, int64_t id) {
        EXPECT_LT(line, f.linesPerFold);
        EXPECT_GE(id, 0);
        EXPECT_LT(id, m.filterWords());
        ++filterReads;
      });
      int64_t filterLineReads = 0;
      forEachFilterLine(f, fc, fr, [&](int64_t, int64_t reads) { filterLineReads += reads; });
      EXPECT_GT(filterLineReads, 0);
      const Folds::OfmapShape shape = f.ofmapShape(fc, fr);
      for (int64_t line = 0; line < f.linesPerFold; ++line) {
        ofmapWrites += shape.count(line);
      }
      EXPECT_LT(shape.lastLine(), f.linesPerFold);
    }
  }
  const int64_t p = m.pixels(), k = m.window(), n = m.filters();
  switch (GetParam()) {
  case Dataflow::OutputStationary:
    EXPECT_EQ(ifmapReads, f.colFolds * p * k);
    EXPECT_EQ(filterReads, f.rowFolds * k * n);
    EXPECT_EQ(ofmapWrites, p * n);
    break;
  case Dataflow::WeightStationary:
    EXPECT_EQ(ifmapReads, f.colFolds * p * k);
    EXPECT_EQ(filterReads, k * n);
    EXPECT_EQ(ofmapWrites, f.rowFolds * p * n);
    break;
  case Dataflow::InputStationary:
    EXPECT_EQ(ifmapReads, p * k);
    EXPECT_EQ(filterReads, f.colFolds * k * n);
    EXPECT_EQ(ofmapWrites, f.rowFolds * p * n);
    break;
  }
  EXPECT_GT(edgeReads, 0); // ceil((10 - 3 + 2) / 2) = 5 rows: the last window reads row 10
  ifmapIds.erase(-1);
  EXPECT_EQ(static_cast<int64_t>(ifmapIds.size()), m.distinctIfmapIds());

  int64_t valid = 0;
  std::set<int64_t> prefetched;
  const int64_t slots = forEachPrefetch(m, f, Operand::Filter, [&](int64_t id) {
    if (id >= 0) {
      ++valid;
      prefetched.insert(id);
    }
  });
  EXPECT_EQ(valid, k * n);
  EXPECT_EQ(static_cast<int64_t>(prefetched.size()), k * n);
  EXPECT_GE(slots, valid);
}

INSTANTIATE_TEST_SUITE_P(Dataflows, FoldsPerDataflow,
                         ::testing::Values(Dataflow::OutputStationary, Dataflow::WeightStationary,
                                           Dataflow::InputStationary));

TEST(ScaleSimFolds, LinesPerFold) {
  const LayerMatrices m(layer(6, 6, 3, 3, 2, 7, 1, 1)); // 16 pixels, window 18
  const Folds os(m, config(Dataflow::OutputStationary, 4, 3));
  EXPECT_EQ(os.rowFolds, 4); // 16 pixels / 4 rows
  EXPECT_EQ(os.colFolds, 3); // 7 filters / 3 columns
  EXPECT_EQ(os.linesPerFold, 18 + 4 + 3 - 2);
  const Folds ws(m, config(Dataflow::WeightStationary, 4, 3));
  EXPECT_EQ(ws.rowFolds, 5); // window 18 / 4
  EXPECT_EQ(ws.linesPerFold, 2 * 4 + 3 + 16 - 2);
  const Folds is(m, config(Dataflow::InputStationary, 4, 3));
  EXPECT_EQ(is.colFolds, 6); // 16 pixels / 3
  EXPECT_EQ(is.linesPerFold, 2 * 4 + 3 + 7 - 2);
}

} // namespace
