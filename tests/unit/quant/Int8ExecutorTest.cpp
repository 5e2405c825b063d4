// Tests of the int8 executor (quant/Int8Executor.cpp), one op class at a time: accumulating
// layers against an independent integer pipeline built from the model's fields, scale-
// preserving ops against the fp32 op on the dequantized input (exact), average pooling,
// Add/Sub/Mul/Min/Max/Concat against 128-bit references, float islands, and a small CNN's agreement
// with fp32.
#include "nnaccel/quant/Int8Executor.h"

#include "QuantTestUtil.h"
#include "nnaccel/quant/Agreement.h"
#include "nnaccel/reference/Executor.h"
#include "nnaccel/zoo/GraphBuilder.h"

#include <cmath>
#include <gtest/gtest.h>

namespace nnaccel::quant {
namespace {

using namespace nnaccel::quant::test;
using ir::OpKind;

std::vector<std::vector<Tensor>> randomSets(const ir::Graph& g, int count, uint64_t seed,
                                            float lo = -1.0f, float hi = 1.0f) {
  std::mt19937_64 rng(seed);
  std::vector<std::vector<Tensor>> sets(static_cast<size_t>(count));
  for (auto& s : sets) {
    for (ir::ValueId v : g.inputs) {
      s.push_back(randomTensor(g.value(v).shape, rng, lo, hi));
    }
  }
  return sets;
}

/// Max |x| of every value over the fp32 runs of \p sets.
std::vector<float> fp32MaxAbs(const ir::Graph& g, const std::vector<std::vector<Tensor>>& sets) {
  std::vector<float> m(g.numValues(), 0.0f);
  reference::Executor ex(g);
  for (const auto& s : sets) {
    ex.run(s);
    for (size_t v = 0; v < g.numValues(); ++v) {
      if (ex.values()[v].dtype() == DType::F32 && ex.values()[v].sizeBytes() > 0 &&
          !g.isConstant(static_cast<ir::ValueId>(v))) {
        m[v] = std::max(m[v], maxAbsOf(ex.values()[v]));
      }
    }
  }
  return m;
}

// --- accumulating layers -------------------------------------------------------------------------

TEST(Int8Executor, ConvMatchesIndependentIntegerPipeline) {
  std::mt19937_64 rng(1);
  GraphBuilder b;
  const auto x = b.input("x", {2, 4, 9, 8});
  const auto w = b.constant("w", randomTensor({6, 2, 3, 3}, rng, -0.5f, 0.5f));
  const auto bias = b.constant("b", randomTensor({6}, rng, -0.2f, 0.2f));
  const auto y = b.op(OpKind::Conv, "conv", {x, w, bias},
                      attrs({{"group", int64_t{2}},
                             {"strides", Dims{2, 1}},
                             {"pads", Dims{1, 0, 1, 2}},
                             {"dilations", Dims{1, 2}}}));
  const ir::Graph g = finish(b, {y});
  const auto sets = randomSets(g, 3, 2);
  const QuantizedModel m = quantize(g, sets);
  const QuantNode& q = m.node(0);
  ASSERT_EQ(q.kind, QuantOpKind::Accumulate);
  // Scales: input and output from the calibrated ranges.
  const std::vector<float> ranges = fp32MaxAbs(g, sets);
  const float sIn = m.scale(x), sOut = m.scale(y);
  EXPECT_EQ(sIn, ranges[static_cast<size_t>(x)] / 127.0f);
  EXPECT_EQ(sOut, ranges[static_cast<size_t>(y)] / 127.0f);
  // Weights, biases and multipliers per output channel, exactly as specified.
  const Tensor& wf = *g.value(w).constant;
  ASSERT_EQ(q.weights.shape(), wf.shape());
  for (int64_t oc = 0; oc < 6; ++oc) {
    float mx = 0.0f;
    for (int64_t e = 0; e < 18; ++e) {
      mx = std::max(mx, std::fabs(wf.data<float>()[oc * 18 + e]));
    }
    const float sW = mx / 127.0f;
    ASSERT_EQ(q.weightScales[static_cast<size_t>(oc)], sW);
    for (int64_t e = 0; e < 18; ++e) {
      ASSERT_EQ(q.weights.data<int8_t>()[oc * 18 + e],
                quantizeValue(wf.data<float>()[oc * 18 + e], sW, -127, 127));
    }
    EXPECT_EQ(q.bias[static_cast<size_t>(oc)],
              quantizeBias(g.value(bias).constant->data<float>()[oc], sIn, sW,
                           std::numeric_limits<int32_t>::max() - 18 * 128 * 127));
    EXPECT_EQ(q.multipliers[static_cast<size_t>(oc)],
              quantizeMultiplier(static_cast<double>(sIn) * sW / sOut));
  }
  EXPECT_EQ(q.reductionLength, 18);
  // The int8 output equals a direct integer convolution on the quantized input.
  const std::vector<Tensor> input = randomSets(g, 1, 3)[0];
  Int8Executor ex(m);
  const Int8Result r = ex.run(input);
  const QuantTensor qx = quantizeTensor(input[0], sIn);
  ASSERT_EQ(r.outputs[0].data.shape(), (Dims{2, 6, 5, 6}));
  EXPECT_EQ(r.outputs[0].scale, sOut);
  for (int64_t n = 0; n < 2; ++n) {
    for (int64_t oc = 0; oc < 6; ++oc) {
      for (int64_t oh = 0; oh < 5; ++oh) {
        for (int64_t ow = 0; ow < 6; ++ow) {
          int64_t acc = q.bias[static_cast<size_t>(oc)];
          for (int64_t c = 0; c < 2; ++c) {
            for (int64_t kh = 0; kh < 3; ++kh) {
              for (int64_t kw = 0; kw < 3; ++kw) {
                const int64_t ih = oh * 2 - 1 + kh, iw = ow + kw * 2; // pads: h 1/1, w 0/2
                if (ih < 0 || ih >= 9 || iw < 0 || iw >= 8) {
                  continue;
                }
                const int64_t ic = (oc / 3) * 2 + c;
                acc += int64_t{qx.data.data<int8_t>()[((n * 4 + ic) * 9 + ih) * 8 + iw]} *
                       q.weights.data<int8_t>()[((oc * 2 + c) * 3 + kh) * 3 + kw];
              }
            }
          }
          const int64_t at = ((n * 6 + oc) * 5 + oh) * 6 + ow;
          ASSERT_EQ(r.outputs[0].data.data<int8_t>()[at],
                    referenceRequantize(acc, q.multipliers[static_cast<size_t>(oc)]));
        }
      }
    }
  }
  // And it is close to fp32.
  const Tensor fp = reference::Executor(g).run(input)[0];
  EXPECT_GT(measureAgreement(fp, r.dequantized[0]).cosineSimilarity, 0.999);
}

TEST(Int8Executor, HandComputedConvWithExactScales) {
  // Scales are exact powers of two: s_in = 1 (max|x| = 127), s_w = 2^-7 (max|w| = 127/128).
  GraphBuilder b;
  const auto x = b.input("x", {1, 1, 2, 2});
  const auto w = b.floats("w", {1, 1, 2, 2}, {0.5f, 0.9921875f, -0.25f, 0.75f});
  const auto bias = b.floats("b", {1}, {3.0f});
  const auto y = b.op(OpKind::Conv, "conv", {x, w, bias});
  const ir::Graph g = finish(b, {y});
  const std::vector<Tensor> in{Tensor::fromVector<float>({1, 1, 2, 2}, {64, -127, 32, 127})};
  const QuantizedModel m = quantize(g, {in});
  const QuantNode& q = m.node(0);
  EXPECT_EQ(m.scale(x), 1.0f);
  EXPECT_EQ(q.weightScales[0], 0.0078125f);
  EXPECT_EQ(s8(q.weights), (std::vector<int8_t>{64, 127, -32, 96}));
  EXPECT_EQ(q.bias[0], 384); // 3 / 2^-7
  // y = 32 - 126.0078125 - 8 + 95.25 + 3 = -3.7578125 = -481 * 2^-7; s_out = 3.7578125 / 127.
  EXPECT_EQ(m.scale(y), 3.7578125f / 127.0f);
  Int8Executor ex(m);
  const Int8Result r = ex.run(in);
  EXPECT_EQ(r.outputs[0].data.data<int8_t>()[0], -127); // -481 * (127 / 481)
  EXPECT_FLOAT_EQ(r.dequantized[0].data<float>()[0], -3.7578125f);
}

TEST(Int8Executor, GemmAndMatMulMatchIntegerReference) {
  std::mt19937_64 rng(4);
  GraphBuilder b;
  const auto a = b.input("a", {3, 10});
  const auto bw = b.constant("B", randomTensor({7, 10}, rng)); // transB: [N, K]
  const auto c = b.constant("C", randomTensor({7}, rng));
  const auto y = b.op(OpKind::Gemm, "gemm", {a, bw, c},
                      attrs({{"transB", int64_t{1}}, {"alpha", 0.5f}, {"beta", 2.0f}}));
  const auto x3 = b.input("x3", {2, 3, 10});
  const auto mb = b.constant("M", randomTensor({10, 5}, rng));
  const auto z = b.op(OpKind::MatMul, "matmul", {x3, mb});
  const ir::Graph g = finish(b, {y, z});
  const QuantizedModel m = quantize(g, randomSets(g, 2, 5));
  const std::vector<Tensor> in = randomSets(g, 1, 6)[0];
  Int8Executor ex(m);
  const Int8Result r = ex.run(in);
  const reference::Executor fp(g);

  // Gemm: stored weights [N, K] = alpha * B (B already [N, K]); bias = beta * C.
  const QuantNode& qg = m.node(0);
  ASSERT_EQ(qg.kind, QuantOpKind::Accumulate);
  ASSERT_EQ(qg.weights.shape(), (Dims{7, 10}));
  const Tensor& bf = *g.value(bw).constant;
  const float sA = m.scale(a);
  for (int64_t n = 0; n < 7; ++n) {
    float mx = 0.0f;
    for (int64_t k = 0; k < 10; ++k) {
      mx = std::max(mx, std::fabs(0.5f * bf.data<float>()[n * 10 + k]));
    }
    ASSERT_EQ(qg.weightScales[static_cast<size_t>(n)], mx / 127.0f);
    ASSERT_EQ(qg.bias[static_cast<size_t>(n)],
              quantizeBias(2.0f * g.value(c).constant->data<float>()[n], sA, mx / 127.0f,
                           std::numeric_limits<int32_t>::max() - 10 * 128 * 127));
  }
  const QuantTensor qa = quantizeTensor(in[0], sA);
  for (int64_t i = 0; i < 3; ++i) {
    for (int64_t n = 0; n < 7; ++n) {
      int64_t acc = qg.bias[static_cast<size_t>(n)];
      for (int64_t k = 0; k < 10; ++k) {
        acc += int64_t{qa.data.data<int8_t>()[i * 10 + k]} * qg.weights.data<int8_t>()[n * 10 + k];
      }
      ASSERT_EQ(r.outputs[0].data.data<int8_t>()[i * 7 + n],
                referenceRequantize(acc, qg.multipliers[static_cast<size_t>(n)]));
    }
  }
  // MatMul with a rank-3 A: per-column weights of the [K, N] constant, stored as [N, K].
  const QuantNode& qm = m.node(1);
  ASSERT_EQ(qm.kind, QuantOpKind::Accumulate);
  ASSERT_EQ(qm.weights.shape(), (Dims{5, 10}));
  const QuantTensor qx = quantizeTensor(in[1], m.scale(x3));
  ASSERT_EQ(r.outputs[1].data.shape(), (Dims{2, 3, 5}));
  for (int64_t row = 0; row < 6; ++row) {
    for (int64_t n = 0; n < 5; ++n) {
      int64_t acc = 0;
      for (int64_t k = 0; k < 10; ++k) {
        acc +=
            int64_t{qx.data.data<int8_t>()[row * 10 + k]} * qm.weights.data<int8_t>()[n * 10 + k];
      }
      ASSERT_EQ(r.outputs[1].data.data<int8_t>()[row * 5 + n],
                referenceRequantize(acc, qm.multipliers[static_cast<size_t>(n)]));
    }
  }
  const std::vector<Tensor> f = reference::Executor(g).run(in);
  EXPECT_GT(measureAgreement(f[0], r.dequantized[0]).cosineSimilarity, 0.999);
  EXPECT_GT(measureAgreement(f[1], r.dequantized[1]).cosineSimilarity, 0.999);
}

// A MatMul of two computed tensors (attention): both operands int8 at their own scales, int32
// sums of K products, one multiplier s_a * s_b / s_out; B's batch dims of 1 broadcast.
TEST(Int8Executor, MatMulOfTwoTensorsBroadcastsBatchDimsAndRequantizesOnce) {
  GraphBuilder b;
  const auto a = b.input("a", {2, 3, 4, 5});
  const auto bt = b.input("b", {3, 5, 6});
  const auto bshared = b.input("c", {1, 5, 2});
  const auto y = b.op(OpKind::MatMul, "ab", {a, bt});
  const auto z = b.op(OpKind::MatMul, "ac", {a, bshared});
  const ir::Graph g = finish(b, {y, z});
  const QuantizedModel m = quantize(g, randomSets(g, 2, 9));
  const QuantNode& q = m.node(0);
  ASSERT_EQ(q.kind, QuantOpKind::TensorMatMul);
  ASSERT_EQ(m.node(1).kind, QuantOpKind::TensorMatMul);
  EXPECT_EQ(q.mulMultiplier,
            quantizeMultiplier(static_cast<double>(m.scale(a)) * m.scale(bt) / m.scale(y)));
  const std::vector<Tensor> in = randomSets(g, 1, 10)[0];
  const Int8Result r = Int8Executor(m).run(in);
  const QuantTensor qa = quantizeTensor(in[0], m.scale(a));
  const QuantTensor qb = quantizeTensor(in[1], m.scale(bt));
  const QuantTensor qc = quantizeTensor(in[2], m.scale(bshared));
  ASSERT_EQ(r.outputs[0].data.shape(), (Dims{2, 3, 4, 6}));
  ASSERT_EQ(r.outputs[1].data.shape(), (Dims{2, 3, 4, 2}));
  for (int64_t n = 0; n < 2; ++n)
    for (int64_t h = 0; h < 3; ++h)
      for (int64_t i = 0; i < 4; ++i) {
        const int8_t* row = qa.data.data<int8_t>() + ((n * 3 + h) * 4 + i) * 5;
        for (int64_t j = 0; j < 6; ++j) {
          int64_t acc = 0;
          for (int64_t k = 0; k < 5; ++k)
            acc += int64_t{row[k]} * qb.data.data<int8_t>()[(h * 5 + k) * 6 + j];
          ASSERT_EQ(r.outputs[0].data.data<int8_t>()[((n * 3 + h) * 4 + i) * 6 + j],
                    referenceRequantize(acc, q.mulMultiplier));
        }
        for (int64_t j = 0; j < 2; ++j) {
          int64_t acc = 0;
          for (int64_t k = 0; k < 5; ++k)
            acc += int64_t{row[k]} * qc.data.data<int8_t>()[k * 2 + j];
          ASSERT_EQ(r.outputs[1].data.data<int8_t>()[((n * 3 + h) * 4 + i) * 2 + j],
                    referenceRequantize(acc, m.node(1).mulMultiplier));
        }
      }
  const std::vector<Tensor> f = reference::Executor(g).run(in);
  EXPECT_GT(measureAgreement(f[0], r.dequantized[0]).cosineSimilarity, 0.999);
  EXPECT_GT(measureAgreement(f[1], r.dequantized[1]).cosineSimilarity, 0.999);
}

TEST(Int8Executor, ConvTransposeUsesPerOutputChannelScales) {
  std::mt19937_64 rng(7);
  GraphBuilder b;
  const auto x = b.input("x", {1, 6, 5, 5});
  // [C, M/group, kh, kw] with group 2: output channel oc = (c / 3) * 2 + j.
  Tensor wt = randomTensor({6, 2, 3, 3}, rng);
  wt.data<float>()[((4 * 2 + 1) * 3 + 1) * 3 + 2] = 3.0f; // c = 4, j = 1 -> oc = 3
  const auto w = b.constant("w", wt);
  const auto y = b.op(OpKind::ConvTranspose, "deconv", {x, w},
                      attrs({{"group", int64_t{2}},
                             {"strides", Dims{2, 2}},
                             {"pads", Dims{1, 1, 1, 1}},
                             {"output_padding", Dims{1, 1}}}));
  const ir::Graph g = finish(b, {y});
  const QuantizedModel m = quantize(g, randomSets(g, 2, 8));
  const QuantNode& q = m.node(0);
  ASSERT_EQ(q.kind, QuantOpKind::Accumulate);
  ASSERT_EQ(q.weightScales.size(), 4u);
  EXPECT_EQ(q.weightScales[3], 3.0f / 127.0f);
  for (size_t oc : {0u, 1u, 2u}) {
    EXPECT_LT(q.weightScales[oc], 1.0f / 127.0f + 1e-9f);
  }
  EXPECT_EQ(q.reductionLength, 3 * 9);
  const std::vector<Tensor> in = randomSets(g, 1, 9)[0];
  Int8Executor ex(m);
  const Int8Result r = ex.run(in);
  const Tensor f = reference::Executor(g).run(in)[0];
  ASSERT_EQ(r.dequantized[0].shape(), f.shape());
  EXPECT_GT(measureAgreement(f, r.dequantized[0]).cosineSimilarity, 0.999);
}

// --- scale-preserving ops ------------------------------------------------------------------------

/// For a scale-preserving node: output scale == input scale, and the int8 output equals the
/// fp32 op applied to the dequantized input, quantized with that scale (exact for ops that only
/// move or select values).
void expectExactScalePreserving(const QuantizedModel& m, const Int8Executor& ex,
                                const std::string& name) {
  SCOPED_TRACE(name);
  const ir::Graph& g = m.graph;
  const ir::NodeId id = nodeNamed(g, name);
  const ir::Node& n = g.node(id);
  EXPECT_TRUE(isScalePreserving(m.node(id).kind)) << quantOpKindName(m.node(id).kind);
  const QuantTensor in = ex.value(n.inputs[0]);
  const QuantTensor out = ex.value(n.outputs[0]);
  EXPECT_EQ(out.scale, in.scale);
  const Tensor deq = in.dequantize();
  std::vector<const Tensor*> args;
  for (size_t i = 0; i < n.inputs.size(); ++i) {
    args.push_back(
        i == 0 ? &deq
               : (n.inputs[i] == ir::kNoValue ? nullptr : g.value(n.inputs[i]).constant.get()));
  }
  const Tensor fp = reference::evalNode(g, id, args)[0];
  EXPECT_EQ(out.data, quantizeTensor(fp, in.scale).data);
}

TEST(Int8Executor, ScalePreservingOpsAreExact) {
  GraphBuilder b;
  const auto x = b.input("x", {1, 8, 6, 6});
  const auto r = b.op(OpKind::Relu, "relu", {x});
  const auto mp = b.op(
      OpKind::MaxPool, "maxpool", {r},
      attrs({{"kernel_shape", Dims{3, 3}}, {"strides", Dims{2, 2}}, {"pads", Dims{1, 1, 1, 1}}}));
  const auto pd = b.op(OpKind::Pad, "pad", {mp, b.ints("pads", {0, 0, 1, 0, 0, 0, 0, 2})});
  const auto d2s = b.op(OpKind::DepthToSpace, "d2s", {pd},
                        attrs({{"blocksize", int64_t{2}}, {"mode", std::string("CRD")}}));
  const auto rs = b.op(OpKind::Resize, "resize",
                       {d2s, ir::kNoValue, ir::kNoValue, b.ints("sizes", {1, 2, 11, 15})},
                       attrs({{"mode", std::string("nearest")},
                              {"coordinate_transformation_mode", std::string("asymmetric")},
                              {"nearest_mode", std::string("floor")}}));
  const auto tr = b.op(OpKind::Transpose, "transpose", {rs}, attrs({{"perm", Dims{0, 2, 3, 1}}}));
  const auto un = b.op(OpKind::Unsqueeze, "unsqueeze", {tr, b.ints("axes", {0})});
  const auto sq = b.op(OpKind::Squeeze, "squeeze", {un, b.ints("axes0", {0})});
  const auto id = b.op(OpKind::Identity, "identity", {sq});
  const auto dr = b.op(OpKind::Dropout, "dropout", {id});
  const auto fl = b.op(OpKind::Flatten, "flatten", {dr}, attrs({{"axis", int64_t{2}}}));
  const auto rh = b.op(OpKind::Reshape, "reshape", {fl, b.ints("shape", {-1, 6})});
  const auto gmp = b.op(OpKind::GlobalMaxPool, "gmp", {mp});
  const ir::Graph g = finish(b, {rh, gmp});
  const QuantizedModel m = quantize(g, randomSets(g, 2, 10));
  Int8Executor ex(m);
  ex.run(randomSets(g, 1, 11)[0]);
  for (const char* name : {"relu", "maxpool", "pad", "d2s", "resize", "transpose", "unsqueeze",
                           "squeeze", "identity", "dropout", "flatten", "reshape", "gmp"}) {
    expectExactScalePreserving(m, ex, name);
  }
  EXPECT_EQ(m.node(nodeNamed(g, "resize")).kind, QuantOpKind::Gather);
  EXPECT_EQ(m.node(nodeNamed(g, "pad")).kind, QuantOpKind::DataMovement);
  // Every scale down the chain is the input's.
  EXPECT_EQ(m.scale(rh), m.scale(x));
}

TEST(Int8Executor, ClipBoundsAreQuantizedWithTheSameRounding) {
  GraphBuilder b;
  const auto x = b.input("x", {2, 50});
  const auto y =
      b.op(OpKind::Clip, "clip", {x, b.floats("lo", {}, {-0.3f}), b.floats("hi", {}, {0.6f})});
  const auto z = b.op(OpKind::Tanh, "tanh", {y}); // a second consumer type downstream
  const ir::Graph g = finish(b, {z});
  const auto sets = randomSets(g, 2, 12);
  const QuantizedModel m = quantize(g, sets);
  // x's only consumer is the Clip: only [-0.3, 0.6] of its range matters.
  EXPECT_EQ(m.scale(x), 0.6f / 127.0f);
  EXPECT_EQ(m.scale(y), m.scale(x));
  const QuantNode& q = m.node(0);
  ASSERT_EQ(q.kind, QuantOpKind::Clamp);
  EXPECT_EQ(q.clampMin, quantizeValue(-0.3f, m.scale(x)));
  EXPECT_EQ(q.clampMin, -64); // -0.3 / (0.6 / 127) = -63.5 -> -64 (half away from zero)
  EXPECT_EQ(q.clampMax, 127);
  Int8Executor ex(m);
  const std::vector<Tensor> in = randomSets(g, 1, 13)[0];
  ex.run(in);
  const QuantTensor qy = ex.value(y);
  for (int64_t i = 0; i < 100; ++i) {
    const int32_t qx = quantizeValue(in[0].data<float>()[i], m.scale(x));
    ASSERT_EQ(qy.data.data<int8_t>()[i], std::min(std::max(qx, -64), 127));
  }
}

TEST(Int8Executor, ReluConsumersNarrowTheProducerScale) {
  std::mt19937_64 rng(14);
  GraphBuilder b;
  const auto x = b.input("x", {1, 3, 6, 6});
  const auto c = b.op(OpKind::Conv, "conv", {x, b.constant("w", randomTensor({4, 3, 3, 3}, rng))});
  const auto r = b.op(OpKind::Relu, "relu", {c});
  const ir::Graph g = finish(b, {r});
  const auto sets = randomSets(g, 2, 15);
  const QuantizedModel m = quantize(g, sets);
  float hi = 0.0f, lo = 0.0f;
  reference::Executor fp(g);
  for (const auto& s : sets) {
    fp.run(s);
    for (float v : fp.values()[static_cast<size_t>(c)].values<float>()) {
      hi = std::max(hi, v);
      lo = std::min(lo, v);
    }
  }
  ASSERT_LT(lo, -hi * 0.1f); // the conv output really has a negative part
  EXPECT_EQ(m.scale(c), hi / 127.0f);
  EXPECT_EQ(m.scale(r), m.scale(c));
  EXPECT_EQ(m.calibratedMaxAbs[static_cast<size_t>(c)], std::max(hi, -lo));
  // Saturating the negative part is exact: relu(requantize(acc)) == requantize(acc, 0, 127),
  // which is what an engine fusing the Relu computes.
  Int8Executor ex(m);
  const auto in = randomSets(g, 1, 16)[0];
  ex.run(in);
  const QuantNode& q = m.node(0);
  const Tensor acc = convAccumulate(ir::convParams(g, 0), quantizeTensor(in[0], m.scale(x)).data,
                                    q.weights, q.bias);
  EXPECT_EQ(ex.value(r).data, requantizePerChannel(acc, 1, q.multipliers, 0, 127));
}

// --- pooling and element-wise arithmetic ---------------------------------------------------------

TEST(Int8Executor, AveragePoolsUsePerCountMultipliers) {
  GraphBuilder b;
  const auto x = b.input("x", {1, 3, 7, 7});
  const auto ap = b.op(OpKind::AveragePool, "avg", {x},
                       attrs({{"kernel_shape", Dims{3, 3}},
                              {"strides", Dims{2, 2}},
                              {"pads", Dims{1, 1, 1, 1}},
                              {"ceil_mode", int64_t{1}}}));
  const auto gap = b.op(OpKind::GlobalAveragePool, "gap", {x});
  const ir::Graph g = finish(b, {ap, gap});
  const QuantizedModel m = quantize(g, randomSets(g, 2, 17));
  const QuantNode& qa = m.node(0);
  ASSERT_EQ(qa.kind, QuantOpKind::AveragePool);
  std::vector<int64_t> counts;
  for (const CountMultiplier& c : qa.countMultipliers) {
    counts.push_back(c.count);
    EXPECT_EQ(c.multiplier, quantizeMultiplier(static_cast<double>(m.scale(x)) /
                                               (static_cast<double>(m.scale(ap)) * c.count)));
  }
  EXPECT_EQ(counts, (std::vector<int64_t>{4, 6, 9}));
  ASSERT_EQ(m.node(1).countMultipliers.size(), 1u);
  EXPECT_EQ(m.node(1).countMultipliers[0].count, 49);
  Int8Executor ex(m);
  const auto in = randomSets(g, 1, 18)[0];
  const Int8Result r = ex.run(in);
  const std::vector<Tensor> f = reference::Executor(g).run(in);
  for (size_t o = 0; o < 2; ++o) {
    // Error bound: input rounding (s_in / 2) plus output rounding (s_out / 2) and the tiny
    // multiplier error.
    const Agreement a = measureAgreement(f[o], r.dequantized[o]);
    EXPECT_LE(a.maxAbsError, 0.5 * m.scale(x) + 0.5 * m.scale(g.outputs[o]) + 1e-6) << o;
  }
}

TEST(Int8Executor, GlobalAveragePoolOverAHugeWindowDoesNotOverflow) {
  // 4200 x 4200 = 17,640,000 values of -1 (q = -127 at s_in = 1/127): the window sum
  // -127 * 17,640,000 does not fit in int32 (it used to wrap around to a positive average of
  // +0.91). The int8 result must be the exact average, -1, quantized with the output scale.
  // (s_out comes from calibration on the fp32 reference, whose float accumulation gives
  // -0.9511 = -2^24 / 17,640,000 here, so s_out < 1/127 and -1 saturates to -128.)
  GraphBuilder b;
  const auto x = b.input("x", {1, 1, 4200, 4200});
  const auto gap = b.op(OpKind::GlobalAveragePool, "gap", {x});
  const ir::Graph g = finish(b, {gap});
  Tensor in(DType::F32, {1, 1, 4200, 4200});
  std::fill(in.values<float>().begin(), in.values<float>().end(), -1.0f);
  const QuantizedModel m = quantize(g, {{in}});
  EXPECT_EQ(m.scale(x), 1.0f / 127.0f);
  const int64_t count = 4200 * 4200;
  ASSERT_EQ(m.node(0).countMultipliers.size(), 1u);
  ASSERT_EQ(m.node(0).countMultipliers[0].count, count);
  const QuantMultiplier mult = m.node(0).countMultipliers[0].multiplier;
  Int8Executor ex(m);
  const Int8Result r = ex.run({in});
  const int8_t q = r.outputs[0].data.data<int8_t>()[0];
  EXPECT_EQ(q, referenceRequantize(-127 * count, mult));
  EXPECT_EQ(q, quantizeValue(-1.0f, m.scale(gap)));
  EXPECT_LT(r.dequantized[0].data<float>()[0], -0.9f);
  // Calibrated with s_out = s_in (as an exact fp32 average would give): exactly q = -127.
  QuantizedModel exact = m;
  exact.scales[static_cast<size_t>(gap)] = m.scale(x);
  exact.nodes[0].countMultipliers[0].multiplier =
      quantizeMultiplier(1.0 / static_cast<double>(count), 128 * count);
  Int8Executor exactEx(exact);
  EXPECT_EQ(s8(exactEx.run({in}).outputs[0].data), (std::vector<int8_t>{-127}));
}

TEST(Int8Executor, AddSubMulWithBroadcastAndConstants) {
  GraphBuilder b;
  const auto x = b.input("x", {2, 3, 4});
  const auto y = b.input("y", {3, 1});
  const auto c = b.floats("c", {4}, {0.5f, -2.0f, 1.0f, 0.25f});
  const auto add = b.op(OpKind::Add, "add", {x, y});
  const auto sub = b.op(OpKind::Sub, "sub", {c, x});
  // The constant first: `tensor op constant` is a lookup (QuantizerTest), these stay integer.
  const auto mul = b.op(OpKind::Mul, "mul", {c, add});
  const ir::Graph g = finish(b, {add, sub, mul});
  const auto sets = randomSets(g, 2, 19);
  const QuantizedModel m = quantize(g, sets);
  // The constant gets a per-tensor int8 form: scale 2 / 127.
  const QuantTensor& qc = m.constants[static_cast<size_t>(c)];
  ASSERT_TRUE(qc.isQuantized());
  EXPECT_EQ(qc.scale, 2.0f / 127.0f);
  EXPECT_EQ(s8(qc.data), (std::vector<int8_t>{32, -127, 64, 16})); // 31.75 -> 32, 15.875 -> 16
  const QuantNode& qa = m.node(0);
  ASSERT_EQ(qa.kind, QuantOpKind::AddSub);
  const double sx = m.scale(x), sy = m.scale(y), sAdd = m.scale(add);
  EXPECT_EQ(qa.addSub.leftShift, 20);
  EXPECT_EQ(qa.addSub.a, quantizeMultiplier(sx / (2 * std::max(sx, sy))));
  EXPECT_EQ(qa.addSub.b, quantizeMultiplier(sy / (2 * std::max(sx, sy))));
  EXPECT_EQ(qa.addSub.output,
            quantizeMultiplier(2 * std::max(sx, sy) / (std::ldexp(1.0, 20) * sAdd)));
  EXPECT_EQ(m.node(2).mulMultiplier,
            quantizeMultiplier(sAdd * static_cast<double>(qc.scale) / m.scale(mul)));
  Int8Executor ex(m);
  const auto in = randomSets(g, 1, 20)[0];
  const Int8Result r = ex.run(in);
  const Tensor qx = ex.value(x).data, qy = ex.value(y).data, qadd = ex.value(add).data;
  for (int64_t i = 0; i < 24; ++i) {
    const int64_t a = qx.data<int8_t>()[i], bb = qy.data<int8_t>()[(i / 4) % 3];
    const int64_t cc = qc.data.data<int8_t>()[i % 4];
    const int64_t ra = referenceRequantize(a << 20, qa.addSub.a, INT64_MIN, INT64_MAX);
    const int64_t rb = referenceRequantize(bb << 20, qa.addSub.b, INT64_MIN, INT64_MAX);
    ASSERT_EQ(r.outputs[0].data.data<int8_t>()[i], referenceRequantize(ra + rb, qa.addSub.output));
    const QuantNode& qs = m.node(1);
    const int64_t sc = referenceRequantize(cc << 20, qs.addSub.a, INT64_MIN, INT64_MAX);
    const int64_t sx2 = referenceRequantize(a << 20, qs.addSub.b, INT64_MIN, INT64_MAX);
    ASSERT_EQ(r.outputs[1].data.data<int8_t>()[i], referenceRequantize(sc - sx2, qs.addSub.output));
    ASSERT_EQ(r.outputs[2].data.data<int8_t>()[i],
              referenceRequantize(int64_t{qadd.data<int8_t>()[i]} * cc, m.node(2).mulMultiplier));
  }
  const std::vector<Tensor> f = reference::Executor(g).run(in);
  for (size_t o = 0; o < 3; ++o) {
    EXPECT_GT(measureAgreement(f[o], r.dequantized[o]).cosineSimilarity, 0.999) << o;
  }
}

TEST(Int8Executor, ConcatRequantizesInputsToTheOutputScale) {
  GraphBuilder b;
  const auto x1 = b.input("x1", {1, 2, 3});
  const auto x2 = b.input("x2", {1, 3, 3});
  const auto y = b.op(OpKind::Concat, "concat", {x1, x2}, attrs({{"axis", int64_t{1}}}));
  const ir::Graph g = finish(b, {y});
  // x2's range is 4x x1's: s_out == s_x2 and x1 is requantized by 1/4.
  std::mt19937_64 rng(21);
  std::vector<std::vector<Tensor>> sets(2);
  for (auto& s : sets) {
    s = {randomTensor({1, 2, 3}, rng, -1.0f, 1.0f), randomTensor({1, 3, 3}, rng, -4.0f, 4.0f)};
  }
  const QuantizedModel m = quantize(g, sets);
  const QuantNode& q = m.node(0);
  ASSERT_EQ(q.kind, QuantOpKind::Concat);
  EXPECT_EQ(m.scale(y), m.scale(x2));
  EXPECT_EQ(q.inputMultipliers[1], QuantMultiplier{}); // exactly 1.0
  EXPECT_EQ(q.inputMultipliers[0],
            quantizeMultiplier(static_cast<double>(m.scale(x1)) / m.scale(y)));
  Int8Executor ex(m);
  const Int8Result r = ex.run(sets[0]);
  const Tensor q1 = ex.value(x1).data, q2 = ex.value(x2).data;
  for (int64_t i = 0; i < 6; ++i) {
    ASSERT_EQ(r.outputs[0].data.data<int8_t>()[i],
              referenceRequantize(q1.data<int8_t>()[i], q.inputMultipliers[0]));
  }
  for (int64_t i = 0; i < 9; ++i) {
    ASSERT_EQ(r.outputs[0].data.data<int8_t>()[6 + i], q2.data<int8_t>()[i]);
  }
}

TEST(Int8Executor, MinMaxOfTwoTensorsCompareOnTheOutputScale) {
  GraphBuilder b;
  const auto x = b.input("x", {2, 3, 4});
  const auto y = b.input("y", {3, 1});
  const auto hi = b.op(OpKind::Max, "hi", {x, y});
  const auto lo = b.op(OpKind::Min, "lo", {y, x});
  const ir::Graph g = finish(b, {hi, lo});
  std::mt19937_64 rng(22);
  std::vector<std::vector<Tensor>> sets(2);
  for (auto& s : sets) // y's range is 3x x's: the two scales differ
    s = {randomTensor({2, 3, 4}, rng, -1.0f, 1.0f), randomTensor({3, 1}, rng, -3.0f, 3.0f)};
  const QuantizedModel m = quantize(g, sets);
  for (ir::NodeId id : {0, 1}) {
    const QuantNode& q = m.node(id);
    ASSERT_EQ(q.kind, QuantOpKind::MinMax);
    const ir::Node& n = g.node(id);
    for (size_t i = 0; i < 2; ++i)
      EXPECT_EQ(
          q.inputMultipliers.at(i),
          quantizeMultiplier(static_cast<double>(m.scale(n.inputs[i])) / m.scale(n.outputs[0])));
  }
  Int8Executor ex(m);
  const Int8Result r = ex.run(sets[0]);
  const Tensor qx = ex.value(x).data, qy = ex.value(y).data;
  for (int64_t i = 0; i < 24; ++i) {
    const int64_t a = qx.data<int8_t>()[i], c = qy.data<int8_t>()[(i / 4) % 3];
    const QuantNode &qh = m.node(0), &ql = m.node(1);
    ASSERT_EQ(r.outputs[0].data.data<int8_t>()[i],
              std::max(referenceRequantize(a, qh.inputMultipliers[0]),
                       referenceRequantize(c, qh.inputMultipliers[1])));
    ASSERT_EQ(r.outputs[1].data.data<int8_t>()[i],
              std::min(referenceRequantize(c, ql.inputMultipliers[0]),
                       referenceRequantize(a, ql.inputMultipliers[1])));
  }
  const std::vector<Tensor> f = reference::Executor(g).run(sets[0]);
  for (size_t o = 0; o < 2; ++o)
    EXPECT_GT(measureAgreement(f[o], r.dequantized[o]).cosineSimilarity, 0.999) << o;
}

// --- float islands
// ---------------------------------------------------------------------------------

TEST(Int8Executor, LookupsAndFloatIslandsDequantizeEvaluateAndQuantize) {
  // A Lookup node's table holds exactly what a float island computes per element, so both are
  // checked against dequantize -> fp32 reference -> quantize.
  GraphBuilder b;
  const auto x = b.input("x", {2, 5});
  const auto s = b.op(OpKind::Sigmoid, "sigmoid", {x});
  const auto sm = b.op(OpKind::Softmax, "softmax", {s});
  const auto lr = b.op(OpKind::LeakyRelu, "leaky", {x}, attrs({{"alpha", 0.1f}}));
  const auto lin = b.op(OpKind::Resize, "linear",
                        {b.op(OpKind::Reshape, "r4", {lr, b.ints("s4", {1, 1, 2, 5})}),
                         ir::kNoValue, b.floats("scales", {1, 1, 2, 2}), ir::kNoValue},
                        attrs({{"mode", std::string("linear")}}));
  const ir::Graph g = finish(b, {sm, lin});
  const QuantizedModel m = quantize(g, randomSets(g, 2, 22, -4.0f, 4.0f));
  EXPECT_EQ(m.node(nodeNamed(g, "sigmoid")).kind, QuantOpKind::Lookup);
  EXPECT_EQ(m.node(nodeNamed(g, "leaky")).kind, QuantOpKind::Lookup);
  EXPECT_EQ(m.node(nodeNamed(g, "softmax")).kind, QuantOpKind::Softmax);
  EXPECT_EQ(m.node(nodeNamed(g, "linear")).kind, QuantOpKind::Interpolate);
  Int8Executor ex(m);
  ex.run(randomSets(g, 1, 23, -4.0f, 4.0f)[0]);
  for (const char* name : {"sigmoid", "leaky"}) {
    SCOPED_TRACE(name);
    const ir::NodeId id = nodeNamed(g, name);
    const ir::Node& n = g.node(id);
    const Tensor deq = ex.value(n.inputs[0]).dequantize();
    std::vector<const Tensor*> args{&deq};
    for (size_t i = 1; i < n.inputs.size(); ++i) {
      args.push_back(n.inputs[i] == ir::kNoValue ? nullptr : g.value(n.inputs[i]).constant.get());
    }
    const Tensor fp = reference::evalNode(g, id, args)[0];
    const QuantTensor out = ex.value(n.outputs[0]);
    EXPECT_EQ(out.data, quantizeTensor(fp, m.scale(n.outputs[0])).data);
  }
  // Softmax lies in [0, 1] by definition: its output scale is fixed at 1/127, not calibrated.
  EXPECT_EQ(m.scale(sm), 1.0f / 127.0f);
}

// --- whole networks
// --------------------------------------------------------------------------------

/// A small residual CNN written with the zoo's builder (seeded He-initialized weights).
ir::Graph smallCnn() {
  zoo::GraphBuilder b("small_cnn", 42);
  const auto x = b.input("input", {2, 3, 32, 32});
  auto h =
      b.relu("relu1", b.conv("conv1", x, {.outChannels = 16, .kernel = 3, .stride = 1, .pad = 1}));
  h = b.maxPool("pool1", h, {.kernel = 2, .stride = 2});
  auto r = b.relu("relu2", b.conv("conv2", h, {.outChannels = 16, .kernel = 3, .pad = 1}));
  r = b.conv("conv3", r, {.outChannels = 16, .kernel = 3, .pad = 1, .gain = 1.0f});
  h = b.relu("relu3", b.add("add", h, r));
  h = b.relu6(
      "relu6",
      b.conv("dw", h, {.outChannels = 16, .kernel = 3, .stride = 2, .pad = 1, .group = 16}));
  h = b.conv("conv4", h, {.outChannels = 32, .kernel = 1});
  h = b.avgPool("pool2", h, {.kernel = 3, .stride = 2, .pad = 1});
  h = b.flatten("flatten", b.globalAvgPool("gap", h));
  b.output(b.gemm("fc", h, 10, true, 1.0f), "logits");
  ir::Graph g = b.finish();
  ir::inferShapes(g);
  ir::verify(g);
  return g;
}

TEST(Int8Executor, SmallCnnAgreesWithFp32) {
  const ir::Graph g = smallCnn();
  const QuantizedModel m = quantize(g, {}); // default seeded calibration
  EXPECT_EQ(m.calibrationCount, kDefaultCalibrationCount);
  Int8Executor ex(m);
  const auto inputs = makeCalibrationInputs(g, 3, 77);
  for (const auto& in : inputs) {
    const Int8Result r = ex.run(in);
    const Tensor f = reference::Executor(g).run(in)[0];
    const Agreement a = measureAgreement(f, r.dequantized[0]);
    EXPECT_GT(a.cosineSimilarity, 0.99);
    ASSERT_TRUE(a.top1Agreement.has_value());
    // Error well below the logits' spread.
    EXPECT_LT(a.maxAbsError, 0.2 * maxAbsOf(f));
  }
  // Every layer has its integer form.
  for (size_t i = 0; i < g.numNodes(); ++i) {
    EXPECT_NE(m.nodes[i].kind, QuantOpKind::FloatIsland) << g.node(static_cast<ir::NodeId>(i)).name;
  }
}

TEST(Int8Executor, NodesReplayOneByOneWithEvalQuantizedNode) {
  // What an engine does: feed one node the executor's int8 inputs and compare the outputs.
  const ir::Graph g = smallCnn();
  const QuantizedModel m = quantize(g, makeCalibrationInputs(g, 2, 31));
  Int8Executor ex(m);
  ex.run(makeCalibrationInputs(g, 1, 32)[0]);
  int64_t replayed = 0;
  for (size_t i = 0; i < g.numNodes(); ++i) {
    const auto id = static_cast<ir::NodeId>(i);
    const ir::Node& n = g.node(id);
    if (m.node(id).kind == QuantOpKind::Folded) {
      continue;
    }
    std::vector<const QuantTensor*> args;
    for (ir::ValueId v : n.inputs) {
      args.push_back(v == ir::kNoValue || g.isConstant(v) ? nullptr
                                                          : &ex.values()[static_cast<size_t>(v)]);
    }
    const std::vector<QuantTensor> out = evalQuantizedNode(m, id, args);
    ASSERT_EQ(out[0].data, ex.value(n.outputs[0]).data) << n.name;
    ASSERT_EQ(out[0].scale, ex.value(n.outputs[0]).scale) << n.name;
    ++replayed;
  }
  EXPECT_EQ(replayed, static_cast<int64_t>(g.numNodes())); // no folded nodes here
}

// --- error paths ---------------------------------------------------------------------------------

TEST(Int8Executor, RejectsWrongInputs) {
  GraphBuilder b;
  const auto x = b.input("x", {1, 4});
  const ir::Graph g = finish(b, {b.op(OpKind::Relu, "relu", {x})});
  const QuantizedModel m = quantize(g, {});
  Int8Executor ex(m);
  EXPECT_EQ(errorOf([&] { ex.run({}); }), "model.onnx: expected 1 inputs, got 0");
  EXPECT_EQ(errorOf([&] {
              ex.run({Tensor(DType::F32, {1, 5})});
            }),
            "model.onnx: input 'x': expected f32 1x4, got f32 1x5");
  EXPECT_EQ(errorOf([&] {
              ex.run({Tensor(DType::I32, {1, 4})});
            }),
            "model.onnx: input 'x': expected f32 1x4, got s32 1x4");
}

TEST(Int8Executor, ComparisonsRescaleOntoTheCoarserScaleAndHoldBoolsAsZeroOne) {
  // M-LSD's peak mask: x * float(x == maxpool3x3(x)), and a comparison of two scales.
  GraphBuilder b;
  const auto x = b.input("x", {1, 2, 6, 6});
  const auto y = b.input("y", {1, 2, 1, 1});
  const auto pooled = b.op(OpKind::MaxPool, "pool", {x},
                           attrs({{"kernel_shape", Dims{3, 3}}, {"pads", Dims{1, 1, 1, 1}}}));
  const auto peak = b.op(OpKind::Equal, "peak", {x, pooled});
  const auto mask = b.op(OpKind::Cast, "mask", {peak}, attrs({{"to", int64_t{1}}}));
  const auto scores = b.op(OpKind::Mul, "scores", {x, mask});
  const auto above = b.op(OpKind::Greater, "above", {x, y});
  const ir::Graph g = finish(b, {scores, above});
  std::mt19937_64 rng(31);
  std::vector<std::vector<Tensor>> sets(2);
  for (auto& s : sets) // y's range is 3x x's: the two scales differ
    s = {randomTensor({1, 2, 6, 6}, rng, -1.0f, 1.0f),
         randomTensor({1, 2, 1, 1}, rng, -3.0f, 3.0f)};
  const QuantizedModel m = quantize(g, sets);
  const ir::NodeId peakNode = g.value(peak).producer, aboveNode = g.value(above).producer;
  EXPECT_EQ(m.node(peakNode).kind, QuantOpKind::Compare);
  EXPECT_EQ(m.node(g.value(mask).producer).kind, QuantOpKind::Lookup);
  EXPECT_EQ(m.scale(peak), 1.0f);
  EXPECT_EQ(m.scale(pooled), m.scale(x)); // max pooling keeps the scale: codes compare exactly
  const double coarse = std::max(m.scale(x), m.scale(y));
  EXPECT_EQ(m.node(aboveNode).inputMultipliers.at(0),
            quantizeMultiplier(static_cast<double>(m.scale(x)) / coarse));
  EXPECT_EQ(m.node(aboveNode).inputMultipliers.at(1),
            quantizeMultiplier(static_cast<double>(m.scale(y)) / coarse));

  Int8Executor ex(m);
  const Int8Result r = ex.run(sets[0]);
  const Tensor qx = ex.value(x).data, qp = ex.value(pooled).data, qy = ex.value(y).data;
  const Tensor qpeak = ex.value(peak).data;
  ASSERT_EQ(qpeak.dtype(), DType::I8);
  const QuantNode& qa = m.node(aboveNode);
  for (int64_t i = 0; i < 72; ++i) {
    ASSERT_EQ(qpeak.data<int8_t>()[i], qx.data<int8_t>()[i] == qp.data<int8_t>()[i] ? 1 : 0);
    const int32_t a = referenceRequantize(qx.data<int8_t>()[i], qa.inputMultipliers[0]);
    const int32_t c = referenceRequantize(qy.data<int8_t>()[i / 36], qa.inputMultipliers[1]);
    ASSERT_EQ(r.outputs[1].data.data<int8_t>()[i], a > c ? 1 : 0);
  }
  // The bool output is a bool again when dequantized, and agrees with fp32 but near ties.
  ASSERT_EQ(r.dequantized[1].dtype(), DType::Bool);
  const std::vector<Tensor> f = reference::Executor(g).run(sets[0]);
  int64_t agree = 0;
  for (int64_t i = 0; i < 72; ++i)
    agree += f[1].data<bool>()[i] == r.dequantized[1].data<bool>()[i];
  EXPECT_GE(agree, 70);
  EXPECT_GT(measureAgreement(f[0], r.dequantized[0]).cosineSimilarity, 0.99);
}

TEST(Int8Executor, WhereOfAComparisonSelectsRequantizedOperands) {
  // x where x > 0.3 else y (broadcast per channel): both operands onto the output scale, the
  // comparison's 0/1 picks. A Where whose condition is not a comparison computed in int8 (a
  // Cast to bool here) stays a float island with its reason.
  GraphBuilder b;
  const auto x = b.input("x", {1, 2, 4, 4});
  const auto y = b.input("y", {1, 2, 1, 1});
  const auto above = b.op(OpKind::Greater, "above", {x, b.floats("t", {0.3f})});
  const auto sel = b.op(OpKind::Where, "sel", {above, x, y});
  const ir::Graph g = finish(b, {sel});
  std::mt19937_64 rng(8);
  const std::vector<std::vector<Tensor>> sets = {
      {randomTensor({1, 2, 4, 4}, rng, -1.0f, 1.0f), randomTensor({1, 2, 1, 1}, rng, -4.0f, 4.0f)}};
  const QuantizedModel m = quantize(g, sets);
  const QuantNode& q = m.node(g.value(sel).producer);
  ASSERT_EQ(q.kind, QuantOpKind::Select);
  EXPECT_EQ(q.inputMultipliers.at(1),
            quantizeMultiplier(static_cast<double>(m.scale(x)) / m.scale(sel)));
  EXPECT_EQ(q.inputMultipliers.at(2),
            quantizeMultiplier(static_cast<double>(m.scale(y)) / m.scale(sel)));
  Int8Executor ex(m);
  const Int8Result r = ex.run(sets[0]);
  const Tensor qx = ex.value(x).data, qy = ex.value(y).data, qc = ex.value(above).data;
  int64_t chosen = 0;
  for (int64_t i = 0; i < 32; ++i) {
    const bool pick = qc.data<int8_t>()[i] != 0;
    chosen += pick;
    const int32_t want =
        pick ? referenceRequantize(qx.data<int8_t>()[i], q.inputMultipliers[1])
             : referenceRequantize(qy.data<int8_t>()[i / 16], q.inputMultipliers[2]);
    ASSERT_EQ(r.outputs[0].data.data<int8_t>()[i], want) << i;
  }
  EXPECT_GT(chosen, 0);
  EXPECT_LT(chosen, 32);
  const std::vector<Tensor> f = reference::Executor(g).run(sets[0]);
  EXPECT_GT(measureAgreement(f[0], r.dequantized[0]).cosineSimilarity, 0.99);

  GraphBuilder b2;
  const auto x2 = b2.input("x", {1, 2, 4, 4});
  const auto flag = b2.op(OpKind::Cast, "flag", {x2}, attrs({{"to", int64_t{9}}})); // to bool
  const auto sel2 = b2.op(OpKind::Where, "sel", {flag, x2, b2.floats("z", {0.0f})});
  const ir::Graph g2 = finish(b2, {sel2});
  const QuantizedModel m2 = quantize(g2, {});
  const QuantNode& island = m2.node(g2.value(sel2).producer);
  EXPECT_EQ(island.kind, QuantOpKind::FloatIsland);
  EXPECT_EQ(island.islandReason, "its condition is not a comparison of two f32 operands");
}

TEST(Int8Executor, SoftmaxAgreesWithFp32OnEveryAxis) {
  GraphBuilder b;
  const auto x = b.input("x", {2, 4, 3, 3});
  const auto channels = b.op(OpKind::Softmax, "channels", {x}, attrs({{"axis", int64_t{1}}}));
  const auto rows = b.op(OpKind::Softmax, "rows", {x}, attrs({{"axis", int64_t{-1}}}));
  const ir::Graph g = finish(b, {channels, rows});
  const auto sets = randomSets(g, 2, 41, -3.0f, 3.0f);
  const QuantizedModel m = quantize(g, sets);
  EXPECT_EQ(m.node(nodeNamed(g, "channels")).kind, QuantOpKind::Softmax);
  Int8Executor ex(m);
  const Int8Result r = ex.run(sets[1]);
  const std::vector<Tensor> f = reference::Executor(g).run(sets[1]);
  for (size_t o = 0; o < 2; ++o) {
    const Agreement a = measureAgreement(f[o], r.dequantized[o]);
    EXPECT_GT(a.cosineSimilarity, 0.999) << o;
    // Probabilities within about two output steps (a calibrated set: no saturation).
    EXPECT_LT(a.maxAbsError, 2.5 * m.scale(g.outputs[o])) << o;
  }
}

} // namespace
} // namespace nnaccel::quant
