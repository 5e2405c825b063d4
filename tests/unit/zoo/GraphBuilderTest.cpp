// Tests for GraphBuilder: every method emits the ONNX node a torch exporter would (op, name,
// attributes, initializer names and shapes), tracks the right output shape, and draws weights
// with the documented distributions from per-tensor streams.
#include "nnaccel/zoo/GraphBuilder.h"

#include "nnaccel/ir/ShapeInference.h"
#include "nnaccel/ir/Verifier.h"

#include <cmath>
#include <gtest/gtest.h>

using namespace nnaccel;
using namespace nnaccel::zoo;
using ir::ValueId;

namespace {

const Tensor& constantOf(const ir::Graph& g, ValueId v) {
  EXPECT_TRUE(g.isConstant(v)) << g.value(v).name;
  return *g.value(v).constant;
}

struct Moments {
  double mean, stddev, minValue, maxValue;
};

Moments moments(const Tensor& t) {
  double sum = 0, sumSq = 0, lo = INFINITY, hi = -INFINITY;
  for (float x : t.values<float>()) {
    sum += x;
    sumSq += double(x) * x;
    lo = std::min<double>(lo, x);
    hi = std::max<double>(hi, x);
  }
  const auto n = static_cast<double>(t.numElements());
  return {sum / n, std::sqrt(sumSq / n - (sum / n) * (sum / n)), lo, hi};
}

std::vector<int64_t> ints(const ir::Node& n, const std::string& key) {
  const auto* v = n.attrs.find<std::vector<int64_t>>(key);
  EXPECT_NE(v, nullptr) << n.name << " lacks " << key;
  return v ? *v : std::vector<int64_t>{};
}

} // namespace

TEST(GraphBuilder, ConvEmitsTorchStyleNodeAndWeights) {
  GraphBuilder b("t", 1);
  ValueId x = b.input("input", {1, 64, 10, 10});
  ValueId y = b.conv("layer1.0.conv1", x,
                     {.outChannels = 128, .kernel = 3, .stride = 2, .pad = 1, .group = 2});
  b.output(y, "output");
  EXPECT_EQ(b.shape(y), Dims({1, 128, 5, 5}));
  ir::Graph g = b.finish();
  EXPECT_EQ(g.name, "t");
  EXPECT_EQ(g.opsetVersion, 13);
  ASSERT_EQ(g.numNodes(), 1u);
  const ir::Node& n = g.node(0);
  EXPECT_EQ(n.op, ir::OpKind::Conv);
  EXPECT_EQ(n.name, "layer1.0.conv1");
  EXPECT_EQ(n.opset, 13);
  ASSERT_EQ(n.inputs.size(), 3u);
  EXPECT_EQ(g.value(n.inputs[1]).name, "layer1.0.conv1.weight");
  EXPECT_EQ(g.value(n.inputs[2]).name, "layer1.0.conv1.bias");
  EXPECT_EQ(constantOf(g, n.inputs[1]).shape(), Dims({128, 32, 3, 3}));
  EXPECT_EQ(constantOf(g, n.inputs[2]).shape(), Dims({128}));
  EXPECT_EQ(ints(n, "kernel_shape"), (std::vector<int64_t>{3, 3}));
  EXPECT_EQ(ints(n, "strides"), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(ints(n, "pads"), (std::vector<int64_t>{1, 1, 1, 1}));
  EXPECT_EQ(ints(n, "dilations"), (std::vector<int64_t>{1, 1}));
  EXPECT_EQ(n.attrs.getInt("group", 1), 2);
  // Output renamed; only the graph input and the initializers have shapes, as after import.
  EXPECT_EQ(g.value(n.outputs[0]).name, "output");
  EXPECT_EQ(g.outputs, std::vector<ValueId>{n.outputs[0]});
  EXPECT_FALSE(g.value(n.outputs[0]).shapeKnown);
  EXPECT_TRUE(g.value(g.inputs.at(0)).shapeKnown);
  EXPECT_EQ(g.value(g.inputs.at(0)).shape, Dims({1, 64, 10, 10}));
  // He init over fanIn = 32 * 9 = 288 (147,456 samples); bias bound 1/sqrt(288).
  const Moments w = moments(constantOf(g, n.inputs[1]));
  EXPECT_NEAR(w.mean, 0.0, 0.001);
  EXPECT_NEAR(w.stddev, std::sqrt(2.0 / 288.0), 0.001);
  const Moments bias = moments(constantOf(g, n.inputs[2]));
  EXPECT_GE(bias.minValue, -1.0 / std::sqrt(288.0));
  EXPECT_LE(bias.maxValue, 1.0 / std::sqrt(288.0));
  EXPECT_GT(bias.maxValue - bias.minValue, 0.05); // really spread over the range
}

TEST(GraphBuilder, ConvShapesDilatedDepthwiseAndBiasless) {
  GraphBuilder b("t", 1);
  ValueId x = b.input("input", {1, 32, 33, 33});
  ValueId dilated =
      b.conv("aspp", x, {.outChannels = 8, .kernel = 3, .pad = 18, .dilation = 18, .bias = false});
  EXPECT_EQ(b.shape(dilated), Dims({1, 8, 33, 33}));
  ValueId valid = b.conv("valid", x, {.outChannels = 8, .kernel = 3, .dilation = 2});
  EXPECT_EQ(b.shape(valid), Dims({1, 8, 29, 29}));
  ValueId dw =
      b.conv("dw", x, {.outChannels = 32, .kernel = 3, .stride = 2, .pad = 1, .group = 32});
  EXPECT_EQ(b.shape(dw), Dims({1, 32, 17, 17}));
  b.output(dw, "output");
  ir::Graph g = b.finish();
  EXPECT_EQ(g.node(0).inputs.size(), 2u); // no bias input
  EXPECT_EQ(ints(g.node(0), "dilations"), (std::vector<int64_t>{18, 18}));
  EXPECT_EQ(constantOf(g, g.node(2).inputs[1]).shape(), Dims({32, 1, 3, 3}));
}

TEST(GraphBuilder, ConvTransposeUsesEffectiveFanIn) {
  GraphBuilder b("t", 1);
  ValueId x = b.input("input", {1, 256, 4, 4});
  ValueId y = b.convTranspose(
      "main.3", x, {.outChannels = 128, .kernel = 4, .stride = 2, .pad = 1, .bias = false});
  EXPECT_EQ(b.shape(y), Dims({1, 128, 8, 8}));
  ValueId z = b.convTranspose(
      "up", y, {.outChannels = 4, .kernel = 3, .stride = 2, .pad = 1, .outputPadding = 1});
  EXPECT_EQ(b.shape(z), Dims({1, 4, 16, 16}));
  b.output(z, "output");
  ir::Graph g = b.finish();
  const ir::Node& n = g.node(0);
  EXPECT_EQ(n.op, ir::OpKind::ConvTranspose);
  EXPECT_EQ(n.inputs.size(), 2u);
  EXPECT_EQ(constantOf(g, n.inputs[1]).shape(), Dims({256, 128, 4, 4})); // [C, M/group, k, k]
  EXPECT_EQ(ints(n, "strides"), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(ints(n, "pads"), (std::vector<int64_t>{1, 1, 1, 1}));
  EXPECT_FALSE(n.attrs.has("output_padding"));
  EXPECT_EQ(ints(g.node(1), "output_padding"), (std::vector<int64_t>{1, 1}));
  EXPECT_EQ(g.node(1).inputs.size(), 3u);
  // Each output pixel sees 256 * 4*4 / (2*2) = 1024 taps on average.
  EXPECT_NEAR(moments(constantOf(g, n.inputs[1])).stddev, std::sqrt(2.0 / 1024.0), 0.0005);
}

TEST(GraphBuilder, BatchNormHasTorchParametersAndSaneRanges) {
  GraphBuilder b("t", 1);
  ValueId x = b.input("input", {1, 4096, 2, 2});
  ValueId y = b.batchNorm("layer1.0.bn2", x, 0.5f);
  EXPECT_EQ(b.shape(y), Dims({1, 4096, 2, 2}));
  b.output(y, "output");
  ir::Graph g = b.finish();
  const ir::Node& n = g.node(0);
  EXPECT_EQ(n.op, ir::OpKind::BatchNormalization);
  EXPECT_FLOAT_EQ(n.attrs.getFloat("epsilon", 0), 1e-5f);
  ASSERT_EQ(n.inputs.size(), 5u);
  const char* suffixes[] = {".weight", ".bias", ".running_mean", ".running_var"};
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(g.value(n.inputs[i + 1]).name, std::string("layer1.0.bn2") + suffixes[i]);
    EXPECT_EQ(constantOf(g, n.inputs[i + 1]).shape(), Dims({4096}));
  }
  const Moments gamma = moments(constantOf(g, n.inputs[1]));
  EXPECT_NEAR(gamma.mean, 0.5, 0.01);
  EXPECT_NEAR(gamma.stddev, 0.05, 0.005);
  EXPECT_GT(gamma.minValue, 0.0);
  EXPECT_NEAR(moments(constantOf(g, n.inputs[2])).stddev, 0.05, 0.005);
  EXPECT_NEAR(moments(constantOf(g, n.inputs[3])).mean, 0.0, 0.005);
  const Moments var = moments(constantOf(g, n.inputs[4]));
  EXPECT_GE(var.minValue, 0.8);
  EXPECT_LE(var.maxValue, 1.2);
}

TEST(GraphBuilder, GemmIsTorchLinear) {
  GraphBuilder b("t", 1);
  ValueId x = b.input("input", {1, 512});
  ValueId y = b.gemm("fc", x, 1000, true, 1.0f);
  EXPECT_EQ(b.shape(y), Dims({1, 1000}));
  b.output(y, "output");
  ir::Graph g = b.finish();
  const ir::Node& n = g.node(0);
  EXPECT_EQ(n.op, ir::OpKind::Gemm);
  EXPECT_EQ(n.attrs.getInt("transB", 0), 1);
  EXPECT_EQ(n.attrs.getInt("transA", 0), 0);
  EXPECT_FLOAT_EQ(n.attrs.getFloat("alpha", 0), 1.0f);
  EXPECT_FLOAT_EQ(n.attrs.getFloat("beta", 0), 1.0f);
  EXPECT_EQ(constantOf(g, n.inputs[1]).shape(), Dims({1000, 512}));
  EXPECT_EQ(constantOf(g, n.inputs[2]).shape(), Dims({1000}));
  EXPECT_NEAR(moments(constantOf(g, n.inputs[1])).stddev, std::sqrt(1.0 / 512.0), 0.0005);
}

TEST(GraphBuilder, Relu6IsClipWithConstantBounds) {
  GraphBuilder b("t", 1);
  ValueId x = b.input("input", {1, 8, 4, 4});
  ValueId y = b.relu6("features.0.2", x);
  b.output(y, "output");
  ir::Graph g = b.finish();
  const ir::Node& n = g.node(0);
  EXPECT_EQ(n.op, ir::OpKind::Clip);
  EXPECT_TRUE(n.attrs.empty()); // opset 11+: bounds are inputs, not attributes
  ASSERT_EQ(n.inputs.size(), 3u);
  EXPECT_EQ(constantOf(g, n.inputs[1]), Tensor::scalar(0.0f));
  EXPECT_EQ(constantOf(g, n.inputs[2]), Tensor::scalar(6.0f));
  EXPECT_EQ(g.value(n.inputs[1]).name, "features.0.2.min");
  EXPECT_EQ(g.value(n.inputs[2]).name, "features.0.2.max");
}

TEST(GraphBuilder, PoolsCarryOnnxAttributes) {
  GraphBuilder b("t", 1);
  ValueId x = b.input("input", {1, 64, 112, 112});
  ValueId m = b.maxPool("maxpool", x, {.kernel = 3, .stride = 2, .pad = 1});
  EXPECT_EQ(b.shape(m), Dims({1, 64, 56, 56}));
  ValueId a = b.avgPool("s2", m, {.kernel = 2, .stride = 2, .countIncludePad = true});
  EXPECT_EQ(b.shape(a), Dims({1, 64, 28, 28}));
  ValueId gap = b.globalAvgPool("avgpool", a);
  EXPECT_EQ(b.shape(gap), Dims({1, 64, 1, 1}));
  b.output(gap, "output");
  ir::Graph g = b.finish();
  EXPECT_EQ(g.node(0).op, ir::OpKind::MaxPool);
  EXPECT_EQ(ints(g.node(0), "kernel_shape"), (std::vector<int64_t>{3, 3}));
  EXPECT_EQ(ints(g.node(0), "pads"), (std::vector<int64_t>{1, 1, 1, 1}));
  EXPECT_EQ(g.node(0).attrs.getInt("ceil_mode", 1), 0);
  EXPECT_FALSE(g.node(0).attrs.has("count_include_pad"));
  EXPECT_EQ(g.node(1).op, ir::OpKind::AveragePool);
  EXPECT_EQ(g.node(1).attrs.getInt("count_include_pad", 0), 1);
  EXPECT_EQ(g.node(2).op, ir::OpKind::GlobalAveragePool);
  EXPECT_TRUE(g.node(2).attrs.empty());
}

TEST(GraphBuilder, CeilModePoolsRoundUpLikeCaffe) {
  // GoogLeNet's pool1: 112 -> 56 in ceil mode (floor: 55); the extra window starts at 110,
  // inside the input. On 5 with pad 1 (kernel 2, stride 2) the extra window would start at 6,
  // in the right padding, and is dropped (ONNX's and Caffe's rule): 3 in both modes.
  GraphBuilder b("t", 1);
  ValueId x = b.input("input", {1, 8, 112, 112});
  ValueId m = b.maxPool("pool1", x, {.kernel = 3, .stride = 2, .ceilMode = true});
  ValueId f = b.maxPool("floor", x, {.kernel = 3, .stride = 2});
  ValueId e = b.avgPool("exact", m, {.kernel = 2, .stride = 2, .ceilMode = true});
  ValueId p = b.maxPool("padded", b.maxPool("to5", x, {.kernel = 22, .stride = 22}),
                        {.kernel = 2, .stride = 2, .pad = 1, .ceilMode = true});
  ValueId n = b.lrn("norm1", m, 5);
  const std::vector<ValueId> values = {m, f, e, p, n};
  const std::vector<Dims> expected = {
      {1, 8, 56, 56}, {1, 8, 55, 55}, {1, 8, 28, 28}, {1, 8, 3, 3}, {1, 8, 56, 56}};
  for (size_t i = 0; i < values.size(); ++i) {
    EXPECT_EQ(b.shape(values[i]), expected[i]) << i;
  }
  b.output(
      b.concat("cat",
               {b.flatten("f1", e), b.flatten("f2", f), b.flatten("f3", p), b.flatten("f4", n)}, 1),
      "output");
  ir::Graph g = b.finish();
  EXPECT_EQ(g.node(0).attrs.getInt("ceil_mode", 0), 1);
  EXPECT_EQ(g.node(1).attrs.getInt("ceil_mode", 1), 0);
  const ir::Node& lrn = g.node(5);
  EXPECT_EQ(lrn.op, ir::OpKind::LRN);
  EXPECT_EQ(lrn.name, "norm1");
  EXPECT_EQ(lrn.attrs.getInt("size", 0), 5);
  EXPECT_EQ(lrn.attrs.getFloat("alpha", 0.0f), 1e-4f);
  EXPECT_EQ(lrn.attrs.getFloat("beta", 0.0f), 0.75f);
  EXPECT_EQ(lrn.attrs.getFloat("bias", 0.0f), 1.0f);
  ir::inferShapes(g);
  ir::verify(g);
  for (size_t i = 0; i < values.size(); ++i) {
    EXPECT_EQ(g.value(values[i]).shape, expected[i]) << g.value(values[i]).name;
  }
}

TEST(GraphBuilder, PlumbingOps) {
  GraphBuilder b("t", 1);
  ValueId x = b.input("input", {1, 8, 6, 6});
  ValueId r = b.relu("relu", x);
  ValueId s = b.add("add", r, x);
  ValueId c = b.concat("cat", {s, r, x}, 1);
  EXPECT_EQ(b.shape(c), Dims({1, 24, 6, 6}));
  ValueId f = b.flatten("flatten", c);
  EXPECT_EQ(b.shape(f), Dims({1, 864}));
  ValueId t = b.tanh("tanh", f);
  ValueId sg = b.sigmoid("sigmoid", t);
  ValueId sm = b.softmax("softmax", sg);
  EXPECT_EQ(b.shape(sm), Dims({1, 864}));
  b.output(sm, "output");
  ir::Graph g = b.finish();
  const ir::OpKind ops[] = {ir::OpKind::Relu,    ir::OpKind::Add,  ir::OpKind::Concat,
                            ir::OpKind::Flatten, ir::OpKind::Tanh, ir::OpKind::Sigmoid,
                            ir::OpKind::Softmax};
  ASSERT_EQ(g.numNodes(), std::size(ops));
  for (size_t i = 0; i < std::size(ops); ++i) {
    EXPECT_EQ(g.node(static_cast<ir::NodeId>(i)).op, ops[i]) << i;
  }
  EXPECT_EQ(g.node(2).attrs.getInt("axis", -1), 1);
  EXPECT_EQ(g.node(2).inputs.size(), 3u);
  EXPECT_EQ(g.node(3).attrs.getInt("axis", -1), 1);
  EXPECT_EQ(g.node(6).attrs.getInt("axis", 0), -1);
}

TEST(GraphBuilder, ResizeUsesSizesInputAtOpset13) {
  GraphBuilder b("t", 1);
  ValueId x = b.input("input", {1, 16, 1, 1});
  ValueId bilinear = b.resize("pool.resize", x, 33, 33, ResizeMode::Bilinear);
  EXPECT_EQ(b.shape(bilinear), Dims({1, 16, 33, 33}));
  ValueId nearest = b.resize("up", bilinear, 66, 99, ResizeMode::Nearest);
  EXPECT_EQ(b.shape(nearest), Dims({1, 16, 66, 99}));
  b.output(nearest, "output");
  ir::Graph g = b.finish();
  const ir::Node& n = g.node(0);
  EXPECT_EQ(n.op, ir::OpKind::Resize);
  ASSERT_EQ(n.inputs.size(), 4u);
  EXPECT_EQ(n.inputs[1], ir::kNoValue); // roi
  EXPECT_EQ(n.inputs[2], ir::kNoValue); // scales
  EXPECT_EQ(constantOf(g, n.inputs[3]), Tensor::fromVector<int64_t>({4}, {1, 16, 33, 33}));
  EXPECT_EQ(n.attrs.getString("mode", ""), "linear");
  EXPECT_EQ(n.attrs.getString("coordinate_transformation_mode", ""), "pytorch_half_pixel");
  const ir::Node& m = g.node(1);
  EXPECT_EQ(m.attrs.getString("mode", ""), "nearest");
  EXPECT_EQ(m.attrs.getString("coordinate_transformation_mode", ""), "asymmetric");
  EXPECT_EQ(m.attrs.getString("nearest_mode", ""), "floor");
}

TEST(GraphBuilder, RepeatedNamesGetSuffixesLikeExporters) {
  GraphBuilder b("t", 1);
  ValueId x = b.input("input", {1, 4, 4, 4});
  ValueId a = b.relu("layer1.0.relu", x);
  ValueId c = b.relu("layer1.0.relu", a);
  ValueId d = b.conv("input", c, {.outChannels = 4}); // clashes with the graph input's name
  b.output(d, "output");
  ir::Graph g = b.finish();
  EXPECT_EQ(g.node(0).name, "layer1.0.relu");
  EXPECT_EQ(g.node(1).name, "layer1.0.relu_1");
  EXPECT_EQ(g.value(c).name, "layer1.0.relu_1");
  EXPECT_EQ(g.node(2).name, "input_1");
  EXPECT_EQ(g.value(g.node(2).inputs[1]).name, "input_1.weight");
}

TEST(GraphBuilder, WeightsDependOnSeedAndNameOnly) {
  auto weightOf = [](uint64_t seed, bool extraLayerFirst) {
    GraphBuilder b("t", seed);
    ValueId x = b.input("input", {1, 3, 8, 8});
    if (extraLayerFirst) {
      x = b.conv("stem", x, {.outChannels = 3, .kernel = 3, .pad = 1});
    }
    ValueId y = b.conv("conv", x, {.outChannels = 8, .kernel = 3});
    b.output(y, "output");
    ir::Graph g = b.finish();
    return *g.value(*g.findValue("conv.weight")).constant;
  };
  EXPECT_EQ(weightOf(5, false), weightOf(5, false));
  EXPECT_EQ(weightOf(5, false), weightOf(5, true)); // other layers do not shift the stream
  EXPECT_FALSE(weightOf(5, false) == weightOf(6, false));
}

TEST(GraphBuilder, TrackedShapesAgreeWithShapeInference) {
  GraphBuilder b("t", 1);
  std::vector<ValueId> values = {b.input("input", {1, 6, 17, 15})};
  auto push = [&](ValueId v) {
    values.push_back(v);
    return v;
  };
  ValueId x = push(
      b.conv("c", values[0],
             {.outChannels = 12, .kernel = 3, .stride = 2, .pad = 2, .dilation = 2, .group = 3}));
  x = push(b.relu6("r6", push(b.batchNorm("bn", x))));
  ValueId t = push(b.convTranspose(
      "ct", x, {.outChannels = 4, .kernel = 3, .stride = 2, .pad = 1, .outputPadding = 1}));
  ValueId m = push(b.maxPool("mp", t, {.kernel = 3, .stride = 2, .pad = 1}));
  ValueId a = push(b.avgPool("ap", t, {.kernel = 3, .stride = 2, .pad = 1}));
  ValueId sum = push(b.add("sum", m, push(b.tanh("th", a))));
  ValueId up = push(b.resize("rs", push(b.globalAvgPool("gap", sum)), 9, 8, ResizeMode::Bilinear));
  ValueId near = push(b.resize("rn", sum, 16, 14, ResizeMode::Nearest));
  ValueId cat = push(b.concat("cat", {sum, up, push(b.sigmoid("sg", sum))}, 1));
  ValueId flat = push(b.flatten("fl", push(b.relu("re", cat))));
  ValueId out = push(b.softmax("sm", push(b.gemm("fc", flat, 10))));
  b.output(push(b.add("both", out, push(b.gemm("fc2", push(b.flatten("fl2", near)), 10)))),
           "output");
  std::vector<Dims> tracked;
  for (ValueId v : values) {
    tracked.push_back(b.shape(v));
  }
  EXPECT_EQ(tracked[1], Dims({1, 12, 9, 8}));
  EXPECT_EQ(b.shape(sum), Dims({1, 4, 9, 8}));
  ir::Graph g = b.finish();
  ir::inferShapes(g);
  ir::verify(g);
  for (size_t i = 0; i < values.size(); ++i) {
    EXPECT_TRUE(g.value(values[i]).shapeKnown) << g.value(values[i]).name;
    EXPECT_EQ(g.value(values[i]).shape, tracked[i]) << g.value(values[i]).name;
  }
}

TEST(GraphBuilderDeathTest, MisuseIsAnInternalError) {
  EXPECT_DEATH(
      {
        GraphBuilder b("t", 1);
        ValueId x = b.input("input", {1, 6, 4, 4});
        b.conv("bad", x, {.outChannels = 8, .group = 4});
      },
      "conv 'bad': group 4 does not divide 6 -> 8 channels");
  EXPECT_DEATH(
      {
        GraphBuilder b("t", 1);
        ValueId x = b.input("input", {1, 6, 4, 4});
        ValueId y = b.input("other", {1, 6, 2, 2});
        b.add("sum", x, y);
      },
      "add 'sum': 1x6x4x4 vs 1x6x2x2");
  EXPECT_DEATH(
      {
        GraphBuilder b("t", 1);
        b.input("input", {1, 6, 4, 4});
        b.finish();
      },
      "zoo graph 't' has no output");
}
