/// \file
/// Tests of the DCNN baseline (sim/DotProductBaseline.h, baseline.dataflow: dot_product): the
/// work of small layers counted by hand (F dot products of I channels per PE, one accumulator
/// read-add-write per dot product, the group barrier and the exposed post-processing tail), a
/// depthwise layer's idle dot-product lanes, and a session on the scnn-isca17 preset: DCNN's and
/// DCNN-opt's energies in the report's counts and summary, DCNN-opt never above DCNN on a pruned
/// layer with sparse inputs, and the same cycles for both.
#include "DotProductBaseline.h"

#include "LayerSpecGraphs.h"
#include "nnaccel/arch/sparse/Compiler.h"
#include "nnaccel/arch/sparse/Session.h"
#include "nnaccel/driver/ModelLoader.h"
#include "nnaccel/quant/QuantizedModel.h"
#include "nnaccel/zoo/GraphBuilder.h"

#include <gtest/gtest.h>

namespace nnaccel::arch::sparse {
namespace {

using testing::buildLayerGraph;
using testing::conv;
using testing::sparseInputs;

/// The DCNN work of the one-layer graph \p g on \p c (dense input: every pixel counts).
DotProductWork workOf(const ir::Graph& g, const SparseConfig& c) {
  const quant::QuantizedModel qm = quant::quantize(g, {});
  const Program p = compile(qm, c);
  const ConvLayer& l = p.layers.at(0).conv;
  const Tensor x = qm.quantizeInput(sparseInputs(g, 1.0, 5)[0], g.inputs[0]).data;
  return dotProductWork(l, c, compactInput(l, c, x.data<int8_t>()));
}

TEST(SparseDotProductBaseline, CountsAOneByOneLayerByHand) {
  // tiny: 2x2 PEs, F = I = 2. C = 3, K = 3, 4x4, 1x1: every PE holds 2x2 pixels, one group
  // (Kc = 3). Per PE: 4 pixels x 1 tap x ceil(3/2) x ceil(3/2) = 16 cycles; the last group's
  // post-processing, 4 outputs x 3 channels at one op per cycle, adds 12.
  const DotProductWork w = workOf(buildLayerGraph(conv(3, 3, 4, 4, 1, 0)), sparsePreset("tiny"));
  EXPECT_EQ(w.computeCycles, 16 + 12);
  EXPECT_EQ(w.access.multiplies, 4 * 4 * 3 * 3);     // every MAC of the layer
  EXPECT_EQ(w.access.accumulatorRmw, 4 * 4 * 2 * 3); // per pixel and output: ceil(3/2) dot products
  EXPECT_EQ(w.access.weightFifoReadBytes, 4 * 4 * 3 * 3 * 2);
  EXPECT_EQ(w.access.iaReadBytes, 4 * 4 * 3 * 2);      // each pixel's channels once per group
  EXPECT_EQ(w.access.weightFifoWriteBytes, 9 * 2 * 4); // the weights, broadcast to 4 PEs
  EXPECT_EQ(w.access.oaWriteBytes, 3 * 16 * 2);
}

TEST(SparseDotProductBaseline, AFusedPoolingStoresThePooledOutputAfterItsPostProcessing) {
  // The same layer with a 2x2 stride-2 max pool fused into its post-processing: each PE's
  // 2x2 tile pools to one output (4 window elements per channel, nothing from a neighbour), so
  // the exposed tail is (4 + 4) x 3 ops, and the pooled 3 x 2 x 2 output is what is stored.
  zoo::GraphBuilder b("fused", 3);
  ir::ValueId x = b.input("input", {1, 3, 4, 4});
  x = b.maxPool("pool", b.conv("conv", x, zoo::ConvSpec{3, 1, 1, 0}), zoo::PoolSpec{});
  b.output(x, "output");
  ir::Graph g = b.finish();
  driver::prepareGraph(g);
  const DotProductWork w = workOf(g, sparsePreset("tiny"));
  EXPECT_EQ(w.computeCycles, 16 + (4 + 4) * 3);
  EXPECT_EQ(w.access.oaWriteBytes, 3 * 4 * 2);
}

TEST(SparseDotProductBaseline, DepthwiseLeavesDotProductLanesIdle) {
  // 4 channels, group 4: each output channel's dot product has one input channel, so each cycle
  // uses 1 of I = 2 lanes of 1 of F = 2 units: 4 pixels x 4 channels = 16 cycles per PE for 16
  // multiplies.
  testing::LayerSpec s = conv(4, 4, 4, 4, 1, 0);
  s.group = 4;
  const DotProductWork w = workOf(buildLayerGraph(s), sparsePreset("tiny"));
  EXPECT_EQ(w.access.multiplies, 4 * 16);
  EXPECT_EQ(w.computeCycles, 16 + 4 * 4);
}

TEST(SparseDotProductBaseline, SessionReportsDcnnAndDcnnOpt) {
  testing::LayerSpec s = conv(32, 32, 12, 12, 3, 1);
  s.weightDensity = 0.4;
  const ir::Graph g = buildLayerGraph(s);
  SessionOptions o;
  o.inputs = sparseInputs(g, 0.5, 3);
  const SessionResult r = simulateModel(g, sparsePreset("scnn-isca17"), o);
  ASSERT_TRUE(r.report.verdict.passed);
  const report::LayerStats& l = r.report.layers.at(0);
  const auto count = [&](const std::string& key) {
    for (const auto& [k, v] : l.counts)
      if (k == key)
        return v;
    ADD_FAILURE() << "no count " << key;
    return int64_t{0};
  };
  EXPECT_GT(count("dense_energy_pj"), 0);
  EXPECT_LT(count("dense_opt_energy_pj"), count("dense_energy_pj"));
  EXPECT_GT(r.totals.denseOptEnergyPj, 0.0);
  EXPECT_EQ(r.totals.denseCycles, count("dense_cycles"));
  bool dcnn = false, opt = false;
  for (const auto& [k, v] : r.report.summary) {
    dcnn = dcnn || k == "dense baseline (DCNN: PT-IS-DP-dense, the SCNN paper's)";
    opt = opt || k.rfind("DCNN-opt", 0) == 0;
  }
  EXPECT_TRUE(dcnn && opt);
  // The Cartesian-product baseline of the scnn preset reports no DCNN-opt.
  const SessionResult cp = simulateModel(g, sparsePreset("scnn"), o);
  for (const auto& [k, v] : cp.report.layers.at(0).counts)
    EXPECT_NE(k, "dense_opt_energy_pj");
}

} // namespace
} // namespace nnaccel::arch::sparse
