/// \file
/// The model zoo: standard CNNs built in C++ with deterministic seeded weights (no downloads).
///
/// Every model is batch 1 unless built for a batch, opset 13, written as a framework exporter would
/// write it (weights as initializers, BatchNormalization unfused, ReLU6 as Clip with constant
/// bounds); see GraphBuilder.h for the conventions and docs/Zoo.md for each model's input shape,
/// parameter and MAC counts. The same seed gives bit-identical weights on every platform
/// (support/Rng.h). Built graphs carry graph-input and initializer shapes only; run ir::inferShapes
/// (the driver's loadModel does) before using them.
#pragma once

#include "nnaccel/ir/Graph.h"

#include <cstdint>
#include <string>
#include <vector>

namespace nnaccel::zoo {

/// Seed used when the user gives none.
inline constexpr uint64_t kDefaultSeed = 2026;

class GraphBuilder;

/// Size of a model computed from its layer shapes alone (GraphBuilder in shapes-only mode, no
/// weights drawn or stored): what `nnaccel zoo list` prints without building VGG-16's 138 M
/// weights. Equal to the counts of the built graph (tested).
struct ModelCounts {
  /// Learnable parameters as PyTorch counts them: Conv/ConvTranspose/Gemm weights and biases,
  /// BatchNorm scale and bias (not the running statistics).
  int64_t params = 0;
  /// Multiply-accumulates: Conv N*M*Ho*Wo*(C/g)*kh*kw, ConvTranspose N*C*Hi*Wi*(M/g)*kh*kw,
  /// Gemm M*K*N (ir::ConvParams::macs and the driver's layer summary use the same rules).
  int64_t macs = 0;
};

struct ZooModel {
  std::string name;        ///< CLI name, e.g. "resnet18"
  std::string description; ///< one line for `nnaccel zoo list`
  Dims inputShape;         ///< shape of the single graph input, named "input"
  bool isClassifier;       ///< output is [1, classes] logits (top-1 is meaningful)
  /// Appends the model's layers after the graph input \p input and returns the value that
  /// becomes the graph output "output".
  ir::ValueId (*define)(GraphBuilder& b, ir::ValueId input);

  /// The model with weights drawn from \p seed (graph named \c name), for \p batch images
  /// (inputShape with dimension 0 = batch; the weights do not depend on it).
  ir::Graph build(uint64_t seed, int64_t batch = 1) const;
  /// Parameter and MAC counts from the layer shapes, without drawing any weight.
  ModelCounts counts() const;
};

/// All zoo models, in a fixed order (the order of `nnaccel zoo list`).
const std::vector<ZooModel>& zooModels();
/// The model called \p name, nullptr if there is none.
const ZooModel* findZooModel(const std::string& name);

/// The model of the default run (`nnaccel info demo` / `nnaccel run demo`): ResNet-18, a real
/// ImageNet network (conv, BatchNorm, ReLU, max pool, residual Add, global pool, Gemm) that
/// imports, runs in fp32 and in int8 within a few seconds (1.8 GMACs); see docs/Zoo.md.
inline constexpr const char* kDemoModel = "resnet18";

} // namespace nnaccel::zoo
