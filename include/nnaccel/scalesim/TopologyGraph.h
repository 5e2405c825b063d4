/// \file
/// Between nnaccel graphs and SCALE-Sim topologies: `nnaccel export-topology` writes a model's
/// convolution and fully-connected layers as SCALE-Sim rows, and `nnaccel simulate TOPO.csv`
/// runs a SCALE-Sim topology on nnaccel's engines as a graph with seeded random weights.
///
/// Export: one row per Conv (the ifmap size is the padded input, trimmed to the rows and
/// columns a window reads so that SCALE-Sim's ceil-rounded output size equals ONNX's; dilated
/// kernels are written at their dilated extent), one "DP" row per depthwise Conv, one row per
/// group of any other grouped Conv, and Gemm / MatMul-by-a-constant as a 1x1 convolution over
/// an M x 1 ifmap with K channels and N filters. Import: every layer becomes Conv + Relu; a
/// layer reads the previous layer's output when the channels match and the ifmap is that
/// output plus an equal padding on both sides of each axis, and gets its own graph input
/// otherwise; the rows SCALE-Sim splits from one "DP" row become one depthwise Conv. See
/// docs/ScaleSim.md.
#pragma once

#include "nnaccel/ir/Graph.h"
#include "nnaccel/scalesim/Topology.h"

#include <cstdint>
#include <string>
#include <vector>

namespace nnaccel::scalesim {

struct ExportedTopology {
  std::vector<Layer> layers;
  /// Nodes that compute like a convolution but have no SCALE-Sim row ("name (ConvTranspose)").
  std::vector<std::string> skipped;
};

/// The SCALE-Sim layers of a shape-inferred graph (driver::loadModel's result). Throws
/// Error(Unsupported) for a layer SCALE-Sim cannot describe (batch > 1, 3-D convolution).
ExportedTopology topologyFromGraph(const ir::Graph& g);

/// A graph running \p topology's layers with weights drawn from \p seed (graph-input and
/// initializer shapes set; run driver::prepareGraph before use).
ir::Graph graphFromTopology(const Topology& topology, uint64_t seed);

} // namespace nnaccel::scalesim
