/// \file
/// int8ConvSums (reference/Int8Conv.h): exact s8 convolution sums on oneDNN's u8 x s8 -> s32
/// convolution primitives (ConvTranspose stays on the loops). The source is brought into [0, 128]
/// and the weights into nibbles when needed so that oneDNN's AVX2 kernels neither saturate nor
/// round (see the header), or replaced by one exact fp32 pass where that would take several.
/// Sources go channels-last (the int8 kernels' layout) through our own byte transpose, shifted
/// and split on the way; a pass whose zero point is 0, or whose windows read no padding, runs
/// without oneDNN's run-time zero point (faster) and the zero point's share is added back per
/// channel. int8ConvSums adds the passes' results here in exact integer arithmetic;
/// int8ConvMapped leaves them channels-last, as oneDNN wrote them, to the caller's epilogue. The
/// sources and the results live in per-thread buffers reused from call to call.
#include "ByteTranspose.h"
#include "CachedKernels.h"
#include "ConvPrimitive.h"
#include "nnaccel/reference/Int8Conv.h"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <utility>
#include <vector>

namespace nnaccel::reference {

namespace du = dnnl_util;

namespace {

/// Largest u8 source value oneDNN's AVX2 int8 kernels take without saturating: vpmaddubsw's pair
/// sums 2 * 128 * w stay within int16 for every s8 w (2 * 128 * -128 = -2^15 is the least).
constexpr int32_t kMaxSourceValue = 128;
/// s32 sums (and zero-point corrections) below this magnitude survive the f32 round trip of
/// oneDNN's s32 store exactly.
constexpr int64_t kF32ExactSums = int64_t{1} << 24;
/// Weights split as w = 2^kLowBits * high + low, low in [0, 15], high in [-8, 7].
constexpr int kLowBits = 4;

/// One weight operand of the passes: s8 weights in the ONNX layout, the factor its sums count
/// with, the largest L1 norm over one output channel's weights, each output channel's sum of
/// weights, and its primitives: with oneDNN's run-time source zero point, and without (faster,
/// notably for depthwise layers) for sources whose zero point is 0 or can be corrected for
/// afterwards.
struct WeightPiece {
  Tensor weights;
  int32_t factor = 1;
  int64_t maxChannelL1 = 0;
  std::vector<int32_t> channelSums;
  KernelCache kernel, plainKernel;
};

/// One source operand of the passes: u8 values (or an s8 tensor's non-negative bytes), the zero
/// point oneDNN subtracts from them, and their largest value.
struct SourcePiece {
  const uint8_t* values = nullptr;
  int32_t zeroPoint = 0;
  int32_t maxValue = 0;
};

/// Each output channel's sum of |w| and sum of w over its weights \p w (ONNX layout).
std::pair<std::vector<int64_t>, std::vector<int32_t>> channelSums(const ir::ConvParams& p,
                                                                  const Tensor& w) {
  const int64_t kernelVolume = numElements(p.kernel);
  const int64_t inPerGroup = p.inChannels / p.group, outPerGroup = p.outChannels / p.group;
  std::vector<int64_t> l1(static_cast<size_t>(p.outChannels), 0);
  std::vector<int32_t> sums(static_cast<size_t>(p.outChannels), 0);
  const int8_t* v = w.data<int8_t>();
  for (int64_t i = 0, count = w.numElements(); i < count; ++i) {
    const int64_t row = i / kernelVolume; // Conv: [M, C/g]; ConvTranspose: [C, M/g]
    const auto channel = static_cast<size_t>(
        p.transposed ? (row / outPerGroup / inPerGroup) * outPerGroup + row % outPerGroup
                     : row / inPerGroup);
    l1[channel] += std::abs(static_cast<int32_t>(v[i]));
    sums[channel] += v[i];
  }
  return {std::move(l1), std::move(sums)};
}

WeightPiece weightPiece(const ir::ConvParams& p, Tensor weights, int32_t factor) {
  WeightPiece piece;
  auto [l1, sums] = channelSums(p, weights);
  piece.maxChannelL1 = l1.empty() ? 0 : *std::max_element(l1.begin(), l1.end());
  piece.channelSums = std::move(sums);
  piece.weights = std::move(weights);
  piece.factor = factor;
  piece.kernel.constantWeights = piece.plainKernel.constantWeights = true;
  return piece;
}

/// \p w as its high and low nibbles (w = 16 * high + low).
std::vector<WeightPiece> nibblePieces(const ir::ConvParams& p, const Tensor& w) {
  Tensor high(DType::I8, w.shape()), low(DType::I8, w.shape());
  const int8_t* v = w.data<int8_t>();
  for (int64_t i = 0, count = w.numElements(); i < count; ++i) {
    high.data<int8_t>()[i] = static_cast<int8_t>(v[i] >> kLowBits); // arithmetic: floor
    low.data<int8_t>()[i] = static_cast<int8_t>(v[i] & ((1 << kLowBits) - 1));
  }
  std::vector<WeightPiece> pieces;
  pieces.push_back(weightPiece(p, std::move(high), 1 << kLowBits));
  pieces.push_back(weightPiece(p, std::move(low), 1));
  return pieces;
}

/// True when every pass of \p weights on \p sources stays below 2^24 in magnitude.
bool exactInF32(const std::vector<WeightPiece>& weights, const std::vector<SourcePiece>& sources) {
  for (const WeightPiece& w : weights)
    for (const SourcePiece& s : sources)
      if (w.maxChannelL1 * (s.maxValue + std::abs(int64_t{s.zeroPoint})) >= kF32ExactSums)
        return false;
  return true;
}

/// The buffers of one int8 convolution call, kept per thread between calls (grown, never
/// shrunk): the shifted or converted sources and the passes' results. Only
/// needed during one call, so every node shares them, without an allocation, a zero fill or a
/// page fault per call.
enum Int8Slot : size_t {
  kShiftedSlot,
  kRestSlot,
  kFloatSourceSlot,
  kFirstPassSlot,
  kInt8SlotCount = kFirstPassSlot + 4
};

class Int8ConvScratch {
public:
  std::byte* reserve(Int8Slot slot, size_t bytes) {
    if (bytes > capacity_[slot]) {
      buffers_[slot] = du::allocateBuffer(bytes);
      capacity_[slot] = bytes;
    }
    return buffers_[slot].get();
  }

private:
  std::array<du::Buffer, kInt8SlotCount> buffers_;
  std::array<size_t, kInt8SlotCount> capacity_{};
};

Int8ConvScratch& int8ConvScratch() {
  thread_local Int8ConvScratch scratch;
  return scratch;
}

/// The least and largest of \p count s8 codes (0, 0 when there are none). Written on the bytes'
/// unsigned images (code + 128) so that the compiler vectorizes it with the baseline ISA.
std::pair<int32_t, int32_t> codeRange(const int8_t* codes, int64_t count) {
  uint8_t lo = 255, hi = 0;
  for (int64_t i = 0; i < count; ++i) {
    const auto u = static_cast<uint8_t>(static_cast<uint8_t>(codes[i]) ^ 0x80u);
    lo = std::min(lo, u);
    hi = std::max(hi, u);
  }
  return count == 0 ? std::pair{0, 0} : std::pair{lo - 128, hi - 128};
}

/// The u8 sources in [0, 128] whose sums with their zero points add up to the sums of x - zIn,
/// for s8 codes x in [\p lo, \p hi] with zero point \p zIn: x itself when it has no negative
/// code, else x - min(x), split at 128 into two sources when its range is wider. Their values
/// are not written yet (writeSources); the pointers are the scratch's.
std::vector<SourcePiece> sourcePieces(int32_t lo, int32_t hi, int32_t zIn, size_t bytes,
                                      Int8ConvScratch& scratch) {
  const int32_t offset = std::min<int32_t>(lo, 0);
  const int32_t maxValue = hi - offset;
  auto* low = reinterpret_cast<uint8_t*>(scratch.reserve(kShiftedSlot, bytes));
  if (maxValue <= kMaxSourceValue)
    return {{low, zIn - offset, maxValue}};
  // (min(u, 128) - z) + (u - min(u, 128)) = u - z, and padding adds nothing to either pass.
  auto* rest = reinterpret_cast<uint8_t*>(scratch.reserve(kRestSlot, bytes));
  return {{low, zIn - offset, kMaxSourceValue}, {rest, 0, maxValue - kMaxSourceValue}};
}

/// Writes \p x of Conv \p p into \p sources (sourcePieces), channels-last: x - min(x, 0), split.
void writeSources(const ir::ConvParams& p, const Tensor& x, int32_t lo,
                  const std::vector<SourcePiece>& sources) {
  const auto shift = static_cast<uint8_t>(-std::min<int32_t>(lo, 0)); // x + |min| in [0, 255]
  toChannelsLast(x.data<int8_t>(), p.batch, p.inChannels, numElements(p.inSpatial), shift,
                 const_cast<uint8_t*>(sources[0].values),
                 sources.size() > 1 ? const_cast<uint8_t*>(sources[1].values) : nullptr);
}

/// The descriptor of an activation of \p shape ([N, C, spatial...]) stored channels-last
/// ([N, spatial..., C] row-major): the layout oneDNN's int8 convolutions compute in, so their
/// results need no reorder.
dnnl::memory::desc int8ChannelsLastDesc(const Dims& shape, DType t) {
  const int64_t channels = shape[1];
  Dims strides(shape.size(), 0);
  strides[1] = 1;
  int64_t stride = channels;
  for (size_t a = shape.size(); a-- > 2;) {
    strides[a] = stride;
    stride *= shape[a];
  }
  strides[0] = stride;
  return du::stridedDesc(shape, strides, t);
}

/// True when some window of \p p reaches past the input (oneDNN's padding then reads real 0, the
/// source's zero point, which only its run-time zero point accounts for).
bool readsPadding(const ir::ConvParams& p) {
  const dnnl::memory::dims padEnd =
      du::forwardPadEnd(p.inSpatial, p.outSpatial, p.kernel, p.strides, p.dilations, p.padsBegin);
  for (size_t a = 0; a < p.padsBegin.size(); ++a)
    if (p.padsBegin[a] > 0 || padEnd[a] > 0)
      return true;
  return false;
}

/// One oneDNN pass: the s32 sums of \p source's values minus its zero point with \p weights,
/// written channels-last to \p out, less \p offsets (one per output channel, wrap-around): the
/// zero point's share when the pass runs without oneDNN's zero point. That is when the zero
/// point is 0, or when no window reads padding, so that the zero point's share of every sum is
/// zeroPoint * (the channel's sum of weights). Returns true for such a plain pass.
bool runPass(const ir::ConvParams& p, const SourcePiece& source, WeightPiece& weights,
             Tensor& zeroPoint, int32_t* out, std::vector<int32_t>& offsets) {
  const bool plain = source.zeroPoint == 0 || !readsPadding(p);
  du::Primitive& prim = (plain ? weights.plainKernel : weights.kernel).obtain([&] {
    dnnl::primitive_attr attr;
    if (!plain)
      attr.set_zero_points(DNNL_ARG_SRC, 0, {DNNL_RUNTIME_S32_VAL});
    return convPrimitive(p, DType::U8, DType::I8, DType::I32, false, attr);
  });
  const Dims srcShape = convActivationShape(p, p.inChannels, p.inSpatial);
  const Dims dstShape = convActivationShape(p, p.outChannels, p.outSpatial);
  du::Args inputs{{DNNL_ARG_SRC, dnnl::memory(int8ChannelsLastDesc(srcShape, DType::U8),
                                              du::engine(), const_cast<uint8_t*>(source.values))},
                  {DNNL_ARG_WEIGHTS, du::wrap(weights.weights, convWeightsDesc(p, DType::I8))}};
  if (plain && source.zeroPoint != 0) {
    offsets.resize(static_cast<size_t>(p.outChannels), 0);
    const auto zp = static_cast<uint32_t>(source.zeroPoint * weights.factor);
    for (size_t c = 0; c < offsets.size(); ++c)
      offsets[c] = static_cast<int32_t>(static_cast<uint32_t>(offsets[c]) -
                                        zp * static_cast<uint32_t>(weights.channelSums[c]));
  }
  if (!plain) {
    zeroPoint.data<int32_t>()[0] = source.zeroPoint;
    inputs.emplace(DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC,
                   du::wrap(zeroPoint, du::plainDesc({}, DType::I32)));
  }
  const du::Args outputs{
      {DNNL_ARG_DST, dnnl::memory(int8ChannelsLastDesc(dstShape, DType::I32), du::engine(), out)}};
  prim.execute(inputs, outputs, {DNNL_ARG_WEIGHTS});
  return plain;
}

} // namespace

struct Int8ConvCache::State {
  bool rejected = false; ///< oneDNN refused the configuration: the caller's loops, always
  std::vector<WeightPiece> whole, nibbles;       ///< {w}; {high, low} (built on first use)
  Tensor zeroPoint = Tensor::scalar<int32_t>(0); ///< the run-time source zero point
  Tensor floatWeights;     ///< the weights as f32, for the fp32 pass (built on first use)
  KernelCache floatKernel; ///< the fp32 pass's primitive
  Int8ConvRoute route;     ///< of the last call
  State() { floatKernel.constantWeights = true; }
};

Int8ConvCache::Int8ConvCache() : state_(std::make_unique<State>()) {}
Int8ConvCache::~Int8ConvCache() = default;
Int8ConvCache::Int8ConvCache(Int8ConvCache&&) noexcept = default;
Int8ConvCache& Int8ConvCache::operator=(Int8ConvCache&&) noexcept = default;
const Int8ConvRoute& Int8ConvCache::lastRoute() const {
  return state_->route;
}

namespace {

/// True when Conv \p p's sums of x - zIn, x in [\p lo, \p hi], with the weights \p whole are exact
/// in fp32 in any order: every product and every partial sum is an integer below 2^24 in
/// magnitude (at most the channel's L1 norm times max |x - zIn|).
bool exactAsFloat(const WeightPiece& whole, int32_t lo, int32_t hi, int32_t zIn) {
  const int64_t maxAbs = std::max(std::abs(int64_t{lo} - zIn), std::abs(int64_t{hi} - zIn));
  return whole.maxChannelL1 * maxAbs < kF32ExactSums;
}

/// The one fp32 pass of Conv \p p (see exactAsFloat): x - zIn converted to f32 channels-last,
/// convolved on oneDNN's fp32 kernel with the weights as f32, the f32 sums (integers) written
/// channels-last to \p out. One pass where the int8 kernels would need two or four.
void runFloatPass(const ir::ConvParams& p, const Tensor& x, const Tensor& w, int32_t zIn,
                  Int8ConvCache::State& st, Int8ConvScratch& scratch, float* out) {
  const int64_t count = x.numElements();
  auto* codes =
      reinterpret_cast<int8_t*>(scratch.reserve(kShiftedSlot, static_cast<size_t>(count)));
  toChannelsLast(x.data<int8_t>(), p.batch, p.inChannels, numElements(p.inSpatial), 0,
                 reinterpret_cast<uint8_t*>(codes), nullptr);
  auto* source = reinterpret_cast<float*>(
      scratch.reserve(kFloatSourceSlot, static_cast<size_t>(count) * sizeof(float)));
  for (int64_t i = 0; i < count; ++i)
    source[i] = static_cast<float>(codes[i] - zIn);
  if (st.floatWeights.sizeBytes() == 0)
    st.floatWeights = w.castTo(DType::F32);
  du::Primitive& prim = st.floatKernel.obtain(
      [&] { return convPrimitive(p, DType::F32, DType::F32, DType::F32, false, {}, true); });
  const Dims srcShape = convActivationShape(p, p.inChannels, p.inSpatial);
  const Dims dstShape = convActivationShape(p, p.outChannels, p.outSpatial);
  const du::Args inputs{
      {DNNL_ARG_SRC,
       dnnl::memory(int8ChannelsLastDesc(srcShape, DType::F32), du::engine(), source)},
      {DNNL_ARG_WEIGHTS, du::wrap(st.floatWeights, convWeightsDesc(p, DType::F32))}};
  const du::Args outputs{
      {DNNL_ARG_DST, dnnl::memory(int8ChannelsLastDesc(dstShape, DType::F32), du::engine(), out)}};
  prim.execute(inputs, outputs, {DNNL_ARG_WEIGHTS});
}

/// The passes of Conv \p p on \p x into the scratch, channels-last (see Int8ConvPasses), or
/// nullopt when oneDNN cannot give exactly the loops' sums. A dnnl::error escapes (the caller
/// marks the configuration rejected).
std::optional<Int8ConvPasses> runPasses(const ir::ConvParams& p, const Tensor& x, const Tensor& w,
                                        int32_t zIn, Int8ConvCache::State& st,
                                        Int8ConvScratch& scratch) {
  NNACCEL_ASSERT(x.dtype() == DType::I8 && w.dtype() == DType::I8) << "int8ConvSums wants s8";
  st.route = {};
  // ConvTranspose stays on the loops: oneDNN 2.6's u8 deconvolution with a source zero point
  // gave other sums than the loops on engine test layers (grouped and depthwise ones among
  // them), which OneDnnAccumulateTest's random layers did not all reproduce.
  if (st.rejected || p.transposed || p.spatialRank < 1 || p.spatialRank > 3 || x.numElements() == 0)
    return std::nullopt;
  const auto [lo, hi] = codeRange(x.data<int8_t>(), x.numElements());
  const std::vector<SourcePiece> sources =
      sourcePieces(lo, hi, zIn, static_cast<size_t>(x.numElements()), scratch);
  if (st.whole.empty())
    st.whole.push_back(weightPiece(p, w, 1));
  std::vector<WeightPiece>* weights = &st.whole;
  const bool wholeExact = exactInF32(st.whole, sources);
  if (!wholeExact) {
    if (st.nibbles.empty())
      st.nibbles = nibblePieces(p, w);
    weights = &st.nibbles;
  }
  Int8ConvPasses sums;
  sums.channels = p.outChannels;
  sums.positions = numElements(p.outSpatial);
  sums.rows = p.batch * sums.positions;
  const size_t passBytes = static_cast<size_t>(sums.rows * sums.channels) * sizeof(int32_t);
  if (weights->size() * sources.size() > 1 && exactAsFloat(st.whole.front(), lo, hi, zIn)) {
    auto* out = reinterpret_cast<float*>(scratch.reserve(kFirstPassSlot, passBytes));
    runFloatPass(p, x, w, zIn, st, scratch, out);
    sums.passes.push_back(reinterpret_cast<const int32_t*>(out));
    sums.factors.push_back(1);
    sums.floatSums = true;
    st.route.floatPass = true;
    return sums;
  }
  if (!wholeExact && !exactInF32(st.nibbles, sources))
    return std::nullopt;
  writeSources(p, x, lo, sources);
  for (WeightPiece& piece : *weights) {
    for (const SourcePiece& source : sources) {
      const auto slot = static_cast<Int8Slot>(kFirstPassSlot + sums.passes.size());
      auto* out = reinterpret_cast<int32_t*>(scratch.reserve(slot, passBytes));
      st.route.plainPasses += runPass(p, source, piece, st.zeroPoint, out, sums.offsets) ? 1 : 0;
      ++st.route.int8Passes;
      sums.passes.push_back(out);
      sums.factors.push_back(piece.factor);
    }
  }
  return sums;
}

/// The sums as s32 [N, M, out...]: sum over the passes of factor * pass, in the wrap-around
/// arithmetic of uint32 (the true sums fit int32).
Tensor combinedSums(const ir::ConvParams& p, const Int8ConvPasses& sums) {
  Tensor acc(DType::I32, convActivationShape(p, p.outChannels, p.outSpatial));
  auto* a = reinterpret_cast<uint32_t*>(acc.data<int32_t>());
  const int64_t volume = numElements(p.outSpatial), channels = sums.channels;
  for (int64_t n = 0; n < p.batch && !sums.offsets.empty(); ++n)
    for (int64_t c = 0; c < channels; ++c)
      std::fill_n(a + (n * channels + c) * volume, volume,
                  static_cast<uint32_t>(sums.offsets[static_cast<size_t>(c)]));
  for (size_t k = 0; k < sums.passes.size(); ++k) {
    const auto* pass = reinterpret_cast<const uint32_t*>(sums.passes[k]);
    const auto* floats = reinterpret_cast<const float*>(sums.passes[k]);
    const auto factor = static_cast<uint32_t>(sums.factors[k]);
    for (int64_t n = 0; n < p.batch; ++n)
      for (int64_t pos = 0; pos < volume; ++pos)
        for (int64_t c = 0; c < channels; ++c) {
          const int64_t at = (n * volume + pos) * channels + c;
          const uint32_t sum =
              sums.floatSums ? static_cast<uint32_t>(static_cast<int32_t>(floats[at])) : pass[at];
          a[(n * channels + c) * volume + pos] += factor * sum;
        }
  }
  return acc;
}

} // namespace

std::optional<Tensor> int8ConvSums(const ir::ConvParams& p, const Tensor& x, const Tensor& w,
                                   int32_t zIn, Int8ConvCache& cache) {
  Int8ConvCache::State& st = cache.state();
  try {
    const std::optional<Int8ConvPasses> sums = runPasses(p, x, w, zIn, st, int8ConvScratch());
    if (!sums)
      return std::nullopt;
    return combinedSums(p, *sums);
  } catch (const dnnl::error&) {
    st.rejected = true; // e.g. a zero point oneDNN has no kernel for with this geometry
    st.route = {};
    return std::nullopt;
  }
}

std::optional<Tensor> int8ConvMapped(const ir::ConvParams& p, const Tensor& x, const Tensor& w,
                                     int32_t zIn, const Int8ConvEpilogue& epilogue,
                                     Int8ConvCache& cache, Tensor recycled) {
  Int8ConvCache::State& st = cache.state();
  std::optional<Int8ConvPasses> sums;
  try {
    sums = runPasses(p, x, w, zIn, st, int8ConvScratch());
  } catch (const dnnl::error&) {
    st.rejected = true;
    st.route = {};
    return std::nullopt;
  }
  if (!sums)
    return std::nullopt;
  const Dims shape = convActivationShape(p, p.outChannels, p.outSpatial);
  Tensor y = recycled.dtype() == DType::I8 && recycled.shape() == shape &&
                     recycled.sizeBytes() == static_cast<size_t>(numElements(shape))
                 ? std::move(recycled)
                 : Tensor(DType::I8, shape);
  epilogue(*sums, y.data<int8_t>());
  return y;
}

} // namespace nnaccel::reference
