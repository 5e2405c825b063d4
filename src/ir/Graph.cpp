// Graph storage and structural edits (add/remove nodes, rewire uses, topological sort).
#include "nnaccel/ir/Graph.h"

#include <algorithm>
#include <queue>
#include <set>
#include <unordered_map>

namespace nnaccel::ir {

ValueId Graph::addValue(const std::string& valueName, DType dtype) {
  NNACCEL_ASSERT(!findValue(valueName)) << "duplicate value name '" << valueName << "'";
  Value v;
  v.name = valueName;
  v.dtype = dtype;
  values_.push_back(std::move(v));
  const auto id = static_cast<ValueId>(values_.size() - 1);
  index_.emplace(valueName, id);
  return id;
}

ValueId Graph::addValue(const std::string& valueName, DType dtype, Dims shape) {
  ValueId id = addValue(valueName, dtype);
  values_.back().shape = std::move(shape);
  values_.back().shapeKnown = true;
  return id;
}

ValueId Graph::addConstant(const std::string& valueName, Tensor data) {
  ValueId id = addValue(valueName, data.dtype(), data.shape());
  values_.back().constant = std::make_shared<const Tensor>(std::move(data));
  return id;
}

std::string Graph::uniqueName(const std::string& base) const {
  if (!findValue(base)) {
    return base;
  }
  for (int i = 1;; ++i) {
    std::string candidate = base + "_" + std::to_string(i);
    if (!findValue(candidate)) {
      return candidate;
    }
  }
}

Value& Graph::value(ValueId id) {
  NNACCEL_ASSERT(id >= 0 && static_cast<size_t>(id) < values_.size()) << "bad value id " << id;
  return values_[static_cast<size_t>(id)];
}

const Value& Graph::value(ValueId id) const {
  NNACCEL_ASSERT(id >= 0 && static_cast<size_t>(id) < values_.size()) << "bad value id " << id;
  return values_[static_cast<size_t>(id)];
}

std::optional<ValueId> Graph::findValue(const std::string& valueName) const {
  auto it = index_.find(valueName);
  if (it == index_.end()) {
    return std::nullopt;
  }
  return it->second;
}

void Graph::renameValue(ValueId id, const std::string& newName) {
  NNACCEL_ASSERT(!findValue(newName)) << "duplicate value name '" << newName << "'";
  index_.erase(value(id).name);
  value(id).name = newName;
  index_.emplace(newName, id);
}

NodeId Graph::addNode(Node node) {
  const auto id = static_cast<NodeId>(nodes_.size());
  for (ValueId out : node.outputs) {
    if (out != kNoValue) {
      value(out).producer = id;
    }
  }
  nodes_.push_back(std::move(node));
  return id;
}

void Graph::rebuildProducers() {
  for (Value& v : values_) {
    v.producer = -1;
  }
  for (size_t i = 0; i < nodes_.size(); ++i) {
    for (ValueId out : nodes_[i].outputs) {
      if (out != kNoValue) {
        value(out).producer = static_cast<NodeId>(i);
      }
    }
  }
  for (size_t i = 0; i < nodes_.size(); ++i) {
    if (nodes_[i].fusedActivation) {
      // Activation node ids are remapped by callers that renumber; drop stale marks.
      NodeId a = nodes_[i].fusedActivation->activationNode;
      if (a < 0 || static_cast<size_t>(a) >= nodes_.size()) {
        nodes_[i].fusedActivation.reset();
      }
    }
  }
}

void Graph::removeNodes(const std::vector<NodeId>& ids) {
  std::set<NodeId> dead(ids.begin(), ids.end());
  std::vector<NodeId> remap(nodes_.size(), -1);
  std::vector<Node> kept;
  for (size_t i = 0; i < nodes_.size(); ++i) {
    if (!dead.count(static_cast<NodeId>(i))) {
      remap[i] = static_cast<NodeId>(kept.size());
      kept.push_back(std::move(nodes_[i]));
    }
  }
  nodes_ = std::move(kept);
  for (Node& n : nodes_) {
    if (n.fusedActivation) {
      NodeId old = n.fusedActivation->activationNode;
      NodeId mapped = (old >= 0 && static_cast<size_t>(old) < remap.size())
                          ? remap[static_cast<size_t>(old)]
                          : -1;
      if (mapped < 0) {
        n.fusedActivation.reset();
      } else {
        n.fusedActivation->activationNode = mapped;
      }
    }
  }
  rebuildProducers();
}

void Graph::replaceAllUses(ValueId from, ValueId to) {
  for (Node& n : nodes_) {
    for (ValueId& in : n.inputs) {
      if (in == from) {
        in = to;
      }
    }
  }
  for (ValueId& out : outputs) {
    if (out == from) {
      out = to;
      Value& taker = value(to);
      const Value& given = value(from);
      if (!taker.declaredShape && !taker.declaredDType) {
        taker.declaredShape = given.declaredShape;
        taker.declaredDType = given.declaredDType;
      }
    }
  }
}

std::vector<NodeId> Graph::users(ValueId id) const {
  std::vector<NodeId> result;
  for (size_t i = 0; i < nodes_.size(); ++i) {
    const auto& ins = nodes_[i].inputs;
    if (std::find(ins.begin(), ins.end(), id) != ins.end()) {
      result.push_back(static_cast<NodeId>(i));
    }
  }
  return result;
}

void Graph::topoSort() {
  rebuildProducers();
  const size_t n = nodes_.size();
  std::vector<int> pending(n, 0);
  std::vector<std::vector<size_t>> consumers(n);
  for (size_t i = 0; i < n; ++i) {
    std::set<NodeId> deps;
    for (ValueId in : nodes_[i].inputs) {
      if (in != kNoValue && value(in).producer >= 0) {
        deps.insert(value(in).producer);
      }
    }
    pending[i] = static_cast<int>(deps.size());
    for (NodeId d : deps) {
      consumers[static_cast<size_t>(d)].push_back(i);
    }
  }
  // Kahn's algorithm with a min-heap on the old index: keeps existing order where legal.
  std::priority_queue<size_t, std::vector<size_t>, std::greater<>> ready;
  for (size_t i = 0; i < n; ++i) {
    if (pending[i] == 0) {
      ready.push(i);
    }
  }
  std::vector<size_t> order;
  while (!ready.empty()) {
    size_t i = ready.top();
    ready.pop();
    order.push_back(i);
    for (size_t c : consumers[i]) {
      if (--pending[c] == 0) {
        ready.push(c);
      }
    }
  }
  if (order.size() != n) {
    for (size_t i = 0; i < n; ++i) {
      if (pending[i] > 0) {
        fail(static_cast<NodeId>(i), "graph has a cycle through this node");
      }
    }
  }
  std::vector<NodeId> remap(n);
  std::vector<Node> sorted;
  sorted.reserve(n);
  for (size_t k = 0; k < n; ++k) {
    remap[order[k]] = static_cast<NodeId>(k);
    sorted.push_back(std::move(nodes_[order[k]]));
  }
  nodes_ = std::move(sorted);
  for (Node& node : nodes_) {
    if (node.fusedActivation) {
      node.fusedActivation->activationNode =
          remap[static_cast<size_t>(node.fusedActivation->activationNode)];
    }
  }
  rebuildProducers();
}

void Graph::removeDeadNodes() {
  for (;;) {
    std::set<ValueId> live(outputs.begin(), outputs.end());
    for (const Node& n : nodes_) {
      live.insert(n.inputs.begin(), n.inputs.end());
    }
    std::vector<NodeId> dead;
    for (size_t i = 0; i < nodes_.size(); ++i) {
      bool used = false;
      for (ValueId out : nodes_[i].outputs) {
        used = used || (out != kNoValue && live.count(out));
      }
      if (!used) {
        dead.push_back(static_cast<NodeId>(i));
      }
    }
    if (dead.empty()) {
      return;
    }
    removeNodes(dead);
  }
}

ErrorContext Graph::contextOf(NodeId id) const {
  const Node& n = node(id);
  return ErrorContext{.file = sourcePath,
                      .node = n.name,
                      .op = std::string(opName(n.op)),
                      .opset = sourceOpset != 0 ? sourceOpset : n.opset,
                      .key = {}};
}

void Graph::fail(NodeId id, const std::string& reason, ErrorKind kind) const {
  throw Error(kind, contextOf(id), reason);
}

} // namespace nnaccel::ir
