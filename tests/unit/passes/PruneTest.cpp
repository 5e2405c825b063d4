/// \file
/// Tests of magnitude pruning: exact kept weights on hand-computed layers (largest |w| kept,
/// ties by index, rounding, already-zero weights, NaN), every layer kind, biases untouched,
/// shared weights copied, per-layer and default densities, determinism, the report's totals,
/// the pruned graph still running, and every error of the spec (global density, JSON syntax,
/// types, ranges, duplicate and unknown keys, unreadable files) naming the file and the key,
/// from magnitudePrune and from checkPruneSpec alone.
#include "nnaccel/passes/Prune.h"

#include "PassTestUtil.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <limits>

using namespace nnaccel;
using namespace nnaccel::ir;
using namespace nnaccel::ir::test;
using namespace nnaccel::passes;
using namespace nnaccel::passes::test;

namespace {

/// x[1,1,4,4] -> Conv 'conv' (weight 'w' [2,1,1,3] = \p w, bias 'b') -> y.
GraphBuilder convModel(const std::vector<float>& w) {
  GraphBuilder b(13);
  const ValueId x = b.input("x", {1, 1, 4, 4});
  const ValueId y = b.op(OpKind::Conv, "conv",
                         {x, b.floats("w", {2, 1, 1, 3}, w), b.floats("b", {2}, {1e-9f, 0.0f})});
  b.g.outputs = {y};
  inferShapes(b.g);
  return b;
}

/// The weight (input 1) of node \p name as floats.
std::vector<float> weightOf(const Graph& g, const std::string& name) {
  for (const Node& n : g.nodes()) {
    if (n.name == name) {
      const auto v = g.value(n.inputs[1]).constant->values<float>();
      return {v.begin(), v.end()};
    }
  }
  ADD_FAILURE() << "no node " << name;
  return {};
}

PruneSpec global(double d) {
  PruneSpec s;
  s.density = d;
  return s;
}

int64_t nonZeros(const std::vector<float>& v) {
  return std::count_if(v.begin(), v.end(), [](float x) { return x != 0.0f; });
}

/// A model with every layer kind: Conv 'c' -> Flatten -> Gemm 'g' -> MatMul 'm' (constant
/// weight) -> MatMul 'mm' (both operands activations) ; ConvTranspose 't' on the input.
GraphBuilder everyKindModel() {
  GraphBuilder b(13);
  const ValueId x = b.input("x", {1, 2, 3, 3});
  const ValueId c = b.op(OpKind::Conv, "c", {x, b.constant("cw", randomTensor({4, 2, 3, 3}, 1))},
                         attrs({{"pads", Dims{1, 1, 1, 1}}}));
  const ValueId f = b.op(OpKind::Flatten, "flat", {c});
  const ValueId gm = b.op(
      OpKind::Gemm, "g",
      {f, b.constant("gw", randomTensor({36, 10}, 2)), b.constant("gb", randomTensor({10}, 3))});
  const ValueId m = b.op(OpKind::MatMul, "m", {gm, b.constant("mw", randomTensor({10, 7}, 4))});
  const ValueId mt = b.op(OpKind::Transpose, "tr", {m});
  const ValueId mm = b.op(OpKind::MatMul, "mm", {mt, m});
  const ValueId t =
      b.op(OpKind::ConvTranspose, "t", {x, b.constant("tw", randomTensor({2, 3, 2, 2}, 5))},
           attrs({{"strides", Dims{2, 2}}}));
  b.g.outputs = {mm, t};
  inferShapes(b.g);
  return b;
}

/// What \p f throws: kind and message.
std::pair<std::optional<ErrorKind>, std::string> thrown(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return {e.kind(), e.what()};
  }
  return {std::nullopt, "<no error>"};
}

void expectUsage(const std::function<void()>& f, const std::string& message) {
  const auto [kind, what] = thrown(f);
  EXPECT_EQ(kind, ErrorKind::Usage) << what;
  EXPECT_EQ(what, message);
}

} // namespace

// --- which weights are kept ---------------------------------------------------------------------

TEST(MagnitudePrune, KeepsTheLargestMagnitudes) {
  GraphBuilder b = convModel({0.5f, -3.0f, 1.0f, 0.0f, 2.0f, -0.5f});
  const PruneReport r = magnitudePrune(b.g, global(0.5));
  // 6 weights at density 0.5: 3 remain, the largest |w|: -3, 2, 1.
  EXPECT_EQ(weightOf(b.g, "conv"), (std::vector<float>{0.0f, -3.0f, 1.0f, 0.0f, 2.0f, 0.0f}));
  ASSERT_EQ(r.layers.size(), 1u);
  const LayerPruneResult& l = r.layers[0];
  EXPECT_EQ(l.name, "conv");
  EXPECT_EQ(l.op, OpKind::Conv);
  EXPECT_EQ(l.weights, 6);
  EXPECT_EQ(l.nonZerosBefore, 5);
  EXPECT_EQ(l.kept, 3);
  EXPECT_EQ(l.targetDensity, 0.5);
  EXPECT_DOUBLE_EQ(l.densityBefore, 5.0 / 6.0);
  EXPECT_DOUBLE_EQ(l.densityAfter, 0.5);
  EXPECT_EQ(r.totalWeights(), 6);
  EXPECT_EQ(r.totalNonZerosBefore(), 5);
  EXPECT_EQ(r.totalKept(), 3);
  EXPECT_DOUBLE_EQ(r.densityAfter(), 0.5);
  EXPECT_DOUBLE_EQ(r.densityBefore(), 5.0 / 6.0);
}

TEST(MagnitudePrune, TiesKeepTheLowerIndex) {
  GraphBuilder b = convModel({1.0f, -1.0f, 1.0f, -1.0f, 1.0f, -1.0f});
  magnitudePrune(b.g, global(0.5));
  EXPECT_EQ(weightOf(b.g, "conv"), (std::vector<float>{1.0f, -1.0f, 1.0f, 0.0f, 0.0f, 0.0f}));
  GraphBuilder c = convModel({0.25f, 2.0f, -0.25f, 0.25f, -2.0f, 0.5f});
  magnitudePrune(c.g, global(0.5));
  EXPECT_EQ(weightOf(c.g, "conv"), (std::vector<float>{0.0f, 2.0f, 0.0f, 0.0f, -2.0f, 0.5f}));
}

TEST(MagnitudePrune, RoundsDensityTimesCountHalfAwayFromZero) {
  const std::vector<float> w = {6, 5, 4, 3, 2, 1};
  // density x 6 = 2.5 -> 3, 0.41 x 6 = 2.46 -> 2, 0.08 x 6 = 0.48 -> 0, 1 -> 6.
  const std::pair<double, int64_t> cases[] = {{2.5 / 6.0, 3}, {0.41, 2}, {0.08, 0}, {1.0, 6}};
  for (const auto& [density, kept] : cases) {
    GraphBuilder b = convModel(w);
    const PruneReport r = magnitudePrune(b.g, global(density));
    EXPECT_EQ(r.layers[0].kept, kept) << density;
    EXPECT_EQ(nonZeros(weightOf(b.g, "conv")), kept) << density;
  }
}

TEST(MagnitudePrune, AlreadyZeroWeightsCountAsPruned) {
  GraphBuilder b = convModel({0.0f, 0.0f, 3.0f, 0.0f, -1.0f, 0.0f});
  const auto before = b.g.value(b.g.node(0).inputs[1]).constant;
  const PruneReport r = magnitudePrune(b.g, global(0.5)); // target 3 > 2 non-zeros
  EXPECT_EQ(r.layers[0].nonZerosBefore, 2);
  EXPECT_EQ(r.layers[0].kept, 2);
  EXPECT_DOUBLE_EQ(r.layers[0].densityAfter, 2.0 / 6.0);
  // Nothing to prune: the constant is not even replaced.
  EXPECT_EQ(b.g.value(b.g.node(0).inputs[1]).constant, before);
  // Negative zero is zero too.
  GraphBuilder c = convModel({-0.0f, 1.0f, 2.0f, 3.0f, 4.0f, 5.0f});
  EXPECT_EQ(magnitudePrune(c.g, global(1.0)).layers[0].nonZerosBefore, 5);
}

TEST(MagnitudePrune, NanCountsAsTheLargestMagnitude) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  GraphBuilder b = convModel({1.0f, nan, 5.0f, 2.0f, -7.0f, 3.0f});
  magnitudePrune(b.g, global(2.0 / 6.0));
  const std::vector<float> w = weightOf(b.g, "conv");
  EXPECT_TRUE(std::isnan(w[1]));
  EXPECT_EQ(w[4], -7.0f);
  EXPECT_EQ(nonZeros(w), 2);
}

TEST(MagnitudePrune, BiasesAreNeverPruned) {
  GraphBuilder b = convModel({6, 5, 4, 3, 2, 1});
  magnitudePrune(b.g, global(0.2));
  const auto bias = b.g.value(b.g.node(0).inputs[2]).constant->values<float>();
  EXPECT_EQ(std::vector<float>(bias.begin(), bias.end()), (std::vector<float>{1e-9f, 0.0f}));
  EXPECT_EQ(b.g.value(b.g.node(0).inputs[2]).name, "b");
}

TEST(MagnitudePrune, EveryLayerKindAndOnlyConstantWeights) {
  GraphBuilder b = everyKindModel();
  const Tensor input = randomTensor({1, 2, 3, 3}, 7);
  Graph dense = b.g;
  const PruneReport r = magnitudePrune(b.g, global(0.3));
  std::vector<std::string> names;
  for (const LayerPruneResult& l : r.layers) {
    names.push_back(l.name);
    EXPECT_EQ(l.kept, std::llround(0.3 * static_cast<double>(l.weights))) << l.name;
    EXPECT_EQ(nonZeros(weightOf(b.g, l.name)), l.kept) << l.name;
  }
  // 'mm' multiplies two activations: not a layer with weights.
  EXPECT_EQ(names, (std::vector<std::string>{"c", "g", "m", "t"}));
  EXPECT_EQ(r.layers[0].weights, 72);
  EXPECT_EQ(r.layers[1].op, OpKind::Gemm);
  EXPECT_EQ(r.layers[2].op, OpKind::MatMul);
  EXPECT_EQ(r.layers[3].op, OpKind::ConvTranspose);
  EXPECT_EQ(r.totalWeights(), 72 + 360 + 70 + 24);
  // The Gemm bias is untouched; the pruned graph is valid and runs.
  EXPECT_EQ(*b.g.value(*b.g.findValue("gb")).constant, randomTensor({10}, 3));
  const std::vector<Tensor> got = runGraph(b.g, {input});
  const std::vector<Tensor> ref = runGraph(dense, {input});
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].shape(), ref[0].shape());
  EXPECT_EQ(got[1].shape(), ref[1].shape());
  EXPECT_GT(maxAbsDiff(got[1], ref[1]), 0.0f); // pruning changed the function
}

TEST(MagnitudePrune, UnlistedLayersStayUnchangedWithoutADefault) {
  GraphBuilder b = everyKindModel();
  const Graph before = b.g;
  PruneSpec s;
  s.perLayer = {{"g", 0.1}, {"t", 0.5}};
  const PruneReport r = magnitudePrune(b.g, s);
  ASSERT_EQ(r.layers.size(), 4u);
  EXPECT_FALSE(r.layers[0].targetDensity);
  EXPECT_EQ(r.layers[0].kept, 72);
  EXPECT_EQ(weightOf(b.g, "c"), weightOf(before, "c"));
  EXPECT_EQ(r.layers[1].targetDensity, 0.1);
  EXPECT_EQ(r.layers[1].kept, 36);
  EXPECT_FALSE(r.layers[2].targetDensity);
  EXPECT_EQ(r.layers[3].kept, 12);
  EXPECT_EQ(nonZeros(weightOf(b.g, "t")), 12);
}

TEST(MagnitudePrune, PerLayerDensitiesOverrideTheDefault) {
  GraphBuilder b = everyKindModel();
  const PruneSpec s =
      parsePruneSpecJson(R"({"default": 0.5, "c": 0.25, "m": 1})", "densities.json");
  EXPECT_EQ(s.density, 0.5);
  EXPECT_EQ(s.source, "densities.json");
  EXPECT_EQ(s.perLayer, (std::map<std::string, double>{{"c", 0.25}, {"m", 1.0}}));
  const PruneReport r = magnitudePrune(b.g, s);
  EXPECT_EQ(r.layers[0].kept, 18);  // c: 72 x 0.25
  EXPECT_EQ(r.layers[1].kept, 180); // g: default
  EXPECT_EQ(r.layers[2].kept, 70);  // m: 1
  EXPECT_EQ(r.layers[3].kept, 12);  // t: default
}

TEST(MagnitudePrune, SharedWeightsAreCopiedNotChanged) {
  GraphBuilder b(13);
  const ValueId x = b.input("x", {1, 2, 2, 2});
  const ValueId w = b.floats("w", {1, 2, 1, 1}, {1.0f, 2.0f});
  const ValueId y1 = b.op(OpKind::Conv, "a", {x, w});
  const ValueId y2 = b.op(OpKind::Conv, "b", {x, w});
  b.g.outputs = {y1, y2};
  inferShapes(b.g);
  PruneSpec s;
  s.perLayer = {{"a", 0.5}};
  magnitudePrune(b.g, s);
  EXPECT_EQ(weightOf(b.g, "a"), (std::vector<float>{0.0f, 2.0f}));
  EXPECT_EQ(weightOf(b.g, "b"), (std::vector<float>{1.0f, 2.0f}));
  EXPECT_EQ(b.g.value(b.g.node(0).inputs[1]).name, "w_pruned");
  EXPECT_EQ(b.g.value(b.g.node(1).inputs[1]).name, "w");
  // A weight with one user is replaced in place, keeping its name.
  GraphBuilder c = convModel({1, 2, 3, 4, 5, 6});
  magnitudePrune(c.g, global(0.5));
  EXPECT_EQ(c.g.value(c.g.node(0).inputs[1]).name, "w");
}

TEST(MagnitudePrune, NamelessLayersUseTheirOutputName) {
  GraphBuilder b = convModel({1, 2, 3, 4, 5, 6});
  b.g.node(0).name = "";
  EXPECT_EQ(layerName(b.g, 0), "conv"); // the output value's name
  PruneSpec s;
  s.perLayer = {{"conv", 0.5}};
  EXPECT_EQ(magnitudePrune(b.g, s).layers[0].kept, 3);
}

TEST(MagnitudePrune, IsDeterministic) {
  GraphBuilder b = everyKindModel();
  Graph a = b.g;
  Graph c = b.g;
  magnitudePrune(a, global(0.37));
  magnitudePrune(c, global(0.37));
  for (const char* name : {"c", "g", "m", "t"}) {
    EXPECT_EQ(weightOf(a, name), weightOf(c, name)) << name;
  }
}

// --- errors -------------------------------------------------------------------------------------

TEST(MagnitudePruneErrors, GlobalDensityOutOfRange) {
  for (const double d : {0.0, -0.5, 1.5, std::numeric_limits<double>::quiet_NaN(),
                         std::numeric_limits<double>::infinity()}) {
    GraphBuilder b = convModel({1, 2, 3, 4, 5, 6});
    const auto [kind, what] = thrown([&] { magnitudePrune(b.g, global(d)); });
    EXPECT_EQ(kind, ErrorKind::Usage);
    EXPECT_EQ(what.rfind("'density': density must be in (0, 1], got ", 0), 0u) << what;
    EXPECT_EQ(weightOf(b.g, "conv"), (std::vector<float>{1, 2, 3, 4, 5, 6}));
  }
  GraphBuilder b = convModel({1, 2, 3, 4, 5, 6});
  expectUsage([&] { magnitudePrune(b.g, global(1.5)); },
              "'density': density must be in (0, 1], got 1.5");
}

TEST(MagnitudePruneErrors, PerLayerDensityOutOfRangeInCode) {
  GraphBuilder b = convModel({1, 2, 3, 4, 5, 6});
  PruneSpec s;
  s.perLayer = {{"conv", 0.0}};
  s.source = "d.json";
  expectUsage([&] { magnitudePrune(b.g, s); }, "d.json: 'conv': density must be in (0, 1], got 0");
}

TEST(MagnitudePruneErrors, UnknownLayerNamesTheFileAndKeyAndChangesNothing) {
  GraphBuilder b = everyKindModel();
  const Graph before = b.g;
  const PruneSpec s = parsePruneSpecJson(R"({"default": 0.5, "conv9": 0.5})", "d.json");
  expectUsage([&] { magnitudePrune(b.g, s); },
              "d.json: 'conv9': no layer of that name in the model (prunable layers: c, g, m, t)");
  for (const char* name : {"c", "g", "m", "t"}) {
    EXPECT_EQ(weightOf(b.g, name), weightOf(before, name)) << name;
  }
  expectUsage(
      [&] { magnitudePrune(b.g, parsePruneSpecJson(R"({"flat": 0.5})", "d.json")); },
      "d.json: 'flat': names a node of type Flatten, not a prunable layer (Conv, ConvTranspose, "
      "Gemm or MatMul with a constant f32 weight; prunable layers: c, g, m, t)");
  expectUsage(
      [&] { magnitudePrune(b.g, parsePruneSpecJson(R"({"mm": 0.5})", "d.json")); },
      "d.json: 'mm': names a node of type MatMul, not a prunable layer (Conv, ConvTranspose, "
      "Gemm or MatMul with a constant f32 weight; prunable layers: c, g, m, t)");
}

TEST(MagnitudePruneErrors, CheckPruneSpecChecksWithoutPruning) {
  // The checks magnitudePrune makes first, on a const graph (sweep density checks its profile
  // once before its points): the same messages, and a good spec passes.
  const GraphBuilder b = everyKindModel();
  expectUsage([&] { checkPruneSpec(b.g, parsePruneSpecJson(R"({"conv9": 0.5})", "d.json")); },
              "d.json: 'conv9': no layer of that name in the model (prunable layers: c, g, m, t)");
  expectUsage([&] { checkPruneSpec(b.g, global(1.5)); },
              "'density': density must be in (0, 1], got 1.5");
  PruneSpec bad;
  bad.perLayer = {{"g", 0.0}};
  bad.source = "d.json";
  expectUsage([&] { checkPruneSpec(b.g, bad); }, "d.json: 'g': density must be in (0, 1], got 0");
  EXPECT_NO_THROW(
      checkPruneSpec(b.g, parsePruneSpecJson(R"({"c": 0.5, "t": 1, "default": 0.1})", "d.json")));
}

TEST(MagnitudePruneErrors, LongLayerListsAreCut) {
  GraphBuilder b(13);
  ValueId x = b.input("x", {1, 2});
  for (int i = 0; i < 12; ++i) {
    const std::string index = std::to_string(i);
    x = b.op(OpKind::MatMul, std::string("l").append(index),
             {x, b.constant(std::string("w").append(index), randomTensor({2, 2}, 1))});
  }
  b.g.outputs = {x};
  inferShapes(b.g);
  PruneSpec s;
  s.perLayer = {{"zz", 0.5}};
  expectUsage([&] { magnitudePrune(b.g, s); },
              "'zz': no layer of that name in the model (prunable layers: l0, l1, l2, l3, l4, l5, "
              "l6, l7, l8, l9, ... (12 in all))");
}

TEST(PruneSpecJson, Errors) {
  expectUsage([] { parsePruneSpecJson("{\"c\": 0.5,", "d.json"); },
              "d.json: invalid JSON: parse error at line 1, column 11: syntax error while parsing "
              "object key - unexpected end of input; expected string literal");
  expectUsage([] { parsePruneSpecJson("", "d.json"); },
              "d.json: invalid JSON: parse error at line 1, column 1: syntax error while parsing "
              "value - unexpected end of input; expected '[', '{', or a literal");
  expectUsage([] { parsePruneSpecJson("[0.5]", "d.json"); },
              "d.json: expected a JSON object {\"layer name\": density, ...}, got array");
  expectUsage([] { parsePruneSpecJson("0.5", "d.json"); },
              "d.json: expected a JSON object {\"layer name\": density, ...}, got number");
  expectUsage([] { parsePruneSpecJson(R"({"c": "0.5"})", "d.json"); },
              "d.json: 'c': expected a density (a number in (0, 1]), got string");
  expectUsage([] { parsePruneSpecJson(R"({"c": true})", "d.json"); },
              "d.json: 'c': expected a density (a number in (0, 1]), got boolean");
  expectUsage([] { parsePruneSpecJson(R"({"c": null})", "d.json"); },
              "d.json: 'c': expected a density (a number in (0, 1]), got null");
  expectUsage([] { parsePruneSpecJson(R"({"c": {"d": 1}})", "d.json"); },
              "d.json: 'c': expected a density (a number in (0, 1]), got object");
  expectUsage([] { parsePruneSpecJson(R"({"c": 1.5})", "d.json"); },
              "d.json: 'c': density must be in (0, 1], got 1.5");
  expectUsage([] { parsePruneSpecJson(R"({"c": 0})", "d.json"); },
              "d.json: 'c': density must be in (0, 1], got 0");
  expectUsage([] { parsePruneSpecJson(R"({"default": -1})", "d.json"); },
              "d.json: 'default': density must be in (0, 1], got -1");
  expectUsage([] { parsePruneSpecJson(R"({"c": 0.5, "g": 0.5, "c": 0.25})", "d.json"); },
              "d.json: 'c': written twice");
  // Keys of nested objects are not layer keys: a repeated one is not "written twice".
  expectUsage([] { parsePruneSpecJson(R"({"c": {"d": 1, "d": 2}})", "d.json"); },
              "d.json: 'c': expected a density (a number in (0, 1]), got object");
  EXPECT_EQ(parsePruneSpecJson("{}", "e.json").perLayer.size(), 0u);
  EXPECT_FALSE(parsePruneSpecJson("{}", "e.json").density);
  EXPECT_EQ(parsePruneSpecJson(R"({"a b": 1e-3})", "e.json").perLayer.at("a b"), 1e-3);
}

TEST(PruneSpecJson, ReadsFiles) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "nnaccel_prune_test";
  std::filesystem::create_directories(dir);
  const std::string good = (dir / "d.json").string();
  std::ofstream(good) << "{\"default\": 0.75, \"conv\": 0.5}\n";
  const PruneSpec s = readPruneSpecFile(good);
  EXPECT_EQ(s.density, 0.75);
  EXPECT_EQ(s.perLayer, (std::map<std::string, double>{{"conv", 0.5}}));
  EXPECT_EQ(s.source, good);
  const std::string bad = (dir / "bad.json").string();
  std::ofstream(bad) << "{\"conv\": 2}\n";
  expectUsage([&] { readPruneSpecFile(bad); }, bad + ": 'conv': density must be in (0, 1], got 2");
  const std::string missing = (dir / "missing.json").string();
  auto [kind, what] = thrown([&] { readPruneSpecFile(missing); });
  EXPECT_EQ(kind, ErrorKind::Io);
  EXPECT_EQ(what, missing + ": cannot open file (No such file or directory)");
  std::tie(kind, what) = thrown([&] { readPruneSpecFile(dir.string()); });
  EXPECT_EQ(kind, ErrorKind::Io);
  EXPECT_EQ(what, dir.string() + ": is a directory, not a JSON file");
  std::filesystem::remove_all(dir);
}
