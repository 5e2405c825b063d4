// Constant folding with the reference executor (see ConstantFolding.h).
#include "nnaccel/passes/ConstantFolding.h"

#include "nnaccel/reference/Executor.h"

#include <algorithm>
#include <memory>

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

} // namespace

std::size_t foldConstants(ir::Graph& g) {
  std::vector<ir::NodeId> folded;
  for (ir::NodeId id = 0; id < static_cast<ir::NodeId>(g.numNodes()); ++id) {
    const ir::Node& n = g.node(id);
    if (!allOutputsConstant(g, n)) {
      const std::optional<std::vector<const Tensor*>> args = constantArgs(g, n);
      if (!args) {
        continue;
      }
      std::vector<Tensor> results;
      try {
        results = reference::evalNode(g, id, *args);
      } catch (const Error& e) {
        if (e.kind() == ErrorKind::Unsupported) {
          continue; // left for an engine that may support it; never folded to something else
        }
        throw;
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
      }
    }
    folded.push_back(id);
  }
  g.removeNodes(folded);
  return folded.size();
}

} // namespace nnaccel::passes
