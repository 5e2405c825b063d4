/// \file
/// Issue 3 item 6 on whole models: every zoo model, compiled in int8 for the server preset (and
/// the small ones also for the small preset, whose tiny buffers force tiling and spills), matches
/// the int8 reference executor bit for bit on every layer; the cycle totals are deterministic.
#include "nnaccel/zoo/Zoo.h"

#include "nnaccel/arch/systolic/Session.h"
#include "nnaccel/driver/ModelLoader.h"

#include <gtest/gtest.h>

namespace nnaccel::arch::systolic {
namespace {

class SystolicZoo : public ::testing::TestWithParam<std::string> {};

TEST_P(SystolicZoo, Int8BitExactOnServerPreset) {
  const ir::Graph g = driver::loadModel(GetParam());
  SessionOptions o;
  const SessionResult a = simulateModel(g, systolicPreset("server"), o);
  EXPECT_TRUE(a.report.verdict.passed) << a.report.verdict.detail;
  EXPECT_GT(a.report.verdict.comparedElements, 0);
  EXPECT_GT(a.report.total.cycles, 0);
  // The array cannot issue more than its peak. Utilization (useful_macs, padding taps included,
  // over the peak) may exceed 1 on layers whose padding taps the weight plans skip (dilated
  // ASPP branches, 3x3 convolutions on small planes): the slots actually issued may not.
  const auto issuedAtMost = [&](const report::LayerStats& l) {
    return a.report.peakMacsPerCycle * l.cycles;
  };
  EXPECT_LE(a.report.total.issuedMacs, issuedAtMost(a.report.total));
  for (const auto& l : a.report.layers)
    EXPECT_LE(l.issuedMacs, issuedAtMost(l)) << l.name;
  o.verify = false;
  const SessionResult b = simulateModel(g, systolicPreset("server"), o);
  EXPECT_EQ(a.report.total.cycles, b.report.total.cycles) << "timing-only differs";
  EXPECT_EQ(a.report.toJson(),
            simulateModel(g, systolicPreset("server"), SessionOptions{}).report.toJson())
      << "not deterministic";
}

INSTANTIATE_TEST_SUITE_P(All, SystolicZoo,
                         ::testing::Values("lenet5", "alexnet", "vgg16", "resnet18", "resnet50",
                                           "mobilenetv2", "dcgan", "aspp", "unet"));

TEST(SystolicZooSmall, SmallModelsBitExactOnSmallPreset) {
  for (const char* name : {"lenet5", "dcgan", "unet", "mobilenetv2"}) {
    const ir::Graph g = driver::loadModel(name);
    const SessionResult r = simulateModel(g, systolicPreset("small"), SessionOptions{});
    EXPECT_TRUE(r.report.verdict.passed) << name << ": " << r.report.verdict.detail;
  }
}

} // namespace
} // namespace nnaccel::arch::systolic
