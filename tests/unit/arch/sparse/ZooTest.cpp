/// \file
/// Whole models on the sparse engine (slow): every zoo model, compiled in int8 for the `scnn`
/// preset, matches the int8 reference executor bit for bit on every layer, magnitude-pruned to
/// 35 % weight density (passes::magnitudePrune, the setting the engine is built for) and, for
/// every model but VGG-16, ResNet-50, ASPP and the two Caffe models, also as built (dense weights);
/// the pruned model has the lower weight density and the accounting invariants hold on every
/// array layer.
///
/// VGG-16, ResNet-50 and ASPP run pruned only: VGG-16's dense-weight run was the longest test of
/// the suite (306 s of the 1,098 test-seconds of a CI run, on one core), ResNet-50's the second
/// (71 s), ASPP's later the longest again (102 s of 718), and none reaches a code path that its
/// pruned run (the same layer shapes, dilations, IA RAM overflow and DRAM-bound layers included)
/// and the other models' dense runs do not. So do alexnet-caffe and googlenet, the SCNN paper's
/// models, which the paper runs pruned (alexnet-caffe's dense run alone took 41 s timing-only).
/// The dense-weight runs skip the dense baseline (with dense weights it times the same products
/// again); the pruned runs keep it and check the sparse products against it.
/// `nnaccel simulate vgg16 --arch sparse` runs a model whole.
#include "nnaccel/zoo/Zoo.h"

#include "nnaccel/arch/sparse/Session.h"
#include "nnaccel/driver/ModelLoader.h"
#include "nnaccel/passes/Prune.h"

#include <algorithm>
#include <gtest/gtest.h>

namespace nnaccel::arch::sparse {
namespace {

std::vector<std::string> modelNames() {
  std::vector<std::string> names;
  for (const zoo::ZooModel& m : zoo::zooModels())
    names.push_back(m.name);
  return names;
}

/// The models run with dense weights too: all but VGG-16, ResNet-50, ASPP and the Caffe models
/// (the file comment).
std::vector<std::string> denseWeightModelNames() {
  std::vector<std::string> names = modelNames();
  std::erase(names, "vgg16");
  std::erase(names, "resnet50");
  std::erase(names, "aspp");
  std::erase(names, "alexnet-caffe");
  std::erase(names, "googlenet");
  return names;
}

/// Runs \p g on scnn and checks the verdict and the slot accounting of every array layer
/// (against the dense baseline when \p denseBaseline).
SessionResult runChecked(const ir::Graph& g, bool denseBaseline = true) {
  const SparseConfig c = sparsePreset("scnn");
  SessionOptions o;
  o.denseBaseline = denseBaseline;
  const SessionResult r = simulateModel(g, c, o);
  EXPECT_TRUE(r.report.verdict.checked);
  EXPECT_TRUE(r.report.verdict.passed) << r.report.verdict.detail;
  EXPECT_GT(r.report.verdict.comparedElements, 0);
  const int64_t slotsPerCycle = c.peCount() * c.multipliersPerPe();
  int arrayLayers = 0;
  for (size_t i = 0; i < r.details.size(); ++i) {
    if (r.program.layers[i].kind != LayerKind::Conv)
      continue;
    ++arrayLayers;
    const LayerDetail& d = r.details[i];
    EXPECT_EQ(d.losses.total(), d.cycles * slotsPerCycle) << r.program.layers[i].name;
    EXPECT_GE(d.cycles, d.oracleCycles) << r.program.layers[i].name;
    if (denseBaseline) {
      EXPECT_LE(d.products, d.denseAccess.multiplies) << r.program.layers[i].name;
    }
  }
  EXPECT_GT(arrayLayers, 0);
  EXPECT_GT(r.totals.cycles, 0);
  return r;
}

class SparseZoo : public ::testing::TestWithParam<std::string> {};
class SparseZooDenseWeights : public ::testing::TestWithParam<std::string> {};

TEST_P(SparseZooDenseWeights, Int8BitExactOnScnn) {
  const ir::Graph g = driver::loadModel(GetParam());
  const SessionResult r = runChecked(g, false);
  std::printf("%s dense weights: %lld cycles, weight density %.3f, activation density %.3f\n",
              GetParam().c_str(), static_cast<long long>(r.totals.cycles), r.totals.weightDensity,
              r.totals.activationDensity);
}

TEST_P(SparseZoo, PrunedTo35PercentBitExactOnScnn) {
  ir::Graph g = driver::loadModel(GetParam());
  passes::PruneSpec spec;
  spec.density = 0.35;
  const passes::PruneReport pruned = passes::magnitudePrune(g, spec);
  ASSERT_FALSE(pruned.layers.empty());
  EXPECT_LE(pruned.densityAfter(), 0.36); // round(0.35 x count) per layer
  const SessionResult r = runChecked(g);
  // Quantization can only add zeros (tiny kept weights rounding to 0).
  EXPECT_LE(r.totals.weightDensity, 0.36);
  EXPECT_GT(r.totals.weightDensity, 0.2);
  std::printf("%s pruned to 35%%: %lld cycles, dense baseline %lld, speedup %.2fx, weight "
              "density %.3f, activation density %.3f\n",
              GetParam().c_str(), static_cast<long long>(r.totals.cycles),
              static_cast<long long>(r.totals.denseCycles), r.totals.speedup(),
              r.totals.weightDensity, r.totals.activationDensity);
}

/// Test names are the model names ("All/SparseZoo.PrunedTo35PercentBitExactOnScnn/resnet18").
std::string modelName(const ::testing::TestParamInfo<std::string>& p) {
  std::string name = p.param; // gtest names allow letters, digits and '_' ("alexnet-caffe")
  std::replace(name.begin(), name.end(), '-', '_');
  return name;
}

INSTANTIATE_TEST_SUITE_P(All, SparseZoo, ::testing::ValuesIn(modelNames()), modelName);
INSTANTIATE_TEST_SUITE_P(All, SparseZooDenseWeights, ::testing::ValuesIn(denseWeightModelNames()),
                         modelName);

TEST(SparseZooList, CoversTheWholeZoo) {
  EXPECT_EQ(modelNames(), (std::vector<std::string>{
                              "lenet5", "alexnet", "vgg16", "resnet18", "resnet50", "mobilenetv2",
                              "dcgan", "aspp", "unet", "fig54", "alexnet-caffe", "googlenet"}));
}

} // namespace
} // namespace nnaccel::arch::sparse
