/// \file
/// Tests of the stream compiler's lowerings that trained detectors (DBNet, M-LSD) need beyond
/// classifiers, run through the simulator and checked bit-exact against the int8 reference:
/// dilated convolutions as one block per tap (ConvMapping.cpp), channel slices as Subset tiles
/// (ConcatLowering.cpp), the product and the comparison of two streamed frames on the aux tile's
/// two-input stage (AuxLowering.cpp), and spare kernel tiles configured as identity bypasses
/// when a row's aux tiles run out (Placement.cpp), which never carry int32 partial sums.
#include "LayerSpecGraphs.h"
#include "nnaccel/arch/stream/Session.h"
#include "nnaccel/driver/ModelLoader.h"
#include "nnaccel/support/Error.h"
#include "nnaccel/zoo/GraphBuilder.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

namespace nnaccel::arch::stream {
namespace {

SessionResult simulateDetector(const ir::Graph& g, const StreamConfig& c) {
  SessionOptions o;
  o.inputs = testing::sparseInputs(g, 1.0, 5);
  o.frames = 2;
  return simulateModel(g, c, o);
}

ir::Graph preparedDetector(zoo::GraphBuilder& b) {
  ir::Graph g = b.finish();
  driver::prepareGraph(g);
  return g;
}

const Layer& layerOf(const Program& p, const std::string& name) {
  for (const Layer& l : p.layers)
    if (l.name == name)
      return l;
  throw std::runtime_error("no layer " + name);
}

TEST(StreamDetectorOps, DilatedConvolutionsAreOneBlockPerTap) {
  for (const int64_t d : {2, 5}) {
    SCOPED_TRACE(fmt::format("dilation {}", d));
    zoo::GraphBuilder b("dilated", 9);
    ir::ValueId x = b.input("input", {1, 3, 14, 14});
    x = b.relu("r0", b.conv("c0", x, {.outChannels = 16, .kernel = 3, .pad = 1}));
    b.output(b.conv("dil", x, {.outChannels = 8, .kernel = 3, .pad = d, .dilation = d}), "output");
    const SessionResult r = simulateDetector(preparedDetector(b), streamPreset("large"));
    ASSERT_TRUE(r.report.verdict.checked);
    EXPECT_TRUE(r.report.verdict.passed) << r.report.verdict.detail;
    const Layer& l = layerOf(r.program, "dil");
    EXPECT_EQ(l.kernelTiles.size(), 9u); // nine 1x1 blocks, none holding a zero cell
    EXPECT_EQ(l.usefulMacs, 14 * 14 * 8 * 16 * 9);
    for (int64_t t : l.kernelTiles)
      EXPECT_EQ(r.program.kernelTiles[static_cast<size_t>(t)].subRows, 1);
  }
}

TEST(StreamDetectorOps, ChannelSlicesAreSubsetsOrBusArrangements) {
  // 40 channels at T1 on three sets (16, 16, 8): [7, 8) and [8, 12) cut inside set 0 (Subset
  // tiles); [16, 40) is sets 1 and 2 whole (no tile).
  zoo::GraphBuilder b("slices", 9);
  ir::ValueId x = b.input("input", {1, 3, 8, 8});
  x = b.conv("c0", x, {.outChannels = 40, .kernel = 3, .pad = 1});
  b.output(x, "features"); // replaced by the slices below
  ir::Graph g = b.finish();
  auto slice = [&](const std::string& name, int64_t c0, int64_t c1) {
    ir::Node n;
    n.op = ir::OpKind::Slice;
    n.name = name;
    n.opset = 13;
    n.inputs = {x, g.addConstant(name + ".s", Tensor::fromVector<int64_t>({1}, {c0})),
                g.addConstant(name + ".e", Tensor::fromVector<int64_t>({1}, {c1})),
                g.addConstant(name + ".a", Tensor::fromVector<int64_t>({1}, {1}))};
    n.outputs = {g.addValue(name, DType::F32)};
    g.addNode(std::move(n));
    return g.node(static_cast<ir::NodeId>(g.numNodes()) - 1).outputs[0];
  };
  g.outputs = {slice("one", 7, 8), slice("four", 8, 12), slice("whole", 16, 40)};
  driver::prepareGraph(g);
  StreamConfig c = streamPreset("large");
  c.primaryOutputSets = 4;
  const SessionResult r = simulateDetector(g, c);
  EXPECT_TRUE(r.report.verdict.passed) << r.report.verdict.detail;
  EXPECT_EQ(layerOf(r.program, "one").auxTiles.size(), 1u);
  EXPECT_EQ(layerOf(r.program, "four").auxTiles.size(), 1u);
  EXPECT_EQ(layerOf(r.program, "whole").auxTiles.size(), 0u);
  EXPECT_EQ(layerOf(r.program, "whole").outSets.size(), 2u);
}

TEST(StreamDetectorOps, PeakMaskMultipliesAndComparesTwoStreams) {
  // M-LSD's peak mask: x * (x == maxpool3x3(x)), with x a sigmoid map.
  zoo::GraphBuilder b("peaks", 9);
  ir::ValueId x = b.input("input", {1, 3, 10, 10});
  x = b.sigmoid("s", b.conv("c0", x, {.outChannels = 4, .kernel = 3, .pad = 1}));
  const ir::ValueId m = b.maxPool("pool", x, {.kernel = 3, .stride = 1, .pad = 1});
  b.output(m, "pooled"); // replaced by the peaks below
  ir::Graph g = b.finish();
  auto append = [&](ir::OpKind op, const std::string& name, std::vector<ir::ValueId> in, DType t) {
    ir::Node n;
    n.op = op;
    n.name = name;
    n.opset = 13;
    n.inputs = std::move(in);
    if (op == ir::OpKind::Cast)
      n.attrs.set("to", int64_t{1}); // FLOAT
    n.outputs = {g.addValue(name, t)};
    g.addNode(std::move(n));
    return g.node(static_cast<ir::NodeId>(g.numNodes()) - 1).outputs[0];
  };
  const ir::ValueId eq = append(ir::OpKind::Equal, "eq", {x, m}, DType::Bool);
  const ir::ValueId mask = append(ir::OpKind::Cast, "cast", {eq}, DType::F32);
  g.outputs = {append(ir::OpKind::Mul, "peaks", {x, mask}, DType::F32)};
  driver::prepareGraph(g);
  const SessionResult r = simulateDetector(g, streamPreset("large"));
  ASSERT_TRUE(r.report.verdict.checked);
  EXPECT_TRUE(r.report.verdict.passed) << r.report.verdict.detail;
  int64_t compares = 0, multiplies = 0;
  for (const AuxTile& t : r.program.auxTiles) {
    compares += t.add == AuxAdd::Compare ? 1 : 0;
    multiplies += t.add == AuxAdd::Multiply ? 1 : 0;
  }
  EXPECT_EQ(compares, 1);
  EXPECT_EQ(multiplies, 1);
}

TEST(StreamDetectorOps, SpareKernelTilesBypassWhenARowsAuxTilesRunOut) {
  // A long skip: the input's Relu is read again after four convolutions. With one aux tile per
  // row, every row the skip crosses has its aux tile taken by a convolution's requantizer, so
  // identity kernel tiles carry the skip down; the result is still bit-exact.
  zoo::GraphBuilder b("skip", 9);
  ir::ValueId x = b.input("input", {1, 3, 8, 8});
  const ir::ValueId s = b.relu("r0", b.conv("c0", x, {.outChannels = 16, .kernel = 3, .pad = 1}));
  ir::ValueId y = s;
  for (int i = 1; i <= 4; ++i)
    y = b.relu(fmt::format("r{}", i),
               b.conv(fmt::format("c{}", i), y, {.outChannels = 16, .kernel = 3, .pad = 1}));
  b.output(b.add("add", y, s), "output");
  StreamConfig c = streamPreset("large");
  c.auxTilesPerRow.everyRow = 1;
  c.kernelTilesPerRow.everyRow = 2;
  const SessionResult r = simulateDetector(preparedDetector(b), c);
  EXPECT_TRUE(r.report.verdict.passed) << r.report.verdict.detail;
  int64_t kernelBypasses = 0;
  for (const KernelTile& t : r.program.kernelTiles)
    kernelBypasses += t.bypass ? 1 : 0;
  EXPECT_GT(kernelBypasses, 0);
  EXPECT_EQ(r.totals.bypassTiles,
            kernelBypasses +
                static_cast<int64_t>(std::count_if(
                    r.program.auxTiles.begin(), r.program.auxTiles.end(), [](const AuxTile& t) {
                      return t.function == AuxFunction::Bypass && t.add == AuxAdd::None &&
                             !t.lutEnabled && t.requantize.empty();
                    })));
}

} // namespace
} // namespace nnaccel::arch::stream
