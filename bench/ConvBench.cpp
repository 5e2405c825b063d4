// Single convolution layers of the zoo's typical shapes: the reference executor's oneDNN
// convolution (conv_onednn/<layer>, GMAC/s) against a naive direct loop (conv_naive/<layer>,
// GMAC/s and x_onednn = naive time / oneDNN time, interleaved). The naive loop's output is
// checked against oneDNN's before timing, so the ratio compares two correct convolutions.
#include "BenchUtil.h"
#include "nnaccel/ir/ShapeInference.h"
#include "nnaccel/ir/Verifier.h"
#include "nnaccel/reference/Executor.h"

#include <cmath>
#include <memory>

namespace nnaccel::bench {
namespace {

struct ConvShape {
  const char* name;
  int64_t channels, height, width, filters, kernel, stride, pad, group;

  int64_t outH() const { return (height + 2 * pad - kernel) / stride + 1; }
  int64_t outW() const { return (width + 2 * pad - kernel) / stride + 1; }
  double gmacs() const {
    return static_cast<double>(filters * outH() * outW() * (channels / group) * kernel * kernel) *
           1e-9;
  }
};

const ConvShape kShapes[] = {
    {"resnet_3x3_64_56x56", 64, 56, 56, 64, 3, 1, 1, 1},
    {"resnet50_1x1_256to64_56x56", 256, 56, 56, 64, 1, 1, 0, 1},
    {"mobilenet_dw3x3_144_56x56", 144, 56, 56, 144, 3, 1, 1, 144},
    {"vgg_3x3_256_28x28", 256, 28, 28, 256, 3, 1, 1, 1},
    {"stem_7x7s2_3to64_224x224", 3, 224, 224, 64, 7, 2, 3, 1},
};

Tensor filled(Dims shape, uint32_t seed) {
  Tensor t(DType::F32, std::move(shape));
  uint32_t s = seed;
  for (float& v : t.values<float>()) {
    s = s * 1664525u + 1013904223u; // LCG: cheap, deterministic data
    v = static_cast<float>(s >> 8) * 0x1p-24f - 0.5f;
  }
  return t;
}

/// One Conv node (weights and bias constant) with its input, on a warm Executor.
struct ConvLayer {
  ir::Graph graph;
  Tensor input;
  std::unique_ptr<reference::Executor> executor;

  explicit ConvLayer(const ConvShape& c) {
    const ir::ValueId x = graph.addValue("x", DType::F32, {1, c.channels, c.height, c.width});
    const ir::ValueId w =
        graph.addConstant("w", filled({c.filters, c.channels / c.group, c.kernel, c.kernel}, 2));
    const ir::ValueId b = graph.addConstant("b", filled({c.filters}, 3));
    ir::Node n;
    n.op = ir::OpKind::Conv;
    n.name = "conv";
    n.opset = 13;
    n.inputs = {x, w, b};
    n.outputs = {graph.addValue("y", DType::F32)};
    n.attrs.set("strides", std::vector<int64_t>{c.stride, c.stride});
    n.attrs.set("pads", std::vector<int64_t>{c.pad, c.pad, c.pad, c.pad});
    n.attrs.set("group", c.group);
    graph.inputs = {x};
    graph.outputs = {n.outputs[0]};
    graph.addNode(std::move(n));
    ir::inferShapes(graph);
    ir::verify(graph);
    input = filled({1, c.channels, c.height, c.width}, 1);
    executor = std::make_unique<reference::Executor>(graph);
    executor->run({input});
  }

  const Tensor& weights() const { return *graph.value(graph.node(0).inputs[1]).constant; }
  const Tensor& bias() const { return *graph.value(graph.node(0).inputs[2]).constant; }
};

/// Direct convolution: for every output, bias + sum over (input channel, kh, kw) in fp32.
Tensor naiveConv(const ConvShape& c, const Tensor& x, const Tensor& w, const Tensor& bias) {
  const int64_t oh = c.outH(), ow = c.outW();
  const int64_t icPerGroup = c.channels / c.group, ocPerGroup = c.filters / c.group;
  Tensor y(DType::F32, {1, c.filters, oh, ow});
  const float* px = x.data<float>();
  const float* pw = w.data<float>();
  float* py = y.data<float>();
  for (int64_t m = 0; m < c.filters; ++m) {
    const int64_t g = m / ocPerGroup;
    for (int64_t i = 0; i < oh; ++i) {
      for (int64_t j = 0; j < ow; ++j) {
        float acc = bias.data<float>()[m];
        for (int64_t ic = 0; ic < icPerGroup; ++ic) {
          const float* xc = px + (g * icPerGroup + ic) * c.height * c.width;
          const float* wc = pw + (m * icPerGroup + ic) * c.kernel * c.kernel;
          for (int64_t kh = 0; kh < c.kernel; ++kh) {
            const int64_t h = i * c.stride - c.pad + kh;
            if (h < 0 || h >= c.height) {
              continue;
            }
            for (int64_t kw = 0; kw < c.kernel; ++kw) {
              const int64_t v = j * c.stride - c.pad + kw;
              if (v >= 0 && v < c.width) {
                acc += xc[h * c.width + v] * wc[kh * c.kernel + kw];
              }
            }
          }
        }
        py[(m * oh + i) * ow + j] = acc;
      }
    }
  }
  return y;
}

void convOneDnn(benchmark::State& state, const ConvShape& c) {
  ConvLayer layer(c);
  for (auto _ : state) {
    layer.executor->run({layer.input});
  }
  state.counters["GMAC/s"] =
      benchmark::Counter(c.gmacs(), benchmark::Counter::kIsIterationInvariantRate);
}

void convNaive(benchmark::State& state, const ConvShape& c) {
  ConvLayer layer(c);
  const Tensor fast = layer.executor->run({layer.input})[0];
  const Tensor slow = naiveConv(c, layer.input, layer.weights(), layer.bias());
  // Different summation orders: the results agree to fp32 rounding of sums of K terms.
  double worst = 0;
  for (int64_t i = 0; i < fast.numElements(); ++i) {
    worst = std::max(worst, std::fabs(static_cast<double>(fast.data<float>()[i]) -
                                      static_cast<double>(slow.data<float>()[i])));
  }
  if (worst > 1e-3) {
    state.SkipWithError("the naive convolution disagrees with oneDNN");
    return;
  }
  runAgainstReference(
      state, "onednn",
      [&] { benchmark::DoNotOptimize(naiveConv(c, layer.input, layer.weights(), layer.bias())); },
      [&] { layer.executor->run({layer.input}); });
  state.counters["GMAC/s"] =
      benchmark::Counter(c.gmacs(), benchmark::Counter::kIsIterationInvariantRate);
}

} // namespace

void registerConvBenchmarks() {
  for (const ConvShape& c : kShapes) {
    benchmark::RegisterBenchmark((std::string("conv_onednn/") + c.name).c_str(), convOneDnn, c)
        ->UseRealTime()
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark((std::string("conv_naive/") + c.name).c_str(), convNaive, c)
        ->UseRealTime()
        ->Unit(benchmark::kMillisecond);
  }
}

} // namespace nnaccel::bench
