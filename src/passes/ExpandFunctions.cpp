// Normalizations and composite reductions written out as reductions and element-wise ops (see
// ExpandFunctions.h).
#include "nnaccel/passes/ExpandFunctions.h"

#include "nnaccel/ir/OpParams.h"
#include "nnaccel/ir/ShapeInference.h"

#include <functional>

namespace nnaccel::passes {

namespace {

using ir::Graph;
using ir::NodeId;
using ir::OpKind;
using ir::ValueId;

/// The last opset whose ReduceSum takes `axes` as an attribute (13 made it an input).
constexpr int64_t kReduceSumAttrOpset = 12;

/// Appends the nodes of one expansion, each named after the node it replaces.
class Emitter {
public:
  Emitter(Graph& g, const ir::Node& like) : g_(g), like_(like) {}

  /// A node \p op of \p inputs and \p attrs; writes \p out when given (an output of the
  /// expanded node), else a new value. Returns its output.
  ValueId op(OpKind op, std::vector<ValueId> inputs, ir::AttrMap attrs = {},
             ValueId out = ir::kNoValue) {
    ir::Node n;
    n.op = op;
    n.name = g_.uniqueName(like_.name + "/" + std::string(ir::opName(op)));
    n.opset = std::max<int64_t>(like_.opset, 7);
    if (op == OpKind::ReduceSum)
      n.opset = std::min(n.opset, kReduceSumAttrOpset);
    n.inputs = std::move(inputs);
    if (out == ir::kNoValue)
      out = g_.addValue(g_.uniqueName(n.name), DType::F32);
    n.outputs = {out};
    n.attrs = std::move(attrs);
    g_.addNode(std::move(n));
    return out;
  }
  ValueId scalar(float v) {
    return g_.addConstant(g_.uniqueName(like_.name + "/const"), Tensor::fromVector<float>({}, {v}));
  }
  ValueId shape(const Dims& d) {
    return g_.addConstant(g_.uniqueName(like_.name + "/shape"),
                          Tensor::fromVector<int64_t>({static_cast<int64_t>(d.size())}, d));
  }
  /// ReduceMean or ReduceSum (\p op) of \p x over \p axes, keeping them as 1 when \p keepDims.
  ValueId reduce(OpKind op, ValueId x, const std::vector<int64_t>& axes, bool keepDims,
                 ValueId out = ir::kNoValue) {
    ir::AttrMap a;
    a.set("axes", axes);
    a.set("keepdims", int64_t{keepDims ? 1 : 0});
    return this->op(op, {x}, std::move(a), out);
  }

private:
  Graph& g_;
  const ir::Node& like_;
};

ValueId outputOf(const ir::Node& n, size_t k) {
  return k < n.outputs.size() ? n.outputs[k] : ir::kNoValue;
}

void expandReduction(Graph& g, const ir::Node& n, const ir::ReduceParams& p) {
  Emitter e(g, n);
  const ValueId y = n.outputs[0];
  ValueId x = n.inputs[0];
  switch (n.op) {
  case OpKind::ReduceL1:
    x = e.op(OpKind::Abs, {x});
    break;
  case OpKind::ReduceL2:
  case OpKind::ReduceSumSquare:
    x = e.op(OpKind::Pow, {x, e.scalar(2.0f)});
    break;
  case OpKind::ReduceLogSumExp:
    x = e.op(OpKind::Exp, {x});
    break;
  default:
    break;
  }
  const bool finished = n.op == OpKind::ReduceL1 || n.op == OpKind::ReduceSumSquare;
  const ValueId sum =
      e.reduce(OpKind::ReduceSum, x, p.axes, p.keepDims, finished ? y : ir::kNoValue);
  if (n.op == OpKind::ReduceL2)
    e.op(OpKind::Sqrt, {sum}, {}, y);
  else if (!finished)
    e.op(OpKind::Log, {sum}, {}, y);
}

void expandLrn(Graph& g, const ir::Node& n, const ir::LrnParams& p) {
  const Dims shape = g.value(n.inputs[0]).shape;
  int64_t spatial = 1;
  for (size_t a = 2; a < shape.size(); ++a)
    spatial *= shape[a];
  Emitter e(g, n);
  const ValueId x = n.inputs[0];
  const ValueId sq = e.op(OpKind::Pow, {x, e.scalar(2.0f)});
  const ValueId planes = e.op(OpKind::Reshape, {sq, e.shape({shape[0], 1, shape[1], spatial})});
  ir::AttrMap pool;
  const int64_t before = (p.size - 1) / 2;
  pool.set("kernel_shape", std::vector<int64_t>{p.size, 1});
  pool.set("pads", std::vector<int64_t>{before, 0, p.size - 1 - before, 0});
  pool.set("count_include_pad", int64_t{1});
  const ValueId avg = e.op(OpKind::AveragePool, {planes}, std::move(pool));
  const ValueId window = e.op(OpKind::Reshape, {avg, e.shape(shape)});
  const ValueId scaled = e.op(OpKind::Mul, {window, e.scalar(p.alpha)});
  const ValueId base = e.op(OpKind::Add, {scaled, e.scalar(p.bias)});
  const ValueId factor = e.op(OpKind::Pow, {base, e.scalar(-p.beta)});
  e.op(OpKind::Mul, {x, factor}, {}, n.outputs[0]);
}

/// InstanceNormalization's [C] scale or bias as [C, 1, ...] for an input of \p rank.
ValueId perChannelAffine(Graph& g, Emitter& e, ValueId v, size_t rank) {
  Dims d(rank - 1, 1);
  d[0] = g.value(v).shape.at(0);
  return e.op(OpKind::Reshape, {v, e.shape(d)});
}

void expandNormalization(Graph& g, const ir::Node& n, const ir::NormalizationParams& p) {
  const size_t rank = g.value(n.inputs[0]).shape.size();
  Emitter e(g, n);
  const ValueId x = n.inputs[0];
  const ValueId mean = e.reduce(OpKind::ReduceMean, x, p.axes, true, outputOf(n, 1));
  const ValueId d = e.op(OpKind::Sub, {x, mean});
  const ValueId var =
      e.reduce(OpKind::ReduceMean, e.op(OpKind::Pow, {d, e.scalar(2.0f)}), p.axes, true);
  const ValueId stdDev = e.op(OpKind::Sqrt, {e.op(OpKind::Add, {var, e.scalar(p.epsilon)})});
  if (const ValueId inv = outputOf(n, 2); inv != ir::kNoValue)
    e.op(OpKind::Reciprocal, {stdDev}, {}, inv);
  ValueId scale = n.inputs[1];
  ValueId bias = n.inputs.size() > 2 ? n.inputs[2] : ir::kNoValue;
  if (p.perChannelAffine) {
    scale = perChannelAffine(g, e, scale, rank);
    bias = perChannelAffine(g, e, bias, rank);
  }
  const ValueId normalized = e.op(OpKind::Div, {d, stdDev});
  const ValueId y = n.outputs[0];
  if (bias == ir::kNoValue) {
    e.op(OpKind::Mul, {normalized, scale}, {}, y);
    return;
  }
  e.op(OpKind::Add, {e.op(OpKind::Mul, {normalized, scale}), bias}, {}, y);
}

/// QLinearConv / QLinearMatMul as ONNX defines them: DequantizeLinear of the input and of the
/// weights (per output channel: Conv axis 0, MatMul's B per column, axis 1), the float op (an
/// int32 bias dequantized at x_scale * w_scale, the scale ONNX specifies for it), then
/// QuantizeLinear at the output's scale and zero point.
void expandQLinear(Graph& g, const ir::Node& n) {
  Emitter e(g, n);
  const bool conv = n.op == OpKind::QLinearConv;
  const auto dq = [&](size_t first, int64_t axis) {
    ir::AttrMap a;
    if (axis >= 0)
      a.set("axis", axis);
    const ValueId out = e.op(OpKind::DequantizeLinear,
                             {n.inputs[first], n.inputs[first + 1], n.inputs[first + 2]}, a);
    g.node(static_cast<NodeId>(g.numNodes()) - 1).opset = 13; // per-axis scales
    return out;
  };
  const ValueId x = dq(0, -1);
  const ValueId w = dq(3, conv ? 0 : 1);
  std::vector<ValueId> inputs{x, w};
  if (conv && n.inputs.size() > 8 && n.inputs[8] != ir::kNoValue) {
    // bias_scale[c] = x_scale * w_scale[c] in f32
    const Tensor& xs = *g.value(n.inputs[1]).constant;
    const Tensor& ws = *g.value(n.inputs[4]).constant;
    std::vector<float> scales;
    for (int64_t c = 0; c < ws.numElements(); ++c)
      scales.push_back(xs.values<float>()[0] * ws.values<float>()[static_cast<size_t>(c)]);
    const ValueId s = g.addConstant(g.uniqueName(n.name + "/bias_scale"),
                                    Tensor::fromVector<float>({ws.numElements()}, scales));
    ir::AttrMap a;
    a.set("axis", int64_t{0});
    inputs.push_back(e.op(OpKind::DequantizeLinear, {n.inputs[8], s}, a));
    g.node(static_cast<NodeId>(g.numNodes()) - 1).opset = 13;
  }
  ir::AttrMap attrs = n.attrs;
  const ValueId y = e.op(conv ? OpKind::Conv : OpKind::MatMul, inputs, std::move(attrs));
  e.op(OpKind::QuantizeLinear, {y, n.inputs[6], n.inputs[7]}, {}, outputOf(n, 0));
  g.node(static_cast<NodeId>(g.numNodes()) - 1).opset = 13;
}

/// The scales and zero points of a QOperator node must be constants (nnaccel is static).
void requireQLinearConstants(const Graph& g, NodeId id) {
  const ir::Node& n = g.node(id);
  for (size_t k : {1u, 2u, 4u, 5u, 6u, 7u})
    if (k < n.inputs.size() && n.inputs[k] != ir::kNoValue && !g.isConstant(n.inputs[k]))
      g.fail(id,
             "input " + std::to_string(k) + " ('" + g.value(n.inputs[k]).name +
                 "', a scale or zero point) is not a constant",
             ErrorKind::Unsupported);
}

bool expandable(const Graph& g, const ir::Node& n) {
  if (n.inputs.empty() || g.isConstant(n.inputs[0]) || n.outputs.empty() ||
      n.outputs[0] == ir::kNoValue)
    return false;
  switch (n.op) {
  case OpKind::ReduceL1:
  case OpKind::ReduceL2:
  case OpKind::ReduceSumSquare:
  case OpKind::ReduceLogSum:
  case OpKind::ReduceLogSumExp:
  case OpKind::LRN:
  case OpKind::InstanceNormalization:
  case OpKind::LayerNormalization:
  case OpKind::QLinearConv:
  case OpKind::QLinearMatMul:
    return true;
  default:
    return false;
  }
}

} // namespace

std::size_t expandFunctions(Graph& g) {
  std::vector<NodeId> replaced;
  const auto count = static_cast<NodeId>(g.numNodes());
  for (NodeId id = 0; id < count; ++id) {
    if (!expandable(g, g.node(id)))
      continue;
    const ir::Node n = g.node(id); // a copy: adding nodes reallocates
    // Parameters first: the node is detached before its expansion writes its outputs.
    std::function<void()> emit;
    if (n.op == OpKind::QLinearConv || n.op == OpKind::QLinearMatMul) {
      requireQLinearConstants(g, id);
      emit = [&g, &n] { expandQLinear(g, n); };
    } else if (n.op == OpKind::LRN)
      emit = [&g, &n, p = ir::lrnParams(g, id)] { expandLrn(g, n, p); };
    else if (n.op == OpKind::InstanceNormalization || n.op == OpKind::LayerNormalization)
      emit = [&g, &n, p = ir::normalizationParams(g, id)] { expandNormalization(g, n, p); };
    else
      emit = [&g, &n, p = ir::reduceParams(g, id)] { expandReduction(g, n, p); };
    for (ValueId out : n.outputs)
      if (out != ir::kNoValue)
        g.value(out).producer = -1;
    g.node(id).outputs.clear();
    g.node(id).inputs.clear();
    emit();
    replaced.push_back(id);
  }
  if (replaced.empty())
    return 0;
  g.removeNodes(replaced);
  g.topoSort();
  ir::inferShapes(g);
  return replaced.size();
}

} // namespace nnaccel::passes
