// Tests for the Caffe BVLC models of the zoo (alexnet-caffe, googlenet), the models the SCNN
// paper evaluated: Caffe's layer names, the layer counts and groups of the deploy.prototxt files,
// Caffe's ceil-mode pooled extents, and the per-layer multiply counts of the convolutions.
#include "ZooTestSupport.h"
#include "nnaccel/ir/OpParams.h"
#include "nnaccel/ir/ShapeInference.h"
#include "nnaccel/zoo/Zoo.h"

#include <gtest/gtest.h>
#include <map>
#include <string>
#include <vector>

using namespace nnaccel;
using namespace nnaccel::zoo;
using nnaccel::zoo::test::countOps;

namespace {

/// The model \p name, built with the default seed and its shapes inferred.
ir::Graph built(const std::string& name) {
  ir::Graph g = findZooModel(name)->build(kDefaultSeed);
  ir::inferShapes(g);
  return g;
}

/// Multiplies of every Conv node, by node name, in graph order.
std::vector<std::pair<std::string, int64_t>> convMacs(const ir::Graph& g) {
  std::vector<std::pair<std::string, int64_t>> out;
  for (size_t i = 0; i < g.numNodes(); ++i) {
    const auto id = static_cast<ir::NodeId>(i);
    if (g.node(id).op == ir::OpKind::Conv) {
      out.emplace_back(g.node(id).name, ir::convParams(g, id).macs());
    }
  }
  return out;
}

const ir::Node& nodeNamed(const ir::Graph& g, const std::string& name) {
  for (const ir::Node& n : g.nodes()) {
    if (n.name == name) {
      return n;
    }
  }
  ADD_FAILURE() << "no node " << name;
  return g.node(0);
}

Dims outputShape(const ir::Graph& g, const std::string& node) {
  return g.value(nodeNamed(g, node).outputs[0]).shape;
}

} // namespace

TEST(CaffeZoo, AlexNetIsBvlcAlexNet) {
  const ir::Graph g = built("alexnet-caffe");
  // Five convolutions, conv2/4/5 in two groups; the multiplies of bvlc_alexnet at 227x227
  // (M * Ho * Wo * C/g * k * k): 96*55*55*3*121, 256*27*27*48*25, 384*13*13*256*9,
  // 384*13*13*192*9, 256*13*13*192*9.
  const std::vector<std::pair<std::string, int64_t>> expected = {{"conv1", 105'415'200},
                                                                 {"conv2", 223'948'800},
                                                                 {"conv3", 149'520'384},
                                                                 {"conv4", 112'140'288},
                                                                 {"conv5", 74'760'192}};
  EXPECT_EQ(convMacs(g), expected);
  int64_t total = 0;
  for (const auto& [name, macs] : expected) {
    total += macs;
  }
  EXPECT_EQ(total, 665'784'864);
  std::vector<int64_t> groups;
  for (const ir::Node& n : g.nodes()) {
    if (n.op == ir::OpKind::Conv) {
      groups.push_back(n.attrs.getInt("group", 1));
    }
  }
  EXPECT_EQ(groups, (std::vector<int64_t>{1, 2, 1, 2, 2}));
  EXPECT_EQ(countOps(g, ir::OpKind::LRN), 2);
  EXPECT_EQ(countOps(g, ir::OpKind::MaxPool), 3);
  EXPECT_EQ(countOps(g, ir::OpKind::Gemm), 3);
  EXPECT_EQ(countOps(g, ir::OpKind::Relu), 7);
  EXPECT_EQ(countOps(g, ir::OpKind::Softmax), 1);
  EXPECT_EQ(countOps(g, ir::OpKind::Dropout), 0);
  EXPECT_EQ(g.numNodes(), 22u); // those and the Flatten (docs/Zoo.md)
  // Caffe's layer names and extents: 227 -> 55 -> 27 -> 27 -> 13 -> 13 -> 6.
  EXPECT_EQ(outputShape(g, "conv1"), Dims({1, 96, 55, 55}));
  EXPECT_EQ(outputShape(g, "norm1"), Dims({1, 96, 55, 55}));
  EXPECT_EQ(outputShape(g, "pool1"), Dims({1, 96, 27, 27}));
  EXPECT_EQ(outputShape(g, "conv2"), Dims({1, 256, 27, 27}));
  EXPECT_EQ(outputShape(g, "pool2"), Dims({1, 256, 13, 13}));
  EXPECT_EQ(outputShape(g, "conv5"), Dims({1, 256, 13, 13}));
  EXPECT_EQ(outputShape(g, "pool5"), Dims({1, 256, 6, 6}));
  EXPECT_EQ(outputShape(g, "fc6"), Dims({1, 4096}));
  EXPECT_EQ(outputShape(g, "fc8"), Dims({1, 1000}));
  // LRN before the pool (bvlc_alexnet; CaffeNet has them the other way round).
  const ir::Node& norm1 = nodeNamed(g, "norm1");
  EXPECT_EQ(g.value(norm1.inputs[0]).name, "relu1");
  EXPECT_EQ(norm1.attrs.getInt("size", 0), 5);
  EXPECT_EQ(norm1.attrs.getFloat("alpha", 0.0f), 1e-4f);
  EXPECT_EQ(norm1.attrs.getFloat("beta", 0.0f), 0.75f);
  EXPECT_EQ(nodeNamed(g, "pool1").attrs.getInt("ceil_mode", 0), 1);
  const ir::Node& prob = g.node(static_cast<ir::NodeId>(g.numNodes() - 1));
  EXPECT_EQ(prob.name, "prob");
  EXPECT_EQ(prob.op, ir::OpKind::Softmax);
  EXPECT_EQ(g.value(prob.inputs[0]).name, "fc8");
  // Grouped weights: [M, C / group, k, k].
  EXPECT_EQ(g.value(nodeNamed(g, "conv2").inputs[1]).constant->shape(), Dims({256, 48, 5, 5}));
}

TEST(CaffeZoo, GoogLeNetIsBvlcGoogLeNet) {
  const ir::Graph g = built("googlenet");
  const auto macs = convMacs(g);
  // 3 in the stem, 6 in each of the 9 Inception modules.
  ASSERT_EQ(macs.size(), 57u);
  int inInception = 0;
  int64_t stem = 0, inception = 0;
  std::map<std::string, int64_t> byName;
  for (const auto& [name, m] : macs) {
    const bool module = name.rfind("inception_", 0) == 0;
    inInception += module ? 1 : 0;
    (module ? inception : stem) += m;
    byName[name] = m;
  }
  EXPECT_EQ(inInception, 54);
  // Derived independently from the deploy.prototxt layer table (docs/Zoo.md):
  // conv1/7x7_s2 64*112*112*3*49 = 118,013,952; conv2/3x3_reduce 64*56*56*64 = 12,845,056;
  // conv2/3x3 192*56*56*64*9 = 346,816,512.
  EXPECT_EQ(byName.at("conv1/7x7_s2"), 118'013'952);
  EXPECT_EQ(byName.at("conv2/3x3_reduce"), 12'845'056);
  EXPECT_EQ(byName.at("conv2/3x3"), 346'816'512);
  EXPECT_EQ(stem, 477'675'520);
  EXPECT_EQ(inception, 1'103'972'352);
  EXPECT_EQ(stem + inception, 1'581'647'872);
  // 4e's 5x5 branch at 14x14: 32 = 14*14*32*528, 128 = 14*14*128*32*25.
  EXPECT_EQ(byName.at("inception_4e/5x5_reduce"), 3'311'616);
  EXPECT_EQ(byName.at("inception_4e/5x5"), 20'070'400);
  EXPECT_EQ(countOps(g, ir::OpKind::LRN), 2);
  EXPECT_EQ(countOps(g, ir::OpKind::Concat), 9);
  EXPECT_EQ(countOps(g, ir::OpKind::MaxPool), 4 + 9);
  EXPECT_EQ(countOps(g, ir::OpKind::AveragePool), 1);
  EXPECT_EQ(countOps(g, ir::OpKind::Relu), 57);
  EXPECT_EQ(countOps(g, ir::OpKind::Gemm), 1);
  EXPECT_EQ(countOps(g, ir::OpKind::Softmax), 1);
  EXPECT_EQ(g.numNodes(), 142u); // those and the Flatten (docs/Zoo.md)
  // Caffe's ceil-mode extents: 224 -> 112 -> 56 (floor would give 55) -> 28 -> 14 -> 7 -> 1.
  EXPECT_EQ(outputShape(g, "conv1/7x7_s2"), Dims({1, 64, 112, 112}));
  EXPECT_EQ(outputShape(g, "pool1/3x3_s2"), Dims({1, 64, 56, 56}));
  EXPECT_EQ(outputShape(g, "pool1/norm1"), Dims({1, 64, 56, 56}));
  EXPECT_EQ(outputShape(g, "conv2/norm2"), Dims({1, 192, 56, 56}));
  EXPECT_EQ(outputShape(g, "pool2/3x3_s2"), Dims({1, 192, 28, 28}));
  EXPECT_EQ(outputShape(g, "inception_3a/output"), Dims({1, 256, 28, 28}));
  EXPECT_EQ(outputShape(g, "inception_3b/output"), Dims({1, 480, 28, 28}));
  EXPECT_EQ(outputShape(g, "pool3/3x3_s2"), Dims({1, 480, 14, 14}));
  EXPECT_EQ(outputShape(g, "inception_4a/output"), Dims({1, 512, 14, 14}));
  EXPECT_EQ(outputShape(g, "inception_4d/output"), Dims({1, 528, 14, 14}));
  EXPECT_EQ(outputShape(g, "inception_4e/output"), Dims({1, 832, 14, 14}));
  EXPECT_EQ(outputShape(g, "pool4/3x3_s2"), Dims({1, 832, 7, 7}));
  EXPECT_EQ(outputShape(g, "inception_5b/output"), Dims({1, 1024, 7, 7}));
  EXPECT_EQ(outputShape(g, "pool5/7x7_s1"), Dims({1, 1024, 1, 1}));
  EXPECT_EQ(outputShape(g, "loss3/classifier"), Dims({1, 1000}));
  EXPECT_EQ(nodeNamed(g, "pool1/3x3_s2").attrs.getInt("ceil_mode", 0), 1);
  // A module: branches in Caffe's order (1x1, 3x3, 5x5, pool_proj), each conv with its ReLU.
  const ir::Node& out = nodeNamed(g, "inception_4e/output");
  std::vector<std::string> branches;
  for (ir::ValueId v : out.inputs) {
    branches.push_back(g.value(v).name);
  }
  EXPECT_EQ(branches,
            (std::vector<std::string>{"inception_4e/relu_1x1", "inception_4e/relu_3x3",
                                      "inception_4e/relu_5x5", "inception_4e/relu_pool_proj"}));
  EXPECT_EQ(g.value(nodeNamed(g, "inception_4e/5x5").inputs[0]).name,
            "inception_4e/relu_5x5_reduce");
  EXPECT_EQ(g.value(nodeNamed(g, "inception_4e/pool_proj").inputs[0]).name, "inception_4e/pool");
  EXPECT_EQ(nodeNamed(g, "inception_4e/pool").attrs.getInts("pads", {}),
            (std::vector<int64_t>{1, 1, 1, 1}));
  const ir::Node& prob = g.node(static_cast<ir::NodeId>(g.numNodes() - 1));
  EXPECT_EQ(prob.name, "prob");
  EXPECT_EQ(g.value(prob.inputs[0]).name, "loss3/classifier");
  EXPECT_EQ(g.value(nodeNamed(g, "loss3/classifier").inputs[1]).constant->shape(),
            Dims({1000, 1024}));
}

TEST(CaffeZoo, CountsWithoutWeightsMatchTheCaffeModels) {
  // What `nnaccel zoo list` prints: the parameters of the BVLC .caffemodel files.
  EXPECT_EQ(findZooModel("alexnet-caffe")->counts().params, 60'965'224);
  EXPECT_EQ(findZooModel("googlenet")->counts().params, 6'998'552);
  // Conv + Gemm multiplies: AlexNet's three InnerProducts add 9216*4096 + 4096*4096 +
  // 4096*1000; GoogLeNet's classifier 1024*1000.
  EXPECT_EQ(findZooModel("alexnet-caffe")->counts().macs,
            665'784'864 + 37'748'736 + 16'777'216 + 4'096'000);
  EXPECT_EQ(findZooModel("googlenet")->counts().macs, 1'581'647'872 + 1'024'000);
}
