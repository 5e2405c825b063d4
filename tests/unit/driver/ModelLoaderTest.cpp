// Tests for driver::loadModel: zoo names and files, the pass pipeline switch, seeds, and the
// error for a MODEL that is neither a file nor a zoo model.
#include "nnaccel/driver/ModelLoader.h"

#include "nnaccel/reference/Executor.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>

using namespace nnaccel;
using namespace nnaccel::ir;
namespace fs = std::filesystem;

namespace {

fs::path tempDir() {
  const fs::path dir = fs::path(::testing::TempDir()) / "nnaccel_driver_loader";
  fs::create_directories(dir);
  return dir;
}

Tensor ramp(Dims shape, float start, float step) {
  Tensor t(DType::F32, std::move(shape));
  float v = start;
  for (float& x : t.values<float>()) {
    x = v;
    v += step;
  }
  return t;
}

/// x[1,2,5,5] -> Conv(3 filters 3x3, pad 1, bias) -> BatchNormalization -> Relu -> y, opset 13.
Graph convBnRelu() {
  Graph g;
  g.name = "conv_bn_relu";
  g.opsetVersion = 13;
  const ValueId x = g.addValue("x", DType::F32, {1, 2, 5, 5});
  g.inputs = {x};
  auto add = [&](OpKind op, const std::string& name, std::vector<ValueId> inputs, AttrMap attrs) {
    Node n;
    n.op = op;
    n.name = name;
    n.opset = 13;
    n.inputs = std::move(inputs);
    n.attrs = std::move(attrs);
    const ValueId out = g.addValue(name + "_out", DType::F32);
    n.outputs = {out};
    g.addNode(std::move(n));
    return out;
  };
  AttrMap conv;
  conv.set("kernel_shape", std::vector<int64_t>{3, 3});
  conv.set("pads", std::vector<int64_t>{1, 1, 1, 1});
  const ValueId c = add(OpKind::Conv, "conv",
                        {x, g.addConstant("w", ramp({3, 2, 3, 3}, -0.5f, 0.02f)),
                         g.addConstant("b", ramp({3}, 0.1f, 0.1f))},
                        conv);
  AttrMap bn;
  bn.set("epsilon", 1e-5f);
  const ValueId n = add(OpKind::BatchNormalization, "bn",
                        {c, g.addConstant("scale", ramp({3}, 0.5f, 0.25f)),
                         g.addConstant("bias", ramp({3}, -0.2f, 0.2f)),
                         g.addConstant("mean", ramp({3}, 0.05f, 0.05f)),
                         g.addConstant("var", ramp({3}, 0.8f, 0.3f))},
                        bn);
  g.outputs = {add(OpKind::Relu, "relu", {n}, {})};
  return g;
}

size_t countOps(const Graph& g, OpKind op) {
  return static_cast<size_t>(std::count_if(g.nodes().begin(), g.nodes().end(),
                                           [&](const Node& node) { return node.op == op; }));
}

} // namespace

TEST(ModelLoader, NeitherFileNorZooModelIsAUsageError) {
  for (const std::string model : {"no_such_model", "missing/dir/model.onnx"}) {
    try {
      driver::loadModel(model);
      FAIL() << "expected an error for " << model;
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::Usage);
      EXPECT_EQ(std::string(e.what()),
                "model '" + model +
                    "': no such file and no zoo model of that name (see 'nnaccel zoo list')");
    }
  }
}

TEST(ModelLoader, DirectoryIsAnIoError) {
  const std::string dir = tempDir().string();
  try {
    driver::loadModel(dir);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Io);
    EXPECT_EQ(std::string(e.what()), dir + ": is a directory, not an onnx file");
  }
}

TEST(ModelLoader, GarbageFileErrorNamesTheFile) {
  const std::string path = (tempDir() / "garbage.onnx").string();
  {
    std::ofstream out(path, std::ios::binary);
    out << "\x08\x07garbage that is not a ModelProto\xff\xff\xff";
  }
  try {
    driver::loadModel(path);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(e.kind(), ErrorKind::Usage);
    EXPECT_EQ(std::string(e.what()).rfind(path + ": ", 0), 0u) << e.what();
  }
}

TEST(ModelLoader, ZooModelIsShapeInferredAndVerified) {
  const Graph g = driver::loadModel("lenet5");
  EXPECT_EQ(g.name, "lenet5");
  ASSERT_EQ(g.inputs.size(), 1u);
  EXPECT_EQ(g.value(g.inputs[0]).shape, (Dims{1, 1, 32, 32}));
  ASSERT_EQ(g.outputs.size(), 1u);
  EXPECT_TRUE(g.value(g.outputs[0]).shapeKnown);
  EXPECT_EQ(g.value(g.outputs[0]).shape, (Dims{1, 10}));
  for (size_t i = 0; i < g.numValues(); ++i) {
    const Value& v = g.value(static_cast<ValueId>(i));
    if (v.producer >= 0) {
      EXPECT_TRUE(v.shapeKnown) << v.name;
    }
  }
}

TEST(ModelLoader, DemoAliasAndZooSeed) {
  ASSERT_NE(driver::resolveZooModel("demo"), nullptr);
  EXPECT_EQ(driver::resolveZooModel("demo")->name, zoo::kDemoModel);
  EXPECT_EQ(driver::resolveZooModel("nope"), nullptr);

  driver::LoadOptions a;
  driver::LoadOptions b;
  b.zooSeed = a.zooSeed + 1;
  const Graph ga = driver::loadModel("lenet5", a);
  const Graph gb = driver::loadModel("lenet5", b);
  const Graph ga2 = driver::loadModel("lenet5", a);
  auto weights = [](const Graph& g) {
    const Node& conv = g.node(0);
    EXPECT_EQ(conv.op, OpKind::Conv);
    return *g.value(conv.inputs.at(1)).constant;
  };
  EXPECT_EQ(weights(ga), weights(ga2));
  EXPECT_NE(weights(ga), weights(gb));
}

TEST(ModelLoader, FileImportRunsThePassPipelineUnlessRaw) {
  const std::string path = (tempDir() / "conv_bn_relu.onnx").string();
  frontend::exportOnnxFile(convBnRelu(), path);

  driver::LoadOptions rawOptions;
  rawOptions.runPasses = false;
  const Graph raw = driver::loadModel(path, rawOptions);
  const Graph folded = driver::loadModel(path);
  EXPECT_EQ(raw.sourcePath, path);
  EXPECT_EQ(countOps(raw, OpKind::BatchNormalization), 1u);
  EXPECT_EQ(countOps(folded, OpKind::BatchNormalization), 0u);
  EXPECT_EQ(countOps(folded, OpKind::Conv), 1u);

  // Folding changes rounding only: both graphs compute the same function.
  const Tensor x = ramp({1, 2, 5, 5}, -1.0f, 0.04f);
  reference::Executor rawExec(raw);
  reference::Executor foldedExec(folded);
  const Tensor yRaw = rawExec.run({x}).at(0);
  const Tensor yFolded = foldedExec.run({x}).at(0);
  ASSERT_EQ(yRaw.shape(), (Dims{1, 3, 5, 5}));
  ASSERT_EQ(yFolded.shape(), yRaw.shape());
  int positives = 0;
  for (int64_t i = 0; i < yRaw.numElements(); ++i) {
    EXPECT_NEAR(yFolded.values<float>()[i], yRaw.values<float>()[i], 1e-5f) << i;
    positives += yRaw.values<float>()[i] > 0.0f;
  }
  EXPECT_GT(positives, 0); // the test input exercises both sides of the Relu
  EXPECT_LT(positives, yRaw.numElements());
}

TEST(ModelLoader, ExistingFileWinsOverZooName) {
  // A file called "lenet5" in the working directory is imported, not the zoo model.
  const fs::path dir = tempDir() / "shadow";
  fs::create_directories(dir);
  {
    std::ofstream out(dir / "lenet5", std::ios::binary);
    out << "not onnx";
  }
  const fs::path saved = fs::current_path();
  fs::current_path(dir);
  EXPECT_THROW(driver::loadModel("lenet5"), Error);
  fs::current_path(saved);
}

TEST(ModelLoader, ModelSourceAndSymbolicBindings) {
  const std::string path = (tempDir() / "model_source.onnx").string();
  frontend::exportOnnxFile(convBnRelu(), path);
  EXPECT_EQ(driver::modelSource(path), driver::ModelSource::File);
  EXPECT_EQ(driver::modelSource("lenet5"), driver::ModelSource::Zoo);
  EXPECT_EQ(driver::modelSource("demo"), driver::ModelSource::Zoo);
  EXPECT_EQ(driver::modelSource("nosuch"), driver::ModelSource::None);
  EXPECT_EQ(driver::modelSource(tempDir().string()), driver::ModelSource::None);

  frontend::ImportOptions options;
  EXPECT_FALSE(driver::bindsSymbolicDims(options));
  options.defaultSymbolicDim = 4;
  EXPECT_TRUE(driver::bindsSymbolicDims(options));
  options.defaultSymbolicDim = 1;
  options.dimParams["N"] = 1;
  EXPECT_TRUE(driver::bindsSymbolicDims(options));

  // A zoo model takes the batch (the default binding) as its batch; a named binding is a usage
  // error (zoo models have no named dimensions). For a file bindings are applied by the
  // importer (this file has no symbolic dimension, so they change nothing).
  driver::LoadOptions load;
  load.import.defaultSymbolicDim = 2;
  const Graph lenet = driver::loadModel("lenet5", load);
  EXPECT_EQ(lenet.value(lenet.inputs[0]).shape, (Dims{2, 1, 32, 32}));
  EXPECT_EQ(lenet.value(lenet.outputs[0]).shape, (Dims{2, 10}));
  driver::LoadOptions named = load;
  named.import.dimParams["N"] = 2;
  try {
    driver::loadModel("lenet5", named);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Usage);
    EXPECT_STREQ(e.what(), "model 'lenet5' is a zoo model with no named input dimensions; --dim "
                           "applies to .onnx files only (--batch sets a zoo model's batch)");
  }
  const Graph g = driver::loadModel(path, load);
  EXPECT_EQ(g.value(g.inputs[0]).shape, (Dims{1, 2, 5, 5}));
}
