/// \file
/// Tests of the N-up stream stages (patent/NUp.h, digest §5): the set format with its per-row valid
/// counts, the N-up convolution bit-exact against a direct correlation in 1-, 2-, 4- and 5-up
/// (same and valid, odd and even kernels, partial sets, back-to-back frames, input pauses) with
/// the window alignments of Figs. 21-23, the MaxPool that reduces N (Figs. 24A/B) or keeps it
/// (Fig. 25), the repack FIFO (Figs. 26A/B) and every rejection.
/// NUp.h is a patent model, kept to check the text's worked examples; the engine
/// does not use it.
#include "nnaccel/arch/stream/patent/NUp.h"

#include "nnaccel/support/Rng.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <numeric>
#include <string>
#include <vector>

namespace nnaccel::arch::stream::patent {
namespace {

std::vector<Value> randomValues(Rng& rng, int64_t count, int lo, int hi) {
  std::vector<Value> v(static_cast<size_t>(count));
  for (Value& x : v) {
    x = lo + static_cast<Value>(rng.nextU64() % static_cast<uint64_t>(hi - lo + 1));
  }
  return v;
}

/// Direct correlation of a position-major rows x width x cin frame (the reference).
std::vector<Value> referenceConv(const std::vector<Value>& frame, const NUpFormat& in,
                                 const NUpConvSpec& s) {
  const bool same = s.window == NUpWindow::Same;
  const int64_t ay = same ? s.kernelRows / 2 : 0, ax = same ? s.kernelCols / 2 : 0;
  const int64_t outRows = same ? in.rows : in.rows - s.kernelRows + 1;
  const int64_t outCols = same ? in.width : in.width - s.kernelCols + 1;
  const int64_t cin = in.channels, cout = s.outChannels;
  std::vector<Value> out(static_cast<size_t>(outRows * outCols * cout));
  for (int64_t i = 0; i < outRows; ++i) {
    for (int64_t j = 0; j < outCols; ++j) {
      for (int64_t co = 0; co < cout; ++co) {
        Value acc = s.bias.empty() ? 0 : s.bias[static_cast<size_t>(co)];
        for (int64_t m = 0; m < s.kernelRows; ++m) {
          for (int64_t n = 0; n < s.kernelCols; ++n) {
            const int64_t r = i - ay + m, c = j - ax + n;
            if (r < 0 || r >= in.rows || c < 0 || c >= in.width) {
              continue;
            }
            for (int64_t ci = 0; ci < cin; ++ci) {
              acc += frame[static_cast<size_t>((r * in.width + c) * cin + ci)] *
                     s.weights[static_cast<size_t>(
                         ((co * cin + ci) * s.kernelRows + m) * s.kernelCols + n)];
            }
          }
        }
        out[static_cast<size_t>((i * outCols + j) * cout + co)] = acc;
      }
    }
  }
  return out;
}

/// 2x2 stride-2 max pool (floor mode) of a position-major frame.
std::vector<Value> referencePool(const std::vector<Value>& frame, const NUpFormat& in) {
  const int64_t outRows = in.rows / 2, outCols = in.width / 2, ch = in.channels;
  std::vector<Value> out(static_cast<size_t>(outRows * outCols * ch));
  auto at = [&](int64_t r, int64_t c, int64_t k) {
    return frame[static_cast<size_t>((r * in.width + c) * ch + k)];
  };
  for (int64_t i = 0; i < outRows; ++i) {
    for (int64_t j = 0; j < outCols; ++j) {
      for (int64_t k = 0; k < ch; ++k) {
        out[static_cast<size_t>((i * outCols + j) * ch + k)] =
            std::max({at(2 * i, 2 * j, k), at(2 * i, 2 * j + 1, k), at(2 * i + 1, 2 * j, k),
                      at(2 * i + 1, 2 * j + 1, k)});
      }
    }
  }
  return out;
}

/// Packs position-major frames, runs them back to back and unpacks every output frame.
struct NUpRun {
  StreamTrace trace;
  std::vector<std::vector<Value>> frames; ///< position-major output frames
};

NUpRun runNUp(StreamStage& stage, const NUpFormat& in, const NUpFormat& out,
              const std::vector<std::vector<Value>>& frames, const RunOptions& options = {}) {
  std::vector<std::vector<Value>> packed;
  for (const auto& f : frames) {
    packed.push_back(packNUp(f, in));
  }
  NUpRun r;
  r.trace = runFrames(stage, packed, options);
  const int64_t frameValues = out.shape().values();
  EXPECT_EQ(static_cast<int64_t>(r.trace.values.size()),
            frameValues * static_cast<int64_t>(frames.size()));
  for (size_t f = 0; f < frames.size(); ++f) {
    const auto begin = r.trace.values.begin() + static_cast<int64_t>(f) * frameValues;
    const std::vector<Value> sets(begin, begin + frameValues);
    // Suppressed lanes of partial sets are zero.
    for (int64_t p = 0; p < out.shape().positions(); ++p) {
      const int64_t set = p % out.setsPerRow();
      for (int64_t v = out.validLanes(set) * out.channels; v < out.lanes * out.channels; ++v) {
        EXPECT_EQ(sets[static_cast<size_t>(p * out.lanes * out.channels + v)], 0);
      }
    }
    r.frames.push_back(unpackNUp(sets, out));
  }
  return r;
}

NUpConvSpec randomSpec(Rng& rng, int64_t kRows, int64_t kCols, int64_t cin, int64_t cout,
                       NUpWindow window) {
  NUpConvSpec s;
  s.kernelRows = kRows;
  s.kernelCols = kCols;
  s.outChannels = cout;
  s.window = window;
  s.weights = randomValues(rng, cout * cin * kRows * kCols, -8, 8);
  s.bias = randomValues(rng, cout, -50, 50);
  return s;
}

// ---------------------------------------------------------------------------------------------
// Format

TEST(NUpFormat, SetsPerRowAndValidCounts) {
  const NUpFormat f{.lanes = 4, .width = 10, .rows = 2, .channels = 3};
  EXPECT_EQ(f.setsPerRow(), 3);
  EXPECT_EQ(f.validLanes(0), 4);
  EXPECT_EQ(f.validLanes(1), 4);
  EXPECT_EQ(f.validLanes(2), 2); // the partial last set
  EXPECT_EQ(f.validLanes(3), 0);
  EXPECT_EQ(f.shape(), (FrameShape{2, 3, 12}));
  // 1920 divides by 1, 2, 3, 4, 5, 6, 8, 10 and 12 (digest §5.1): no partial sets.
  for (int64_t n : {1, 2, 3, 4, 5, 6, 8, 10, 12}) {
    const NUpFormat hd{.lanes = n, .width = 1920, .rows = 1, .channels = 3};
    EXPECT_EQ(hd.setsPerRow() * n, 1920);
    EXPECT_EQ(hd.validLanes(hd.setsPerRow() - 1), n);
  }
  EXPECT_EQ((NUpFormat{.lanes = 4, .width = 1920, .rows = 1, .channels = 3}.shape().channels),
            12); // 4-up RGB = 12 parallel inputs
}

TEST(NUpFormat, PackPutsColumnZeroInLaneZeroAndZeroesInvalidEntries) {
  const NUpFormat f{.lanes = 4, .width = 5, .rows = 2, .channels = 1};
  const std::vector<Value> frame = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  const std::vector<Value> sets = packNUp(frame, f);
  EXPECT_EQ(sets, (std::vector<Value>{1, 2, 3, 4, 5, 0, 0, 0, 6, 7, 8, 9, 10, 0, 0, 0}));
  EXPECT_EQ(unpackNUp(sets, f), frame);
  Rng rng(7);
  for (int64_t lanes = 1; lanes <= 6; ++lanes) {
    for (int64_t width : {1, 4, 7, 10}) {
      const NUpFormat g{.lanes = lanes, .width = width, .rows = 3, .channels = 2};
      const std::vector<Value> x = randomValues(rng, 3 * width * 2, -100, 100);
      EXPECT_EQ(unpackNUp(packNUp(x, g), g), x) << lanes << "-up width " << width;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Convolution: window alignment (Figs. 21-23)

TEST(NUpConv, Fig21ValidThreeByThreeUsesPreviousAndCurrentSet) {
  Rng rng(21);
  const NUpFormat f{.lanes = 4, .width = 12, .rows = 5, .channels = 3};
  const NUpConv conv(f, randomSpec(rng, 3, 3, 3, 2, NUpWindow::Valid));
  EXPECT_EQ(conv.retainedSets(), 1); // window = 2101 (idx 0-3) + 2102 (idx 4-7)
  EXPECT_EQ(conv.lagSets(), 1);      // nothing is computed until the second set arrives
  for (int64_t k = 0; k < 4; ++k) {
    EXPECT_EQ(conv.windowStart(k), k); // q_k uses idx k..k+2: q0 is centred on previous p1
  }
  EXPECT_EQ(conv.outputFormat().width, 10); // W - 2
  EXPECT_EQ(conv.outputFormat().rows, 3);
  EXPECT_EQ(conv.latencySets(), 2 * 3 + 1);
}

TEST(NUpConv, Fig22SameThreeByThreeCentresOnTheMiddleSet) {
  Rng rng(22);
  const NUpFormat f{.lanes = 4, .width = 12, .rows = 5, .channels = 3};
  const NUpConv conv(f, randomSpec(rng, 3, 3, 3, 2, NUpWindow::Same));
  EXPECT_EQ(conv.retainedSets(), 2); // window = 2201 (0-3), 2202 (4-7), 2203 (8-11)
  EXPECT_EQ(conv.lagSets(), 1);
  for (int64_t k = 0; k < 4; ++k) {
    EXPECT_EQ(conv.windowStart(k), 3 + k); // q_k uses idx 3+k..5+k, centred on 2202's p_k
  }
  EXPECT_EQ(conv.outputFormat(), (NUpFormat{.lanes = 4, .width = 12, .rows = 5, .channels = 2}));
  EXPECT_EQ(conv.latencySets(), 1 * 3 + 1);
}

TEST(NUpConv, Fig23OneBySevenHasFiveUniqueKernelMappings) {
  Rng rng(23);
  for (int64_t rows : {1, 3, 7}) { // the kernel height does not change the column mapping
    const NUpFormat tall{.lanes = 4, .width = 16, .rows = 7, .channels = 1};
    const NUpConv valid(tall, randomSpec(rng, rows, 7, 1, 1, NUpWindow::Valid));
    const NUpConv same(tall, randomSpec(rng, rows, 7, 1, 1, NUpWindow::Same));
    EXPECT_EQ(valid.retainedSets(), 2); // window = 2301, 2302, 2303 (idx 0-11)
    EXPECT_EQ(same.retainedSets(), 2);
    for (int64_t k = 0; k < 4; ++k) {
      EXPECT_EQ(valid.windowStart(k), k);    // 2304-2307: q_k uses idx k..k+6
      EXPECT_EQ(same.windowStart(k), 1 + k); // 2309-2312: idx 1+k..7+k
    }
    // w0,3 of q0 lands on 2302.p0 (window entry 4). Follows digest §12: the patent's
    // "circuit 2308" here is circuit 2309.
    EXPECT_EQ(same.windowStart(0) + 3, 4);
    EXPECT_EQ(valid.distinctKernelMappings(), 5);
    EXPECT_EQ(same.distinctKernelMappings(), 5);
  }
  EXPECT_EQ(NUpConv::distinctKernelMappings(4, 7), 5);
  EXPECT_EQ(NUpConv::distinctKernelMappings(4, 3), 5); // 3x3: valid 4..7, same 3..6
  EXPECT_EQ(NUpConv::distinctKernelMappings(1, 7), 1); // 1-up: one circuit for both
  EXPECT_EQ(NUpConv::distinctKernelMappings(4, 1), 4); // 1x1 needs no shifted copy
}

// ---------------------------------------------------------------------------------------------
// Convolution: bit-exact

/// Runs \p spec on \p frames in \p in format and checks values against the reference and the
/// emission steps against frameStart + i * S + o + latency.
void checkConv(const NUpFormat& in, const NUpConvSpec& spec,
               const std::vector<std::vector<Value>>& frames, const RunOptions& options = {}) {
  NUpConv conv(in, spec);
  const NUpFormat out = conv.outputFormat();
  const NUpRun r = runNUp(conv, in, out, frames, options);
  const std::string what = std::to_string(in.lanes) + "-up " + std::to_string(in.rows) + "x" +
                           std::to_string(in.width) + " kernel " + std::to_string(spec.kernelRows) +
                           "x" + std::to_string(spec.kernelCols) +
                           (spec.window == NUpWindow::Same ? " same" : " valid");
  for (size_t f = 0; f < frames.size(); ++f) {
    ASSERT_EQ(r.frames[f], referenceConv(frames[f], in, spec)) << what << " frame " << f;
  }
  const int64_t inSets = in.setsPerRow(), frameSteps = in.rows * inSets;
  for (int64_t f = 0; f < static_cast<int64_t>(frames.size()); ++f) {
    for (int64_t i = 0; i < out.rows; ++i) {
      for (int64_t o = 0; o < out.setsPerRow(); ++o) {
        const int64_t p = (f * out.rows + i) * out.setsPerRow() + o;
        ASSERT_EQ(r.trace.emitStep[static_cast<size_t>(p)],
                  f * frameSteps + i * inSets + o + conv.latencySets())
            << what << " output set " << i << "," << o;
      }
    }
  }
}

TEST(NUpConv, BitExactOneTwoFourFiveUpSameAndValid) {
  const std::pair<int64_t, int64_t> kernels[] = {{1, 1}, {3, 3}, {5, 5}, {7, 7}, {1, 7},
                                                 {3, 7}, {2, 2}, {4, 4}, {2, 3}, {3, 2}};
  Rng rng(2002);
  for (int64_t lanes : {1, 2, 4, 5}) {
    for (NUpWindow window : {NUpWindow::Same, NUpWindow::Valid}) {
      for (int rep = 0; rep < 2; ++rep) {
        for (const auto& [kRows, kCols] : kernels) {
          // Widths around the lane count so that partial sets occur in most cases.
          const int64_t width =
              kCols + static_cast<int64_t>(rng.nextU64() % static_cast<uint64_t>(2 * lanes + 3));
          const int64_t rows = kRows + static_cast<int64_t>(rng.nextU64() % 3);
          const int64_t cin = 1 + static_cast<int64_t>(rng.nextU64() % 3);
          const int64_t cout = 1 + static_cast<int64_t>(rng.nextU64() % 3);
          const NUpFormat in{.lanes = lanes, .width = width, .rows = rows, .channels = cin};
          const NUpConvSpec spec = randomSpec(rng, kRows, kCols, cin, cout, window);
          std::vector<std::vector<Value>> frames;
          for (int f = 0; f < 3; ++f) {
            frames.push_back(randomValues(rng, rows * width * cin, -20, 20));
          }
          checkConv(in, spec, frames);
        }
      }
    }
  }
}

TEST(NUpConv, PartialSetsAtEveryRemainder) {
  Rng rng(5);
  for (int64_t lanes : {2, 4, 5}) {
    for (int64_t width = 7; width < 7 + lanes; ++width) { // width % lanes takes every value
      for (NUpWindow window : {NUpWindow::Same, NUpWindow::Valid}) {
        const NUpFormat in{.lanes = lanes, .width = width, .rows = 4, .channels = 2};
        checkConv(
            in, randomSpec(rng, 3, 5, 2, 2, window),
            {randomValues(rng, 4 * width * 2, -9, 9), randomValues(rng, 4 * width * 2, -9, 9)});
      }
    }
  }
}

TEST(NUpConv, KernelAsWideAsTheArrayAndOneSetRows) {
  Rng rng(9);
  // Width 7 in 4-up is 2 sets; a 1x7 / 3x7 kernel's lag (2 sets) reaches past the row end.
  for (NUpWindow window : {NUpWindow::Same, NUpWindow::Valid}) {
    for (int64_t lanes : {4, 5, 8}) {
      const NUpFormat in{.lanes = lanes, .width = 7, .rows = 3, .channels = 1};
      checkConv(in, randomSpec(rng, 3, 7, 1, 2, window),
                {randomValues(rng, 21, -9, 9), randomValues(rng, 21, -9, 9)});
      checkConv(in, randomSpec(rng, 3, 3, 1, 1, window), {randomValues(rng, 21, -9, 9)});
    }
  }
}

TEST(NUpConv, InputPausesDoNotChangeValuesOrSteps) {
  Rng rng(11);
  RunOptions paused;
  paused.validPattern = {true, false, true, true, false, false, true};
  for (int64_t lanes : {1, 2, 4, 5}) {
    for (NUpWindow window : {NUpWindow::Same, NUpWindow::Valid}) {
      const NUpFormat in{.lanes = lanes, .width = 11, .rows = 6, .channels = 2};
      const NUpConvSpec spec = randomSpec(rng, 5, 3, 2, 3, window);
      std::vector<std::vector<Value>> frames;
      for (int f = 0; f < 2; ++f) {
        frames.push_back(randomValues(rng, 6 * 11 * 2, -20, 20));
      }
      checkConv(in, spec, frames, paused);
      NUpConv conv(in, spec);
      const NUpRun r = runNUp(conv, in, conv.outputFormat(), frames, paused);
      // Cycles advance past the steps by the paused cycles.
      EXPECT_GT(r.trace.emitCycle.back(), r.trace.emitStep.back());
    }
  }
}

TEST(NUpConv, DigestWorkedVectorsInEveryLaneCount) {
  // Digest §4.5: A = [[1..4],[5..8],[9..12]], 3x3 "same".
  const std::vector<Value> a = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
  NUpConvSpec ones;
  ones.kernelRows = ones.kernelCols = 3;
  ones.weights.assign(9, 1);
  NUpConvSpec ramp = ones;
  ramp.weights = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  ramp.bias = {10};
  for (int64_t lanes : {1, 2, 4, 5}) {
    const NUpFormat in{.lanes = lanes, .width = 4, .rows = 3, .channels = 1};
    NUpConv c1(in, ones);
    EXPECT_EQ(runNUp(c1, in, c1.outputFormat(), {a}).frames[0],
              (std::vector<Value>{14, 24, 30, 22, 33, 54, 63, 45, 30, 48, 54, 38}));
    NUpConv c2(in, ramp);
    EXPECT_EQ(runNUp(c2, in, c2.outputFormat(), {a}).frames[0],
              (std::vector<Value>{121, 188, 227, 155, 241, 358, 403, 262, 143, 200, 221, 137}));
  }
  // 1-up reproduces the 1-up engine's timing: outputs at steps 5..16 (Lat = C + 1).
  const NUpFormat oneUp{.lanes = 1, .width = 4, .rows = 3, .channels = 1};
  NUpConv c(oneUp, ones);
  EXPECT_EQ(c.latencySets(), 5);
  const NUpRun r = runNUp(c, oneUp, c.outputFormat(), {a});
  EXPECT_EQ(r.trace.emitStep.front(), 5);
  EXPECT_EQ(r.trace.emitStep.back(), 16);
  EXPECT_EQ(r.trace.postSteps, 5);
}

TEST(NUpConv, ResetRestartsTheFrameAndIsDeterministic) {
  Rng rng(3);
  const NUpFormat in{.lanes = 4, .width = 9, .rows = 4, .channels = 2};
  NUpConv conv(in, randomSpec(rng, 3, 3, 2, 2, NUpWindow::Same));
  const std::vector<Value> frame = randomValues(rng, 4 * 9 * 2, -9, 9);
  const NUpRun first = runNUp(conv, in, conv.outputFormat(), {frame});
  conv.reset();
  const NUpRun second = runNUp(conv, in, conv.outputFormat(), {frame});
  EXPECT_EQ(first.trace.values, second.trace.values);
  EXPECT_EQ(first.trace.emitStep, second.trace.emitStep);
}

// ---------------------------------------------------------------------------------------------
// MaxPool (Figs. 24A/B, 25)

void checkPool(const NUpFormat& in, NUpPoolLanes mode, int64_t expectLanes, int64_t frames = 2) {
  Rng rng(static_cast<uint64_t>(in.lanes * 1000 + in.width * 10 + in.rows));
  NUpMaxPool pool(in, mode);
  const NUpFormat out = pool.outputFormat();
  EXPECT_EQ(out.lanes, expectLanes);
  EXPECT_EQ(out.width, in.width / 2);
  EXPECT_EQ(out.rows, in.rows / 2);
  EXPECT_EQ(pool.comparators(), expectLanes);
  EXPECT_EQ(pool.reducesLanes(), expectLanes != in.lanes);
  std::vector<std::vector<Value>> xs;
  for (int64_t f = 0; f < frames; ++f) {
    xs.push_back(randomValues(rng, in.rows * in.width * in.channels, -100, 100));
  }
  const NUpRun r = runNUp(pool, in, out, xs);
  for (size_t f = 0; f < xs.size(); ++f) {
    EXPECT_EQ(r.frames[f], referencePool(xs[f], in))
        << in.lanes << "-up " << in.rows << "x" << in.width << " frame " << f;
  }
  EXPECT_EQ(r.trace.postSteps, 0); // every output set leaves with its last input set
  EXPECT_EQ(r.trace.emitStep.front(), pool.latencySets());
}

TEST(NUpMaxPool, FourUpToTwoUpAndTwoUpToOneUp) {
  checkPool({.lanes = 4, .width = 8, .rows = 4, .channels = 3}, NUpPoolLanes::Auto, 2);
  checkPool({.lanes = 2, .width = 8, .rows = 4, .channels = 3}, NUpPoolLanes::Auto, 1);
  checkPool({.lanes = 4, .width = 10, .rows = 6, .channels = 2}, NUpPoolLanes::Reduce, 2);
  checkPool({.lanes = 4, .width = 9, .rows = 5, .channels = 2}, NUpPoolLanes::Reduce, 2);
  checkPool({.lanes = 2, .width = 7, .rows = 3, .channels = 1}, NUpPoolLanes::Auto, 1);
  checkPool({.lanes = 6, .width = 13, .rows = 4, .channels = 1}, NUpPoolLanes::Auto, 3);
  // Fig. 18: 4-up -> 2-up -> 1-up; sets per row stay the same (480 for HD).
  const NUpFormat hd{.lanes = 4, .width = 1920, .rows = 4, .channels = 1};
  const NUpMaxPool p1(hd);
  const NUpMaxPool p2(p1.outputFormat());
  EXPECT_EQ(p1.outputFormat().setsPerRow(), 480);
  EXPECT_EQ(p2.outputFormat().lanes, 1);
  EXPECT_EQ(p2.outputFormat().setsPerRow(), 480);
}

TEST(NUpMaxPool, OneOutputSetPerInputSetOnTheSecondRowOfEachPair) {
  const NUpFormat in{.lanes = 4, .width = 8, .rows = 4, .channels = 1};
  NUpMaxPool pool(in);
  const NUpRun r = runNUp(pool, in, pool.outputFormat(),
                          {std::vector<Value>(static_cast<size_t>(in.rows * in.width), 1)});
  // 2 sets per row; rows 1 and 3 emit at steps 2, 3 and 6, 7.
  EXPECT_EQ(r.trace.emitStep, (std::vector<int64_t>{2, 3, 6, 7}));
}

TEST(NUpMaxPool, FiveUpStaysFiveUpEmittingEverySecondSet) {
  checkPool({.lanes = 5, .width = 20, .rows = 4, .channels = 2}, NUpPoolLanes::Auto, 5);
  checkPool({.lanes = 5, .width = 15, .rows = 4, .channels = 2}, NUpPoolLanes::Auto, 5);
  checkPool({.lanes = 5, .width = 13, .rows = 5, .channels = 1}, NUpPoolLanes::Auto, 5);
  checkPool({.lanes = 3, .width = 11, .rows = 3, .channels = 1}, NUpPoolLanes::Auto, 3);
  checkPool({.lanes = 1, .width = 9, .rows = 4, .channels = 2}, NUpPoolLanes::Auto, 1);
  checkPool({.lanes = 4, .width = 16, .rows = 4, .channels = 1}, NUpPoolLanes::Keep, 4);
  const NUpFormat in{.lanes = 5, .width = 20, .rows = 2, .channels = 1};
  NUpMaxPool pool(in);
  const NUpRun r = runNUp(pool, in, pool.outputFormat(),
                          {std::vector<Value>(static_cast<size_t>(in.rows * in.width), 1)});
  // Row 1's sets are steps 4..7; the output sets leave with the second of each pair.
  EXPECT_EQ(r.trace.emitStep, (std::vector<int64_t>{5, 7}));
}

// ---------------------------------------------------------------------------------------------
// Repack FIFO (Figs. 26A/B)

TEST(RepackFifo, WidthTenFourUpToTwoUpGivesFiveSetsPerRowNotSix) {
  const NUpFormat in{.lanes = 4, .width = 10, .rows = 2, .channels = 3};
  RepackFifo fifo(in, 2);
  EXPECT_EQ(in.setsPerRow(), 3);
  EXPECT_EQ(fifo.outputFormat().setsPerRow(), 5);
  Rng rng(26);
  const std::vector<Value> x = randomValues(rng, 2 * 10 * 3, -100, 100);
  const NUpRun r = runNUp(fifo, in, fifo.outputFormat(), {x});
  EXPECT_EQ(r.frames[0], x);
  // Per row: 2, 2, 1 sets (the 3rd input set's last two entries are ignored).
  EXPECT_EQ(r.trace.emitStep, (std::vector<int64_t>{0, 0, 1, 1, 2, 3, 3, 4, 4, 5}));
  EXPECT_EQ(fifo.peakOccupancyEntries(), 4);
  EXPECT_LE(fifo.peakOccupancyEntries(), fifo.capacityEntries());
}

TEST(RepackFifo, ThreeUpToFiveUpPadsTheLastSetOfARow) {
  const NUpFormat in{.lanes = 3, .width = 11, .rows = 2, .channels = 1};
  RepackFifo fifo(in, 5);
  const std::vector<Value> x = {1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11,
                                12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22};
  const NUpRun r = runNUp(fifo, in, fifo.outputFormat(), {x});
  EXPECT_EQ(r.trace.values,
            (std::vector<Value>{1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 0, 0, 0, 0,
                                12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 0, 0, 0, 0}));
  // 4 input sets per row (3, 3, 3, 2 valid) -> 3 output sets: after sets 1 and 3 (two).
  EXPECT_EQ(r.trace.emitStep, (std::vector<int64_t>{1, 3, 3, 5, 7, 7}));
  EXPECT_EQ(fifo.peakOccupancyEntries(), 6); // 4 held + 2 taken at the row end
  EXPECT_EQ(fifo.capacityEntries(), 7);
  // Width 15: after 3, 6 (-> 1), 4, 7 entries the FIFO reaches its capacity, 4 held + 3 taken.
  RepackFifo full({.lanes = 3, .width = 15, .rows = 1, .channels = 1}, 5);
  std::vector<Value> y(15);
  std::iota(y.begin(), y.end(), 1);
  const NUpRun r15 = runNUp(full, full.inputFormat(), full.outputFormat(), {y});
  EXPECT_EQ(r15.frames[0], y);
  EXPECT_EQ(r15.trace.emitStep, (std::vector<int64_t>{1, 3, 4}));
  EXPECT_EQ(full.peakOccupancyEntries(), 7);
}

TEST(RepackFifo, EveryLanePairRoundTripsAtTheRowRate) {
  Rng rng(31);
  for (int64_t m = 1; m <= 6; ++m) {
    for (int64_t n = 1; n <= 6; ++n) {
      for (int64_t width : {1, 5, 10, 12, 13}) {
        const NUpFormat in{.lanes = m, .width = width, .rows = 3, .channels = 2};
        RepackFifo there(in, n);
        RepackFifo back(there.outputFormat(), m);
        const std::vector<Value> x = randomValues(rng, 3 * width * 2, -50, 50);
        const NUpRun r1 = runNUp(there, in, there.outputFormat(), {x, x});
        ASSERT_EQ(r1.frames[0], x) << m << "->" << n << " width " << width;
        ASSERT_EQ(r1.frames[1], x);
        // Rate: ceil(width/N) sets out per ceil(width/M) sets in, finishing with each row.
        const int64_t setsIn = in.setsPerRow(), setsOut = there.outputFormat().setsPerRow();
        for (int64_t row = 0; row < 6; ++row) {
          const int64_t last = (row + 1) * setsOut - 1;
          EXPECT_EQ(r1.trace.emitStep[static_cast<size_t>(last)], (row + 1) * setsIn - 1);
        }
        EXPECT_LE(there.peakOccupancyEntries(), there.capacityEntries());
        const NUpRun r2 = runNUp(back, there.outputFormat(), in, {x});
        EXPECT_EQ(r2.frames[0], x);
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Composition: a small 4-up network (Fig. 18 style) against the 1-up references

TEST(NUpPipeline, ConvPoolRepackConvMatchesTheReference) {
  Rng rng(18);
  const NUpFormat in{.lanes = 4, .width = 14, .rows = 6, .channels = 3};
  const NUpConvSpec spec1 = randomSpec(rng, 3, 3, 3, 4, NUpWindow::Same);
  const NUpConvSpec spec2 = randomSpec(rng, 3, 5, 4, 2, NUpWindow::Valid);
  NUpConv conv1(in, spec1);
  NUpMaxPool pool(conv1.outputFormat()); // 4-up -> 2-up, 7 wide
  RepackFifo repack(pool.outputFormat(), 5);
  NUpConv conv2(repack.outputFormat(), spec2);
  EXPECT_EQ(pool.outputFormat(), (NUpFormat{.lanes = 2, .width = 7, .rows = 3, .channels = 4}));
  EXPECT_EQ(conv2.outputFormat(), (NUpFormat{.lanes = 5, .width = 3, .rows = 1, .channels = 2}));
  const std::vector<Value> x = randomValues(rng, 6 * 14 * 3, -10, 10);
  const std::vector<Value> pooled =
      referencePool(referenceConv(x, in, spec1), conv1.outputFormat());
  const std::vector<Value> expect = referenceConv(pooled, repack.outputFormat(), spec2);

  // Each stage's emitted stream feeds the next, two frames back to back.
  std::vector<std::vector<Value>> frames = {packNUp(x, in), packNUp(x, in)};
  for (StreamStage* stage : std::vector<StreamStage*>{&conv1, &pool, &repack, &conv2}) {
    const StreamTrace t = runFrames(*stage, frames);
    const size_t half = t.values.size() / 2;
    frames = {std::vector<Value>(t.values.begin(), t.values.begin() + static_cast<int64_t>(half)),
              std::vector<Value>(t.values.begin() + static_cast<int64_t>(half), t.values.end())};
  }
  EXPECT_EQ(unpackNUp(frames[0], conv2.outputFormat()), expect);
  EXPECT_EQ(unpackNUp(frames[1], conv2.outputFormat()), expect);
}

// ---------------------------------------------------------------------------------------------
// Errors

template <typename Fn>
void expectError(Fn&& fn, ErrorKind kind, const std::string& key, const std::string& message) {
  try {
    fn();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), kind) << e.what();
    EXPECT_EQ(e.context().key, key);
    EXPECT_EQ(std::string(e.what()), message);
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
    return;
  }
  ADD_FAILURE() << "no error, expected: " << message;
}

TEST(NUpErrors, FormatAndPacking) {
  const NUpFormat ok{.lanes = 4, .width = 10, .rows = 2, .channels = 1};
  NUpFormat f = ok;
  f.lanes = 0;
  expectError([&] { f.validate(); }, ErrorKind::Config, "lanes",
              "'lanes': N-up lanes=0 must be at least 1");
  f = ok;
  f.width = -1;
  expectError([&] { packNUp(std::vector<Value>{}, f); }, ErrorKind::Config, "width",
              "'width': N-up width=-1 must be at least 1");
  f = ok;
  f.rows = 0;
  expectError([&] { NUpMaxPool p(f); }, ErrorKind::Config, "rows",
              "'rows': N-up rows=0 must be at least 1");
  f = ok;
  f.channels = 0;
  expectError([&] { RepackFifo r(f, 2); }, ErrorKind::Config, "channels",
              "'channels': N-up channels=0 must be at least 1");
  expectError([&] { packNUp(std::vector<Value>(19), ok); }, ErrorKind::Usage, "frame",
              "'frame': frame of 19 values for a 2x10x1 array (expected 20)");
  expectError([&] { unpackNUp(std::vector<Value>(20), ok); }, ErrorKind::Usage, "frame",
              "'frame': 20 values for 6 4-up sets of 1 channels (expected 24)");
}

TEST(NUpErrors, Convolution) {
  const NUpFormat in{.lanes = 4, .width = 5, .rows = 3, .channels = 2};
  NUpConvSpec s;
  s.kernelRows = 3;
  s.kernelCols = 3;
  s.outChannels = 2;
  s.weights.assign(2 * 2 * 3 * 3, 1);
  EXPECT_NO_THROW(NUpConv(in, s));
  NUpFormat bad = in;
  bad.lanes = 0;
  expectError([&] { NUpConv c(bad, s); }, ErrorKind::Config, "lanes",
              "'lanes': N-up lanes=0 must be at least 1");
  NUpConvSpec t = s;
  t.kernelCols = 0;
  expectError([&] { NUpConv c(in, t); }, ErrorKind::Config, "kernel",
              "'kernel': kernel 3x0 must be at least 1x1");
  t = s;
  t.kernelRows = 1;
  t.kernelCols = 7;
  t.weights.assign(2 * 2 * 7, 1);
  for (NUpWindow w : {NUpWindow::Same, NUpWindow::Valid}) {
    t.window = w;
    expectError([&] { NUpConv c(in, t); }, ErrorKind::Config, "kernel",
                "'kernel': kernel 1x7 is wider than the array (width 5)");
  }
  t = s;
  t.kernelRows = 5;
  t.kernelCols = 1;
  t.weights.assign(2 * 2 * 5, 1);
  expectError([&] { NUpConv c(in, t); }, ErrorKind::Config, "kernel",
              "'kernel': kernel 5x1 is taller than the array (rows 3)");
  t = s;
  t.outChannels = 0;
  expectError([&] { NUpConv c(in, t); }, ErrorKind::Config, "outChannels",
              "'outChannels': outChannels=0 must be at least 1");
  t = s;
  t.weights.pop_back();
  expectError([&] { NUpConv c(in, t); }, ErrorKind::Config, "weights",
              "'weights': 35 weights for 2 outputs x 2 inputs x 3x3 (expected 36)");
  t = s;
  t.bias = {1, 2, 3};
  expectError([&] { NUpConv c(in, t); }, ErrorKind::Config, "bias",
              "'bias': 3 bias values for 2 output channels");
}

TEST(NUpErrors, PoolAndRepack) {
  expectError([&] { NUpMaxPool p({.lanes = 2, .width = 1, .rows = 4, .channels = 1}); },
              ErrorKind::Config, "width", "'width': array 4x1 is too small for a 2x2 pool");
  expectError([&] { NUpMaxPool p({.lanes = 2, .width = 4, .rows = 1, .channels = 1}); },
              ErrorKind::Config, "width", "'width': array 1x4 is too small for a 2x2 pool");
  for (int64_t lanes : {1, 3, 5}) {
    expectError(
        [&] {
          NUpMaxPool p({.lanes = lanes, .width = 20, .rows = 4, .channels = 1},
                       NUpPoolLanes::Reduce);
        },
        ErrorKind::Unsupported, "lanes",
        "'lanes': cannot reduce a " + std::to_string(lanes) +
            "-up stream by the pool's horizontal stride 2 (the lane count must be even)");
  }
  expectError([&] { RepackFifo r({.lanes = 4, .width = 10, .rows = 2, .channels = 1}, 0); },
              ErrorKind::Config, "outLanes",
              "'outLanes': repack to 0-up: outLanes must be at least 1");
}

} // namespace
} // namespace nnaccel::arch::stream::patent
