/// \file
/// Graph-walking rules every engine's compiler and simulator share: which Relu/Clip a
/// convolution's drain can apply as an integer clamp, which nodes only rename their input (no
/// data moves), and how a host-fallback layer is evaluated and counted. One definition, so that
/// every engine fuses, aliases and falls back on exactly the same nodes.
#pragma once

#include "nnaccel/ir/Graph.h"
#include "nnaccel/quant/QuantizedModel.h"
#include "nnaccel/report/Report.h"
#include "nnaccel/tensor/Tensor.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
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

/// Evaluates node \p id on the host in int8 (quant::evalQuantizedNode): reads its computed
/// inputs from \p values (indexed by ValueId; constants come from the model), stores its
/// outputs there, counts the bytes read and written as DRAM traffic in \p s and marks the layer
/// a host fallback.
void runHostNode(const quant::QuantizedModel& qm, ir::NodeId id, std::vector<Tensor>& values,
                 report::LayerStats& s);

} // namespace nnaccel::arch::common
