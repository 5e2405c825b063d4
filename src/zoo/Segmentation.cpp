// Segmentation networks: a DeepLab-v3 head (ASPP with rates 6/12/18 + image pooling, as
// torchvision's DeepLabHead) and a compact U-Net (as the widely used milesial/Pytorch-UNet,
// with transposed-convolution upsampling).
#include "Models.h"
#include "nnaccel/zoo/GraphBuilder.h"

#include <iterator>
#include <string>
#include <vector>

namespace nnaccel::zoo {

namespace {

/// conv (no bias) -> BatchNorm -> ReLU named "<prefix>.<first>", "<prefix>.<first+1>", ...
ir::ValueId convBnRelu(GraphBuilder& b, const std::string& prefix, int first, ir::ValueId x,
                       ConvSpec spec) {
  spec.bias = false;
  auto name = [&](int i) { return prefix + "." + std::to_string(first + i); };
  return b.relu(name(2), b.batchNorm(name(1), b.conv(name(0), x, spec)));
}

} // namespace

ir::ValueId buildAsppHead(GraphBuilder& b, ir::ValueId x) {
  // DeepLabHead(in_channels=512, num_classes=21) with atrous rates 6, 12, 18: the head of a
  // DeepLab-v3 at output stride 16 on a 513x513 crop (33x33 features) over a ResNet-18/34
  // backbone. Dropout after the projection is absent (eval-mode export).
  const int64_t width = 256;
  const std::string aspp = "classifier.0";
  std::vector<ir::ValueId> branches;
  branches.push_back(convBnRelu(b, aspp + ".convs.0", 0, x, {.outChannels = width}));
  const int64_t rates[] = {6, 12, 18};
  for (size_t i = 0; i < std::size(rates); ++i) {
    branches.push_back(
        convBnRelu(b, aspp + ".convs." + std::to_string(i + 1), 0, x,
                   {.outChannels = width, .kernel = 3, .pad = rates[i], .dilation = rates[i]}));
  }
  // Image pooling: global average -> 1x1 conv -> BN -> ReLU -> bilinear resize back.
  const std::string pooling = aspp + ".convs.4";
  ir::ValueId pooled = b.globalAvgPool(pooling + ".0", x);
  pooled = convBnRelu(b, pooling, 1, pooled, {.outChannels = width});
  const Dims& in = b.shape(x);
  branches.push_back(b.resize(pooling + ".resize", pooled, in[2], in[3], ResizeMode::Bilinear));
  ir::ValueId y = b.concat(aspp + ".concat", branches, 1);
  y = convBnRelu(b, aspp + ".project", 0, y, {.outChannels = width});
  y = convBnRelu(b, "classifier", 1, y, {.outChannels = width, .kernel = 3, .pad = 1});
  y = b.conv("classifier.4", y, {.outChannels = 21, .gain = kLinearGain});
  return y;
}

namespace {

/// DoubleConv: (3x3 conv, no bias -> BN -> ReLU) twice, "<prefix>.double_conv.0..5".
ir::ValueId doubleConv(GraphBuilder& b, const std::string& prefix, ir::ValueId x,
                       int64_t channels) {
  const std::string p = prefix + ".double_conv";
  x = convBnRelu(b, p, 0, x, {.outChannels = channels, .kernel = 3, .pad = 1});
  return convBnRelu(b, p, 3, x, {.outChannels = channels, .kernel = 3, .pad = 1});
}

} // namespace

ir::ValueId buildUNet(GraphBuilder& b, ir::ValueId x) {
  // U-Net (Ronneberger et al. 2015) at a quarter of the original widths: 16-32-64-128-256
  // channels, 3x128x128 input, 2 classes; the decoder upsamples with 2x2 stride-2 transposed
  // convolutions and concatenates the encoder's skip tensor first (torch.cat([skip, up])).
  const int64_t base = 16;
  const int levels = 4;
  std::vector<ir::ValueId> skips;
  x = doubleConv(b, "inc", x, base);
  for (int i = 1; i <= levels; ++i) {
    skips.push_back(x);
    const std::string prefix = "down" + std::to_string(i) + ".maxpool_conv";
    x = b.maxPool(prefix + ".0", x, {.kernel = 2, .stride = 2});
    x = doubleConv(b, prefix + ".1", x, base << i);
  }
  for (int i = 1; i <= levels; ++i) {
    const std::string prefix = "up" + std::to_string(i);
    const int64_t channels = base << (levels - i);
    ir::ValueId up =
        b.convTranspose(prefix + ".up", x, {.outChannels = channels, .kernel = 2, .stride = 2});
    x = b.concat(prefix + ".concat", {skips[static_cast<size_t>(levels - i)], up}, 1);
    x = doubleConv(b, prefix + ".conv", x, channels);
  }
  return b.conv("outc.conv", x, {.outChannels = 2, .gain = kLinearGain});
}

} // namespace nnaccel::zoo
