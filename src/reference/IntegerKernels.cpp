// ConvInteger, MatMulInteger and DynamicQuantizeLinear (ONNX Runtime's dynamic quantization),
// exact: the integer products are summed by the f32 kernels in chunks short enough that every
// partial sum is an exactly representable integer (see Kernels.h).
#include "nnaccel/reference/Kernels.h"
#include "nnaccel/support/Error.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>

namespace nnaccel::reference {

namespace {

/// Integers below this magnitude are exact in f32 (2^24).
constexpr int64_t kExactF32 = int64_t{1} << 24;

/// \p x minus its zero point as f32: \p zero absent (0), a scalar, or one per index along
/// \p axis. \p maxAbs receives the largest |difference|.
Tensor minusZero(const Tensor& x, const Tensor* zero, int64_t axis, int64_t& maxAbs) {
  Tensor out(DType::F32, x.shape());
  const Dims& s = x.shape();
  int64_t inner = 1;
  for (size_t a = static_cast<size_t>(std::max<int64_t>(axis + 1, 0)); a < s.size(); ++a)
    inner *= s[a];
  const int64_t extent = axis >= 0 ? s[static_cast<size_t>(axis)] : 1;
  const bool perAxis = zero != nullptr && zero->numElements() > 1;
  if (perAxis && (axis < 0 || zero->numElements() != extent))
    throw Error(ErrorKind::Unsupported, ErrorContext{},
                "a zero point of " + std::to_string(zero->numElements()) +
                    " values does not match axis " + std::to_string(axis) + " of " +
                    dimsToString(s));
  maxAbs = 0;
  float* o = out.data<float>();
  for (int64_t i = 0; i < x.numElements(); ++i) {
    const int64_t z = zero == nullptr ? 0
                      : perAxis       ? zero->elementAsInt64((i / inner) % extent)
                                      : zero->elementAsInt64(0);
    const int64_t d = x.elementAsInt64(i) - z;
    maxAbs = std::max(maxAbs, std::abs(d));
    o[i] = static_cast<float>(d);
  }
  return out;
}

/// Indices [begin, end) of \p t along \p axis.
Tensor sliceAxis(const Tensor& t, size_t axis, int64_t begin, int64_t end) {
  Dims shape = t.shape();
  const int64_t extent = shape[axis];
  int64_t outer = 1, inner = 1;
  for (size_t a = 0; a < axis; ++a)
    outer *= shape[a];
  for (size_t a = axis + 1; a < shape.size(); ++a)
    inner *= shape[a];
  shape[axis] = end - begin;
  Tensor out(DType::F32, shape);
  const float* in = t.data<float>();
  float* o = out.data<float>();
  for (int64_t b = 0; b < outer; ++b)
    std::copy_n(in + (b * extent + begin) * inner, (end - begin) * inner,
                o + b * (end - begin) * inner);
  return out;
}

/// How many reduction steps of \p perStep products each (|product| <= \p maxProduct) one f32
/// sum may take and stay exact; throws when not even one may.
int64_t exactChunk(int64_t perStep, int64_t maxProduct, const char* op) {
  const int64_t stepMagnitude = perStep * std::max<int64_t>(maxProduct, 1);
  if (stepMagnitude >= kExactF32)
    throw Error(ErrorKind::Unsupported, ErrorContext{},
                std::string(op) + ": " + std::to_string(perStep) +
                    " products per input channel may sum beyond 2^24, which the reference "
                    "cannot hold exactly");
  return (kExactF32 - 1) / stepMagnitude;
}

/// Adds the integer-valued f32 \p part to \p acc (int64, same shape).
void accumulate(std::vector<int64_t>& acc, const Tensor& part) {
  const float* p = part.data<float>();
  for (size_t i = 0; i < acc.size(); ++i)
    acc[i] += static_cast<int64_t>(std::nearbyint(p[i]));
}

Tensor toInt32(const std::vector<int64_t>& acc, const Dims& shape) {
  Tensor out(DType::I32, shape);
  int32_t* o = out.data<int32_t>();
  for (size_t i = 0; i < acc.size(); ++i)
    o[i] = static_cast<int32_t>(acc[i]); // int32 accumulation wraps as ONNX Runtime's does
  return out;
}

} // namespace

Tensor convInteger(const ir::ConvParams& p, const Tensor& x, const Tensor& w, const Tensor* xZero,
                   const Tensor* wZero) {
  int64_t mx = 0, mw = 0;
  const Tensor xf = minusZero(x, xZero, -1, mx);
  const Tensor wf = minusZero(w, wZero, 0, mw);
  int64_t taps = 1;
  for (int64_t k : p.kernel)
    taps *= k;
  const int64_t perGroup = p.inChannels / p.group;
  const int64_t chunk = exactChunk(taps, mx * mw, "ConvInteger");
  Dims outShape{p.batch, p.outChannels};
  outShape.insert(outShape.end(), p.outSpatial.begin(), p.outSpatial.end());
  std::vector<int64_t> acc(static_cast<size_t>(numElements(outShape)), 0);
  if (perGroup <= chunk) {
    accumulate(acc, conv(p, xf, wf, nullptr));
    return toInt32(acc, outShape);
  }
  if (p.group != 1)
    throw Error(ErrorKind::Unsupported, ErrorContext{},
                "ConvInteger: a grouped reduction of " + std::to_string(perGroup * taps) +
                    " products may sum beyond 2^24, which the reference cannot hold exactly");
  for (int64_t c0 = 0; c0 < p.inChannels; c0 += chunk) {
    const int64_t c1 = std::min(p.inChannels, c0 + chunk);
    ir::ConvParams part = p;
    part.inChannels = c1 - c0;
    accumulate(acc, conv(part, sliceAxis(xf, 1, c0, c1), sliceAxis(wf, 1, c0, c1), nullptr));
  }
  return toInt32(acc, outShape);
}

Tensor matmulInteger(const Tensor& a, const Tensor& b, const Tensor* aZero, const Tensor* bZero) {
  int64_t ma = 0, mb = 0;
  // A's zero point is per tensor or per row (axis rank - 2 of a 2-D A); B's per column.
  const auto rankA = static_cast<int64_t>(a.shape().size());
  const auto rankB = static_cast<int64_t>(b.shape().size());
  const Tensor af = minusZero(a, aZero, rankA >= 2 ? rankA - 2 : -1, ma);
  const Tensor bf = minusZero(b, bZero, rankB - 1, mb);
  const int64_t k = a.shape().back();
  const int64_t chunk = exactChunk(1, ma * mb, "MatMulInteger");
  const size_t axisB = rankB >= 2 ? static_cast<size_t>(rankB - 2) : 0;
  Tensor first = matmul(k <= chunk ? af : sliceAxis(af, static_cast<size_t>(rankA - 1), 0, chunk),
                        k <= chunk ? bf : sliceAxis(bf, axisB, 0, chunk));
  std::vector<int64_t> acc(static_cast<size_t>(first.numElements()), 0);
  accumulate(acc, first);
  for (int64_t k0 = chunk; k0 < k; k0 += chunk) {
    const int64_t k1 = std::min(k, k0 + chunk);
    accumulate(acc, matmul(sliceAxis(af, static_cast<size_t>(rankA - 1), k0, k1),
                           sliceAxis(bf, axisB, k0, k1)));
  }
  return toInt32(acc, first.shape());
}

std::vector<Tensor> dynamicQuantizeLinear(const Tensor& x) {
  const float* in = x.data<float>();
  float lo = 0.0f, hi = 0.0f; // the range always holds 0
  for (int64_t i = 0; i < x.numElements(); ++i) {
    lo = std::min(lo, in[i]);
    hi = std::max(hi, in[i]);
  }
  const float scale = (hi - lo) / 255.0f;
  // An all-zero input has no range: every code is the zero point 0 (scale 0, as ONNX's
  // formula gives it).
  const float zeroReal = scale > 0.0f ? std::clamp(-lo / scale, 0.0f, 255.0f) : 0.0f;
  const auto zero = static_cast<uint8_t>(std::nearbyint(zeroReal));
  Tensor y(DType::U8, x.shape());
  uint8_t* o = y.data<uint8_t>();
  for (int64_t i = 0; i < x.numElements(); ++i) {
    const float q = scale > 0.0f ? std::nearbyint(in[i] / scale) + static_cast<float>(zero) : 0.0f;
    o[i] = static_cast<uint8_t>(std::clamp(q, 0.0f, 255.0f));
  }
  return {std::move(y), Tensor::scalar<float>(scale), Tensor::scalar<uint8_t>(zero)};
}

} // namespace nnaccel::reference
