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

TEST(Graph, ErrorContextShowsTheOpsetTheFileDeclared) {
  Graph g;
  g.sourcePath = "old.onnx";
  const ValueId x = g.addValue("x", DType::F32, {2});
  const NodeId id = addUnary(g, OpKind::Relu, x, "r");
  g.node(id).opset = 7;
  EXPECT_EQ(g.contextOf(id).opset, 7);
  g.sourceOpset = 6; // an opset-6 file upgraded to opset-7 semantics
  EXPECT_EQ(g.contextOf(id).opset, 6);
  try {
    g.fail(id, "boom");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "old.onnx: node 'r_node' (Relu, opset 6): boom");
    EXPECT_EQ(e.kind(), ErrorKind::Model);
  }
}

TEST(Graph, ReplacingAGraphOutputMovesItsDeclaredType) {
  Graph g;
  const ValueId x = g.addValue("x", DType::F32, {2});
  const NodeId id = addUnary(g, OpKind::Identity, x, "y");
  const ValueId y = g.node(id).outputs[0];
  g.value(y).declaredShape = Dims{-1};
  g.value(y).declaredDType = DType::F32;
  g.outputs = {y};
  const ValueId z = g.addValue("z", DType::F32);
  g.replaceAllUses(y, z);
  EXPECT_EQ(g.outputs, (std::vector<ValueId>{z}));
  EXPECT_EQ(g.value(z).declaredShape, (Dims{-1}));
  EXPECT_EQ(g.value(z).declaredDType, DType::F32);
  // A value that is not a graph output keeps no declaration; an existing one is not replaced.
  const ValueId w = g.addValue("w", DType::F32);
  g.value(w).declaredShape = Dims{5};
  g.outputs = {z};
  g.replaceAllUses(z, w);
  EXPECT_EQ(g.value(w).declaredShape, (Dims{5}));
  g.replaceAllUses(x, w); // x is no graph output: nothing to move
  EXPECT_FALSE(g.value(x).declaredShape);
}
