/// \file
/// Tests of the stream compiler's lowerings that trained detectors (DBNet, M-LSD) need beyond
/// classifiers, run through the simulator and checked bit-exact against the int8 reference:
/// dilated convolutions as one block per tap and blocks split on frames narrower than a block
/// (ConvMapping.cpp), channel slices as Subset tiles
/// (ConcatLowering.cpp), the product and the comparison of two streamed frames on the aux tile's
/// two-input stage (AuxLowering.cpp), per-channel lookup tables (ChainLowering.cpp), and spare
/// kernel tiles configured as identity bypasses when a row's aux tiles run out (Placement.cpp),
/// which never carry int32 partial sums.
#include "GraphHelpers.h"
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

TEST(StreamDetectorOps, FramesNarrowerThanAKernelBlockSplitTheBlock) {
  // A 3x3 convolution on a 2-column frame (the last stage of a small-input ResNet, the 1x3
  // convolutions of openWakeWord's embedding after pooling): the 3-wide block splits into a
  // 2-wide and a 1-wide block, summed like a composite kernel's. Rows are not limited: the
  // 3 rows of each block exceed the frame's 2.
  for (const int64_t cols : {1, 2}) {
    SCOPED_TRACE(fmt::format("{} columns", cols));
    zoo::GraphBuilder b("narrow", 9);
    ir::ValueId x = b.input("input", {1, 4, 2, cols});
    x = b.relu("r0", b.conv("c0", x, {.outChannels = 16, .kernel = 3, .pad = 1}));
    b.output(b.conv("c1", x, {.outChannels = 8, .kernel = 3, .pad = 1}), "output");
    const SessionResult r = simulateDetector(preparedDetector(b), streamPreset("large"));
    ASSERT_TRUE(r.report.verdict.checked);
    EXPECT_TRUE(r.report.verdict.passed) << r.report.verdict.detail;
    const Layer& l = layerOf(r.program, "c1");
    EXPECT_EQ(l.kernelTiles.size(), cols == 2 ? 2u : 3u);
    for (int64_t t : l.kernelTiles)
      EXPECT_LE(r.program.kernelTiles[static_cast<size_t>(t)].subCols, cols);
  }
}

TEST(StreamDetectorOps, ChannelSlicesAreSubsetsOrBusArrangements) {
  // 40 channels at T1 on three sets (16, 16, 8): [7, 8) and [8, 12) cut inside set 0 (Subset
  // tiles); [16, 40) is sets 1 and 2 whole (no tile). The whole map is an output too, so the
  // pass pipeline leaves the slices to the engine (passes/SplitChannelSlices.h would otherwise
  // give each slice its own convolution).
  zoo::GraphBuilder b("slices", 9);
  ir::ValueId x = b.input("input", {1, 3, 8, 8});
  x = b.conv("c0", x, {.outChannels = 40, .kernel = 3, .pad = 1});
  b.output(x, "features"); // the slices below are outputs too
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
  for (const ir::ValueId v : {slice("one", 7, 8), slice("four", 8, 12), slice("whole", 16, 40)})
    g.outputs.push_back(v);
  driver::prepareGraph(g);
  StreamConfig c = streamPreset("large");
  c.primaryOutputSets = 8;
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

/// conv(24) -> 2x2 max pool -> standalone BatchNormalization -> PRelu with per-channel slopes
/// -> Add of a per-channel constant -> Max with the pooled frame; \p stride2 puts a stride-2
/// convolution first (the frame then streams at 4 cycles per position, T = 2).
ir::Graph perChannelGraph(bool stride2) {
  zoo::GraphBuilder b("per_channel", 9);
  ir::ValueId x = b.input("input", {1, 3, 16, 16});
  if (stride2)
    x = b.relu("r", b.conv("down", x, {.outChannels = 8, .kernel = 3, .stride = 2, .pad = 1}));
  x = b.conv("c0", x, {.outChannels = 24, .kernel = 3, .pad = 1});
  const ir::ValueId pooled = b.maxPool("pool", x, {.kernel = 2, .stride = 2});
  b.output(b.batchNorm("bn", pooled), "bn_out"); // extended below
  ir::Graph g = b.finish();
  const auto append = [&](ir::OpKind op, const std::string& name, std::vector<ir::ValueId> in) {
    return testing::graph::addNode(g, op, name, std::move(in));
  };
  std::vector<float> slopes(24), offsets(24);
  for (size_t c = 0; c < 24; ++c) {
    slopes[c] = 0.05f * static_cast<float>(c);
    offsets[c] = 0.1f * static_cast<float>(c) - 1.0f;
  }
  const ir::ValueId prelu = append(
      ir::OpKind::PRelu, "prelu",
      {g.outputs[0], g.addConstant("slopes", Tensor::fromVector<float>({24, 1, 1}, slopes))});
  const ir::ValueId shifted =
      append(ir::OpKind::Add, "shift",
             {prelu, g.addConstant("offsets", Tensor::fromVector<float>({1, 24, 1, 1}, offsets))});
  g.outputs = {append(ir::OpKind::Max, "max", {shifted, pooled})};
  driver::prepareGraph(g);
  return g;
}

TEST(StreamDetectorOps, PerChannelConstantsAreChannelTablesAndMaxSelects) {
  const SessionResult r = simulateDetector(perChannelGraph(false), streamPreset("large"));
  ASSERT_TRUE(r.report.verdict.checked);
  EXPECT_TRUE(r.report.verdict.passed) << r.report.verdict.detail;
  // BatchNormalization, PRelu and the Add compose into one set of per-channel tables per set
  // (16 + 8 channels), folded into one aux tile each; Max selects on the comparator.
  size_t tabled = 0, channelTables = 0, selects = 0;
  for (const AuxTile& t : r.program.auxTiles) {
    tabled += t.channelLuts.empty() ? 0 : 1;
    channelTables += t.channelLuts.size();
    if (t.add == AuxAdd::Extremum) {
      ++selects;
      EXPECT_TRUE(t.extremumMax);
    }
  }
  EXPECT_EQ(tabled, 2u);
  EXPECT_EQ(channelTables, 24u);
  EXPECT_EQ(selects, 2u); // one per set
  EXPECT_EQ(layerOf(r.program, "prelu").outputs.size(), 0u) << "folded into the BN's tile";
}

TEST(StreamDetectorOps, PerChannelTablesNeedRoomForEveryChannelALaneCarries) {
  // At T = 2 each lane carries two channels in turn and holds both tables: 512 entries.
  const ir::Graph g = perChannelGraph(true);
  StreamConfig c = streamPreset("large");
  c.lutEntries = 256;
  try {
    simulateDetector(g, c);
    FAIL() << "expected the LUT to be too small";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Config);
    EXPECT_EQ(e.context().key, "aux_tiles.lut_entries");
    EXPECT_EQ(e.context().node, "bn");
    EXPECT_NE(std::string(e.what()).find("needs their 2 tables of 256 entries; the LUT holds 256"),
              std::string::npos)
        << e.what();
  }
  c.lutEntries = 512;
  const SessionResult r = simulateDetector(g, c);
  EXPECT_TRUE(r.report.verdict.passed) << r.report.verdict.detail;
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
