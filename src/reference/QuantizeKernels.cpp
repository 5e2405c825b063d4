/// \file
/// QuantizeLinear and DequantizeLinear, the two operators of QDQ models (ONNX opset 10-17), in
/// plain loops: they are memory-bound and must round exactly as ONNX specifies (half to even),
/// which no oneDNN primitive promises for arbitrary scales.
#include "nnaccel/ir/OpParams.h"
#include "nnaccel/reference/Kernels.h"
#include "nnaccel/support/Error.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace nnaccel::reference {
namespace {

/// Elements between consecutive indices of \p axis in a row-major tensor of \p shape, and the
/// axis' extent; (1 and 1 for a per-tensor parameter).
std::pair<int64_t, int64_t> qdqAxisLayout(const ir::QdqParams& p, const Dims& shape) {
  if (p.axis < 0)
    return {1, 1};
  int64_t inner = 1;
  for (size_t k = static_cast<size_t>(p.axis) + 1; k < shape.size(); ++k)
    inner *= shape[k];
  return {inner, shape[static_cast<size_t>(p.axis)]};
}

/// Index of element \p i's scale and zero point.
inline size_t qdqParamIndex(int64_t i, int64_t inner, int64_t extent) {
  return static_cast<size_t>((i / inner) % extent);
}

template <typename Q> void quantizeInto(const ir::QdqParams& p, const Tensor& x, Tensor& y) {
  const auto [inner, extent] = qdqAxisLayout(p, x.shape());
  const float* src = x.data<float>();
  Q* dst = y.data<Q>();
  const auto lo = static_cast<float>(std::numeric_limits<Q>::min());
  const auto hi = static_cast<float>(std::numeric_limits<Q>::max());
  for (int64_t i = 0; i < x.numElements(); ++i) {
    const size_t k = qdqParamIndex(i, inner, extent);
    // std::nearbyint rounds half to even in the default rounding mode; NaN saturates to 0 as
    // the zero point (ONNX leaves it undefined; ONNX Runtime's MLAS gives the zero point).
    const float q = std::nearbyint(src[i] / p.scales[k]);
    const float v = std::isnan(q) ? 0.0f : q + static_cast<float>(p.zeros[k]);
    dst[i] = static_cast<Q>(std::clamp(v, lo, hi));
  }
}

template <typename Q> void dequantizeInto(const ir::QdqParams& p, const Tensor& x, Tensor& y) {
  const auto [inner, extent] = qdqAxisLayout(p, x.shape());
  const Q* src = x.data<Q>();
  float* dst = y.data<float>();
  for (int64_t i = 0; i < x.numElements(); ++i) {
    const size_t k = qdqParamIndex(i, inner, extent);
    dst[i] = static_cast<float>(static_cast<int64_t>(src[i]) - p.zeros[k]) * p.scales[k];
  }
}

} // namespace

Tensor quantizeLinear(const ir::QdqParams& p, const Tensor& x) {
  NNACCEL_ASSERT(x.dtype() == DType::F32) << "QuantizeLinear takes f32";
  Tensor y(p.quantized, x.shape());
  if (p.quantized == DType::I8)
    quantizeInto<int8_t>(p, x, y);
  else
    quantizeInto<uint8_t>(p, x, y);
  return y;
}

Tensor dequantizeLinear(const ir::QdqParams& p, const Tensor& x) {
  Tensor y(DType::F32, x.shape());
  switch (x.dtype()) {
  case DType::I8:
    dequantizeInto<int8_t>(p, x, y);
    break;
  case DType::U8:
    dequantizeInto<uint8_t>(p, x, y);
    break;
  case DType::I32:
    dequantizeInto<int32_t>(p, x, y);
    break;
  default:
    NNACCEL_UNREACHABLE("DequantizeLinear of a non-integer tensor (qdqParams checks it)");
  }
  return y;
}

} // namespace nnaccel::reference
