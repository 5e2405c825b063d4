/// \file
/// Layer-output verification shared by every engine's session: an engine's tensor against the
/// reference executor's, bit for bit (integer paths) or within a relative tolerance (fp32),
/// with the first mismatching element named by its coordinates.
#pragma once

#include "nnaccel/tensor/Tensor.h"

#include <cstdint>
#include <optional>
#include <string>

namespace nnaccel::arch::common {

/// "[0,3,1,2]": the coordinates of flat index \p flat in \p shape (row-major).
std::string coordsOf(const Dims& shape, int64_t flat);

/// Compares one layer output; returns a description of the first mismatch, if any, and adds
/// the number of compared elements to \p compared. Integer tensors and \p exactBits compare
/// bits; fp32 passes when max|got - ref| <= relativeTolerance * max(max|ref|, 1e-30).
std::optional<std::string> compareTensor(const Tensor& got, const Tensor& ref, bool exactBits,
                                         double relativeTolerance, int64_t& compared);

} // namespace nnaccel::arch::common
