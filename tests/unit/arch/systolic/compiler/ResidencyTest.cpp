/// \file
/// Activations on chip (compiler/Residency.cpp): intermediate outputs live in the SBUF resident
/// region and cost no DRAM traffic, what does not fit spills with a note, a layer that needs
/// the whole buffer shrinks the region instead of failing, and depthwise weights cost only
/// their own bytes of DRAM.
#include "LayerGraphs.h"
#include "nnaccel/arch/systolic/Compiler.h"
#include "nnaccel/arch/systolic/Session.h"
#include "nnaccel/driver/ModelLoader.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <map>
#include <set>

namespace nnaccel::arch::systolic {
namespace {

using testing::buildLayerGraph;
using testing::LayerSpec;

SessionResult run(const ir::Graph& g, const SystolicConfig& c) {
  SessionOptions o;
  o.dtype = DType::I8;
  return simulateModel(g, c, o);
}

int64_t dramBytes(const report::RunReport& r) {
  return r.total.dram.readBytes + r.total.dram.writeBytes;
}

TEST(SystolicResidency, IntermediateActivationsStayOnChip) {
  const ir::Graph g = driver::loadModel("lenet5");
  SystolicConfig c = systolicPreset("server");
  const SessionResult on = run(g, c);
  c.sbufResidentBytesPerPartition = 0;
  const SessionResult off = run(g, c);
  ASSERT_TRUE(on.report.verdict.passed) << on.report.verdict.detail;
  ASSERT_TRUE(off.report.verdict.passed) << off.report.verdict.detail;
  for (const DramTensor& t : on.program.tensors) {
    const bool onChip = isResidentAddr(t.addr);
    EXPECT_EQ(onChip, t.role == DramTensor::Role::Activation) << t.name;
  }
  // Off chip, every intermediate output is written once and read at least once more (a view
  // shares its input's bytes: count each address once).
  int64_t intermediate = 0;
  std::set<int64_t> seen;
  for (const DramTensor& t : on.program.tensors)
    if (t.role == DramTensor::Role::Activation && seen.insert(t.addr).second)
      intermediate += t.bytes();
  EXPECT_GE(dramBytes(off.report) - dramBytes(on.report), 2 * intermediate);
}

TEST(SystolicResidency, WhatDoesNotFitSpillsAndTheNoteSaysSo) {
  const ir::Graph g = driver::loadModel("lenet5");
  SystolicConfig c = systolicPreset("small");
  c.sbufResidentBytesPerPartition = 64; // 16 x 64 = 1 KiB: conv1's 4,704-byte output spills
  const SessionResult r = run(g, c);
  ASSERT_TRUE(r.report.verdict.passed) << r.report.verdict.detail;
  int spilled = 0, resident = 0;
  for (const DramTensor& t : r.program.tensors)
    if (t.role == DramTensor::Role::Activation)
      ++(isResidentAddr(t.addr) ? resident : spilled);
  EXPECT_GT(spilled, 0);
  EXPECT_GT(resident, 0); // the small tail outputs still fit
  int noted = 0;
  for (const report::LayerStats& l : r.report.layers)
    if (l.note.find("spilled to DRAM: output '") != std::string::npos) {
      ++noted;
      EXPECT_NE(l.note.find("of the 1024 B resident region free over its lifetime is"),
                std::string::npos)
          << l.note;
    }
  EXPECT_EQ(noted, spilled);
  // The summary names the region and the spills.
  std::map<std::string, std::string> summary(r.report.summary.begin(), r.report.summary.end());
  EXPECT_NE(summary["SBUF resident region"].find("1,024 B in all"), std::string::npos);
  EXPECT_NE(summary["SBUF resident region"].find("intermediate layer outputs stay on chip"),
            std::string::npos);
  const std::string& list = summary["outputs spilled to DRAM"];
  int listed = 0;
  for (size_t at = list.find("output '"); at != std::string::npos;
       at = list.find("output '", at + 1))
    ++listed;
  EXPECT_EQ(listed, std::min(noted, 8)) << list;
}

TEST(SystolicResidency, ALayerThatNeedsTheWholeBufferShrinksTheRegion) {
  const LayerSpec s = testing::wideKernelLayer();
  SystolicConfig c = systolicPreset("small");
  c.sbufBytesPerPartition = 8192;
  c.sbufResidentBytesPerPartition = 6144; // 2 KiB of working area; the weights need 3,136 B
  const SessionResult r = run(buildLayerGraph(s), c);
  ASSERT_TRUE(r.report.verdict.passed) << r.report.verdict.detail;
  EXPECT_LT(r.program.config.sbufResidentBytesPerPartition, 6144);
  EXPECT_NE(r.report.layers[0].note.find("the SBUF resident region shrank from 6144 to"),
            std::string::npos)
      << r.report.layers[0].note;
}

TEST(SystolicResidency, DepthwiseWeightsCostTheirOwnBytes) {
  LayerSpec s;
  s.inChannels = s.outChannels = s.group = 32;
  s.h = s.w = 6;
  s.padTop = s.padLeft = s.padBottom = s.padRight = 1;
  const SessionResult r = run(buildLayerGraph(s), systolicPreset("small"));
  ASSERT_TRUE(r.report.verdict.passed) << r.report.verdict.detail;
  // Reads: the 32 x 6 x 6 input once, 32 x 9 weights and 32 activation-table records of 16 B;
  // not the 16 x 16 x 9 block-diagonal matrix per block.
  EXPECT_EQ(r.report.total.dram.readBytes, 32 * 36 + 32 * 9 + 32 * 16);
}

} // namespace
} // namespace nnaccel::arch::systolic
