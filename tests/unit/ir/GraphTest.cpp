// Tests for Graph structure edits: topological sort, dead-node removal, use replacement.
#include "nnaccel/ir/Graph.h"

#include <gtest/gtest.h>

using namespace nnaccel;
using namespace nnaccel::ir;

namespace {
NodeId addUnary(Graph& g, OpKind op, ValueId in, const std::string& out) {
  Node n;
  n.op = op;
  n.name = out + "_node";
  n.inputs = {in};
  n.outputs = {g.addValue(out, DType::F32)};
  return g.addNode(std::move(n));
}
} // namespace

TEST(Graph, TopoSortRestoresOrderAndDetectsCycles) {
  Graph g;
  ValueId x = g.addValue("x", DType::F32, {1, 4});
  g.inputs = {x};
  // Build b (consumes a) before a.
  ValueId a = g.addValue("a", DType::F32);
  Node nb;
  nb.op = OpKind::Relu;
  nb.name = "b_node";
  nb.inputs = {a};
  nb.outputs = {g.addValue("b", DType::F32)};
  g.addNode(nb);
  Node na;
  na.op = OpKind::Sigmoid;
  na.name = "a_node";
  na.inputs = {x};
  na.outputs = {a};
  g.addNode(na);
  g.outputs = {*g.findValue("b")};
  g.topoSort();
  EXPECT_EQ(g.node(0).name, "a_node");
  EXPECT_EQ(g.node(1).name, "b_node");

  // Close a cycle: a_node now reads b.
  g.node(0).inputs = {*g.findValue("b")};
  EXPECT_THROW(g.topoSort(), Error);
}

TEST(Graph, RemoveDeadNodesAndReplaceUses) {
  Graph g;
  ValueId x = g.addValue("x", DType::F32, {2});
  g.inputs = {x};
  addUnary(g, OpKind::Relu, x, "r");
  addUnary(g, OpKind::Tanh, x, "unused");
  NodeId id = addUnary(g, OpKind::Identity, *g.findValue("r"), "y");
  g.outputs = {g.node(id).outputs[0]};
  g.removeDeadNodes();
  EXPECT_EQ(g.numNodes(), 2u);
  g.replaceAllUses(*g.findValue("r"), x);
  EXPECT_EQ(g.node(1).inputs[0], x);
  EXPECT_EQ(g.users(x).size(), 2u);
  EXPECT_EQ(g.uniqueName("x"), "x_1");
  EXPECT_EQ(opFromName("Conv"), OpKind::Conv);
  EXPECT_FALSE(opFromName("LSTM"));
}
