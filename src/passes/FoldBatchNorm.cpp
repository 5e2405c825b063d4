// Per-channel affine folding into Conv/ConvTranspose/Gemm weights and bias (see FoldBatchNorm.h):
// BatchNormalization, and Mul/Div/Add/Sub by a per-channel constant.
#include "nnaccel/passes/FoldBatchNorm.h"

#include "GraphQueries.h"
#include "nnaccel/ir/OpParams.h"

#include <cmath>

namespace nnaccel::passes {

namespace {

using ir::Graph;
using ir::Node;
using ir::NodeId;
using ir::OpKind;
using ir::ValueId;

/// The f32 constant behind \p v, or nullptr.
const Tensor* f32Constant(const Graph& g, ValueId v) {
  if (v == ir::kNoValue || !g.isConstant(v) || g.value(v).dtype != DType::F32) {
    return nullptr;
  }
  return g.value(v).constant.get();
}

/// Per-channel affine form of an inference BatchNormalization: y = s * x + t.
struct Affine {
  std::vector<double> s, t;
};

std::optional<Affine> bnAffine(const Graph& g, NodeId bn) {
  const ir::BatchNormParams p = ir::batchNormParams(g, bn);
  const Node& n = g.node(bn);
  const Tensor* scale = f32Constant(g, n.inputs[1]);
  const Tensor* bias = f32Constant(g, n.inputs[2]);
  const Tensor* mean = f32Constant(g, n.inputs[3]);
  const Tensor* var = f32Constant(g, n.inputs[4]);
  if (!scale || !bias || !mean || !var) {
    return std::nullopt;
  }
  Affine a;
  for (int64_t c = 0; c < p.channels; ++c) {
    const double s =
        static_cast<double>(scale->data<float>()[c]) /
        std::sqrt(static_cast<double>(var->data<float>()[c]) + static_cast<double>(p.epsilon));
    a.s.push_back(s);
    a.t.push_back(static_cast<double>(bias->data<float>()[c]) -
                  static_cast<double>(mean->data<float>()[c]) * s);
  }
  return a;
}

/// Adds a new constant named after \p base and makes it input \p index of node \p id.
void setConstantInput(Graph& g, NodeId id, size_t index, const std::string& base, Tensor t) {
  const ValueId v = g.addConstant(g.uniqueName(base), std::move(t));
  Node& n = g.node(id);
  if (n.inputs.size() <= index) {
    n.inputs.resize(index + 1, ir::kNoValue);
  }
  n.inputs[index] = v;
}

/// Conv / ConvTranspose: scales each output channel's weights and rebuilds the bias.
bool foldIntoConv(Graph& g, NodeId id, const Affine& a) {
  const ir::ConvParams p = ir::convParams(g, id);
  const Node& n = g.node(id);
  const Tensor* w = f32Constant(g, n.inputs[1]);
  const ValueId biasId = n.inputs.size() > 2 ? n.inputs[2] : ir::kNoValue;
  const Tensor* bias = f32Constant(g, biasId);
  if (!w || (biasId != ir::kNoValue && !bias)) {
    return false;
  }
  const int64_t kernelSize = numElements(p.kernel);
  const int64_t inPerGroup = p.inChannels / p.group;
  const int64_t outPerGroup = p.outChannels / p.group;
  Tensor newW = *w;
  float* wd = newW.data<float>();
  // Weight rows of kernelSize elements; row r is (m, c/g) for Conv and (c, j) for ConvTranspose.
  const int64_t rows = w->numElements() / kernelSize;
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t m = p.transposed ? (r / outPerGroup / inPerGroup) * outPerGroup + r % outPerGroup
                                   : r / inPerGroup;
    const double s = a.s[static_cast<size_t>(m)];
    for (int64_t k = 0; k < kernelSize; ++k) {
      float& x = wd[r * kernelSize + k];
      x = static_cast<float>(static_cast<double>(x) * s);
    }
  }
  Tensor newB(DType::F32, {p.outChannels});
  for (int64_t m = 0; m < p.outChannels; ++m) {
    const double b0 = bias ? static_cast<double>(bias->data<float>()[m]) : 0.0;
    newB.data<float>()[m] =
        static_cast<float>(b0 * a.s[static_cast<size_t>(m)] + a.t[static_cast<size_t>(m)]);
  }
  const std::string base = n.name.empty() ? g.value(n.outputs[0]).name : n.name;
  setConstantInput(g, id, 1, base + "_bnfold_weight", std::move(newW));
  setConstantInput(g, id, 2, base + "_bnfold_bias", std::move(newB));
  return true;
}

/// Gemm: scales column n of op(B) and rebuilds C (beta becomes 1).
bool foldIntoGemm(Graph& g, NodeId id, const Affine& a) {
  const ir::GemmParams p = ir::gemmParams(g, id);
  const Node& n = g.node(id);
  const Tensor* b = f32Constant(g, n.inputs[1]);
  const ValueId cId = n.inputs.size() > 2 ? n.inputs[2] : ir::kNoValue;
  const Tensor* c = f32Constant(g, cId);
  if (!b || (cId != ir::kNoValue && !c)) {
    return false;
  }
  Tensor newB = *b;
  float* bd = newB.data<float>();
  for (int64_t i = 0; i < p.k; ++i) {
    for (int64_t j = 0; j < p.n; ++j) {
      float& x = p.transB ? bd[j * p.k + i] : bd[i * p.n + j];
      x = static_cast<float>(static_cast<double>(x) * a.s[static_cast<size_t>(j)]);
    }
  }
  // C' has C's shape broadcast against [N] (C is unidirectionally broadcastable to [M, N]).
  const bool useC = c != nullptr && p.beta != 0.0f;
  Dims cShape{p.n};
  if (useC && c->rank() == 2) {
    cShape = {c->dim(0), p.n};
  }
  Tensor newC(DType::F32, cShape);
  const int64_t rows = cShape.size() == 2 ? cShape[0] : 1;
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t j = 0; j < p.n; ++j) {
      double value = a.t[static_cast<size_t>(j)];
      if (useC) {
        const int64_t cCols = c->rank() == 0 ? 1 : c->dim(c->rank() - 1);
        const int64_t col = cCols == 1 ? 0 : j;
        const int64_t idx = (c->rank() == 2 ? r * cCols : 0) + col;
        value += static_cast<double>(p.beta) * static_cast<double>(c->data<float>()[idx]) *
                 a.s[static_cast<size_t>(j)];
      }
      newC.data<float>()[r * p.n + j] = static_cast<float>(value);
    }
  }
  const std::string base = n.name.empty() ? g.value(n.outputs[0]).name : n.name;
  setConstantInput(g, id, 1, base + "_bnfold_weight", std::move(newB));
  setConstantInput(g, id, 2, base + "_bnfold_bias", std::move(newC));
  g.node(id).attrs.set("beta", 1.0f);
  return true;
}

/// The input of affine node \p id that a Conv/ConvTranspose/Gemm writes (as its output 0, read
/// by nothing else), or kNoValue.
ValueId foldableInput(const Graph& g, NodeId id, size_t index) {
  const ValueId x = index < g.node(id).inputs.size() ? g.node(id).inputs[index] : ir::kNoValue;
  if (x == ir::kNoValue || g.value(x).producer < 0 || !detail::hasSingleUse(g, x)) {
    return ir::kNoValue;
  }
  const Node& prod = g.node(g.value(x).producer);
  const bool layer =
      prod.op == OpKind::Conv || prod.op == OpKind::ConvTranspose || prod.op == OpKind::Gemm;
  return layer && prod.outputs[0] == x && !prod.fusedActivation ? x : ir::kNoValue;
}

/// Per output channel of \p x (axis 1 of a Conv/ConvTranspose output, the last of a Gemm's),
/// the values of constant \p c when it broadcasts onto \p x varying along that axis only.
std::optional<std::vector<double>> perChannel(const Graph& g, ValueId x, ValueId c) {
  const Tensor* t = f32Constant(g, c);
  const Dims& xs = g.value(x).shape;
  if (!t || !g.value(x).shapeKnown || xs.size() < 2 ||
      t->rank() > static_cast<int64_t>(xs.size())) {
    return std::nullopt;
  }
  const bool gemm = g.node(g.value(x).producer).op == OpKind::Gemm;
  const size_t axis = gemm ? xs.size() - 1 : 1;
  const int64_t channels = xs[axis];
  // Right-align the constant's shape with x's: every axis but `axis` must be 1.
  const size_t offset = xs.size() - static_cast<size_t>(t->rank());
  int64_t along = 1;
  for (size_t d = 0; d < static_cast<size_t>(t->rank()); ++d) {
    const int64_t extent = t->dim(static_cast<int64_t>(d));
    if (d + offset == axis) {
      along = extent;
    } else if (extent != 1) {
      return std::nullopt;
    }
  }
  if (along != 1 && along != channels) {
    return std::nullopt;
  }
  std::vector<double> v(static_cast<size_t>(channels));
  for (int64_t m = 0; m < channels; ++m) {
    v[static_cast<size_t>(m)] = static_cast<double>(t->data<float>()[along == 1 ? 0 : m]);
  }
  return v;
}

/// The per-channel affine map of Mul/Div/Add/Sub node \p id by a constant, applied to its
/// input \p x (written by a foldable layer), or nullopt.
std::optional<Affine> constantAffine(const Graph& g, NodeId id, ValueId& x) {
  const Node& n = g.node(id);
  if (n.inputs.size() != 2 ||
      (n.op != OpKind::Mul && n.op != OpKind::Div && n.op != OpKind::Add && n.op != OpKind::Sub)) {
    return std::nullopt;
  }
  // x op c, or c op x for the commutative Mul and Add.
  const bool commutes = n.op == OpKind::Mul || n.op == OpKind::Add;
  size_t xi = foldableInput(g, id, 0) != ir::kNoValue ? 0 : 1;
  if (xi == 1 && (!commutes || foldableInput(g, id, 1) == ir::kNoValue)) {
    return std::nullopt;
  }
  x = n.inputs[xi];
  if (g.value(x).dtype != DType::F32 || g.value(n.outputs[0]).shape != g.value(x).shape) {
    return std::nullopt; // the constant must not broadcast x to a larger shape
  }
  const std::optional<std::vector<double>> c = perChannel(g, x, n.inputs[1 - xi]);
  if (!c) {
    return std::nullopt;
  }
  Affine a;
  for (double v : *c) {
    if (n.op == OpKind::Div && v == 0.0) {
      return std::nullopt;
    }
    const bool scales = n.op == OpKind::Mul || n.op == OpKind::Div;
    a.s.push_back(n.op == OpKind::Mul ? v : n.op == OpKind::Div ? 1.0 / v : 1.0);
    a.t.push_back(scales ? 0.0 : n.op == OpKind::Add ? v : -v);
  }
  return a;
}

/// Folds \p affine (node \p id's map of \p x) into the layer writing \p x, which then writes
/// node \p id's output directly; true when done.
bool foldInto(Graph& g, NodeId id, ValueId x, const Affine& affine) {
  const NodeId producer = g.value(x).producer;
  const bool done = g.node(producer).op == OpKind::Gemm ? foldIntoGemm(g, producer, affine)
                                                        : foldIntoConv(g, producer, affine);
  if (!done) {
    return false;
  }
  const ValueId y = g.node(id).outputs[0];
  g.node(producer).outputs[0] = y;
  g.value(y).producer = producer;
  g.value(x).producer = -1;
  for (ValueId& in : g.node(id).inputs) {
    in = ir::kNoValue;
  }
  return true;
}

} // namespace

std::size_t foldBatchNorm(Graph& g) {
  std::vector<NodeId> removed;
  for (NodeId bn = 0; bn < static_cast<NodeId>(g.numNodes()); ++bn) {
    if (g.node(bn).op != OpKind::BatchNormalization) {
      continue;
    }
    const ValueId x = foldableInput(g, bn, 0);
    if (x == ir::kNoValue) {
      continue;
    }
    const std::optional<Affine> affine = bnAffine(g, bn);
    if (affine && foldInto(g, bn, x, *affine)) {
      removed.push_back(bn);
    }
  }
  g.removeNodes(removed);
  return removed.size();
}

std::size_t foldConstantAffine(Graph& g) {
  std::vector<NodeId> removed;
  for (NodeId id = 0; id < static_cast<NodeId>(g.numNodes()); ++id) {
    ValueId x = ir::kNoValue;
    const std::optional<Affine> affine = constantAffine(g, id, x);
    if (affine && foldInto(g, id, x, *affine)) {
      removed.push_back(id);
    }
  }
  g.removeNodes(removed);
  return removed.size();
}

} // namespace nnaccel::passes
