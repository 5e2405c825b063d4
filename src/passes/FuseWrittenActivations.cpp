// Written-out HardSigmoid and HardSwish fused back into single nodes (see
// FuseWrittenActivations.h).
#include "nnaccel/passes/FuseWrittenActivations.h"

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
  // The opset that defines the op (Gelu 20, Swish 24 and Mish 18 postdate the importer's 17).
  n.opset = std::max<int64_t>(like.opset, op == OpKind::HardSwish ? 14
                                          : op == OpKind::Gelu    ? 20
                                          : op == OpKind::Swish   ? 24
                                          : op == OpKind::Mish    ? 18
                                                                  : 6);
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

/// The x of erf(x / sqrt(2)) (Div by sqrt(2) or Mul by 1/sqrt(2)) for the Erf node \p erf, with
/// the scaling node; nullopt when the argument is something else.
std::optional<std::pair<ValueId, NodeId>> erfArgument(const Graph& g, NodeId erf) {
  const ValueId arg = g.node(erf).inputs[0];
  const NodeId p = g.value(arg).producer;
  if (p < 0 || !detail::hasSingleUse(g, arg))
    return std::nullopt;
  const std::optional<double> d = divisor(g, p);
  if (!d || std::fabs(*d - std::sqrt(2.0)) > 1e-4)
    return std::nullopt;
  return std::pair{g.node(p).inputs[0], p};
}

/// The x of tanh(sqrt(2/pi) (x + 0.044715 x^3)) for the Tanh node \p tanh (x^3 as Pow(x, 3)),
/// with the nodes of the argument; nullopt otherwise.
std::optional<std::pair<ValueId, std::vector<NodeId>>> tanhArgument(const Graph& g, NodeId tanh) {
  const auto scaled = internalProducer(g, g.node(tanh).inputs[0], OpKind::Mul);
  if (!scaled)
    return std::nullopt;
  const std::optional<double> k = scalar(g, g.node(*scaled).inputs[1]);
  const auto sum = internalProducer(g, g.node(*scaled).inputs[0], OpKind::Add);
  if (!k || std::fabs(*k - std::sqrt(2.0 / M_PI)) > 1e-4 || !sum)
    return std::nullopt;
  for (size_t j = 0; j < 2; ++j) {
    const ValueId x = g.node(*sum).inputs[j];
    const auto cubic = internalProducer(g, g.node(*sum).inputs[1 - j], OpKind::Mul);
    if (!cubic)
      continue;
    const std::optional<double> c = scalar(g, g.node(*cubic).inputs[1]);
    const auto pow = internalProducer(g, g.node(*cubic).inputs[0], OpKind::Pow);
    if (!c || std::fabs(*c - 0.044715) > 1e-6 || !pow || g.node(*pow).inputs[0] != x)
      continue;
    const std::optional<double> e = scalar(g, g.node(*pow).inputs[1]);
    if (e && *e == 3.0)
      return std::pair{x, std::vector<NodeId>{*scaled, *sum, *cubic, *pow}};
  }
  return std::nullopt;
}

/// Rule 4 at Mul node \p id: GELU written out as the product of x, 0.5 and 1 + erf(x / sqrt(2))
/// (or 1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)), the tanh approximation), in any association of
/// the two Muls, becomes one Gelu node.
bool fuseGelu(Graph& g, NodeId id, std::vector<NodeId>& dead) {
  const ir::Node n = g.node(id);
  if (n.op != OpKind::Mul || n.inputs.size() != 2)
    return false;
  std::vector<ValueId> factors;
  std::vector<NodeId> nodes{id};
  for (ValueId in : n.inputs) {
    const auto inner = internalProducer(g, in, OpKind::Mul);
    if (inner && g.node(*inner).inputs.size() == 2) {
      factors.insert(factors.end(), g.node(*inner).inputs.begin(), g.node(*inner).inputs.end());
      nodes.push_back(*inner);
    } else {
      factors.push_back(in);
    }
  }
  if (factors.size() != 3)
    return false;
  for (size_t half = 0; half < 3; ++half) {
    const std::optional<double> h = scalar(g, factors[half]);
    if (!h || *h != 0.5)
      continue;
    for (size_t gate = 0; gate < 3; ++gate) {
      const auto add =
          gate == half ? std::nullopt : internalProducer(g, factors[gate], OpKind::Add);
      if (!add)
        continue;
      const std::optional<double> one = scalar(g, g.node(*add).inputs[1]);
      const ValueId f = g.node(*add).inputs[0];
      const auto erf = internalProducer(g, f, OpKind::Erf);
      const auto tanh = internalProducer(g, f, OpKind::Tanh);
      if (!one || *one != 1.0 || (!erf && !tanh))
        continue;
      const ValueId x = factors[3 - half - gate];
      std::vector<NodeId> argument;
      if (erf) {
        const auto a = erfArgument(g, *erf);
        if (!a || a->first != x)
          continue;
        argument = {*erf, a->second};
      } else {
        const auto a = tanhArgument(g, *tanh);
        if (!a || a->first != x)
          continue;
        argument = a->second;
        argument.push_back(*tanh);
      }
      ir::AttrMap attrs;
      if (tanh)
        attrs.set("approximate", std::string("tanh"));
      addUnary(g, OpKind::Gelu, n, x, n.outputs[0], std::move(attrs));
      nodes.push_back(*add);
      nodes.insert(nodes.end(), argument.begin(), argument.end());
      for (NodeId d : nodes)
        detach(g, dead, {d});
      return true;
    }
  }
  return false;
}

/// The x of softplus(x) written by \p v's producer: a Softplus node, or Log(Add(Exp(x), 1)), with
/// the nodes involved; nullopt otherwise.
std::optional<std::pair<ValueId, std::vector<NodeId>>> softplusOf(const Graph& g, ValueId v) {
  if (const auto sp = internalProducer(g, v, OpKind::Softplus))
    return std::pair{g.node(*sp).inputs[0], std::vector<NodeId>{*sp}};
  const auto log = internalProducer(g, v, OpKind::Log);
  const auto add = log ? internalProducer(g, g.node(*log).inputs[0], OpKind::Add) : std::nullopt;
  if (!add)
    return std::nullopt;
  const std::optional<double> one = scalar(g, g.node(*add).inputs[1]);
  const auto exp = internalProducer(g, g.node(*add).inputs[0], OpKind::Exp);
  if (!one || *one != 1.0 || !exp)
    return std::nullopt;
  return std::pair{g.node(*exp).inputs[0], std::vector<NodeId>{*log, *add, *exp}};
}

/// Rule 5 at Mul node \p id: x * Sigmoid(x) (SiLU) or x * Sigmoid(alpha x) becomes Swish(x);
/// x * Tanh(softplus(x)) becomes Mish(x).
bool fuseSwishOrMish(Graph& g, NodeId id, std::vector<NodeId>& dead) {
  const ir::Node n = g.node(id);
  if (n.op != OpKind::Mul || n.inputs.size() != 2)
    return false;
  for (size_t k = 0; k < 2; ++k) {
    const ValueId x = n.inputs[1 - k];
    if (const auto sig = internalProducer(g, n.inputs[k], OpKind::Sigmoid)) {
      const ValueId arg = g.node(*sig).inputs[0];
      double alpha = 1.0;
      std::vector<NodeId> nodes{id, *sig};
      if (arg != x) {
        const auto scaled = internalProducer(g, arg, OpKind::Mul);
        const std::optional<double> a =
            scaled ? scalar(g, g.node(*scaled).inputs[1]) : std::nullopt;
        if (!a || g.node(*scaled).inputs[0] != x)
          continue;
        alpha = *a;
        nodes.push_back(*scaled);
      }
      ir::AttrMap attrs;
      if (alpha != 1.0)
        attrs.set("alpha", static_cast<float>(alpha));
      addUnary(g, OpKind::Swish, n, x, n.outputs[0], std::move(attrs));
      for (NodeId d : nodes)
        detach(g, dead, {d});
      return true;
    }
    if (const auto tanh = internalProducer(g, n.inputs[k], OpKind::Tanh)) {
      const auto sp = softplusOf(g, g.node(*tanh).inputs[0]);
      if (!sp || sp->first != x)
        continue;
      addUnary(g, OpKind::Mish, n, x, n.outputs[0], {});
      detach(g, dead, {id, *tanh});
      for (NodeId d : sp->second)
        detach(g, dead, {d});
      return true;
    }
  }
  return false;
}

} // namespace

std::size_t fuseWrittenActivations(Graph& g) {
  std::size_t created = 0;
  for (bool changed = true; changed;) {
    changed = false;
    std::vector<NodeId> dead;
    const auto count = static_cast<NodeId>(g.numNodes());
    for (NodeId id = 0; id < count; ++id) {
      if (g.node(id).outputs.empty())
        continue; // detached in this sweep
      if (fuseScaledClip(g, id, dead) || fuseHardSwish(g, id, dead) || fuseGelu(g, id, dead) ||
          fuseSwishOrMish(g, id, dead)) {
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
