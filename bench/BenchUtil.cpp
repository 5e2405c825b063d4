// Median of a timing sample for the benchmark counters.
#include "BenchUtil.h"

#include <algorithm>

namespace nnaccel::bench {

double median(std::vector<double> samples) {
  if (samples.empty()) {
    return 0.0;
  }
  const auto mid = samples.begin() + static_cast<std::ptrdiff_t>(samples.size() / 2);
  std::nth_element(samples.begin(), mid, samples.end());
  if (samples.size() % 2 == 1) {
    return *mid;
  }
  return (*mid + *std::max_element(samples.begin(), mid)) / 2.0;
}

} // namespace nnaccel::bench
