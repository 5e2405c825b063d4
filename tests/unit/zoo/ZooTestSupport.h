/// \file
/// What the zoo's tests share (ZooTest.cpp, CaffeZooTest.cpp): counting a graph's nodes of one
/// op. One definition, so the unity build of the test program has no twin.
#pragma once

#include "nnaccel/ir/Graph.h"

namespace nnaccel::zoo::test {

/// The nodes of \p g whose op is \p op.
inline int countOps(const ir::Graph& g, ir::OpKind op) {
  int count = 0;
  for (const ir::Node& n : g.nodes())
    count += n.op == op ? 1 : 0;
  return count;
}

} // namespace nnaccel::zoo::test
