// LRN, InstanceNormalization and LayerNormalization in plain loops (Kernels.h), accumulating in
// double so the result is the same on every machine. The default pipeline writes these ops out
// as reductions and element-wise ops (passes/ExpandFunctions.h); these direct forms are the
// executor's for graphs run without it and the oracle the expansion is tested against.
#include "nnaccel/ir/OpParams.h"
#include "nnaccel/reference/Kernels.h"
#include "nnaccel/support/Error.h"

#include <cmath>
#include <vector>

namespace nnaccel::reference {

Tensor lrn(const ir::LrnParams& p, const Tensor& x) {
  NNACCEL_ASSERT(x.dtype() == DType::F32 && x.rank() >= 3) << "lrn input";
  const int64_t n = x.dim(0), c = x.dim(1), inner = x.numElements() / std::max<int64_t>(1, n * c);
  const int64_t before = (p.size - 1) / 2, after = p.size - 1 - before;
  Tensor y(DType::F32, x.shape());
  const float* in = x.data<float>();
  float* out = y.data<float>();
  for (int64_t b = 0; b < n; ++b)
    for (int64_t ch = 0; ch < c; ++ch)
      for (int64_t i = 0; i < inner; ++i) {
        double sum = 0.0;
        for (int64_t k = std::max<int64_t>(0, ch - before); k <= std::min(c - 1, ch + after); ++k) {
          const double v = in[(b * c + k) * inner + i];
          sum += v * v;
        }
        const int64_t at = (b * c + ch) * inner + i;
        const double d = static_cast<double>(p.bias) +
                         static_cast<double>(p.alpha) / static_cast<double>(p.size) * sum;
        out[at] = static_cast<float>(in[at] / std::pow(d, static_cast<double>(p.beta)));
      }
  return y;
}

namespace {

/// Offsets of \p t's element for every element of \p shape (numpy broadcasting of \p t's shape
/// onto \p shape), row-major.
std::vector<int64_t> broadcastOffsets(const Dims& tShape, const Dims& shape) {
  const size_t rank = shape.size(), lead = rank - tShape.size();
  Dims strides(rank, 0);
  const Dims own = rowMajorStrides(tShape);
  for (size_t a = lead; a < rank; ++a)
    strides[a] = tShape[a - lead] == 1 ? 0 : own[a - lead];
  std::vector<int64_t> offsets(static_cast<size_t>(numElements(shape)));
  std::vector<int64_t> index(rank, 0);
  for (auto& o : offsets) {
    o = 0;
    for (size_t a = 0; a < rank; ++a)
      o += index[a] * strides[a];
    for (size_t a = rank; a-- > 0;) {
      if (++index[a] < shape[a])
        break;
      index[a] = 0;
    }
  }
  return offsets;
}

} // namespace

Tensor normalize(const ir::NormalizationParams& p, const Tensor& x, const Tensor& scale,
                 const Tensor* bias, Tensor* mean, Tensor* invStdDev) {
  NNACCEL_ASSERT(x.dtype() == DType::F32 && !p.axes.empty()) << "normalize input";
  // The normalized axes are trailing (LayerNormalization) or 2.. (InstanceNormalization, whose
  // affine is per channel): lines of `inner` contiguous elements.
  const auto first = static_cast<size_t>(p.axes.front());
  const Dims& shape = x.shape();
  int64_t inner = 1;
  for (size_t a = first; a < shape.size(); ++a)
    inner *= shape[a];
  const int64_t lines = x.numElements() / std::max<int64_t>(1, inner);
  // The affine operands as per-element offsets: [C] over axis 1 for InstanceNormalization
  // (first == 2), broadcast onto the trailing dims otherwise.
  const bool perChannel = p.perChannelAffine;
  const Dims affineShape =
      perChannel ? Dims{shape[1], 1} : Dims(shape.begin() + first, shape.end());
  const Dims lineShape = perChannel ? Dims{shape[1], inner} : affineShape;
  const std::vector<int64_t> scaleAt =
      broadcastOffsets(perChannel ? Dims{scale.numElements(), 1} : scale.shape(), lineShape);
  std::vector<int64_t> biasAt;
  if (bias != nullptr)
    biasAt = broadcastOffsets(perChannel ? Dims{bias->numElements(), 1} : bias->shape(), lineShape);
  const int64_t period = numElements(lineShape); // the affine repeats every `period` elements
  const float* in = x.data<float>();
  Tensor y(DType::F32, shape);
  float* out = y.data<float>();
  if (mean != nullptr)
    *mean = Tensor(DType::F32, p.statShape);
  if (invStdDev != nullptr)
    *invStdDev = Tensor(DType::F32, p.statShape);
  for (int64_t l = 0; l < lines; ++l) {
    const float* line = in + l * inner;
    double sum = 0.0;
    for (int64_t i = 0; i < inner; ++i)
      sum += line[i];
    const double mu = sum / static_cast<double>(inner);
    double sq = 0.0;
    for (int64_t i = 0; i < inner; ++i)
      sq += (line[i] - mu) * (line[i] - mu);
    const double inv = 1.0 / std::sqrt(sq / static_cast<double>(inner) + p.epsilon);
    if (mean != nullptr)
      mean->data<float>()[l] = static_cast<float>(mu);
    if (invStdDev != nullptr)
      invStdDev->data<float>()[l] = static_cast<float>(inv);
    for (int64_t i = 0; i < inner; ++i) {
      const auto k = static_cast<size_t>((l * inner + i) % period);
      double v = (line[i] - mu) * inv * scale.data<float>()[scaleAt[k]];
      if (bias != nullptr)
        v += bias->data<float>()[biasAt[k]];
      out[l * inner + i] = static_cast<float>(v);
    }
  }
  return y;
}

} // namespace nnaccel::reference
