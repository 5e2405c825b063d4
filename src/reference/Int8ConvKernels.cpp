/// \file
/// int8ConvSums (reference/Int8Conv.h): exact s8 convolution sums on oneDNN's u8 x s8 -> s32
/// convolution primitives (ConvTranspose stays on the loops). The source is brought into [0, 128]
/// and the weights into nibbles when needed so that oneDNN's AVX2 kernels neither saturate nor
/// round (see the header); the passes' s32 results are added here in exact integer arithmetic.
#include "CachedKernels.h"
#include "ConvPrimitive.h"
#include "nnaccel/reference/Int8Conv.h"

#include <algorithm>
#include <cstdlib>
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
/// with, the largest L1 norm over one output channel's weights, and its primitive.
struct WeightPiece {
  Tensor weights;
  int32_t factor = 1;
  int64_t maxChannelL1 = 0;
  KernelCache kernel;
};

/// One source operand of the passes: u8 values (or an s8 tensor's non-negative bytes), the zero
/// point oneDNN subtracts from them, and their largest value.
struct SourcePiece {
  const Tensor* values = nullptr;
  int32_t zeroPoint = 0;
  int32_t maxValue = 0;
};

/// The largest, over output channels, sum of |w| of the channel's weights (ONNX layout).
int64_t maxChannelL1(const ir::ConvParams& p, const Tensor& w) {
  const int64_t kernelVolume = numElements(p.kernel);
  const int64_t inPerGroup = p.inChannels / p.group, outPerGroup = p.outChannels / p.group;
  std::vector<int64_t> l1(static_cast<size_t>(p.outChannels), 0);
  const int8_t* v = w.data<int8_t>();
  for (int64_t i = 0, count = w.numElements(); i < count; ++i) {
    const int64_t row = i / kernelVolume; // Conv: [M, C/g]; ConvTranspose: [C, M/g]
    const int64_t channel = p.transposed
                                ? (row / outPerGroup / inPerGroup) * outPerGroup + row % outPerGroup
                                : row / inPerGroup;
    l1[static_cast<size_t>(channel)] += std::abs(static_cast<int32_t>(v[i]));
  }
  return l1.empty() ? 0 : *std::max_element(l1.begin(), l1.end());
}

WeightPiece weightPiece(const ir::ConvParams& p, Tensor weights, int32_t factor) {
  WeightPiece piece;
  piece.maxChannelL1 = maxChannelL1(p, weights);
  piece.weights = std::move(weights);
  piece.factor = factor;
  piece.kernel.constantWeights = true;
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

/// \p x (s8, zero point \p zIn) as u8 sources in [0, 128] whose sums with their zero points add
/// up to the sums of x - zIn. Non-negative x is passed as its own bytes; otherwise x - min(x) is
/// stored in \p shifted, split at 128 into \p shifted and \p rest when its range is wider.
std::vector<SourcePiece> sourcePieces(const Tensor& x, int32_t zIn, Tensor& shifted, Tensor& rest) {
  const auto values = x.values<int8_t>();
  const auto [lo, hi] = std::minmax_element(values.begin(), values.end());
  const int32_t offset = values.empty() ? 0 : std::min<int32_t>(*lo, 0);
  const int32_t maxValue = values.empty() ? 0 : *hi - offset;
  if (offset == 0)
    return {{&x, zIn, maxValue}};
  shifted = Tensor(DType::U8, x.shape());
  uint8_t* s = shifted.data<uint8_t>();
  for (size_t i = 0; i < values.size(); ++i)
    s[i] = static_cast<uint8_t>(values[i] - offset);
  if (maxValue <= kMaxSourceValue)
    return {{&shifted, zIn - offset, maxValue}};
  // (min(u, 128) - z) + (u - min(u, 128)) = u - z, and padding adds nothing to either pass.
  rest = Tensor(DType::U8, x.shape());
  uint8_t* r = rest.data<uint8_t>();
  for (size_t i = 0; i < values.size(); ++i) {
    r[i] = static_cast<uint8_t>(std::max<int32_t>(s[i] - kMaxSourceValue, 0));
    s[i] = static_cast<uint8_t>(s[i] - r[i]);
  }
  return {{&shifted, zIn - offset, kMaxSourceValue}, {&rest, 0, maxValue - kMaxSourceValue}};
}

/// One oneDNN pass: the s32 sums of \p source's values minus its zero point with \p weights.
void runPass(const ir::ConvParams& p, const SourcePiece& source, WeightPiece& weights,
             Tensor& zeroPoint, Tensor& out) {
  du::Primitive& prim = weights.kernel.obtain([&] {
    dnnl::primitive_attr attr;
    attr.set_zero_points(DNNL_ARG_SRC, 0, {DNNL_RUNTIME_S32_VAL});
    return convPrimitive(p, DType::U8, DType::I8, DType::I32, false, attr);
  });
  zeroPoint.data<int32_t>()[0] = source.zeroPoint;
  const du::Args inputs{
      {DNNL_ARG_SRC, du::wrap(*source.values, du::plainDesc(source.values->shape(), DType::U8))},
      {DNNL_ARG_WEIGHTS, du::wrap(weights.weights, convWeightsDesc(p, DType::I8))},
      {DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC,
       du::wrap(zeroPoint, du::plainDesc({}, DType::I32))}};
  const du::Args outputs{{DNNL_ARG_DST, du::wrap(out, du::plainDesc(out.shape(), DType::I32))}};
  prim.execute(inputs, outputs, {DNNL_ARG_WEIGHTS});
}

/// acc += factor * pass, in the wrap-around arithmetic of uint32 (the true sums fit int32).
void addScaledPass(Tensor& acc, const Tensor& pass, int32_t factor) {
  auto* a = reinterpret_cast<uint32_t*>(acc.data<int32_t>());
  const auto* b = reinterpret_cast<const uint32_t*>(pass.data<int32_t>());
  for (int64_t i = 0, count = acc.numElements(); i < count; ++i)
    a[i] += b[i] * static_cast<uint32_t>(factor);
}

} // namespace

struct Int8ConvCache::State {
  bool rejected = false; ///< oneDNN refused the configuration: the caller's loops, always
  std::vector<WeightPiece> whole, nibbles;       ///< {w}; {high, low} (built on first use)
  Tensor zeroPoint = Tensor::scalar<int32_t>(0); ///< the run-time source zero point
};

Int8ConvCache::Int8ConvCache() : state_(std::make_unique<State>()) {}
Int8ConvCache::~Int8ConvCache() = default;
Int8ConvCache::Int8ConvCache(Int8ConvCache&&) noexcept = default;
Int8ConvCache& Int8ConvCache::operator=(Int8ConvCache&&) noexcept = default;

std::optional<Tensor> int8ConvSums(const ir::ConvParams& p, const Tensor& x, const Tensor& w,
                                   int32_t zIn, Int8ConvCache& cache) {
  NNACCEL_ASSERT(x.dtype() == DType::I8 && w.dtype() == DType::I8) << "int8ConvSums wants s8";
  Int8ConvCache::State& st = cache.state();
  // ConvTranspose stays on the loops: oneDNN 2.6's u8 deconvolution with a source zero point
  // gave other sums than the loops on engine test layers (grouped and depthwise ones among
  // them), which OneDnnAccumulateTest's random layers did not all reproduce.
  if (st.rejected || p.transposed || p.spatialRank < 1 || p.spatialRank > 3 || x.numElements() == 0)
    return std::nullopt;
  Tensor shifted, rest;
  const std::vector<SourcePiece> sources = sourcePieces(x, zIn, shifted, rest);
  if (st.whole.empty())
    st.whole.push_back(weightPiece(p, w, 1));
  std::vector<WeightPiece>* weights = &st.whole;
  if (!exactInF32(st.whole, sources)) {
    if (st.nibbles.empty())
      st.nibbles = nibblePieces(p, w);
    if (!exactInF32(st.nibbles, sources))
      return std::nullopt;
    weights = &st.nibbles;
  }
  const Dims outShape = convActivationShape(p, p.outChannels, p.outSpatial);
  Tensor acc(DType::I32, outShape), pass;
  bool first = true;
  try {
    for (WeightPiece& piece : *weights) {
      for (const SourcePiece& source : sources) {
        if (first && piece.factor == 1) {
          runPass(p, source, piece, st.zeroPoint, acc);
          first = false;
          continue;
        }
        if (pass.sizeBytes() == 0) // a default Tensor is a scalar without storage
          pass = Tensor(DType::I32, outShape);
        runPass(p, source, piece, st.zeroPoint, pass);
        addScaledPass(acc, pass, piece.factor);
        first = false;
      }
    }
  } catch (const dnnl::error&) {
    st.rejected = true; // e.g. a zero point oneDNN has no kernel for with this geometry
    return std::nullopt;
  }
  return acc;
}

} // namespace nnaccel::reference
