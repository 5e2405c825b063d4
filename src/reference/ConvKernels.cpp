// Conv and ConvTranspose on oneDNN (convolution_forward / deconvolution_forward with the direct
// algorithm): 1-D, 2-D and 3-D, groups, dilations, asymmetric pads, bias, output_padding. With an
// Executor's KernelCache the primitive is built, and constant weights reordered to its blocked
// layout, on the node's first run only.
#include "CachedKernels.h"
#include "ConvPrimitive.h"
#include "KernelUtil.h"

namespace nnaccel::reference {

namespace du = dnnl_util;
using dnnl::memory;

namespace {
/// Right padding for deconvolution: oneDNN's out = (in - 1) * s + dilated k - padL - padR, so
/// output_padding (and output_shape) appear as a smaller, possibly negative, right padding.
memory::dims deconvPadEnd(const ir::ConvParams& p) {
  memory::dims pads;
  for (size_t i = 0; i < p.inSpatial.size(); ++i) {
    const int64_t dilatedKernel = (p.kernel[i] - 1) * p.dilations[i] + 1;
    pads.push_back((p.inSpatial[i] - 1) * p.strides[i] + dilatedKernel - p.padsBegin[i] -
                   p.outSpatial[i]);
  }
  return pads;
}

memory::desc anyLayout(const memory::dims& dims, DType t) {
  return memory::desc(dims, du::dataType(t), memory::format_tag::any);
}

/// Activations [N, C, spatial...] stored channels-last (1 to 3 spatial axes).
memory::desc channelsLastLayout(const memory::dims& dims, DType t) {
  const memory::format_tag tag = dims.size() == 3   ? memory::format_tag::nwc
                                 : dims.size() == 4 ? memory::format_tag::nhwc
                                                    : memory::format_tag::ndhwc;
  return memory::desc(dims, du::dataType(t), tag);
}
} // namespace

Dims convActivationShape(const ir::ConvParams& p, int64_t channels, const Dims& spatial) {
  Dims d{p.batch, channels};
  d.insert(d.end(), spatial.begin(), spatial.end());
  return d;
}

memory::desc convWeightsDesc(const ir::ConvParams& p, DType t) {
  const int64_t g = p.group;
  const int64_t ocPerGroup = p.outChannels / g;
  const int64_t icPerGroup = p.inChannels / g;
  const int64_t kernelSize = numElements(p.kernel);
  const Dims kernelStrides = rowMajorStrides(p.kernel);
  // Element strides of the o and i axes and of one group inside the ONNX layout.
  const int64_t oStride = p.transposed ? kernelSize : icPerGroup * kernelSize;
  const int64_t iStride = p.transposed ? ocPerGroup * kernelSize : kernelSize;
  const int64_t gStride = ocPerGroup * icPerGroup * kernelSize;
  Dims dims, strides;
  if (g > 1) {
    dims.push_back(g);
    strides.push_back(gStride);
  }
  dims.insert(dims.end(), {ocPerGroup, icPerGroup});
  strides.insert(strides.end(), {oStride, iStride});
  dims.insert(dims.end(), p.kernel.begin(), p.kernel.end());
  strides.insert(strides.end(), kernelStrides.begin(), kernelStrides.end());
  return du::stridedDesc(dims, strides, t);
}

du::Primitive convPrimitive(const ir::ConvParams& p, DType src, DType weights, DType dst, bool bias,
                            const dnnl::primitive_attr& attr, bool channelsLast) {
  const auto activation = channelsLast ? channelsLastLayout : anyLayout;
  const memory::desc anySrc =
      activation(du::toDims(convActivationShape(p, p.inChannels, p.inSpatial)), src);
  const memory::desc anyDst =
      activation(du::toDims(convActivationShape(p, p.outChannels, p.outSpatial)), dst);
  const memory::desc anyWei = anyLayout(convWeightsDesc(p, weights).dims(), weights);
  const memory::desc biasMd = bias ? du::plainDesc({p.outChannels}, dst) : memory::desc();
  const memory::dims strides = du::toDims(p.strides);
  const memory::dims dilations = du::dilationsFromOnnx(p.dilations);
  const memory::dims padL = du::toDims(p.padsBegin);
  if (!p.transposed) {
    const memory::dims padR =
        du::forwardPadEnd(p.inSpatial, p.outSpatial, p.kernel, p.strides, p.dilations, p.padsBegin);
    const dnnl::convolution_forward::desc d(dnnl::prop_kind::forward_inference,
                                            dnnl::algorithm::convolution_direct, anySrc, anyWei,
                                            biasMd, anyDst, strides, dilations, padL, padR);
    const dnnl::convolution_forward::primitive_desc pd(d, attr, du::engine());
    return du::Primitive(pd, dnnl::convolution_forward(pd));
  }
  const dnnl::deconvolution_forward::desc d(
      dnnl::prop_kind::forward_inference, dnnl::algorithm::deconvolution_direct, anySrc, anyWei,
      biasMd, anyDst, strides, dilations, padL, deconvPadEnd(p));
  const dnnl::deconvolution_forward::primitive_desc pd(d, attr, du::engine());
  return du::Primitive(pd, dnnl::deconvolution_forward(pd));
}

Tensor conv(const ir::ConvParams& p, const Tensor& x, const Tensor& w, const Tensor* bias) {
  KernelCache once;
  return conv(p, x, w, bias, once);
}

namespace {

/// True for a dilated ConvTranspose whose output reaches past the full transposed convolution
/// (a negative end padding: output_padding beyond the trailing pad), which oneDNN 2.6 refuses
/// ("could not create a descriptor for a dilated deconvolution").
bool dilatedPastTheFullOutput(const ir::ConvParams& p) {
  if (!p.transposed)
    return false;
  bool dilated = false, past = false;
  for (size_t i = 0; i < p.padsEnd.size(); ++i) {
    dilated = dilated || p.dilations[i] > 1;
    past = past || p.padsEnd[i] < 0;
  }
  return dilated && past;
}

/// Copies \p inner (the same leading axes, smaller or equal spatial extents) into the leading
/// corner of \p y's spatial extents, axis by axis, for \p rows rows of the outer axes.
void copyIntoCorner(const float* inner, const Dims& innerSpatial, float* y,
                    const Dims& outerSpatial, int64_t rows) {
  const int64_t innerPlane = numElements(innerSpatial), outerPlane = numElements(outerSpatial);
  const size_t rank = innerSpatial.size();
  const int64_t lastInner = innerSpatial.back();
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t line = 0; line < innerPlane / lastInner; ++line) {
      int64_t rest = line, outerOffset = 0, scale = outerSpatial.back();
      for (size_t a = rank - 1; a-- > 0;) { // the line's index along the leading spatial axes
        outerOffset += (rest % innerSpatial[a]) * scale;
        rest /= innerSpatial[a];
        scale *= outerSpatial[a];
      }
      std::copy_n(inner + r * innerPlane + line * lastInner, lastInner,
                  y + r * outerPlane + outerOffset);
    }
}

/// A dilated ConvTranspose past its full output (dilatedPastTheFullOutput): the full output
/// cropped by the non-negative part of the end padding, then extended by the rows no input
/// reaches, which hold the bias alone (ir::ConvParams::padsEnd).
Tensor convTransposeExtended(const ir::ConvParams& p, const Tensor& x, const Tensor& w,
                             const Tensor* bias, KernelCache& cache) {
  ir::ConvParams inner = p;
  for (size_t i = 0; i < p.padsEnd.size(); ++i) {
    inner.padsEnd[i] = std::max<int64_t>(0, p.padsEnd[i]);
    inner.outSpatial[i] = p.outSpatial[i] - (inner.padsEnd[i] - p.padsEnd[i]);
  }
  const Tensor reached = conv(inner, x, w, bias, cache);
  Tensor y(DType::F32, convActivationShape(p, p.outChannels, p.outSpatial));
  const int64_t plane = numElements(p.outSpatial);
  for (int64_t n = 0; n < p.batch; ++n)
    for (int64_t c = 0; c < p.outChannels; ++c)
      std::fill_n(y.data<float>() + (n * p.outChannels + c) * plane, plane,
                  bias ? bias->data<float>()[c] : 0.0f);
  copyIntoCorner(reached.data<float>(), inner.outSpatial, y.data<float>(), p.outSpatial,
                 p.batch * p.outChannels);
  return y;
}

} // namespace

Tensor conv(const ir::ConvParams& p, const Tensor& x, const Tensor& w, const Tensor* bias,
            KernelCache& cache) {
  if (dilatedPastTheFullOutput(p))
    return convTransposeExtended(p, x, w, bias, cache);
  const std::string what = p.transposed ? "ConvTranspose" : "Conv";
  return du::guard(what, [&]() -> Tensor {
    requireDType(x, DType::F32, what);
    requireDType(w, DType::F32, what);
    if (bias) {
      requireDType(*bias, DType::F32, what);
    }
    if (p.spatialRank < 1 || p.spatialRank > 3) {
      unsupported(what + " with " + std::to_string(p.spatialRank) +
                  " spatial axes is not supported (1 to 3)");
    }
    const Dims srcShape = convActivationShape(p, p.inChannels, p.inSpatial);
    const Dims dstShape = convActivationShape(p, p.outChannels, p.outSpatial);
    NNACCEL_ASSERT(x.shape() == srcShape)
        << what << " input " << dimsToString(x.shape()) << " vs params " << dimsToString(srcShape);
    NNACCEL_ASSERT(w.numElements() * p.group ==
                   p.outChannels * p.inChannels * numElements(p.kernel))
        << what << " weights " << dimsToString(w.shape());
    NNACCEL_ASSERT(!bias || bias->numElements() == p.outChannels) << what << " bias size";

    Tensor y = cache.output(DType::F32, dstShape);
    const memory::desc srcMd = du::plainDesc(srcShape, DType::F32);
    const memory::desc dstMd = du::plainDesc(dstShape, DType::F32);
    const memory::desc weiMd = convWeightsDesc(p, DType::F32);
    const memory::desc biasMd = du::plainDesc({p.outChannels}, DType::F32);
    du::Primitive& prim = cache.obtain(
        [&] { return convPrimitive(p, DType::F32, DType::F32, DType::F32, bias != nullptr); });

    du::Args inputs{{DNNL_ARG_SRC, du::wrap(x, srcMd)}, {DNNL_ARG_WEIGHTS, du::wrap(w, weiMd)}};
    if (bias) {
      inputs.emplace(DNNL_ARG_BIAS, du::wrap(*bias, biasMd));
    }
    const du::Args outputs{{DNNL_ARG_DST, du::wrap(y, dstMd)}};
    if (cache.constantWeights) {
      prim.execute(inputs, outputs, {DNNL_ARG_WEIGHTS, DNNL_ARG_BIAS});
    } else {
      prim.execute(inputs, outputs);
    }
    return y;
  });
}

} // namespace nnaccel::reference
