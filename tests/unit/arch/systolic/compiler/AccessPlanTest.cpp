/// \file
/// Unit tests of the per-weight access plans (AccessPlan.h) against independent oracles: every
/// axis plan against a brute-force enumeration, tiled execution of conv and transposed conv
/// against direct references over thousands of random geometries (fixed seed), the patent's
/// rotated/dilated-coordinate form of seed 000, the failure of its literal Eq. 11 for stride
/// >= 3, DMA input windows, huge extents, and the contract violations (internal errors).
/// The seeds' own tables are in SeedVectorsTest.cpp.
#include "nnaccel/arch/systolic/AccessPlan.h"

#include "nnaccel/support/Rng.h"

#include <algorithm>
#include <array>
#include <gtest/gtest.h>
#include <vector>

namespace nnaccel::arch::systolic {
namespace {

enum class Kind { Conv, Transposed };

/// Python-style modulo (result in [0, m)) for the oracles.
int64_t floorMod(int64_t a, int64_t m) {
  return ((a % m) + m) % m;
}

std::optional<AxisPlan> axisPlan(Kind kind, const AxisGeometry& g, int64_t tileFirst,
                                 int64_t tileLen, int64_t k) {
  return kind == Kind::Conv ? convAxisPlan(g, tileFirst, tileLen, k)
                            : transposedAxisPlan(g, tileFirst, tileLen, k);
}

std::optional<WeightPlan> weightPlan(Kind kind, const AxisGeometry& h, const AxisGeometry& w,
                                     int64_t row0, int64_t rows, int64_t col0, int64_t cols,
                                     int64_t r, int64_t s) {
  return kind == Kind::Conv ? convWeightPlan(h, w, row0, rows, col0, cols, r, s)
                            : transposedWeightPlan(h, w, row0, rows, col0, cols, r, s);
}

/// One (input index, tile entry) pair of weight k along an axis.
struct Pair {
  int64_t src = 0, dst = 0;
  bool operator==(const Pair&) const = default;
};

std::vector<Pair> planPairs(const std::optional<AxisPlan>& plan) {
  std::vector<Pair> pairs;
  if (plan) {
    for (int64_t n = 0; n < plan->count; ++n) {
      pairs.push_back({plan->srcFirst + n * plan->srcStep, plan->dstFirst + n * plan->dstStep});
    }
  }
  return pairs;
}

/// The oracle, straight from the definitions: Conv gathers (each tile entry o reads input
/// o*S + k*D - P if that is inside the input); ConvTranspose scatters (each input i writes
/// output i*S + k*D - P if that is inside the tile). Pairs come in increasing input order.
std::vector<Pair> bruteForcePairs(Kind kind, const AxisGeometry& g, int64_t tileFirst,
                                  int64_t tileLen, int64_t k) {
  std::vector<Pair> pairs;
  if (kind == Kind::Conv) {
    for (int64_t o = tileFirst; o < tileFirst + tileLen; ++o) {
      const int64_t a = o * g.stride + k * g.dilation - g.padBegin;
      if (a >= 0 && a < g.in) {
        pairs.push_back({a, o - tileFirst});
      }
    }
  } else {
    for (int64_t i = 0; i < g.in; ++i) {
      const int64_t y = i * g.stride + k * g.dilation - g.padBegin;
      if (y >= tileFirst && y < tileFirst + tileLen) {
        pairs.push_back({i, y - tileFirst});
      }
    }
  }
  return pairs;
}

/// A random axis: Conv with stride 1-4, dilation 1-3, pads 0..kernel*D on each side; ConvTranspose
/// with stride 1-5, dilation 1-3, crop 0..(kernel-1)*D+1 and a trailing crop down to -stride
/// (output extents above the full result). Retries until the output extent is >= 1.
AxisGeometry randomAxis(Rng& rng, Kind kind) {
  for (;;) {
    AxisGeometry g;
    g.in = rng.uniformInt(1, 7);
    g.kernel = rng.uniformInt(1, 4);
    g.dilation = rng.uniformInt(1, 3);
    const int64_t span = (g.kernel - 1) * g.dilation + 1;
    if (kind == Kind::Conv) {
      g.stride = rng.uniformInt(1, 4);
      g.padBegin = rng.uniformInt(0, g.kernel * g.dilation);
      const int64_t padEnd = rng.uniformInt(0, g.kernel * g.dilation);
      const int64_t padded = g.in + g.padBegin + padEnd;
      g.out = padded >= span ? (padded - span) / g.stride + 1 : 0;
    } else {
      g.stride = rng.uniformInt(1, 5);
      g.padBegin = rng.uniformInt(0, span);
      const int64_t padEnd = rng.uniformInt(-g.stride, span - 1);
      g.out = (g.in - 1) * g.stride + span - g.padBegin - padEnd;
    }
    if (g.out >= 1) {
      return g;
    }
  }
}

TEST(AccessPlanTest, AxisPlansMatchBruteForce) {
  Rng rng(20240601);
  int64_t emptyPlans = 0;
  for (Kind kind : {Kind::Conv, Kind::Transposed}) {
    for (int trial = 0; trial < 4000; ++trial) {
      const AxisGeometry g = randomAxis(rng, kind);
      const int64_t tileLen = rng.uniformInt(1, g.out);
      const int64_t tileFirst = rng.uniformInt(0, g.out - tileLen);
      for (int64_t k = 0; k < g.kernel; ++k) {
        const std::optional<AxisPlan> plan = axisPlan(kind, g, tileFirst, tileLen, k);
        const std::vector<Pair> expected = bruteForcePairs(kind, g, tileFirst, tileLen, k);
        ASSERT_EQ(planPairs(plan), expected)
            << (kind == Kind::Conv ? "conv" : "transposed") << " in=" << g.in << " out=" << g.out
            << " K=" << g.kernel << " S=" << g.stride << " D=" << g.dilation << " P=" << g.padBegin
            << " tile=[" << tileFirst << ",+" << tileLen << ") k=" << k;
        ASSERT_EQ(plan.has_value(), !expected.empty()); // never a zero-count plan
        if (plan) {
          EXPECT_EQ(plan->srcStep, kind == Kind::Conv ? g.stride : 1);
          EXPECT_EQ(plan->dstStep, kind == Kind::Conv ? 1 : g.stride);
        } else {
          ++emptyPlans;
        }
      }
    }
  }
  EXPECT_GT(emptyPlans, 0); // the random geometries do reach padding-only weights
}

/// Result of running a whole layer tile by tile: output values and which entries were written.
struct TiledRun {
  std::vector<int64_t> values;
  std::vector<bool> written;
};

using Plane = std::vector<std::vector<int64_t>>;

Plane randomPlane(Rng& rng, int64_t rows, int64_t cols) {
  Plane p(rows, std::vector<int64_t>(cols));
  for (auto& row : p) {
    for (int64_t& v : row) {
      v = rng.uniformInt(-5, 5);
    }
  }
  return p;
}

/// Direct reference: Conv gathers per output, ConvTranspose scatters per input.
TiledRun directReference(Kind kind, const AxisGeometry& h, const AxisGeometry& w, const Plane& x,
                         const Plane& wt) {
  TiledRun run{std::vector<int64_t>(h.out * w.out, 0), std::vector<bool>(h.out * w.out, false)};
  auto contribute = [&](int64_t y, int64_t xo, int64_t i, int64_t j, int64_t r, int64_t s) {
    if (y >= 0 && y < h.out && xo >= 0 && xo < w.out && i >= 0 && i < h.in && j >= 0 && j < w.in) {
      run.values[y * w.out + xo] += x[i][j] * wt[r][s];
      run.written[y * w.out + xo] = true;
    }
  };
  for (int64_t r = 0; r < h.kernel; ++r) {
    for (int64_t s = 0; s < w.kernel; ++s) {
      if (kind == Kind::Conv) {
        for (int64_t y = 0; y < h.out; ++y) {
          for (int64_t xo = 0; xo < w.out; ++xo) {
            contribute(y, xo, y * h.stride + r * h.dilation - h.padBegin,
                       xo * w.stride + s * w.dilation - w.padBegin, r, s);
          }
        }
      } else {
        for (int64_t i = 0; i < h.in; ++i) {
          for (int64_t j = 0; j < w.in; ++j) {
            contribute(i * h.stride + r * h.dilation - h.padBegin,
                       j * w.stride + s * w.dilation - w.padBegin, i, j, r, s);
          }
        }
      }
    }
  }
  return run;
}

/// Tiled execution through the plans, as the summation buffer does it: per tile, per weight,
/// accumulate input x weight into the planned entries; entries never written stay unflagged.
TiledRun runTiled(Kind kind, const AxisGeometry& h, const AxisGeometry& w, const Plane& x,
                  const Plane& wt, int64_t tileRows, int64_t tileCols) {
  TiledRun run{std::vector<int64_t>(h.out * w.out, 0), std::vector<bool>(h.out * w.out, false)};
  for (int64_t row0 = 0; row0 < h.out; row0 += tileRows) {
    for (int64_t col0 = 0; col0 < w.out; col0 += tileCols) {
      const int64_t rows = std::min(tileRows, h.out - row0);
      const int64_t cols = std::min(tileCols, w.out - col0);
      for (int64_t r = 0; r < h.kernel; ++r) {
        for (int64_t s = 0; s < w.kernel; ++s) {
          const auto plan = weightPlan(kind, h, w, row0, rows, col0, cols, r, s);
          if (!plan) {
            continue;
          }
          forEachElement(*plan, [&](int64_t i, int64_t j, int64_t u, int64_t v) {
            ASSERT_TRUE(u >= 0 && u < rows && v >= 0 && v < cols) << "entry outside the tile";
            const int64_t entry = (row0 + u) * w.out + col0 + v;
            run.values[entry] += x[i][j] * wt[r][s];
            run.written[entry] = true;
          });
        }
      }
    }
  }
  return run;
}

TEST(AccessPlanTest, TiledExecutionMatchesDirectReference) {
  Rng rng(7);
  for (Kind kind : {Kind::Conv, Kind::Transposed}) {
    int64_t neverWritten = 0;
    for (int trial = 0; trial < 2000; ++trial) {
      const AxisGeometry h = randomAxis(rng, kind);
      const AxisGeometry w = randomAxis(rng, kind);
      const Plane x = randomPlane(rng, h.in, w.in);
      const Plane wt = randomPlane(rng, h.kernel, w.kernel);
      const int64_t tileRows = rng.uniformInt(1, 5);
      const int64_t tileCols = rng.uniformInt(1, 6);
      const TiledRun ref = directReference(kind, h, w, x, wt);
      const TiledRun got = runTiled(kind, h, w, x, wt, tileRows, tileCols);
      ASSERT_EQ(got.values, ref.values) << "trial " << trial;
      ASSERT_EQ(got.written, ref.written) << "trial " << trial;
      neverWritten += std::count(got.written.begin(), got.written.end(), false);
    }
    // Stride > kernel (ConvTranspose) and pads beyond the kernel span (Conv) leave entries that
    // no weight touches; they must read as zero (seed 000 FIG. 7A/7B).
    EXPECT_GT(neverWritten, 100) << (kind == Kind::Conv ? "conv" : "transposed");
  }
}

TEST(AccessPlanTest, TransposedPlanEqualsRotatedDilatedForm) {
  // Seed 000 FIG. 6: the transposed conv is a stride-1 conv of the 180-degree rotated kernel
  // over the zero-inserted input, where input i sits at dilated coordinate i*S + B with border
  // B = (K-1)*D - P. Tile entry y meets rotated weight r' at dilated coordinate y + r'*D.
  Rng rng(3);
  for (int trial = 0; trial < 3000; ++trial) {
    const AxisGeometry g = randomAxis(rng, Kind::Transposed);
    const int64_t tileLen = rng.uniformInt(1, g.out);
    const int64_t tileFirst = rng.uniformInt(0, g.out - tileLen);
    const int64_t border = dilatedBorder(g);
    ASSERT_EQ(border, (g.kernel - 1) * g.dilation - g.padBegin);
    for (int64_t k = 0; k < g.kernel; ++k) {
      const int64_t rotated = rotatedIndex(g.kernel, k);
      std::vector<Pair> rotatedForm;
      for (int64_t y = tileFirst; y < tileFirst + tileLen; ++y) {
        const int64_t dilated = y + rotated * g.dilation;
        if (floorMod(dilated - border, g.stride) == 0) {
          const int64_t i = (dilated - border) / g.stride; // exact
          if (i >= 0 && i < g.in) {
            rotatedForm.push_back({i, y - tileFirst});
          }
        }
      }
      const std::optional<AxisPlan> plan = transposedAxisPlan(g, tileFirst, tileLen, k);
      ASSERT_EQ(planPairs(plan), rotatedForm);
      if (plan) {
        // Offset 650: the dilated coordinate of the first overlapping element is the first
        // destination shifted by the rotated coordinate; (it - B) / S is the start address.
        const int64_t first = dilatedFirst(g, *plan);
        EXPECT_EQ(first, tileFirst + plan->dstFirst + rotated * g.dilation);
        EXPECT_EQ(floorMod(first - border, g.stride), 0);
        EXPECT_EQ((first - border) / g.stride, plan->srcFirst);
      }
    }
  }
}

TEST(AccessPlanTest, RotatedIndexIsEq6And7) {
  EXPECT_EQ(rotatedIndex(3, 0), 2);
  EXPECT_EQ(rotatedIndex(3, 1), 1);
  EXPECT_EQ(rotatedIndex(3, 2), 0);
  EXPECT_EQ(rotatedIndex(1, 0), 0);
}

/// The patent's literal Eq. 11: destinations = stride pattern starting at (rotated - pad),
/// clipped to the tile [0, tileLen) only.
std::vector<int64_t> literalEq11(int64_t stride, int64_t pad, int64_t rotated, int64_t tileLen) {
  std::vector<int64_t> rows;
  for (int64_t y = rotated - pad; y < tileLen; y += stride) {
    if (y >= 0) {
      rows.push_back(y);
    }
  }
  return rows;
}

std::vector<int64_t> planDestinations(const std::optional<AxisPlan>& plan) {
  std::vector<int64_t> rows;
  for (const Pair& p : planPairs(plan)) {
    rows.push_back(p.dst);
  }
  return rows;
}

TEST(AccessPlanTest, LiteralEq11HoldsForThePatentExampleOnly) {
  // FIG. 6 setup (S=2, K=3, P=1, 18 tile columns of a 10-wide input): the literal rule gives
  // the right destinations whether "pad" is read as P or as the dilated border B = K-1-P.
  const AxisGeometry fig6{.in = 10, .out = 19, .kernel = 3, .stride = 2, .padBegin = 1};
  for (int64_t k = 0; k < 3; ++k) {
    const auto truth = planDestinations(transposedAxisPlan(fig6, 0, 18, k));
    EXPECT_EQ(literalEq11(2, 1, rotatedIndex(3, k), 18), truth) << "k=" << k;
  }
  // Digest 000 §3.5: S=3, K=3, P=0, rotated row 0 (k=2): the true rows are 2 mod 3; the
  // literal rule gives 0 mod 3 (pad = P) or 1 mod 3 (pad = B = 2).
  const AxisGeometry s3{.in = 20, .out = 59, .kernel = 3, .stride = 3, .padBegin = 0};
  const auto truth = planDestinations(transposedAxisPlan(s3, 0, 12, 2));
  EXPECT_EQ(truth, (std::vector<int64_t>{2, 5, 8, 11}));
  EXPECT_EQ(literalEq11(3, 0, 0, 12), (std::vector<int64_t>{0, 3, 6, 9}));
  EXPECT_EQ(literalEq11(3, 2, 0, 12), (std::vector<int64_t>{1, 4, 7, 10}));

  // For every stride >= 3 a search over (K, P, k) finds a case where the literal rule puts the
  // pattern on the wrong residue under both readings of "pad"; for stride 2 the residue is
  // always right with pad = B (only the input clipping is missing).
  for (int64_t stride = 2; stride <= 6; ++stride) {
    bool counterexample = false;
    for (int64_t kernel = 1; kernel <= 5; ++kernel) {
      for (int64_t pad = 0; pad < kernel; ++pad) {
        const int64_t inLen = 40;
        const AxisGeometry g{.in = inLen,
                             .out = (inLen - 1) * stride + kernel - 2 * pad,
                             .kernel = kernel,
                             .stride = stride,
                             .padBegin = pad};
        for (int64_t k = 0; k < kernel; ++k) {
          const auto plan = transposedAxisPlan(g, 0, 3 * stride, k);
          ASSERT_TRUE(plan.has_value());
          const int64_t rotated = rotatedIndex(kernel, k);
          const int64_t residue = floorMod(plan->dstFirst, stride);
          const bool wrongWithP = floorMod(rotated - pad, stride) != residue;
          const bool wrongWithB = floorMod(rotated - (kernel - 1 - pad), stride) != residue;
          if (stride == 2) {
            EXPECT_FALSE(wrongWithB) << "K=" << kernel << " P=" << pad << " k=" << k;
          }
          counterexample = counterexample || (wrongWithP && wrongWithB);
        }
      }
    }
    EXPECT_EQ(counterexample, stride >= 3) << "stride " << stride;
  }
}

/// Hull of the brute-force pairs over every kernel position.
std::optional<IndexRange> bruteForceRange(Kind kind, const AxisGeometry& g, int64_t tileFirst,
                                          int64_t tileLen) {
  std::optional<IndexRange> range;
  for (int64_t k = 0; k < g.kernel; ++k) {
    for (const Pair& p : bruteForcePairs(kind, g, tileFirst, tileLen, k)) {
      if (!range) {
        range = IndexRange{p.src, p.src};
      }
      range->first = std::min(range->first, p.src);
      range->last = std::max(range->last, p.src);
    }
  }
  return range;
}

TEST(AccessPlanTest, InputRangesAreTheHullOfEveryWeightsInputs) {
  Rng rng(11);
  for (Kind kind : {Kind::Conv, Kind::Transposed}) {
    for (int trial = 0; trial < 3000; ++trial) {
      const AxisGeometry g = randomAxis(rng, kind);
      const int64_t tileLen = rng.uniformInt(1, g.out);
      const int64_t tileFirst = rng.uniformInt(0, g.out - tileLen);
      const auto got = kind == Kind::Conv ? convInputRange(g, tileFirst, tileLen)
                                          : transposedInputRange(g, tileFirst, tileLen);
      const auto expected = bruteForceRange(kind, g, tileFirst, tileLen);
      ASSERT_EQ(got.has_value(), expected.has_value());
      if (got) {
        EXPECT_EQ(got->first, expected->first);
        EXPECT_EQ(got->last, expected->last);
      }
    }
  }
}

TEST(AccessPlanTest, InputRangeExamples) {
  // FIG. 5 (6x19 input, 3x3, stride 2, pad 1, 3x10 tile): rows 0-5 and columns 0-18.
  const AxisGeometry rows{.in = 6, .out = 3, .kernel = 3, .stride = 2, .padBegin = 1};
  const AxisGeometry cols{.in = 19, .out = 10, .kernel = 3, .stride = 2, .padBegin = 1};
  const auto rowRange = convInputRange(rows, 0, 3);
  ASSERT_TRUE(rowRange.has_value());
  EXPECT_EQ(rowRange->first, 0);
  EXPECT_EQ(rowRange->last, 5);
  EXPECT_EQ(rowRange->size(), 6);
  const auto colRange = convInputRange(cols, 0, 10);
  ASSERT_TRUE(colRange.has_value());
  EXPECT_EQ(colRange->first, 0);
  EXPECT_EQ(colRange->last, 18);
  // Second half of the FIG. 5 columns with a 5-wide tile: outputs 5-9 read columns 9-18.
  const auto tail = convInputRange(cols, 5, 5);
  ASSERT_TRUE(tail.has_value());
  EXPECT_EQ(tail->first, 9);
  EXPECT_EQ(tail->last, 18);
  // FIG. 6 edge tile (output row 4 of the 3-row input): only input row 2 contributes.
  const AxisGeometry fig6{.in = 3, .out = 5, .kernel = 3, .stride = 2, .padBegin = 1};
  const auto edge = transposedInputRange(fig6, 4, 1);
  ASSERT_TRUE(edge.has_value());
  EXPECT_EQ(edge->first, 2);
  EXPECT_EQ(edge->last, 2);
  // ConvTranspose tail beyond the full result (in 2, K 2, S 3: full extent 5, declared 8):
  // outputs 5-7 get no contribution, so the tile reads no input.
  const AxisGeometry tailGeom{.in = 2, .out = 8, .kernel = 2, .stride = 3, .padBegin = 0};
  EXPECT_FALSE(transposedInputRange(tailGeom, 5, 3).has_value());
  EXPECT_FALSE(transposedAxisPlan(tailGeom, 5, 3, 0).has_value());
  EXPECT_FALSE(transposedAxisPlan(tailGeom, 5, 3, 1).has_value());
}

TEST(AccessPlanTest, WeightPlanIsEmptyWhenEitherAxisIsEmpty) {
  // Digest 003 E4 geometry: weight (0,0) of output row 0 reads only padding rows.
  const AxisGeometry g{.in = 5, .out = 5, .kernel = 3, .stride = 1, .dilation = 2, .padBegin = 2};
  ASSERT_TRUE(convAxisPlan(g, 0, 5, 0).has_value());
  ASSERT_FALSE(convAxisPlan(g, 0, 1, 0).has_value());
  EXPECT_FALSE(convWeightPlan(g, g, 0, 1, 0, 5, 0, 0).has_value()); // rows empty
  EXPECT_FALSE(convWeightPlan(g, g, 0, 5, 0, 1, 0, 0).has_value()); // columns empty
  const auto plan = convWeightPlan(g, g, 0, 5, 0, 5, 0, 1);
  ASSERT_TRUE(plan.has_value());
  EXPECT_EQ(plan->rows.count, 3);
  EXPECT_EQ(plan->cols.count, 5);
  EXPECT_EQ(plan->count(), 15);
}

TEST(AccessPlanTest, ForEachElementStreamsRowsOuterColumnsInner) {
  const WeightPlan plan{
      .rows = {.srcFirst = 1, .srcStep = 2, .dstFirst = 1, .dstStep = 3, .count = 2},
      .cols = {.srcFirst = 4, .srcStep = 1, .dstFirst = 0, .dstStep = 2, .count = 3}};
  std::vector<std::array<int64_t, 4>> seen;
  forEachElement(plan, [&](int64_t i, int64_t j, int64_t u, int64_t v) {
    seen.push_back({i, j, u, v});
  });
  const std::vector<std::array<int64_t, 4>> expected = {{1, 4, 1, 0}, {1, 5, 1, 2}, {1, 6, 1, 4},
                                                        {3, 4, 4, 0}, {3, 5, 4, 2}, {3, 6, 4, 4}};
  EXPECT_EQ(seen, expected);
}

TEST(AccessPlanTest, HugeExtentsDoNotOverflow) {
  const int64_t in = int64_t{1} << 40; // 1099511627776
  // Conv, K=5, S=3, D=2, P=4 on both sides: out = (in + 8 - 9) / 3 + 1 = 366503875926. Last
  // 7-entry tile starts at 366503875919; weight k=4 reads 3*o + 4, in range up to o =
  // floor((in - 5) / 3) = 366503875923: 5 entries from input 3*366503875919 + 4.
  const AxisGeometry conv{
      .in = in, .out = 366503875926, .kernel = 5, .stride = 3, .dilation = 2, .padBegin = 4};
  const auto plan = convAxisPlan(conv, 366503875919, 7, 4);
  ASSERT_TRUE(plan.has_value());
  EXPECT_EQ(plan->srcFirst, 1099511627761);
  EXPECT_EQ(plan->dstFirst, 0);
  EXPECT_EQ(plan->count, 5);
  EXPECT_EQ(bruteForcePairs(Kind::Conv, conv, 366503875919, 7, 4), planPairs(plan));
  const auto range = convInputRange(conv, 366503875919, 7);
  ASSERT_TRUE(range.has_value());
  EXPECT_EQ(range->first, 3 * 366503875919 - 4);
  EXPECT_EQ(range->last, in - 1);

  // ConvTranspose, K=3, S=4, D=2, P=1 both sides: out = 4*in - 1. In the last 6 entries
  // [4in-7, 4in-1), weight k=2 (y = 4i + 3) meets only i = in-2, at entry 2.
  const AxisGeometry tconv{
      .in = in, .out = 4 * in - 1, .kernel = 3, .stride = 4, .dilation = 2, .padBegin = 1};
  const auto tplan = transposedAxisPlan(tconv, 4 * in - 7, 6, 2);
  ASSERT_TRUE(tplan.has_value());
  EXPECT_EQ(tplan->srcFirst, in - 2);
  EXPECT_EQ(tplan->dstFirst, 2);
  EXPECT_EQ(tplan->count, 1);
  EXPECT_EQ(dilatedFirst(tconv, *tplan), (4 * in - 7) + 2 + 0 * 2);
}

using AccessPlanDeathTest = ::testing::Test;

TEST_F(AccessPlanDeathTest, ContractViolationsAreInternalErrors) {
  const AxisGeometry ok{.in = 4, .out = 4, .kernel = 3, .stride = 1, .padBegin = 1};
  AxisGeometry bad = ok;
  bad.stride = 0;
  EXPECT_DEATH((void)convAxisPlan(bad, 0, 4, 0), "bad axis geometry .*stride=0");
  bad = ok;
  bad.dilation = 0;
  EXPECT_DEATH((void)transposedAxisPlan(bad, 0, 4, 0), "bad axis geometry .*dilation=0");
  bad = ok;
  bad.padBegin = -1;
  EXPECT_DEATH((void)transposedInputRange(bad, 0, 4), "bad axis geometry .*padBegin=-1");
  bad = ok;
  bad.in = 0;
  EXPECT_DEATH((void)dilatedBorder(bad), "bad axis geometry in=0");
  EXPECT_DEATH((void)convAxisPlan(ok, 0, 4, 3), "kernel index 3 outside \\[0, 3\\)");
  EXPECT_DEATH((void)convAxisPlan(ok, 0, 4, -1), "kernel index -1 outside");
  EXPECT_DEATH((void)convAxisPlan(ok, 2, 3, 0), "tile \\[2, \\+3\\) outside output extent 4");
  EXPECT_DEATH((void)convInputRange(ok, 0, 0), "outside output extent 4");
  EXPECT_DEATH((void)transposedAxisPlan(ok, -1, 2, 0), "outside output extent 4");
  // k * dilation overflows int64.
  const AxisGeometry huge{
      .in = 4, .out = 4, .kernel = int64_t{1} << 62, .stride = 1, .dilation = 4, .padBegin = 0};
  EXPECT_DEATH((void)convAxisPlan(huge, 0, 4, (int64_t{1} << 62) - 1), "overflows int64");
  EXPECT_DEATH((void)dilatedBorder(huge), "overflows int64");
}

} // namespace
} // namespace nnaccel::arch::systolic
