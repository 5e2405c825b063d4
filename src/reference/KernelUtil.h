// Small checks shared by all reference kernels: dtype requirements and the Unsupported error
// a kernel raises (without node context; evalNode adds it).
#pragma once

#include "nnaccel/tensor/Tensor.h"

#include <string>
#include <string_view>

namespace nnaccel::reference {

/// Throws Error(Unsupported) with \p reason and no context.
[[noreturn]] void unsupported(const std::string& reason);

/// Throws Error(Unsupported) "<what> on <dtype> input is not supported" unless \p t is \p want.
void requireDType(const Tensor& t, DType want, std::string_view what);

} // namespace nnaccel::reference
