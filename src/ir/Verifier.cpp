// Structural and type checks of a Graph: id ranges, single producers, topological order, per-op
// arity (by opset), inferred positive shapes, produced graph outputs and valid fusion marks.
// Run after shape inference and after every pass pipeline; the first violation is reported.
#include "nnaccel/ir/Verifier.h"

#include "NodeInputs.h"

#include <algorithm>
#include <limits>
#include <vector>

namespace nnaccel::ir {

using detail::quoted;

namespace {

/// Counts in messages (arity, indices) are size_t here.
std::string str(size_t v) {
  return detail::str(static_cast<int64_t>(v));
}

constexpr size_t kVariadic = std::numeric_limits<size_t>::max();

/// Number of inputs and outputs an op takes at a given opset. Inputs beyond minIn are optional
/// (may be kNoValue); the first minOut outputs must be present.
struct Arity {
  size_t minIn, maxIn, minOut, maxOut;
};

Arity arityOf(OpKind op, int64_t opset) {
  switch (op) {
  case OpKind::Conv:
  case OpKind::ConvTranspose:
    return {2, 3, 1, 1};
  case OpKind::MaxPool:
    return {1, 1, 1, 2};
  case OpKind::AveragePool:
  case OpKind::GlobalAveragePool:
  case OpKind::GlobalMaxPool:
    return {1, 1, 1, 1};
  case OpKind::BatchNormalization:
    return {5, 5, 1, opset >= 14 ? 3u : 5u};
  NNACCEL_UNARY_ACTIVATION_CASES:
    // Clip's min/max became optional inputs in opset 11.
    return {1, op == OpKind::Clip && opset >= 11 ? 3u : 1u, 1, 1};
  NNACCEL_REDUCE_CASES: // ReduceSum's axes became an optional input in opset 13
    return op == OpKind::ReduceSum && opset >= 13 ? Arity{1, 2, 1, 1} : Arity{1, 1, 1, 1};
  case OpKind::LRN:
  case OpKind::Softmax:
  case OpKind::Flatten:
  case OpKind::Transpose:
  case OpKind::DepthToSpace:
  case OpKind::Identity:
  case OpKind::Shape:
  case OpKind::Cast:
  case OpKind::ConstantOfShape:
  case OpKind::Not:
  case OpKind::ArgMax:
  case OpKind::ArgMin:
    return {1, 1, 1, 1};
  case OpKind::Where:
  case OpKind::InstanceNormalization:
    return {3, 3, 1, 1};
  case OpKind::QuantizeLinear:
  case OpKind::DequantizeLinear:
    return {2, 3, 1, 1};
  case OpKind::QLinearConv:
    return {8, 9, 1, 1};
  case OpKind::QLinearMatMul:
    return {8, 8, 1, 1};
  case OpKind::ConvInteger:
  case OpKind::MatMulInteger:
    return {2, 4, 1, 1};
  case OpKind::DynamicQuantizeLinear:
    return {1, 1, 3, 3};
  case OpKind::LayerNormalization:
    return {2, 3, 1, 3};
  case OpKind::PRelu:
  case OpKind::Add:
  case OpKind::Sub:
  case OpKind::Mul:
  case OpKind::Div:
  case OpKind::Pow:
  case OpKind::MatMul:
  case OpKind::Reshape:
  case OpKind::Gather:
  case OpKind::Equal:
  case OpKind::Greater:
  case OpKind::Less:
  case OpKind::GreaterOrEqual:
  case OpKind::LessOrEqual:
  case OpKind::And:
  case OpKind::Or:
  case OpKind::Xor:
  case OpKind::Expand:
  case OpKind::Tile:
    return {2, 2, 1, 1};
  case OpKind::Gemm:
    return {opset >= 11 ? 2u : 3u, 3, 1, 1};
  case OpKind::Concat:
  case OpKind::Min: // variadic, as in ONNX; the pipeline writes them as chains of two inputs
  case OpKind::Max:
  case OpKind::Sum:
  case OpKind::Mean:
    return {1, kVariadic, 1, 1};
  case OpKind::Squeeze:
    return {1, opset >= 13 ? 2u : 1u, 1, 1};
  case OpKind::Unsqueeze:
    return {opset >= 13 ? 2u : 1u, opset >= 13 ? 2u : 1u, 1, 1};
  case OpKind::Pad:
    return opset >= 11 ? Arity{2, 3, 1, 1} : Arity{1, 1, 1, 1};
  case OpKind::Resize:
    // Opset 11-12 declare roi and scales required, but exporters leave them empty; treat every
    // parameter as optional and let resizeParams check that exactly one of scales/sizes is set.
    return opset >= 11 ? Arity{1, 4, 1, 1} : Arity{2, 2, 1, 1};
  case OpKind::Upsample:
    return opset >= 9 ? Arity{2, 2, 1, 1} : Arity{1, 1, 1, 1};
  case OpKind::Dropout:
    return {1, opset >= 12 ? 3u : 1u, 1, 2};
  case OpKind::Constant:
    return {0, 0, 1, 1};
  case OpKind::Slice:
    return opset >= 10 ? Arity{3, 5, 1, 1} : Arity{1, 1, 1, 1};
  case OpKind::Split:
    return opset >= 13 ? Arity{1, 2, 1, kVariadic} : Arity{1, 1, 1, kVariadic};
  }
  NNACCEL_UNREACHABLE("bad op kind");
  return {};
}

class Verifier {
public:
  explicit Verifier(const Graph& g) : g_(g), available_(g.numValues(), false) {}

  void run() {
    checkInterface();
    checkProducers();
    for (NodeId id = 0; id < static_cast<NodeId>(g_.numNodes()); ++id) {
      checkNode(id);
    }
    checkOutputs();
  }

private:
  [[noreturn]] void failGraph(const std::string& reason) const {
    throw Error(ErrorKind::Model, ErrorContext{.file = g_.sourcePath}, reason);
  }

  bool inRange(ValueId v) const { return v >= 0 && static_cast<size_t>(v) < g_.numValues(); }

  /// The value must have a known, positive shape (constants may be empty: ONNX uses empty
  /// tensors for absent parameters such as Resize's roi).
  void checkShape(ValueId v, NodeId id) const {
    const Value& val = g_.value(v);
    const auto fail = [&](const std::string& reason) {
      if (id >= 0) {
        g_.fail(id, reason);
      }
      failGraph(reason);
    };
    if (!val.shapeKnown) {
      fail("value " + quoted(val.name) + " has no inferred shape");
    }
    for (int64_t d : val.shape) {
      if (d < 0 || (d == 0 && !val.constant)) {
        fail("value " + quoted(val.name) + " has shape " + dimsToString(val.shape) +
             "; dimensions must be positive");
      }
    }
    if (val.constant &&
        (val.constant->shape() != val.shape || val.constant->dtype() != val.dtype)) {
      fail("constant " + quoted(val.name) + " holds " + dimsToString(val.constant->shape()) + " " +
           std::string(dtypeName(val.constant->dtype())) + " but is declared " +
           dimsToString(val.shape) + " " + std::string(dtypeName(val.dtype)));
    }
  }

  void checkInterface() {
    for (ValueId in : g_.inputs) {
      if (!inRange(in)) {
        failGraph("graph input id " + std::to_string(in) + " is out of range");
      }
      const Value& v = g_.value(in);
      if (v.constant) {
        failGraph("graph input " + quoted(v.name) + " is also a constant");
      }
      checkShape(in, -1);
      available_[static_cast<size_t>(in)] = true;
    }
    for (size_t v = 0; v < g_.numValues(); ++v) {
      if (g_.value(static_cast<ValueId>(v)).constant) {
        available_[v] = true;
      }
    }
    if (g_.outputs.empty()) {
      failGraph("graph has no outputs");
    }
  }

  /// Every node output is produced exactly once and Value::producer agrees.
  void checkProducers() {
    std::vector<NodeId> producer(g_.numValues(), -1);
    for (NodeId id = 0; id < static_cast<NodeId>(g_.numNodes()); ++id) {
      for (ValueId out : g_.node(id).outputs) {
        if (out == kNoValue) {
          continue;
        }
        if (!inRange(out)) {
          g_.fail(id, "output id " + std::to_string(out) + " is out of range");
        }
        if (producer[static_cast<size_t>(out)] >= 0) {
          g_.fail(id, "value " + quoted(g_.value(out).name) + " is also produced by node " +
                          quoted(g_.node(producer[static_cast<size_t>(out)]).name));
        }
        if (std::find(g_.inputs.begin(), g_.inputs.end(), out) != g_.inputs.end()) {
          g_.fail(id, "value " + quoted(g_.value(out).name) + " is also a graph input");
        }
        producer[static_cast<size_t>(out)] = id;
      }
    }
    for (NodeId id = 0; id < static_cast<NodeId>(g_.numNodes()); ++id) {
      for (ValueId out : g_.node(id).outputs) {
        if (out != kNoValue && g_.value(out).producer != id) {
          g_.fail(id, "value " + quoted(g_.value(out).name) +
                          " does not record this node as its producer");
        }
      }
    }
  }

  void checkNode(NodeId id) {
    const Node& n = g_.node(id);
    const Arity a = arityOf(n.op, n.opset);
    if (n.inputs.size() < a.minIn || n.inputs.size() > a.maxIn) {
      g_.fail(id, "has " + str(n.inputs.size()) + " inputs, expected " +
                      (a.maxIn == kVariadic ? "at least " + str(a.minIn)
                       : a.minIn == a.maxIn ? str(a.minIn)
                                            : str(a.minIn) + " to " + str(a.maxIn)));
    }
    if (n.outputs.size() < a.minOut || n.outputs.size() > a.maxOut) {
      g_.fail(id,
              "has " + str(n.outputs.size()) + " outputs, expected " +
                  (a.minOut == a.maxOut ? str(a.minOut) : str(a.minOut) + " to " + str(a.maxOut)));
    }
    for (size_t i = 0; i < n.inputs.size(); ++i) {
      const ValueId v = n.inputs[i];
      if (v == kNoValue) {
        if (i < a.minIn) {
          g_.fail(id, "required input " + str(i) + " is missing");
        }
        continue;
      }
      if (!inRange(v)) {
        g_.fail(id, "input id " + std::to_string(v) + " is out of range");
      }
      if (!available_[static_cast<size_t>(v)]) {
        const NodeId p = g_.value(v).producer;
        g_.fail(id, "input " + quoted(g_.value(v).name) +
                        (p >= 0 ? " is produced by a later node (not in topological order)"
                                : " has no producer"));
      }
      checkShape(v, id);
    }
    for (size_t k = 0; k < n.outputs.size(); ++k) {
      const ValueId out = n.outputs[k];
      if (out == kNoValue) {
        if (k < a.minOut) {
          g_.fail(id, "required output " + str(k) + " is missing");
        }
        continue;
      }
      checkShape(out, id);
      available_[static_cast<size_t>(out)] = true;
    }
    checkFusion(id);
  }

  void checkFusion(NodeId id) const {
    const Node& n = g_.node(id);
    if (!n.fusedActivation) {
      return;
    }
    if (n.op != OpKind::Conv && n.op != OpKind::ConvTranspose && n.op != OpKind::Gemm &&
        n.op != OpKind::MatMul) {
      g_.fail(id, "fused activation marked on an op that cannot carry one");
    }
    const NodeId a = n.fusedActivation->activationNode;
    if (a < 0 || static_cast<size_t>(a) >= g_.numNodes()) {
      g_.fail(id,
              "fused activation points at node " + std::to_string(a) + ", which does not exist");
    }
    const Node& act = g_.node(a);
    const ValueId out = n.outputs.empty() ? kNoValue : n.outputs[0];
    if (act.op != n.fusedActivation->kind || !isUnaryActivation(act.op) || act.inputs.empty() ||
        act.inputs[0] != out) {
      g_.fail(id, "fused activation mark does not match node " + quoted(act.name) +
                      ", which must be a " + std::string(opName(n.fusedActivation->kind)) +
                      " reading this node's output");
    }
    const bool isGraphOutput = g_.isOutput(out);
    if (g_.users(out).size() != 1 || isGraphOutput) {
      g_.fail(id, "fused activation requires the output " + quoted(g_.value(out).name) +
                      " to have no other use");
    }
  }

  void checkOutputs() const {
    for (ValueId out : g_.outputs) {
      if (!inRange(out)) {
        failGraph("graph output id " + std::to_string(out) + " is out of range");
      }
      if (!available_[static_cast<size_t>(out)]) {
        failGraph("graph output " + quoted(g_.value(out).name) + " is not produced");
      }
      checkShape(out, -1);
    }
  }

  const Graph& g_;
  std::vector<bool> available_;
};

} // namespace

void verify(const Graph& g) {
  Verifier(g).run();
}

} // namespace nnaccel::ir
