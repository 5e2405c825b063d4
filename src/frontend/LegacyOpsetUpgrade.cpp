// Opset 1-6 -> 7 rewrite of an imported graph (see LegacyOpsetUpgrade.h). Done on the IR rather
// than with ONNX's version converter: the converter and the ONNX shape inference it needs crash
// on some hostile inputs (found by fuzz/OnnxImportFuzzer), while this code only touches values
// the importer has already validated.
#include "LegacyOpsetUpgrade.h"

#include "nnaccel/frontend/Onnx.h"
#include "nnaccel/ir/ShapeInference.h"

namespace nnaccel::frontend::detail {

namespace {

using ir::NodeId;
using ir::OpKind;
using ir::ValueId;

std::string quoted(const std::string& s) {
  return "'" + s + "'";
}

/// Replaces input \p index of node \p id by a constant copy of it with shape \p shape.
void replaceWithReshapedConstant(ir::Graph& g, NodeId id, size_t index, Dims shape,
                                 const std::string& suffix) {
  const ir::Value& old = g.value(g.node(id).inputs[index]);
  Tensor reshaped = old.constant->reshaped(std::move(shape));
  const ValueId fresh = g.addConstant(g.uniqueName(old.name + suffix), std::move(reshaped));
  g.node(id).inputs[index] = fresh;
}

const ir::Value& shapedInput(const ir::Graph& g, NodeId id, size_t index) {
  const ir::Value& v = g.value(g.node(id).inputs.at(index));
  if (!v.shapeKnown) {
    g.fail(id, "the shape of input " + quoted(v.name) +
                   " is unknown, so the opset-6 node cannot be converted to opset 7");
  }
  return v;
}

void upgradeLegacyBroadcast(ir::Graph& g, NodeId id) {
  ir::AttrMap& attrs = g.node(id).attrs;
  if (attrs.getInt("broadcast", 0) != 0 && attrs.has("axis")) {
    const ir::Value& a = shapedInput(g, id, 0);
    const ir::Value& b = shapedInput(g, id, 1);
    const auto rankA = static_cast<int64_t>(a.shape.size());
    const auto rankB = static_cast<int64_t>(b.shape.size());
    int64_t axis = attrs.getInt("axis", 0);
    if (axis < 0) {
      axis += rankA;
    }
    if (axis < 0 || axis + rankB > rankA) {
      g.fail(id, "legacy broadcast axis=" + std::to_string(attrs.getInt("axis", 0)) +
                     " does not fit input ranks " + std::to_string(rankA) + " and " +
                     std::to_string(rankB));
    }
    if (axis + rankB != rankA) {
      // B is aligned at `axis`, not at the end: give it trailing 1-dims.
      if (!g.isConstant(g.node(id).inputs[1])) {
        g.fail(id,
               "legacy broadcast of non-constant input " + quoted(b.name) + " at axis " +
                   std::to_string(axis) + " has no opset-7 equivalent",
               ErrorKind::Unsupported);
      }
      Dims shape = b.shape;
      shape.resize(static_cast<size_t>(rankA - axis), 1);
      replaceWithReshapedConstant(g, id, 1, std::move(shape), "_bcast");
    }
  }
  g.node(id).attrs.erase("broadcast");
  g.node(id).attrs.erase("axis");
}

void upgradePReluSlope(ir::Graph& g, NodeId id) {
  const ir::Value& x = shapedInput(g, id, 0);
  const ir::Value& slope = shapedInput(g, id, 1);
  if (slope.shape.size() != 1 || slope.shape[0] <= 1 || x.shape.size() < 3) {
    return; // a shared slope, or [N, C] input: same meaning under numpy broadcasting
  }
  if (!slope.constant) {
    g.fail(id,
           "slope " + quoted(slope.name) +
               " is not a constant, so its opset-6 per-channel layout cannot be converted to "
               "opset 7",
           ErrorKind::Unsupported);
  }
  Dims shape(x.shape.size() - 1, 1);
  shape[0] = slope.shape[0];
  replaceWithReshapedConstant(g, id, 1, std::move(shape), "_per_channel");
}

void dropIsTest(ir::Graph& g, NodeId id) {
  if (g.node(id).attrs.getInt("is_test", 0) == 0) {
    g.fail(id, "is_test=0 (training mode) is not supported", ErrorKind::Unsupported);
  }
  g.node(id).attrs.erase("is_test");
}

/// Opsets 1-5 only: forms that changed at opset 2, 4, 5 or 6.
void upgradePreOpset6(ir::Graph& g, NodeId id) {
  ir::Node& n = g.node(id);
  n.attrs.erase("consumed_inputs");
  switch (n.op) {
  case OpKind::Reshape:
    if (const auto* shape = n.attrs.find<std::vector<int64_t>>("shape")) {
      if (n.inputs.size() > 1) {
        g.fail(id, "Reshape-1 has both a shape attribute and a shape input");
      }
      const std::vector<int64_t> dims = *shape;
      const ValueId c =
          g.addConstant(g.uniqueName(n.name + "_shape"),
                        Tensor::fromVector<int64_t>({static_cast<int64_t>(dims.size())}, dims));
      g.node(id).inputs.push_back(c);
      g.node(id).attrs.erase("shape");
    }
    break;
  case OpKind::Pad:
    if (const auto* paddings = n.attrs.find<std::vector<int64_t>>("paddings")) {
      n.attrs.set("pads", *paddings);
      n.attrs.erase("paddings");
    }
    break;
  case OpKind::Concat:
    if (!n.attrs.has("axis")) {
      n.attrs.set("axis", int64_t{1});
    }
    break;
  case OpKind::Cast:
    g.fail(id, "Cast-1 (string 'to' attribute, before opset 6) is not supported",
           ErrorKind::Unsupported);
  default:
    break;
  }
}

} // namespace

void upgradeLegacyOpset(ir::Graph& g, int64_t opset) {
  // Every later error (the inference below, ir::inferShapes, passes, executors) names the
  // opset the file declares, not the opset-7 semantics the nodes are upgraded to.
  g.sourceOpset = opset;
  for (NodeId id = 0; id < static_cast<NodeId>(g.numNodes()); ++id) {
    if (opset < 6) {
      upgradePreOpset6(g, id);
    }
    switch (g.node(id).op) {
    case OpKind::Add:
    case OpKind::Sub:
    case OpKind::Mul:
    case OpKind::Div:
      upgradeLegacyBroadcast(g, id);
      break;
    case OpKind::Gemm:
      g.node(id).attrs.erase("broadcast");
      break;
    case OpKind::PRelu:
      upgradePReluSlope(g, id);
      break;
    case OpKind::BatchNormalization:
    case OpKind::Dropout:
      dropIsTest(g, id);
      break;
    case OpKind::Upsample:
      g.fail(id, "the experimental Upsample-1 (before opset 7) is not supported",
             ErrorKind::Unsupported);
    default:
      break;
    }
    g.node(id).opset = kUpgradedOpset;
    ir::inferNode(g, id);
  }
  g.opsetVersion = kUpgradedOpset;
}

} // namespace nnaccel::frontend::detail
