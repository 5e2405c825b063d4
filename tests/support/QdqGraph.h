/// \file
/// Test helper (header only): a small QDQ model as ONNX Runtime's static quantizer and
/// PyTorch's symmetric export write it — int8 per-channel weights and int32 biases behind
/// DequantizeLinear, every activation wrapped in a QuantizeLinear -> DequantizeLinear pair
/// (int8 zero point 0, or uint8 zero point 128) — covering a convolution with a Relu, a depthwise
/// convolution, a residual Add, a Concat, max pooling and a MatMul. Shared by the quantizer's
/// tests and the engine contract test.
#pragma once

#include "GraphHelpers.h"
#include "nnaccel/driver/ModelLoader.h"
#include "nnaccel/ir/Graph.h"
#include "nnaccel/support/Rng.h"
#include "nnaccel/tensor/Tensor.h"

#include <string>
#include <vector>

namespace nnaccel::testing {
namespace qdq {

using graph::addNode;

/// A node of \p op as the QDQ graphs write them (opset 13; \p out its output's type).
inline ir::ValueId node(ir::Graph& g, ir::OpKind op, const std::string& name,
                        std::vector<ir::ValueId> inputs, ir::AttrMap attrs = {},
                        DType out = DType::F32) {
  return addNode(g, op, name, std::move(inputs), std::move(attrs), out);
}

/// x -> QuantizeLinear -> DequantizeLinear at \p scale: int8 zero point 0, or uint8 zero point
/// \p uint8Zero when it is >= 0.
inline ir::ValueId wrap(ir::Graph& g, ir::ValueId x, const std::string& name, float scale,
                        int uint8Zero = -1) {
  const ir::ValueId s = g.addConstant(name + ".s", Tensor::scalar(scale));
  const ir::ValueId z =
      uint8Zero >= 0 ? g.addConstant(name + ".z", Tensor::scalar(static_cast<uint8_t>(uint8Zero)))
                     : g.addConstant(name + ".z", Tensor::scalar(int8_t{0}));
  const DType t = uint8Zero >= 0 ? DType::U8 : DType::I8;
  const ir::ValueId q = node(g, ir::OpKind::QuantizeLinear, name + ".q", {x, s, z}, {}, t);
  return node(g, ir::OpKind::DequantizeLinear, name + ".dq", {q, s, z});
}

/// int8 weights of \p shape (codes in [-128, 127], the first -128) dequantized per index of
/// axis \p axis (its extent of scales), and their int32 bias at input scale \p sIn.
struct Weights {
  ir::ValueId weights = ir::kNoValue, bias = ir::kNoValue;
  std::vector<int8_t> codes;
  std::vector<float> scales;
  std::vector<int32_t> biasCodes;
};

inline Weights weights(ir::Graph& g, Rng& rng, const std::string& name, Dims shape, int64_t axis,
                       float sIn, bool withBias) {
  Weights w;
  const int64_t channels = shape[static_cast<size_t>(axis)];
  for (int64_t i = 0; i < numElements(shape); ++i) // the first code is -128, the int8 minimum
    w.codes.push_back(i == 0 ? int8_t{-128}
                             : static_cast<int8_t>(static_cast<int>(rng.nextU64() % 256) - 128));
  for (int64_t c = 0; c < channels; ++c)
    w.scales.push_back(0.002f * static_cast<float>(c + 1));
  const ir::ValueId codes = g.addConstant(name + ".w", Tensor::fromVector<int8_t>(shape, w.codes));
  const ir::ValueId s =
      g.addConstant(name + ".ws", Tensor::fromVector<float>({channels}, w.scales));
  const ir::ValueId z = g.addConstant(
      name + ".wz", Tensor::fromVector<int8_t>({channels}, std::vector<int8_t>(channels, 0)));
  ir::AttrMap a;
  a.set("axis", axis);
  w.weights = node(g, ir::OpKind::DequantizeLinear, name + ".wdq", {codes, s, z}, a);
  if (withBias) {
    std::vector<float> biasScales;
    for (int64_t c = 0; c < channels; ++c) {
      w.biasCodes.push_back(static_cast<int32_t>(rng.nextU64() % 2001) - 1000);
      biasScales.push_back(sIn * w.scales[static_cast<size_t>(c)]);
    }
    const ir::ValueId b =
        g.addConstant(name + ".b", Tensor::fromVector<int32_t>({channels}, w.biasCodes));
    const ir::ValueId bs =
        g.addConstant(name + ".bs", Tensor::fromVector<float>({channels}, biasScales));
    ir::AttrMap ba;
    ba.set("axis", int64_t{0});
    w.bias = node(g, ir::OpKind::DequantizeLinear, name + ".bdq", {b, bs}, ba);
  }
  return w;
}

} // namespace qdq

/// The QDQ model: x [1, 4, 8, 8] -> conv 3x3 (+ Relu) -> depthwise 3x3 -> residual Add with
/// the conv output -> Concat with it -> MaxPool 2x2 -> Reshape [1, 8, 16] -> MatMul by [16, 5].
/// Activation scales are the model's (uint8 zero point 128 on the Relu output and the pool,
/// int8 elsewhere). With \p asymmetric, the form of ONNX Runtime's default quantizer: uint8
/// activations with zero points (0 on the Relu output, other values elsewhere). Prepared like a
/// loaded model (its weight DequantizeLinears fold).
inline ir::Graph qdqGraph(bool asymmetric = false) {
  using ir::OpKind;
  using qdq::node;
  using qdq::wrap;
  Rng rng(41);
  ir::Graph g;
  g.name = "qdq";
  const ir::ValueId x = g.addValue("x", DType::F32, {1, 4, 8, 8});
  g.inputs = {x};
  ir::AttrMap pad;
  pad.set("pads", std::vector<int64_t>{1, 1, 1, 1});
  const float sx = 1.0f / 127.0f;
  const qdq::Weights w1 = qdq::weights(g, rng, "c1", {4, 4, 3, 3}, 0, sx, true);
  // uint8 zero points of the asymmetric form, or -1 (int8, zero point 0) / 128.
  const auto zero = [&](int symmetric, int asym) { return asymmetric ? asym : symmetric; };
  const ir::ValueId c1 =
      node(g, OpKind::Conv, "c1", {wrap(g, x, "x", sx, zero(-1, 120)), w1.weights, w1.bias}, pad);
  const ir::ValueId r1 = wrap(g, node(g, OpKind::Relu, "r1", {c1}), "r1", 0.04f, zero(128, 0));
  ir::AttrMap dw = pad;
  dw.set("group", int64_t{4});
  const qdq::Weights w2 = qdq::weights(g, rng, "dw", {4, 1, 3, 3}, 0, 0.04f, true);
  const ir::ValueId d = wrap(g, node(g, OpKind::Conv, "dw", {r1, w2.weights, w2.bias}, dw), "dw",
                             0.05f, zero(-1, 100));
  const ir::ValueId sum =
      wrap(g, node(g, OpKind::Add, "add", {d, r1}), "add", 0.06f, zero(-1, 140));
  ir::AttrMap axis;
  axis.set("axis", int64_t{1});
  // At 0.08 the Relu output's codes (0.04) halve: every odd code is a tie, which the model's
  // rule (half to even) must decide on every engine.
  const ir::ValueId cat =
      wrap(g, node(g, OpKind::Concat, "cat", {sum, r1}, axis), "cat", 0.08f, zero(-1, 64));
  ir::AttrMap pool;
  pool.set("kernel_shape", std::vector<int64_t>{2, 2});
  pool.set("strides", std::vector<int64_t>{2, 2});
  const ir::ValueId p =
      wrap(g, node(g, OpKind::MaxPool, "pool", {cat}, pool), "pool", 0.08f, zero(-1, 64));
  const ir::ValueId shape = g.addConstant("shape", Tensor::fromVector<int64_t>({3}, {1, 8, 16}));
  const ir::ValueId flat = node(g, OpKind::Reshape, "flat", {p, shape});
  const qdq::Weights w3 = qdq::weights(g, rng, "fc", {16, 5}, 1, 0.08f, false);
  g.outputs = {
      wrap(g, node(g, OpKind::MatMul, "fc", {flat, w3.weights}), "fc", 0.2f, zero(-1, 90))};
  driver::prepareGraph(g);
  return g;
}

} // namespace nnaccel::testing
