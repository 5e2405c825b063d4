/// \file
/// Structural and type checks of a Graph (Glow's Function::verify).
///
/// verify() checks: value ids in range; each value produced once; nodes in topological order;
/// input/output arity per op; dtypes and shapes known and positive after inference; graph
/// outputs produced; fused-activation marks point at a real activation consuming the node's
/// output. It throws nnaccel::Error (Model) naming the first offending node.
#pragma once

#include "nnaccel/ir/Graph.h"

namespace nnaccel::ir {

void verify(const Graph& g);

} // namespace nnaccel::ir
