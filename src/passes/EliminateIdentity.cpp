// Removal of Identity, inference-mode Dropout and identity Transpose nodes (alone or as a pair
// that cancels) with stable graph output names (see EliminateIdentity.h).
#include "nnaccel/passes/EliminateIdentity.h"

#include "GraphQueries.h"
#include "nnaccel/ir/OpParams.h"

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

/// The Transpose producing \p v, or -1.
NodeId transposeProducing(const Graph& g, ValueId v) {
  const NodeId id = g.value(v).producer;
  return id >= 0 && g.node(id).op == OpKind::Transpose ? id : -1;
}

bool isIdentityPerm(const std::vector<int64_t>& perm) {
  for (size_t k = 0; k < perm.size(); ++k)
    if (perm[k] != static_cast<int64_t>(k))
      return false;
  return true;
}

/// A Transpose whose permutation, alone or composed with the Transpose that produces its input,
/// is the identity: its output equals \p source (set to the value it copies).
bool isIdentityTranspose(const Graph& g, NodeId id, ValueId& source) {
  const std::vector<int64_t> perm = ir::transposePerm(g, id);
  source = g.node(id).inputs[0];
  if (isIdentityPerm(perm))
    return true;
  const NodeId first = transposeProducing(g, source);
  if (first < 0)
    return false;
  const std::vector<int64_t> firstPerm = ir::transposePerm(g, first);
  std::vector<int64_t> composed(perm.size()); // out[k] = in[perm[k]] = x[firstPerm[perm[k]]]
  for (size_t k = 0; k < perm.size(); ++k)
    composed[k] = firstPerm[static_cast<size_t>(perm[k])];
  if (!isIdentityPerm(composed))
    return false;
  source = g.node(first).inputs[0];
  return true;
}

} // namespace

std::size_t eliminateIdentity(Graph& g) {
  std::vector<NodeId> removed;
  for (NodeId id = 0; id < static_cast<NodeId>(g.numNodes()); ++id) {
    const ir::Node& n = g.node(id);
    if (n.inputs.empty() || n.outputs.empty() || n.inputs[0] == ir::kNoValue ||
        n.outputs[0] == ir::kNoValue) {
      continue;
    }
    ValueId in = n.inputs[0];
    // A Cast between f32 values that does not round (to float; to float16 rounds: castValues).
    const bool f32Copy = n.op == OpKind::Cast && g.value(in).dtype == DType::F32 &&
                         g.value(n.outputs[0]).dtype == DType::F32 && n.attrs.getInt("to", 0) == 1;
    const bool copy = n.op == OpKind::Identity || f32Copy ||
                      (n.op == OpKind::Dropout && isInferenceDropout(g, id)) ||
                      (n.op == OpKind::Transpose && isIdentityTranspose(g, id, in));
    if (!copy) {
      continue;
    }
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
