/// \file
/// ONNX in and out: import a ModelProto into the IR, export the IR as a ModelProto.
///
/// Import is purely structural: it maps ONNX nodes, attributes, initializers and Constant nodes
/// to the IR, binds symbolic input dimensions, records the declared types of graph outputs
/// (ir::Value::declaredShape/declaredDType, checked by ir::inferShapes), and rejects what nnaccel
/// cannot represent (unsupported op or domain, opset outside 1-17, unsupported element type,
/// external data) with a one-line nnaccel::Error naming the file and node. Shape inference,
/// verification and graph passes are run afterwards by the driver (driver/ModelLoader.h).
#pragma once

#include "nnaccel/ir/Graph.h"

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace nnaccel::frontend {

/// The data given for one graph input (a --input file): it binds the input's symbolic
/// dimensions.
struct InputData {
  std::string file; ///< for messages and `info`
  Dims shape;
  /// When set, the data's shape for an input declared with these dims (-1 where unbound)
  /// replaces \p shape: an image takes the input's layout and channels (tensor/Image.h), and
  /// a -1 it leaves (the batch) is bound by the other rules.
  std::function<Dims(const Dims&)> shapeFor;
};

/// How symbolic input dimensions (dim_param, or no value at all) are bound, first rule first:
/// dimParams by name (--dim); the extent of the input's data file (inputData, --input) when
/// its rank matches; defaultSymbolicDim for a leading (batch) dimension (--batch). Any other
/// dimension is unbound, and the import fails naming every unbound one (never a silent 1). A
/// dim_param shared by several inputs takes one value. ir::Graph::dimBindings records them.
struct ImportOptions {
  /// Value bound to a leading symbolic dimension that nothing else binds (the batch size).
  int64_t defaultSymbolicDim = 1;
  bool batchGiven = false; ///< defaultSymbolicDim came from the user (--batch), for `info`
  /// Explicit bindings for named symbolic dimensions (dim_param).
  std::map<std::string, int64_t> dimParams;
  /// Per runtime graph input, in order: its data (may be shorter than the inputs).
  std::vector<InputData> inputData;
};

/// Lowest and highest default-domain opset accepted. The product targets opsets 7-17; older
/// models (opsets 1-6, e.g. the ONNX backend test data's pytorch-converted models and the node
/// tests of ops unchanged since opset 1) are upgraded to kUpgradedOpset by the importer, which
/// rewrites the legacy differences of the ops in nnaccel's op list (`consumed_inputs`, the
/// `broadcast`/`axis` attributes of Add/Sub/Mul/Div/Gemm, per-channel PRelu slopes,
/// BatchNormalization/Dropout `is_test`, Reshape-1's `shape` attribute, Pad-1's `paddings`,
/// Concat-1's default axis) and rejects legacy forms with no opset-7 meaning, so every imported
/// graph and node has opset 7-17 and no consumer of the IR needs legacy rules (see
/// docs/OnnxImport.md).
inline constexpr int64_t kMinOpset = 1;
inline constexpr int64_t kMaxOpset = 17;
/// The opset a legacy (opset < 7) model is upgraded to (Graph::opsetVersion and Node::opset).
inline constexpr int64_t kUpgradedOpset = 7;

/// Reads and imports \p path. Errors name \p path.
ir::Graph importOnnxFile(const std::string& path, const ImportOptions& options = {});
/// Imports serialized ModelProto bytes; \p displayName is used as the file in errors.
ir::Graph importOnnxBytes(std::string_view bytes, const std::string& displayName,
                          const ImportOptions& options = {});

/// Reads a serialized onnx::TensorProto (the ONNX backend test data's input_N.pb/output_N.pb).
Tensor readTensorProtoFile(const std::string& path);

/// Serializes \p g as an ONNX model (opset g.opsetVersion, producer "nnaccel") that passes
/// onnx::checker::check_model and re-imports to an equal graph.
std::string exportOnnxBytes(const ir::Graph& g);
void exportOnnxFile(const ir::Graph& g, const std::string& path);

} // namespace nnaccel::frontend
