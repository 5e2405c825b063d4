/// \file
/// Whole models on the broadcast engine (slow): every zoo model, compiled in int8 for the `npu`
/// preset, matches the int8 reference executor bit for bit on every layer (MobileNetV2's
/// depthwise layers included), both as built and magnitude-pruned to 50 % weight density
/// with N fixed at 3 (zero weights skipped by the bitmap: fewer MACs, same reads);
/// broadcasting never reads more bytes than either baseline; the totals are printed.
#include "nnaccel/zoo/Zoo.h"

#include "nnaccel/arch/broadcast/Session.h"
#include "nnaccel/driver/ModelLoader.h"
#include "nnaccel/passes/Prune.h"

#include <algorithm>
#include <cstdio>
#include <gtest/gtest.h>

namespace nnaccel::arch::broadcast {
namespace {

std::vector<std::string> modelNames() {
  std::vector<std::string> names;
  for (const zoo::ZooModel& m : zoo::zooModels())
    names.push_back(m.name);
  return names;
}

SessionResult runChecked(const ir::Graph& g, const BroadcastConfig& c = broadcastPreset("npu")) {
  const SessionResult r = simulateModel(g, c, SessionOptions{});
  EXPECT_TRUE(r.report.verdict.checked);
  EXPECT_TRUE(r.report.verdict.passed) << r.report.verdict.detail;
  EXPECT_GT(r.report.verdict.comparedElements, 0);
  const Totals& t = r.totals;
  bool anyArrayLayer = false;
  for (const Layer& l : r.program.layers)
    anyArrayLayer = anyArrayLayer || l.kind == LayerKind::Conv;
  // DCGAN's generator is all ConvTranspose: host layers (the patent decomposes standard and
  // depthwise convolutions), still verified.
  EXPECT_EQ(t.variants[kMethod].activationReads > 0, anyArrayLayer);
  EXPECT_LE(t.variants[kMethod].activationReadBytes, t.variants[kNoBroadcast].activationReadBytes);
  EXPECT_LE(t.variants[kMethod].activationReadBytes, t.variants[kConventional].activationReadBytes);
  return r;
}

void print(const std::string& what, const SessionResult& r) {
  const Totals& t = r.totals;
  std::printf("%s: %lld cycles, reads %lld (1x1 %.2fx, no-broadcast %.2fx), speedup vs 1x1 "
              "%.2fx, vs no-broadcast %.2fx, %.3f writes/read\n",
              what.c_str(), static_cast<long long>(t.variants[kMethod].cycles),
              static_cast<long long>(t.variants[kMethod].activationReads),
              t.readReduction(kConventional), t.readReduction(kNoBroadcast),
              t.speedup(kConventional), t.speedup(kNoBroadcast),
              t.variants[kMethod].writesPerRead());
}

class BroadcastZoo : public ::testing::TestWithParam<std::string> {};

TEST_P(BroadcastZoo, Int8BitExactOnNpu) {
  print(GetParam(), runChecked(driver::loadModel(GetParam())));
}

TEST_P(BroadcastZoo, PrunedToHalfBitExactWithFewerMacs) {
  // N fixed at 3, so that the weights cannot change the decomposition (the automatic choice
  // weighs the MAC time, which the density changes).
  BroadcastConfig c = broadcastPreset("npu");
  c.vectorWidth = 3;
  ir::Graph g = driver::loadModel(GetParam());
  const SessionResult dense = runChecked(g, c);
  passes::PruneSpec spec;
  spec.density = 0.5;
  passes::magnitudePrune(g, spec);
  const SessionResult r = runChecked(g, c);
  // Zero weights cost no MAC slot; the reads do not depend on the weights.
  EXPECT_LE(r.totals.variants[kMethod].macs, dense.totals.variants[kMethod].macs);
  EXPECT_EQ(r.totals.variants[kMethod].activationReads,
            dense.totals.variants[kMethod].activationReads);
  print(GetParam() + " N=3", dense);
  print(GetParam() + " N=3 pruned to 50%", r);
}

std::string modelName(const ::testing::TestParamInfo<std::string>& p) {
  std::string name = p.param; // gtest names allow letters, digits and '_' ("alexnet-caffe")
  std::replace(name.begin(), name.end(), '-', '_');
  return name;
}

INSTANTIATE_TEST_SUITE_P(All, BroadcastZoo, ::testing::ValuesIn(modelNames()), modelName);

} // namespace
} // namespace nnaccel::arch::broadcast
