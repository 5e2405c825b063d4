// MaxPool / AveragePool / GlobalAveragePool / GlobalMaxPool on oneDNN pooling_v2.
//
// ONNX-to-oneDNN mapping: dilation d becomes d - 1; ceil_mode becomes extra right padding
// (forwardPadEnd). Average pooling with count_include_pad=1 divides by the part of the window
// inside the *explicitly padded* input: the ceil_mode overhang past pads_end is not counted
// (onnxruntime/PyTorch semantics), whereas oneDNN's avg_include_padding counts every window
// position. When there is such an overhang the input is zero-padded explicitly and pooled with
// avg_exclude_padding over the remaining overhang, which gives exactly the ONNX divisor.
// Max pooling runs channels-last when oneDNN has no jit kernel for the plain layout. MaxPool's
// Indices output (argmax positions, which oneDNN's inference pooling does not give) is a loop.
#include "CachedKernels.h"
#include "KernelUtil.h"

#include <string_view>

namespace nnaccel::reference {

namespace {
namespace du = dnnl_util;
using dnnl::memory;

Dims withBatchChannels(const ir::PoolParams& p, const Dims& spatial) {
  Dims d{p.batch, p.channels};
  d.insert(d.end(), spatial.begin(), spatial.end());
  return d;
}

bool isJit(const dnnl::primitive_desc_base& pd) {
  return std::string_view(pd.impl_info_str()).starts_with("jit");
}

/// [N, C, spatial...] with the channel axis innermost (nwc / nhwc / ndhwc).
memory::desc channelsLastDesc(const Dims& shape, DType t) {
  Dims strides(shape.size());
  int64_t stride = shape[1];
  strides[1] = 1;
  for (size_t a = shape.size(); a-- > 2;) {
    strides[a] = stride;
    stride *= shape[a];
  }
  strides[0] = stride;
  return du::stridedDesc(shape, strides, t);
}

Tensor runPooling(dnnl::algorithm alg, const Tensor& x, const Dims& inSpatial,
                  const ir::PoolParams& p, const Dims& padsBegin, const memory::dims& padsEnd,
                  KernelCache& cache) {
  return du::guard("pooling", [&]() -> Tensor {
    Tensor y = cache.output(x.dtype(), withBatchChannels(p, p.outSpatial));
    const memory::desc srcMd = du::plainDesc(x.shape(), x.dtype());
    const memory::desc dstMd = du::plainDesc(y.shape(), y.dtype());
    NNACCEL_ASSERT(x.shape() == withBatchChannels(p, inSpatial)) << "pool input shape";
    du::Primitive& prim = cache.obtain([&] {
      auto makePd = [&](const memory::desc& src, const memory::desc& dst) {
        const dnnl::pooling_v2_forward::desc d(dnnl::prop_kind::forward_inference, alg, src, dst,
                                               du::toDims(p.strides), du::toDims(p.kernel),
                                               du::dilationsFromOnnx(p.dilations),
                                               du::toDims(padsBegin), padsEnd);
        return dnnl::pooling_v2_forward::primitive_desc(d, du::engine());
      };
      dnnl::pooling_v2_forward::primitive_desc pd = makePd(srcMd, dstMd);
      if (alg == dnnl::algorithm::pooling_max && !isJit(pd)) {
        // oneDNN 2.6 has no jit kernel for some plain-layout shapes (VGG-16's first pool,
        // 64x224x224, falls back to simple_nchw, 50x slower). A maximum is the same whatever
        // the loop order, so pool channels-last (Primitive reorders in and out) when that
        // gets a jit kernel. Average pooling keeps its layout: a sum's order could change.
        dnnl::pooling_v2_forward::primitive_desc nhwc =
            makePd(channelsLastDesc(x.shape(), x.dtype()), channelsLastDesc(y.shape(), y.dtype()));
        if (isJit(nhwc)) {
          pd = nhwc;
        }
      }
      return du::Primitive(pd, dnnl::pooling_v2_forward(pd));
    });
    prim.execute({{DNNL_ARG_SRC, du::wrap(x, srcMd)}}, {{DNNL_ARG_DST, du::wrap(y, dstMd)}});
    return y;
  });
}
/// Spatial strides of the reported index: row-major, or column-major for storage_order=1.
Dims indexStrides(const ir::PoolParams& p) {
  if (!p.storageOrderColumnMajor) {
    return rowMajorStrides(p.inSpatial);
  }
  Dims strides;
  int64_t stride = 1;
  for (int64_t extent : p.inSpatial) {
    strides.push_back(stride);
    stride *= extent;
  }
  return strides;
}

template <typename T> void argmaxWindows(const ir::PoolParams& p, const Tensor& x, Tensor& y) {
  const size_t rank = p.inSpatial.size();
  const int64_t inSize = numElements(p.inSpatial);
  const int64_t outSize = numElements(p.outSpatial);
  const int64_t windowSize = numElements(p.kernel);
  const Dims readStrides = rowMajorStrides(p.inSpatial);
  const Dims reportStrides = indexStrides(p);
  const Dims outStrides = rowMajorStrides(p.outSpatial);
  const Dims windowStrides = rowMajorStrides(p.kernel);
  const T* src = x.data<T>();
  int64_t* dst = y.data<int64_t>();
  for (int64_t plane = 0; plane < p.batch * p.channels; ++plane) {
    const T* in = src + plane * inSize;
    for (int64_t oi = 0; oi < outSize; ++oi) {
      // Windows scan in row-major order; the first maximum wins (strictly greater replaces).
      int64_t best = -1;
      T bestValue{};
      for (int64_t wi = 0; wi < windowSize; ++wi) {
        int64_t read = 0, index = 0;
        bool inside = true;
        for (size_t a = 0; a < rank; ++a) {
          const int64_t o = oi / outStrides[a] % p.outSpatial[a];
          const int64_t w = wi / windowStrides[a] % p.kernel[a];
          const int64_t i = o * p.strides[a] - p.padsBegin[a] + w * p.dilations[a];
          inside = inside && i >= 0 && i < p.inSpatial[a];
          read += i * readStrides[a];
          index += i * reportStrides[a];
        }
        if (inside && (best < 0 || in[read] > bestValue)) {
          best = index;
          bestValue = in[read];
        }
      }
      // A dilated window can skip every input element (e.g. taps -1 and 2 of an extent-2 axis):
      // -1 then, as onnxruntime reports it.
      dst[plane * outSize + oi] = best < 0 ? -1 : plane * inSize + best;
    }
  }
}
} // namespace

Tensor maxPoolIndices(const ir::PoolParams& p, const Tensor& x) {
  NNACCEL_ASSERT(p.kind == ir::PoolParams::Kind::Max && !p.global) << "indices of a non-MaxPool";
  NNACCEL_ASSERT(x.shape() == withBatchChannels(p, p.inSpatial)) << "pool input shape";
  Tensor y(DType::I64, withBatchChannels(p, p.outSpatial));
  switch (x.dtype()) {
  case DType::F32:
    argmaxWindows<float>(p, x, y);
    break;
  case DType::I8:
    argmaxWindows<int8_t>(p, x, y);
    break;
  case DType::U8:
    argmaxWindows<uint8_t>(p, x, y);
    break;
  default:
    requireDType(x, DType::F32, "max pooling indices");
  }
  return y;
}

Tensor pool(const ir::PoolParams& params, const Tensor& x) {
  KernelCache once;
  return pool(params, x, once);
}

Tensor pool(const ir::PoolParams& params, const Tensor& x, KernelCache& cache) {
  ir::PoolParams p = params;
  if (p.global) {
    // One window covering the whole spatial extent, whatever the parser left in the fields.
    const size_t rank = p.inSpatial.size();
    p.kernel = p.inSpatial;
    p.strides = p.dilations = p.outSpatial = Dims(rank, 1);
    p.padsBegin = p.padsEnd = Dims(rank, 0);
    p.ceilMode = false;
  }
  const bool isMax = p.kind == ir::PoolParams::Kind::Max;
  const char* what = isMax ? "max pooling" : "average pooling";
  if (!(x.dtype() == DType::F32 || (isMax && (x.dtype() == DType::I8 || x.dtype() == DType::U8)))) {
    requireDType(x, DType::F32, what);
  }
  if (p.spatialRank < 1 || p.spatialRank > 3) {
    unsupported(std::string(what) + " with " + std::to_string(p.spatialRank) +
                " spatial axes is not supported (1 to 3)");
  }
  const memory::dims padR =
      du::forwardPadEnd(p.inSpatial, p.outSpatial, p.kernel, p.strides, p.dilations, p.padsBegin);
  if (isMax) {
    return runPooling(dnnl::algorithm::pooling_max, x, p.inSpatial, p, p.padsBegin, padR, cache);
  }
  if (!p.countIncludePad) {
    return runPooling(dnnl::algorithm::pooling_avg_exclude_padding, x, p.inSpatial, p, p.padsBegin,
                      padR, cache);
  }
  bool overhang = false;
  for (size_t i = 0; i < padR.size(); ++i) {
    overhang = overhang || padR[i] > p.padsEnd[i];
  }
  if (!overhang) {
    return runPooling(dnnl::algorithm::pooling_avg_include_padding, x, p.inSpatial, p, p.padsBegin,
                      padR, cache);
  }
  // Zero-pad explicitly so the ONNX pads count as data, then exclude only the overhang.
  ir::PadParams explicitPad;
  explicitPad.padsBegin = {0, 0};
  explicitPad.padsEnd = {0, 0};
  Dims paddedSpatial;
  memory::dims overhangPads;
  for (size_t i = 0; i < p.inSpatial.size(); ++i) {
    explicitPad.padsBegin.push_back(p.padsBegin[i]);
    explicitPad.padsEnd.push_back(p.padsEnd[i]);
    paddedSpatial.push_back(p.inSpatial[i] + p.padsBegin[i] + p.padsEnd[i]);
    overhangPads.push_back(padR[i] - p.padsEnd[i]);
  }
  const Tensor padded = pad(explicitPad, x);
  return runPooling(dnnl::algorithm::pooling_avg_exclude_padding, padded, paddedSpatial, p,
                    Dims(p.inSpatial.size(), 0), overhangPads, cache);
}

} // namespace nnaccel::reference
