// Canonical operand forms (see CanonicalizeOperands.h): constants second in commutative Add and
// Mul, and a dense MatMul as the Gemm it is.
#include "nnaccel/passes/CanonicalizeOperands.h"

#include <algorithm>
#include <utility>

namespace nnaccel::passes {

namespace {

/// The first opset whose Gemm takes no C input.
constexpr int64_t kGemmOptionalCOpset = 11;

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

} // namespace

std::size_t canonicalizeOperands(ir::Graph& g) {
  std::size_t changed = 0;
  for (ir::NodeId id = 0; id < static_cast<ir::NodeId>(g.numNodes()); ++id) {
    ir::Node& n = g.node(id);
    if (constantSecond(g, n) || matMulAsGemm(g, n))
      ++changed;
  }
  return changed;
}

} // namespace nnaccel::passes
