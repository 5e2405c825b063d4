// Per-layer shapes, windows, MACs and parameter counts of a graph (for `nnaccel info`).
#include "nnaccel/driver/ModelSummary.h"

#include "nnaccel/ir/OpParams.h"

#include <unordered_set>

namespace nnaccel::driver {

bool isWeightInput(ir::OpKind op, size_t inputIndex) {
  using ir::OpKind;
  switch (op) {
  case OpKind::Conv:
  case OpKind::ConvTranspose:
  case OpKind::Gemm:
    return inputIndex == 1 || inputIndex == 2;
  case OpKind::MatMul:
    return inputIndex <= 1;
  case OpKind::BatchNormalization:
    return inputIndex == 1 || inputIndex == 2; // scale, bias; not the running statistics
  case OpKind::PRelu:
    return inputIndex == 1;
  case OpKind::Add:
  case OpKind::Sub:
  case OpKind::Mul:
  case OpKind::Div:
    return inputIndex <= 1;
  default:
    return false;
  }
}

namespace {

/// Calls \p fn(valueId) for each constant parameter input of node \p id.
template <typename Fn> void forEachWeight(const ir::Graph& g, ir::NodeId id, Fn&& fn) {
  const ir::Node& n = g.node(id);
  for (size_t i = 0; i < n.inputs.size(); ++i) {
    const ir::ValueId v = n.inputs[i];
    if (g.isConstant(v) && isWeightInput(n.op, i)) {
      fn(v);
    }
  }
}

/// The window fields ConvParams and PoolParams share.
template <typename Params> WindowSummary windowOf(const Params& p) {
  WindowSummary w;
  w.kernel = p.kernel;
  w.strides = p.strides;
  w.padsBegin = p.padsBegin;
  w.padsEnd = p.padsEnd;
  w.dilations = p.dilations;
  return w;
}

WindowSummary convWindow(const ir::ConvParams& p) {
  WindowSummary w = windowOf(p);
  w.group = p.group;
  w.hasGroup = true;
  if (p.transposed) {
    // ConvParams::padsEnd absorbs output_padding (pads_end - output_padding, possibly
    // negative); the summary shows the model's own ONNX pads and output_padding.
    w.outputPadding = p.outputPadding;
    for (size_t i = 0; i < w.padsEnd.size() && i < p.outputPadding.size(); ++i) {
      w.padsEnd[i] += p.outputPadding[i];
    }
  }
  return w;
}

WindowSummary poolWindow(const ir::PoolParams& p) {
  WindowSummary w = windowOf(p);
  w.global = p.global;
  return w;
}

/// MatMul multiply-accumulates: every output element is a dot product over A's last axis.
} // namespace

int64_t countParameters(const ir::Graph& g) {
  std::unordered_set<ir::ValueId> seen;
  int64_t total = 0;
  for (size_t i = 0; i < g.numNodes(); ++i) {
    forEachWeight(g, static_cast<ir::NodeId>(i), [&](ir::ValueId v) {
      if (seen.insert(v).second) {
        total += g.value(v).constant->numElements();
      }
    });
  }
  return total;
}

ModelSummary summarizeModel(const ir::Graph& g) {
  using ir::OpKind;
  ModelSummary summary;
  summary.layers.reserve(g.numNodes());
  std::unordered_set<ir::ValueId> countedParams;
  for (size_t i = 0; i < g.numNodes(); ++i) {
    const auto id = static_cast<ir::NodeId>(i);
    const ir::Node& n = g.node(id);
    LayerSummary layer;
    layer.node = id;
    layer.name = n.name;
    layer.op = n.op;
    for (ir::ValueId v : n.inputs) {
      if (v != ir::kNoValue && !g.isConstant(v)) {
        layer.inputShapes.push_back(g.value(v).shape);
      }
    }
    for (ir::ValueId v : n.outputs) {
      if (v != ir::kNoValue) {
        layer.outputShapes.push_back(g.value(v).shape);
      }
    }
    layer.macs = ir::nodeMacs(g, id);
    switch (n.op) {
    case OpKind::Conv:
    case OpKind::ConvTranspose:
      layer.window = convWindow(ir::convParams(g, id));
      break;
    case OpKind::MaxPool:
    case OpKind::AveragePool:
    case OpKind::GlobalAveragePool:
    case OpKind::GlobalMaxPool:
      layer.window = poolWindow(ir::poolParams(g, id));
      break;
    default:
      break;
    }
    if (n.fusedActivation) {
      layer.fusedActivation = n.fusedActivation->kind;
    }
    forEachWeight(g, id, [&](ir::ValueId v) {
      const int64_t elements = g.value(v).constant->numElements();
      layer.params += elements;
      if (countedParams.insert(v).second) {
        summary.totalParams += elements;
      }
    });
    summary.totalMacs += layer.macs;
    summary.layers.push_back(std::move(layer));
  }
  for (const ir::Node& n : g.nodes()) {
    if (n.fusedActivation && n.fusedActivation->activationNode >= 0) {
      summary.layers.at(static_cast<size_t>(n.fusedActivation->activationNode)).fusedIntoProducer =
          true;
    }
  }
  return summary;
}

} // namespace nnaccel::driver
