// Written-out HardSigmoid and HardSwish fused back into single nodes (see
// FuseHardActivations.h).
#include "nnaccel/passes/FuseHardActivations.h"

#include "GraphQueries.h"
#include "nnaccel/ir/OpParams.h"

#include <cmath>
#include <optional>
#include <vector>

namespace nnaccel::passes {

namespace {

using ir::Graph;
using ir::NodeId;
using ir::OpKind;
using ir::ValueId;

/// The node writing \p v when it is of kind \p op and \p v is read only once (by the pattern).
std::optional<NodeId> internalProducer(const Graph& g, ValueId v, OpKind op) {
  const NodeId p = g.value(v).producer;
  if (p < 0 || g.node(p).op != op || !detail::hasSingleUse(g, v))
    return std::nullopt;
  return p;
}

/// The value of a scalar f32 constant operand \p v.
std::optional<double> scalar(const Graph& g, ValueId v) {
  if (!g.isConstant(v) || g.value(v).dtype != DType::F32 || g.value(v).constant->numElements() != 1)
    return std::nullopt;
  return static_cast<double>(g.value(v).constant->data<float>()[0]);
}

bool close(double a, double b) {
  return std::fabs(a - b) <= 1e-6 * std::max(1.0, std::fabs(b));
}

/// Clip(Add(x, a), 0, b) written by node \p clip: x, a and b.
struct ShiftedClip {
  ValueId x = ir::kNoValue;
  double shift = 0, upper = 0;
  NodeId add = -1;
};
std::optional<ShiftedClip> shiftedClip(const Graph& g, NodeId clip) {
  const ir::ActivationParams p = ir::activationParams(g, clip);
  if (p.alpha != 0.0f || !std::isfinite(p.beta) || p.beta <= 0.0f)
    return std::nullopt;
  const std::optional<NodeId> add = internalProducer(g, g.node(clip).inputs[0], OpKind::Add);
  if (!add || g.node(*add).inputs.size() != 2)
    return std::nullopt;
  const std::optional<double> a = scalar(g, g.node(*add).inputs[1]);
  if (!a || g.isConstant(g.node(*add).inputs[0]))
    return std::nullopt;
  return ShiftedClip{g.node(*add).inputs[0], *a, static_cast<double>(p.beta), *add};
}

/// The divisor a Div by a constant or a Mul by its reciprocal applies (node \p id, reading the
/// pattern's value as input 0).
std::optional<double> divisor(const Graph& g, NodeId id) {
  const ir::Node& n = g.node(id);
  if ((n.op != OpKind::Div && n.op != OpKind::Mul) || n.inputs.size() != 2)
    return std::nullopt;
  const std::optional<double> c = scalar(g, n.inputs[1]);
  if (!c || *c == 0.0)
    return std::nullopt;
  return n.op == OpKind::Div ? *c : 1.0 / *c;
}

/// A new single-input node \p op named after \p like writing \p out.
NodeId addUnary(Graph& g, OpKind op, const ir::Node& like, ValueId x, ValueId out,
                ir::AttrMap attrs) {
  ir::Node n;
  n.op = op;
  n.name = g.uniqueName(like.name + "/" + std::string(ir::opName(op)));
  n.opset = std::max<int64_t>(like.opset, op == OpKind::HardSwish ? 14 : 6);
  n.inputs = {x};
  n.outputs = {out};
  n.attrs = std::move(attrs);
  return g.addNode(std::move(n));
}

ir::AttrMap hardSigmoidAttrs(double alpha, double beta) {
  ir::AttrMap a;
  a.set("alpha", static_cast<float>(alpha));
  a.set("beta", static_cast<float>(beta));
  return a;
}

/// Detaches \p ids for removal: their values keep no producer unless a new node writes them.
void detach(Graph& g, std::vector<NodeId>& dead, std::initializer_list<NodeId> ids) {
  for (NodeId id : ids) {
    for (ValueId v : g.node(id).outputs)
      if (v != ir::kNoValue && g.value(v).producer == id)
        g.value(v).producer = -1;
    g.node(id).inputs.clear();
    g.node(id).outputs.clear();
    dead.push_back(id);
  }
}

/// Rule 1 and 2 at the scaling node \p id; true when rewritten.
bool fuseScaledClip(Graph& g, NodeId id, std::vector<NodeId>& dead) {
  const std::optional<double> d = divisor(g, id);
  if (!d)
    return false;
  const ir::Node n = g.node(id);
  // Rule 1: the scaled value is the Clip itself.
  if (const auto clip = internalProducer(g, n.inputs[0], OpKind::Clip)) {
    const std::optional<ShiftedClip> c = shiftedClip(g, *clip);
    if (!c || !close(c->upper, *d))
      return false;
    addUnary(g, OpKind::HardSigmoid, n, c->x, n.outputs[0],
             hardSigmoidAttrs(1.0 / c->upper, c->shift / c->upper));
    detach(g, dead, {id, *clip, c->add});
    return true;
  }
  // Rule 2: the scaled value is x * Clip(x + a, 0, b).
  const auto mul = internalProducer(g, n.inputs[0], OpKind::Mul);
  if (!mul || g.node(*mul).inputs.size() != 2)
    return false;
  for (size_t k = 0; k < 2; ++k) {
    const ValueId x = g.node(*mul).inputs[1 - k];
    const auto clip = internalProducer(g, g.node(*mul).inputs[k], OpKind::Clip);
    const std::optional<ShiftedClip> c = clip ? shiftedClip(g, *clip) : std::nullopt;
    if (!c || c->x != x || !close(c->upper, *d))
      continue;
    const ValueId gate = g.addValue(g.uniqueName(g.value(n.outputs[0]).name + "/gate"), DType::F32,
                                    g.value(x).shape);
    addUnary(g, OpKind::HardSigmoid, n, x, gate,
             hardSigmoidAttrs(1.0 / c->upper, c->shift / c->upper));
    ir::Node product = g.node(*mul);
    detach(g, dead, {id, *mul, *clip, c->add});
    product.name = g.uniqueName(n.name + "/Mul");
    product.inputs = {x, gate};
    product.outputs = {n.outputs[0]};
    g.addNode(std::move(product));
    return true;
  }
  return false;
}

/// Rule 3 at Mul node \p id: x * HardSigmoid(x) with HardSwish's constants.
bool fuseHardSwish(Graph& g, NodeId id, std::vector<NodeId>& dead) {
  const ir::Node n = g.node(id);
  if (n.op != OpKind::Mul || n.inputs.size() != 2)
    return false;
  for (size_t k = 0; k < 2; ++k) {
    const auto hs = internalProducer(g, n.inputs[k], OpKind::HardSigmoid);
    if (!hs || g.node(*hs).inputs[0] != n.inputs[1 - k])
      continue;
    const ir::ActivationParams p = ir::activationParams(g, *hs);
    if (!close(p.alpha, 1.0 / 6.0) || !close(p.beta, 0.5))
      continue;
    addUnary(g, OpKind::HardSwish, n, n.inputs[1 - k], n.outputs[0], {});
    detach(g, dead, {id, *hs});
    return true;
  }
  return false;
}

} // namespace

std::size_t fuseHardActivations(Graph& g) {
  std::size_t created = 0;
  for (bool changed = true; changed;) {
    changed = false;
    std::vector<NodeId> dead;
    const auto count = static_cast<NodeId>(g.numNodes());
    for (NodeId id = 0; id < count; ++id) {
      if (g.node(id).outputs.empty())
        continue; // detached in this sweep
      if (fuseScaledClip(g, id, dead) || fuseHardSwish(g, id, dead)) {
        ++created;
        changed = true;
      }
    }
    if (changed) {
      g.removeNodes(dead);
      g.topoSort();
    }
  }
  return created;
}

} // namespace nnaccel::passes
