/// \file
/// Per-layer summary of a graph: shapes, kernel windows, multiply-accumulates and parameters.
///
/// This is the data behind `nnaccel info` and the parameter count `nnaccel zoo export` prints
/// (`zoo list` counts from layer shapes without building weights: zoo::ZooModel::counts, tested
/// equal). It lives in the driver rather than in the CLI so the numbers are unit-tested and
/// every tool reports the same ones. MACs come from the resolved op parameters (ir/OpParams.h);
/// parameters are the elements of the learned constant inputs of each layer (see isWeightInput).
#pragma once

#include "nnaccel/ir/Graph.h"

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace nnaccel::driver {

/// Sliding window of a convolution or pooling layer (one entry per spatial axis).
struct WindowSummary {
  Dims kernel;
  Dims strides;
  Dims padsBegin; ///< resolved (auto_pad applied), as the ONNX `pads` begin values
  /// Resolved ONNX `pads` end values. For ConvTranspose these are the model's pads, i.e.
  /// ir::ConvParams::padsEnd + outputPadding (ConvParams folds output_padding into padsEnd).
  Dims padsEnd;
  Dims dilations;
  Dims outputPadding;    ///< ConvTranspose `output_padding` per spatial axis; empty otherwise
  int64_t group = 1;     ///< convolution groups; 1 for pooling
  bool global = false;   ///< GlobalAveragePool / GlobalMaxPool: the window is the whole input
  bool hasGroup = false; ///< true for Conv/ConvTranspose (pooling has no groups)
};

struct LayerSummary {
  ir::NodeId node = -1;
  std::string name;
  ir::OpKind op = ir::OpKind::Identity;
  std::vector<Dims> inputShapes; ///< shapes of the non-constant inputs, in input order
  std::vector<Dims> outputShapes;
  std::optional<WindowSummary> window;
  int64_t macs =
      0; ///< multiply-accumulates for the whole batch (Conv, ConvTranspose, Gemm, MatMul)
  int64_t params = 0; ///< elements of this layer's learned constant inputs
  /// Set on a node whose output activation a pass marked as fusable.
  std::optional<ir::OpKind> fusedActivation;
  /// True for an activation node that another node marked as fused into its output.
  bool fusedIntoProducer = false;
};

struct ModelSummary {
  std::vector<LayerSummary> layers; ///< one per node, in graph order
  int64_t totalMacs = 0;
  int64_t totalParams = 0; ///< each constant counted once even if several layers read it
};

/// True when input \p inputIndex of an \p op node holds learned parameters when it is a
/// constant: Conv/ConvTranspose weight and bias, Gemm B and C, either MatMul operand,
/// BatchNormalization scale and bias, the PRelu slope, and a constant operand of Add/Sub/Mul/Div
/// (e.g. a bias added after MatMul). The count matches PyTorch's `model.parameters()`:
/// BatchNormalization running mean/var are statistics, and shape, axes, pads and clip bounds
/// are configuration, not parameters.
bool isWeightInput(ir::OpKind op, size_t inputIndex);

/// Learned parameters of \p g: elements of every constant that is a parameter input of some
/// node, each constant counted once. Needs no shape inference.
int64_t countParameters(const ir::Graph& g);

/// Summarizes every node of a shape-inferred, verified graph.
ModelSummary summarizeModel(const ir::Graph& g);

/// \p s (of \p g) as JSON: {schema "nnaccel.model_summary", schema_version, name, opset,
/// symbolic_dims, inputs and outputs ({name, dtype, shape}), layers ({index, name, op,
/// input_shapes, output_shapes, macs, params, fused_activation, fused_into_producer, and
/// window {kernel, strides, pads_begin, pads_end, dilations, output_padding, global, group}
/// for convolutions and pooling}), total_macs, total_params}. `info --json` and nnaccel.info().
std::string summaryJson(const ir::Graph& g, const ModelSummary& s);

} // namespace nnaccel::driver
