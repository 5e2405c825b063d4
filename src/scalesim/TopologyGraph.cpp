/// \file
/// Graph -> SCALE-Sim rows (export-topology) and SCALE-Sim rows -> graph (simulate TOPO.csv).
#include "nnaccel/scalesim/TopologyGraph.h"

#include "nnaccel/ir/OpParams.h"
#include "nnaccel/support/Error.h"
#include "nnaccel/support/Rng.h"

#include <array>
#include <cmath>
#include <fmt/format.h>
#include <set>

namespace nnaccel::scalesim {

namespace {

/// A layer name SCALE-Sim reads back unchanged: no commas or line breaks, and no "DP" (which
/// would split the row per channel) unless \p depthwise.
std::string rowName(const std::string& name, const std::string& fallback, bool depthwise) {
  std::string out;
  for (char ch : name) {
    out += (ch == ',' || ch == '\n' || ch == '\r') ? '_' : ch;
  }
  const size_t first = out.find_first_not_of(" \t");
  out = first == std::string::npos ? fallback
                                   : out.substr(first, out.find_last_not_of(" \t") - first + 1);
  for (size_t at = out.find("DP"); at != std::string::npos; at = out.find("DP", at)) {
    out[at + 1] = 'p';
  }
  return depthwise ? fmt::format("{}_DP", out) : out;
}

void exportConv(const ir::Graph& g, ir::NodeId id, ExportedTopology& out) {
  const ir::Node& node = g.node(id);
  const ir::ConvParams p = ir::convParams(g, id);
  const ErrorContext where{.node = node.name, .op = "Conv"};
  if (p.batch != 1) {
    throw Error(ErrorKind::Unsupported, where,
                fmt::format("batch {}: a SCALE-Sim topology describes one image (export the "
                            "model at batch 1)",
                            p.batch));
  }
  if (p.spatialRank != 1 && p.spatialRank != 2) {
    throw Error(
        ErrorKind::Unsupported, where,
        fmt::format("{}-D convolution has no SCALE-Sim row (1-D and 2-D only)", p.spatialRank));
  }
  // Axis a of the SCALE-Sim layer: (read extent, dilated kernel, stride); a 1-D conv is 1 high.
  auto axis = [&](size_t a) {
    const int64_t kernel = (p.kernel[a] - 1) * p.dilations[a] + 1;
    const int64_t read = (p.outSpatial[a] - 1) * p.strides[a] + kernel;
    return std::array<int64_t, 3>{read, kernel, p.strides[a]};
  };
  const std::array<int64_t, 3> h = p.spatialRank == 2 ? axis(0) : std::array<int64_t, 3>{1, 1, 1};
  const std::array<int64_t, 3> w = axis(p.spatialRank == 2 ? 1 : 0);
  Layer l;
  l.ifmapHeight = h[0];
  l.filterHeight = h[1];
  l.strideHeight = h[2];
  l.ifmapWidth = w[0];
  l.filterWidth = w[1];
  l.strideWidth = w[2];
  const std::string fallback = fmt::format("conv{}", id);
  if (p.group == 1) {
    l.name = rowName(node.name, fallback, false);
    l.channels = p.inChannels;
    l.numFilters = p.outChannels;
    out.layers.push_back(l);
  } else if (p.isDepthwise()) {
    // SCALE-Sim splits a "DP" row into one layer per channel, each with the row's filters.
    l.name = rowName(node.name, fallback, true);
    l.channels = p.inChannels;
    l.numFilters = p.outChannels / p.group;
    out.layers.push_back(l);
  } else {
    for (int64_t gi = 0; gi < p.group; ++gi) {
      Layer one = l;
      one.name = fmt::format("{}_g{}", rowName(node.name, fallback, false), gi);
      one.channels = p.inChannels / p.group;
      one.numFilters = p.outChannels / p.group;
      out.layers.push_back(one);
    }
  }
}

/// M x K times K x N as SCALE-Sim's FC rows: an M x 1 ifmap of K channels, N 1x1 filters.
void exportMatrixProduct(const std::string& name, int64_t m, int64_t k, int64_t n,
                         ExportedTopology& out) {
  Layer l;
  l.name = name;
  l.ifmapHeight = m;
  l.ifmapWidth = 1;
  l.filterHeight = 1;
  l.filterWidth = 1;
  l.channels = k;
  l.numFilters = n;
  out.layers.push_back(l);
}

} // namespace

ExportedTopology topologyFromGraph(const ir::Graph& g) {
  ExportedTopology out;
  for (ir::NodeId id = 0; id < static_cast<ir::NodeId>(g.numNodes()); ++id) {
    const ir::Node& node = g.node(id);
    const std::string fallback = fmt::format("fc{}", id);
    switch (node.op) {
    case ir::OpKind::Conv:
      exportConv(g, id, out);
      break;
    case ir::OpKind::Gemm: {
      const ir::GemmParams p = ir::gemmParams(g, id);
      exportMatrixProduct(rowName(node.name, fallback, false), p.m, p.k, p.n, out);
      break;
    }
    case ir::OpKind::MatMul: {
      const ir::Value& a = g.value(node.inputs[0]);
      const ir::Value& b = g.value(node.inputs[1]);
      if (!g.isConstant(node.inputs[1]) || !a.shapeKnown || b.shape.size() != 2 ||
          a.shape.empty()) {
        out.skipped.push_back(fmt::format("{} (MatMul of two runtime tensors)", node.name));
        break;
      }
      int64_t m = 1;
      for (size_t i = 0; i + 1 < a.shape.size(); ++i) {
        m *= a.shape[i];
      }
      exportMatrixProduct(rowName(node.name, fallback, false), m, b.shape[0], b.shape[1], out);
      break;
    }
    case ir::OpKind::ConvTranspose:
      out.skipped.push_back(fmt::format("{} (ConvTranspose)", node.name));
      break;
    default:
      break;
    }
  }
  return out;
}

namespace {

/// Builds the graph layer by layer, chaining where the shapes allow.
class TopologyGraphBuilder {
public:
  TopologyGraphBuilder(const std::string& name, uint64_t seed) : seed_(seed) {
    g_.name = name;
    g_.opsetVersion = 13;
  }

  /// One Conv + Relu for \p group layers split from one row (group 1: an ordinary layer).
  void addLayer(const Layer& l, int64_t group, const std::string& nodeName) {
    const int64_t channels = l.channels * group, filters = l.numFilters * group;
    const int64_t outH = l.ofmapHeight(), outW = l.ofmapWidth();
    // SCALE-Sim's ceil-rounded output lets the last window hang past the edge (it reads
    // nothing there): zero padding at the end gives ONNX the same output size.
    const int64_t extraH = (outH - 1) * l.strideHeight + l.filterHeight - l.ifmapHeight;
    const int64_t extraW = (outW - 1) * l.strideWidth + l.filterWidth - l.ifmapWidth;
    ir::ValueId input = ir::kNoValue;
    int64_t padH = 0, padW = 0;
    if (previous_ != ir::kNoValue) {
      const Dims& prev = previousShape_;
      const int64_t dh = l.ifmapHeight - prev[2], dw = l.ifmapWidth - prev[3];
      if (prev[1] == channels && dh >= 0 && dw >= 0 && dh % 2 == 0 && dw % 2 == 0) {
        input = previous_;
        padH = dh / 2;
        padW = dw / 2;
      } else {
        g_.outputs.push_back(previous_);
      }
    }
    const std::string node = unique(nodeName);
    if (input == ir::kNoValue) {
      input = g_.addValue(unique(node + ".input"), DType::F32,
                          {1, channels, l.ifmapHeight, l.ifmapWidth});
      g_.inputs.push_back(input);
    }
    const int64_t fanIn = l.channels * l.filterHeight * l.filterWidth;
    const Dims weightDims = {filters, l.channels, l.filterHeight, l.filterWidth};
    const ir::ValueId weight =
        randomConstant(node + ".weight", weightDims, [&](Rng& rng, std::span<float> v) {
          rng.fillNormal(v, 0.0f, std::sqrt(2.0f / static_cast<float>(fanIn)));
        });
    const float bound = 1.0f / std::sqrt(static_cast<float>(fanIn));
    const ir::ValueId bias =
        randomConstant(node + ".bias", {filters},
                       [&](Rng& rng, std::span<float> v) { rng.fillUniform(v, -bound, bound); });

    ir::Node conv;
    conv.op = ir::OpKind::Conv;
    conv.name = node;
    conv.opset = g_.opsetVersion;
    conv.inputs = {input, weight, bias};
    conv.attrs.set("dilations", std::vector<int64_t>{1, 1});
    conv.attrs.set("group", group);
    conv.attrs.set("kernel_shape", std::vector<int64_t>{l.filterHeight, l.filterWidth});
    conv.attrs.set("pads", std::vector<int64_t>{padH, padW, padH + extraH, padW + extraW});
    conv.attrs.set("strides", std::vector<int64_t>{l.strideHeight, l.strideWidth});
    const ir::ValueId convOut = g_.addValue(node, DType::F32);
    conv.outputs = {convOut};
    g_.addNode(std::move(conv));

    ir::Node relu;
    relu.op = ir::OpKind::Relu;
    relu.name = unique(node + ".relu");
    relu.opset = g_.opsetVersion;
    relu.inputs = {convOut};
    const ir::ValueId reluOut = g_.addValue(relu.name, DType::F32);
    relu.outputs = {reluOut};
    g_.addNode(std::move(relu));

    previous_ = reluOut;
    previousShape_ = {1, filters, outH, outW};
  }

  ir::Graph finish() {
    if (previous_ != ir::kNoValue) {
      g_.outputs.push_back(previous_);
    }
    return std::move(g_);
  }

private:
  std::string unique(const std::string& base) {
    std::string name = base;
    for (int i = 1; !names_.insert(name).second; ++i) {
      name = fmt::format("{}_{}", base, i);
    }
    return name;
  }

  template <typename Fill>
  ir::ValueId randomConstant(const std::string& name, const Dims& dims, Fill&& fill) {
    Tensor t(DType::F32, dims);
    Rng rng = Rng::forStream(seed_, name);
    fill(rng, t.values<float>());
    return g_.addConstant(unique(name), std::move(t));
  }

  ir::Graph g_;
  uint64_t seed_;
  std::set<std::string> names_;
  ir::ValueId previous_ = ir::kNoValue;
  Dims previousShape_;
};

} // namespace

ir::Graph graphFromTopology(const Topology& topology, uint64_t seed) {
  TopologyGraphBuilder b(topology.name.empty() ? "scalesim_topology" : topology.name, seed);
  const std::vector<Layer>& layers = topology.layers;
  for (size_t i = 0; i < layers.size();) {
    // The layers SCALE-Sim split from one "DP" row share its line: one depthwise Conv.
    size_t end = i + 1;
    while (layers[i].sourceLine > 0 && end < layers.size() &&
           layers[end].sourceLine == layers[i].sourceLine) {
      ++end;
    }
    const int64_t group = static_cast<int64_t>(end - i);
    std::string name = layers[i].name;
    if (group > 1) {
      name = name.substr(0, name.rfind("Channel_"));
    }
    b.addLayer(layers[i], group, name.empty() ? fmt::format("layer{}", i) : name);
    i = end;
  }
  return b.finish();
}

} // namespace nnaccel::scalesim
