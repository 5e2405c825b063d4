// The plain feed-forward classifiers of the zoo: LeNet-5, AlexNet and VGG-16 (torchvision
// layer names and shapes; Dropout is absent, as in an eval-mode export).
#include "Models.h"
#include "nnaccel/zoo/GraphBuilder.h"

#include <string>

namespace nnaccel::zoo {

ir::ValueId buildLeNet5(GraphBuilder& b, ir::ValueId x) {
  // LeCun et al. 1998, with C3 fully connected (61,706 parameters): tanh activations and 2x2
  // average-pool subsampling. Layer names follow the paper
  // (f7 is its output layer, a plain linear layer here instead of RBF units).
  x = b.tanh("c1.tanh", b.conv("c1", x, {.outChannels = 6, .kernel = 5, .gain = kTanhGain}));
  x = b.avgPool("s2", x, {.kernel = 2, .stride = 2});
  x = b.tanh("c3.tanh", b.conv("c3", x, {.outChannels = 16, .kernel = 5, .gain = kTanhGain}));
  x = b.avgPool("s4", x, {.kernel = 2, .stride = 2});
  x = b.tanh("c5.tanh", b.conv("c5", x, {.outChannels = 120, .kernel = 5, .gain = kTanhGain}));
  x = b.flatten("flatten", x);
  x = b.tanh("f6.tanh", b.gemm("f6", x, 84, true, kTanhGain));
  return b.gemm("f7", x, 10, true, kLinearGain);
}

ir::ValueId buildAlexNet(GraphBuilder& b, ir::ValueId x) {
  // torchvision.models.alexnet: the adaptive 6x6 average pool is the identity at 224x224 and
  // is not emitted.
  const PoolSpec pool = {.kernel = 3, .stride = 2};
  x = b.relu("features.1",
             b.conv("features.0", x, {.outChannels = 64, .kernel = 11, .stride = 4, .pad = 2}));
  x = b.maxPool("features.2", x, pool);
  x = b.relu("features.4", b.conv("features.3", x, {.outChannels = 192, .kernel = 5, .pad = 2}));
  x = b.maxPool("features.5", x, pool);
  x = b.relu("features.7", b.conv("features.6", x, {.outChannels = 384, .kernel = 3, .pad = 1}));
  x = b.relu("features.9", b.conv("features.8", x, {.outChannels = 256, .kernel = 3, .pad = 1}));
  x = b.relu("features.11", b.conv("features.10", x, {.outChannels = 256, .kernel = 3, .pad = 1}));
  x = b.maxPool("features.12", x, pool);
  x = b.flatten("flatten", x);
  x = b.relu("classifier.2", b.gemm("classifier.1", x, 4096));
  x = b.relu("classifier.5", b.gemm("classifier.4", x, 4096));
  return b.gemm("classifier.6", x, 1000, true, kLinearGain);
}

ir::ValueId buildVgg16(GraphBuilder& b, ir::ValueId x) {
  // torchvision.models.vgg16 (configuration "D", no BatchNorm); 0 in the list is a max pool. The
  // adaptive 7x7 average pool is the identity at 224x224 and is not emitted.
  const int64_t config[] = {64, 64,  0,   128, 128, 0,   256, 256, 256,
                            0,  512, 512, 512, 0,   512, 512, 512, 0};
  int index = 0;
  auto name = [&](int i) { return "features." + std::to_string(i); };
  for (int64_t channels : config) {
    if (channels == 0) {
      x = b.maxPool(name(index++), x, {.kernel = 2, .stride = 2});
    } else {
      x = b.conv(name(index++), x, {.outChannels = channels, .kernel = 3, .pad = 1});
      x = b.relu(name(index++), x);
    }
  }
  x = b.flatten("flatten", x);
  x = b.relu("classifier.1", b.gemm("classifier.0", x, 4096));
  x = b.relu("classifier.4", b.gemm("classifier.3", x, 4096));
  return b.gemm("classifier.6", x, 1000, true, kLinearGain);
}

} // namespace nnaccel::zoo
