// fp32-versus-int8 agreement metrics: error norms, cosine similarity and top-1 agreement.
#include "nnaccel/quant/Agreement.h"

#include <cmath>

namespace nnaccel::quant {

bool isClassifierOutput(const Dims& shape) {
  if (shape.size() < 2 || shape[1] < 2) {
    return false;
  }
  for (size_t i = 2; i < shape.size(); ++i) {
    if (shape[i] != 1) {
      return false;
    }
  }
  return true;
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

Agreement measureAgreement(const Tensor& reference, const Tensor& test) {
  if (reference.dtype() != DType::F32 || test.dtype() != DType::F32 ||
      reference.shape() != test.shape()) {
    throw Error(ErrorKind::Usage, {},
                "cannot compare " + std::string(dtypeName(reference.dtype())) + " " +
                    dimsToString(reference.shape()) + " with " +
                    std::string(dtypeName(test.dtype())) + " " + dimsToString(test.shape()));
  }
  Agreement a;
  a.count = reference.numElements();
  const float* r = reference.data<float>();
  const float* t = test.data<float>();
  double sumAbs = 0.0, dot = 0.0, normR = 0.0, normT = 0.0;
  for (int64_t i = 0; i < a.count; ++i) {
    const double x = r[i], y = t[i];
    const double err = std::fabs(x - y);
    a.maxAbsError = std::max(a.maxAbsError, err);
    sumAbs += err;
    dot += x * y;
    normR += x * x;
    normT += y * y;
  }
  a.meanAbsError = a.count > 0 ? sumAbs / static_cast<double>(a.count) : 0.0;
  if (normR == 0.0 && normT == 0.0) {
    a.cosineSimilarity = 1.0;
  } else if (normR == 0.0 || normT == 0.0) {
    a.cosineSimilarity = 0.0;
  } else {
    a.cosineSimilarity = dot / (std::sqrt(normR) * std::sqrt(normT));
  }
  if (isClassifierOutput(reference.shape()) && reference.dim(0) > 0) {
    const std::vector<int64_t> br = argmaxPerRow(reference);
    const std::vector<int64_t> bt = argmaxPerRow(test);
    int64_t same = 0;
    for (size_t i = 0; i < br.size(); ++i) {
      same += br[i] == bt[i] ? 1 : 0;
    }
    a.top1Agreement = static_cast<double>(same) / static_cast<double>(br.size());
  }
  return a;
}

} // namespace nnaccel::quant
