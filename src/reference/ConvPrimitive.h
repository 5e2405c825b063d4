/// \file
/// The oneDNN convolution and deconvolution primitives of ONNX Conv and ConvTranspose, described
/// once for every data type: the fp32 Conv kernel (ConvKernels.cpp) and the exact int8
/// convolution sums (Int8ConvKernels.cpp) build theirs here, so the geometry (weight layout,
/// dilations, right padding, output_padding) is translated to oneDNN in one place.
#pragma once

#include "DnnlUtil.h"
#include "nnaccel/ir/OpParams.h"

namespace nnaccel::reference {

/// The activation shape [N, channels, spatial...] of convolution \p p.
Dims convActivationShape(const ir::ConvParams& p, int64_t channels, const Dims& spatial);

/// The ONNX weight tensor of \p p (dtype \p t) seen with oneDNN's weight dimensions
/// ([g,] o, i, k...): Conv's [M, C/g, k...] directly, ConvTranspose's [C, M/g, k...] through
/// swapped strides.
dnnl::memory::desc convWeightsDesc(const ir::ConvParams& p, DType t);

/// The forward-inference Conv (\p p.transposed false) or ConvTranspose primitive of \p p with
/// source, weight and destination types \p src, \p weights, \p dst, a bias of type \p dst when
/// \p bias, and attributes \p attr; oneDNN chooses the (blocked) layouts, Primitive reorders.
/// With \p channelsLast the source and destination are channels-last ([N, spatial..., C]
/// row-major) instead of oneDNN's choice.
dnnl_util::Primitive convPrimitive(const ir::ConvParams& p, DType src, DType weights, DType dst,
                                   bool bias, const dnnl::primitive_attr& attr = {},
                                   bool channelsLast = false);

} // namespace nnaccel::reference
