// The Caffe BVLC reference models that the SCNN paper (Parashar et al., ISCA 2017) evaluated and
// Han et al. pruned: bvlc_alexnet and bvlc_googlenet, as their deploy.prototxt files define them.
// Node names are Caffe's layer names (conv1, norm1, inception_4e/5x5_reduce, loss3/classifier),
// so per-layer figures keyed by those names (weight and activation densities from the papers)
// apply directly. Written as a Caffe-to-ONNX converter writes them: LRN nodes, ceil-mode pooling
// (Caffe rounds pooled extents up), grouped convolutions, a Flatten before the first
// InnerProduct, the final Softmax "prob"; Dropout is absent (inference).
#include "Models.h"
#include "nnaccel/zoo/GraphBuilder.h"

#include <string>

namespace nnaccel::zoo {

namespace {

/// Caffe's Pooling layer: output extents rounded up.
PoolSpec caffePool(int64_t kernel, int64_t stride, int64_t pad = 0) {
  return {.kernel = kernel, .stride = stride, .pad = pad, .ceilMode = true};
}

/// Caffe's LRN layer as both models configure it: local_size 5, alpha 1e-4, beta 0.75, k 1.
ir::ValueId caffeLrn(GraphBuilder& b, const std::string& name, ir::ValueId x) {
  return b.lrn(name, x, 5, 1e-4f, 0.75f, 1.0f);
}

/// A Convolution layer followed by its in-place ReLU layer \p reluName.
ir::ValueId convRelu(GraphBuilder& b, const std::string& name, const std::string& reluName,
                     ir::ValueId x, const ConvSpec& spec) {
  return b.relu(reluName, b.conv(name, x, spec));
}

/// One Inception module of bvlc_googlenet: the 1x1, 3x3 and 5x5 branches (the latter two behind
/// 1x1 reductions) and the 3x3 max-pool branch with its 1x1 projection, each convolution with
/// its ReLU, concatenated along the channels in that order as \p m + "/output".
struct InceptionSpec {
  const char* name;
  int64_t c1x1, c3x3Reduce, c3x3, c5x5Reduce, c5x5, poolProj;
};

ir::ValueId inception(GraphBuilder& b, const InceptionSpec& s, ir::ValueId x) {
  const std::string m = s.name;
  const ir::ValueId a = convRelu(b, m + "/1x1", m + "/relu_1x1", x, {.outChannels = s.c1x1});
  ir::ValueId c =
      convRelu(b, m + "/3x3_reduce", m + "/relu_3x3_reduce", x, {.outChannels = s.c3x3Reduce});
  c = convRelu(b, m + "/3x3", m + "/relu_3x3", c, {.outChannels = s.c3x3, .kernel = 3, .pad = 1});
  ir::ValueId d =
      convRelu(b, m + "/5x5_reduce", m + "/relu_5x5_reduce", x, {.outChannels = s.c5x5Reduce});
  d = convRelu(b, m + "/5x5", m + "/relu_5x5", d, {.outChannels = s.c5x5, .kernel = 5, .pad = 2});
  ir::ValueId p = b.maxPool(m + "/pool", x, caffePool(3, 1, 1));
  p = convRelu(b, m + "/pool_proj", m + "/relu_pool_proj", p, {.outChannels = s.poolProj});
  return b.concat(m + "/output", {a, c, d, p}, 1);
}

} // namespace

ir::ValueId buildAlexNetCaffe(GraphBuilder& b, ir::ValueId x) {
  // models/bvlc_alexnet/deploy.prototxt: LRN before the pools, conv2/4/5 in two groups (the two
  // GPUs of Krizhevsky et al.); 227 -> 55 -> 27 -> 27 -> 13 -> 13 -> 6 (every pool is exact, so
  // ceil mode changes no extent here).
  x = convRelu(b, "conv1", "relu1", x, {.outChannels = 96, .kernel = 11, .stride = 4});
  x = b.maxPool("pool1", caffeLrn(b, "norm1", x), caffePool(3, 2));
  x = convRelu(b, "conv2", "relu2", x, {.outChannels = 256, .kernel = 5, .pad = 2, .group = 2});
  x = b.maxPool("pool2", caffeLrn(b, "norm2", x), caffePool(3, 2));
  x = convRelu(b, "conv3", "relu3", x, {.outChannels = 384, .kernel = 3, .pad = 1});
  x = convRelu(b, "conv4", "relu4", x, {.outChannels = 384, .kernel = 3, .pad = 1, .group = 2});
  x = convRelu(b, "conv5", "relu5", x, {.outChannels = 256, .kernel = 3, .pad = 1, .group = 2});
  x = b.maxPool("pool5", x, caffePool(3, 2));
  x = b.flatten("flatten", x);
  x = b.relu("relu6", b.gemm("fc6", x, 4096));
  x = b.relu("relu7", b.gemm("fc7", x, 4096));
  return b.softmax("prob", b.gemm("fc8", x, 1000, true, kLinearGain), 1);
}

ir::ValueId buildGoogLeNet(GraphBuilder& b, ir::ValueId x) {
  // models/bvlc_googlenet/deploy.prototxt (Szegedy et al. 2015, with the LRN layers of the Caffe
  // model; the auxiliary classifiers are training-only and absent from the deploy file).
  // 224 -> 112 -> 56 (ceil mode: floor would give 55) -> 28 -> 14 -> 7 -> 1.
  x = convRelu(b, "conv1/7x7_s2", "conv1/relu_7x7", x,
               {.outChannels = 64, .kernel = 7, .stride = 2, .pad = 3});
  x = caffeLrn(b, "pool1/norm1", b.maxPool("pool1/3x3_s2", x, caffePool(3, 2)));
  x = convRelu(b, "conv2/3x3_reduce", "conv2/relu_3x3_reduce", x, {.outChannels = 64});
  x = convRelu(b, "conv2/3x3", "conv2/relu_3x3", x, {.outChannels = 192, .kernel = 3, .pad = 1});
  x = b.maxPool("pool2/3x3_s2", caffeLrn(b, "conv2/norm2", x), caffePool(3, 2));
  x = inception(b, {"inception_3a", 64, 96, 128, 16, 32, 32}, x);
  x = inception(b, {"inception_3b", 128, 128, 192, 32, 96, 64}, x);
  x = b.maxPool("pool3/3x3_s2", x, caffePool(3, 2));
  x = inception(b, {"inception_4a", 192, 96, 208, 16, 48, 64}, x);
  x = inception(b, {"inception_4b", 160, 112, 224, 24, 64, 64}, x);
  x = inception(b, {"inception_4c", 128, 128, 256, 24, 64, 64}, x);
  x = inception(b, {"inception_4d", 112, 144, 288, 32, 64, 64}, x);
  x = inception(b, {"inception_4e", 256, 160, 320, 32, 128, 128}, x);
  x = b.maxPool("pool4/3x3_s2", x, caffePool(3, 2));
  x = inception(b, {"inception_5a", 256, 160, 320, 32, 128, 128}, x);
  x = inception(b, {"inception_5b", 384, 192, 384, 48, 128, 128}, x);
  x = b.avgPool("pool5/7x7_s1", x, caffePool(7, 1));
  x = b.flatten("flatten", x);
  return b.softmax("prob", b.gemm("loss3/classifier", x, 1000, true, kLinearGain), 1);
}

} // namespace nnaccel::zoo
