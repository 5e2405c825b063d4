/// \file
/// Tests of the stream compiler, simulator and session (Compiler.h, Simulator.h, Session.h):
/// single layers and small chains composed onto the fig44 ASIC (3x3 tiles; 5x5, 7x7 and 9x9
/// kernels from 3x3 blocks; channel ganging beyond 16; strided and "valid" convolutions as a
/// convolution plus Sample; pooling; time multiplexing after downsampling; residual adds and
/// concatenations, lane-level through concat mux 4912 or as ragged sets) bit-exact against the
/// int8 reference with a consistent timing plan, tampered programs reported, per-frame energy,
/// and the compiler's errors.
#include "DenseGraphs.h"
#include "LayerSpecGraphs.h"
#include "nnaccel/arch/stream/Compiler.h"
#include "nnaccel/arch/stream/Session.h"
#include "nnaccel/arch/stream/Simulator.h"
#include "nnaccel/driver/ModelLoader.h"
#include "nnaccel/quant/QuantizedModel.h"
#include "nnaccel/support/Error.h"
#include "nnaccel/zoo/GraphBuilder.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <functional>
#include <gtest/gtest.h>

namespace nnaccel::arch::stream {
namespace {

namespace testing = nnaccel::testing;
using testing::buildLayerGraph;
using testing::conv;
using testing::LayerSpec;

SessionResult run(const ir::Graph& g, const StreamConfig& c, int64_t frames = 1) {
  SessionOptions o;
  o.inputs = testing::sparseInputs(g, 1.0, 7);
  o.frames = frames;
  return simulateModel(g, c, o);
}

void expectExact(const LayerSpec& s, const StreamConfig& c) {
  SCOPED_TRACE(s.describe());
  const ir::Graph g = buildLayerGraph(s);
  const SessionResult r = run(g, c);
  EXPECT_TRUE(r.report.verdict.checked);
  EXPECT_TRUE(r.report.verdict.passed) << r.report.verdict.detail;
}

StreamConfig big() {
  StreamConfig c = streamPreset("large");
  c.inputBusSets = 2;
  c.primaryOutputSets = 4;
  return c;
}

TEST(StreamEngine, SingleConvolutions) {
  const StreamConfig c = streamPreset("fig44");
  expectExact(conv(3, 8, 9, 11, 3, 1), c);
  expectExact(conv(3, 16, 6, 7, 1, 0), c);
  expectExact(conv(5, 7, 10, 9, 5, 2), c);
  expectExact(conv(2, 3, 12, 13, 7, 3), c);
}

TEST(StreamEngine, FrameBufferBaselineIsBoundByItsDram) {
  // One 3x3 convolution, 16 -> 16 channels on 32x32: the frame-buffer accelerator moves the
  // input and output frames (16 x 32 x 32 bytes each) and the 2,320 weights and biases through
  // DRAM; its compute on the chip's multipliers takes a few cycles, so DRAM sets its time.
  const ir::Graph g = buildLayerGraph(conv(16, 16, 32, 32, 3, 1));
  StreamConfig c = streamPreset("large");
  const SessionResult one = run(g, c);
  const double bytes = 2 * 16 * 32 * 32 + 16 * 16 * 9 + 16;
  EXPECT_EQ(one.totals.frameBufferCycles,
            static_cast<int64_t>(std::ceil(bytes / c.baselineDramBytesPerCycle())));
  EXPECT_GE(one.totals.frameBufferCycles, one.totals.baselineCycles);
  // Four channels are four times the bandwidth.
  c.baselineDramChannels = 4;
  const SessionResult four = run(g, c);
  EXPECT_EQ(four.totals.frameBufferCycles,
            static_cast<int64_t>(std::ceil(bytes / c.baselineDramBytesPerCycle())));
  EXPECT_NEAR(static_cast<double>(one.totals.frameBufferCycles) /
                  static_cast<double>(four.totals.frameBufferCycles),
              4.0, 0.01);
}

TEST(StreamEngine, GangedAndComposite) {
  const StreamConfig c = big();
  expectExact(conv(20, 40, 8, 9, 3, 1), c);
  expectExact(conv(3, 5, 14, 12, 9, 4), c);
  LayerSpec v = conv(4, 6, 9, 10, 5, 0); // "valid": a Sample crops
  expectExact(v, c);
  LayerSpec s = conv(3, 6, 12, 12, 3, 1);
  s.sh = s.sw = 2;
  expectExact(s, c);
  LayerSpec r = conv(3, 6, 12, 12, 3, 1);
  r.relu = true;
  r.chainChannels = 20;
  expectExact(r, c);
}

TEST(StreamEngine, WholeFrameKernelsAndDepthwise) {
  StreamConfig c = big();
  c.inputBusSets = 9;
  c.primaryOutputSets = 9;
  c.auxTilesPerRow.everyRow = 24;
  expectExact(conv(20, 6, 7, 7, 7, 0), c); // a 7x7 kernel over a 7x7 frame: one output
  expectExact(conv(20, 6, 6, 6, 6, 0), c);
  LayerSpec d = conv(144, 144, 12, 12, 3, 1); // MobileNetV2's stride-2 depthwise
  d.group = 144;
  d.sh = d.sw = 2;
  expectExact(d, c);
  d.sh = d.sw = 1;
  expectExact(d, c);
}

/// \p b's graph as `nnaccel simulate` loads a model: shapes inferred, passes run.
ir::Graph prepared(zoo::GraphBuilder& b) {
  ir::Graph g = b.finish();
  driver::prepareGraph(g);
  return g;
}

/// \p g must be refused on the big preset with a message that holds every one of \p parts.
void expectRefused(const ir::Graph& g, const std::vector<std::string>& parts) {
  try {
    run(g, big());
    ADD_FAILURE() << "'" << g.name << "' was not refused";
  } catch (const Error& e) {
    for (const std::string& part : parts)
      EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
  }
}

/// The aux tiles of \p r running \p f.
int64_t countAux(const SessionResult& r, AuxFunction f) {
  int64_t n = 0;
  for (const AuxTile& t : r.program.auxTiles)
    n += t.function == f ? 1 : 0;
  return n;
}

TEST(StreamEngine, ResidualAddMergesSetsThroughTheAlternatingMux) {
  // A pool leaves 32 channels on two sets at T1 (P = 4); the convolution after it puts its
  // output on one set at the canonical T2. The Add merges the shortcut's two sets with mux 4913.
  zoo::GraphBuilder b("residual", 3);
  ir::ValueId x = b.input("input", {1, 3, 12, 12});
  x = b.relu("r0", b.conv("c0", x, {.outChannels = 32, .kernel = 3, .pad = 1}));
  const ir::ValueId p = b.maxPool("pool", x, {.kernel = 2, .stride = 2});
  const ir::ValueId y = b.conv("c1", p, {.outChannels = 32, .kernel = 3, .pad = 1});
  b.output(b.relu("r1", b.add("add", p, y)), "output");
  const ir::Graph g = prepared(b);
  const SessionResult r = run(g, big());
  EXPECT_TRUE(r.report.verdict.passed) << r.report.verdict.detail;
  EXPECT_EQ(countAux(r, AuxFunction::Alternate), 1);
  for (const Layer& l : r.program.layers) {
    if (l.name == "add") {
      EXPECT_EQ(l.out.tm, 2);
      EXPECT_EQ(l.outSets.size(), 1u);
    }
  }
}

TEST(StreamEngine, NearestUpsamplingIsAnExpandAfterDownsampling) {
  // Pool to P = 4, then Resize nearest x2 back to P = 1: Expand (4911) emits four positions per
  // input position, bit-exact and on the compiler's timing plan; then a convolution and a
  // concat with the pre-pool stream (aligned by a FIFO).
  zoo::GraphBuilder b("expand", 5);
  ir::ValueId x = b.input("input", {1, 3, 10, 12});
  x = b.relu("r0", b.conv("c0", x, {.outChannels = 16, .kernel = 3, .pad = 1}));
  ir::ValueId y = b.maxPool("pool", x, {.kernel = 2, .stride = 2});
  y = b.resize("up", y, 10, 12, zoo::ResizeMode::Nearest);
  y = b.conv("c1", y, {.outChannels = 16, .kernel = 3, .pad = 1});
  b.output(b.concat("cat", {x, y}, 1), "output");
  const ir::Graph g = prepared(b);
  StreamConfig c = big();
  const SessionResult r = run(g, c, 2);
  EXPECT_TRUE(r.report.verdict.passed) << r.report.verdict.detail;
  EXPECT_EQ(countAux(r, AuxFunction::Expand), 1);
  for (const Layer& l : r.program.layers) {
    if (l.name == "up") {
      EXPECT_EQ(l.out.cyclesPerPosition, 1);
    }
  }
}

TEST(StreamEngine, ExpandOfAFullRateStreamIsRefused) {
  zoo::GraphBuilder b("expand_fast", 5);
  ir::ValueId x = b.input("input", {1, 3, 6, 6});
  x = b.conv("c0", x, {.outChannels = 8, .kernel = 3, .pad = 1});
  b.output(b.resize("up", x, 12, 12, zoo::ResizeMode::Nearest), "output");
  expectRefused(prepared(b), {"node 'up'", "needs 4 cycles per input position"});
}

TEST(StreamEngine, ADenseLayerOverManyRowsIsRefusedNamingItsRows) {
  // The dense patch takes one vector per frame; a Gemm over the 15 pixel rows of a
  // channel-major view (transA) is refused with its row count.
  expectRefused(nnaccel::testing::transposedGemmGraph(),
                {"node 'gemm'", "only a dense layer over one vector", "this one has 15 rows"});
}

/// Two convolutions of \p channels each over one 3x10x12 input, concatenated; after
/// \p poolFirst a 2x2 max pool (4 cycles per position, time multiplexing possible).
ir::Graph concatGraph(const std::vector<int64_t>& channels, bool poolFirst, bool convAfter) {
  zoo::GraphBuilder b("lane_concat", 11);
  ir::ValueId x = b.input("input", {1, 3, 10, 12});
  if (poolFirst)
    x = b.maxPool("pool", x, {.kernel = 2, .stride = 2});
  std::vector<ir::ValueId> parts;
  for (size_t i = 0; i < channels.size(); ++i) {
    const std::string name = fmt::format("b{}", i);
    ir::ValueId y = b.conv(
        name, x, {.outChannels = channels[i], .kernel = i % 2 ? 1 : 3, .pad = i % 2 ? 0 : 1});
    parts.push_back(i == 0 ? b.relu(fmt::format("{}_relu", name), y) : y); // another scale
  }
  ir::ValueId y = b.concat("cat", parts, 1);
  if (convAfter)
    y = b.conv("after", y, {.outChannels = 16, .kernel = 3, .pad = 1});
  b.output(y, "output");
  return prepared(b);
}

const Layer& layerNamed(const Program& p, const std::string& name) {
  for (const Layer& l : p.layers)
    if (l.name == name)
      return l;
  throw std::runtime_error(fmt::format("no layer {}", name));
}

const LayerDetail& layerDetailNamed(const SessionResult& r, const std::string& name) {
  for (size_t li = 0; li < r.program.layers.size(); ++li)
    if (r.program.layers[li].name == name)
      return r.details.at(li);
  throw std::runtime_error(fmt::format("no layer {}", name));
}

TEST(StreamEngine, LaneConcatPacksSetsWithTheConcatMux) {
  // 24 + 40 channels at T1: output sets A0 | A1+B0[0,8) | B0[8,16)+B1[0,8) | B1[8,16)+B2, each
  // a concat mux 4912 behind a Subset where a piece starts mid-set; every lane rescaled (the
  // inputs' scales differ) before it is muxed. Then a convolution reads the four packed sets.
  const ir::Graph g = concatGraph({24, 40}, false, true);
  const SessionResult r = run(g, big(), 2);
  EXPECT_TRUE(r.report.verdict.passed) << r.report.verdict.detail;
  EXPECT_EQ(countAux(r, AuxFunction::Concat), 3);
  EXPECT_EQ(countAux(r, AuxFunction::Subset), 2);
  const Layer& cat = layerNamed(r.program, "cat");
  ASSERT_EQ(cat.outSets.size(), 4u);
  for (const AuxTile& t : r.program.auxTiles) {
    if (t.function == AuxFunction::Concat) {
      EXPECT_FALSE(t.lutEnabled) << "a mux tile mixes scales: rescaling happens before it";
      EXPECT_TRUE(t.hasAux);
      EXPECT_GE(t.concatLanes, 1);
      EXPECT_LT(t.concatLanes, t.channels);
    }
  }
  EXPECT_NE(cat.note.find("4912"), std::string::npos) << cat.note;
  const std::string map = placementTable(r.program);
  EXPECT_NE(map.find("concat mux 4912: lanes 0..7 of the first set, then 8 of the second"),
            std::string::npos)
      << map;
  EXPECT_NE(map.find("subset: lanes 8..15 to lanes 0..7"), std::string::npos) << map;
}

TEST(StreamEngine, ThreeWayConcatChainsMuxesInsideOneSet) {
  // 8 + 4 + 20: set 0 is A0 + B0 + C0[0,4) (two muxes in a chain), set 1 is C0[4,16) + C1.
  const ir::Graph g = concatGraph({8, 4, 20}, false, false);
  const SessionResult r = run(g, big());
  EXPECT_TRUE(r.report.verdict.passed) << r.report.verdict.detail;
  EXPECT_EQ(countAux(r, AuxFunction::Concat), 3);
  EXPECT_EQ(countAux(r, AuxFunction::Subset), 1);
  EXPECT_EQ(layerNamed(r.program, "cat").outSets.size(), 2u);
}

TEST(StreamEngine, ConcatOfWholeSetsIsABusArrangement) {
  const ir::Graph g = concatGraph({16, 32}, false, true);
  const SessionResult r = run(g, big());
  EXPECT_TRUE(r.report.verdict.passed) << r.report.verdict.detail;
  EXPECT_EQ(countAux(r, AuxFunction::Concat), 0);
  EXPECT_EQ(countAux(r, AuxFunction::Subset), 0);
}

TEST(StreamEngine, ConcatAtTimeMultiplexingKeepsRaggedSets) {
  // After the pool each position lasts 4 cycles and the branches are time multiplexed (T4): a
  // 24-channel input cannot share a lane's time slots with the next input, so the two sets stay
  // ragged (24 and 40 channels) and the convolution after reads each with its own range.
  const ir::Graph g = concatGraph({24, 40}, true, true);
  const SessionResult r = run(g, big(), 2);
  EXPECT_TRUE(r.report.verdict.passed) << r.report.verdict.detail;
  EXPECT_EQ(countAux(r, AuxFunction::Concat), 0);
  const Layer& cat = layerNamed(r.program, "cat");
  EXPECT_EQ(cat.out.tm, 4);
  EXPECT_EQ(cat.outSets.size(), 2u);
  EXPECT_NE(cat.note.find("ragged"), std::string::npos) << cat.note;
}

TEST(StreamEngine, RaggedSetsCannotBeAddedToWholeOnes) {
  zoo::GraphBuilder b("ragged_add", 11);
  ir::ValueId x = b.input("input", {1, 3, 10, 12});
  x = b.maxPool("pool", x, {.kernel = 2, .stride = 2});
  const ir::ValueId c0 = b.conv("b0", x, {.outChannels = 24, .kernel = 3, .pad = 1});
  const ir::ValueId c1 = b.conv("b1", x, {.outChannels = 40, .kernel = 1});
  const ir::ValueId cat = b.concat("cat", {c0, c1}, 1);
  const ir::ValueId whole = b.conv("whole", x, {.outChannels = 64, .kernel = 1});
  b.output(b.add("add", cat, whole), "output");
  expectRefused(prepared(b), {"node 'add'", "split the channels differently"});
}

TEST(StreamEngine, EnergyCountsTheEventsOfAFrame) {
  // The cells' energy is the issued multiplies times the priced select-add energy (the
  // simulator counts what the compiler planned; the bias adds are set to 0 here); every tiled
  // layer has buses and its own components; a second run gives the same figures; two frames do
  // not change the per-frame energy.
  const ir::Graph g = concatGraph({24, 40}, false, true);
  StreamConfig c = big();
  c.energy.unitAddPj = 0.0;
  const double selectAddPj = energyPrices(c).cellSelectAddPj;
  ASSERT_GT(selectAddPj, 0);
  const SessionResult r1 = run(g, c), r2 = run(g, c, 2);
  ASSERT_EQ(r1.details.size(), r1.program.layers.size());
  double total = 0;
  for (size_t li = 0; li < r1.details.size(); ++li) {
    const LayerDetail& d = r1.details[li];
    SCOPED_TRACE(r1.program.layers[li].name);
    EXPECT_DOUBLE_EQ(d.energy.cellsPj, static_cast<double>(d.issuedMacs) * selectAddPj);
    if (d.kernelTiles > 0) {
      EXPECT_GT(d.energy.massMultipliersPj, 0);
      EXPECT_GT(d.energy.busesPj, 0);
    }
    EXPECT_DOUBLE_EQ(d.energy.totalPj(), r2.details[li].energy.totalPj());
    // The report adds the clock network's energy for the layer's cycles.
    const report::LayerStats& l = r1.report.layers[li];
    EXPECT_DOUBLE_EQ(l.energy.clock, r1.report.technology.clockPj(l.cycles));
    EXPECT_NEAR(l.energyPj, d.energy.totalPj() + l.energy.clock, 1e-9 * l.energyPj);
    total += d.energy.totalPj();
  }
  EXPECT_GT(total, 0);
  EXPECT_GT(layerDetailNamed(r1, "cat").energy.auxPj, 0); // muxes and rescaling LUTs
}

TEST(StreamEngine, TamperedConcatMuxIsReported) {
  const ir::Graph g = concatGraph({24, 40}, false, false);
  const quant::QuantizedModel qm = quant::quantize(g, {});
  Program p = compile(qm, big(), CompileOptions{});
  for (AuxTile& t : p.auxTiles)
    if (t.function == AuxFunction::Concat)
      ++t.primaryDelayPositions; // one operand a position late
  Simulator sim(p, qm);
  sim.setInput(
      quant::quantizeTensor(testing::sparseInputs(g, 1.0, 7).at(0), qm.scale(p.inputValue)).data);
  sim.run({});
  ASSERT_FALSE(sim.timingViolations().empty());
  EXPECT_NE(sim.timingViolations().front().find("operands arrive"), std::string::npos)
      << sim.timingViolations().front();
}

/// The timing violations of one frame of \p g on \p c after \p tamper edits the compiled program.
std::vector<std::string> violationsAfter(const ir::Graph& g, const StreamConfig& c,
                                         const std::function<void(Program&)>& tamper) {
  const quant::QuantizedModel qm = quant::quantize(g, {});
  Program p = compile(qm, c, CompileOptions{});
  tamper(p);
  Simulator sim(p, qm);
  const std::vector<Tensor> in = testing::sparseInputs(g, 1.0, 7);
  sim.setInput(quant::quantizeTensor(in.at(0), qm.scale(p.inputValue)).data);
  sim.run({});
  return sim.timingViolations();
}

TEST(StreamEngine, MisconfiguredFifosAreReportedNotRealigned) {
  // A 5x5 kernel: FIFO 4706 between the blocks of a block row, FIFO 4902 for the vertical sum.
  const ir::Graph g = buildLayerGraph(conv(3, 8, 9, 11, 5, 2));
  const StreamConfig c = big();
  EXPECT_TRUE(violationsAfter(g, c, [](Program&) {}).empty());
  // A partial a position early in FIFO 4706 would meet the wrong position's sums.
  const auto early4706 = violationsAfter(g, c, [](Program& p) {
    for (KernelTile& t : p.kernelTiles)
      if (t.aux != KernelTile::Aux::None && t.auxDelayPositions > 0)
        --t.auxDelayPositions;
  });
  ASSERT_FALSE(early4706.empty());
  EXPECT_TRUE(std::any_of(early4706.begin(), early4706.end(), [](const std::string& v) {
    return v.find("FIFO 4706") != std::string::npos;
  })) << early4706.front();
  // A position late: the sums wait for it, so the tile's output is later than planned.
  const auto late4706 = violationsAfter(g, c, [](Program& p) {
    for (KernelTile& t : p.kernelTiles)
      if (t.aux != KernelTile::Aux::None)
        ++t.auxDelayPositions;
  });
  ASSERT_FALSE(late4706.empty());
  EXPECT_NE(late4706.front().find("the compiler planned"), std::string::npos) << late4706.front();
  // FIFO 4902 a position short: the two block rows' partials no longer meet.
  const auto fifo4902 = violationsAfter(g, c, [](Program& p) {
    for (AuxTile& t : p.auxTiles)
      if (t.add == AuxAdd::Partial)
        --t.primaryDelayPositions;
  });
  ASSERT_FALSE(fifo4902.empty());
  EXPECT_NE(fifo4902.front().find("operands arrive"), std::string::npos) << fifo4902.front();
  // A planned start cycle that the tiles do not reach.
  const auto start = violationsAfter(g, c, [](Program& p) { ++p.auxTiles.back().startCycle; });
  ASSERT_FALSE(start.empty());
  EXPECT_NE(start.front().find("the compiler planned"), std::string::npos) << start.front();
}

TEST(StreamEngine, Pooling) {
  const StreamConfig c = big();
  LayerSpec p;
  p.kind = LayerSpec::Kind::MaxPool;
  p.inChannels = 5;
  p.h = 8;
  p.w = 9;
  p.kh = p.kw = 2;
  p.sh = p.sw = 2;
  expectExact(p, c);
  p.kind = LayerSpec::Kind::AveragePool;
  p.kh = p.kw = 3;
  p.padTop = p.padLeft = p.padBottom = p.padRight = 1;
  expectExact(p, c);
}

/// A model converted from TensorFlow: NHWC input [1, 10, 12, 3], optionally normalised by
/// x * (1 / 127.5) - 1 as M-LSD does, Transpose to NCHW, 3x3 convolution, Relu.
ir::Graph nhwcGraph(bool normalise) {
  ir::Graph g;
  g.name = "nhwc";
  Rng rng(13);
  const ir::ValueId x = g.addValue("input", DType::F32, {1, 10, 12, 3});
  ir::ValueId at = x;
  if (normalise) {
    const ir::ValueId k = g.addConstant("k", Tensor::fromVector<float>({}, {1.0f / 127.5f}));
    const ir::ValueId one = g.addConstant("one", Tensor::fromVector<float>({}, {1.0f}));
    at = testing::detail::addNode(g, ir::OpKind::Mul, "scale", {at, k});
    at = testing::detail::addNode(g, ir::OpKind::Sub, "shift", {at, one});
  }
  ir::AttrMap perm;
  perm.set("perm", std::vector<int64_t>{0, 3, 1, 2});
  const ir::ValueId nchw =
      testing::detail::addNode(g, ir::OpKind::Transpose, "to_nchw", {at}, perm);
  ir::AttrMap conv;
  conv.set("kernel_shape", std::vector<int64_t>{3, 3});
  conv.set("pads", std::vector<int64_t>{1, 1, 1, 1});
  const ir::ValueId w = g.addConstant("w", testing::detail::sparseWeights(rng, {8, 3, 3, 3}, 1.0));
  const ir::ValueId y = testing::detail::addNode(g, ir::OpKind::Conv, "c", {nchw, w}, conv);
  g.inputs = {x};
  g.outputs = {testing::detail::addNode(g, ir::OpKind::Relu, "r", {y})};
  driver::prepareGraph(g);
  return g;
}

TEST(StreamEngine, AnNhwcInputIsThePixelStreamItself) {
  // The input bus delivers each pixel's channels in turn, so the 3-channel 10x12 image is one
  // set of 3 channels (not 10 "channels" of 12x3) and the Transpose is a view; bit-exact. A
  // normalisation before the Transpose (one table for every channel) keeps it so: the chain is
  // one LUT on the pixel stream.
  for (bool normalise : {false, true}) {
    SCOPED_TRACE(normalise ? "normalised" : "plain");
    const SessionResult r = run(nhwcGraph(normalise), streamPreset("fig44"));
    EXPECT_TRUE(r.report.verdict.passed) << r.report.verdict.detail;
    EXPECT_TRUE(r.program.inputPixelMajor);
    EXPECT_EQ(r.program.input.frame.channels, 3);
    EXPECT_EQ(r.program.input.frame.rows, 10);
    const auto view = std::find_if(r.program.layers.begin(), r.program.layers.end(),
                                   [](const Layer& l) { return l.kind == LayerKind::View; });
    ASSERT_NE(view, r.program.layers.end());
    EXPECT_NE(view->note.find("NHWC"), std::string::npos);
    EXPECT_EQ(view - r.program.layers.begin(), normalise ? 2 : 0);
  }
}

TEST(StreamEngine, AOneChannelNhwcInputReshapedToNchwIsThePixelStreamToo) {
  // openWakeWord's speech embedding (tf2onnx): a 76x32x1 mel "image" reshaped to 1x1x76x32.
  // Before, the input bus took the 76 as channels and refused the model.
  ir::Graph g;
  g.name = "mel";
  Rng rng(17);
  const ir::ValueId x = g.addValue("input", DType::F32, {1, 9, 7, 1});
  const ir::ValueId shape = g.addConstant("shape", Tensor::fromVector<int64_t>({4}, {1, 1, 9, 7}));
  const ir::ValueId nchw = testing::detail::addNode(g, ir::OpKind::Reshape, "to_nchw", {x, shape});
  ir::AttrMap conv;
  conv.set("kernel_shape", std::vector<int64_t>{3, 3});
  conv.set("pads", std::vector<int64_t>{1, 1, 1, 1});
  const ir::ValueId w = g.addConstant("w", testing::detail::sparseWeights(rng, {4, 1, 3, 3}, 1.0));
  g.inputs = {x};
  g.outputs = {testing::detail::addNode(g, ir::OpKind::Conv, "c", {nchw, w}, conv)};
  driver::prepareGraph(g);
  const SessionResult r = run(g, streamPreset("fig44"));
  EXPECT_TRUE(r.report.verdict.passed) << r.report.verdict.detail;
  EXPECT_EQ(r.program.input.frame.channels, 1);
  EXPECT_EQ(r.program.input.frame.rows, 9);
  EXPECT_EQ(r.program.input.frame.cols, 7);
  EXPECT_EQ(r.program.layers.front().kind, LayerKind::View);
}

/// conv -> relu -> max pool on an input of \p batch images.
ir::Graph batchGraph(int64_t batch) {
  zoo::GraphBuilder b("batch", 5);
  const ir::ValueId x = b.input("x", {batch, 3, 12, 12});
  const ir::ValueId c =
      b.relu("r", b.conv("c", x, zoo::ConvSpec{.outChannels = 8, .kernel = 3, .pad = 1}));
  b.output(b.maxPool("p", c, zoo::PoolSpec{.kernel = 2, .stride = 2}), "y");
  return prepared(b);
}

TEST(StreamEngine, ABatchStreamsAsFramesBackToBack) {
  const StreamConfig c = streamPreset("fig44");
  const SessionResult one = run(batchGraph(1), c), three = run(batchGraph(3), c);
  ASSERT_TRUE(three.report.verdict.passed) << three.report.verdict.detail;
  EXPECT_TRUE(one.report.verdict.passed) << one.report.verdict.detail;
  const Totals& t = three.totals;
  EXPECT_EQ(t.framePeriodCycles, one.totals.framePeriodCycles); // one configuration
  EXPECT_EQ(three.report.total.cycles, t.firstOutputCycles + 3 * t.framePeriodCycles);
  EXPECT_EQ(one.report.total.cycles, t.firstOutputCycles + t.framePeriodCycles);
  EXPECT_EQ(three.report.total.usefulMacs, 3 * one.report.total.usefulMacs);
  // Every frame's events cost the same; the clock runs for the chain's cycles.
  const auto events = [](const report::RunReport& r) {
    return r.total.energyPj - r.total.energy.clock;
  };
  EXPECT_NEAR(events(three.report), 3 * events(one.report), 1e-9 * events(three.report));
  EXPECT_DOUBLE_EQ(three.report.total.energy.clock,
                   three.report.technology.clockPj(three.report.total.cycles));
  ASSERT_EQ(three.outputs.size(), 1u);
  EXPECT_EQ(three.outputs[0].shape(), (Dims{3, 8, 6, 6}));
}

TEST(StreamEngine, ABatchThatIsNotTheLeadingDimensionIsRefused) {
  zoo::GraphBuilder b("flat_batch", 5);
  const ir::ValueId x = b.input("x", {2, 3, 8, 8});
  const ir::ValueId c = b.conv("c", x, zoo::ConvSpec{.outChannels = 4, .kernel = 3, .pad = 1});
  b.output(b.flatten("f", c, 0), "y"); // 1 x (2*4*8*8): the batch is folded away
  expectRefused(prepared(b),
                {"batch 2: value 'y' has shape 1x512 (1x256 for one image)", "leading dimension"});
}

/// conv (3 -> \p c), then a Concat with \p c constant zero channels (an exporter's channel
/// padding), then a 1x1 conv, on 12x12 frames.
ir::Graph zeroPaddedGraph(int64_t c) {
  zoo::GraphBuilder b("zero_pad", 9);
  const ir::ValueId x = b.input("x", {1, 3, 12, 12});
  const ir::ValueId y = b.conv("c", x, zoo::ConvSpec{.outChannels = c, .kernel = 3, .pad = 1});
  const ir::ValueId cat = b.concat("cat", {y, y}, 1);
  b.output(b.conv("d", cat, zoo::ConvSpec{.outChannels = 8, .kernel = 1}), "out");
  ir::Graph g = b.finish();
  // The concatenation's second operand becomes a constant of zeros.
  const ir::ValueId zeros = g.addConstant("pad_zeros", Tensor(DType::F32, Dims{1, c, 12, 12}));
  for (ir::NodeId id = 0; id < static_cast<ir::NodeId>(g.numNodes()); ++id)
    if (g.node(id).op == ir::OpKind::Concat)
      g.node(id).inputs[1] = zeros;
  driver::prepareGraph(g);
  return g;
}

TEST(StreamEngine, AConstantZeroOperandIsPaddedChannels) {
  for (int64_t c : {8, 16, 5}) {
    SCOPED_TRACE(fmt::format("{} channels + {} zeros", c, c));
    const SessionResult r = run(zeroPaddedGraph(c), big());
    EXPECT_TRUE(r.report.verdict.passed) << r.report.verdict.detail;
    // The zero channels come from aux tiles (a Subset whose LUT maps every value to 0).
    int64_t zeroTiles = 0;
    for (const AuxTile& t : r.program.auxTiles)
      zeroTiles += t.function == AuxFunction::Subset && t.lutEnabled &&
                   std::all_of(t.lut.begin(), t.lut.end(), [](int8_t v) { return v == 0; });
    EXPECT_GE(zeroTiles, 1);
  }
}

/// Appends node \p op (a Transpose to NHWC when \p toNhwc) reading \p in to \p g; returns its
/// output value, named \p out.
ir::ValueId appendNode(ir::Graph& g, ir::OpKind op, const std::string& name, ir::ValueId in,
                       const std::string& out, bool toNhwc) {
  ir::Node n;
  n.op = op;
  n.name = name;
  n.inputs = {in};
  n.outputs = {g.addValue(out, DType::F32)};
  if (toNhwc)
    n.attrs.set("perm", std::vector<int64_t>{0, 2, 3, 1});
  g.addNode(std::move(n));
  return g.node(static_cast<ir::NodeId>(g.numNodes()) - 1).outputs[0];
}

/// A BlazeBlock with a channel increase, as TensorFlow exports it: x (c channels, from a conv)
/// -> [conv 3x3 to 2c] + [Concat(x, c zeros)] -> Relu -> Transpose to NHWC, on 32x32 frames
/// (16x16 after a 2x2 max pool when \p pooled).
ir::Graph paddedBlockGraph(int64_t c, bool pooled) {
  zoo::GraphBuilder b("padded_block", 11);
  const ir::ValueId in = b.input("in", {1, 3, 32, 32});
  ir::ValueId x = b.conv("c0", in, zoo::ConvSpec{.outChannels = c, .kernel = 3, .pad = 1});
  if (pooled)
    x = b.maxPool("pool", x, zoo::PoolSpec{.kernel = 2, .stride = 2});
  const ir::ValueId branch =
      b.conv("c1", x, zoo::ConvSpec{.outChannels = 2 * c, .kernel = 3, .pad = 1});
  const ir::ValueId padded = b.concat("pad", {x, x}, 1);
  const ir::ValueId sum = b.relu("relu", b.add("add", branch, padded));
  b.output(sum, "y");
  ir::Graph g = b.finish();
  const int64_t side = pooled ? 16 : 32;
  const ir::ValueId zeros = g.addConstant("pad_zeros", Tensor(DType::F32, Dims{1, c, side, side}));
  for (ir::NodeId id = 0; id < static_cast<ir::NodeId>(g.numNodes()); ++id)
    if (g.node(id).op == ir::OpKind::Concat)
      g.node(id).inputs[1] = zeros;
  // The head of a converted detector: the frame as NHWC.
  g.outputs[0] = appendNode(g, ir::OpKind::Transpose, "to_nhwc", g.outputs[0], "nhwc", true);
  driver::prepareGraph(g);
  return g;
}

TEST(StreamEngine, ChannelPaddingIsFusedIntoTheResidualAdd) {
  for (const auto& [c, pooled] : {std::pair<int64_t, bool>{8, false}, {24, false}, {12, true}}) {
    SCOPED_TRACE(fmt::format("{} channels{}", c, pooled ? " after a pool" : ""));
    const SessionResult r = run(paddedBlockGraph(c, pooled), big());
    EXPECT_TRUE(r.report.verdict.passed) << r.report.verdict.detail;
    EXPECT_EQ(layerNamed(r.program, "pad").kind, LayerKind::View);
    EXPECT_EQ(layerNamed(r.program, "to_nhwc").kind, LayerKind::View);
    const int64_t side = pooled ? 16 : 32;
    ASSERT_EQ(r.outputs.size(), 1u);
    EXPECT_EQ(r.outputs[0].shape(), (Dims{1, side, side, 2 * c}));
  }
}

TEST(StreamEngine, AnNhwcViewFeedsOnlyViewsAndOutputs) {
  zoo::GraphBuilder b("nhwc_then_conv", 3);
  const ir::ValueId x = b.input("x", {1, 3, 8, 8});
  b.output(b.conv("c", x, zoo::ConvSpec{.outChannels = 4, .kernel = 1}), "y");
  ir::Graph g = b.finish();
  const ir::ValueId nhwc =
      appendNode(g, ir::OpKind::Transpose, "to_nhwc", g.outputs[0], "nhwc", true);
  g.outputs[0] = appendNode(g, ir::OpKind::Relu, "relu_nhwc", nhwc, "out", false);
  driver::prepareGraph(g);
  expectRefused(g, {"value 'nhwc' is the frame transposed to NHWC"});
}

} // namespace
} // namespace nnaccel::arch::stream
