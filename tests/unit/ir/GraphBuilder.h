/// \file
/// Test helper: builds small IR graphs node by node (inputs, constants, nodes with attributes)
/// and captures nnaccel::Error messages, for the ir and passes unit tests.
#pragma once

#include "nnaccel/ir/Graph.h"

#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace nnaccel::ir::test {

/// AttrMap from {name, value} pairs: attrs({{"group", int64_t{2}}, {"strides", Dims{2, 2}}}).
inline AttrMap attrs(std::initializer_list<std::pair<std::string, AttrValue>> list) {
  AttrMap m;
  for (const auto& [k, v] : list) {
    m.set(k, v);
  }
  return m;
}

class GraphBuilder {
public:
  explicit GraphBuilder(int64_t opset = 17) : opset_(opset) {
    g.sourcePath = "model.onnx";
    g.opsetVersion = opset;
  }

  ValueId input(const std::string& name, Dims shape, DType dtype = DType::F32) {
    const ValueId id = g.addValue(name, dtype, std::move(shape));
    g.inputs.push_back(id);
    return id;
  }
  ValueId constant(const std::string& name, Tensor t) { return g.addConstant(name, std::move(t)); }
  ValueId ints(const std::string& name, const std::vector<int64_t>& v) {
    return constant(name, Tensor::fromVector<int64_t>({static_cast<int64_t>(v.size())}, v));
  }
  ValueId floats(const std::string& name, const std::vector<float>& v) {
    return constant(name, Tensor::fromVector<float>({static_cast<int64_t>(v.size())}, v));
  }
  ValueId floats(const std::string& name, Dims shape, const std::vector<float>& v) {
    return constant(name, Tensor::fromVector<float>(std::move(shape), v));
  }

  /// Adds node \p name; its outputs are new values named \p outs ("" marks an omitted output).
  NodeId node(OpKind op, const std::string& name, std::vector<ValueId> ins,
              const std::vector<std::string>& outs, AttrMap a = {}, int64_t opset = 0) {
    Node n;
    n.op = op;
    n.name = name;
    n.opset = opset != 0 ? opset : opset_;
    n.inputs = std::move(ins);
    for (const std::string& o : outs) {
      n.outputs.push_back(o.empty() ? kNoValue : g.addValue(o, DType::F32));
    }
    n.attrs = std::move(a);
    return g.addNode(std::move(n));
  }

  /// Single-output node whose output value is named after the node; returns that value.
  ValueId op(OpKind op, const std::string& name, std::vector<ValueId> ins, AttrMap a = {},
             int64_t opset = 0) {
    const NodeId id = node(op, name, std::move(ins), {name}, std::move(a), opset);
    return g.node(id).outputs[0];
  }

  NodeId lastNode() const { return static_cast<NodeId>(g.numNodes()) - 1; }
  const Value& value(ValueId id) const { return g.value(id); }

  Graph g;

private:
  int64_t opset_;
};

/// The what() of the nnaccel::Error thrown by \p f, or "<no error>".
inline std::string errorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "<no error>";
}

/// The ErrorKind thrown by \p f (asserts that it throws).
inline std::optional<ErrorKind> errorKindOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.kind();
  }
  return std::nullopt;
}

} // namespace nnaccel::ir::test
