/// \file
/// The one path from a user's MODEL argument to a graph ready for execution or compilation.
///
/// MODEL is an .onnx file, a SCALE-Sim topology (.csv, convolution format: each row becomes
/// Conv + Relu with weights drawn from LoadOptions::zooSeed; see scalesim/TopologyGraph.h and
/// docs/ScaleSim.md) or the name of a built-in zoo model. loadModel imports or builds the
/// graph, infers shapes, runs the default pass pipeline (shape-arithmetic folding, general
/// constant folding, BatchNormalization folding, identity elimination, activation-fusion
/// marking) and verifies the result. Every engine and every CLI command goes through here.
#pragma once

#include "nnaccel/frontend/Onnx.h"
#include "nnaccel/ir/Graph.h"
#include "nnaccel/zoo/Zoo.h"

#include <cstdint>
#include <string>

namespace nnaccel::driver {

struct LoadOptions {
  frontend::ImportOptions import;
  bool runPasses = true; ///< false: import + shape inference + verify only (for `info --raw`)
  uint64_t zooSeed = zoo::kDefaultSeed; ///< weight seed for a zoo model or SCALE-Sim topology
};

/// Loads MODEL (file path or zoo name). Throws nnaccel::Error (Io/Model/Unsupported/Usage).
/// An existing file wins over a zoo model of the same name; "demo" names zoo::kDemoModel.
/// Neither a file nor a zoo model: Error(Usage) "model 'NAME': no such file and no zoo model of
/// that name (see 'nnaccel zoo list')". Symbolic dimension bindings (options.import.dimParams,
/// defaultSymbolicDim) apply to ONNX files; for a zoo model, whose input shapes are fixed, they
/// are an Error(Usage).
ir::Graph loadModel(const std::string& model, const LoadOptions& options = {});

/// What MODEL names, resolved as loadModel resolves it.
enum class ModelSource {
  File, ///< an existing regular file (imported as ONNX)
  Zoo,  ///< a zoo model name or the "demo" alias
  None, ///< neither (loadModel fails)
};
ModelSource modelSource(const std::string& model);

/// True when \p options binds any symbolic dimension differently from the defaults (a
/// dimParams entry, or a defaultSymbolicDim other than 1).
bool bindsSymbolicDims(const frontend::ImportOptions& options);

/// True when the file \p model is read as a SCALE-Sim topology (its extension is .csv, any case).
bool isScaleSimTopology(const std::string& model);

/// The steps loadModel applies after import: ir::inferShapes, passes::runDefaultPipeline (when
/// options.runPasses) and ir::verify. For graphs built in memory (tests, tools).
void prepareGraph(ir::Graph& g, const LoadOptions& options = {});

/// The zoo model called \p name, where "demo" is an alias of zoo::kDemoModel; nullptr if none.
const zoo::ZooModel* resolveZooModel(const std::string& name);

/// Name accepted everywhere a zoo model name is, meaning zoo::kDemoModel.
inline constexpr const char* kDemoAlias = "demo";

} // namespace nnaccel::driver
