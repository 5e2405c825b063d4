/// \file
/// The stream engine's patch functions (Patch.h): pooling over the Fig. 50 row-FIFO skeleton,
/// Sample, Expand, Global Average, Dense, Subset, Concat and the aux tile's lane muxes.
#include "nnaccel/arch/stream/Patch.h"

#include "nnaccel/support/IntMath.h"

#include <algorithm>
#include <array>
#include <fmt/format.h>
#include <limits>
#include <string>
#include <utility>

namespace nnaccel::arch::stream {
namespace {

[[noreturn]] void configError(const std::string& key, const std::string& reason) {
  throw Error(ErrorKind::Config, ErrorContext{.key = key}, reason);
}

std::string keyOf(const char* op, const char* field) {
  return fmt::format("{}.{}", op, field);
}

FrameShape checkedShape(const char* op, const FrameShape& s) {
  if (s.rows < 1 || s.cols < 1 || s.channels < 1) {
    configError(keyOf(op, "shape"),
                fmt::format("frame {}x{}x{} must have positive rows, cols and channels", s.rows,
                            s.cols, s.channels));
  }
  return s;
}

/// Validates one pooling axis and resolves its output size (0 = floor mode).
int64_t resolvePoolAxis(const char* op, const char* axis, int64_t in, int64_t kernel,
                        int64_t stride, int64_t padBegin, int64_t padEnd, int64_t out) {
  if (kernel < 1) {
    configError(fmt::format("{}.kernel{}", op, axis),
                fmt::format("kernel {} must be >= 1", kernel));
  }
  if (stride < 1) {
    configError(fmt::format("{}.stride{}", op, axis),
                fmt::format("stride {} must be >= 1", stride));
  }
  if (padBegin < 0 || padEnd < 0 || padBegin >= kernel) {
    configError(fmt::format("{}.pads{}", op, axis),
                fmt::format("pads {},{} must be >= 0 and the leading pad below the kernel {}",
                            padBegin, padEnd, kernel));
  }
  if (out < 0) {
    configError(fmt::format("{}.out{}", op, axis), fmt::format("output size {} is negative", out));
  }
  if (out == 0) {
    out = poolOutputSize(in, kernel, stride, padBegin, padEnd, false);
  }
  const int64_t lastStart = (out - 1) * stride - padBegin;
  if (lastStart >= in) {
    configError(
        fmt::format("{}.out{}", op, axis),
        fmt::format("output {} starts at input {} past the {} inputs", out - 1, lastStart, in));
  }
  return out;
}

PoolWindow resolvePool(const char* op, const FrameShape& in, PoolWindow w) {
  checkedShape(op, in);
  w.outRows = resolvePoolAxis(op, "Rows", in.rows, w.kernelRows, w.strideRows, w.padTop,
                              w.padBottom, w.outRows);
  w.outCols = resolvePoolAxis(op, "Cols", in.cols, w.kernelCols, w.strideCols, w.padLeft,
                              w.padRight, w.outCols);
  return w;
}

/// Validates one Sample axis and resolves its output size (0 = as many as fit).
int64_t resolveSampleAxis(const char* axis, int64_t in, int64_t offset, int64_t stride,
                          int64_t out) {
  if (stride < 1) {
    configError(fmt::format("Sample.stride{}", axis),
                fmt::format("stride {} must be >= 1", stride));
  }
  if (offset < 0 || offset >= in) {
    configError(fmt::format("Sample.offset{}", axis),
                fmt::format("crop offset {} outside the {} inputs", offset, in));
  }
  if (out < 0) {
    configError(fmt::format("Sample.out{}", axis), fmt::format("output size {} is negative", out));
  }
  if (out == 0) {
    return (in - 1 - offset) / stride + 1;
  }
  if (offset + stride * (out - 1) >= in) {
    configError(fmt::format("Sample.out{}", axis),
                fmt::format("{} outputs from offset {} stride {} run past the {} inputs", out,
                            offset, stride, in));
  }
  return out;
}

SampleWindow resolveSample(const FrameShape& in, SampleWindow w) {
  checkedShape("Sample", in);
  w.outRows = resolveSampleAxis("Rows", in.rows, w.offsetRows, w.strideRows, w.outRows);
  w.outCols = resolveSampleAxis("Cols", in.cols, w.offsetCols, w.strideCols, w.outCols);
  return w;
}

FrameShape expandOutputShape(const FrameShape& in, const ExpandParams& p) {
  checkedShape("Expand", in);
  if (p.factorRows < 1 || p.factorCols < 1) {
    configError("Expand.factor", fmt::format("duplication {}x{} must be >= 1 on both axes",
                                             p.factorRows, p.factorCols));
  }
  if (p.padTop < 0 || p.padLeft < 0 || p.padBottom < 0 || p.padRight < 0) {
    configError("Expand.pads", fmt::format("pads {},{},{},{} must be >= 0", p.padTop, p.padLeft,
                                           p.padBottom, p.padRight));
  }
  const int64_t phases = p.factorRows * p.factorCols;
  if (p.depthToSpace && in.channels % phases != 0) {
    configError("Expand.depthToSpace", fmt::format("{} channels do not split into {}x{} phases",
                                                   in.channels, p.factorRows, p.factorCols));
  }
  return FrameShape{in.rows * p.factorRows + p.padTop + p.padBottom,
                    in.cols * p.factorCols + p.padLeft + p.padRight,
                    p.depthToSpace ? in.channels / phases : in.channels};
}

FrameShape subsetShape(const FrameShape& in, const std::vector<int64_t>& channels) {
  checkedShape("Subset", in);
  if (channels.empty()) {
    configError("Subset.channels", "empty channel selection");
  }
  return FrameShape{in.rows, in.cols, static_cast<int64_t>(channels.size())};
}

Value checkedValue(int64_t v) {
  NNACCEL_ASSERT(v >= std::numeric_limits<Value>::min() && v <= std::numeric_limits<Value>::max())
      << "sum " << v << " overflows the 32-bit accumulator";
  return static_cast<Value>(v);
}

} // namespace

// ---- PatchAxis ----------------------------------------------------------------------------

int64_t PatchAxis::first(int64_t i) const {
  return std::max<int64_t>(0, start(i));
}

int64_t PatchAxis::last(int64_t i) const {
  return std::min(in - 1, start(i) + kernel - 1);
}

int64_t PatchAxis::countWithPads(int64_t i) const {
  const int64_t padBegin = std::max<int64_t>(0, -origin);
  return std::min(start(i) + kernel, in + padEnd) - std::max(start(i), -padBegin);
}

PatchAxis::Range PatchAxis::outputsOf(int64_t x) const {
  Range r{ceilDiv(x - origin - kernel + 1, stride), floorDiv(x - origin, stride)};
  r.lo = std::max<int64_t>(r.lo, 0);
  r.hi = std::min(r.hi, out - 1);
  return r;
}

int64_t PatchAxis::maxOpenOutputs() const {
  int64_t most = 1;
  for (int64_t x = 0; x < in; ++x) {
    const Range r = outputsOf(x);
    most = std::max(most, r.hi - r.lo + 1);
  }
  return most;
}

int64_t poolOutputSize(int64_t in, int64_t kernel, int64_t stride, int64_t padBegin, int64_t padEnd,
                       bool ceilMode) {
  if (in < 1 || kernel < 1 || stride < 1 || padBegin < 0 || padEnd < 0) {
    configError("pool", fmt::format("bad axis: input {} kernel {} stride {} pads {},{}", in, kernel,
                                    stride, padBegin, padEnd));
  }
  const int64_t span = in + padBegin + padEnd - kernel;
  if (span < 0) {
    configError("pool", fmt::format("kernel {} larger than the padded input {}", kernel,
                                    in + padBegin + padEnd));
  }
  if (!ceilMode) {
    return span / stride + 1;
  }
  int64_t out = ceilDiv(span, stride) + 1;
  if ((out - 1) * stride >= in + padBegin) {
    --out; // the last ceil-mode window would start in the trailing padding
  }
  return out;
}

// ---- PatchStage ---------------------------------------------------------------------------

PatchStage::PatchStage(const char* op, FrameShape in, FrameShape out)
    : in_(checkedShape(op, in)), out_(checkedShape(op, out)), counters_(in.rows, in.cols) {}

Control PatchStage::next(std::span<const Value> in) {
  NNACCEL_ASSERT(in.empty() || static_cast<int64_t>(in.size()) == in_.channels)
      << "position of " << in.size() << " values for " << in_.channels << " channels";
  return counters_.next(!in.empty());
}

// ---- PatchPool ----------------------------------------------------------------------------

PatchPool PatchPool::max(FrameShape in, const PoolWindow& window) {
  return PatchPool("MaxPool", in, Kind::Max, window, {}, false);
}

PatchPool PatchPool::average(FrameShape in, const PoolWindow& window, AverageFinalizer finalizer,
                             bool countIncludePad) {
  return PatchPool("AveragePool", in, Kind::Average, window, std::move(finalizer), countIncludePad);
}

PatchPool::PatchPool(const char* op, FrameShape in, Kind kind, const PoolWindow& window,
                     AverageFinalizer finalizer, bool countIncludePad)
    : PatchStage(op, in,
                 [&] {
                   const PoolWindow w = resolvePool(op, in, window);
                   return FrameShape{w.outRows, w.outCols, in.channels};
                 }()),
      kind_(kind), window_(resolvePool(op, in, window)), finalizer_(std::move(finalizer)),
      countIncludePad_(countIncludePad) {
  NNACCEL_ASSERT(kind_ == Kind::Max || finalizer_) << op << " needs a finalizer";
  rows_ = PatchAxis{in_.rows,           window_.outRows, window_.kernelRows,
                    window_.strideRows, -window_.padTop, window_.padBottom};
  cols_ = PatchAxis{in_.cols,           window_.outCols,  window_.kernelCols,
                    window_.strideCols, -window_.padLeft, window_.padRight};
  slots_ = rows_.maxOpenOutputs();
  acc_.assign(static_cast<size_t>(storedValues()), 0);
}

int64_t PatchPool::storedValues() const {
  return slots_ * out_.cols * out_.channels;
}

int64_t PatchPool::emitInputIndex(int64_t oy, int64_t ox) const {
  NNACCEL_ASSERT(oy >= 0 && oy < out_.rows && ox >= 0 && ox < out_.cols)
      << "output (" << oy << ", " << ox << ") outside " << out_.rows << "x" << out_.cols;
  return rows_.last(oy) * in_.cols + cols_.last(ox);
}

int64_t PatchPool::windowCount(int64_t oy, int64_t ox) const {
  return countIncludePad_ ? rows_.countWithPads(oy) * cols_.countWithPads(ox)
                          : rows_.count(oy) * cols_.count(ox);
}

int64_t PatchPool::step(std::span<const Value> in, std::vector<Value>& out) {
  const Control ctl = next(in);
  if (!ctl.srcEn) {
    return 0; // every output left at its window's last input
  }
  const int64_t channels = in_.channels;
  const PatchAxis::Range ys = rows_.outputsOf(ctl.row), xs = cols_.outputsOf(ctl.col);
  for (int64_t oy = ys.lo; oy <= ys.hi; ++oy) {
    const bool firstRow = ctl.row == rows_.first(oy);
    for (int64_t ox = xs.lo; ox <= xs.hi; ++ox) {
      int64_t* acc = &acc_[static_cast<size_t>(((oy % slots_) * out_.cols + ox) * channels)];
      if (firstRow && ctl.col == cols_.first(ox)) { // the window's first in-array input
        std::copy(in.begin(), in.end(), acc);
      } else if (kind_ == Kind::Max) {
        for (int64_t c = 0; c < channels; ++c) {
          acc[c] = std::max<int64_t>(acc[c], in[static_cast<size_t>(c)]);
        }
      } else {
        for (int64_t c = 0; c < channels; ++c) {
          acc[c] += in[static_cast<size_t>(c)];
        }
      }
    }
  }
  const int64_t index = ctl.row * in_.cols + ctl.col;
  int64_t emitted = 0;
  while (nextOut_ < out_.positions()) {
    const int64_t oy = nextOut_ / out_.cols, ox = nextOut_ % out_.cols;
    if (emitInputIndex(oy, ox) > index) {
      break;
    }
    const int64_t* acc = &acc_[static_cast<size_t>(((oy % slots_) * out_.cols + ox) * channels)];
    const int64_t count = windowCount(oy, ox);
    for (int64_t c = 0; c < channels; ++c) {
      out.push_back(kind_ == Kind::Max ? static_cast<Value>(acc[c]) : finalizer_(acc[c], count));
    }
    ++nextOut_;
    ++emitted;
  }
  if (ctl.rowLast && ctl.colLast) {
    NNACCEL_ASSERT(nextOut_ == out_.positions()) << "pool frame ended with outputs pending";
    nextOut_ = 0;
  }
  return emitted;
}

GlobalAverage::GlobalAverage(FrameShape in, AverageFinalizer finalizer)
    : PatchPool(
          "GlobalAverage", in, Kind::Average,
          PoolWindow{.kernelRows = in.rows, .kernelCols = in.cols, .outRows = 1, .outCols = 1},
          std::move(finalizer), false) {}

// ---- Sample -------------------------------------------------------------------------------

Sample::Sample(FrameShape in, const SampleWindow& window)
    : PatchStage("Sample", in,
                 [&] {
                   const SampleWindow w = resolveSample(in, window);
                   return FrameShape{w.outRows, w.outCols, in.channels};
                 }()),
      window_(resolveSample(in, window)),
      rows_{in.rows, window_.outRows, 1, window_.strideRows, window_.offsetRows, 0},
      cols_{in.cols, window_.outCols, 1, window_.strideCols, window_.offsetCols, 0} {}

int64_t Sample::emitInputIndex(int64_t i, int64_t j) const {
  NNACCEL_ASSERT(i >= 0 && i < out_.rows && j >= 0 && j < out_.cols)
      << "output (" << i << ", " << j << ") outside " << out_.rows << "x" << out_.cols;
  return rows_.start(i) * in_.cols + cols_.start(j);
}

int64_t Sample::step(std::span<const Value> in, std::vector<Value>& out) {
  const Control ctl = next(in);
  if (!ctl.srcEn) {
    return 0;
  }
  const PatchAxis::Range ys = rows_.outputsOf(ctl.row), xs = cols_.outputsOf(ctl.col);
  if (ys.lo > ys.hi || xs.lo > xs.hi) {
    return 0;
  }
  out.insert(out.end(), in.begin(), in.end());
  return 1;
}

// ---- Expand -------------------------------------------------------------------------------

Expand::Expand(FrameShape in, const ExpandParams& params)
    : PatchStage("Expand", in, expandOutputShape(in, params)), params_(params) {
  const int64_t minimum = outputPositionsPerInput();
  if (params_.outputPositionsPerStep != 0 && params_.outputPositionsPerStep < minimum) {
    configError("Expand.outputPositionsPerStep",
                fmt::format("{} positions per step is below the sustainable {} (= ceil({} / {}))",
                            params_.outputPositionsPerStep, minimum, out_.positions(),
                            in_.positions()));
  }
  rate_ = params_.outputPositionsPerStep == 0 ? minimum : params_.outputPositionsPerStep;
}

int64_t Expand::outputPositionsPerInput() const {
  return ceilDiv(out_.positions(), in_.positions());
}

int64_t Expand::sourceOf(int64_t g) const {
  const int64_t frame = g / out_.positions(), index = g % out_.positions();
  const int64_t y = index / out_.cols - params_.padTop, x = index % out_.cols - params_.padLeft;
  if (y < 0 || y >= in_.rows * params_.factorRows || x < 0 || x >= in_.cols * params_.factorCols) {
    return -1;
  }
  return frame * in_.positions() + (y / params_.factorRows) * in_.cols + x / params_.factorCols;
}

size_t Expand::phaseOf(int64_t g) const {
  if (!params_.depthToSpace)
    return 0;
  const int64_t index = g % out_.positions();
  const int64_t y = index / out_.cols - params_.padTop, x = index % out_.cols - params_.padLeft;
  return static_cast<size_t>((y % params_.factorRows) * params_.factorCols +
                             x % params_.factorCols);
}

int64_t Expand::lastUseOf(int64_t g) const {
  const int64_t frame = g / in_.positions(), index = g % in_.positions();
  const int64_t r = index / in_.cols, c = index % in_.cols;
  const int64_t y = params_.padTop + (r + 1) * params_.factorRows - 1;
  const int64_t x = params_.padLeft + (c + 1) * params_.factorCols - 1;
  return frame * out_.positions() + y * out_.cols + x;
}

int64_t Expand::run(bool accept, std::span<const Value> in, std::vector<Value>* out) {
  const auto channels = static_cast<size_t>(in_.channels);
  const auto outChannels = static_cast<size_t>(out_.channels);
  if (accept) {
    held_.insert(held_.end(), in.begin(), in.end());
    ++accepted_;
  }
  int64_t emitted = 0;
  while (emitted < rate_) {
    const int64_t src = sourceOf(cursor_);
    const int64_t frameStart = cursor_ / out_.positions() * in_.positions();
    if (src < 0 ? accepted_ <= frameStart : accepted_ <= src) {
      break; // its input (or, for padding, its frame) has not arrived yet
    }
    if (out) {
      if (src < 0) {
        out->insert(out->end(), outChannels, params_.padValue);
      } else {
        const auto at = held_.begin() + static_cast<std::ptrdiff_t>(
                                            static_cast<size_t>(src - heldBase_) * channels +
                                            phaseOf(cursor_) * outChannels);
        out->insert(out->end(), at, at + static_cast<std::ptrdiff_t>(outChannels));
      }
    }
    ++cursor_;
    ++emitted;
  }
  while (heldBase_ < accepted_ && lastUseOf(heldBase_) < cursor_) {
    held_.erase(held_.begin(), held_.begin() + static_cast<std::ptrdiff_t>(channels));
    ++heldBase_;
  }
  peakHeld_ = std::max(peakHeld_, accepted_ - heldBase_);
  return emitted;
}

int64_t Expand::step(std::span<const Value> in, std::vector<Value>& out) {
  const Control ctl = next(in);
  return run(ctl.srcEn, in, &out);
}

int64_t Expand::storedValues() const {
  if (!stored_) {
    // Dry run of the same schedule on one channel: frames back to back, then the drain.
    constexpr int64_t kFrames = 4;
    ExpandParams schedule = params_; // the values do not change the schedule
    schedule.depthToSpace = false;
    Expand probe(FrameShape{in_.rows, in_.cols, 1}, schedule);
    const Value zero = 0;
    for (int64_t p = 0; p < kFrames * in_.positions(); ++p) {
      probe.run(true, std::span<const Value>(&zero, 1), nullptr);
    }
    while (probe.cursor_ < kFrames * out_.positions()) {
      const int64_t before = probe.cursor_;
      probe.run(false, {}, nullptr);
      NNACCEL_ASSERT(probe.cursor_ > before) << "Expand drain stalled";
    }
    stored_ = probe.peakHeld_ * in_.channels;
  }
  return *stored_;
}

// ---- Interpolate ----------------------------------------------------------------------------

namespace {

/// Checks one axis of an Interpolate against an input extent of \p in; returns the output
/// extent.
int64_t interpolateAxisOut(const InterpolateAxis& a, int64_t in, int weightBits, const char* axis) {
  const size_t n = a.index0.size();
  if (n == 0 || a.index1.size() != n || a.weight1.size() != n)
    configError(
        fmt::format("Interpolate.{}", axis),
        fmt::format("tables of {}, {} and {} entries", n, a.index1.size(), a.weight1.size()));
  for (size_t o = 0; o < n; ++o)
    if (a.index0[o] < 0 || a.index0[o] >= in || a.index1[o] < 0 || a.index1[o] >= in ||
        a.weight1[o] < 0 || a.weight1[o] > (int32_t{1} << weightBits))
      configError(fmt::format("Interpolate.{}", axis),
                  fmt::format("output {} reads inputs {} and {} (of {}) with weight {} of 2^{}", o,
                              a.index0[o], a.index1[o], in, a.weight1[o], weightBits));
  return static_cast<int64_t>(n);
}

FrameShape interpolateOutputShape(const FrameShape& in, const InterpolateParams& p) {
  checkedShape("Interpolate", in);
  if (p.weightBits < 0 || p.weightBits > 16)
    configError("Interpolate.weightBits", fmt::format("{} bits", p.weightBits));
  return FrameShape{interpolateAxisOut(p.rows, in.rows, p.weightBits, "rows"),
                    interpolateAxisOut(p.cols, in.cols, p.weightBits, "cols"), in.channels};
}

/// The taps of output \p o along axis \p a: (input index, weight), one or two.
int tapsOf(const InterpolateAxis& a, size_t o, int64_t one,
           std::array<std::pair<int64_t, int64_t>, 2>& t) {
  if (!a.interpolates) {
    t[0] = {a.index0[o], 1};
    return 1;
  }
  t[0] = {a.index0[o], one - a.weight1[o]};
  t[1] = {a.index1[o], a.weight1[o]};
  return 2;
}

} // namespace

Interpolate::Interpolate(FrameShape in, InterpolateParams params)
    : PatchStage("Interpolate", in, interpolateOutputShape(in, params)),
      params_(std::move(params)) {
  keepRow_.resize(static_cast<size_t>(out_.rows));
  int32_t lowest = std::numeric_limits<int32_t>::max();
  for (size_t y = keepRow_.size(); y-- > 0;) {
    lowest = std::min({lowest, params_.rows.index0[y],
                       params_.rows.interpolates ? params_.rows.index1[y] : lowest});
    keepRow_[y] = lowest;
  }
  rate_ = outputPositionsPerInput();
}

int64_t Interpolate::outputPositionsPerInput() const {
  return ceilDiv(out_.positions(), in_.positions());
}

int64_t Interpolate::needOf(int64_t g) const {
  const int64_t frame = g / out_.positions(), index = g % out_.positions();
  const auto y = static_cast<size_t>(index / out_.cols), x = static_cast<size_t>(index % out_.cols);
  const InterpolateAxis &r = params_.rows, &c = params_.cols;
  const int64_t row = r.interpolates ? std::max(r.index0[y], r.index1[y]) : r.index0[y];
  const int64_t col = c.interpolates ? std::max(c.index0[x], c.index1[x]) : c.index0[x];
  return frame * in_.positions() + row * in_.cols + col;
}

int64_t Interpolate::keepFrom(int64_t g) const {
  const int64_t frame = g / out_.positions(), y = g % out_.positions() / out_.cols;
  return frame * in_.positions() + keepRow_[static_cast<size_t>(y)] * in_.cols;
}

void Interpolate::emit(int64_t g, std::vector<Value>& out) const {
  const int64_t frame = g / out_.positions(), index = g % out_.positions();
  const int64_t one = int64_t{1} << params_.weightBits;
  std::array<std::pair<int64_t, int64_t>, 2> ty{}, tx{};
  const int ny = tapsOf(params_.rows, static_cast<size_t>(index / out_.cols), one, ty);
  const int nx = tapsOf(params_.cols, static_cast<size_t>(index % out_.cols), one, tx);
  const int shift = params_.weightBits *
                    ((params_.rows.interpolates ? 1 : 0) + (params_.cols.interpolates ? 1 : 0));
  for (int64_t ch = 0; ch < in_.channels; ++ch) {
    int64_t sum = 0;
    for (int i = 0; i < ny; ++i)
      for (int j = 0; j < nx; ++j) {
        const int64_t at = frame * in_.positions() + ty[i].first * in_.cols + tx[j].first;
        NNACCEL_ASSERT(at >= heldBase_ && at < accepted_)
            << "Interpolate tap " << at << " not held";
        sum += ty[i].second * tx[j].second *
               held_[static_cast<size_t>((at - heldBase_) * in_.channels + ch)];
      }
    out.push_back(params_.finalizer(sum, shift));
  }
}

int64_t Interpolate::run(bool accept, std::span<const Value> in, std::vector<Value>* out) {
  if (accept) {
    held_.insert(held_.end(), in.begin(), in.end());
    ++accepted_;
  }
  int64_t emitted = 0;
  while (emitted < rate_ && accepted_ > needOf(cursor_)) {
    if (out)
      emit(cursor_, *out);
    ++cursor_;
    ++emitted;
  }
  const int64_t keep = std::min(keepFrom(cursor_), accepted_);
  const auto channels = static_cast<std::ptrdiff_t>(in_.channels);
  while (heldBase_ < keep) {
    held_.erase(held_.begin(), held_.begin() + channels);
    ++heldBase_;
  }
  peakHeld_ = std::max(peakHeld_, accepted_ - heldBase_);
  return emitted;
}

int64_t Interpolate::step(std::span<const Value> in, std::vector<Value>& out) {
  const Control ctl = next(in);
  return run(ctl.srcEn, in, &out);
}

int64_t Interpolate::storedValues() const {
  if (!stored_) {
    // Dry run of the same schedule on one channel: frames back to back, then the drain.
    constexpr int64_t kFrames = 4;
    Interpolate probe(FrameShape{in_.rows, in_.cols, 1}, params_);
    const Value zero = 0;
    for (int64_t p = 0; p < kFrames * in_.positions(); ++p)
      probe.run(true, std::span<const Value>(&zero, 1), nullptr);
    while (probe.cursor_ < kFrames * out_.positions()) {
      const int64_t before = probe.cursor_;
      probe.run(false, {}, nullptr);
      NNACCEL_ASSERT(probe.cursor_ > before) << "Interpolate drain stalled";
    }
    stored_ = probe.peakHeld_ * in_.channels;
  }
  return *stored_;
}

// ---- Dense --------------------------------------------------------------------------------

Dense::Dense(FrameShape in, int64_t outputs, std::span<const Value> weights,
             std::span<const Value> bias, DenseFinalizer finalizer)
    : PatchStage("Dense", in, FrameShape{1, 1, outputs}), bias_(bias.begin(), bias.end()),
      finalizer_(std::move(finalizer)), acc_(bias.begin(), bias.end()) {
  const int64_t positions = in_.positions(), channels = in_.channels;
  if (static_cast<int64_t>(weights.size()) != outputs * positions * channels) {
    configError("Dense.weights",
                fmt::format("{} weights for {} outputs x {} positions x {} channels",
                            weights.size(), outputs, positions, channels));
  }
  if (static_cast<int64_t>(bias.size()) != outputs) {
    configError("Dense.bias", fmt::format("{} biases for {} outputs", bias.size(), outputs));
  }
  store_.resize(weights.size());
  for (int64_t o = 0; o < outputs; ++o) {
    for (int64_t p = 0; p < positions; ++p) {
      for (int64_t c = 0; c < channels; ++c) {
        store_[static_cast<size_t>((p * outputs + o) * channels + c)] =
            weights[static_cast<size_t>((o * positions + p) * channels + c)];
      }
    }
  }
}

int64_t Dense::step(std::span<const Value> in, std::vector<Value>& out) {
  const Control ctl = next(in);
  if (!ctl.srcEn) {
    return 0;
  }
  const int64_t outputs = out_.channels, channels = in_.channels;
  const int64_t p = ctl.row * in_.cols + ctl.col;
  const Value* w = &store_[static_cast<size_t>(p * outputs * channels)];
  for (int64_t o = 0; o < outputs; ++o) {
    int64_t sum = 0;
    for (int64_t c = 0; c < channels; ++c) {
      sum += static_cast<int64_t>(w[o * channels + c]) * in[static_cast<size_t>(c)];
    }
    acc_[static_cast<size_t>(o)] += sum;
  }
  if (!(ctl.rowLast && ctl.colLast)) {
    return 0;
  }
  std::vector<Value> result(acc_.size());
  std::transform(acc_.begin(), acc_.end(), result.begin(), checkedValue);
  if (finalizer_) {
    finalizer_(result);
  }
  out.insert(out.end(), result.begin(), result.end());
  std::copy(bias_.begin(), bias_.end(), acc_.begin());
  return 1;
}

// ---- Subset -------------------------------------------------------------------------------

Subset::Subset(FrameShape in, std::vector<int64_t> channels)
    : PatchStage("Subset", in, subsetShape(in, channels)), channels_(std::move(channels)) {
  for (int64_t k : channels_) {
    if (k < 0 || k >= in_.channels) {
      configError("Subset.channels", fmt::format("channel index {} out of range for {} input "
                                                 "channels",
                                                 k, in_.channels));
    }
  }
}

int64_t Subset::step(std::span<const Value> in, std::vector<Value>& out) {
  const Control ctl = next(in);
  if (!ctl.srcEn) {
    return 0;
  }
  for (int64_t k : channels_) {
    out.push_back(in[static_cast<size_t>(k)]);
  }
  return 1;
}

// ---- Concat -------------------------------------------------------------------------------

Concat::Concat(FrameShape a, FrameShape b, int64_t fifoPositionsA, int64_t fifoPositionsB)
    : a_(checkedShape("Concat", a)),
      b_(checkedShape("Concat", b)), size_{fifoPositionsA, fifoPositionsB} {
  if (a.rows != b.rows || a.cols != b.cols) {
    configError("Concat.shape",
                fmt::format("path frames {}x{} and {}x{} differ", a.rows, a.cols, b.rows, b.cols));
  }
  if (fifoPositionsA < 0 || fifoPositionsB < 0) {
    configError("Concat.fifoPositions",
                fmt::format("FIFO sizes {},{} must be >= 0", fifoPositionsA, fifoPositionsB));
  }
}

Concat::Fifos Concat::alignmentFifoPositions(int64_t latencyA, int64_t latencyB) {
  if (latencyA < 0 || latencyB < 0) {
    configError("Concat.latency",
                fmt::format("path latencies {},{} must be >= 0", latencyA, latencyB));
  }
  return Fifos{std::max<int64_t>(0, latencyB - latencyA),
               std::max<int64_t>(0, latencyA - latencyB)};
}

FrameShape Concat::outputShape() const {
  return FrameShape{a_.rows, a_.cols, a_.channels + b_.channels};
}

Concat::Fifos Concat::occupancy() const {
  return Fifos{static_cast<int64_t>(qa_.size()) / a_.channels,
               static_cast<int64_t>(qb_.size()) / b_.channels};
}

int64_t Concat::storedValues() const {
  return size_.a * a_.channels + size_.b * b_.channels;
}

int64_t Concat::step(std::span<const Value> a, std::span<const Value> b, std::vector<Value>& out) {
  NNACCEL_ASSERT(a.empty() || static_cast<int64_t>(a.size()) == a_.channels)
      << "path A position of " << a.size() << " values for " << a_.channels << " channels";
  NNACCEL_ASSERT(b.empty() || static_cast<int64_t>(b.size()) == b_.channels)
      << "path B position of " << b.size() << " values for " << b_.channels << " channels";
  qa_.insert(qa_.end(), a.begin(), a.end());
  qb_.insert(qb_.end(), b.begin(), b.end());
  int64_t emitted = 0;
  if (!qa_.empty() && !qb_.empty()) {
    const auto na = static_cast<std::ptrdiff_t>(a_.channels);
    const auto nb = static_cast<std::ptrdiff_t>(b_.channels);
    out.insert(out.end(), qa_.begin(), qa_.begin() + na);
    out.insert(out.end(), qb_.begin(), qb_.begin() + nb);
    qa_.erase(qa_.begin(), qa_.begin() + na);
    qb_.erase(qb_.begin(), qb_.begin() + nb);
    emitted = 1;
  }
  const Fifos now = occupancy();
  NNACCEL_ASSERT(now.a <= size_.a)
      << "Concat FIFO A holds " << now.a << " positions, sized " << size_.a;
  NNACCEL_ASSERT(now.b <= size_.b)
      << "Concat FIFO B holds " << now.b << " positions, sized " << size_.b;
  peak_.a = std::max(peak_.a, now.a);
  peak_.b = std::max(peak_.b, now.b);
  return emitted;
}

// ---- Lane muxes ---------------------------------------------------------------------------

std::vector<Value> concatMux(std::span<const Value> primary, std::span<const Value> aux,
                             int64_t k) {
  const auto lanes = static_cast<int64_t>(primary.size());
  if (static_cast<int64_t>(aux.size()) != lanes) {
    configError("ConcatMux.sets",
                fmt::format("primary set of {} lanes and auxiliary set of {}", lanes, aux.size()));
  }
  if (k < 1 || k >= lanes) {
    configError("ConcatMux.k", fmt::format("k {} outside 1..{}", k, lanes - 1));
  }
  std::vector<Value> out(primary.begin(), primary.begin() + k);
  out.insert(out.end(), aux.begin(), aux.begin() + (lanes - k));
  return out;
}

AlternatingSets alternatingMux(std::span<const std::vector<Value>> a,
                               std::span<const std::vector<Value>> b, int64_t holdCycles) {
  if (holdCycles < 2 || holdCycles % 2 != 0) {
    configError("AlternatingMux.holdCycles",
                fmt::format("inputs held {} cycles; the mux needs an even hold >= 2", holdCycles));
  }
  if (a.size() != b.size()) {
    configError("AlternatingMux.sets",
                fmt::format("{} sets on the first input and {} on the second", a.size(), b.size()));
  }
  AlternatingSets r;
  r.holdCycles = holdCycles / 2;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].size() != b[i].size()) {
      configError("AlternatingMux.sets", fmt::format("set {} has {} lanes on the first input and "
                                                     "{} on the second",
                                                     i, a[i].size(), b[i].size()));
    }
    r.sets.push_back(a[i]);
    r.sets.push_back(b[i]);
  }
  return r;
}

} // namespace nnaccel::arch::stream
