// Tests for the model zoo: the registry, exporter conventions of every model (opset 13,
// unique names, topological order, unfused BatchNorm), parameter and MAC counts against the
// published torchvision and Caffe figures, shape inference and verification of every model,
// activation scales on the reference executor, and seeded determinism (the Caffe models'
// structure: CaffeZooTest.cpp).
#include "nnaccel/zoo/Zoo.h"

#include "ZooTestSupport.h"
#include "nnaccel/ir/OpParams.h"
#include "nnaccel/ir/ShapeInference.h"
#include "nnaccel/ir/Verifier.h"
#include "nnaccel/reference/Executor.h"
#include "nnaccel/support/Rng.h"
#include "nnaccel/zoo/GraphBuilder.h"

#include <algorithm>
#include <cmath>
#include <gtest/gtest.h>
#include <map>
#include <set>

using namespace nnaccel;
using namespace nnaccel::zoo;
using nnaccel::zoo::test::countOps;

namespace {

/// What each model must be. Parameters count learnable tensors only (conv/gemm weights and
/// biases, BatchNorm scale and bias; not running statistics), as torchvision does:
/// sum(p.numel() for p in model.parameters()). The five torchvision figures are the published
/// ones, the two Caffe ones the parameter counts of the BVLC .caffemodel files (60,965,224 and
/// 6,998,552); LeNet-5, DCGAN, ASPP, U-Net and the MACs of the Caffe models were derived
/// independently (docs/Zoo.md).
struct Expected {
  const char* name;
  int64_t params;
  int64_t macs; ///< conv N*M*Ho*Wo*(C/g)*kh*kw + gemm M*K*N (ConvTranspose: per input pixel)
  Dims output;
  int batchNorms;
};

const Expected kExpected[] = {
    {"lenet5", 61'706, 416'520, {1, 10}, 0},
    {"alexnet", 61'100'840, 714'188'480, {1, 1000}, 0},
    {"vgg16", 138'357'544, 15'470'264'320, {1, 1000}, 0},
    {"resnet18", 11'689'512, 1'814'073'344, {1, 1000}, 20},
    {"resnet50", 25'557'032, 4'089'184'256, {1, 1000}, 53},
    {"mobilenetv2", 3'504'872, 300'774'272, {1, 1000}, 52},
    {"dcgan", 3'576'704, 104'628'224, {1, 3, 64, 64}, 4},
    {"aspp", 4'727'573, 5'001'794'816, {1, 21, 33, 33}, 7},
    {"unet", 1'942'594, 758'382'592, {1, 2, 128, 128}, 18},
    {"fig54", 1'245'504, 204'046'336, {1, 1024}, 0},
    {"alexnet-caffe", 60'965'224, 724'406'816, {1, 1000}, 0},
    {"googlenet", 6'998'552, 1'582'671'872, {1, 1000}, 0},
};

int64_t learnableParameters(const ir::Graph& g) {
  int64_t total = 0;
  for (const ir::Node& n : g.nodes()) {
    const bool weighted = n.op == ir::OpKind::Conv || n.op == ir::OpKind::ConvTranspose ||
                          n.op == ir::OpKind::Gemm || n.op == ir::OpKind::BatchNormalization;
    // Inputs 1 and 2: weight and bias, or BatchNorm scale and bias.
    for (size_t i = 1; weighted && i <= 2 && i < n.inputs.size(); ++i) {
      EXPECT_TRUE(g.isConstant(n.inputs[i])) << n.name << " input " << i;
      total += g.value(n.inputs[i]).constant->numElements();
    }
  }
  return total;
}

/// Structural properties every exported zoo graph must have.
void checkExporterConventions(const ZooModel& m, const ir::Graph& g) {
  EXPECT_EQ(g.name, m.name);
  EXPECT_EQ(g.opsetVersion, 13);
  ASSERT_EQ(g.inputs.size(), 1u);
  EXPECT_EQ(g.value(g.inputs[0]).name, "input");
  EXPECT_TRUE(g.value(g.inputs[0]).shapeKnown);
  EXPECT_EQ(g.value(g.inputs[0]).shape, m.inputShape);
  ASSERT_EQ(g.outputs.size(), 1u);
  EXPECT_EQ(g.value(g.outputs[0]).name, "output");
  std::set<std::string> nodeNames;
  std::vector<bool> available(g.numValues(), false);
  available[static_cast<size_t>(g.inputs[0])] = true;
  std::set<ir::ValueId> used;
  for (const ir::Node& n : g.nodes()) {
    EXPECT_EQ(n.opset, 13) << n.name;
    EXPECT_FALSE(n.name.empty());
    EXPECT_TRUE(nodeNames.insert(n.name).second) << "duplicate node name " << n.name;
    for (ir::ValueId in : n.inputs) {
      if (in == ir::kNoValue) {
        continue;
      }
      used.insert(in);
      EXPECT_TRUE(available[static_cast<size_t>(in)] || g.isConstant(in))
          << n.name << " reads " << g.value(in).name << " before it is produced";
    }
    ASSERT_EQ(n.outputs.size(), 1u) << n.name;
    available[static_cast<size_t>(n.outputs[0])] = true;
  }
  EXPECT_TRUE(available[static_cast<size_t>(g.outputs[0])]);
  for (size_t v = 0; v < g.numValues(); ++v) {
    const ir::Value& value = g.value(static_cast<ir::ValueId>(v));
    if (value.constant) {
      EXPECT_TRUE(used.count(static_cast<ir::ValueId>(v))) << "unused initializer " << value.name;
      if (value.dtype == DType::F32) {
        for (float x : value.constant->values<float>()) {
          ASSERT_TRUE(std::isfinite(x)) << value.name;
        }
      }
    }
  }
}

/// Every initializer of \p g by name.
std::map<std::string, const Tensor*> initializers(const ir::Graph& g) {
  std::map<std::string, const Tensor*> out;
  for (size_t v = 0; v < g.numValues(); ++v) {
    const ir::Value& value = g.value(static_cast<ir::ValueId>(v));
    if (value.constant) {
      out[value.name] = value.constant.get();
    }
  }
  return out;
}

int64_t totalMacs(const ir::Graph& g) {
  int64_t macs = 0;
  for (size_t i = 0; i < g.numNodes(); ++i) {
    const auto id = static_cast<ir::NodeId>(i);
    if (g.node(id).op == ir::OpKind::Conv || g.node(id).op == ir::OpKind::ConvTranspose) {
      macs += ir::convParams(g, id).macs();
    } else if (g.node(id).op == ir::OpKind::Gemm) {
      const ir::GemmParams p = ir::gemmParams(g, id);
      macs += p.m * p.k * p.n;
    }
  }
  return macs;
}

double rms(const Tensor& t) {
  double sumSq = 0;
  for (float x : t.values<float>()) {
    sumSq += double(x) * x;
  }
  return std::sqrt(sumSq / static_cast<double>(t.numElements()));
}

} // namespace

TEST(Zoo, RegistryListsEveryModelOnce) {
  std::vector<std::string> names;
  for (const ZooModel& m : zooModels()) {
    names.push_back(m.name);
    EXPECT_EQ(findZooModel(m.name), &m);
    EXPECT_FALSE(m.description.empty());
    EXPECT_TRUE(m.define != nullptr);
  }
  std::vector<std::string> expected;
  for (const Expected& e : kExpected) {
    expected.push_back(e.name);
  }
  EXPECT_EQ(names, expected);
  EXPECT_EQ(findZooModel("resnet19"), nullptr);
  EXPECT_EQ(findZooModel(""), nullptr);
  ASSERT_NE(findZooModel(kDemoModel), nullptr);
  EXPECT_TRUE(findZooModel(kDemoModel)->isClassifier);
  EXPECT_EQ(kDefaultSeed, 2026u);
}

TEST(Zoo, ClassifierFlagAndInputShapes) {
  EXPECT_EQ(findZooModel("lenet5")->inputShape, Dims({1, 1, 32, 32}));
  EXPECT_EQ(findZooModel("resnet50")->inputShape, Dims({1, 3, 224, 224}));
  EXPECT_EQ(findZooModel("dcgan")->inputShape, Dims({1, 100, 1, 1}));
  EXPECT_EQ(findZooModel("aspp")->inputShape, Dims({1, 512, 33, 33}));
  EXPECT_EQ(findZooModel("unet")->inputShape, Dims({1, 3, 128, 128}));
  EXPECT_EQ(findZooModel("fig54")->inputShape, Dims({1, 3, 64, 64}));
  EXPECT_EQ(findZooModel("alexnet-caffe")->inputShape, Dims({1, 3, 227, 227}));
  EXPECT_EQ(findZooModel("googlenet")->inputShape, Dims({1, 3, 224, 224}));
  for (const Expected& e : kExpected) {
    EXPECT_EQ(findZooModel(e.name)->isClassifier, e.output.size() == 2) << e.name;
  }
}

TEST(Zoo, EveryModelBuildsWithPublishedParameterCounts) {
  for (const Expected& e : kExpected) {
    SCOPED_TRACE(e.name);
    const ZooModel& m = *findZooModel(e.name);
    const ir::Graph g = m.build(kDefaultSeed);
    checkExporterConventions(m, g);
    EXPECT_EQ(learnableParameters(g), e.params);
    EXPECT_EQ(countOps(g, ir::OpKind::BatchNormalization), e.batchNorms);
    EXPECT_EQ(countOps(g, ir::OpKind::Dropout), 0);
  }
}

TEST(Zoo, ShapeOnlyCountsEqualTheBuiltGraphs) {
  // ZooModel::counts() draws no weight (what `nnaccel zoo list` prints); it must agree with the
  // parameters and MACs of the graph build() returns, for every model.
  for (const Expected& e : kExpected) {
    SCOPED_TRACE(e.name);
    const ZooModel& m = *findZooModel(e.name);
    const ModelCounts cheap = m.counts();
    ir::Graph g = m.build(kDefaultSeed);
    EXPECT_EQ(cheap.params, learnableParameters(g));
    ir::inferShapes(g);
    EXPECT_EQ(cheap.macs, totalMacs(g));
    EXPECT_EQ(cheap.params, e.params);
    EXPECT_EQ(cheap.macs, e.macs);
  }
}

TEST(Zoo, ShapesOnlyBuilderStoresNoWeights) {
  GraphBuilder b("tiny", kDefaultSeed, GraphBuilder::Weights::ShapesOnly);
  const ir::ValueId x = b.input("input", {2, 3, 8, 8});
  const ir::ValueId c = b.conv("conv", x, {.outChannels = 4, .kernel = 3, .pad = 1});
  const ir::ValueId n = b.batchNorm("bn", c);
  const ir::ValueId t = b.convTranspose("up", n, {.outChannels = 5, .kernel = 2, .stride = 2});
  b.gemm("fc", b.flatten("flatten", t), 7);
  // conv: 4*3*3*3 + 4; bn: 4 + 4 (running statistics excluded); up: 4*5*2*2 + 5;
  // fc: 7 * (5*16*16) + 7.
  EXPECT_EQ(b.counts().params, 112 + 8 + 85 + 8967);
  // conv: 2*4*8*8 outputs x 27 taps; up: 2*4*8*8 inputs x 5*2*2; fc: 2 x 1280 x 7.
  EXPECT_EQ(b.counts().macs, 13'824 + 10'240 + 17'920);
  EXPECT_EQ(b.shape(t), (Dims{2, 5, 16, 16}));
}

TEST(Zoo, TorchvisionNamesAndMobileNetStructure) {
  const ir::Graph r = findZooModel("resnet50")->build(kDefaultSeed);
  const auto weights = initializers(r);
  for (const char* name : {"conv1.weight", "bn1.running_var", "layer1.0.conv3.weight",
                           "layer1.0.downsample.0.weight", "layer4.2.bn3.bias", "fc.weight"}) {
    EXPECT_TRUE(weights.count(name)) << name;
  }
  EXPECT_EQ(weights.at("layer3.0.conv2.weight")->shape(), Dims({256, 256, 3, 3}));
  EXPECT_EQ(weights.at("fc.weight")->shape(), Dims({1000, 2048}));

  const ir::Graph mb = findZooModel("mobilenetv2")->build(kDefaultSeed);
  EXPECT_EQ(countOps(mb, ir::OpKind::Clip), 35); // 17 blocks' ReLU6 (1 or 2) + stem + head
  EXPECT_EQ(countOps(mb, ir::OpKind::Add), 10);  // residual connections
  EXPECT_EQ(countOps(mb, ir::OpKind::Relu), 0);
  int depthwise = 0;
  for (const ir::Node& n : mb.nodes()) {
    if (n.op == ir::OpKind::Conv && n.attrs.getInt("group", 1) > 1) {
      ++depthwise;
      EXPECT_EQ(mb.value(n.inputs[1]).constant->dim(1), 1) << n.name;
    }
  }
  EXPECT_EQ(depthwise, 17);
  EXPECT_TRUE(initializers(mb).count("features.17.conv.2.weight"));

  const ir::Graph a = findZooModel("aspp")->build(kDefaultSeed);
  std::vector<int64_t> dilations;
  for (const ir::Node& n : a.nodes()) {
    if (n.op == ir::OpKind::Conv && n.attrs.getInts("dilations", {1, 1})[0] > 1) {
      dilations.push_back(n.attrs.getInts("dilations", {})[0]);
      EXPECT_EQ(n.attrs.getInts("pads", {}), std::vector<int64_t>(4, dilations.back()));
    }
  }
  EXPECT_EQ(dilations, (std::vector<int64_t>{6, 12, 18}));
  EXPECT_EQ(countOps(a, ir::OpKind::Resize), 1);
  EXPECT_EQ(countOps(a, ir::OpKind::GlobalAveragePool), 1);
  EXPECT_EQ(countOps(a, ir::OpKind::Concat), 1);

  const ir::Graph d = findZooModel("dcgan")->build(kDefaultSeed);
  EXPECT_EQ(countOps(d, ir::OpKind::ConvTranspose), 5);
  EXPECT_EQ(countOps(d, ir::OpKind::Tanh), 1);
  const ir::Graph u = findZooModel("unet")->build(kDefaultSeed);
  EXPECT_EQ(countOps(u, ir::OpKind::ConvTranspose), 4);
  EXPECT_EQ(countOps(u, ir::OpKind::Concat), 4);
  EXPECT_EQ(countOps(u, ir::OpKind::MaxPool), 4);
}

TEST(Zoo, SameSeedSameWeightsOtherSeedOtherWeights) {
  for (const char* name : {"resnet18", "mobilenetv2", "dcgan"}) {
    SCOPED_TRACE(name);
    const ZooModel& m = *findZooModel(name);
    const ir::Graph a = m.build(kDefaultSeed);
    const ir::Graph b = m.build(kDefaultSeed);
    const ir::Graph c = m.build(kDefaultSeed + 1);
    const auto wa = initializers(a), wb = initializers(b), wc = initializers(c);
    ASSERT_EQ(wa.size(), wb.size());
    ASSERT_EQ(wa.size(), wc.size());
    int differing = 0, random = 0;
    for (const auto& [valueName, tensor] : wa) {
      EXPECT_EQ(*tensor, *wb.at(valueName)) << valueName;
      EXPECT_EQ(tensor->shape(), wc.at(valueName)->shape()) << valueName;
      // Clip bounds and Resize sizes are fixed; every random tensor must change with the seed.
      const bool isRandom = valueName.ends_with(".weight") || valueName.ends_with(".bias") ||
                            valueName.ends_with(".running_mean") ||
                            valueName.ends_with(".running_var");
      random += isRandom ? 1 : 0;
      differing += (isRandom && !(*tensor == *wc.at(valueName))) ? 1 : 0;
    }
    EXPECT_GT(random, 0);
    EXPECT_EQ(differing, random);
  }
}

TEST(Zoo, Vgg16WeightsAreDeterministic) {
  // The largest model (138M parameters) built twice: still bit-identical.
  const ir::Graph a = findZooModel("vgg16")->build(7);
  const ir::Graph b = findZooModel("vgg16")->build(7);
  const auto wa = initializers(a), wb = initializers(b);
  ASSERT_EQ(wa.size(), 32u);
  for (const auto& [valueName, tensor] : wa) {
    EXPECT_EQ(*tensor, *wb.at(valueName)) << valueName;
  }
}

TEST(Zoo, EveryModelInfersVerifiesAndHasPublishedMacs) {
  for (const Expected& e : kExpected) {
    SCOPED_TRACE(e.name);
    ir::Graph g = findZooModel(e.name)->build(kDefaultSeed);
    ir::inferShapes(g);
    ir::verify(g);
    EXPECT_EQ(g.value(g.outputs[0]).shape, e.output);
    EXPECT_EQ(g.value(g.outputs[0]).dtype, DType::F32);
    EXPECT_EQ(totalMacs(g), e.macs);
  }
}

TEST(Zoo, ActivationsStayOrderOneOnTheReferenceExecutor) {
  // A standard-normal input must give O(1) activations everywhere: nothing explodes through
  // ResNet-50's 16 residual blocks or VGG's 13 convolutions, nothing vanishes. Bounds are loose
  // (measured values are in docs/Zoo.md); a broken init scale misses them by orders of magnitude.
  // The Caffe models end in Softmax "prob": their logits (the Softmax input) are checked instead,
  // and the probabilities must sum to 1.
  for (const Expected& e : kExpected) {
    SCOPED_TRACE(e.name);
    const ZooModel& m = *findZooModel(e.name);
    ir::Graph g = m.build(kDefaultSeed);
    ir::inferShapes(g);
    Tensor input(DType::F32, m.inputShape);
    Rng::forStream(1, "input").fillNormal(input.values<float>(), 0.0f, 1.0f);
    reference::Executor executor(g);
    const std::vector<Tensor> outputs = executor.run({input});
    ASSERT_EQ(outputs.size(), 1u);
    ASSERT_EQ(outputs[0].shape(), e.output);
    const ir::NodeId producer = g.value(g.outputs[0]).producer;
    ASSERT_GE(producer, 0);
    const ir::Node& last = g.node(producer);
    const bool softmaxOutput = last.op == ir::OpKind::Softmax;
    const ir::ValueId logitsValue = softmaxOutput ? last.inputs[0] : g.outputs[0];
    const Tensor& logits = executor.values()[static_cast<size_t>(logitsValue)];
    if (softmaxOutput) {
      double sum = 0;
      for (float p : outputs[0].values<float>()) {
        sum += p;
      }
      EXPECT_NEAR(sum, 1.0, 1e-4);
    }
    const double outRms = rms(logits);
    EXPECT_GT(outRms, 0.2);
    EXPECT_LT(outRms, 5.0);
    double lo = INFINITY, hi = 0;
    for (size_t v = 0; v < g.numValues(); ++v) {
      const ir::Value& value = g.value(static_cast<ir::ValueId>(v));
      if (!value.constant && value.dtype == DType::F32 &&
          !(softmaxOutput && static_cast<ir::ValueId>(v) == g.outputs[0])) {
        const double r = rms(executor.values()[v]);
        ASSERT_TRUE(std::isfinite(r)) << value.name;
        lo = std::min(lo, r);
        hi = std::max(hi, r);
      }
    }
    // The smallest is aspp's image-pooling branch: the mean of a zero-mean 33x33 map (~1/33).
    EXPECT_GT(lo, 0.02);
    EXPECT_LT(hi, 10.0);
    std::printf("[ zoo      ] %-13s output rms %.3f, activation rms in [%.3f, %.3f]\n", e.name,
                outRms, lo, hi);
    if (m.isClassifier) {
      // Logits must be spread out (not all equal), so top-1 is meaningful.
      const auto values = logits.values<float>();
      const auto [minIt, maxIt] = std::minmax_element(values.begin(), values.end());
      EXPECT_GT(*maxIt - *minIt, 1.0f);
    }
  }
}
