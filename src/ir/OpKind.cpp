// Name tables for OpKind, generated from Ops.def.
#include "nnaccel/ir/OpKind.h"

#include <array>

namespace nnaccel::ir {

namespace {
constexpr std::array kNames = {
#define NNACCEL_OP(Enum, OnnxName) std::string_view(OnnxName),
#include "nnaccel/ir/Ops.def"
};
} // namespace

std::string_view opName(OpKind kind) {
  return kNames.at(static_cast<size_t>(kind));
}

std::optional<OpKind> opFromName(std::string_view onnxName) {
  for (size_t i = 0; i < kNames.size(); ++i) {
    if (kNames[i] == onnxName) {
      return static_cast<OpKind>(i);
    }
  }
  return std::nullopt;
}

const std::vector<OpKind>& allOps() {
  static const std::vector<OpKind> ops = [] {
    std::vector<OpKind> v;
    for (size_t i = 0; i < kNames.size(); ++i) {
      v.push_back(static_cast<OpKind>(i));
    }
    return v;
  }();
  return ops;
}

bool isUnaryActivation(OpKind kind) {
  switch (kind) {
  NNACCEL_UNARY_ACTIVATION_CASES:
    return true;
  default:
    return false;
  }
}

bool isBinaryElementwise(OpKind kind) {
  return kind == OpKind::Add || kind == OpKind::Sub || kind == OpKind::Mul || kind == OpKind::Div ||
         kind == OpKind::Min || kind == OpKind::Max;
}

bool isComparison(OpKind kind) {
  return kind == OpKind::Equal || kind == OpKind::Greater || kind == OpKind::Less ||
         kind == OpKind::GreaterOrEqual || kind == OpKind::LessOrEqual;
}

bool isLogical(OpKind kind) {
  return kind == OpKind::Not || kind == OpKind::And || kind == OpKind::Or || kind == OpKind::Xor;
}

bool isRowMajorView(OpKind k) {
  return k == OpKind::Reshape || k == OpKind::Flatten || k == OpKind::Squeeze ||
         k == OpKind::Unsqueeze || k == OpKind::Identity || k == OpKind::Dropout;
}

} // namespace nnaccel::ir
