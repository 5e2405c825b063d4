/// \file
/// The enumeration of IR operators, generated from Ops.def, with name lookup.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

namespace nnaccel::ir {

enum class OpKind {
#define NNACCEL_OP(Enum, OnnxName) Enum,
#include "nnaccel/ir/Ops.def"
};

/// The ONNX op_type spelling of \p kind.
std::string_view opName(OpKind kind);
/// Parses an ONNX op_type (default domain); nullopt if nnaccel does not implement it.
std::optional<OpKind> opFromName(std::string_view onnxName);
/// All ops, in Ops.def order.
const std::vector<OpKind>& allOps();

/// Element-wise unary activation (Relu, LeakyRelu, Clip, Sigmoid, ...; not PRelu, which has a
/// slope tensor): exactly the ops of NNACCEL_UNARY_ACTIVATION_CASES.
bool isUnaryActivation(OpKind kind);
/// Add/Sub/Mul/Div, and Min/Max of two inputs (ONNX's are variadic; nnaccel takes two).
bool isBinaryElementwise(OpKind kind);
/// True for Equal, Greater, Less, GreaterOrEqual, LessOrEqual (bool-valued comparisons).
bool isComparison(OpKind kind);
/// True for Not, And, Or, Xor (ops on bool tensors).
bool isLogical(OpKind kind);
/// Reshape, Flatten, Squeeze, Unsqueeze, Identity, Dropout: the output is the input's elements
/// in the same row-major order (an engine can alias the value instead of moving data).
bool isRowMajorView(OpKind kind);

} // namespace nnaccel::ir

/// The case labels of the unary activations, the single list behind isUnaryActivation, for
/// switches over OpKind that stay exhaustive under -Wswitch. Write the final colon yourself:
///   switch (op) { NNACCEL_UNARY_ACTIVATION_CASES: return ...; case OpKind::Conv: ... }
/// The case labels of every Reduce* op (ReduceMean, ReduceSum, ReduceMax, ReduceMin,
/// ReduceProd, ReduceL1, ReduceL2, ReduceSumSquare, ReduceLogSum, ReduceLogSumExp), for switches
/// that treat the family alike, as NNACCEL_UNARY_ACTIVATION_CASES below.
#define NNACCEL_REDUCE_CASES                                                                       \
  case ::nnaccel::ir::OpKind::ReduceMean:                                                          \
  case ::nnaccel::ir::OpKind::ReduceSum:                                                           \
  case ::nnaccel::ir::OpKind::ReduceMax:                                                           \
  case ::nnaccel::ir::OpKind::ReduceMin:                                                           \
  case ::nnaccel::ir::OpKind::ReduceProd:                                                          \
  case ::nnaccel::ir::OpKind::ReduceL1:                                                            \
  case ::nnaccel::ir::OpKind::ReduceL2:                                                            \
  case ::nnaccel::ir::OpKind::ReduceSumSquare:                                                     \
  case ::nnaccel::ir::OpKind::ReduceLogSum:                                                        \
  case ::nnaccel::ir::OpKind::ReduceLogSumExp

#define NNACCEL_UNARY_ACTIVATION_CASES                                                             \
  case ::nnaccel::ir::OpKind::Relu:                                                                \
  case ::nnaccel::ir::OpKind::LeakyRelu:                                                           \
  case ::nnaccel::ir::OpKind::Clip:                                                                \
  case ::nnaccel::ir::OpKind::Sigmoid:                                                             \
  case ::nnaccel::ir::OpKind::HardSigmoid:                                                         \
  case ::nnaccel::ir::OpKind::HardSwish:                                                           \
  case ::nnaccel::ir::OpKind::Tanh:                                                                \
  case ::nnaccel::ir::OpKind::Elu:                                                                 \
  case ::nnaccel::ir::OpKind::Selu:                                                                \
  case ::nnaccel::ir::OpKind::Softplus:                                                            \
  case ::nnaccel::ir::OpKind::Exp:                                                                 \
  case ::nnaccel::ir::OpKind::Erf:                                                                 \
  case ::nnaccel::ir::OpKind::Gelu:                                                                \
  case ::nnaccel::ir::OpKind::Swish:                                                               \
  case ::nnaccel::ir::OpKind::Mish:                                                                \
  case ::nnaccel::ir::OpKind::Softsign:                                                            \
  case ::nnaccel::ir::OpKind::Sqrt:                                                                \
  case ::nnaccel::ir::OpKind::Reciprocal:                                                          \
  case ::nnaccel::ir::OpKind::Log:                                                                 \
  case ::nnaccel::ir::OpKind::Neg:                                                                 \
  case ::nnaccel::ir::OpKind::Abs:                                                                 \
  case ::nnaccel::ir::OpKind::Floor:                                                               \
  case ::nnaccel::ir::OpKind::Round:                                                               \
  case ::nnaccel::ir::OpKind::Ceil
