/// \file
/// GraphBuilder: writes an ir::Graph the way a framework exporter (torch.onnx) would.
///
/// Each method appends one ONNX-conformant node (opset 13 for the whole graph, ONNX attribute
/// names, every attribute a real exporter writes) and returns its output value. Weights are
/// initializers drawn from the seeded Rng: one stream per tensor, named after the node the way
/// torchvision names parameters ("layer1.0.conv1" -> "layer1.0.conv1.weight", BatchNorm ->
/// ".weight", ".bias", ".running_mean", ".running_var"). Node names are the caller's
/// ("layer1.0.conv1"); a repeated name gets a "_1", "_2" suffix, as exporters do for reused
/// modules. A node's output value carries the node's name.
///
/// Weight initialization (documented in docs/Zoo.md):
///  - Conv/Gemm weights ~ N(0, gain / fanIn) (He/Kaiming; gain 2 before ReLU-like activations,
///    (5/3)^2 before Tanh, 1 before linear outputs), fanIn = (C / group) * kh * kw, or K for Gemm;
///  - ConvTranspose weights ~ N(0, gain / fanIn) with the *effective* fanIn
///    C * kh * kw / (sh * sw) (the number of taps reaching one output pixel on average);
///  - biases ~ U(-1/sqrt(fanIn), 1/sqrt(fanIn)) (PyTorch's default bias init);
///  - BatchNorm: gamma = gammaScale * N(1, 0.1), beta ~ N(0, 0.05), running_mean ~ N(0, 0.05),
///    running_var ~ U(0.8, 1.2). BatchNorm nodes are kept unfused (a pass folds them).
///
/// The builder tracks every value's shape itself (shape()) so model code can size later layers;
/// the graph it returns sets only the graph-input and initializer shapes, exactly like a freshly
/// imported ONNX file, and ir::inferShapes derives the rest. It also counts learnable parameters
/// and MACs as it goes (counts()); in Weights::ShapesOnly mode it draws and stores no weight at
/// all, which is how `nnaccel zoo list` sizes VGG-16 without allocating 138 M floats. Misuse by
/// model code (a group that does not divide the channels, mismatched Add shapes) is an internal
/// error (NNACCEL_ASSERT): the zoo's models are nnaccel's own code, not user input.
#pragma once

#include "nnaccel/ir/Graph.h"
#include "nnaccel/zoo/Zoo.h"

#include <cstdint>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

namespace nnaccel::zoo {

/// Opset of every zoo graph.
inline constexpr int64_t kZooOpset = 13;
/// He variance gains (torch.nn.init.calculate_gain squared): ReLU 2, Tanh (5/3)^2, linear 1.
inline constexpr float kReluGain = 2.0f;
inline constexpr float kTanhGain = 25.0f / 9.0f;
inline constexpr float kLinearGain = 1.0f;

/// A square 2-D convolution (kernel, stride, pad and dilation apply to both spatial axes; pads
/// are symmetric).
struct ConvSpec {
  int64_t outChannels = 0;
  int64_t kernel = 1;
  int64_t stride = 1;
  int64_t pad = 0;
  int64_t dilation = 1;
  int64_t group = 1;
  bool bias = true;
  /// He variance gain: weights ~ N(0, gain / fanIn).
  float gain = kReluGain;
};

/// A square 2-D transposed convolution (group 1, dilation 1).
struct ConvTransposeSpec {
  int64_t outChannels = 0;
  int64_t kernel = 1;
  int64_t stride = 1;
  int64_t pad = 0;
  int64_t outputPadding = 0;
  int64_t group = 1; ///< divides the input and output channels; weights [C, M/group, k, k]
  bool bias = true;
  float gain = kReluGain;
};

/// A square 2-D pooling window.
struct PoolSpec {
  int64_t kernel = 2;
  int64_t stride = 2;
  int64_t pad = 0;
  /// Round the output extent up (ONNX ceil_mode=1, Caffe's rounding): a last partial window is
  /// kept when it starts inside the input or the left padding.
  bool ceilMode = false;
  bool countIncludePad = false; ///< AveragePool only
};

enum class ResizeMode {
  Nearest,  ///< torch `nearest`: mode=nearest, asymmetric, nearest_mode=floor
  Bilinear, ///< torch `bilinear`, align_corners=False: mode=linear, pytorch_half_pixel
  Bicubic,  ///< torch `bicubic`, align_corners=False: mode=cubic, pytorch_half_pixel, a = -0.75
};

class GraphBuilder {
public:
  enum class Weights {
    Random,     ///< weights are initializers drawn from the seeded Rng
    ShapesOnly, ///< weights are placeholder values with a shape and no data: counts() only
  };

  GraphBuilder(const std::string& graphName, uint64_t seed, Weights weights = Weights::Random);

  /// Declares a float graph input of \p shape.
  ir::ValueId input(const std::string& name, const Dims& shape);
  /// Marks \p v as a graph output and renames it to \p name.
  void output(ir::ValueId v, const std::string& name);
  /// Returns the finished graph (Weights::Random only); the builder must not be used afterwards.
  ir::Graph finish();
  /// Learnable parameters and MACs of the layers added so far (see ModelCounts).
  const ModelCounts& counts() const { return counts_; }

  /// Shape of \p v as computed by the builder.
  const Dims& shape(ir::ValueId v) const;

  // --- layers with weights ------------------------------------------------------------------
  ir::ValueId conv(const std::string& name, ir::ValueId x, const ConvSpec& spec);
  ir::ValueId convTranspose(const std::string& name, ir::ValueId x, const ConvTransposeSpec& spec);
  /// BatchNormalization (inference form, epsilon 1e-5). \p gammaScale scales the random gamma
  /// (used on the last BatchNorm of residual branches, see docs/Zoo.md).
  ir::ValueId batchNorm(const std::string& name, ir::ValueId x, float gammaScale = 1.0f);
  /// Gemm(x, W^T, b) with W of shape [outFeatures, inFeatures] (transB=1, as torch exports
  /// nn.Linear); \p x must be 2-D.
  ir::ValueId gemm(const std::string& name, ir::ValueId x, int64_t outFeatures, bool bias = true,
                   float gain = kReluGain);

  // --- activations --------------------------------------------------------------------------
  ir::ValueId relu(const std::string& name, ir::ValueId x);
  /// ReLU6 as exported at opset >= 11: Clip with constant min (0) and max (6) inputs.
  ir::ValueId relu6(const std::string& name, ir::ValueId x);
  ir::ValueId tanh(const std::string& name, ir::ValueId x);
  ir::ValueId sigmoid(const std::string& name, ir::ValueId x);
  ir::ValueId softmax(const std::string& name, ir::ValueId x, int64_t axis = -1);
  /// LRN across channels (ONNX LRN: y = x / (bias + alpha / size * sum of x^2 over \p size
  /// neighbouring channels)^beta), as Caffe's LRN layer in ACROSS_CHANNELS mode.
  ir::ValueId lrn(const std::string& name, ir::ValueId x, int64_t size, float alpha = 1e-4f,
                  float beta = 0.75f, float bias = 1.0f);

  // --- pooling ------------------------------------------------------------------------------
  ir::ValueId maxPool(const std::string& name, ir::ValueId x, const PoolSpec& spec);
  ir::ValueId avgPool(const std::string& name, ir::ValueId x, const PoolSpec& spec);
  ir::ValueId globalAvgPool(const std::string& name, ir::ValueId x);

  // --- tensor plumbing ----------------------------------------------------------------------
  ir::ValueId add(const std::string& name, ir::ValueId a, ir::ValueId b);
  ir::ValueId concat(const std::string& name, const std::vector<ir::ValueId>& xs, int64_t axis);
  ir::ValueId flatten(const std::string& name, ir::ValueId x, int64_t axis = 1);
  /// Resize of the spatial axes of an NCHW tensor to \p outHeight x \p outWidth (opset-13 form
  /// with a constant `sizes` input; roi and scales omitted).
  ir::ValueId resize(const std::string& name, ir::ValueId x, int64_t outHeight, int64_t outWidth,
                     ResizeMode mode);

private:
  std::string freshNodeName(const std::string& base);
  ir::ValueId addNode(ir::OpKind op, const std::string& nodeName, std::vector<ir::ValueId> inputs,
                      ir::AttrMap attrs, Dims outShape);
  enum class Init { Normal, Uniform };
  enum class Role { Learned, Statistic };
  /// A seeded random initializer: Normal(a = mean, b = stddev) or Uniform(a = lo, b = hi).
  /// Learned tensors count as parameters. In ShapesOnly mode: a data-less placeholder value.
  ir::ValueId addRandomConstant(const std::string& name, const Dims& dims, Init init, float a,
                                float b, Role role = Role::Learned);
  ir::ValueId addConstant(const std::string& name, Tensor data);
  /// {x, <node>.weight ~ N(0, gain / fanIn), <node>.bias ~ U(-1/sqrt(fanIn), 1/sqrt(fanIn)) of
  /// \p biasSize elements (omitted when 0)}: the inputs of Conv, ConvTranspose and Gemm.
  std::vector<ir::ValueId> weightedInputs(const std::string& node, ir::ValueId x,
                                          const Dims& weightDims, int64_t fanIn, float gain,
                                          int64_t biasSize);
  ir::ValueId unary(ir::OpKind op, const std::string& name, ir::ValueId x);
  ir::ValueId pool(ir::OpKind op, const std::string& name, ir::ValueId x, const PoolSpec& spec);
  const Dims& nchwShape(ir::ValueId x, const char* what) const;

  ir::Graph graph_;
  uint64_t seed_;
  Weights weights_;
  ModelCounts counts_;
  std::set<std::string> nodeNames_;
  std::unordered_map<ir::ValueId, Dims> shapes_;
};

} // namespace nnaccel::zoo
