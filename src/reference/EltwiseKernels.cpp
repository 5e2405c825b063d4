// Element-wise kernels: unary activations (oneDNN eltwise where its formula is ONNX's, loops over
// ir::applyActivation where oneDNN 2.6 has none), PRelu, and Add/Sub/Mul/Div with numpy
// broadcasting (oneDNN binary when only the second operand broadcasts, strided loops in every other
// case and for integer dtypes).
#include "CachedKernels.h"
#include "KernelUtil.h"
#include "Strided.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <type_traits>

namespace nnaccel::reference {

namespace {
namespace du = dnnl_util;
using ir::OpKind;

/// The oneDNN eltwise algorithm computing ONNX's formula for \p p, if there is one. HardSigmoid
/// (not in oneDNN 2.6), Selu (no oneDNN equivalent), Softplus (oneDNN 2.6's soft_relu returns
/// 3.8e-6 for x = -48.8, where log(1 + exp(x)) is 6e-22), HardSwish (oneDNN evaluates
/// x * relu6(x + 3) / 6, which rounds differently from ONNX's x * max(0, min(1, x/6 + 1/2)))
/// and Clip with min > max (oneDNN rejects it; ONNX gives max) are loops over applyActivation.
struct EltwiseAlg {
  dnnl::algorithm alg;
  float alpha, beta;
};
std::optional<EltwiseAlg> dnnlEltwise(const ir::ActivationParams& p) {
  switch (p.kind) {
  case OpKind::Relu:
    return EltwiseAlg{dnnl::algorithm::eltwise_relu, 0.0f, 0.0f};
  case OpKind::LeakyRelu: // oneDNN relu with a negative slope: x > 0 ? x : alpha * x
    return EltwiseAlg{dnnl::algorithm::eltwise_relu, p.alpha, 0.0f};
  case OpKind::Elu:
    return EltwiseAlg{dnnl::algorithm::eltwise_elu, p.alpha, 0.0f};
  case OpKind::Sigmoid:
    return EltwiseAlg{dnnl::algorithm::eltwise_logistic, 0.0f, 0.0f};
  case OpKind::Tanh:
    return EltwiseAlg{dnnl::algorithm::eltwise_tanh, 0.0f, 0.0f};
  case OpKind::Clip:
    if (!(p.alpha <= p.beta)) {
      return std::nullopt;
    }
    return EltwiseAlg{dnnl::algorithm::eltwise_clip_v2, p.alpha, p.beta};
  default:
    return std::nullopt;
  }
}

template <typename T> Tensor clampLoop(const Tensor& x, int64_t lo, int64_t hi) {
  // Saturate the bounds to T's range; then min(max(v, lo), hi), which is hi everywhere when
  // lo > hi (numpy's clip, and ONNX's rule for min > max).
  const auto typeLo = static_cast<int64_t>(std::numeric_limits<T>::lowest());
  const auto typeHi = static_cast<int64_t>(std::numeric_limits<T>::max());
  const auto l = static_cast<T>(std::clamp(lo, typeLo, typeHi));
  const auto h = static_cast<T>(std::clamp(hi, typeLo, typeHi));
  Tensor y(x.dtype(), x.shape());
  const T* src = x.data<T>();
  T* dst = y.data<T>();
  const int64_t count = x.numElements();
  for (int64_t i = 0; i < count; ++i) {
    dst[i] = std::min(std::max(src[i], l), h);
  }
  return y;
}

/// An integer bound from a real one: ceil for a lower bound, floor for an upper bound (the
/// integers inside [lo, hi] are kept), saturated to int64; NaN means no bound.
int64_t integerBound(float bound, bool lower) {
  constexpr int64_t kMin = std::numeric_limits<int64_t>::lowest();
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  const double b =
      lower ? std::ceil(static_cast<double>(bound)) : std::floor(static_cast<double>(bound));
  if (std::isnan(b)) {
    return lower ? kMin : kMax;
  }
  if (b <= static_cast<double>(kMin)) {
    return kMin;
  }
  return b >= static_cast<double>(kMax) ? kMax : static_cast<int64_t>(b);
}

template <typename T> T wrapAdd(T a, T b) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
}
template <typename T> T wrapSub(T a, T b) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(a) - static_cast<U>(b));
}
template <typename T> T wrapMul(T a, T b) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(a) * static_cast<U>(b));
}

template <typename T> T applyBinary(OpKind op, T a, T b) {
  if (op == OpKind::Min || op == OpKind::Max) {
    if constexpr (std::is_floating_point_v<T>) {
      return ir::minMaxOf(op == OpKind::Max, a, b);
    } else {
      return op == OpKind::Max ? std::max(a, b) : std::min(a, b);
    }
  }
  if constexpr (std::is_floating_point_v<T>) {
    switch (op) {
    case OpKind::Add:
      return a + b;
    case OpKind::Sub:
      return a - b;
    case OpKind::Mul:
      return a * b;
    default:
      return a / b;
    }
  } else {
    switch (op) {
    case OpKind::Add:
      return wrapAdd(a, b);
    case OpKind::Sub:
      return wrapSub(a, b);
    case OpKind::Mul:
      return wrapMul(a, b);
    default:
      if (b == 0) {
        throw Error(ErrorKind::Model, {}, "integer division by zero");
      }
      if constexpr (std::is_signed_v<T>) {
        if (b == -1) {
          return wrapSub(T(0), a); // min / -1 overflows: wrap like the other ops (gives min)
        }
      }
      return static_cast<T>(a / b);
    }
  }
}

template <typename T>
Tensor binaryLoops(OpKind op, const Tensor& a, const Tensor& b, const Dims& out) {
  Tensor y(a.dtype(), out);
  const Dims sa = broadcastStrides(a.shape(), out);
  const Dims sb = broadcastStrides(b.shape(), out);
  const Dims sy = rowMajorStrides(out);
  const T* pa = a.data<T>();
  const T* pb = b.data<T>();
  T* py = y.data<T>();
  forEachIndex<3>(out, {&sa, &sb, &sy}, {0, 0, 0}, [&](const std::array<int64_t, 3>& o) {
    py[o[2]] = applyBinary<T>(op, pa[o[0]], pb[o[1]]);
  });
  return y;
}

dnnl::algorithm dnnlBinaryAlg(OpKind op) {
  switch (op) {
  case OpKind::Add:
    return dnnl::algorithm::binary_add;
  case OpKind::Sub:
    return dnnl::algorithm::binary_sub;
  case OpKind::Mul:
    return dnnl::algorithm::binary_mul;
  default:
    return dnnl::algorithm::binary_div;
  }
}

/// oneDNN binary: \p a has the output shape, \p b broadcasts into it.
Tensor binaryDnnl(OpKind op, const Tensor& a, const Tensor& b, KernelCache& cache) {
  return du::guard(std::string(ir::opName(op)), [&]() -> Tensor {
    Tensor y = cache.output(DType::F32, a.shape());
    Dims shapeB(static_cast<size_t>(a.rank() - b.rank()), 1);
    shapeB.insert(shapeB.end(), b.shape().begin(), b.shape().end());
    const dnnl::memory::desc mdA = du::plainDesc(a.shape(), DType::F32);
    const dnnl::memory::desc mdB = du::plainDesc(shapeB, DType::F32);
    du::Primitive& prim = cache.obtain([&] {
      const dnnl::binary::desc d(dnnlBinaryAlg(op), mdA, mdB, mdA);
      const dnnl::binary::primitive_desc pd(d, du::engine());
      return du::Primitive(pd, dnnl::binary(pd));
    });
    prim.execute({{DNNL_ARG_SRC_0, du::wrap(a, mdA)}, {DNNL_ARG_SRC_1, du::wrap(b, mdB)}},
                 {{DNNL_ARG_DST, du::wrap(y, mdA)}});
    return y;
  });
}
} // namespace

Tensor activation(const ir::ActivationParams& p, const Tensor& x) {
  KernelCache once;
  return activation(p, x, once);
}

Tensor activation(const ir::ActivationParams& p, const Tensor& x, KernelCache& cache) {
  const std::string what(ir::opName(p.kind));
  if (x.dtype() != DType::F32) {
    if (p.kind == OpKind::Relu) {
      return clampInteger(x, 0, std::numeric_limits<int64_t>::max());
    }
    if (p.kind == OpKind::Clip) {
      return clampInteger(x, integerBound(p.alpha, true), integerBound(p.beta, false));
    }
    requireDType(x, DType::F32, what);
  }
  Tensor y = cache.output(DType::F32, x.shape());
  if (const auto alg = dnnlEltwise(p); alg && x.numElements() > 0) {
    return du::guard(what, [&] {
      const dnnl::memory::desc md = du::plainDesc({x.numElements()}, DType::F32);
      du::Primitive& prim = cache.obtain([&] {
        const dnnl::eltwise_forward::desc d(dnnl::prop_kind::forward_inference, alg->alg, md,
                                            alg->alpha, alg->beta);
        const dnnl::eltwise_forward::primitive_desc pd(d, du::engine());
        return du::Primitive(pd, dnnl::eltwise_forward(pd));
      });
      prim.execute({{DNNL_ARG_SRC, du::wrap(x, md)}}, {{DNNL_ARG_DST, du::wrap(y, md)}});
      return y;
    });
  }
  // Kinds oneDNN 2.6 does not compute as ONNX defines them: the scalar fp32 formula.
  const float* src = x.data<float>();
  float* dst = y.data<float>();
  const int64_t count = x.numElements();
  for (int64_t i = 0; i < count; ++i) {
    dst[i] = ir::applyActivation(p, src[i]);
  }
  return y;
}

Tensor clampInteger(const Tensor& x, int64_t lo, int64_t hi) {
  switch (x.dtype()) {
  case DType::I8:
    return clampLoop<int8_t>(x, lo, hi);
  case DType::U8:
    return clampLoop<uint8_t>(x, lo, hi);
  case DType::I32:
    return clampLoop<int32_t>(x, lo, hi);
  case DType::I64:
    return clampLoop<int64_t>(x, lo, hi);
  default:
    unsupported("integer clamp on " + std::string(dtypeName(x.dtype())) +
                " input is not supported (s8, u8, s32, s64)");
  }
}

Tensor prelu(const Tensor& x, const Tensor& slope) {
  requireDType(x, DType::F32, "PRelu");
  requireDType(slope, DType::F32, "PRelu");
  Tensor y(DType::F32, x.shape());
  const Dims sx = rowMajorStrides(x.shape());
  const Dims ss = broadcastStrides(slope.shape(), x.shape());
  const float* px = x.data<float>();
  const float* ps = slope.data<float>();
  float* py = y.data<float>();
  forEachIndex<2>(x.shape(), {&sx, &ss}, {0, 0}, [&](const std::array<int64_t, 2>& o) {
    const float v = px[o[0]];
    py[o[0]] = v < 0.0f ? ps[o[1]] * v : v;
  });
  return y;
}

Tensor binary(OpKind op, const Tensor& a, const Tensor& b) {
  KernelCache once;
  return binary(op, a, b, once);
}

Tensor binary(OpKind op, const Tensor& a, const Tensor& b, KernelCache& cache) {
  NNACCEL_ASSERT(ir::isBinaryElementwise(op)) << "binary() on " << ir::opName(op);
  const std::string what(ir::opName(op));
  if (a.dtype() != b.dtype()) {
    unsupported(what + " of " + std::string(dtypeName(a.dtype())) + " and " +
                std::string(dtypeName(b.dtype())) + " operands is not supported");
  }
  const Dims out = broadcastShape(a.shape(), b.shape());
  switch (a.dtype()) {
  case DType::F32: {
    const bool commutes = op == OpKind::Add || op == OpKind::Mul;
    // Min/Max run as loops: their NaN rule is ours (ir::minMaxOf), not oneDNN's.
    const bool dnnlOp = op != OpKind::Min && op != OpKind::Max;
    if (dnnlOp && numElements(out) > 0 && !out.empty() && out.size() <= DNNL_MAX_NDIMS) {
      if (out == a.shape()) {
        return binaryDnnl(op, a, b, cache);
      }
      if (commutes && out == b.shape()) {
        return binaryDnnl(op, b, a, cache);
      }
    }
    return binaryLoops<float>(op, a, b, out);
  }
  case DType::I8:
    return binaryLoops<int8_t>(op, a, b, out);
  case DType::U8:
    return binaryLoops<uint8_t>(op, a, b, out);
  case DType::I32:
    return binaryLoops<int32_t>(op, a, b, out);
  case DType::I64:
    return binaryLoops<int64_t>(op, a, b, out);
  default:
    unsupported(what + " on " + std::string(dtypeName(a.dtype())) +
                " input is not supported (f32, s8, u8, s32, s64)");
  }
}

} // namespace nnaccel::reference
