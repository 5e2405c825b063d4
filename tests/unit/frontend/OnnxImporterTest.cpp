// Tests for the ONNX importer (src/frontend/OnnxImporter.cpp): the IR built from small
// in-test ModelProtos and from real backend test-data models, and every rejection path with
// its exact message.
#include "../../support/TensorValues.h"
#include "OnnxModelBuilder.h"
#include "nnaccel/ir/ShapeInference.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <sys/mman.h>

using namespace nnaccel;
using namespace nnaccel::frontend;
using namespace nnaccel::frontend::testing;
using ir::OpKind;

namespace {

const ir::Value& valueNamed(const ir::Graph& g, const std::string& name) {
  std::optional<ir::ValueId> id = g.findValue(name);
  EXPECT_TRUE(id.has_value()) << "no value '" << name << "'";
  return g.value(id.value_or(0));
}

using nnaccel::test::floatValues;

/// x[1,3,8,8] -> Conv(W, B) -> Relu -> y, with W and B as initializers.
ModelBuilder convReluModel() {
  ModelBuilder b;
  b.input("x", {int64_t{1}, int64_t{3}, int64_t{8}, int64_t{8}});
  std::vector<float> w(4 * 3 * 3 * 3);
  for (size_t i = 0; i < w.size(); ++i) {
    w[i] = static_cast<float>(i) * 0.5f;
  }
  b.initializer(floatTensor("W", {4, 3, 3, 3}, w));
  b.initializer(floatTensor("B", {4}, {1, 2, 3, 4}));
  auto& conv = b.node("Conv", {"x", "W", "B"}, {"c"}, "conv1");
  attrInts(conv, "kernel_shape", {3, 3});
  attrInts(conv, "pads", {1, 1, 1, 1});
  attrInts(conv, "strides", {2, 2});
  attrInt(conv, "group", 1);
  b.node("Relu", {"c"}, {"y"});
  b.output("y");
  return b;
}

std::string writeTempFile(const std::string& name, const std::string& bytes) {
  const auto path = std::filesystem::path(::testing::TempDir()) / name;
  std::ofstream(path, std::ios::binary) << bytes;
  return path.string();
}

} // namespace

// --- what import builds ----------------------------------------------------------------------

TEST(OnnxImporter, ConvReluStructure) {
  ir::Graph g = convReluModel().import();
  EXPECT_EQ(g.name, "test_graph");
  EXPECT_EQ(g.sourcePath, "m.onnx");
  EXPECT_EQ(g.opsetVersion, 13);
  ASSERT_EQ(g.inputs.size(), 1u);
  EXPECT_EQ(g.value(g.inputs[0]).name, "x");
  EXPECT_EQ(g.value(g.inputs[0]).shape, (Dims{1, 3, 8, 8}));
  EXPECT_TRUE(g.value(g.inputs[0]).shapeKnown);
  EXPECT_EQ(g.value(g.inputs[0]).dtype, DType::F32);

  ASSERT_EQ(g.numNodes(), 2u);
  const ir::Node& conv = g.node(0);
  EXPECT_EQ(conv.op, OpKind::Conv);
  EXPECT_EQ(conv.name, "conv1");
  EXPECT_EQ(conv.opset, 13);
  EXPECT_EQ(conv.attrs.getInts("strides", {}), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(conv.attrs.getInts("pads", {}), (std::vector<int64_t>{1, 1, 1, 1}));
  EXPECT_EQ(conv.attrs.getInt("group", 0), 1);
  ASSERT_EQ(conv.inputs.size(), 3u);
  EXPECT_EQ(conv.inputs[0], g.inputs[0]);
  EXPECT_TRUE(g.isConstant(conv.inputs[1]));
  const Tensor& w = *g.value(conv.inputs[1]).constant;
  EXPECT_EQ(w.shape(), (Dims{4, 3, 3, 3}));
  EXPECT_EQ(w.values<float>()[0], 0.0f);
  EXPECT_EQ(w.values<float>()[107], 53.5f);
  EXPECT_EQ(floatValues(*g.value(conv.inputs[2]).constant), (std::vector<float>{1, 2, 3, 4}));

  const ir::Node& relu = g.node(1);
  EXPECT_EQ(relu.op, OpKind::Relu);
  EXPECT_EQ(relu.name, "Relu_1"); // invented: <OpType>_<index in the file>
  EXPECT_EQ(relu.inputs, conv.outputs);
  ASSERT_EQ(g.outputs.size(), 1u);
  EXPECT_EQ(g.outputs[0], relu.outputs[0]);
  EXPECT_EQ(g.value(g.outputs[0]).producer, 1);
  EXPECT_FALSE(g.value(g.outputs[0]).shapeKnown); // left to shape inference
}

TEST(OnnxImporter, AttributesOfEveryType) {
  ModelBuilder b;
  b.input("x", {int64_t{1}, int64_t{2}, int64_t{4}, int64_t{4}});
  b.initializer(floatTensor("scales", {4}, {1, 1, 2, 2}));
  auto& resize = b.node("Resize", {"x", "", "scales"}, {"y"}, "up");
  attrString(resize, "mode", "linear");
  attrFloat(resize, "cubic_coeff_a", -0.5f);
  attrInt(resize, "exclude_outside", 1);
  attrFloats(resize, "__weights", {0.25f, 0.75f}); // "__" names are free-form for the schema
  attrStrings(resize, "__tags", {"a", "bc"});
  attrTensor(resize, "__table", int64Tensor("", {2}, {7, -9}));
  b.output("y");
  ir::Graph g = b.import();
  const ir::AttrMap& a = g.node(0).attrs;
  EXPECT_EQ(a.getString("mode", ""), "linear");
  EXPECT_EQ(a.getFloat("cubic_coeff_a", 0), -0.5f);
  EXPECT_EQ(a.getInt("exclude_outside", 0), 1);
  EXPECT_EQ(a.getFloats("__weights", {}), (std::vector<float>{0.25f, 0.75f}));
  ASSERT_NE(a.find<std::vector<std::string>>("__tags"), nullptr);
  EXPECT_EQ(*a.find<std::vector<std::string>>("__tags"), (std::vector<std::string>{"a", "bc"}));
  ASSERT_NE(a.find<Tensor>("__table"), nullptr);
  EXPECT_EQ(*a.find<Tensor>("__table"), Tensor::fromVector<int64_t>({2}, {7, -9}));
  // Omitted optional input in the middle stays in place.
  ASSERT_EQ(g.node(0).inputs.size(), 3u);
  EXPECT_EQ(g.node(0).inputs[1], ir::kNoValue);
}

TEST(OnnxImporter, InitializerEncodings) {
  ModelBuilder b;
  b.input("x", {int64_t{2}});
  onnx::TensorProto f;
  f.set_name("f_typed");
  f.set_data_type(onnx::TensorProto::FLOAT);
  f.add_dims(2);
  f.add_float_data(1.5f);
  f.add_float_data(-2.0f);
  b.initializer(f);
  auto typedInt32 = [&](const std::string& name, int32_t type, std::vector<int32_t> values) {
    onnx::TensorProto t;
    t.set_name(name);
    t.set_data_type(type);
    t.add_dims(static_cast<int64_t>(values.size()));
    for (int32_t v : values) {
      t.add_int32_data(v);
    }
    b.initializer(t);
  };
  typedInt32("i32_typed", onnx::TensorProto::INT32, {-7, 100000});
  typedInt32("i8_typed", onnx::TensorProto::INT8, {-128, 127});
  typedInt32("u8_typed", onnx::TensorProto::UINT8, {0, 255});
  typedInt32("bool_typed", onnx::TensorProto::BOOL, {1, 0});
  onnx::TensorProto i64;
  i64.set_name("i64_typed");
  i64.set_data_type(onnx::TensorProto::INT64);
  i64.add_int64_data(int64_t{1} << 40); // scalar: no dims
  b.initializer(i64);
  b.initializer(rawTensor<int8_t>("i8_raw", onnx::TensorProto::INT8, {3}, {-1, 0, 5}));
  b.initializer(rawTensor<uint8_t>("u8_raw", onnx::TensorProto::UINT8, {1, 2}, {200, 3}));
  b.initializer(rawTensor<int32_t>("i32_raw", onnx::TensorProto::INT32, {1}, {-5}));
  b.initializer(rawTensor<uint8_t>("bool_raw", onnx::TensorProto::BOOL, {2}, {0, 1}));
  b.initializer(floatTensor("empty", {0}, {})); // e.g. Resize's empty roi
  b.node("Relu", {"x"}, {"y"});
  b.output("y");

  ir::Graph g = b.import();
  EXPECT_EQ(g.inputs.size(), 1u);
  auto constant = [&](const std::string& name) -> const Tensor& {
    const ir::Value& v = valueNamed(g, name);
    EXPECT_NE(v.constant, nullptr) << name;
    EXPECT_EQ(v.producer, -1);
    return *v.constant;
  };
  EXPECT_EQ(constant("f_typed"), Tensor::fromVector<float>({2}, {1.5f, -2.0f}));
  EXPECT_EQ(constant("i32_typed"), Tensor::fromVector<int32_t>({2}, {-7, 100000}));
  EXPECT_EQ(constant("i8_typed"), Tensor::fromVector<int8_t>({2}, {-128, 127}));
  EXPECT_EQ(constant("u8_typed"), Tensor::fromVector<uint8_t>({2}, {0, 255}));
  EXPECT_EQ(constant("bool_typed"), Tensor::fromVector<bool>({2}, {true, false}));
  EXPECT_EQ(constant("i64_typed"), Tensor::scalar<int64_t>(int64_t{1} << 40));
  EXPECT_EQ(constant("i8_raw"), Tensor::fromVector<int8_t>({3}, {-1, 0, 5}));
  EXPECT_EQ(constant("u8_raw"), Tensor::fromVector<uint8_t>({1, 2}, {200, 3}));
  EXPECT_EQ(constant("i32_raw"), Tensor::fromVector<int32_t>({1}, {-5}));
  EXPECT_EQ(constant("bool_raw"), Tensor::fromVector<bool>({2}, {false, true}));
  EXPECT_EQ(constant("empty").shape(), (Dims{0}));
  EXPECT_EQ(valueNamed(g, "i64_typed").shape, Dims{});
}

TEST(OnnxImporter, InitializersListedAsInputsAreConstants) {
  ModelBuilder b(9, 3); // IR version 3 lists every initializer among the graph inputs
  b.input("x", {int64_t{1}, int64_t{3}});
  b.input("slope", {int64_t{3}});
  b.initializer(floatTensor("slope", {3}, {0.1f, 0.2f, 0.3f}));
  b.node("PRelu", {"x", "slope"}, {"y"});
  b.output("y");
  ir::Graph g = b.import();
  ASSERT_EQ(g.inputs.size(), 1u);
  EXPECT_EQ(g.value(g.inputs[0]).name, "x");
  EXPECT_TRUE(g.isConstant(g.node(0).inputs[1]));
  EXPECT_EQ(g.opsetVersion, 9);
}

TEST(OnnxImporter, ConstantNodesBecomeConstants) {
  ModelBuilder b;
  b.input("x", {int64_t{2}, int64_t{3}});
  attrTensor(b.node("Constant", {}, {"c_tensor"}, "k0"), "value", floatTensor("", {3}, {1, 2, 3}));
  attrFloat(b.node("Constant", {}, {"c_float"}), "value_float", 2.5f);
  attrFloats(b.node("Constant", {}, {"c_floats"}), "value_floats", {4, 5});
  attrInt(b.node("Constant", {}, {"c_int"}), "value_int", -3);
  attrInts(b.node("Constant", {}, {"c_ints"}), "value_ints", {2, 3});
  b.node("Add", {"x", "c_tensor"}, {"y"});
  b.output("y");
  ir::Graph g = b.import();
  ASSERT_EQ(g.numNodes(), 1u); // no Constant node is left
  EXPECT_EQ(g.node(0).op, OpKind::Add);
  EXPECT_EQ(g.node(0).name, "Add_5");
  EXPECT_EQ(*g.value(g.node(0).inputs[1]).constant, Tensor::fromVector<float>({3}, {1, 2, 3}));
  EXPECT_EQ(*valueNamed(g, "c_float").constant, Tensor::scalar(2.5f));
  EXPECT_EQ(*valueNamed(g, "c_floats").constant, Tensor::fromVector<float>({2}, {4, 5}));
  EXPECT_EQ(*valueNamed(g, "c_int").constant, Tensor::scalar<int64_t>(-3));
  EXPECT_EQ(*valueNamed(g, "c_ints").constant, Tensor::fromVector<int64_t>({2}, {2, 3}));
}

TEST(OnnxImporter, SymbolicDimensionsAreBound) {
  ModelBuilder b;
  b.input("x", {std::string("batch"), std::string("height"), DimSpec{}, int64_t{5}});
  b.input("z", {std::string("height"), int64_t{3}});
  b.node("Relu", {"x"}, {"y"});
  b.output("y");
  ImportOptions options;
  options.defaultSymbolicDim = 2;
  options.dimParams["batch"] = 8;
  options.inputData = {{"x.npy", {7, 6, 4, 5}}};
  ir::Graph g = b.import(options);
  // batch: --dim wins over the file; height and the unnamed axis: from x's file; z shares
  // height.
  EXPECT_EQ(g.value(g.inputs[0]).shape, (Dims{8, 6, 4, 5}));
  EXPECT_EQ(g.value(g.inputs[1]).shape, (Dims{6, 3}));
  EXPECT_EQ(g.dimBindings, (std::vector<std::string>{"batch=8 (--dim)", "height=6 (from x.npy)",
                                                     "x[2]=4 (from x.npy)"}));
  // Without data, a leading dimension is the batch (defaultSymbolicDim).
  options.inputData.clear();
  options.dimParams = {{"height", 9}};
  ImportOptions unnamed = options;
  b.input("w", {std::string("n"), int64_t{2}});
  EXPECT_STREQ(
      importError(b, unnamed).what(),
      "m.onnx: 1 symbolic input dimension nothing binds: 'x[2]' (unnamed, axis 2 of 'x'); bind "
      "it with --dim NAME=VALUE or give --input files whose shapes have it");
  // An unnamed dimension is bound by its INPUT[AXIS] name (Silero VAD's state input has one).
  unnamed.dimParams["x[2]"] = 11;
  ir::Graph bound = b.import(unnamed);
  EXPECT_EQ(bound.value(bound.inputs[0]).shape[2], 11);
  EXPECT_NE(std::find(bound.dimBindings.begin(), bound.dimBindings.end(), "x[2]=11 (--dim)"),
            bound.dimBindings.end());
}

TEST(OnnxImporter, Float16TensorsAreWidenedToFp32) {
  // raw_data (little-endian halves) and int32_data (one bit pattern each) both widen exactly;
  // a pattern beyond 16 bits is a malformed model.
  ModelBuilder b;
  b.input("x", {int64_t{2}});
  b.initializer(rawTensor<uint16_t>("a", onnx::TensorProto::FLOAT16, {2}, {0x3c00, 0xc100}));
  onnx::TensorProto typed;
  typed.set_name("c");
  typed.set_data_type(onnx::TensorProto::FLOAT16);
  typed.add_dims(2);
  typed.add_int32_data(0x3555);
  typed.add_int32_data(0x7bff);
  b.initializer(typed);
  b.node("Add", {"x", "a"}, {"s"});
  b.node("Mul", {"s", "c"}, {"y"});
  b.output("y");
  ir::Graph g = b.import();
  EXPECT_EQ(*valueNamed(g, "a").constant, Tensor::fromVector<float>({2}, {1.0f, -2.5f}));
  EXPECT_EQ(*valueNamed(g, "c").constant,
            Tensor::fromVector<float>({2}, {0.333251953125f, 65504.0f}));
  b.graph().mutable_initializer(1)->set_int32_data(0, 0x10000);
  EXPECT_STREQ(importError(b).what(),
               "m.onnx: initializer 'c' has float16 element 0 = 65536 in int32_data; expected a "
               "16-bit pattern");
}

TEST(OnnxImporter, UnboundAndConflictingDimensionsAreErrors) {
  ModelBuilder b;
  b.input("x", {std::string("n"), std::string("h"), std::string("w")});
  b.input("y", {std::string("h")});
  b.node("Relu", {"x"}, {"r"});
  b.output("r");
  EXPECT_STREQ(
      importError(b).what(),
      "m.onnx: 3 symbolic input dimensions nothing binds: 'h' (axis 1 of 'x'), 'w' (axis 2 "
      "of 'x'), 'h' (axis 0 of 'y'); bind them with --dim NAME=VALUE or give --input files "
      "whose shapes have them");
  ImportOptions options;
  options.inputData = {{"x.npy", {1, 4, 5}}, {"y.npy", {6}}};
  EXPECT_STREQ(
      importError(b, options).what(),
      "m.onnx: the input files disagree on a symbolic dimension: 'h' is 6 in y.npy but 4 in "
      "x.npy");
  options.inputData[1].shape = {4};
  options.batchGiven = true;
  options.defaultSymbolicDim = 3;
  options.inputData[0].shape = {1, 4}; // wrong rank: binds nothing; n is the batch
  options.dimParams = {{"w", 2}};
  const ir::Graph g = b.import(options);
  EXPECT_EQ(g.value(g.inputs[0]).shape, (Dims{3, 4, 2}));
  EXPECT_EQ(g.dimBindings,
            (std::vector<std::string>{"n=3 (--batch)", "h=4 (from y.npy)", "w=2 (--dim)"}));
}

TEST(OnnxImporter, OmittedInputsAndOutputs) {
  ModelBuilder b;
  b.input("x", {int64_t{4}});
  b.initializer(floatTensor("hi", {}, {6.0f}));
  b.node("Clip", {"x", "", "hi"}, {"c"});
  b.node("Clip", {"c", "", ""}, {"d"}); // trailing empty inputs are dropped
  b.node("Dropout", {"d"}, {"y", ""});  // trailing empty output (mask) is dropped
  b.output("y");
  ir::Graph g = b.import();
  EXPECT_EQ(g.node(0).inputs,
            (std::vector<ir::ValueId>{g.inputs[0], ir::kNoValue, *g.findValue("hi")}));
  EXPECT_EQ(g.node(1).inputs.size(), 1u);
  EXPECT_EQ(g.node(2).outputs.size(), 1u);
}

TEST(OnnxImporter, NodesOutOfOrderAreSorted) {
  ModelBuilder b;
  b.input("x", {int64_t{4}});
  b.node("Sigmoid", {"r"}, {"y"}, "second");
  b.node("Relu", {"x"}, {"r"}, "first");
  b.output("y");
  ir::Graph g = b.import();
  EXPECT_EQ(g.node(0).name, "first");
  EXPECT_EQ(g.node(1).name, "second");
}

TEST(OnnxImporter, Opset6IsUpgradedToOpset7) {
  ModelBuilder b(6, 3);
  b.input("a", {int64_t{2}, int64_t{3}});
  b.input("b", {int64_t{3}});
  auto& add = b.node("Add", {"a", "b"}, {"y"});
  attrInt(add, "broadcast", 1); // legacy opset-6 broadcasting, numpy-style from opset 7 on
  b.output("y");
  ir::Graph g = b.import();
  EXPECT_EQ(g.opsetVersion, 7);
  ASSERT_EQ(g.numNodes(), 1u);
  EXPECT_EQ(g.node(0).op, OpKind::Add);
  EXPECT_EQ(g.node(0).opset, 7);
  EXPECT_TRUE(g.node(0).attrs.empty());
  EXPECT_EQ(g.value(g.inputs[1]).shape, (Dims{3}));
}

TEST(OnnxImporter, Opset6PReluSlopesStayPerChannel) {
  // Opset 6 applies a [C] slope per channel; opset 7 would broadcast it against the last axis.
  ModelBuilder b(6, 3);
  b.input("x", {int64_t{1}, int64_t{3}, int64_t{2}, int64_t{2}});
  b.input("slope", {int64_t{3}});
  b.initializer(floatTensor("slope", {3}, {0.1f, 0.2f, 0.3f}));
  b.node("PRelu", {"x", "slope"}, {"y"}, "prelu");
  b.output("y");
  ir::Graph g = b.import();
  ASSERT_EQ(g.numNodes(), 1u);
  const Tensor& slope = *g.value(g.node(0).inputs[1]).constant;
  EXPECT_EQ(slope.shape(), (Dims{3, 1, 1}));
  EXPECT_EQ(floatValues(slope), (std::vector<float>{0.1f, 0.2f, 0.3f}));
  EXPECT_EQ(g.value(g.node(0).inputs[1]).name, "slope_per_channel");

  ModelBuilder runtime(6, 3);
  runtime.input("x", {int64_t{1}, int64_t{3}, int64_t{2}, int64_t{2}});
  runtime.input("slope", {int64_t{3}});
  runtime.node("PRelu", {"x", "slope"}, {"y"}, "prelu");
  runtime.output("y");
  Error e = importError(runtime);
  EXPECT_EQ(e.kind(), ErrorKind::Unsupported);
  EXPECT_STREQ(e.what(), "m.onnx: node 'prelu' (PRelu, opset 6): slope 'slope' is not a "
                         "constant, so its opset-6 per-channel layout cannot be converted to "
                         "opset 7");
}

TEST(OnnxImporter, Opset6LegacyBroadcastAtMiddleAxis) {
  ModelBuilder b(6, 3);
  b.input("a", {int64_t{2}, int64_t{3}, int64_t{4}});
  b.initializer(floatTensor("c", {3}, {1, 2, 3}));
  auto& add = b.node("Add", {"a", "c"}, {"y"}, "add");
  attrInt(add, "broadcast", 1);
  attrInt(add, "axis", 1); // c lines up with axis 1 of a, not with the last axis
  b.output("y");
  ir::Graph g = b.import();
  const ir::Value& c = g.value(g.node(0).inputs[1]);
  EXPECT_EQ(c.name, "c_bcast");
  EXPECT_EQ(c.constant->shape(), (Dims{3, 1}));
  EXPECT_TRUE(g.node(0).attrs.empty());
  EXPECT_EQ(g.value(g.outputs[0]).shape, (Dims{2, 3, 4})); // opset-6 graphs come back inferred
}

TEST(OnnxImporter, Opset1FormsAreUpgraded) {
  // Opset 1: consumed_inputs hints, Reshape's shape attribute, Pad's paddings, Concat's
  // optional axis (default 1).
  ModelBuilder b(1, 3);
  b.input("x", {int64_t{1}, int64_t{2}, int64_t{2}, int64_t{2}});
  auto& relu = b.node("Relu", {"x"}, {"r"}, "relu");
  attrInts(relu, "consumed_inputs", {0});
  b.node("Concat", {"r", "r"}, {"c"}, "concat");
  auto& pad = b.node("Pad", {"c"}, {"p"}, "pad");
  attrInts(pad, "paddings", {0, 0, 1, 0, 0, 0, 0, 1});
  auto& reshape = b.node("Reshape", {"p"}, {"y"}, "reshape");
  attrInts(reshape, "shape", {1, -1});
  b.output("y");
  ir::Graph g = b.import();
  EXPECT_EQ(g.opsetVersion, 7);
  ASSERT_EQ(g.numNodes(), 4u);
  EXPECT_TRUE(g.node(0).attrs.empty());
  EXPECT_EQ(g.node(1).attrs.getInt("axis", -1), 1);
  EXPECT_EQ(g.value(g.node(1).outputs[0]).shape, (Dims{1, 4, 2, 2}));
  EXPECT_EQ(g.node(2).attrs.getInts("pads", {}), (std::vector<int64_t>{0, 0, 1, 0, 0, 0, 0, 1}));
  EXPECT_FALSE(g.node(2).attrs.has("paddings"));
  ASSERT_EQ(g.node(3).inputs.size(), 2u);
  EXPECT_EQ(g.value(g.node(3).inputs[1]).constant->toInt64Vector(), (std::vector<int64_t>{1, -1}));
  EXPECT_EQ(g.value(g.outputs[0]).shape, (Dims{1, 4 * 3 * 3}));
}

TEST(OnnxImporterErrors, Opset1CastIsRejected) {
  ModelBuilder b(1, 3);
  b.input("x", {int64_t{2}});
  auto& cast = b.node("Cast", {"x"}, {"y"}, "cast");
  attrString(cast, "to", "INT32");
  b.output("y", onnx::TensorProto::INT32);
  Error e = importError(b);
  EXPECT_EQ(e.kind(), ErrorKind::Unsupported);
  EXPECT_STREQ(e.what(), "m.onnx: node 'cast' (Cast, opset 1): Cast-1 (string 'to' attribute, "
                         "before opset 6) is not supported");
}

TEST(OnnxImporterErrors, Opset6FormsWithoutOpset7Equivalent) {
  ModelBuilder b(6, 3);
  b.input("a", {int64_t{2}, int64_t{3}, int64_t{4}});
  b.input("b", {int64_t{3}});
  auto& add = b.node("Add", {"a", "b"}, {"y"}, "add");
  attrInt(add, "broadcast", 1);
  attrInt(add, "axis", 1);
  b.output("y");
  Error e = importError(b);
  EXPECT_EQ(e.kind(), ErrorKind::Unsupported);
  EXPECT_STREQ(e.what(), "m.onnx: node 'add' (Add, opset 6): legacy broadcast of non-constant "
                         "input 'b' at axis 1 has no opset-7 equivalent");

  ModelBuilder misfit(6, 3);
  misfit.input("a", {int64_t{2}, int64_t{3}});
  misfit.input("b", {int64_t{3}});
  auto& add2 = misfit.node("Add", {"a", "b"}, {"y"}, "add");
  attrInt(add2, "broadcast", 1);
  attrInt(add2, "axis", 5);
  misfit.output("y");
  EXPECT_STREQ(importError(misfit).what(), "m.onnx: node 'add' (Add, opset 6): legacy broadcast "
                                           "axis=5 does not fit input ranks 2 and 1");

  ModelBuilder training(6, 3);
  training.input("x", {int64_t{1}, int64_t{2}});
  training.node("Dropout", {"x"}, {"y"}, "drop");
  training.output("y");
  EXPECT_STREQ(
      importError(training).what(),
      "m.onnx: node 'drop' (Dropout, opset 6): is_test=0 (training mode) is not supported");
}

// --- real models from the ONNX backend test data ------------------------------------------

TEST(OnnxImporter, BackendConvWithStridesPadding) {
  ir::Graph g = importOnnxFile(kOnnxTestData + "/node/test_conv_with_strides_padding/model.onnx");
  EXPECT_EQ(g.opsetVersion, 11);
  ASSERT_EQ(g.inputs.size(), 2u); // x and W are both runtime inputs in this test case
  EXPECT_EQ(g.value(g.inputs[0]).shape, (Dims{1, 1, 7, 5}));
  EXPECT_EQ(g.value(g.inputs[1]).shape, (Dims{1, 1, 3, 3}));
  ASSERT_EQ(g.numNodes(), 1u);
  const ir::Node& conv = g.node(0);
  EXPECT_EQ(conv.op, OpKind::Conv);
  EXPECT_EQ(conv.name, "Conv_0");
  EXPECT_EQ(conv.attrs.getInts("kernel_shape", {}), (std::vector<int64_t>{3, 3}));
  EXPECT_EQ(conv.attrs.getInts("pads", {}), (std::vector<int64_t>{1, 1, 1, 1}));
  EXPECT_EQ(conv.attrs.getInts("strides", {}), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(conv.attrs.all().size(), 3u);
  EXPECT_EQ(g.value(g.outputs.at(0)).name, "y");
}

TEST(OnnxImporter, BackendPytorchConv2dOpset6) {
  ir::Graph g = importOnnxFile(kOnnxTestData + "/pytorch-converted/test_Conv2d/model.onnx");
  EXPECT_EQ(g.name, "torch-jit-export");
  EXPECT_EQ(g.opsetVersion, 7); // written at opset 6, upgraded
  ASSERT_EQ(g.inputs.size(), 1u);
  EXPECT_EQ(g.value(g.inputs[0]).shape, (Dims{2, 3, 7, 5}));
  ASSERT_EQ(g.numNodes(), 1u);
  const ir::Node& conv = g.node(0);
  EXPECT_EQ(conv.op, OpKind::Conv);
  EXPECT_EQ(conv.attrs.getInts("kernel_shape", {}), (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(conv.attrs.getInts("dilations", {}), (std::vector<int64_t>{1, 1}));
  EXPECT_EQ(conv.attrs.getInt("group", 0), 1);
  ASSERT_EQ(conv.inputs.size(), 3u);
  const Tensor& w = *g.value(conv.inputs[1]).constant;
  EXPECT_EQ(w.shape(), (Dims{4, 3, 3, 2}));
  // Values cross-checked with onnx.numpy_helper on the same file.
  EXPECT_FLOAT_EQ(w.values<float>()[0], -0.1429409235715866f);
  EXPECT_FLOAT_EQ(w.values<float>()[3], 0.1322888284921646f);
  const Tensor& bias = *g.value(conv.inputs[2]).constant;
  EXPECT_FALSE(g.isConstant(g.inputs[0]));
  EXPECT_EQ(bias.shape(), (Dims{4}));
  EXPECT_FLOAT_EQ(bias.values<float>()[1], 0.09345827996730804f);
}

TEST(OnnxImporter, BackendModelsWithSupportedOpsAllImport) {
  // Every backend test model whose ops are all nnaccel ops, in the default domain, at a
  // supported opset and with supported element types must import (no false rejections).
  int imported = 0;
  for (const char* suite : {"node", "pytorch-converted", "pytorch-operator"}) {
    for (const auto& dir : std::filesystem::directory_iterator(kOnnxTestData + "/" + suite)) {
      const std::string path = (dir.path() / "model.onnx").string();
      onnx::ModelProto m;
      std::ifstream in(path, std::ios::binary);
      ASSERT_TRUE(m.ParseFromIstream(&in)) << path;
      bool eligible = false;
      for (const auto& imp : m.opset_import()) {
        if (imp.domain().empty() && imp.version() >= kMinOpset && imp.version() <= kMaxOpset) {
          eligible = true;
        }
      }
      for (const auto& n : m.graph().node()) {
        eligible = eligible && n.domain().empty() && ir::opFromName(n.op_type());
      }
      if (!eligible) {
        continue;
      }
      try {
        importOnnxFile(path);
        ++imported;
      } catch (const Error& e) {
        // Only types nnaccel does not hold (float16, double, sequences ...) and zero-sized
        // input dimensions (rejected by design) may fail.
        const std::string message = e.what();
        const bool expected =
            e.kind() == ErrorKind::Unsupported &&
            (message.find("element type") != std::string::npos ||
             message.find("is not a tensor") != std::string::npos ||
             message.find("zero-sized dimensions are not supported") != std::string::npos);
        EXPECT_TRUE(expected) << message;
      }
    }
  }
  EXPECT_GT(imported, 300);
}

TEST(OnnxImporter, ReadTensorProtoFile) {
  const std::string dir = kOnnxTestData + "/node/test_conv_with_strides_padding/test_data_set_0/";
  Tensor x = readTensorProtoFile(dir + "input_0.pb");
  EXPECT_EQ(x.dtype(), DType::F32);
  EXPECT_EQ(x.shape(), (Dims{1, 1, 7, 5}));
  for (int64_t i = 0; i < 35; ++i) {
    EXPECT_EQ(x.values<float>()[static_cast<size_t>(i)], static_cast<float>(i));
  }
  Tensor y = readTensorProtoFile(dir + "output_0.pb");
  EXPECT_EQ(y.shape(), (Dims{1, 1, 4, 3}));
  EXPECT_EQ(floatValues(y),
            (std::vector<float>{12, 27, 24, 63, 108, 81, 123, 198, 141, 112, 177, 124}));
}

TEST(OnnxImporter, ReadTensorProtoFileErrors) {
  const std::string garbage = writeTempFile("garbage.pb", "\xff\xff\xff\xff\x0f");
  Error e = expectError([&] { readTensorProtoFile(garbage); });
  EXPECT_EQ(e.kind(), ErrorKind::Model);
  EXPECT_EQ(e.reason(), "not a valid TensorProto (protobuf parse failed)");
  EXPECT_EQ(e.context().file, garbage);

  onnx::TensorProto half;
  half.set_name("h");
  half.set_data_type(onnx::TensorProto::FLOAT16);
  half.add_dims(1);
  half.set_raw_data(std::string("\x00\x3c", 2)); // 1.0
  const Tensor widened = readTensorProtoFile(writeTempFile("half.pb", half.SerializeAsString()));
  EXPECT_EQ(widened, Tensor::fromVector<float>({1}, {1.0f}));
  half.set_data_type(onnx::TensorProto::BFLOAT16);
  const std::string halfPath = writeTempFile("bfloat.pb", half.SerializeAsString());
  e = expectError([&] { readTensorProtoFile(halfPath); });
  EXPECT_EQ(e.kind(), ErrorKind::Unsupported);
  EXPECT_EQ(std::string(e.what()),
            halfPath + ": tensor 'h' has element type bfloat16, which nnaccel does not support "
                       "(supported: float, float16, int8, uint8, int32, int64, bool)");

  e = expectError([] { readTensorProtoFile("/nonexistent/x.pb"); });
  EXPECT_EQ(e.kind(), ErrorKind::Io);
  EXPECT_EQ(std::string(e.what()),
            "/nonexistent/x.pb: cannot open file (No such file or directory)");
}

// --- rejections: file level ----------------------------------------------------------------

TEST(OnnxImporterErrors, NotAModel) {
  Error e = expectError([] { importOnnxBytes("\x0a\xff\xff\xff\xff\xff", "bad.onnx"); });
  EXPECT_EQ(e.kind(), ErrorKind::Model);
  EXPECT_STREQ(e.what(), "bad.onnx: not a valid ONNX model (protobuf parse failed)");

  e = expectError([] { importOnnxBytes("", "empty.onnx"); });
  EXPECT_STREQ(e.what(), "empty.onnx: not a valid ONNX model (the file is empty)");

  onnx::TensorShapeProto notAModel; // parses as a ModelProto (unknown fields) with no graph
  notAModel.add_dim()->set_dim_value(3);
  e = expectError([&] { importOnnxBytes(notAModel.SerializeAsString(), "t.onnx"); });
  EXPECT_STREQ(e.what(), "t.onnx: not a valid ONNX model (no graph)");

  ModelBuilder b;
  b.proto().clear_ir_version();
  EXPECT_STREQ(importError(b).what(), "m.onnx: not a valid ONNX model (no ir_version)");
}

TEST(OnnxImporterErrors, MissingFile) {
  Error e = expectError([] { importOnnxFile("/nonexistent/model.onnx"); });
  EXPECT_EQ(e.kind(), ErrorKind::Io);
  EXPECT_STREQ(e.what(), "/nonexistent/model.onnx: cannot open file (No such file or directory)");
  e = expectError([] { importOnnxFile(::testing::TempDir()); });
  EXPECT_EQ(e.kind(), ErrorKind::Io);
  EXPECT_EQ(e.reason(), "is a directory, not a file");
}

TEST(OnnxImporterErrors, OpsetOutOfRange) {
  for (int64_t opset : {0, 18, 99}) { // 1-6 are accepted (and upgraded to 7)
    ModelBuilder b(opset);
    b.input("x", {int64_t{1}});
    b.node("Relu", {"x"}, {"y"});
    b.output("y");
    Error e = importError(b);
    EXPECT_EQ(e.kind(), ErrorKind::Unsupported);
    EXPECT_EQ(std::string(e.what()), "m.onnx: default-domain opset " + std::to_string(opset) +
                                         " is outside the supported range 1..17");
  }
  ModelBuilder none;
  none.proto().mutable_opset_import(0)->set_domain("ai.onnx.ml");
  Error onlyMl = importError(none);
  EXPECT_EQ(onlyMl.kind(), ErrorKind::Unsupported);
  EXPECT_STREQ(onlyMl.what(), "m.onnx: model uses only the domain(s) 'ai.onnx.ml' and no "
                              "default-domain (ai.onnx) opset");
  ModelBuilder twice;
  *twice.proto().add_opset_import() = twice.proto().opset_import(0);
  EXPECT_STREQ(importError(twice).what(), "m.onnx: the default-domain opset is declared twice");
}

TEST(OnnxImporterErrors, BadOptions) {
  ImportOptions options;
  options.defaultSymbolicDim = 0;
  Error e = importError(convReluModel(), options);
  EXPECT_EQ(e.kind(), ErrorKind::Usage);
  EXPECT_STREQ(e.what(), "'defaultSymbolicDim': symbolic dimension value 0 must be positive");
  options = {};
  options.dimParams["N"] = -2;
  EXPECT_STREQ(importError(convReluModel(), options).what(),
               "'N': symbolic dimension value -2 must be positive");
}

// --- rejections: nodes ------------------------------------------------------------------------

TEST(OnnxImporterErrors, EveryUnsupportedNodeIsListedInOneError) {
  ModelBuilder b;
  b.input("x", {int64_t{1}, int64_t{8}});
  for (int k = 0; k < 5; ++k)
    b.node("LSTM", {"x"}, {"l" + std::to_string(k)}, "lstm_" + std::to_string(k));
  b.node("Relu", {"x"}, {"r"});
  b.node("NonMaxSuppression", {"x"}, {"n"});
  b.output("r");
  Error e = importError(b);
  EXPECT_EQ(e.kind(), ErrorKind::Unsupported);
  EXPECT_STREQ(e.what(), "m.onnx: 6 nodes use ops nnaccel does not support (LSTM x5, "
                         "NonMaxSuppression): LSTM: 'lstm_0', 'lstm_1', 'lstm_2' and 2 more; "
                         "NonMaxSuppression: 'NonMaxSuppression_6'");
}

TEST(OnnxImporterErrors, UnsupportedOpAndDomain) {
  ModelBuilder b;
  b.input("x", {int64_t{1}, int64_t{2}, int64_t{3}});
  b.node("LSTM", {"x"}, {"y"}, "lstm_1");
  b.output("y");
  Error e = importError(b);
  EXPECT_EQ(e.kind(), ErrorKind::Unsupported);
  EXPECT_STREQ(e.what(), "m.onnx: node 'lstm_1' (LSTM, opset 13): unsupported op");

  ModelBuilder d;
  auto* ms = d.proto().add_opset_import();
  ms->set_domain("com.microsoft");
  ms->set_version(1);
  d.input("x", {int64_t{1}});
  d.node("FusedConv", {"x"}, {"y"}).set_domain("com.microsoft");
  d.output("y");
  e = importError(d);
  EXPECT_EQ(e.kind(), ErrorKind::Unsupported);
  EXPECT_STREQ(e.what(), "m.onnx: node 'FusedConv_0' (FusedConv, opset 1): op domain "
                         "'com.microsoft' is not supported (only the default ONNX domain is)");
}

TEST(OnnxImporterErrors, OpNotInOpset) {
  ModelBuilder b(13);
  b.input("x", {int64_t{1}});
  b.node("HardSwish", {"x"}, {"y"}, "hs"); // introduced in opset 14
  b.output("y");
  Error e = importError(b);
  EXPECT_EQ(e.kind(), ErrorKind::Model);
  EXPECT_STREQ(e.what(), "m.onnx: node 'hs' (HardSwish, opset 13): op is not defined in opset 13");

  ModelBuilder u(10);
  u.input("x", {int64_t{1}, int64_t{1}, int64_t{2}, int64_t{2}});
  attrFloats(u.node("Upsample", {"x"}, {"y"}, "up"), "scales", {1, 1, 2, 2});
  u.output("y");
  EXPECT_STREQ(importError(u).what(),
               "m.onnx: node 'up' (Upsample, opset 10): op is deprecated in opset 10");
}

TEST(OnnxImporterErrors, SchemaMismatch) {
  ModelBuilder b = convReluModel();
  b.graph().mutable_node(0)->mutable_attribute(3)->set_type(onnx::AttributeProto::FLOAT);
  b.graph().mutable_node(0)->mutable_attribute(3)->set_f(1.0f);
  Error e = importError(b);
  EXPECT_EQ(e.kind(), ErrorKind::Model);
  EXPECT_STREQ(e.what(), "m.onnx: node 'conv1' (Conv, opset 13): does not match the onnx "
                         "schema: Mismatched attribute type in 'conv1 : group'");

  ModelBuilder arity;
  arity.input("x", {int64_t{1}});
  arity.node("Add", {"x"}, {"y"}, "add");
  arity.output("y");
  EXPECT_STREQ(importError(arity).what(),
               "m.onnx: node 'add' (Add, opset 13): does not match the onnx schema: Node (add) "
               "has input size 1 not in range [min=2, max=2]");

  ModelBuilder unknown = convReluModel();
  attrInt(*unknown.graph().mutable_node(1), "alpha", 1);
  EXPECT_STREQ(importError(unknown).what(),
               "m.onnx: node 'Relu_1' (Relu, opset 13): does not match the onnx schema: "
               "Unrecognized attribute: alpha for operator Relu");
}

TEST(OnnxImporterErrors, BadAttributes) {
  ModelBuilder b = convReluModel();
  auto& body = addAttr(*b.graph().mutable_node(0), "body", onnx::AttributeProto::GRAPH);
  body.mutable_g()->set_name("sub");
  Error e = importError(b);
  EXPECT_EQ(e.kind(), ErrorKind::Unsupported);
  EXPECT_STREQ(e.what(), "m.onnx: node 'conv1' (Conv, opset 13): 'body': graph attributes "
                         "(subgraphs) are not supported");

  ModelBuilder twice = convReluModel();
  attrInt(*twice.graph().mutable_node(0), "group", 1);
  EXPECT_STREQ(importError(twice).what(),
               "m.onnx: node 'conv1' (Conv, opset 13): attribute 'group' is given twice");

  ModelBuilder untyped = convReluModel();
  untyped.graph().mutable_node(0)->mutable_attribute(3)->set_type(onnx::AttributeProto::UNDEFINED);
  untyped.graph().mutable_node(0)->mutable_attribute(3)->set_f(2.0f); // both i and f set
  EXPECT_STREQ(importError(untyped).what(),
               "m.onnx: node 'conv1' (Conv, opset 13): 'group': attribute has no type");

  ModelBuilder noField = convReluModel();
  noField.graph().mutable_node(0)->mutable_attribute(3)->clear_i();
  EXPECT_STREQ(importError(noField).what(),
               "m.onnx: node 'conv1' (Conv, opset 13): 'group': attribute of type INT has no "
               "'i' field");

  ModelBuilder sparse = convReluModel();
  addAttr(*sparse.graph().mutable_node(0), "__s", onnx::AttributeProto::SPARSE_TENSOR);
  EXPECT_STREQ(importError(sparse).what(),
               "m.onnx: node 'conv1' (Conv, opset 13): '__s': attribute type SPARSE_TENSOR is "
               "not supported");

  ModelBuilder unnamed = convReluModel();
  unnamed.graph().mutable_node(0)->mutable_attribute(0)->clear_name();
  EXPECT_STREQ(importError(unnamed).what(),
               "m.onnx: node 'conv1' (Conv, opset 13): attribute with an empty name");
}

TEST(OnnxImporterErrors, BadConstantNodes) {
  ModelBuilder s;
  attrString(s.node("Constant", {}, {"y"}, "k"), "value_string", "hello");
  s.output("y");
  Error e = importError(s);
  EXPECT_EQ(e.kind(), ErrorKind::Unsupported);
  EXPECT_STREQ(e.what(),
               "m.onnx: node 'k' (Constant, opset 13): 'value_string': string constants are not "
               "supported");

  ModelBuilder two;
  auto& k = two.node("Constant", {}, {"y"}, "k");
  attrFloat(k, "value_float", 1);
  attrInt(k, "value_int", 1);
  two.output("y");
  EXPECT_STREQ(importError(two).what(), "m.onnx: node 'k' (Constant, opset 13): constant must "
                                        "have exactly one value attribute, found 2");

  ModelBuilder half;
  onnx::TensorProto h;
  h.set_data_type(onnx::TensorProto::BFLOAT16);
  h.add_dims(1);
  h.set_raw_data(std::string(2, '\0'));
  attrTensor(half.node("Constant", {}, {"y"}, "k"), "value", h);
  half.output("y");
  EXPECT_STREQ(importError(half).what(),
               "m.onnx: node 'k' (Constant, opset 13): 'value': tensor has element type bfloat16, "
               "which nnaccel does not support (supported: float, float16, int8, uint8, int32, "
               "int64, bool)");
}

TEST(OnnxImporterErrors, MissingInput) {
  ModelBuilder b = convReluModel();
  b.graph().mutable_node(1)->set_input(0, "nowhere");
  Error e = importError(b);
  EXPECT_EQ(e.kind(), ErrorKind::Model);
  EXPECT_STREQ(e.what(), "m.onnx: node 'Relu_1' (Relu, opset 13): input 'nowhere' is not "
                         "produced by any node, initializer or graph input");
}

TEST(OnnxImporterErrors, DuplicateNames) {
  ModelBuilder b = convReluModel();
  b.node("Sigmoid", {"x"}, {"c"}, "dup");
  Error e = importError(b);
  EXPECT_EQ(e.kind(), ErrorKind::Model);
  EXPECT_STREQ(e.what(), "m.onnx: node 'dup' (Sigmoid, opset 13): output 'c' is already "
                         "produced by node 'conv1'");

  ModelBuilder overInit = convReluModel();
  overInit.node("Sigmoid", {"x"}, {"W"}, "s");
  EXPECT_STREQ(importError(overInit).what(), "m.onnx: node 's' (Sigmoid, opset 13): output 'W' "
                                             "is already produced by an initializer");

  ModelBuilder overInput = convReluModel();
  overInput.node("Sigmoid", {"c"}, {"x"}, "s");
  EXPECT_STREQ(importError(overInput).what(), "m.onnx: node 's' (Sigmoid, opset 13): output "
                                              "'x' is already produced by a graph input");

  ModelBuilder init = convReluModel();
  init.initializer(floatTensor("B", {1}, {0}));
  EXPECT_STREQ(importError(init).what(), "m.onnx: initializer 'B' is listed twice");

  ModelBuilder input = convReluModel();
  input.input("x", {int64_t{1}});
  EXPECT_STREQ(importError(input).what(), "m.onnx: graph input 'x' is listed twice");

  ModelBuilder output = convReluModel();
  output.output("y");
  EXPECT_STREQ(importError(output).what(), "m.onnx: graph output 'y' is listed twice");
}

TEST(OnnxImporterErrors, BadGraphOutputs) {
  ModelBuilder b = convReluModel();
  b.graph().mutable_output(0)->set_name("ghost");
  EXPECT_STREQ(importError(b).what(), "m.onnx: graph output 'ghost' is not produced by any node, "
                                      "initializer or graph input");
  b.graph().clear_output();
  EXPECT_STREQ(importError(b).what(), "m.onnx: graph has no outputs");
  b.output("");
  EXPECT_STREQ(importError(b).what(), "m.onnx: graph output with an empty name");
}

namespace {
/// Gives graph output \p out a declared shape: values, dim_params ("N") or unset dims.
void declareShape(onnx::ValueInfoProto& out, const std::vector<DimSpec>& dims) {
  setShape(*out.mutable_type()->mutable_tensor_type(), dims);
}
} // namespace

TEST(OnnxImporter, DeclaredOutputTypesAreRecorded) {
  // convReluModel's output y is 1x4x4x4 f32.
  ModelBuilder b = convReluModel();
  declareShape(*b.graph().mutable_output(0),
               {int64_t{1}, std::string("C"), std::monostate{}, int64_t{4}});
  ir::Graph g = b.import();
  const ir::Value& y = g.value(g.outputs[0]);
  EXPECT_EQ(y.declaredShape, (Dims{1, -1, -1, 4}));
  EXPECT_EQ(y.declaredDType, DType::F32);
  ir::inferShapes(g); // agrees
  EXPECT_EQ(y.shape, (Dims{1, 4, 4, 4}));

  // No shape, an UNDEFINED element type, or one nnaccel does not hold: nothing recorded.
  ModelBuilder none = convReluModel();
  none.graph().mutable_output(0)->mutable_type()->mutable_tensor_type()->set_elem_type(
      onnx::TensorProto::UNDEFINED);
  ir::Graph g2 = none.import();
  EXPECT_FALSE(g2.value(g2.outputs[0]).declaredShape);
  EXPECT_FALSE(g2.value(g2.outputs[0]).declaredDType);
  ModelBuilder half = convReluModel();
  half.graph().mutable_output(0)->mutable_type()->mutable_tensor_type()->set_elem_type(
      onnx::TensorProto::BFLOAT16);
  ir::Graph g3 = half.import();
  EXPECT_FALSE(g3.value(g3.outputs[0]).declaredDType);
  // An output without any type declares nothing either.
  ModelBuilder untyped = convReluModel();
  untyped.graph().mutable_output(0)->clear_type();
  ir::Graph g4 = untyped.import();
  EXPECT_FALSE(g4.value(g4.outputs[0]).declaredShape);
  // A declared scalar is a shape of rank 0, not "no shape".
  ModelBuilder scalar = convReluModel();
  declareShape(*scalar.graph().mutable_output(0), {});
  ir::Graph g5 = scalar.import();
  EXPECT_EQ(g5.value(g5.outputs[0]).declaredShape, (Dims{}));
}

TEST(OnnxImporterErrors, DeclaredOutputTypeDisagreesWithInference) {
  ModelBuilder b = convReluModel();
  declareShape(*b.graph().mutable_output(0), {int64_t{7}, int64_t{7}});
  ir::Graph g = b.import(); // import is structural; inference compares
  Error e = expectError([&] { ir::inferShapes(g); });
  EXPECT_EQ(e.kind(), ErrorKind::Model);
  EXPECT_STREQ(e.what(), "m.onnx: node 'Relu_1' (Relu, opset 13): output 'y' is declared 7x7 but "
                         "infers to 1x4x4x4");
  ModelBuilder typed = convReluModel();
  typed.graph().mutable_output(0)->mutable_type()->mutable_tensor_type()->set_elem_type(
      onnx::TensorProto::INT64);
  ir::Graph g2 = typed.import();
  EXPECT_STREQ(expectError([&] { ir::inferShapes(g2); }).what(),
               "m.onnx: node 'Relu_1' (Relu, opset 13): output 'y' is declared s64 but infers to "
               "f32");
}

TEST(OnnxImporterErrors, BadDeclaredOutputs) {
  ModelBuilder negative = convReluModel();
  declareShape(*negative.graph().mutable_output(0), {int64_t{1}, int64_t{-4}});
  Error e = importError(negative);
  EXPECT_EQ(e.kind(), ErrorKind::Model);
  EXPECT_STREQ(e.what(), "m.onnx: graph output 'y' has dimension 1 = -4; declared dimensions must "
                         "be >= 0");
  ModelBuilder sequence = convReluModel();
  sequence.graph().mutable_output(0)->mutable_type()->mutable_sequence_type();
  e = importError(sequence);
  EXPECT_EQ(e.kind(), ErrorKind::Unsupported);
  EXPECT_STREQ(e.what(), "m.onnx: graph output 'y' is not a tensor (sequence, map, optional and "
                         "sparse outputs are not supported)");
}

TEST(OnnxImporterErrors, FilesAndBuffersBeyondTheProtobufLimit) {
  // A sparse file one byte over 2 GiB: rejected from its size, without being read.
  const auto path = std::filesystem::path(::testing::TempDir()) / "over_2gib.onnx";
  { std::ofstream(path, std::ios::binary) << 'x'; }
  std::filesystem::resize_file(path, std::uintmax_t{1} << 31);
  Error e = expectError([&] { importOnnxFile(path.string()); });
  EXPECT_EQ(e.kind(), ErrorKind::Model);
  EXPECT_EQ(std::string(e.what()),
            path.string() + ": not a valid ONNX model (larger than the 2 GiB protobuf limit)");
  e = expectError([&] { readTensorProtoFile(path.string()); });
  EXPECT_EQ(std::string(e.what()),
            path.string() + ": not a valid TensorProto (larger than the 2 GiB protobuf limit)");
  std::filesystem::remove(path);

  // In memory: a reserved, never touched mapping of 2 GiB.
  const size_t size = size_t{1} << 31;
  void* mem = mmap(nullptr, size, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  ASSERT_NE(mem, MAP_FAILED);
  e = expectError(
      [&] { importOnnxBytes(std::string_view(static_cast<const char*>(mem), size), "big.onnx"); });
  EXPECT_STREQ(e.what(), "big.onnx: not a valid ONNX model (larger than the 2 GiB protobuf limit)");
  munmap(mem, size);
}

TEST(OnnxImporterErrors, Cycle) {
  ModelBuilder b;
  b.input("x", {int64_t{1}});
  b.node("Add", {"x", "b"}, {"a"}, "na");
  b.node("Relu", {"a"}, {"b"}, "nb");
  b.output("b");
  Error e = importError(b);
  EXPECT_EQ(e.kind(), ErrorKind::Model);
  EXPECT_STREQ(e.what(), "m.onnx: node 'na' (Add, opset 13): graph has a cycle through this node");
}

TEST(OnnxImporterErrors, NodeWithoutOutputsOrOpType) {
  ModelBuilder b = convReluModel();
  b.node("Relu", {"x"}, {""}, "r");
  EXPECT_STREQ(importError(b).what(), "m.onnx: node 'r' (Relu, opset 13): node has no outputs");
  ModelBuilder t = convReluModel();
  t.node("", {"x"}, {"z"}, "anon");
  EXPECT_STREQ(importError(t).what(), "m.onnx: node 'anon': node has no op_type");
}

// --- rejections: graph inputs ------------------------------------------------------------------

TEST(OnnxImporterErrors, DimParamBindingThatMatchesNoInput) {
  ModelBuilder b;
  b.input("x", {std::string("N"), int64_t{3}});
  b.node("Relu", {"x"}, {"y"});
  b.output("y");
  ImportOptions options;
  options.dimParams = {{"N", 2}};
  EXPECT_EQ(b.import(options).value(0).shape, (Dims{2, 3}));
  options.dimParams = {{"N", 2}, {"batch", 4}}; // a typo for N, say
  Error e = importError(b, options);
  EXPECT_EQ(e.kind(), ErrorKind::Usage);
  EXPECT_STREQ(e.what(), "m.onnx: no graph input has the symbolic dimension (dim_param) 'batch'");
}

TEST(OnnxImporterErrors, BadGraphInputs) {
  auto withInput = [](const std::function<void(ModelBuilder&)>& declare) {
    ModelBuilder b;
    declare(b);
    b.node("Relu", {"x"}, {"y"});
    b.output("y");
    return importError(b);
  };
  Error e = withInput([](ModelBuilder& b) { b.input("x", {int64_t{1}, int64_t{0}}); });
  EXPECT_EQ(e.kind(), ErrorKind::Unsupported);
  EXPECT_STREQ(e.what(), "m.onnx: graph input 'x' has dimension 1 = 0; zero-sized dimensions are "
                         "not supported");
  e = withInput([](ModelBuilder& b) { b.input("x", {int64_t{-3}}); });
  EXPECT_EQ(e.kind(), ErrorKind::Model);
  EXPECT_STREQ(e.what(), "m.onnx: graph input 'x' has dimension 0 = -3; input dimensions must be "
                         "positive");
  e = withInput([](ModelBuilder& b) {
    b.input("x", {int64_t{1} << 20, int64_t{1} << 20, int64_t{2}});
  });
  EXPECT_STREQ(e.what(), "m.onnx: graph input 'x' has more than 2^40 elements");
  e = withInput([](ModelBuilder& b) { b.input("x", {int64_t{2}}, onnx::TensorProto::DOUBLE); });
  EXPECT_EQ(e.kind(), ErrorKind::Unsupported);
  EXPECT_STREQ(e.what(), "m.onnx: graph input 'x' has element type double, which nnaccel does "
                         "not support");
  e = withInput([](ModelBuilder& b) { b.input("x", {int64_t{2}}, onnx::TensorProto::UNDEFINED); });
  EXPECT_STREQ(e.what(), "m.onnx: graph input 'x' has no element type");
  e = withInput([](ModelBuilder& b) {
    b.input("x", {}).mutable_type()->mutable_tensor_type()->clear_shape();
  });
  EXPECT_EQ(e.kind(), ErrorKind::Unsupported);
  EXPECT_STREQ(e.what(),
               "m.onnx: graph input 'x' has no shape; nnaccel needs the rank of every graph input");
  e = withInput([](ModelBuilder& b) { b.input("x", {}).clear_type(); });
  EXPECT_STREQ(e.what(), "m.onnx: graph input 'x' has no type");
  e = withInput([](ModelBuilder& b) { b.input("x", {}).mutable_type()->mutable_sequence_type(); });
  EXPECT_STREQ(e.what(), "m.onnx: graph input 'x' is not a tensor (sequence, map, optional and "
                         "sparse inputs are not supported)");
  e = withInput([](ModelBuilder& b) { b.input("", {int64_t{1}}); });
  EXPECT_STREQ(e.what(), "m.onnx: graph input 0 has an empty name");
  e = withInput([](ModelBuilder& b) {
    b.input("x", {int64_t{3}}, onnx::TensorProto::INT64);
    b.initializer(floatTensor("x", {3}, {1, 2, 3}));
  });
  EXPECT_STREQ(e.what(),
               "m.onnx: graph input 'x' is declared int64 but its initializer holds float");
}

// --- rejections: tensors (initializers; the same code reads Constant values and .pb files) ----

TEST(OnnxImporterErrors, BadInitializers) {
  auto withInit = [](const onnx::TensorProto& t) {
    ModelBuilder b = convReluModel();
    b.initializer(t);
    return importError(b);
  };
  Error e = withInit(floatTensor("short", {2, 3}, {1, 2, 3, 4, 5}));
  EXPECT_EQ(e.kind(), ErrorKind::Model);
  EXPECT_STREQ(e.what(), "m.onnx: initializer 'short' has 20 bytes of raw_data, expected 24 for "
                         "f32 shape 2x3");

  e = withInit(floatTensor("neg", {2, -1}, {}));
  EXPECT_STREQ(e.what(), "m.onnx: initializer 'neg' has dimension 1 = -1; dimensions must be "
                         "non-negative");

  e = withInit(floatTensor("huge", {int64_t{1} << 40, int64_t{1} << 40}, {}));
  EXPECT_STREQ(e.what(), "m.onnx: initializer 'huge' has dims 1099511627776x1099511627776 whose "
                         "element count overflows");

  onnx::TensorProto half = rawTensor<uint16_t>("half", onnx::TensorProto::BFLOAT16, {1}, {0});
  e = withInit(half);
  EXPECT_EQ(e.kind(), ErrorKind::Unsupported);
  EXPECT_STREQ(e.what(),
               "m.onnx: initializer 'half' has element type bfloat16, which nnaccel does "
               "not support (supported: float, float16, int8, uint8, int32, int64, bool)");

  e = withInit(rawTensor<double>("dbl", onnx::TensorProto::DOUBLE, {1}, {1.0}));
  EXPECT_STREQ(e.what(),
               "m.onnx: initializer 'dbl' has element type double, which nnaccel does "
               "not support (supported: float, float16, int8, uint8, int32, int64, bool)");

  onnx::TensorProto ext;
  ext.set_name("ext");
  ext.set_data_type(onnx::TensorProto::FLOAT);
  ext.add_dims(4);
  ext.set_data_location(onnx::TensorProto::EXTERNAL);
  auto* loc = ext.add_external_data();
  loc->set_key("location");
  loc->set_value("weights.bin");
  e = withInit(ext);
  EXPECT_EQ(e.kind(), ErrorKind::Unsupported);
  EXPECT_STREQ(e.what(), "m.onnx: initializer 'ext' uses external data, which nnaccel does not "
                         "read (save the model with all tensors embedded)");

  onnx::TensorProto typed;
  typed.set_name("typed");
  typed.set_data_type(onnx::TensorProto::FLOAT);
  typed.add_dims(3);
  typed.add_float_data(1);
  e = withInit(typed);
  EXPECT_STREQ(e.what(), "m.onnx: initializer 'typed' has 1 values in float_data, expected 3 for "
                         "shape 3");

  onnx::TensorProto wrongField = typed;
  wrongField.set_name("wrong");
  wrongField.clear_float_data();
  wrongField.add_int64_data(1);
  e = withInit(wrongField);
  EXPECT_STREQ(e.what(), "m.onnx: initializer 'wrong' has values in a typed data field that does "
                         "not match element type float");

  onnx::TensorProto both = floatTensor("both", {1}, {1});
  both.add_float_data(1);
  e = withInit(both);
  EXPECT_STREQ(e.what(), "m.onnx: initializer 'both' has both raw_data and typed data fields");

  onnx::TensorProto i8;
  i8.set_name("i8");
  i8.set_data_type(onnx::TensorProto::INT8);
  i8.add_dims(2);
  i8.add_int32_data(1);
  i8.add_int32_data(300);
  e = withInit(i8);
  EXPECT_STREQ(e.what(), "m.onnx: initializer 'i8' int32_data value 1 is 300, outside the range "
                         "of s8");

  e = withInit(rawTensor<uint8_t>("flag", onnx::TensorProto::BOOL, {2}, {1, 2}));
  EXPECT_STREQ(e.what(), "m.onnx: initializer 'flag' has bool element 1 = 2 in raw_data; "
                         "expected 0 or 1");

  onnx::TensorProto untyped = floatTensor("untyped", {1}, {1});
  untyped.set_data_type(onnx::TensorProto::UNDEFINED);
  e = withInit(untyped);
  EXPECT_EQ(e.kind(), ErrorKind::Model);
  EXPECT_STREQ(e.what(), "m.onnx: initializer 'untyped' has no element type");

  onnx::TensorProto odd = floatTensor("odd", {1}, {1});
  odd.set_data_type(77);
  e = withInit(odd);
  EXPECT_STREQ(e.what(),
               "m.onnx: initializer 'odd' has element type data type 77, which nnaccel "
               "does not support (supported: float, float16, int8, uint8, int32, int64, bool)");

  onnx::TensorProto seg = floatTensor("seg", {1}, {1});
  seg.mutable_segment()->set_begin(0);
  e = withInit(seg);
  EXPECT_STREQ(e.what(), "m.onnx: initializer 'seg' is segmented, which nnaccel does not support");

  e = withInit(floatTensor("", {1}, {1}));
  EXPECT_STREQ(e.what(), "m.onnx: initializer 2 has an empty name");

  ModelBuilder sparse = convReluModel();
  sparse.graph().add_sparse_initializer()->mutable_values()->set_name("sp");
  EXPECT_STREQ(importError(sparse).what(), "m.onnx: sparse initializer 'sp' is not supported");
}
