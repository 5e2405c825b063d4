/// \file
/// The nnaccel graph IR: typed values, nodes, and the graph that owns them.
///
/// A Graph is a static-shape dataflow graph close to ONNX (ops of Ops.def, ONNX attribute
/// names) so that any model the importer accepts can be exported again. Values are referred to
/// by dense ValueId indices that stay stable while passes edit the graph; nodes are kept in
/// topological order (Graph::topoSort re-establishes it after edits, verify() checks it).
///
/// Contract:
///  - every Value has one producer (a node output, a graph input, or a constant initializer);
///  - after shape inference every Value has a dtype and a fully known, non-negative shape;
///  - constants (initializers, folded values) carry their data in Value::constant.
#pragma once

#include "nnaccel/ir/Attribute.h"
#include "nnaccel/ir/OpKind.h"
#include "nnaccel/tensor/Tensor.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace nnaccel::ir {

using ValueId = int32_t;
using NodeId = int32_t;
/// Marks an omitted optional input (ONNX's empty input name).
inline constexpr ValueId kNoValue = -1;

/// The parameters of a QuantizeLinear / DequantizeLinear (ONNX opset 10-17): y =
/// saturate(round_half_even(x / scale) + zero_point) and y = (x - zero_point) * scale, the scale
/// and zero point per tensor or per index along `axis`.
struct QdqParams {
  int64_t axis = -1;           ///< the per-axis axis, -1 when per tensor
  std::vector<float> scales;   ///< one, or one per index along axis
  std::vector<int32_t> zeros;  ///< as scales (zeros when the zero point is absent)
  DType quantized = DType::U8; ///< the integer type: Q's output, DQ's input
};

struct Value {
  std::string name; ///< name as in the model (unique in the graph)
  DType dtype = DType::F32;
  Dims shape; ///< valid when shapeKnown
  bool shapeKnown = false;
  std::shared_ptr<const Tensor> constant; ///< set for initializers and folded constants
  NodeId producer = -1;                   ///< producing node, -1 for inputs and constants
  /// Graph outputs only: the shape the model file declares, -1 for a dimension it leaves
  /// unknown (dim_param or no value); absent when it declares no shape. inferShapes checks
  /// the inferred shape against it.
  std::optional<Dims> declaredShape;
  /// Graph outputs only: the element type the model file declares, if any (checked likewise).
  std::optional<DType> declaredDType;
  /// A constant folded from a DequantizeLinear (a QDQ model's weights or bias): the integer
  /// tensor's scale, zero point and axis, which int8 quantization keeps (quant::quantize).
  std::optional<QdqParams> dequantizedFrom;
};

/// An activation that a pass found directly after a Conv/ConvTranspose/Gemm/MatMul output and
/// that an engine may fuse into that node's output stage. The activation node stays in the
/// graph: marking never changes what the graph computes; an engine that fuses skips
/// `activationNode` itself.
struct FusedActivation {
  NodeId activationNode = -1;
  OpKind kind = OpKind::Relu;
};

struct Node {
  OpKind op = OpKind::Identity;
  std::string name;            ///< as in the model; the importer invents "<op>_<index>" if empty
  int64_t opset = 17;          ///< default-domain opset the model declared
  std::vector<ValueId> inputs; ///< kNoValue for omitted optional inputs
  std::vector<ValueId> outputs;
  AttrMap attrs;
  std::optional<FusedActivation> fusedActivation;
};

class Graph {
public:
  std::string name;
  std::string sourcePath;    ///< file the graph came from, for error messages
  int64_t opsetVersion = 17; ///< default-domain opset of the model
  /// The opset the file declared when the importer upgraded a legacy model (opset 1-6) to
  /// opsetVersion; 0 otherwise. Error messages (contextOf) show it instead of Node::opset, so
  /// users see the opset their file states.
  int64_t sourceOpset = 0;
  /// How the importer bound the symbolic input dimensions: "NAME=VALUE (how)" each
  /// (frontend::ImportOptions); empty when the inputs have none.
  std::vector<std::string> dimBindings;

  // --- values -------------------------------------------------------------------------------
  /// Adds a value with unknown shape; asserts the name is new.
  ValueId addValue(const std::string& valueName, DType dtype);
  /// Adds a value with known shape.
  ValueId addValue(const std::string& valueName, DType dtype, Dims shape);
  /// Adds an initializer/constant value holding \p data.
  ValueId addConstant(const std::string& valueName, Tensor data);
  /// Renames a value (names must stay unique; Value::name must not be assigned directly).
  void renameValue(ValueId id, const std::string& newName);
  /// Returns a name not yet used, derived from \p base.
  std::string uniqueName(const std::string& base) const;
  Value& value(ValueId id);
  const Value& value(ValueId id) const;
  std::optional<ValueId> findValue(const std::string& valueName) const;
  size_t numValues() const { return values_.size(); }
  bool isConstant(ValueId id) const { return id != kNoValue && value(id).constant != nullptr; }
  /// True when \p id is one of the graph's outputs.
  bool isOutput(ValueId id) const {
    return std::find(outputs.begin(), outputs.end(), id) != outputs.end();
  }

  // --- nodes --------------------------------------------------------------------------------
  /// Appends a node and records it as producer of its outputs. Does not re-sort.
  NodeId addNode(Node node);
  Node& node(NodeId id) { return nodes_.at(static_cast<size_t>(id)); }
  const Node& node(NodeId id) const { return nodes_.at(static_cast<size_t>(id)); }
  size_t numNodes() const { return nodes_.size(); }
  const std::vector<Node>& nodes() const { return nodes_; }
  /// Removes the nodes in \p ids (their outputs lose their producer) and renumbers the rest,
  /// keeping relative order.
  void removeNodes(const std::vector<NodeId>& ids);
  /// Replaces every use of \p from (node inputs and graph outputs) with \p to. When \p from
  /// is a graph output, \p to takes over its declared type (Value::declaredShape/DType).
  void replaceAllUses(ValueId from, ValueId to);
  /// Nodes that read \p id.
  std::vector<NodeId> users(ValueId id) const;
  /// Reorders nodes topologically (stable: keeps the existing order where legal).
  /// Throws nnaccel::Error (Model) if the graph has a cycle.
  void topoSort();
  /// Removes nodes whose outputs are all unused and not graph outputs; repeats to a fixpoint.
  void removeDeadNodes();

  // --- interface ----------------------------------------------------------------------------
  std::vector<ValueId> inputs; ///< runtime inputs (initializers excluded)
  std::vector<ValueId> outputs;

  /// Context for an error about node \p id (file, node name, op, opset; the opset is
  /// sourceOpset when set).
  ErrorContext contextOf(NodeId id) const;
  /// Throws nnaccel::Error(kind, contextOf(id), reason).
  [[noreturn]] void fail(NodeId id, const std::string& reason,
                         ErrorKind kind = ErrorKind::Model) const;

private:
  void rebuildProducers();
  std::vector<Value> values_;
  std::vector<Node> nodes_;
  std::unordered_map<std::string, ValueId> index_;
};

} // namespace nnaccel::ir
