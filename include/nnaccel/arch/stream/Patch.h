/// \file
/// The auxiliary ("patch") functions of the stream engine (seed 002, digest §5.4 Figs. 27A-30B,
/// §8.2 Figs. 49-50): MaxPool and Average over strided, padded patches, Sample (crop and stride
/// skip), Expand (padding and nearest duplication), Global Average, Dense, channel Subset, and
/// Concat with alignment FIFOs, plus the aux tile's lane muxes 4912 (concat) and 4913
/// (alternating). Every function is a StreamStage on the Stream.h skeleton: it sees one
/// position (all channels) per accepted step, counts positions with SourceCounters and keeps
/// only what the Fig. 50 structure keeps, the per-column partial results of the output rows
/// still open (the row FIFO holding "its own value for the same column from the previous row")
/// and nothing frame-sized unless the function needs it by definition (Dense's weight store).
/// Geometry follows ONNX (pads top/left/bottom/right, floor or ceil output sizes); Average takes
/// the divisor rule as a callback so the int8 ASIC can plug in quant::averagePool's per-count
/// requantization without this library depending on quant.
#pragma once

#include "nnaccel/arch/stream/Stream.h"

#include <cstdint>
#include <deque>
#include <functional>
#include <optional>
#include <span>
#include <vector>

namespace nnaccel::arch::stream {

/// Average / Global Average divisor rule: (sum of the counted window values, count) -> value.
/// Fig. 29's edge-aware reciprocal: count is the number of in-array values in the window (or
/// the window clipped to the padded array when count_include_pad).
using AverageFinalizer = std::function<Value(int64_t sum, int64_t count)>;

/// Dense output rule: rewrites the output sums (bias included) in place, e.g. requantization
/// and activation. An empty function leaves the sums unchanged.
using DenseFinalizer = std::function<void(std::span<Value>)>;

/// Window geometry along one axis: output i covers the inputs [start(i), start(i) + kernel),
/// start(i) = origin + i * stride, clipped to the array [0, in). Pools have origin = -padBegin;
/// Sample has kernel 1 and origin = the crop offset. Every window overlaps the array (the
/// stages validate this), so first(i) <= last(i).
struct PatchAxis {
  int64_t in = 1;     ///< input extent
  int64_t out = 1;    ///< output extent
  int64_t kernel = 1; ///< window extent
  int64_t stride = 1;
  int64_t origin = 0; ///< start of window 0 (negative: leading padding)
  int64_t padEnd = 0; ///< trailing padding (count_include_pad only)

  int64_t start(int64_t i) const { return origin + i * stride; }
  int64_t first(int64_t i) const; ///< first in-array input of window i
  int64_t last(int64_t i) const;  ///< last in-array input of window i
  /// Inputs of window i inside the array.
  int64_t count(int64_t i) const { return last(i) - first(i) + 1; }
  /// Inputs of window i inside [-padBegin, in + padEnd) (the ceil-mode overhang never counts).
  int64_t countWithPads(int64_t i) const;
  /// The outputs whose windows contain input x: [lo, hi], empty when lo > hi.
  struct Range {
    int64_t lo = 0, hi = -1;
  };
  Range outputsOf(int64_t x) const;
  /// The most outputs whose windows contain one input (the open output rows of a row FIFO).
  int64_t maxOpenOutputs() const;
};

/// ONNX pooling output size along one axis: floor((in + pads - kernel) / stride) + 1, or the
/// ceil of it when \p ceilMode, minus one when the last ceil-mode window would start in the
/// trailing padding. Throws Error (Config) when the padded input is smaller than the kernel or
/// an argument is out of range.
int64_t poolOutputSize(int64_t in, int64_t kernel, int64_t stride, int64_t padBegin, int64_t padEnd,
                       bool ceilMode);

/// Base of the single-input patch stages: the frame shapes, the Fig. 8B source counters, and
/// the FIFO-bits figure.
class PatchStage : public StreamStage {
public:
  FrameShape inputShape() const override { return in_; }
  FrameShape outputShape() const override { return out_; }
  /// Values held in FIFOs and registers between steps (the FIFO-bits figure, in values).
  virtual int64_t storedValues() const = 0;

protected:
  /// Throws Error (Config, key \p op + ".shape") unless both shapes are positive.
  PatchStage(const char* op, FrameShape in, FrameShape out);
  /// Checks the input size and advances the source counters for one step.
  Control next(std::span<const Value> in);

  FrameShape in_, out_;
  SourceCounters counters_;
};

/// A pooling window over the two spatial axes (ONNX MaxPool/AveragePool attributes).
struct PoolWindow {
  int64_t kernelRows = 1, kernelCols = 1;
  int64_t strideRows = 1, strideCols = 1;
  int64_t padTop = 0, padLeft = 0, padBottom = 0, padRight = 0;
  /// Output size; 0 = floor mode (poolOutputSize). Pass poolOutputSize(..., true) for ceil
  /// mode. Every window must start inside the array or the leading padding.
  int64_t outRows = 0, outCols = 0;
};

/// MaxPool (4908) or Average (4909) over strided, padded patches (Figs. 24, 28, 29, 50). Per
/// channel and output column, an accumulator of each open output row (the row FIFO of Fig. 50)
/// combines every in-array input of the window as it arrives: running maximum, or running sum.
/// Padding never enters a maximum or a sum.
///
/// Emission: output (oy, ox) is complete at its window's last in-array input (last(oy),
/// last(ox)) and is emitted in that step, raster order permitting: when several outputs
/// complete at the same input (windows clipped at the right or bottom edge, e.g. 3x3 stride 1
/// pad 1), the step emits all of them in raster order, so a frame's last output rows can leave
/// together at the frame's last input. Hence no post steps are ever needed.
class PatchPool : public PatchStage {
public:
  enum class Kind { Max, Average };

  static PatchPool max(FrameShape in, const PoolWindow& window);
  /// \p countIncludePad: divide by the window clipped to the padded array instead of the
  /// in-array count.
  static PatchPool average(FrameShape in, const PoolWindow& window, AverageFinalizer finalizer,
                           bool countIncludePad = false);

  int64_t step(std::span<const Value> in, std::vector<Value>& out) override;
  /// Open output rows x output columns x channels accumulators.
  int64_t storedValues() const override;

  Kind kind() const { return kind_; }
  const PoolWindow& window() const { return window_; } ///< with the output size resolved
  /// Raster index (within the frame) of the input whose step emits output (oy, ox).
  int64_t emitInputIndex(int64_t oy, int64_t ox) const;
  /// The count an Average output's finalizer receives.
  int64_t windowCount(int64_t oy, int64_t ox) const;
  /// Output rows whose accumulators coexist (the depth of the row FIFO, in output rows).
  int64_t openRows() const { return slots_; }

protected:
  PatchPool(const char* op, FrameShape in, Kind kind, const PoolWindow& window,
            AverageFinalizer finalizer, bool countIncludePad);

private:
  Kind kind_;
  PoolWindow window_;
  PatchAxis rows_, cols_;
  AverageFinalizer finalizer_;
  bool countIncludePad_;
  int64_t slots_ = 1;        ///< ring of open output rows
  std::vector<int64_t> acc_; ///< [slot][outCol][channel]
  int64_t nextOut_ = 0;      ///< next output position (raster) of the current frame
};

/// Global Average (Fig. 27C, 5414): one output position per frame, finalizer(sum, positions)
/// per channel, emitted at the frame's last input. It is the Average patch whose window is the
/// whole frame.
class GlobalAverage : public PatchPool {
public:
  GlobalAverage(FrameShape in, AverageFinalizer finalizer);
};

/// Sample (4910, Fig. 30B): crop plus stride skip. Keeps input (offsetRows + strideRows * i,
/// offsetCols + strideCols * j) for i < outRows, j < outCols and emits it in the step that
/// accepts it; nothing is stored.
struct SampleWindow {
  int64_t offsetRows = 0, offsetCols = 0;
  int64_t strideRows = 1, strideCols = 1;
  int64_t outRows = 0, outCols = 0; ///< 0: as many as fit in the array
};

class Sample : public PatchStage {
public:
  Sample(FrameShape in, const SampleWindow& window);
  int64_t step(std::span<const Value> in, std::vector<Value>& out) override;
  int64_t storedValues() const override { return 0; }
  const SampleWindow& window() const { return window_; } ///< with the output size resolved
  /// Raster index of the input whose step emits output (i, j) (the input itself).
  int64_t emitInputIndex(int64_t i, int64_t j) const;

private:
  SampleWindow window_;
  PatchAxis rows_, cols_;
};

/// Expand parameters: nearest duplication (each value repeated factorRows x factorCols), then
/// padding rows/columns of padValue around the result.
struct ExpandParams {
  int64_t factorRows = 1, factorCols = 1;
  int64_t padTop = 0, padLeft = 0, padBottom = 0, padRight = 0;
  Value padValue = 0;
  /// Output positions per step; 0 = outputPositionsPerInput()'s minimum.
  int64_t outputPositionsPerStep = 0;
  /// Depth to space (ONNX DepthToSpace, DCR order) instead of duplication: output (y, x) of a
  /// factorRows x factorCols block takes channels [p C', (p + 1) C') of its input position, p =
  /// (y mod factorRows) factorCols + x mod factorCols, C' = input channels / (factorRows
  /// factorCols). The schedule is the duplication's; only the values differ. The stream
  /// compiler's stride phases of a ConvTranspose leave the chip this way (docs/arch/Stream.md).
  bool depthToSpace = false;
};

/// Expand (4911, Fig. 50: "repeat each value horizontally; the FIFO repeats the row
/// vertically"). Its output has more positions than its input, so it runs at a faster
/// position rate: each step (accepted or post) emits up to outputPositionsPerStep positions,
/// in raster order, of those whose input has arrived (padding is available once its frame has
/// started). The inputs are held in a FIFO until their last copy has left. The frame's last
/// duplicated rows and the bottom padding leave during post steps, or during the next frame's
/// first steps when frames run back to back.
class Expand : public PatchStage {
public:
  Expand(FrameShape in, const ExpandParams& params);
  int64_t step(std::span<const Value> in, std::vector<Value>& out) override;
  /// The FIFO's depth (peak held positions x channels) over frames back to back, found by a
  /// dry run of the same schedule.
  int64_t storedValues() const override;

  /// The smallest output rate that sustains frames back to back:
  /// ceil(output positions / input positions).
  int64_t outputPositionsPerInput() const;
  /// The output rate in use (positions per step).
  int64_t outputPositionsPerStep() const { return rate_; }
  /// The most input positions held at the end of a step so far in this run.
  int64_t peakHeldPositions() const { return peakHeld_; }
  const ExpandParams& params() const { return params_; }

private:
  int64_t run(bool accept, std::span<const Value> in, std::vector<Value>* out);
  /// Global input index feeding global output index \p g, or -1 for padding.
  int64_t sourceOf(int64_t g) const;
  /// Global output index of the last copy of global input \p g.
  int64_t lastUseOf(int64_t g) const;
  /// The phase (channel block) global output \p g takes in depth-to-space mode, else 0.
  size_t phaseOf(int64_t g) const;

  ExpandParams params_;
  int64_t rate_ = 1;
  std::deque<Value> held_; ///< inputs [heldBase_, accepted_) x channels
  int64_t heldBase_ = 0;   ///< global index of the oldest held input
  int64_t accepted_ = 0;   ///< inputs accepted so far (all frames)
  int64_t cursor_ = 0;     ///< global index of the next output position
  int64_t peakHeld_ = 0;
  mutable std::optional<int64_t> stored_;
};

/// One axis of a linear resize: output o reads input index0[o] with weight 2^bits - weight1[o]
/// and input index1[o] with weight weight1[o]; an axis that does not interpolate reads
/// index0[o] alone, with weight 1.
struct InterpolateAxis {
  bool interpolates = false;
  std::vector<int32_t> index0, index1, weight1;
};

/// Interpolate's division: (the sum of weight x tap over an output's taps, the weights' total
/// bits) -> value; the int8 ASIC plugs in quant::interpolationRound.
using InterpolateFinalizer = std::function<Value(int64_t sum, int shift)>;

struct InterpolateParams {
  InterpolateAxis rows, cols;
  int weightBits = 0;
  InterpolateFinalizer finalizer;
};

/// Interpolate (a linear Resize; nnaccel's addition beside Expand 4911, docs/arch/Stream.md):
/// output (y, x) is the weighted sum of its (up to) 2 x 2 input taps. Like Expand it runs at
/// the faster output rate, emitting in raster order up to ceil(output / input positions)
/// positions per step, each once its last tap has arrived. The FIFO holds the input rows from
/// the lowest one the frame's remaining outputs read: two rows for an upsampling.
class Interpolate : public PatchStage {
public:
  Interpolate(FrameShape in, InterpolateParams params);
  int64_t step(std::span<const Value> in, std::vector<Value>& out) override;
  /// The FIFO's depth (peak held positions x channels) over frames back to back, found by a
  /// dry run of the same schedule.
  int64_t storedValues() const override;
  /// The smallest output rate that sustains frames back to back.
  int64_t outputPositionsPerInput() const;

private:
  int64_t run(bool accept, std::span<const Value> in, std::vector<Value>* out);
  /// Global input index whose arrival completes global output \p g (its last tap).
  int64_t needOf(int64_t g) const;
  /// Global index of the first input that output \p g or a later one of its frame reads.
  int64_t keepFrom(int64_t g) const;
  void emit(int64_t g, std::vector<Value>& out) const;

  InterpolateParams params_;
  std::vector<int32_t> keepRow_; ///< per output row: the lowest input row it or a later one reads
  int64_t rate_ = 1;
  std::deque<Value> held_; ///< inputs [heldBase_, accepted_) x channels
  int64_t heldBase_ = 0, accepted_ = 0, cursor_ = 0, peakHeld_ = 0;
  mutable std::optional<int64_t> stored_;
};

/// Dense (Fig. 27B): out[o] = bias[o] + sum over positions p and channels c of
/// w[o][p][c] * in[p][c]; one output position (outputs channels) per frame, emitted at the
/// frame's last input after the finalizer. The weights of each position come from a local
/// store as the position arrives; the accumulators are the only state carried between steps.
class Dense : public PatchStage {
public:
  /// \p weights: [outputs][positions][channels]; \p bias: [outputs].
  Dense(FrameShape in, int64_t outputs, std::span<const Value> weights, std::span<const Value> bias,
        DenseFinalizer finalizer = {});
  int64_t step(std::span<const Value> in, std::vector<Value>& out) override;
  int64_t storedValues() const override { return out_.channels; } ///< accumulators
  /// Values in the local weight store (outputs x positions x channels).
  int64_t weightStoreValues() const { return static_cast<int64_t>(store_.size()); }

private:
  std::vector<Value> store_; ///< [position][output][channel]
  std::vector<Value> bias_;
  DenseFinalizer finalizer_;
  std::vector<int64_t> acc_;
};

/// Subset (Fig. 30A): output channel k is input channel channels[k] (repeats allowed), in the
/// step that accepts the position.
class Subset : public PatchStage {
public:
  Subset(FrameShape in, std::vector<int64_t> channels);
  int64_t step(std::span<const Value> in, std::vector<Value>& out) override;
  int64_t storedValues() const override { return 0; }

private:
  std::vector<int64_t> channels_;
};

/// Concat (Fig. 27A, 1706; the ASIC's 4912 with a FIFO on each input): joins position p of
/// path A (its channels first) with position p of path B. Both paths carry frames of the same
/// rows x cols; in a step either path may deliver one position or none. The earlier path's
/// positions wait in its alignment FIFO until the other path's same position arrives; the
/// concatenated position leaves in that step. Occupancy is counted after the step's emission
/// and must never exceed the configured FIFO size (NNACCEL_ASSERT: the compiler sized it).
class Concat {
public:
  struct Fifos {
    int64_t a = 0, b = 0; ///< positions
  };

  Concat(FrameShape a, FrameShape b, int64_t fifoPositionsA, int64_t fifoPositionsB);
  /// One step. An empty span means the path delivers no position this step. Returns the
  /// positions appended (0 or 1).
  int64_t step(std::span<const Value> a, std::span<const Value> b, std::vector<Value>& out);

  /// FIFO sizes from the two path latencies (in positions from the common source): the
  /// earlier (lower latency) path gets the difference, the slower one none.
  static Fifos alignmentFifoPositions(int64_t latencyA, int64_t latencyB);

  FrameShape outputShape() const;
  Fifos fifoPositions() const { return size_; }
  Fifos occupancy() const;
  Fifos peakOccupancy() const { return peak_; }
  /// FIFO capacity in values: fifoPositionsA x channels(A) + fifoPositionsB x channels(B).
  int64_t storedValues() const;

private:
  FrameShape a_, b_;
  Fifos size_, peak_;
  std::deque<Value> qa_, qb_; ///< waiting positions, channels innermost
};

/// Concat mux 4912: the lowest \p k lanes of \p primary followed by the lowest lanes - k lanes
/// of \p aux (lanes = primary.size() = aux.size(), 16 in the ASIC). Throws Error (Config)
/// unless 1 <= k < lanes and the sets have the same width.
std::vector<Value> concatMux(std::span<const Value> primary, std::span<const Value> aux, int64_t k);

/// Alternating mux 4913: two sequences of sets, each set held \p holdCycles cycles, become one
/// sequence alternating a0, b0, a1, b1, ... with each set held holdCycles / 2 cycles. Throws
/// Error (Config) unless holdCycles is even and >= 2 and the sequences have equal lengths and
/// set widths.
struct AlternatingSets {
  std::vector<std::vector<Value>> sets;
  int64_t holdCycles = 0;
};
AlternatingSets alternatingMux(std::span<const std::vector<Value>> a,
                               std::span<const std::vector<Value>> b, int64_t holdCycles);

} // namespace nnaccel::arch::stream
