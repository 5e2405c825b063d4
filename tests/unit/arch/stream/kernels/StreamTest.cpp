/// \file
/// Tests of the streaming skeleton (Stream.h): the Fig. 8B source counters and flags including
/// post steps, position-counted delay lines, the frame driver (back-to-back frames, input pauses,
/// flushing) and the NCHW <-> position-major layout helpers.
#include "nnaccel/arch/stream/Stream.h"

#include <gtest/gtest.h>

namespace nnaccel::arch::stream {
namespace {

TEST(SourceCounters, RasterFlagsPostStepsAndNextFrame) {
  SourceCounters counters(2, 3);
  for (int64_t frame = 0; frame < 2; ++frame) {
    for (int64_t r = 0; r < 2; ++r) {
      for (int64_t c = 0; c < 3; ++c) {
        const Control ctl = counters.next(true);
        EXPECT_TRUE(ctl.srcEn);
        EXPECT_FALSE(ctl.postEn);
        EXPECT_EQ(ctl.row, r);
        EXPECT_EQ(ctl.col, c);
        EXPECT_EQ(ctl.frame, frame);
        EXPECT_EQ(ctl.rowFirst, r == 0);
        EXPECT_EQ(ctl.rowLast, r == 1);
        EXPECT_EQ(ctl.colFirst, c == 0);
        EXPECT_EQ(ctl.colLast, c == 2);
      }
    }
    // Post steps flush the frame just completed: rows continue past its end, columns wrap.
    for (int64_t q = 0; q < 7; ++q) {
      const Control ctl = counters.next(false);
      EXPECT_FALSE(ctl.srcEn);
      EXPECT_TRUE(ctl.postEn);
      EXPECT_EQ(ctl.row, 2 + q / 3);
      EXPECT_EQ(ctl.col, q % 3);
      EXPECT_EQ(ctl.frame, frame);
      EXPECT_FALSE(ctl.rowFirst);
      EXPECT_FALSE(ctl.rowLast);
      EXPECT_EQ(ctl.colFirst, q % 3 == 0);
      EXPECT_EQ(ctl.colLast, q % 3 == 2);
    }
  }
  counters.reset();
  const Control ctl = counters.next(true);
  EXPECT_EQ(ctl.row, 0);
  EXPECT_EQ(ctl.col, 0);
  EXPECT_EQ(ctl.frame, 0);
}

TEST(SourceCounters, PostStepInsideAFrameIsAnInternalError) {
  SourceCounters counters(2, 2);
  counters.next(true);
  EXPECT_DEATH(counters.next(false), "post step in the middle of a frame");
}

TEST(PositionDelay, ReturnsTheValuePushedDelayPushesEarlier) {
  PositionDelay<int> line(3, -1);
  EXPECT_EQ(line.delayPositions(), 3);
  std::vector<int> got;
  for (int v = 0; v < 6; ++v) {
    EXPECT_EQ(line.head(), v < 3 ? -1 : v - 3);
    got.push_back(line.push(v));
  }
  EXPECT_EQ(got, (std::vector<int>{-1, -1, -1, 0, 1, 2}));
  PositionDelay<int> wire(0);
  EXPECT_EQ(wire.delayPositions(), 0);
  EXPECT_EQ(wire.push(7), 7);
}

/// Identity with a delay of `delay` steps (post steps included): the simplest stage.
class DelayStage final : public StreamStage {
public:
  DelayStage(FrameShape shape, int64_t delay) : shape_(shape), valid_(delay, false) {
    for (int64_t ch = 0; ch < shape.channels; ++ch) {
      lines_.emplace_back(delay, 0);
    }
  }
  FrameShape inputShape() const override { return shape_; }
  FrameShape outputShape() const override { return shape_; }
  int64_t step(std::span<const Value> in, std::vector<Value>& out) override {
    std::vector<Value> popped;
    for (int64_t ch = 0; ch < shape_.channels; ++ch) {
      popped.push_back(
          lines_[static_cast<size_t>(ch)].push(in.empty() ? 0 : in[static_cast<size_t>(ch)]));
    }
    if (!valid_.push(!in.empty())) {
      return 0;
    }
    out.insert(out.end(), popped.begin(), popped.end());
    return 1;
  }

private:
  FrameShape shape_;
  PositionDelay<bool> valid_;
  std::vector<PositionDelay<Value>> lines_;
};

std::vector<std::vector<Value>> countingFrames(const FrameShape& shape, int64_t frames) {
  std::vector<std::vector<Value>> out;
  Value v = 1;
  for (int64_t f = 0; f < frames; ++f) {
    out.emplace_back();
    for (int64_t k = 0; k < shape.values(); ++k) {
      out.back().push_back(v++);
    }
  }
  return out;
}

TEST(RunFrames, BackToBackFramesAreFlushedByPostSteps) {
  const FrameShape shape{2, 3, 2};
  DelayStage stage(shape, 4);
  const auto frames = countingFrames(shape, 3);
  const StreamTrace trace = runFrames(stage, frames);
  EXPECT_EQ(trace.shape, shape);
  EXPECT_EQ(trace.frames, 3);
  EXPECT_EQ(trace.postSteps, 4);
  std::vector<Value> all;
  for (const auto& f : frames) {
    all.insert(all.end(), f.begin(), f.end());
  }
  EXPECT_EQ(trace.values, all);
  ASSERT_EQ(trace.emitStep.size(), 18u);
  for (size_t p = 0; p < 18; ++p) {
    EXPECT_EQ(trace.emitStep[p], static_cast<int64_t>(p) + 4);
    EXPECT_EQ(trace.emitCycle[p], static_cast<int64_t>(p) + 4);
  }
}

TEST(RunFrames, InputPausesShiftCyclesButNotSteps) {
  const FrameShape shape{3, 2, 1};
  DelayStage stage(shape, 3);
  const auto frames = countingFrames(shape, 2);
  RunOptions options;
  options.validPattern = {true, false, false, true, true};
  const StreamTrace trace = runFrames(stage, frames, options);
  EXPECT_EQ(trace.values, (std::vector<Value>{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}));
  // The cycle of each step: accepted positions only where the pattern is high, then the post
  // steps one cycle each, never paused.
  std::vector<int64_t> stepCycle;
  for (int64_t cycle = 0; static_cast<int64_t>(stepCycle.size()) < 12; ++cycle) {
    if (options.validPattern[static_cast<size_t>(cycle) % 5]) {
      stepCycle.push_back(cycle);
    }
  }
  for (int64_t q = 1; q <= 3; ++q) {
    stepCycle.push_back(stepCycle[11] + q);
  }
  for (size_t p = 0; p < 12; ++p) {
    EXPECT_EQ(trace.emitStep[p], static_cast<int64_t>(p) + 3);
    EXPECT_EQ(trace.emitCycle[p], stepCycle[p + 3]);
  }
  EXPECT_EQ(trace.postSteps, 3);
}

TEST(RunFrames, AStageThatNeverCompletesOrAnAlwaysLowStrobeIsAnInternalError) {
  const FrameShape shape{1, 2, 1};
  DelayStage slow(shape, 10);
  const auto frames = countingFrames(shape, 1);
  RunOptions options;
  options.maxPostSteps = 5;
  EXPECT_DEATH(runFrames(slow, frames, options), "did not complete its last frame");
  DelayStage stage(shape, 1);
  options = RunOptions{};
  options.validPattern = {false, false};
  EXPECT_DEATH(runFrames(stage, frames, options), "never accepts an input");
}

TEST(Layout, PositionMajorAndChannelMajorRoundTrip) {
  const FrameShape shape{2, 2, 3};
  // NCHW: channel 0 = 0..3, channel 1 = 10..13, channel 2 = 20..23.
  const std::vector<Value> chw = {0, 1, 2, 3, 10, 11, 12, 13, 20, 21, 22, 23};
  const std::vector<Value> positions = toPositionMajor(chw, shape);
  EXPECT_EQ(positions, (std::vector<Value>{0, 10, 20, 1, 11, 21, 2, 12, 22, 3, 13, 23}));
  EXPECT_EQ(toChannelMajor(positions, shape), chw);
}

} // namespace
} // namespace nnaccel::arch::stream
