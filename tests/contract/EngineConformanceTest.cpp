/// \file
/// The ONNX backend conformance cases on every registered engine (the contract suite's slow
/// part). Every case of the manifest that nnaccel passes and that contains a convolution or a
/// Gemm runs, after int8 quantization, on each preset of the engine's profile (Profiles.h):
/// first as the model loader loads it (weights fed as graph inputs stay runtime inputs, so
/// those layers run on the host), then with the weights and biases of test_data_set_0 bound as
/// constants and its data inputs fed, so that its convolutions reach the engine's array. A run
/// either matches the int8 reference executor bit for bit on every layer, or the engine refuses
/// the model with a one-line error that is not an internal one. Engines with an fp32 path run
/// the loaded cases in fp32 too, within their stated tolerance.
#include "../conformance/BackendCases.h"
#include "Profiles.h"
#include "nnaccel/engines/Engine.h"
#include "nnaccel/support/Error.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <gtest/gtest.h>

namespace {

using namespace nnaccel;

struct Tally {
  int verified = 0, refused = 0, engineLayers = 0;
};

/// Runs \p g on every profile preset of \p engine; counts into \p t.
void runCase(const engines::Engine& engine, const ir::Graph& g, const std::vector<Tensor>& inputs,
             DType dtype, Tally& t) {
  for (const std::string& preset : contract::presetsOf(engine)) {
    SCOPED_TRACE(preset);
    engines::RunOptions o = contract::runOptionsOf(engine);
    o.inputs = inputs;
    o.dtype = dtype;
    try {
      const report::RunReport r = engine.simulate(g, engine.preset(preset), o);
      EXPECT_TRUE(r.verdict.checked);
      EXPECT_TRUE(r.verdict.passed) << r.verdict.detail;
      ++t.verified;
      t.engineLayers += static_cast<int>(std::count_if(
          r.layers.begin(), r.layers.end(), [](const auto& l) { return !l.hostFallback; }));
    } catch (const Error& e) {
      // A refusal is an nnaccel::Error (an internal invariant would be an assert instead).
      EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
      ++t.refused;
    }
  }
}

class EngineConformance : public ::testing::TestWithParam<std::string> {};

TEST_P(EngineConformance, ConvolutionCasesAreBitExactOrRefusedWithAReason) {
  const engines::Engine& engine = engines::engineNamed(GetParam());
  const conformance::ArrayOps ops{.convTranspose = true};
  Tally t;
  conformance::forEachLoadedCase([&](const ir::Graph& g) { return ops.inGraph(g); },
                                 [&](const std::string& name, const ir::Graph& g) {
                                   SCOPED_TRACE(name);
                                   if (!contract::skipReason(engine, "conformance:" + name).empty())
                                     return;
                                   runCase(engine, g, {}, DType::I8, t);
                                   if (engine.fp32Unavailable().empty())
                                     runCase(engine, g, {}, DType::F32, t);
                                 });
  conformance::forEachBoundCase(
      ops, [&](const std::string& name, const ir::Graph& g, const std::vector<Tensor>& inputs) {
        SCOPED_TRACE(name + " (bound weights)");
        if (!contract::skipReason(engine, "conformance:" + name).empty())
          return;
        runCase(engine, g, inputs, DType::I8, t);
      });
  if (std::filesystem::exists(conformance::dataRoot())) {
    EXPECT_GE(t.verified, contract::profileOf(GetParam()).minConformanceRuns);
  }
  std::printf("%s: %d conformance runs verified bit-exact (%d layers on the engine), %d refused "
              "with a reason\n",
              GetParam().c_str(), t.verified, t.engineLayers, t.refused);
}

INSTANTIATE_TEST_SUITE_P(Registered, EngineConformance, ::testing::ValuesIn(engines::engineNames()),
                         [](const ::testing::TestParamInfo<std::string>& engine) {
                           return engine.param;
                         });

} // namespace
