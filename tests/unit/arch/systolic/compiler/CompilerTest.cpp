/// \file
/// Tests of the systolic compiler: the instructions it emits for the patents' cases (one
/// LOAD_WEIGHTS + MATMUL per weight element and tile, weights at ORIGINAL coordinates, no zero
/// insertion), tiling (channel and tile tails, spills), zero outputs in both PSUM modes, host
/// fallbacks, baselines, errors — and, end to end through the simulator, bit-exact int8 and
/// exact-versus-fast cycle equality on randomized small layers.
#include "nnaccel/arch/systolic/Compiler.h"

#include "../../../../support/AttentionGraph.h"
#include "LayerGraphs.h"
#include "nnaccel/arch/systolic/AccessPlan.h"
#include "nnaccel/arch/systolic/Session.h"
#include "nnaccel/arch/systolic/Simulator.h"
#include "nnaccel/driver/ModelLoader.h"
#include "nnaccel/quant/QuantizedModel.h"
#include "nnaccel/support/Error.h"
#include "nnaccel/zoo/GraphBuilder.h"

#include <cstring>
#include <gtest/gtest.h>
#include <set>

namespace nnaccel::arch::systolic {
namespace {

using testing::buildLayerGraph;
using testing::LayerSpec;

SystolicConfig testConfig() {
  SystolicConfig c;
  c.name = "test16";
  c.peRows = 16;
  c.peCols = 16;
  c.weightLoadCycles = 16;
  c.sbufBytesPerPartition = 16 * 1024;
  c.psumEntriesPerColumn = 512;
  c.psumMaxTileRows = 16;
  c.psumMaxTileCols = 32;
  c.poolLanes = 16;
  return c;
}

template <class T> std::vector<T> opsOf(const Program& p) {
  std::vector<T> out;
  for (const Instruction& i : p.instructions)
    if (const T* op = std::get_if<T>(&i.op))
      out.push_back(*op);
  return out;
}

Program compileSpec(const LayerSpec& s, const SystolicConfig& c, DType dtype = DType::I8,
                    bool baseline = false) {
  const ir::Graph g = buildLayerGraph(s);
  const quant::QuantizedModel qm = quant::quantize(g, {});
  CompileOptions o;
  o.dtype = dtype;
  o.baseline = baseline;
  return compile(g, dtype == DType::I8 ? &qm : nullptr, c, o);
}

SessionResult simulateSpec(const LayerSpec& s, const SystolicConfig& c, DType dtype = DType::I8,
                           bool exact = false, bool baseline = false) {
  SessionOptions o;
  o.dtype = dtype;
  o.exact = exact;
  o.baselineRows = baseline;
  return simulateModel(buildLayerGraph(s), c, o);
}

// Seed 000 FIG. 6: transposed 3x3, stride 2, pad 1, input 3x10, one 4x18 output tile.
TEST(SystolicCompiler, TransposedConvOneMatmulPerWeightWithoutZeroInsertion) {
  LayerSpec s;
  s.kind = LayerSpec::Kind::ConvTranspose;
  s.inChannels = 2;
  s.outChannels = 3;
  s.h = 3;
  s.w = 10;
  s.sh = s.sw = 2;
  s.padTop = s.padLeft = s.padBottom = s.padRight = 1;
  SystolicConfig c = testConfig();
  c.psumMaxTileRows = 4;
  c.psumMaxTileCols = 18;
  const Program p = compileSpec(s, c);
  EXPECT_TRUE(opsOf<DmaCopy>(p).empty()) << "no dilated input or rotated weights are built";
  const auto mm = opsOf<Matmul>(p);
  const auto lw = opsOf<LoadWeights>(p);
  ASSERT_EQ(mm.size(), lw.size());
  // Output 5x19 -> tiles (0,0) 4x18, (0,18) 4x1, (4,0) 1x18, (4,18) 1x1.
  const AxisGeometry h{3, 5, 3, 2, 1, 1}, w{10, 19, 3, 2, 1, 1};
  size_t expected = 0;
  for (int64_t y0 : {0, 4})
    for (int64_t x0 : {0, 18})
      for (int64_t r = 0; r < 3; ++r)
        for (int64_t q = 0; q < 3; ++q)
          expected += transposedWeightPlan(h, w, y0, std::min<int64_t>(4, 5 - y0), x0,
                                           std::min<int64_t>(18, 19 - x0), r, q)
                          ? 1
                          : 0;
  EXPECT_EQ(mm.size(), expected);
  // First tile: every weight streams 2x9 = 18 inputs with fetch step 1 and write step 2.
  for (size_t i = 0; i < 9; ++i) {
    EXPECT_EQ(mm[i].srcInnerCount * mm[i].srcOuterCount, 18);
    EXPECT_EQ(mm[i].srcInnerStep, 1);
    EXPECT_EQ(mm[i].dstInnerStep, 2);
    EXPECT_EQ(mm[i].dstOuterStride, 2 * 18);
  }
  // Weights are addressed by their ORIGINAL (r, s): consecutive addresses in r*3+s order for
  // the first tile (the order of emission, possibly starting with a full-coverage weight).
  std::set<int64_t> addrs;
  for (size_t i = 0; i < 9; ++i)
    addrs.insert(lw[i].addr);
  EXPECT_EQ(addrs.size(), 9u);
  EXPECT_EQ(*addrs.rbegin() - *addrs.begin(), 8);
}

TEST(SystolicCompiler, ConvTransposeBitExactInBothPsumZeroModes) {
  // Stride 3 > kernel 2: whole output rows and columns are never written.
  LayerSpec s;
  s.kind = LayerSpec::Kind::ConvTranspose;
  s.inChannels = 3;
  s.outChannels = 5;
  s.h = 4;
  s.w = 5;
  s.kh = s.kw = 2;
  s.sh = s.sw = 3;
  for (PsumZeroMode mode : {PsumZeroMode::Reset, PsumZeroMode::WrittenFlags}) {
    SystolicConfig c = testConfig();
    c.psumZeroMode = mode;
    const Program p = compileSpec(s, c);
    EXPECT_EQ(opsOf<PsumReset>(p).empty(), mode == PsumZeroMode::WrittenFlags);
    for (const Matmul& m : opsOf<Matmul>(p))
      EXPECT_TRUE(m.accumulate || mode == PsumZeroMode::Reset);
    const SessionResult r = simulateSpec(s, c);
    EXPECT_TRUE(r.report.verdict.passed) << r.report.verdict.detail;
  }
}

TEST(SystolicCompiler, ChannelAndColumnTailsAccumulateAndSplit) {
  LayerSpec s;
  s.inChannels = 17;  // 16 + 1 on a 16-row array
  s.outChannels = 20; // 16 + 4 on 16 columns
  s.h = 7;
  s.w = 9;
  s.padTop = s.padLeft = s.padBottom = s.padRight = 1;
  const SystolicConfig c = testConfig();
  const Program p = compileSpec(s, c);
  int64_t rows1 = 0, cols4 = 0;
  for (const Matmul& m : opsOf<Matmul>(p)) {
    rows1 += m.rows == 1;
    cols4 += m.cols == 4;
  }
  EXPECT_GT(rows1, 0);
  EXPECT_GT(cols4, 0);
  const SessionResult r = simulateSpec(s, c);
  EXPECT_TRUE(r.report.verdict.passed) << r.report.verdict.detail;
}

TEST(SystolicCompiler, LayerLargerThanTheStateBufferStreamsWindows) {
  LayerSpec s;
  s.inChannels = 8;
  s.outChannels = 8;
  s.h = 96;
  s.w = 96; // 9216 bytes per partition: does not fit next to the other buffers in 4 KiB
  SystolicConfig c = testConfig();
  c.sbufBytesPerPartition = 4096;
  const Program p = compileSpec(s, c);
  EXPECT_GT(opsOf<DmaLoad>(p).size(), 20u);
  const SessionResult r = simulateSpec(s, c);
  EXPECT_TRUE(r.report.verdict.passed) << r.report.verdict.detail;
}

TEST(SystolicCompiler, WeightsThatCannotFitAreAConfigErrorNamingTheNode) {
  const LayerSpec s = testing::wideKernelLayer();
  SystolicConfig c = testConfig();
  c.sbufBytesPerPartition = 1024; // 4 input blocks x 16 x 49 bytes of weights > 1 KiB
  try {
    compileSpec(s, c);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Config);
    EXPECT_NE(std::string(e.what()).find("layer0"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("state buffer"), std::string::npos) << e.what();
  }
}

TEST(SystolicCompiler, UnsupportedDtypeIsAConfigError) {
  SystolicConfig c = testConfig();
  c.dtypes = {DType::I8};
  LayerSpec s;
  EXPECT_THROW(compileSpec(s, c, DType::F32), Error);
}

TEST(SystolicCompiler, DepthwisePacksGroupsBlockDiagonally) {
  LayerSpec s;
  s.inChannels = s.outChannels = s.group = 32;
  s.h = s.w = 6;
  s.padTop = s.padLeft = s.padBottom = s.padRight = 1;
  const SystolicConfig c = testConfig();
  const Program p = compileSpec(s, c);
  for (const Matmul& m : opsOf<Matmul>(p)) {
    EXPECT_EQ(m.rows, 16);
    EXPECT_EQ(m.cols, 16);
  }
  const SessionResult r = simulateSpec(s, c);
  EXPECT_TRUE(r.report.verdict.passed) << r.report.verdict.detail;
}

TEST(SystolicCompiler, BaselineTransposedStreamsAboutStrideSquaredMore) {
  LayerSpec s;
  s.kind = LayerSpec::Kind::ConvTranspose;
  s.inChannels = 8;
  s.outChannels = 8;
  s.h = s.w = 8;
  s.kh = s.kw = 4;
  s.sh = s.sw = 2;
  s.padTop = s.padLeft = s.padBottom = s.padRight = 1;
  const SystolicConfig c = testConfig();
  const Program base = compileSpec(s, c, DType::I8, true);
  const auto copies = opsOf<DmaCopy>(base);
  ASSERT_EQ(copies.size(), 3u); // zero fill, scatter, rotated weight copy
  EXPECT_TRUE(copies[0].fillZero);
  const SessionResult r = simulateSpec(s, c, DType::I8, false, true);
  EXPECT_TRUE(r.report.verdict.passed) << r.report.verdict.detail;
  ASSERT_EQ(r.report.baseline.size(), 1u);
  const auto& row = r.report.baseline[0];
  const double ratio = static_cast<double>(row.baseline.streamedElements) /
                       static_cast<double>(row.method.streamedElements);
  EXPECT_GT(ratio, 3.0);
  EXPECT_LT(ratio, 5.0);
  EXPECT_GT(row.baseline.dram.writeBytes, row.method.dram.writeBytes);
}

TEST(SystolicCompiler, BaselineDilatedUsesAZeroInsertedKernel) {
  LayerSpec s;
  s.inChannels = 4;
  s.outChannels = 4;
  s.h = s.w = 12;
  s.dh = s.dw = 2;
  s.padTop = s.padLeft = s.padBottom = s.padRight = 2;
  const SystolicConfig c = testConfig();
  const SessionResult r = simulateSpec(s, c, DType::I8, false, true);
  EXPECT_TRUE(r.report.verdict.passed) << r.report.verdict.detail;
  ASSERT_EQ(r.report.baseline.size(), 1u);
  EXPECT_GT(r.report.baseline[0].baseline.issuedMacs, 2 * r.report.baseline[0].method.issuedMacs);
}

TEST(SystolicCompiler, AveragePoolRunsOnThePoolingEngine) {
  LayerSpec s;
  s.kind = LayerSpec::Kind::AveragePool;
  s.inChannels = s.outChannels = 4;
  s.h = s.w = 6;
  s.kh = s.kw = 2;
  s.sh = s.sw = 2;
  const SessionResult r = simulateSpec(s, testConfig());
  EXPECT_TRUE(r.report.verdict.passed) << r.report.verdict.detail;
  ASSERT_EQ(r.program.layers.size(), 1u);
  EXPECT_EQ(r.program.layers[0].unit, LayerUnit::Pool);
}

TEST(SystolicCompiler, HostFallbackIsAReportedLayer) {
  // A bicubic Resize has no integer form: it is a host layer with its reason, its output is
  // still verified, and the report marks it a host fallback.
  zoo::GraphBuilder b("cubic_tail", 1);
  const ir::ValueId x = b.input("x", {1, 6, 5, 5});
  const ir::ValueId y = b.conv("conv", x, zoo::ConvSpec{.outChannels = 8, .kernel = 3, .pad = 1});
  b.output(b.resize("up", y, 10, 10, zoo::ResizeMode::Bicubic), "upsampled");
  ir::Graph g = b.finish();
  driver::prepareGraph(g);
  const SessionResult r = simulateModel(g, testConfig(), {});
  EXPECT_TRUE(r.report.verdict.passed) << r.report.verdict.detail;
  int hosts = 0;
  for (size_t i = 0; i < r.program.layers.size(); ++i) {
    if (r.program.layers[i].unit != LayerUnit::Host)
      continue;
    ++hosts;
    EXPECT_EQ(r.program.layers[i].op, "Resize");
    EXPECT_EQ(r.program.layers[i].note.rfind("no integer form: cubic resizing", 0), 0u)
        << r.program.layers[i].note;
    EXPECT_TRUE(r.report.layers[i].hostFallback);
    EXPECT_TRUE(std::holds_alternative<HostOp>(
        r.program.instructions[static_cast<size_t>(r.program.layers[i].firstInstr)].op));
  }
  EXPECT_EQ(hosts, 1);
}

// Softmax on the vector unit, one line per partition row: over the channels of NCHW (the DMA
// reads each line strided, one pixel per partition) and over the last axis (contiguous lines,
// one per partition); the exponential table sits in the pool table. Lines longer than the
// unit's buffer stay on the host, saying so.
TEST(SystolicCompiler, SoftmaxRunsOnTheVectorUnitLinePerPartition) {
  for (int64_t axis : {1, 3}) {
    SCOPED_TRACE(axis);
    zoo::GraphBuilder b("softmax", 1);
    const ir::ValueId x = b.input("x", {2, 6, 5, 7});
    const ir::ValueId y = b.conv("conv", x, zoo::ConvSpec{.outChannels = 8, .kernel = 3, .pad = 1});
    b.output(b.softmax("softmax", y, axis), "prob");
    ir::Graph g = b.finish();
    driver::prepareGraph(g);
    const SessionResult r = simulateModel(g, testConfig(), {});
    EXPECT_TRUE(r.report.verdict.passed) << r.report.verdict.detail;
    ASSERT_EQ(r.program.layers.size(), 2u);
    EXPECT_EQ(r.program.layers[1].unit, LayerUnit::Vector);
    const std::vector<Vector> ops = opsOf<Vector>(r.program);
    ASSERT_FALSE(ops.empty());
    EXPECT_EQ(ops.front().func, VectorFunc::Softmax);
    EXPECT_EQ(ops.front().rowLen, axis == 1 ? 8 : 7);
  }
  SystolicConfig tiny = testConfig();
  tiny.sbufBytesPerPartition = 1024; // a 256-byte vector buffer for 300-element lines
  zoo::GraphBuilder b("softmax_long", 1);
  b.output(b.softmax("softmax", b.input("x", {1, 2, 300}), -1), "prob");
  ir::Graph g = b.finish();
  driver::prepareGraph(g);
  const SessionResult r = simulateModel(g, tiny, {});
  EXPECT_TRUE(r.report.verdict.passed) << r.report.verdict.detail;
  ASSERT_EQ(r.program.layers.size(), 1u);
  EXPECT_EQ(r.program.layers[0].unit, LayerUnit::Host);
  EXPECT_EQ(r.program.layers[0].note,
            "a softmax line of 300 elements exceeds the vector unit's buffer (256 bytes per "
            "partition)");
}

// A MatMul of two computed tensors runs on the array: per batch index (head) its B is DMA'd
// from the tensor that holds it into the weight buffer; a B shared by every head (batch dims of
// 1) is DMA'd once and serves both heads. Bit-exact in int8, within tolerance in fp32.
TEST(SystolicCompiler, MatMulOfTwoTensorsLoadsItsWeightsFromTheTensor) {
  const ir::Graph g = nnaccel::testing::attentionGraph(false, 6, 2, 4);
  const SessionResult r = simulateModel(g, testConfig(), {});
  EXPECT_TRUE(r.report.verdict.passed) << r.report.verdict.detail;
  for (const char* name : {"scores", "context", "mix"}) {
    SCOPED_TRACE(name);
    const auto l = std::find_if(r.program.layers.begin(), r.program.layers.end(),
                                [&](const Layer& x) { return x.name == name; });
    ASSERT_NE(l, r.program.layers.end());
    EXPECT_EQ(l->unit, LayerUnit::PeArray);
    EXPECT_EQ(l->usefulMacs, 2 * 6 * 4 * 6); // 2 heads x (6x4 * 4x6, 6x6 * 6x4, 6x4 * 4x6)
    // B's program tensor: the weight DMAs of the layer read inside it, one per head.
    const ir::ValueId bValue = g.node(l->node).inputs[1];
    const auto t = std::find_if(r.program.tensors.begin(), r.program.tensors.end(),
                                [&](const DramTensor& x) { return x.value == bValue; });
    ASSERT_NE(t, r.program.tensors.end());
    std::vector<int64_t> addrs;
    for (int64_t i = l->firstInstr; i < l->endInstr; ++i)
      if (const auto* load =
              std::get_if<DmaLoad>(&r.program.instructions[static_cast<size_t>(i)].op);
          load != nullptr && load->dram.addr >= t->addr && load->dram.addr < t->addr + t->bytes())
        addrs.push_back(load->dram.addr);
    // Per-head operands sit one matrix apart; mix's B (batch dims of 1) is shared by both
    // heads: loaded once, and each loaded weight element streams both heads' rows.
    if (std::string(name) == "mix") {
      EXPECT_EQ(addrs.size(), 1u);
      EXPECT_NE(l->note.find("batch: each weight load streams 2 images"), std::string::npos)
          << l->note;
      continue;
    }
    ASSERT_EQ(addrs.size(), 2u);
    EXPECT_EQ(addrs[1] - addrs[0], 4 * 6);
  }
  SessionOptions fp;
  fp.dtype = DType::F32;
  EXPECT_TRUE(simulateModel(g, testConfig(), fp).report.verdict.passed);
}

TEST(SystolicCompiler, Fp32AgreesWithinTolerance) {
  LayerSpec s;
  s.inChannels = 20;
  s.outChannels = 18;
  s.h = s.w = 9;
  s.sh = s.sw = 2;
  s.padTop = s.padLeft = 1;
  s.relu = true;
  const SessionResult r = simulateSpec(s, testConfig(), DType::F32);
  EXPECT_TRUE(r.report.verdict.passed) << r.report.verdict.detail;
}

// Issue item 8: the slow exact mode gives the same outputs and the same cycle counts as the fast
// model on randomized small layers (stride, dilation, padding, transposed, channel/tile tails).
TEST(SystolicCompiler, RandomLayersBitExactAndExactModeMatchesFastModel) {
  Rng rng(20261121);
  for (int i = 0; i < 60; ++i) {
    const LayerSpec s = testing::randomLayer(rng);
    SCOPED_TRACE(s.describe());
    SystolicConfig c = testConfig();
    c.shadowWeights = i % 3 != 0;
    c.psumZeroMode = i % 2 ? PsumZeroMode::WrittenFlags : PsumZeroMode::Reset;
    c.psumMaxTileRows = 1 + i % 5;
    c.psumMaxTileCols = 2 + i % 7;
    const SessionResult fast = simulateSpec(s, c);
    ASSERT_TRUE(fast.report.verdict.passed) << fast.report.verdict.detail;
    const SessionResult exact = simulateSpec(s, c, DType::I8, true);
    ASSERT_TRUE(exact.report.verdict.passed) << exact.report.verdict.detail;
    ASSERT_EQ(fast.outputs.size(), exact.outputs.size());
    for (size_t k = 0; k < fast.outputs.size(); ++k)
      EXPECT_EQ(0, std::memcmp(fast.outputs[k].rawData(), exact.outputs[k].rawData(),
                               static_cast<size_t>(fast.outputs[k].numElements()) * 4));
    ASSERT_EQ(fast.report.layers.size(), exact.report.layers.size());
    for (size_t k = 0; k < fast.report.layers.size(); ++k)
      EXPECT_EQ(fast.report.layers[k].cycles, exact.report.layers[k].cycles);
    EXPECT_EQ(fast.report.total.cycles, exact.report.total.cycles);
  }
}

} // namespace
} // namespace nnaccel::arch::systolic
