// MODEL argument -> verified graph: ONNX file or zoo model, shape inference, passes, verifier.
#include "nnaccel/driver/ModelLoader.h"

#include "nnaccel/frontend/Onnx.h"
#include "nnaccel/ir/ShapeInference.h"
#include "nnaccel/ir/Verifier.h"
#include "nnaccel/passes/Pipeline.h"
#include "nnaccel/scalesim/Topology.h"
#include "nnaccel/scalesim/TopologyGraph.h"
#include "nnaccel/support/Suggest.h"
#include "nnaccel/zoo/Zoo.h"

#include <cctype>
#include <filesystem>
#include <fmt/format.h>

namespace nnaccel::driver {

namespace {

ir::Graph importOrBuild(const std::string& model, const LoadOptions& options) {
  switch (modelSource(model)) {
  case ModelSource::File:
    if (isScaleSimTopology(model)) {
      if (bindsSymbolicDims(options.import)) {
        throw Error(ErrorKind::Usage, {},
                    fmt::format("model '{}' is a SCALE-Sim topology with fixed shapes; symbolic "
                                "dimension bindings apply to .onnx files only",
                                model));
      }
      return scalesim::graphFromTopology(
          scalesim::parseTopologyFile(model, scalesim::TopologyFormat::Conv), options.zooSeed);
    }
    return frontend::importOnnxFile(model, options.import);
  case ModelSource::Zoo:
    if (!options.import.dimParams.empty()) {
      throw Error(ErrorKind::Usage, {},
                  fmt::format("model '{}' is a zoo model with no named input dimensions; "
                              "--dim applies to .onnx files only (--batch sets a zoo "
                              "model's batch)",
                              model));
    }
    return resolveZooModel(model)->build(options.zooSeed, options.import.defaultSymbolicDim);
  case ModelSource::None:
    break;
  }
  std::error_code ec;
  if (std::filesystem::is_directory(model, ec)) {
    throw Error(ErrorKind::Io, ErrorContext{.file = model}, "is a directory, not an onnx file");
  }
  std::vector<std::string> zooNames{std::string(kDemoAlias)};
  for (const zoo::ZooModel& z : zoo::zooModels())
    zooNames.push_back(z.name);
  throw Error(ErrorKind::Usage, {},
              fmt::format("model '{}': no such file and no zoo model of that name{} (see "
                          "'nnaccel zoo list')",
                          model, didYouMean(model, zooNames)));
}

} // namespace

bool isScaleSimTopology(const std::string& model) {
  std::string ext = std::filesystem::path(model).extension().string();
  for (char& ch : ext) {
    ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  }
  return ext == ".csv";
}

ModelSource modelSource(const std::string& model) {
  std::error_code ec;
  if (std::filesystem::is_regular_file(model, ec)) {
    return ModelSource::File;
  }
  return resolveZooModel(model) != nullptr ? ModelSource::Zoo : ModelSource::None;
}

bool bindsSymbolicDims(const frontend::ImportOptions& options) {
  return !options.dimParams.empty() ||
         options.defaultSymbolicDim != frontend::ImportOptions{}.defaultSymbolicDim;
}

const zoo::ZooModel* resolveZooModel(const std::string& name) {
  return zoo::findZooModel(name == kDemoAlias ? std::string(zoo::kDemoModel) : name);
}

void prepareGraph(ir::Graph& g, const LoadOptions& options) {
  ir::inferShapes(g);
  if (options.runPasses) {
    passes::runDefaultPipeline(g);
  }
  ir::verify(g);
}

ir::Graph loadModel(const std::string& model, const LoadOptions& options) {
  ir::Graph g = importOrBuild(model, options);
  prepareGraph(g, options);
  return g;
}

} // namespace nnaccel::driver
