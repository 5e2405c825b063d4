/// \file
/// Layer-output comparison and the layer verifier shared by the engines' sessions (Verify.h).
#include "nnaccel/arch/common/Verify.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <vector>

namespace nnaccel::arch::common {

std::string coordsOf(const Dims& shape, int64_t flat) {
  std::vector<int64_t> idx(shape.size());
  for (size_t i = shape.size(); i-- > 0;) {
    const int64_t d = std::max<int64_t>(shape[i], 1);
    idx[i] = flat % d;
    flat /= d;
  }
  return fmt::format("[{}]", fmt::join(idx, ","));
}

std::optional<std::string> compareTensor(const Tensor& got, const Tensor& ref, bool exactBits,
                                         double relativeTolerance, int64_t& compared) {
  if (got.dtype() != ref.dtype() || got.shape() != ref.shape())
    return fmt::format("type {} {} differs from the reference's {} {}", dtypeName(got.dtype()),
                       dimsToString(got.shape()), dtypeName(ref.dtype()),
                       dimsToString(ref.shape()));
  const int64_t n = got.numElements();
  compared += n;
  if (exactBits || got.dtype() != DType::F32) {
    const size_t eb = dtypeSizeBytes(got.dtype());
    const auto* a = reinterpret_cast<const uint8_t*>(got.rawData());
    const auto* b = reinterpret_cast<const uint8_t*>(ref.rawData());
    if (std::memcmp(a, b, static_cast<size_t>(n) * eb) == 0)
      return std::nullopt;
    for (int64_t i = 0; i < n; ++i)
      if (std::memcmp(a + i * static_cast<int64_t>(eb), b + i * static_cast<int64_t>(eb), eb) != 0)
        return fmt::format("element {} = {} but the reference has {}", coordsOf(got.shape(), i),
                           got.elementAsDouble(i), ref.elementAsDouble(i));
    return std::nullopt;
  }
  const float* a = got.data<float>();
  const float* b = ref.data<float>();
  double refMax = 0, worst = 0;
  int64_t worstAt = -1;
  for (int64_t i = 0; i < n; ++i) {
    const auto x = static_cast<double>(a[i]), y = static_cast<double>(b[i]);
    if (!std::isfinite(x) || !std::isfinite(y)) {
      // The NaN/Inf policy (docs/Quantization.md §2a): identical non-finite values agree (a
      // NaN with a NaN, an infinity with the same infinity); any other pair is the worst error.
      const bool same = (std::isnan(x) && std::isnan(y)) || x == y;
      if (!same && worst != INFINITY) {
        worst = INFINITY;
        worstAt = i;
      }
      continue;
    }
    refMax = std::max(refMax, std::fabs(y));
    const double d = std::fabs(x - y);
    if (d > worst) {
      worst = d;
      worstAt = i;
    }
  }
  const double rel = worst / std::max(refMax, 1e-30);
  if (worstAt >= 0 && !(rel <= relativeTolerance))
    return fmt::format("element {} = {} but the reference has {} (error {:.3g} of the tensor's "
                       "max |x| {:.6g}; tolerance {:.0e})",
                       coordsOf(got.shape(), worstAt), a[worstAt], b[worstAt], rel, refMax,
                       relativeTolerance);
  return std::nullopt;
}

LayerVerifier::LayerVerifier(const ir::Graph& g, report::Verdict& verdict, bool checked,
                             std::string_view reference, bool exactBits, double relativeTolerance)
    : g_(g), verdict_(verdict), exactBits_(exactBits), relativeTolerance_(relativeTolerance) {
  verdict_.checked = checked;
  verdict_.passed = true;
  verdict_.reference = std::string(reference);
}

bool LayerVerifier::check(size_t layerIndex, std::string_view layerName, std::string_view op,
                          ir::ValueId v, const Tensor& got, const Tensor& want) {
  if (!active())
    return false;
  if (auto bad =
          compareTensor(got, want, exactBits_, relativeTolerance_, verdict_.comparedElements)) {
    verdict_.passed = false;
    verdict_.detail = fmt::format("layer {} '{}' ({}), output '{}': {}", layerIndex, layerName, op,
                                  g_.value(v).name, *bad);
  }
  return active();
}

} // namespace nnaccel::arch::common
