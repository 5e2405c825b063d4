/// \file
/// The model zoo: standard CNNs built in C++ with deterministic seeded weights (no downloads).
///
/// Every model is batch 1, opset 13, written as a framework exporter would write it (weights as
/// initializers, BatchNormalization unfused, ReLU6 as Clip with constant bounds); see
/// GraphBuilder.h for the conventions and docs/Zoo.md for each model's input shape, parameter
/// and MAC counts. The same seed gives bit-identical weights on every platform (zoo/Rng.h).
/// Built graphs carry graph-input and initializer shapes only; run ir::inferShapes (the driver's
/// loadModel does) before using them.
#pragma once

#include "nnaccel/ir/Graph.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace nnaccel::zoo {

/// Seed used when the user gives none.
inline constexpr uint64_t kDefaultSeed = 2026;

struct ZooModel {
  std::string name;        ///< CLI name, e.g. "resnet18"
  std::string description; ///< one line for `nnaccel zoo list`
  Dims inputShape;         ///< shape of the single graph input
  bool isClassifier;       ///< output is [1, classes] logits (top-1 is meaningful)
  std::function<ir::Graph(uint64_t seed)> build;
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
