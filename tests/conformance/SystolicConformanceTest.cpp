// Issue 3 item 6: every ONNX backend conformance case that nnaccel passes and that contains a
// Conv or ConvTranspose runs, after int8 quantization, on the systolic engine (small preset) and
// must match the int8 reference executor bit for bit on every layer; the fp32 program must agree
// within the stated tolerance.
#include "BackendCases.h"
#include "nnaccel/arch/systolic/Session.h"
#include "nnaccel/driver/ModelLoader.h"
#include "nnaccel/support/Error.h"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>

namespace fs = std::filesystem;

namespace {

using nnaccel::conformance::dataRoot;
using nnaccel::conformance::forEachLoadedCase;

bool hasConv(const nnaccel::ir::Graph& g) {
  for (const auto& n : g.nodes())
    if (n.op == nnaccel::ir::OpKind::Conv || n.op == nnaccel::ir::OpKind::ConvTranspose)
      return true;
  return false;
}

TEST(SystolicConformance, ConvCasesBitExactInInt8AndWithinToleranceInFp32) {
  using namespace nnaccel;
  const auto config = arch::systolic::systolicPreset("small");
  int ran = 0;
  forEachLoadedCase(hasConv, [&](const std::string& name, const ir::Graph& g) {
    SCOPED_TRACE(name);
    for (DType dtype : {DType::I8, DType::F32}) {
      arch::systolic::SessionOptions o;
      o.dtype = dtype;
      const auto r = arch::systolic::simulateModel(g, config, o);
      EXPECT_TRUE(r.report.verdict.checked);
      EXPECT_TRUE(r.report.verdict.passed) << r.report.verdict.detail;
    }
    ++ran;
  });
  if (fs::exists(dataRoot())) {
    EXPECT_GE(ran, 20) << "expected the ONNX test data's Conv/ConvTranspose cases";
  }
  std::printf("ran %d conformance cases with Conv/ConvTranspose\n", ran);
}

} // namespace
