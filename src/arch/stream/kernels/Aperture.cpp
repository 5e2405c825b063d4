/// \file
/// The everted 2-D aperture engine (Aperture.h): the digest §4.5 state machine per stream
/// position, with the bottom truncated rows emitted in the "identical timing" mode.
#include "nnaccel/arch/stream/Aperture.h"

#include <algorithm>
#include <cstring>
#include <fmt/format.h>

namespace nnaccel::arch::stream {

namespace {

[[noreturn]] void configError(std::string reason) {
  throw Error(ErrorKind::Config, {}, std::move(reason));
}

size_t idx(int64_t i) {
  return static_cast<size_t>(i);
}

void copyLanes(Value* dst, const Value* src, int64_t lanes) {
  std::memcpy(dst, src, static_cast<size_t>(lanes) * sizeof(Value));
}

/// Resolves the default anchor (-1 = floor(size/2)).
int64_t anchorOf(int64_t requested, int64_t size) {
  return requested == -1 ? size / 2 : requested;
}

void checkAnchor(int64_t M, int64_t N, int64_t ay, int64_t ax) {
  if (ay < 0 || ay >= M || ax < 0 || ax >= N) {
    configError(fmt::format("kernel anchor ({}, {}) is outside the {}x{} kernel", ay, ax, M, N));
  }
}

} // namespace

CompositorClass compositorClass(int64_t M, int64_t N, int64_t ay, int64_t ax, int64_t m,
                                int64_t n) {
  if (M < 1 || N < 1) {
    configError(fmt::format("kernel size {}x{} must be at least 1x1", M, N));
  }
  checkAnchor(M, N, ay, ax);
  if (m < 0 || m >= M || n < 0 || n >= N) {
    configError(fmt::format("compositor ({}, {}) is outside the {}x{} kernel", m, n, M, N));
  }
  if (n > ax) {
    return CompositorClass::C903;
  }
  const int band = m == 0 ? 0 : m <= ay ? 1 : 2; // first row, rows 1..ay, rows below the anchor
  static constexpr CompositorClass kLeftEdge[] = {CompositorClass::C901, CompositorClass::C904,
                                                  CompositorClass::C906};
  static constexpr CompositorClass kInner[] = {CompositorClass::C902, CompositorClass::C905,
                                               CompositorClass::C907};
  return n == 0 ? kLeftEdge[band] : kInner[band];
}

EvertedConv::LaneRing::LaneRing(int64_t depth, int64_t lanes)
    : depth_(depth), lanes_(lanes), data_(idx(depth * lanes), 0) {
  NNACCEL_ASSERT(depth >= 1 && lanes >= 1) << "lane ring " << depth << "x" << lanes;
}

const Value* EvertedConv::LaneRing::recent(int64_t k) const {
  NNACCEL_ASSERT(k >= 1 && k <= depth_) << "entry " << k << " of a " << depth_ << "-deep ring";
  int64_t slot = head_ - k;
  if (slot < 0) {
    slot += depth_;
  }
  return data_.data() + slot * lanes_;
}

void EvertedConv::LaneRing::push(const Value* lanes) {
  copyLanes(data_.data() + head_ * lanes_, lanes, lanes_);
  head_ = head_ + 1 == depth_ ? 0 : head_ + 1;
}

EvertedConv::EvertedConv(FrameShape input, ApertureKernel kernel, Finalizer finalize)
    : input_(validated(input, kernel)), M_(kernel.kernelRows), N_(kernel.kernelCols),
      ay_(anchorOf(kernel.anchorRow, kernel.kernelRows)),
      ax_(anchorOf(kernel.anchorCol, kernel.kernelCols)), K_(N_ - 1 - ax_), T_(M_ - 1 - ay_),
      R_(input.rows), C_(input.cols), Cin_(kernel.inChannels), Cout_(kernel.outChannels),
      finalize_(std::move(finalize)), counters_(R_, C_), dstDelay_(T_ * C_ + K_),
      stepsSinceColLast_(K_) {
  // Weights arrive OIHW; the engine wants [ic][m][n][oc] so that one input value meets a
  // contiguous run of M*N*Cout weights.
  const int64_t taps = M_ * N_;
  weights_.resize(idx(Cin_ * taps * Cout_));
  for (int64_t oc = 0; oc < Cout_; ++oc) {
    for (int64_t ic = 0; ic < Cin_; ++ic) {
      for (int64_t t = 0; t < taps; ++t) {
        weights_[idx((ic * taps + t) * Cout_ + oc)] =
            kernel.weights[idx((oc * Cin_ + ic) * taps + t)];
      }
    }
  }
  bias_ = kernel.bias.empty() ? std::vector<Value>(idx(Cout_), 0) : std::move(kernel.bias);
  zeros_.assign(idx(Cout_), 0);
  registers_.assign(idx(taps * Cout_), 0);
  retained_.assign(idx(M_ * std::max<int64_t>(K_, 1) * Cout_), 0);
  for (int64_t m = 0; m + 1 < M_; ++m) {
    rowFifos_.emplace_back(rowFifoDelayPositions(), Cout_);
    if (ax_ > 0) {
      taps_.emplace_back(ax_, Cout_);
    }
  }
  for (int64_t k = 0; k < T_; ++k) {
    truncated_.emplace_back(C_, Cout_);
    // Line k holds compositor row m = M-2-k, i.e. output row R-1-m+ay: only real rows are
    // captured (with R <= M-1-ay the upper lines pass the chain through instead).
    lineCaptures_.push_back(R_ - 1 - (M_ - 2 - k) + ay_ >= 0 ? 1 : 0);
  }
  select_.assign(idx(M_), nullptr);
}

FrameShape EvertedConv::validated(const FrameShape& input, const ApertureKernel& kernel) {
  const int64_t M = kernel.kernelRows, N = kernel.kernelCols;
  if (M < 1 || N < 1) {
    configError(fmt::format("kernel size {}x{} must be at least 1x1", M, N));
  }
  if (kernel.inChannels < 1 || kernel.outChannels < 1) {
    configError(fmt::format("kernel channels in={} out={} must be at least 1", kernel.inChannels,
                            kernel.outChannels));
  }
  checkAnchor(M, N, anchorOf(kernel.anchorRow, M), anchorOf(kernel.anchorCol, N));
  if (input.rows < 1 || input.cols < 1) {
    configError(fmt::format("frame {}x{} has no positions", input.rows, input.cols));
  }
  if (input.channels != kernel.inChannels) {
    configError(fmt::format("frame has {} channels, the kernel expects inChannels={}",
                            input.channels, kernel.inChannels));
  }
  if (input.cols < N) {
    configError(
        fmt::format("array width C={} is narrower than the kernel width N={}", input.cols, N));
  }
  const int64_t weightCount = kernel.outChannels * kernel.inChannels * M * N;
  if (static_cast<int64_t>(kernel.weights.size()) != weightCount) {
    configError(fmt::format("kernel has {} weights, expected {}x{}x{}x{} = {}",
                            kernel.weights.size(), kernel.outChannels, kernel.inChannels, M, N,
                            weightCount));
  }
  if (!kernel.bias.empty() && static_cast<int64_t>(kernel.bias.size()) != kernel.outChannels) {
    configError(fmt::format("kernel has {} bias values, expected {} (one per output channel)",
                            kernel.bias.size(), kernel.outChannels));
  }
  return input;
}

FrameShape EvertedConv::outputShape() const {
  return {R_, C_, Cout_};
}

int64_t EvertedConv::storedValues() const {
  int64_t values = static_cast<int64_t>(registers_.size()) + M_ * K_ * Cout_;
  for (const auto* lines : {&rowFifos_, &taps_, &truncated_}) {
    for (const LaneRing& ring : *lines) {
      values += ring.values();
    }
  }
  return values;
}

const Value* EvertedConv::rowSource(int64_t m, int64_t n) const {
  if (m == 0 || control_.rowFirst) {
    return bias_.data(); // init (1005)
  }
  if (n == 0) {
    return rowFifos_[idx(m - 1)].oldest(); // above (1007): the row FIFO head
  }
  if (n <= ax_) {
    return taps_[idx(m - 1)].recent(n); // above, left-edge tap (1112..1113)
  }
  return zeros_.data(); // class 903 at COLFST: don't-care
}

int64_t EvertedConv::step(std::span<const Value> in, std::vector<Value>& out) {
  const bool srcEn = !in.empty();
  NNACCEL_ASSERT(!srcEn || static_cast<int64_t>(in.size()) == Cin_)
      << "position of " << in.size() << " values for " << Cin_ << " channels";
  control_ = counters_.next(srcEn);
  const Control& c = control_;
  const int64_t rowValues = N_ * Cout_;

  // Compositor sources (mux 1008): left (shift along the row), else above/init at COLFST.
  for (int64_t m = 0; m < M_; ++m) {
    Value* row = registers_.data() + m * rowValues;
    if (!c.colFirst) {
      std::memmove(row + Cout_, row, idx((N_ - 1) * Cout_) * sizeof(Value));
      copyLanes(row, rowSource(m, 0), Cout_);
    } else {
      for (int64_t n = N_ - 1; n >= 0; --n) {
        copyLanes(row + n * Cout_, rowSource(m, n), Cout_);
      }
    }
  }
  // Own contributions: p[m][n][oc] = sum_ic a_ic * w[oc][ic][m][n], added in place.
  if (srcEn) {
    const int64_t span = M_ * rowValues;
    Value* __restrict acc = registers_.data();
    for (int64_t ic = 0; ic < Cin_; ++ic) {
      const Value a = in[idx(ic)];
      if (a == 0) {
        continue;
      }
      const Value* __restrict w = weights_.data() + ic * span;
      for (int64_t k = 0; k < span; ++k) {
        acc[k] += a * w[k];
      }
    }
  }

  // Mux 1106: the retained right-edge values fill the K steps after COLLST.
  for (int64_t m = 0; m < M_; ++m) {
    select_[idx(m)] = stepsSinceColLast_ < K_
                          ? retained_.data() + (m * K_ + (K_ - 1 - stepsSinceColLast_)) * Cout_
                          : registers_.data() + (m * N_ + N_ - 1) * Cout_;
  }

  // DSTEN and the output (mux 1402: normal rows from row M-1, bottom rows from the truncated
  // chain), then finalization (1403).
  const DestinationFlags dst =
      dstDelay_.push(DestinationFlags{srcEn, false, c.row, c.col, c.frame});
  destination_ = dst;
  destination_.truncated = dst.dstEn && dst.row > R_ - 1 - T_;
  if (dst.dstEn) {
    const Value* value =
        destination_.truncated ? truncated_.front().oldest() : select_[idx(M_ - 1)];
    const size_t at = out.size();
    out.insert(out.end(), value, value + Cout_);
    if (finalize_) {
      finalize_(std::span<Value>(out.data() + at, idx(Cout_)));
    }
  }

  // Row FIFOs 1107 and their left-edge taps.
  for (int64_t m = 0; m + 1 < M_; ++m) {
    LaneRing& fifo = rowFifos_[idx(m)];
    if (ax_ > 0) {
      taps_[idx(m)].push(fifo.oldest());
    }
    fifo.push(select_[idx(m)]);
  }

  // Truncated lines (909/910): during the C steps from input (R-1, K) line k captures
  // compositor row M-2-k; otherwise the lines shift toward line 0, which feeds the output
  // (mux 1303 "the row above"). The patent switches at POSTEN; with frames back to back there
  // is no POSTEN between them, so the switch follows the capture window. Row M-2-k reaches the
  // output (M-1-m)*C steps after capture: exactly its output step i*C + j + Lat.
  if (srcEn && c.row == R_ - 1 && c.col == K_) {
    captureLeft_ = C_;
  }
  const bool capture = captureLeft_ > 0;
  for (int64_t k = 0; k < T_; ++k) {
    const Value* source = capture && lineCaptures_[idx(k)] ? select_[idx(M_ - 2 - k)]
                          : k + 1 < T_                     ? truncated_[idx(k + 1)].oldest()
                                                           : zeros_.data();
    truncated_[idx(k)].push(source);
  }
  captureLeft_ -= capture ? 1 : 0;

  // COLLST: registers 1104..1105 capture compositors (m, ax..N-2).
  if (c.colLast) {
    for (int64_t m = 0; m < M_ && K_ > 0; ++m) {
      std::memcpy(retained_.data() + m * K_ * Cout_, registers_.data() + (m * N_ + ax_) * Cout_,
                  idx(K_ * Cout_) * sizeof(Value));
    }
    stepsSinceColLast_ = 0;
  } else if (stepsSinceColLast_ < K_) {
    ++stepsSinceColLast_;
  }
  return dst.dstEn ? 1 : 0;
}

} // namespace nnaccel::arch::stream
