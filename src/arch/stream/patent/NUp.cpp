/// \file
/// Patent model (see NUp.h): an executable model of the patent kept to check the text's worked
/// examples; the stream engine's compiler and simulator do not use it.
///
/// N-up streams (NUp.h, digest §5): the set format and its packing, the N-up everted
/// convolution (Figs. 21-23), the 2x2 MaxPool that reduces or keeps N (Figs. 24-25) and the
/// M-up -> N-up repack FIFO (Fig. 26).
#include "nnaccel/arch/stream/patent/NUp.h"

#include "nnaccel/support/IntMath.h"

#include <algorithm>
#include <fmt/format.h>
#include <set>
#include <string>
#include <utility>

namespace nnaccel::arch::stream::patent {

namespace {

[[noreturn]] void configError(const std::string& key, std::string reason) {
  throw Error(ErrorKind::Config, ErrorContext{.key = key}, std::move(reason));
}

size_t idx(int64_t i) {
  return static_cast<size_t>(i);
}

/// Copies the valid lanes of an input set into a set of \p setValues values and zeroes the
/// invalid ones (partial sets; an empty \p in with no valid lanes gives a zero set).
void loadSet(std::span<const Value> in, int64_t validLanes, int64_t channels, Value* dst,
             int64_t setValues) {
  const int64_t validValues = validLanes * channels;
  std::copy(in.begin(), in.begin() + validValues, dst);
  std::fill(dst + validValues, dst + setValues, 0);
}

/// Where a conv lane's window starts and how far the output lags (NUpConv's class comment).
struct Alignment {
  int64_t lag, retained, startOffset;
};

Alignment alignment(int64_t lanes, int64_t kernelCols, int64_t anchorCol) {
  const int64_t before = ceilDiv(anchorCol, lanes); // sets left of the output set
  Alignment a;
  a.lag = (lanes + kernelCols - 2 - anchorCol) / lanes;
  a.retained = a.lag + before;
  a.startOffset = lanes * before - anchorCol;
  return a;
}

} // namespace

// ---------------------------------------------------------------------------------------------
// Format

int64_t NUpFormat::validLanes(int64_t set) const {
  return std::clamp<int64_t>(width - set * lanes, 0, lanes);
}

FrameShape NUpFormat::shape() const {
  return FrameShape{rows, setsPerRow(), lanes * channels};
}

void NUpFormat::validate() const {
  const std::pair<const char*, int64_t> fields[] = {
      {"lanes", lanes}, {"width", width}, {"rows", rows}, {"channels", channels}};
  for (const auto& [key, v] : fields) {
    if (v < 1) {
      configError(key, fmt::format("N-up {}={} must be at least 1", key, v));
    }
  }
}

std::vector<Value> packNUp(std::span<const Value> frame, const NUpFormat& f) {
  f.validate();
  const int64_t expected = f.rows * f.width * f.channels;
  if (static_cast<int64_t>(frame.size()) != expected) {
    throw Error(ErrorKind::Usage, ErrorContext{.key = "frame"},
                fmt::format("frame of {} values for a {}x{}x{} array (expected {})", frame.size(),
                            f.rows, f.width, f.channels, expected));
  }
  std::vector<Value> sets(idx(f.shape().values()), 0);
  const int64_t setValues = f.lanes * f.channels;
  for (int64_t r = 0; r < f.rows; ++r) {
    for (int64_t s = 0; s < f.setsPerRow(); ++s) {
      const auto src = frame.begin() + (r * f.width + s * f.lanes) * f.channels;
      std::copy(src, src + f.validLanes(s) * f.channels,
                sets.begin() + (r * f.setsPerRow() + s) * setValues);
    }
  }
  return sets;
}

std::vector<Value> unpackNUp(std::span<const Value> sets, const NUpFormat& f) {
  f.validate();
  if (static_cast<int64_t>(sets.size()) != f.shape().values()) {
    throw Error(ErrorKind::Usage, ErrorContext{.key = "frame"},
                fmt::format("{} values for {} {}-up sets of {} channels (expected {})", sets.size(),
                            f.rows * f.setsPerRow(), f.lanes, f.channels, f.shape().values()));
  }
  std::vector<Value> frame(idx(f.rows * f.width * f.channels));
  const int64_t setValues = f.lanes * f.channels;
  for (int64_t r = 0; r < f.rows; ++r) {
    for (int64_t s = 0; s < f.setsPerRow(); ++s) {
      const auto src = sets.begin() + (r * f.setsPerRow() + s) * setValues;
      std::copy(src, src + f.validLanes(s) * f.channels,
                frame.begin() + (r * f.width + s * f.lanes) * f.channels);
    }
  }
  return frame;
}

// ---------------------------------------------------------------------------------------------
// NUpConv

namespace {

NUpFormat validatedConvInput(const NUpFormat& in, const NUpConvSpec& s) {
  in.validate();
  if (s.kernelRows < 1 || s.kernelCols < 1) {
    configError("kernel",
                fmt::format("kernel {}x{} must be at least 1x1", s.kernelRows, s.kernelCols));
  }
  if (s.kernelCols > in.width) {
    configError("kernel", fmt::format("kernel {}x{} is wider than the array (width {})",
                                      s.kernelRows, s.kernelCols, in.width));
  }
  if (s.kernelRows > in.rows) {
    configError("kernel", fmt::format("kernel {}x{} is taller than the array (rows {})",
                                      s.kernelRows, s.kernelCols, in.rows));
  }
  if (s.outChannels < 1) {
    configError("outChannels", fmt::format("outChannels={} must be at least 1", s.outChannels));
  }
  const int64_t expected = s.outChannels * in.channels * s.kernelRows * s.kernelCols;
  if (static_cast<int64_t>(s.weights.size()) != expected) {
    configError("weights",
                fmt::format("{} weights for {} outputs x {} inputs x {}x{} (expected {})",
                            s.weights.size(), s.outChannels, in.channels, s.kernelRows,
                            s.kernelCols, expected));
  }
  if (!s.bias.empty() && static_cast<int64_t>(s.bias.size()) != s.outChannels) {
    configError("bias",
                fmt::format("{} bias values for {} output channels", s.bias.size(), s.outChannels));
  }
  return in;
}

} // namespace

NUpConv::NUpConv(const NUpFormat& input, NUpConvSpec spec)
    : in_(validatedConvInput(input, spec)), out_(input), kRows_(spec.kernelRows),
      kCols_(spec.kernelCols), same_(spec.window == NUpWindow::Same),
      counters_(input.rows, input.setsPerRow()) {
  anchorRow_ = same_ ? kRows_ / 2 : 0;
  anchorCol_ = same_ ? kCols_ / 2 : 0;
  out_.channels = spec.outChannels;
  if (!same_) {
    out_.width = in_.width - kCols_ + 1;
    out_.rows = in_.rows - kRows_ + 1;
  }
  const Alignment a = alignment(in_.lanes, kCols_, anchorCol_);
  lag_ = a.lag;
  retained_ = a.retained;
  startOffset_ = a.startOffset;
  rowLag_ = kRows_ - 1 - anchorRow_; // input rows past an output row's own (T, or M - 1)
  const int64_t inSets = in_.setsPerRow();
  latency_ = rowLag_ * inSets + lag_;

  const int64_t cin = in_.channels, cout = out_.channels, lanes = in_.lanes;
  weights_.resize(spec.weights.size());
  for (int64_t co = 0; co < cout; ++co) {
    for (int64_t ci = 0; ci < cin; ++ci) {
      for (int64_t m = 0; m < kRows_; ++m) {
        for (int64_t n = 0; n < kCols_; ++n) {
          weights_[idx(((m * kCols_ + n) * cin + ci) * cout + co)] =
              spec.weights[idx(((co * cin + ci) * kRows_ + m) * kCols_ + n)];
        }
      }
    }
  }
  bias_ = spec.bias.empty() ? std::vector<Value>(idx(cout), 0) : std::move(spec.bias);
  window_.assign(idx((retained_ + 1) * lanes * cin), 0);
  rowSums_.assign(idx(kRows_ * lanes * cout), 0);
  rowFifo_.assign(idx((kRows_ - 1) * out_.setsPerRow() * lanes * cout), 0);
  // The longest wait between computing an output set and its slot: a truncated row computed
  // at the last input row's last set (same mode), or a right-edge set of any row.
  const int64_t wheelSlots = (same_ ? rowLag_ * inSets : 0) + lag_ + 1;
  wheel_.assign(idx(wheelSlots * lanes * cout), 0);
  wheelDue_.assign(idx(wheelSlots), -1);
}

int64_t NUpConv::windowStart(int64_t lane) const {
  NNACCEL_ASSERT(lane >= 0 && lane < in_.lanes) << "lane " << lane << " of " << in_.lanes;
  return startOffset_ + lane;
}

int64_t NUpConv::distinctKernelMappings(int64_t lanes, int64_t kernelCols) {
  NNACCEL_ASSERT(lanes >= 1 && kernelCols >= 1) << lanes << "-up, width " << kernelCols;
  const Alignment valid = alignment(lanes, kernelCols, 0);
  const Alignment same = alignment(lanes, kernelCols, kernelCols / 2);
  const int64_t retained = std::max(valid.retained, same.retained);
  std::set<int64_t> starts;
  for (const Alignment& a : {valid, same}) {
    // In the common window, this variant's window begins (retained - a.retained) sets later.
    for (int64_t k = 0; k < lanes; ++k) {
      starts.insert((retained - a.retained) * lanes + a.startOffset + k);
    }
  }
  return static_cast<int64_t>(starts.size());
}

void NUpConv::reset() {
  counters_.reset();
  steps_ = frameStart_ = 0;
  std::fill(wheelDue_.begin(), wheelDue_.end(), -1);
  std::fill(rowFifo_.begin(), rowFifo_.end(), 0);
  std::fill(window_.begin(), window_.end(), 0);
}

void NUpConv::shiftWindow(std::span<const Value> set, int64_t validLanes) {
  const int64_t setValues = in_.lanes * in_.channels;
  std::copy(window_.begin() + setValues, window_.end(), window_.begin());
  loadSet(set, validLanes, in_.channels, window_.data() + retained_ * setValues, setValues);
}

void NUpConv::produce(int64_t row, int64_t outSet) {
  if (outSet < 0 || outSet >= out_.setsPerRow()) {
    return;
  }
  const int64_t cin = in_.channels, cout = out_.channels, lanes = in_.lanes;
  const int64_t validLanes = out_.validLanes(outSet);
  const int64_t validValues = validLanes * cout;
  // Every kernel row's horizontal sum for every valid lane (the duplicated kernel circuits).
  std::fill(rowSums_.begin(), rowSums_.end(), 0);
  for (int64_t m = 0; m < kRows_; ++m) {
    for (int64_t k = 0; k < validLanes; ++k) {
      Value* acc = rowSums_.data() + (m * lanes + k) * cout;
      const Value* x = window_.data() + (startOffset_ + k) * cin;
      const Value* w = weights_.data() + m * kCols_ * cin * cout;
      for (int64_t nc = 0; nc < kCols_ * cin; ++nc) {
        const Value v = x[nc];
        if (v == 0) {
          continue;
        }
        const Value* wRow = w + nc * cout;
        for (int64_t co = 0; co < cout; ++co) {
          acc[co] += v * wRow[co];
        }
      }
    }
  }
  // The row chain, bottom kernel row first so each row FIFO slot is read before it is
  // overwritten: slot outSet holds the previous input row's partial sum of that output set.
  const int64_t slotValues = lanes * cout;
  const int64_t fifoValues = out_.setsPerRow() * slotValues;
  for (int64_t m = kRows_ - 1; m >= 0; --m) {
    const Value* sums = rowSums_.data() + m * slotValues;
    Value* dst = m == kRows_ - 1 ? rowSums_.data() + m * slotValues
                                 : rowFifo_.data() + m * fifoValues + outSet * slotValues;
    if (m == 0 || row == 0) { // init: bias (first kernel row, or no row above in this frame)
      for (int64_t v = 0; v < validValues; ++v) {
        dst[v] = bias_[idx(v % cout)] + sums[v];
      }
    } else { // above: the previous input row's partial sum of kernel row m - 1
      const Value* above = rowFifo_.data() + (m - 1) * fifoValues + outSet * slotValues;
      for (int64_t v = 0; v < validValues; ++v) {
        dst[v] = above[v] + sums[v];
      }
    }
    if (m == kRows_ - 1) {
      if (row - rowLag_ >= 0) {
        schedule(row - rowLag_, outSet, dst, validValues);
      }
    } else if (same_ && row == in_.rows - 1 && m >= anchorRow_) {
      // Truncated bottom row: the rows below the frame contribute nothing.
      schedule(row - m + anchorRow_, outSet, dst, validValues);
    }
  }
}

void NUpConv::schedule(int64_t outRow, int64_t outSet, const Value* values, int64_t validValues) {
  const int64_t due = frameStart_ + (outRow + rowLag_) * in_.setsPerRow() + outSet + lag_;
  const int64_t slots = static_cast<int64_t>(wheelDue_.size());
  NNACCEL_ASSERT(due >= steps_ && due - steps_ < slots)
      << "output set due at step " << due << " computed at step " << steps_;
  const size_t slot = idx(due % slots);
  NNACCEL_ASSERT(wheelDue_[slot] < 0) << "two output sets due at step " << due;
  wheelDue_[slot] = due;
  const int64_t setValues = out_.lanes * out_.channels;
  Value* dst = wheel_.data() + static_cast<int64_t>(slot) * setValues;
  std::copy(values, values + validValues, dst);
  std::fill(dst + validValues, dst + setValues, 0); // suppressed lanes past the row's end
}

int64_t NUpConv::step(std::span<const Value> in, std::vector<Value>& out) {
  const Control c = counters_.next(!in.empty());
  if (c.srcEn) {
    NNACCEL_ASSERT(static_cast<int64_t>(in.size()) == in_.lanes * in_.channels)
        << "set of " << in.size() << " values for " << in_.lanes << "-up x " << in_.channels;
    if (c.rowFirst && c.colFirst) {
      frameStart_ = steps_;
    }
    if (c.colFirst) { // nothing left of column 0
      std::fill(window_.begin(), window_.end(), 0);
    }
    shiftWindow(in, in_.validLanes(c.col));
    produce(c.row, c.col - lag_);
    if (c.colLast) { // the row's right-edge output sets: past the row's end everything is zero
      for (int64_t e = 1; e <= lag_; ++e) {
        shiftWindow({}, 0);
        produce(c.row, c.col - lag_ + e);
      }
    }
  }
  int64_t emitted = 0;
  const size_t slot = idx(steps_ % static_cast<int64_t>(wheelDue_.size()));
  if (wheelDue_[slot] == steps_) {
    const int64_t setValues = out_.lanes * out_.channels;
    const auto src = wheel_.begin() + static_cast<int64_t>(slot) * setValues;
    out.insert(out.end(), src, src + setValues);
    wheelDue_[slot] = -1;
    emitted = 1;
  }
  ++steps_;
  return emitted;
}

// ---------------------------------------------------------------------------------------------
// NUpMaxPool

namespace {

NUpFormat validatedPoolInput(const NUpFormat& in, NUpPoolLanes lanes) {
  in.validate();
  if (in.width < 2 || in.rows < 2) {
    configError("width", fmt::format("array {}x{} is too small for a 2x2 pool", in.rows, in.width));
  }
  if (lanes == NUpPoolLanes::Reduce && in.lanes % 2 != 0) {
    throw Error(ErrorKind::Unsupported, ErrorContext{.key = "lanes"},
                fmt::format("cannot reduce a {}-up stream by the pool's horizontal stride 2 "
                            "(the lane count must be even)",
                            in.lanes));
  }
  return in;
}

} // namespace

NUpMaxPool::NUpMaxPool(const NUpFormat& input, NUpPoolLanes lanes)
    : in_(validatedPoolInput(input, lanes)), out_(input),
      group_(lanes == NUpPoolLanes::Keep || (lanes == NUpPoolLanes::Auto && input.lanes % 2 != 0)
                 ? 2
                 : 1),
      counters_(input.rows, input.setsPerRow()) {
  out_.width = in_.width / 2;
  out_.rows = in_.rows / 2;
  out_.lanes = group_ == 1 ? in_.lanes / 2 : in_.lanes;
  window_.assign(idx(group_ * in_.lanes * in_.channels), 0);
  pairs_.assign(idx(out_.lanes * out_.channels), 0);
  fifo_.assign(idx(out_.setsPerRow() * out_.lanes * out_.channels), 0);
}

int64_t NUpMaxPool::latencySets() const {
  return in_.setsPerRow() + std::min(group_, in_.setsPerRow()) - 1;
}

void NUpMaxPool::reset() {
  counters_.reset();
  std::fill(window_.begin(), window_.end(), 0);
  std::fill(fifo_.begin(), fifo_.end(), 0);
}

int64_t NUpMaxPool::step(std::span<const Value> in, std::vector<Value>& out) {
  const Control c = counters_.next(!in.empty());
  if (!c.srcEn) {
    return 0; // every output set leaves with its last input set
  }
  const int64_t channels = in_.channels, setValues = in_.lanes * channels;
  NNACCEL_ASSERT(static_cast<int64_t>(in.size()) == setValues)
      << "set of " << in.size() << " values for " << in_.lanes << "-up x " << channels;
  // Keep: the window is previous set + current set; a row's first set has no previous one.
  if (group_ == 2) {
    std::copy(window_.begin() + setValues, window_.end(), window_.begin());
  }
  loadSet(in, in_.validLanes(c.col), channels, window_.data() + (group_ - 1) * setValues,
          setValues);
  if (group_ == 2 && c.col % 2 == 0) {
    if (!c.colLast) {
      return 0; // the first set of a pair: wait for the second
    }
    // A row with an odd number of sets: its last set pairs with zeros.
    std::copy(window_.begin() + setValues, window_.end(), window_.begin());
    std::fill(window_.begin() + setValues, window_.end(), 0);
  }
  const int64_t outSet = c.col / group_;
  const bool pairedRow = c.row % 2 == 1;
  if (outSet >= out_.setsPerRow() || (!pairedRow && c.row == in_.rows - 1)) {
    return 0; // a lone last column or row (floor mode)
  }
  const int64_t validValues = out_.validLanes(outSet) * channels;
  for (int64_t v = 0; v < validValues; ++v) { // comparators on column pairs
    const int64_t lane = v / channels, ch = v % channels;
    pairs_[idx(v)] = std::max(window_[idx((2 * lane) * channels + ch)],
                              window_[idx((2 * lane + 1) * channels + ch)]);
  }
  Value* rowMax = fifo_.data() + outSet * out_.lanes * channels;
  if (!pairedRow) { // first row of the pair: retain one row of pair maxima
    std::copy(pairs_.begin(), pairs_.begin() + validValues, rowMax);
    return 0;
  }
  for (int64_t v = 0; v < validValues; ++v) {
    out.push_back(std::max(rowMax[v], pairs_[idx(v)]));
  }
  out.insert(out.end(), idx(out_.lanes * channels - validValues), 0);
  return 1;
}

// ---------------------------------------------------------------------------------------------
// RepackFifo

namespace {

NUpFormat validatedRepackInput(const NUpFormat& in, int64_t outLanes) {
  in.validate();
  if (outLanes < 1) {
    configError("outLanes", fmt::format("repack to {}-up: outLanes must be at least 1", outLanes));
  }
  return in;
}

} // namespace

RepackFifo::RepackFifo(const NUpFormat& input, int64_t outLanes)
    : in_(validatedRepackInput(input, outLanes)), out_(input),
      counters_(input.rows, input.setsPerRow()) {
  out_.lanes = outLanes;
  ring_.assign(idx(capacityEntries() * in_.channels), 0);
}

void RepackFifo::reset() {
  counters_.reset();
  head_ = count_ = rowEntries_ = peak_ = 0;
}

int64_t RepackFifo::step(std::span<const Value> in, std::vector<Value>& out) {
  const Control c = counters_.next(!in.empty());
  if (!c.srcEn) {
    return 0; // a row's sets all leave by its last input set
  }
  const int64_t channels = in_.channels, capacity = capacityEntries();
  NNACCEL_ASSERT(static_cast<int64_t>(in.size()) == in_.lanes * channels)
      << "set of " << in.size() << " values for " << in_.lanes << "-up x " << channels;
  const int64_t valid = in_.validLanes(c.col); // the per-row valid counter
  NNACCEL_ASSERT(count_ + valid <= capacity) << "repack FIFO overflow";
  for (int64_t e = 0; e < valid; ++e) {
    const int64_t slot = (head_ + count_ + e) % capacity;
    std::copy(in.begin() + e * channels, in.begin() + (e + 1) * channels,
              ring_.begin() + slot * channels);
  }
  count_ += valid;
  rowEntries_ += valid;
  peak_ = std::max(peak_, count_);
  const bool rowDone = rowEntries_ == in_.width;
  int64_t emitted = 0;
  while (count_ >= out_.lanes || (rowDone && count_ > 0)) {
    const int64_t take = std::min(count_, out_.lanes);
    for (int64_t e = 0; e < take; ++e) {
      const auto src = ring_.begin() + ((head_ + e) % capacity) * channels;
      out.insert(out.end(), src, src + channels);
    }
    out.insert(out.end(), idx((out_.lanes - take) * channels), 0); // padded partial set
    head_ = (head_ + take) % capacity;
    count_ -= take;
    ++emitted;
  }
  if (rowDone) {
    rowEntries_ = 0;
  }
  return emitted;
}

} // namespace nnaccel::arch::stream::patent
