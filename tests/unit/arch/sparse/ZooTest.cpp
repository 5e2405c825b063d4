/// \file
/// Whole models on the sparse engine (slow): every zoo model, compiled in int8 for the `scnn`
/// preset, matches the int8 reference executor bit for bit on every layer, both as built
/// (dense weights) and magnitude-pruned to 35 % weight density (passes::magnitudePrune); the
/// pruned model has the lower weight density and the accounting invariants hold on every array
/// layer. Each model runs once per variant (the slowest are several seconds in Release).
#include "nnaccel/zoo/Zoo.h"

#include "nnaccel/arch/sparse/Session.h"
#include "nnaccel/driver/ModelLoader.h"
#include "nnaccel/passes/Prune.h"

#include <gtest/gtest.h>

namespace nnaccel::arch::sparse {
namespace {

std::vector<std::string> modelNames() {
  std::vector<std::string> names;
  for (const zoo::ZooModel& m : zoo::zooModels())
    names.push_back(m.name);
  return names;
}

/// Runs \p g on scnn and checks the verdict and the slot accounting of every array layer.
SessionResult runChecked(const ir::Graph& g) {
  const SparseConfig c = sparsePreset("scnn");
  const SessionResult r = simulateModel(g, c, SessionOptions{});
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
    EXPECT_LE(d.products, d.denseAccess.multiplies) << r.program.layers[i].name;
  }
  EXPECT_GT(arrayLayers, 0);
  EXPECT_GT(r.totals.cycles, 0);
  return r;
}

class SparseZoo : public ::testing::TestWithParam<std::string> {};

TEST_P(SparseZoo, Int8BitExactOnScnn) {
  const ir::Graph g = driver::loadModel(GetParam());
  const SessionResult r = runChecked(g);
  std::printf("%s dense weights: %lld cycles, dense baseline %lld, speedup %.2fx, weight "
              "density %.3f, activation density %.3f\n",
              GetParam().c_str(), static_cast<long long>(r.totals.cycles),
              static_cast<long long>(r.totals.denseCycles), r.totals.speedup(),
              r.totals.weightDensity, r.totals.activationDensity);
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

/// Test names are the model names ("SparseZoo/All.Int8BitExactOnScnn/resnet18").
std::string modelName(const ::testing::TestParamInfo<std::string>& p) {
  return p.param;
}

INSTANTIATE_TEST_SUITE_P(All, SparseZoo, ::testing::ValuesIn(modelNames()), modelName);

TEST(SparseZooList, CoversTheWholeZoo) {
  EXPECT_EQ(modelNames(),
            (std::vector<std::string>{"lenet5", "alexnet", "vgg16", "resnet18", "resnet50",
                                      "mobilenetv2", "dcgan", "aspp", "unet", "fig54"}));
}

} // namespace
} // namespace nnaccel::arch::sparse
