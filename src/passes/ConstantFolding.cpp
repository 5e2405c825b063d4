// Constant folding with the reference executor, within a size and MAC budget (see
// ConstantFolding.h).
#include "nnaccel/passes/ConstantFolding.h"

#include "nnaccel/ir/OpParams.h"
#include "nnaccel/ir/ShapeOps.h"
#include "nnaccel/reference/Executor.h"

#include <algorithm>
#include <memory>
#include <new>
#include <optional>

namespace nnaccel::passes {

namespace {

bool allOutputsConstant(const ir::Graph& g, const ir::Node& n) {
  return std::all_of(n.outputs.begin(), n.outputs.end(),
                     [&](ir::ValueId o) { return o == ir::kNoValue || g.isConstant(o); });
}

/// The constant data of the node's inputs (nullptr for omitted ones), or nullopt if some
/// present input is not a constant or the node has no inputs.
std::optional<std::vector<const Tensor*>> constantArgs(const ir::Graph& g, const ir::Node& n) {
  std::vector<const Tensor*> args;
  bool any = false;
  for (ir::ValueId in : n.inputs) {
    if (in == ir::kNoValue) {
      args.push_back(nullptr);
      continue;
    }
    if (!g.isConstant(in)) {
      return std::nullopt;
    }
    args.push_back(g.value(in).constant.get());
    any = true;
  }
  return any ? std::optional(std::move(args)) : std::nullopt;
}

/// Multiply-accumulates of a Conv/ConvTranspose/Gemm/MatMul node, capped just above \p cap
/// (nullopt means more than cap); 0 for other ops.
std::optional<int64_t> macsOf(const ir::Graph& g, ir::NodeId id, int64_t cap) {
  const ir::Node& n = g.node(id);
  switch (n.op) {
  case ir::OpKind::Conv:
  case ir::OpKind::ConvTranspose: {
    const int64_t macs = ir::convParams(g, id).macs();
    return macs <= cap ? std::optional(macs) : std::nullopt;
  }
  case ir::OpKind::Gemm: {
    const ir::GemmParams p = ir::gemmParams(g, id);
    return ir::checkedProduct(Dims{p.m, p.k, p.n}, cap);
  }
  case ir::OpKind::MatMul: {
    // Every output element is a dot product over A's last dimension.
    Dims factors = g.value(n.outputs[0]).shape;
    factors.push_back(g.value(n.inputs[0]).shape.back());
    return ir::checkedProduct(factors, cap);
  }
  default:
    return 0;
  }
}

/// True if folding node \p id stays within the budget of \p options.
bool withinBudget(const ir::Graph& g, ir::NodeId id, const FoldOptions& options) {
  int64_t bytes = 0;
  for (ir::ValueId out : g.node(id).outputs) {
    if (out == ir::kNoValue) {
      continue;
    }
    const ir::Value& v = g.value(out);
    const std::optional<int64_t> size = ir::checkedProduct(
        v.shape, options.maxOutputBytes / static_cast<int64_t>(dtypeSizeBytes(v.dtype)));
    if (!size) {
      return false;
    }
    bytes += *size * static_cast<int64_t>(dtypeSizeBytes(v.dtype));
  }
  return bytes <= options.maxOutputBytes && macsOf(g, id, options.maxMacs).has_value();
}

/// Per-axis scales through an op that only reshapes: the axis survives when some output
/// dimension has its size and the same number of elements before it. Otherwise the model's own
/// codes cannot be kept, and the fold refuses rather than let the quantizer derive other scales
/// silently.
std::optional<ir::QdqParams> reshapedQdq(const ir::Graph& g, ir::NodeId id,
                                         const ir::QdqParams& from) {
  const ir::Node& n = g.node(id);
  if (from.axis < 0)
    return from;
  if (from.scales.size() == 1) { // one channel: its scale is per tensor
    ir::QdqParams whole = from;
    whole.axis = -1;
    return whole;
  }
  const Dims& in = g.value(n.inputs[0]).shape;
  const Dims& out = g.value(n.outputs[0]).shape;
  const auto axis = static_cast<size_t>(from.axis);
  NNACCEL_ASSERT(axis < in.size())
      << "per-axis scales on axis " << from.axis << " of " << dimsToString(in);
  int64_t before = 1;
  for (size_t d = 0; d < axis; ++d)
    before *= in[d];
  int64_t outBefore = 1;
  for (size_t d = 0; d < out.size(); ++d) {
    if (outBefore == before && out[d] == in[axis]) {
      ir::QdqParams moved = from;
      moved.axis = static_cast<int64_t>(d);
      return moved;
    }
    outBefore *= out[d];
  }
  g.fail(id,
         "reshapes per-axis quantized weights " + dimsToString(in) + " (axis " +
             std::to_string(from.axis) + ") to " + dimsToString(out) +
             ", which splits or merges the quantization axis: the model's own int8 codes and "
             "scales cannot be kept (quantize the weights in their final shape)",
         ErrorKind::Unsupported);
}

/// The scales a QDQ model's weights keep through folded node \p id (docs/Quantization.md "QDQ
/// models"): a DequantizeLinear's own; through an op that only moves the values, its input's,
/// with a per-axis axis followed through a Transpose's permutation or a reshape that keeps it
/// (reshapedQdq). Anything else leaves none, and the quantizer derives its own.
std::optional<ir::QdqParams> carriedQdq(const ir::Graph& g, ir::NodeId id) {
  const ir::Node& n = g.node(id);
  if (n.op == ir::OpKind::DequantizeLinear)
    return ir::qdqParams(g, id);
  if (n.inputs.empty() || n.inputs[0] == ir::kNoValue)
    return std::nullopt;
  const std::optional<ir::QdqParams>& from = g.value(n.inputs[0]).dequantizedFrom;
  if (!from)
    return std::nullopt;
  switch (n.op) {
  case ir::OpKind::Identity:
    return from;
  case ir::OpKind::Transpose: {
    if (from->axis < 0)
      return from;
    const std::vector<int64_t> perm = ir::transposePerm(g, id);
    ir::QdqParams moved = *from;
    moved.axis = std::find(perm.begin(), perm.end(), from->axis) - perm.begin();
    return moved;
  }
  case ir::OpKind::Reshape:
  case ir::OpKind::Flatten:
  case ir::OpKind::Squeeze:
  case ir::OpKind::Unsqueeze:
    return reshapedQdq(g, id, *from);
  default:
    return std::nullopt;
  }
}

} // namespace

std::size_t foldConstants(ir::Graph& g, const FoldOptions& options) {
  const NodeEvaluator evaluate =
      options.evaluate ? options.evaluate : NodeEvaluator(reference::evalNode);
  std::vector<ir::NodeId> folded;
  for (ir::NodeId id = 0; id < static_cast<ir::NodeId>(g.numNodes()); ++id) {
    const ir::Node& n = g.node(id);
    if (!allOutputsConstant(g, n)) {
      const std::optional<std::vector<const Tensor*>> args = constantArgs(g, n);
      if (!args || !withinBudget(g, id, options)) {
        continue; // not constant, or left to the executor (evaluated at run time)
      }
      std::vector<Tensor> results;
      try {
        results = evaluate(g, id, *args);
      } catch (const Error& e) {
        if (e.kind() == ErrorKind::Unsupported) {
          continue; // left for an engine that may support it; never folded to something else
        }
        throw;
      } catch (const std::bad_alloc&) {
        g.fail(id, "out of memory while folding this all-constant node at compile time",
               ErrorKind::Unsupported);
      }
      NNACCEL_ASSERT(results.size() >= n.outputs.size())
          << "evalNode returned " << results.size() << " outputs for node '" << n.name << "'";
      for (size_t k = 0; k < n.outputs.size(); ++k) {
        const ir::ValueId out = n.outputs[k];
        if (out == ir::kNoValue) {
          continue;
        }
        ir::Value& v = g.value(out);
        NNACCEL_ASSERT(results[k].dtype() == v.dtype && results[k].shape() == v.shape)
            << "folding node '" << n.name << "' gave " << dtypeName(results[k].dtype()) << " "
            << dimsToString(results[k].shape()) << " for '" << v.name << "', inferred "
            << dtypeName(v.dtype) << " " << dimsToString(v.shape);
        v.constant = std::make_shared<const Tensor>(std::move(results[k]));
        if (k == 0) // a QDQ model's weights keep their scales
          v.dequantizedFrom = carriedQdq(g, id);
      }
    }
    folded.push_back(id);
  }
  g.removeNodes(folded);
  return folded.size();
}

} // namespace nnaccel::passes
