/// \file
/// The seeds' worked examples, reproduced from the access plans: seed 000's FIG. 5D (normal
/// convolution) and the corrected FIG. 6G (transposed convolution) with the derived vectors of
/// digest 000 §5.2-5.4, and seed 003's E1-E6 with the property tests of digest 003 §2.3/§3.
/// A 2-D plan is turned into the patents' flat numbers as: start address = srcFirstRow * W +
/// srcFirstCol, destination offset = dstFirstRow * TW + dstFirstCol, number of fetch/write
/// elements = count; the row strides (which the flat triples cannot express) are checked too.
#include "nnaccel/arch/systolic/AccessPlan.h"
#include "nnaccel/support/Rng.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <span>
#include <vector>

namespace nnaccel::arch::systolic {
namespace {

/// A plan in the patents' terms (addresses in elements of one channel plane).
struct PatentFields {
  int64_t startAddress = 0;   ///< srcFirstRow * inputWidth + srcFirstCol
  int64_t fetchStep = 0;      ///< inner address increment
  int64_t fetchRowStride = 0; ///< outer address increment (digest 003's "outer step")
  int64_t fetchRows = 0, fetchCols = 0;
  int64_t destinationOffset = 0; ///< dstFirstRow * tileWidth + dstFirstCol
  int64_t writeStep = 0;         ///< inner entry increment
  int64_t writeRowStride = 0;    ///< outer entry increment
  int64_t elements = 0;          ///< number of fetch elements = number of write elements
};

PatentFields patentFields(const WeightPlan& p, int64_t inputWidth, int64_t tileWidth) {
  return {.startAddress = p.rows.srcFirst * inputWidth + p.cols.srcFirst,
          .fetchStep = p.cols.srcStep,
          .fetchRowStride = p.rows.srcStep * inputWidth,
          .fetchRows = p.rows.count,
          .fetchCols = p.cols.count,
          .destinationOffset = p.rows.dstFirst * tileWidth + p.cols.dstFirst,
          .writeStep = p.cols.dstStep,
          .writeRowStride = p.rows.dstStep * tileWidth,
          .elements = p.count()};
}

// ---------------------------------------------------------------------------------------------
// Seed 000, FIG. 5: normal convolution. Derived setup (digest 000 §5.2): input 6x19, 3x3
// kernel, stride 2, pad 1 on every side, so the output is 3x10 = one summation-buffer tile.
const AxisGeometry kFig5Rows{.in = 6, .out = 3, .kernel = 3, .stride = 2, .padBegin = 1};
const AxisGeometry kFig5Cols{.in = 19, .out = 10, .kernel = 3, .stride = 2, .padBegin = 1};

PatentFields fig5(int64_t r, int64_t s) {
  const auto plan = convWeightPlan(kFig5Rows, kFig5Cols, 0, 3, 0, 10, r, s);
  EXPECT_TRUE(plan.has_value()) << "(" << r << "," << s << ")";
  return plan ? patentFields(*plan, 19, 10) : PatentFields{};
}

TEST(SeedVectorsTest, Fig5dPrintedTable) {
  // Weights (0,0), (1,1), (2,2): start addresses of inputs (1,1), (0,0), (1,1); 18/30/27
  // elements; destination offsets 11/0/0; fetch step 2, write step 1. The flat triples are
  // right as counts only; the true patterns need the row strides checked in Fig5dFullTable.
  const struct {
    int64_t r, s, start, elements, offset;
  } printed[] = {{0, 0, 1 * 19 + 1, 18, 11}, {1, 1, 0, 30, 0}, {2, 2, 1 * 19 + 1, 27, 0}};
  for (const auto& row : printed) {
    const PatentFields f = fig5(row.r, row.s);
    EXPECT_EQ(f.startAddress, row.start) << row.r << row.s;
    EXPECT_EQ(f.elements, row.elements) << row.r << row.s;
    EXPECT_EQ(f.destinationOffset, row.offset) << row.r << row.s;
    EXPECT_EQ(f.fetchStep, 2);
    EXPECT_EQ(f.writeStep, 1);
  }
}

TEST(SeedVectorsTest, Fig5dFullTable) {
  // Digest 000 §5.2, all nine weights: fetch column step 2, fetch row stride 2 input rows
  // (38), write column step 1, write row stride 10.
  const struct {
    int64_t r, s, startRow, startCol, rows, cols, offset;
  } table[] = {{0, 0, 1, 1, 2, 9, 11}, {0, 1, 1, 0, 2, 10, 10}, {0, 2, 1, 1, 2, 9, 10},
               {1, 0, 0, 1, 3, 9, 1},  {1, 1, 0, 0, 3, 10, 0},  {1, 2, 0, 1, 3, 9, 0},
               {2, 0, 1, 1, 3, 9, 1},  {2, 1, 1, 0, 3, 10, 0},  {2, 2, 1, 1, 3, 9, 0}};
  for (const auto& row : table) {
    const PatentFields f = fig5(row.r, row.s);
    SCOPED_TRACE(testing::Message() << "weight (" << row.r << "," << row.s << ")");
    EXPECT_EQ(f.startAddress, row.startRow * 19 + row.startCol);
    EXPECT_EQ(f.fetchRows, row.rows);
    EXPECT_EQ(f.fetchCols, row.cols);
    EXPECT_EQ(f.elements, row.rows * row.cols);
    EXPECT_EQ(f.destinationOffset, row.offset);
    EXPECT_EQ(f.fetchStep, 2);
    EXPECT_EQ(f.fetchRowStride, 38);
    EXPECT_EQ(f.writeStep, 1);
    EXPECT_EQ(f.writeRowStride, 10);
  }
}

// ---------------------------------------------------------------------------------------------
// Seed 000, FIG. 6: transposed convolution, stride 2, 3x3, pad 1, 4x18 summation buffer.
// Derived setup (digest 000 §5.3): input 3x10, so the output is 5x19; tile = rows 0-3 x cols
// 0-17.
const AxisGeometry kFig6Rows{.in = 3, .out = 5, .kernel = 3, .stride = 2, .padBegin = 1};
const AxisGeometry kFig6Cols{.in = 10, .out = 19, .kernel = 3, .stride = 2, .padBegin = 1};

TEST(SeedVectorsTest, Fig6gCorrectedTable) {
  // Digest 000 §5.3. This table CORRECTS the printed FIG. 6G in two places:
  //  - the printed start addresses of W00 and W22 are swapped (printed W00 -> (0,0), W22 ->
  //    (1,1); the text [0108] and the mathematics give W00 -> (1,1), W22 -> (0,0));
  //  - the printed write step 1 is wrong: the text ([0103]) and para [0077] use 2.
  // Fetch: column step 1, row stride W = 10. Write: column step 2, row stride 2 * 18 = 36.
  // "dil" is the first overlapping coordinate in the zero-inserted input (border 1).
  const struct {
    int64_t r, s, rotR, rotS, startRow, startCol, rows, cols, entryRow, entryCol, offset, dilRow,
        dilCol;
  } table[] = {{0, 0, 2, 2, 1, 1, 2, 9, 1, 1, 19, 3, 3}, {0, 1, 2, 1, 1, 0, 2, 9, 1, 0, 18, 3, 1},
               {0, 2, 2, 0, 1, 0, 2, 9, 1, 1, 19, 3, 1}, {1, 0, 1, 2, 0, 1, 2, 9, 0, 1, 1, 1, 3},
               {1, 1, 1, 1, 0, 0, 2, 9, 0, 0, 0, 1, 1},  {1, 2, 1, 0, 0, 0, 2, 9, 0, 1, 1, 1, 1},
               {2, 0, 0, 2, 0, 1, 2, 9, 1, 1, 19, 1, 3}, {2, 1, 0, 1, 0, 0, 2, 9, 1, 0, 18, 1, 1},
               {2, 2, 0, 0, 0, 0, 2, 9, 1, 1, 19, 1, 1}};
  EXPECT_EQ(dilatedBorder(kFig6Rows), 1);
  EXPECT_EQ(dilatedBorder(kFig6Cols), 1);
  for (const auto& row : table) {
    SCOPED_TRACE(testing::Message() << "W" << row.r << row.s);
    const auto plan = transposedWeightPlan(kFig6Rows, kFig6Cols, 0, 4, 0, 18, row.r, row.s);
    ASSERT_TRUE(plan.has_value());
    const PatentFields f = patentFields(*plan, 10, 18);
    EXPECT_EQ(rotatedIndex(3, row.r), row.rotR);
    EXPECT_EQ(rotatedIndex(3, row.s), row.rotS);
    EXPECT_EQ(f.startAddress, row.startRow * 10 + row.startCol);
    EXPECT_EQ(f.fetchRows, row.rows);
    EXPECT_EQ(f.fetchCols, row.cols);
    EXPECT_EQ(f.elements, 18);
    EXPECT_EQ(plan->rows.dstFirst, row.entryRow);
    EXPECT_EQ(plan->cols.dstFirst, row.entryCol);
    EXPECT_EQ(f.destinationOffset, row.offset);
    EXPECT_EQ(dilatedFirst(kFig6Rows, plan->rows), row.dilRow);
    EXPECT_EQ(dilatedFirst(kFig6Cols, plan->cols), row.dilCol);
    EXPECT_EQ(f.fetchStep, 1);
    EXPECT_EQ(f.fetchRowStride, 10);
    EXPECT_EQ(f.writeStep, 2);
    EXPECT_EQ(f.writeRowStride, 36);
  }
  // The printed table's start addresses for W00 and W22, (0,0) and (1,1), are ours swapped.
  const auto w00 = transposedWeightPlan(kFig6Rows, kFig6Cols, 0, 4, 0, 18, 0, 0);
  const auto w22 = transposedWeightPlan(kFig6Rows, kFig6Cols, 0, 4, 0, 18, 2, 2);
  ASSERT_TRUE(w00 && w22);
  EXPECT_EQ(patentFields(*w22, 10, 18).startAddress, 0);          // printed for W00
  EXPECT_EQ(patentFields(*w00, 10, 18).startAddress, 1 * 10 + 1); // printed for W22
}

TEST(SeedVectorsTest, Fig6EdgeTile) {
  // Digest 000 §5.4: tile origin (4,0), 1x18. Only r = 1 contributes (y = 2i + r - 1 = 4).
  for (int64_t r = 0; r < 3; ++r) {
    for (int64_t s = 0; s < 3; ++s) {
      const auto plan = transposedWeightPlan(kFig6Rows, kFig6Cols, 4, 1, 0, 18, r, s);
      EXPECT_EQ(plan.has_value(), r == 1) << "W" << r << s;
    }
  }
  const struct {
    int64_t s, startRow, startCol, offset;
  } table[] = {{0, 2, 1, 1}, {1, 2, 0, 0}, {2, 2, 0, 1}};
  for (const auto& row : table) {
    const auto plan = transposedWeightPlan(kFig6Rows, kFig6Cols, 4, 1, 0, 18, 1, row.s);
    ASSERT_TRUE(plan.has_value());
    const PatentFields f = patentFields(*plan, 10, 18);
    EXPECT_EQ(f.startAddress, row.startRow * 10 + row.startCol) << "W1" << row.s;
    EXPECT_EQ(f.fetchRows, 1);
    EXPECT_EQ(f.fetchCols, 9);
    EXPECT_EQ(f.destinationOffset, row.offset) << "W1" << row.s;
  }
}

using Plane = std::vector<std::vector<int64_t>>;

/// One transposed-conv tile through the plans (the summation buffer: every write adds, and
/// sets the entry's written flag) and, independently, by direct scatter.
struct TileResult {
  Plane values;
  std::vector<std::vector<bool>> written;
};
TileResult transposedTileViaPlans(const AxisGeometry& h, const AxisGeometry& w, int64_t row0,
                                  int64_t rows, int64_t col0, int64_t cols, const Plane& x,
                                  const Plane& wt) {
  TileResult t{Plane(rows, std::vector<int64_t>(cols, 0)),
               std::vector<std::vector<bool>>(rows, std::vector<bool>(cols, false))};
  for (int64_t r = 0; r < h.kernel; ++r) {
    for (int64_t s = 0; s < w.kernel; ++s) {
      if (const auto plan = transposedWeightPlan(h, w, row0, rows, col0, cols, r, s)) {
        forEachElement(*plan, [&](int64_t i, int64_t j, int64_t u, int64_t v) {
          t.values[u][v] += x[i][j] * wt[r][s];
          t.written[u][v] = true;
        });
      }
    }
  }
  return t;
}
Plane transposedTileByScatter(const AxisGeometry& h, const AxisGeometry& w, int64_t row0,
                              int64_t rows, int64_t col0, int64_t cols, const Plane& x,
                              const Plane& wt) {
  Plane out(rows, std::vector<int64_t>(cols, 0));
  for (int64_t i = 0; i < h.in; ++i) {
    for (int64_t j = 0; j < w.in; ++j) {
      for (int64_t r = 0; r < h.kernel; ++r) {
        for (int64_t s = 0; s < w.kernel; ++s) {
          const int64_t u = i * h.stride + r * h.dilation - h.padBegin - row0;
          const int64_t v = j * w.stride + s * w.dilation - w.padBegin - col0;
          if (u >= 0 && u < rows && v >= 0 && v < cols) {
            out[u][v] += x[i][j] * wt[r][s];
          }
        }
      }
    }
  }
  return out;
}

TEST(SeedVectorsTest, Fig6NumericOutput) {
  // Digest 000 §5.4: X[i][j] = 10i + j (3x10), W[r][s] = 3r + s + 1; output rows 0-3 x 0-17.
  Plane x(3, std::vector<int64_t>(10));
  Plane wt(3, std::vector<int64_t>(3));
  for (int64_t i = 0; i < 3; ++i) {
    for (int64_t j = 0; j < 10; ++j) {
      x[i][j] = 10 * i + j;
    }
  }
  for (int64_t r = 0; r < 3; ++r) {
    for (int64_t s = 0; s < 3; ++s) {
      wt[r][s] = 3 * r + s + 1;
    }
  }
  const Plane expected = {
      {0, 4, 5, 14, 10, 24, 15, 34, 20, 44, 25, 54, 30, 64, 35, 74, 40, 84},
      {20, 48, 30, 68, 40, 88, 50, 108, 60, 128, 70, 148, 80, 168, 90, 188, 100, 208},
      {50, 104, 55, 114, 60, 124, 65, 134, 70, 144, 75, 154, 80, 164, 85, 174, 90, 184},
      {120, 248, 130, 268, 140, 288, 150, 308, 160, 328, 170, 348, 180, 368, 190, 388, 200, 408}};
  const TileResult got = transposedTileViaPlans(kFig6Rows, kFig6Cols, 0, 4, 0, 18, x, wt);
  EXPECT_EQ(got.values, expected);
  EXPECT_EQ(transposedTileByScatter(kFig6Rows, kFig6Cols, 0, 4, 0, 18, x, wt), expected);
}

TEST(SeedVectorsTest, ZeroOutputVector) {
  // Digest 000 §5.4: S = 3 > K = 2, P = 0; X = W = [[1,2],[3,4]]; output 5x5, one 5x5 tile.
  const AxisGeometry g{.in = 2, .out = 5, .kernel = 2, .stride = 3, .padBegin = 0};
  const struct { int64_t r, s, offset; } table[] = {{0, 0, 0}, {0, 1, 1}, {1, 0, 5}, {1, 1, 6}};
  for (const auto& row : table) {
    const auto plan = transposedWeightPlan(g, g, 0, 5, 0, 5, row.r, row.s);
    ASSERT_TRUE(plan.has_value());
    const PatentFields f = patentFields(*plan, 2, 5);
    EXPECT_EQ(f.destinationOffset, row.offset) << "W" << row.r << row.s;
    EXPECT_EQ(f.elements, 4);
    EXPECT_EQ(f.fetchRows, 2);
    EXPECT_EQ(f.startAddress, 0);
    EXPECT_EQ(f.writeStep, 3);
    EXPECT_EQ(f.writeRowStride, 15);
  }
  const Plane x = {{1, 2}, {3, 4}};
  const TileResult got = transposedTileViaPlans(g, g, 0, 5, 0, 5, x, x);
  const Plane expected = {
      {1, 2, 0, 2, 4}, {3, 4, 0, 6, 8}, {0, 0, 0, 0, 0}, {3, 6, 0, 4, 8}, {9, 12, 0, 12, 16}};
  EXPECT_EQ(got.values, expected);
  EXPECT_EQ(transposedTileByScatter(g, g, 0, 5, 0, 5, x, x), expected);
  std::vector<int64_t> neverWritten;
  for (int64_t e = 0; e < 25; ++e) {
    if (!got.written[e / 5][e % 5]) {
      neverWritten.push_back(e);
    }
  }
  EXPECT_EQ(neverWritten, (std::vector<int64_t>{2, 7, 10, 11, 12, 13, 14, 17, 22}));
}

// ---------------------------------------------------------------------------------------------
// Seed 003: dilated convolution. Flat fields as in digest 003 §3: src = start address, step,
// n = elements per row, outer step = fetch row stride, outer n = rows, dst = destination
// offset. Tiles always span the whole output width here.

struct DilatedRow {
  int64_t r, s, src, n, outerN, dst;
};

/// Checks each listed weight of the tile [row0, row0+rows) x [0, w.out): the listed fields,
/// step = stride and outer step = stride * W (digest 003 claim 4: independent of the rate).
void expectDilatedTable(const AxisGeometry& h, const AxisGeometry& w, int64_t row0, int64_t rows,
                        std::span<const DilatedRow> table) {
  for (const DilatedRow& row : table) {
    SCOPED_TRACE(testing::Message() << "weight (" << row.r << "," << row.s << ")");
    const auto plan = convWeightPlan(h, w, row0, rows, 0, w.out, row.r, row.s);
    ASSERT_TRUE(plan.has_value());
    const PatentFields f = patentFields(*plan, w.in, w.out);
    EXPECT_EQ(f.startAddress, row.src);
    EXPECT_EQ(f.fetchStep, w.stride);
    EXPECT_EQ(f.fetchCols, row.n);
    EXPECT_EQ(f.fetchRowStride, h.stride * w.in);
    EXPECT_EQ(f.fetchRows, row.outerN);
    EXPECT_EQ(f.destinationOffset, row.dst);
    EXPECT_EQ(f.writeStep, 1);
    EXPECT_EQ(f.writeRowStride, w.out);
  }
}

TEST(SeedVectorsTest, DilatedE1OneDimensional) {
  // H=1, W=8, 1x3 kernel, D=2, S=1, no padding: W_out = 4; starts differ by D (claim 10).
  const AxisGeometry h{.in = 1, .out = 1, .kernel = 1};
  const AxisGeometry w{.in = 8, .out = 4, .kernel = 3, .stride = 1, .dilation = 2};
  const DilatedRow table[] = {{0, 0, 0, 4, 1, 0}, {0, 1, 2, 4, 1, 0}, {0, 2, 4, 4, 1, 0}};
  expectDilatedTable(h, w, 0, 1, table);
}

TEST(SeedVectorsTest, DilatedE2) {
  // 7x7, 3x3, D=2, S=1, no padding: 3x3 output; src = 14r + 2s, step 1, n 3, outer step 7.
  const AxisGeometry g{.in = 7, .out = 3, .kernel = 3, .stride = 1, .dilation = 2};
  const DilatedRow table[] = {{0, 0, 0, 3, 3, 0},  {0, 1, 2, 3, 3, 0},  {0, 2, 4, 3, 3, 0},
                              {1, 0, 14, 3, 3, 0}, {1, 1, 16, 3, 3, 0}, {1, 2, 18, 3, 3, 0},
                              {2, 0, 28, 3, 3, 0}, {2, 1, 30, 3, 3, 0}, {2, 2, 32, 3, 3, 0}};
  expectDilatedTable(g, g, 0, 3, table);
}

TEST(SeedVectorsTest, DilatedE3StrideAndRate) {
  // 9x9, 3x3, D=2, S=2: 3x3 output; src = 18r + 2s, step 2, n 3, outer step 18, outer n 3.
  const AxisGeometry g{.in = 9, .out = 3, .kernel = 3, .stride = 2, .dilation = 2};
  std::vector<DilatedRow> table;
  for (int64_t r = 0; r < 3; ++r) {
    for (int64_t s = 0; s < 3; ++s) {
      table.push_back({r, s, 18 * r + 2 * s, 3, 3, 0});
    }
  }
  EXPECT_EQ(table[4].src, 20); // (1,1)
  EXPECT_EQ(table[8].src, 40); // (2,2)
  expectDilatedTable(g, g, 0, 3, table);
}

const AxisGeometry kE4{.in = 5, .out = 5, .kernel = 3, .stride = 1, .dilation = 2, .padBegin = 2};

TEST(SeedVectorsTest, DilatedE4SamePadding) {
  // 5x5, 3x3, D=2, S=1, pad 2 all round: 5x5 output in one tile. dst 12 for (0,0) means 12
  // leading entries get nothing from that weight (claim 9's "zero output data elements").
  const DilatedRow table[] = {{0, 0, 0, 3, 3, 12}, {0, 1, 0, 5, 3, 10}, {0, 2, 2, 3, 3, 10},
                              {1, 0, 0, 3, 5, 2},  {1, 1, 0, 5, 5, 0},  {1, 2, 2, 3, 5, 0},
                              {2, 0, 10, 3, 3, 2}, {2, 1, 10, 5, 3, 0}, {2, 2, 12, 3, 3, 0}};
  expectDilatedTable(kE4, kE4, 0, 5, table);
}

TEST(SeedVectorsTest, DilatedE5BufferSmallerThanOutput) {
  // E4 with a 3x5 summation buffer (claim 8): tile A = output rows 0-2, tile B = rows 3-4.
  const DilatedRow tileA[] = {
      {0, 0, 0, 3, 1, 12}, {0, 1, 0, 5, 1, 10}, {1, 0, 0, 3, 3, 2}, {2, 2, 12, 3, 3, 0}};
  expectDilatedTable(kE4, kE4, 0, 3, tileA);
  const DilatedRow tileB[] = {{0, 0, 5, 3, 2, 2}, {1, 1, 15, 5, 2, 0}, {1, 2, 17, 3, 2, 0}};
  expectDilatedTable(kE4, kE4, 3, 2, tileB);
  // Weights (2,0), (2,1), (2,2) have an empty subset in tile B: no instruction.
  for (int64_t s = 0; s < 3; ++s) {
    EXPECT_FALSE(convWeightPlan(kE4, kE4, 3, 2, 0, 5, 2, s).has_value()) << "(2," << s << ")";
  }
  // Splitting the tile loses and duplicates nothing: per weight, A + B = the E4 count.
  for (int64_t r = 0; r < 3; ++r) {
    for (int64_t s = 0; s < 3; ++s) {
      auto count = [&](int64_t row0, int64_t rows) {
        const auto plan = convWeightPlan(kE4, kE4, row0, rows, 0, 5, r, s);
        return plan ? plan->count() : 0;
      };
      EXPECT_EQ(count(0, 3) + count(3, 2), count(0, 5)) << "(" << r << "," << s << ")";
    }
  }
}

TEST(SeedVectorsTest, DilatedE6ParityInterplay) {
  // 8x8, 3x3, D=3, S=2, pad 3: 4x4 output; step 2, outer step 16. Odd starts appear because
  // D is odd while S is even.
  const AxisGeometry g{.in = 8, .out = 4, .kernel = 3, .stride = 2, .dilation = 3, .padBegin = 3};
  const DilatedRow table[] = {{0, 0, 9, 2, 2, 10}, {0, 1, 8, 4, 2, 8},  {0, 2, 11, 3, 2, 8},
                              {1, 0, 1, 2, 4, 2},  {1, 1, 0, 4, 4, 0},  {1, 2, 3, 3, 4, 0},
                              {2, 0, 25, 2, 3, 2}, {2, 1, 24, 4, 3, 0}, {2, 2, 27, 3, 3, 0}};
  expectDilatedTable(g, g, 0, 4, table);
}

/// A random dilated-conv axis (pads 0..span, stride 1-4, rate 1-4) with out >= 1.
AxisGeometry randomDilatedAxis(Rng& rng, bool padded) {
  for (;;) {
    AxisGeometry g;
    g.in = rng.uniformInt(1, 12);
    g.kernel = rng.uniformInt(1, 4);
    g.stride = rng.uniformInt(1, 4);
    g.dilation = rng.uniformInt(1, 4);
    const int64_t span = (g.kernel - 1) * g.dilation + 1;
    g.padBegin = padded ? rng.uniformInt(0, span) : 0;
    const int64_t padEnd = padded ? rng.uniformInt(0, span) : 0;
    if (g.in + g.padBegin + padEnd >= span) {
      g.out = (g.in + g.padBegin + padEnd - span) / g.stride + 1;
      return g;
    }
  }
}

TEST(SeedVectorsTest, DilatedRateOneIsOrdinaryConvolution) {
  // Rate D enters only through the address arithmetic: weight k at rate D has exactly the plan
  // of weight k*D of an ordinary (D = 1) convolution with the zero-inserted kernel of extent
  // (K-1)*D + 1. With D = 1 both sides are the same ordinary convolution.
  Rng rng(31);
  for (int trial = 0; trial < 3000; ++trial) {
    const AxisGeometry g = randomDilatedAxis(rng, true);
    AxisGeometry ordinary = g;
    ordinary.dilation = 1;
    ordinary.kernel = (g.kernel - 1) * g.dilation + 1;
    const int64_t tileLen = rng.uniformInt(1, g.out);
    const int64_t tileFirst = rng.uniformInt(0, g.out - tileLen);
    for (int64_t k = 0; k < g.kernel; ++k) {
      const auto dilated = convAxisPlan(g, tileFirst, tileLen, k);
      const auto plain = convAxisPlan(ordinary, tileFirst, tileLen, k * g.dilation);
      ASSERT_EQ(dilated.has_value(), plain.has_value());
      if (dilated) {
        EXPECT_EQ(dilated->srcFirst, plain->srcFirst);
        EXPECT_EQ(dilated->srcStep, plain->srcStep);
        EXPECT_EQ(dilated->dstFirst, plain->dstFirst);
        EXPECT_EQ(dilated->dstStep, plain->dstStep);
        EXPECT_EQ(dilated->count, plain->count);
      }
    }
  }
}

TEST(SeedVectorsTest, DilatedTotalPartialSumsAreTheNonPaddingPairs) {
  // E4 in one tile and as E5's two tiles: 11 valid (output, weight) pairs per axis -> 121.
  auto total = [](const AxisGeometry& h, const AxisGeometry& w, int64_t tileRows,
                  int64_t tileCols) {
    int64_t sum = 0;
    for (int64_t row0 = 0; row0 < h.out; row0 += tileRows) {
      for (int64_t col0 = 0; col0 < w.out; col0 += tileCols) {
        for (int64_t r = 0; r < h.kernel; ++r) {
          for (int64_t s = 0; s < w.kernel; ++s) {
            const auto plan = convWeightPlan(h, w, row0, std::min(tileRows, h.out - row0), col0,
                                             std::min(tileCols, w.out - col0), r, s);
            sum += plan ? plan->count() : 0;
          }
        }
      }
    }
    return sum;
  };
  EXPECT_EQ(total(kE4, kE4, 5, 5), 121);
  EXPECT_EQ(total(kE4, kE4, 3, 5), 121);
  // Random geometries and tilings against a direct count of the pairs whose input is real.
  auto validPairs = [](const AxisGeometry& g) {
    int64_t n = 0;
    for (int64_t o = 0; o < g.out; ++o) {
      for (int64_t k = 0; k < g.kernel; ++k) {
        const int64_t a = o * g.stride + k * g.dilation - g.padBegin;
        n += (a >= 0 && a < g.in) ? 1 : 0;
      }
    }
    return n;
  };
  Rng rng(37);
  for (int trial = 0; trial < 1000; ++trial) {
    const AxisGeometry h = randomDilatedAxis(rng, true);
    const AxisGeometry w = randomDilatedAxis(rng, true);
    EXPECT_EQ(total(h, w, rng.uniformInt(1, h.out), rng.uniformInt(1, w.out)),
              validPairs(h) * validPairs(w));
  }
}

TEST(SeedVectorsTest, DilatedUnclippedStartsDifferByTheRate) {
  // Without padding nothing is clipped: src(r, s+1) - src(r, s) = D and src(r+1, s) - src(r, s)
  // = D * W (claim 10), the destination is always entry 0, and every weight covers the tile.
  Rng rng(41);
  for (int trial = 0; trial < 1000; ++trial) {
    const AxisGeometry h = randomDilatedAxis(rng, false);
    const AxisGeometry w = randomDilatedAxis(rng, false);
    auto src = [&](int64_t r, int64_t s) {
      const auto plan = convWeightPlan(h, w, 0, h.out, 0, w.out, r, s);
      if (!plan) {
        ADD_FAILURE() << "no plan for (" << r << "," << s << ")";
        return int64_t{-1};
      }
      EXPECT_EQ(plan->count(), h.out * w.out);
      EXPECT_EQ(patentFields(*plan, w.in, w.out).destinationOffset, 0);
      return patentFields(*plan, w.in, w.out).startAddress;
    };
    for (int64_t r = 0; r < h.kernel; ++r) {
      for (int64_t s = 0; s < w.kernel; ++s) {
        EXPECT_EQ(src(r, s), r * h.dilation * w.in + s * w.dilation);
        if (s + 1 < w.kernel) {
          EXPECT_EQ(src(r, s + 1) - src(r, s), w.dilation);
        }
        if (r + 1 < h.kernel) {
          EXPECT_EQ(src(r + 1, s) - src(r, s), h.dilation * w.in);
        }
      }
    }
  }
}

TEST(SeedVectorsTest, DilatedStepDependsOnlyOnStride) {
  // Claim 4: the step (and the row stride) are set by the stride alone; the rate moves only the
  // start address (claim 6).
  for (int64_t stride = 1; stride <= 3; ++stride) {
    for (int64_t rate = 1; rate <= 4; ++rate) {
      const AxisGeometry g{.in = 20,
                           .out = (20 + 2 * rate - (2 * rate + 1)) / stride + 1,
                           .kernel = 3,
                           .stride = stride,
                           .dilation = rate,
                           .padBegin = rate};
      for (int64_t r = 0; r < 3; ++r) {
        for (int64_t s = 0; s < 3; ++s) {
          const auto plan = convWeightPlan(g, g, 0, g.out, 0, g.out, r, s);
          ASSERT_TRUE(plan.has_value());
          const PatentFields f = patentFields(*plan, g.in, g.out);
          EXPECT_EQ(f.fetchStep, stride);
          EXPECT_EQ(f.fetchRowStride, stride * g.in);
          EXPECT_EQ(f.writeStep, 1);
        }
      }
    }
  }
}

} // namespace
} // namespace nnaccel::arch::systolic
