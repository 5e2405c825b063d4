/// \file
/// Tests of the stream compiler's element-wise chains (ChainLowering.cpp) and channel scale
/// (ScaleLowering.cpp), run through the simulator and checked bit-exact against the int8
/// reference: a written-out SiLU and a threshold mask are each one LUT with no tiles for their
/// inner nodes;
/// squeeze-and-excitation's x * s waits a frame in FIFO 4902 and scales each frame of a batch by
/// its own vector; a broadcast the multiplier cannot take is refused naming the node; a FIFO
/// shortened by hand is reported, not realigned.
#include "LayerSpecGraphs.h"
#include "nnaccel/arch/stream/Compiler.h"
#include "nnaccel/arch/stream/Session.h"
#include "nnaccel/arch/stream/Simulator.h"
#include "nnaccel/driver/ModelLoader.h"
#include "nnaccel/support/Error.h"
#include "nnaccel/zoo/GraphBuilder.h"

#include <algorithm>
#include <gtest/gtest.h>

namespace nnaccel::arch::stream {
namespace {

/// Appends node \p op named \p name reading \p ins to \p g; returns its output (named \p name).
ir::ValueId append(ir::Graph& g, ir::OpKind op, const std::string& name,
                   std::vector<ir::ValueId> ins) {
  ir::Node n;
  n.op = op;
  n.name = name;
  n.opset = 13;
  n.inputs = std::move(ins);
  n.outputs = {g.addValue(name, DType::F32)};
  g.addNode(std::move(n));
  return g.node(static_cast<ir::NodeId>(g.numNodes()) - 1).outputs[0];
}

ir::ValueId scalar(ir::Graph& g, const std::string& name, float v) {
  return g.addConstant(name, Tensor::fromVector<float>({1}, {v}));
}

/// SiLU written out and halved, x * sigmoid(x) / 2, on \p x: a chain of three nodes from x
/// (HardSwish written out is fused into one node before the engines see it).
ir::ValueId siluWrittenOut(ir::Graph& g, ir::ValueId x, const std::string& p) {
  const ir::ValueId s = append(g, ir::OpKind::Sigmoid, p + "sig", {x});
  const ir::ValueId m = append(g, ir::OpKind::Mul, p + "mul", {x, s});
  return append(g, ir::OpKind::Div, p + "div2", {m, scalar(g, p + "two", 2)});
}

/// conv 3 -> \p c channels on \p side x \p side frames of a batch of \p batch, then \p tail.
ir::Graph graphAfterConv(int64_t c, int64_t side, int64_t batch,
                         const std::function<ir::ValueId(ir::Graph&, ir::ValueId)>& tail) {
  zoo::GraphBuilder b("chain_scale", 5);
  const ir::ValueId x = b.input("x", {batch, 3, side, side});
  b.output(b.conv("conv", x, zoo::ConvSpec{.outChannels = c, .kernel = 3, .pad = 1}), "y");
  ir::Graph g = b.finish();
  g.outputs[0] = tail(g, g.outputs[0]);
  driver::prepareGraph(g);
  return g;
}

SessionResult run(const ir::Graph& g, int64_t frames = 1) {
  SessionOptions o;
  o.inputs = testing::sparseInputs(g, 1.0, 7);
  o.frames = frames;
  StreamConfig c = streamPreset("large");
  return simulateModel(g, c, o);
}

const Layer& layerNamed(const Program& p, const std::string& name) {
  for (const Layer& l : p.layers)
    if (l.name == name)
      return l;
  throw std::runtime_error("no layer " + name);
}

TEST(StreamChainLowering, AWrittenOutSiluIsOneLookupTable) {
  const ir::Graph g = graphAfterConv(
      8, 10, 1, [](ir::Graph& gr, ir::ValueId y) { return siluWrittenOut(gr, y, "silu_"); });
  const SessionResult r = run(g);
  ASSERT_TRUE(r.report.verdict.checked);
  EXPECT_TRUE(r.report.verdict.passed) << r.report.verdict.detail;
  // The pipeline fuses x * sigmoid(x) into one Swish node (FuseWrittenActivations): the chain's
  // interior is that node, and the chain ends at the division.
  for (const char* inner : {"silu_mul/Swish"}) {
    const Layer& l = layerNamed(r.program, inner);
    EXPECT_TRUE(l.auxTiles.empty() && l.kernelTiles.empty() && l.outputs.empty()) << inner;
    EXPECT_NE(l.note.find("in the lookup table of 'silu_div2'"), std::string::npos) << l.note;
  }
  // The chain's table reads the convolution's output and folds into the aux tile that
  // requantizes the convolution's sums: the whole function costs no tile.
  const Layer& end = layerNamed(r.program, "silu_div2");
  EXPECT_TRUE(end.auxTiles.empty());
  EXPECT_NE(end.note.find("lookup table 4906 of 'conv' (folded)"), std::string::npos) << end.note;
  EXPECT_EQ(layerNamed(r.program, "conv").outputs, std::vector<ir::ValueId>{g.outputs[0]});
}

TEST(StreamChainLowering, AThresholdMaskIsOneLookupTable) {
  // x where x > 0.25 else 0: the comparison against a constant and the Where are one table of
  // the convolution's output on its aux tile. Before, the constant was "not a stream".
  const ir::Graph g = graphAfterConv(8, 10, 1, [](ir::Graph& gr, ir::ValueId y) {
    const ir::ValueId above = append(gr, ir::OpKind::Greater, "above", {y, scalar(gr, "t", 0.25f)});
    return append(gr, ir::OpKind::Where, "masked", {above, y, scalar(gr, "zero", 0.0f)});
  });
  const SessionResult r = run(g);
  ASSERT_TRUE(r.report.verdict.checked);
  EXPECT_TRUE(r.report.verdict.passed) << r.report.verdict.detail;
  EXPECT_NE(layerNamed(r.program, "above").note.find("no tile of its own"), std::string::npos);
}

/// Squeeze-and-excitation on the convolution's output y: y * hardsigmoid(conv(relu(conv(gap(y))))).
ir::ValueId squeezeExcite(ir::Graph& g, ir::ValueId y, int64_t c) {
  const ir::ValueId gap = append(g, ir::OpKind::GlobalAveragePool, "gap", {y});
  auto conv1x1 = [&](const std::string& name, ir::ValueId in, int64_t from, int64_t to) {
    std::vector<float> w(static_cast<size_t>(from * to));
    for (size_t i = 0; i < w.size(); ++i)
      w[i] = static_cast<float>((i * 7 % 11)) / 11.0f - 0.4f;
    return append(g, ir::OpKind::Conv, name,
                  {in, g.addConstant(name + "_w", Tensor::fromVector<float>({to, from, 1, 1}, w))});
  };
  const ir::ValueId squeezed = append(g, ir::OpKind::Relu, "relu", {conv1x1("fc1", gap, c, 4)});
  const ir::ValueId gate =
      append(g, ir::OpKind::HardSigmoid, "gate", {conv1x1("fc2", squeezed, 4, c)});
  return append(g, ir::OpKind::Mul, "scale", {y, gate});
}

TEST(StreamScaleLowering, SqueezeExciteWaitsAFrameAndScalesEachFrameByItsVector) {
  for (int64_t c : {8, 24}) {
    const ir::Graph g = graphAfterConv(
        c, 8, 2, [c](ir::Graph& gr, ir::ValueId y) { return squeezeExcite(gr, y, c); });
    const SessionResult r = run(g);
    ASSERT_TRUE(r.report.verdict.checked);
    EXPECT_TRUE(r.report.verdict.passed) << r.report.verdict.detail;
    const Layer& l = layerNamed(r.program, "scale");
    ASSERT_FALSE(l.auxTiles.empty());
    for (int64_t ti : l.auxTiles) {
      const AuxTile& t = r.program.auxTiles[static_cast<size_t>(ti)];
      EXPECT_EQ(t.add, AuxAdd::Scale);
      // The vector needs the whole frame pooled: the frame waits at least a frame.
      EXPECT_GE(t.primaryDelayPositions, 8 * 8);
    }
    EXPECT_GT(layerNamed(r.program, "scale").fifoValues, 0);
  }
}

TEST(StreamScaleLowering, ASpatialBroadcastIsRefusedNamingTheNode) {
  const ir::Graph g = graphAfterConv(4, 8, 1, [](ir::Graph& gr, ir::ValueId y) {
    const ir::ValueId plane =
        append(gr, ir::OpKind::Conv, "plane",
               {y, gr.addConstant("plane_w", Tensor::fromVector<float>(
                                                 {1, 4, 1, 1}, {0.5f, -0.25f, 0.25f, 0.125f}))});
    return append(gr, ir::OpKind::Mul, "spatial", {y, plane}); // [1,4,8,8] * [1,1,8,8]
  });
  try {
    run(g);
    ADD_FAILURE() << "a spatial broadcast was not refused";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("node 'spatial'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("broadcasting is not a stream function"),
              std::string::npos)
        << e.what();
  }
}

TEST(StreamScaleLowering, AFrameThatDoesNotWaitForItsVectorIsReported) {
  const ir::Graph g =
      graphAfterConv(8, 8, 1, [](ir::Graph& gr, ir::ValueId y) { return squeezeExcite(gr, y, 8); });
  const quant::QuantizedModel qm = quant::quantize(g, {});
  Program p = compile(qm, streamPreset("large"), CompileOptions{.chooseChips = true});
  for (AuxTile& t : p.auxTiles)
    if (t.add == AuxAdd::Scale)
      t.primaryDelayPositions = 0;
  Simulator sim(p, qm);
  sim.setInput(
      quant::quantizeTensor(testing::sparseInputs(g, 1.0, 7).at(0), qm.scale(p.inputValue)).data);
  sim.run({});
  const std::vector<std::string> v = sim.timingViolations();
  EXPECT_TRUE(std::any_of(v.begin(), v.end(), [](const std::string& s) {
    return s.find("its scale vector is held from cycle") != std::string::npos;
  }));
}

} // namespace
} // namespace nnaccel::arch::stream
