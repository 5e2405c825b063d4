/// \file
/// The streaming skeleton every stream-engine function is built on (seed 002, digest §4.2):
/// frames presented in raster order one position (all channels of one array element) per
/// accepted step, the source counters and control flags of Fig. 8B (ROWFST/ROWLST,
/// COLFST/COLLST, SRCEN, DSTEN, POSTEN), delay lines that count stream positions rather than
/// clock cycles, the StreamStage interface that aperture engines and patch functions implement,
/// and a driver that pushes frames through a stage (with optional input pauses) and records
/// what it emits at which step and cycle. Nothing here knows about the ASIC.
#pragma once

#include "nnaccel/support/Error.h"

#include <cstdint>
#include <span>
#include <vector>

namespace nnaccel::arch::stream {

/// One value on a stream: an int8 activation or an int32 partial sum.
using Value = int32_t;

/// Geometry of one frame: rows x cols positions of `channels` values each, raster order
/// (columns left to right, then rows top to bottom).
struct FrameShape {
  int64_t rows = 0;
  int64_t cols = 0;
  int64_t channels = 0;
  int64_t positions() const { return rows * cols; }
  int64_t values() const { return rows * cols * channels; }
  bool operator==(const FrameShape&) const = default;
};

/// The control signals of one step (Fig. 8B). A step either accepts an input position
/// (srcEn, SRCEN) or is a post-processing step after the input ended (postEn, POSTEN), in which
/// the counters keep running so that truncated bottom rows can be flushed.
struct Control {
  bool srcEn = false;    ///< SRCEN: this step accepts the input position (row, col)
  bool postEn = false;   ///< POSTEN: no input; the truncated rows are being flushed
  bool rowFirst = false; ///< ROWFST: row == 0
  bool rowLast = false;  ///< ROWLST: row == rows - 1
  bool colFirst = false; ///< COLFST: col == 0
  bool colLast = false;  ///< COLLST: col == cols - 1
  int64_t row = 0;       ///< rowSrc (post steps continue past the last row: rows, rows + 1, ...)
  int64_t col = 0;       ///< colSrc
  int64_t frame = 0;     ///< frames completed before this step
};

/// The source counters colSrc/rowSrc of Fig. 8B: advance once per step, wrap at the end of a
/// row and of a frame. Post steps continue counting rows past the frame's last row.
class SourceCounters {
public:
  SourceCounters(int64_t rows, int64_t cols);
  /// The flags of the next step; \p input says whether it accepts a position (SRCEN) or is a
  /// post step (POSTEN, only between frames: row counts on past the last row, frame is the
  /// frame being flushed).
  Control next(bool input);
  /// Back to row 0, column 0, frame 0 (RST/INIT).
  void reset();

private:
  int64_t rows_, cols_;
  int64_t row_ = 0, col_ = 0, frame_ = 0;
  int64_t postSteps_ = 0; ///< post steps since the last accepted position
};

/// A delay line counted in stream positions (FIFO plus output register): push() returns the
/// value pushed exactly `delayPositions` pushes earlier (the fill value before that). Delay 0
/// passes the value straight through.
template <class T> class PositionDelay {
public:
  explicit PositionDelay(int64_t delayPositions = 0, T fill = T{})
      : ring_(static_cast<size_t>(delayPositions), fill) {
    NNACCEL_ASSERT(delayPositions >= 0) << "negative delay " << delayPositions;
  }
  T push(T v) {
    if (ring_.empty())
      return v;
    T out = ring_[head_];
    ring_[head_] = v;
    head_ = head_ + 1 == ring_.size() ? 0 : head_ + 1;
    return out;
  }
  /// The value push() will return next.
  const T& head() const { return ring_[head_]; }
  int64_t delayPositions() const { return static_cast<int64_t>(ring_.size()); }

private:
  std::vector<T> ring_;
  size_t head_ = 0;
};

/// A streaming function: one step at a time. Aperture engines (Aperture.h), patch functions
/// (Patch.h) and the patent model's N-up stages (patent/NUp.h) implement it. A step may emit no
/// output position (downsampling, the first rows of a kernel), one, or several (Expand,
/// flushing).
class StreamStage {
public:
  virtual ~StreamStage() = default;
  virtual FrameShape inputShape() const = 0;
  virtual FrameShape outputShape() const = 0;
  /// One step. \p in holds inputShape().channels values when the step accepts a position
  /// (SRCEN) and is empty for a post step (POSTEN). Appends every output position completed in
  /// this step (outputShape().channels values each, raster order; DSTEN) to \p out and returns
  /// how many it appended.
  virtual int64_t step(std::span<const Value> in, std::vector<Value>& out) = 0;
};

/// What a stage emitted during a run.
struct StreamTrace {
  FrameShape shape;               ///< the stage's output shape
  int64_t frames = 0;             ///< complete output frames
  std::vector<Value> values;      ///< every output position in order, channels innermost
  std::vector<int64_t> emitStep;  ///< per output position: the step (accepted or post) index
  std::vector<int64_t> emitCycle; ///< per output position: the clock cycle of that step
  int64_t postSteps = 0;          ///< post steps needed to flush the last frame
};

/// Input pauses: cycle c carries an input position when pattern[c % pattern.size()] is true
/// (empty: every cycle). Post steps take one cycle each and are never paused.
struct RunOptions {
  std::vector<bool> validPattern;
  int64_t maxPostSteps = -1; ///< -1: inputShape().positions() * 4 + 64
};

/// Pushes \p frames (each inputShape().values() values, position-major, channels innermost)
/// back to back through \p stage, then post steps until every output frame is complete.
/// Asserts that the stage completes within maxPostSteps.
StreamTrace runFrames(StreamStage& stage, std::span<const std::vector<Value>> frames,
                      const RunOptions& options = {});

/// NCHW (batch 1) integer tensor data <-> position-major frame values.
std::vector<Value> toPositionMajor(std::span<const Value> chw, const FrameShape& shape);
std::vector<Value> toChannelMajor(std::span<const Value> positions, const FrameShape& shape);

} // namespace nnaccel::arch::stream
