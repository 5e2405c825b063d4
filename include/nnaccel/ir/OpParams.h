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
  int64_t inChannels = 0;        ///< C
  int64_t outChannels = 0;       ///< M
  int64_t group = 1;
  bool hasBias = false;
  Dims inSpatial;                ///< input spatial extent
  Dims outSpatial;               ///< output spatial extent
  Dims kernel;                   ///< kernel spatial extent (undilated)
  Dims strides;
  Dims dilations;
  Dims padsBegin;                ///< resolved (auto_pad applied); >= 0
  Dims padsEnd;                  ///< resolved; for ConvTranspose may absorb output_padding
  Dims outputPadding;            ///< ConvTranspose only (zeros for Conv)
  bool transposed = false;
  /// True when group == inChannels == outChannels / multiplier (depthwise).
  bool isDepthwise() const { return group > 1 && group == inChannels; }
  int64_t macs() const;          ///< multiply-accumulates for the whole batch
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
  bool countIncludePad = false;  ///< AveragePool: divide by the full window including padding
};
PoolParams poolParams(const Graph& g, NodeId id);

/// BatchNormalization (inference form): y = scale * (x - mean) / sqrt(var + epsilon) + bias.
struct BatchNormParams {
  float epsilon = 1e-5f;
  int64_t channels = 0;
};
BatchNormParams batchNormParams(const Graph& g, NodeId id);

/// Unary activations with their ONNX defaults resolved. For Clip, alpha/beta are min/max
/// (from attributes for opset < 11, from constant inputs otherwise; +-inf when absent).
struct ActivationParams {
  OpKind kind = OpKind::Relu;
  float alpha = 0.0f;  ///< LeakyRelu/Elu/HardSigmoid/Selu alpha; Clip min
  float beta = 0.0f;   ///< HardSigmoid beta; Clip max
  float gamma = 0.0f;  ///< Selu gamma
};
ActivationParams activationParams(const Graph& g, NodeId id);
/// Applies the activation to one fp32 value (the reference definition every executor uses).
float applyActivation(const ActivationParams& p, float x);

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

/// Softmax: axis normalized to [0, rank). For opset < 13 the input is coerced to 2-D at axis
/// (`coerce2d`), for opset >= 13 softmax runs along the single axis.
struct SoftmaxParams {
  int64_t axis = -1;
  bool coerce2d = false;
};
SoftmaxParams softmaxParams(const Graph& g, NodeId id);

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
  float value = 0.0f;
};
PadParams padParams(const Graph& g, NodeId id);

/// Resize (opset 10-17) and Upsample (opset 7-9), resolved to per-axis scales and output dims.
struct ResizeParams {
  enum class Mode { Nearest, Linear, Cubic } mode = Mode::Nearest;
  /// half_pixel, asymmetric, pytorch_half_pixel, align_corners, tf_crop_and_resize.
  std::string coordinateTransform = "half_pixel";
  /// round_prefer_floor, round_prefer_ceil, floor, ceil.
  std::string nearestMode = "round_prefer_floor";
  float cubicCoeffA = -0.75f;
  bool excludeOutside = false;
  float extrapolationValue = 0.0f;
  std::vector<float> scales;     ///< per axis, output / input as used in the coordinate map
  Dims outShape;
  std::vector<float> roi;        ///< tf_crop_and_resize only: [starts..., ends...]
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

/// Cast target dtype; throws Unsupported for ONNX types nnaccel does not hold (e.g. f16).
DType castTarget(const Graph& g, NodeId id);

} // namespace nnaccel::ir
