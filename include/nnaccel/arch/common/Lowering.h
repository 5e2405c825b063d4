/// \file
/// Graph-walking rules every engine's compiler and simulator share: which Relu/Clip a
/// convolution's drain can apply as an integer clamp, which nodes only rename their input (no
/// data moves), and how a host-fallback layer is evaluated and counted. One definition, so that
/// every engine fuses, aliases and falls back on exactly the same nodes.
#pragma once

#include "nnaccel/arch/common/Elementwise.h"
#include "nnaccel/ir/Graph.h"
#include "nnaccel/quant/QuantizedModel.h"
#include "nnaccel/report/Report.h"
#include "nnaccel/tensor/Tensor.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace nnaccel::arch::common {

/// A Relu/Clip fused into an accumulating node (ir::Node::fusedActivation) that is an integer
/// clamp on the node's output scale.
struct FusedClamp {
  ir::NodeId node = -1;               ///< the activation node (consumed by the fusion)
  int32_t clampMin = 0, clampMax = 0; ///< within int8
  ir::ValueId output = ir::kNoValue;  ///< the activation's output: the fused layer's output
  std::string_view opName;            ///< "Relu", "Clip"
};

/// The clamp fused into node \p id, if it has one the drain can apply.
std::optional<FusedClamp> fusedClamp(const quant::QuantizedModel& qm, ir::NodeId id);

/// Throws Error(Unsupported) naming the node that produces \p qm's first asymmetric value (a
/// non-zero zero point) for an engine whose int8 datapath holds symmetric activations only:
/// every compile of such an engine calls it, so no path (simulate, coverage, a written
/// program, a placement) runs an asymmetric model as if it were symmetric.
void refuseZeroPoints(const quant::QuantizedModel& qm, std::string_view engine);

/// True when node \p id is a row-major view (Reshape, Flatten, ...) of a computed value with an
/// unchanged scale: its output aliases its input.
bool isAliasView(const quant::QuantizedModel& qm, ir::NodeId id);

/// A program layer for node \p id: its name, op name, node and the computed (non-constant)
/// values it reads and writes. \p Layer is an engine's layer type with those fields.
template <typename Layer, typename Kind>
Layer layerForNode(const ir::Graph& g, ir::NodeId id, Kind kind) {
  const ir::Node& n = g.node(id);
  Layer l;
  l.name = n.name;
  l.op = std::string(ir::opName(n.op));
  l.kind = kind;
  l.node = id;
  for (ir::ValueId v : n.inputs)
    if (v != ir::kNoValue && !g.isConstant(v))
      l.inputs.push_back(v);
  for (ir::ValueId v : n.outputs)
    if (v != ir::kNoValue)
      l.outputs.push_back(v);
  return l;
}

/// layerForNode appended to \p layers; returns the new layer.
template <typename Layer, typename Kind>
Layer& appendLayer(std::vector<Layer>& layers, const ir::Graph& g, ir::NodeId id, Kind kind) {
  layers.push_back(layerForNode<Layer>(g, id, kind));
  return layers.back();
}

/// A host-fallback layer (kind Host) for node \p id, appended to \p layers, with \p note saying
/// why the engine does not run it.
template <typename Layer>
Layer& appendHostLayer(std::vector<Layer>& layers, const ir::Graph& g, ir::NodeId id,
                       std::string note) {
  Layer& l = appendLayer(layers, g, id, decltype(Layer::kind)::Host);
  l.note = std::move(note);
  return l;
}

/// Calls \p lower(id), in node order, for every node that quantization did not fold into a
/// constant and no fusion consumed (\p consumed, a set of NodeIds read before each node: a
/// lowering may consume later nodes).
template <typename Consumed, typename Lower>
void forEachLoweredNode(const quant::QuantizedModel& qm, const Consumed& consumed, Lower&& lower) {
  for (ir::NodeId id = 0; id < static_cast<ir::NodeId>(qm.graph.numNodes()); ++id)
    if (!consumed.count(id) && qm.node(id).kind != quant::QuantOpKind::Folded)
      lower(id);
}

/// forEachLoweredNode with a compile's progress: \p progress (when set) is called after each
/// lowered node with (nodes done, nodes of the graph), and once more with (nodes, nodes) when
/// the last nodes were consumed by a fusion. Where a session's "compiling" progress comes from,
/// and a point where a run can be interrupted.
template <typename Consumed, typename Lower>
void forEachLoweredNodeReporting(const quant::QuantizedModel& qm, const Consumed& consumed,
                                 const std::function<void(size_t, size_t)>& progress,
                                 Lower&& lower) {
  const size_t nodes = qm.graph.numNodes();
  size_t reported = 0;
  forEachLoweredNode(qm, consumed, [&](ir::NodeId id) {
    lower(id);
    reported = static_cast<size_t>(id) + 1;
    if (progress)
      progress(reported, nodes);
  });
  if (progress && reported != nodes)
    progress(nodes, nodes);
}

/// The lowering rules every engine applies before its own, appending to \p layers: a float
/// island becomes a host layer ("no integer form: ..."), an alias view (isAliasView) a View
/// layer (one input, one output; no data moves). False, and nothing appended, otherwise.
template <typename Layer>
bool lowerSharedNode(const quant::QuantizedModel& qm, ir::NodeId id, std::vector<Layer>& layers) {
  const quant::QuantNode& qn = qm.node(id);
  if (qn.kind == quant::QuantOpKind::FloatIsland) {
    appendHostLayer(layers, qm.graph, id, "no integer form: " + qn.islandReason);
    return true;
  }
  if (isAliasView(qm, id)) {
    Layer& l = appendLayer(layers, qm.graph, id, decltype(Layer::kind)::View);
    l.outputs.resize(1);
    l.inputs.resize(1);
    return true;
  }
  return false;
}

/// The host-fallback note of a node no unit of \p engine ("sparse") runs.
std::string noUnitNote(const ir::Graph& g, ir::NodeId id, std::string_view engine);

/// Node \p id as an Elementwise layer (kind Elementwise, its `elementwise` passes, one output)
/// appended to \p layers, or, when the strided passes cannot express it, a host layer whose note
/// says so for \p engine. Returns the element-wise layer, or nullptr for the host layer.
template <typename Layer>
Layer* appendElementwiseLayer(const quant::QuantizedModel& qm, ir::NodeId id,
                              std::vector<Layer>& layers, std::string_view engine) {
  auto lowered = lowerElementwise(qm, id);
  if (const auto* why = std::get_if<std::string>(&lowered)) {
    appendHostLayer(layers, qm.graph, id, noUnitNote(qm.graph, id, engine) + ": " + *why);
    return nullptr;
  }
  Layer& l = appendLayer(layers, qm.graph, id, decltype(Layer::kind)::Elementwise);
  l.elementwise = std::move(std::get<ElementwiseLayer>(lowered));
  l.outputs = {l.elementwise.output};
  return &l;
}

/// A fully-connected accumulate node (Gemm, MatMul) as a 1x1 convolution over a 1 x rows
/// plane: the rows of A are its output points, the reduction its input channels.
struct FullyConnected {
  int64_t rows = 0, reduction = 0, columns = 0;
  /// Gemm with transA: A is stored [reduction, rows], so input channel c of row x is at
  /// c * rows + x (the channel-major layout of a convolution's input) instead of x * reduction + c.
  bool transposedInput = false;
  const int8_t* weights = nullptr; ///< columns x reduction, row-major

  /// The weight of output column \p m on input channel \p c.
  int8_t weight(int64_t m, int64_t c) const { return weights[m * reduction + c]; }
};

/// Node \p id (a non-Conv Accumulate node) as a FullyConnected layer.
FullyConnected fullyConnected(const quant::QuantizedModel& qm, ir::NodeId id);

/// Evaluates node \p id on the host in int8 (quant::evalQuantizedNode): reads its computed
/// inputs from \p values (indexed by ValueId; constants come from the model), stores its
/// outputs there, counts the bytes read and written as DRAM traffic in \p s, records them as
/// its hostBytes (what the host model charges: engines/HostModel.h) and marks the layer a host
/// fallback.
void runHostNode(const quant::QuantizedModel& qm, ir::NodeId id, std::vector<Tensor>& values,
                 report::LayerStats& s);

} // namespace nnaccel::arch::common
