/// \file
/// Agreement metrics between an fp32 reference output and a dequantized int8 output, printed by
/// `nnaccel run --dtype int8` and checked by the quantization tests.
#pragma once

#include "nnaccel/tensor/Tensor.h"

#include <optional>

namespace nnaccel::quant {

struct Agreement {
  int64_t count = 0;         ///< elements compared
  double maxAbsError = 0.0;  ///< max |ref - test|
  double meanAbsError = 0.0; ///< mean |ref - test|
  /// dot(ref, test) / (|ref| |test|); 1 when both are all zero, 0 when exactly one is.
  double cosineSimilarity = 1.0;
  /// Classifier outputs only (isClassifierOutput): fraction of batch rows whose argmax over
  /// the class axis (axis 1; first maximum on ties) is the same in both tensors.
  std::optional<double> top1Agreement;
};

/// True for [N, C, 1, ...] shapes with C >= 2 (e.g. [N, 1000] or [N, 1000, 1, 1]).
bool isClassifierOutput(const Dims& shape);

/// Index of the first maximum along axis 1 for every batch row of a classifier output.
std::vector<int64_t> argmaxPerRow(const Tensor& x);

/// Compares two f32 tensors of the same shape; throws nnaccel::Error (Usage) when dtypes or
/// shapes differ. Accumulation is in double.
Agreement measureAgreement(const Tensor& reference, const Tensor& test);

} // namespace nnaccel::quant
