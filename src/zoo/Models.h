// Internal to the zoo: the layer function and input shape of each model (Zoo.cpp registers
// them; docs/Zoo.md describes them).
#pragma once

#include "nnaccel/zoo/GraphBuilder.h"

#include <cmath>
#include <cstdint>

namespace nnaccel::zoo {

inline const Dims kLeNet5Input = {1, 1, 32, 32};
inline const Dims kImageNetInput = {1, 3, 224, 224};
/// Caffe's AlexNet crop (bvlc_alexnet deploy.prototxt): 227 makes conv1's 11x11/4 windows tile
/// exactly (55 outputs) without padding.
inline const Dims kCaffeAlexNetInput = {1, 3, 227, 227};
inline const Dims kDcganInput = {1, 100, 1, 1};
inline const Dims kAsppInput = {1, 512, 33, 33};
inline const Dims kUNetInput = {1, 3, 128, 128};
inline const Dims kPatentFig54Input = {1, 3, 64, 64};

/// Gamma scale of the last BatchNorm of every residual branch (ResNet, MobileNetV2):
/// 1 / sqrt(number of residual blocks). Each block adds its branch to the identity, so with
/// gamma ~ 1 the activation variance would double per block (2^16 for ResNet-50); with this
/// scale it grows by about e over the whole network (the inference-time analogue of
/// torchvision's zero_init_residual).
inline float residualGammaScale(int residualBlocks) {
  return static_cast<float>(1.0 / std::sqrt(static_cast<double>(residualBlocks)));
}

/// Each model's layers: appends them to \p b after the graph input \p x and returns the value
/// that becomes the graph output (ZooModel::define).
ir::ValueId buildLeNet5(GraphBuilder& b, ir::ValueId x);
ir::ValueId buildAlexNet(GraphBuilder& b, ir::ValueId x);
ir::ValueId buildVgg16(GraphBuilder& b, ir::ValueId x);
ir::ValueId buildResNet18(GraphBuilder& b, ir::ValueId x);
ir::ValueId buildResNet50(GraphBuilder& b, ir::ValueId x);
ir::ValueId buildMobileNetV2(GraphBuilder& b, ir::ValueId x);
ir::ValueId buildDcganGenerator(GraphBuilder& b, ir::ValueId x);
ir::ValueId buildAsppHead(GraphBuilder& b, ir::ValueId x);
ir::ValueId buildUNet(GraphBuilder& b, ir::ValueId x);
ir::ValueId buildPatentFig54(GraphBuilder& b, ir::ValueId x);
ir::ValueId buildAlexNetCaffe(GraphBuilder& b, ir::ValueId x);
ir::ValueId buildGoogLeNet(GraphBuilder& b, ir::ValueId x);

} // namespace nnaccel::zoo
