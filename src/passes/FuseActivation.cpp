// Marking of Conv/ConvTranspose/Gemm/MatMul outputs that feed a unary activation (see
// FuseActivation.h).
#include "nnaccel/passes/FuseActivation.h"

#include "GraphQueries.h"

namespace nnaccel::passes {

std::size_t fuseActivations(ir::Graph& g) {
  const auto count = static_cast<ir::NodeId>(g.numNodes());
  for (ir::NodeId id = 0; id < count; ++id) {
    g.node(id).fusedActivation.reset();
  }
  std::size_t marked = 0;
  for (ir::NodeId id = 0; id < count; ++id) {
    ir::Node& n = g.node(id);
    if (n.op != ir::OpKind::Conv && n.op != ir::OpKind::ConvTranspose && n.op != ir::OpKind::Gemm &&
        n.op != ir::OpKind::MatMul) {
      continue;
    }
    const ir::ValueId out = n.outputs.empty() ? ir::kNoValue : n.outputs[0];
    if (out == ir::kNoValue || !detail::hasSingleUse(g, out)) {
      continue;
    }
    const ir::NodeId act = g.users(out).front();
    const ir::Node& a = g.node(act);
    if (!ir::isUnaryActivation(a.op) || a.inputs.empty() || a.inputs[0] != out) {
      continue;
    }
    n.fusedActivation = ir::FusedActivation{act, a.op};
    ++marked;
  }
  return marked;
}

} // namespace nnaccel::passes
