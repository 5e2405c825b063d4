/// \file
/// The systolic compiler's element-wise lowering (src/arch/systolic/compiler/VectorLowering.cpp):
/// residual Add + Relu, LeNet-5's Tanh, plane/image chunking, per-channel and scalar broadcasts,
/// constant operands, per-channel lookup tables, channel Concat, nearest Resize, a threshold
/// Where as one lookup and a Where of two tensors as SELECT; and the patterns that stay on the
/// host say why. Every simulated case is verified bit-exact against
/// the int8 reference by the session.
#include "nnaccel/arch/systolic/Compiler.h"
#include "nnaccel/arch/systolic/Session.h"
#include "nnaccel/driver/ModelLoader.h"
#include "nnaccel/support/Rng.h"
#include "nnaccel/zoo/GraphBuilder.h"

#include <gtest/gtest.h>

namespace nnaccel::arch::systolic {
// Named, not anonymous: the unity build compiles this file with its siblings, whose anonymous
// helpers (testConfig, opsOf, ...) would otherwise be ambiguous.
namespace vector_lowering_test {

SystolicConfig testConfig(int64_t sbufBytes = 16 * 1024) {
  SystolicConfig c;
  c.name = "test16";
  c.peRows = 16;
  c.peCols = 16;
  c.sbufBytesPerPartition = sbufBytes;
  c.psumEntriesPerColumn = 512;
  c.psumMaxTileRows = 16;
  c.psumMaxTileCols = 32;
  c.poolLanes = 16;
  return c;
}

/// A graph of raw nodes (the builder has no Mul, Sub or PRelu): f32 inputs, seeded constants.
class RawGraph {
public:
  ir::ValueId input(const std::string& name, Dims shape) {
    const ir::ValueId v = g_.addValue(name, DType::F32, std::move(shape));
    g_.inputs.push_back(v);
    return v;
  }
  ir::ValueId constant(const std::string& name, Dims shape) {
    Tensor t(DType::F32, std::move(shape));
    for (float& x : t.values<float>())
      x = rng_.uniform(-1.0f, 1.0f);
    return g_.addConstant(name, std::move(t));
  }
  ir::ValueId constant(const std::string& name, Tensor t) {
    return g_.addConstant(name, std::move(t));
  }
  ir::ValueId node(ir::OpKind op, const std::string& name, std::vector<ir::ValueId> inputs,
                   ir::AttrMap attrs = {}) {
    ir::Node n;
    n.name = name;
    n.op = op;
    n.opset = 13;
    n.inputs = std::move(inputs);
    n.attrs = std::move(attrs);
    const ir::ValueId out = g_.addValue(name + ".out", DType::F32);
    n.outputs = {out};
    g_.addNode(std::move(n));
    return out;
  }
  ir::Graph finish(ir::ValueId out) { return finish(std::vector<ir::ValueId>{out}); }
  ir::Graph finish(std::vector<ir::ValueId> outs) {
    g_.outputs = std::move(outs);
    driver::prepareGraph(g_);
    return std::move(g_);
  }

private:
  ir::Graph g_;
  Rng rng_{7};
};

SessionResult simulate(const ir::Graph& g, const SystolicConfig& c = testConfig()) {
  SessionResult r = simulateModel(g, c, {});
  EXPECT_TRUE(r.report.verdict.passed) << r.report.verdict.detail;
  return r;
}

const Layer& layerNamed(const Program& p, const std::string& name) {
  for (const Layer& l : p.layers)
    if (l.name == name)
      return l;
  throw std::runtime_error("no layer " + name);
}

template <class T> std::vector<T> opsOf(const Program& p, const Layer& l) {
  std::vector<T> out;
  for (int64_t i = l.firstInstr; i < l.endInstr; ++i)
    if (const T* op = std::get_if<T>(&p.instructions[static_cast<size_t>(i)].op))
      out.push_back(*op);
  return out;
}

int hostLayers(const Program& p) {
  int n = 0;
  for (const Layer& l : p.layers)
    n += l.unit == LayerUnit::Host ? 1 : 0;
  return n;
}

TEST(SystolicVectorLowering, ResidualAddAndReluRunOnTheVectorUnit) {
  zoo::GraphBuilder b("residual", 3);
  const ir::ValueId x = b.input("x", {1, 20, 9, 9});
  ir::ValueId y = b.relu("relu1", b.conv("conv1", x, {.outChannels = 20, .kernel = 3, .pad = 1}));
  y = b.conv("conv2", y, {.outChannels = 20, .kernel = 3, .pad = 1});
  b.output(b.relu("relu2", b.add("add", y, x)), "out");
  ir::Graph g = b.finish();
  driver::prepareGraph(g);
  const SessionResult r = simulate(g);
  EXPECT_EQ(hostLayers(r.program), 0);
  const Layer& add = layerNamed(r.program, "add");
  EXPECT_EQ(add.op, "Add+Relu");
  EXPECT_EQ(add.unit, LayerUnit::Vector);
  EXPECT_EQ(r.report.layers[&add - r.program.layers.data()].unit, "vector");
  const std::vector<Vector> v = opsOf<Vector>(r.program, add);
  ASSERT_EQ(v.size(), 2u); // channel blocks of 16 and 4, each one 81-element plane
  EXPECT_EQ(v[0].func, VectorFunc::Add);
  EXPECT_EQ(v[0].clampLo, 0); // the fused Relu
  EXPECT_EQ(v[0].partitions, 16);
  EXPECT_EQ(v[1].partitions, 4);
  EXPECT_EQ(v[0].rowLen, 81);
  EXPECT_EQ(v[0].bStep, 1);
}

TEST(SystolicVectorLowering, Lenet5RunsWithoutHostLayers) {
  const SessionResult r = simulate(driver::loadModel("lenet5"));
  EXPECT_EQ(hostLayers(r.program), 0);
  int tanh = 0;
  for (const Layer& l : r.program.layers) {
    if (l.op != "Tanh")
      continue;
    ++tanh;
    EXPECT_EQ(l.unit, LayerUnit::Vector);
    const std::vector<Vector> v = opsOf<Vector>(r.program, l);
    ASSERT_FALSE(v.empty());
    EXPECT_EQ(v[0].func, VectorFunc::Lookup);
    EXPECT_EQ(opsOf<DmaLoad>(r.program, l)[0].space, OnChip::LookupTable);
  }
  EXPECT_EQ(tanh, 4);
}

TEST(SystolicVectorLowering, AHugeStateBufferIsNotSpannedByTheVectorBuffers) {
  // Issue 20: with 1 GiB per partition the four vector buffers lay a quarter of it apart, so a
  // LeNet-5 program (and the simulator's SBUF) spanned 4 GiB. They now lie at most 64 KiB apart.
  SystolicConfig c = testConfig();
  c.sbufBytesPerPartition = int64_t{1} << 30;
  c.sbufResidentBytesPerPartition = int64_t{1} << 20;
  const SessionResult r = simulate(driver::loadModel("lenet5"), c);
  EXPECT_TRUE(r.report.verdict.passed) << r.report.verdict.detail;
  const ProgramExtents e = validateProgram(r.program);
  EXPECT_GT(e.sbufBytesPerPartition, 0);
  EXPECT_LE(e.sbufBytesPerPartition, 4 * (int64_t{64} << 10));
  // The resident region holds LeNet-5's activations: the extents say how much of it is used.
  EXPECT_GT(e.residentBytes, 0);
  EXPECT_LE(e.residentBytes, residentRegionBytes(c));
}

TEST(SystolicVectorLowering, ChunksPlanesAndBatchesImages) {
  RawGraph big;
  const ir::ValueId a = big.input("a", {2, 20, 20, 30});
  const ir::ValueId b = big.input("b", {2, 20, 20, 30});
  // 1 KiB partitions: four 256-byte buffers, so each 600-element plane takes chunks 256, 256, 88.
  const SessionResult r =
      simulate(big.finish(big.node(ir::OpKind::Sub, "sub", {a, b})), testConfig(1024));
  const std::vector<Vector> v = opsOf<Vector>(r.program, layerNamed(r.program, "sub"));
  ASSERT_EQ(v.size(), 2u * 2u * 3u); // channel blocks x images x chunks
  EXPECT_EQ(v[0].func, VectorFunc::Sub);
  EXPECT_EQ(v[0].rowLen, 256);
  EXPECT_EQ(v[2].rowLen, 88);

  RawGraph small;
  const ir::ValueId c = small.input("c", {4, 3, 2, 2});
  const ir::ValueId d = small.input("d", {4, 3, 2, 2});
  const SessionResult s = simulate(small.finish(small.node(ir::OpKind::Mul, "mul", {c, d})));
  const std::vector<Vector> w = opsOf<Vector>(s.program, layerNamed(s.program, "mul"));
  ASSERT_EQ(w.size(), 1u); // all four images as rows of one VECTOR
  EXPECT_EQ(w[0].rows, 4);
  EXPECT_EQ(w[0].rowLen, 4);
}

TEST(SystolicVectorLowering, BroadcastsPerChannelAndScalarOperands) {
  // Squeeze-excite: x * sigmoid(gap(x)), the gate one value per (image, channel).
  RawGraph se;
  const ir::ValueId x = se.input("x", {1, 20, 6, 6});
  const ir::ValueId gap = se.node(ir::OpKind::GlobalAveragePool, "gap", {x});
  const ir::ValueId gate = se.node(ir::OpKind::Sigmoid, "gate", {gap});
  const SessionResult r = simulate(se.finish(se.node(ir::OpKind::Mul, "scale", {x, gate})));
  EXPECT_EQ(hostLayers(r.program), 0);
  const std::vector<Vector> v = opsOf<Vector>(r.program, layerNamed(r.program, "scale"));
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[0].func, VectorFunc::Mul);
  EXPECT_EQ(v[0].bStep, 0);
  EXPECT_EQ(v[0].bRowStride, 1);

  // A per-channel constant subtracted (a per-channel lookup table: quant tabulates tensor op
  // constant), then a scalar constant added with the constant first: the pipeline moves it
  // second (passes::canonicalizeOperands), so it is a lookup table too.
  RawGraph k;
  const ir::ValueId y = k.input("y", {2, 20, 3, 5});
  const ir::ValueId sub = k.node(ir::OpKind::Sub, "sub", {y, k.constant("bias", {20, 1, 1})});
  const ir::ValueId add = k.node(ir::OpKind::Add, "add", {k.constant("one", {1}), sub});
  const SessionResult s = simulate(k.finish(add));
  EXPECT_EQ(hostLayers(s.program), 0);
  EXPECT_EQ(opsOf<Vector>(s.program, layerNamed(s.program, "sub"))[0].func, VectorFunc::Lookup);
  EXPECT_EQ(opsOf<Vector>(s.program, layerNamed(s.program, "add"))[0].func, VectorFunc::Lookup);
}

TEST(SystolicVectorLowering, MinMaxOfTwoTensorsRescaleBothOperands) {
  RawGraph g;
  const ir::ValueId x = g.input("x", {1, 20, 6, 6});
  const ir::ValueId y = g.input("y", {1, 20, 6, 6});
  const ir::ValueId gate = g.node(ir::OpKind::GlobalAveragePool, "gap", {y});
  const ir::ValueId hi = g.node(ir::OpKind::Max, "hi", {x, y});
  // The per-channel operand first: the commutative Min swaps it into B.
  const SessionResult r = simulate(g.finish(g.node(ir::OpKind::Min, "lo", {gate, hi})));
  EXPECT_EQ(hostLayers(r.program), 0);
  const std::vector<Vector> h = opsOf<Vector>(r.program, layerNamed(r.program, "hi"));
  ASSERT_FALSE(h.empty());
  EXPECT_EQ(h[0].func, VectorFunc::Max);
  const std::vector<Vector> l = opsOf<Vector>(r.program, layerNamed(r.program, "lo"));
  ASSERT_FALSE(l.empty());
  EXPECT_EQ(l[0].func, VectorFunc::Min);
  EXPECT_EQ(l[0].bStep, 0); // one value per channel
}

TEST(SystolicVectorLowering, ComparisonsSwapTheirPredicateWithTheirOperands) {
  RawGraph g;
  const ir::ValueId x = g.input("x", {1, 20, 6, 6});
  const ir::ValueId gate = g.node(ir::OpKind::GlobalAveragePool, "gap", {x});
  // gap < x: the per-channel operand is swapped into B, so the unit computes x > gap.
  const SessionResult r = simulate(g.finish(g.node(ir::OpKind::Less, "lt", {gate, x})));
  EXPECT_EQ(hostLayers(r.program), 0);
  const std::vector<Vector> v = opsOf<Vector>(r.program, layerNamed(r.program, "lt"));
  ASSERT_FALSE(v.empty());
  EXPECT_EQ(v[0].func, VectorFunc::Greater);
  EXPECT_EQ(v[0].bStep, 0);
}

TEST(SystolicVectorLowering, AThresholdWhereIsOneLookupOfItsSource) {
  // x where x > 0.2 else 0 is one table of x's codes: a Lookup reading x. A Where choosing
  // between two tensors is one SELECT with the condition as operand C.
  RawGraph g;
  const ir::ValueId x = g.input("x", {1, 20, 6, 6});
  const ir::ValueId other = g.input("other", {1, 20, 6, 6});
  const ir::ValueId r = g.node(ir::OpKind::Relu, "relu", {x});
  const ir::ValueId above = g.node(ir::OpKind::Greater, "above",
                                   {r, g.constant("t", Tensor::fromVector<float>({1}, {0.2f}))});
  const ir::ValueId zero = g.constant("zero", Tensor::fromVector<float>({1}, {0.0f}));
  const ir::ValueId masked = g.node(ir::OpKind::Where, "masked", {above, r, zero});
  const ir::ValueId mixed = g.node(ir::OpKind::Where, "mixed", {above, r, other});
  const SessionResult res = simulate(g.finish({masked, mixed}));
  const std::vector<Vector> v = opsOf<Vector>(res.program, layerNamed(res.program, "masked"));
  ASSERT_FALSE(v.empty());
  EXPECT_EQ(v[0].func, VectorFunc::Lookup);
  EXPECT_EQ(hostLayers(res.program), 0);
  const std::vector<Vector> m = opsOf<Vector>(res.program, layerNamed(res.program, "mixed"));
  ASSERT_FALSE(m.empty());
  EXPECT_EQ(m[0].func, VectorFunc::Select);
  EXPECT_EQ(m[0].cStep, 1);
}

TEST(SystolicVectorLowering, WhereOfTwoTensorsSelectsWithEveryBroadcast) {
  // Where(cond, x, y) with x, y and the condition each full, per channel or scalar, over images
  // and plane chunks (a small state buffer): bit-exact (simulate() checks the verdict), and
  // the broadcast else-operand makes the full then-operand A (SELECT_NOT).
  RawGraph g;
  const ir::ValueId in = g.input("x", {2, 20, 24, 24});
  const ir::ValueId other = g.input("other", {2, 20, 24, 24});
  const ir::ValueId a = g.node(ir::OpKind::Tanh, "a", {in});
  const ir::ValueId small = g.input("small", {2, 20, 4, 4});
  const ir::ValueId gap = g.node(ir::OpKind::GlobalAveragePool, "gap", {small});
  const ir::ValueId full = g.node(ir::OpKind::Greater, "full", {a, other});
  const ir::ValueId perChannel =
      g.node(ir::OpKind::Less, "per_channel", {gap, g.constant("t", {1, 20, 1, 1})});
  const ir::ValueId w1 = g.node(ir::OpKind::Where, "both_full", {full, a, other});
  const ir::ValueId w2 = g.node(ir::OpKind::Where, "else_per_channel", {full, a, gap});
  const ir::ValueId w3 = g.node(ir::OpKind::Where, "cond_per_channel", {perChannel, other, a});
  const ir::ValueId w4 = g.node(ir::OpKind::Where, "then_scalar", {full, g.constant("s", {1}), a});
  const SessionResult res = simulate(g.finish({w1, w2, w3, w4}), testConfig(1024));
  EXPECT_EQ(hostLayers(res.program), 0);
  const auto func = [&](const char* name) {
    const std::vector<Vector> v = opsOf<Vector>(res.program, layerNamed(res.program, name));
    EXPECT_GT(v.size(), 1u) << name << ": chunked";
    return v.empty() ? VectorFunc::Clamp : v[0].func;
  };
  EXPECT_EQ(func("both_full"), VectorFunc::Select);
  EXPECT_EQ(func("else_per_channel"), VectorFunc::SelectNot);
  EXPECT_EQ(func("cond_per_channel"), VectorFunc::Select);
  EXPECT_EQ(func("then_scalar"), VectorFunc::Select);
  EXPECT_EQ(opsOf<Vector>(res.program, layerNamed(res.program, "cond_per_channel"))[0].cStep, 0);
}

TEST(SystolicVectorLowering, WhereOfTwoBroadcastOperandsStaysOnTheHostWithTheReason) {
  RawGraph g;
  const ir::ValueId in = g.input("x", {1, 8, 5, 5});
  const ir::ValueId gap = g.node(ir::OpKind::GlobalAveragePool, "gap", {in});
  const ir::ValueId full = g.node(ir::OpKind::Greater, "full", {in, gap});
  const ir::ValueId w = g.node(ir::OpKind::Where, "w", {full, gap, g.constant("s", {1})});
  const SessionResult res = simulate(g.finish(w));
  EXPECT_EQ(hostLayers(res.program), 1);
  EXPECT_NE(layerNamed(res.program, "w").note.find("neither x nor y is the full tensor"),
            std::string::npos);
}

TEST(SystolicVectorLowering, DivKeepsItsOperandOrder) {
  RawGraph g;
  const ir::ValueId x = g.input("x", {1, 20, 6, 6});
  const ir::ValueId gap = g.node(ir::OpKind::GlobalAveragePool, "gap", {x});
  const ir::ValueId q = g.node(ir::OpKind::Div, "q", {x, gap}); // per-channel divisor: B
  const SessionResult r = simulate(g.finish(g.node(ir::OpKind::Div, "back", {gap, q})));
  const std::vector<Vector> v = opsOf<Vector>(r.program, layerNamed(r.program, "q"));
  ASSERT_FALSE(v.empty());
  EXPECT_EQ(v[0].func, VectorFunc::Div);
  EXPECT_EQ(v[0].bStep, 0);
  // A per-channel dividend cannot be swapped into B: the host, with the reason.
  EXPECT_EQ(hostLayers(r.program), 1);
  EXPECT_NE(layerNamed(r.program, "back").note.find("Div's broadcast operand must be the second"),
            std::string::npos);
}

TEST(SystolicVectorLowering, ReductionsAverageOnThePoolingEngineOrSumOnTheArray) {
  // LayerNorm's mean over channels of [N, T, C]: each token's row lies in one partition.
  RawGraph g;
  const ir::ValueId x = g.input("x", {2, 40, 24});
  ir::AttrMap last;
  last.set("axes", Dims{-1});
  const ir::ValueId mean = g.node(ir::OpKind::ReduceMean, "mean", {x}, last);
  ir::AttrMap middle;
  middle.set("axes", Dims{1});
  const ir::ValueId sum = g.node(ir::OpKind::ReduceMean, "sum", {x}, middle);
  const SessionResult r =
      simulate(g.finish({g.node(ir::OpKind::ReduceMax, "across", {mean}, middle), sum}));
  const std::vector<Pool> p = opsOf<Pool>(r.program, layerNamed(r.program, "mean"));
  ASSERT_FALSE(p.empty());
  EXPECT_EQ(p[0].kind, Pool::Kind::Average);
  EXPECT_EQ(p[0].kernelW, 24);
  // A mean across partitions is a 1 x 1 convolution of ones on the PE array (bit-exact: the
  // session verifies every layer).
  EXPECT_EQ(layerNamed(r.program, "sum").unit, LayerUnit::PeArray);
  EXPECT_FALSE(opsOf<Matmul>(r.program, layerNamed(r.program, "sum")).empty());
  // A maximum across partitions stays on the host, with the reason.
  EXPECT_EQ(hostLayers(r.program), 1);
  EXPECT_NE(layerNamed(r.program, "across").note.find("maximum or minimum across SBUF partitions"),
            std::string::npos);
}

TEST(SystolicVectorLowering, LinearResizeIsAnInterpolatingPoolPerBand) {
  RawGraph g;
  const ir::ValueId x = g.input("x", {1, 20, 12, 12});
  const ir::ValueId scales =
      g.constant("scales", Tensor::fromVector<float>({4}, {1.0f, 1.0f, 2.0f, 1.5f}));
  ir::AttrMap linear;
  linear.set("mode", std::string("linear"));
  const SessionResult r = simulate(
      g.finish(g.node(ir::OpKind::Resize, "up", {x, ir::kNoValue, scales, ir::kNoValue}, linear)));
  EXPECT_EQ(hostLayers(r.program), 0);
  const std::vector<Pool> p = opsOf<Pool>(r.program, layerNamed(r.program, "up"));
  ASSERT_FALSE(p.empty());
  EXPECT_EQ(p[0].kind, Pool::Kind::Interpolate);
  EXPECT_EQ(p[0].tableRow0, p[0].outW); // the rows' taps follow the columns'
}

TEST(SystolicVectorLowering, BroadcastsThatDoNotFitStayOnTheHostWithTheirReason) {
  RawGraph g;
  const ir::ValueId x = g.input("x", {1, 4, 6, 6});
  const ir::ValueId row = g.node(ir::OpKind::Add, "row", {x, g.constant("w", {6, 1})});
  const ir::ValueId sub = g.node(ir::OpKind::Sub, "rsub", {g.constant("c", {1, 4, 1, 1}), row});
  const SessionResult r = simulate(g.finish(sub));
  EXPECT_EQ(hostLayers(r.program), 2);
  // x + w[6, 1] is a lookup table per row (quant): neither the channel axis nor the last one.
  EXPECT_EQ(layerNamed(r.program, "row").note,
            "lookup tables vary along axis 2; the table memory holds one per channel (axis 1)");
  EXPECT_EQ(layerNamed(r.program, "rsub").note,
            "broadcast 1x4x1x1 x 1x4x6x6 -> 1x4x6x6 does not fit the vector unit (each operand "
            "must be the full tensor, one value per channel, or a scalar); Sub's broadcast operand "
            "must be the second");
}

TEST(SystolicVectorLowering, LookupTablesPerChannelOrHost) {
  RawGraph g;
  const ir::ValueId x = g.input("x", {1, 20, 4, 4});
  const ir::ValueId perChannel =
      g.node(ir::OpKind::PRelu, "prelu_c", {x, g.constant("slope_c", {20, 1, 1})});
  const ir::ValueId perColumn =
      g.node(ir::OpKind::PRelu, "prelu_w", {perChannel, g.constant("slope_w", {4})});
  const SessionResult r = simulate(g.finish(perColumn));
  const Layer& c = layerNamed(r.program, "prelu_c");
  EXPECT_EQ(c.unit, LayerUnit::Vector);
  const std::vector<DmaLoad> loads = opsOf<DmaLoad>(r.program, c);
  std::vector<int64_t> tableParts;
  for (const DmaLoad& d : loads)
    if (d.space == OnChip::LookupTable)
      tableParts.push_back(d.partitionCount);
  EXPECT_EQ(tableParts, (std::vector<int64_t>{16, 4})); // one table per channel, per block
  // Tables along the last axis (a LayerNorm affine): that axis on the partitions, the tensor
  // read and written transposed (DMA inner step = its 4 columns).
  const Layer& w = layerNamed(r.program, "prelu_w");
  EXPECT_EQ(w.unit, LayerUnit::Vector);
  bool transposed = false;
  for (const DmaLoad& d : opsOf<DmaLoad>(r.program, w)) {
    if (d.space == OnChip::LookupTable)
      EXPECT_EQ(d.partitionCount, 4);
    else
      transposed = transposed || d.dram.innerStep == 4;
  }
  EXPECT_TRUE(transposed);
}

TEST(SystolicVectorLowering, ConcatCopiesOrRequantizesEachInput) {
  zoo::GraphBuilder b("concat", 9);
  const ir::ValueId x = b.input("x", {1, 5, 4, 6});
  const ir::ValueId same = b.concat("same", {x, b.relu("relu", x)}, 1); // scales equal x's
  b.output(b.concat("mixed", {same, b.tanh("tanh", x)}, 1), "out");
  ir::Graph g = b.finish();
  driver::prepareGraph(g);
  const SessionResult r = simulate(g);
  EXPECT_EQ(hostLayers(r.program), 0);
  const Layer& copy = layerNamed(r.program, "same");
  EXPECT_EQ(opsOf<DmaCopy>(r.program, copy).size(), 2u);
  EXPECT_TRUE(opsOf<Vector>(r.program, copy).empty());
  const std::vector<Vector> rq = opsOf<Vector>(r.program, layerNamed(r.program, "mixed"));
  ASSERT_FALSE(rq.empty());
  EXPECT_EQ(rq[0].func, VectorFunc::Requantize);
}

TEST(SystolicVectorLowering, NearestResizeByIntegerFactorsIsADmaPattern) {
  zoo::GraphBuilder b("resize", 11);
  const ir::ValueId x = b.input("x", {1, 3, 4, 5});
  const ir::ValueId up = b.resize("up", x, 8, 15, zoo::ResizeMode::Nearest);
  b.output(b.resize("odd", up, 12, 15, zoo::ResizeMode::Nearest), "out");
  ir::Graph g = b.finish();
  driver::prepareGraph(g);
  const SessionResult r = simulate(g);
  const Layer& l = layerNamed(r.program, "up");
  EXPECT_EQ(l.unit, LayerUnit::Vector);
  EXPECT_EQ(opsOf<DmaCopy>(r.program, l).size(), 2u * 3u);
  EXPECT_EQ(layerNamed(r.program, "odd").note,
            "nearest Resize is not an integer-factor replication of H and W (the DMA pattern the "
            "vector lowering uses)");
}

} // namespace vector_lowering_test
} // namespace nnaccel::arch::systolic
