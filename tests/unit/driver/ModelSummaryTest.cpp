// Tests for driver::summarizeModel / countParameters: MACs, parameter counts and windows on a
// hand-built graph whose numbers are computed by hand in the comments.
#include "nnaccel/driver/ModelSummary.h"

#include "nnaccel/ir/ShapeInference.h"

#include <gtest/gtest.h>

using namespace nnaccel;
using namespace nnaccel::ir;

namespace {

ValueId addNode(Graph& g, OpKind op, const std::string& name, std::vector<ValueId> inputs,
                AttrMap attrs = {}) {
  Node n;
  n.op = op;
  n.name = name;
  n.inputs = std::move(inputs);
  const ValueId out = g.addValue(name + "_out", DType::F32);
  n.outputs = {out};
  n.attrs = std::move(attrs);
  g.addNode(std::move(n));
  return out;
}

Tensor filled(Dims shape, float v) {
  Tensor t(DType::F32, std::move(shape));
  for (float& x : t.values<float>()) {
    x = v;
  }
  return t;
}

/// x[1,3,8,8] -> Conv(4 filters 3x3, stride 2, pad 1, bias) -> Relu -> MaxPool(2, stride 2)
/// -> Flatten -> Gemm(10 outputs, transB) -> y[1,10].
Graph smallCnn() {
  Graph g;
  g.name = "small";
  ValueId x = g.addValue("x", DType::F32, {1, 3, 8, 8});
  g.inputs = {x};
  AttrMap convAttrs;
  convAttrs.set("kernel_shape", std::vector<int64_t>{3, 3});
  convAttrs.set("strides", std::vector<int64_t>{2, 2});
  convAttrs.set("pads", std::vector<int64_t>{1, 1, 1, 1});
  ValueId w = g.addConstant("w", filled({4, 3, 3, 3}, 0.5f));
  ValueId b = g.addConstant("b", filled({4}, 0.0f));
  ValueId conv = addNode(g, OpKind::Conv, "conv", {x, w, b}, convAttrs);
  ValueId relu = addNode(g, OpKind::Relu, "relu", {conv});
  AttrMap poolAttrs;
  poolAttrs.set("kernel_shape", std::vector<int64_t>{2, 2});
  poolAttrs.set("strides", std::vector<int64_t>{2, 2});
  ValueId pool = addNode(g, OpKind::MaxPool, "pool", {relu}, poolAttrs);
  ValueId flat = addNode(g, OpKind::Flatten, "flatten", {pool});
  AttrMap gemmAttrs;
  gemmAttrs.set("transB", int64_t{1});
  ValueId fw = g.addConstant("fc_w", filled({10, 16}, 0.25f));
  ValueId fb = g.addConstant("fc_b", filled({10}, 0.0f));
  ValueId y = addNode(g, OpKind::Gemm, "fc", {flat, fw, fb}, gemmAttrs);
  g.outputs = {y};
  inferShapes(g);
  return g;
}

} // namespace

TEST(ModelSummary, MacsParamsAndWindowsOfASmallCnn) {
  const Graph g = smallCnn();
  const driver::ModelSummary s = driver::summarizeModel(g);
  ASSERT_EQ(s.layers.size(), 5u);

  const driver::LayerSummary& conv = s.layers[0];
  EXPECT_EQ(conv.name, "conv");
  EXPECT_EQ(conv.op, OpKind::Conv);
  ASSERT_EQ(conv.inputShapes.size(), 1u); // weight and bias are constants, not inputs
  EXPECT_EQ(conv.inputShapes[0], (Dims{1, 3, 8, 8}));
  ASSERT_EQ(conv.outputShapes.size(), 1u);
  EXPECT_EQ(conv.outputShapes[0], (Dims{1, 4, 4, 4})); // (8 + 2 - 3) / 2 + 1 = 4
  // 64 output elements x 27 taps each.
  EXPECT_EQ(conv.macs, 1728);
  EXPECT_EQ(conv.params, 4 * 27 + 4);
  ASSERT_TRUE(conv.window.has_value());
  EXPECT_EQ(conv.window->kernel, (Dims{3, 3}));
  EXPECT_EQ(conv.window->strides, (Dims{2, 2}));
  EXPECT_EQ(conv.window->padsBegin, (Dims{1, 1}));
  EXPECT_EQ(conv.window->padsEnd, (Dims{1, 1}));
  EXPECT_EQ(conv.window->dilations, (Dims{1, 1}));
  EXPECT_EQ(conv.window->group, 1);
  EXPECT_TRUE(conv.window->hasGroup);

  const driver::LayerSummary& relu = s.layers[1];
  EXPECT_FALSE(relu.window.has_value());
  EXPECT_EQ(relu.macs, 0);
  EXPECT_EQ(relu.params, 0);

  const driver::LayerSummary& pool = s.layers[2];
  ASSERT_TRUE(pool.window.has_value());
  EXPECT_FALSE(pool.window->hasGroup);
  EXPECT_EQ(pool.window->kernel, (Dims{2, 2}));
  EXPECT_EQ(pool.outputShapes[0], (Dims{1, 4, 2, 2}));
  EXPECT_EQ(pool.macs, 0);

  const driver::LayerSummary& fc = s.layers[4];
  EXPECT_EQ(fc.outputShapes[0], (Dims{1, 10}));
  EXPECT_EQ(fc.macs, 1 * 16 * 10);
  EXPECT_EQ(fc.params, 160 + 10);

  EXPECT_EQ(s.totalMacs, 1728 + 160);
  EXPECT_EQ(s.totalParams, 112 + 170);
  EXPECT_EQ(driver::countParameters(g), 112 + 170);
}

TEST(ModelSummary, MatMulMacsAndConstantBiasAreCounted) {
  // a[2,3,5] x B[5,7] -> [2,3,7]: 42 outputs x 5 MACs; + bias[7].
  Graph g;
  ValueId a = g.addValue("a", DType::F32, {2, 3, 5});
  g.inputs = {a};
  ValueId bw = g.addConstant("bw", filled({5, 7}, 1.0f));
  ValueId mm = addNode(g, OpKind::MatMul, "mm", {a, bw});
  ValueId bias = g.addConstant("bias", filled({7}, 1.0f));
  ValueId y = addNode(g, OpKind::Add, "add", {mm, bias});
  g.outputs = {y};
  inferShapes(g);
  const driver::ModelSummary s = driver::summarizeModel(g);
  ASSERT_EQ(s.layers.size(), 2u);
  EXPECT_EQ(s.layers[0].macs, 42 * 5);
  EXPECT_EQ(s.layers[0].params, 35);
  EXPECT_EQ(s.layers[1].macs, 0);
  EXPECT_EQ(s.layers[1].params, 7);
  EXPECT_EQ(s.totalParams, 42);
}

TEST(ModelSummary, SharedWeightsCountOnceInTotals) {
  Graph g;
  ValueId x = g.addValue("x", DType::F32, {1, 2, 4, 4});
  g.inputs = {x};
  AttrMap attrs;
  attrs.set("kernel_shape", std::vector<int64_t>{1, 1});
  ValueId w = g.addConstant("w", filled({2, 2, 1, 1}, 1.0f));
  ValueId c1 = addNode(g, OpKind::Conv, "c1", {x, w}, attrs);
  ValueId c2 = addNode(g, OpKind::Conv, "c2", {c1, w}, attrs);
  g.outputs = {c2};
  inferShapes(g);
  const driver::ModelSummary s = driver::summarizeModel(g);
  EXPECT_EQ(s.layers[0].params, 4);
  EXPECT_EQ(s.layers[1].params, 4);
  EXPECT_EQ(s.totalParams, 4);
  EXPECT_EQ(driver::countParameters(g), 4);
  // 1x2x4x4 output, 2 taps per output element.
  EXPECT_EQ(s.layers[0].macs, 32 * 2);
}

TEST(ModelSummary, ConfigurationInputsAreNotWeights) {
  EXPECT_TRUE(driver::isWeightInput(OpKind::Conv, 1));
  EXPECT_TRUE(driver::isWeightInput(OpKind::Conv, 2));
  EXPECT_FALSE(driver::isWeightInput(OpKind::Conv, 0));
  EXPECT_TRUE(driver::isWeightInput(OpKind::BatchNormalization, 1));
  EXPECT_TRUE(driver::isWeightInput(OpKind::BatchNormalization, 2));
  EXPECT_FALSE(driver::isWeightInput(OpKind::BatchNormalization, 3)); // running mean
  EXPECT_FALSE(driver::isWeightInput(OpKind::BatchNormalization, 4)); // running var
  EXPECT_FALSE(driver::isWeightInput(OpKind::BatchNormalization, 0));
  EXPECT_FALSE(driver::isWeightInput(OpKind::Reshape, 1));
  EXPECT_FALSE(driver::isWeightInput(OpKind::Clip, 1));
  EXPECT_FALSE(driver::isWeightInput(OpKind::Resize, 2));
  EXPECT_TRUE(driver::isWeightInput(OpKind::PRelu, 1));
}

TEST(ModelSummary, ConvTransposeShowsOnnxPadsAndOutputPadding) {
  // x[1,2,3,3] -> ConvTranspose(4 outputs, 3x3, stride 2, pads (1,1,1,1), output_padding (1,1)):
  // out = 2 * (3 - 1) + 3 - 1 - 1 + 1 = 6 per axis. ir::ConvParams folds output_padding into
  // padsEnd (1 - 1 = 0); the summary reports the model's ONNX pads and output_padding.
  Graph g;
  ValueId x = g.addValue("x", DType::F32, {1, 2, 3, 3});
  g.inputs = {x};
  AttrMap attrs;
  attrs.set("kernel_shape", std::vector<int64_t>{3, 3});
  attrs.set("strides", std::vector<int64_t>{2, 2});
  attrs.set("pads", std::vector<int64_t>{1, 1, 1, 1});
  attrs.set("output_padding", std::vector<int64_t>{1, 1});
  ValueId w = g.addConstant("w", filled({2, 4, 3, 3}, 1.0f));
  ValueId y = addNode(g, OpKind::ConvTranspose, "up", {x, w}, attrs);
  g.outputs = {y};
  inferShapes(g);
  const driver::ModelSummary s = driver::summarizeModel(g);
  const driver::LayerSummary& up = s.layers[0];
  EXPECT_EQ(up.outputShapes[0], (Dims{1, 4, 6, 6}));
  ASSERT_TRUE(up.window.has_value());
  EXPECT_EQ(up.window->padsBegin, (Dims{1, 1}));
  EXPECT_EQ(up.window->padsEnd, (Dims{1, 1}));
  EXPECT_EQ(up.window->outputPadding, (Dims{1, 1}));
  // Every input element (18) times every output channel's 9 taps (4 * 9).
  EXPECT_EQ(up.macs, 18 * 36);
  EXPECT_EQ(up.params, 72);
  // A Conv has no output padding.
  EXPECT_TRUE(driver::summarizeModel(smallCnn()).layers[0].window->outputPadding.empty());
}
