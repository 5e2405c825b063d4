/// \file
/// The ONNX backend conformance cases on the broadcast engine (1xN kernel decomposition with
/// activation broadcasting). Every case of the manifest that nnaccel passes and that contains a
/// Conv or Gemm runs, after int8 quantization, on the `npu` preset (N chosen per layer by the
/// cycle estimate, two broadcast groups per column) and on the `fig8` preset (one column of 4
/// PEs, N = 3: dummy columns and conventional fallbacks on small kernels) and must match the int8
/// reference executor bit for bit on every layer: first as loaded (weights fed as graph inputs
/// stay runtime inputs, so those layers run on the host), then with the weights and biases of
/// test_data_set_0 bound as constants and its data inputs fed, so that the batch-1, 1-D / 2-D
/// cases run their convolutions on the PE array. ConvTranspose runs on the host on this engine,
/// so it is not an array operator here (BackendCases.h).
#include "BackendCases.h"
#include "nnaccel/arch/broadcast/Session.h"
#include "nnaccel/driver/ModelLoader.h"
#include "nnaccel/support/Error.h"

#include <cstdio>
#include <filesystem>
#include <gtest/gtest.h>

namespace fs = std::filesystem;

namespace {

using namespace nnaccel;
namespace broadcast = nnaccel::arch::broadcast;

using nnaccel::conformance::dataRoot;
using nnaccel::conformance::forEachBoundCase;
using nnaccel::conformance::forEachLoadedCase;

/// The broadcast engine runs Conv and Gemm on its PE array (ConvTranspose on the host).
constexpr nnaccel::conformance::ArrayOps kArrayOps{.convTranspose = false};

struct Tally {
  int cases = 0;        ///< cases run (each on both presets)
  int casesOnArray = 0; ///< of those, cases with at least one array layer on both presets
  int arrayLayers = 0;  ///< array layers over both presets
  std::string hostOnly; ///< names of the cases with no array layer, for the log

  void print(const char* what) const {
    std::printf("ran %d conformance cases with Conv/Gemm %s: %d on the array (%d array layers "
                "over both presets); host only: %s\n",
                cases, what, casesOnArray, arrayLayers,
                hostOnly.empty() ? "none" : hostOnly.c_str());
  }
};

/// Runs \p g with \p inputs (empty: the session's random inputs) on both presets, expects a
/// checked, bit-exact verdict and counts the array layers into \p tally.
void runCase(const std::string& name, const ir::Graph& g, const std::vector<Tensor>& inputs,
             Tally& tally) {
  SCOPED_TRACE(name);
  bool onArray = true;
  for (const char* preset : {"npu", "fig8"}) {
    SCOPED_TRACE(preset);
    broadcast::SessionOptions o;
    o.inputs = inputs;
    const auto r = broadcast::simulateModel(g, broadcast::broadcastPreset(preset), o);
    EXPECT_TRUE(r.report.verdict.checked);
    EXPECT_TRUE(r.report.verdict.passed) << r.report.verdict.detail;
    EXPECT_GT(r.report.verdict.comparedElements, 0);
    int layers = 0;
    for (const auto& l : r.program.layers)
      layers += l.kind == broadcast::LayerKind::Conv ? 1 : 0;
    tally.arrayLayers += layers;
    onArray = onArray && layers > 0;
  }
  ++tally.cases;
  tally.casesOnArray += onArray ? 1 : 0;
  if (!onArray)
    tally.hostOnly.append(tally.hostOnly.empty() ? "" : " ").append(name);
}

TEST(BroadcastConformance, ConvAndGemmCasesBitExactInInt8) {
  Tally tally;
  forEachLoadedCase(
      [](const ir::Graph& g) { return kArrayOps.inGraph(g); },
      [&](const std::string& name, const ir::Graph& g) { runCase(name, g, {}, tally); });
  if (fs::exists(dataRoot())) {
    EXPECT_GE(tally.cases, 20) << "expected the ONNX test data's Conv/Gemm cases";
    EXPECT_GE(tally.casesOnArray, 3) << "the cases with constant weights run on the array";
    EXPECT_GE(tally.arrayLayers, 6);
  }
  tally.print("as loaded");
}

TEST(BroadcastConformance, CasesWithBoundWeightsRunOnTheArrayBitExact) {
  Tally tally;
  forEachBoundCase(kArrayOps,
                   [&](const std::string& name, const ir::Graph& g,
                       const std::vector<Tensor>& inputs) { runCase(name, g, inputs, tally); });
  if (fs::exists(dataRoot())) {
    // 19 cases bind weights; all but the Gemms with transA or a matrix bias (host) reach the
    // array on both presets.
    EXPECT_GE(tally.cases, 15) << "expected the cases with weights as graph inputs";
    EXPECT_GE(tally.casesOnArray, 15) << "expected most bound cases on the array";
  }
  tally.print("with bound weights");
}

} // namespace
