/// \file
/// Fusion, aliasing and host-fallback rules shared by the engines (Lowering.h).
#include "nnaccel/arch/common/Lowering.h"

#include "nnaccel/quant/Int8Executor.h"
#include "nnaccel/support/Error.h"

#include <algorithm>
#include <fmt/format.h>

namespace nnaccel::arch::common {

void refuseZeroPoints(const quant::QuantizedModel& qm, std::string_view engine) {
  const ir::ValueId v = qm.firstAsymmetricValue();
  if (v == ir::kNoValue)
    return;
  const ir::Value& value = qm.graph.value(v);
  const std::string why =
      fmt::format("the model quantizes '{}' with zero point {} (an asymmetric activation); the {} "
                  "engine's int8 datapath holds symmetric activations only (`nnaccel run --dtype "
                  "int8` runs the model on the int8 reference)",
                  value.name, qm.zeroPoint(v), engine);
  if (value.producer >= 0)
    qm.graph.fail(value.producer, why, ErrorKind::Unsupported);
  throw Error(ErrorKind::Unsupported, ErrorContext{qm.graph.sourcePath}, why);
}

std::optional<FusedClamp> fusedClamp(const quant::QuantizedModel& qm, ir::NodeId id) {
  const ir::Node& n = qm.graph.node(id);
  if (!n.fusedActivation)
    return std::nullopt;
  const ir::NodeId act = n.fusedActivation->activationNode;
  const quant::QuantNode& q = qm.node(act);
  if (q.kind != quant::QuantOpKind::Clamp)
    return std::nullopt;
  const ir::Node& a = qm.graph.node(act);
  return FusedClamp{act, std::max<int32_t>(q.clampMin, quant::kInt8Min),
                    std::min<int32_t>(q.clampMax, quant::kInt8Max), a.outputs[0], ir::opName(a.op)};
}

bool isAliasView(const quant::QuantizedModel& qm, ir::NodeId id) {
  const ir::Graph& g = qm.graph;
  const ir::Node& n = g.node(id);
  return qm.node(id).kind == quant::QuantOpKind::DataMovement && ir::isRowMajorView(n.op) &&
         !n.outputs.empty() && !n.inputs.empty() && !g.isConstant(n.inputs[0]) &&
         qm.scale(n.inputs[0]) == qm.scale(n.outputs[0]);
}

std::string noUnitNote(const ir::Graph& g, ir::NodeId id, std::string_view engine) {
  return fmt::format("{} has no unit on the {} engine", ir::opName(g.node(id).op), engine);
}

FullyConnected fullyConnected(const quant::QuantizedModel& qm, ir::NodeId id) {
  const quant::QuantNode& qn = qm.node(id);
  FullyConnected fc;
  fc.reduction = qn.reductionLength;
  fc.columns = static_cast<int64_t>(qn.weightScales.size());
  fc.rows = numElements(qm.graph.value(qm.graph.node(id).inputs[0]).shape) / fc.reduction;
  fc.weights = qn.weights.data<int8_t>();
  fc.transposedInput = qn.transA && fc.rows > 1; // one row: [k, 1] and [1, k] are one layout
  return fc;
}

void runHostNode(const quant::QuantizedModel& qm, ir::NodeId id, std::vector<Tensor>& values,
                 report::LayerStats& s) {
  const ir::Node& n = qm.graph.node(id);
  std::vector<quant::QuantTensor> held;
  held.reserve(n.inputs.size());
  std::vector<const quant::QuantTensor*> ptrs;
  for (ir::ValueId v : n.inputs) {
    if (v == ir::kNoValue || qm.graph.isConstant(v)) {
      ptrs.push_back(nullptr);
      continue;
    }
    const Tensor& t = values.at(static_cast<size_t>(v));
    NNACCEL_ASSERT(t.sizeBytes() > 0 || numElements(qm.graph.value(v).shape) == 0)
        << "value " << v << " read before it was produced";
    held.push_back(t.dtype() == DType::I8 ? quant::QuantTensor{t, qm.scale(v), qm.zeroPoint(v)}
                                          : quant::QuantTensor{t, 0.0f});
    ptrs.push_back(&held.back());
    s.dram.readBytes += static_cast<int64_t>(t.sizeBytes());
  }
  std::vector<quant::QuantTensor> outs = quant::evalQuantizedNode(qm, id, ptrs);
  for (size_t j = 0; j < n.outputs.size() && j < outs.size(); ++j) {
    if (n.outputs[j] == ir::kNoValue)
      continue;
    s.dram.writeBytes += static_cast<int64_t>(outs[j].data.sizeBytes());
    values[static_cast<size_t>(n.outputs[j])] = std::move(outs[j].data);
  }
  s.hostFallback = true;
  s.hostBytes = s.dram.readBytes + s.dram.writeBytes;
}

} // namespace nnaccel::arch::common
