/// \file
/// Tests of the stream engine's patch functions (Patch.h): every stage bit-exact against a
/// direct reference written here (whole-frame loops over ONNX geometry), over randomized
/// shapes, frames back to back, input pauses, and the emission steps the header documents;
/// Concat's alignment FIFOs sized from two path latencies (sufficient, and one position less
/// overflows); the lane muxes 4912/4913; one test per configuration error.
#include "nnaccel/arch/stream/Patch.h"

#include <algorithm>
#include <deque>
#include <functional>
#include <gtest/gtest.h>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace nnaccel::arch::stream {
namespace {

using Frames = std::vector<std::vector<Value>>;

Frames randomFrames(std::mt19937& rng, const FrameShape& s, int64_t count, int lo = -128,
                    int hi = 127) {
  std::uniform_int_distribution<int> d(lo, hi);
  Frames frames(static_cast<size_t>(count));
  for (auto& f : frames) {
    f.resize(static_cast<size_t>(s.values()));
    for (auto& v : f) {
      v = d(rng);
    }
  }
  return frames;
}

Value at(const std::vector<Value>& f, const FrameShape& s, int64_t r, int64_t c, int64_t ch) {
  return f[static_cast<size_t>((r * s.cols + c) * s.channels + ch)];
}

/// Rounded division, half away from zero: a stand-in for the int8 per-count requantization.
Value roundDiv(int64_t sum, int64_t count) {
  const int64_t q = (2 * (sum < 0 ? -sum : sum) + count) / (2 * count);
  return static_cast<Value>(sum < 0 ? -q : q);
}

/// Concatenation of the frames' expected outputs.
std::vector<Value>
concatAll(const Frames& frames,
          const std::function<std::vector<Value>(const std::vector<Value>&)>& f) {
  std::vector<Value> all;
  for (const auto& frame : frames) {
    const std::vector<Value> o = f(frame);
    all.insert(all.end(), o.begin(), o.end());
  }
  return all;
}

/// The cycle of each accepted input position under \p pattern (runFrames' rule).
std::vector<int64_t> inputCycles(int64_t inputs, const std::vector<bool>& pattern) {
  std::vector<int64_t> cycles;
  for (int64_t cycle = 0; static_cast<int64_t>(cycles.size()) < inputs; ++cycle) {
    if (pattern.empty() || pattern[static_cast<size_t>(cycle) % pattern.size()]) {
      cycles.push_back(cycle);
    }
  }
  return cycles;
}

template <class F> void expectConfigError(F&& f, const std::string& fragment) {
  try {
    f();
    ADD_FAILURE() << "no error; expected one containing '" << fragment << "'";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Config);
    const std::string message = Error::format(e.context(), e.reason());
    EXPECT_NE(message.find(fragment), std::string::npos) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos);
  }
}

// ---- Pooling reference -------------------------------------------------------------------

struct PoolCase {
  PoolWindow window; // output size resolved by the caller or 0 (floor)
  bool ceilMode = false;
};

/// Direct pooling: loops over each window of the padded array.
std::vector<Value> referencePool(const std::vector<Value>& f, const FrameShape& s,
                                 const PoolWindow& w, bool max, bool countIncludePad,
                                 const AverageFinalizer& fin) {
  std::vector<Value> out;
  for (int64_t oy = 0; oy < w.outRows; ++oy) {
    for (int64_t ox = 0; ox < w.outCols; ++ox) {
      for (int64_t ch = 0; ch < s.channels; ++ch) {
        int64_t best = std::numeric_limits<int64_t>::min(), sum = 0, count = 0, padded = 0;
        for (int64_t m = 0; m < w.kernelRows; ++m) {
          for (int64_t n = 0; n < w.kernelCols; ++n) {
            const int64_t r = oy * w.strideRows - w.padTop + m;
            const int64_t c = ox * w.strideCols - w.padLeft + n;
            if (r < s.rows + w.padBottom && c < s.cols + w.padRight) {
              ++padded; // inside the padded array (r, c >= -pad by construction)
            }
            if (r < 0 || r >= s.rows || c < 0 || c >= s.cols) {
              continue;
            }
            best = std::max<int64_t>(best, at(f, s, r, c, ch));
            sum += at(f, s, r, c, ch);
            ++count;
          }
        }
        EXPECT_GT(count, 0);
        out.push_back(max ? static_cast<Value>(best) : fin(sum, countIncludePad ? padded : count));
      }
    }
  }
  return out;
}

/// Raster index of the window's last in-array input.
int64_t referenceLastInput(const FrameShape& s, const PoolWindow& w, int64_t oy, int64_t ox) {
  const int64_t r = std::min(s.rows - 1, oy * w.strideRows - w.padTop + w.kernelRows - 1);
  const int64_t c = std::min(s.cols - 1, ox * w.strideCols - w.padLeft + w.kernelCols - 1);
  return r * s.cols + c;
}

PoolWindow window(int64_t k, int64_t s, int64_t pad) {
  return PoolWindow{k, k, s, s, pad, pad, pad, pad, 0, 0};
}

TEST(PatchPool, OutputSizesFollowOnnx) {
  EXPECT_EQ(poolOutputSize(32, 2, 2, 0, 0, false), 16);
  EXPECT_EQ(poolOutputSize(5, 2, 2, 0, 0, false), 2);
  EXPECT_EQ(poolOutputSize(5, 2, 2, 0, 0, true), 3);
  EXPECT_EQ(poolOutputSize(6, 3, 2, 1, 1, false), 3);
  EXPECT_EQ(poolOutputSize(6, 3, 2, 1, 1, true), 4);
  EXPECT_EQ(poolOutputSize(5, 3, 1, 1, 1, false), 5);
  // ceil mode drops a last window that would start in the trailing padding
  EXPECT_EQ(poolOutputSize(4, 2, 2, 0, 1, true), 2);
}

/// Every pooling case over random shapes, Max and both Average divisors, 3 frames back to back,
/// with and without input pauses: values bit-exact, and every output emitted at the step of its
/// window's last in-array input (raster order permitting: a prefix maximum).
TEST(PatchPool, RandomizedMatchesReference) {
  std::mt19937 rng(2024);
  const std::vector<PoolCase> cases = {
      {window(2, 2, 0)},
      {window(3, 2, 1)},
      {window(3, 1, 1)},
      {window(2, 1, 0)},
      {PoolWindow{3, 2, 2, 1, 1, 0, 0, 1, 0, 0}}, // odd kernel/stride/pads per axis
      {PoolWindow{1, 3, 1, 2, 0, 2, 0, 1, 0, 0}},
      {PoolWindow{3, 3, 3, 3, 0, 0, 0, 0, 0, 0}},
      {PoolWindow{2, 2, 3, 3, 0, 0, 0, 0, 0, 0}}, // stride > kernel: skipped inputs
      {window(2, 2, 0), true},                    // ceil mode on odd sizes
      {window(3, 2, 1), true},
      {PoolWindow{3, 3, 2, 2, 0, 0, 1, 1, 0, 0}, true},
  };
  const std::vector<std::vector<bool>> patterns = {{}, {true, false, true, true, false}};
  const AverageFinalizer fin = roundDiv;
  int64_t checked = 0;
  for (const PoolCase& pc : cases) {
    for (int trial = 0; trial < 6; ++trial) {
      const FrameShape s{std::uniform_int_distribution<int64_t>(1, 9)(rng),
                         std::uniform_int_distribution<int64_t>(1, 9)(rng),
                         std::uniform_int_distribution<int64_t>(1, 3)(rng)};
      PoolWindow w = pc.window;
      if (s.rows + w.padTop + w.padBottom < w.kernelRows ||
          s.cols + w.padLeft + w.padRight < w.kernelCols) {
        continue;
      }
      w.outRows =
          poolOutputSize(s.rows, w.kernelRows, w.strideRows, w.padTop, w.padBottom, pc.ceilMode);
      w.outCols =
          poolOutputSize(s.cols, w.kernelCols, w.strideCols, w.padLeft, w.padRight, pc.ceilMode);
      const Frames frames = randomFrames(rng, s, 3);
      for (int variant = 0; variant < 3; ++variant) {
        const bool max = variant == 0, includePad = variant == 2;
        PatchPool pool = max ? PatchPool::max(s, w) : PatchPool::average(s, w, fin, includePad);
        ASSERT_EQ(pool.outputShape(), (FrameShape{w.outRows, w.outCols, s.channels}));
        const auto& pattern = patterns[static_cast<size_t>(variant % 2)];
        const StreamTrace t = runFrames(pool, frames, RunOptions{pattern, -1});
        ASSERT_EQ(t.values, concatAll(frames,
                                      [&](const std::vector<Value>& f) {
                                        return referencePool(f, s, w, max, includePad, fin);
                                      }))
            << "case " << checked << " shape " << s.rows << "x" << s.cols << "x" << s.channels;
        EXPECT_EQ(t.postSteps, 0);
        const std::vector<int64_t> cycles = inputCycles(3 * s.positions(), pattern);
        size_t i = 0;
        for (int64_t f = 0; f < 3; ++f) {
          int64_t prefix = -1;
          for (int64_t oy = 0; oy < w.outRows; ++oy) {
            for (int64_t ox = 0; ox < w.outCols; ++ox, ++i) {
              prefix = std::max(prefix, referenceLastInput(s, w, oy, ox));
              EXPECT_EQ(pool.emitInputIndex(oy, ox), referenceLastInput(s, w, oy, ox));
              EXPECT_EQ(t.emitStep[i], f * s.positions() + prefix);
              EXPECT_EQ(t.emitCycle[i], cycles[static_cast<size_t>(f * s.positions() + prefix)]);
            }
          }
        }
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 150);
}

/// MaxPool 2x2 stride 2 (Fig. 24, 4908): output (oy, ox) leaves in the step of input
/// (2oy+1, 2ox+1), and only one row of per-column maxima is stored (Fig. 50's row FIFO).
TEST(PatchPool, MaxPool2x2EmitsAtWindowsLastInput) {
  const FrameShape s{4, 6, 2};
  PatchPool pool = PatchPool::max(s, window(2, 2, 0));
  EXPECT_EQ(pool.outputShape(), (FrameShape{2, 3, 2}));
  EXPECT_EQ(pool.openRows(), 1);
  EXPECT_EQ(pool.storedValues(), 1 * 3 * 2);
  std::vector<Value> frame(static_cast<size_t>(s.values()));
  for (size_t i = 0; i < frame.size(); ++i) {
    frame[i] = static_cast<Value>((i * 37) % 101) - 50;
  }
  const Frames frames = {frame, frame};
  const std::vector<bool> pattern = {true, false, false};
  const StreamTrace t = runFrames(pool, frames, RunOptions{pattern, -1});
  ASSERT_EQ(t.emitStep.size(), 12u);
  for (int64_t f = 0; f < 2; ++f) {
    for (int64_t oy = 0; oy < 2; ++oy) {
      for (int64_t ox = 0; ox < 3; ++ox) {
        const auto i = static_cast<size_t>(f * 6 + oy * 3 + ox);
        const int64_t step = f * 24 + (2 * oy + 1) * 6 + 2 * ox + 1;
        EXPECT_EQ(t.emitStep[i], step);
        EXPECT_EQ(t.emitCycle[i], 3 * step); // one accepted input every third cycle
        for (int64_t ch = 0; ch < 2; ++ch) {
          Value m = std::numeric_limits<Value>::min();
          for (int64_t dy = 0; dy < 2; ++dy) {
            for (int64_t dx = 0; dx < 2; ++dx) {
              m = std::max(m, at(frame, s, 2 * oy + dy, 2 * ox + dx, ch));
            }
          }
          EXPECT_EQ(t.values[i * 2 + static_cast<size_t>(ch)], m);
        }
      }
    }
  }
}

/// Fig. 29: the Average reciprocal depends on how many samples are in the array (corner 4,
/// edge 6, interior 9 for 3x3 "same"); count_include_pad counts the padding; the ceil-mode
/// overhang past the trailing pads never counts (ONNX, quant::averagePoolCounts).
TEST(PatchPool, AverageCountsAreEdgeAware) {
  const FrameShape s{4, 5, 1};
  const AverageFinalizer count = [](int64_t, int64_t n) { return static_cast<Value>(n); };
  PatchPool same = PatchPool::average(s, window(3, 1, 1), count);
  EXPECT_EQ(same.openRows(), 3);
  const std::vector<Value> expected = {4, 6, 6, 6, 4, 6, 9, 9, 9, 6, 6, 9, 9, 9, 6, 4, 6, 6, 6, 4};
  const Frames frames = {std::vector<Value>(20, 1)};
  EXPECT_EQ(runFrames(same, frames).values, expected);
  PatchPool padded = PatchPool::average(s, window(3, 1, 1), count, true);
  EXPECT_EQ(runFrames(padded, frames).values, std::vector<Value>(20, 9));

  const FrameShape odd{5, 5, 1};
  PoolWindow ceil = window(2, 2, 0);
  ceil.outRows = ceil.outCols = poolOutputSize(5, 2, 2, 0, 0, true);
  PatchPool overhang = PatchPool::average(odd, ceil, count, true);
  EXPECT_EQ(runFrames(overhang, Frames{std::vector<Value>(25, 1)}).values,
            (std::vector<Value>{4, 4, 2, 4, 4, 2, 2, 2, 1}));
  EXPECT_EQ(overhang.windowCount(2, 2), 1);
  EXPECT_EQ(overhang.windowCount(0, 2), 2);
}

/// The row FIFO depth in output rows: ceil(kernel / stride) where windows overlap.
TEST(PatchPool, StoredValuesCountOpenRows) {
  const FrameShape s{8, 8, 4};
  EXPECT_EQ(PatchPool::max(s, window(2, 2, 0)).storedValues(), 1 * 4 * 4);
  EXPECT_EQ(PatchPool::max(s, window(3, 2, 1)).storedValues(), 2 * 4 * 4);
  EXPECT_EQ(PatchPool::max(s, window(3, 1, 1)).storedValues(), 3 * 8 * 4);
  EXPECT_EQ(PatchPool::max(s, window(2, 3, 0)).storedValues(), 1 * 3 * 4);
}

TEST(PatchPool, BadWindowsThrow) {
  const FrameShape s{6, 6, 2};
  expectConfigError([&] { PatchPool::max(s, window(0, 1, 0)); }, "'MaxPool.kernelRows'");
  expectConfigError(
      [&] {
        PatchPool::max(s, PoolWindow{2, 2, 2, 0, 0, 0, 0, 0, 0, 0});
      },
      "'MaxPool.strideCols': stride 0 must be >= 1");
  expectConfigError([&] { PatchPool::max(s, window(2, 2, -1)); }, "'MaxPool.padsRows'");
  expectConfigError([&] { PatchPool::max(s, window(2, 2, 2)); }, "below the kernel 2");
  PoolWindow tooMany = window(2, 2, 0);
  tooMany.outRows = 4; // window 3 would start at row 6 of 6
  expectConfigError([&] { PatchPool::max(s, tooMany); }, "'MaxPool.outRows': output 3 starts");
  tooMany.outRows = -1;
  expectConfigError([&] { PatchPool::max(s, tooMany); }, "output size -1 is negative");
  expectConfigError(
      [&] {
        PatchPool::max(FrameShape{2, 6, 1}, window(3, 1, 0));
      },
      "kernel 3 larger than the padded input 2");
  expectConfigError(
      [&] {
        PatchPool::average(FrameShape{2, 0, 1}, window(1, 1, 0), roundDiv);
      },
      "'AveragePool.shape': frame 2x0x1");
  expectConfigError([] { poolOutputSize(4, 2, 0, 0, 0, false); }, "stride 0");
}

// ---- Global Average, Dense, Subset, Sample -----------------------------------------------

TEST(GlobalAverage, OnePositionPerFrameAtTheLastInput) {
  std::mt19937 rng(7);
  for (const FrameShape s : {FrameShape{1, 1, 3}, FrameShape{3, 7, 2}, FrameShape{6, 5, 4}}) {
    GlobalAverage avg(s, roundDiv);
    EXPECT_EQ(avg.outputShape(), (FrameShape{1, 1, s.channels}));
    EXPECT_EQ(avg.storedValues(), s.channels);
    const Frames frames = randomFrames(rng, s, 3);
    const StreamTrace t = runFrames(avg, frames, RunOptions{{true, false}, -1});
    EXPECT_EQ(t.values, concatAll(frames, [&](const std::vector<Value>& f) {
                std::vector<Value> o;
                for (int64_t ch = 0; ch < s.channels; ++ch) {
                  int64_t sum = 0;
                  for (int64_t p = 0; p < s.positions(); ++p) {
                    sum += at(f, s, p / s.cols, p % s.cols, ch);
                  }
                  o.push_back(roundDiv(sum, s.positions()));
                }
                return o;
              }));
    EXPECT_EQ(t.emitStep, (std::vector<int64_t>{s.positions() - 1, 2 * s.positions() - 1,
                                                3 * s.positions() - 1}));
  }
}

TEST(Dense, MatchesReferenceWithFinalizer) {
  std::mt19937 rng(11);
  const FrameShape s{3, 4, 5};
  const int64_t outputs = 7;
  std::uniform_int_distribution<int> d(-128, 127);
  std::vector<Value> w(static_cast<size_t>(outputs * s.values())), bias(outputs);
  for (auto& v : w) {
    v = d(rng);
  }
  for (auto& v : bias) {
    v = d(rng) * 100;
  }
  const DenseFinalizer relu = [](std::span<Value> v) {
    for (Value& x : v) {
      x = std::max(x, 0) >> 4;
    }
  };
  Dense dense(s, outputs, w, bias, relu);
  EXPECT_EQ(dense.outputShape(), (FrameShape{1, 1, outputs}));
  EXPECT_EQ(dense.storedValues(), outputs);
  EXPECT_EQ(dense.weightStoreValues(), outputs * s.values());
  const Frames frames = randomFrames(rng, s, 2);
  const StreamTrace t = runFrames(dense, frames, RunOptions{{false, true}, -1});
  EXPECT_EQ(t.values, concatAll(frames, [&](const std::vector<Value>& f) {
              std::vector<Value> o;
              for (int64_t k = 0; k < outputs; ++k) {
                int64_t sum = bias[static_cast<size_t>(k)];
                for (int64_t i = 0; i < s.values(); ++i) {
                  sum += int64_t{w[static_cast<size_t>(k * s.values() + i)]} *
                         f[static_cast<size_t>(i)];
                }
                o.push_back(static_cast<Value>(std::max<int64_t>(sum, 0) >> 4));
              }
              return o;
            }));
  EXPECT_EQ(t.emitStep, (std::vector<int64_t>{11, 23}));
  // without a finalizer the raw sums (bias included) leave
  Dense raw(FrameShape{1, 2, 1}, 1, std::vector<Value>{3, -2}, std::vector<Value>{5});
  EXPECT_EQ(runFrames(raw, Frames{{10, 4}}).values, std::vector<Value>{27});
}

TEST(Dense, BadStoresThrow) {
  const FrameShape s{2, 2, 3};
  expectConfigError([&] { Dense(s, 2, std::vector<Value>(23), std::vector<Value>(2)); },
                    "'Dense.weights': 23 weights for 2 outputs x 4 positions x 3 channels");
  expectConfigError([&] { Dense(s, 2, std::vector<Value>(24), std::vector<Value>(3)); },
                    "'Dense.bias': 3 biases for 2 outputs");
  expectConfigError([&] { Dense(s, 0, std::vector<Value>{}, std::vector<Value>{}); },
                    "'Dense.shape'");
}

TEST(Subset, SelectsChannelsInTheSameStep) {
  std::mt19937 rng(3);
  const FrameShape s{3, 5, 6};
  Subset subset(s, {4, 0, 4, 5});
  EXPECT_EQ(subset.outputShape(), (FrameShape{3, 5, 4}));
  EXPECT_EQ(subset.storedValues(), 0);
  const Frames frames = randomFrames(rng, s, 2);
  const StreamTrace t = runFrames(subset, frames, RunOptions{{true, false, true}, -1});
  EXPECT_EQ(t.values, concatAll(frames, [&](const std::vector<Value>& f) {
              std::vector<Value> o;
              for (int64_t p = 0; p < s.positions(); ++p) {
                for (int64_t ch : {4, 0, 4, 5}) {
                  o.push_back(at(f, s, p / s.cols, p % s.cols, ch));
                }
              }
              return o;
            }));
  for (size_t i = 0; i < t.emitStep.size(); ++i) {
    EXPECT_EQ(t.emitStep[i], static_cast<int64_t>(i));
  }
  expectConfigError(
      [&] {
        Subset(s, {0, 6});
      },
      "'Subset.channels': channel index 6 out of range for 6 input channels");
  expectConfigError([&] { Subset(s, {-1}); }, "channel index -1 out of range");
  expectConfigError([&] { Subset(s, {}); }, "empty channel selection");
}

TEST(Sample, CropAndStrideMatchReference) {
  std::mt19937 rng(5);
  int64_t checked = 0;
  for (int trial = 0; trial < 40; ++trial) {
    auto pick = [&](int64_t lo, int64_t hi) {
      return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
    };
    const FrameShape s{pick(1, 9), pick(1, 9), pick(1, 3)};
    SampleWindow w{pick(0, s.rows - 1), pick(0, s.cols - 1), pick(1, 3), pick(1, 3), 0, 0};
    const int64_t fitRows = (s.rows - 1 - w.offsetRows) / w.strideRows + 1;
    const int64_t fitCols = (s.cols - 1 - w.offsetCols) / w.strideCols + 1;
    if (trial % 2 == 1) { // an explicit, smaller crop
      w.outRows = pick(1, fitRows);
      w.outCols = pick(1, fitCols);
    }
    Sample sample(s, w);
    const int64_t outRows = w.outRows ? w.outRows : fitRows;
    const int64_t outCols = w.outCols ? w.outCols : fitCols;
    ASSERT_EQ(sample.outputShape(), (FrameShape{outRows, outCols, s.channels}));
    EXPECT_EQ(sample.storedValues(), 0);
    const Frames frames = randomFrames(rng, s, 2);
    const StreamTrace t = runFrames(sample, frames, RunOptions{{true, true, false}, -1});
    std::vector<Value> expected;
    std::vector<int64_t> steps;
    for (int64_t f = 0; f < 2; ++f) {
      for (int64_t i = 0; i < outRows; ++i) {
        for (int64_t j = 0; j < outCols; ++j) {
          const int64_t r = w.offsetRows + w.strideRows * i, c = w.offsetCols + w.strideCols * j;
          for (int64_t ch = 0; ch < s.channels; ++ch) {
            expected.push_back(at(frames[static_cast<size_t>(f)], s, r, c, ch));
          }
          steps.push_back(f * s.positions() + r * s.cols + c);
          EXPECT_EQ(sample.emitInputIndex(i, j), r * s.cols + c);
        }
      }
    }
    ASSERT_EQ(t.values, expected);
    EXPECT_EQ(t.emitStep, steps);
    EXPECT_EQ(t.postSteps, 0);
    ++checked;
  }
  EXPECT_EQ(checked, 40);
}

TEST(Sample, BadCropsThrow) {
  const FrameShape s{5, 6, 1};
  expectConfigError(
      [&] {
        Sample(s, SampleWindow{5, 0, 1, 1, 0, 0});
      },
      "'Sample.offsetRows': crop offset 5 outside the 5 inputs");
  expectConfigError([&] { Sample(s, SampleWindow{0, -1, 1, 1, 0, 0}); }, "'Sample.offsetCols'");
  expectConfigError([&] { Sample(s, SampleWindow{0, 0, 0, 1, 0, 0}); }, "'Sample.strideRows'");
  expectConfigError(
      [&] {
        Sample(s, SampleWindow{1, 1, 2, 2, 3, 2});
      },
      "'Sample.outRows': 3 outputs from offset 1 stride 2 run past the 5 inputs");
  expectConfigError([&] { Sample(s, SampleWindow{0, 0, 1, 1, 0, -2}); }, "'Sample.outCols'");
}

// ---- Expand -------------------------------------------------------------------------------

std::vector<Value> referenceExpand(const std::vector<Value>& f, const FrameShape& s,
                                   const ExpandParams& p) {
  const int64_t rows = s.rows * p.factorRows + p.padTop + p.padBottom;
  const int64_t cols = s.cols * p.factorCols + p.padLeft + p.padRight;
  std::vector<Value> out;
  for (int64_t y = 0; y < rows; ++y) {
    for (int64_t x = 0; x < cols; ++x) {
      const int64_t r = y - p.padTop, c = x - p.padLeft;
      const bool inside =
          r >= 0 && r < s.rows * p.factorRows && c >= 0 && c < s.cols * p.factorCols;
      for (int64_t ch = 0; ch < s.channels; ++ch) {
        out.push_back(inside ? at(f, s, r / p.factorRows, c / p.factorCols, ch) : p.padValue);
      }
    }
  }
  return out;
}

/// 2x2 duplication of a 2x3 frame: the output runs at 4 positions per step; the duplicate row
/// needs the whole input row (Fig. 50: "the FIFO repeats the row vertically"), so the last
/// duplicate row leaves in a post step.
TEST(Expand, DuplicationScheduleIsExact) {
  const FrameShape s{2, 3, 1};
  Expand expand(s, ExpandParams{2, 2, 0, 0, 0, 0, 0, 0});
  EXPECT_EQ(expand.outputShape(), (FrameShape{4, 6, 1}));
  EXPECT_EQ(expand.outputPositionsPerInput(), 4);
  EXPECT_EQ(expand.storedValues(), 2); // after step 2, input (0,0) has left: inputs 1, 2 held
  const StreamTrace t = runFrames(expand, Frames{{1, 2, 3, 4, 5, 6}});
  EXPECT_EQ(t.values, (std::vector<Value>{1, 1, 2, 2, 3, 3, 1, 1, 2, 2, 3, 3,
                                          4, 4, 5, 5, 6, 6, 4, 4, 5, 5, 6, 6}));
  EXPECT_EQ(t.emitStep, (std::vector<int64_t>{0, 0, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3,
                                              4, 4, 4, 4, 5, 5, 5, 5, 6, 6, 6, 6}));
  EXPECT_EQ(t.postSteps, 1);
  EXPECT_EQ(expand.peakHeldPositions(), 2);
}

TEST(Expand, RandomizedPaddingAndDuplication) {
  std::mt19937 rng(13);
  for (int trial = 0; trial < 40; ++trial) {
    auto pick = [&](int64_t lo, int64_t hi) {
      return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
    };
    const FrameShape s{pick(1, 6), pick(1, 6), pick(1, 3)};
    ExpandParams p{pick(1, 3),
                   pick(1, 3),
                   pick(0, 2),
                   pick(0, 2),
                   pick(0, 2),
                   pick(0, 2),
                   static_cast<Value>(pick(-5, 5)),
                   0};
    const int64_t outPositions = (s.rows * p.factorRows + p.padTop + p.padBottom) *
                                 (s.cols * p.factorCols + p.padLeft + p.padRight);
    const int64_t minimum = (outPositions + s.positions() - 1) / s.positions();
    if (trial % 3 == 1) {
      p.outputPositionsPerStep = minimum + pick(0, 3); // a faster output clock than needed
    }
    Expand expand(s, p);
    const FrameShape o = expand.outputShape();
    ASSERT_EQ(o, (FrameShape{s.rows * p.factorRows + p.padTop + p.padBottom,
                             s.cols * p.factorCols + p.padLeft + p.padRight, s.channels}));
    const int64_t rate = expand.outputPositionsPerStep();
    EXPECT_EQ(expand.outputPositionsPerInput(), minimum);
    const Frames frames = randomFrames(rng, s, 3);
    const StreamTrace t = runFrames(expand, frames, RunOptions{{true, false, true}, -1});
    ASSERT_EQ(t.values, concatAll(frames, [&](const std::vector<Value>& f) {
                return referenceExpand(f, s, p);
              }));
    // never more than the output rate per step, never before the frame's source arrived
    std::vector<int64_t> perStep(static_cast<size_t>(t.emitStep.back() + 1), 0);
    for (int64_t step : t.emitStep) {
      ++perStep[static_cast<size_t>(step)];
    }
    EXPECT_LE(*std::max_element(perStep.begin(), perStep.end()), rate);
    for (int64_t f = 0; f < 3; ++f) {
      EXPECT_GE(t.emitStep[static_cast<size_t>(f * o.positions())], f * s.positions());
    }
    EXPECT_LE(expand.peakHeldPositions() * s.channels, expand.storedValues());
    EXPECT_LE(t.postSteps, o.positions());
    if (p.padBottom > 0 && p.outputPositionsPerStep == 0) {
      EXPECT_GT(t.postSteps, 0);
    }
  }
}

/// The dry-run FIFO depth is the peak of a long back-to-back run.
TEST(Expand, DepthToSpaceTakesEachPhasesChannelBlock) {
  // One row of two positions, 8 channels = 2x2 phases of 2 channels (DCR order): output
  // (y, x) of each 2x2 block takes channels [2p, 2p + 2), p = (y mod 2) * 2 + x mod 2.
  ExpandParams p{2, 2, 0, 0, 0, 0, 0, 0};
  p.depthToSpace = true;
  Expand d2s(FrameShape{1, 2, 8}, p);
  EXPECT_EQ(d2s.outputShape(), (FrameShape{2, 4, 2}));
  const StreamTrace t =
      runFrames(d2s, Frames{{0, 1, 2, 3, 4, 5, 6, 7, 10, 11, 12, 13, 14, 15, 16, 17}});
  EXPECT_EQ(t.values, (std::vector<Value>{0, 1, 2, 3, 10, 11, 12, 13, 4, 5, 6, 7, 14, 15, 16, 17}));
  // The schedule is the duplication's.
  Expand dup(FrameShape{1, 2, 2}, ExpandParams{2, 2, 0, 0, 0, 0, 0, 0});
  EXPECT_EQ(runFrames(dup, Frames{{0, 1, 10, 11}}).emitStep, t.emitStep);
  ExpandParams odd = p;
  odd.factorCols = 3;
  EXPECT_THROW(Expand(FrameShape{1, 2, 8}, odd), Error); // 8 channels in 6 phases
}

TEST(Interpolate, DoublingEmitsEachOutputOnceItsTapsHaveArrived) {
  // Half-pixel x2 over 3 inputs per axis, weights in 2^-10: out 0 copies input 0, odd outputs
  // are 3/4 + 1/4 of their neighbours, the last copies input 2.
  InterpolateAxis a{true, {0, 0, 0, 1, 1, 2}, {0, 1, 1, 2, 2, 2}, {0, 256, 768, 256, 768, 0}};
  auto roundShift = [](int64_t sum, int shift) {
    const int64_t half = shift > 0 ? int64_t{1} << (shift - 1) : 0;
    return static_cast<Value>(sum >= 0 ? (sum + half) >> shift : -((-sum + half) >> shift));
  };
  const FrameShape s{3, 3, 2};
  Interpolate up(s, InterpolateParams{a, a, 10, roundShift});
  EXPECT_EQ(up.outputShape(), (FrameShape{6, 6, 2}));
  EXPECT_EQ(up.outputPositionsPerInput(), 4);
  std::mt19937 rng(3);
  const Frames frames = randomFrames(rng, s, 2);
  const StreamTrace t = runFrames(up, frames);
  ASSERT_EQ(t.values.size(), 2u * 36 * 2);
  for (int64_t f = 0; f < 2; ++f)
    for (int64_t y = 0; y < 6; ++y)
      for (int64_t x = 0; x < 6; ++x) {
        const auto oy = static_cast<size_t>(y), ox = static_cast<size_t>(x);
        const int64_t last =
            f * 9 + std::max(a.index0[oy], a.index1[oy]) * 3 + std::max(a.index0[ox], a.index1[ox]);
        const size_t q = static_cast<size_t>((f * 6 + y) * 6 + x);
        EXPECT_GE(t.emitStep[q], last) << "output (" << y << ", " << x << ") before its tap";
        for (int64_t c = 0; c < 2; ++c) {
          int64_t sum = 0;
          for (int i = 0; i < 2; ++i)
            for (int j = 0; j < 2; ++j) {
              const int64_t wy = i ? a.weight1[oy] : 1024 - a.weight1[oy];
              const int64_t wx = j ? a.weight1[ox] : 1024 - a.weight1[ox];
              const int64_t r = i ? a.index1[oy] : a.index0[oy];
              const int64_t col = j ? a.index1[ox] : a.index0[ox];
              sum += wy * wx * at(frames[static_cast<size_t>(f)], s, r, col, c);
            }
          EXPECT_EQ(t.values[q * 2 + static_cast<size_t>(c)], roundShift(sum, 20));
        }
      }
  EXPECT_LE(up.storedValues(), 2 * 3 * 2 + 2); // about two input rows
  InterpolateAxis bad = a;
  bad.index1[5] = 3; // beyond the input
  EXPECT_THROW(Interpolate(s, InterpolateParams{bad, a, 10, roundShift}), Error);
}

TEST(Expand, StoredValuesCoverLongRuns) {
  std::mt19937 rng(17);
  for (const ExpandParams& p :
       {ExpandParams{2, 2, 1, 1, 1, 1, 0, 0}, ExpandParams{3, 1, 0, 2, 2, 0, 0, 0},
        ExpandParams{1, 1, 2, 2, 2, 2, 7, 0}}) {
    const FrameShape s{4, 5, 2};
    Expand expand(s, p);
    const Frames frames = randomFrames(rng, s, 8);
    (void)runFrames(expand, frames);
    EXPECT_EQ(expand.peakHeldPositions() * s.channels, expand.storedValues());
  }
}

TEST(Expand, BadParamsThrow) {
  const FrameShape s{3, 4, 2};
  expectConfigError(
      [&] {
        Expand(s, ExpandParams{0, 1, 0, 0, 0, 0, 0, 0});
      },
      "'Expand.factor': duplication 0x1 must be >= 1");
  expectConfigError(
      [&] {
        Expand(s, ExpandParams{1, 1, 0, -1, 0, 0, 0, 0});
      },
      "'Expand.pads': pads 0,-1,0,0");
  expectConfigError(
      [&] {
        Expand(s, ExpandParams{2, 2, 0, 0, 0, 0, 0, 3});
      },
      "3 positions per step is below the sustainable 4");
}

// ---- Concat -------------------------------------------------------------------------------

/// A path of the stream (an everted convolution as seen by a join): every input position
/// comes out transformed exactly delayPositions steps later, post steps included.
class DelayPath : public StreamStage {
public:
  DelayPath(FrameShape s, int64_t delayPositions, std::function<Value(Value)> f)
      : s_(s), delay_(delayPositions), f_(std::move(f)) {}
  FrameShape inputShape() const override { return s_; }
  FrameShape outputShape() const override { return s_; }
  int64_t step(std::span<const Value> in, std::vector<Value>& out) override {
    pending_.push_back({step_ + delay_, std::vector<Value>(in.begin(), in.end())});
    int64_t n = 0;
    while (!pending_.empty() && pending_.front().first == step_) {
      for (Value v : pending_.front().second) {
        out.push_back(f_(v));
      }
      n += pending_.front().second.empty() ? 0 : 1;
      pending_.pop_front();
    }
    ++step_;
    return n;
  }

private:
  FrameShape s_;
  int64_t delay_;
  std::function<Value(Value)> f_;
  int64_t step_ = 0;
  std::deque<std::pair<int64_t, std::vector<Value>>> pending_;
};

/// Latency of a K x K "same" everted convolution: (K-1-K/2)*C + (K-1-K/2) (digest §9).
int64_t convLatency(int64_t k, int64_t cols) {
  return (k - 1 - k / 2) * cols + (k - 1 - k / 2);
}

/// Feeds \p frames into both paths and the Concat; returns the concatenated stream.
std::vector<Value> runJoin(const FrameShape& sa, const FrameShape& sb, int64_t latencyA,
                           int64_t latencyB, Concat& concat, const Frames& frames,
                           const std::vector<bool>& pattern) {
  DelayPath a(sa, latencyA, [](Value v) { return 2 * v; });
  DelayPath b(sb, latencyB, [](Value v) { return v + 1000; });
  std::vector<Value> out;
  int64_t emitted = 0;
  const int64_t wanted = static_cast<int64_t>(frames.size()) * sa.positions();
  auto join = [&](std::span<const Value> pa, std::span<const Value> pb) {
    std::vector<Value> oa, ob;
    a.step(pa, oa);
    b.step(pb, ob);
    emitted += concat.step(oa, ob, out);
  };
  int64_t cycle = 0;
  for (const auto& f : frames) {
    for (int64_t p = 0; p < sa.positions();) {
      const bool valid = pattern.empty() || pattern[static_cast<size_t>(cycle++) % pattern.size()];
      if (!valid) {
        continue; // SRCEN low: no path advances
      }
      // both paths see the same source position (path B takes its channels from the tail)
      std::span<const Value> src(f.data() + p * sa.channels, static_cast<size_t>(sa.channels));
      join(src, src.last(static_cast<size_t>(sb.channels)));
      ++p;
    }
  }
  for (int64_t post = 0; emitted < wanted; ++post) {
    EXPECT_LT(post, 10 * sa.positions());
    join({}, {});
  }
  return out;
}

/// Fig. 27A / 1706: a 1x1 path and a 3x3 path (and 3x3 vs 5x5) joined; the FIFO sizes from
/// the latency difference suffice, are reached exactly, and the output is aligned position by
/// position over frames back to back with pauses.
TEST(Concat, AlignmentFifosFromPathLatencies) {
  std::mt19937 rng(19);
  const FrameShape sa{5, 7, 3}, sb{5, 7, 2};
  struct Paths {
    int64_t ka, kb;
  };
  for (const Paths& k : {Paths{1, 3}, Paths{5, 3}, Paths{3, 3}, Paths{1, 5}}) {
    const int64_t la = convLatency(k.ka, sa.cols), lb = convLatency(k.kb, sa.cols);
    const Concat::Fifos sizes = Concat::alignmentFifoPositions(la, lb);
    EXPECT_EQ(sizes.a, std::max<int64_t>(0, lb - la));
    EXPECT_EQ(sizes.b, std::max<int64_t>(0, la - lb));
    Concat concat(sa, sb, sizes.a, sizes.b);
    EXPECT_EQ(concat.outputShape(), (FrameShape{5, 7, 5}));
    EXPECT_EQ(concat.storedValues(), sizes.a * 3 + sizes.b * 2);
    const Frames frames = randomFrames(rng, sa, 3);
    const std::vector<Value> out =
        runJoin(sa, sb, la, lb, concat, frames, {true, true, false, true});
    std::vector<Value> expected;
    for (const auto& f : frames) {
      for (int64_t p = 0; p < sa.positions(); ++p) {
        for (int64_t ch = 0; ch < 3; ++ch) {
          expected.push_back(2 * f[static_cast<size_t>(p * 3 + ch)]);
        }
        for (int64_t ch = 1; ch < 3; ++ch) {
          expected.push_back(f[static_cast<size_t>(p * 3 + ch)] + 1000);
        }
      }
    }
    EXPECT_EQ(out, expected);
    EXPECT_EQ(concat.peakOccupancy().a, sizes.a);
    EXPECT_EQ(concat.peakOccupancy().b, sizes.b);
    EXPECT_EQ(concat.occupancy().a + concat.occupancy().b, 0);
  }
}

TEST(ConcatDeathTest, OnePositionLessOverflows) {
  const FrameShape sa{4, 6, 1}, sb{4, 6, 1};
  const int64_t la = convLatency(1, 6), lb = convLatency(3, 6);
  const Concat::Fifos sizes = Concat::alignmentFifoPositions(la, lb);
  ASSERT_EQ(sizes.a, 7);
  std::mt19937 rng(23);
  const Frames frames = randomFrames(rng, sa, 1);
  EXPECT_DEATH(
      {
        Concat concat(sa, sb, sizes.a - 1, 0);
        runJoin(sa, sb, la, lb, concat, frames, {});
      },
      "Concat FIFO A holds 7 positions, sized 6");
  EXPECT_DEATH(
      {
        Concat concat(sb, sa, 0, sizes.a - 1);
        runJoin(sb, sa, lb, la, concat, frames, {});
      },
      "Concat FIFO B holds 7 positions, sized 6");
}

TEST(Concat, BadConfigurationsThrow) {
  expectConfigError(
      [] {
        Concat(FrameShape{4, 5, 1}, FrameShape{4, 6, 1}, 0, 0);
      },
      "'Concat.shape': path frames 4x5 and 4x6 differ");
  expectConfigError(
      [] {
        Concat(FrameShape{4, 5, 1}, FrameShape{4, 5, 1}, -1, 0);
      },
      "'Concat.fifoPositions'");
  expectConfigError([] { Concat::alignmentFifoPositions(-1, 3); }, "'Concat.latency'");
}

// ---- Lane muxes ---------------------------------------------------------------------------

TEST(ConcatMux, LowestLanesOfEach) {
  std::vector<Value> primary(16), aux(16);
  for (int i = 0; i < 16; ++i) {
    primary[static_cast<size_t>(i)] = i;
    aux[static_cast<size_t>(i)] = 100 + i;
  }
  for (int64_t k = 1; k <= 15; ++k) {
    const std::vector<Value> out = concatMux(primary, aux, k);
    ASSERT_EQ(out.size(), 16u);
    for (int64_t lane = 0; lane < 16; ++lane) {
      EXPECT_EQ(out[static_cast<size_t>(lane)], lane < k ? lane : 100 + lane - k);
    }
  }
  expectConfigError([&] { concatMux(primary, aux, 0); }, "'ConcatMux.k': k 0 outside 1..15");
  expectConfigError([&] { concatMux(primary, aux, 16); }, "k 16 outside 1..15");
  expectConfigError([&] { concatMux(primary, std::span<const Value>(aux).first(8), 4); },
                    "'ConcatMux.sets'");
}

TEST(AlternatingMux, InterleavesAndHalvesTheHold) {
  const std::vector<std::vector<Value>> a = {{1, 2}, {3, 4}}, b = {{5, 6}, {7, 8}};
  const AlternatingSets r = alternatingMux(a, b, 4);
  EXPECT_EQ(r.holdCycles, 2);
  EXPECT_EQ(r.sets, (std::vector<std::vector<Value>>{{1, 2}, {5, 6}, {3, 4}, {7, 8}}));
  expectConfigError([&] { alternatingMux(a, b, 1); }, "'AlternatingMux.holdCycles'");
  expectConfigError([&] { alternatingMux(a, b, 3); }, "even hold >= 2");
  expectConfigError([&] { alternatingMux(a, std::span(b).first(1), 2); }, "'AlternatingMux.sets'");
  const std::vector<std::vector<Value>> c = {{1}, {2, 3}};
  expectConfigError([&] { alternatingMux(a, c, 2); }, "set 0 has 2 lanes");
}

} // namespace
} // namespace nnaccel::arch::stream
