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
#include "nnaccel/support/Error.h"

#include <cstdio>
#include <filesystem>
#include <gtest/gtest.h>

namespace fs = std::filesystem;

namespace {

using namespace nnaccel;

using nnaccel::conformance::dataRoot;
using nnaccel::conformance::forEachBoundCase;
using nnaccel::conformance::forEachLoadedCase;

/// The sparse engine runs Conv, ConvTranspose and Gemm on its PE array.
constexpr nnaccel::conformance::ArrayOps kArrayOps{.convTranspose = true};

TEST(SparseConformance, ConvAndGemmCasesBitExactInInt8) {
  int ran = 0, onArray = 0;
  forEachLoadedCase([](const ir::Graph& g) { return kArrayOps.inGraph(g); },
                    [&](const std::string& name, const ir::Graph& g) {
                      SCOPED_TRACE(name);
                      for (const char* preset : {"scnn", "tiny"}) {
                        SCOPED_TRACE(preset);
                        const auto r =
                            arch::sparse::simulateModel(g, arch::sparse::sparsePreset(preset), {});
                        EXPECT_TRUE(r.report.verdict.checked);
                        EXPECT_TRUE(r.report.verdict.passed) << r.report.verdict.detail;
                        for (const auto& l : r.program.layers)
                          onArray += l.kind == arch::sparse::LayerKind::Conv ? 1 : 0;
                      }
                      ++ran;
                    });
  if (fs::exists(dataRoot())) {
    EXPECT_GE(ran, 20) << "expected the ONNX test data's Conv/ConvTranspose/Gemm cases";
    EXPECT_GE(onArray, 6) << "the cases with constant weights run on the array";
  }
  std::printf("ran %d conformance cases with Conv/ConvTranspose/Gemm (%d array layers)\n", ran,
              onArray);
}

TEST(SparseConformance, CasesWithBoundWeightsRunOnTheArrayBitExact) {
  int ran = 0, onArray = 0;
  forEachBoundCase(kArrayOps, [&](const std::string& name, const ir::Graph& g,
                                  const std::vector<Tensor>& inputs) {
    SCOPED_TRACE(name);
    for (const char* preset : {"scnn", "tiny"}) {
      SCOPED_TRACE(preset);
      arch::sparse::SessionOptions o;
      o.inputs = inputs;
      const auto r = arch::sparse::simulateModel(g, arch::sparse::sparsePreset(preset), o);
      EXPECT_TRUE(r.report.verdict.checked);
      EXPECT_TRUE(r.report.verdict.passed) << r.report.verdict.detail;
      for (const auto& l : r.program.layers)
        onArray += l.kind == arch::sparse::LayerKind::Conv ? 1 : 0;
    }
    ++ran;
  });
  if (fs::exists(dataRoot())) {
    EXPECT_GE(ran, 20) << "expected the cases with weights as graph inputs";
    EXPECT_GE(onArray, 20) << "expected most bound cases on the array";
  }
  std::printf("ran %d conformance cases with bound weights (%d array layers)\n", ran, onArray);
}

} // namespace
