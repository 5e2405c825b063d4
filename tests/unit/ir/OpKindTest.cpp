// Tests for the op enumeration (src/ir/OpKind.cpp): ONNX names both ways for every op of
// Ops.def, rejection of unknown spellings, and the activation / binary classifications.
#include "nnaccel/ir/OpKind.h"

#include <gtest/gtest.h>
#include <set>
#include <string>

using namespace nnaccel::ir;

TEST(OpKind, NamesRoundTripForEveryOp) {
  const std::vector<OpKind>& ops = allOps();
  EXPECT_EQ(ops.size(), 97u); // the rows of Ops.def
  std::set<std::string_view> names;
  for (size_t i = 0; i < ops.size(); ++i) {
    EXPECT_EQ(static_cast<size_t>(ops[i]), i); // Ops.def order
    const std::string_view name = opName(ops[i]);
    EXPECT_TRUE(names.insert(name).second) << name << " listed twice";
    EXPECT_EQ(opFromName(name), ops[i]) << name;
  }
  EXPECT_EQ(opName(OpKind::Conv), "Conv");
  EXPECT_EQ(opName(OpKind::ConstantOfShape), "ConstantOfShape");
  EXPECT_EQ(ops.front(), OpKind::Conv);
  EXPECT_EQ(ops.back(), OpKind::ConstantOfShape);
}

TEST(OpKind, UnknownSpellingsAreNotOps) {
  EXPECT_EQ(opFromName("LSTM"), std::nullopt);
  EXPECT_EQ(opFromName("conv"), std::nullopt); // ONNX op types are case sensitive
  EXPECT_EQ(opFromName(""), std::nullopt);
  EXPECT_EQ(opFromName("Conv "), std::nullopt);
}

TEST(OpKind, Classifications) {
  const std::set<OpKind> activations = {
      OpKind::Relu,      OpKind::LeakyRelu, OpKind::Clip, OpKind::Sigmoid, OpKind::HardSigmoid,
      OpKind::HardSwish, OpKind::Tanh,      OpKind::Elu,  OpKind::Selu,    OpKind::Softplus,
      OpKind::Exp,       OpKind::Erf,       OpKind::Gelu, OpKind::Sqrt,    OpKind::Reciprocal,
      OpKind::Log,       OpKind::Neg,       OpKind::Abs,  OpKind::Floor,   OpKind::Ceil,
      OpKind::Round,     OpKind::Swish,     OpKind::Mish, OpKind::Softsign};
  const std::set<OpKind> binary = {OpKind::Add, OpKind::Sub, OpKind::Mul,
                                   OpKind::Div, OpKind::Min, OpKind::Max};
  for (OpKind op : allOps()) {
    EXPECT_EQ(isUnaryActivation(op), activations.count(op) == 1) << opName(op);
    EXPECT_EQ(isBinaryElementwise(op), binary.count(op) == 1) << opName(op);
    // The case-label macro lists exactly the activations.
    bool inMacro = false;
    switch (op) {
    NNACCEL_UNARY_ACTIVATION_CASES:
      inMacro = true;
      break;
    default:
      break;
    }
    EXPECT_EQ(inMacro, isUnaryActivation(op)) << opName(op);
  }
  EXPECT_FALSE(isUnaryActivation(OpKind::PRelu)); // has a slope tensor
  EXPECT_FALSE(isUnaryActivation(OpKind::Softmax));
}
