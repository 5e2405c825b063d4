/// \file
/// Patent model. This is an executable model of seed 002's N-up streams (digest §5, Figs.
/// 21-26), kept to check the text's figures (the window alignments of Figs. 21-23, the pooling of
/// Figs. 24-25, the repack FIFO of Fig. 26). The stream engine does not use it: the ASIC's buses
/// are 1-up, so the compiler configures no N-up stage (it refuses an Expand whose output would
/// need N-up sets) and the simulator runs only the 1-up stages of Aperture.h and Patch.h.
///
/// N-up streams of the stream engine (seed 002, digest §5): N adjacent columns of one row are
/// presented in parallel as one *set*, so a node runs N copies of its kernel circuit at 1/N of
/// the clock. This file holds the set format with its per-row valid counts (a row whose width N
/// does not divide ends in a partial set whose invalid entries are zero), the N-up everted
/// convolution with the kernel alignments of Figs. 21-23, the 2x2 MaxPool that reduces N
/// (Figs. 24A/B) or keeps it and emits every second set (Fig. 25), and the repack FIFO that
/// turns an M-up stream into an N-up one with a per-row valid counter (Figs. 26A/B).
///
/// An N-up stream is an ordinary StreamStage stream whose positions are sets: FrameShape
/// {rows, ceil(width / N) sets, N * channels}, lane-major within a set (lane 0's channels, then
/// lane 1's, ...). Every stage here is self-contained; none depends on the 1-up aperture
/// engine (Aperture.h).
#pragma once

#include "nnaccel/arch/stream/Stream.h"

#include <cstdint>
#include <span>
#include <vector>

namespace nnaccel::arch::stream::patent {

/// The geometry of an N-up stream: a rows x width array of `channels` values per position,
/// presented `lanes` adjacent columns per set. Column 0 of every row is lane 0 of set 0
/// (digest §5.1); set s holds columns s * lanes .. s * lanes + lanes - 1.
struct NUpFormat {
  int64_t lanes = 1;
  int64_t width = 0;
  int64_t rows = 0;
  int64_t channels = 0;

  /// ceil(width / lanes): the sets that cover one row.
  int64_t setsPerRow() const { return (width + lanes - 1) / lanes; }
  /// The valid entries of set \p set of a row (the per-row valid count): lanes, or fewer for
  /// the partial last set, 0 past the row's end.
  int64_t validLanes(int64_t set) const;
  /// The stream shape: {rows, setsPerRow(), lanes * channels}.
  FrameShape shape() const;
  /// Throws nnaccel::Error (Config, key "lanes"/"width"/"rows"/"channels") unless every field is
  /// at least 1.
  void validate() const;
  bool operator==(const NUpFormat&) const = default;
};

/// A position-major frame (rows x width x channels, see toPositionMajor) as N-up sets; the
/// invalid entries of partial sets are zero. Throws nnaccel::Error (Usage, key "frame") when
/// the frame does not hold rows * width * channels values.
std::vector<Value> packNUp(std::span<const Value> positionMajorFrame, const NUpFormat& format);
/// The inverse of packNUp: drops the invalid entries. Throws nnaccel::Error (Usage, key
/// "frame") when \p sets does not hold format.shape().values() values.
std::vector<Value> unpackNUp(std::span<const Value> sets, const NUpFormat& format);

/// The two window variants of a convolution (digest §5.3).
enum class NUpWindow {
  Same,  ///< "full": zero padding, output rows x width = input rows x width
  Valid, ///< "inset": output (rows - M + 1) x (width - N_k + 1), no padding
};

/// An M x N_k convolution (correlation, CNN convention) with `outChannels` outputs.
struct NUpConvSpec {
  int64_t kernelRows = 1; ///< M
  int64_t kernelCols = 1; ///< N_k
  int64_t outChannels = 1;
  NUpWindow window = NUpWindow::Same;
  /// outChannels x inChannels x kernelRows x kernelCols (OIHW), row-major.
  std::vector<Value> weights;
  /// One per output channel; empty means zero.
  std::vector<Value> bias;
};

/// The everted 2-D convolution on N-up sets (digest §5.3, Figs. 21-23). The kernel circuit is
/// duplicated per lane: lane k of an output set sums the kernel-row products over window
/// entries windowStart(k) .. windowStart(k) + N_k - 1, where the window is the concatenation of
/// the retainedSets() previous sets of the row and the current set (entries indexed from the
/// oldest). The anchor is (floor(M/2), floor(N_k/2)) for Same, (0, 0) for Valid. With
/// a = anchor column, output set o of a row is produced when input set o + lagSets() is current,
/// lagSets() = floor((N + N_k - 2 - a) / N), retainedSets() = lagSets() + ceil(a / N) and
/// windowStart(k) = k + N * ceil(a / N) - a (3x3 valid 4-up: k, Fig. 21; 3x3 same: 3 + k,
/// Fig. 22; 1x7 valid: k, same: 1 + k, Fig. 23). Window entries left of the row's first column
/// or past its last valid column are zero.
///
/// Kernel rows are summed at once across their columns; the rows are chained through row
/// FIFOs of partial sums counted in sets (one row of the stream = setsPerRow() sets): kernel
/// row 0 starts a partial sum with the bias, row m adds its products to row m - 1's partial sum
/// of the previous input row, row M - 1 finishes the output. On the first input row of a frame
/// every kernel row starts from the bias (no row above). The output sets of a row whose input
/// sets lie past the row's end are computed at the row's last set by shifting in zero sets and
/// are emitted at the next row's first steps (the retain/insert of digest §4.4); in Same mode
/// the bottom rows that need rows below the frame are taken from the last input row's partial
/// sums (the truncated-row FIFOs) and emitted after the frame. The emission schedule is
/// seamless across back-to-back frames: output set (i, o) leaves at step
/// frameStart + i * setsPerRow(input) + o + latencySets(), one set per step at most.
/// Partial sums are int32 (Value); the caller keeps them in range.
class NUpConv final : public StreamStage {
public:
  /// Throws nnaccel::Error (Config) on an invalid format, kernel or channel count, a kernel
  /// wider or taller than the array, or weights/bias of the wrong size.
  NUpConv(const NUpFormat& input, NUpConvSpec spec);

  FrameShape inputShape() const override { return in_.shape(); }
  FrameShape outputShape() const override { return out_.shape(); }
  const NUpFormat& inputFormat() const { return in_; }
  /// Same lanes; Same: the input geometry; Valid: (rows - M + 1) x (width - N_k + 1).
  const NUpFormat& outputFormat() const { return out_; }

  /// Sets an output set lags the input set that completes it (0 when every needed column is in
  /// the current set).
  int64_t lagSets() const { return lag_; }
  /// The previous sets of the row retained next to the current one (the window holds
  /// retainedSets() + 1 sets).
  int64_t retainedSets() const { return retained_; }
  /// Window entry of kernel column 0 for output lane \p lane (0 <= lane < lanes).
  int64_t windowStart(int64_t lane) const;
  /// Steps from the input set (0, 0) of a frame to the emission of its output set (0, 0):
  /// Same: (M - 1 - floor(M/2)) * S + lagSets(); Valid: (M - 1) * S + lagSets(), with S the
  /// input sets per row.
  int64_t latencySets() const { return latency_; }
  /// The uniquely mapped kernel circuits a node producing either window variant of this kernel
  /// width on demand needs (digest §5.3): the distinct window start entries of both variants
  /// when each runs at its own lag over the common window of max(retainedSets) + 1 sets.
  int64_t distinctKernelMappings() const { return distinctKernelMappings(in_.lanes, kCols_); }
  static int64_t distinctKernelMappings(int64_t lanes, int64_t kernelCols);

  int64_t step(std::span<const Value> in, std::vector<Value>& out) override;
  /// RST/INIT: back to the first position of frame 0, every FIFO emptied.
  void reset();

private:
  void produce(int64_t row, int64_t outSet); // one output set's kernel rows and row chain
  void schedule(int64_t outRow, int64_t outSet, const Value* values, int64_t validValues);
  void shiftWindow(std::span<const Value> set, int64_t validLanes); // empty: a zero set

  NUpFormat in_, out_;
  int64_t kRows_, kCols_, anchorRow_, anchorCol_;
  bool same_;
  int64_t lag_, retained_, startOffset_, rowLag_, latency_;
  std::vector<Value> weights_; ///< [m][n][ci][co]
  std::vector<Value> bias_;
  std::vector<Value> window_;  ///< (retained + 1) sets of lanes x inChannels
  std::vector<Value> rowSums_; ///< kRows x lanes x outChannels
  std::vector<Value> rowFifo_; ///< (kRows - 1) x outSets x lanes x outChannels
  std::vector<Value> wheel_;   ///< emission slots (retain/insert and truncated rows)
  std::vector<int64_t> wheelDue_;
  SourceCounters counters_;
  int64_t steps_ = 0, frameStart_ = 0;
};

/// Which way a 2x2 stride-2 MaxPool shrinks an N-up stream (digest §5.4).
enum class NUpPoolLanes {
  Auto,   ///< Reduce when the lane count is even, otherwise Keep (the preferred rule)
  Reduce, ///< N -> N/2 lanes, one output set per input set (Figs. 24A/B)
  Keep,   ///< N lanes, one output set per two input sets of a row (Fig. 25)
};

/// 2x2 stride-2 MaxPool on an N-up stream (floor mode: a last odd column or row is dropped).
/// On the first row of each pair, comparators take the maximum of each column pair into a FIFO
/// of one row's pair maxima; on the second row they take the maximum of the FIFO entry and the
/// current pair and emit it. Reduce: each input set holds N/2 pairs and yields an N/2-up set in
/// the same step (4-up -> 2-up, 2-up -> 1-up). Keep: the previous set is retained and the
/// 2N-entry window of previous + current set holds N pairs, (prev p0, prev p1) .. (cur p3, cur
/// p4) for 5-up; an N-up set is emitted on every second set of a row (and on a row's last set
/// when the row has an odd number of sets, with zeros after it).
class NUpMaxPool final : public StreamStage {
public:
  /// Throws nnaccel::Error (Config) on an invalid format or an array narrower or shorter than
  /// 2, (Unsupported) for Reduce on an odd lane count.
  explicit NUpMaxPool(const NUpFormat& input, NUpPoolLanes lanes = NUpPoolLanes::Auto);

  FrameShape inputShape() const override { return in_.shape(); }
  FrameShape outputShape() const override { return out_.shape(); }
  const NUpFormat& inputFormat() const { return in_; }
  /// floor(rows/2) x floor(width/2), N/2 lanes when reducing, N otherwise.
  const NUpFormat& outputFormat() const { return out_; }
  bool reducesLanes() const { return group_ == 1; }
  /// Comparator circuits (one per output lane): 2 for 4-up -> 2-up, 5 for 5-up (Fig. 25).
  int64_t comparators() const { return out_.lanes; }
  /// Steps from the input set (0, 0) of a frame to the emission of its output set (0, 0).
  int64_t latencySets() const;

  int64_t step(std::span<const Value> in, std::vector<Value>& out) override;
  void reset();

private:
  NUpFormat in_, out_;
  int64_t group_;             ///< input sets per output set: 1 (Reduce) or 2 (Keep)
  std::vector<Value> window_; ///< group sets of lanes x channels
  std::vector<Value> pairs_;  ///< one output set of pair maxima
  std::vector<Value> fifo_;   ///< one row of pair maxima: outSets x outLanes x channels
  SourceCounters counters_;
};

/// The repack FIFO of Figs. 26A/B: an M-up stream becomes an N-up stream of the same array.
/// The FIFO stores individual entries (one column's channels); each step it takes the valid
/// entries of the input set (the per-row valid counter drops the invalid ones of a partial
/// set) and emits an N-up set whenever N entries are held, plus a final zero-padded partial set
/// when a row is complete. Per row, ceil(width/M) sets in give ceil(width/N) sets out (width 10,
/// 4-up -> 2-up: 3 -> 5, not 6; f_out = f_in * M/N only when both divide the width).
class RepackFifo final : public StreamStage {
public:
  /// Throws nnaccel::Error (Config) on an invalid format or output lane count.
  RepackFifo(const NUpFormat& input, int64_t outLanes);

  FrameShape inputShape() const override { return in_.shape(); }
  FrameShape outputShape() const override { return out_.shape(); }
  const NUpFormat& inputFormat() const { return in_; }
  const NUpFormat& outputFormat() const { return out_; }
  /// Entries the FIFO must hold so nothing is lost: M + N - 1 (held before emitting).
  int64_t capacityEntries() const { return in_.lanes + out_.lanes - 1; }
  /// The most entries held at once (after taking an input set, before emitting) so far.
  int64_t peakOccupancyEntries() const { return peak_; }

  int64_t step(std::span<const Value> in, std::vector<Value>& out) override;
  void reset();

private:
  NUpFormat in_, out_;
  std::vector<Value> ring_; ///< capacityEntries() entries of channels values
  int64_t head_ = 0, count_ = 0, rowEntries_ = 0, peak_ = 0;
  SourceCounters counters_;
};

} // namespace nnaccel::arch::stream::patent
