// Tests for Identity/Dropout/Transpose elimination: uses are rewired, graph output names are
// unchanged, copies that give the interface distinct names stay, only inference-mode Dropout
// goes, and Transposes go when they (or a pair of them) permute nothing.
#include "nnaccel/passes/EliminateIdentity.h"

#include "PassTestUtil.h"

#include <gtest/gtest.h>

using namespace nnaccel;
using namespace nnaccel::ir;
using namespace nnaccel::ir::test;
using namespace nnaccel::passes;
using namespace nnaccel::passes::test;

namespace {
std::vector<std::string> outputNames(const Graph& g) {
  std::vector<std::string> names;
  for (ValueId v : g.outputs) {
    names.push_back(g.value(v).name);
  }
  return names;
}
} // namespace

TEST(EliminateIdentity, RewiresInternalCopiesAndKeepsOutputNames) {
  GraphBuilder b(13);
  const ValueId x = b.input("x", {2, 3});
  const ValueId r = b.op(OpKind::Relu, "relu", {x});
  const ValueId id1 = b.op(OpKind::Identity, "id1", {r});
  const ValueId t = b.op(OpKind::Tanh, "tanh", {id1});
  const ValueId y = b.op(OpKind::Identity, "y", {t});
  b.g.outputs = {y};
  inferShapes(b.g);
  Graph before = b.g;
  const Tensor in = randomTensor({2, 3}, 1);
  const std::vector<Tensor> ref = runGraph(before, {in});

  EXPECT_EQ(eliminateIdentity(b.g), 2u);
  EXPECT_EQ(countOps(b.g, OpKind::Identity), 0u);
  EXPECT_EQ(outputNames(b.g), std::vector<std::string>{"y"});
  EXPECT_EQ(b.g.outputs[0], t);        // tanh's value is now the graph output ...
  EXPECT_EQ(b.g.value(t).name, "y");   // ... under the old output name
  EXPECT_EQ(b.g.node(1).inputs[0], r); // tanh reads relu directly
  EXPECT_EQ(b.g.findValue("y"), t);
  const std::vector<Tensor> got = runGraph(b.g, {in});
  EXPECT_EQ(maxAbsDiff(got[0], ref[0]), 0.0f);
}

TEST(EliminateIdentity, KeepsCopiesThatNameTheInterface) {
  GraphBuilder b(13);
  const ValueId x = b.input("x", {4});
  const ValueId passthrough = b.op(OpKind::Identity, "passthrough", {x});
  const ValueId r = b.op(OpKind::Relu, "relu", {x});
  const ValueId o1 = b.op(OpKind::Identity, "o1", {r});
  const ValueId o2 = b.op(OpKind::Identity, "o2", {r});
  b.g.outputs = {passthrough, o1, o2};
  inferShapes(b.g);
  // passthrough reads a graph input; o1 is removed (relu's value becomes 'o1'); o2 then reads a
  // graph output and must stay so that 'o1' and 'o2' remain distinct outputs.
  EXPECT_EQ(eliminateIdentity(b.g), 1u);
  EXPECT_EQ(outputNames(b.g), (std::vector<std::string>{"passthrough", "o1", "o2"}));
  EXPECT_EQ(b.g.value(r).name, "o1");
  EXPECT_EQ(countOps(b.g, OpKind::Identity), 2u);
  EXPECT_EQ(b.g.value(x).name, "x");
  (void)o1;
  (void)o2;
  verify(b.g);
}

TEST(EliminateIdentity, OnlyInferenceModeDropout) {
  GraphBuilder b(13);
  const ValueId x = b.input("x", {4});
  const ValueId d1 = b.op(OpKind::Dropout, "d1", {x, b.constant("ratio", Tensor::scalar(0.5f))});
  const NodeId unusedMask = b.node(OpKind::Dropout, "d2", {d1}, {"d2", "d2_mask"});
  const ValueId d2 = b.g.node(unusedMask).outputs[0];
  const ValueId d3 =
      b.op(OpKind::Dropout, "d3", {d2, kNoValue, b.constant("off", Tensor::scalar(false))});
  const NodeId usedMask = b.node(OpKind::Dropout, "d4", {d3}, {"d4", "d4_mask"});
  const ValueId y = b.op(OpKind::Relu, "y", {b.g.node(usedMask).outputs[0]});
  b.g.outputs = {y, b.g.node(usedMask).outputs[1]};
  inferShapes(b.g);
  EXPECT_EQ(eliminateIdentity(b.g), 3u);
  EXPECT_EQ(countOps(b.g, OpKind::Dropout), 1u); // d4: its mask is a graph output
  EXPECT_EQ(b.g.node(0).name, "d4");
  EXPECT_EQ(b.g.node(0).inputs[0], x);
  verify(b.g);
}

TEST(EliminateIdentity, TheNewOutputValueKeepsTheDeclaredType) {
  // The file declares y as ?x3 f32; after the Identity is removed, tanh's value is the graph
  // output and carries the declaration, so a later inferShapes still checks it.
  GraphBuilder b(13);
  const ValueId x = b.input("x", {2, 3});
  const ValueId t = b.op(OpKind::Tanh, "tanh", {x});
  const ValueId y = b.op(OpKind::Identity, "y", {t});
  b.g.value(y).declaredShape = Dims{-1, 3};
  b.g.value(y).declaredDType = DType::F32;
  b.g.outputs = {y};
  inferShapes(b.g);
  EXPECT_EQ(eliminateIdentity(b.g), 1u);
  EXPECT_EQ(b.g.outputs[0], t);
  EXPECT_EQ(b.g.value(t).declaredShape, (Dims{-1, 3}));
  EXPECT_EQ(b.g.value(t).declaredDType, DType::F32);
  inferShapes(b.g);
  b.g.value(t).declaredShape = Dims{-1, 4};
  EXPECT_EQ(errorOf([&] { inferShapes(b.g); }),
            "model.onnx: node 'tanh' (Tanh, opset 13): output 'y' is declared ?x4 but infers to "
            "2x3");
}

TEST(EliminateIdentity, TransposePairsThatCancelAndIdentityPermutationsGo) {
  // NCHW -> NHWC -> NCHW around a Relu (a TensorFlow converter's leftover), an identity
  // permutation, and a pair that does not cancel (kept).
  GraphBuilder b(13);
  const ValueId x = b.input("x", {1, 3, 4, 5});
  const ValueId r = b.op(OpKind::Relu, "relu", {x});
  const ValueId nhwc = b.op(OpKind::Transpose, "to_nhwc", {r}, attrs({{"perm", Dims{0, 2, 3, 1}}}));
  const ValueId nchw =
      b.op(OpKind::Transpose, "to_nchw", {nhwc}, attrs({{"perm", Dims{0, 3, 1, 2}}}));
  const ValueId same = b.op(OpKind::Transpose, "same", {nchw}, attrs({{"perm", Dims{0, 1, 2, 3}}}));
  const ValueId t = b.op(OpKind::Tanh, "tanh", {same});
  const ValueId a = b.op(OpKind::Transpose, "a", {t}, attrs({{"perm", Dims{0, 2, 3, 1}}}));
  const ValueId y = b.op(OpKind::Transpose, "y", {a}, attrs({{"perm", Dims{0, 2, 3, 1}}}));
  b.g.outputs = {y};
  inferShapes(b.g);
  Graph before = b.g;
  const Tensor in = randomTensor({1, 3, 4, 5}, 2);
  const std::vector<Tensor> ref = runGraph(before, {in});

  EXPECT_EQ(eliminateIdentity(b.g), 2u); // to_nchw (with to_nhwc) and same
  b.g.removeDeadNodes();
  EXPECT_EQ(countOps(b.g, OpKind::Transpose), 2u); // a and y compose to [0, 3, 1, 2]
  EXPECT_EQ(outputNames(b.g), std::vector<std::string>{"y"});
  const std::vector<Tensor> got = runGraph(b.g, {in});
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0], ref[0]);
}
