/// \file
/// The streaming skeleton (Stream.h): source counters, the frame driver and layout helpers.
#include "nnaccel/arch/stream/Stream.h"

#include <algorithm>

namespace nnaccel::arch::stream {

SourceCounters::SourceCounters(int64_t rows, int64_t cols) : rows_(rows), cols_(cols) {
  NNACCEL_ASSERT(rows > 0 && cols > 0) << "frame " << rows << "x" << cols;
}

Control SourceCounters::next(bool input) {
  Control c;
  c.srcEn = input;
  c.postEn = !input;
  if (!input) { // the frame just completed is being flushed: rows continue past its end
    NNACCEL_ASSERT(col_ == 0 && row_ == 0) << "post step in the middle of a frame";
    c.row = rows_ + postSteps_ / cols_;
    c.col = postSteps_ % cols_;
    c.frame = frame_ - 1;
    c.colFirst = c.col == 0;
    c.colLast = c.col == cols_ - 1;
    ++postSteps_;
    return c;
  }
  postSteps_ = 0; // a new frame starts (possibly while the last one is being flushed)
  c.row = row_;
  c.col = col_;
  c.frame = frame_;
  c.rowFirst = row_ == 0;
  c.rowLast = row_ == rows_ - 1;
  c.colFirst = col_ == 0;
  c.colLast = col_ == cols_ - 1;
  if (++col_ == cols_) {
    col_ = 0;
    if (++row_ == rows_) {
      row_ = 0;
      ++frame_;
    }
  }
  return c;
}

void SourceCounters::reset() {
  row_ = col_ = frame_ = postSteps_ = 0;
}

StreamTrace runFrames(StreamStage& stage, std::span<const std::vector<Value>> frames,
                      const RunOptions& options) {
  const FrameShape in = stage.inputShape();
  const FrameShape outShape = stage.outputShape();
  StreamTrace t;
  t.shape = outShape;
  const int64_t wanted = static_cast<int64_t>(frames.size()) * outShape.positions();
  int64_t step = 0, cycle = 0, emitted = 0;
  auto record = [&](int64_t count) {
    emitted += count;
    NNACCEL_ASSERT(emitted <= wanted) << "stage emitted more than " << wanted << " positions";
    t.emitStep.insert(t.emitStep.end(), static_cast<size_t>(count), step);
    t.emitCycle.insert(t.emitCycle.end(), static_cast<size_t>(count), cycle);
    NNACCEL_ASSERT(static_cast<int64_t>(t.values.size()) == emitted * outShape.channels)
        << "stage appended a partial position";
  };
  const auto& pattern = options.validPattern;
  NNACCEL_ASSERT(pattern.empty() ||
                 std::find(pattern.begin(), pattern.end(), true) != pattern.end())
      << "the valid pattern never accepts an input";
  for (const std::vector<Value>& f : frames) {
    NNACCEL_ASSERT(static_cast<int64_t>(f.size()) == in.values())
        << "frame of " << f.size() << " values for " << in.values();
    for (int64_t p = 0; p < in.positions(); ++p) {
      while (!pattern.empty() && !pattern[static_cast<size_t>(cycle) % pattern.size()])
        ++cycle; // SRCEN low: nothing advances
      std::span<const Value> pos(f.data() + p * in.channels, static_cast<size_t>(in.channels));
      record(stage.step(pos, t.values));
      ++step;
      ++cycle;
    }
  }
  const int64_t maxPost =
      options.maxPostSteps >= 0 ? options.maxPostSteps : in.positions() * 4 + 64;
  while (emitted < wanted) {
    NNACCEL_ASSERT(t.postSteps < maxPost)
        << "stage did not complete its last frame within " << maxPost << " post steps";
    record(stage.step({}, t.values));
    ++t.postSteps;
    ++step;
    ++cycle;
  }
  t.frames = static_cast<int64_t>(frames.size());
  return t;
}

std::vector<Value> toPositionMajor(std::span<const Value> chw, const FrameShape& s) {
  NNACCEL_ASSERT(static_cast<int64_t>(chw.size()) == s.values()) << "frame size";
  std::vector<Value> out(chw.size());
  const int64_t plane = s.positions();
  for (int64_t c = 0; c < s.channels; ++c)
    for (int64_t p = 0; p < plane; ++p)
      out[static_cast<size_t>(p * s.channels + c)] = chw[static_cast<size_t>(c * plane + p)];
  return out;
}

std::vector<Value> toChannelMajor(std::span<const Value> positions, const FrameShape& s) {
  NNACCEL_ASSERT(static_cast<int64_t>(positions.size()) == s.values()) << "frame size";
  std::vector<Value> out(positions.size());
  const int64_t plane = s.positions();
  for (int64_t c = 0; c < s.channels; ++c)
    for (int64_t p = 0; p < plane; ++p)
      out[static_cast<size_t>(c * plane + p)] = positions[static_cast<size_t>(p * s.channels + c)];
  return out;
}

} // namespace nnaccel::arch::stream
