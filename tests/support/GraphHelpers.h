/// \file
/// Test helper (header only): the two primitives the shared test graphs are built from, a node
/// appended to an ir::Graph with a fresh output value, and a seeded uniform tensor. Kept in one
/// place so LayerSpecGraphs.h, AttentionGraph.h and QdqGraph.h (which may meet in one unity
/// translation unit) share them instead of each keeping a copy.
#pragma once

#include "nnaccel/ir/Graph.h"
#include "nnaccel/support/Rng.h"
#include "nnaccel/tensor/Tensor.h"

#include <string>
#include <vector>

namespace nnaccel::testing::graph {

/// Appends node \p name (\p op, opset \p opset) reading \p inputs; returns its one output, a
/// new value "<name>_out" of type \p out.
inline ir::ValueId addNode(ir::Graph& g, ir::OpKind op, const std::string& name,
                           std::vector<ir::ValueId> inputs, ir::AttrMap attrs = {},
                           DType out = DType::F32, int64_t opset = 13) {
  ir::Node n;
  n.op = op;
  n.name = name;
  n.opset = opset;
  n.inputs = std::move(inputs);
  n.attrs = std::move(attrs);
  const ir::ValueId y = g.addValue(name + "_out", out);
  n.outputs = {y};
  g.addNode(std::move(n));
  return y;
}

/// A tensor of \p shape with elements uniform in [-scale, scale).
inline Tensor uniformTensor(Rng& rng, Dims shape, float scale) {
  std::vector<float> v(static_cast<size_t>(numElements(shape)));
  for (float& x : v)
    x = rng.uniform(-scale, scale);
  return Tensor::fromVector<float>(std::move(shape), v);
}

} // namespace nnaccel::testing::graph
