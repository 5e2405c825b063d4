// Internal to the zoo: the builder function and input shape of each model (Zoo.cpp registers
// them; docs/Zoo.md describes them).
#pragma once

#include "nnaccel/ir/Graph.h"

#include <cmath>
#include <cstdint>

namespace nnaccel::zoo {

inline const Dims kLeNet5Input = {1, 1, 32, 32};
inline const Dims kImageNetInput = {1, 3, 224, 224};
inline const Dims kDcganInput = {1, 100, 1, 1};
inline const Dims kAsppInput = {1, 512, 33, 33};
inline const Dims kUNetInput = {1, 3, 128, 128};

/// Gamma scale of the last BatchNorm of every residual branch (ResNet, MobileNetV2):
/// 1 / sqrt(number of residual blocks). Each block adds its branch to the identity, so with
/// gamma ~ 1 the activation variance would double per block (2^16 for ResNet-50); with this
/// scale it grows by about e over the whole network (the inference-time analogue of
/// torchvision's zero_init_residual).
inline float residualGammaScale(int residualBlocks) {
  return static_cast<float>(1.0 / std::sqrt(static_cast<double>(residualBlocks)));
}

ir::Graph buildLeNet5(uint64_t seed);
ir::Graph buildAlexNet(uint64_t seed);
ir::Graph buildVgg16(uint64_t seed);
ir::Graph buildResNet18(uint64_t seed);
ir::Graph buildResNet50(uint64_t seed);
ir::Graph buildMobileNetV2(uint64_t seed);
ir::Graph buildDcganGenerator(uint64_t seed);
ir::Graph buildAsppHead(uint64_t seed);
ir::Graph buildUNet(uint64_t seed);

} // namespace nnaccel::zoo
