// Gemm and MatMul on oneDNN matmul (transposes expressed as strided descriptors, batch axes
// broadcast), Gemm's alpha/beta/C epilogue as a broadcast loop, and Softmax on oneDNN
// softmax_forward over a 3-D [outer, axis, inner] view.
#include "CachedKernels.h"
#include "KernelUtil.h"
#include "Strided.h"

namespace nnaccel::reference {

namespace {
namespace du = dnnl_util;
using dnnl::memory;

/// dst = src x weights with oneDNN matmul; descriptors give the (possibly strided) layouts.
void runMatmul(const Tensor& a, const memory::desc& mdA, const Tensor& b, const memory::desc& mdB,
               Tensor& y, const memory::desc& mdY, KernelCache& cache) {
  du::guard("matmul", [&] {
    du::Primitive& prim = cache.obtain([&] {
      const dnnl::matmul::desc d(mdA, mdB, mdY);
      const dnnl::matmul::primitive_desc pd(d, du::engine());
      return du::Primitive(pd, dnnl::matmul(pd));
    });
    prim.execute({{DNNL_ARG_SRC, du::wrap(a, mdA)}, {DNNL_ARG_WEIGHTS, du::wrap(b, mdB)}},
                 {{DNNL_ARG_DST, du::wrap(y, mdY)}});
  });
}
} // namespace

Tensor gemm(const ir::GemmParams& p, const Tensor& a, const Tensor& b, const Tensor* c) {
  KernelCache once;
  return gemm(p, a, b, c, once);
}

Tensor gemm(const ir::GemmParams& p, const Tensor& a, const Tensor& b, const Tensor* c,
            KernelCache& cache) {
  requireDType(a, DType::F32, "Gemm");
  requireDType(b, DType::F32, "Gemm");
  if (c) {
    requireDType(*c, DType::F32, "Gemm");
  }
  NNACCEL_ASSERT(a.rank() == 2 && b.rank() == 2) << "Gemm operands must be 2-D";
  NNACCEL_ASSERT(a.shape() == (p.transA ? Dims{p.k, p.m} : Dims{p.m, p.k})) << "Gemm A shape";
  NNACCEL_ASSERT(b.shape() == (p.transB ? Dims{p.n, p.k} : Dims{p.k, p.n})) << "Gemm B shape";
  // op(A) is [M, K]; a transposed A is stored [K, M], i.e. strides {1, M}.
  const memory::desc mdA =
      du::stridedDesc({p.m, p.k}, p.transA ? Dims{1, p.m} : Dims{p.k, 1}, DType::F32);
  const memory::desc mdB =
      du::stridedDesc({p.k, p.n}, p.transB ? Dims{1, p.k} : Dims{p.n, 1}, DType::F32);
  Tensor y = cache.output(DType::F32, {p.m, p.n});
  runMatmul(a, mdA, b, mdB, y, du::plainDesc(y.shape(), DType::F32), cache);
  // Epilogue in ONNX's order: alpha * (A B) + beta * C.
  float* py = y.data<float>();
  if (!c) {
    for (float& v : y.values<float>()) {
      v = p.alpha * v;
    }
    return y;
  }
  const Dims sy = rowMajorStrides(y.shape());
  const Dims sc = broadcastStrides(c->shape(), y.shape());
  const float* pc = c->data<float>();
  forEachIndex<2>(y.shape(), {&sy, &sc}, {0, 0}, [&](const std::array<int64_t, 2>& o) {
    py[o[0]] = p.alpha * py[o[0]] + p.beta * pc[o[1]];
  });
  return y;
}

Tensor matmul(const Tensor& a, const Tensor& b) {
  KernelCache once;
  return matmul(a, b, once);
}

Tensor matmul(const Tensor& a, const Tensor& b, KernelCache& cache) {
  requireDType(a, DType::F32, "MatMul");
  requireDType(b, DType::F32, "MatMul");
  NNACCEL_ASSERT(a.rank() >= 1 && b.rank() >= 1) << "MatMul of a scalar";
  // Promote 1-D operands: A [K] -> [1, K], B [K] -> [K, 1]; the added axes are dropped below.
  const Dims shapeA = a.rank() == 1 ? Dims{1, a.dim(0)} : a.shape();
  const Dims shapeB = b.rank() == 1 ? Dims{b.dim(0), 1} : b.shape();
  const int64_t m = shapeA[shapeA.size() - 2];
  const int64_t k = shapeA.back();
  const int64_t n = shapeB.back();
  if (shapeB[shapeB.size() - 2] != k) {
    throw Error(ErrorKind::Model, {},
                "matmul inner dimensions differ: " + dimsToString(a.shape()) + " x " +
                    dimsToString(b.shape()));
  }
  const Dims batch = broadcastShape(Dims(shapeA.begin(), shapeA.end() - 2),
                                    Dims(shapeB.begin(), shapeB.end() - 2));
  const size_t rank = batch.size() + 2;
  auto padTo = [rank](const Dims& s) {
    Dims d(rank - s.size(), 1);
    d.insert(d.end(), s.begin(), s.end());
    return d;
  };
  Dims shapeY = batch;
  shapeY.insert(shapeY.end(), {m, n});
  // The output without the promoted axes holds the same elements in the same order.
  Dims outShape = batch;
  if (a.rank() > 1) {
    outShape.push_back(m);
  }
  if (b.rank() > 1) {
    outShape.push_back(n);
  }
  Tensor y = cache.output(DType::F32, outShape);
  if (y.numElements() > 0) {
    runMatmul(a, du::plainDesc(padTo(shapeA), DType::F32), b,
              du::plainDesc(padTo(shapeB), DType::F32), y, du::plainDesc(shapeY, DType::F32),
              cache);
  }
  return y;
}

Tensor softmax(const ir::SoftmaxParams& p, const Tensor& x) {
  KernelCache once;
  return softmax(p, x, once);
}

Tensor softmax(const ir::SoftmaxParams& p, const Tensor& x, KernelCache& cache) {
  return du::guard("Softmax", [&]() -> Tensor {
    requireDType(x, DType::F32, "Softmax");
    NNACCEL_ASSERT(p.axis >= 0 && p.axis < std::max<int64_t>(x.rank(), 1)) << "softmax axis";
    const auto axis = static_cast<size_t>(p.axis);
    int64_t outer = 1, inner = 1;
    for (size_t i = 0; i < axis; ++i) {
      outer *= x.dim(static_cast<int64_t>(i));
    }
    for (size_t i = axis + 1; i < x.shape().size(); ++i) {
      inner *= x.dim(static_cast<int64_t>(i));
    }
    const int64_t axisDim = x.rank() == 0 ? 1 : x.dim(p.axis);
    // Opset < 13 normalizes over the flattened trailing block [axis, rank).
    const Dims view = p.coerce2d ? Dims{outer, axisDim * inner, 1} : Dims{outer, axisDim, inner};
    Tensor y = cache.output(DType::F32, x.shape());
    if (x.numElements() == 0) {
      return y;
    }
    const memory::desc md = du::plainDesc(view, DType::F32);
    du::Primitive& prim = cache.obtain([&] {
      const dnnl::softmax_forward::desc d(dnnl::prop_kind::forward_inference, md, 1);
      const dnnl::softmax_forward::primitive_desc pd(d, du::engine());
      return du::Primitive(pd, dnnl::softmax_forward(pd));
    });
    prim.execute({{DNNL_ARG_SRC, du::wrap(x, md)}}, {{DNNL_ARG_DST, du::wrap(y, md)}});
    return y;
  });
}

} // namespace nnaccel::reference
