// GraphBuilder: appends exporter-style ONNX nodes with seeded weights and tracks shapes so the
// zoo's model code can size each layer from the previous one (see GraphBuilder.h).
#include "nnaccel/zoo/GraphBuilder.h"

#include "nnaccel/support/Rng.h"

#include <algorithm>
#include <cmath>

namespace nnaccel::zoo {

namespace {

/// Output extent of a convolution or pooling window along one axis (floor mode).
int64_t windowOutExtent(int64_t in, int64_t kernel, int64_t stride, int64_t pad, int64_t dilation) {
  const int64_t span = dilation * (kernel - 1) + 1;
  NNACCEL_ASSERT(in + 2 * pad >= span) << "window " << span << " larger than padded input " << in;
  return (in + 2 * pad - span) / stride + 1;
}

/// Output extent of a pooling window along one axis in ceil mode (ONNX ceil_mode=1, Caffe): the
/// floor-mode extent plus one when a last partial window starts inside the input or the left
/// padding.
int64_t ceilPoolOutExtent(int64_t in, int64_t kernel, int64_t stride, int64_t pad) {
  int64_t out = windowOutExtent(in, kernel, stride, pad, 1);
  if ((in + 2 * pad - kernel) % stride != 0 && out * stride < in + pad) {
    ++out;
  }
  return out;
}

std::vector<int64_t> pair(int64_t v) {
  return {v, v};
}
std::vector<int64_t> quad(int64_t v) {
  return {v, v, v, v};
}

/// Kaiming/He standard deviation sqrt(gain / fanIn).
float heStd(float gain, int64_t fanIn) {
  return static_cast<float>(std::sqrt(static_cast<double>(gain) / static_cast<double>(fanIn)));
}

/// PyTorch's default bias bound 1 / sqrt(fanIn).
float biasBound(int64_t fanIn) {
  return static_cast<float>(1.0 / std::sqrt(static_cast<double>(fanIn)));
}

} // namespace

GraphBuilder::GraphBuilder(const std::string& graphName, uint64_t seed, Weights weights)
    : seed_(seed), weights_(weights) {
  graph_.name = graphName;
  graph_.opsetVersion = kZooOpset;
}

ir::ValueId GraphBuilder::input(const std::string& name, const Dims& shape) {
  ir::ValueId v = graph_.addValue(name, DType::F32, shape);
  graph_.inputs.push_back(v);
  shapes_[v] = shape;
  return v;
}

void GraphBuilder::output(ir::ValueId v, const std::string& name) {
  graph_.renameValue(v, name);
  graph_.outputs.push_back(v);
}

ir::Graph GraphBuilder::finish() {
  NNACCEL_ASSERT(!graph_.outputs.empty()) << "zoo graph '" << graph_.name << "' has no output";
  NNACCEL_ASSERT(weights_ == Weights::Random)
      << "zoo graph '" << graph_.name << "' was built without weights (shapes only)";
  return std::move(graph_);
}

const Dims& GraphBuilder::shape(ir::ValueId v) const {
  auto it = shapes_.find(v);
  NNACCEL_ASSERT(it != shapes_.end()) << "no shape for value " << v;
  return it->second;
}

const Dims& GraphBuilder::nchwShape(ir::ValueId x, const char* what) const {
  const Dims& s = shape(x);
  NNACCEL_ASSERT(s.size() == 4) << what << " expects an NCHW input, got " << dimsToString(s);
  return s;
}

std::string GraphBuilder::freshNodeName(const std::string& base) {
  std::string name = base;
  for (int i = 1; nodeNames_.count(name) || graph_.findValue(name); ++i) {
    name = base + "_" + std::to_string(i);
  }
  nodeNames_.insert(name);
  return name;
}

ir::ValueId GraphBuilder::addNode(ir::OpKind op, const std::string& nodeName,
                                  std::vector<ir::ValueId> inputs, ir::AttrMap attrs,
                                  Dims outShape) {
  ir::Node node;
  node.op = op;
  node.name = nodeName;
  node.opset = kZooOpset;
  node.inputs = std::move(inputs);
  node.attrs = std::move(attrs);
  ir::ValueId out = graph_.addValue(nodeName, DType::F32);
  node.outputs = {out};
  graph_.addNode(std::move(node));
  shapes_[out] = std::move(outShape);
  return out;
}

ir::ValueId GraphBuilder::addConstant(const std::string& name, Tensor data) {
  Dims dims = data.shape();
  ir::ValueId v = graph_.addConstant(name, std::move(data));
  shapes_[v] = std::move(dims);
  return v;
}

ir::ValueId GraphBuilder::addRandomConstant(const std::string& name, const Dims& dims, Init init,
                                            float a, float b, Role role) {
  if (role == Role::Learned) {
    counts_.params += numElements(dims);
  }
  if (weights_ == Weights::ShapesOnly) {
    const ir::ValueId v = graph_.addValue(name, DType::F32, dims);
    shapes_[v] = dims;
    return v;
  }
  Tensor t(DType::F32, dims);
  Rng rng = Rng::forStream(seed_, name);
  if (init == Init::Normal) {
    rng.fillNormal(t.values<float>(), a, b);
  } else {
    rng.fillUniform(t.values<float>(), a, b);
  }
  return addConstant(name, std::move(t));
}

std::vector<ir::ValueId> GraphBuilder::weightedInputs(const std::string& node, ir::ValueId x,
                                                      const Dims& weightDims, int64_t fanIn,
                                                      float gain, int64_t biasSize) {
  std::vector<ir::ValueId> inputs = {
      x, addRandomConstant(node + ".weight", weightDims, Init::Normal, 0.0f, heStd(gain, fanIn))};
  if (biasSize > 0) {
    const float bound = biasBound(fanIn);
    inputs.push_back(addRandomConstant(node + ".bias", {biasSize}, Init::Uniform, -bound, bound));
  }
  return inputs;
}

ir::ValueId GraphBuilder::conv(const std::string& name, ir::ValueId x, const ConvSpec& spec) {
  const Dims in = nchwShape(x, "conv");
  const int64_t channels = in[1];
  NNACCEL_ASSERT(spec.outChannels > 0 && spec.group > 0 && channels % spec.group == 0 &&
                 spec.outChannels % spec.group == 0)
      << "conv '" << name << "': group " << spec.group << " does not divide " << channels << " -> "
      << spec.outChannels << " channels";
  const std::string node = freshNodeName(name);
  const int64_t fanIn = channels / spec.group * spec.kernel * spec.kernel;
  std::vector<ir::ValueId> inputs =
      weightedInputs(node, x, {spec.outChannels, channels / spec.group, spec.kernel, spec.kernel},
                     fanIn, spec.gain, spec.bias ? spec.outChannels : 0);
  ir::AttrMap attrs;
  attrs.set("dilations", pair(spec.dilation));
  attrs.set("group", spec.group);
  attrs.set("kernel_shape", pair(spec.kernel));
  attrs.set("pads", quad(spec.pad));
  attrs.set("strides", pair(spec.stride));
  Dims out = {in[0], spec.outChannels};
  for (int axis = 2; axis < 4; ++axis) {
    out.push_back(windowOutExtent(in[axis], spec.kernel, spec.stride, spec.pad, spec.dilation));
  }
  // Every output element sums (C / group) * kernel^2 products.
  counts_.macs += numElements(out) * fanIn;
  return addNode(ir::OpKind::Conv, node, std::move(inputs), std::move(attrs), std::move(out));
}

ir::ValueId GraphBuilder::convTranspose(const std::string& name, ir::ValueId x,
                                        const ConvTransposeSpec& spec) {
  const Dims in = nchwShape(x, "convTranspose");
  const int64_t channels = in[1];
  NNACCEL_ASSERT(spec.outChannels > 0 && spec.outputPadding < spec.stride && spec.group >= 1 &&
                 channels % spec.group == 0 && spec.outChannels % spec.group == 0)
      << "convTranspose '" << name << "': bad spec";
  const std::string node = freshNodeName(name);
  // Each output pixel receives on average kernel^2 / stride^2 taps from each input channel of
  // its group.
  const int64_t effectiveFanIn = std::max<int64_t>(
      1, channels / spec.group * spec.kernel * spec.kernel / (spec.stride * spec.stride));
  std::vector<ir::ValueId> inputs =
      weightedInputs(node, x, {channels, spec.outChannels / spec.group, spec.kernel, spec.kernel},
                     effectiveFanIn, spec.gain, spec.bias ? spec.outChannels : 0);
  ir::AttrMap attrs;
  attrs.set("dilations", pair(1));
  attrs.set("group", spec.group);
  attrs.set("kernel_shape", pair(spec.kernel));
  if (spec.outputPadding != 0) {
    attrs.set("output_padding", pair(spec.outputPadding));
  }
  attrs.set("pads", quad(spec.pad));
  attrs.set("strides", pair(spec.stride));
  Dims out = {in[0], spec.outChannels};
  for (int axis = 2; axis < 4; ++axis) {
    const int64_t extent =
        (in[axis] - 1) * spec.stride - 2 * spec.pad + spec.kernel + spec.outputPadding;
    NNACCEL_ASSERT(extent > 0) << "convTranspose '" << name << "': empty output";
    out.push_back(extent);
  }
  // Every input element is multiplied by the kernel^2 taps of every output channel of its group.
  counts_.macs += numElements(in) * (spec.outChannels / spec.group) * spec.kernel * spec.kernel;
  return addNode(ir::OpKind::ConvTranspose, node, std::move(inputs), std::move(attrs),
                 std::move(out));
}

ir::ValueId GraphBuilder::batchNorm(const std::string& name, ir::ValueId x, float gammaScale) {
  const Dims in = shape(x);
  NNACCEL_ASSERT(in.size() >= 2) << "batchNorm '" << name << "' needs a channel axis";
  const std::string node = freshNodeName(name);
  const Dims channels = {in[1]};
  std::vector<ir::ValueId> inputs = {
      x,
      addRandomConstant(node + ".weight", channels, Init::Normal, gammaScale, 0.1f * gammaScale),
      addRandomConstant(node + ".bias", channels, Init::Normal, 0.0f, 0.05f),
      addRandomConstant(node + ".running_mean", channels, Init::Normal, 0.0f, 0.05f,
                        Role::Statistic),
      addRandomConstant(node + ".running_var", channels, Init::Uniform, 0.8f, 1.2f,
                        Role::Statistic),
  };
  ir::AttrMap attrs;
  attrs.set("epsilon", 1e-5f);
  attrs.set("momentum", 0.9f);
  return addNode(ir::OpKind::BatchNormalization, node, std::move(inputs), std::move(attrs), in);
}

ir::ValueId GraphBuilder::gemm(const std::string& name, ir::ValueId x, int64_t outFeatures,
                               bool bias, float gain) {
  const Dims in = shape(x);
  NNACCEL_ASSERT(in.size() == 2 && outFeatures > 0)
      << "gemm '" << name << "' expects a 2-D input, got " << dimsToString(in);
  const std::string node = freshNodeName(name);
  const int64_t fanIn = in[1];
  std::vector<ir::ValueId> inputs =
      weightedInputs(node, x, {outFeatures, fanIn}, fanIn, gain, bias ? outFeatures : 0);
  counts_.macs += in[0] * fanIn * outFeatures;
  ir::AttrMap attrs;
  attrs.set("alpha", 1.0f);
  attrs.set("beta", 1.0f);
  attrs.set("transB", int64_t{1});
  return addNode(ir::OpKind::Gemm, node, std::move(inputs), std::move(attrs), {in[0], outFeatures});
}

ir::ValueId GraphBuilder::unary(ir::OpKind op, const std::string& name, ir::ValueId x) {
  return addNode(op, freshNodeName(name), {x}, {}, shape(x));
}

ir::ValueId GraphBuilder::relu(const std::string& name, ir::ValueId x) {
  return unary(ir::OpKind::Relu, name, x);
}

ir::ValueId GraphBuilder::tanh(const std::string& name, ir::ValueId x) {
  return unary(ir::OpKind::Tanh, name, x);
}

ir::ValueId GraphBuilder::sigmoid(const std::string& name, ir::ValueId x) {
  return unary(ir::OpKind::Sigmoid, name, x);
}

ir::ValueId GraphBuilder::relu6(const std::string& name, ir::ValueId x) {
  const std::string node = freshNodeName(name);
  ir::ValueId lo = addConstant(node + ".min", Tensor::scalar(0.0f));
  ir::ValueId hi = addConstant(node + ".max", Tensor::scalar(6.0f));
  return addNode(ir::OpKind::Clip, node, {x, lo, hi}, {}, shape(x));
}

ir::ValueId GraphBuilder::softmax(const std::string& name, ir::ValueId x, int64_t axis) {
  ir::AttrMap attrs;
  attrs.set("axis", axis);
  return addNode(ir::OpKind::Softmax, freshNodeName(name), {x}, std::move(attrs), shape(x));
}

ir::ValueId GraphBuilder::lrn(const std::string& name, ir::ValueId x, int64_t size, float alpha,
                              float beta, float bias) {
  NNACCEL_ASSERT(size >= 1 && shape(x).size() >= 2) << "lrn '" << name << "': bad size or rank";
  ir::AttrMap attrs;
  attrs.set("alpha", alpha);
  attrs.set("beta", beta);
  attrs.set("bias", bias);
  attrs.set("size", size);
  return addNode(ir::OpKind::LRN, freshNodeName(name), {x}, std::move(attrs), shape(x));
}

ir::ValueId GraphBuilder::pool(ir::OpKind op, const std::string& name, ir::ValueId x,
                               const PoolSpec& spec) {
  const Dims in = nchwShape(x, "pool");
  ir::AttrMap attrs;
  attrs.set("ceil_mode", int64_t{spec.ceilMode ? 1 : 0});
  if (op == ir::OpKind::AveragePool) {
    attrs.set("count_include_pad", int64_t{spec.countIncludePad ? 1 : 0});
  }
  attrs.set("kernel_shape", pair(spec.kernel));
  attrs.set("pads", quad(spec.pad));
  attrs.set("strides", pair(spec.stride));
  Dims out = {in[0], in[1]};
  for (int axis = 2; axis < 4; ++axis) {
    out.push_back(spec.ceilMode ? ceilPoolOutExtent(in[axis], spec.kernel, spec.stride, spec.pad)
                                : windowOutExtent(in[axis], spec.kernel, spec.stride, spec.pad, 1));
  }
  return addNode(op, freshNodeName(name), {x}, std::move(attrs), std::move(out));
}

ir::ValueId GraphBuilder::maxPool(const std::string& name, ir::ValueId x, const PoolSpec& spec) {
  return pool(ir::OpKind::MaxPool, name, x, spec);
}

ir::ValueId GraphBuilder::avgPool(const std::string& name, ir::ValueId x, const PoolSpec& spec) {
  return pool(ir::OpKind::AveragePool, name, x, spec);
}

ir::ValueId GraphBuilder::globalAvgPool(const std::string& name, ir::ValueId x) {
  const Dims in = nchwShape(x, "globalAvgPool");
  return addNode(ir::OpKind::GlobalAveragePool, freshNodeName(name), {x}, {}, {in[0], in[1], 1, 1});
}

ir::ValueId GraphBuilder::add(const std::string& name, ir::ValueId a, ir::ValueId b) {
  NNACCEL_ASSERT(shape(a) == shape(b))
      << "add '" << name << "': " << dimsToString(shape(a)) << " vs " << dimsToString(shape(b));
  return addNode(ir::OpKind::Add, freshNodeName(name), {a, b}, {}, shape(a));
}

ir::ValueId GraphBuilder::concat(const std::string& name, const std::vector<ir::ValueId>& xs,
                                 int64_t axis) {
  NNACCEL_ASSERT(!xs.empty()) << "concat '" << name << "' without inputs";
  Dims out = shape(xs.front());
  const auto rank = static_cast<int64_t>(out.size());
  const int64_t a = axis < 0 ? axis + rank : axis;
  NNACCEL_ASSERT(a >= 0 && a < rank) << "concat '" << name << "': bad axis " << axis;
  out[static_cast<size_t>(a)] = 0;
  for (ir::ValueId x : xs) {
    const Dims& s = shape(x);
    NNACCEL_ASSERT(static_cast<int64_t>(s.size()) == rank) << "concat '" << name << "': rank";
    for (int64_t i = 0; i < rank; ++i) {
      NNACCEL_ASSERT(i == a || s[static_cast<size_t>(i)] == out[static_cast<size_t>(i)])
          << "concat '" << name << "': " << dimsToString(s) << " does not match on axis " << i;
    }
    out[static_cast<size_t>(a)] += s[static_cast<size_t>(a)];
  }
  ir::AttrMap attrs;
  attrs.set("axis", axis);
  return addNode(ir::OpKind::Concat, freshNodeName(name), xs, std::move(attrs), std::move(out));
}

ir::ValueId GraphBuilder::flatten(const std::string& name, ir::ValueId x, int64_t axis) {
  const Dims& in = shape(x);
  NNACCEL_ASSERT(axis >= 0 && axis <= static_cast<int64_t>(in.size()))
      << "flatten '" << name << "': bad axis " << axis;
  const auto split = in.begin() + axis;
  Dims out = {numElements(Dims(in.begin(), split)), numElements(Dims(split, in.end()))};
  ir::AttrMap attrs;
  attrs.set("axis", axis);
  return addNode(ir::OpKind::Flatten, freshNodeName(name), {x}, std::move(attrs), std::move(out));
}

ir::ValueId GraphBuilder::resize(const std::string& name, ir::ValueId x, int64_t outHeight,
                                 int64_t outWidth, ResizeMode mode) {
  const Dims in = nchwShape(x, "resize");
  NNACCEL_ASSERT(outHeight > 0 && outWidth > 0) << "resize '" << name << "': empty output";
  const std::string node = freshNodeName(name);
  Dims out = {in[0], in[1], outHeight, outWidth};
  ir::ValueId sizes = addConstant(node + ".sizes", Tensor::fromVector<int64_t>({4}, out));
  ir::AttrMap attrs;
  if (mode == ResizeMode::Nearest) {
    attrs.set("coordinate_transformation_mode", std::string("asymmetric"));
    attrs.set("mode", std::string("nearest"));
    attrs.set("nearest_mode", std::string("floor"));
  } else {
    attrs.set("coordinate_transformation_mode", std::string("pytorch_half_pixel"));
    attrs.set("mode", std::string(mode == ResizeMode::Bicubic ? "cubic" : "linear"));
    if (mode == ResizeMode::Bicubic)
      attrs.set("cubic_coeff_a", -0.75f);
  }
  return addNode(ir::OpKind::Resize, node, {x, ir::kNoValue, ir::kNoValue, sizes}, std::move(attrs),
                 std::move(out));
}

} // namespace nnaccel::zoo
