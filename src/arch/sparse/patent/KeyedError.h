/// \file
/// The patent models' errors name the offending argument or field in ErrorContext::key
/// (internal to src/arch/sparse/patent: one definition for every codec).
#pragma once

#include "nnaccel/support/Error.h"

#include <string>
#include <utility>

namespace nnaccel::arch::sparse::patent::detail {

inline Error error(ErrorKind kind, std::string key, std::string reason) {
  ErrorContext context;
  context.key = std::move(key);
  return Error(kind, std::move(context), std::move(reason));
}

} // namespace nnaccel::arch::sparse::patent::detail
