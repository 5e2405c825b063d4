// Activation ranges from calibration runs of the fp32 reference executor (private to the quant
// module; the methods are described at quant::CalibrationMethod).
#pragma once

#include "nnaccel/quant/QuantizedModel.h"

#include <cmath>
#include <limits>
#include <span>
#include <vector>

namespace nnaccel::quant::detail {

/// The range of one value over every calibration run.
struct Range {
  float lo = std::numeric_limits<float>::infinity();
  float hi = -std::numeric_limits<float>::infinity();
  float rawMaxAbs = 0; ///< max|x| before a clipping method narrowed [lo, hi]
  bool seen() const { return lo <= hi; }
  float maxAbs() const { return seen() ? std::max(std::fabs(lo), std::fabs(hi)) : 0.0f; }

  /// Widens the range by \p xs; false if some value is not finite. The bounds are accumulated
  /// in registers: updating lo/hi in place made the compiler store them on every element (the
  /// data might alias them), which took as long as the executor run being calibrated.
  bool include(std::span<const float> xs) {
    float l = lo;
    float h = hi;
    bool finite = true;
    for (float x : xs) {
      finite &= std::isfinite(x);
      l = x < l ? x : l;
      h = h < x ? x : h;
    }
    lo = l;
    hi = h;
    return finite;
  }
};

/// Bins of the |x| histograms the clipping methods choose their thresholds on.
inline constexpr size_t kHistogramBins = 2048;

/// The clipping threshold \p options choose on \p histogram (kHistogramBins counts of |x| over
/// [0, \p maxAbs]); maxAbs for MinMax or an empty histogram.
float clipThreshold(const std::vector<double>& histogram, float maxAbs,
                    const CalibrationOptions& options);

/// Runs \p g on every input set and returns each value's range (indexed by ValueId), clipped to
/// [-T, T] by \p options' method for computed values that are not graph outputs (rawMaxAbs
/// keeps the unclipped max|x|). Throws
/// Error(Model) naming the node when a value is not finite.
std::vector<Range> calibrate(const ir::Graph& g, const std::vector<std::vector<Tensor>>& inputSets,
                             const CalibrationOptions& options);

} // namespace nnaccel::quant::detail
