// ResNet-18 (BasicBlock) and ResNet-50 (Bottleneck, v1.5: stride on the 3x3 conv), laid out and
// named as torchvision.models.resnet18/resnet50.
#include "Models.h"
#include "nnaccel/zoo/GraphBuilder.h"

#include <string>

namespace nnaccel::zoo {

namespace {

struct ResNetConfig {
  bool bottleneck;
  int blocksPerStage[4];
};

/// conv -> BatchNorm, torchvision names "<prefix>.conv<i>" / "<prefix>.bn<i>".
ir::ValueId convBn(GraphBuilder& b, const std::string& prefix, int i, ir::ValueId x,
                   const ConvSpec& spec, float gammaScale = 1.0f) {
  const std::string index = std::to_string(i);
  return b.batchNorm(prefix + ".bn" + index, b.conv(prefix + ".conv" + index, x, spec), gammaScale);
}

/// One residual block; returns its output. \p planes is the stage width (the bottleneck's
/// inner width).
ir::ValueId residualBlock(GraphBuilder& b, const ResNetConfig& cfg, const std::string& prefix,
                          ir::ValueId x, int64_t planes, int64_t stride, float gammaScale) {
  const std::string relu = prefix + ".relu";
  const int64_t inChannels = b.shape(x)[1];
  int64_t outChannels = planes;
  ir::ValueId y;
  if (cfg.bottleneck) {
    outChannels = planes * 4;
    y = b.relu(relu, convBn(b, prefix, 1, x, {.outChannels = planes, .bias = false}));
    y = b.relu(
        relu,
        convBn(b, prefix, 2, y,
               {.outChannels = planes, .kernel = 3, .stride = stride, .pad = 1, .bias = false}));
    y = convBn(b, prefix, 3, y, {.outChannels = outChannels, .bias = false}, gammaScale);
  } else {
    y = b.relu(
        relu,
        convBn(b, prefix, 1, x,
               {.outChannels = planes, .kernel = 3, .stride = stride, .pad = 1, .bias = false}));
    y = convBn(b, prefix, 2, y, {.outChannels = planes, .kernel = 3, .pad = 1, .bias = false},
               gammaScale);
  }
  // The projection shortcut feeds the Add directly (no ReLU after it): gain 1 keeps its
  // output at the scale of the identity it replaces.
  ir::ValueId identity = x;
  if (stride != 1 || inChannels != outChannels) {
    identity = b.batchNorm(
        prefix + ".downsample.1",
        b.conv(prefix + ".downsample.0", x,
               {.outChannels = outChannels, .stride = stride, .bias = false, .gain = kLinearGain}));
  }
  return b.relu(relu, b.add(prefix + ".add", y, identity));
}

ir::ValueId buildResNet(const ResNetConfig& cfg, GraphBuilder& b, ir::ValueId x) {
  x = b.batchNorm(
      "bn1",
      b.conv("conv1", x, {.outChannels = 64, .kernel = 7, .stride = 2, .pad = 3, .bias = false}));
  x = b.maxPool("maxpool", b.relu("relu", x), {.kernel = 3, .stride = 2, .pad = 1});
  int totalBlocks = 0;
  for (int blocks : cfg.blocksPerStage) {
    totalBlocks += blocks;
  }
  const float gammaScale = residualGammaScale(totalBlocks);
  for (int stage = 0; stage < 4; ++stage) {
    const int64_t planes = int64_t{64} << stage;
    for (int block = 0; block < cfg.blocksPerStage[stage]; ++block) {
      const std::string prefix = "layer" + std::to_string(stage + 1) + "." + std::to_string(block);
      const int64_t stride = (stage > 0 && block == 0) ? 2 : 1;
      x = residualBlock(b, cfg, prefix, x, planes, stride, gammaScale);
    }
  }
  x = b.flatten("flatten", b.globalAvgPool("avgpool", x));
  return b.gemm("fc", x, 1000, true, kLinearGain);
}

} // namespace

ir::ValueId buildResNet18(GraphBuilder& b, ir::ValueId x) {
  return buildResNet({false, {2, 2, 2, 2}}, b, x);
}

ir::ValueId buildResNet50(GraphBuilder& b, ir::ValueId x) {
  return buildResNet({true, {3, 4, 6, 3}}, b, x);
}

} // namespace nnaccel::zoo
