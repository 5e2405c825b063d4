/// \file
/// Agreement metrics between fp32 reference outputs and dequantized int8 outputs, printed by
/// `nnaccel run --dtype int8` and checked by the quantization tests.
///
/// One pair of tensors (measureAgreement), several pairs accumulated (AgreementAccumulator: the
/// same metrics over a set of evaluation inputs), or a whole quantized model run in fp32 and
/// int8 on a list of input sets (measureModelAgreement).
#pragma once

#include "nnaccel/quant/QuantizedModel.h"
#include "nnaccel/tensor/Tensor.h"

#include <optional>
#include <vector>

namespace nnaccel::quant {

struct Agreement {
  int64_t samples = 0;       ///< (reference, test) pairs compared
  int64_t count = 0;         ///< elements compared, over all pairs
  double maxAbsError = 0.0;  ///< max |ref - test| over all pairs
  double meanAbsError = 0.0; ///< mean |ref - test| over all elements of all pairs
  /// dot(ref, test) / (|ref| |test|) with every pair's elements taken as one vector; 1 when
  /// both are all zero, 0 when exactly one is.
  double cosineSimilarity = 1.0;
  /// The smallest cosine similarity of a single pair (equal to cosineSimilarity for one pair).
  double minCosineSimilarity = 1.0;
  /// |ref - test|_2 / |ref|_2 with every pair's elements taken as one vector (0 when both are
  /// all zero, infinity when only the reference is).
  double relativeError = 0.0;
  /// max |ref| over all pairs: near 0 (below kNearZeroOutput), cosine and relative error say
  /// little (the fp32 output is numerically all zero).
  double referenceMaxAbs = 0.0;
  /// Classifier outputs only (isClassifierOutput): fraction of batch rows, over all pairs,
  /// whose argmax over the class axis (axis 1; first maximum on ties) is the same in both.
  std::optional<double> top1Agreement;
  int64_t top1Rows = 0;    ///< batch rows compared for top-1
  int64_t top1Matches = 0; ///< rows whose top-1 class agrees
};

/// Below this max |fp32 output|, an output is "near zero everywhere" for the agreement's readers.
inline constexpr double kNearZeroOutput = 1e-6;

/// True for [N, C] and [N, C, 1, 1] shapes with C >= 2 (e.g. [N, 1000] or [N, 1000, 1, 1]); a
/// rank-3 [N, A, 1] (a detector's per-anchor scores) is not a classifier output.
bool isClassifierOutput(const Dims& shape);

/// Index of the first maximum along axis 1 for every batch row of a classifier output.
std::vector<int64_t> argmaxPerRow(const Tensor& x);

/// Accumulates the metrics of several (reference, test) pairs; accumulation is in double.
class AgreementAccumulator {
public:
  /// Adds one pair; throws nnaccel::Error (Usage) when the dtypes are not f32 or the shapes
  /// differ. Top-1 is reported only when every pair added is classifier-shaped.
  void add(const Tensor& reference, const Tensor& test);
  /// The metrics of every pair added so far (the defaults when none was added).
  Agreement result() const;

private:
  Agreement partial_; ///< samples, count, maxAbsError, minCosineSimilarity, top-1 counts
  double sumAbs_ = 0.0, dot_ = 0.0, normRef_ = 0.0, normTest_ = 0.0, sumSquaredError_ = 0.0;
  bool allClassifier_ = true;
};

/// The metrics of one pair (an AgreementAccumulator with one pair added).
Agreement measureAgreement(const Tensor& reference, const Tensor& test);

/// Runs \p model's graph on every set of \p inputSets (Graph::inputs order) in fp32
/// (reference::Executor) and in int8 (Int8Executor) and returns, per graph output, the agreement
/// of the dequantized int8 output with the fp32 one over all sets; std::nullopt for an output
/// that is not f32. Deterministic.
std::vector<std::optional<Agreement>>
measureModelAgreement(const QuantizedModel& model,
                      const std::vector<std::vector<Tensor>>& inputSets);

} // namespace nnaccel::quant
