/// \file
/// One-layer test graphs for the systolic compiler and simulator tests (LayerGraphs.h).
#include "LayerGraphs.h"

#include <fmt/format.h>

namespace nnaccel::arch::systolic::testing {

std::string LayerSpec::describe() const {
  static const char* kNames[] = {"Conv", "ConvTranspose", "Gemm", "MaxPool", "AveragePool"};
  return fmt::format("{} n{} c{}->{} {}x{} k{}x{} s{}x{} d{}x{} g{} pads[{},{},{},{}] op[{},{}]{}",
                     kNames[static_cast<int>(kind)], batch, inChannels, outChannels, h, w, kh, kw,
                     sh, sw, dh, dw, group, padTop, padLeft, padBottom, padRight, outPadH, outPadW,
                     relu ? " +relu" : "");
}

namespace {
Tensor randomTensor(Rng& rng, Dims shape, float scale) {
  std::vector<float> v(static_cast<size_t>(numElements(shape)));
  for (float& x : v)
    x = rng.uniform(-scale, scale);
  return Tensor::fromVector<float>(std::move(shape), v);
}
} // namespace

ir::Graph buildLayerGraph(const LayerSpec& s) {
  using ir::OpKind;
  Rng rng(s.seed);
  ir::Graph g;
  g.name = "layer";
  ir::Node n;
  n.name = "layer0";
  n.opset = 13;
  ir::ValueId x;
  if (s.kind == LayerSpec::Kind::Gemm) {
    x = g.addValue("x", DType::F32, {s.h, s.inChannels});
    n.op = OpKind::Gemm;
    n.inputs = {x, g.addConstant("w", randomTensor(rng, {s.inChannels, s.outChannels}, 0.5f))};
    if (s.bias)
      n.inputs.push_back(g.addConstant("b", randomTensor(rng, {s.outChannels}, 0.5f)));
  } else {
    x = g.addValue("x", DType::F32, {s.batch, s.inChannels, s.h, s.w});
    const bool pool = s.kind == LayerSpec::Kind::MaxPool || s.kind == LayerSpec::Kind::AveragePool;
    n.attrs.set("kernel_shape", std::vector<int64_t>{s.kh, s.kw});
    n.attrs.set("strides", std::vector<int64_t>{s.sh, s.sw});
    n.attrs.set("pads", std::vector<int64_t>{s.padTop, s.padLeft, s.padBottom, s.padRight});
    if (pool) {
      n.op = s.kind == LayerSpec::Kind::MaxPool ? OpKind::MaxPool : OpKind::AveragePool;
      n.inputs = {x};
      if (s.kind == LayerSpec::Kind::MaxPool)
        n.attrs.set("dilations", std::vector<int64_t>{s.dh, s.dw});
      else
        n.attrs.set("count_include_pad", int64_t{s.countIncludePad ? 1 : 0});
    } else {
      const bool tr = s.kind == LayerSpec::Kind::ConvTranspose;
      n.op = tr ? OpKind::ConvTranspose : OpKind::Conv;
      n.attrs.set("dilations", std::vector<int64_t>{s.dh, s.dw});
      n.attrs.set("group", s.group);
      if (tr)
        n.attrs.set("output_padding", std::vector<int64_t>{s.outPadH, s.outPadW});
      const Dims wShape = tr ? Dims{s.inChannels, s.outChannels / s.group, s.kh, s.kw}
                             : Dims{s.outChannels, s.inChannels / s.group, s.kh, s.kw};
      n.inputs = {x, g.addConstant("w", randomTensor(rng, wShape, 0.5f))};
      if (s.bias)
        n.inputs.push_back(g.addConstant("b", randomTensor(rng, {s.outChannels}, 0.5f)));
    }
  }
  ir::ValueId y = g.addValue("y", DType::F32);
  n.outputs = {y};
  g.addNode(std::move(n));
  if (s.relu) {
    ir::Node r;
    r.name = "relu0";
    r.op = OpKind::Relu;
    r.opset = 13;
    r.inputs = {y};
    const ir::ValueId z = g.addValue("z", DType::F32);
    r.outputs = {z};
    g.addNode(std::move(r));
    y = z;
  }
  g.inputs = {x};
  g.outputs = {y};
  driver::prepareGraph(g);
  return g;
}

LayerSpec randomLayer(Rng& rng) {
  auto pick = [&](int64_t lo, int64_t hi) {
    return lo + static_cast<int64_t>(rng.nextU64() % static_cast<uint64_t>(hi - lo + 1));
  };
  for (;;) {
    LayerSpec s;
    s.seed = rng.nextU64();
    const int64_t kind = pick(0, 9);
    s.kind = kind < 5   ? LayerSpec::Kind::Conv
             : kind < 8 ? LayerSpec::Kind::ConvTranspose
             : kind < 9 ? LayerSpec::Kind::Gemm
                        : LayerSpec::Kind::MaxPool;
    s.batch = pick(1, 2);
    s.group = pick(0, 3) == 0 ? pick(2, 3) : 1;
    s.inChannels = s.group * pick(1, 20);
    s.outChannels = s.group * pick(1, 20);
    s.h = pick(1, 12);
    s.w = pick(1, 12);
    s.kh = pick(1, 4);
    s.kw = pick(1, 4);
    s.sh = pick(1, 4);
    s.sw = pick(1, 4);
    s.dh = pick(0, 2) == 0 ? pick(2, 3) : 1;
    s.dw = pick(0, 2) == 0 ? pick(2, 3) : 1;
    s.bias = pick(0, 3) != 0;
    s.relu = pick(0, 1) == 1;
    const int64_t effH = (s.kh - 1) * s.dh + 1, effW = (s.kw - 1) * s.dw + 1;
    if (s.kind == LayerSpec::Kind::ConvTranspose) {
      s.padTop = pick(0, effH - 1);
      s.padBottom = pick(0, effH - 1);
      s.padLeft = pick(0, effW - 1);
      s.padRight = pick(0, effW - 1);
      s.outPadH = pick(0, std::max(s.sh, s.dh) - 1);
      s.outPadW = pick(0, std::max(s.sw, s.dw) - 1);
      const int64_t oh = (s.h - 1) * s.sh + effH - s.padTop - s.padBottom + s.outPadH;
      const int64_t ow = (s.w - 1) * s.sw + effW - s.padLeft - s.padRight + s.outPadW;
      if (oh < 1 || ow < 1)
        continue;
    } else if (s.kind == LayerSpec::Kind::Gemm) {
      s.group = 1;
      s.inChannels = pick(1, 40);
      s.outChannels = pick(1, 40);
      s.h = pick(1, 20);
      s.relu = false;
    } else {
      if (s.kind == LayerSpec::Kind::MaxPool) {
        s.outChannels = s.inChannels;
        s.group = 1;
        s.relu = false;
      }
      s.padTop = pick(0, effH - 1);
      s.padBottom = pick(0, effH - 1);
      s.padLeft = pick(0, effW - 1);
      s.padRight = pick(0, effW - 1);
      if (s.kind == LayerSpec::Kind::MaxPool) {
        // ONNX: pads must be smaller than the (dilated) kernel.
        s.padTop = std::min(s.padTop, effH - 1);
      }
      if (s.h + s.padTop + s.padBottom < effH || s.w + s.padLeft + s.padRight < effW)
        continue;
    }
    return s;
  }
}

} // namespace nnaccel::arch::systolic::testing
