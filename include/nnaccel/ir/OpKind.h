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
/// slope tensor).
bool isUnaryActivation(OpKind kind);
/// Add/Sub/Mul/Div.
bool isBinaryElementwise(OpKind kind);

} // namespace nnaccel::ir
