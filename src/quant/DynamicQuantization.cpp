// ONNX Runtime's dynamically quantized layers as static int8 layers with the model's own
// weights (see DynamicQuantization.h).
#include "DynamicQuantization.h"

#include "nnaccel/ir/OpParams.h"
#include "nnaccel/ir/ShapeInference.h"

#include <algorithm>
#include <optional>

namespace nnaccel::quant::detail {

namespace {

using ir::Graph;
using ir::NodeId;
using ir::OpKind;
using ir::ValueId;

/// One matched layer: DynamicQuantizeLinear (x -> q, s, z) -> ConvInteger/MatMulInteger (q, W, z,
/// W_zero) -> Cast to f32 -> Mul by (s * W_scale).
struct DynamicLayer {
  NodeId integer = -1; ///< the ConvInteger / MatMulInteger
  NodeId cast = -1;
  NodeId rescale = -1; ///< the Mul by s * W_scale
  ValueId x = ir::kNoValue;
  ValueId weightScale = ir::kNoValue; ///< the constant W_scale
};

/// The single node reading \p v (once), if \p v is not a graph output and has exactly one.
std::optional<NodeId> soleReader(const Graph& g, ValueId v) {
  const std::vector<NodeId> users = g.users(v);
  if (users.size() != 1 || g.isOutput(v))
    return std::nullopt;
  const auto& ins = g.node(users[0]).inputs;
  if (std::count(ins.begin(), ins.end(), v) != 1)
    return std::nullopt;
  return users[0];
}

/// The constant operand of Mul node \p id whose other operand is \p s, if it has one.
ValueId constantBeside(const Graph& g, NodeId id, ValueId s) {
  const ir::Node& n = g.node(id);
  if (n.op != OpKind::Mul || n.inputs.size() != 2)
    return ir::kNoValue;
  const ValueId other = n.inputs[0] == s ? n.inputs[1] : n.inputs[1] == s ? n.inputs[0] : -2;
  return other >= 0 && g.isConstant(other) && g.value(other).dtype == DType::F32 ? other
                                                                                 : ir::kNoValue;
}

/// Matches the layer that reads quantized input \p q of DynamicQuantizeLinear \p dq.
std::optional<DynamicLayer> matchLayer(const Graph& g, NodeId dq, NodeId integer) {
  const ir::Node& d = g.node(dq);
  const ir::Node& n = g.node(integer);
  const ValueId s = d.outputs[1], z = d.outputs[2];
  const bool integerOp = n.op == OpKind::ConvInteger || n.op == OpKind::MatMulInteger;
  if (!integerOp || n.inputs[0] != d.outputs[0] || n.inputs.size() < 3 || n.inputs[2] != z ||
      !g.isConstant(n.inputs[1]) ||
      (n.inputs.size() > 3 && n.inputs[3] != ir::kNoValue && !g.isConstant(n.inputs[3])))
    return std::nullopt;
  const std::optional<NodeId> cast = soleReader(g, n.outputs[0]);
  if (!cast || g.node(*cast).op != OpKind::Cast || ir::castTarget(g, *cast) != DType::F32)
    return std::nullopt;
  const std::optional<NodeId> mul = soleReader(g, g.node(*cast).outputs[0]);
  if (!mul || g.node(*mul).op != OpKind::Mul)
    return std::nullopt;
  const ir::Node& m = g.node(*mul);
  const ValueId scaleValue = m.inputs[0] == g.node(*cast).outputs[0] ? m.inputs[1] : m.inputs[0];
  const NodeId scaleNode = g.value(scaleValue).producer;
  if (scaleNode < 0)
    return std::nullopt;
  const ValueId weightScale = constantBeside(g, scaleNode, s);
  if (weightScale == ir::kNoValue)
    return std::nullopt;
  return DynamicLayer{integer, *cast, *mul, d.inputs[0], weightScale};
}

/// The f32 weights (W - W_zero) * W_scale, marked as the model's own codes and scales (the
/// form a QDQ model's DequantizeLinear of its weights folds to), or kNoValue when W_scale is
/// neither one value nor one per output channel, or when a weight zero point is not 0 (the int8
/// layers hold symmetric weights only; ONNX Runtime writes int8 weights symmetric).
ValueId dequantizedWeights(Graph& g, const DynamicLayer& l) {
  const ir::Node& n = g.node(l.integer);
  const Tensor& w = *g.value(n.inputs[1]).constant;
  const Tensor& scale = *g.value(l.weightScale).constant;
  const Tensor* zero = n.inputs.size() > 3 && n.inputs[3] != ir::kNoValue
                           ? g.value(n.inputs[3]).constant.get()
                           : nullptr;
  const bool conv = n.op == OpKind::ConvInteger;
  const int64_t axis = conv ? 0 : static_cast<int64_t>(w.shape().size()) - 1;
  const int64_t channels = w.shape()[static_cast<size_t>(axis)];
  const int64_t perScale = scale.numElements();
  if ((perScale != 1 && perScale != channels) ||
      (zero && zero->numElements() != 1 && zero->numElements() != channels))
    return ir::kNoValue;
  int64_t inner = 1;
  for (size_t a = static_cast<size_t>(axis) + 1; a < w.shape().size(); ++a)
    inner *= w.shape()[a];
  ir::QdqParams p;
  p.axis = perScale > 1 || (zero && zero->numElements() > 1) ? axis : -1;
  p.quantized = w.dtype();
  const int64_t entries = p.axis < 0 ? 1 : channels;
  for (int64_t c = 0; c < entries; ++c) {
    p.scales.push_back(scale.values<float>()[static_cast<size_t>(perScale > 1 ? c : 0)]);
    p.zeros.push_back(
        zero ? static_cast<int32_t>(zero->elementAsInt64(zero->numElements() > 1 ? c : 0)) : 0);
  }
  if (std::any_of(p.zeros.begin(), p.zeros.end(), [](int32_t z) { return z != 0; }))
    return ir::kNoValue;
  Tensor f(DType::F32, w.shape());
  for (int64_t i = 0; i < w.numElements(); ++i) {
    const auto c = static_cast<size_t>(p.axis < 0 ? 0 : (i / inner) % channels);
    f.data<float>()[i] = static_cast<float>(w.elementAsInt64(i) - p.zeros[c]) * p.scales[c];
  }
  const ValueId v =
      g.addConstant(g.uniqueName(g.value(n.inputs[1]).name + "/dequantized"), std::move(f));
  g.value(v).dequantizedFrom = std::move(p);
  return v;
}

/// Conv / MatMul of the float input and the dequantized weights, writing the rescaling Mul's
/// output; the integer layer, its Cast and the Mul are left without outputs for removal.
bool rewrite(Graph& g, const DynamicLayer& l) {
  const ValueId w = dequantizedWeights(g, l);
  if (w == ir::kNoValue)
    return false;
  const ir::Node n = g.node(l.integer); // a copy: adding nodes reallocates
  const ValueId out = g.node(l.rescale).outputs[0];
  for (NodeId dead : {l.integer, l.cast, l.rescale})
    g.node(dead).outputs.clear();
  ir::Node layer;
  layer.op = n.op == OpKind::ConvInteger ? OpKind::Conv : OpKind::MatMul;
  layer.name = g.uniqueName(n.name + "/static");
  layer.opset = n.opset;
  layer.inputs = {l.x, w};
  layer.outputs = {out};
  layer.attrs = n.attrs;
  g.value(out).producer = -1;
  g.addNode(std::move(layer));
  return true;
}

} // namespace

int staticizeDynamicQuantization(Graph& g) {
  int rewritten = 0;
  const auto count = static_cast<NodeId>(g.numNodes());
  for (NodeId id = 0; id < count; ++id) {
    const ir::Node& d = g.node(id);
    if (d.op != OpKind::DynamicQuantizeLinear || d.outputs.size() != 3)
      continue;
    std::vector<DynamicLayer> layers;
    for (NodeId reader : g.users(d.outputs[0]))
      if (const std::optional<DynamicLayer> l = matchLayer(g, id, reader))
        layers.push_back(*l);
    for (const DynamicLayer& l : layers)
      rewritten += rewrite(g, l) ? 1 : 0;
  }
  if (rewritten > 0) {
    g.removeDeadNodes();
    g.topoSort();
    ir::inferShapes(g);
  }
  return rewritten;
}

} // namespace nnaccel::quant::detail
