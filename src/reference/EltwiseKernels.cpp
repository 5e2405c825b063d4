// Element-wise kernels: unary activations (oneDNN eltwise where its formula is ONNX's, loops over
// ir::applyActivation otherwise), PRelu, and Add/Sub/Mul/Div with numpy broadcasting (oneDNN
// binary when only the second operand broadcasts, strided loops in every other case and for
// integer dtypes).
#include "CachedKernels.h"
#include "KernelUtil.h"
#include "Strided.h"

#include <cmath>
#include <limits>
#include <optional>
#include <type_traits>

namespace nnaccel::reference {

namespace {
namespace du = dnnl_util;
using ir::OpKind;

/// The oneDNN eltwise algorithm computing ONNX's formula for \p p, if there is one. HardSigmoid
/// (not in oneDNN 2.6), Selu (no oneDNN equivalent) and HardSwish (oneDNN evaluates
/// x * relu6(x + 3) / 6, which rounds differently from ONNX's x * max(0, min(1, x/6 + 1/2)))
/// are evaluated by loops.
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
  case OpKind::Softplus: // log(1 + exp(x)), returning x where exp(x) would overflow
    return EltwiseAlg{dnnl::algorithm::eltwise_soft_relu, 0.0f, 0.0f};
  case OpKind::Clip:
    return EltwiseAlg{dnnl::algorithm::eltwise_clip_v2, p.alpha, p.beta};
  default:
    return std::nullopt;
  }
}

template <typename T> Tensor integerActivation(const ir::ActivationParams& p, const Tensor& x) {
  Tensor y(x.dtype(), x.shape());
  const T* src = x.data<T>();
  T* dst = y.data<T>();
  const double lo = p.kind == OpKind::Relu ? 0.0 : static_cast<double>(p.alpha);
  const double hi = p.kind == OpKind::Relu ? std::numeric_limits<double>::infinity()
                                           : static_cast<double>(p.beta);
  for (int64_t i = 0; i < x.numElements(); ++i) {
    const auto v = static_cast<double>(src[i]);
    dst[i] = v < lo   ? static_cast<T>(std::ceil(lo))
             : v > hi ? static_cast<T>(std::floor(hi))
                      : src[i];
  }
  return y;
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
      // min / -1 overflows: wrap like the other ops (the result is min).
      return b == -1 ? wrapSub(T(0), a) : static_cast<T>(a / b);
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
    Tensor y(DType::F32, a.shape());
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
    if (p.kind != OpKind::Relu && p.kind != OpKind::Clip) {
      requireDType(x, DType::F32, what);
    }
    switch (x.dtype()) {
    case DType::I8:
      return integerActivation<int8_t>(p, x);
    case DType::U8:
      return integerActivation<uint8_t>(p, x);
    case DType::I32:
      return integerActivation<int32_t>(p, x);
    case DType::I64:
      return integerActivation<int64_t>(p, x);
    default:
      requireDType(x, DType::F32, what);
    }
  }
  Tensor y(DType::F32, x.shape());
  if (x.numElements() == 0) {
    return y;
  }
  if (const auto alg = dnnlEltwise(p)) {
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
  const float* src = x.data<float>();
  float* dst = y.data<float>();
  for (int64_t i = 0; i < x.numElements(); ++i) {
    dst[i] = ir::applyActivation(p, src[i]);
  }
  return y;
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
    if (numElements(out) > 0 && !out.empty() && out.size() <= DNNL_MAX_NDIMS) {
      if (out == a.shape()) {
        return binaryDnnl(op, a, b, cache);
      }
      if (commutes && out == b.shape()) {
        return binaryDnnl(op, b, a, cache);
      }
    }
    return binaryLoops<float>(op, a, b, out);
  }
  case DType::I32:
    return binaryLoops<int32_t>(op, a, b, out);
  case DType::I64:
    return binaryLoops<int64_t>(op, a, b, out);
  default:
    unsupported(what + " on " + std::string(dtypeName(a.dtype())) +
                " input is not supported (f32, s32, s64)");
  }
}

} // namespace nnaccel::reference
