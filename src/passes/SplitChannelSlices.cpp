// One convolution per channel slice of its output (see SplitChannelSlices.h).
#include "nnaccel/passes/SplitChannelSlices.h"

#include "GraphQueries.h"
#include "nnaccel/ir/OpParams.h"

#include <optional>

namespace nnaccel::passes {

namespace {

using ir::Graph;
using ir::NodeId;
using ir::OpKind;
using ir::ValueId;

/// One slice the readers keep: output channels [begin, end) of the convolution, delivered as
/// value \p out (a Slice's output, or one output of a Split).
struct Piece {
  ValueId out = ir::kNoValue;
  int64_t begin = 0;
  int64_t end = 0;
};

/// A matched convolution: the channel-local chain after it, the slicing nodes and the pieces.
struct Plan {
  NodeId conv = -1;
  std::vector<NodeId> chain;
  std::vector<NodeId> slicers;
  std::vector<Piece> pieces;
};

/// An f32 constant that is not a QDQ model's dequantized integer tensor.
bool isPlainF32Constant(const Graph& g, ValueId v) {
  return g.isConstant(v) && g.value(v).dtype == DType::F32 && !g.value(v).dequantizedFrom;
}

bool isCandidateConv(const Graph& g, NodeId id) {
  const ir::Node& n = g.node(id);
  if (n.op != OpKind::Conv || n.outputs.size() != 1 || n.inputs.size() < 2)
    return false;
  const ValueId bias = n.inputs.size() > 2 ? n.inputs[2] : ir::kNoValue;
  const ir::Value& y = g.value(n.outputs[0]);
  return ir::convParams(g, id).group == 1 && isPlainF32Constant(g, n.inputs[1]) &&
         (bias == ir::kNoValue || isPlainF32Constant(g, bias)) && y.shapeKnown &&
         y.shape.size() >= 3;
}

/// True when every operand of \p id after the first is absent or a one-element constant.
bool otherOperandsAreScalarConstants(const Graph& g, NodeId id) {
  const ir::Node& n = g.node(id);
  for (size_t i = 1; i < n.inputs.size(); ++i) {
    const ValueId v = n.inputs[i];
    if (v != ir::kNoValue && (!g.isConstant(v) || g.value(v).constant->numElements() != 1))
      return false;
  }
  return true;
}

/// True when \p id maps each channel to itself: a unary activation, or a Resize/Upsample that
/// keeps N and C and is not tf_crop_and_resize.
bool isChannelLocal(const Graph& g, NodeId id) {
  const ir::Node& n = g.node(id);
  if (n.outputs.size() != 1 || n.inputs.empty())
    return false;
  if (ir::isUnaryActivation(n.op))
    return otherOperandsAreScalarConstants(g, id);
  if (n.op != OpKind::Resize && n.op != OpKind::Upsample)
    return false;
  for (size_t i = 1; i < n.inputs.size(); ++i)
    if (n.inputs[i] != ir::kNoValue && !g.isConstant(n.inputs[i]))
      return false;
  const ir::ResizeParams p = ir::resizeParams(g, id);
  return p.coordinateTransform != "tf_crop_and_resize" && p.scales.size() >= 2 &&
         p.scales[0] == 1.0f && p.scales[1] == 1.0f;
}

/// The channel range a Slice of \p v keeps, when it cuts axis 1 alone with step 1.
std::optional<Piece> slicePiece(const Graph& g, NodeId id, ValueId v) {
  const ir::Node& n = g.node(id);
  for (size_t i = 1; i < n.inputs.size(); ++i)
    if (n.inputs[i] != ir::kNoValue && !g.isConstant(n.inputs[i]))
      return std::nullopt;
  const ir::SliceParams p = ir::sliceParams(g, id);
  const Dims& dims = g.value(v).shape;
  for (size_t a = 0; a < dims.size(); ++a) {
    const bool whole = p.starts[a] == 0 && p.ends[a] == dims[a];
    if (p.steps[a] != 1 || (a != 1 && !whole))
      return std::nullopt;
  }
  if (p.ends[1] <= p.starts[1])
    return std::nullopt;
  return Piece{n.outputs[0], p.starts[1], p.ends[1]};
}

/// The used outputs of a Split of \p v along axis 1, as pieces; nullopt for another axis.
std::optional<std::vector<Piece>> splitPieces(const Graph& g, NodeId id, ValueId v) {
  const ir::SplitParams p = ir::splitParams(g, id);
  const int64_t rank = static_cast<int64_t>(g.value(v).shape.size());
  if ((p.axis < 0 ? p.axis + rank : p.axis) != 1)
    return std::nullopt;
  std::vector<Piece> pieces;
  int64_t begin = 0;
  const ir::Node& n = g.node(id);
  for (size_t k = 0; k < n.outputs.size(); ++k) {
    const ValueId out = n.outputs[k];
    if (out != ir::kNoValue && (g.isOutput(out) || !g.users(out).empty()))
      pieces.push_back({out, begin, begin + p.sizes[k]});
    begin += p.sizes[k];
  }
  return pieces;
}

/// The pieces of \p v when its only readers are channel Slices and Splits (each reading it
/// once, as its data input).
std::optional<std::vector<Piece>> channelPieces(const Graph& g, ValueId v,
                                                std::vector<NodeId>& slicers) {
  const std::vector<NodeId> users = g.users(v);
  if (users.empty() || g.isOutput(v))
    return std::nullopt;
  std::vector<Piece> pieces;
  for (NodeId u : users) {
    const ir::Node& n = g.node(u);
    if (std::count(n.inputs.begin(), n.inputs.end(), v) != 1 || n.inputs[0] != v)
      return std::nullopt;
    if (n.op == OpKind::Slice) {
      const std::optional<Piece> piece = slicePiece(g, u, v);
      if (!piece)
        return std::nullopt;
      pieces.push_back(*piece);
    } else if (n.op == OpKind::Split) {
      const std::optional<std::vector<Piece>> parts = splitPieces(g, u, v);
      if (!parts)
        return std::nullopt;
      pieces.insert(pieces.end(), parts->begin(), parts->end());
    } else {
      return std::nullopt;
    }
    slicers.push_back(u);
  }
  return pieces;
}

/// True when splitting changes something: more than one piece, or channels no piece reads.
bool worthSplitting(const std::vector<Piece>& pieces, int64_t channels) {
  if (pieces.size() != 1)
    return !pieces.empty();
  return pieces[0].begin != 0 || pieces[0].end != channels;
}

std::optional<Plan> match(const Graph& g, NodeId conv) {
  if (!isCandidateConv(g, conv))
    return std::nullopt;
  Plan plan;
  plan.conv = conv;
  ValueId v = g.node(conv).outputs[0];
  while (detail::hasSingleUse(g, v) && isChannelLocal(g, g.users(v)[0])) {
    plan.chain.push_back(g.users(v)[0]);
    v = g.node(plan.chain.back()).outputs[0];
  }
  std::optional<std::vector<Piece>> pieces = channelPieces(g, v, plan.slicers);
  const int64_t channels = g.value(g.node(conv).outputs[0]).shape[1];
  if (!pieces || !worthSplitting(*pieces, channels))
    return std::nullopt;
  plan.pieces = std::move(*pieces);
  return plan;
}

/// Rows [begin, end) of a constant's leading axis, as a new constant named after \p base.
ValueId leadingRows(Graph& g, ValueId v, int64_t begin, int64_t end, const std::string& base) {
  const Tensor& t = *g.value(v).constant;
  Dims shape = t.shape();
  const int64_t rowElements = t.numElements() / shape[0];
  shape[0] = end - begin;
  Tensor rows(DType::F32, shape);
  std::copy_n(t.data<float>() + begin * rowElements, (end - begin) * rowElements,
              rows.data<float>());
  return g.addConstant(g.uniqueName(base), std::move(rows));
}

/// A copy of node \p source reading \p input and writing \p output (a new value when
/// kNoValue); a Resize's `sizes` operand gets \p channels on axis 1. Returns the output.
ValueId copyNode(Graph& g, NodeId source, ValueId input, ValueId output, int64_t channels,
                 const std::string& suffix) {
  ir::Node n = g.node(source); // a copy: adding values and nodes reallocates
  n.name = g.uniqueName(n.name + suffix);
  n.inputs[0] = input;
  n.fusedActivation.reset();
  if (n.op == OpKind::Resize && n.inputs.size() > 3 && n.inputs[3] != ir::kNoValue) {
    Tensor sizes = *g.value(n.inputs[3]).constant;
    sizes.data<int64_t>()[1] = channels;
    n.inputs[3] = g.addConstant(g.uniqueName(n.name + "/sizes"), std::move(sizes));
  }
  if (output == ir::kNoValue)
    output = g.addValue(g.uniqueName(g.value(n.outputs[0]).name + suffix), DType::F32);
  n.outputs = {output};
  g.addNode(std::move(n));
  return output;
}

/// The convolution and its chain for one piece, writing the piece's own value.
void emitPiece(Graph& g, const Plan& plan, const Piece& piece) {
  const std::string suffix =
      "/channels_" + std::to_string(piece.begin) + "_" + std::to_string(piece.end);
  ir::Node conv = g.node(plan.conv); // a copy: adding values and nodes reallocates
  const std::string convOut = g.value(conv.outputs[0]).name;
  conv.name = g.uniqueName(conv.name + suffix);
  conv.fusedActivation.reset();
  conv.inputs[1] = leadingRows(g, conv.inputs[1], piece.begin, piece.end, conv.name + "/w");
  if (conv.inputs.size() > 2 && conv.inputs[2] != ir::kNoValue)
    conv.inputs[2] = leadingRows(g, conv.inputs[2], piece.begin, piece.end, conv.name + "/b");
  ValueId v =
      plan.chain.empty() ? piece.out : g.addValue(g.uniqueName(convOut + suffix), DType::F32);
  conv.outputs = {v};
  g.addNode(std::move(conv));
  for (size_t k = 0; k < plan.chain.size(); ++k) {
    const bool last = k + 1 == plan.chain.size();
    v = copyNode(g, plan.chain[k], v, last ? piece.out : ir::kNoValue, piece.end - piece.begin,
                 suffix);
  }
}

} // namespace

std::size_t splitConvAtChannelSlices(Graph& g) {
  std::size_t split = 0;
  const auto count = static_cast<NodeId>(g.numNodes());
  for (NodeId id = 0; id < count; ++id) {
    const std::optional<Plan> plan = match(g, id);
    if (!plan)
      continue;
    for (NodeId s : plan->slicers)
      g.node(s).outputs.clear();
    for (const Piece& piece : plan->pieces)
      emitPiece(g, *plan, piece);
    ++split;
  }
  if (split > 0) {
    g.removeDeadNodes();
    g.topoSort();
  }
  return split;
}

} // namespace nnaccel::passes
