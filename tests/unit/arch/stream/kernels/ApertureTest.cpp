/// \file
/// Tests of the everted 2-D aperture engine (Aperture.h): the digest's two 3x4 worked vectors
/// (values and emit steps), two streams of the digest's Python cycle model, randomized
/// bit-exactness against a direct "same" correlation over odd, even and degenerate kernels,
/// anchors, channel counts and array sizes (three frames back to back, input pauses, post-step
/// gaps between frames, a finalizer), the compositor class table, the delay-line sizes and
/// latencies of digest §4.4/§9, the control flags, and every constructor error.
#include "nnaccel/arch/stream/Aperture.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <random>
#include <set>
#include <string>

namespace nnaccel::arch::stream {
namespace {

size_t at(int64_t i) {
  return static_cast<size_t>(i);
}

/// Direct correlation with "same" zero padding on a position-major frame:
/// out(i, j, oc) = bias[oc] + sum w[oc][ic][m][n] * in(i - ay + m, j - ax + n, ic).
std::vector<Value> referenceCorrelation(const std::vector<Value>& frame, const FrameShape& shape,
                                        const ApertureKernel& k) {
  const int64_t M = k.kernelRows, N = k.kernelCols;
  const int64_t ay = k.anchorRow < 0 ? M / 2 : k.anchorRow;
  const int64_t ax = k.anchorCol < 0 ? N / 2 : k.anchorCol;
  std::vector<Value> out(at(shape.positions() * k.outChannels));
  for (int64_t i = 0; i < shape.rows; ++i) {
    for (int64_t j = 0; j < shape.cols; ++j) {
      for (int64_t oc = 0; oc < k.outChannels; ++oc) {
        Value sum = k.bias.empty() ? 0 : k.bias[at(oc)];
        for (int64_t ic = 0; ic < k.inChannels; ++ic) {
          for (int64_t m = 0; m < M; ++m) {
            for (int64_t n = 0; n < N; ++n) {
              const int64_t r = i - ay + m, c = j - ax + n;
              if (r >= 0 && r < shape.rows && c >= 0 && c < shape.cols) {
                sum += k.weights[at(((oc * k.inChannels + ic) * M + m) * N + n)] *
                       frame[at((r * shape.cols + c) * shape.channels + ic)];
              }
            }
          }
        }
        out[at((i * shape.cols + j) * k.outChannels + oc)] = sum;
      }
    }
  }
  return out;
}

struct Shape {
  int64_t M, N, R, C, inChannels = 1, outChannels = 1, ay = -1, ax = -1;
};

std::string describe(const Shape& s) {
  return std::to_string(s.M) + "x" + std::to_string(s.N) + " kernel (anchor " +
         std::to_string(s.ay) + "," + std::to_string(s.ax) + ") on " + std::to_string(s.R) + "x" +
         std::to_string(s.C) + ", " + std::to_string(s.inChannels) + "->" +
         std::to_string(s.outChannels) + " channels";
}

ApertureKernel randomKernel(const Shape& s, std::mt19937& rng) {
  std::uniform_int_distribution<Value> weight(-5, 5), bias(-20, 20);
  ApertureKernel k{s.M, s.N, s.inChannels, s.outChannels, s.ay, s.ax, {}, {}};
  for (int64_t i = 0; i < s.M * s.N * s.inChannels * s.outChannels; ++i) {
    k.weights.push_back(weight(rng));
  }
  for (int64_t oc = 0; oc < s.outChannels; ++oc) {
    k.bias.push_back(bias(rng));
  }
  return k;
}

/// Frames of int8-like values, about a quarter of them zero (the engine skips zero inputs).
std::vector<std::vector<Value>> randomFrames(const FrameShape& shape, int64_t count,
                                             std::mt19937& rng) {
  std::uniform_int_distribution<Value> value(-9, 9), zero(0, 3);
  std::vector<std::vector<Value>> frames(at(count));
  for (auto& f : frames) {
    for (int64_t v = 0; v < shape.values(); ++v) {
      f.push_back(zero(rng) == 0 ? 0 : value(rng));
    }
  }
  return frames;
}

std::vector<Value> expectedStream(const std::vector<std::vector<Value>>& frames,
                                  const FrameShape& shape, const ApertureKernel& k,
                                  const Finalizer& finalize = {}) {
  std::vector<Value> all;
  for (const auto& f : frames) {
    std::vector<Value> ref = referenceCorrelation(f, shape, k);
    for (size_t p = 0; finalize && p < ref.size(); p += at(k.outChannels)) {
      finalize(std::span<Value>(ref.data() + p, at(k.outChannels)));
    }
    all.insert(all.end(), ref.begin(), ref.end());
  }
  return all;
}

/// Output position p (over all frames) leaves at step p + Lat: no gaps, also across frames.
void expectUnbrokenStream(const StreamTrace& trace, int64_t latency) {
  for (size_t p = 0; p < trace.emitStep.size(); ++p) {
    ASSERT_EQ(trace.emitStep[p], static_cast<int64_t>(p) + latency) << "output position " << p;
  }
  EXPECT_EQ(trace.postSteps, latency);
}

// --- The digest's worked vectors (§4.5) -------------------------------------------------------

const std::vector<Value> kDigestInput = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};

void expectDigestVector(const std::vector<Value>& weights, Value bias,
                        const std::vector<Value>& expected) {
  EvertedConv conv({3, 4, 1}, ApertureKernel{3, 3, 1, 1, -1, -1, weights, {bias}});
  EXPECT_EQ(conv.latencyPositions(), 5);
  const std::vector<std::vector<Value>> frames = {kDigestInput};
  const StreamTrace trace = runFrames(conv, frames);
  EXPECT_EQ(trace.values, expected);
  ASSERT_EQ(trace.emitStep.size(), 12u);
  for (size_t p = 0; p < 12; ++p) {
    EXPECT_EQ(trace.emitStep[p], static_cast<int64_t>(p) + 5); // steps 5..16
  }
  EXPECT_EQ(trace.postSteps, 5);
}

TEST(EvertedConv, DigestVectorOnesKernel) {
  expectDigestVector(std::vector<Value>(9, 1), 0, {14, 24, 30, 22, 33, 54, 63, 45, 30, 48, 54, 38});
}

TEST(EvertedConv, DigestVectorWeightedKernelWithBias) {
  expectDigestVector({1, 2, 3, 4, 5, 6, 7, 8, 9}, 10,
                     {121, 188, 227, 155, 241, 358, 403, 262, 143, 200, 221, 137});
}

TEST(EvertedConv, DigestVectorControlFlagsStepByStep) {
  // Steps 0..11 accept the frame; 12..16 are post steps (POSTEN, rows continue at 3). Output
  // (i, j) leaves at step 4i + j + 5; row 2 (the bottom truncated row) from the 909 line.
  EvertedConv conv({3, 4, 1}, ApertureKernel{3, 3, 1, 1, -1, -1, std::vector<Value>(9, 1), {}});
  std::vector<Value> out;
  for (int64_t t = 0; t < 17; ++t) {
    const Value a = t < 12 ? kDigestInput[at(t)] : 0;
    const int64_t emitted =
        t < 12 ? conv.step(std::span<const Value>(&a, 1), out) : conv.step({}, out);
    const Control& c = conv.lastControl();
    EXPECT_EQ(c.srcEn, t < 12);
    EXPECT_EQ(c.postEn, t >= 12);
    EXPECT_EQ(c.row, t / 4);
    EXPECT_EQ(c.col, t % 4);
    EXPECT_EQ(c.rowFirst, t < 4);
    EXPECT_EQ(c.rowLast, t >= 8 && t < 12);
    EXPECT_EQ(c.colFirst, t % 4 == 0);
    EXPECT_EQ(c.colLast, t % 4 == 3);
    const DestinationFlags& d = conv.lastDestination();
    EXPECT_EQ(emitted, t >= 5 ? 1 : 0);
    EXPECT_EQ(d.dstEn, t >= 5);
    if (t >= 5) {
      EXPECT_EQ(d.row, (t - 5) / 4);
      EXPECT_EQ(d.col, (t - 5) % 4);
      EXPECT_EQ(d.frame, 0);
      EXPECT_EQ(d.truncated, t >= 13);
    }
  }
  EXPECT_EQ(out, (std::vector<Value>{14, 24, 30, 22, 33, 54, 63, 45, 30, 48, 54, 38}));
}

// --- Cross-check with the digest's Python cycle model -----------------------------------------

TEST(EvertedConv, MatchesThePythonCycleModelStream) {
  // evert_sim_002.py everted_stream([A, B], W, 4, ay, ax, ...): the values of its output
  // stream from its first output step (L) on, for a 2x3 kernel with two anchors.
  const std::vector<Value> a = {3, -1, 4, 1, -5, 9, 2, -6, 5, 3, 5, 8, -9, 7, 9, 3, -2, 3, 8, 4};
  const std::vector<Value> b = {-1, 2, 0, 3, 1, 4, -4, 2, 1, 0, 2, 7, 1, -8, 2, 8, 1, 8, 2, -8};
  const std::vector<Value> w = {2, -1, 3, 1, 0, -2};
  struct Vector {
    int64_t ay, ax, latency;
    std::vector<Value> stream;
  };
  const std::vector<Vector> vectors = {
      {0, 2, 5, {-5, -6, 44, -7, -16, 21,  -15, 25, 23, -31, 13, 27, -24, 32,
                 1,  13, -5, 21, 21,  14,  -7,  19, 0,  11,  6,  12, -26, 22,
                 20, 4,  -6, 21, -4,  -10, 44,  28, -1, 43,  4,  -6}},
      {1, 0, 2, {-1, 1, 18, 5, -1, 44, -7, -16, 16, -3, 25, 23, -31, 18, 19, -24, 32,  1,  17,  26,
                 3,  0, 2,  7, 5,  0,  11, 6,   10, 6,  22, 20, 4,   -2, 6,  -4,  -10, 44, -12, 0}},
  };
  for (const Vector& v : vectors) {
    EvertedConv conv({4, 5, 1}, ApertureKernel{2, 3, 1, 1, v.ay, v.ax, w, {4}});
    EXPECT_EQ(conv.latencyPositions(), v.latency);
    const std::vector<std::vector<Value>> frames = {a, b};
    const StreamTrace trace = runFrames(conv, frames);
    EXPECT_EQ(trace.values, v.stream) << "anchor " << v.ay << "," << v.ax;
    expectUnbrokenStream(trace, v.latency);
  }
}

// --- Randomized bit-exactness -----------------------------------------------------------------

const std::vector<Shape> kShapes = {
    {1, 1, 4, 5, 2, 3}, {1, 3, 3, 3, 1, 2},   {2, 2, 5, 6, 2, 2},  {2, 5, 4, 5, 1, 1},
    {3, 3, 6, 7, 3, 4}, {3, 3, 1, 3, 2, 1},   {4, 4, 6, 8, 1, 2},  {5, 5, 8, 10, 2, 2},
    {5, 5, 2, 5, 1, 1}, {5, 5, 1, 6, 1, 1},   {7, 7, 9, 12, 1, 1}, {7, 7, 3, 7, 2, 1},
    {3, 7, 5, 9, 1, 3}, {9, 9, 10, 11, 1, 2}, {9, 9, 2, 9, 1, 1},  {3, 2, 7, 9, 1, 1},
    {2, 3, 7, 9, 1, 1}, {6, 6, 9, 12, 1, 1},  {4, 5, 3, 5, 2, 1},  {1, 5, 3, 6, 1, 1},
    {5, 1, 6, 2, 1, 1}, {3, 3, 4, 4, 8, 5},   {2, 1, 3, 1, 1, 1},
};

TEST(EvertedConv, RandomShapesThreeFramesBackToBackAreBitExact) {
  std::mt19937 rng(2024);
  for (const Shape& s : kShapes) {
    SCOPED_TRACE(describe(s));
    const FrameShape shape{s.R, s.C, s.inChannels};
    const ApertureKernel kernel = randomKernel(s, rng);
    const auto frames = randomFrames(shape, 3, rng);
    EvertedConv conv(shape, kernel);
    EXPECT_EQ(conv.outputShape(), (FrameShape{s.R, s.C, s.outChannels}));
    const StreamTrace trace = runFrames(conv, frames);
    EXPECT_EQ(trace.values, expectedStream(frames, shape, kernel));
    expectUnbrokenStream(trace, conv.latencyPositions());
  }
}

TEST(EvertedConv, EveryAnchorIsBitExact) {
  std::mt19937 rng(7);
  for (const Shape& base :
       std::vector<Shape>{{3, 3, 6, 7}, {4, 4, 7, 8}, {2, 3, 5, 4}, {3, 5, 2, 6}}) {
    for (int64_t ay = 0; ay < base.M; ++ay) {
      for (int64_t ax = 0; ax < base.N; ++ax) {
        Shape s = base;
        s.ay = ay;
        s.ax = ax;
        s.outChannels = 2;
        SCOPED_TRACE(describe(s));
        const FrameShape shape{s.R, s.C, 1};
        const ApertureKernel kernel = randomKernel(s, rng);
        const auto frames = randomFrames(shape, 3, rng);
        EvertedConv conv(shape, kernel);
        EXPECT_EQ(conv.latencyPositions(), (s.M - 1 - ay) * s.C + (s.N - 1 - ax));
        const StreamTrace trace = runFrames(conv, frames);
        EXPECT_EQ(trace.values, expectedStream(frames, shape, kernel));
        expectUnbrokenStream(trace, conv.latencyPositions());
      }
    }
  }
}

TEST(EvertedConv, InputPausesChangeCyclesNotValuesOrSteps) {
  std::mt19937 rng(99);
  std::bernoulli_distribution high(0.6);
  for (const Shape& s : std::vector<Shape>{{3, 3, 5, 6, 2, 3}, {4, 4, 6, 7, 1, 2}, {5, 5, 3, 5}}) {
    SCOPED_TRACE(describe(s));
    const FrameShape shape{s.R, s.C, s.inChannels};
    const ApertureKernel kernel = randomKernel(s, rng);
    const auto frames = randomFrames(shape, 3, rng);
    RunOptions options;
    for (int i = 0; i < 37; ++i) {
      options.validPattern.push_back(i == 0 || high(rng));
    }
    EvertedConv steady(shape, kernel), paused(shape, kernel);
    const StreamTrace a = runFrames(steady, frames);
    const StreamTrace b = runFrames(paused, frames, options);
    EXPECT_EQ(b.values, a.values);
    EXPECT_EQ(b.values, expectedStream(frames, shape, kernel));
    EXPECT_EQ(b.emitStep, a.emitStep);
    EXPECT_EQ(a.emitCycle, a.emitStep);
    EXPECT_NE(b.emitCycle, a.emitCycle);
    for (size_t p = 0; p < b.emitCycle.size(); ++p) {
      EXPECT_GE(b.emitCycle[p], b.emitStep[p]);
      if (p > 0) {
        EXPECT_GT(b.emitCycle[p], b.emitCycle[p - 1]);
      }
    }
  }
}

TEST(EvertedConv, PostStepGapsBetweenFramesKeepEveryFrameExact) {
  // A new frame may start any number of post steps after the last one (the source counters
  // allow it); output position p of a frame still leaves Lat steps after its input.
  std::mt19937 rng(5);
  for (const Shape& s :
       std::vector<Shape>{{5, 5, 6, 7, 1, 2}, {4, 4, 5, 6}, {5, 5, 1, 6}, {3, 2, 2, 4}}) {
    const FrameShape shape{s.R, s.C, s.inChannels};
    const ApertureKernel kernel = randomKernel(s, rng);
    EvertedConv probe(shape, kernel);
    const int64_t lat = probe.latencyPositions();
    for (int64_t gap : {int64_t{1}, int64_t{2}, int64_t{3}, s.C - 1, s.C + 1, lat, lat + 3}) {
      SCOPED_TRACE(describe(s) + ", gap " + std::to_string(gap));
      const auto frames = randomFrames(shape, 3, rng);
      EvertedConv conv(shape, kernel);
      std::vector<Value> out;
      std::vector<int64_t> inputStep, emitStep;
      int64_t t = 0;
      auto record = [&](int64_t emitted) { emitStep.insert(emitStep.end(), at(emitted), t++); };
      for (size_t f = 0; f < frames.size(); ++f) {
        for (int64_t q = 0; f > 0 && q < gap; ++q) {
          record(conv.step({}, out));
        }
        for (int64_t p = 0; p < shape.positions(); ++p) {
          inputStep.push_back(t);
          record(conv.step(
              std::span<const Value>(frames[f].data() + p * s.inChannels, at(s.inChannels)), out));
        }
      }
      while (emitStep.size() < inputStep.size()) {
        record(conv.step({}, out));
      }
      EXPECT_EQ(out, expectedStream(frames, shape, kernel));
      for (size_t p = 0; p < inputStep.size(); ++p) {
        ASSERT_EQ(emitStep[p], inputStep[p] + lat) << "output position " << p;
      }
    }
  }
}

TEST(EvertedConv, FinalizerAppliesReluToEveryOutputIncludingTruncatedRows) {
  std::mt19937 rng(11);
  const Finalizer relu = [](std::span<Value> sums) {
    for (Value& v : sums) {
      v = std::max<Value>(v, 0);
    }
  };
  for (const Shape& s : std::vector<Shape>{{3, 3, 5, 6, 2, 3}, {5, 5, 6, 5, 1, 2}}) {
    SCOPED_TRACE(describe(s));
    const FrameShape shape{s.R, s.C, s.inChannels};
    const ApertureKernel kernel = randomKernel(s, rng);
    const auto frames = randomFrames(shape, 3, rng);
    EvertedConv conv(shape, kernel, relu);
    const StreamTrace trace = runFrames(conv, frames);
    const std::vector<Value> expected = expectedStream(frames, shape, kernel, relu);
    EXPECT_EQ(trace.values, expected);
    EXPECT_NE(expected, expectedStream(frames, shape, kernel)); // ReLU did clip something
  }
}

// --- Structure: compositor classes, delay lines, latency --------------------------------------

/// The figure label of compositor (m, n): class number plus a letter per column of the class.
std::string label(int64_t M, int64_t N, int64_t m, int64_t n) {
  const int64_t ay = M / 2, ax = N / 2;
  const CompositorClass k = compositorClass(M, N, ay, ax, m, n);
  const std::string number = std::to_string(901 + static_cast<int>(k));
  switch (k) {
  case CompositorClass::C901:
  case CompositorClass::C904:
  case CompositorClass::C906:
    return number;
  case CompositorClass::C903:
    return number + static_cast<char>('a' + (n - ax - 1));
  default:
    return number + static_cast<char>('a' + (n - 1));
  }
}

TEST(CompositorClass, FiveByFiveHasTheElevenLabelsOfFig15) {
  const std::vector<std::vector<std::string>> expected = {{"901", "902a", "902b", "903a", "903b"},
                                                          {"904", "905a", "905b", "903a", "903b"},
                                                          {"904", "905a", "905b", "903a", "903b"},
                                                          {"906", "907a", "907b", "903a", "903b"},
                                                          {"906", "907a", "907b", "903a", "903b"}};
  std::set<std::string> labels;
  for (int64_t m = 0; m < 5; ++m) {
    for (int64_t n = 0; n < 5; ++n) {
      EXPECT_EQ(label(5, 5, m, n), expected[at(m)][at(n)]) << m << "," << n;
      labels.insert(label(5, 5, m, n));
    }
  }
  EXPECT_EQ(labels.size(), 11u);
}

TEST(CompositorClass, SevenBySevenGeneralFigureAndDegenerateSizes) {
  std::set<std::string> labels;
  for (int64_t m = 0; m < 7; ++m) {
    for (int64_t n = 0; n < 7; ++n) {
      labels.insert(label(7, 7, m, n));
    }
  }
  // 901, 902a-c, 903a-c, 904, 905a-c, 906, 907a-c (Figs. 9A-C).
  EXPECT_EQ(labels,
            (std::set<std::string>{"901", "902a", "902b", "902c", "903a", "903b", "903c", "904",
                                   "905a", "905b", "905c", "906", "907a", "907b", "907c"}));
  EXPECT_EQ(label(7, 7, 6, 6), "903c"); // the final output compositor: left only
  // Size 1 merges the first and last compositor; size 2 keeps the first and last.
  EXPECT_EQ(compositorClass(1, 1, 0, 0, 0, 0), CompositorClass::C901);
  EXPECT_EQ(compositorClass(1, 3, 0, 1, 0, 1), CompositorClass::C902);
  EXPECT_EQ(compositorClass(1, 3, 0, 1, 0, 2), CompositorClass::C903);
  EXPECT_EQ(compositorClass(3, 1, 1, 0, 1, 0), CompositorClass::C904);
  EXPECT_EQ(compositorClass(3, 1, 1, 0, 2, 0), CompositorClass::C906);
  EXPECT_EQ(compositorClass(2, 2, 1, 1, 1, 1), CompositorClass::C905);
  EXPECT_EQ(compositorClass(4, 4, 2, 2, 3, 1), CompositorClass::C907);
  EXPECT_EQ(compositorClass(4, 4, 2, 2, 3, 3), CompositorClass::C903);
}

TEST(CompositorClass, RejectsAnAnchorOrCompositorOutsideTheKernel) {
  auto expectConfig = [](auto action, const std::string& message) {
    try {
      action();
      ADD_FAILURE() << "no error, expected: " << message;
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::Config);
      EXPECT_EQ(std::string(e.what()), message);
    }
  };
  expectConfig([] { compositorClass(3, 3, 3, 1, 0, 0); },
               "kernel anchor (3, 1) is outside the 3x3 kernel");
  expectConfig([] { compositorClass(3, 3, 1, 1, 0, 3); },
               "compositor (0, 3) is outside the 3x3 kernel");
  expectConfig([] { compositorClass(0, 3, 0, 1, 0, 0); }, "kernel size 0x3 must be at least 1x1");
}

EvertedConv onesKernel(int64_t M, int64_t N, int64_t R, int64_t C, int64_t outChannels = 1) {
  return EvertedConv(
      {R, C, 1},
      ApertureKernel{
          M, N, 1, outChannels, -1, -1, std::vector<Value>(at(M * N * outChannels), 1), {}});
}

TEST(EvertedConv, LatencyAndDelayLinesFollowDigestSection4) {
  const int64_t C = 10;
  EXPECT_EQ(onesKernel(3, 3, 6, C).latencyPositions(), C + 1);
  EXPECT_EQ(onesKernel(5, 5, 6, C).latencyPositions(), 2 * C + 2);
  EXPECT_EQ(onesKernel(7, 7, 6, C).latencyPositions(), 3 * C + 3);
  // Follows digest erratum §12/§4.7: the right overhang is K = N-1-ax ("colSrc < [N/2]" is
  // exact only for odd N), and the bottom overhang M-1-ay ("M-[M/2]" rows means a ceiling).
  EXPECT_EQ(onesKernel(4, 4, 6, C).latencyPositions(), C + 1);
  EXPECT_EQ(onesKernel(1, 1, 6, C).latencyPositions(), 0);
  // Row FIFO: follows digest erratum §12 ("FIFO 1107"): the patent's C-N entries plus the
  // output register delay C-N+1 positions.
  EXPECT_EQ(onesKernel(3, 3, 6, C).rowFifoDelayPositions(), C - 2);
  EXPECT_EQ(onesKernel(3, 3, 6, 3).rowFifoDelayPositions(), 1);
  // Truncated lines: 909 (+ 910a, 910b): M-1-floor(M/2); the 4x4 (Fig. 16) has no 910 line.
  EXPECT_EQ(onesKernel(3, 3, 6, C).truncatedFifoCount(), 1);
  EXPECT_EQ(onesKernel(5, 5, 6, C).truncatedFifoCount(), 2);
  EXPECT_EQ(onesKernel(7, 7, 6, C).truncatedFifoCount(), 3);
  EXPECT_EQ(onesKernel(4, 4, 6, C).truncatedFifoCount(), 1);
  EXPECT_EQ(onesKernel(2, 2, 6, C).truncatedFifoCount(), 0);
}

TEST(EvertedConv, StoredValuesAndMultipliesCountEveryRegisterAndProduct) {
  // 3x3, C = 10, 2 output channels: compositors 9, row FIFOs 2 x (C-N+1 = 8), taps 2 x 1,
  // retain registers 3 x 1, one truncated line of C; all per output channel.
  EXPECT_EQ(onesKernel(3, 3, 6, 10, 2).storedValues(), 2 * (9 + 16 + 2 + 3 + 10));
  // 4x4 (ay = ax = 2): 16 + 3 x 7 + 3 x 2 taps + 4 x 1 retained + 1 x 10.
  EXPECT_EQ(onesKernel(4, 4, 6, 10).storedValues(), 16 + 21 + 6 + 4 + 10);
  EXPECT_EQ(onesKernel(1, 1, 6, 10).storedValues(), 1);
  // 5x5 on RGB: 75 product pathways per output channel (digest §4.1).
  EvertedConv rgb({4, 8, 3}, ApertureKernel{5, 5, 3, 2, -1, -1, std::vector<Value>(150, 1), {}});
  EXPECT_EQ(rgb.multipliesPerPosition(), 150);
}

// --- Errors ---------------------------------------------------------------------------------

void expectConfigError(const FrameShape& shape, const ApertureKernel& kernel,
                       const std::string& message) {
  try {
    EvertedConv conv(shape, kernel);
    ADD_FAILURE() << "no error, expected: " << message;
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Config);
    EXPECT_EQ(std::string(e.what()), message);
  }
}

TEST(EvertedConv, RejectsBadShapesKernelsAndAnchors) {
  const std::vector<Value> nine(9, 1);
  expectConfigError({4, 2, 1}, {3, 3, 1, 1, -1, -1, nine, {}},
                    "array width C=2 is narrower than the kernel width N=3");
  expectConfigError({4, 4, 1}, {3, 3, 1, 1, -1, -1, std::vector<Value>(8, 1), {}},
                    "kernel has 8 weights, expected 1x1x3x3 = 9");
  expectConfigError({4, 4, 1}, {3, 3, 1, 1, -1, -1, nine, {1, 2}},
                    "kernel has 2 bias values, expected 1 (one per output channel)");
  expectConfigError({4, 4, 1}, {3, 3, 1, 1, 1, 3, nine, {}},
                    "kernel anchor (1, 3) is outside the 3x3 kernel");
  expectConfigError({4, 4, 1}, {3, 3, 1, 1, -2, 1, nine, {}},
                    "kernel anchor (-2, 1) is outside the 3x3 kernel");
  expectConfigError({4, 4, 2}, {3, 3, 1, 1, -1, -1, nine, {}},
                    "frame has 2 channels, the kernel expects inChannels=1");
  expectConfigError({4, 4, 1}, {0, 3, 1, 1, -1, -1, {}, {}},
                    "kernel size 0x3 must be at least 1x1");
  expectConfigError({4, 4, 1}, {3, 3, 1, 0, -1, -1, {}, {}},
                    "kernel channels in=1 out=0 must be at least 1");
  expectConfigError({0, 4, 1}, {3, 3, 1, 1, -1, -1, nine, {}}, "frame 0x4 has no positions");
}

TEST(EvertedConv, APositionOfTheWrongWidthIsAnInternalError) {
  EvertedConv conv = onesKernel(3, 3, 4, 4);
  std::vector<Value> out;
  const std::vector<Value> two = {1, 2};
  EXPECT_DEATH(conv.step(two, out), "position of 2 values for 1 channels");
}

} // namespace
} // namespace nnaccel::arch::stream
