// The shared element-wise lowering: every node kind it takes runs bit-exact against the int8
// reference executor, with the pass structure and traffic counts the engines' cycle models
// read, and the nodes it refuses say why.
#include "nnaccel/arch/common/Elementwise.h"

#include "../../quant/QuantTestUtil.h"
#include "nnaccel/quant/Int8Executor.h"

#include <gtest/gtest.h>
#include <random>

namespace nnaccel::arch::common {
namespace {

using ir::OpKind;
using quant::test::attrs;
using quant::test::finish;
using quant::test::GraphBuilder;
using quant::test::nodeNamed;
using quant::test::randomTensor;

/// Runs every lowerable node of \p g through lowerElementwise + runElementwise on the int8
/// executor's own input values and expects its exact output; returns the layers by node name.
std::map<std::string, ElementwiseLayer> expectExact(const ir::Graph& g) {
  const quant::QuantizedModel qm = quant::quantize(g, {});
  quant::Int8Executor ex(qm);
  ex.run(quant::makeCalibrationInputs(g, 1, 77)[0]);
  std::vector<Tensor> values(g.numValues());
  for (size_t v = 0; v < g.numValues(); ++v)
    if (!g.isConstant(static_cast<ir::ValueId>(v)))
      values[v] = ex.value(static_cast<ir::ValueId>(v)).data;
  std::map<std::string, ElementwiseLayer> layers;
  for (size_t i = 0; i < g.numNodes(); ++i) {
    const auto id = static_cast<ir::NodeId>(i);
    auto lowered = lowerElementwise(qm, id);
    if (auto* why = std::get_if<std::string>(&lowered)) {
      ADD_FAILURE() << g.node(id).name << ": " << *why;
      continue;
    }
    const auto& l = std::get<ElementwiseLayer>(lowered);
    EXPECT_EQ(runElementwise(l, qm, values), ex.value(l.output).data) << g.node(id).name;
    layers.emplace(g.node(id).name, l);
  }
  return layers;
}

TEST(Elementwise, BinaryOpsBroadcastWithZeroStrides) {
  std::mt19937_64 rng(5);
  GraphBuilder b;
  const auto x = b.input("x", {1, 4, 3, 5});
  const auto y = b.input("y", {1, 4, 3, 5});
  const auto gate = b.input("gate", {1, 4, 1, 1});
  const auto sum = b.op(OpKind::Add, "residual", {x, y});
  const auto scaled = b.op(OpKind::Mul, "se_scale", {sum, gate});
  const auto diff =
      b.op(OpKind::Sub, "row_minus", {b.constant("row", randomTensor({5}, rng)), scaled});
  const auto relu = b.op(OpKind::Relu, "relu", {diff});
  const ir::Graph g = finish(b, {relu});
  const auto layers = expectExact(g);
  const ElementwiseLayer& se = layers.at("se_scale");
  ASSERT_EQ(se.passes.size(), 1u);
  EXPECT_EQ(se.passes[0].b.strides, (Dims{0, 1, 0, 0}));
  EXPECT_EQ(se.elementOps(), 60);
  EXPECT_EQ(se.activationReadBytes(g), 60 + 4); // the gate is read once per channel
  EXPECT_EQ(layers.at("row_minus").constantBytes(g), 5);
  EXPECT_EQ(layers.at("row_minus").passes[0].a.strides, (Dims{0, 0, 0, 1}));
  EXPECT_EQ(layers.at("relu").passes[0].func, ElementwiseFunc::Clamp);
}

TEST(Elementwise, MinMaxOfTwoTensorsRescaleEachOperand) {
  GraphBuilder b;
  const auto x = b.input("x", {1, 4, 3, 5});
  const auto gate = b.input("gate", {1, 4, 1, 1});
  const auto hi = b.op(OpKind::Max, "hi", {x, gate});
  const auto lo = b.op(OpKind::Min, "lo", {gate, hi}); // the broadcast operand first
  const ir::Graph g = finish(b, {lo});
  const auto layers = expectExact(g);
  const ElementwisePass& p = layers.at("lo").passes.at(0);
  EXPECT_EQ(p.func, ElementwiseFunc::Min);
  EXPECT_EQ(p.a.strides, (Dims{0, 1, 0, 0}));
  EXPECT_EQ(layers.at("hi").passes.at(0).func, ElementwiseFunc::Max);
}

TEST(Elementwise, ComparisonsOfTwoTensorsGiveZeroOrOne) {
  GraphBuilder b;
  const auto x = b.input("x", {1, 4, 3, 5});
  const auto gate = b.input("gate", {1, 4, 1, 1});
  const auto gt = b.op(OpKind::Greater, "gt", {gate, x}); // the broadcast operand first
  const auto eq = b.op(OpKind::Equal, "eq", {x, b.op(OpKind::Relu, "relu", {x})});
  const ir::Graph g = finish(b, {gt, eq});
  const auto layers = expectExact(g);
  const ElementwisePass& p = layers.at("gt").passes.at(0);
  EXPECT_EQ(p.func, ElementwiseFunc::Compare);
  EXPECT_EQ(p.comparison, quant::Comparison::Greater);
  EXPECT_EQ(p.a.strides, (Dims{0, 1, 0, 0}));
  EXPECT_EQ(layers.at("eq").passes.at(0).comparison, quant::Comparison::Equal);
}

TEST(Elementwise, WhereOfAComparisonIsARequantizingPassThenAPredicatedOne) {
  // A thresholded mask (x where x > gate, else a constant) and a select between two tensors
  // broadcast from different shapes: y onto the whole output, then x where the 0/1 is set.
  GraphBuilder b;
  const auto x = b.input("x", {1, 4, 3, 5});
  const auto gate = b.input("gate", {1, 4, 1, 1});
  const auto row = b.input("row", {5});
  const auto above = b.op(OpKind::Greater, "above", {x, gate});
  const auto masked = b.op(OpKind::Where, "masked", {above, x, b.floats("zero", {0.0f})});
  const auto picked = b.op(OpKind::Where, "picked", {above, gate, row});
  const ir::Graph g = finish(b, {masked, picked});
  const auto layers = expectExact(g);
  const ElementwiseLayer& l = layers.at("picked");
  ASSERT_EQ(l.passes.size(), 2u);
  EXPECT_EQ(l.passes[0].func, ElementwiseFunc::Requantize);
  EXPECT_EQ(l.passes[0].a.strides, (Dims{0, 0, 0, 1})); // y: the row
  EXPECT_EQ(l.passes[1].func, ElementwiseFunc::Select);
  EXPECT_EQ(l.passes[1].b.strides, (Dims{0, 1, 0, 0})); // x: the gate
  EXPECT_EQ(l.elementOps(), 2 * 60);
  EXPECT_EQ(layers.at("masked").constantBytes(g), 1);
}

TEST(Elementwise, LinearResizeInterpolatesThroughTapTables) {
  GraphBuilder b;
  const auto x = b.input("x", {1, 3, 5, 6});
  const auto up = b.op(OpKind::Resize, "up",
                       {x, ir::kNoValue, b.floats("scales", {1, 1, 2, 1.5f}), ir::kNoValue},
                       attrs({{"mode", std::string("linear")}}));
  const ir::Graph g = finish(b, {up});
  const auto layers = expectExact(g);
  const ElementwiseLayer& l = layers.at("up");
  ASSERT_EQ(l.passes.size(), 1u);
  EXPECT_EQ(l.passes[0].func, ElementwiseFunc::Interpolate);
  EXPECT_EQ(l.elementOps(), 1 * 3 * 10 * 9 * 4); // four taps per output
  EXPECT_EQ(l.activationReadBytes(g), 90);       // every input element once
  EXPECT_EQ(l.interpolationTableBytes(), 4 * 3 * (1 + 3 + 10 + 9));
}

TEST(Elementwise, SoftmaxLinesRunOnePointPerLine) {
  GraphBuilder b;
  const auto x = b.input("x", {2, 4, 3, 5});
  const auto sm = b.op(OpKind::Softmax, "sm", {x}, attrs({{"axis", int64_t{1}}}));
  const ir::Graph g = finish(b, {sm});
  const auto layers = expectExact(g);
  const ElementwisePass& p = layers.at("sm").passes.at(0);
  EXPECT_EQ(p.func, ElementwiseFunc::Softmax);
  EXPECT_EQ(p.extents, (Dims{2, 15}));
  EXPECT_EQ(p.lineLength, 4);
  EXPECT_EQ(p.lineStride, 15);
  EXPECT_EQ(layers.at("sm").elementOps(), 3 * 120);
  EXPECT_EQ(layers.at("sm").activationReadBytes(g), 120);
}

TEST(Elementwise, ReductionsOverContiguousAxesReduceOneLinePerOutput) {
  // LayerNorm's mean over channels, and a channel-attention max over channels (CBAM).
  GraphBuilder b;
  const auto x = b.input("x", {1, 6, 4, 5});
  const auto mean = b.op(OpKind::ReduceMean, "mean", {x}, attrs({{"axes", Dims{-1}}}));
  const auto max = b.op(OpKind::ReduceMax, "max", {x}, attrs({{"axes", Dims{1}}}));
  const auto sum = b.op(OpKind::ReduceSum, "sum", {x, b.ints("axes", {1, 2})});
  const ir::Graph g = finish(b, {mean, max, sum});
  const auto layers = expectExact(g);
  const ElementwisePass& p = layers.at("max").passes.at(0);
  EXPECT_EQ(p.func, ElementwiseFunc::Reduce);
  EXPECT_EQ(p.reduction, quant::Reduction::Max);
  EXPECT_EQ(p.extents, (Dims{1, 20}));
  EXPECT_EQ(p.lineLength, 6);
  EXPECT_EQ(p.lineStride, 20);
  EXPECT_EQ(layers.at("max").elementOps(), 120);
  EXPECT_EQ(layers.at("max").activationReadBytes(g), 120);
  EXPECT_EQ(layers.at("mean").passes.at(0).lineStride, 1);
  EXPECT_EQ(layers.at("sum").passes.at(0).lineLength, 24);
}

TEST(Elementwise, DivOfTwoTensorsMultipliesByAReciprocal) {
  // LayerNorm's (x - mean) / sqrt(var + eps): the divisor one value per row.
  GraphBuilder b;
  const auto x = b.input("x", {1, 4, 3, 5});
  const auto d = b.input("d", {1, 4, 3, 1});
  const auto q = b.op(OpKind::Div, "q", {x, b.op(OpKind::Sigmoid, "pos", {d})});
  const ir::Graph g = finish(b, {q});
  const auto layers = expectExact(g);
  const ElementwisePass& p = layers.at("q").passes.at(0);
  EXPECT_EQ(p.func, ElementwiseFunc::Div);
  EXPECT_EQ(p.b.strides, (Dims{0, 3, 1, 0}));
}

TEST(Elementwise, LookupTablesFollowTheirAxis) {
  GraphBuilder b;
  const auto x = b.input("x", {1, 3, 2, 2});
  const auto pr =
      b.op(OpKind::PRelu, "prelu", {x, b.floats("slope", {3, 1, 1}, {0.1f, -1.0f, 3.0f})});
  const auto sig = b.op(OpKind::Sigmoid, "sigmoid", {pr});
  const ir::Graph g = finish(b, {sig});
  const auto layers = expectExact(g);
  EXPECT_EQ(layers.at("prelu").passes[0].tableAxis, 1);
  EXPECT_EQ(layers.at("prelu").tables.size(), 3u * 256u);
  EXPECT_EQ(layers.at("sigmoid").constantBytes(g), 256);
}

TEST(Elementwise, ConcatWritesEachInputIntoItsSlice) {
  GraphBuilder b;
  const auto x = b.input("x", {1, 2, 3, 3});
  const auto y = b.input("y", {1, 5, 3, 3});
  const auto y2 = b.op(OpKind::Sigmoid, "squash", {y}); // a different scale than x
  const auto cat = b.op(OpKind::Concat, "cat", {x, y2, x}, attrs({{"axis", int64_t{1}}}));
  const ir::Graph g = finish(b, {cat});
  const auto layers = expectExact(g);
  const ElementwiseLayer& l = layers.at("cat");
  ASSERT_EQ(l.passes.size(), 3u);
  EXPECT_EQ(l.passes[1].out.offset, 2 * 9);
  EXPECT_EQ(l.passes[2].out.offset, 7 * 9);
  EXPECT_EQ(l.elementOps(), 9 * 9);
}

TEST(Elementwise, DataMovementAsStridedCopies) {
  GraphBuilder b;
  const auto x = b.input("x", {1, 3, 4, 6});
  const auto up = b.op(OpKind::Resize, "up",
                       {x, ir::kNoValue, b.floats("scales", {4}, {1, 1, 2, 3}), ir::kNoValue},
                       attrs({{"mode", std::string("nearest")}}));
  const auto t =
      b.op(OpKind::Transpose, "t", {up}, attrs({{"perm", std::vector<int64_t>{0, 2, 3, 1}}}));
  const auto s = b.op(OpKind::Slice, "slice",
                      {t, b.ints("starts", {1, 2}), b.ints("ends", {7, 17}), b.ints("axes", {1, 2}),
                       b.ints("steps", {2, 5})});
  const auto p = b.op(OpKind::Pad, "pad", {s, b.ints("pads", {0, 1, 0, 2, 0, 0, 1, 0})});
  const ir::Graph g = finish(b, {p});
  const auto layers = expectExact(g);
  ASSERT_EQ(layers.at("up").passes.size(), 1u); // one pass, stride 0 along the repeats
  EXPECT_EQ(layers.at("up").passes[0].extents, (Dims{1, 3, 4, 2, 6, 3}));
  EXPECT_EQ(layers.at("pad").passes[0].func, ElementwiseFunc::Fill);
}

TEST(Elementwise, DepthToSpaceBorderPadsSubsamplingTileAndExpandAreStridedCopies) {
  // DepthToSpace in both orders (one 6-D copy); edge and reflect Pads (the interior as one run,
  // each border row alone, forward steps only); a nearest downscale by 2 and by 3 (one copy
  // from an offset); Tile and Expand. Before, each ran on the host.
  GraphBuilder b;
  const auto x = b.input("x", {1, 8, 6, 6});
  const auto dcr = b.op(OpKind::DepthToSpace, "dcr", {x}, attrs({{"blocksize", int64_t{2}}}));
  const auto crd = b.op(OpKind::DepthToSpace, "crd", {x},
                        attrs({{"blocksize", int64_t{2}}, {"mode", std::string("CRD")}}));
  const auto edge = b.op(OpKind::Pad, "edge", {x, b.ints("pe", {0, 0, 1, 2, 0, 0, 2, 1})},
                         attrs({{"mode", std::string("edge")}}));
  const auto reflect = b.op(OpKind::Pad, "reflect", {x, b.ints("pr", {0, 0, 2, 1, 0, 0, 1, 3})},
                            attrs({{"mode", std::string("reflect")}}));
  const auto half = b.op(OpKind::Resize, "half",
                         {x, ir::kNoValue, b.floats("s2", {4}, {1, 1, 0.5f, 0.5f}), ir::kNoValue},
                         attrs({{"mode", std::string("nearest")}}));
  const auto third =
      b.op(OpKind::Resize, "third",
           {x, ir::kNoValue, b.floats("s3", {4}, {1, 1, 1.0f / 3, 1.0f / 3}), ir::kNoValue},
           attrs({{"mode", std::string("nearest")}}));
  const auto pooled = b.input("v", {1, 8, 1, 1});
  const auto tiled = b.op(OpKind::Tile, "tile", {x, b.ints("reps", {1, 2, 1, 3})});
  const auto expanded = b.op(OpKind::Expand, "expand", {pooled, b.ints("shape", {2, 8, 3, 4})});
  const ir::Graph g = finish(b, {dcr, crd, edge, reflect, half, third, tiled, expanded});
  const auto layers = expectExact(g);
  EXPECT_EQ(layers.at("dcr").passes.size(), 1u);
  EXPECT_EQ(layers.at("dcr").passes[0].extents, (Dims{1, 2, 6, 2, 6, 2}));
  // Edge: one run per border (step 0) and the interior, 3 along H times 3 along W. Reflect: each
  // border position alone, 1 + 2 + 1 along H (before 2, after 1) times 1 + 1 + 3 along W.
  EXPECT_EQ(layers.at("edge").passes.size(), 3u * 3u);
  EXPECT_EQ(layers.at("reflect").passes.size(), 4u * 5u);
  for (const auto& [name, l] : layers)
    for (const ElementwisePass& p : l.passes)
      for (int64_t stride : p.a.strides)
        EXPECT_GE(stride, 0) << name; // DMA patterns step forward
  EXPECT_EQ(layers.at("half").passes.size(), 1u);
  // Tile and Expand read with stride 0 along what they repeat.
  EXPECT_EQ(layers.at("tile").passes[0].extents, (Dims{1, 1, 2, 8, 1, 6, 3, 6}));
  EXPECT_EQ(layers.at("expand").passes[0].a.strides, (Dims{0, 1, 0, 0}));
}

TEST(Elementwise, RefusesWhatStridesCannotExpress) {
  GraphBuilder b;
  const auto x = b.input("x", {1, 2, 3, 3});
  const auto up = b.op(OpKind::Resize, "up_1_5",
                       {x, ir::kNoValue, b.floats("scales", {4}, {1, 1, 1.5f, 1.5f}), ir::kNoValue},
                       attrs({{"mode", std::string("nearest")}}));
  // A reflection wider than its axis wraps around (period 2 * (dim - 1)).
  const auto wrap = b.op(OpKind::Pad, "wrap", {x, b.ints("pads", {0, 0, 0, 3, 0, 0, 0, 0})},
                         attrs({{"mode", std::string("reflect")}}));
  // Reflecting 70 rows before H and W would need 71 x 71 copies: refused, not lowered.
  const auto big = b.input("big", {1, 1, 80, 80});
  const auto wide = b.op(OpKind::Pad, "wide", {big, b.ints("pw", {0, 0, 70, 70, 0, 0, 0, 0})},
                         attrs({{"mode", std::string("reflect")}}));
  const ir::Graph g = finish(b, {up, wrap, wide});
  const quant::QuantizedModel qm = quant::quantize(g, {});
  auto why = [&](const char* name) {
    auto r = lowerElementwise(qm, nodeNamed(g, name));
    return std::holds_alternative<std::string>(r) ? std::get<std::string>(r) : std::string();
  };
  EXPECT_NE(why("up_1_5").find("neither an integer-factor repeat nor"), std::string::npos);
  EXPECT_NE(why("up_1_5").find("no gather table"), std::string::npos);
  EXPECT_EQ(why("wrap"), "a reflect Pad as wide as its axis (the reflection wraps)");
  EXPECT_EQ(why("wide"), "a reflect Pad needing more than 4096 strided copies (one per reflected "
                         "border position and axis combination)");
  EXPECT_EQ(elementwiseFuncName(ElementwiseFunc::Requantize), "requantize");
  EXPECT_EQ(elementwiseArity(ElementwiseFunc::Fill), 0);
}

} // namespace
} // namespace nnaccel::arch::common
