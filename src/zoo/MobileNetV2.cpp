// MobileNetV2 (width 1.0) as torchvision.models.mobilenet_v2: inverted residual blocks with
// depthwise 3x3 convolutions, ReLU6 (Clip 0..6) and linear bottlenecks.
#include "Models.h"
#include "nnaccel/zoo/GraphBuilder.h"

#include <string>

namespace nnaccel::zoo {

namespace {

/// One row of the MobileNetV2 table: expansion t, output channels c, repeats n, stride s.
struct StageSpec {
  int64_t expansion, channels, repeats, stride;
};
constexpr StageSpec kStages[] = {{1, 16, 1, 1}, {6, 24, 2, 2},  {6, 32, 3, 2}, {6, 64, 4, 2},
                                 {6, 96, 3, 1}, {6, 160, 3, 2}, {6, 320, 1, 1}};

/// Conv2dNormActivation: "<prefix>.0" conv (no bias), "<prefix>.1" BatchNorm, "<prefix>.2" ReLU6.
ir::ValueId convBnRelu6(GraphBuilder& b, const std::string& prefix, ir::ValueId x,
                        const ConvSpec& spec) {
  return b.relu6(prefix + ".2", b.batchNorm(prefix + ".1", b.conv(prefix + ".0", x, spec)));
}

bool hasResidual(int64_t inChannels, int64_t outChannels, int64_t stride) {
  return stride == 1 && inChannels == outChannels;
}

ir::ValueId invertedResidual(GraphBuilder& b, const std::string& prefix, ir::ValueId x,
                             int64_t outChannels, int64_t stride, int64_t expansion,
                             float gammaScale) {
  const int64_t inChannels = b.shape(x)[1];
  const int64_t hidden = inChannels * expansion;
  const bool residual = hasResidual(inChannels, outChannels, stride);
  int layer = 0;
  auto next = [&] { return prefix + ".conv." + std::to_string(layer++); };
  ir::ValueId y = x;
  if (expansion != 1) {
    y = convBnRelu6(b, next(), y, {.outChannels = hidden, .bias = false});
  }
  y = convBnRelu6(b, next(), y,
                  {.outChannels = hidden,
                   .kernel = 3,
                   .stride = stride,
                   .pad = 1,
                   .group = hidden,
                   .bias = false});
  y = b.conv(next(), y, {.outChannels = outChannels, .bias = false, .gain = kLinearGain});
  y = b.batchNorm(next(), y, residual ? gammaScale : 1.0f);
  return residual ? b.add(prefix + ".add", x, y) : y;
}

} // namespace

ir::ValueId buildMobileNetV2(GraphBuilder& b, ir::ValueId x) {
  x = convBnRelu6(b, "features.0", x,
                  {.outChannels = 32, .kernel = 3, .stride = 2, .pad = 1, .bias = false});
  int residualBlocks = 0;
  int64_t channels = 32;
  for (const StageSpec& s : kStages) {
    for (int64_t i = 0; i < s.repeats; ++i) {
      residualBlocks += hasResidual(channels, s.channels, i == 0 ? s.stride : 1) ? 1 : 0;
      channels = s.channels;
    }
  }
  const float gammaScale = residualGammaScale(residualBlocks);
  int index = 1;
  for (const StageSpec& s : kStages) {
    for (int64_t i = 0; i < s.repeats; ++i) {
      x = invertedResidual(b, "features." + std::to_string(index++), x, s.channels,
                           i == 0 ? s.stride : 1, s.expansion, gammaScale);
    }
  }
  x = convBnRelu6(b, "features." + std::to_string(index), x, {.outChannels = 1280, .bias = false});
  x = b.flatten("flatten", b.globalAvgPool("avgpool", x));
  return b.gemm("classifier.1", x, 1000, true, kLinearGain);
}

} // namespace nnaccel::zoo
