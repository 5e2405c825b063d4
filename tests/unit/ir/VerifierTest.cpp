// Tests for the graph verifier: a valid graph passes, and each structural or type violation is
// reported with its message (arity per opset, order, producers, shapes, outputs, fusion marks).
#include "nnaccel/ir/Verifier.h"

#include "GraphBuilder.h"
#include "nnaccel/ir/ShapeInference.h"

#include <gtest/gtest.h>

using namespace nnaccel;
using namespace nnaccel::ir;
using namespace nnaccel::ir::test;

namespace {
/// x -> conv -> relu -> (graph output), inferred.
struct ConvRelu {
  GraphBuilder b{13};
  ValueId x, conv, relu;
  ConvRelu() {
    x = b.input("x", {1, 2, 4, 4});
    conv =
        b.op(OpKind::Conv, "conv", {x, b.floats("w", {3, 2, 1, 1}, std::vector<float>(6, 1.0f))});
    relu = b.op(OpKind::Relu, "relu", {conv});
    b.g.outputs = {relu};
    inferShapes(b.g);
  }
  std::string error() const {
    return errorOf([&] { verify(b.g); });
  }
};
} // namespace

TEST(Verifier, AcceptsAnInferredGraphWithFoldedConstantsAndEmptyParameters) {
  ConvRelu c;
  EXPECT_EQ(c.error(), "<no error>");
  // A node whose output shape inference folded to a constant stays valid, and empty constants
  // (ONNX's "absent" parameters such as Resize roi) are allowed.
  GraphBuilder b(13);
  const ValueId x = b.input("x", {1, 1, 2, 2});
  const ValueId shape = b.op(OpKind::Shape, "shape", {x});
  const ValueId y =
      b.op(OpKind::Resize, "up", {x, b.floats("roi", {}), b.floats("scales", {1, 1, 2, 2})});
  b.g.outputs = {y, shape};
  inferShapes(b.g);
  EXPECT_TRUE(b.g.value(shape).constant);
  EXPECT_EQ(errorOf([&] { verify(b.g); }), "<no error>");
}

TEST(Verifier, ArityByOpAndOpset) {
  const auto check = [](const std::function<void(GraphBuilder&)>& build, const std::string& msg) {
    GraphBuilder b(13);
    build(b);
    b.g.outputs = {static_cast<ValueId>(b.g.numValues() - 1)};
    for (size_t v = 0; v < b.g.numValues(); ++v) {
      b.g.value(static_cast<ValueId>(v)).shapeKnown = true;
      if (b.g.value(static_cast<ValueId>(v)).shape.empty()) {
        b.g.value(static_cast<ValueId>(v)).shape = {4};
      }
    }
    EXPECT_EQ(errorOf([&] { verify(b.g); }), msg);
  };
  check(
      [](GraphBuilder& b) {
        b.op(OpKind::Relu, "relu", {b.input("a", {4}), b.input("b", {4})});
      },
      "model.onnx: node 'relu' (Relu, opset 13): has 2 inputs, expected 1");
  check([](GraphBuilder& b) { b.op(OpKind::Conv, "conv", {b.input("a", {4})}); },
        "model.onnx: node 'conv' (Conv, opset 13): has 1 inputs, expected 2 to 3");
  check([](GraphBuilder& b) { b.op(OpKind::Concat, "cat", {}); },
        "model.onnx: node 'cat' (Concat, opset 13): has 0 inputs, expected at least 1");
  check(
      [](GraphBuilder& b) {
        b.op(OpKind::Gemm, "fc", {b.input("a", {4}), b.input("b", {4})}, {}, 9);
      },
      "model.onnx: node 'fc' (Gemm, opset 9): has 2 inputs, expected 3");
  check(
      [](GraphBuilder& b) {
        b.op(OpKind::Unsqueeze, "u", {b.input("a", {4}), b.ints("axes", {0})}, {}, 11);
      },
      "model.onnx: node 'u' (Unsqueeze, opset 11): has 2 inputs, expected 1");
  check(
      [](GraphBuilder& b) {
        b.op(OpKind::Conv, "conv", {b.input("a", {4}), kNoValue});
      },
      "model.onnx: node 'conv' (Conv, opset 13): required input 1 is missing");
  check(
      [](GraphBuilder& b) {
        b.node(OpKind::Relu, "relu", {b.input("a", {4})}, {"y", "z"});
      },
      "model.onnx: node 'relu' (Relu, opset 13): has 2 outputs, expected 1");
  check(
      [](GraphBuilder& b) {
        b.node(OpKind::Dropout, "drop", {b.input("a", {4})}, {"", "mask"});
      },
      "model.onnx: node 'drop' (Dropout, opset 13): required output 0 is missing");
}

TEST(Verifier, OrderProducersAndOutputs) {
  {
    ConvRelu c;
    // Swap the two nodes without re-sorting: relu now reads a value produced later.
    std::swap(c.b.g.node(0), c.b.g.node(1));
    c.b.g.removeNodes({}); // re-derives Value::producer for the new order
    EXPECT_EQ(c.error(), "model.onnx: node 'relu' (Relu, opset 13): input 'conv' is produced by a "
                         "later node (not in topological order)");
  }
  {
    ConvRelu c;
    const ValueId ghost = c.b.g.addValue("ghost", DType::F32, {1, 3, 4, 4});
    c.b.g.node(1).inputs[0] = ghost;
    EXPECT_EQ(c.error(), "model.onnx: node 'relu' (Relu, opset 13): input 'ghost' has no producer");
  }
  {
    ConvRelu c;
    Node dup = c.b.g.node(1);
    dup.name = "relu2";
    c.b.g.addNode(dup);
    EXPECT_EQ(c.error(), "model.onnx: node 'relu2' (Relu, opset 13): value 'relu' is also produced "
                         "by node 'relu'");
  }
  {
    ConvRelu c;
    c.b.g.value(c.relu).producer = 0;
    EXPECT_EQ(c.error(), "model.onnx: node 'relu' (Relu, opset 13): value 'relu' does not record "
                         "this node as its producer");
  }
  {
    ConvRelu c;
    c.b.g.outputs = {c.b.g.addValue("z", DType::F32, {1})};
    EXPECT_EQ(c.error(), "model.onnx: graph output 'z' is not produced");
  }
  {
    ConvRelu c;
    c.b.g.outputs.clear();
    EXPECT_EQ(c.error(), "model.onnx: graph has no outputs");
  }
  {
    ConvRelu c;
    c.b.g.inputs.push_back(*c.b.g.findValue("w"));
    EXPECT_EQ(c.error(), "model.onnx: graph input 'w' is also a constant");
  }
}

TEST(Verifier, ShapesMustBeKnownAndPositive) {
  {
    ConvRelu c;
    c.b.g.value(c.conv).shapeKnown = false;
    EXPECT_EQ(c.error(),
              "model.onnx: node 'conv' (Conv, opset 13): value 'conv' has no inferred shape");
  }
  {
    ConvRelu c;
    c.b.g.value(c.relu).shape = {1, 0, 4, 4};
    EXPECT_EQ(c.error(),
              "model.onnx: node 'relu' (Relu, opset 13): value 'relu' has shape 1x0x4x4; "
              "dimensions must be positive");
  }
  {
    ConvRelu c;
    c.b.g.value(*c.b.g.findValue("w")).shape = {3, 2};
    EXPECT_EQ(c.error(), "model.onnx: node 'conv' (Conv, opset 13): constant 'w' holds 3x2x1x1 f32 "
                         "but is declared 3x2 f32");
  }
}

TEST(Verifier, FusedActivationMarks) {
  {
    ConvRelu c;
    c.b.g.node(0).fusedActivation = FusedActivation{1, OpKind::Relu};
    EXPECT_EQ(c.error(), "<no error>");
  }
  {
    ConvRelu c;
    c.b.g.node(0).fusedActivation = FusedActivation{1, OpKind::Tanh};
    EXPECT_EQ(c.error(), "model.onnx: node 'conv' (Conv, opset 13): fused activation mark does not "
                         "match node 'relu', which must be a Tanh reading this node's output");
  }
  {
    ConvRelu c;
    c.b.g.node(0).fusedActivation = FusedActivation{7, OpKind::Relu};
    EXPECT_EQ(c.error(),
              "model.onnx: node 'conv' (Conv, opset 13): fused activation points at node "
              "7, which does not exist");
  }
  {
    ConvRelu c;
    c.b.g.node(0).fusedActivation = FusedActivation{1, OpKind::Relu};
    c.b.g.outputs.push_back(c.conv);
    EXPECT_EQ(c.error(), "model.onnx: node 'conv' (Conv, opset 13): fused activation requires the "
                         "output 'conv' to have no other use");
  }
  {
    ConvRelu c;
    c.b.g.node(1).fusedActivation = FusedActivation{0, OpKind::Relu};
    EXPECT_EQ(c.error(), "model.onnx: node 'relu' (Relu, opset 13): fused activation marked on an "
                         "op that cannot carry one");
  }
}

TEST(Verifier, IdsOutOfRangeAndInterfaceClashes) {
  {
    ConvRelu c;
    c.b.g.inputs.push_back(99);
    EXPECT_EQ(c.error(), "model.onnx: graph input id 99 is out of range");
  }
  {
    ConvRelu c;
    c.b.g.outputs = {-5};
    EXPECT_EQ(c.error(), "model.onnx: graph output id -5 is out of range");
  }
  {
    ConvRelu c;
    c.b.g.node(1).inputs[0] = 1234;
    EXPECT_EQ(c.error(), "model.onnx: node 'relu' (Relu, opset 13): input id 1234 is out of range");
  }
  {
    ConvRelu c;
    c.b.g.node(1).outputs.push_back(77);
    EXPECT_EQ(c.error(), "model.onnx: node 'relu' (Relu, opset 13): output id 77 is out of range");
  }
  {
    // A node writing a graph input: the value would have two producers.
    ConvRelu c;
    c.b.g.node(1).outputs[0] = c.x;
    EXPECT_EQ(c.error(),
              "model.onnx: node 'relu' (Relu, opset 13): value 'x' is also a graph input");
  }
  {
    // Graph-level shape checks name the file only.
    ConvRelu c;
    c.b.g.value(c.x).shape = {1, 2, 0, 4};
    EXPECT_EQ(c.error(), "model.onnx: value 'x' has shape 1x2x0x4; dimensions must be positive");
  }
  {
    ConvRelu c;
    c.b.g.value(c.x).shapeKnown = false;
    EXPECT_EQ(c.error(), "model.onnx: value 'x' has no inferred shape");
  }
}
