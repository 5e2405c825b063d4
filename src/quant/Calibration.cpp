// Activation ranges: min/max over the calibration runs, then the clipping thresholds of the
// percentile, MSE and entropy (KL) methods on |x| histograms (Calibration.h).
#include "Calibration.h"

#include "nnaccel/reference/Executor.h"

#include <algorithm>

namespace nnaccel::quant {

std::string_view calibrationMethodName(CalibrationMethod m) {
  switch (m) {
  case CalibrationMethod::MinMax:
    return "minmax";
  case CalibrationMethod::Percentile:
    return "percentile";
  case CalibrationMethod::Mse:
    return "mse";
  case CalibrationMethod::Entropy:
    return "entropy";
  }
  return "minmax";
}

std::optional<CalibrationMethod> calibrationMethodFromName(std::string_view name) {
  for (CalibrationMethod m : {CalibrationMethod::MinMax, CalibrationMethod::Percentile,
                              CalibrationMethod::Mse, CalibrationMethod::Entropy})
    if (calibrationMethodName(m) == name)
      return m;
  return std::nullopt;
}

namespace detail {

namespace {

constexpr double kLevels = 127.0; // symmetric int8: |q| <= 127

/// Upper edge of bin \p i of a histogram of bin width \p w.
double edge(size_t i, double w) {
  return static_cast<double>(i + 1) * w;
}

size_t percentileBin(const std::vector<double>& h, double percentile) {
  double total = 0.0;
  for (double c : h)
    total += c;
  const double target = total * percentile / 100.0;
  double seen = 0.0;
  for (size_t i = 0; i < h.size(); ++i) {
    seen += h[i];
    if (seen >= target)
      return i;
  }
  return h.size() - 1;
}

/// The bin whose upper edge T minimises sum_inside h_j step^2/12 + sum_outside h_j (c_j - T)^2,
/// step = T / 127, c_j the bin centre; suffix sums make each candidate O(1).
size_t mseBin(const std::vector<double>& h, double w) {
  const size_t n = h.size();
  std::vector<double> count(n + 1, 0.0), first(n + 1, 0.0), second(n + 1, 0.0);
  for (size_t j = n; j-- > 0;) {
    const double c = (static_cast<double>(j) + 0.5) * w;
    count[j] = count[j + 1] + h[j];
    first[j] = first[j + 1] + h[j] * c;
    second[j] = second[j + 1] + h[j] * c * c;
  }
  size_t best = n - 1;
  double bestError = std::numeric_limits<double>::infinity();
  for (size_t i = 0; i < n; ++i) {
    const double t = edge(i, w), step = t / kLevels;
    const double inside = (count[0] - count[i + 1]) * step * step / 12.0;
    const double outside = second[i + 1] - 2.0 * t * first[i + 1] + t * t * count[i + 1];
    if (inside + outside < bestError) {
      bestError = inside + outside;
      best = i;
    }
  }
  return best;
}

/// KL(P || Q) of the first \p i bins (the rest folded into bin i - 1) against their merge into
/// 128 levels, each level's mass spread evenly over its non-empty bins.
double klDivergence(const std::vector<double>& h, size_t i) {
  std::vector<double> p(h.begin(), h.begin() + static_cast<std::ptrdiff_t>(i));
  for (size_t j = i; j < h.size(); ++j)
    p[i - 1] += h[j];
  std::vector<double> q(i, 0.0);
  const size_t levels = static_cast<size_t>(kLevels) + 1;
  for (size_t l = 0; l < levels; ++l) {
    const size_t lo = l * i / levels, hi = (l + 1) * i / levels;
    double mass = 0.0;
    size_t nonEmpty = 0;
    for (size_t j = lo; j < hi; ++j) {
      mass += h[j]; // the unfolded counts, as TensorRT's calibrator
      nonEmpty += p[j] > 0 ? 1 : 0;
    }
    for (size_t j = lo; j < hi; ++j)
      q[j] = p[j] > 0 ? mass / static_cast<double>(nonEmpty) : 0.0;
  }
  double sp = 0.0, sq = 0.0;
  for (size_t j = 0; j < i; ++j) {
    sp += p[j];
    sq += q[j];
  }
  if (sp <= 0.0 || sq <= 0.0)
    return std::numeric_limits<double>::infinity();
  double kl = 0.0;
  for (size_t j = 0; j < i; ++j) {
    if (p[j] <= 0.0)
      continue;
    const double pj = p[j] / sp, qj = q[j] > 0.0 ? q[j] / sq : 1e-12;
    kl += pj * std::log(pj / qj);
  }
  return kl;
}

size_t entropyBin(const std::vector<double>& h) {
  const size_t start = static_cast<size_t>(kLevels) + 1;
  size_t best = h.size() - 1;
  double bestKl = std::numeric_limits<double>::infinity();
  for (size_t i = start; i <= h.size(); ++i) {
    const double kl = klDivergence(h, i);
    if (kl < bestKl) {
      bestKl = kl;
      best = i - 1;
    }
  }
  return best;
}

/// Adds |x| of \p xs to \p h, whose bins span [0, maxAbs].
void addToHistogram(std::vector<double>& h, std::span<const float> xs, float maxAbs) {
  const double perBin = static_cast<double>(h.size()) / static_cast<double>(maxAbs);
  const size_t last = h.size() - 1;
  for (float x : xs)
    h[std::min(last, static_cast<size_t>(std::fabs(static_cast<double>(x)) * perBin))] += 1.0;
}

/// Values the method clips: computed f32 values that are not graph outputs (a graph input keeps
/// its whole range too: it is the user's data, not a layer's statistics).
bool clipped(const ir::Graph& g, ir::ValueId v) {
  return !g.isConstant(v) && g.value(v).producer >= 0 && g.value(v).dtype == DType::F32 &&
         !g.isOutput(v);
}

} // namespace

float clipThreshold(const std::vector<double>& histogram, float maxAbs,
                    const CalibrationOptions& options) {
  if (options.method == CalibrationMethod::MinMax || maxAbs <= 0.0f || histogram.empty())
    return maxAbs;
  const double w = static_cast<double>(maxAbs) / static_cast<double>(histogram.size());
  size_t bin = histogram.size() - 1;
  switch (options.method) {
  case CalibrationMethod::Percentile:
    bin = percentileBin(histogram, options.percentile);
    break;
  case CalibrationMethod::Mse:
    bin = mseBin(histogram, w);
    break;
  case CalibrationMethod::Entropy:
    bin = entropyBin(histogram);
    break;
  case CalibrationMethod::MinMax:
    break;
  }
  return std::min(maxAbs, static_cast<float>(edge(bin, w)));
}

std::vector<Range> calibrate(const ir::Graph& g, const std::vector<std::vector<Tensor>>& inputSets,
                             const CalibrationOptions& options) {
  std::vector<Range> ranges(g.numValues());
  reference::Executor executor(g);
  const auto eachValue = [&](auto&& f) {
    const std::vector<Tensor>& values = executor.values();
    for (size_t v = 0; v < g.numValues(); ++v) {
      const auto id = static_cast<ir::ValueId>(v);
      if (g.isConstant(id) || g.value(id).dtype != DType::F32 || v >= values.size() ||
          values[v].dtype() != DType::F32 || values[v].sizeBytes() == 0)
        continue;
      f(id, values[v].values<float>());
    }
  };
  for (const auto& inputs : inputSets) {
    executor.run(inputs);
    eachValue([&](ir::ValueId id, std::span<const float> xs) {
      if (!ranges[static_cast<size_t>(id)].include(xs)) {
        const ir::Value& value = g.value(id);
        NNACCEL_ASSERT(value.producer >= 0)
            << "input '" << value.name << "' passed checkCalibrationInputs but is not finite";
        g.fail(value.producer, "calibration produced a non-finite value in '" + value.name + "'");
      }
    });
  }
  for (Range& r : ranges)
    r.rawMaxAbs = r.maxAbs();
  if (options.method == CalibrationMethod::MinMax)
    return ranges;
  // Second pass: |x| histograms over each value's [0, max|x|], then the method's threshold.
  std::vector<std::vector<double>> histograms(g.numValues());
  for (const auto& inputs : inputSets) {
    executor.run(inputs);
    eachValue([&](ir::ValueId id, std::span<const float> xs) {
      const auto v = static_cast<size_t>(id);
      if (!clipped(g, id) || ranges[v].maxAbs() <= 0.0f)
        return;
      histograms[v].resize(kHistogramBins, 0.0);
      addToHistogram(histograms[v], xs, ranges[v].maxAbs());
    });
  }
  for (size_t v = 0; v < g.numValues(); ++v) {
    if (histograms[v].empty())
      continue;
    const float t = clipThreshold(histograms[v], ranges[v].maxAbs(), options);
    ranges[v].lo = std::max(ranges[v].lo, -t);
    ranges[v].hi = std::min(ranges[v].hi, t);
  }
  return ranges;
}

} // namespace detail

} // namespace nnaccel::quant
