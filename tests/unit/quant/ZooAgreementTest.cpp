// fp32-versus-int8 agreement on built-in zoo networks (ResNet-18, LeNet-5, the DCGAN generator)
// after the default pass pipeline (BatchNorm folded, activation fusion marked), as the CLI runs
// them: default seeded calibration, compared on the CLI's evaluation inputs (another seed, none
// of them a calibration input). docs/Quantization.md reports these figures; the thresholds
// leave margin for weight-seed changes.
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
  const std::vector<std::optional<Agreement>> all =
      measureModelAgreement(m, makeCalibrationInputs(g, e.inputs, kDefaultEvaluationSeed));
  ASSERT_EQ(all.size(), 1u);
  ASSERT_TRUE(all[0].has_value());
  const Agreement& a = *all[0];
  RecordProperty("cosine", std::to_string(a.cosineSimilarity));
  EXPECT_EQ(a.samples, e.inputs);
  EXPECT_GT(a.minCosineSimilarity, e.minCosine);
  if (zm->isClassifier) {
    ASSERT_TRUE(a.top1Agreement.has_value());
    EXPECT_EQ(a.top1Matches, a.top1Rows); // no near ties on these inputs (see the doc)
  }
}

INSTANTIATE_TEST_SUITE_P(Models, ZooAgreement,
                         ::testing::Values(Expectation{"resnet18", 0.999, 2},
                                           Expectation{"lenet5", 0.995, 8},
                                           Expectation{"dcgan", 0.995, 2}),
                         [](const auto& param) { return std::string(param.param.model); });

} // namespace
} // namespace nnaccel::quant
