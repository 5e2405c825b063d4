/// \file
/// Test helper shared by the engines' compiler and simulator tests (header only; the test
/// targets add tests/support to their include path): one-layer graphs (Conv 1-D / 2-D,
/// ConvTranspose, Gemm, pooling, optional fused Relu, optional second 3x3 Conv reading the first
/// one's output on chip) with any stride, dilation, asymmetric padding, groups and output padding,
/// whose weights are non-zero with magnitude >= 0.25 (so none quantizes to zero) and zeroed with a
/// chosen probability (the weight density); sparse inputs with a chosen activation density; and a
/// seeded random layer generator. Graphs are prepared as a loaded model is (shape inference,
/// passes).
///
/// Why not tests/unit/arch/systolic/LayerGraphs: that helper is compiled into the systolic test
/// targets only and draws dense weights.
#pragma once

#include "GraphHelpers.h"
#include "nnaccel/driver/ModelLoader.h"
#include "nnaccel/ir/Graph.h"
#include "nnaccel/ir/OpParams.h"
#include "nnaccel/support/Rng.h"
#include "nnaccel/tensor/Tensor.h"

#include <fmt/format.h>
#include <string>
#include <vector>

namespace nnaccel::testing {

struct LayerSpec {
  enum class Kind { Conv, ConvTranspose, Gemm, MaxPool, AveragePool } kind = Kind::Conv;
  bool oneD =
      false; ///< Conv / ConvTranspose over [1, C, W] (h, kh, sh, dh, pads top/bottom unused)
  int64_t inChannels = 3, outChannels = 4, h = 5, w = 6; ///< Gemm: h rows of inChannels
  int64_t kh = 3, kw = 3, sh = 1, sw = 1, dh = 1, dw = 1, group = 1;
  int64_t padTop = 0, padLeft = 0, padBottom = 0, padRight = 0;
  int64_t outPadH = 0, outPadW = 0; ///< ConvTranspose output_padding
  bool bias = true, relu = false;
  /// > 0: a second Conv (3x3, pad 1, this many channels, Relu) reads the first one's output.
  int64_t chainChannels = 0;
  double weightDensity = 1.0; ///< probability that a weight is kept (others are exactly 0)
  uint64_t seed = 1;

  std::string describe() const {
    static const char* kNames[] = {"Conv", "ConvTranspose", "Gemm", "MaxPool", "AveragePool"};
    return fmt::format("{}{} c{}->{} {}x{} k{}x{} s{}x{} d{}x{} g{} pads[{},{},{},{}] op[{},{}] "
                       "wd{:.2f}{}{}",
                       kNames[static_cast<int>(kind)], oneD ? "1d" : "", inChannels, outChannels, h,
                       w, kh, kw, sh, sw, dh, dw, group, padTop, padLeft, padBottom, padRight,
                       outPadH, outPadW, weightDensity, relu ? " +relu" : "",
                       chainChannels > 0 ? fmt::format(" +conv{}", chainChannels) : "");
  }
};

/// A Conv of \p c -> \p m channels on an \p h x \p w input with a square \p k kernel and
/// symmetric padding \p pad (stride, dilation 1; dense weights, bias).
inline LayerSpec conv(int64_t c, int64_t m, int64_t h, int64_t w, int64_t k, int64_t pad) {
  LayerSpec s;
  s.inChannels = c;
  s.outChannels = m;
  s.h = h;
  s.w = w;
  s.kh = s.kw = k;
  s.padTop = s.padLeft = s.padBottom = s.padRight = pad;
  return s;
}

namespace detail {

/// Weights of magnitude in [0.25, 0.5), each kept with probability \p density.
inline Tensor sparseWeights(Rng& rng, Dims shape, double density) {
  std::vector<float> v(static_cast<size_t>(numElements(shape)));
  for (float& x : v) {
    const float magnitude = rng.uniform(0.25f, 0.5f);
    const bool negative = (rng.nextU64() & 1) != 0;
    const bool keep = static_cast<double>(rng.uniform(0.0f, 1.0f)) < density;
    x = keep ? (negative ? -magnitude : magnitude) : 0.0f;
  }
  return Tensor::fromVector<float>(std::move(shape), v);
}

using graph::addNode;
using graph::uniformTensor;

} // namespace detail

/// The prepared graph of \p s.
inline ir::Graph buildLayerGraph(const LayerSpec& s) {
  using ir::OpKind;
  using Kind = LayerSpec::Kind;
  Rng rng(s.seed);
  ir::Graph g;
  g.name = "layer";
  ir::ValueId x, y;
  if (s.kind == Kind::Gemm) {
    x = g.addValue("x", DType::F32, {s.h, s.inChannels});
    std::vector<ir::ValueId> in = {
        x, g.addConstant(
               "w", detail::sparseWeights(rng, {s.inChannels, s.outChannels}, s.weightDensity))};
    if (s.bias)
      in.push_back(g.addConstant("b", detail::uniformTensor(rng, {s.outChannels}, 0.5f)));
    y = detail::addNode(g, OpKind::Gemm, "gemm0", in);
  } else {
    const Dims spatial = s.oneD ? Dims{s.w} : Dims{s.h, s.w};
    Dims xShape = {1, s.inChannels};
    xShape.insert(xShape.end(), spatial.begin(), spatial.end());
    x = g.addValue("x", DType::F32, xShape);
    auto axes = [&](int64_t hv, int64_t wv) {
      return s.oneD ? std::vector<int64_t>{wv} : std::vector<int64_t>{hv, wv};
    };
    ir::AttrMap a;
    a.set("kernel_shape", axes(s.kh, s.kw));
    a.set("strides", axes(s.sh, s.sw));
    a.set("pads", s.oneD ? std::vector<int64_t>{s.padLeft, s.padRight}
                         : std::vector<int64_t>{s.padTop, s.padLeft, s.padBottom, s.padRight});
    if (s.kind == Kind::MaxPool || s.kind == Kind::AveragePool) {
      y = detail::addNode(g, s.kind == Kind::MaxPool ? OpKind::MaxPool : OpKind::AveragePool,
                          "pool0", {x}, a);
    } else {
      const bool tr = s.kind == Kind::ConvTranspose;
      a.set("dilations", axes(s.dh, s.dw));
      a.set("group", s.group);
      if (tr)
        a.set("output_padding", axes(s.outPadH, s.outPadW));
      Dims wShape = tr ? Dims{s.inChannels, s.outChannels / s.group}
                       : Dims{s.outChannels, s.inChannels / s.group};
      for (int64_t k : axes(s.kh, s.kw))
        wShape.push_back(k);
      std::vector<ir::ValueId> in = {
          x, g.addConstant("w", detail::sparseWeights(rng, wShape, s.weightDensity))};
      if (s.bias)
        in.push_back(g.addConstant("b", detail::uniformTensor(rng, {s.outChannels}, 0.5f)));
      y = detail::addNode(g, tr ? OpKind::ConvTranspose : OpKind::Conv, "conv0", in, a);
    }
  }
  if (s.relu)
    y = detail::addNode(g, OpKind::Relu, "relu0", {y});
  if (s.chainChannels > 0) {
    ir::AttrMap a;
    a.set("kernel_shape", std::vector<int64_t>{3, 3});
    a.set("pads", std::vector<int64_t>{1, 1, 1, 1});
    const ir::ValueId w = g.addConstant(
        "w1", detail::sparseWeights(rng, {s.chainChannels, s.outChannels, 3, 3}, s.weightDensity));
    y = detail::addNode(g, OpKind::Conv, "conv1", {y, w}, a);
    y = detail::addNode(g, OpKind::Relu, "relu1", {y});
  }
  g.inputs = {x};
  g.outputs = {y};
  driver::prepareGraph(g);
  return g;
}

/// Inputs of \p g (one per graph input): each element is 0 with probability 1 - \p density,
/// else of magnitude in [0.25, 1) with a random sign (never quantized to zero).
inline std::vector<Tensor> sparseInputs(const ir::Graph& g, double density, uint64_t seed) {
  Rng rng(seed);
  std::vector<Tensor> inputs;
  for (ir::ValueId v : g.inputs) {
    const Dims& shape = g.value(v).shape;
    std::vector<float> data(static_cast<size_t>(numElements(shape)));
    for (float& e : data) {
      const float magnitude = rng.uniform(0.25f, 1.0f);
      const bool negative = (rng.nextU64() & 1) != 0;
      const bool keep = static_cast<double>(rng.uniform(0.0f, 1.0f)) < density;
      e = keep ? (negative ? -magnitude : magnitude) : 0.0f;
    }
    inputs.push_back(Tensor::fromVector<float>(shape, data));
  }
  return inputs;
}

/// A random small conv-like layer (Conv 1-D / 2-D with stride, dilation, asymmetric pads and
/// groups; ConvTranspose with output padding; Gemm) with tails everywhere and a random weight
/// density; every spec it returns is valid (positive output extents).
inline LayerSpec randomLayer(Rng& rng) {
  auto pick = [&](int64_t lo, int64_t hi) {
    return lo + static_cast<int64_t>(rng.nextU64() % static_cast<uint64_t>(hi - lo + 1));
  };
  for (;;) {
    LayerSpec s;
    s.seed = rng.nextU64();
    const int64_t kind = pick(0, 9);
    s.kind = kind < 6   ? LayerSpec::Kind::Conv
             : kind < 9 ? LayerSpec::Kind::ConvTranspose
                        : LayerSpec::Kind::Gemm;
    s.weightDensity = static_cast<double>(pick(1, 10)) / 10.0;
    s.bias = pick(0, 3) != 0;
    s.relu = pick(0, 1) == 1;
    if (s.kind == LayerSpec::Kind::Gemm) {
      s.inChannels = pick(1, 40);
      s.outChannels = pick(1, 24);
      s.h = pick(1, 12);
      return s;
    }
    s.oneD = pick(0, 7) == 0;
    s.group = pick(0, 3) == 0 ? pick(2, 3) : 1;
    s.inChannels = s.group * pick(1, 6);
    s.outChannels = s.group * pick(1, 6);
    s.h = s.oneD ? 1 : pick(1, 13);
    s.w = pick(1, 13);
    s.kh = s.oneD ? 1 : pick(1, 4);
    s.kw = pick(1, 4);
    s.sh = s.oneD ? 1 : pick(1, 3);
    s.sw = pick(1, 3);
    // The fp32 reference (oneDNN) has no dilated ConvTranspose: dilation on Conv only.
    const bool dilated = s.kind == LayerSpec::Kind::Conv;
    s.dh = dilated && !s.oneD && pick(0, 2) == 0 ? pick(2, 3) : 1;
    s.dw = dilated && pick(0, 2) == 0 ? pick(2, 3) : 1;
    const int64_t effH = (s.kh - 1) * s.dh + 1, effW = (s.kw - 1) * s.dw + 1;
    s.padTop = s.oneD ? 0 : pick(0, effH - 1);
    s.padBottom = s.oneD ? 0 : pick(0, effH - 1);
    s.padLeft = pick(0, effW - 1);
    s.padRight = pick(0, effW - 1);
    if (s.kind == LayerSpec::Kind::ConvTranspose) {
      s.outPadH = s.oneD ? 0 : pick(0, std::max(s.sh, s.dh) - 1);
      s.outPadW = pick(0, std::max(s.sw, s.dw) - 1);
      const int64_t oh = (s.h - 1) * s.sh + effH - s.padTop - s.padBottom + s.outPadH;
      const int64_t ow = (s.w - 1) * s.sw + effW - s.padLeft - s.padRight + s.outPadW;
      if (oh < 1 || ow < 1)
        continue;
    } else if (s.h + s.padTop + s.padBottom < effH || s.w + s.padLeft + s.padRight < effW) {
      continue;
    }
    if (s.kind == LayerSpec::Kind::Conv && !s.oneD && pick(0, 4) == 0)
      s.chainChannels = pick(1, 5);
    return s;
  }
}

/// (output, tap) pairs of one axis whose input lies inside the input, by brute force over the
/// ONNX definitions (Conv: in = o * stride - pad + k * dilation; ConvTranspose: out = i * stride
/// - pad + k * dilation).
inline int64_t usefulPairs(int64_t in, int64_t out, int64_t kernel, int64_t stride,
                           int64_t dilation, int64_t pad, bool transposed) {
  int64_t n = 0;
  for (int64_t k = 0; k < kernel; ++k) {
    const int64_t range = transposed ? in : out;
    for (int64_t j = 0; j < range; ++j) {
      const int64_t other = j * stride - pad + k * dilation;
      n += other >= 0 && other < (transposed ? out : in) ? 1 : 0;
    }
  }
  return n;
}

/// The dense MACs of the convolution or Gemm node \p node of graph \p g (padding taps
/// excluded): the products a dense machine must do and the most useful products a sparse one
/// can do.
inline int64_t usefulDenseMacs(const ir::Graph& g, ir::NodeId node) {
  const ir::Node& n = g.node(node);
  if (n.op != ir::OpKind::Conv && n.op != ir::OpKind::ConvTranspose) {
    const Dims& a = g.value(n.inputs[0]).shape;
    const Dims& y = g.value(n.outputs[0]).shape;
    return numElements(y) * a.back(); // rows x outputs x reduction length
  }
  const ir::ConvParams p = ir::convParams(g, node);
  int64_t pairs = 1;
  for (size_t a = 0; a < p.kernel.size(); ++a)
    pairs *= usefulPairs(p.inSpatial[a], p.outSpatial[a], p.kernel[a], p.strides[a], p.dilations[a],
                         p.padsBegin[a], p.transposed);
  return p.outChannels * (p.inChannels / p.group) * pairs;
}

} // namespace nnaccel::testing
