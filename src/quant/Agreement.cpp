// fp32-versus-int8 agreement metrics: error norms, cosine similarity and top-1 agreement, for
// one pair of tensors, accumulated over several pairs, or over a model's runs on input sets.
#include "nnaccel/quant/Agreement.h"

#include "nnaccel/quant/Int8Executor.h"
#include "nnaccel/reference/Executor.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace nnaccel::quant {

namespace {

/// dot / (|a| |b|) from the sums; 1 when both vectors are zero, 0 when exactly one is.
double cosine(double dot, double normA, double normB) {
  if (normA == 0.0 && normB == 0.0) {
    return 1.0;
  }
  if (normA == 0.0 || normB == 0.0) {
    return 0.0;
  }
  return dot / (std::sqrt(normA) * std::sqrt(normB));
}

} // namespace

bool isClassifierOutput(const Dims& shape) {
  // [N, C] logits, or [N, C, 1, 1] from a 1x1 convolution head. A rank-3 [N, A, 1] is a
  // detector's per-anchor score (BlazeFace), whose argmax is no class.
  const bool matrix = shape.size() == 2;
  const bool pooled = shape.size() == 4 && shape[2] == 1 && shape[3] == 1;
  return (matrix || pooled) && shape[1] >= 2;
}

std::vector<int64_t> argmaxPerRow(const Tensor& x) {
  NNACCEL_ASSERT(isClassifierOutput(x.shape()) && x.dtype() == DType::F32)
      << "argmaxPerRow wants an f32 classifier output, got " << dimsToString(x.shape());
  const int64_t rows = x.dim(0);
  const int64_t classes = x.dim(1);
  const float* data = x.data<float>();
  std::vector<int64_t> best(static_cast<size_t>(rows), 0);
  for (int64_t r = 0; r < rows; ++r) {
    const float* row = data + r * classes;
    for (int64_t c = 1; c < classes; ++c) {
      if (row[c] > row[best[static_cast<size_t>(r)]]) {
        best[static_cast<size_t>(r)] = c;
      }
    }
  }
  return best;
}

void AgreementAccumulator::add(const Tensor& reference, const Tensor& test) {
  if (reference.dtype() != DType::F32 || test.dtype() != DType::F32 ||
      reference.shape() != test.shape()) {
    throw Error(ErrorKind::Usage, {},
                "cannot compare " + std::string(dtypeName(reference.dtype())) + " " +
                    dimsToString(reference.shape()) + " with " +
                    std::string(dtypeName(test.dtype())) + " " + dimsToString(test.shape()));
  }
  const int64_t n = reference.numElements();
  const float* r = reference.data<float>();
  const float* t = test.data<float>();
  double dot = 0.0, normR = 0.0, normT = 0.0;
  for (int64_t i = 0; i < n; ++i) {
    const double x = r[i], y = t[i];
    const double err = std::fabs(x - y);
    partial_.maxAbsError = std::max(partial_.maxAbsError, err);
    partial_.referenceMaxAbs = std::max(partial_.referenceMaxAbs, std::fabs(x));
    sumAbs_ += err;
    sumSquaredError_ += err * err;
    dot += x * y;
    normR += x * x;
    normT += y * y;
  }
  dot_ += dot;
  normRef_ += normR;
  normTest_ += normT;
  const double sampleCosine = cosine(dot, normR, normT);
  partial_.minCosineSimilarity =
      partial_.samples == 0 ? sampleCosine : std::min(partial_.minCosineSimilarity, sampleCosine);
  ++partial_.samples;
  partial_.count += n;
  allClassifier_ = allClassifier_ && isClassifierOutput(reference.shape());
  if (allClassifier_) {
    const std::vector<int64_t> br = argmaxPerRow(reference);
    const std::vector<int64_t> bt = argmaxPerRow(test);
    for (size_t i = 0; i < br.size(); ++i) {
      partial_.top1Matches += br[i] == bt[i] ? 1 : 0;
    }
    partial_.top1Rows += static_cast<int64_t>(br.size());
  }
}

Agreement AgreementAccumulator::result() const {
  Agreement a = partial_;
  a.meanAbsError = a.count > 0 ? sumAbs_ / static_cast<double>(a.count) : 0.0;
  a.cosineSimilarity = cosine(dot_, normRef_, normTest_);
  a.relativeError = normRef_ > 0.0           ? std::sqrt(sumSquaredError_ / normRef_)
                    : sumSquaredError_ > 0.0 ? std::numeric_limits<double>::infinity()
                                             : 0.0;
  if (allClassifier_ && a.top1Rows > 0) {
    a.top1Agreement = static_cast<double>(a.top1Matches) / static_cast<double>(a.top1Rows);
  } else {
    a.top1Rows = a.top1Matches = 0;
  }
  return a;
}

Agreement measureAgreement(const Tensor& reference, const Tensor& test) {
  AgreementAccumulator acc;
  acc.add(reference, test);
  return acc.result();
}

std::vector<std::optional<Agreement>>
measureModelAgreement(const QuantizedModel& model,
                      const std::vector<std::vector<Tensor>>& inputSets) {
  const ir::Graph& g = model.graph;
  std::vector<AgreementAccumulator> accumulators(g.outputs.size());
  reference::Executor fp32(g);
  Int8Executor int8(model);
  for (const std::vector<Tensor>& inputs : inputSets) {
    const std::vector<Tensor> expected = fp32.run(inputs);
    const Int8Result actual = int8.run(inputs);
    for (size_t i = 0; i < g.outputs.size(); ++i) {
      if (expected[i].dtype() == DType::F32) {
        accumulators[i].add(expected[i], actual.dequantized[i]);
      }
    }
  }
  std::vector<std::optional<Agreement>> result(g.outputs.size());
  for (size_t i = 0; i < g.outputs.size(); ++i) {
    if (g.value(g.outputs[i]).dtype == DType::F32) {
      result[i] = accumulators[i].result();
    }
  }
  return result;
}

} // namespace nnaccel::quant
