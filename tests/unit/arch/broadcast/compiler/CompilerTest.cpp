/// \file
/// Tests of the broadcast engine's compiler (Compiler.h) on whole one-layer graphs: the choice
/// of N (the config's, clipped to the kernel; per-layer overrides and their errors; the cycle
/// estimate's best when N is 0; conventional for 1x1 kernels and Gemm), dummy columns and the
/// transpose on real layers (seed 004 ¶0060-0064, FIG. 5), the weight operands against the
/// quantized weights, the tiling against the register files, both baselines, the host fallbacks
/// with their reasons, depthwise versus grouped convolution, and fused activations.
#include "nnaccel/arch/broadcast/Compiler.h"

#include "LayerSpecGraphs.h"
#include "nnaccel/quant/QuantizedModel.h"
#include "nnaccel/support/Error.h"
#include "nnaccel/support/IntMath.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <tuple>

namespace nnaccel::arch::broadcast {
namespace {

namespace testing = nnaccel::testing;
using testing::buildLayerGraph;
using testing::conv;
using testing::LayerSpec;

/// A quantized graph and its program.
struct Compiled {
  quant::QuantizedModel qm;
  Program program;
  const Layer& layer(const std::string& name) const {
    for (const Layer& l : program.layers)
      if (l.name == name)
        return l;
    ADD_FAILURE() << "no layer " << name;
    return program.layers.front();
  }
  const Layer& first() const { return program.layers.front(); }
};

Compiled compileGraph(const ir::Graph& g, const BroadcastConfig& config) {
  Compiled c{quant::quantize(g, {}), {}};
  c.program = compile(c.qm, config);
  return c;
}

Compiled compileSpec(const LayerSpec& s, const BroadcastConfig& config) {
  return compileGraph(buildLayerGraph(s), config);
}

BroadcastConfig withWidth(BroadcastConfig c, int64_t n) {
  c.vectorWidth = n;
  return c;
}

/// The npu preset with broadcast groups of 8 PEs (N up to 8).
BroadcastConfig wideGroups() {
  BroadcastConfig c = broadcastPreset("npu");
  c.groupSize = 8;
  return c;
}

/// Every weight operand of Conv layer \p l equals makeWeightOperand of the quantized ONNX
/// weights [M, C/g, kh, kw] under the layer's decomposition (depthwise: one operand whose
/// channel c is filter c's).
void expectWeightOperands(const Compiled& cm, const Layer& l) {
  const ConvLayer& c = l.conv;
  const ir::ConvParams cp = ir::convParams(cm.qm.graph, l.node);
  const bool twoD = cp.spatialRank == 2;
  const int64_t kh = twoD ? cp.kernel[0] : 1, kw = cp.kernel.back();
  const int64_t cg = cp.inChannels / cp.group;
  const int8_t* w = cm.qm.node(l.node).weights.data<int8_t>();
  const Decomposition& d = c.tiling.decomposition;
  ASSERT_EQ(static_cast<int64_t>(c.weights.size()), c.depthwise ? 1 : cp.outChannels);
  int64_t nonZero = 0;
  for (int64_t i = 0; i < numElements(cm.qm.node(l.node).weights.shape()); ++i)
    nonZero += w[i] != 0 ? 1 : 0;
  EXPECT_EQ(c.nonZeroWeights, nonZero);
  EXPECT_EQ(c.denseWeights, cp.outChannels * cg * kh * kw);
  for (size_t m = 0; m < c.weights.size(); ++m) {
    const KernelFn fn = [&](int64_t ch, int64_t ky, int64_t kx) {
      const int64_t filter = c.depthwise ? ch : static_cast<int64_t>(m);
      const int64_t inGroup = c.depthwise ? 0 : ch;
      return w[((filter * cg + inGroup) * kh + ky) * kw + kx];
    };
    const WeightOperand want = makeWeightOperand(d, c.depthwise ? cp.inChannels : cg, fn);
    const WeightOperand& got = c.weights[m];
    EXPECT_EQ(got.taps, want.taps);
    EXPECT_EQ(got.depth, want.depth);
    EXPECT_EQ(got.values, want.values) << "filter " << m;
    EXPECT_EQ(got.bitmap, want.bitmap) << "filter " << m;
  }
}

/// The tiling \p t of \p c fits the register files and the column buffer of \p config.
void expectFits(const ConvLayer& c, const Tiling& t, const BroadcastConfig& config) {
  const int64_t n = t.decomposition.vectorWidth;
  const int64_t buffers = config.inputRfPolicy == RfPolicy::DoubleBuffer ? 2 : 1;
  const int64_t channels = c.depthwise ? c.inChannels : c.channelsPerGroup();
  EXPECT_GE(t.channelChunk, 1);
  EXPECT_LE(t.channelChunk, channels);
  EXPECT_LE(n * t.channelChunk * buffers, config.inputRfBytes);
  // A weight segment slice: N x chunk int8 values plus their bitmap bits, per filter.
  const int64_t filters = c.depthwise ? 1 : t.filterBlock;
  EXPECT_LE(filters * (n * t.channelChunk + ceilDiv(n * t.channelChunk, 8)), config.weightRfBytes);
  EXPECT_GE(t.operandBlock, 1);
  EXPECT_GE(t.filterBlock, 1);
  const int64_t operandsPerPe = ceilDiv(t.operandBlock, config.groupSize);
  if (c.depthwise) {
    EXPECT_EQ(t.filterBlock, 1);
    EXPECT_LE(t.channelChunk * 4 * operandsPerPe, config.outputRfBytes);
  } else {
    EXPECT_LE(t.filterBlock, c.filtersPerGroup());
    EXPECT_LE(operandsPerPe * t.filterBlock * 4, config.outputRfBytes);
  }
}

/// Decomposition, baselines and tilings of every array layer of \p cm.
void expectConsistent(const Compiled& cm, const BroadcastConfig& config) {
  for (const Layer& l : cm.program.layers) {
    if (l.kind != LayerKind::Conv)
      continue;
    SCOPED_TRACE(l.name + ": " + l.note);
    const ConvLayer& c = l.conv;
    EXPECT_TRUE(c.tiling.broadcast);
    EXPECT_FALSE(c.baselineConventional.broadcast);
    EXPECT_FALSE(c.baselineNoBroadcast.broadcast);
    EXPECT_EQ(c.baselineConventional.decomposition.vectorWidth, 1);
    EXPECT_FALSE(c.baselineConventional.decomposition.transposed);
    EXPECT_EQ(c.baselineNoBroadcast.decomposition, c.tiling.decomposition);
    for (const Tiling* t : {&c.tiling, &c.baselineConventional, &c.baselineNoBroadcast})
      expectFits(c, *t, config);
    EXPECT_EQ(static_cast<int64_t>(c.post.size()), c.outChannels);
    if (cm.qm.graph.node(l.node).op == ir::OpKind::Conv)
      expectWeightOperands(cm, l);
  }
  int64_t weightBytes = 0;
  for (const Layer& l : cm.program.layers)
    for (const WeightOperand& w : l.conv.weights)
      weightBytes +=
          static_cast<int64_t>(w.values.size()) + ceilDiv(static_cast<int64_t>(w.bitmap.size()), 8);
  EXPECT_EQ(cm.program.weightBytes, weightBytes);
}

// --- N from the config ------------------------------------------------------------------------

TEST(BroadcastCompilerTest, ReportsItsProgressNodeByNode) {
  const BroadcastConfig config = broadcastPreset("fig8");
  const Compiled cm = compileSpec(conv(3, 4, 6, 8, 3, 1), config);
  std::vector<std::pair<size_t, size_t>> seen;
  const Program p =
      compile(cm.qm, config, [&](size_t done, size_t total) { seen.emplace_back(done, total); });
  ASSERT_FALSE(seen.empty());
  EXPECT_EQ(seen.back(), std::make_pair(cm.qm.graph.numNodes(), cm.qm.graph.numNodes()));
  EXPECT_TRUE(std::is_sorted(seen.begin(), seen.end()));
  EXPECT_EQ(p.layers.size(), cm.program.layers.size());
}

TEST(BroadcastCompilerTest, ConfigWidthThreeOnThreeByThreeGivesOneByThreeVectors) {
  const BroadcastConfig config = broadcastPreset("fig8");
  const Compiled cm = compileSpec(conv(3, 4, 6, 8, 3, 1), config);
  ASSERT_EQ(cm.program.layers.size(), 1u);
  const Layer& l = cm.first();
  EXPECT_EQ(l.kind, LayerKind::Conv);
  EXPECT_EQ(l.op, "Conv");
  const Decomposition& d = l.conv.tiling.decomposition;
  EXPECT_EQ(d, (Decomposition{3, false, 3, 3, 3}));
  EXPECT_EQ(l.conv.dummyWeights, 0);
  EXPECT_EQ(l.conv.weights[0].depth, 3 * 3); // H_f * V * C = 3 * 1 * 3
  EXPECT_EQ(l.note, "3x3: 1x3 vectors");
  EXPECT_EQ(l.conv.usefulMacs, ir::convParams(cm.qm.graph, l.node).macs());
  expectConsistent(cm, config);
}

TEST(BroadcastCompilerTest, ConfigWidthWiderThanTheKernelIsClipped) {
  const BroadcastConfig config = withWidth(wideGroups(), 5);
  const Compiled cm = compileSpec(conv(3, 4, 6, 8, 3, 1), config);
  EXPECT_EQ(cm.first().conv.tiling.decomposition, (Decomposition{3, false, 3, 3, 3}));
  expectConsistent(cm, config);
}

TEST(BroadcastCompilerTest, FiveByFiveWithThreeIsExpandedWithOneDummyColumn) {
  // FIG. 5: W_ef = 6, one dummy column per kernel row and channel of every filter.
  const BroadcastConfig config = broadcastPreset("fig8");
  const Compiled cm = compileSpec(conv(3, 4, 7, 9, 5, 2), config);
  const ConvLayer& c = cm.first().conv;
  EXPECT_EQ(c.tiling.decomposition, (Decomposition{3, false, 5, 5, 6}));
  EXPECT_EQ(c.tiling.decomposition.vectorsPerRow(), 2);
  EXPECT_EQ(c.dummyWeights, 4 * 5 * 3); // filters x rows x C
  EXPECT_EQ(c.weights[0].depth, 5 * 2 * 3);
  EXPECT_EQ(cm.first().note, "5x5: 1x3 vectors, 1 dummy column");
  // The dummy taps (segment v = 1, tap 2) are zero with a clear bitmap bit.
  for (const WeightOperand& w : c.weights)
    for (int64_t r = 0; r < 5; ++r)
      for (int64_t ch = 0; ch < 3; ++ch) {
        EXPECT_EQ(w.value(2, (r * 2 + 1) * 3 + ch), 0);
        EXPECT_FALSE(w.bit(2, (r * 2 + 1) * 3 + ch));
      }
  expectConsistent(cm, config);
}

TEST(BroadcastCompilerTest, NonDivisibleTransposeTransposesKernelAndAxes) {
  // ¶0064: a 4x6 kernel with N = 4: 4 does not divide 6 but divides 4, so the kernel (and the
  // input and output) are transposed: 6 rows of one 1x4 vector, no dummies.
  LayerSpec s = conv(2, 3, 9, 11, 1, 0);
  s.kh = 4;
  s.kw = 6;
  s.sh = 1;
  s.sw = 2;
  s.padTop = 1;
  s.padLeft = 2;
  BroadcastConfig config = withWidth(broadcastPreset("npu"), 4);
  config.nonDivisible = NonDivisible::Transpose;
  const Compiled cm = compileSpec(s, config);
  const ConvLayer& c = cm.first().conv;
  EXPECT_EQ(c.tiling.decomposition, (Decomposition{4, true, 6, 4, 4}));
  EXPECT_EQ(c.dummyWeights, 0);
  EXPECT_EQ(cm.first().note, "4x6: 1x4 vectors, transposed");
  // The decomposed frame's x is the original height.
  const ir::ConvParams cp = ir::convParams(cm.qm.graph, cm.first().node);
  EXPECT_EQ(c.axes.inW, 9);
  EXPECT_EQ(c.axes.inH, 11);
  EXPECT_EQ(c.axes.outW, cp.outSpatial[0]);
  EXPECT_EQ(c.axes.outH, cp.outSpatial[1]);
  EXPECT_EQ(c.axes.strideX, 1);
  EXPECT_EQ(c.axes.strideY, 2);
  EXPECT_EQ(c.axes.padLeft, 1);
  EXPECT_EQ(c.axes.padTop, 2);
  expectConsistent(cm, config);

  // The same layer with dummy columns instead: W_ef = 8, two dummies per row.
  config.nonDivisible = NonDivisible::Expand;
  const Compiled expanded = compileSpec(s, config);
  const ConvLayer& e = expanded.first().conv;
  EXPECT_EQ(e.tiling.decomposition, (Decomposition{4, false, 4, 6, 8}));
  EXPECT_EQ(e.dummyWeights, 3 * 2 * 4 * 2); // filters x dummy columns x rows x C
  EXPECT_EQ(e.axes.inW, 11);
  expectConsistent(expanded, config);
}

TEST(BroadcastCompilerTest, KernelNarrowerThanNIsTransposed) {
  // A 7x1 kernel with N = 3: the vectors run down the column (7 -> 9 with two dummies).
  LayerSpec s = conv(3, 2, 10, 4, 1, 0);
  s.kh = 7;
  s.kw = 1;
  const BroadcastConfig config = broadcastPreset("fig8");
  const Compiled cm = compileSpec(s, config);
  const ConvLayer& c = cm.first().conv;
  EXPECT_EQ(c.tiling.decomposition, (Decomposition{3, true, 1, 7, 9}));
  EXPECT_EQ(c.dummyWeights, 2 * 2 * 3);
  expectConsistent(cm, config);
}

// --- per-layer overrides ----------------------------------------------------------------------

TEST(BroadcastCompilerTest, LayerOverrideOfOneForcesTheConventionalDecomposition) {
  LayerSpec s = conv(3, 4, 6, 8, 3, 1);
  s.chainChannels = 2; // conv0 -> conv1: only conv0 is overridden
  BroadcastConfig config = broadcastPreset("fig8");
  config.layerVectorWidths = {{"conv0", 1}};
  const Compiled cm = compileSpec(s, config);
  const Layer& l0 = cm.layer("conv0");
  EXPECT_EQ(l0.conv.tiling.decomposition, (Decomposition{1, false, 3, 3, 3}));
  EXPECT_EQ(l0.conv.weights[0].taps, 1);
  EXPECT_EQ(l0.conv.weights[0].depth, 9 * 3);
  EXPECT_EQ(l0.note, "3x3: conventional 1x1 decomposition (N from the config's layer entry)");
  EXPECT_EQ(cm.layer("conv1").conv.tiling.decomposition.vectorWidth, 3);
  expectConsistent(cm, config);
}

TEST(BroadcastCompilerTest, LayerOverrideOverridesTheEstimate) {
  BroadcastConfig config = broadcastPreset("npu");
  config.layerVectorWidths = {{"conv0", 2}};
  const Compiled cm = compileSpec(conv(3, 4, 6, 8, 3, 1), config);
  // 3x3 with N = 2: one dummy column, W_ef = 4.
  EXPECT_EQ(cm.first().conv.tiling.decomposition, (Decomposition{2, false, 3, 3, 4}));
  expectConsistent(cm, config);
}

TEST(BroadcastCompilerTest, LayerOverrideFittingNeitherAxisNamesTheLayerKey) {
  BroadcastConfig config = broadcastPreset("npu");
  config.layerVectorWidths = {{"conv0", 4}}; // <= group size, > both sides of a 3x3 kernel
  const quant::QuantizedModel qm = quant::quantize(buildLayerGraph(conv(3, 4, 6, 8, 3, 1)), {});
  try {
    compile(qm, config);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Config);
    EXPECT_EQ(e.context().key, "decomposition.layers.conv0");
    EXPECT_EQ(e.context().node, "conv0");
    EXPECT_NE(e.reason().find("N = 4"), std::string::npos) << e.reason();
    EXPECT_NE(e.reason().find("3x3"), std::string::npos) << e.reason();
  }
}

TEST(BroadcastCompilerTest, LayerOverrideOfAMissingLayerNamesIt) {
  BroadcastConfig config = broadcastPreset("npu");
  config.layerVectorWidths = {{"conv9", 3}};
  const quant::QuantizedModel qm = quant::quantize(buildLayerGraph(conv(3, 4, 6, 8, 3, 1)), {});
  try {
    compile(qm, config);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Config);
    EXPECT_EQ(e.context().key, "decomposition.layers.conv9");
    EXPECT_NE(e.reason().find("'conv9'"), std::string::npos) << e.reason();
  }
}

TEST(BroadcastCompilerTest, LayerOverrideBeyondTheGroupIsAConfigError) {
  BroadcastConfig config = broadcastPreset("npu");
  config.layerVectorWidths = {{"conv0", 5}}; // N > P = 4
  const quant::QuantizedModel qm = quant::quantize(buildLayerGraph(conv(3, 4, 6, 8, 5, 2)), {});
  try {
    compile(qm, config);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Config);
    EXPECT_EQ(e.context().key, "decomposition.layers.conv0");
  }
}

// --- N chosen by the estimate -----------------------------------------------------------------

/// With vector_width 0 the compiler's N has the smallest (cycles, bytes) estimate of every
/// candidate N = 1 .. min(longest kernel side, P), each compiled through a layer override.
void expectAutoPicksTheBestEstimate(const LayerSpec& s, const BroadcastConfig& config) {
  SCOPED_TRACE(s.describe());
  ASSERT_EQ(config.vectorWidth, 0);
  const Compiled chosen = compileSpec(s, config);
  const Layer& l = chosen.layer("conv0");
  const Estimate best = estimate(l.conv, l.conv.tiling, config);
  EXPECT_NE(l.note.find("(N chosen by the cycle estimate)"), std::string::npos) << l.note;
  int candidates = 0;
  for (int64_t n = 1; n <= std::min(std::max(s.kh, s.kw), config.groupSize); ++n) {
    BroadcastConfig forced = config;
    forced.layerVectorWidths = {{"conv0", n}};
    const Compiled cm = compileSpec(s, forced);
    const ConvLayer& c = cm.layer("conv0").conv;
    EXPECT_EQ(c.tiling.decomposition.vectorWidth, n);
    const Estimate e = estimate(c, c.tiling, config);
    EXPECT_EQ(estimateCycles(c, c.tiling, config), e.cycles);
    EXPECT_GT(e.cycles, 0);
    EXPECT_LE(std::tie(best.cycles, best.memoryReadBytes), std::tie(e.cycles, e.memoryReadBytes))
        << "N = " << n << " estimates " << e.cycles
        << " cycles, the chosen N = " << l.conv.tiling.decomposition.vectorWidth << " "
        << best.cycles;
    if (n == l.conv.tiling.decomposition.vectorWidth) {
      EXPECT_EQ(c.tiling, l.conv.tiling);
    }
    ++candidates;
  }
  EXPECT_GE(candidates, 2);
  expectConsistent(chosen, config);
}

TEST(BroadcastCompilerTest, AutoWidthPicksTheSmallestEstimate) {
  const BroadcastConfig npu = broadcastPreset("npu");
  expectAutoPicksTheBestEstimate(conv(16, 16, 8, 32, 3, 1), npu);
  expectAutoPicksTheBestEstimate(conv(3, 8, 9, 20, 5, 2), npu);
  LayerSpec dw = conv(8, 8, 6, 18, 3, 1);
  dw.group = 8;
  expectAutoPicksTheBestEstimate(dw, npu);
  LayerSpec strided = conv(4, 4, 9, 17, 7, 3);
  strided.sh = strided.sw = 2;
  expectAutoPicksTheBestEstimate(strided, npu);
  LayerSpec sparse = conv(8, 8, 6, 12, 3, 1);
  sparse.weightDensity = 0.3;
  expectAutoPicksTheBestEstimate(sparse, npu);
  BroadcastConfig tiny = npu;
  tiny.inputRfBytes = 16;
  tiny.outputRfBytes = 16;
  expectAutoPicksTheBestEstimate(conv(6, 5, 5, 14, 3, 1), tiny);
}

TEST(BroadcastCompilerTest, EstimateFavoursBroadcastingOverTheNoBroadcastTiling) {
  // Same decomposition, same tiling shape: broadcasting reads fewer bytes.
  const BroadcastConfig config = broadcastPreset("fig8");
  const Compiled cm = compileSpec(conv(4, 4, 5, 18, 3, 0), config);
  const ConvLayer& c = cm.first().conv;
  EXPECT_LT(estimate(c, c.tiling, config).memoryReadBytes,
            estimate(c, c.baselineNoBroadcast, config).memoryReadBytes);
}

// --- conventional layers ----------------------------------------------------------------------

TEST(BroadcastCompilerTest, OneByOneKernelsAndGemmAreConventional) {
  const BroadcastConfig config = broadcastPreset("fig8"); // N = 3 everywhere it fits
  const Compiled pointwise = compileSpec(conv(8, 6, 4, 5, 1, 0), config);
  EXPECT_EQ(pointwise.first().conv.tiling.decomposition, (Decomposition{1, false, 1, 1, 1}));
  EXPECT_EQ(pointwise.first().note, "1x1: conventional 1x1 decomposition");
  expectConsistent(pointwise, config);

  LayerSpec s;
  s.kind = LayerSpec::Kind::Gemm;
  s.inChannels = 20;
  s.outChannels = 7;
  s.h = 5;
  const Compiled gemm = compileSpec(s, config);
  const Layer& l = gemm.first();
  EXPECT_EQ(l.kind, LayerKind::Conv);
  EXPECT_EQ(l.op, "Gemm");
  const ConvLayer& c = l.conv;
  EXPECT_TRUE(c.matrixLayout);
  EXPECT_EQ(c.tiling.decomposition, (Decomposition{1, false, 1, 1, 1}));
  EXPECT_EQ(c.axes.outW, 5);
  EXPECT_EQ(c.axes.outH, 1);
  EXPECT_EQ(c.usefulMacs, 5 * 20 * 7);
  ASSERT_EQ(c.weights.size(), 7u);
  // Gemm weights are quantized as [N, K]: filter m's operand is row m.
  const int8_t* w = gemm.qm.node(l.node).weights.data<int8_t>();
  for (int64_t m = 0; m < 7; ++m) {
    EXPECT_EQ(c.weights[static_cast<size_t>(m)].depth, 20);
    for (int64_t k = 0; k < 20; ++k)
      EXPECT_EQ(c.weights[static_cast<size_t>(m)].value(0, k), w[m * 20 + k]);
  }
  expectConsistent(gemm, config);
}

// --- host fallbacks ---------------------------------------------------------------------------

TEST(BroadcastCompilerTest, ConvTransposeIsDecomposedIntoStridePhases) {
  // 3x3, stride 2, pad 1 on 5x6 -> 9x11: output row phase 0 takes tap 1 (one tap, pad 0), phase
  // 1 taps 2 and 0 (two taps, pad 0); 5 and 4 rows, 6 and 5 columns.
  LayerSpec s = conv(3, 4, 5, 6, 3, 1);
  s.kind = LayerSpec::Kind::ConvTranspose;
  s.sh = s.sw = 2;
  const Compiled cm = compileSpec(s, broadcastPreset("npu"));
  const Layer& l = cm.first();
  EXPECT_EQ(l.kind, LayerKind::Conv);
  EXPECT_EQ(l.op, "ConvTranspose");
  ASSERT_EQ(l.phases.size(), 4u);
  EXPECT_NE(l.note.find("4 stride-phase convolutions"), std::string::npos) << l.note;
  struct Want {
    int64_t offY, offX, outH, outW;
  };
  const Want want[] = {{0, 0, 5, 6}, {0, 1, 5, 5}, {1, 0, 4, 6}, {1, 1, 4, 5}};
  for (size_t i = 0; i < 4; ++i) {
    const ConvLayer& c = l.phases[i];
    const bool t = c.tiling.decomposition.transposed;
    EXPECT_EQ(c.placement.offsetY, want[i].offY);
    EXPECT_EQ(c.placement.offsetX, want[i].offX);
    EXPECT_EQ(c.placement.stepY, 2);
    EXPECT_EQ(c.placement.fullH, 9);
    EXPECT_EQ(c.placement.fullW, 11);
    EXPECT_EQ(t ? c.axes.outW : c.axes.outH, want[i].outH);
    EXPECT_EQ(t ? c.axes.outH : c.axes.outW, want[i].outW);
    EXPECT_EQ(t ? c.axes.padLeft : c.axes.padTop, 0);
  }
  EXPECT_GT(cm.program.weightBytes, 0);
}

/// A 3-D convolution [1, 2, 4, 5, 6] * [3, 2, 2, 2, 2].
ir::Graph conv3dGraph() {
  Rng rng(5);
  ir::Graph g;
  g.name = "conv3d";
  const ir::ValueId x = g.addValue("x", DType::F32, {1, 2, 4, 5, 6});
  const ir::ValueId w =
      g.addConstant("w", testing::detail::sparseWeights(rng, {3, 2, 2, 2, 2}, 1.0));
  ir::AttrMap a;
  a.set("kernel_shape", std::vector<int64_t>{2, 2, 2});
  const ir::ValueId y = testing::detail::addNode(g, ir::OpKind::Conv, "conv0", {x, w}, a);
  g.inputs = {x};
  g.outputs = {y};
  driver::prepareGraph(g);
  return g;
}

TEST(BroadcastCompilerTest, ThreeDConvolutionRunsOnTheHostWithItsReason) {
  const Compiled cm = compileGraph(conv3dGraph(), broadcastPreset("npu"));
  const Layer& l = cm.first();
  EXPECT_EQ(l.kind, LayerKind::Host);
  EXPECT_EQ(l.note, "3-D convolution (kernel vectors run along 1-D and 2-D rows)");
}

// --- depthwise, grouped -----------------------------------------------------------------------

TEST(BroadcastCompilerTest, DepthwiseNeedsGroupEqualToInputAndOutputChannels) {
  const BroadcastConfig config = broadcastPreset("fig8");
  LayerSpec dw = conv(6, 6, 5, 9, 3, 1);
  dw.group = 6;
  const Compiled d = compileSpec(dw, config);
  const ConvLayer& c = d.first().conv;
  EXPECT_TRUE(c.depthwise);
  EXPECT_EQ(c.convGroups, 1);
  ASSERT_EQ(c.weights.size(), 1u); // one operand, channel c = filter c
  EXPECT_EQ(c.weights[0].depth, 3 * 6);
  EXPECT_EQ(c.tiling.filterBlock, 1);
  EXPECT_EQ(d.first().note, "3x3: 1x3 vectors, depthwise");
  expectConsistent(d, config);

  // A channel multiplier (M = 2C) is a grouped convolution of C groups, not depthwise.
  LayerSpec mult = dw;
  mult.outChannels = 12;
  const Compiled m = compileSpec(mult, config);
  EXPECT_FALSE(m.first().conv.depthwise);
  EXPECT_EQ(m.first().conv.convGroups, 6);
  EXPECT_EQ(m.first().conv.weights.size(), 12u);
  EXPECT_EQ(m.first().conv.weights[0].depth, 3 * 1);
  expectConsistent(m, config);

  LayerSpec grouped = conv(6, 4, 5, 9, 3, 1);
  grouped.group = 2;
  const Compiled gr = compileSpec(grouped, config);
  const ConvLayer& g = gr.first().conv;
  EXPECT_FALSE(g.depthwise);
  EXPECT_EQ(g.convGroups, 2);
  EXPECT_EQ(g.channelsPerGroup(), 3);
  EXPECT_EQ(g.filtersPerGroup(), 2);
  EXPECT_EQ(g.weights[0].depth, 3 * 3);
  EXPECT_EQ(gr.first().note, "3x3: 1x3 vectors, 2 groups");
  expectConsistent(gr, config);
}

// --- fused activations ------------------------------------------------------------------------

TEST(BroadcastCompilerTest, FusedReluClampsAtZero) {
  LayerSpec s = conv(3, 4, 5, 6, 3, 1);
  s.relu = true;
  const Compiled cm = compileSpec(s, broadcastPreset("npu"));
  ASSERT_EQ(cm.program.layers.size(), 1u); // the Relu is consumed
  const Layer& l = cm.first();
  EXPECT_EQ(l.op, "Conv+Relu");
  EXPECT_EQ(l.conv.clampMin, 0);
  EXPECT_EQ(l.conv.clampMax, quant::kInt8Max);
  ASSERT_EQ(l.outputs.size(), 1u);
  EXPECT_EQ(l.outputs[0], cm.qm.graph.outputs[0]);
}

TEST(BroadcastCompilerTest, FusedClipTakesItsClampFromTheQuantizedClip) {
  ir::Graph g = buildLayerGraph(conv(3, 4, 5, 6, 3, 1));
  const ir::ValueId lo = g.addConstant("lo", Tensor::fromVector<float>({}, {0.0f}));
  const ir::ValueId hi = g.addConstant("hi", Tensor::fromVector<float>({}, {0.5f}));
  const ir::ValueId y =
      testing::detail::addNode(g, ir::OpKind::Clip, "clip0", {g.outputs[0], lo, hi});
  g.outputs = {y};
  driver::prepareGraph(g);
  const Compiled cm = compileGraph(g, broadcastPreset("npu"));
  ASSERT_EQ(cm.program.layers.size(), 1u);
  const Layer& l = cm.first();
  EXPECT_EQ(l.op, "Conv+Clip");
  ir::NodeId clip = -1;
  for (ir::NodeId id = 0; id < static_cast<ir::NodeId>(cm.qm.graph.numNodes()); ++id)
    if (cm.qm.graph.node(id).name == "clip0")
      clip = id;
  ASSERT_GE(clip, 0);
  EXPECT_EQ(l.conv.clampMin, cm.qm.node(clip).clampMin);
  EXPECT_EQ(l.conv.clampMax, cm.qm.node(clip).clampMax);
  EXPECT_EQ(l.conv.clampMin, 0); // Clip(0, 0.5): the output scale comes from the Clip's range
  EXPECT_EQ(l.outputs[0], y);
}

// --- the tiling -------------------------------------------------------------------------------

TEST(BroadcastCompilerTest, TilingFitsTinyAndLargeRegisterFiles) {
  struct Case {
    const char* what;
    BroadcastConfig config;
  };
  BroadcastConfig tiny = withWidth(broadcastPreset("fig8"), 3);
  tiny.inputRfBytes = 8;
  tiny.outputRfBytes = 4;
  tiny.weightRfBytes = 8;
  BroadcastConfig stall = broadcastPreset("npu");
  stall.inputRfPolicy = RfPolicy::Stall;
  stall.inputRfBytes = 24;
  stall.outputRfBytes = 32;
  BroadcastConfig smallColumnBuffer = broadcastPreset("npu");
  smallColumnBuffer.columnBufferBytes = 64;
  for (const Case& k :
       {Case{"fig8", broadcastPreset("fig8")}, Case{"npu", broadcastPreset("npu")},
        Case{"tiny", tiny}, Case{"stall", stall}, Case{"small column buffer", smallColumnBuffer}}) {
    SCOPED_TRACE(k.what);
    LayerSpec dw = conv(24, 24, 6, 20, 3, 1);
    dw.group = 24;
    LayerSpec grouped = conv(12, 18, 5, 9, 5, 2);
    grouped.group = 3;
    LayerSpec gemm;
    gemm.kind = LayerSpec::Kind::Gemm;
    gemm.inChannels = 70;
    gemm.outChannels = 33;
    gemm.h = 9;
    for (const LayerSpec& s : {conv(40, 70, 6, 30, 3, 1), dw, grouped, gemm}) {
      SCOPED_TRACE(s.describe());
      const Compiled cm = compileSpec(s, k.config);
      expectConsistent(cm, k.config);
    }
  }
  // The tiny files force one channel per chunk and one partial sum per PE.
  const Compiled cm = compileSpec(conv(40, 70, 6, 30, 3, 1), tiny);
  const Tiling& t = cm.first().conv.tiling;
  EXPECT_EQ(t.channelChunk, 1);
  EXPECT_EQ(t.filterBlock, 1);
  EXPECT_LE(t.operandBlock, tiny.groupSize);
}

TEST(BroadcastCompilerTest, DilatedXSplitsOperandsIntoResidueClasses) {
  LayerSpec s = conv(2, 3, 7, 16, 3, 2);
  s.dw = 2;
  s.dh = 2;
  const Compiled cm = compileSpec(s, broadcastPreset("fig8"));
  const Tiling& t = cm.first().conv.tiling;
  EXPECT_EQ(t.xClasses, 2);
  EXPECT_EQ(t.classStride, 1);
  LayerSpec strided = s;
  strided.sw = 2;
  strided.dw = 1;
  const Compiled st = compileSpec(strided, broadcastPreset("fig8"));
  EXPECT_EQ(st.first().conv.tiling.xClasses, 1);
  EXPECT_EQ(st.first().conv.tiling.classStride, 2);
}

} // namespace
} // namespace nnaccel::arch::broadcast
