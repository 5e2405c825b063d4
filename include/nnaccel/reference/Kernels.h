/// \file
/// The reference kernels: one function per op family, taking resolved parameters (ir/OpParams.h)
/// and dense row-major tensors, returning a new tensor.
///
/// evalNode() (Executor.h) parses a node's parameters and calls these; the int8 executor,
/// constant folding and engine tests may call them directly. Kernels know nothing about graphs:
/// on bad data (an out-of-range Gather index, an unsupported dtype) they throw nnaccel::Error
/// without node context, and evalNode adds the node's context. Which kernels run on oneDNN and
/// which are plain loops is listed in docs/ReferenceExecutor.md.
#pragma once

#include "nnaccel/ir/OpParams.h"
#include "nnaccel/tensor/Tensor.h"

#include <vector>

namespace nnaccel::reference {

// --- ConvKernels.cpp ---------------------------------------------------------------------------
/// Conv (p.transposed == false) or ConvTranspose (true), fp32. \p w is laid out as in ONNX;
/// \p bias may be null. The output extent is p.outSpatial.
Tensor conv(const ir::ConvParams& p, const Tensor& x, const Tensor& w, const Tensor* bias);

// --- PoolKernels.cpp ---------------------------------------------------------------------------
/// MaxPool / AveragePool / GlobalAveragePool / GlobalMaxPool with ONNX padding, ceil_mode and
/// count_include_pad semantics. Max pooling also accepts s8/u8; average pooling is fp32 only.
Tensor pool(const ir::PoolParams& p, const Tensor& x);
/// MaxPool's Indices output (s64, the pooled shape): per window, the position of its maximum in
/// \p x flattened, n * C * S + c * S + s over S spatial elements, with s row-major over the
/// spatial axes, or column-major for p.storageOrderColumnMajor (storage_order=1); padding is
/// never selected, and the first maximum in row-major window order wins a tie (onnxruntime's
/// rule); -1 for a dilated window that reaches no input element. f32, s8 and u8 like pool().
Tensor maxPoolIndices(const ir::PoolParams& p, const Tensor& x);

// --- NormKernels.cpp ---------------------------------------------------------------------------
/// BatchNormalization (inference): y = scale * (x - mean) / sqrt(var + epsilon) + bias along
/// axis 1 of \p x (rank >= 2).
Tensor batchNorm(const ir::BatchNormParams& p, const Tensor& x, const Tensor& scale,
                 const Tensor& bias, const Tensor& mean, const Tensor& var);

// --- EltwiseKernels.cpp ------------------------------------------------------------------------
/// Unary activation of ir::isUnaryActivation ops: fp32 on oneDNN eltwise for Relu, LeakyRelu,
/// Clip (min <= max), Sigmoid, Tanh, Elu, and element for element ir::applyActivation for the
/// others (see docs/ReferenceExecutor.md); Relu and Clip also on integer dtypes through
/// clampInteger with Clip's bounds rounded inward: ceil(min), floor(max).
Tensor activation(const ir::ActivationParams& p, const Tensor& x);
/// min(max(x, lo), hi) on s8/u8/s32/s64 with the bounds saturated to x's type: Relu and Clip on
/// integers (exact; lo > hi gives hi everywhere, as numpy and ONNX Clip do).
Tensor clampInteger(const Tensor& x, int64_t lo, int64_t hi);
/// PRelu: y = x < 0 ? slope * x : x with \p slope broadcast to x's shape (unidirectional).
Tensor prelu(const Tensor& x, const Tensor& slope);
/// Add/Sub/Mul/Div with numpy broadcasting, for f32, s8, u8, s32 and s64 (integer Div truncates
/// toward zero; integer overflow wraps, e.g. modulo 256 for u8; integer division by zero throws).
Tensor binary(ir::OpKind op, const Tensor& a, const Tensor& b);

// --- DenseKernels.cpp --------------------------------------------------------------------------
/// Gemm: alpha * op(A) * op(B) + beta * C, C unidirectionally broadcast to [M, N]; \p c may be
/// null.
Tensor gemm(const ir::GemmParams& p, const Tensor& a, const Tensor& b, const Tensor* c);
/// MatMul with numpy semantics: 1-D operands are promoted and the added axis removed, batch
/// axes broadcast.
Tensor matmul(const Tensor& a, const Tensor& b);
/// Softmax along p.axis (opset >= 13) or over the 2-D coercion at p.axis (p.coerce2d).
Tensor softmax(const ir::SoftmaxParams& p, const Tensor& x);

/// Pow: f32 base \p x to the exponent \p y (any numeric dtype, read as f32), numpy
/// broadcasting; std::pow per element.
Tensor pow(const Tensor& x, const Tensor& y);

/// ReduceMean/Sum/Max/Min/Prod/L1/L2/SumSquare/LogSum/LogSumExp (\p op) of an f32 tensor over
/// p.axes: each output accumulates its inputs' terms (x, |x|, x^2 or e^x) in double in row-major
/// order, then finishes (Mean: divides by their count; L2: square root; LogSum*: log) and rounds
/// to f32 once. Max/Min propagate NaN.
Tensor reduce(ir::OpKind op, const ir::ReduceParams& p, const Tensor& x);

// --- NormalizationKernels.cpp (f32, plain loops in double) --------------------------------------

/// LRN across channels of an [N, C, ...] tensor (ONNX's definition, OpParams.h LrnParams).
Tensor lrn(const ir::LrnParams& p, const Tensor& x);
/// InstanceNormalization (\p scale, \p bias of shape [C]) or LayerNormalization (\p scale and
/// the optional \p bias broadcast onto the normalized dims) over p.axes: mean and biased
/// variance in double; y = (x - mean) / sqrt(var + epsilon) * scale + bias. \p mean and
/// \p invStdDev, when given, receive LayerNormalization's statistics (shape p.statShape).
Tensor normalize(const ir::NormalizationParams& p, const Tensor& x, const Tensor& scale,
                 const Tensor* bias, Tensor* mean = nullptr, Tensor* invStdDev = nullptr);

/// ArgMax (\p max) / ArgMin of an f32 tensor along p.axis: s64 positions; the first extremum
/// wins a tie unless p.selectLastIndex; comparisons with NaN are false, so a NaN is chosen only
/// where it comes first along the axis.
Tensor argReduce(bool max, const ir::ArgReduceParams& p, const Tensor& x);

// --- DataMovementKernels.cpp (any dtype) -------------------------------------------------------
/// Concatenation along \p axis (normalized); all inputs have the same dtype and rank.
Tensor concat(const std::vector<const Tensor*>& inputs, int64_t axis);
/// Permutes axes: output axis i is input axis perm[i].
Tensor transpose(const Tensor& x, const std::vector<int64_t>& perm);
/// Pad in constant, reflect or edge mode; negative pads crop.
Tensor pad(const ir::PadParams& p, const Tensor& x);
/// DepthToSpace in DCR or CRD order on a 4-D tensor.
Tensor depthToSpace(const ir::DepthToSpaceParams& p, const Tensor& x);
/// Gather along \p axis with s32/s64 indices (negative indices count from the end).
Tensor gather(const Tensor& data, const Tensor& indices, int64_t axis);
/// Slice with resolved per-axis starts/ends/steps.
Tensor slice(const ir::SliceParams& p, const Tensor& x);

// --- QuantizeKernels.cpp (QDQ models) ---------------------------------------------------------
/// QuantizeLinear: saturate(round_half_even(x / scale) + zero_point) to p.quantized (int8 or
/// uint8), the scale and zero point of each element's index along p.axis (or the only ones).
/// The division is in f32, as ONNX Runtime computes it.
Tensor quantizeLinear(const ir::QdqParams& p, const Tensor& x);
/// DequantizeLinear: (x - zero_point) * scale in f32, for an int8, uint8 or int32 \p x.
Tensor dequantizeLinear(const ir::QdqParams& p, const Tensor& x);

// --- IntegerKernels.cpp ------------------------------------------------------------------------
/// ConvInteger (opset 10): int32 sums of (x - x_zero) * (w - w_zero[m]) for int8/uint8 \p x and
/// \p w; \p xZero a scalar, \p wZero a scalar or one per output channel, either may be null.
/// Exact: the f32 convolution sums the differences in chunks of input channels short enough
/// that every partial sum is below 2^24; a grouped convolution whose one group is already too
/// long throws Unsupported. The int32 result wraps like ONNX Runtime's accumulator.
Tensor convInteger(const ir::ConvParams& p, const Tensor& x, const Tensor& w, const Tensor* xZero,
                   const Tensor* wZero);
/// MatMulInteger (opset 10): int32 sums of (a - a_zero) * (b - b_zero) with MatMul's shapes;
/// a_zero per tensor or per row, b_zero per tensor or per column. Exact as convInteger (chunks
/// of the reduction axis).
Tensor matmulInteger(const Tensor& a, const Tensor& b, const Tensor* aZero, const Tensor* bZero);
/// DynamicQuantizeLinear (opset 11): the range [min(0, min x), max(0, max x)] over 255 uint8
/// codes, scale = range / 255, zero point = round(clamp(-min / scale, 0, 255)), y =
/// clamp(round(x / scale) + zero point, 0, 255), rounding half to even, in f32 as ONNX's
/// definition; returns {y, scale, zero point}. An all-zero input gives scale 0 and codes 0.
std::vector<Tensor> dynamicQuantizeLinear(const Tensor& x);

// --- ResizeKernels.cpp -------------------------------------------------------------------------
/// Resize/Upsample: nearest (all nearest modes), N-linear and cubic, with every ONNX coordinate
/// transformation, fp32.
Tensor resize(const ir::ResizeParams& p, const Tensor& x);

/// The taps of one output index along one axis of a Resize: (input index, weight) pairs with
/// non-zero weights (clamped to the edge), or `extrapolate` for a tf_crop_and_resize position
/// outside the crop box.
struct ResizeTaps {
  std::vector<std::pair<int64_t, double>> taps;
  bool extrapolate = false;
};
/// Per axis of an input of shape \p inShape, per output index: the taps resize() interpolates
/// with (the N-D result is their nested product), so integer forms can use the same rules.
std::vector<std::vector<ResizeTaps>> resizeTaps(const ir::ResizeParams& p, const Dims& inShape);

} // namespace nnaccel::reference
