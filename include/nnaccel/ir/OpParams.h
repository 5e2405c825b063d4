/// \file
/// Resolved operator parameters: the single place where ONNX attributes, defaults, opset
/// differences and auto_pad rules turn into concrete numbers.
///
/// Shape inference, the reference executor, the quantizer and every engine's compiler read
/// these structs, never raw attributes, so all of them agree on what a node means. Each parse
/// function validates the node against its (already inferred) input shapes and throws
/// nnaccel::Error with the node's context on anything invalid (e.g. "group=3 does not divide
/// input channels=64"). Spatial vectors have one entry per spatial axis (rank-2 for NCHW).
#pragma once

#include "nnaccel/ir/Graph.h"

#include <optional>

namespace nnaccel::ir {

/// Conv and ConvTranspose. Input X is [N, C, spatial...], W is [M, C/group, k...] for Conv and
/// [C, M/group, k...] for ConvTranspose.
struct ConvParams {
  int64_t spatialRank = 2;
  int64_t batch = 1;
  int64_t inChannels = 0;  ///< C
  int64_t outChannels = 0; ///< M
  int64_t group = 1;
  bool hasBias = false;
  Dims inSpatial;  ///< input spatial extent
  Dims outSpatial; ///< output spatial extent
  Dims kernel;     ///< kernel spatial extent (undilated)
  Dims strides;
  Dims dilations;
  /// Leading padding per spatial axis, resolved (auto_pad / output_shape applied); always >= 0.
  Dims padsBegin;
  /// Trailing padding per spatial axis. Conv: resolved like padsBegin, >= 0. ConvTranspose:
  /// ONNX's trailing pad *minus* output_padding, so it is negative when output_padding exceeds
  /// the pad (or output_shape asks for more than the full result); a negative value means
  /// that many extra output positions past the full result, which receive only the bias (no
  /// input contributes to them). On every axis of both ops:
  ///   Conv:          out = floor((in + padsBegin + padsEnd - dilated_k) / stride) + 1
  ///   ConvTranspose: out = stride * (in - 1) + dilated_k - padsBegin - padsEnd
  /// with dilated_k = (kernel - 1) * dilation + 1. Engines implementing ConvTranspose as
  /// "full transposed convolution, then crop padsBegin / padsEnd" must zero-extend (bias only)
  /// by -padsEnd where padsEnd < 0; the ONNX attribute pads end = padsEnd + outputPadding.
  Dims padsEnd;
  Dims outputPadding; ///< ConvTranspose only (zeros for Conv); kept for reporting
  bool transposed = false;
  /// True when group == inChannels == outChannels / multiplier (depthwise).
  bool isDepthwise() const { return group > 1 && group == inChannels; }
  /// Multiply-accumulates for the whole batch; convParams rejects (Unsupported) convolutions
  /// whose count does not fit int64, so this never overflows for its results.
  int64_t macs() const;
};
ConvParams convParams(const Graph& g, NodeId id);

/// MaxPool, AveragePool, GlobalAveragePool, GlobalMaxPool.
struct PoolParams {
  enum class Kind { Max, Average } kind = Kind::Max;
  bool global = false;
  int64_t spatialRank = 2;
  int64_t batch = 1;
  int64_t channels = 0;
  Dims inSpatial, outSpatial, kernel, strides, dilations, padsBegin, padsEnd;
  bool ceilMode = false;
  bool countIncludePad = false; ///< AveragePool: divide by the full window including padding
  /// MaxPool storage_order=1: the (optional) Indices output is column-major over the spatial
  /// axes (reference::maxPoolIndices). It does not change the pooled values.
  bool storageOrderColumnMajor = false;
};
PoolParams poolParams(const Graph& g, NodeId id);

/// BatchNormalization (inference form): y = scale * (x - mean) / sqrt(var + epsilon) + bias.
struct BatchNormParams {
  float epsilon = 1e-5f;
  int64_t channels = 0;
};
BatchNormParams batchNormParams(const Graph& g, NodeId id);

/// LRN (AlexNet, GoogLeNet): y = x / (bias + alpha / size * sum of x^2 over the channels
/// c - floor((size - 1) / 2) .. c + ceil((size - 1) / 2))^beta, on an [N, C, ...] input.
struct LrnParams {
  int64_t size = 1;
  float alpha = 1e-4f, beta = 0.75f, bias = 1.0f;
};
LrnParams lrnParams(const Graph& g, NodeId id);

/// InstanceNormalization and LayerNormalization: y = (x - mean) / sqrt(var + epsilon) * scale
/// + bias, mean and (biased) var over \p axes: InstanceNormalization's spatial axes 2.. with
/// per-channel scale and bias of shape [C]; LayerNormalization's axes `axis`.. (default -1) with
/// scale and optional bias broadcast onto the normalized dims (its optional Mean and InvStdDev
/// outputs have \p statShape: the input's shape with the normalized axes set to 1).
struct NormalizationParams {
  std::vector<int64_t> axes;
  float epsilon = 1e-5f;
  Dims statShape;
  bool perChannelAffine = false; ///< InstanceNormalization: scale and bias are [C] on axis 1
};
NormalizationParams normalizationParams(const Graph& g, NodeId id);

/// Unary activations with their ONNX defaults resolved. For Clip, alpha/beta are min/max
/// (from attributes for opset < 11, from constant inputs otherwise; +-inf when absent).
struct ActivationParams {
  OpKind kind = OpKind::Relu;
  float alpha = 0.0f;             ///< LeakyRelu/Elu/HardSigmoid/Selu/Swish alpha; Clip min
  float beta = 0.0f;              ///< HardSigmoid beta; Clip max
  float gamma = 0.0f;             ///< Selu gamma
  bool tanhApproximation = false; ///< Gelu approximate = "tanh"
};
ActivationParams activationParams(const Graph& g, NodeId id);
/// Applies the activation to one fp32 value: the scalar formula, used by the reference executor
/// for the kinds oneDNN lacks (reference::activation() is the reference's tensor-level result).
float applyActivation(const ActivationParams& p, float x);

/// Min (\p max false) or Max of two fp32 values, NaN if either is NaN (numpy's minimum and
/// maximum; ONNX leaves NaN unspecified). The scalar rule of the reference and of folding.
float minMaxOf(bool max, float a, float b);

/// Numpy-style broadcast of two shapes; throws (Model) with the node context when impossible.
Dims broadcastShapes(const Graph& g, NodeId id, const Dims& a, const Dims& b);

/// Gemm: Y = alpha * op(A) * op(B) + beta * C.
struct GemmParams {
  float alpha = 1.0f, beta = 1.0f;
  bool transA = false, transB = false;
  int64_t m = 0, k = 0, n = 0;
  bool hasC = false;
};
GemmParams gemmParams(const Graph& g, NodeId id);

/// The multiply-accumulates of node \p id as the operator defines them, for the whole batch:
/// Conv and ConvTranspose every kernel tap of every output (ConvParams::macs, padding taps
/// included), Gemm M x K x N, MatMul the output's elements x K; 0 for every other operator.
/// The one MAC definition of `info` and of every engine's `useful_macs`.
int64_t nodeMacs(const Graph& g, NodeId id);

/// Softmax: axis normalized to [0, rank). For opset < 13 the input is coerced to 2-D at axis
/// (`coerce2d`), for opset >= 13 softmax runs along the single axis.
struct SoftmaxParams {
  int64_t axis = -1;
  bool coerce2d = false;
};
SoftmaxParams softmaxParams(const Graph& g, NodeId id);

/// ReduceMean/Sum/Max/Min/Prod/L1/L2/SumSquare/LogSum/LogSumExp: the reduced axes (sorted,
/// normalized; the `axes` attribute, or ReduceSum's input from opset 13; none given: every axis, or
/// none for ReduceSum with noop_with_empty_axes) and the output shape (`keepdims`, default 1, keeps
/// them as 1).
struct ReduceParams {
  std::vector<int64_t> axes;
  bool keepDims = true;
  Dims outShape;
};
ReduceParams reduceParams(const Graph& g, NodeId id);

/// ArgMax/ArgMin: the normalized `axis` (default 0), `keepdims` (default 1),
/// `select_last_index` (opset 12, default 0: the first extremum wins a tie) and the s64 output
/// shape.
struct ArgReduceParams {
  int64_t axis = 0;
  bool keepDims = true;
  bool selectLastIndex = false;
  Dims outShape;
};
ArgReduceParams argReduceParams(const Graph& g, NodeId id);

/// Expand's output shape: the input broadcast with the constant `shape` input (both ways, as
/// numpy does; a 1 in `shape` keeps the input's extent).
Dims expandShape(const Graph& g, NodeId id);
/// Tile's constant `repeats` input: one count >= 1 per input axis.
std::vector<int64_t> tileRepeats(const Graph& g, NodeId id);

/// Concat axis, Flatten axis, Gather axis: normalized to [0, rank) (Flatten: [0, rank]).
int64_t concatAxis(const Graph& g, NodeId id);
int64_t flattenAxis(const Graph& g, NodeId id);
int64_t gatherAxis(const Graph& g, NodeId id);

/// Transpose permutation (default: reversed axes).
std::vector<int64_t> transposePerm(const Graph& g, NodeId id);

/// Squeeze/Unsqueeze axes (attribute for opset < 13, constant input otherwise), normalized and
/// sorted. Squeeze without axes returns every axis of extent 1.
std::vector<int64_t> squeezeAxes(const Graph& g, NodeId id);
std::vector<int64_t> unsqueezeAxes(const Graph& g, NodeId id);

/// Reshape target with 0 (copy, unless allowzero) and -1 (infer) resolved; needs a constant
/// shape input.
Dims reshapeTarget(const Graph& g, NodeId id);

/// Pad: per-axis begin/end pads (may be negative = crop), constant mode only is executed;
/// other modes are reported as Unsupported by the executor, not silently padded with zeros.
struct PadParams {
  enum class Mode { Constant, Reflect, Edge } mode = Mode::Constant;
  Dims padsBegin, padsEnd;
  /// The constant fill value as float: exact for f32 data. For integer data it is intValue
  /// converted to float, which rounds magnitudes above 2^24: use intValue there.
  float value = 0.0f;
  /// True when the data is an integer or bool tensor; intValue then holds the fill value
  /// exactly (constant_value has the data's dtype, so it is in the dtype's range).
  bool valueIsInteger = false;
  int64_t intValue = 0;
};
PadParams padParams(const Graph& g, NodeId id);

/// Resize (opset 10-17) and Upsample (opset 7-9), resolved to per-axis scales and output dims.
struct ResizeParams {
  enum class Mode { Nearest, Linear, Cubic } mode = Mode::Nearest;
  /// half_pixel, asymmetric, pytorch_half_pixel, align_corners, tf_crop_and_resize,
  /// tf_half_pixel_for_nn (opset 11-12).
  std::string coordinateTransform = "half_pixel";
  /// round_prefer_floor, round_prefer_ceil, floor, ceil (opset 11-17 attribute), or, for
  /// Resize-10, "legacy_opset10": per axis, floor of the (asymmetric) source coordinate when
  /// that axis' scale is >= 1 and ceil when it is < 1, clamped to [0, in - 1]. That is ONNX
  /// opset 10's reference behaviour (backend test resize_downsample_nearest of onnx 1.5:
  /// [[1,2,3,4],[5,6,7,8]] at scales [1,1,0.6,0.6] gives [[1,3]]) and onnxruntime's for
  /// opset <= 10. Upsample (opset 7-9; every scale >= 1) uses "floor", which is the same rule.
  std::string nearestMode = "round_prefer_floor";
  float cubicCoeffA = -0.75f;
  bool excludeOutside = false;
  float extrapolationValue = 0.0f;
  std::vector<float> scales; ///< per axis, output / input as used in the coordinate map
  /// True when the output size came from the `sizes` input: scales are then sizes / in
  /// (float), and coordinate maps use the integer output extent where ONNX says so.
  bool scalesFromSizes = false;
  Dims outShape;
  std::vector<float> roi; ///< tf_crop_and_resize only: [starts..., ends...]
};
ResizeParams resizeParams(const Graph& g, NodeId id);

/// DepthToSpace: blocksize and DCR/CRD mode.
struct DepthToSpaceParams {
  int64_t blocksize = 1;
  bool crd = false;
};
DepthToSpaceParams depthToSpaceParams(const Graph& g, NodeId id);

/// Slice with starts/ends/axes/steps resolved and clamped per the ONNX rules, one entry per
/// input axis (untouched axes: start 0, end dim, step 1). Opset < 10 uses attributes.
struct SliceParams {
  Dims starts, ends, steps;
};
SliceParams sliceParams(const Graph& g, NodeId id);

/// Split: the axis and each output's extent along it (the `split` attribute before opset 13,
/// the optional constant `split` input from 13 on, else equal parts, which must divide it).
struct SplitParams {
  int64_t axis = 0;
  std::vector<int64_t> sizes; ///< one per output
};
SplitParams splitParams(const Graph& g, NodeId id);

/// Cast target dtype; throws Unsupported for ONNX types nnaccel does not hold (e.g. f64).
/// float16 is F32 (nnaccel widens it; castValues rounds the values).
DType castTarget(const Graph& g, NodeId id);
/// Cast node \p id applied to \p x: Tensor::castTo its target, and for a cast to float16 each
/// value then rounded to half precision (roundToHalf), so the fp32 tensor holds the model's
/// float16 values.
Tensor castValues(const Graph& g, NodeId id, const Tensor& x);

/// QuantizeLinear / DequantizeLinear (opset 10-17): QdqParams (Graph.h), validated: scale an f32
/// constant with positive finite values, zero point absent or a constant of the scale's shape,
/// int8 or uint8 (int32 for a DequantizeLinear of an int32 bias, whose zero point is 0); per
/// axis from opset 13.
QdqParams qdqParams(const Graph& g, NodeId id);

} // namespace nnaccel::ir
