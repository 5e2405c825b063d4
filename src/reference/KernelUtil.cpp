// Shared dtype checks and Unsupported errors of the reference kernels.
#include "KernelUtil.h"

namespace nnaccel::reference {

void unsupported(const std::string& reason) {
  throw Error(ErrorKind::Unsupported, {}, reason);
}

void requireDType(const Tensor& t, DType want, std::string_view what) {
  if (t.dtype() != want) {
    unsupported(std::string(what) + " on " + std::string(dtypeName(t.dtype())) +
                " input is not supported (expected " + std::string(dtypeName(want)) + ")");
  }
}

} // namespace nnaccel::reference
