// Zero Pad folded into the Conv nodes that read it (see FoldPad.h).
#include "nnaccel/passes/FoldPad.h"

#include "nnaccel/ir/OpParams.h"

namespace nnaccel::passes {

namespace {

using ir::Graph;
using ir::NodeId;
using ir::OpKind;
using ir::ValueId;

/// True when Pad \p id fills its spatial axes (2..) with zeros, non-negatively, and leaves N and
/// C alone.
bool isSpatialZeroPad(const Graph& g, NodeId id) {
  const ir::PadParams p = ir::padParams(g, id);
  if (p.mode != ir::PadParams::Mode::Constant || p.value != 0.0f || p.valueIsInteger ||
      p.padsBegin.size() < 3)
    return false;
  for (size_t a = 0; a < p.padsBegin.size(); ++a) {
    const bool channelAxis = a < 2;
    if (p.padsBegin[a] < 0 || p.padsEnd[a] < 0 ||
        (channelAxis && (p.padsBegin[a] != 0 || p.padsEnd[a] != 0)))
      return false;
  }
  return true;
}

/// True when every reader of \p v is a Conv taking it as its data input.
bool readOnlyAsConvData(const Graph& g, ValueId v) {
  const std::vector<NodeId> users = g.users(v);
  if (users.empty() || g.isOutput(v))
    return false;
  for (NodeId u : users) {
    const ir::Node& n = g.node(u);
    if (n.op != OpKind::Conv || n.inputs[0] != v ||
        std::count(n.inputs.begin(), n.inputs.end(), v) != 1)
      return false;
  }
  return true;
}

/// Conv \p conv reads \p x directly, its pads grown by the Pad's spatial pads \p pad.
void absorbPad(Graph& g, NodeId conv, ValueId x, const ir::PadParams& pad) {
  const ir::ConvParams c = ir::convParams(g, conv);
  const size_t rank = c.padsBegin.size();
  std::vector<int64_t> pads(2 * rank);
  for (size_t a = 0; a < rank; ++a) {
    pads[a] = c.padsBegin[a] + pad.padsBegin[a + 2];
    pads[rank + a] = c.padsEnd[a] + pad.padsEnd[a + 2];
  }
  ir::Node& n = g.node(conv);
  n.attrs.set("pads", pads);
  n.attrs.erase("auto_pad");
  n.inputs[0] = x;
}

} // namespace

std::size_t foldPadIntoConv(Graph& g) {
  std::size_t folded = 0;
  for (NodeId id = 0; id < static_cast<NodeId>(g.numNodes()); ++id) {
    const ir::Node& n = g.node(id);
    if (n.op != OpKind::Pad || n.outputs.size() != 1 || !isSpatialZeroPad(g, id) ||
        !readOnlyAsConvData(g, n.outputs[0]))
      continue;
    const ir::PadParams pad = ir::padParams(g, id);
    const ValueId x = n.inputs[0];
    for (NodeId conv : g.users(n.outputs[0]))
      absorbPad(g, conv, x, pad);
    ++folded;
  }
  if (folded > 0)
    g.removeDeadNodes();
  return folded;
}

} // namespace nnaccel::passes
