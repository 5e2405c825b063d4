// Element-wise chains as one lookup table (quant/ElementFunction.h): a forward walk in node
// order composing each element-wise node's int8 rule onto its operands' tables.
#include "nnaccel/quant/ElementFunction.h"

#include "nnaccel/quant/Kernels.h"

#include <algorithm>

namespace nnaccel::quant {

namespace {

using Table = std::array<int8_t, 256>;
using Functions = std::vector<std::optional<ElementFunction>>;

/// The function of computed value \p v: its own when it has one, else the identity of \p v.
ElementFunction functionOf(const Functions& fs, ir::ValueId v) {
  if (fs[static_cast<size_t>(v)])
    return *fs[static_cast<size_t>(v)];
  ElementFunction f{.source = v};
  for (int32_t q = kInt8Min; q <= kInt8Max; ++q)
    f.table[static_cast<size_t>(q + 128)] = static_cast<int8_t>(q);
  return f;
}

/// \p f followed by the unary rule \p rule (int8 code -> int8 code).
template <typename Rule> ElementFunction then(ElementFunction f, Rule rule) {
  for (int8_t& q : f.table)
    q = static_cast<int8_t>(rule(int32_t{q}));
  return f;
}

bool isComputed(const ir::Graph& g, ir::ValueId v) {
  return v != ir::kNoValue && !g.isConstant(v);
}

/// The int8 code of \p v when it is a one-element graph constant in int8 form.
std::optional<int32_t> scalarCode(const QuantizedModel& qm, ir::ValueId v) {
  if (v == ir::kNoValue || !qm.graph.isConstant(v))
    return std::nullopt;
  const QuantTensor& c = qm.constants.at(static_cast<size_t>(v));
  if (!c.isQuantized() || c.data.numElements() != 1)
    return std::nullopt;
  return int32_t{c.data.data<int8_t>()[0]};
}

/// Operand \p v of a node whose output has shape \p shape, as a table over one source: a
/// computed value of that shape (its function), or a scalar constant (a constant table).
std::optional<ElementFunction> operandFunction(const QuantizedModel& qm, const Functions& fs,
                                               ir::ValueId v, const Dims& shape) {
  if (const std::optional<int32_t> code = scalarCode(qm, v)) {
    ElementFunction f; // source kNoValue: matches any
    f.table.fill(static_cast<int8_t>(*code));
    return f;
  }
  if (!isComputed(qm.graph, v) || qm.graph.value(v).shape != shape)
    return std::nullopt; // broadcasting pairs different elements
  return functionOf(fs, v);
}

/// The common source of \p parts (scalar constants have none); nullopt when two differ or
/// none has one.
std::optional<ir::ValueId> commonSource(std::initializer_list<const ElementFunction*> parts) {
  std::optional<ir::ValueId> source;
  for (const ElementFunction* f : parts) {
    if (f->source == ir::kNoValue)
      continue;
    if (source && *source != f->source)
      return std::nullopt;
    source = f->source;
  }
  return source;
}

/// Compare and Where (Select) of operands that are functions of one source or scalar
/// constants: a threshold such as x > 0.3, or x where x > t else 0, is one table of x.
std::optional<ElementFunction> selectionFunction(const QuantizedModel& qm, const Functions& fs,
                                                 ir::NodeId id) {
  const ir::Node& n = qm.graph.node(id);
  const QuantNode& q = qm.node(id);
  const Dims& shape = qm.graph.value(n.outputs[0]).shape;
  std::vector<ElementFunction> ops;
  for (ir::ValueId v : n.inputs) {
    std::optional<ElementFunction> f = operandFunction(qm, fs, v, shape);
    if (!f)
      return std::nullopt;
    ops.push_back(*f);
  }
  ElementFunction f;
  const ZeroPoints z = qm.zeroPointsOf(id);
  if (q.kind == QuantOpKind::Compare && ops.size() == 2) {
    const std::optional<ir::ValueId> source = commonSource({&ops[0], &ops[1]});
    if (!source)
      return std::nullopt;
    f.source = *source;
    for (size_t i = 0; i < f.table.size(); ++i)
      f.table[i] =
          compareValue(comparisonOf(n.op), q.inputMultipliers.at(0), q.inputMultipliers.at(1),
                       ops[0].table[i], ops[1].table[i], z.in[0], z.in[1]);
    return f;
  }
  if (q.kind != QuantOpKind::Select || ops.size() != 3)
    return std::nullopt;
  const std::optional<ir::ValueId> source = commonSource({&ops[0], &ops[1], &ops[2]});
  if (!source)
    return std::nullopt;
  f.source = *source;
  for (size_t i = 0; i < f.table.size(); ++i)
    f.table[i] = static_cast<int8_t>(
        ops[0].table[i] != 0
            ? requantizeTo(ops[1].table[i] - z.in[1], q.inputMultipliers.at(1), z.out)
            : requantizeTo(ops[2].table[i] - z.in[2], q.inputMultipliers.at(2), z.out));
  return f;
}

/// The element function of node \p id's output, if its rule is one of a single source.
std::optional<ElementFunction> nodeFunction(const QuantizedModel& qm, const Functions& fs,
                                            ir::NodeId id) {
  const ir::Graph& g = qm.graph;
  const ir::Node& n = g.node(id);
  const QuantNode& q = qm.node(id);
  if (n.outputs.size() == 1 && (q.kind == QuantOpKind::Compare || q.kind == QuantOpKind::Select))
    return selectionFunction(qm, fs, id);
  if (n.outputs.size() != 1 || n.inputs.empty() || !isComputed(g, n.inputs[0]))
    return std::nullopt;
  switch (q.kind) {
  case QuantOpKind::Clamp:
    return then(functionOf(fs, n.inputs[0]),
                [&](int32_t v) { return std::clamp(v, q.clampMin, q.clampMax); });
  case QuantOpKind::Lookup:
    if (q.lookupAxis >= 0)
      return std::nullopt;
    return then(functionOf(fs, n.inputs[0]),
                [&](int32_t v) { return q.lookupTables[static_cast<size_t>(v + 128)]; });
  case QuantOpKind::AddSub:
  case QuantOpKind::Mul:
  case QuantOpKind::MinMax: {
    if (n.inputs.size() != 2 || !isComputed(g, n.inputs[1]))
      return std::nullopt;
    const Dims& shape = g.value(n.outputs[0]).shape;
    if (g.value(n.inputs[0]).shape != shape || g.value(n.inputs[1]).shape != shape)
      return std::nullopt; // broadcasting pairs different elements
    const ElementFunction a = functionOf(fs, n.inputs[0]);
    const ElementFunction b = functionOf(fs, n.inputs[1]);
    if (a.source != b.source)
      return std::nullopt;
    ElementFunction f{.source = a.source};
    const bool subtract = n.op == ir::OpKind::Sub;
    const ZeroPoints z = qm.zeroPointsOf(id);
    for (size_t i = 0; i < f.table.size(); ++i) {
      const int32_t da = a.table[i] - z.in[0], db = b.table[i] - z.in[1];
      f.table[i] = n.op == ir::OpKind::Div      ? divValue(q.mulMultiplier, da, db, z.out)
                   : q.kind == QuantOpKind::Mul ? mulValue(q.mulMultiplier, da, db, z.out)
                   : q.kind == QuantOpKind::MinMax
                       ? minMaxValue(n.op == ir::OpKind::Max, q.inputMultipliers.at(0),
                                     q.inputMultipliers.at(1), a.table[i], b.table[i], z)
                       : addSubValue(subtract, q.addSub, a.table[i], b.table[i], z);
    }
    return f;
  }
  default:
    return std::nullopt;
  }
}

} // namespace

std::vector<std::optional<ElementFunction>>
elementFunctions(const QuantizedModel& qm, const std::set<ir::NodeId>& sourceNodes) {
  const ir::Graph& g = qm.graph;
  Functions fs(g.numValues());
  for (ir::NodeId id = 0; id < static_cast<ir::NodeId>(g.numNodes()); ++id) { // topological
    if (qm.node(id).kind == QuantOpKind::Folded || sourceNodes.contains(id))
      continue;
    if (std::optional<ElementFunction> f = nodeFunction(qm, fs, id))
      fs[static_cast<size_t>(g.node(id).outputs[0])] = std::move(f);
  }
  return fs;
}

} // namespace nnaccel::quant
