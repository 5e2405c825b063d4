// The zoo registry: names, descriptions and input shapes of the built-in models, and the two
// ways of running a model's layer function (with seeded weights, or shapes only for counts).
#include "nnaccel/zoo/Zoo.h"

#include "Models.h"
#include "nnaccel/support/Error.h"

namespace nnaccel::zoo {

namespace {

/// Runs \p m's layer function on \p b: input "input" (\p batch images), output "output".
void defineModel(const ZooModel& m, GraphBuilder& b, int64_t batch = 1) {
  Dims shape = m.inputShape;
  shape.at(0) = batch;
  b.output(m.define(b, b.input("input", shape)), "output");
}

} // namespace

ir::Graph ZooModel::build(uint64_t seed, int64_t batch) const {
  NNACCEL_ASSERT(batch >= 1) << "zoo batch " << batch;
  GraphBuilder b(name, seed);
  defineModel(*this, b, batch);
  return b.finish();
}

ModelCounts ZooModel::counts() const {
  GraphBuilder b(name, kDefaultSeed, GraphBuilder::Weights::ShapesOnly);
  defineModel(*this, b);
  return b.counts();
}

const std::vector<ZooModel>& zooModels() {
  static const std::vector<ZooModel> models = {
      {"lenet5", "LeNet-5 (LeCun 1998): tanh, average-pool subsampling, 10 classes", kLeNet5Input,
       true, buildLeNet5},
      {"alexnet", "AlexNet (torchvision variant), ImageNet 1000 classes", kImageNetInput, true,
       buildAlexNet},
      {"vgg16", "VGG-16 (configuration D, no BatchNorm), ImageNet 1000 classes", kImageNetInput,
       true, buildVgg16},
      {"resnet18", "ResNet-18 (BasicBlock), ImageNet 1000 classes; the demo model", kImageNetInput,
       true, buildResNet18},
      {"resnet50", "ResNet-50 v1.5 (Bottleneck), ImageNet 1000 classes", kImageNetInput, true,
       buildResNet50},
      {"mobilenetv2",
       "MobileNetV2 1.0: inverted residuals, depthwise convs, ReLU6 as Clip, 1000 classes",
       kImageNetInput, true, buildMobileNetV2},
      {"dcgan", "DCGAN generator: 100x1x1 latent -> 3x64x64 image, stride-2 ConvTranspose",
       kDcganInput, false, buildDcganGenerator},
      {"aspp",
       "DeepLab-v3 head: ASPP (1x1, dilated 3x3 at rates 6/12/18, image pooling) on "
       "512x33x33 features, 21 classes",
       kAsppInput, false, buildAsppHead},
      {"unet", "U-Net (16-256 channels, ConvTranspose decoder, skip Concat), 3x128x128, 2 classes",
       kUNetInput, false, buildUNet},
      {"fig54",
       "Seed 002 Fig. 54 worked model: 7x7/s2, 5x5, sigmoid, Expand, skip Concat, 1x1, global "
       "average; 3x64x64, 1024 classes",
       kPatentFig54Input, true, buildPatentFig54},
      {"alexnet-caffe",
       "AlexNet as Caffe's BVLC model (227x227, LRN, groups of 2, Softmax 'prob'): the model the "
       "SCNN paper and Han et al. pruned",
       kCaffeAlexNetInput, true, buildAlexNetCaffe},
      {"googlenet",
       "GoogLeNet (Inception v1) as Caffe's BVLC model (LRN, Softmax 'prob'): the model the SCNN "
       "paper and Han et al. pruned",
       kImageNetInput, true, buildGoogLeNet},
  };
  return models;
}

const ZooModel* findZooModel(const std::string& name) {
  for (const ZooModel& m : zooModels()) {
    if (m.name == name) {
      return &m;
    }
  }
  return nullptr;
}

} // namespace nnaccel::zoo
