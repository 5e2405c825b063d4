/// \file
/// Tests of the sparse engine's cycle-level simulator and session (Simulator.h, Session.h):
/// seeded random conv-like layers (1-D / 2-D Conv with strides 1-3, dilation 1-3, asymmetric
/// pads, groups; ConvTranspose with output padding (undilated: the fp32 reference used for
/// calibration has no dilated ConvTranspose); Gemm; random weight sparsity and sparse inputs;
/// chained layers) bit-exact against the int8 reference on the `scnn` and `tiny`
/// presets; determinism; the accounting invariants (multiplier slots by cause sum to cycles x
/// PEs x F x I, oracle <= cycles, products <= dense products, useful products == the layer's
/// dense MACs at full density); density sweeps (fewer non-zeros, fewer cycles); config corners
/// (weight FIFO of one vector, FIFO depth 1 / 3, one bank, hash banks, virtual output queues,
/// the two-stage crossbar, combining buffers, the dot-product baseline, no forwarding, single-
/// buffered accumulators, slow DRAM, every code table); accumulator overflow reported as a
/// failed verdict with a layer note; and the report's sparse-engine fields.
#include "nnaccel/arch/sparse/Simulator.h"

#include "LayerSpecGraphs.h"
#include "nnaccel/arch/sparse/Session.h"
#include "nnaccel/driver/ModelLoader.h"
#include "nnaccel/quant/QuantizedModel.h"
#include "nnaccel/support/Error.h"
#include "nnaccel/zoo/GraphBuilder.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <gtest/gtest.h>

namespace nnaccel::arch::sparse {
namespace {

namespace testing = nnaccel::testing;

using testing::buildLayerGraph;
using testing::conv;
using testing::LayerSpec;
using testing::sparseInputs;

SessionResult run(const ir::Graph& g, const SparseConfig& c, double inputDensity = 1.0,
                  uint64_t inputSeed = 11) {
  SessionOptions o;
  o.inputs = sparseInputs(g, inputDensity, inputSeed);
  return simulateModel(g, c, o);
}

/// Every accounting invariant of every array layer of \p r.
void checkInvariants(const SessionResult& r, const SparseConfig& c, const ir::Graph& g) {
  ASSERT_EQ(r.details.size(), r.program.layers.size());
  ASSERT_EQ(r.report.layers.size(), r.program.layers.size());
  const int64_t slotsPerCycle = c.peCount() * c.multipliersPerPe();
  int64_t cycles = 0;
  for (size_t i = 0; i < r.details.size(); ++i) {
    const Layer& l = r.program.layers[i];
    const LayerDetail& d = r.details[i];
    SCOPED_TRACE(l.name);
    cycles += r.report.layers[i].cycles;
    if (l.kind != LayerKind::Conv)
      continue;
    const SlotLosses& s = d.losses;
    EXPECT_EQ(r.report.layers[i].cycles, d.cycles);
    EXPECT_EQ(s.total(), d.cycles * slotsPerCycle)
        << "slots by cause: useful " << s.useful << " outside " << s.outsidePlane << " frag "
        << s.fragmentation << " conflicts " << s.conflicts << " starvation " << s.starvation
        << " imbalance " << s.imbalance << " halo/ppu " << s.haloPpu << " dram " << s.dram
        << " idle " << s.idlePes << "; cycles " << d.cycles << " x " << slotsPerCycle
        << " slots, grid " << d.gridX << "x" << d.gridY;
    for (int64_t v : {s.useful, s.outsidePlane, s.fragmentation, s.conflicts, s.starvation,
                      s.imbalance, s.haloPpu, s.dram, s.idlePes})
      EXPECT_GE(v, 0);
    EXPECT_GE(d.cycles, d.oracleCycles);
    EXPECT_EQ(d.oracleCycles, (s.useful + slotsPerCycle - 1) / slotsPerCycle);
    EXPECT_EQ(d.products, s.useful + s.outsidePlane);
    EXPECT_EQ(d.access.multiplies, d.products);
    EXPECT_LE(s.useful, testing::usefulDenseMacs(g, l.node));
    EXPECT_LE(d.products, d.denseAccess.multiplies) << "sparse products <= dense products";
    EXPECT_GT(d.denseCycles, 0);
    EXPECT_EQ(d.groups, static_cast<int64_t>(l.conv.groups.size()));
    EXPECT_EQ(d.kc, l.conv.kc);
    EXPECT_EQ(d.gridX * d.gridY, l.conv.usedPes());
    EXPECT_EQ(s.idlePes, (c.peCount() - l.conv.usedPes()) * c.multipliersPerPe() * d.cycles);
  }
  EXPECT_EQ(r.totals.cycles, cycles);
  EXPECT_EQ(r.report.total.cycles, cycles);
}

/// The single array layer's detail.
const LayerDetail& arrayDetail(const SessionResult& r) {
  const LayerDetail* d = nullptr;
  for (size_t i = 0; i < r.program.layers.size(); ++i)
    if (r.program.layers[i].kind == LayerKind::Conv && d == nullptr)
      d = &r.details[i];
  if (d == nullptr) {
    ADD_FAILURE() << "no array layer: " << r.program.layers.at(0).note;
    static const LayerDetail none;
    return none;
  }
  return *d;
}

void expectBitExact(const SessionResult& r) {
  EXPECT_TRUE(r.report.verdict.checked);
  EXPECT_TRUE(r.report.verdict.passed) << r.report.verdict.detail;
  EXPECT_GT(r.report.verdict.comparedElements, 0);
}

// --- random layers ------------------------------------------------------------------------------

TEST(SparseSimulator, RandomLayersBitExactOnScnnAndTiny) {
  Rng rng(0xc0ffee);
  int arrayLayers = 0, layers = 0;
  for (int i = 0; i < 44; ++i) {
    const LayerSpec s = testing::randomLayer(rng);
    const double inputDensity = static_cast<double>(3 + rng.nextU64() % 8) / 10.0;
    SCOPED_TRACE(s.describe() + fmt::format(" input density {:.1f}", inputDensity));
    const ir::Graph g = buildLayerGraph(s);
    for (const char* preset : {"scnn", "tiny"}) {
      SCOPED_TRACE(preset);
      const SparseConfig c = sparsePreset(preset);
      const SessionResult r = run(g, c, inputDensity, s.seed);
      expectBitExact(r);
      checkInvariants(r, c, g);
      for (const Layer& l : r.program.layers) {
        ++layers;
        arrayLayers += l.kind == LayerKind::Conv ? 1 : 0;
      }
    }
  }
  // Almost every layer runs on the array (the rest are host fallbacks with a reason).
  EXPECT_GE(arrayLayers, 80);
  std::printf("%d of %d layers on the array\n", arrayLayers, layers);
}

TEST(SparseSimulator, SameRunTwiceGivesTheSameReport) {
  LayerSpec s = conv(5, 7, 9, 11, 3, 1);
  s.sh = 2;
  s.weightDensity = 0.4;
  s.relu = true;
  s.chainChannels = 3;
  const ir::Graph g = buildLayerGraph(s);
  for (const char* preset : {"scnn", "tiny"}) {
    const SessionResult a = run(g, sparsePreset(preset), 0.5);
    const SessionResult b = run(g, sparsePreset(preset), 0.5);
    expectBitExact(a);
    EXPECT_EQ(a.report.toJson(), b.report.toJson()) << preset;
    EXPECT_EQ(a.report.formatTable(), b.report.formatTable());
  }
}

TEST(SparseSimulator, ALongLayerReportsItsProgressAndTheSameResult) {
  // A layer of more than kProgressCycles (2^14) cycles reports the share of its weight vectors
  // broadcast so far, rising within [0, 1], through the session's layerProgress; watching does
  // not change the run.
  LayerSpec s = conv(64, 64, 32, 32, 3, 1);
  const ir::Graph g = buildLayerGraph(s);
  SessionOptions o;
  const SessionResult quiet = simulateModel(g, sparsePreset("scnn"), o);
  std::vector<double> seen;
  o.layerProgress = [&](size_t layer, size_t layers, double fraction) {
    EXPECT_EQ(layer, 0u);
    EXPECT_EQ(layers, quiet.program.layers.size());
    seen.push_back(fraction);
  };
  const SessionResult watched = simulateModel(g, sparsePreset("scnn"), o);
  ASSERT_GT(quiet.report.layers[0].cycles, 2 * (int64_t{1} << 14));
  ASSERT_GE(seen.size(), 2u);
  EXPECT_TRUE(std::is_sorted(seen.begin(), seen.end()));
  EXPECT_GE(seen.front(), 0.0);
  EXPECT_LE(seen.back(), 1.0);
  EXPECT_EQ(quiet.report.toJson(), watched.report.toJson());
}

TEST(SparseSimulator, TwoThreadsGiveTheSameReportAsOne) {
  // 64 PEs and ~600 weight vectors: large enough for the two-thread stepping to engage.
  LayerSpec s = conv(16, 32, 16, 16, 3, 1);
  s.weightDensity = 0.5;
  s.relu = true;
  s.chainChannels = 8;
  const ir::Graph g = buildLayerGraph(s);
  SessionOptions o;
  o.inputs = sparseInputs(g, 0.6, 5);
  const SessionResult one = simulateModel(g, sparsePreset("scnn"), o);
  o.threads = 2;
  const SessionResult two = simulateModel(g, sparsePreset("scnn"), o);
  expectBitExact(one);
  EXPECT_EQ(one.report.toJson(), two.report.toJson());
  EXPECT_EQ(one.program.layers[0].conv.inTiling.pes(), 64);
}

// --- dilated convolutions: output phases (SparseCompiler.md §2.3) -------------------------------

/// A dilated Conv of \p c -> \p m channels on \p h x \p w: kernel \p k, dilation \p d, stride
/// \p stride on both axes, pads {top, left, bottom, right}.
LayerSpec dilated(int64_t c, int64_t m, int64_t h, int64_t w, int64_t k, int64_t d, int64_t stride,
                  std::array<int64_t, 4> pads) {
  LayerSpec s = conv(c, m, h, w, k, 0);
  s.dh = s.dw = d;
  s.sh = s.sw = stride;
  s.padTop = pads[0];
  s.padLeft = pads[1];
  s.padBottom = pads[2];
  s.padRight = pads[3];
  return s;
}

/// Dilated convolutions of several rates, kernels, strides, pads and groups, and chained (the
/// reader of a phase-ordered output re-tiles it), on the array and bit-exact.
std::vector<LayerSpec> dilatedCases() {
  std::vector<LayerSpec> v = {
      dilated(4, 6, 12, 12, 3, 2, 1, {2, 2, 2, 2}), dilated(3, 5, 13, 11, 3, 3, 1, {1, 2, 3, 0}),
      dilated(2, 3, 9, 10, 5, 2, 1, {4, 4, 4, 4}),  dilated(3, 4, 17, 17, 3, 6, 1, {6, 6, 6, 6}),
      dilated(2, 2, 5, 5, 3, 8, 1, {8, 8, 8, 8}),   dilated(3, 4, 11, 11, 3, 2, 2, {2, 2, 2, 2}),
      dilated(3, 4, 15, 14, 3, 4, 2, {4, 3, 4, 5}), dilated(3, 4, 13, 13, 3, 3, 2, {3, 3, 3, 3}),
      dilated(2, 3, 14, 14, 2, 2, 3, {1, 0, 0, 1}), dilated(4, 6, 10, 10, 3, 2, 1, {2, 2, 2, 2}),
      dilated(6, 6, 10, 9, 3, 3, 1, {3, 3, 3, 3}),
  };
  v[9].group = 2;         // grouped
  v[10].group = 6;        // depthwise
  v[0].chainChannels = 3; // a 3x3 conv reads the phase-ordered output
  v[8].chainChannels = 2; // the same with no gaps (kernel 2, stride 3)
  v[2].weightDensity = v[7].weightDensity = 0.4;
  LayerSpec xOnly = dilated(3, 5, 7, 12, 3, 4, 1, {0, 4, 0, 3}); // 1x3, dilated along x only
  xOnly.kh = 1;
  xOnly.dh = 1;
  v.push_back(xOnly);
  LayerSpec oneD = dilated(3, 4, 1, 20, 3, 5, 1, {0, 5, 0, 4});
  oneD.oneD = true;
  v.push_back(oneD);
  return v;
}

TEST(SparseSimulator, DilatedConvsRunOnTheArrayBitExact) {
  for (const LayerSpec& s : dilatedCases()) {
    SCOPED_TRACE(s.describe());
    const ir::Graph g = buildLayerGraph(s);
    for (const char* preset : {"scnn", "tiny"}) {
      SCOPED_TRACE(preset);
      const SparseConfig c = sparsePreset(preset);
      const SessionResult r = run(g, c, 0.6, s.seed);
      expectBitExact(r);
      checkInvariants(r, c, g);
      const Layer& l = r.program.layers[0];
      // scnn's 1,024 accumulators hold every case; tiny's 64 may not (a stated host note).
      if (std::string(preset) == "scnn") {
        EXPECT_EQ(l.kind, LayerKind::Conv) << l.note;
      } else if (l.kind == LayerKind::Host) {
        EXPECT_NE(l.note.find("accumulator frame"), std::string::npos) << l.note;
      }
    }
  }
}

TEST(SparseSimulator, DilatedConvAtFullDensityCostsAboutItsUndilatedTwin) {
  // Rate 2 on 32 x 32: output phases of 16 x 16 with gaps of 2. At full density every dense
  // MAC is a useful product, the products are the dense baseline's, and the dense baseline (and
  // the sparse run) stay close to those of the same convolution undilated: the tiles also hold
  // the positions of the gaps and of the padding (no pixels), which unbalances small tiles.
  const SparseConfig c = sparsePreset("scnn");
  const LayerSpec plain = dilated(8, 8, 32, 32, 3, 1, 1, {1, 1, 1, 1});
  const LayerSpec rate2 = dilated(8, 8, 32, 32, 3, 2, 1, {2, 2, 2, 2});
  const ir::Graph gp = buildLayerGraph(plain), gd = buildLayerGraph(rate2);
  const SessionResult p = run(gp, c, 1.0), d = run(gd, c, 1.0);
  expectBitExact(d);
  checkInvariants(d, c, gd);
  const LayerDetail& dp = arrayDetail(p);
  const LayerDetail& dd = arrayDetail(d);
  EXPECT_EQ(dd.losses.useful, testing::usefulDenseMacs(gd, d.program.layers[0].node));
  EXPECT_EQ(dd.products, dd.denseAccess.multiplies);
  std::printf("3x3 on 32x32 full density: rate 1 %lld cycles (dense %lld), rate 2 %lld (dense "
              "%lld)\n",
              static_cast<long long>(dp.cycles), static_cast<long long>(dp.denseCycles),
              static_cast<long long>(dd.cycles), static_cast<long long>(dd.denseCycles));
  EXPECT_LE(dd.denseCycles, dp.denseCycles * 3 / 2);
  EXPECT_LE(dd.cycles, dp.cycles * 3 / 2);
  EXPECT_LE(dd.cycles, dd.denseCycles * 2) << "no worse than its dense baseline by > 2x";
}

// --- accounting ---------------------------------------------------------------------------------

TEST(SparseSimulator, FullDensityDoesAllDenseWorkAndIsNoFasterThanDense) {
  for (const char* preset : {"scnn", "tiny"}) {
    SCOPED_TRACE(preset);
    const SparseConfig c = sparsePreset(preset);
    // tiny: 8 x 8 over 2 x 2 PEs gives 6 x 6 frames (36 of 64 accumulators, Kc = 1).
    const int64_t size = c.peRows == 8 ? 16 : 8;
    const ir::Graph g = buildLayerGraph(conv(8, 8, size, size, 3, 1));
    const SessionResult r = run(g, c, 1.0);
    expectBitExact(r);
    checkInvariants(r, c, g);
    const LayerDetail& d = arrayDetail(r);
    EXPECT_DOUBLE_EQ(d.weightDensity, 1.0);
    EXPECT_DOUBLE_EQ(d.activationDensity, 1.0);
    EXPECT_EQ(d.losses.useful, testing::usefulDenseMacs(g, r.program.layers[0].node));
    EXPECT_EQ(d.products, d.denseAccess.multiplies) << "stride 1: the same products";
    const double speedup = static_cast<double>(d.denseCycles) / static_cast<double>(d.cycles);
    std::printf("[%s] full density: sparse %lld cycles, dense %lld, oracle %lld, speedup %.3f\n",
                preset, static_cast<long long>(d.cycles), static_cast<long long>(d.denseCycles),
                static_cast<long long>(d.oracleCycles), speedup);
    EXPECT_LE(speedup, 1.0) << "the sparse machine cannot beat PTIS-dense on dense data";
  }
}

TEST(SparseSimulator, FewerNonZerosTakeFewerCycles) {
  // The weight draws keep nested subsets as the density falls (same seed), as do the inputs.
  const SparseConfig c = sparsePreset("scnn");
  std::vector<int64_t> byWeights, byInputs;
  for (const double density : {1.0, 0.6, 0.3, 0.1}) {
    LayerSpec s = conv(16, 32, 16, 16, 3, 1);
    s.weightDensity = density;
    const ir::Graph g = buildLayerGraph(s);
    const SessionResult r = run(g, c, 1.0);
    expectBitExact(r);
    checkInvariants(r, c, g);
    byWeights.push_back(arrayDetail(r).cycles);
  }
  const ir::Graph dense = buildLayerGraph(conv(16, 32, 16, 16, 3, 1));
  for (const double density : {1.0, 0.6, 0.3, 0.1}) {
    const ir::Graph& g = dense;
    const SessionResult r = run(g, c, density);
    expectBitExact(r);
    checkInvariants(r, c, g);
    byInputs.push_back(arrayDetail(r).cycles);
  }
  std::printf("cycles by weight density 1/0.6/0.3/0.1: %lld %lld %lld %lld; by input density: "
              "%lld %lld %lld %lld\n",
              static_cast<long long>(byWeights[0]), static_cast<long long>(byWeights[1]),
              static_cast<long long>(byWeights[2]), static_cast<long long>(byWeights[3]),
              static_cast<long long>(byInputs[0]), static_cast<long long>(byInputs[1]),
              static_cast<long long>(byInputs[2]), static_cast<long long>(byInputs[3]));
  for (size_t i = 1; i < 4; ++i) {
    EXPECT_LT(byWeights[i], byWeights[i - 1]);
    EXPECT_LT(byInputs[i], byInputs[i - 1]);
  }
}

TEST(SparseSimulator, IdlePesAndDramAreCountedOnce) {
  // A Gemm of 1 row with 10 output channels: one channel per PE on 10 of scnn's 64 PEs (the
  // rest idle), on all 4 of tiny's; the input comes from DRAM (graph input).
  LayerSpec s;
  s.kind = LayerSpec::Kind::Gemm;
  s.h = 1;
  s.inChannels = 24;
  s.outChannels = 10;
  for (const char* preset : {"scnn", "tiny"}) {
    SCOPED_TRACE(preset);
    const SparseConfig c = sparsePreset(preset);
    const ir::Graph g = buildLayerGraph(s);
    const SessionResult r = run(g, c);
    expectBitExact(r);
    checkInvariants(r, c, g);
    const LayerDetail& d = arrayDetail(r);
    EXPECT_EQ(d.gridX * d.gridY, std::min<int64_t>(10, c.peCount()));
    EXPECT_EQ(d.losses.idlePes > 0, c.peCount() > 10);
  }
}

TEST(SparseSimulator, FullyConnectedLayersUseTheWholeArray) {
  // SCNN paper section 4.3: at batch 1 a PE forms F useful products per cycle (one activation
  // meets each weight once), so the layer's compute takes about weights / (PEs x F) cycles:
  // each PE issues one full vector (its Kc = 4 = F weights) per input channel. Before the
  // output-channel slices it ran on one PE, 64 times longer.
  LayerSpec s;
  s.kind = LayerSpec::Kind::Gemm;
  s.h = 1;
  s.inChannels = 512;
  s.outChannels = 256;
  SparseConfig c = sparsePreset("scnn");
  c.dramBytesPerCycle = 1024.0; // compute-bound: the weights arrive faster than they are used
  c.dramLatencyCycles = 0;
  const ir::Graph g = buildLayerGraph(s);
  const SessionResult r = run(g, c);
  expectBitExact(r);
  checkInvariants(r, c, g);
  const Layer& layer = r.program.layers.at(0);
  ASSERT_EQ(layer.kind, LayerKind::Conv);
  EXPECT_EQ(layer.conv.usedPes(), 64);
  EXPECT_EQ(layer.conv.kc, 4); // 256 channels / 64 PEs
  const LayerDetail& d = arrayDetail(r);
  const int64_t perPe = 512; // input channels: one weight vector each
  EXPECT_GE(d.cycles, perPe);
  EXPECT_LE(d.cycles, perPe * 5 / 4) << "compute on 64 PEs at F products per cycle each";
  // Every PE multiplies its weights with the one activation of their channel: I - 1 of the
  // I lanes of every vector are empty.
  EXPECT_EQ(d.products, d.losses.useful);
  EXPECT_GE(d.losses.fragmentation, d.products * (c.activationsPerVector - 1));
  // DCNN deals its groups (width F = 4: 64 of them) to the 64 PEs the same way: one each, 128
  // cycles of 4 dot products of 4 channels (512 / 4) plus a 4-cycle post-processing tail, under
  // the 256 cycles its 262,144 dense weight bytes take at 1,024 B/cycle, plus 1 cycle loading
  // the input. On one PE its compute alone would take 64 x 128 = 8,192 cycles.
  c.baselineDataflow = BaselineDataflow::DotProduct;
  const SessionResult rd = run(g, c);
  EXPECT_EQ(arrayDetail(rd).denseCycles, 257);
}

TEST(SparseSimulator, BroadcastChoosesTilesOrSlices) {
  // pe_array.broadcast (seed 001 ¶0048) on a 13x13 convolution and a Gemm of 3 rows.
  LayerSpec small = conv(16, 24, 13, 13, 3, 1);
  small.weightDensity = 0.5;
  LayerSpec gemm;
  gemm.kind = LayerSpec::Kind::Gemm;
  gemm.h = 3;
  gemm.inChannels = 40;
  gemm.outChannels = 96;
  for (const Broadcast b : {Broadcast::Auto, Broadcast::Weights, Broadcast::Activations}) {
    SparseConfig c = sparsePreset("scnn");
    c.broadcast = b;
    SCOPED_TRACE(static_cast<int>(b));
    for (const LayerSpec& spec : {small, gemm}) {
      const ir::Graph g = buildLayerGraph(spec);
      const SessionResult r = run(g, c, 0.5);
      expectBitExact(r);
      checkInvariants(r, c, g);
      const ConvLayer& l = r.program.layers.at(0).conv;
      const bool isGemm = spec.kind == LayerSpec::Kind::Gemm;
      const bool slices = b == Broadcast::Activations || (b == Broadcast::Auto && isGemm);
      EXPECT_EQ(l.sliceFirstGroup.empty(), !slices);
      if (slices) {
        EXPECT_EQ(l.inTiling.pes(), 1);
        EXPECT_EQ(l.usedPes(), std::min<int64_t>(64, static_cast<int64_t>(l.groups.size())));
        EXPECT_EQ(l.kc, isGemm ? 2 : 1); // ceil(96 / 64); 24 channels: one per PE
      } else {
        EXPECT_EQ(l.usedPes(), isGemm ? 3 : 64); // the rows of the plane; the 8x8 grid
      }
    }
  }
  // A plane whose frame (58 x 58 cells with halos) exceeds the 1,024 accumulators is tiled.
  SparseConfig c = sparsePreset("scnn");
  c.broadcast = Broadcast::Activations;
  const ir::Graph g = buildLayerGraph(conv(4, 8, 56, 56, 3, 1));
  const SessionResult r = run(g, c, 0.5);
  expectBitExact(r);
  const Layer& l = r.program.layers.at(0);
  EXPECT_TRUE(l.conv.sliceFirstGroup.empty());
  EXPECT_NE(l.note.find("weights broadcast: the whole plane's frame of 3364 cells exceeds the "
                        "1024 accumulator entries"),
            std::string::npos)
      << l.note;
}

TEST(SparseSimulator, InputHalosKeepProductsPrivate) {
  // seed 001 ¶0070's first technique on a 3x3 convolution of a 32x32 plane over 8x8 PEs:
  // no halo exchange, a larger Kc (the frame is the 4x4 tile, not 6x6), the border inputs
  // replicated, and the products a PE forms for its neighbours' tiles dropped.
  LayerSpec s = conv(8, 64, 32, 32, 3, 1);
  s.weightDensity = 0.5;
  s.chainChannels = 16; // a second layer reads the first's output on chip
  const ir::Graph g = buildLayerGraph(s);
  SparseConfig out = sparsePreset("scnn");
  SparseConfig in = out;
  in.halos = Halos::Input;
  const SessionResult ro = run(g, out, 0.5);
  const SessionResult ri = run(g, in, 0.5);
  for (const SessionResult* r : {&ro, &ri}) {
    expectBitExact(*r);
    checkInvariants(*r, r == &ro ? out : in, g);
  }
  const ConvLayer& lo = ro.program.layers.at(0).conv;
  const ConvLayer& li = ri.program.layers.at(0).conv;
  EXPECT_FALSE(lo.inputHalos);
  EXPECT_TRUE(li.inputHalos);
  EXPECT_EQ(lo.kc, 1024 / 36);
  // 1024 / 16 cells would allow 64; the weight FIFO (200 entries per plane) bounds it first.
  EXPECT_GT(li.kc, lo.kc);
  const LayerDetail& dout = arrayDetail(ro);
  const LayerDetail& din = arrayDetail(ri);
  EXPECT_GT(dout.access.haloMessages, 0);
  EXPECT_EQ(din.access.haloMessages, 0); // first layer: the input comes from DRAM
  // Every input is multiplied where it is held: more products, the extra ones dropped.
  EXPECT_GT(din.products, dout.products);
  EXPECT_LT(din.access.crossbarTraversals, din.products);
  EXPECT_EQ(din.losses.useful, dout.losses.useful);
  // The second layer reads the first's output on chip: its replicated border values are the
  // halo messages.
  const LayerDetail& second = ri.details.at(ri.program.layers.size() - 1);
  EXPECT_FALSE(second.inputFromDram);
  EXPECT_GT(second.access.haloMessages, 0);
}

TEST(SparseSimulator, ADensityExperimentStoresOutputsAsTheirReadersReadThem) {
  // conv0 -> conv1 with conv1's input given density 0.2 (the SCNN paper's sweep scales every
  // activation): conv0's output is sized, kept on chip or spilled, as a 0.2-dense tensor, not
  // as computed. Without a density for conv1 it keeps its computed density.
  LayerSpec s = conv(8, 16, 24, 24, 3, 1);
  s.relu = true;
  s.chainChannels = 16;
  const ir::Graph g = buildLayerGraph(s);
  const SparseConfig c = sparsePreset("scnn");
  SessionOptions o;
  o.inputs = sparseInputs(g, 1.0, 11);
  const SessionResult real = simulateModel(g, c, o);
  ASSERT_GE(real.program.layers.size(), 2u);
  const std::string second = real.program.layers.back().name;
  o.activationDensities.perLayer[second] = 0.2;
  const SessionResult swept = simulateModel(g, c, o);
  EXPECT_TRUE(swept.report.verdict.passed) << swept.report.verdict.detail;
  const LayerDetail& computed = real.details.front();
  const LayerDetail& stored = swept.details.front();
  EXPECT_GT(computed.outputDensity, 0.3); // ReLU of random data: about half
  EXPECT_NEAR(stored.outputDensity, 0.2, 0.01);
  EXPECT_LT(stored.access.oaWriteBytes, computed.access.oaWriteBytes);
  EXPECT_NEAR(swept.details.back().activationDensity, 0.2, 0.01);
}

// --- config corners -----------------------------------------------------------------------------

struct Variant {
  const char* what;
  void (*apply)(SparseConfig&);
};

TEST(SparseSimulator, ConfigCornersStayBitExact) {
  const Variant variants[] = {
      {"tiny", [](SparseConfig&) {}},
      {"fifo depth 1", [](SparseConfig& c) { c.crossbarFifoDepth = 1; }},
      {"fifo depth 3", [](SparseConfig& c) { c.crossbarFifoDepth = 3; }},
      {"one bank",
       [](SparseConfig& c) {
         c.accumulatorBanks = 1;
         c.accumulatorBankEntries = 64;
       }},
      {"hash banks", [](SparseConfig& c) { c.bankMapping = BankMapping::Hash; }},
      {"virtual output queues, no forwarding",
       [](SparseConfig& c) {
         c.crossbarQueues = CrossbarQueues::PerBank;
         c.accumulatorForwarding = false;
       }},
      {"two-stage crossbar", [](SparseConfig& c) { c.crossbarStages = 2; }},
      {"combining buffer", [](SparseConfig& c) { c.combiningBufferEntries = 8; }},
      {"two stages, one-entry combining buffer, no forwarding",
       [](SparseConfig& c) {
         c.crossbarStages = 2;
         c.combiningBufferEntries = 1;
         c.accumulatorForwarding = false;
       }},
      {"combining buffer, virtual output queues, hash banks",
       [](SparseConfig& c) {
         c.combiningBufferEntries = 3;
         c.crossbarQueues = CrossbarQueues::PerBank;
         c.bankMapping = BankMapping::Hash;
       }},
      {"dot-product baseline",
       [](SparseConfig& c) { c.baselineDataflow = BaselineDataflow::DotProduct; }},
      {"power-of-two addresses",
       [](SparseConfig& c) { c.addressRounding = AddressRounding::PowerOfTwo; }},
      {"no forwarding",
       [](SparseConfig& c) {
         c.accumulatorForwarding = false;
         c.accumulatorWriteLatencyCycles = 3;
       }},
      {"single-buffered accumulators",
       [](SparseConfig& c) { c.doubleBufferedAccumulators = false; }},
      {"slow dram",
       [](SparseConfig& c) {
         c.dramBytesPerCycle = 0.25;
         c.dramLatencyCycles = 0;
       }},
      {"wide broadcast, fast ppu",
       [](SparseConfig& c) {
         c.broadcastVectorsPerCycle = 3;
         c.ppuOpsPerCycle = 4;
         c.haloLinkLatencyCycles = 0;
       }},
      {"2-bit zero runs (pads)", [](SparseConfig& c) { c.indexBits = 2; }},
      {"fig4c codes",
       [](SparseConfig& c) {
         c.weightCodes = WeightCodeTable::Fig4C;
         c.activationCodes = ActivationCodeTable::Fig4C;
       }},
      {"fig5d / fig5a",
       [](SparseConfig& c) {
         c.weightCodes = WeightCodeTable::Fig5D;
         c.activationCodes = ActivationCodeTable::Fig5A;
       }},
      {"fig5e / fig5b",
       [](SparseConfig& c) {
         c.weightCodes = WeightCodeTable::Fig5E;
         c.activationCodes = ActivationCodeTable::Fig5B;
       }},
      {"fig5c", [](SparseConfig& c) { c.activationCodes = ActivationCodeTable::Fig5C; }},
      {"8-bit values, 16-bit accumulators",
       [](SparseConfig& c) {
         c.valueBits = 8;
         c.accumulatorBits = 32;
       }},
      {"activations broadcast", [](SparseConfig& c) { c.broadcast = Broadcast::Activations; }},
      {"weights broadcast", [](SparseConfig& c) { c.broadcast = Broadcast::Weights; }},
      {"input halos", [](SparseConfig& c) { c.halos = Halos::Input; }},
      {"3x1 grid", [](SparseConfig& c) {
         c.peRows = 1;
         c.peCols = 3;
       }}};
  LayerSpec strided = conv(4, 6, 9, 10, 3, 1);
  strided.sh = 2;
  strided.dw = 2;
  strided.padLeft = strided.padRight = 2;
  strided.weightDensity = 0.5;
  strided.relu = true;
  strided.chainChannels = 3;
  LayerSpec transposed = conv(3, 4, 5, 4, 3, 1);
  transposed.kind = LayerSpec::Kind::ConvTranspose;
  transposed.sh = transposed.sw = 2;
  transposed.outPadH = 1;
  transposed.weightDensity = 0.6;
  LayerSpec gemm;
  gemm.kind = LayerSpec::Kind::Gemm;
  gemm.h = 3;
  gemm.inChannels = 20;
  gemm.outChannels = 9;
  gemm.weightDensity = 0.5;
  const ir::Graph graphs[] = {buildLayerGraph(strided), buildLayerGraph(transposed),
                              buildLayerGraph(gemm)};
  for (const Variant& v : variants) {
    SparseConfig c = sparsePreset("tiny");
    v.apply(c);
    SCOPED_TRACE(v.what);
    for (const ir::Graph& g : graphs) {
      const SessionResult r = run(g, c, 0.6);
      expectBitExact(r);
      checkInvariants(r, c, g);
      arrayDetail(r); // the layer ran on the array
    }
  }
}

TEST(SparseSimulator, StallCausesShowUpWhereExpected) {
  const ir::Graph g = buildLayerGraph(conv(6, 8, 8, 8, 3, 1));
  SparseConfig base = sparsePreset("tiny");
  base.weightFifoEntries = 50;
  const LayerDetail d0 = arrayDetail(run(g, base));
  SparseConfig oneBank = base;
  oneBank.accumulatorBanks = 1;
  oneBank.accumulatorBankEntries = 64; // the same 64 accumulators in one bank
  const SessionResult r1 = run(g, oneBank);
  expectBitExact(r1);
  EXPECT_GT(arrayDetail(r1).losses.conflicts, d0.losses.conflicts);
  EXPECT_GT(arrayDetail(r1).cycles, d0.cycles);
  SparseConfig slow = base;
  slow.dramBytesPerCycle = 0.125;
  const SessionResult r2 = run(g, slow);
  expectBitExact(r2);
  EXPECT_GT(arrayDetail(r2).losses.starvation, d0.losses.starvation);
  EXPECT_GT(arrayDetail(r2).cycles, d0.cycles);
  SparseConfig hazard = base;
  hazard.accumulatorForwarding = false;
  hazard.accumulatorWriteLatencyCycles = 4;
  const SessionResult r3 = run(g, hazard);
  expectBitExact(r3);
  EXPECT_GE(arrayDetail(r3).cycles, d0.cycles);
}

TEST(SparseSimulator, CrossbarVariantsChangeTimingAndWritesNotResults) {
  // Seed 001 §1.4's alternatives on one conv (dense weights and inputs: many products per
  // output cell, so the buffer has something to combine and the crossbar is busy).
  const ir::Graph g = buildLayerGraph(conv(8, 16, 12, 12, 3, 1));
  const SparseConfig base = sparsePreset("scnn");
  SparseConfig twoStage = base;
  twoStage.crossbarStages = 2;
  SparseConfig combining = base;
  combining.combiningBufferEntries = 8;
  const SessionResult r0 = run(g, base), r2 = run(g, twoStage), rc = run(g, combining);
  for (const SessionResult* r : {&r0, &r2, &rc}) {
    expectBitExact(*r);
    ASSERT_EQ(r->outputs.size(), r0.outputs.size());
    for (size_t i = 0; i < r0.outputs.size(); ++i)
      EXPECT_TRUE(std::ranges::equal(r->outputs[i].values<float>(), r0.outputs[i].values<float>()))
          << "the same output values";
  }
  checkInvariants(r2, twoStage, g);
  checkInvariants(rc, combining, g);
  const LayerDetail &d0 = arrayDetail(r0), &d2 = arrayDetail(r2), &dc = arrayDetail(rc);
  for (const LayerDetail* d : {&d2, &dc}) {
    EXPECT_EQ(d->products, d0.products);
    EXPECT_EQ(d->access.multiplies, d0.access.multiplies);
    EXPECT_EQ(d->access.crossbarTraversals, d0.access.crossbarTraversals);
    EXPECT_EQ(d->access.haloMessages, d0.access.haloMessages);
  }
  // Without a combining buffer every product is one read-add-write, as is every halo add.
  EXPECT_EQ(d0.access.accumulatorRmw, d0.products + d0.access.haloMessages);
  EXPECT_EQ(d2.access.accumulatorRmw, d0.access.accumulatorRmw);
  // Two stages: the products of one activation that head for banks behind one stage-1 output
  // leave one per cycle, so the layer waits longer on its crossbar (1,236 against 1,126 cycles
  // when written).
  EXPECT_GT(d2.losses.conflicts, d0.losses.conflicts);
  EXPECT_GT(d2.cycles, d0.cycles);
  // A combining buffer of 8: the 72 products of each output cell and channel (8 channels x
  // 3 x 3 taps) meet in the buffer, so fewer than half of the products reach the bank's SRAM
  // (70,272 read-add-writes against 174,400 when written). Grants are timed as before; each
  // group ends after its buffers drain, one entry per bank and cycle.
  EXPECT_LT(dc.access.accumulatorRmw - dc.access.haloMessages, dc.products / 2);
  EXPECT_GT(dc.access.accumulatorRmw - dc.access.haloMessages, 16 * 12 * 12 - 1)
      << "at least one write per output value";
  EXPECT_GT(dc.cycles, d0.cycles);
  EXPECT_LE(dc.cycles, d0.cycles + dc.groups * 8);
  EXPECT_GT(dc.losses.conflicts, d0.losses.conflicts) << "the drain cycles are crossbar cycles";
  const EnergyPrices p0 = energyPrices(base), pc = energyPrices(combining);
  EXPECT_LT(static_cast<double>(dc.access.accumulatorRmw) * pc.accumulatorRmwPj,
            static_cast<double>(d0.access.accumulatorRmw) * p0.accumulatorRmwPj / 2);
  EXPECT_LT(dc.energyPj, d0.energyPj) << "the buffer costs less than the read-add-writes it saves";
}

TEST(SparseSimulator, WeightFifoOfOneVector) {
  SparseConfig c = sparsePreset("tiny");
  c.weightFifoEntries = 1;
  LayerSpec s = conv(3, 4, 6, 7, 1, 0);
  s.kw = 2;
  s.padLeft = 1;
  const ir::Graph g = buildLayerGraph(s);
  const SessionResult r = run(g, c, 0.7);
  ASSERT_EQ(r.program.layers[0].kind, LayerKind::Conv);
  EXPECT_EQ(r.program.layers[0].conv.kc, 1);
  expectBitExact(r);
  checkInvariants(r, c, g);
  // Sparse 3x3 weights: planes with more than F = 2 non-zeros do not fit -> host.
  LayerSpec dense3 = conv(3, 4, 6, 7, 3, 1);
  const SessionResult h = run(buildLayerGraph(dense3), c);
  EXPECT_EQ(h.program.layers[0].kind, LayerKind::Host);
  EXPECT_TRUE(h.report.layers[0].hostFallback);
  EXPECT_EQ(h.report.layers[0].note, h.program.layers[0].note);
  expectBitExact(h);
}

TEST(SparseSimulator, AccumulatorOverflowIsReportedNotCrashed) {
  // 32 channels x 9 taps of |q| ~ 127 x 127 products: sums far beyond 16-bit accumulators.
  SparseConfig c = sparsePreset("tiny");
  c.accumulatorBits = 16;
  c.weightFifoEntries = 200;
  const ir::Graph g = buildLayerGraph(conv(32, 2, 4, 4, 3, 1));
  const SessionResult r = run(g, c);
  const LayerDetail& d = arrayDetail(r);
  EXPECT_GT(d.accumulatorOverflows, 0);
  EXPECT_EQ(r.report.layers[0].note,
            fmt::format("{} accumulator overflow(s) wrapped at 16 bits", d.accumulatorOverflows));
  EXPECT_TRUE(r.report.verdict.checked);
  EXPECT_FALSE(r.report.verdict.passed);
  EXPECT_EQ(r.report.verdict.detail.rfind("layer 0 'conv0' (Conv), output 'conv0_out': ", 0), 0u)
      << r.report.verdict.detail;
  // The same layer with the preset's 24-bit accumulators is exact and has no overflow.
  const SessionResult ok = run(g, sparsePreset("tiny"));
  expectBitExact(ok);
  EXPECT_EQ(arrayDetail(ok).accumulatorOverflows, 0);
  EXPECT_EQ(ok.report.layers[0].note, "");
}

// --- pooling, host layers, the report -----------------------------------------------------------

TEST(SparseSimulator, PoolingAndHostLayersAreExact) {
  for (const LayerSpec::Kind kind : {LayerSpec::Kind::MaxPool, LayerSpec::Kind::AveragePool}) {
    LayerSpec s = conv(3, 3, 9, 10, 3, 1);
    s.kind = kind;
    s.sh = s.sw = 2;
    for (const char* preset : {"scnn", "tiny"}) {
      const SessionResult r = run(buildLayerGraph(s), sparsePreset(preset), 0.5);
      ASSERT_EQ(r.program.layers[0].kind, LayerKind::Pool);
      EXPECT_EQ(r.report.layers[0].unit, "ppu");
      EXPECT_GT(r.report.layers[0].cycles, 0);
      expectBitExact(r);
    }
  }
  zoo::GraphBuilder b("mixed", 5);
  ir::ValueId x = b.input("input", {1, 3, 8, 8});
  x = b.conv("conv1", x, zoo::ConvSpec{6, 3, 1, 1});
  x = b.relu("relu1", x);
  x = b.maxPool("pool", x, zoo::PoolSpec{});
  x = b.conv("conv2", x, zoo::ConvSpec{8, 3, 2, 1});
  x = b.sigmoid("act", x);
  x = b.resize("cubic", x, 4, 4, zoo::ResizeMode::Bicubic);
  x = b.globalAvgPool("gap", x);
  x = b.flatten("flat", x);
  x = b.gemm("fc", x, 5);
  x = b.softmax("prob", x);
  b.output(x, "output");
  ir::Graph g = b.finish();
  driver::prepareGraph(g);
  for (const char* preset : {"scnn", "tiny"}) {
    const SparseConfig c = sparsePreset(preset);
    const SessionResult r = simulateModel(g, c, SessionOptions{});
    expectBitExact(r);
    checkInvariants(r, c, g);
    int host = 0;
    for (const auto& l : r.report.layers) {
      host += l.hostFallback ? 1 : 0;
      if (l.name == "act") { // the Sigmoid's lookup table on the post-processing units
        EXPECT_EQ(l.unit, "ppu");
        // 8 channels of 4x4 over the 4x4 tiling: 8 table lookups per PE, one per cycle.
        EXPECT_GE(l.busyCycles, 8 / c.ppuOpsPerCycle);
        EXPECT_GT(l.energyPj, 0);
      }
    }
    EXPECT_EQ(host, 1) << "only the cubic Resize";
    ASSERT_EQ(r.outputs.size(), 1u);
    EXPECT_EQ(r.outputs[0].shape(), (Dims{1, 5}));
  }
}

/// conv -> Relu -> max pool 3x3/2 -> conv -> average pool 3x3/2 (padded) -> conv -> global
/// average pool, on a batch of \p batch 3 x 24 x 24 images.
ir::Graph poolingChain(int64_t batch) {
  zoo::GraphBuilder b("pools", 9);
  ir::ValueId x = b.input("input", {batch, 3, 24, 24});
  x = b.maxPool("pool1", b.relu("relu1", b.conv("conv1", x, zoo::ConvSpec{8, 3, 1, 1})),
                zoo::PoolSpec{3, 2, 1});
  x = b.avgPool("pool2", b.conv("conv2", x, zoo::ConvSpec{8, 3, 1, 1}), zoo::PoolSpec{3, 2, 1});
  x = b.globalAvgPool("gap", b.conv("conv3", x, zoo::ConvSpec{8, 3, 1, 1}));
  b.output(x, "output");
  ir::Graph g = b.finish();
  driver::prepareGraph(g);
  return g;
}

/// The sum of \p f over \p r's layer details.
template <typename F> int64_t sumDetails(const SessionResult& r, F f) {
  int64_t sum = 0;
  for (const LayerDetail& d : r.details)
    sum += f(d);
  return sum;
}

TEST(SparseSimulator, FusedPoolingIsBitExactAndStoresOnlyThePooledOutput) {
  for (const int64_t batch : {1, 2}) {
    SCOPED_TRACE(batch);
    const ir::Graph g = poolingChain(batch);
    SparseConfig c = sparsePreset("scnn");
    const SessionResult fused = run(g, c);
    c.fusePooling = false;
    const SessionResult apart = run(g, c);
    expectBitExact(fused);
    expectBitExact(apart);
    if (batch == 1) // checkInvariants counts one image's MACs
      checkInvariants(fused, sparsePreset("scnn"), g);
    ASSERT_EQ(fused.program.layers.size(), 3u);
    ASSERT_EQ(apart.program.layers.size(), 6u);
    EXPECT_EQ(fused.report.layers[0].op, "Conv+Relu+MaxPool");
    EXPECT_EQ(fused.report.layers[1].op, "Conv+AveragePool");
    EXPECT_EQ(fused.report.layers[2].op, "Conv+GlobalAveragePool");
    // The pooled output alone is compressed into the OA RAMs; the PPUs pool and exchange the
    // window values that straddle tiles (and the global pooling's partials).
    const auto oaWrites = [](const LayerDetail& d) { return d.access.oaWriteBytes; };
    EXPECT_LT(sumDetails(fused, oaWrites), sumDetails(apart, oaWrites));
    EXPECT_EQ(fused.details[0].access.oaWriteBytes, apart.details[1].access.oaWriteBytes);
    EXPECT_GT(fused.details[0].access.haloMessages, apart.details[0].access.haloMessages);
    EXPECT_GT(fused.details[0].access.ppuOps, apart.details[0].access.ppuOps);
    EXPECT_EQ(fused.report.total.dram.readBytes, apart.report.total.dram.readBytes)
        << "both keep every activation on chip; only the weights and the input come from DRAM";
  }
}

TEST(SparseSimulator, StandalonePoolingReadsAnOnChipInputInPlace) {
  zoo::GraphBuilder b("act-pool", 4);
  ir::ValueId x = b.input("input", {1, 3, 16, 16});
  x = b.sigmoid("act", b.relu("relu", b.conv("conv", x, zoo::ConvSpec{8, 3, 1, 1})));
  b.output(b.maxPool("pool", x, zoo::PoolSpec{3, 2, 1}), "output");
  ir::Graph g = b.finish();
  driver::prepareGraph(g);
  const SessionResult r = run(g, sparsePreset("scnn"));
  expectBitExact(r);
  ASSERT_EQ(r.program.layers.size(), 3u);
  ASSERT_EQ(r.program.layers[2].kind, LayerKind::Pool);
  const LayerDetail& pool = r.details[2];
  EXPECT_FALSE(pool.inputFromDram);
  EXPECT_EQ(pool.access.dramReadBytes + pool.access.dramWriteBytes, 0);
  EXPECT_EQ(pool.access.haloMessages, 8 * (7 * 2 + 7 * 2 + 7 * 7 * 5)); // CompilerTest's count
}

TEST(SparseSimulator, PostProcessingOutputsLargerThanTheOaRamSpillToDram) {
  zoo::GraphBuilder b("ppu-spill", 4);
  ir::ValueId x = b.input("input", {1, 3, 32, 32});
  x = b.sigmoid("act", b.conv("conv", x, zoo::ConvSpec{16, 3, 1, 1}));
  b.output(b.conv("conv2", x, zoo::ConvSpec{4, 1, 1, 0}), "output");
  ir::Graph g = b.finish();
  driver::prepareGraph(g);
  SparseConfig c = sparsePreset("scnn");
  const SessionResult fits = run(g, c);
  c.oaRamBytes = 64; // a PE's share of the 16 x 32 x 32 Sigmoid output is 16 x 4 x 4 values
  const SessionResult spills = run(g, c);
  expectBitExact(fits);
  expectBitExact(spills);
  ASSERT_EQ(fits.program.layers[1].op, "Sigmoid");
  EXPECT_FALSE(fits.details[1].outputToDram);
  EXPECT_EQ(fits.details[1].access.dramWriteBytes, 0);
  EXPECT_TRUE(spills.details[1].outputToDram);
  EXPECT_EQ(spills.details[1].access.dramWriteBytes, spills.details[1].access.oaWriteBytes);
  EXPECT_GT(spills.details[1].outputPeBytes, c.oaRamBytes);
  EXPECT_TRUE(spills.details[2].inputFromDram);
}

TEST(SparseSimulator, ReportCarriesTheSparseEngineFields) {
  LayerSpec s = conv(4, 6, 8, 8, 3, 1);
  s.weightDensity = 0.5;
  s.relu = true;
  s.chainChannels = 4;
  const ir::Graph g = buildLayerGraph(s);
  const SparseConfig c = sparsePreset("scnn");
  SessionOptions o;
  o.baselineRows = true;
  std::vector<std::string> progress;
  o.progress = [&](const std::string& what, size_t, size_t) {
    if (progress.empty() || progress.back() != what)
      progress.push_back(what);
  };
  const SessionResult r = simulateModel(g, c, o);
  expectBitExact(r);
  checkInvariants(r, c, g);
  EXPECT_EQ(progress,
            (std::vector<std::string>{"quantizing", "compiling", "int8 reference", "simulating"}));
  const report::RunReport& rep = r.report;
  EXPECT_EQ(rep.engine, "sparse");
  EXPECT_EQ(rep.config, "scnn");
  EXPECT_EQ(rep.dtype, "int8");
  EXPECT_EQ(rep.peCount, 64);            // PEs
  EXPECT_EQ(rep.peakMacsPerCycle, 1024); // each with F x I = 16 multipliers
  EXPECT_EQ(rep.verdict.reference, "int8 reference executor (bit-exact)");
  ASSERT_EQ(rep.layers.size(), 2u);
  EXPECT_EQ(rep.layers[0].op, "Conv+Relu");
  EXPECT_EQ(rep.layers[0].unit, "array");
  EXPECT_EQ(rep.baseline.size(), 2u);
  ASSERT_EQ(rep.summary.size(), 5u);
  EXPECT_EQ(rep.summary[0].first, "int8 scales");
  EXPECT_EQ(rep.summary[1].first, "dense baseline (PTIS-dense, same multipliers and buffers)");
  EXPECT_EQ(rep.summary[2].first, "oracle bound (useful products / multipliers)");
  EXPECT_EQ(rep.summary[3].first, "multiplier slots (array layers)");
  EXPECT_EQ(rep.summary[4].first, "activations between layers");
  EXPECT_EQ(rep.summary[4].second,
            "2 of 2 layer outputs stay compressed in the OA RAMs (10,240 B per PE)");
  const std::vector<std::string> metricNames = {"w_density", "a_density", "dense_cycles",
                                                "speedup"};
  for (const auto& l : rep.layers) {
    ASSERT_EQ(l.metrics.size(), 4u);
    for (size_t i = 0; i < 4; ++i)
      EXPECT_EQ(l.metrics[i].first, metricNames[i]);
  }
  EXPECT_DOUBLE_EQ(rep.layers[0].metrics[0].second, r.details[0].weightDensity);
  // The second layer reads the first one's output on chip, in the same tiling.
  EXPECT_FALSE(r.details[1].inputFromDram);
  EXPECT_TRUE(r.details[0].inputFromDram);
  const Totals& t = r.totals;
  EXPECT_EQ(t.cycles, r.details[0].cycles + r.details[1].cycles);
  EXPECT_EQ(t.denseCycles, r.details[0].denseCycles + r.details[1].denseCycles);
  EXPECT_DOUBLE_EQ(t.speedup(), static_cast<double>(t.denseCycles) / static_cast<double>(t.cycles));
  EXPECT_GT(t.energyPj, 0);
  EXPECT_NE(rep.toJson().find("\"speedup\""), std::string::npos);
  // Without verification or the dense baseline.
  o.verify = false;
  o.denseBaseline = false;
  o.baselineRows = false;
  const SessionResult quick = simulateModel(g, c, o);
  EXPECT_FALSE(quick.report.verdict.checked);
  EXPECT_EQ(quick.details[0].cycles, r.details[0].cycles);
  EXPECT_EQ(quick.details[0].denseCycles, 0);
  EXPECT_EQ(quick.report.summary.size(), 4u); // no dense baseline line
}

TEST(SparseSimulator, InvalidConfigIsRejectedBeforeRunning) {
  SparseConfig c = sparsePreset("tiny");
  c.crossbarFifoDepth = 0;
  try {
    simulateModel(buildLayerGraph(conv(1, 1, 3, 3, 1, 0)), c, SessionOptions{});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Config);
    EXPECT_STREQ(e.what(), "<config>: 'crossbar.fifo_depth': must be >= 1 (got 0)");
  }
}

TEST(SparseSimulator, SimulatorRunsAProgramDirectly) {
  const ir::Graph g = buildLayerGraph(conv(2, 3, 5, 5, 3, 1));
  const quant::QuantizedModel qm = quant::quantize(g, {});
  const Program p = compile(qm, sparsePreset("tiny"));
  Simulator sim(p, qm);
  sim.setInput(0, sparseInputs(g, 0.5, 3)[0]);
  std::vector<size_t> done;
  SimOptions o;
  o.denseBaseline = false;
  o.onLayerDone = [&](size_t i) { done.push_back(i); };
  sim.run(o);
  EXPECT_EQ(done, (std::vector<size_t>{0}));
  ASSERT_EQ(sim.layerDetails().size(), 1u);
  EXPECT_EQ(sim.layerDetails()[0].denseCycles, 0);
  const Tensor& y = sim.value(g.outputs[0]);
  EXPECT_EQ(y.dtype(), DType::I8);
  EXPECT_EQ(y.shape(), (Dims{1, 3, 5, 5}));
  EXPECT_EQ(sim.layerStats()[0].unit, "array");
}

} // namespace
} // namespace nnaccel::arch::sparse

namespace nnaccel::arch::sparse {
namespace {

TEST(SparseSimulator, ABatchRunsImageAfterImageKeepingWhatFitsOnChip) {
  // LeNet-5 at batch 2: every layer on the engine, bit-exact. The dataflow takes one image, so
  // each convolution runs twice (its cycles and products near twice batch 1's: the images'
  // sparsity differs) and streams its weights twice; both images' outputs fit the activation
  // RAMs, so a layer whose output stays on chip at batch 1 keeps both images on chip, and the
  // batch moves less DRAM than two batch-1 runs (before, every image went through DRAM: 416,415
  // bytes against 2 x 200,238).
  driver::LoadOptions two;
  two.import.defaultSymbolicDim = 2;
  const ir::Graph g1 = driver::loadModel("lenet5");
  const ir::Graph g2 = driver::loadModel("lenet5", two);
  const SparseConfig c = sparsePreset("scnn");
  const SessionResult r1 = simulateModel(g1, c, SessionOptions{});
  const SessionResult r2 = simulateModel(g2, c, SessionOptions{});
  EXPECT_TRUE(r2.report.verdict.passed) << r2.report.verdict.detail;
  ASSERT_EQ(r1.program.layers.size(), r2.program.layers.size());
  int onChipLayers = 0;
  for (size_t i = 0; i < r2.program.layers.size(); ++i) {
    const Layer& l = r2.program.layers[i];
    SCOPED_TRACE(l.name);
    EXPECT_FALSE(r2.report.layers[i].hostFallback);
    if (l.kind != LayerKind::Conv || l.conv.matrixLayout)
      continue;
    const report::LayerStats &a = r1.report.layers[i], &b = r2.report.layers[i];
    EXPECT_GT(b.cycles, a.cycles * 3 / 2);
    EXPECT_LT(b.cycles, a.cycles * 5 / 2);
    EXPECT_EQ(b.usefulMacs, 2 * a.usefulMacs);
    EXPECT_EQ(r2.details[i].outputToDram, r1.details[i].outputToDram);
    onChipLayers += r1.details[i].outputToDram ? 0 : 1;
  }
  EXPECT_GT(onChipLayers, 0);
  const auto dramBytes = [](const SessionResult& r) {
    return r.report.total.dram.readBytes + r.report.total.dram.writeBytes;
  };
  EXPECT_LT(dramBytes(r2), 2 * dramBytes(r1));
}

TEST(SparseSimulator, TheImagesOfABatchThatDoNotFitGoToDram) {
  // Shrinking the activation RAMs finds a size where one image of LeNet-5's first convolution
  // stays on chip but two do not: the second image's output (and only it) goes to DRAM, and
  // the result is still bit-exact.
  driver::LoadOptions two;
  two.import.defaultSymbolicDim = 2;
  const ir::Graph g1 = driver::loadModel("lenet5");
  const ir::Graph g2 = driver::loadModel("lenet5", two);
  bool found = false;
  for (int64_t ramBytes = 8192; ramBytes >= 16 && !found; ramBytes /= 2) {
    SparseConfig c = sparsePreset("scnn");
    c.iaRamBytes = c.oaRamBytes = ramBytes;
    const SessionResult r1 = simulateModel(g1, c, SessionOptions{});
    const SessionResult r2 = simulateModel(g2, c, SessionOptions{});
    ASSERT_TRUE(r2.report.verdict.passed) << r2.report.verdict.detail;
    size_t first = 0;
    while (r2.program.layers[first].kind != LayerKind::Conv)
      ++first;
    if (r1.details[first].outputToDram || !r2.details[first].outputToDram)
      continue;
    found = true;
    const int64_t oneImage = r1.report.layers[first].dram.writeBytes;
    EXPECT_EQ(oneImage, 0);
    EXPECT_GT(r2.report.layers[first].dram.writeBytes, 0) << ramBytes;
    // Only the second image was written: less than two images' worth of the batch-1 output.
    EXPECT_LE(r2.report.layers[first].dram.writeBytes, r2.details[first].access.oaWriteBytes);
  }
  EXPECT_TRUE(found) << "no RAM size keeps one image on chip but not two";
}

TEST(SparseSimulator, DramWaitsAreSkippedNotStepped) {
  // The array idles while the sequencer waits on DRAM; those cycles are jumped over, so the
  // largest accepted latency (10^9 cycles per transfer) and the smallest accepted bandwidth
  // (1/1024 byte per cycle) finish like the defaults do (before: stepped one cycle at a time,
  // which never finished). Cycles grow with latency and shrink with bandwidth, bit-exact.
  const ir::Graph g = driver::loadModel("lenet5");
  const auto cycles = [&](int64_t latency, double bytesPerCycle) {
    SparseConfig c = sparsePreset("scnn");
    c.dramLatencyCycles = latency;
    c.dramBytesPerCycle = bytesPerCycle;
    const SessionResult r = simulateModel(g, c, SessionOptions{});
    EXPECT_TRUE(r.report.verdict.passed) << r.report.verdict.detail;
    return r.report.total.cycles;
  };
  const int64_t base = cycles(100, 32);
  const int64_t slowDram = cycles(1'000'000'000, 32);
  EXPECT_GT(slowDram, base + 1'000'000'000);
  EXPECT_GT(cycles(100, 1.0 / 1024), cycles(100, 0.01));
  EXPECT_GT(cycles(100, 0.01), base);
}

} // namespace
} // namespace nnaccel::arch::sparse

namespace nnaccel::arch::sparse {
namespace {

/// The count \p key of layer \p i of \p r.
int64_t countOf(const SessionResult& r, size_t i, const std::string& key) {
  for (const auto& [k, v] : r.report.layers.at(i).counts)
    if (k == key)
      return v;
  ADD_FAILURE() << "no count " << key;
  return 0;
}

TEST(SparseSimulator, AnInputTooBigForTheIaRamStreamsOnceInRowBands) {
  // A 24-row input tile per PE overflows a 256-byte IA RAM: it streams in row bands (the SCNN
  // paper's temporal tiling), so its DRAM reads do not grow with the output-channel groups.
  // Halving the accumulators doubles the groups; the reads stay nearly the same. (Re-reading the
  // input for every group, the model before, would almost double them.)
  // 1x1 on 48x48 over tiny's 2x2 PEs: 24x24-cell frames; 8 banks x 288 entries give Kc = 4
  // (4 groups), 8 x 144 give Kc = 2 (8 groups).
  const ir::Graph g = buildLayerGraph(conv(4, 16, 48, 48, 1, 0));
  SparseConfig c = sparsePreset("tiny");
  c.iaRamBytes = 256;
  c.oaRamBytes = 1 << 20;
  c.accumulatorBankEntries = 288;
  const SessionResult a = run(g, c);
  c.accumulatorBankEntries = 144;
  const SessionResult b = run(g, c);
  ASSERT_TRUE(a.report.verdict.passed && b.report.verdict.passed);
  const auto groupsOf = [](const SessionResult& r) {
    return r.program.layers.at(0).conv.groups.size();
  };
  ASSERT_GE(groupsOf(a), 2u);
  ASSERT_EQ(groupsOf(b), 2 * groupsOf(a));
  // Only the weight streams differ (each group's stream has its own headers, read once per
  // band): within 10 %, where a re-read per group would add the whole input (23 KB) four times.
  const auto reads = [&](const SessionResult& r) {
    return static_cast<double>(countOf(r, 0, "dram_read_bytes"));
  };
  EXPECT_NEAR(reads(b) / reads(a), 1.0, 0.1);
  // The bands cost something: the rows each band boundary re-reads and the weights once per band,
  // over the input read once when it fits.
  c.iaRamBytes = 1 << 20;
  const SessionResult fits = run(g, c);
  EXPECT_GT(countOf(a, 0, "dram_read_bytes"), countOf(fits, 0, "dram_read_bytes"));
}

} // namespace
} // namespace nnaccel::arch::sparse
