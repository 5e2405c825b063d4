/// \file
/// QDQ models in int8 (quant/QdqModel.h): each QuantizeLinear -> DequantizeLinear pair of an
/// activation is the int8 scale of the value it wraps, so it is removed and its scale kept;
/// nothing of it executes on an engine.
///
/// Why a rewrite and not two view nodes: in the int8 world the pair changes no bit (the value is
/// already int8 at that scale), so an engine that copied the tensor twice would charge time and
/// traffic the quantized network never spends.
#include "nnaccel/quant/QdqModel.h"

#include "nnaccel/ir/OpParams.h"
#include "nnaccel/support/Error.h"

#include <fmt/format.h>

namespace nnaccel::quant {
namespace {

using ir::Graph;
using ir::NodeId;
using ir::OpKind;
using ir::ValueId;

/// A one-line reason why a QuantizeLinear's parameters have no int8 activation form here, or
/// nothing: one scale and zero point per tensor, int8 or uint8 (its codes shifted by 128).
std::optional<std::string> unsupportedActivation(const ir::QdqParams& p) {
  if (p.axis >= 0)
    return std::string("a per-axis activation scale (nnaccel holds one scale per activation "
                       "tensor)");
  if (p.quantized != DType::I8 && p.quantized != DType::U8)
    return fmt::format("{} activations (nnaccel's activations are 8-bit: int8 or uint8)",
                       dtypeName(p.quantized));
  return std::nullopt;
}

/// The int8 form of a per-tensor int8 or uint8 quantization.
ActivationQuant activationQuant(const ir::QdqParams& p) {
  const int32_t shift = p.quantized == DType::U8 ? 128 : 0;
  return {p.scales.at(0), p.zeros.at(0) - shift};
}

/// Ops that only move an integer tensor's codes (a QOperator model reshapes int8 tensors
/// between its QLinear nodes): run on the float side instead, they move the same values.
bool movesCodes(OpKind op) {
  return op == OpKind::Reshape || op == OpKind::Flatten || op == OpKind::Squeeze ||
         op == OpKind::Unsqueeze || op == OpKind::Transpose || op == OpKind::Identity;
}

bool sameParams(const ir::QdqParams& a, const ir::QdqParams& b) {
  return a.axis == b.axis && a.scales == b.scales && a.zeros == b.zeros &&
         a.quantized == b.quantized;
}

} // namespace

std::map<ir::ValueId, ActivationQuant> absorbQdqPairs(Graph& g) {
  std::map<ValueId, ActivationQuant> scales;
  std::vector<NodeId> removed;
  std::vector<ValueId> movedToFloat;
  for (NodeId id = 0; id < static_cast<NodeId>(g.numNodes()); ++id) {
    const ir::Node& q = g.node(id);
    if (q.op != OpKind::QuantizeLinear)
      continue;
    const ir::QdqParams p = ir::qdqParams(g, id);
    if (const std::optional<std::string> why = unsupportedActivation(p))
      g.fail(id, *why, ErrorKind::Unsupported);
    const ValueId x = q.inputs[0], code = q.outputs[0];
    if (g.isOutput(code))
      g.fail(id,
             "its integer output leaves the graph; nnaccel runs QDQ models whose "
             "QuantizeLinear outputs are dequantized again",
             ErrorKind::Unsupported);
    // (integer value, the float value it stands for): the code and x, then the outputs of the
    // code-moving ops between them and their DequantizeLinears, moved to the float side.
    std::vector<std::pair<ValueId, ValueId>> work{{code, x}};
    while (!work.empty()) {
      const auto [integer, real] = work.back();
      work.pop_back();
      for (NodeId u : g.users(integer)) {
        ir::Node& d = g.node(u);
        if (d.op == OpKind::DequantizeLinear && d.inputs[0] == integer &&
            sameParams(ir::qdqParams(g, u), p)) {
          g.replaceAllUses(d.outputs[0], real);
          removed.push_back(u);
        } else if (movesCodes(d.op) && d.inputs[0] == integer && !g.isOutput(d.outputs[0])) {
          d.inputs[0] = real;
          movedToFloat.push_back(d.outputs[0]); // typed f32 once its readers are checked
          work.emplace_back(d.outputs[0], d.outputs[0]);
        } else {
          g.fail(u,
                 fmt::format("it reads the integer output of QuantizeLinear '{}' but is not a "
                             "DequantizeLinear with the same scale and zero point (nor a "
                             "Reshape, Transpose, ... on the way to one)",
                             q.name),
                 ErrorKind::Unsupported);
        }
      }
    }
    const ActivationQuant aq = activationQuant(p);
    if (auto [it, fresh] = scales.emplace(x, aq); !fresh && !(it->second == aq))
      g.fail(id,
             fmt::format("value '{}' is quantized twice (scale {} zero point {}, and scale {} "
                         "zero point {})",
                         g.value(x).name, it->second.scale, it->second.zeroPoint, aq.scale,
                         aq.zeroPoint),
             ErrorKind::Unsupported);
    removed.push_back(id);
  }
  for (NodeId id = 0; id < static_cast<NodeId>(g.numNodes()); ++id)
    if (g.node(id).op == OpKind::DequantizeLinear &&
        std::find(removed.begin(), removed.end(), id) == removed.end())
      g.fail(id,
             "a DequantizeLinear of a computed integer tensor that no QuantizeLinear of "
             "this graph produced (an integer graph input) has no int8 form here",
             ErrorKind::Unsupported);
  for (ValueId v : movedToFloat)
    g.value(v).dtype = DType::F32;
  std::sort(removed.begin(), removed.end());
  removed.erase(std::unique(removed.begin(), removed.end()), removed.end());
  g.removeNodes(removed);
  return scales;
}

} // namespace nnaccel::quant
