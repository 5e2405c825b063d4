// Removal of Identity and inference-mode Dropout nodes with stable graph output names (see
// EliminateIdentity.h).
#include "nnaccel/passes/EliminateIdentity.h"

#include "GraphQueries.h"

namespace nnaccel::passes {

namespace {

using ir::Graph;
using ir::NodeId;
using ir::OpKind;
using ir::ValueId;

/// A Dropout that is a plain copy: no used mask, not in training mode.
bool isInferenceDropout(const Graph& g, NodeId id) {
  const ir::Node& n = g.node(id);
  if (n.outputs.size() > 1 && n.outputs[1] != ir::kNoValue) {
    const ValueId mask = n.outputs[1];
    if (detail::isGraphOutput(g, mask) || !g.users(mask).empty()) {
      return false;
    }
  }
  if (n.inputs.size() > 2 && n.inputs[2] != ir::kNoValue) {
    const ValueId training = n.inputs[2];
    if (!g.isConstant(training) || g.value(training).constant->numElements() != 1 ||
        g.value(training).constant->elementAsInt64(0) != 0) {
      return false;
    }
  }
  return true;
}

} // namespace

std::size_t eliminateIdentity(Graph& g) {
  std::vector<NodeId> removed;
  for (NodeId id = 0; id < static_cast<NodeId>(g.numNodes()); ++id) {
    const ir::Node& n = g.node(id);
    const bool copy =
        n.op == OpKind::Identity || (n.op == OpKind::Dropout && isInferenceDropout(g, id));
    if (!copy || n.inputs.empty() || n.outputs.empty() || n.inputs[0] == ir::kNoValue ||
        n.outputs[0] == ir::kNoValue) {
      continue;
    }
    const ValueId in = n.inputs[0];
    const ValueId out = n.outputs[0];
    if (detail::isGraphOutput(g, out)) {
      if (detail::isGraphInput(g, in) || detail::isGraphOutput(g, in)) {
        continue; // the copy is what gives the interface two distinct names
      }
      // The input takes over the output's name so the graph's output names are unchanged.
      const std::string name = g.value(out).name;
      g.renameValue(out, g.uniqueName(name + "_eliminated"));
      g.renameValue(in, name);
    }
    g.replaceAllUses(out, in);
    removed.push_back(id);
  }
  g.removeNodes(removed);
  return removed.size();
}

} // namespace nnaccel::passes
