/// \file
/// Test helper (header only): a Gemm with transA on a computed tensor, as converters write a
/// 1x1 convolution over pixels (conv -> the channel-major [C, pixels] view -> Gemm transA).
/// Shared by the engine contract test (it runs on the array engines) and the stream engine's
/// tests (its dense patch refuses a many-row A, naming the node).
#pragma once

#include "GraphHelpers.h"
#include "nnaccel/driver/ModelLoader.h"
#include "nnaccel/ir/Graph.h"
#include "nnaccel/support/Rng.h"
#include "nnaccel/tensor/Tensor.h"

#include <vector>

namespace nnaccel::testing {

/// x [1, 4, 3, 5] -> 3x3 Conv to 6 channels -> Reshape [6, 15] -> Gemm "gemm" (transA, B
/// [6, 7], C [7]) -> [15, 7]. Prepared like a loaded model.
inline ir::Graph transposedGemmGraph() {
  using graph::addNode;
  using graph::uniformTensor;
  Rng rng(41);
  ir::Graph g;
  g.name = "gemm_transA";
  const ir::ValueId x = g.addValue("x", DType::F32, {1, 4, 3, 5});
  g.inputs = {x};
  ir::AttrMap pads;
  pads.set("pads", std::vector<int64_t>{1, 1, 1, 1});
  const ir::ValueId conv =
      addNode(g, ir::OpKind::Conv, "conv",
              {x, g.addConstant("conv.w", uniformTensor(rng, {6, 4, 3, 3}, 0.5f))}, pads);
  const ir::ValueId flat =
      addNode(g, ir::OpKind::Reshape, "view",
              {conv, g.addConstant("view.shape", Tensor::fromVector<int64_t>({2}, {6, 15}))});
  ir::AttrMap transA;
  transA.set("transA", int64_t{1});
  g.outputs = {addNode(g, ir::OpKind::Gemm, "gemm",
                       {flat, g.addConstant("gemm.b", uniformTensor(rng, {6, 7}, 0.5f)),
                        g.addConstant("gemm.c", uniformTensor(rng, {7}, 0.5f))},
                       transA)};
  driver::prepareGraph(g);
  return g;
}

} // namespace nnaccel::testing
