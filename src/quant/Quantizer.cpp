// Post-training quantization: classify every node's int8 form, calibrate activation ranges on
// the fp32 reference executor, assign scales (propagating them through scale-preserving ops)
// and derive each node's int8 weights, int32 biases and requantization multipliers.
#include "BiasCorrection.h"
#include "Calibration.h"
#include "DynamicQuantization.h"
#include "Equalization.h"
#include "nnaccel/ir/OpParams.h"
#include "nnaccel/quant/QdqModel.h"
#include "nnaccel/quant/QuantizedModel.h"
#include "nnaccel/reference/Executor.h"
#include "nnaccel/reference/Kernels.h"
#include "nnaccel/support/Rng.h"

#include <algorithm>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <bit>
#include <cmath>
#include <fmt/format.h>
#include <limits>
#include <map>
#include <optional>
#include <span>

namespace nnaccel::quant {

using ir::Graph;
using ir::kNoValue;
using ir::NodeId;
using ir::OpKind;
using ir::ValueId;

// --- QuantTensor and kind helpers --------------------------------------------------------------

Tensor QuantTensor::dequantize() const {
  if (!isQuantized()) {
    return data;
  }
  Tensor out(DType::F32, data.shape());
  const int8_t* src = data.data<int8_t>();
  float* dst = out.data<float>();
  for (int64_t i = 0; i < data.numElements(); ++i) {
    dst[i] = dequantizeValue(src[i], scale, zeroPoint);
  }
  return out;
}

namespace {

/// quantizeValue(src[i], scale, kInt8Min, kInt8Max, HalfAway, zero) for i < count, sixteen at
/// a time with SSE2 (the baseline x86-64 ISA): the same IEEE quotient, clamped to [lo - zero,
/// hi - zero] first (integer bounds: clamping before or after rounding is the same), then
/// rounded half away from zero as trunc(c) +- 1 where |c - trunc(c)| >= 0.5 (exact: |c| < 2^9);
/// NaN becomes the zero point, as in quantizeValue. The rest element by element.
void quantizeHalfAway(const float* src, int64_t count, float scale, int32_t zero, int8_t* dst) {
  int64_t i = 0;
#if defined(__SSE2__)
  const __m128 divisor = _mm_set1_ps(scale), half = _mm_set1_ps(0.5f),
               minusHalf = _mm_set1_ps(-0.5f),
               lower = _mm_set1_ps(static_cast<float>(kInt8Min - zero)),
               upper = _mm_set1_ps(static_cast<float>(kInt8Max - zero));
  const __m128i offset = _mm_set1_epi32(zero);
  const auto four = [&](const float* x) {
    const __m128 q = _mm_div_ps(_mm_loadu_ps(x), divisor);
    const __m128 c = _mm_andnot_ps(_mm_cmpunord_ps(q, q), // NaN: 0
                                   _mm_min_ps(_mm_max_ps(q, lower), upper));
    const __m128i t = _mm_cvttps_epi32(c);
    const __m128 fraction = _mm_sub_ps(c, _mm_cvtepi32_ps(t));
    const __m128i up = _mm_castps_si128(_mm_cmpge_ps(fraction, half));        // -1 where +1
    const __m128i down = _mm_castps_si128(_mm_cmple_ps(fraction, minusHalf)); // -1 where -1
    return _mm_add_epi32(_mm_add_epi32(_mm_sub_epi32(t, up), down), offset);
  };
  for (; i + 16 <= count; i += 16) {
    const __m128i lo = _mm_packs_epi32(four(src + i), four(src + i + 4));
    const __m128i hi = _mm_packs_epi32(four(src + i + 8), four(src + i + 12));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i), _mm_packs_epi16(lo, hi));
  }
#endif
  for (; i < count; ++i)
    dst[i] = quantizeValue(src[i], scale, kInt8Min, kInt8Max, Rounding::HalfAway, zero);
}

} // namespace

QuantTensor quantizeTensor(const Tensor& x, float scale, Rounding rounding, int32_t zeroPoint) {
  NNACCEL_ASSERT(x.dtype() == DType::F32) << "quantizeTensor wants f32";
  NNACCEL_ASSERT(scale > 0) << "quantizeTensor: scale " << scale;
  QuantTensor q{Tensor(DType::I8, x.shape()), scale, zeroPoint};
  const float* src = x.data<float>();
  int8_t* dst = q.data.data<int8_t>();
  const int64_t count = x.numElements();
  if (rounding == Rounding::HalfAway && zeroPoint >= kInt8Min && zeroPoint <= kInt8Max) {
    quantizeHalfAway(src, count, scale, zeroPoint, dst);
    return q;
  }
  for (int64_t i = 0; i < count; ++i)
    dst[i] = quantizeValue(src[i], scale, kInt8Min, kInt8Max, rounding, zeroPoint);
  return q;
}

ir::ValueId QuantizedModel::firstAsymmetricValue() const {
  for (size_t v = 0; v < zeroPoints.size(); ++v)
    if (zeroPoints[v] != 0)
      return static_cast<ir::ValueId>(v);
  return ir::kNoValue;
}

ZeroPoints QuantizedModel::zeroPointsOf(ir::NodeId id) const {
  ZeroPoints z;
  const ir::Node& n = graph.node(id);
  for (size_t i = 0; i < n.inputs.size() && i < z.in.size(); ++i)
    if (n.inputs[i] != ir::kNoValue && !graph.isConstant(n.inputs[i]))
      z.in[i] = zeroPoint(n.inputs[i]);
  if (!n.outputs.empty() && n.outputs[0] != ir::kNoValue)
    z.out = zeroPoint(n.outputs[0]);
  return z;
}

float symmetricScale(float maxAbs) {
  return maxAbs > 0 ? maxAbs / 127.0f : 1.0f;
}

std::string_view quantOpKindName(QuantOpKind kind) {
  switch (kind) {
  case QuantOpKind::Folded:
    return "folded";
  case QuantOpKind::Accumulate:
    return "accumulate";
  case QuantOpKind::TensorMatMul:
    return "tensor-matmul";
  case QuantOpKind::Clamp:
    return "clamp";
  case QuantOpKind::MaxPool:
    return "max-pool";
  case QuantOpKind::DataMovement:
    return "data-movement";
  case QuantOpKind::Gather:
    return "gather";
  case QuantOpKind::AveragePool:
    return "average-pool";
  case QuantOpKind::AddSub:
    return "add-sub";
  case QuantOpKind::Mul:
    return "mul";
  case QuantOpKind::Concat:
    return "concat";
  case QuantOpKind::MinMax:
    return "min-max";
  case QuantOpKind::Lookup:
    return "lookup";
  case QuantOpKind::Compare:
    return "compare";
  case QuantOpKind::Select:
    return "select";
  case QuantOpKind::Interpolate:
    return "interpolate";
  case QuantOpKind::Softmax:
    return "softmax";
  case QuantOpKind::Reduce:
    return "reduce";
  case QuantOpKind::FloatIsland:
    return "float-island";
  }
  NNACCEL_UNREACHABLE("bad QuantOpKind");
  return "";
}

bool isScalePreserving(QuantOpKind kind) {
  return kind == QuantOpKind::Clamp || kind == QuantOpKind::MaxPool ||
         kind == QuantOpKind::DataMovement || kind == QuantOpKind::Gather ||
         kind == QuantOpKind::Interpolate;
}

// --- calibration inputs ------------------------------------------------------------------------

namespace {

/// "nan at element 3" for the first non-finite element of f32 tensor \p t, or nothing.
std::optional<std::string> firstNonFinite(const Tensor& t) {
  if (t.dtype() != DType::F32)
    return std::nullopt;
  const std::span<const float> data = t.values<float>();
  // A branch-free scan first (vectorized; inputs are finite nearly always): all exponent bits set
  // is an infinity or a NaN.
  uint32_t nonFinite = 0;
  for (const float x : data)
    nonFinite |= (std::bit_cast<uint32_t>(x) & 0x7f800000u) == 0x7f800000u ? 1u : 0u;
  if (nonFinite == 0)
    return std::nullopt;
  const auto bad =
      std::find_if(data.begin(), data.end(), [](float x) { return !std::isfinite(x); });
  if (bad == data.end())
    return std::nullopt;
  const std::string what = std::isnan(*bad) ? "nan" : (*bad > 0 ? "inf" : "-inf");
  return what + " at element " + std::to_string(bad - data.begin());
}

} // namespace

void checkCalibrationInputs(const Graph& g, const std::vector<Tensor>& inputs,
                            const std::vector<std::string>& files, size_t setIndex) {
  for (size_t i = 0; i < inputs.size() && i < g.inputs.size(); ++i) {
    const std::optional<std::string> where = firstNonFinite(inputs[i]);
    if (!where)
      continue;
    const std::string& name = g.value(g.inputs[i]).name;
    if (i < files.size() && !files[i].empty()) {
      throw Error(ErrorKind::Io, ErrorContext{.file = files[i]},
                  "input '" + name + "' holds a non-finite value (" + *where +
                      "); int8 calibration needs finite inputs");
    }
    throw Error(ErrorKind::Model, ErrorContext{.file = g.sourcePath},
                "calibration input set " + std::to_string(setIndex) + ": input '" + name +
                    "' holds a non-finite value (" + *where + ")");
  }
}

void checkFiniteInt8Inputs(const Graph& g, const std::vector<Tensor>& inputs,
                           const std::vector<std::string>& files) {
  for (size_t i = 0; i < inputs.size() && i < g.inputs.size(); ++i)
    if (const std::optional<std::string> where = firstNonFinite(inputs[i]))
      throw Error(
          ErrorKind::Unsupported,
          ErrorContext{.file = i < files.size() && !files[i].empty() ? files[i] : g.sourcePath},
          "input '" + g.value(g.inputs[i]).name + "' holds a non-finite value (" + *where +
              "); int8 has no code for it, so int8 runs need finite inputs "
              "(--dtype fp32 takes them)");
}

std::vector<Tensor> randomInputs(const Graph& g, uint64_t seed) {
  for (ValueId id : g.inputs) {
    const ir::Value& v = g.value(id);
    if (v.dtype != DType::F32) {
      throw Error(ErrorKind::Unsupported, ErrorContext{.file = g.sourcePath},
                  fmt::format("input '{}' is {}: random inputs are generated for f32 inputs "
                              "only; pass it with --input",
                              v.name, dtypeName(v.dtype)));
    }
  }
  return makeCalibrationInputs(g, 1, seed).front();
}

std::vector<std::vector<Tensor>> makeCalibrationInputs(const Graph& g, int count, uint64_t seed) {
  ErrorContext context;
  context.file = g.sourcePath;
  if (count < 1) {
    throw Error(ErrorKind::Usage, context,
                "calibration count must be at least 1, got " + std::to_string(count));
  }
  for (ValueId v : g.inputs) {
    const ir::Value& value = g.value(v);
    if (value.dtype != DType::F32) {
      throw Error(ErrorKind::Unsupported, context,
                  "cannot generate calibration data for input '" + value.name + "' of dtype " +
                      std::string(dtypeName(value.dtype)) + " (only f32 inputs)");
    }
    if (!value.shapeKnown) {
      throw Error(ErrorKind::Model, context,
                  "cannot generate calibration data for input '" + value.name +
                      "': its shape is not known");
    }
  }
  Rng rng(seed);
  std::vector<std::vector<Tensor>> sets(static_cast<size_t>(count));
  for (auto& set : sets) {
    for (ValueId v : g.inputs) {
      Tensor t(DType::F32, g.value(v).shape);
      rng.fillUniform(t.values<float>(), -1.0f, 1.0f); // exactly 2u - 1, u on the 2^-24 grid
      set.push_back(std::move(t));
    }
  }
  return sets;
}

namespace {

// --- node classification -----------------------------------------------------------------------

/// Largest number of int8 products one int32 accumulator may sum: |q_x * q_w| <= 128 * 127.
constexpr int64_t kMaxProduct = 128 * 127;
constexpr int64_t kMaxReduction = std::numeric_limits<int32_t>::max() / kMaxProduct;
/// Two int8 operands: each product is at most 128 * 128 in magnitude.
constexpr int64_t kMaxTensorReduction = std::numeric_limits<int32_t>::max() / (128 * 128);
/// Resize gather tables are built from an fp32 index ramp, exact up to 2^24 elements.
constexpr int64_t kMaxGatherElements = int64_t{1} << 24;
/// A linear resize is checked for copies on the squares of the ramp, exact below 4096^2 = 2^24.
constexpr int64_t kMaxLinearCopyElements = 4096;
/// Add/Sub intermediate precision (TFLite's choice for int8).
constexpr int32_t kAddSubLeftShift = 20;

bool isF32(const Graph& g, ValueId v) {
  return v != kNoValue && g.value(v).dtype == DType::F32;
}

bool isGraphOutput(const Graph& g, ValueId v) {
  return g.isOutput(v);
}

bool isUsed(const Graph& g, ValueId v) {
  return v != kNoValue && (!g.users(v).empty() || isGraphOutput(g, v));
}

ValueId inputAt(const ir::Node& n, size_t i) {
  return i < n.inputs.size() ? n.inputs[i] : kNoValue;
}

/// A bool computed in int8: the output of a comparison of two f32 operands (QuantOpKind::Compare),
/// held as s8 0/1 at scale 1.
bool isInt8Bool(const Graph& g, ValueId v) {
  if (v == kNoValue || g.isConstant(v) || g.value(v).dtype != DType::Bool ||
      g.value(v).producer < 0) {
    return false;
  }
  const ir::Node& p = g.node(g.value(v).producer);
  return ir::isComparison(p.op) && isF32(g, inputAt(p, 0)) && isF32(g, inputAt(p, 1));
}

/// The gather table of a Resize whose every output is a copy of one input element: the
/// reference resize of an fp32 ramp 0..n-1 (exact below 2^24) gives, for every output, the
/// input element it copies. A linear resize is also run on the squares of the ramp (exact
/// below n = 4096): its weights are non-negative, so by strict convexity an output equals k^2
/// for the ramp value k only when all its weight sits on element k. Empty when some output is
/// not a copy.
std::vector<int32_t> copyGatherTable(const Graph& g, NodeId id) {
  const ir::Value& in = g.value(g.node(id).inputs[0]);
  const ir::ResizeParams params = ir::resizeParams(g, id);
  const bool linear = params.mode != ir::ResizeParams::Mode::Nearest;
  Tensor ramp(DType::F32, in.shape), squares(DType::F32, in.shape);
  std::span<float> r = ramp.values<float>(), q = squares.values<float>();
  for (size_t i = 0; i < r.size(); ++i) {
    r[i] = static_cast<float>(i);
    q[i] = static_cast<float>(i * i);
  }
  const Tensor mapped = reference::resize(params, ramp);
  const Tensor mappedSquares = linear ? reference::resize(params, squares) : Tensor();
  std::vector<int32_t> table;
  table.reserve(static_cast<size_t>(mapped.numElements()));
  std::span<const float> m = mapped.values<float>();
  for (size_t o = 0; o < m.size(); ++o) {
    const auto index = static_cast<int64_t>(m[o]);
    if (static_cast<float>(index) != m[o] || index < 0 || index >= ramp.numElements()) {
      return {};
    }
    if (linear && mappedSquares.values<float>()[o] != static_cast<float>(index * index)) {
      return {};
    }
    table.push_back(static_cast<int32_t>(index));
  }
  return table;
}

/// K of an Accumulate node: the number of int8 products summed into one output.
int64_t reductionLength(const Graph& g, NodeId id) {
  const ir::Node& n = g.node(id);
  if (n.op == OpKind::Conv || n.op == OpKind::ConvTranspose) {
    const ir::ConvParams p = ir::convParams(g, id);
    return p.inChannels / p.group * numElements(p.kernel);
  }
  if (n.op == OpKind::Gemm) {
    return ir::gemmParams(g, id).k;
  }
  return g.value(n.inputs[1]).shape[0]; // MatMul B [K, N]
}

QuantNode island(std::string reason) {
  QuantNode q;
  q.kind = QuantOpKind::FloatIsland;
  q.islandReason = std::move(reason);
  return q;
}

QuantNode ofKind(QuantOpKind kind) {
  QuantNode q;
  q.kind = kind;
  return q;
}

/// A MatMul whose B is computed (attention's Q K^T and P V): both operands int8, K products of
/// two int8 values (|q_a q_b| <= 2^14) summed in int32.
QuantNode classifyTensorMatMul(const Graph& g, NodeId id) {
  const ir::Node& n = g.node(id);
  const ValueId a = inputAt(n, 0), b = inputAt(n, 1);
  if (!isF32(g, a) || !isF32(g, b)) {
    return island("its inputs are not f32");
  }
  if (g.isConstant(a)) {
    return island("A is a constant and B is computed (only B may be the constant operand)");
  }
  const Dims& sa = g.value(a).shape;
  const Dims& sb = g.value(b).shape;
  if (sa.size() < 2 || sb.size() < 2) {
    return island("a 1-D operand (both operands need rank >= 2 to multiply two tensors)");
  }
  const int64_t k = sa.back();
  if (k > kMaxTensorReduction) {
    return island("reduction length " + std::to_string(k) + " may overflow the int32 " +
                  "accumulator (at most " + std::to_string(kMaxTensorReduction) +
                  " products of two int8 values)");
  }
  return ofKind(QuantOpKind::TensorMatMul);
}

/// A linear Resize as integer interpolation: per axis and output index, the reference's taps
/// (reference::resizeTaps) with the second tap's weight rounded to 2^-kInterpolationWeightBits
/// (the first takes the rest, so the weights sum to one exactly). An axis whose every output
/// has a single tap is a gather along it.
QuantNode classifyInterpolation(const Graph& g, NodeId id) {
  const Dims& inShape = g.value(g.node(id).inputs[0]).shape;
  const auto taps = reference::resizeTaps(ir::resizeParams(g, id), inShape);
  QuantNode q = ofKind(QuantOpKind::Interpolate);
  int interpolating = 0;
  for (const auto& positions : taps) {
    InterpolationAxis ax;
    for (const reference::ResizeTaps& t : positions) {
      NNACCEL_ASSERT(!t.extrapolate && !t.taps.empty() && t.taps.size() <= 2)
          << "linear resize taps";
      const int64_t i1 = t.taps.back().first;
      const double w1 = t.taps.size() == 2 ? t.taps[1].second : 0.0;
      ax.index0.push_back(static_cast<int32_t>(t.taps.front().first));
      ax.index1.push_back(static_cast<int32_t>(i1));
      ax.weight1.push_back(
          static_cast<int32_t>(std::lround(std::ldexp(w1, kInterpolationWeightBits))));
      ax.interpolates = ax.interpolates || t.taps.size() == 2;
    }
    interpolating += ax.interpolates ? 1 : 0;
    q.interpolation.push_back(std::move(ax));
  }
  if (interpolating > kMaxInterpolatedAxes) {
    return island(std::to_string(interpolating) + " axes interpolate (at most " +
                  std::to_string(kMaxInterpolatedAxes) + " have an integer form)");
  }
  return q;
}

/// Most lookup tables one node may carry (one per channel of a per-channel constant).
constexpr int64_t kMaxLookupTables = 1 << 16;

/// The output axis along which a constant operand of an element-wise node varies, after numpy
/// right-alignment to \p outRank: -1 when every constant is a scalar; -2 when they vary along
/// more than one axis.
int64_t constantVaryingAxis(const Graph& g, const ir::Node& n, size_t outRank) {
  int64_t axis = -1;
  for (size_t i = 1; i < n.inputs.size(); ++i) {
    if (n.inputs[i] == kNoValue) {
      continue;
    }
    const Dims& cs = g.value(n.inputs[i]).shape;
    for (size_t d = 0; d < cs.size(); ++d) {
      if (cs[d] == 1) {
        continue;
      }
      const auto at = static_cast<int64_t>(outRank) - static_cast<int64_t>(cs.size() - d);
      if (at < 0 || (axis != -1 && axis != at)) {
        return -2;
      }
      axis = at;
    }
  }
  return axis;
}

/// A unary element-wise function of input 0 (the other inputs, if any, f32 constants) as a
/// Lookup node; an island saying why when it cannot be tabulated.
QuantNode classifyLookup(const Graph& g, NodeId id) {
  const ir::Node& n = g.node(id);
  if (!isF32(g, inputAt(n, 0)) || g.isConstant(n.inputs[0])) {
    return island("its input is not a computed f32 value");
  }
  for (size_t i = 1; i < n.inputs.size(); ++i) {
    if (n.inputs[i] != kNoValue && (!g.isConstant(n.inputs[i]) || !isF32(g, n.inputs[i]))) {
      return island("operand " + std::to_string(i) + " is not an f32 constant");
    }
  }
  const Dims& outShape = g.value(n.outputs[0]).shape;
  if (g.value(n.inputs[0]).shape != outShape) {
    return island("a constant operand broadcasts the input to a larger shape");
  }
  const int64_t axis = constantVaryingAxis(g, n, outShape.size());
  if (axis == -2) {
    return island("its constant operand varies along more than one axis");
  }
  if (axis >= 0 && outShape.size() < 2) {
    return island("its constant operand varies along the only axis of a rank-1 value");
  }
  if (axis >= 0 && outShape[static_cast<size_t>(axis)] > kMaxLookupTables) {
    return island("its constant operand has more than 65536 entries along one axis");
  }
  QuantNode q = ofKind(QuantOpKind::Lookup);
  q.lookupAxis = axis;
  return q;
}

/// Decides how node \p id runs in int8 (the table in docs/Quantization.md).
QuantNode classifyNode(const Graph& g, NodeId id) {
  const ir::Node& n = g.node(id);
  const bool folded = std::all_of(n.outputs.begin(), n.outputs.end(),
                                  [&](ValueId v) { return v == kNoValue || g.isConstant(v); });
  if (folded) {
    return ofKind(QuantOpKind::Folded);
  }
  if (ir::isComparison(n.op)) {
    // Two f32 operands (tensors or constants) compared in int8; the bool result as s8 0/1.
    if (!isF32(g, inputAt(n, 0)) || !isF32(g, inputAt(n, 1))) {
      return island("its operands are not f32");
    }
    return ofKind(QuantOpKind::Compare);
  }
  if (n.op == OpKind::Where) {
    // A comparison's s8 0/1 picks between x and y, both requantized to the output scale.
    if (!isInt8Bool(g, inputAt(n, 0))) {
      return island("its condition is not a comparison of two f32 operands");
    }
    if (!isF32(g, inputAt(n, 1)) || !isF32(g, inputAt(n, 2))) {
      return island("its operands are not f32");
    }
    return ofKind(QuantOpKind::Select);
  }
  if (n.op == OpKind::Cast && isInt8Bool(g, inputAt(n, 0)) && !n.outputs.empty() &&
      isF32(g, n.outputs[0])) {
    // A comparison's 0/1 read as f32: a table on the two codes.
    QuantNode q = ofKind(QuantOpKind::Lookup);
    q.lookupAxis = -1;
    return q;
  }
  if (n.outputs.empty() || !isF32(g, n.outputs[0])) {
    return island("its output is not f32");
  }
  bool extraOutputUsed = false;
  for (size_t i = 1; i < n.outputs.size(); ++i) {
    extraOutputUsed = extraOutputUsed || isUsed(g, n.outputs[i]);
  }
  // Kinds with one data input (input 0); the others are parameters.
  auto unary = [&](QuantOpKind kind) {
    return isF32(g, inputAt(n, 0)) ? ofKind(kind) : island("its input is not f32");
  };
  switch (n.op) {
  case OpKind::Conv:
  case OpKind::ConvTranspose:
    if (!g.isConstant(inputAt(n, 1)) || !isF32(g, inputAt(n, 1))) {
      return island("its weights are not an f32 constant");
    }
    if (inputAt(n, 2) != kNoValue && (!g.isConstant(inputAt(n, 2)) || !isF32(g, inputAt(n, 2)))) {
      return island("its bias is not an f32 constant");
    }
    return unary(QuantOpKind::Accumulate);
  case OpKind::Gemm: {
    const ValueId b = inputAt(n, 1);
    if (!g.isConstant(b) || !isF32(g, b) || g.value(b).shape.size() != 2) {
      return island("B is not a 2-D f32 constant");
    }
    const ValueId c = inputAt(n, 2);
    if (c != kNoValue) {
      if (!g.isConstant(c) || !isF32(g, c)) {
        return island("C is not an f32 constant");
      }
      const ir::GemmParams p = ir::gemmParams(g, id);
      const Dims& cs = g.value(c).shape;
      const bool perColumn = numElements(cs) == 1 || cs == Dims{p.n} || cs == Dims{1, p.n};
      if (!perColumn) {
        return island("C is not a per-column bias (shape " + dimsToString(cs) + ")");
      }
    }
    if (!isF32(g, inputAt(n, 0)) || g.value(inputAt(n, 0)).shape.size() != 2) {
      return island("A is not a 2-D f32 value");
    }
    return ofKind(QuantOpKind::Accumulate);
  }
  case OpKind::MatMul: {
    const ValueId b = inputAt(n, 1);
    if (!g.isConstant(b)) {
      return classifyTensorMatMul(g, id);
    }
    if (!isF32(g, b) || g.value(b).shape.size() != 2) {
      return island("B is not a 2-D f32 constant");
    }
    return unary(QuantOpKind::Accumulate);
  }
  case OpKind::Relu:
  case OpKind::Clip:
    return unary(QuantOpKind::Clamp);
  case OpKind::MaxPool:
    if (extraOutputUsed) {
      return island("its Indices output is used");
    }
    return unary(QuantOpKind::MaxPool);
  case OpKind::GlobalMaxPool:
    return unary(QuantOpKind::MaxPool);
  case OpKind::AveragePool:
  case OpKind::GlobalAveragePool:
    return unary(QuantOpKind::AveragePool);
  case OpKind::Dropout:
    if (extraOutputUsed) {
      return island("its mask output is used");
    }
    return unary(QuantOpKind::DataMovement);
  case OpKind::Reshape:
  case OpKind::Flatten:
  case OpKind::Squeeze:
  case OpKind::Unsqueeze:
  case OpKind::Identity:
  case OpKind::Transpose:
  case OpKind::DepthToSpace:
  case OpKind::Slice:
  case OpKind::Tile:
  case OpKind::Expand:
    return unary(QuantOpKind::DataMovement);
  case OpKind::Pad: {
    const ir::PadParams p = ir::padParams(g, id);
    // Edge and reflect copy values (the scale is kept); a constant pad adds the value 0 only.
    if (p.mode == ir::PadParams::Mode::Constant && p.value != 0.0f) {
      return island("its pad value is not 0");
    }
    return unary(QuantOpKind::DataMovement);
  }
  case OpKind::Resize:
  case OpKind::Upsample: {
    const ir::ResizeParams p = ir::resizeParams(g, id);
    const bool linear = p.mode == ir::ResizeParams::Mode::Linear;
    if (p.mode != ir::ResizeParams::Mode::Nearest && !linear) {
      return island("cubic resizing has no integer form (nearest and linear have)");
    }
    if (p.coordinateTransform == "tf_crop_and_resize") {
      return island("tf_crop_and_resize may extrapolate");
    }
    if (!isF32(g, inputAt(n, 0))) {
      return island("its input is not f32");
    }
    const int64_t inElements = numElements(g.value(inputAt(n, 0)).shape);
    if (linear && inElements > kMaxLinearCopyElements) {
      return classifyInterpolation(g, id);
    }
    if (inElements > kMaxGatherElements) {
      return island("its input has more than 2^24 elements (gather table limit)");
    }
    QuantNode q = ofKind(QuantOpKind::Gather);
    q.gatherIndex = copyGatherTable(g, id);
    if (q.gatherIndex.empty() && numElements(g.value(n.outputs[0]).shape) > 0) {
      return linear ? classifyInterpolation(g, id)
                    : island("some outputs are not copies of input elements");
    }
    return q;
  }
  case OpKind::Add:
  case OpKind::Sub:
  case OpKind::Mul:
    if (!isF32(g, inputAt(n, 0)) || !isF32(g, inputAt(n, 1))) {
      return island("its inputs are not f32");
    }
    // x op constant (the constant second, so Sub keeps its order): a unary function of x,
    // tabulated when the constant varies along at most one axis and does not widen x.
    if (!g.isConstant(n.inputs[0]) && g.isConstant(n.inputs[1])) {
      QuantNode lookup = classifyLookup(g, id);
      if (lookup.kind == QuantOpKind::Lookup) {
        return lookup;
      }
    }
    return ofKind(n.op == OpKind::Mul ? QuantOpKind::Mul : QuantOpKind::AddSub);
  case OpKind::Min:
  case OpKind::Max:
    // With a constant (second) operand, a unary function of x: a table. Two tensors are both
    // requantized onto the output scale, then compared.
    if (!g.isConstant(inputAt(n, 0)) && g.isConstant(inputAt(n, 1))) {
      return classifyLookup(g, id);
    }
    if (n.inputs.size() != 2 || !isF32(g, inputAt(n, 0)) || !isF32(g, inputAt(n, 1))) {
      return island("its inputs are not two f32 tensors");
    }
    return ofKind(QuantOpKind::MinMax);
  case OpKind::Concat:
    for (ValueId v : n.inputs) {
      if (!isF32(g, v)) {
        return island("its inputs are not f32");
      }
    }
    return ofKind(QuantOpKind::Concat);
  case OpKind::BatchNormalization: {
    // A standalone (unfolded) BatchNormalization is a per-channel affine map: one table per
    // channel (its statistics broadcast along axis 1, not numpy's last axis).
    const Dims& shape = g.value(n.outputs[0]).shape;
    if (extraOutputUsed) {
      return island("its training-mode outputs are used");
    }
    if (shape.size() < 2) {
      return island("its input has no channel axis");
    }
    for (size_t i = 1; i < n.inputs.size(); ++i) {
      if (!g.isConstant(inputAt(n, i)) || !isF32(g, inputAt(n, i))) {
        return island("its statistics are not f32 constants");
      }
    }
    if (!isF32(g, inputAt(n, 0)) || g.isConstant(n.inputs[0])) {
      return island("its input is not a computed f32 value");
    }
    if (shape[1] > kMaxLookupTables) {
      return island("it has more than 65536 channels");
    }
    QuantNode q = ofKind(QuantOpKind::Lookup);
    q.lookupAxis = 1;
    return q;
  }
  case OpKind::Sigmoid:
  case OpKind::HardSigmoid:
  case OpKind::HardSwish:
  case OpKind::Tanh:
  case OpKind::Elu:
  case OpKind::Selu:
  case OpKind::Softplus:
  case OpKind::LeakyRelu:
  case OpKind::PRelu:
  case OpKind::Exp:
  case OpKind::Erf:
  case OpKind::Gelu:
  case OpKind::Swish:
  case OpKind::Mish:
  case OpKind::Softsign:
  case OpKind::Sqrt:
  case OpKind::Reciprocal:
  case OpKind::Log:
  case OpKind::Neg:
  case OpKind::Abs:
  case OpKind::Floor:
  case OpKind::Round:
  case OpKind::Ceil:
    return classifyLookup(g, id);
  case OpKind::ReduceMean:
  case OpKind::ReduceSum:
  case OpKind::ReduceMax:
  case OpKind::ReduceMin: {
    const std::optional<LineGeometry> geo =
        reduceGeometry(ir::reduceParams(g, id).axes, g.value(inputAt(n, 0)).shape);
    if (!geo) {
      return island("its reduced axes are not contiguous");
    }
    if (geo->length > kMaxReduceLength) {
      return island("it reduces more than 2^23 elements into one");
    }
    return unary(QuantOpKind::Reduce);
  }
  case OpKind::Softmax: {
    const quant::LineGeometry geo =
        softmaxGeometry(ir::softmaxParams(g, id), g.value(n.outputs[0]).shape);
    if (geo.length > kMaxSoftmaxLength) {
      return island("its lines are longer than 2^24 elements");
    }
    return unary(QuantOpKind::Softmax);
  }
  case OpKind::Div:
    if (!g.isConstant(inputAt(n, 1))) {
      // A tensor divided by a computed tensor: the dividend times an integer reciprocal.
      if (!isF32(g, inputAt(n, 0)) || !isF32(g, inputAt(n, 1))) {
        return island("its inputs are not f32");
      }
      return ofKind(QuantOpKind::Mul);
    }
    return classifyLookup(g, id);
  case OpKind::Pow:
    if (!g.isConstant(inputAt(n, 1))) {
      return island("its exponent is not a constant");
    }
    return classifyLookup(g, id);
  default:
    return island("the quantizer has no int8 rule for " + std::string(ir::opName(n.op)));
  }
}

// --- calibration -------------------------------------------------------------------------------

// --- scales and per-node parameters ------------------------------------------------------------

/// Fills a QuantizedModel: classify() and checkConstants() before calibration (so bad input
/// fails fast), assign() after it.
class Quantizer {
public:
  Quantizer(QuantizedModel& model, std::map<ValueId, ActivationQuant> modelScales)
      : m_(model), g_(model.graph), modelScales_(std::move(modelScales)) {}

  void classify() {
    m_.nodes.clear();
    for (size_t i = 0; i < g_.numNodes(); ++i) {
      m_.nodes.push_back(classifyNode(g_, static_cast<NodeId>(i)));
    }
    // A QDQ model quantizes a Relu's or MaxPool's output; the scale-preserving node's input
    // (the Conv before a Relu) takes that scale, as the model's fused integer kernels do.
    for (auto i = static_cast<NodeId>(g_.numNodes()); i-- > 0;) {
      const ir::Node& n = g_.node(i);
      if (!isScalePreserving(m_.nodes[static_cast<size_t>(i)].kind) || n.inputs.empty() ||
          n.outputs.empty() || g_.isConstant(n.inputs[0]))
        continue;
      if (auto out = modelScales_.find(n.outputs[0]); out != modelScales_.end())
        modelScales_.emplace(n.inputs[0], out->second);
    }
  }

  /// Weights and biases of integer layers must be finite, and their reductions short enough
  /// for the int32 accumulator.
  void checkConstants() const {
    for (size_t i = 0; i < g_.numNodes(); ++i) {
      if (m_.nodes[i].kind != QuantOpKind::Accumulate) {
        continue;
      }
      const auto id = static_cast<NodeId>(i);
      const int64_t reduction = reductionLength(g_, id);
      if (reduction > kMaxReduction) {
        g_.fail(id,
                "reduction length " + std::to_string(reduction) +
                    " may overflow the int32 accumulator (at most " +
                    std::to_string(kMaxReduction) + " int8 products)",
                ErrorKind::Unsupported);
      }
      const ir::Node& n = g_.node(id);
      for (size_t k = 1; k < n.inputs.size(); ++k) {
        const ValueId v = n.inputs[k];
        if (v == kNoValue) {
          continue;
        }
        for (float x : g_.value(v).constant->values<float>()) {
          if (!std::isfinite(x)) {
            g_.fail(id, k == 1 ? "weights '" + g_.value(v).name + "' hold a non-finite value"
                               : "bias '" + g_.value(v).name + "' holds a non-finite value");
          }
        }
      }
    }
  }

  /// Scales and per-node parameters from the calibrated ranges.
  void assign(std::vector<detail::Range> ranges) {
    ranges_ = std::move(ranges);
    m_.scales.assign(g_.numValues(), 0.0f);
    m_.zeroPoints.assign(g_.numValues(), 0);
    m_.constants.assign(g_.numValues(), QuantTensor{});
    m_.calibratedMaxAbs.assign(g_.numValues(), 0.0f);
    for (size_t v = 0; v < g_.numValues(); ++v) {
      m_.calibratedMaxAbs[v] = ranges_[v].rawMaxAbs;
    }
    for (ValueId v : g_.inputs) {
      if (isF32(g_, v)) {
        const auto model = modelScales_.find(v);
        const ActivationQuant q = model != modelScales_.end() ? model->second : calibratedQuant(v);
        m_.scales[static_cast<size_t>(v)] = q.scale;
        m_.zeroPoints[static_cast<size_t>(v)] = q.zeroPoint;
      }
    }
    for (size_t i = 0; i < g_.numNodes(); ++i) {
      quantizeNode(static_cast<NodeId>(i));
    }
  }

private:
  /// The part [lo, hi] of v's calibrated range that matters: when every consumer is a Relu or
  /// Clip reading v, values below/above the clamp bounds all map to the same output, so only
  /// the clamped range counts (saturating the rest is exact). [0, 0] when never seen.
  std::pair<float, float> usefulRange(ValueId v) const {
    const detail::Range& r = ranges_[static_cast<size_t>(v)];
    if (!r.seen())
      return {0.0f, 0.0f};
    const std::vector<NodeId> users = g_.users(v);
    if (users.empty() || isGraphOutput(g_, v)) {
      return {r.lo, r.hi};
    }
    float lowest = std::numeric_limits<float>::infinity();
    float highest = -std::numeric_limits<float>::infinity();
    for (NodeId u : users) {
      const ir::Node& n = g_.node(u);
      const bool clampUser = (n.op == OpKind::Relu || n.op == OpKind::Clip) &&
                             m_.nodes[static_cast<size_t>(u)].kind == QuantOpKind::Clamp &&
                             std::count(n.inputs.begin(), n.inputs.end(), v) == 1 &&
                             n.inputs[0] == v;
      if (!clampUser) {
        return {r.lo, r.hi};
      }
      const ir::ActivationParams p = ir::activationParams(g_, u);
      const float lo = n.op == OpKind::Relu ? 0.0f : p.alpha;
      const float hi = n.op == OpKind::Relu ? std::numeric_limits<float>::infinity() : p.beta;
      lowest = std::min(lowest, std::min(std::max(r.lo, lo), hi));
      highest = std::max(highest, std::min(std::max(r.hi, lo), hi));
    }
    return {lowest, highest};
  }

  /// max|x| of usefulRange(v): what a symmetric scale must cover.
  float usefulMaxAbs(ValueId v) const {
    const auto [lo, hi] = usefulRange(v);
    return std::max(std::fabs(lo), std::fabs(hi));
  }

  /// The scale and zero point of value \p v from its calibrated range: symmetric (max|x| / 127,
  /// zero point 0), or with CalibrationOptions::asymmetric the range widened to hold 0 spread
  /// over all 256 codes, scale = (hi - lo) / 255 and z = round(-128 - lo / scale) (real 0 is
  /// then exactly the code z). A range too small for a normal scale is the all-zero value's.
  ActivationQuant calibratedQuant(ValueId v) const {
    if (!m_.calibration.asymmetric)
      return {rangeScale(usefulMaxAbs(v)), 0};
    const auto [usefulLo, usefulHi] = usefulRange(v);
    const float lo = std::min(usefulLo, 0.0f), hi = std::max(usefulHi, 0.0f);
    const float scale = (hi - lo) / 255.0f;
    if (!(scale >= std::numeric_limits<float>::min()) || !std::isfinite(scale))
      return {symmetricScale(0.0f), 0};
    const auto zero = static_cast<int32_t>(
        roundHalfAwayClamped(-128.0 - static_cast<double>(lo) / scale, kInt8Min, kInt8Max));
    return {scale, zero};
  }

  /// The fixed quantization of an output in [-1, 1] by definition (boundedOutput): 1/127
  /// symmetric; asymmetric, [0, 1] over the 256 codes for Sigmoid, HardSigmoid and Softmax.
  ActivationQuant boundedQuant(OpKind op) const {
    if (m_.calibration.asymmetric && op != OpKind::Tanh)
      return {1.0f / 255.0f, kInt8Min};
    return {symmetricScale(1.0f), 0};
  }

  /// True when the output of \p op run as \p kind lies in [-1, 1] by definition (Sigmoid,
  /// HardSigmoid and Softmax in [0, 1], Tanh in [-1, 1]): its scale is fixed at 1/127 instead of
  /// calibrated, as TensorFlow Lite fixes these outputs' quantization (TFLite 8-bit quantization
  /// specification, tensorflow.org/lite/performance/quantization_spec: LOGISTIC and SOFTMAX
  /// output scale 1/256, TANH 1/128). A calibration set that never drives a detector's
  /// probability map near 1 (non-text photographs for a text detector) then cannot saturate it
  /// on an input that does.
  static bool boundedOutput(OpKind op, QuantOpKind kind) {
    const bool bounded = op == OpKind::Sigmoid || op == OpKind::HardSigmoid || op == OpKind::Tanh ||
                         op == OpKind::Softmax;
    return bounded && (kind == QuantOpKind::Lookup || kind == QuantOpKind::Softmax);
  }

  /// A QDQ model's own scale and zero point for output \p v of node \p id replace the
  /// calibrated ones; a scale-preserving node must see the same on both sides.
  void applyModelScale(NodeId id, ValueId v, bool preserving) {
    const auto model = modelScales_.find(v);
    if (model == modelScales_.end())
      return;
    float& s = m_.scales[static_cast<size_t>(v)];
    int32_t& z = m_.zeroPoints[static_cast<size_t>(v)];
    if (preserving && (s != model->second.scale || z != model->second.zeroPoint))
      g_.fail(id,
              fmt::format("the model quantizes its input at scale {} (zero point {}) and its "
                          "output at {} (zero point {}), but {} keeps its input's int8 codes "
                          "(one quantization on both sides)",
                          s, z, model->second.scale, model->second.zeroPoint,
                          ir::opName(g_.node(id).op)),
              ErrorKind::Unsupported);
    s = model->second.scale;
    z = model->second.zeroPoint;
  }

  /// symmetricScale(maxAbs) for a value's calibrated range when it is a normal f32 number; a
  /// range so small that max|x| / 127 underflows is the all-zero value's scale (below).
  static float rangeScale(float maxAbs) {
    const float s = symmetricScale(maxAbs);
    // Degenerate data (issue 20): a value whose every magnitude lies below the f32 normal range
    // times 127 (denormal activations, a model multiplying by 1e-44) has no int8 scale; every
    // int8 code of it would be 0 at any representable scale, so it is the all-zero value, at
    // the all-zero scale (docs/Quantization.md §1 "Calibration").
    return s >= std::numeric_limits<float>::min() ? s : symmetricScale(0.0f);
  }

  /// Scale of a data operand; constants get their per-tensor int8 form on first use.
  float operandScale(ValueId v) {
    const auto i = static_cast<size_t>(v);
    if (g_.isConstant(v) && !m_.constants[i].isQuantized()) {
      const Tensor& c = *g_.value(v).constant;
      float maxAbs = 0.0f;
      for (float x : c.values<float>()) {
        maxAbs = std::max(maxAbs, std::fabs(x));
      }
      m_.constants[i] = quantizeTensor(c, rangeScale(maxAbs), m_.rounding);
      m_.scales[i] = m_.constants[i].scale;
    }
    NNACCEL_ASSERT(m_.scales[i] > 0) << "operand '" << g_.value(v).name << "' has no scale";
    return m_.scales[i];
  }

  QuantMultiplier multiplier(NodeId id, double m, const std::string& what,
                             int64_t maxAbsAccumulator = int64_t{1} << 31) const {
    try {
      QuantMultiplier q = quantizeMultiplier(m, maxAbsAccumulator);
      q.rounding = m_.rounding;
      return q;
    } catch (const Error& e) {
      g_.fail(id, what + ": " + e.reason(), e.kind());
    }
  }

  void quantizeNode(NodeId id) {
    const ir::Node& n = g_.node(id);
    QuantNode& q = m_.nodes[static_cast<size_t>(id)];
    if (q.kind == QuantOpKind::Folded) {
      return;
    }
    // Data operands first (they may be constants needing an int8 form).
    std::vector<float> inScales(n.inputs.size(), 0.0f);
    if (q.kind != QuantOpKind::FloatIsland) {
      const bool allData = q.kind == QuantOpKind::AddSub || q.kind == QuantOpKind::Mul ||
                           q.kind == QuantOpKind::TensorMatMul || q.kind == QuantOpKind::Concat ||
                           q.kind == QuantOpKind::MinMax || q.kind == QuantOpKind::Compare ||
                           q.kind == QuantOpKind::Select;
      const size_t numData = allData ? n.inputs.size() : 1;
      for (size_t i = 0; i < numData; ++i) {
        inScales[i] = operandScale(n.inputs[i]);
      }
    }
    for (size_t i = 0; i < n.outputs.size(); ++i) {
      const ValueId v = n.outputs[i];
      if (q.kind == QuantOpKind::Compare && i == 0) {
        m_.scales[static_cast<size_t>(v)] = 1.0f; // s8 0/1
        continue;
      }
      if (!isF32(g_, v)) {
        continue;
      }
      const bool preserving = isScalePreserving(q.kind) && i == 0;
      const ActivationQuant aq = preserving ? ActivationQuant{inScales[0], zeroPointOf(n.inputs[0])}
                                 : boundedOutput(n.op, q.kind) ? boundedQuant(n.op)
                                                               : calibratedQuant(v);
      m_.scales[static_cast<size_t>(v)] = aq.scale;
      m_.zeroPoints[static_cast<size_t>(v)] = aq.zeroPoint;
      applyModelScale(id, v, preserving);
    }
    const float sOut = m_.scales[static_cast<size_t>(n.outputs[0])];
    const int32_t zIn = n.inputs.empty() ? 0 : zeroPointOf(n.inputs[0]);
    const int32_t zOut = zeroPointOf(n.outputs[0]);
    // Largest |q - z| of an int8 operand: 128 symmetric, up to 255 with a zero point.
    const int64_t operandMax = zIn == 0 ? -kInt8Min : kInt8Max - kInt8Min;
    switch (q.kind) {
    case QuantOpKind::Accumulate:
      quantizeAccumulate(id, q, inScales[0], sOut, zIn);
      break;
    case QuantOpKind::Clamp:
      if (n.op == OpKind::Relu) {
        q.clampMin = zOut; // the code of real 0
        q.clampMax = kInt8Max;
      } else {
        const ir::ActivationParams p = ir::activationParams(g_, id);
        q.clampMin = quantizeValue(p.alpha, sOut, kInt8Min, kInt8Max, Rounding::HalfAway, zOut);
        q.clampMax = quantizeValue(p.beta, sOut, kInt8Min, kInt8Max, Rounding::HalfAway, zOut);
      }
      break;
    case QuantOpKind::AveragePool:
      for (int64_t count : averagePoolCounts(ir::poolParams(g_, id))) {
        const double m = static_cast<double>(inScales[0]) /
                         (static_cast<double>(sOut) * static_cast<double>(count));
        // Window sums of `count` int8 values: |sum| <= 128 * count (accumulated in int64).
        q.countMultipliers.push_back(
            {count,
             multiplier(id, m, "window count " + std::to_string(count), operandMax * count)});
      }
      break;
    case QuantOpKind::AddSub: {
      const double sa = inScales[0], sb = inScales[1];
      const double twiceMax = 2.0 * std::max(sa, sb);
      q.addSub.leftShift = kAddSubLeftShift;
      q.addSub.a = multiplier(id, sa / twiceMax, "operand A");
      q.addSub.b = multiplier(id, sb / twiceMax, "operand B");
      q.addSub.output = multiplier(
          id, twiceMax / (std::ldexp(1.0, kAddSubLeftShift) * static_cast<double>(sOut)), "output");
      break;
    }
    case QuantOpKind::Mul:
      q.mulMultiplier =
          n.op == OpKind::Div
              ? multiplier(id,
                           static_cast<double>(inScales[0]) /
                               (std::ldexp(static_cast<double>(inScales[1]), kReciprocalBits) *
                                static_cast<double>(sOut)),
                           "output", zIn == 0 ? int64_t{1} << 30 : operandMax << kReciprocalBits)
              : multiplier(id,
                           static_cast<double>(inScales[0]) * static_cast<double>(inScales[1]) /
                               static_cast<double>(sOut),
                           "output");
      break;
    case QuantOpKind::TensorMatMul:
      checkTensorReduction(id);
      q.mulMultiplier = multiplier(
          id, static_cast<double>(inScales[0]) * static_cast<double>(inScales[1]) / sOut, "output");
      break;
    case QuantOpKind::Concat:
    case QuantOpKind::MinMax:
      for (size_t i = 0; i < n.inputs.size(); ++i) {
        q.inputMultipliers.push_back(
            multiplier(id, static_cast<double>(inScales[i]) / static_cast<double>(sOut),
                       "input " + std::to_string(i)));
      }
      if (q.kind == QuantOpKind::Concat && m_.rounding == Rounding::HalfEven)
        fillRescaleTables(id, q, inScales, {sOut, zOut});
      break;
    case QuantOpKind::Select: // the condition (scale 1) keeps a unit multiplier
      for (size_t i = 0; i < 3; ++i) {
        q.inputMultipliers.push_back(multiplier(
            id, i == 0 ? 1.0 : static_cast<double>(inScales[i]) / static_cast<double>(sOut),
            "input " + std::to_string(i)));
      }
      break;
    case QuantOpKind::Compare: {
      const double common = std::max(inScales[0], inScales[1]);
      for (size_t i = 0; i < 2; ++i)
        q.inputMultipliers.push_back(multiplier(id, static_cast<double>(inScales[i]) / common,
                                                "operand " + std::to_string(i)));
      break;
    }
    case QuantOpKind::Lookup:
      fillLookupTables(id, q, {inScales[0], zIn}, {sOut, zOut});
      break;
    case QuantOpKind::Reduce: {
      const ir::Node& r = g_.node(id);
      const LineGeometry geo =
          *reduceGeometry(ir::reduceParams(g_, id).axes, g_.value(r.inputs[0]).shape);
      const double count = r.op == OpKind::ReduceMean ? static_cast<double>(geo.length) : 1.0;
      q.reduceMultiplier = multiplier(id, inScales[0] / (count * static_cast<double>(sOut)),
                                      "output", kMaxReduceLength * operandMax);
      break;
    }
    case QuantOpKind::Softmax:
      for (int64_t d = 0; d < kLookupEntries; ++d)
        q.softmaxExp.push_back(static_cast<int32_t>(std::lround(
            std::ldexp(std::exp(-static_cast<double>(d) * inScales[0]), kSoftmaxExpBits))));
      q.softmaxOutput =
          multiplier(id, std::ldexp(1.0, -kSoftmaxProbBits) / static_cast<double>(sOut), "output",
                     int64_t{1} << kSoftmaxProbBits);
      break;
    case QuantOpKind::MaxPool:
    case QuantOpKind::DataMovement:
    case QuantOpKind::Gather:
    case QuantOpKind::Interpolate:
    case QuantOpKind::FloatIsland:
    case QuantOpKind::Folded:
      break;
    }
  }

  /// A concatenation of a model that rounds as ONNX does: each input that changes scale or zero
  /// point moves onto the output's through fp32 (rescaleTable), as the QDQ form defines it.
  void fillRescaleTables(NodeId id, QuantNode& q, const std::vector<float>& inScales,
                         ActivationQuant out) const {
    const ir::Node& n = g_.node(id);
    q.inputTables.resize(n.inputs.size());
    for (size_t i = 0; i < n.inputs.size(); ++i) {
      const ValueId v = n.inputs[i];
      const int32_t zIn = zeroPointOf(v);
      if (q.inputMultipliers[i].isIdentity() && zIn == out.zeroPoint)
        continue;
      q.inputTables[i] = rescaleTable(inScales[i], zIn, out.scale, out.zeroPoint);
    }
  }

  /// The zero point of data operand \p v: 0 for a constant (constants are symmetric).
  int32_t zeroPointOf(ValueId v) const {
    return v == kNoValue || g_.isConstant(v) ? 0 : m_.zeroPoints[static_cast<size_t>(v)];
  }

  /// A MatMul of two computed tensors sums K products of two differences q - z in int32.
  void checkTensorReduction(NodeId id) const {
    const ir::Node& n = g_.node(id);
    const int64_t k = g_.value(n.inputs[0]).shape.back();
    const int64_t a = zeroPointOf(n.inputs[0]) == 0 ? 128 : 255;
    const int64_t b = zeroPointOf(n.inputs[1]) == 0 ? 128 : 255;
    if (k * a * b > std::numeric_limits<int32_t>::max())
      g_.fail(id,
              fmt::format("reduction length {} of two int8 operands with zero points may "
                          "overflow the int32 accumulator",
                          k),
              ErrorKind::Unsupported);
  }

  /// The tables of a Lookup node: the reference fp32 function of the node (with its constant
  /// operands) evaluated on the 256 dequantized int8 values, once per index along lookupAxis,
  /// and quantized to the output scale. The probe tensor has the output's rank, the table
  /// count on lookupAxis and the 256 values on another axis, so constants broadcast as in the
  /// graph.
  void fillLookupTables(NodeId id, QuantNode& q, ActivationQuant in, ActivationQuant out) const {
    const ir::Node& n = g_.node(id);
    const Dims& outShape = g_.value(n.outputs[0]).shape;
    const size_t rank = std::max<size_t>(outShape.size(), 1);
    const auto tableAxis = static_cast<size_t>(std::max<int64_t>(q.lookupAxis, 0));
    const size_t valueAxis = q.lookupAxis < 0 ? rank - 1 : (tableAxis + 1 == rank ? 0 : rank - 1);
    const int64_t tables = q.lookupAxis < 0 ? 1 : outShape[tableAxis];
    Dims probeShape(rank, 1);
    probeShape[valueAxis] = kLookupEntries;
    if (q.lookupAxis >= 0) {
      probeShape[tableAxis] = tables;
    }
    Tensor probe(DType::F32, probeShape);
    std::span<float> x = probe.values<float>();
    const int64_t valueStride = valueAxis + 1 == rank ? 1 : tables; // layouts [T,256] or [256,T]
    for (int64_t t = 0; t < tables; ++t) {
      for (int64_t v = 0; v < kLookupEntries; ++v) {
        const int64_t at = valueStride == 1 ? t * kLookupEntries + v : v * tables + t;
        x[static_cast<size_t>(at)] =
            dequantizeValue(static_cast<int32_t>(v) + kInt8Min, in.scale, in.zeroPoint);
      }
    }
    std::vector<const Tensor*> args(n.inputs.size(), nullptr);
    args[0] = &probe;
    for (size_t i = 1; i < n.inputs.size(); ++i) {
      if (n.inputs[i] != kNoValue) {
        args[i] = g_.value(n.inputs[i]).constant.get();
      }
    }
    const Tensor y = reference::evalNode(g_, id, args).at(0);
    NNACCEL_ASSERT(y.numElements() == tables * kLookupEntries) << "lookup probe shape";
    q.lookupTables.resize(static_cast<size_t>(tables * kLookupEntries));
    for (int64_t t = 0; t < tables; ++t) {
      for (int64_t v = 0; v < kLookupEntries; ++v) {
        const int64_t at = valueStride == 1 ? t * kLookupEntries + v : v * tables + t;
        q.lookupTables[static_cast<size_t>(t * kLookupEntries + v)] =
            quantizeValue(y.values<float>()[static_cast<size_t>(at)], out.scale, kInt8Min, kInt8Max,
                          m_.rounding, out.zeroPoint);
      }
    }
  }

  /// fp32 weights of an Accumulate node in the stored layout, with the output channel of each
  /// element, the per-channel fp32 bias and the reduction length.
  struct FloatWeights {
    Tensor weights;
    std::vector<int64_t> channelOf; // per element
    int64_t channels = 0;
    std::vector<float> bias; // per channel (zeros when absent)
    int64_t reduction = 0;
  };

  FloatWeights floatWeights(NodeId id, QuantNode& q) const {
    const ir::Node& n = g_.node(id);
    FloatWeights f;
    const Tensor& w = *g_.value(n.inputs[1]).constant;
    const Tensor* bias = inputAt(n, 2) != kNoValue ? g_.value(n.inputs[2]).constant.get() : nullptr;
    if (n.op == OpKind::Conv || n.op == OpKind::ConvTranspose) {
      const ir::ConvParams p = ir::convParams(g_, id);
      const int64_t kvol = numElements(p.kernel);
      const int64_t cg = p.inChannels / p.group;
      const int64_t mg = p.outChannels / p.group;
      f.weights = w;
      f.channels = p.outChannels;
      f.reduction = cg * kvol;
      f.channelOf.resize(static_cast<size_t>(w.numElements()));
      for (int64_t e = 0; e < w.numElements(); ++e) {
        if (!p.transposed) {
          f.channelOf[static_cast<size_t>(e)] = e / (cg * kvol); // [M, C/g, k...]
        } else {
          const int64_t c = e / (mg * kvol); // [C, M/g, k...]
          const int64_t j = (e / kvol) % mg;
          f.channelOf[static_cast<size_t>(e)] = (c / cg) * mg + j;
        }
      }
      f.bias.assign(static_cast<size_t>(f.channels), 0.0f);
      if (bias) {
        for (int64_t c = 0; c < f.channels; ++c) {
          f.bias[static_cast<size_t>(c)] = bias->data<float>()[c];
        }
      }
      return f;
    }
    // Gemm / MatMul: stored as [N, K] = alpha * op(B)^T.
    float alpha = 1.0f, beta = 1.0f;
    bool transB = false;
    if (n.op == OpKind::Gemm) {
      const ir::GemmParams p = ir::gemmParams(g_, id);
      alpha = p.alpha;
      beta = p.beta;
      transB = p.transB;
      q.transA = p.transA;
    }
    const int64_t k = transB ? w.dim(1) : w.dim(0);
    const int64_t nOut = transB ? w.dim(0) : w.dim(1);
    f.weights = Tensor(DType::F32, {nOut, k});
    f.channels = nOut;
    f.reduction = k;
    f.channelOf.resize(static_cast<size_t>(nOut * k));
    const float* src = w.data<float>();
    float* dst = f.weights.data<float>();
    for (int64_t o = 0; o < nOut; ++o) {
      for (int64_t i = 0; i < k; ++i) {
        const float b = transB ? src[o * k + i] : src[i * nOut + o];
        dst[o * k + i] = n.op == OpKind::Gemm ? alpha * b : b;
        f.channelOf[static_cast<size_t>(o * k + i)] = o;
      }
    }
    f.bias.assign(static_cast<size_t>(nOut), 0.0f);
    if (bias) {
      for (int64_t o = 0; o < nOut; ++o) {
        const int64_t at = bias->numElements() == 1 ? 0 : o;
        f.bias[static_cast<size_t>(o)] = beta * bias->data<float>()[at];
      }
    }
    return f;
  }

  void quantizeAccumulate(NodeId id, QuantNode& q, float sIn, float sOut, int32_t zIn) {
    const FloatWeights f = floatWeights(id, q);
    NNACCEL_ASSERT(f.reduction == reductionLength(g_, id)) << "reduction length";
    std::vector<float> maxAbs(static_cast<size_t>(f.channels), 0.0f);
    std::span<const float> w = f.weights.values<float>();
    for (size_t e = 0; e < w.size(); ++e) {
      float& mx = maxAbs[static_cast<size_t>(f.channelOf[e])];
      mx = std::max(mx, std::fabs(w[e]));
    }
    q.weightScales.resize(maxAbs.size());
    for (size_t c = 0; c < maxAbs.size(); ++c) {
      // An all-zero channel: any scale represents it; 1/127 keeps its bias finely resolved.
      q.weightScales[c] = maxAbs[c] > 0 ? maxAbs[c] / 127.0f : 1.0f / 127.0f;
    }
    // A QDQ model's weights: its own int8 codes and scales (-128 included).
    const ir::Node& n = g_.node(id);
    const std::optional<std::vector<float>> model = modelWeightScales(id, f.channels);
    if (model)
      q.weightScales = *model;
    const int32_t lowest = model ? kInt8Min : -kWeightMax;
    q.weights = Tensor(DType::I8, f.weights.shape());
    int8_t* qw = q.weights.data<int8_t>();
    for (size_t e = 0; e < w.size(); ++e) {
      qw[e] = quantizeValue(w[e], q.weightScales[static_cast<size_t>(f.channelOf[e])], lowest,
                            kWeightMax);
    }
    q.reductionLength = f.reduction;
    // Largest |product|: 128 * 127 for nnaccel's own weights, 128 * 128 with the model's -128;
    // with an input zero point a kernel may sum x * w and z * w separately (the bias form of
    // sum (x - z) * w), so twice 128 * 128.
    const int64_t product = zIn != 0 ? 2 * 128 * 128 : model ? 128 * 128 : kMaxProduct;
    if ((model || zIn != 0) && f.reduction * product > std::numeric_limits<int32_t>::max())
      g_.fail(id,
              fmt::format("reduction length {} of int8 {} may overflow the int32 accumulator",
                          f.reduction,
                          zIn != 0 ? "inputs with a zero point" : "weights that include -128"),
              ErrorKind::Unsupported);
    // Bias headroom: |bias| + K * product never exceeds INT32_MAX, for any summation order.
    const auto biasLimit =
        static_cast<int32_t>(std::numeric_limits<int32_t>::max() - f.reduction * product);
    const ValueId biasValue = inputAt(n, 2);
    const ir::QdqParams* biasModel =
        biasValue != kNoValue && g_.value(biasValue).dequantizedFrom && n.op != OpKind::Gemm
            ? &*g_.value(biasValue).dequantizedFrom
            : nullptr;
    q.bias.resize(static_cast<size_t>(f.channels));
    q.multipliers.resize(static_cast<size_t>(f.channels));
    for (size_t c = 0; c < static_cast<size_t>(f.channels); ++c) {
      // The model's int32 bias exactly (its own scale, s_in * s_w as it computed them), else
      // the bias at s_in * s_w.
      const float biasScale =
          biasModel ? biasModel->scales[biasModel->axis < 0 ? 0 : c] : sIn * q.weightScales[c];
      q.bias[c] = biasModel ? quantizeBias(f.bias[c], biasScale, 1.0f, biasLimit)
                            : quantizeBias(f.bias[c], sIn, q.weightScales[c], biasLimit);
      const double m = static_cast<double>(sIn) * static_cast<double>(q.weightScales[c]) /
                       static_cast<double>(sOut);
      q.multipliers[c] = multiplier(id, m, "output channel " + std::to_string(c));
    }
  }

  /// The per-output-channel weight scales of a QDQ model's weights (Value::dequantizedFrom), or
  /// nothing for weights nnaccel quantizes itself. Throws Unsupported for what the int8 layers
  /// cannot hold: a weight zero point, a per-axis scale along another axis than the output
  /// channels, a Gemm whose alpha rescales the weights.
  std::optional<std::vector<float>> modelWeightScales(NodeId id, int64_t channels) const {
    const ir::Node& n = g_.node(id);
    const std::optional<ir::QdqParams>& p = g_.value(n.inputs[1]).dequantizedFrom;
    if (!p)
      return std::nullopt;
    if (p->quantized != DType::I8 ||
        std::any_of(p->zeros.begin(), p->zeros.end(), [](int32_t z) { return z != 0; }))
      g_.fail(id,
              "its weights are " + std::string(dtypeName(p->quantized)) +
                  " with a zero point; nnaccel's weights are symmetric int8",
              ErrorKind::Unsupported);
    if (p->axis < 0)
      return std::vector<float>(static_cast<size_t>(channels), p->scales[0]);
    int64_t channelAxis = 0; // Conv [M, C/g, k...]
    if (n.op == OpKind::ConvTranspose)
      channelAxis = ir::convParams(g_, id).group == 1 ? 1 : -1;
    else if (n.op == OpKind::MatMul)
      channelAxis = 1; // B [K, N]
    else if (n.op == OpKind::Gemm) {
      const ir::GemmParams gp = ir::gemmParams(g_, id);
      if (gp.alpha != 1.0f)
        g_.fail(id, "alpha rescales the model's int8 weights", ErrorKind::Unsupported);
      channelAxis = gp.transB ? 0 : 1;
    }
    if (p->axis != channelAxis || static_cast<int64_t>(p->scales.size()) != channels)
      g_.fail(id,
              fmt::format("its weights are quantized per index along axis {}, not per output "
                          "channel",
                          p->axis),
              ErrorKind::Unsupported);
    return p->scales;
  }

  QuantizedModel& m_;
  const Graph& g_;
  /// a QDQ model's activation scales and zero points (absorbQdqPairs)
  std::map<ValueId, ActivationQuant> modelScales_;
  std::vector<detail::Range> ranges_;
};

/// A cast to float16 of an f32 value rounds it to 11 significant bits; on int8 codes
/// (|q| <= 127, so |q - fp16(q)| <= 127 * 2^-12 < 0.5 at one scale) it changes nothing, so the
/// int8 graph holds it as an Identity (a view on every engine). docs/Quantization.md.
void halfCastsAsCopies(Graph& g) {
  for (NodeId id = 0; id < static_cast<NodeId>(g.numNodes()); ++id) {
    ir::Node& n = g.node(id);
    if (n.op != OpKind::Cast || n.inputs.empty() || !isF32(g, n.inputs[0]) || n.outputs.empty() ||
        !isF32(g, n.outputs[0]))
      continue;
    n.op = OpKind::Identity;
    n.attrs = {};
  }
}

} // namespace

QuantizedModel quantize(const Graph& g, const std::vector<std::vector<Tensor>>& calibrationInputs,
                        const CalibrationOptions& calibration) {
  QuantizedModel model;
  model.graph = g;
  model.staticizedLayers = detail::staticizeDynamicQuantization(model.graph);
  std::map<ValueId, ActivationQuant> modelScales = absorbQdqPairs(model.graph);
  halfCastsAsCopies(model.graph);
  // An imported QDQ model rounds as ONNX does (half to even); nnaccel's own rule otherwise.
  bool qdq = !modelScales.empty();
  for (size_t v = 0; v < model.graph.numValues(); ++v)
    qdq = qdq || model.graph.value(static_cast<ValueId>(v)).dequantizedFrom.has_value();
  model.rounding = qdq ? Rounding::HalfEven : Rounding::HalfAway;
  const std::vector<std::vector<Tensor>> defaults =
      calibrationInputs.empty()
          ? makeCalibrationInputs(g, kDefaultCalibrationCount, kDefaultCalibrationSeed)
          : std::vector<std::vector<Tensor>>{};
  const auto& inputs = calibrationInputs.empty() ? defaults : calibrationInputs;
  model.calibrationCount = static_cast<int64_t>(inputs.size());
  for (size_t set = 0; set < inputs.size(); ++set) {
    checkCalibrationInputs(g, inputs[set], {}, set);
  }
  if (calibration.equalize && !qdq)
    model.equalizedGroups = detail::equalizeChannels(model.graph, inputs);
  Quantizer quantizer(model, std::move(modelScales));
  quantizer.classify();
  quantizer.checkConstants();
  if (!(calibration.percentile > 0.0 && calibration.percentile <= 100.0))
    throw Error(ErrorKind::Usage, ErrorContext{},
                fmt::format("the calibration percentile must be in (0, 100], got {}",
                            calibration.percentile));
  model.calibration = calibration;
  quantizer.assign(detail::calibrate(model.graph, inputs, calibration));
  if (calibration.biasCorrection && !qdq)
    model.correctedBiasChannels = detail::correctBiases(model, inputs);
  return model;
}

} // namespace nnaccel::quant
