/// \file
/// Test helper: one-layer graphs (Conv, ConvTranspose, Gemm, pooling, optional Relu) with any
/// stride, dilation, asymmetric padding, groups and output padding, with seeded random weights,
/// prepared exactly as a loaded model is (shape inference, passes, verify).
#pragma once
#include "nnaccel/driver/ModelLoader.h"
#include "nnaccel/ir/Graph.h"
#include "nnaccel/support/Rng.h"

#include <string>
#include <vector>

namespace nnaccel::arch::systolic::testing {

struct LayerSpec {
  enum class Kind { Conv, ConvTranspose, Gemm, MaxPool, AveragePool } kind = Kind::Conv;
  int64_t batch = 1, inChannels = 3, outChannels = 4, h = 5, w = 6;
  int64_t kh = 3, kw = 3, sh = 1, sw = 1, dh = 1, dw = 1, group = 1;
  int64_t padTop = 0, padLeft = 0, padBottom = 0, padRight = 0;
  int64_t outPadH = 0, outPadW = 0; ///< ConvTranspose output_padding
  bool bias = true, relu = false, countIncludePad = false;
  uint64_t seed = 1;
  std::string describe() const;
};

/// The prepared graph of \p spec.
ir::Graph buildLayerGraph(const LayerSpec& spec);

/// A 7x7 convolution, 64 -> 16 channels on 8x8 ("same" padding): its weights of one output
/// block need 4 input blocks x 16 x 49 = 3,136 bytes per partition of a 16-row array.
inline LayerSpec wideKernelLayer() {
  LayerSpec s;
  s.inChannels = 64;
  s.outChannels = 16;
  s.kh = s.kw = 7;
  s.h = s.w = 8;
  s.padTop = s.padLeft = s.padBottom = s.padRight = 3;
  return s;
}

/// A random small layer covering stride, dilation, padding, transposed, groups and channel /
/// tile tails; every spec it returns is valid (positive output extents).
LayerSpec randomLayer(Rng& rng);

} // namespace nnaccel::arch::systolic::testing
