/// \file
/// Small graph queries shared by the passes (interface membership, single-use values).
#pragma once

#include "nnaccel/ir/Graph.h"

#include <algorithm>

namespace nnaccel::passes::detail {

inline bool isGraphOutput(const ir::Graph& g, ir::ValueId v) {
  return g.isOutput(v);
}

inline bool isGraphInput(const ir::Graph& g, ir::ValueId v) {
  return std::find(g.inputs.begin(), g.inputs.end(), v) != g.inputs.end();
}

/// True if \p v is read by exactly one node, once, and is not a graph output: the producer may
/// then be rewritten for that single consumer.
inline bool hasSingleUse(const ir::Graph& g, ir::ValueId v) {
  if (isGraphOutput(g, v)) {
    return false;
  }
  const std::vector<ir::NodeId> users = g.users(v);
  if (users.size() != 1) {
    return false;
  }
  const auto& ins = g.node(users[0]).inputs;
  return std::count(ins.begin(), ins.end(), v) == 1;
}

} // namespace nnaccel::passes::detail
