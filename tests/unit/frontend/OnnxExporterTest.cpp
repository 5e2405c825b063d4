// Tests for the ONNX exporter (src/frontend/OnnxExporter.cpp): the ModelProto it writes, that
// onnx::checker::check_model accepts it, and that re-importing gives back an equal graph, for a
// hand-built graph and for every backend test-data model nnaccel imports.
#include "OnnxModelBuilder.h"
#include "nnaccel/ir/ShapeInference.h"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <onnx/checker.h>

using namespace nnaccel;
using namespace nnaccel::frontend;
using namespace nnaccel::frontend::testing;
using ir::OpKind;

namespace {

std::string nameOf(const ir::Graph& g, ir::ValueId id) {
  return id == ir::kNoValue ? std::string("<none>") : g.value(id).name;
}

/// Asserts \p b is \p a after a trip through ONNX: same interface, nodes, attributes, constant
/// data and known shapes (value ids may differ; everything is compared by name).
void expectSameGraph(const ir::Graph& a, const ir::Graph& b) {
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.opsetVersion, b.opsetVersion);
  auto sameValue = [&](ir::ValueId va, ir::ValueId vb) {
    ASSERT_EQ(nameOf(a, va), nameOf(b, vb));
    if (va == ir::kNoValue) {
      return;
    }
    const ir::Value& x = a.value(va);
    const ir::Value& y = b.value(vb);
    EXPECT_EQ(x.constant != nullptr, y.constant != nullptr) << x.name;
    if (x.constant && y.constant) {
      EXPECT_EQ(*x.constant, *y.constant) << x.name;
    }
    if (x.shapeKnown && (x.constant || x.producer < 0)) {
      EXPECT_TRUE(y.shapeKnown) << x.name;
      EXPECT_EQ(x.shape, y.shape) << x.name;
      EXPECT_EQ(x.dtype, y.dtype) << x.name;
    }
  };
  ASSERT_EQ(a.inputs.size(), b.inputs.size());
  for (size_t i = 0; i < a.inputs.size(); ++i) {
    sameValue(a.inputs[i], b.inputs[i]);
  }
  ASSERT_EQ(a.outputs.size(), b.outputs.size());
  for (size_t i = 0; i < a.outputs.size(); ++i) {
    sameValue(a.outputs[i], b.outputs[i]);
  }
  ASSERT_EQ(a.numNodes(), b.numNodes());
  for (size_t n = 0; n < a.numNodes(); ++n) {
    const ir::Node& x = a.node(static_cast<ir::NodeId>(n));
    const ir::Node& y = b.node(static_cast<ir::NodeId>(n));
    EXPECT_EQ(x.op, y.op) << x.name;
    EXPECT_EQ(x.name, y.name);
    EXPECT_EQ(x.opset, y.opset) << x.name;
    EXPECT_TRUE(x.attrs == y.attrs) << x.name;
    ASSERT_EQ(x.inputs.size(), y.inputs.size()) << x.name;
    for (size_t i = 0; i < x.inputs.size(); ++i) {
      sameValue(x.inputs[i], y.inputs[i]);
    }
    ASSERT_EQ(x.outputs.size(), y.outputs.size()) << x.name;
    for (size_t i = 0; i < x.outputs.size(); ++i) {
      sameValue(x.outputs[i], y.outputs[i]);
    }
  }
  // Same shapes and dtypes everywhere once both are inferred.
  ir::Graph ia = a;
  ir::Graph ib = b;
  ir::inferShapes(ia);
  ir::inferShapes(ib);
  for (size_t v = 0; v < ia.numValues(); ++v) {
    const ir::Value& x = ia.value(static_cast<ir::ValueId>(v));
    std::optional<ir::ValueId> other = ib.findValue(x.name);
    if (!x.shapeKnown || !other) {
      continue; // unreferenced constants are not exported
    }
    EXPECT_TRUE(ib.value(*other).shapeKnown) << x.name;
    EXPECT_EQ(ib.value(*other).shape, x.shape) << x.name;
    EXPECT_EQ(ib.value(*other).dtype, x.dtype) << x.name;
  }
}

ir::Node makeNode(OpKind op, const std::string& name, std::vector<ir::ValueId> inputs,
                  std::vector<ir::ValueId> outputs) {
  ir::Node n;
  n.op = op;
  n.name = name;
  n.inputs = std::move(inputs);
  n.outputs = std::move(outputs);
  return n;
}

/// A graph built directly in the IR: Conv -> Relu -> Reshape -> Resize, with constants of
/// several dtypes, every attribute type, an omitted optional input and known shapes.
ir::Graph handBuiltGraph() {
  ir::Graph g;
  g.name = "hand_built";
  g.opsetVersion = 13;
  ir::ValueId x = g.addValue("x", DType::F32, {1, 2, 4, 4});
  g.inputs = {x};
  std::vector<float> w(3 * 2 * 3 * 3);
  for (size_t i = 0; i < w.size(); ++i) {
    w[i] = static_cast<float>(i) - 20.0f;
  }
  ir::ValueId wv = g.addConstant("w", Tensor::fromVector<float>({3, 2, 3, 3}, w));
  ir::ValueId bv = g.addConstant("b", Tensor::fromVector<float>({3}, {0.5f, -1, 2}));
  ir::ValueId c = g.addValue("c", DType::F32, {1, 3, 4, 4});
  ir::Node conv = makeNode(OpKind::Conv, "conv", {x, wv, bv}, {c});
  conv.opset = 13;
  conv.attrs.set("kernel_shape", std::vector<int64_t>{3, 3});
  conv.attrs.set("pads", std::vector<int64_t>{1, 1, 1, 1});
  conv.attrs.set("group", int64_t{1});
  conv.attrs.set("auto_pad", std::string("NOTSET"));
  g.addNode(conv);
  ir::ValueId r = g.addValue("r", DType::F32);
  ir::Node relu = makeNode(OpKind::Relu, "relu", {c}, {r});
  relu.opset = 13;
  g.addNode(relu);
  ir::ValueId shape = g.addConstant("shape", Tensor::fromVector<int64_t>({4}, {1, 3, 2, 8}));
  ir::ValueId rs = g.addValue("rs", DType::F32);
  ir::Node reshape = makeNode(OpKind::Reshape, "reshape", {r, shape}, {rs});
  reshape.opset = 13;
  g.addNode(reshape);
  ir::ValueId scales = g.addConstant("scales", Tensor::fromVector<float>({4}, {1, 1, 2, 2}));
  ir::ValueId y = g.addValue("y", DType::F32, {1, 3, 4, 16});
  ir::Node resize = makeNode(OpKind::Resize, "resize", {rs, ir::kNoValue, scales}, {y});
  resize.opset = 13;
  resize.attrs.set("mode", std::string("nearest"));
  resize.attrs.set("cubic_coeff_a", -0.5f);
  resize.attrs.set("__floats", std::vector<float>{0.25f, 8});
  resize.attrs.set("__strings", std::vector<std::string>{"p", "q"});
  resize.attrs.set("__tensor", Tensor::fromVector<uint8_t>({2}, {3, 250}));
  resize.fusedActivation = ir::FusedActivation{.activationNode = 1, .kind = OpKind::Relu};
  g.addNode(resize);
  g.addConstant("flags", Tensor::fromVector<bool>({2}, {true, false})); // unused
  ir::ValueId k = g.addConstant("k", Tensor::fromVector<int8_t>({2}, {-4, 7}));
  g.outputs = {y, k};
  return g;
}

onnx::ModelProto parseModel(const std::string& bytes) {
  onnx::ModelProto m;
  EXPECT_TRUE(m.ParseFromString(bytes));
  return m;
}

} // namespace

TEST(OnnxExporter, WritesModelProto) {
  const ir::Graph g = handBuiltGraph();
  onnx::ModelProto m = parseModel(exportOnnxBytes(g));
  EXPECT_EQ(m.ir_version(), 8);
  EXPECT_EQ(m.producer_name(), "nnaccel");
  ASSERT_EQ(m.opset_import_size(), 1);
  EXPECT_EQ(m.opset_import(0).domain(), "");
  EXPECT_EQ(m.opset_import(0).version(), 13);
  const onnx::GraphProto& gp = m.graph();
  EXPECT_EQ(gp.name(), "hand_built");
  ASSERT_EQ(gp.input_size(), 1);
  EXPECT_EQ(gp.input(0).name(), "x");
  const auto& xShape = gp.input(0).type().tensor_type().shape();
  ASSERT_EQ(xShape.dim_size(), 4);
  EXPECT_EQ(xShape.dim(3).dim_value(), 4);
  // Only referenced constants are written, as raw_data initializers.
  std::vector<std::string> inits;
  for (const auto& t : gp.initializer()) {
    inits.push_back(t.name());
    EXPECT_TRUE(t.has_raw_data()) << t.name();
  }
  EXPECT_EQ(inits, (std::vector<std::string>{"w", "b", "shape", "scales", "k"}));
  EXPECT_EQ(gp.initializer(0).raw_data().size(), 3u * 2 * 3 * 3 * 4);
  EXPECT_EQ(gp.initializer(4).data_type(), onnx::TensorProto::INT8);
  ASSERT_EQ(gp.node_size(), 4);
  const onnx::NodeProto& resize = gp.node(3);
  EXPECT_EQ(resize.op_type(), "Resize");
  EXPECT_EQ(resize.name(), "resize");
  ASSERT_EQ(resize.input_size(), 3);
  EXPECT_EQ(resize.input(1), ""); // omitted optional input
  // Every intermediate value gets value_info; the graph is inferred first where needed.
  ASSERT_EQ(gp.value_info_size(), 3);
  EXPECT_EQ(gp.value_info(0).name(), "c");
  EXPECT_EQ(gp.value_info(0).type().tensor_type().shape().dim(1).dim_value(), 3);
  EXPECT_EQ(gp.value_info(1).name(), "r");
  EXPECT_EQ(gp.value_info(2).name(), "rs");
  const auto& rsShape = gp.value_info(2).type().tensor_type().shape();
  ASSERT_EQ(rsShape.dim_size(), 4);
  EXPECT_EQ(rsShape.dim(2).dim_value(), 2);
  EXPECT_EQ(rsShape.dim(3).dim_value(), 8);
  ASSERT_EQ(gp.output_size(), 2);
  EXPECT_EQ(gp.output(0).type().tensor_type().shape().dim(3).dim_value(), 16);
  EXPECT_EQ(gp.output(1).type().tensor_type().elem_type(), onnx::TensorProto::INT8);
}

TEST(OnnxExporter, PassesCheckerAndRoundTrips) {
  const ir::Graph g = handBuiltGraph();
  const std::string bytes = exportOnnxBytes(g);
  onnx::ModelProto m = parseModel(bytes);
  EXPECT_NO_THROW(onnx::checker::check_model(m));
  ir::Graph back = importOnnxBytes(bytes, "hand_built.onnx");
  expectSameGraph(g, back);
  EXPECT_FALSE(back.node(3).fusedActivation.has_value()); // no ONNX form; not exported
}

TEST(OnnxExporter, SortsNodesTopologically) {
  ir::Graph g;
  g.opsetVersion = 13;
  ir::ValueId x = g.addValue("x", DType::F32, {2});
  g.inputs = {x};
  ir::ValueId a = g.addValue("a", DType::F32);
  ir::ValueId y = g.addValue("y", DType::F32);
  g.addNode(makeNode(OpKind::Sigmoid, "late", {a}, {y}));
  g.addNode(makeNode(OpKind::Relu, "early", {x}, {a}));
  g.outputs = {y};
  onnx::ModelProto m = parseModel(exportOnnxBytes(g));
  EXPECT_NO_THROW(onnx::checker::check_model(m));
  EXPECT_EQ(m.graph().node(0).name(), "early");
  EXPECT_EQ(m.graph().name(), "nnaccel"); // unnamed graphs get a name (the checker needs one)
}

TEST(OnnxExporter, FileRoundTripAndWriteError) {
  const ir::Graph g = handBuiltGraph();
  const std::string path = (std::filesystem::path(::testing::TempDir()) / "hb.onnx").string();
  exportOnnxFile(g, path);
  expectSameGraph(g, importOnnxFile(path));
  Error e = expectError([&] { exportOnnxFile(g, "/nonexistent/dir/out.onnx"); });
  EXPECT_EQ(e.kind(), ErrorKind::Io);
  EXPECT_STREQ(e.what(), "/nonexistent/dir/out.onnx: cannot open file for writing (No such file "
                         "or directory)");
  // /dev/full opens fine but every write fails (ENOSPC).
  if (std::filesystem::exists("/dev/full")) {
    e = expectError([&] { exportOnnxFile(g, "/dev/full"); });
    EXPECT_EQ(e.kind(), ErrorKind::Io);
    EXPECT_STREQ(e.what(), "/dev/full: write error");
  }
}

TEST(OnnxExporter, BackendModelsRoundTrip) {
  // Every backend test model nnaccel imports must export to a checker-valid model that
  // re-imports to the same graph.
  int roundTripped = 0;
  for (const char* suite : {"node", "pytorch-converted", "pytorch-operator"}) {
    for (const auto& dir : std::filesystem::directory_iterator(kOnnxTestData + "/" + suite)) {
      const std::string path = (dir.path() / "model.onnx").string();
      ir::Graph g;
      try {
        g = importOnnxFile(path);
        ir::Graph inferred = g;
        ir::inferShapes(inferred);
      } catch (const Error&) {
        continue; // rejected models are covered by the importer and shape-inference tests
      }
      const std::string bytes = exportOnnxBytes(g);
      try {
        onnx::checker::check_model(parseModel(bytes));
      } catch (const std::exception& e) {
        ADD_FAILURE() << path << ": exported model fails the onnx checker: " << e.what();
        continue;
      }
      SCOPED_TRACE(path);
      expectSameGraph(g, importOnnxBytes(bytes, path));
      ++roundTripped;
    }
  }
  EXPECT_GE(roundTripped, 240);
}
