/// \file
/// The ONNX backend test data shared by the engines' conformance tests: where Debian's
/// libonnx-testdata lives (NNACCEL_ONNX_TESTDATA overrides it), the cases the manifest
/// (onnx_backend_cases.tsv) marks as passing on the reference executor, which operators an
/// engine's PE array runs, and the loader that binds a case's weight inputs as constants so that
/// its convolutions reach the array; and the loops over the cases loaded either way.
///
/// Why shared: the sparse and broadcast conformance tests run the same cases the same way and
/// differ only in the engine (and in whether ConvTranspose is an array operator).
#pragma once

#include "../support/SourcePaths.h"
#include "nnaccel/driver/ModelLoader.h"
#include "nnaccel/frontend/Onnx.h"
#include "nnaccel/ir/Graph.h"
#include "nnaccel/support/Error.h"
#include "nnaccel/tensor/Tensor.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace nnaccel::conformance {

inline std::filesystem::path dataRoot() {
  if (const char* env = std::getenv("NNACCEL_ONNX_TESTDATA"))
    return env;
  return "/usr/share/libonnx-testdata/data";
}

/// The manifest's passing cases, in file order.
inline std::vector<std::string> passingCases() {
  std::ifstream in(nnaccel::test::sourceDir() / "tests/conformance/onnx_backend_cases.tsv");
  std::vector<std::string> cases;
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string name, status;
    if (line.empty() || line[0] == '#' || !(fields >> name >> status))
      continue;
    if (status == "pass")
      cases.push_back(name);
  }
  return cases;
}

/// The operators an engine runs on its PE array: Conv and Gemm always, ConvTranspose where the
/// engine has it (the sparse engine does, the broadcast engine runs it on the host).
struct ArrayOps {
  bool convTranspose = true;
  bool contains(ir::OpKind op) const {
    return op == ir::OpKind::Conv || op == ir::OpKind::Gemm ||
           (convTranspose && op == ir::OpKind::ConvTranspose);
  }
  /// Whether \p g has a node of one of these operators.
  bool inGraph(const ir::Graph& g) const {
    return std::any_of(g.nodes().begin(), g.nodes().end(),
                       [&](const ir::Node& n) { return contains(n.op); });
  }
};

/// The case in \p dir with test_data_set_0: graph inputs read only as weights or biases (inputs
/// 1 and 2 of the nodes of \p ops) become constants holding the data set's values; returns the
/// prepared graph and the remaining (data) inputs, or nullopt when the case cannot be loaded
/// this way or has nothing to bind.
inline std::optional<std::pair<ir::Graph, std::vector<Tensor>>>
loadWithBoundWeights(const std::filesystem::path& dir, const ArrayOps& ops) {
  namespace fs = std::filesystem;
  std::vector<fs::path> files;
  const fs::path set = dir / "test_data_set_0";
  if (!fs::exists(set))
    return std::nullopt;
  for (const auto& entry : fs::directory_iterator(set))
    if (entry.path().filename().string().rfind("input_", 0) == 0)
      files.push_back(entry.path());
  std::sort(files.begin(), files.end(), [](const fs::path& a, const fs::path& b) {
    const std::string sa = a.stem().string(), sb = b.stem().string();
    return sa.size() != sb.size() ? sa.size() < sb.size() : sa < sb; // input_2 before input_10
  });
  try {
    ir::Graph g = frontend::importOnnxFile((dir / "model.onnx").string());
    if (files.size() != g.inputs.size())
      return std::nullopt;
    std::vector<ir::ValueId> kept;
    std::vector<Tensor> data;
    bool bound = false;
    for (size_t i = 0; i < files.size(); ++i) {
      const Tensor t = frontend::readTensorProtoFile(files[i].string());
      const ir::ValueId v = g.inputs[i];
      bool weightOnly = !g.users(v).empty();
      for (ir::NodeId u : g.users(v)) {
        const ir::Node& n = g.node(u);
        for (size_t k = 0; k < n.inputs.size(); ++k)
          weightOnly = weightOnly && (n.inputs[k] != v || (ops.contains(n.op) && k >= 1));
      }
      ir::Value& value = g.value(v);
      value.dtype = t.dtype();
      value.shape = t.shape();
      value.shapeKnown = true;
      if (weightOnly) {
        value.constant = std::make_shared<const Tensor>(t);
        bound = true;
      } else {
        kept.push_back(v);
        data.push_back(t);
      }
    }
    if (!bound)
      return std::nullopt; // nothing to bind: the as-loaded run already covers the case
    g.inputs = kept;
    driver::prepareGraph(g);
    return std::make_pair(std::move(g), std::move(data));
  } catch (const Error&) {
    return std::nullopt;
  }
}

/// Calls \p run(name, graph) for every passing case whose model loads as it is and that
/// \p wanted(graph) selects (a case that needs its test data bound as constants does not load
/// this way: forEachBoundCase and OnnxBackendTest cover it).
template <typename Wanted, typename Run> void forEachLoadedCase(Wanted&& wanted, Run&& run) {
  for (const std::string& name : passingCases()) {
    const std::filesystem::path model = dataRoot() / name / "model.onnx";
    if (!std::filesystem::exists(model))
      continue;
    ir::Graph g;
    try {
      g = driver::loadModel(model.string());
    } catch (const Error&) {
      continue;
    }
    if (wanted(g))
      run(name, g);
  }
}

/// Calls \p run(name, graph, dataInputs) for every passing case that loadWithBoundWeights
/// prepares and that has a node of \p ops.
template <typename Run> void forEachBoundCase(const ArrayOps& ops, Run&& run) {
  for (const std::string& name : passingCases()) {
    if (!std::filesystem::exists(dataRoot() / name / "model.onnx"))
      continue;
    auto loaded = loadWithBoundWeights(dataRoot() / name, ops);
    if (loaded && ops.inGraph(loaded->first))
      run(name, loaded->first, loaded->second);
  }
}

} // namespace nnaccel::conformance
