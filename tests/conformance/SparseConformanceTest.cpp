/// \file
/// The ONNX backend conformance cases on the sparse engine. Every case of the manifest that
/// nnaccel passes and that contains a Conv, ConvTranspose or Gemm runs, after int8
/// quantization, on the `scnn` preset and on the `tiny` preset (2 x 2 PEs, small accumulators
/// and weight FIFO: more groups, halos and fallbacks) and must match the int8 reference executor
/// bit for bit on every layer: first as the systolic conformance test loads them (weights fed
/// as graph inputs stay runtime inputs, so those layers run on the host), then with the weights
/// and biases of test_data_set_0 bound as constants and its data inputs fed, so that every
/// batch-1, 1-D / 2-D case runs its convolution on the PE array.
#include "BackendCases.h"
#include "nnaccel/arch/sparse/Session.h"
#include "nnaccel/driver/ModelLoader.h"
#include "nnaccel/frontend/Onnx.h"
#include "nnaccel/support/Error.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <memory>
#include <optional>
#include <sstream>

namespace fs = std::filesystem;

namespace {

using namespace nnaccel;

using nnaccel::conformance::dataRoot;
using nnaccel::conformance::passingCases;

bool isArrayOp(ir::OpKind op) {
  return op == ir::OpKind::Conv || op == ir::OpKind::ConvTranspose || op == ir::OpKind::Gemm;
}

bool hasArrayOperator(const ir::Graph& g) {
  return std::any_of(g.nodes().begin(), g.nodes().end(),
                     [](const ir::Node& n) { return isArrayOp(n.op); });
}

/// The case's model with test_data_set_0: graph inputs read only as weights or biases
/// (inputs 1 and 2 of Conv, ConvTranspose and Gemm) become constants holding the data set's
/// values; returns the prepared graph and the remaining (data) inputs, or nullopt when the case
/// cannot be loaded this way.
std::optional<std::pair<ir::Graph, std::vector<Tensor>>> loadWithBoundWeights(const fs::path& dir) {
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
          weightOnly = weightOnly && (n.inputs[k] != v || (isArrayOp(n.op) && k >= 1));
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
      return std::nullopt; // nothing to bind: the first test already covers the case
    g.inputs = kept;
    driver::prepareGraph(g);
    return std::make_pair(std::move(g), std::move(data));
  } catch (const Error&) {
    return std::nullopt;
  }
}

TEST(SparseConformance, ConvAndGemmCasesBitExactInInt8) {
  int ran = 0, onArray = 0;
  for (const std::string& name : passingCases()) {
    const fs::path model = dataRoot() / name / "model.onnx";
    if (!fs::exists(model))
      continue;
    ir::Graph g;
    try {
      g = driver::loadModel(model.string());
    } catch (const Error&) {
      continue; // needs its test data bound as constants (OnnxBackendTest covers it)
    }
    if (!hasArrayOperator(g))
      continue;
    SCOPED_TRACE(name);
    for (const char* preset : {"scnn", "tiny"}) {
      SCOPED_TRACE(preset);
      const auto r = arch::sparse::simulateModel(g, arch::sparse::sparsePreset(preset), {});
      EXPECT_TRUE(r.report.verdict.checked);
      EXPECT_TRUE(r.report.verdict.passed) << r.report.verdict.detail;
      for (const auto& l : r.program.layers)
        onArray += l.kind == arch::sparse::LayerKind::Conv ? 1 : 0;
    }
    ++ran;
  }
  if (fs::exists(dataRoot())) {
    EXPECT_GE(ran, 20) << "expected the ONNX test data's Conv/ConvTranspose/Gemm cases";
    EXPECT_GE(onArray, 6) << "the cases with constant weights run on the array";
  }
  std::printf("ran %d conformance cases with Conv/ConvTranspose/Gemm (%d array layers)\n", ran,
              onArray);
}

TEST(SparseConformance, CasesWithBoundWeightsRunOnTheArrayBitExact) {
  int ran = 0, onArray = 0;
  for (const std::string& name : passingCases()) {
    if (!fs::exists(dataRoot() / name / "model.onnx"))
      continue;
    auto loaded = loadWithBoundWeights(dataRoot() / name);
    if (!loaded || !hasArrayOperator(loaded->first))
      continue;
    SCOPED_TRACE(name);
    for (const char* preset : {"scnn", "tiny"}) {
      SCOPED_TRACE(preset);
      arch::sparse::SessionOptions o;
      o.inputs = loaded->second;
      const auto r =
          arch::sparse::simulateModel(loaded->first, arch::sparse::sparsePreset(preset), o);
      EXPECT_TRUE(r.report.verdict.checked);
      EXPECT_TRUE(r.report.verdict.passed) << r.report.verdict.detail;
      for (const auto& l : r.program.layers)
        onArray += l.kind == arch::sparse::LayerKind::Conv ? 1 : 0;
    }
    ++ran;
  }
  if (fs::exists(dataRoot())) {
    EXPECT_GE(ran, 20) << "expected the cases with weights as graph inputs";
    EXPECT_GE(onArray, 20) << "expected most bound cases on the array";
  }
  std::printf("ran %d conformance cases with bound weights (%d array layers)\n", ran, onArray);
}

} // namespace
