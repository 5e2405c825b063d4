/// \file
/// Tests of the sparse engine's compiler (Compiler.h, docs/arch/SparseCompiler.md): for every
/// layer kind (Conv with same / valid / asymmetric padding, stride 2 phase planes, dilation,
/// groups and depthwise, 1x1, 1-D, ConvTranspose with output padding, Gemm, pooling) the exact
/// program fields (planes, displacements and extents, tilings, frames, Kc, groups, dense
/// counts); the capacity rules (Kc x frame cells <= accumulator entries, every (group, plane)
/// fits the weight FIFO, Kc shrinking for the FIFO); the compressed weight streams decoding
/// back to exactly the layer's non-zero int8 weights under every weight code table; the host
/// fallbacks with their reasons; and invalid configs.
#include "nnaccel/arch/sparse/Compiler.h"

#include "LayerSpecGraphs.h"
#include "QdqGraph.h"
#include "nnaccel/driver/ModelLoader.h"
#include "nnaccel/quant/QuantizedModel.h"
#include "nnaccel/support/Error.h"
#include "nnaccel/zoo/GraphBuilder.h"

#include <fmt/format.h>
#include <functional>
#include <gtest/gtest.h>
#include <map>
#include <numeric>
#include <set>
#include <tuple>

namespace nnaccel::arch::sparse {
namespace {

namespace testing = nnaccel::testing;

using testing::buildLayerGraph;
using testing::conv;
using testing::LayerSpec;
namespace sp = formats;

struct Compiled {
  quant::QuantizedModel qm;
  Program program;
};

Compiled compileGraph(const ir::Graph& g, const SparseConfig& c) {
  Compiled r{quant::quantize(g, {}), {}};
  r.program = compile(r.qm, c);
  return r;
}

Compiled compileSpec(const LayerSpec& s, const SparseConfig& c) {
  return compileGraph(buildLayerGraph(s), c);
}

/// The program's only array layer.
const Layer& convLayer(const Program& p) {
  const Layer* found = nullptr;
  for (const Layer& l : p.layers) {
    if (l.kind == LayerKind::Conv) {
      EXPECT_EQ(found, nullptr) << "more than one array layer";
      found = &l;
    }
  }
  NNACCEL_ASSERT(found != nullptr) << "no array layer";
  return *found;
}

/// The capacity rules every array layer must satisfy on \p c.
void checkCapacities(const ConvLayer& l, const SparseConfig& c) {
  int64_t maxCells = 0;
  for (const PeFrame& f : l.frames)
    maxCells = std::max(maxCells, f.width() * f.height());
  EXPECT_LE(l.kc * maxCells, c.accumulatorEntries()) << "Kc x frame cells";
  EXPECT_EQ(static_cast<int64_t>(l.frames.size()), l.inTiling.pes());
  EXPECT_LE(l.inTiling.x.parts, c.peCols);
  EXPECT_LE(l.inTiling.y.parts, c.peRows);
  EXPECT_EQ(l.inTiling.x.parts, l.outTiling.x.parts);
  EXPECT_EQ(l.inTiling.y.parts, l.outTiling.y.parts);
  int64_t next = 0;
  for (const WeightGroup& g : l.groups) {
    EXPECT_EQ(g.firstChannel, next);
    EXPECT_GE(g.channels, 1);
    EXPECT_LE(g.channels, l.kc);
    next += g.channels;
    int64_t previous = -1;
    for (const WeightGroup::Plane& p : g.planes) {
      EXPECT_GT(p.plane, previous) << "planes ascend";
      previous = p.plane;
      EXPECT_LT(p.plane, l.planes());
      EXPECT_FALSE(p.entries.empty());
      EXPECT_LE(static_cast<int64_t>(p.entries.size()), c.weightFifoEntries * c.weightsPerVector)
          << "a (group, plane) must fit the weight FIFO";
    }
  }
  EXPECT_EQ(next, l.outChannels);
  EXPECT_EQ(static_cast<int64_t>(l.post.size()), l.outChannels);
}

/// Decodes every weight stream of \p l and maps each non-pad entry back to its tap of the
/// original int8 weight tensor by inverting the ONNX definitions: it must hold exactly the
/// layer's non-zero weights, each once, with their values.
void checkWeightsRoundTrip(const LayerSpec& s, const quant::QuantNode& qn, const ConvLayer& l,
                           const SparseConfig& c) {
  const bool tr = s.kind == LayerSpec::Kind::ConvTranspose;
  const bool gemm = s.kind == LayerSpec::Kind::Gemm;
  const int64_t kh = gemm || s.oneD ? 1 : s.kh, kw = gemm ? 1 : s.kw;
  const int64_t cg = l.inChannels / l.convGroups, mg = l.outChannels / l.convGroups;
  const int8_t* w = qn.weights.data<int8_t>();
  auto weightAt = [&](int64_t m, int64_t ch, int64_t ky, int64_t kx) -> int8_t {
    if (gemm)
      return w[m * l.inChannels + ch];
    const int64_t lead = tr ? ch * mg + m % mg : m * cg + ch % cg;
    return w[(lead * kh + ky) * kw + kx];
  };
  /// The tap of displacement \p d on phase \p phase, or -1.
  auto tapOf = [&](int64_t d, int64_t phase, int64_t stride, int64_t dilation, int64_t pad,
                   int64_t kernel) -> int64_t {
    // A dilated axis with output phases (§2.3): tap k = phase + (k / classes) * classes sits on
    // tap-class plane `phase` with displacement -(k / classes), classes = stride / gcd.
    const int64_t classes = stride / std::gcd(stride, dilation);
    if (!tr && dilation / std::gcd(stride, dilation) > 1)
      return phase - d * classes < kernel ? phase - d * classes : -1;
    // Conv: output o = u + d reads input phase + u * stride = o * stride - pad + k * dilation.
    // ConvTranspose: output o = u * stride + d = u * stride - pad + k * dilation.
    const int64_t num = tr ? d + pad : phase - d * stride + pad;
    if (num % dilation != 0 || num / dilation < 0 || num / dilation >= kernel)
      return -1;
    return num / dilation;
  };
  std::set<std::tuple<int64_t, int64_t, int64_t, int64_t>> seen;
  const sp::CodeTable table = weightCodeTable(c);
  const sp::Frame frame = weightFrame(c, l.extentX, l.extentY);
  int64_t nonPad = 0;
  for (const WeightGroup& g : l.groups) {
    for (const WeightGroup::Plane& p : g.planes) {
      const std::vector<sp::Position> pos = sp::decodePositions(p.entries, table, frame);
      const int64_t phases = l.phasesX * l.phasesY;
      const int64_t ch = p.plane / phases;
      const int64_t phaseY = (p.plane % phases) / l.phasesX, phaseX = p.plane % l.phasesX;
      for (size_t i = 0; i < pos.size(); ++i) {
        if (p.entries[i].value == 0)
          continue; // a zero-valued pad
        ++nonPad;
        ASSERT_GE(pos[i].r, 0);
        ASSERT_LT(pos[i].r, l.extentX);
        ASSERT_LT(pos[i].s, l.extentY);
        ASSERT_LT(pos[i].k, g.channels);
        const int64_t m = g.firstChannel + pos[i].k;
        ASSERT_EQ(ch / cg, m / mg) << "weight of another convolution group";
        const int64_t kx = gemm ? 0 : tapOf(pos[i].r + l.dxMin, phaseX, s.sw, s.dw, s.padLeft, kw);
        const int64_t ky =
            gemm || s.oneD ? 0 : tapOf(pos[i].s + l.dyMin, phaseY, s.sh, s.dh, s.padTop, kh);
        ASSERT_GE(kx, 0) << "r " << pos[i].r;
        ASSERT_GE(ky, 0) << "s " << pos[i].s;
        EXPECT_EQ(p.entries[i].value, weightAt(m, ch, ky, kx))
            << "m " << m << " c " << ch << " tap " << ky << "," << kx;
        EXPECT_TRUE(seen.insert({m, ch, ky, kx}).second) << "tap encoded twice";
      }
    }
  }
  int64_t nonZeros = 0;
  for (int64_t i = 0; i < qn.weights.numElements(); ++i)
    nonZeros += w[i] != 0 ? 1 : 0;
  EXPECT_EQ(nonPad, nonZeros);
  EXPECT_EQ(l.nonZeroWeights, nonZeros);
}

/// Compiles \p s on \p c and runs the generic checks; returns the program.
Compiled compileAndCheck(const LayerSpec& s, const SparseConfig& c) {
  Compiled r = compileSpec(s, c);
  const Layer& layer = convLayer(r.program);
  checkCapacities(layer.conv, c);
  checkWeightsRoundTrip(s, r.qm.node(layer.node), layer.conv, c);
  return r;
}

TEST(SparseCompiler, ReportsItsProgressNodeByNode) {
  const SparseConfig c = sparsePreset("scnn");
  LayerSpec s = conv(3, 4, 16, 16, 3, 1);
  s.relu = true;
  const Compiled r = compileSpec(s, c);
  std::vector<std::pair<size_t, size_t>> seen;
  const Program p =
      compile(r.qm, c, [&](size_t done, size_t total) { seen.emplace_back(done, total); });
  ASSERT_FALSE(seen.empty());
  EXPECT_EQ(seen.back(), std::make_pair(r.qm.graph.numNodes(), r.qm.graph.numNodes()));
  EXPECT_TRUE(std::is_sorted(seen.begin(), seen.end()));
  EXPECT_EQ(p.layers.size(), r.program.layers.size()); // watching changes nothing
}

TEST(SparseCompiler, ZeroPointsCompressDifferencesOfNineBits) {
  SparseConfig c = sparsePreset("scnn");
  const quant::QuantizedModel qm = quant::quantize(nnaccel::testing::qdqGraph(true), {});
  const Program p = compile(qm, c);
  ASSERT_FALSE(p.layers.empty());
  EXPECT_EQ(p.layers[0].conv.inputZero, -8);    // uint8 zero point 120
  EXPECT_EQ(p.layers[0].conv.outputZero, -128); // the Relu's uint8 zero point 0
  c.valueBits = 8;
  try {
    compile(qm, c);
    FAIL() << "8 value bits took differences of 9";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Config);
    EXPECT_EQ(e.context().key, "numerics.value_bits");
    EXPECT_EQ(e.reason(), "node 'c1' reads 'x' at zero point -8: its compressed values are the "
                          "differences q - z in [-255, 255], which need 9 value bits, not 8");
  }
}

TEST(SparseCompiler, SameConvOnScnn) {
  const SparseConfig c = sparsePreset("scnn");
  const Compiled r = compileAndCheck(conv(3, 4, 16, 16, 3, 1), c);
  ASSERT_EQ(r.program.layers.size(), 1u);
  const Layer& layer = r.program.layers[0];
  EXPECT_EQ(layer.kind, LayerKind::Conv);
  EXPECT_EQ(layer.op, "Conv");
  EXPECT_EQ(layer.name, "conv0");
  EXPECT_TRUE(layer.note.empty()) << layer.note;
  const ConvLayer& l = layer.conv;
  EXPECT_EQ(l.planes(), 3);
  EXPECT_EQ(l.phasesX, 1);
  EXPECT_EQ(l.planeW, 16);
  EXPECT_EQ(l.planeH, 16);
  EXPECT_EQ(l.coordScaleX, 1);
  EXPECT_EQ(l.outW, 16);
  EXPECT_EQ(l.outH, 16);
  EXPECT_EQ(l.dxMin, -1); // same padding: displacements {1, 0, -1}
  EXPECT_EQ(l.dyMin, -1);
  EXPECT_EQ(l.extentX, 3);
  EXPECT_EQ(l.extentY, 3);
  EXPECT_EQ(l.inTiling, (Tiling{Split{16, 8}, Split{16, 8}}));
  EXPECT_EQ(l.outTiling, (Tiling{Split{16, 8}, Split{16, 8}}));
  ASSERT_EQ(l.frames.size(), 64u);
  const PeFrame& f = l.frames[9]; // PE (1, 1): tile 2 x 2 with a 1-cell halo all round
  EXPECT_EQ(f.inX0, 2);
  EXPECT_EQ(f.inY0, 2);
  EXPECT_EQ(f.width(), 4);
  EXPECT_EQ(f.height(), 4);
  EXPECT_EQ(f.halos.size(), 8u);
  EXPECT_EQ(l.kc, 4);
  EXPECT_EQ(l.groups.size(), 1u);
  EXPECT_EQ(l.denseWeights, 4 * 3 * 9);
  EXPECT_EQ(l.nonZeroWeights, 4 * 3 * 9); // weights of magnitude >= 0.25 never quantize to 0
  EXPECT_EQ(l.denseTapsPerPlane, (std::vector<int64_t>{9}));
  EXPECT_EQ(l.clampMin, -128);
  EXPECT_EQ(l.clampMax, 127);
  EXPECT_EQ(l.convGroups, 1);
  EXPECT_FALSE(l.matrixLayout);
  // Each of the 4 output channels has one post entry from the quantizer.
  const quant::QuantNode& qn = r.qm.node(layer.node);
  for (int64_t m = 0; m < 4; ++m) {
    EXPECT_EQ(l.post[static_cast<size_t>(m)].bias, qn.bias[static_cast<size_t>(m)]);
    EXPECT_EQ(l.post[static_cast<size_t>(m)].multiplier, qn.multipliers[static_cast<size_t>(m)]);
  }
  // The DRAM weight image is the sum of the packed streams.
  int64_t bytes = 0;
  for (const WeightGroup& g : l.groups)
    bytes += (g.streamBits + 7) / 8;
  EXPECT_EQ(r.program.weightBytes, bytes);
  // Header 16 * (K + 2) bits, then per plane 32 bits + entries x (4-bit code + 16-bit value).
  EXPECT_EQ(l.groups[0].streamBits, 16 * 6 + 3 * (32 + 36 * 20));
  EXPECT_EQ(r.program.config, c);
}

TEST(SparseCompiler, PowerOfTwoAddressesCostAccumulatorEntries) {
  // Eq. 1 with its multipliers rounded up to powers of two (accumulators.address_rounding):
  // a 1x1 layer of 24x24 on 8x8 PEs has 3x3 frames, addressed as 4x4, so a group holds
  // 1024 / 16 = 64 output channels instead of 1024 / 9 = 113.
  const ir::Graph g = buildLayerGraph(conv(4, 128, 24, 24, 1, 0));
  const quant::QuantizedModel qm = quant::quantize(g, {});
  SparseConfig c = sparsePreset("scnn");
  EXPECT_EQ(compile(qm, c).layers.at(0).conv.kc, 113);
  c.addressRounding = AddressRounding::PowerOfTwo;
  EXPECT_EQ(compile(qm, c).layers.at(0).conv.kc, 64);
  EXPECT_EQ(c.addressStride(5), 8);
  EXPECT_EQ(c.addressStride(8), 8);
  EXPECT_EQ(c.addressStride(1), 1);
}

TEST(SparseCompiler, FusedReluBecomesTheClamp) {
  LayerSpec s = conv(2, 3, 6, 6, 3, 1);
  s.relu = true;
  const Compiled r = compileAndCheck(s, sparsePreset("scnn"));
  ASSERT_EQ(r.program.layers.size(), 1u) << "the Relu is consumed by the Conv layer";
  const Layer& layer = r.program.layers[0];
  EXPECT_EQ(layer.op, "Conv+Relu");
  EXPECT_EQ(layer.conv.clampMin, 0);
  EXPECT_EQ(layer.conv.clampMax, 127);
  EXPECT_EQ(r.qm.graph.value(layer.outputs[0]).name, "relu0_out");
}

TEST(SparseCompiler, ValidConvShrinksTheOutput) {
  const Compiled r = compileAndCheck(conv(2, 3, 10, 10, 3, 0), sparsePreset("scnn"));
  const ConvLayer& l = convLayer(r.program).conv;
  EXPECT_EQ(l.outW, 8);
  EXPECT_EQ(l.outH, 8);
  EXPECT_EQ(l.dxMin, -2); // displacements {0, -1, -2}
  EXPECT_EQ(l.extentX, 3);
  // Over 8 PEs, PE 1's input pixel 1 would reach output -1 (outside the plane, dropped) left of
  // PE 0's tile; the neighbour rule counts it, so the compiler backs off to 5 PEs.
  EXPECT_EQ(l.inTiling.x, (Split{10, 5}));
  EXPECT_EQ(l.outTiling.x, (Split{8, 5}));
}

TEST(SparseCompiler, AsymmetricPadsAndRectangularKernel) {
  LayerSpec s = conv(2, 5, 7, 9, 3, 0);
  s.kw = 2;
  s.padTop = 0;
  s.padBottom = 2;
  s.padLeft = 1;
  s.padRight = 0;
  const Compiled r = compileAndCheck(s, sparsePreset("scnn"));
  const ConvLayer& l = convLayer(r.program).conv;
  EXPECT_EQ(l.outH, 7);
  EXPECT_EQ(l.outW, 9);
  EXPECT_EQ(l.dyMin, -2); // y: pad 0 -> {0, -1, -2}
  EXPECT_EQ(l.extentY, 3);
  EXPECT_EQ(l.dxMin, 0); // x: pad 1 -> {1, 0}
  EXPECT_EQ(l.extentX, 2);
  EXPECT_EQ(l.denseTapsPerPlane, (std::vector<int64_t>{6}));
  // Products reach only right (x) and up (y): no left or bottom halo anywhere.
  for (const PeFrame& f : l.frames) {
    EXPECT_EQ(f.haloLeft, 0);
    EXPECT_EQ(f.haloBottom, 0);
  }
}

TEST(SparseCompiler, StrideTwoSplitsChannelsIntoPhasePlanes) {
  LayerSpec s = conv(2, 3, 9, 9, 3, 1);
  s.sh = s.sw = 2;
  const Compiled r = compileAndCheck(s, sparsePreset("scnn"));
  const Layer& layer = convLayer(r.program);
  const ConvLayer& l = layer.conv;
  EXPECT_EQ(layer.note, "stride 2x2: 4 phase planes per channel");
  EXPECT_EQ(l.phasesX, 2);
  EXPECT_EQ(l.phasesY, 2);
  EXPECT_EQ(l.planes(), 8);
  EXPECT_EQ(l.planeW, 5);
  EXPECT_EQ(l.planeH, 5);
  EXPECT_EQ(l.outW, 5);
  // Output o reads input 2o - 1 + k: tap 0 -> phase 1, plane coordinate o - 1 (d = +1);
  // tap 1 -> phase 0, d = 0; tap 2 -> phase 1, d = 0.
  EXPECT_EQ(l.dxMin, 0);
  EXPECT_EQ(l.extentX, 2);
  // Taps per phase plane (py, px): (0,0) 1, (0,1) 2, (1,0) 2, (1,1) 4.
  EXPECT_EQ(l.denseTapsPerPlane, (std::vector<int64_t>{1, 2, 2, 4}));
  // Stride 3 with kernel 2: one phase plane per channel and axis never read.
  LayerSpec s3 = conv(1, 2, 9, 9, 2, 0);
  s3.sh = s3.sw = 3;
  const Compiled r3 = compileAndCheck(s3, sparsePreset("scnn"));
  const ConvLayer& l3 = convLayer(r3.program).conv;
  EXPECT_EQ(l3.planes(), 9);
  EXPECT_EQ(l3.denseTapsPerPlane, (std::vector<int64_t>{1, 1, 0, 1, 1, 0, 0, 0, 0}));
}

TEST(SparseCompiler, DilationSplitsTheOutputIntoPhasesSideBySide) {
  // 12 x 12, 3x3, dilation 2, pad 2: output phases r = 0, 1 of 6 outputs each per axis, laid
  // side by side with a gap of 2 (the undilated kernel's halo): a 14-wide accumulator plane.
  LayerSpec s = conv(2, 2, 12, 12, 3, 2);
  s.dh = s.dw = 2;
  const Compiled r = compileAndCheck(s, sparsePreset("scnn"));
  const Layer& layer = convLayer(r.program);
  const ConvLayer& l = layer.conv;
  EXPECT_EQ(l.planes(), 2);
  EXPECT_EQ(l.outPhasesX, 2);
  EXPECT_EQ(l.outPhasesY, 2);
  EXPECT_EQ(l.outW, 12);
  EXPECT_EQ(l.accW, 14);
  EXPECT_EQ(l.planeW, 16);
  EXPECT_EQ(l.dxMin, -2); // the undilated taps: {0, -1, -2}
  EXPECT_EQ(l.extentX, 3);
  EXPECT_EQ(l.denseTapsPerPlane, (std::vector<int64_t>{9}));
  EXPECT_EQ(l.outputXOf, (std::vector<int32_t>{0, 2, 4, 6, 8, 10, -1, -1, 1, 3, 5, 7, 9, 11}));
  // Phase r's pixel t is input r - 2 + 2t, for t in [0, 6 + 2).
  EXPECT_EQ(l.inputXOf, (std::vector<int32_t>{-1, 0, 2, 4, 6, 8, 10, -1, //
                                              -1, 1, 3, 5, 7, 9, 11, -1}));
  EXPECT_EQ(layer.note, "dilation: 2x2 output phases in a 14x14 accumulator plane");
  // Halos are the undilated kernel's (2 cells in all), not (3 - 1) x 2 on each side.
  EXPECT_EQ(l.inTiling.x.parts, 8);
  for (const PeFrame& f : l.frames)
    EXPECT_LE(f.haloLeft + f.haloRight, 3);
}

TEST(SparseCompiler, DilationWithStride) {
  // Dilation 2 at stride 2 reads one stride phase per tap: the plain stride planes (R = 1).
  LayerSpec s = conv(2, 3, 11, 11, 3, 2);
  s.sh = s.sw = s.dh = s.dw = 2;
  Compiled r = compileAndCheck(s, sparsePreset("scnn"));
  EXPECT_FALSE(convLayer(r.program).conv.phaseDecomposed());
  // Dilation 4 at stride 2: 2 output phases per axis, one tap class.
  s.dh = s.dw = 4;
  s.padTop = s.padLeft = s.padBottom = s.padRight = 4;
  r = compileAndCheck(s, sparsePreset("scnn"));
  EXPECT_EQ(convLayer(r.program).conv.outPhasesX, 2);
  EXPECT_EQ(convLayer(r.program).conv.phasesX, 1);
  // Dilation 3 at stride 2 (coprime), pad 4: 7 outputs in 3 output phases (3, 2, 2) with gaps
  // of 1; the taps split into 2 classes (k mod 2).
  s.dh = s.dw = 3;
  r = compileAndCheck(s, sparsePreset("scnn"));
  const Layer& layer = convLayer(r.program);
  EXPECT_EQ(layer.conv.outPhasesX, 3);
  EXPECT_EQ(layer.conv.phasesX, 2);
  EXPECT_EQ(layer.conv.denseTapsPerPlane, (std::vector<int64_t>{4, 2, 2, 1}));
  EXPECT_EQ(layer.note, "tap classes 2x2: 4 phase planes per channel; dilation: 3x3 output "
                        "phases in a 9x9 accumulator plane");
}

TEST(SparseCompiler, AsppDilationsFitTheAccumulators) {
  // The zoo's ASPP branches (33 x 33, 3x3, rates 6 / 12 / 18) went to the host in the
  // displacement form (a frame of 41 x 41 cells and more): in phases they run on all 64 PEs.
  for (const int64_t rate : {6, 12, 18}) {
    LayerSpec s = conv(8, 8, 33, 33, 3, rate);
    s.dh = s.dw = rate;
    const Compiled r = compileAndCheck(s, sparsePreset("scnn"));
    const ConvLayer& l = convLayer(r.program).conv;
    EXPECT_EQ(l.accW, 33 + (rate - 1) * 2) << rate;
    EXPECT_EQ(l.inTiling.pes(), 64) << rate;
    EXPECT_GE(l.kc, 4) << rate;
  }
}

TEST(SparseCompiler, ZooAsppRunsEveryConvolutionOnTheArray) {
  // Its dilated branches (rates 6, 12, 18) included: no layer of the ASPP head is left to the
  // host.
  const Compiled r = compileGraph(driver::loadModel("aspp"), sparsePreset("scnn"));
  int dilated = 0;
  for (const Layer& l : r.program.layers) {
    EXPECT_NE(l.kind, LayerKind::Host) << l.name << ": " << l.note;
    dilated += l.kind == LayerKind::Conv && l.conv.phaseDecomposed() ? 1 : 0;
  }
  EXPECT_EQ(dilated, 3);
}

TEST(SparseCompiler, GroupedAndDepthwise) {
  LayerSpec s = conv(6, 9, 7, 7, 3, 1);
  s.group = 3;
  Compiled r = compileAndCheck(s, sparsePreset("scnn"));
  const ConvLayer& l = convLayer(r.program).conv;
  EXPECT_EQ(l.convGroups, 3);
  EXPECT_EQ(l.denseWeights, 9 * 2 * 9);
  EXPECT_EQ(l.nonZeroWeights, 9 * 2 * 9);
  LayerSpec d = conv(8, 8, 6, 6, 3, 1);
  d.group = 8;
  r = compileAndCheck(d, sparsePreset("scnn"));
  const ConvLayer& dl = convLayer(r.program).conv;
  EXPECT_EQ(dl.convGroups, 8);
  EXPECT_EQ(dl.denseWeights, 8 * 9);
  // Every group of Kc channels has only its own channels' planes.
  for (const WeightGroup& g : dl.groups) {
    ASSERT_EQ(static_cast<int64_t>(g.planes.size()), g.channels);
    for (size_t i = 0; i < g.planes.size(); ++i)
      EXPECT_EQ(g.planes[i].plane, g.firstChannel + static_cast<int64_t>(i));
  }
}

TEST(SparseCompiler, PointwiseConvHasNoHalos) {
  const Compiled r = compileAndCheck(conv(5, 7, 8, 8, 1, 0), sparsePreset("scnn"));
  const ConvLayer& l = convLayer(r.program).conv;
  EXPECT_EQ(l.extentX, 1);
  EXPECT_EQ(l.extentY, 1);
  EXPECT_EQ(l.dxMin, 0);
  ASSERT_EQ(l.frames.size(), 64u);
  for (const PeFrame& f : l.frames) {
    EXPECT_EQ(f.width(), 1);
    EXPECT_EQ(f.height(), 1);
    EXPECT_TRUE(f.halos.empty());
  }
  EXPECT_EQ(l.kc, 7);
}

TEST(SparseCompiler, OneDimensionalConvUsesOneRow) {
  LayerSpec s = conv(3, 4, 1, 20, 3, 1);
  s.oneD = true;
  s.kh = 1;
  s.padTop = s.padBottom = 0;
  const Compiled r = compileAndCheck(s, sparsePreset("scnn"));
  const ConvLayer& l = convLayer(r.program).conv;
  EXPECT_EQ(l.inH, 1);
  EXPECT_EQ(l.outH, 1);
  EXPECT_EQ(l.inTiling.y.parts, 1);
  EXPECT_EQ(l.inTiling.x.parts, 8);
  EXPECT_EQ(l.extentY, 1);
  EXPECT_EQ(l.extentX, 3);
}

TEST(SparseCompiler, ConvTransposeScalesTheInputCoordinate) {
  LayerSpec s = conv(3, 2, 4, 4, 3, 1);
  s.kind = LayerSpec::Kind::ConvTranspose;
  s.sh = s.sw = 2;
  s.outPadH = s.outPadW = 1;
  const Compiled r = compileAndCheck(s, sparsePreset("scnn"));
  const Layer& layer = convLayer(r.program);
  const ConvLayer& l = layer.conv;
  EXPECT_EQ(layer.op, "ConvTranspose");
  EXPECT_EQ(l.phasesX, 1);
  EXPECT_EQ(l.planes(), 3);
  EXPECT_EQ(l.coordScaleX, 2);
  EXPECT_EQ(l.coordScaleY, 2);
  EXPECT_EQ(l.planeW, 4);
  EXPECT_EQ(l.outW, 8);
  EXPECT_EQ(l.outH, 8);
  EXPECT_EQ(l.dxMin, -1); // out = 2u + k - 1
  EXPECT_EQ(l.extentX, 3);
  EXPECT_EQ(l.inTiling, (Tiling{Split{4, 4}, Split{4, 4}}));
  EXPECT_EQ(l.outTiling, (Tiling{Split{8, 4}, Split{8, 4}}));
  EXPECT_EQ(l.denseWeights, 3 * 2 * 9);
  // Output padding past the full result: the last output column only gets the bias.
  LayerSpec wide = s;
  wide.kh = wide.kw = 2;
  wide.padTop = wide.padLeft = wide.padBottom = wide.padRight = 0;
  wide.sh = wide.sw = 3;
  wide.outPadH = wide.outPadW = 2;
  const Compiled rw = compileAndCheck(wide, sparsePreset("scnn"));
  const ConvLayer& lw = convLayer(rw.program).conv;
  EXPECT_EQ(lw.outW, 3 * 3 + 2 + 2);
  EXPECT_EQ(lw.coordScaleX, 3);
  EXPECT_EQ(lw.dxMin, 0);
  EXPECT_EQ(lw.extentX, 2);
  // Grouped ConvTranspose.
  LayerSpec g = s;
  g.inChannels = 4;
  g.outChannels = 6;
  g.group = 2;
  const Compiled rg = compileAndCheck(g, sparsePreset("tiny"));
  EXPECT_EQ(convLayer(rg.program).conv.convGroups, 2);
}

TEST(SparseCompiler, GemmIsAOneByOneConvOnARowPlane) {
  LayerSpec s;
  s.kind = LayerSpec::Kind::Gemm;
  s.h = 5;
  s.inChannels = 7;
  s.outChannels = 6;
  const Compiled r = compileAndCheck(s, sparsePreset("scnn"));
  const Layer& layer = convLayer(r.program);
  const ConvLayer& l = layer.conv;
  EXPECT_EQ(layer.op, "Gemm");
  EXPECT_EQ(layer.note, "fully connected: 6 output channels in 6 slices of 1 groups of <= 1, "
                        "one per PE, each PE holding all 5 input row(s)");
  EXPECT_TRUE(l.matrixLayout);
  EXPECT_EQ(l.planes(), 7);
  EXPECT_EQ(l.planeW, 5);
  EXPECT_EQ(l.planeH, 1);
  EXPECT_EQ(l.outW, 5);
  EXPECT_EQ(l.outH, 1);
  EXPECT_EQ(l.outChannels, 6);
  EXPECT_EQ(l.inTiling.pes(), 1); // every PE holds the whole 1 x 5 plane
  EXPECT_EQ(l.usedPes(), 6);      // and one output channel
  EXPECT_EQ(l.sliceFirstGroup, (std::vector<int64_t>{0, 1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(l.denseWeights, 42);
}

TEST(SparseCompiler, PoolingRunsInThePostProcessingUnits) {
  LayerSpec s = conv(3, 3, 9, 10, 2, 0);
  s.kind = LayerSpec::Kind::MaxPool;
  s.sh = s.sw = 2;
  Compiled r = compileSpec(s, sparsePreset("scnn"));
  ASSERT_EQ(r.program.layers.size(), 1u);
  const Layer& mp = r.program.layers[0];
  EXPECT_EQ(mp.kind, LayerKind::Pool);
  EXPECT_EQ(mp.op, "MaxPool");
  EXPECT_EQ(mp.pool.params.kind, ir::PoolParams::Kind::Max);
  EXPECT_EQ(mp.pool.tiling, (Tiling{Split{5, 5}, Split{4, 4}}));
  EXPECT_EQ(r.program.weightBytes, 0);
  s.kind = LayerSpec::Kind::AveragePool;
  r = compileSpec(s, sparsePreset("tiny"));
  const Layer& ap = r.program.layers[0];
  EXPECT_EQ(ap.kind, LayerKind::Pool);
  EXPECT_EQ(ap.pool.params.kind, ir::PoolParams::Kind::Average);
  EXPECT_FALSE(ap.pool.countMultipliers.empty());
  EXPECT_EQ(ap.pool.tiling, (Tiling{Split{5, 2}, Split{4, 2}}));
}

/// conv (8 channels, 3x3) + Relu on a 1x3x16x16 input, then \p tail on its output.
ir::Graph convThen(const std::function<ir::ValueId(zoo::GraphBuilder&, ir::ValueId)>& tail) {
  zoo::GraphBuilder b("fuse", 3);
  ir::ValueId x = b.input("input", {1, 3, 16, 16});
  x = b.relu("relu", b.conv("conv", x, zoo::ConvSpec{8, 3, 1, 1}));
  b.output(tail(b, x), "output");
  ir::Graph g = b.finish();
  driver::prepareGraph(g);
  return g;
}

TEST(SparseCompiler, PoolingThatAloneReadsAConvolutionIsFusedIntoItsPostProcessing) {
  const ir::Graph g = convThen([](zoo::GraphBuilder& b, ir::ValueId x) {
    return b.maxPool("pool", x, zoo::PoolSpec{3, 2, 1});
  });
  SparseConfig c = sparsePreset("scnn");
  Compiled r = compileGraph(g, c);
  ASSERT_EQ(r.program.layers.size(), 1u);
  const Layer& l = r.program.layers[0];
  EXPECT_EQ(l.kind, LayerKind::Conv);
  EXPECT_EQ(l.op, "Conv+Relu+MaxPool");
  EXPECT_EQ(l.outputs, std::vector<ir::ValueId>{r.qm.graph.outputs[0]});
  EXPECT_NE(l.note.find("pool fused into post-processing"), std::string::npos) << l.note;
  ASSERT_TRUE(l.conv.fusedPool.has_value());
  const FusedPool& f = *l.conv.fusedPool;
  EXPECT_EQ(f.node, "pool");
  EXPECT_EQ(f.pool.params.batch, 1);
  EXPECT_EQ(f.pool.tiling, (Tiling{Split{8, 8}, Split{8, 8}})); // the pooled 8x8 on the 8x8 grid
  EXPECT_EQ(f.windowOpsPerChannel, 8 * 8 * 9);
  // 2x2 input tiles, 3x3 windows at stride 2: a window reads 2 (first row or column) or 3 rows
  // and columns, of which the PE holds 2; PE (0, 0) receives nothing.
  EXPECT_EQ(f.haloValuesPerChannel, 7 * 2 + 7 * 2 + 7 * 7 * 5);
  EXPECT_EQ(static_cast<int64_t>(f.peOpsPerChannel.size()), l.conv.inTiling.pes());
  EXPECT_EQ(std::accumulate(f.peOpsPerChannel.begin(), f.peOpsPerChannel.end(), int64_t{0}),
            f.windowOpsPerChannel + f.haloValuesPerChannel);

  c.fusePooling = false; // post_processing.fuse_pooling: false
  r = compileGraph(g, c);
  ASSERT_EQ(r.program.layers.size(), 2u);
  EXPECT_FALSE(r.program.layers[0].conv.fusedPool);
  EXPECT_EQ(r.program.layers[1].kind, LayerKind::Pool);
}

TEST(SparseCompiler, PoolingIsNotFusedWhenTheOutputHasAnotherReader) {
  const auto layersOf = [](const ir::Graph& g) {
    std::vector<std::string> ops;
    for (const Layer& l : compileGraph(g, sparsePreset("scnn")).program.layers)
      ops.push_back(l.op);
    return ops;
  };
  EXPECT_EQ(layersOf(convThen([](zoo::GraphBuilder& b, ir::ValueId x) {
              return b.add("sum", b.maxPool("pool", x, zoo::PoolSpec{2, 2, 0}),
                           b.avgPool("avg", x, zoo::PoolSpec{2, 2, 0}));
            })),
            (std::vector<std::string>{"Conv+Relu", "AveragePool", "MaxPool", "Add"}));
  // A post-processing layer between them (as Caffe AlexNet's LRN is): the pooling reads it.
  EXPECT_EQ(layersOf(convThen([](zoo::GraphBuilder& b, ir::ValueId x) {
              return b.maxPool("pool", b.sigmoid("act", x), zoo::PoolSpec{3, 2, 0});
            })),
            (std::vector<std::string>{"Conv+Relu", "Sigmoid", "MaxPool"}));
}

TEST(SparseCompiler, KcFromTheAccumulatorCapacity) {
  // tiny: 8 banks x 8 entries = 64 accumulators; a 3x3 same conv on 6x6 over 2x2 PEs has
  // 3x3 tiles with 1-cell halos: 5 x 5 = 25 cells -> Kc = 2.
  SparseConfig c = sparsePreset("tiny");
  c.weightFifoEntries = 50; // not the limit here
  const Compiled r = compileAndCheck(conv(2, 5, 6, 6, 3, 1), c);
  const ConvLayer& l = convLayer(r.program).conv;
  EXPECT_EQ(l.inTiling, (Tiling{Split{6, 2}, Split{6, 2}}));
  EXPECT_EQ(l.frames[0].width() * l.frames[0].height(), 25);
  EXPECT_EQ(l.kc, 2);
  ASSERT_EQ(l.groups.size(), 3u);
  EXPECT_EQ(l.groups[2].firstChannel, 4);
  EXPECT_EQ(l.groups[2].channels, 1); // the partial last group
}

TEST(SparseCompiler, KcShrinksUntilEveryPlaneFitsTheWeightFifo) {
  // scnn: the FIFO holds 50 vectors of 4 = 200 entries; one input plane of 64 dense 3x3
  // channels is 576 entries. The compiler sizes Kc from a bound: the non-zeros plus one pad per
  // 16 positions (the longest 4-bit zero run): Kc = 20 gives 180 + 12 = 192 <= 200, Kc = 21
  // gives 189 + 12 = 201. (Dense weights need no pad, so Kc = 22, 198 entries, would fit too.)
  const SparseConfig c = sparsePreset("scnn");
  const Compiled r = compileAndCheck(conv(1, 64, 8, 8, 3, 1), c);
  const ConvLayer& l = convLayer(r.program).conv;
  EXPECT_EQ(l.kc, 20);
  ASSERT_EQ(l.groups.size(), 4u);
  EXPECT_EQ(l.groups[0].planes[0].entries.size(), 20u * 9);
  EXPECT_EQ(l.groups[3].channels, 4);
  // With 2-bit zero runs (longest run 3) sparse weights need pads; every plane still fits.
  SparseConfig shortRuns = c;
  shortRuns.indexBits = 2;
  LayerSpec sparse = conv(1, 64, 8, 8, 3, 1);
  sparse.weightDensity = 0.2;
  const Compiled rs = compileAndCheck(sparse, shortRuns);
  bool pads = false;
  for (const WeightGroup& g : convLayer(rs.program).conv.groups)
    for (const WeightGroup::Plane& p : g.planes)
      for (const sp::CodedEntry& e : p.entries)
        pads = pads || e.value == 0;
  EXPECT_TRUE(pads) << "runs longer than 3 zeros need zero-valued pads";
}

TEST(SparseCompiler, SparseWeightsSkipEmptyPlanesAndKeepOnlyNonZeros) {
  LayerSpec s = conv(8, 6, 6, 6, 3, 1);
  s.weightDensity = 0.15;
  s.seed = 7;
  const SparseConfig c = sparsePreset("tiny");
  const Compiled r = compileAndCheck(s, c);
  const ConvLayer& l = convLayer(r.program).conv;
  EXPECT_LT(l.nonZeroWeights, l.denseWeights / 4);
  EXPECT_GT(l.nonZeroWeights, 0);
  // The stream of a group is shorter than the dense one; some (group, plane) are empty.
  size_t planes = 0;
  for (const WeightGroup& g : l.groups)
    planes += g.planes.size();
  EXPECT_LT(planes, l.groups.size() * 8);
}

TEST(SparseCompiler, EveryWeightCodeTableRoundTrips) {
  LayerSpec strided = conv(3, 5, 9, 8, 3, 1);
  strided.sh = 2;
  strided.dw = 2;
  strided.padLeft = strided.padRight = 2;
  strided.weightDensity = 0.3;
  LayerSpec transposed = conv(2, 3, 4, 5, 4, 1);
  transposed.kind = LayerSpec::Kind::ConvTranspose;
  transposed.sh = transposed.sw = 2;
  transposed.weightDensity = 0.5;
  for (const WeightCodeTable table : {WeightCodeTable::ZeroRunLength, WeightCodeTable::Fig4C,
                                      WeightCodeTable::Fig5D, WeightCodeTable::Fig5E}) {
    for (const int64_t indexBits : {2, 4}) {
      if (table != WeightCodeTable::ZeroRunLength && indexBits != 4)
        continue;
      SparseConfig c = sparsePreset("scnn");
      c.weightCodes = table;
      c.indexBits = indexBits;
      SCOPED_TRACE(
          fmt::format("weight table {} index bits {}", static_cast<int>(table), indexBits));
      compileAndCheck(strided, c);
      compileAndCheck(transposed, c);
    }
  }
}

TEST(SparseCompiler, RandomLayersSatisfyTheCapacityRulesAndRoundTrip) {
  Rng rng(0x5ca1ab1e);
  for (int i = 0; i < 30; ++i) {
    const LayerSpec s = testing::randomLayer(rng);
    SCOPED_TRACE(s.describe());
    for (const char* preset : {"scnn", "tiny"}) {
      const SparseConfig c = sparsePreset(preset);
      const Compiled r = compileSpec(s, c);
      for (const Layer& l : r.program.layers) {
        if (l.kind != LayerKind::Conv || (l.name != "conv0" && l.name != "gemm0"))
          continue; // the chained second convolution is not described by the spec
        checkCapacities(l.conv, c);
        checkWeightsRoundTrip(s, r.qm.node(l.node), l.conv, c);
      }
    }
  }
}

// --- host fallbacks ---------------------------------------------------------------------------

TEST(SparseCompiler, FrameLargerThanTheAccumulatorFallsBackToTheHost) {
  SparseConfig c = sparsePreset("tiny");
  c.accumulatorBankEntries = 1; // 8 accumulators
  const Compiled r = compileSpec(conv(2, 3, 5, 5, 3, 1), c);
  ASSERT_EQ(r.program.layers.size(), 1u);
  const Layer& l = r.program.layers[0];
  EXPECT_EQ(l.kind, LayerKind::Host);
  // 5 pixels over 2 PEs: tiles of 2 and 3 plus 1-cell halos: the larger frame is 5 x 5.
  EXPECT_EQ(l.note, "a PE's accumulator frame of 25 cells (tile + halos) exceeds the 8 "
                    "accumulator entries");
}

TEST(SparseCompiler, PlaneLargerThanTheWeightFifoFallsBackToTheHost) {
  SparseConfig c = sparsePreset("tiny");
  c.weightFifoEntries = 1; // one vector of F = 2 weights
  const Compiled r = compileSpec(conv(2, 3, 5, 5, 3, 1), c);
  ASSERT_EQ(r.program.layers.size(), 1u);
  EXPECT_EQ(r.program.layers[0].kind, LayerKind::Host);
  EXPECT_EQ(r.program.layers[0].note, "one output channel's weights on one input plane (9 "
                                      "entries) exceed the weight FIFO (1 vectors of 2)");
  // A 1x2 kernel fits one vector per channel: Kc = 1, on the array.
  LayerSpec s = conv(2, 3, 5, 5, 1, 0);
  s.kw = 2;
  const Compiled ok = compileAndCheck(s, c);
  EXPECT_EQ(convLayer(ok.program).conv.kc, 1);
}

TEST(SparseCompiler, ElementwiseOnThePpuAndOperatorsWithoutAUnitOnTheHost) {
  zoo::GraphBuilder b("mixed", 3);
  ir::ValueId x = b.input("input", {1, 2, 6, 6});
  x = b.conv("conv", x, zoo::ConvSpec{4, 3, 1, 1});
  x = b.sigmoid("act", x);
  x = b.resize("cubic", x, 8, 8, zoo::ResizeMode::Bicubic);
  x = b.globalAvgPool("gap", x);
  x = b.flatten("flat", x);
  x = b.gemm("fc", x, 3);
  x = b.softmax("prob", x);
  b.output(x, "output");
  ir::Graph g = b.finish();
  driver::prepareGraph(g);
  const Compiled r = compileGraph(g, sparsePreset("scnn"));
  std::vector<std::pair<std::string, LayerKind>> kinds;
  for (const Layer& l : r.program.layers)
    kinds.emplace_back(l.name, l.kind);
  EXPECT_EQ(kinds,
            (std::vector<std::pair<std::string, LayerKind>>{{"conv", LayerKind::Conv},
                                                            {"act", LayerKind::Elementwise},
                                                            {"cubic", LayerKind::Host},
                                                            {"gap", LayerKind::Pool},
                                                            {"flat", LayerKind::View},
                                                            {"fc", LayerKind::Conv},
                                                            {"prob", LayerKind::Elementwise}}));
  EXPECT_EQ(r.program.layers[1].elementwise.passes.at(0).func, common::ElementwiseFunc::Lookup);
  EXPECT_EQ(r.program.layers[2].note,
            "no integer form: cubic resizing has no integer form (nearest and linear have)");
  EXPECT_EQ(r.program.layers[6].elementwise.passes.at(0).func, common::ElementwiseFunc::Softmax);
  EXPECT_EQ(layerKindName(LayerKind::Conv), "array");
  EXPECT_EQ(layerKindName(LayerKind::Pool), "ppu");
  EXPECT_EQ(layerKindName(LayerKind::Elementwise), "ppu");
  EXPECT_EQ(layerKindName(LayerKind::Host), "host");
  EXPECT_EQ(layerKindName(LayerKind::View), "view");
}

TEST(SparseCompiler, InvalidConfigIsRejected) {
  SparseConfig c = sparsePreset("scnn");
  c.accumulatorBanks = 24;
  const ir::Graph g = buildLayerGraph(conv(1, 1, 4, 4, 3, 1));
  const quant::QuantizedModel qm = quant::quantize(g, {});
  try {
    compile(qm, c);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Config);
    EXPECT_STREQ(e.what(), "<config>: 'accumulators.banks': must be a power of two (got 24)");
  }
}

} // namespace
} // namespace nnaccel::arch::sparse
