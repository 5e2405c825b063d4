/// \file
/// The everted 2-D aperture engine (seed 002, digest §2 and §4): an M x N convolution computed
/// one stream position at a time. Every input is used once, when it arrives: each compositor
/// (m, n) adds its products to the partial sum of the patch in which the input sits at (m, n);
/// partial sums move right along a kernel row, wait in a row FIFO for the next input row, and
/// leave the last compositor (M-1, N-1) complete. The right edge is closed by the retain/insert
/// mux (1106), the bottom edge by the truncated-row FIFOs (909/910), and a pluggable
/// finalization (1403, e.g. ReLU) is applied to every completed output position.
///
/// The model is the digest's exact cycle algorithm (§4.5) run per stream position: output
/// (i, j) of frame f leaves at step f*R*C + i*C + j + Lat, Lat = (M-1-ay)*C + (N-1-ax), bottom
/// truncated rows included ("identical timing" mode), so back-to-back frames give one unbroken
/// output stream and the last frame's tail is flushed by Lat post steps. Arithmetic is
/// correlation (ONNX Conv, no flip) with "same" zero padding, bit-exact in int32.
#pragma once

#include "nnaccel/arch/stream/Stream.h"

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

namespace nnaccel::arch::stream {

/// One convolution kernel for the aperture engine.
struct ApertureKernel {
  int64_t kernelRows = 0, kernelCols = 0; ///< M, N (any >= 1)
  int64_t inChannels = 0, outChannels = 0;
  /// ay, ax: the kernel element that lands on the output position; -1 = floor(M/2), floor(N/2)
  /// (the patent's anchor, right of and below the middle for even sizes).
  int64_t anchorRow = -1, anchorCol = -1;
  std::vector<Value> weights; ///< [outChannels][inChannels][M][N] (ONNX OIHW), correlation
  std::vector<Value> bias;    ///< per output channel, empty = zeros (the init value, 1005)
};

/// The compositor classes of digest §4.3 (Figs. 10A-G): which sources a compositor selects.
enum class CompositorClass {
  C901, ///< (0, 0): init only
  C902, ///< (0, 1..ax): left, else init at COLFST
  C903, ///< (m, ax+1..N-1): left only (its COLFST input is a don't-care)
  C904, ///< (1..ay, 0): above, else init at ROWFST
  C905, ///< (1..ay, 1..ax): left / above / init
  C906, ///< (ay+1..M-1, 0): above only
  C907, ///< (ay+1..M-1, 1..ax): left, else above at COLFST
};

/// The class of compositor (m, n) of an M x N kernel anchored at (ay, ax). Throws
/// nnaccel::Error (Config) when the anchor or (m, n) is outside the kernel.
CompositorClass compositorClass(int64_t M, int64_t N, int64_t ay, int64_t ax, int64_t m, int64_t n);

/// Finalization (1403, Fig. 14): applied in place to each completed output position's sums
/// (all output channels). Empty: identity.
using Finalizer = std::function<void(std::span<Value> sums)>;

/// The output side of one step (the destination counters of Fig. 8B).
struct DestinationFlags {
  bool dstEn = false;     ///< DSTEN: this step emits an output position
  bool truncated = false; ///< the position comes from the truncated-row FIFOs (mux 1402)
  int64_t row = 0;        ///< rowDst
  int64_t col = 0;        ///< colDst
  int64_t frame = 0;      ///< the output position's frame
};

/// The everted engine for one convolution (all output channels: one compositor bank per output
/// channel, shared control). Steps are stream positions: an accepted input position (SRCEN) or a
/// post step (empty input, POSTEN) that keeps the counters and delay lines running to flush the
/// last frame. A new frame may follow any number of post steps.
///
/// One deliberate refinement of §4.5: mux 1106 inserts the retained values in the K steps
/// after COLLST (a small counter) instead of testing colSrc < K. Both are the same in an
/// unbroken stream; the counter stays right when a new frame starts fewer than K post steps
/// after the last one, where colSrc restarts at 0 and would insert the wrong retained values.
class EvertedConv final : public StreamStage {
public:
  /// Throws nnaccel::Error (Config) with a one-line message when the array is narrower than the
  /// kernel, the frame is empty, the kernel sizes, channel counts, anchor, weights or bias do not
  /// fit.
  EvertedConv(FrameShape input, ApertureKernel kernel, Finalizer finalize = {});

  FrameShape inputShape() const override { return input_; }
  /// Same rows and columns ("same" zero padding), outChannels.
  FrameShape outputShape() const override;
  int64_t step(std::span<const Value> in, std::vector<Value>& out) override;

  /// Lat = (M-1-ay)*C + (N-1-ax): steps from input (i, j) to output (i, j).
  int64_t latencyPositions() const { return T_ * C_ + K_; }
  /// C-N+1: the patent's C-N FIFO entries plus the output register.
  int64_t rowFifoDelayPositions() const { return C_ - N_ + 1; }
  /// M-1-ay truncated-row lines (909/910), C entries each.
  int64_t truncatedFifoCount() const { return T_; }
  /// Every value held in row FIFOs, left-edge taps, retain registers, truncated FIFOs and
  /// compositor registers (all output channels); FIFO bits = storedValues() * value bits.
  int64_t storedValues() const;
  /// M*N*inChannels*outChannels.
  int64_t multipliesPerPosition() const { return M_ * N_ * Cin_ * Cout_; }
  /// The source flags of the last step (for tests).
  const Control& lastControl() const { return control_; }
  /// The destination flags of the last step (for tests).
  const DestinationFlags& lastDestination() const { return destination_; }

private:
  /// A delay line of `depth` positions whose entries are `lanes` values wide (one per output
  /// channel): the lane-wide form of PositionDelay, with access to recent entries for the
  /// left-edge taps.
  class LaneRing {
  public:
    LaneRing(int64_t depth, int64_t lanes);
    /// The entry pushed `depth` pushes ago: what the next push overwrites (the FIFO head).
    const Value* oldest() const { return data_.data() + head_ * lanes_; }
    /// The entry pushed k pushes ago, 1 <= k <= depth.
    const Value* recent(int64_t k) const;
    void push(const Value* lanes);
    int64_t values() const { return static_cast<int64_t>(data_.size()); }

  private:
    int64_t depth_, lanes_;
    int64_t head_ = 0;
    std::vector<Value> data_;
  };

  /// Throws the constructor's errors; returns \p input.
  static FrameShape validated(const FrameShape& input, const ApertureKernel& kernel);
  const Value* rowSource(int64_t m, int64_t n) const;

  FrameShape input_;
  int64_t M_, N_, ay_, ax_, K_, T_, R_, C_, Cin_, Cout_;
  std::vector<Value> weights_; ///< [ic][m][n][oc]: the inner loop over oc is contiguous
  std::vector<Value> bias_;    ///< [oc]
  std::vector<Value> zeros_;   ///< [oc]: the don't-care source
  Finalizer finalize_;

  SourceCounters counters_;
  Control control_;
  DestinationFlags destination_;
  PositionDelay<DestinationFlags> dstDelay_; ///< DSTEN: SRCEN and its position, Lat steps late

  std::vector<Value> registers_;     ///< out[m][n][oc]: the compositors' registered outputs
  std::vector<Value> retained_;      ///< ret[m][ax..N-2][oc]: captured at COLLST (1104..1105)
  std::vector<LaneRing> rowFifos_;   ///< m = 0..M-2: FIFO 1107 plus output register
  std::vector<LaneRing> taps_;       ///< m = 0..M-2: registers 1109..1110 (ax entries)
  std::vector<LaneRing> truncated_;  ///< line k holds compositor row M-2-k (909/910 chain)
  std::vector<char> lineCaptures_;   ///< line k's row M-2-k is a real output row (captures)
  std::vector<const Value*> select_; ///< sel[m]: the mux 1106 outputs of this step
  int64_t stepsSinceColLast_;        ///< drives mux 1106 (c < K in an unbroken stream)
  int64_t captureLeft_ = 0;          ///< steps left in the truncated capture window
};

} // namespace nnaccel::arch::stream
