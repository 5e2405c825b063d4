// fp32-versus-int8 agreement on built-in zoo networks (ResNet-18, LeNet-5, the DCGAN generator)
// after the default pass pipeline (BatchNorm folded, activation fusion marked), as the CLI runs
// them: default seeded calibration, compared on fresh seeded inputs. docs/Quantization.md reports
// these figures; the thresholds leave margin for weight-seed changes.
#include "nnaccel/passes/Pipeline.h"
#include "nnaccel/quant/Agreement.h"
#include "nnaccel/quant/Int8Executor.h"
#include "nnaccel/reference/Executor.h"
#include "nnaccel/zoo/Zoo.h"

#include <gtest/gtest.h>

namespace nnaccel::quant {
namespace {

struct Expectation {
  const char* model;
  double minCosine;
  int inputs;
};

void PrintTo(const Expectation& e, std::ostream* os) {
  *os << e.model;
}

class ZooAgreement : public ::testing::TestWithParam<Expectation> {};

TEST_P(ZooAgreement, Int8AgreesWithFp32) {
  const Expectation e = GetParam();
  const zoo::ZooModel* zm = zoo::findZooModel(e.model);
  ASSERT_NE(zm, nullptr);
  ir::Graph g = zm->build(zoo::kDefaultSeed);
  passes::runDefaultPipeline(g);
  const QuantizedModel m = quantize(g, {});
  Int8Executor int8(m);
  reference::Executor fp32(g);
  for (const auto& in : makeCalibrationInputs(g, e.inputs, 2024)) {
    const Tensor f = fp32.run(in)[0];
    const Agreement a = measureAgreement(f, int8.run(in).dequantized[0]);
    RecordProperty("cosine", std::to_string(a.cosineSimilarity));
    EXPECT_GT(a.cosineSimilarity, e.minCosine);
    if (zm->isClassifier) {
      ASSERT_TRUE(a.top1Agreement.has_value());
      EXPECT_EQ(*a.top1Agreement, 1.0);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Models, ZooAgreement,
                         ::testing::Values(Expectation{"resnet18", 0.999, 1},
                                           Expectation{"lenet5", 0.999, 4},
                                           Expectation{"dcgan", 0.995, 2}),
                         [](const auto& param) { return std::string(param.param.model); });

} // namespace
} // namespace nnaccel::quant
