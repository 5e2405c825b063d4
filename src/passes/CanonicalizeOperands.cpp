// Canonical operand forms (see CanonicalizeOperands.h): constants second in commutative Add and
// Mul, and a dense MatMul as the Gemm it is.
#include "nnaccel/passes/CanonicalizeOperands.h"

#include "nnaccel/ir/OpParams.h"

#include <algorithm>
#include <string>
#include <utility>

namespace nnaccel::passes {

namespace {

/// The first opset whose Gemm takes no C input.
constexpr int64_t kGemmOptionalCOpset = 11;
/// The first opset whose Slice takes starts/ends/axes as inputs.
constexpr int64_t kSliceInputsOpset = 10;
/// The first opset whose Reshape takes its shape as an input.
constexpr int64_t kReshapeInputOpset = 5;

/// Moves a constant first operand of a two-input Add or Mul second; true when swapped.
bool constantSecond(ir::Graph& g, ir::Node& n) {
  const bool commutes = n.op == ir::OpKind::Add || n.op == ir::OpKind::Mul;
  if (!commutes || n.inputs.size() != 2 || n.inputs[1] == ir::kNoValue)
    return false;
  if (!g.isConstant(n.inputs[0]) || g.isConstant(n.inputs[1]))
    return false;
  std::swap(n.inputs[0], n.inputs[1]);
  return true;
}

/// A MatMul of a computed [M, K] f32 matrix by a constant [K, N] f32 one becomes Gemm (alpha 1,
/// no C): the same product, and a node later passes can fold a bias Add into.
bool matMulAsGemm(const ir::Graph& g, ir::Node& n) {
  if (n.op != ir::OpKind::MatMul || n.inputs.size() != 2 || n.outputs.size() != 1)
    return false;
  const ir::Value& a = g.value(n.inputs[0]);
  const ir::Value& b = g.value(n.inputs[1]);
  const bool dense = a.shapeKnown && a.shape.size() == 2 && a.dtype == DType::F32 &&
                     g.isConstant(n.inputs[1]) && b.shape.size() == 2 && b.dtype == DType::F32;
  if (!dense || g.isConstant(n.inputs[0]))
    return false;
  n.op = ir::OpKind::Gemm;
  n.attrs = ir::AttrMap{}; // MatMul has none; Gemm's defaults are the product
  n.opset = std::max<int64_t>(n.opset, kGemmOptionalCOpset);
  return true;
}

/// A 1-D int64 constant for a Slice parameter.
ir::ValueId int64Constant(ir::Graph& g, const std::string& name, int64_t v) {
  return g.addConstant(g.uniqueName(name), Tensor::fromVector<int64_t>({1}, {v}));
}

/// Split node \p id of a computed tensor as one Slice per output (each output keeps its value);
/// true when done. The Split node is left without outputs, for removal.
bool splitAsSlices(ir::Graph& g, ir::NodeId id) {
  if (g.node(id).op != ir::OpKind::Split || g.isConstant(g.node(id).inputs.at(0)))
    return false;
  const ir::SplitParams p = ir::splitParams(g, id);
  const ir::Node split = g.node(id); // a copy: adding nodes reallocates
  int64_t start = 0;
  for (size_t k = 0; k < split.outputs.size(); ++k) {
    const int64_t size = p.sizes[k];
    if (split.outputs[k] != ir::kNoValue) {
      ir::Node s;
      s.op = ir::OpKind::Slice;
      s.name = g.uniqueName(split.name + "/slice" + std::to_string(k));
      s.opset = std::max<int64_t>(split.opset, kSliceInputsOpset);
      s.inputs = {split.inputs[0], int64Constant(g, s.name + "/starts", start),
                  int64Constant(g, s.name + "/ends", start + size),
                  int64Constant(g, s.name + "/axes", p.axis)};
      s.outputs = {split.outputs[k]};
      g.addNode(std::move(s));
    }
    start += size;
  }
  g.node(id).outputs.clear();
  g.node(id).inputs.clear();
  return true;
}

/// A ReduceMean or ReduceMax of a computed [N, C, H, W] tensor over H and W as the global
/// pool it is (followed by a Reshape when keepdims is 0); true when rewritten in place.
bool reduceAsGlobalPool(ir::Graph& g, ir::NodeId id) {
  const ir::Node& n = g.node(id);
  if ((n.op != ir::OpKind::ReduceMean && n.op != ir::OpKind::ReduceMax) ||
      g.isConstant(n.inputs.at(0)) || g.value(n.inputs[0]).shape.size() != 4)
    return false;
  const ir::ReduceParams p = ir::reduceParams(g, id);
  if (p.axes != std::vector<int64_t>{2, 3})
    return false;
  const ir::OpKind pool =
      n.op == ir::OpKind::ReduceMean ? ir::OpKind::GlobalAveragePool : ir::OpKind::GlobalMaxPool;
  const ir::ValueId out = n.outputs.at(0);
  if (p.keepDims) {
    ir::Node& m = g.node(id);
    m.op = pool;
    m.attrs = ir::AttrMap{};
    return true;
  }
  // [N, C, 1, 1] from the pool, then the Reshape to [N, C].
  const Dims x = g.value(n.inputs[0]).shape; // a copy: adding values reallocates
  const ir::ValueId pooled =
      g.addValue(g.uniqueName(g.value(out).name + "/pooled"), DType::F32, Dims{x[0], x[1], 1, 1});
  const ir::ValueId shape = g.addConstant(g.uniqueName(n.name + "/shape"),
                                          Tensor::fromVector<int64_t>({2}, {x[0], x[1]}));
  ir::Node reshape;
  reshape.op = ir::OpKind::Reshape;
  reshape.name = g.uniqueName(n.name + "/reshape");
  reshape.opset = std::max<int64_t>(n.opset, kReshapeInputOpset);
  reshape.inputs = {pooled, shape};
  reshape.outputs = {out};
  ir::Node& m = g.node(id);
  m.op = pool;
  m.attrs = ir::AttrMap{};
  m.outputs = {pooled};
  g.value(pooled).producer = id;
  g.addNode(std::move(reshape));
  return true;
}

/// A node \p op of inputs \p a and \p b writing \p out (a new value when kNoValue), named
/// after \p like (node \p at, for errors); returns its output.
ir::ValueId addBinary(ir::Graph& g, ir::NodeId at, const ir::Node& like, ir::OpKind op,
                      ir::ValueId a, ir::ValueId b, ir::ValueId out, size_t step) {
  if (out == ir::kNoValue) {
    const DType dtype = g.value(a).dtype;
    const Dims shape = ir::broadcastShapes(g, at, g.value(a).shape, g.value(b).shape);
    out = g.addValue(g.uniqueName(like.name + "/partial" + std::to_string(step)), dtype, shape);
  }
  ir::Node n;
  n.op = op;
  n.name = g.uniqueName(like.name + "/" + std::string(ir::opName(op)) + std::to_string(step));
  n.opset = like.opset;
  n.inputs = {a, b};
  n.outputs = {out};
  g.addNode(std::move(n));
  return out;
}

/// Min/Max of other than two inputs, Sum and Mean as a left-to-right chain of two-input nodes
/// (Mean: Adds, then one Div by the count; one input: Identity), the reference's own order;
/// true when done. The node is left without outputs, for removal.
bool variadicAsChain(ir::Graph& g, ir::NodeId id) {
  const ir::Node n = g.node(id); // a copy: adding nodes reallocates
  const bool minMax = n.op == ir::OpKind::Min || n.op == ir::OpKind::Max;
  if (!(minMax && n.inputs.size() != 2) && n.op != ir::OpKind::Sum && n.op != ir::OpKind::Mean)
    return false;
  const ir::OpKind step = minMax ? n.op : ir::OpKind::Add;
  const ir::ValueId out = n.outputs.at(0);
  const size_t count = n.inputs.size();
  const bool divide = n.op == ir::OpKind::Mean && count > 1;
  g.node(id).outputs.clear();
  g.node(id).inputs.clear();
  if (count == 1) {
    ir::Node copy;
    copy.op = ir::OpKind::Identity;
    copy.name = g.uniqueName(n.name + "/Identity");
    copy.opset = n.opset;
    copy.inputs = {n.inputs[0]};
    copy.outputs = {out};
    g.addNode(std::move(copy));
    return true;
  }
  g.value(out).producer = -1;
  ir::ValueId acc = n.inputs[0];
  for (size_t i = 1; i < count; ++i) {
    const bool last = i + 1 == count && !divide;
    acc = addBinary(g, id, n, step, acc, n.inputs[i], last ? out : ir::kNoValue, i);
  }
  if (divide) {
    const ir::ValueId c = g.addConstant(g.uniqueName(n.name + "/count"),
                                        Tensor::fromVector<float>({}, {static_cast<float>(count)}));
    addBinary(g, id, n, ir::OpKind::Div, acc, c, out, count);
  }
  return true;
}

} // namespace

std::size_t canonicalizeOperands(ir::Graph& g) {
  std::size_t changed = 0;
  std::vector<ir::NodeId> replaced; // Splits and variadic nodes, rewritten
  bool resort = false;
  const auto count = static_cast<ir::NodeId>(g.numNodes());
  for (ir::NodeId id = 0; id < count; ++id) {
    ir::Node& n = g.node(id);
    if (constantSecond(g, n) || matMulAsGemm(g, n))
      ++changed;
    else if (reduceAsGlobalPool(g, id))
      ++changed, resort = true;
    else if (splitAsSlices(g, id) || variadicAsChain(g, id))
      replaced.push_back(id);
  }
  if (!replaced.empty())
    g.removeNodes(replaced);
  if (!replaced.empty() || resort)
    g.topoSort();
  return changed + replaced.size();
}

} // namespace nnaccel::passes
