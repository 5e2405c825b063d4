/// \file
/// The ONNX backend conformance cases on the sparse engine: every case of the manifest that
/// nnaccel passes and that contains a Conv, ConvTranspose or Gemm runs, after int8
/// quantization, on the `scnn` preset and on the `tiny` preset (2 x 2 PEs, small accumulators
/// and weight FIFO: more groups, halos and fallbacks) and must match the int8 reference executor
/// bit for bit on every layer.
#include "nnaccel/arch/sparse/Session.h"
#include "nnaccel/driver/ModelLoader.h"
#include "nnaccel/support/Error.h"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>

namespace fs = std::filesystem;

namespace {

fs::path dataRoot() {
  if (const char* env = std::getenv("NNACCEL_ONNX_TESTDATA"))
    return env;
  return "/usr/share/libonnx-testdata/data";
}

/// The manifest's passing cases.
std::vector<std::string> passingCases() {
  std::ifstream in(fs::path(NNACCEL_SOURCE_DIR) / "tests/conformance/onnx_backend_cases.tsv");
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

bool hasArrayOperator(const nnaccel::ir::Graph& g) {
  using nnaccel::ir::OpKind;
  for (const auto& n : g.nodes())
    if (n.op == OpKind::Conv || n.op == OpKind::ConvTranspose || n.op == OpKind::Gemm)
      return true;
  return false;
}

TEST(SparseConformance, ConvAndGemmCasesBitExactInInt8) {
  using namespace nnaccel;
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
    EXPECT_GE(onArray, ran) << "most cases run their convolution on the array";
  }
  std::printf("ran %d conformance cases with Conv/ConvTranspose/Gemm (%d array layers)\n", ran,
              onArray);
}

} // namespace
