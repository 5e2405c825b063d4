/// \file
/// Test helper (header only, like LayerSpecGraphs.h, and independent of it so the systolic tests,
/// which have their own LayerSpec, can include it): a small self-attention graph whose MatMuls
/// multiply two computed tensors, shared by the engine contract test and the systolic compiler
/// test.
#pragma once

#include "GraphHelpers.h"
#include "nnaccel/driver/ModelLoader.h"
#include "nnaccel/ir/Graph.h"
#include "nnaccel/support/Rng.h"
#include "nnaccel/tensor/Tensor.h"

#include <string>
#include <vector>

namespace nnaccel::testing {

/// A self-attention block as vision transformers and SVTR text recognizers export it: x [1, T, D]
/// -> q, k, v projections (MatMul by constants) -> per-head views [1, H, T, D/H] -> scores
/// q k^T (a MatMul of two computed tensors) -> Softmax over the keys when \p softmax (a Relu
/// otherwise) -> probs v (another) -> a MatMul of the per-head output by a computed [1, D/H, T]
/// operand broadcast over the heads (B with batch dims of 1). Prepared like a loaded model.
inline ir::Graph attentionGraph(bool softmax, int64_t tokens = 6, int64_t heads = 2,
                                int64_t headDim = 4) {
  using graph::addNode;
  using ir::OpKind;
  Rng rng(33);
  ir::Graph g;
  g.name = "attention";
  const int64_t d = heads * headDim;
  const ir::ValueId x = g.addValue("x", DType::F32, {1, tokens, d});
  g.inputs = {x};
  const auto project = [&](const std::string& name) {
    const ir::ValueId w = g.addConstant(name + ".w", graph::uniformTensor(rng, {d, d}, 0.5f));
    const ir::ValueId y = addNode(g, OpKind::MatMul, name, {x, w});
    const ir::ValueId shape = g.addConstant(
        name + ".shape", Tensor::fromVector<int64_t>({4}, {1, tokens, heads, headDim}));
    ir::AttrMap perm;
    perm.set("perm", std::vector<int64_t>{0, 2, 1, 3});
    return addNode(g, OpKind::Transpose, name + ".heads",
                   {addNode(g, OpKind::Reshape, name + ".split", {y, shape})}, perm);
  };
  const ir::ValueId q = project("q"), k = project("k"), v = project("v");
  ir::AttrMap perm;
  perm.set("perm", std::vector<int64_t>{0, 1, 3, 2});
  const ir::ValueId kt = addNode(g, OpKind::Transpose, "k.t", {k}, perm);
  const ir::ValueId scores = addNode(g, OpKind::MatMul, "scores", {q, kt});
  ir::AttrMap axis;
  axis.set("axis", int64_t{-1});
  const ir::ValueId probs = softmax ? addNode(g, OpKind::Softmax, "probs", {scores}, axis)
                                    : addNode(g, OpKind::Relu, "probs", {scores});
  const ir::ValueId ctx = addNode(g, OpKind::MatMul, "context", {probs, v});
  // A [1, headDim, tokens] operand of its own, computed from x, shared by every head.
  ir::AttrMap swap;
  swap.set("perm", std::vector<int64_t>{0, 2, 1});
  const ir::ValueId xt = addNode(g, OpKind::Transpose, "x.t", {x}, swap);
  ir::AttrMap first;
  first.set("axes", std::vector<int64_t>{1});
  first.set("starts", std::vector<int64_t>{0});
  first.set("ends", std::vector<int64_t>{headDim});
  const ir::ValueId shared = addNode(g, OpKind::Slice, "x.slice", {xt}, first);
  g.node(static_cast<ir::NodeId>(g.numNodes()) - 1).opset = 9;
  g.outputs = {addNode(g, OpKind::MatMul, "mix", {ctx, shared})};
  driver::prepareGraph(g);
  return g;
}

} // namespace nnaccel::testing
