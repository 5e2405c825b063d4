/// \file
/// Graphs and SCALE-Sim topologies: export-topology's rows for zoo models (padded sizes, MACs
/// equal to the zoo's, DP rows for depthwise convolutions, one row per group, FC rows, skipped
/// ConvTranspose, batch > 1 refused) and the graph `simulate` builds from a topology (chained
/// layers, own inputs, one depthwise Conv per DP row, seeded weights), through driver::loadModel.
#include "nnaccel/scalesim/TopologyGraph.h"

#include "DataPath.h"
#include "nnaccel/driver/ModelLoader.h"
#include "nnaccel/ir/OpParams.h"
#include "nnaccel/support/Error.h"
#include "nnaccel/zoo/GraphBuilder.h"
#include "nnaccel/zoo/Zoo.h"

#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <gtest/gtest.h>

using namespace nnaccel;
using namespace nnaccel::scalesim;

namespace {

using nnaccel::scalesim::test::dataPath;

int64_t topologyMacs(const std::vector<Layer>& layers) {
  // Through the text, so that DP rows count as SCALE-Sim splits them.
  const Topology t = parseTopologyText(formatTopology(layers), "x.csv", TopologyFormat::Conv);
  int64_t macs = 0;
  for (const Layer& l : t.layers) {
    macs += l.macs();
  }
  return macs;
}

int64_t graphMacs(const ir::Graph& g) {
  int64_t macs = 0;
  for (ir::NodeId id = 0; id < static_cast<ir::NodeId>(g.numNodes()); ++id) {
    if (g.node(id).op == ir::OpKind::Conv) {
      macs += ir::convParams(g, id).macs();
    }
  }
  return macs;
}

TEST(ScaleSimTopologyGraph, ExportsResNet18) {
  const ir::Graph g = driver::loadModel("resnet18");
  const ExportedTopology t = topologyFromGraph(g);
  ASSERT_EQ(t.layers.size(), 21u); // 20 convolutions and the FC layer
  EXPECT_TRUE(t.skipped.empty());
  const Layer& conv1 = t.layers[0];
  EXPECT_EQ(conv1.name, "conv1");
  // 224 + 2 * 3 padding = 230, of which a 7x7 window at stride 2 reads 229 for 112 outputs.
  EXPECT_EQ(conv1.ifmapHeight, 229);
  EXPECT_EQ(conv1.ofmapHeight(), 112);
  EXPECT_EQ(t.layers[1].ifmapHeight, 58); // 56 + 2
  const Layer& fc = t.layers.back();
  EXPECT_EQ(fc.ifmapHeight, 1);
  EXPECT_EQ(fc.channels, 512);
  EXPECT_EQ(fc.numFilters, 1000);
  EXPECT_EQ(topologyMacs(t.layers), zoo::findZooModel("resnet18")->counts().macs);
}

TEST(ScaleSimTopologyGraph, ExportsDepthwiseAsDpRows) {
  const ir::Graph g = driver::loadModel("mobilenetv2");
  const ExportedTopology t = topologyFromGraph(g);
  int64_t dpRows = 0;
  for (const Layer& l : t.layers) {
    if (l.name.find("DP") != std::string::npos) {
      ++dpRows;
      EXPECT_EQ(l.name.substr(l.name.size() - 3), "_DP");
      EXPECT_EQ(l.numFilters, 1); // channel multiplier
    }
  }
  EXPECT_EQ(dpRows, 17);
  EXPECT_EQ(topologyMacs(t.layers), zoo::findZooModel("mobilenetv2")->counts().macs);
}

ir::Graph smallGraph(int64_t batch, int64_t group, const std::string& name) {
  zoo::GraphBuilder b("g", 1);
  const ir::ValueId x = b.input("input", {batch, 4, 8, 8});
  const ir::ValueId y =
      b.conv(name, x, {.outChannels = 8, .kernel = 3, .stride = 2, .pad = 1, .group = group});
  b.output(y, "output");
  ir::Graph g = b.finish();
  driver::prepareGraph(g);
  return g;
}

TEST(ScaleSimTopologyGraph, GroupedConvolutionAndNames) {
  const ExportedTopology t = topologyFromGraph(smallGraph(1, 2, "a,DP"));
  ASSERT_EQ(t.layers.size(), 2u);
  EXPECT_EQ(t.layers[0].name, "a_Dp_g0"); // no comma, and no "DP" that would split the row
  EXPECT_EQ(t.layers[1].name, "a_Dp_g1");
  EXPECT_EQ(t.layers[0].channels, 2);
  EXPECT_EQ(t.layers[0].numFilters, 4);
  EXPECT_EQ(t.layers[0].ifmapHeight, 9); // 8 + 2 padding, of which stride 2 reads 9
  EXPECT_EQ(t.layers[0].ofmapHeight(), 4);
}

TEST(ScaleSimTopologyGraph, RefusesBatchAndSkipsConvTranspose) {
  try {
    topologyFromGraph(smallGraph(2, 1, "c"));
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Unsupported);
    EXPECT_EQ(std::string(e.what()), "node 'c' (Conv): batch 2: a SCALE-Sim topology describes "
                                     "one image (export the model at batch 1)");
  }
  const ExportedTopology dcgan = topologyFromGraph(driver::loadModel("dcgan"));
  EXPECT_FALSE(dcgan.skipped.empty());
  EXPECT_NE(dcgan.skipped[0].find("(ConvTranspose)"), std::string::npos);
}

/// y = MatMul(a, w) with w a constant [3, 4], and z = MatMul(a, b) of two runtime inputs; or, with
/// \p conv3d, a 3-D Conv.
ir::Graph handGraph(bool conv3d) {
  ir::Graph g;
  g.name = "hand";
  g.opsetVersion = 13;
  auto node = [&](ir::OpKind op, const std::string& name, std::vector<ir::ValueId> inputs,
                  ir::AttrMap attrs = {}) {
    ir::Node n;
    n.op = op;
    n.name = name;
    n.opset = 13;
    n.inputs = std::move(inputs);
    n.attrs = std::move(attrs);
    n.outputs = {g.addValue(name, DType::F32)};
    g.outputs.push_back(n.outputs[0]);
    g.addNode(std::move(n));
  };
  if (conv3d) {
    const ir::ValueId x = g.addValue("x", DType::F32, {1, 1, 4, 4, 4});
    g.inputs = {x};
    Tensor w(DType::F32, {1, 1, 2, 2, 2});
    ir::AttrMap attrs;
    attrs.set("kernel_shape", std::vector<int64_t>{2, 2, 2});
    node(ir::OpKind::Conv, "c3", {x, g.addConstant("w", std::move(w))}, std::move(attrs));
  } else {
    const ir::ValueId a = g.addValue("a", DType::F32, {2, 3});
    const ir::ValueId b = g.addValue("b", DType::F32, {3, 4});
    g.inputs = {a, b};
    node(ir::OpKind::MatMul, "y", {a, g.addConstant("w", Tensor(DType::F32, {3, 4}))});
    node(ir::OpKind::MatMul, "z", {a, b});
  }
  driver::prepareGraph(g);
  return g;
}

TEST(ScaleSimTopologyGraph, MatMulRowsAndRefusals) {
  const ExportedTopology t = topologyFromGraph(handGraph(false));
  ASSERT_EQ(t.layers.size(), 1u);
  EXPECT_EQ(formatTopology(t.layers).substr(formatTopology({}).size()),
            "y, 2, 1, 1, 1, 3, 4, 1, 1,\n");
  ASSERT_EQ(t.skipped.size(), 1u);
  EXPECT_EQ(t.skipped[0], "z (MatMul of two runtime tensors)");
  try {
    topologyFromGraph(handGraph(true));
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Unsupported);
    EXPECT_EQ(std::string(e.what()),
              "node 'c3' (Conv): 3-D convolution has no SCALE-Sim row (1-D and 2-D only)");
  }
}

TEST(ScaleSimTopologyGraph, ChainsLayersAndMergesDpRows) {
  const Topology t = parseTopologyFile(dataPath("depthwise.csv"), TopologyFormat::Conv);
  ir::Graph g = graphFromTopology(t, 7);
  driver::prepareGraph(g);
  EXPECT_EQ(g.inputs.size(), 1u); // pw_in -> conv_DP -> pw_out chain
  EXPECT_EQ(g.outputs.size(), 1u);
  int64_t convs = 0, depthwise = 0;
  for (ir::NodeId id = 0; id < static_cast<ir::NodeId>(g.numNodes()); ++id) {
    if (g.node(id).op == ir::OpKind::Conv) {
      ++convs;
      depthwise += ir::convParams(g, id).isDepthwise() ? 1 : 0;
    }
  }
  EXPECT_EQ(convs, 3);
  EXPECT_EQ(depthwise, 1);
  int64_t macs = 0;
  for (const Layer& l : t.layers) {
    macs += l.macs();
  }
  EXPECT_EQ(graphMacs(g), macs);
}

TEST(ScaleSimTopologyGraph, UnchainedLayersGetInputsAndSizesFollowScaleSim) {
  const Topology t = parseTopologyFile(dataPath("conv_small.csv"), TopologyFormat::Conv);
  ir::Graph g = graphFromTopology(t, 7);
  driver::prepareGraph(g);
  EXPECT_EQ(g.inputs.size(), t.layers.size());
  EXPECT_EQ(g.outputs.size(), t.layers.size());
  // "edge" is 10x10, 3x3 at stride 2: SCALE-Sim's ceil gives 5x5, and so does the graph.
  EXPECT_EQ(g.value(g.outputs[0]).shape, (Dims{1, 8, 5, 5}));
  int64_t macs = 0;
  for (const Layer& l : t.layers) {
    macs += l.macs();
  }
  EXPECT_EQ(graphMacs(g), macs);
}

TEST(ScaleSimTopologyGraph, SeededWeights) {
  const Topology t = parseTopologyFile(dataPath("quirks.csv"), TopologyFormat::Conv);
  const ir::Graph a = graphFromTopology(t, 1), b = graphFromTopology(t, 1),
                  c = graphFromTopology(t, 2);
  const ir::ValueId w = *a.findValue("single_stride.weight");
  const auto va = a.value(w).constant->values<float>();
  const auto vb = b.value(*b.findValue("single_stride.weight")).constant->values<float>();
  const auto vc = c.value(*c.findValue("single_stride.weight")).constant->values<float>();
  EXPECT_TRUE(std::equal(va.begin(), va.end(), vb.begin(), vb.end()));
  EXPECT_FALSE(std::equal(va.begin(), va.end(), vc.begin(), vc.end()));
}

TEST(ScaleSimTopologyGraph, LoadModelReadsCsv) {
  const ir::Graph g = driver::loadModel(dataPath("depthwise.csv"));
  EXPECT_EQ(g.name, "depthwise");
  EXPECT_EQ(driver::modelSource(dataPath("depthwise.csv")), driver::ModelSource::File);
  EXPECT_TRUE(driver::isScaleSimTopology("x/Net.CSV"));
  EXPECT_FALSE(driver::isScaleSimTopology("x/net.onnx"));

  driver::LoadOptions bound;
  bound.import.defaultSymbolicDim = 4;
  try {
    driver::loadModel(dataPath("depthwise.csv"), bound);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Usage);
  }
  const std::filesystem::path bad =
      std::filesystem::path(::testing::TempDir()) / "nnaccel_scalesim_bad.csv";
  std::ofstream(bad) << "header\nc1,4,4,5,1,1,1,1,\n";
  try {
    driver::loadModel(bad.string());
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Model);
    EXPECT_EQ(std::string(e.what()),
              fmt::format("{}:2: filter height 5 is larger than the ifmap height 4", bad.string()));
  }
}

} // namespace
