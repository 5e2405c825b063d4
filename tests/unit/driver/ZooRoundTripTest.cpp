// Round trip of every zoo model through ONNX: build -> export gives a model the ONNX checker
// accepts, and import gives the same graph structure and, after the driver's pipeline,
// bit-identical fp32 outputs on the reference executor. Built twice: the big models
// (NNACCEL_ROUNDTRIP_SLOW=1) form a test binary labelled "slow" so the sanitizer run can skip them.
#include "nnaccel/driver/Inputs.h"
#include "nnaccel/driver/ModelLoader.h"
#include "nnaccel/frontend/Onnx.h"
#include "nnaccel/ir/ShapeInference.h"
#include "nnaccel/quant/QuantizedModel.h"
#include "nnaccel/reference/Executor.h"
#include "nnaccel/zoo/Zoo.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <onnx/checker.h>
#include <onnx/onnx_pb.h>

#ifndef NNACCEL_ROUNDTRIP_SLOW
#define NNACCEL_ROUNDTRIP_SLOW 0
#endif

using namespace nnaccel;

namespace {

/// Models with tens of millions of weights or GMACs of work: minutes under the sanitizers.
bool isSlowModel(const std::string& name) {
  static const std::vector<std::string> kSlow = {"alexnet", "vgg16", "resnet50", "alexnet-caffe"};
  return std::find(kSlow.begin(), kSlow.end(), name) != kSlow.end();
}

std::vector<std::string> modelsOfThisBinary() {
  std::vector<std::string> names;
  for (const zoo::ZooModel& m : zoo::zooModels()) {
    if (isSlowModel(m.name) == static_cast<bool>(NNACCEL_ROUNDTRIP_SLOW)) {
      names.push_back(m.name);
    }
  }
  return names;
}

class ZooRoundTrip : public ::testing::TestWithParam<std::string> {};

} // namespace

TEST_P(ZooRoundTrip, ExportImportGivesIdenticalOutputs) {
  const zoo::ZooModel* model = zoo::findZooModel(GetParam());
  ASSERT_NE(model, nullptr);
  ir::Graph built = model->build(zoo::kDefaultSeed);
  ir::inferShapes(built);
  const std::string bytes = frontend::exportOnnxBytes(built);
  {
    // `nnaccel zoo export` promises a file that passes the ONNX checker.
    onnx::ModelProto proto;
    ASSERT_TRUE(proto.ParseFromString(bytes));
    try {
      onnx::checker::check_model(proto);
    } catch (const std::exception& e) {
      FAIL() << model->name << ": the exported model fails the onnx checker: " << e.what();
    }
  }
  ir::Graph imported = frontend::importOnnxBytes(bytes, model->name + ".onnx");

  // Same structure: ops, node names, interface names, and constant data.
  ASSERT_EQ(imported.numNodes(), built.numNodes());
  for (size_t i = 0; i < built.numNodes(); ++i) {
    const auto id = static_cast<ir::NodeId>(i);
    EXPECT_EQ(imported.node(id).op, built.node(id).op) << i;
    EXPECT_EQ(imported.node(id).name, built.node(id).name) << i;
    EXPECT_EQ(imported.node(id).attrs, built.node(id).attrs) << built.node(id).name;
    ASSERT_EQ(imported.node(id).inputs.size(), built.node(id).inputs.size());
    for (size_t k = 0; k < built.node(id).inputs.size(); ++k) {
      const ir::ValueId a = built.node(id).inputs[k];
      const ir::ValueId b = imported.node(id).inputs[k];
      if (built.isConstant(a)) {
        ASSERT_TRUE(imported.isConstant(b)) << built.node(id).name << " input " << k;
        EXPECT_TRUE(*built.value(a).constant == *imported.value(b).constant)
            << built.node(id).name << " input " << k;
      }
    }
  }
  ASSERT_EQ(imported.inputs.size(), built.inputs.size());
  ASSERT_EQ(imported.outputs.size(), built.outputs.size());
  EXPECT_EQ(imported.value(imported.inputs[0]).name, built.value(built.inputs[0]).name);
  EXPECT_EQ(imported.value(imported.inputs[0]).shape, model->inputShape);

  driver::prepareGraph(built);
  driver::prepareGraph(imported);
  const std::vector<Tensor> inputs = quant::randomInputs(built, 11);
  reference::Executor builtExec(built);
  reference::Executor importedExec(imported);
  const std::vector<Tensor> expected = builtExec.run(inputs);
  const std::vector<Tensor> actual = importedExec.run(inputs);
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(actual[i].shape(), expected[i].shape());
    EXPECT_TRUE(actual[i] == expected[i]) << "output " << i << " differs";
    // A round trip that produced all zeros would pass trivially: the output must carry data.
    const auto values = expected[i].values<float>();
    EXPECT_TRUE(std::any_of(values.begin(), values.end(), [](float v) { return v != 0.0f; }));
  }
}

INSTANTIATE_TEST_SUITE_P(Zoo, ZooRoundTrip, ::testing::ValuesIn(modelsOfThisBinary()),
                         [](const ::testing::TestParamInfo<std::string>& param) {
                           // gtest names allow letters, digits and '_' ("alexnet-caffe").
                           std::string name = param.param;
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(ZooRoundTrip);
