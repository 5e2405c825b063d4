// Helpers shared by the benchmarks: wall-clock timing of one call, the median of a sample, and
// the "x_<reference>" counters that report a benchmark's time as a ratio to a reference measured
// in the same run (interleaved with it, so machine load affects both alike).
#pragma once

#include <benchmark/benchmark.h>
#include <chrono>
#include <string>
#include <vector>

namespace nnaccel::bench {

/// Register the benchmarks of ModelBench.cpp / ConvBench.cpp. Called from main, not from static
/// initializers: the zoo's model list must not be read before its own statics are initialized.
void registerModelBenchmarks();
void registerConvBenchmarks();
/// Systolic engine on the zoo models (SystolicBench.cpp).
void registerSystolicBenchmarks();
/// Sparse engine: VGG-16 at 35% weight density and the zoo models (SparseBench.cpp).
void registerSparseBenchmarks();
/// Stream engine: VGG-16, ResNet-18 and the Fig. 54 model streamed on chained chips
/// (StreamBench.cpp).
void registerStreamBenchmarks();
/// SCALE-Sim v2 compatibility: ResNet-18 through scalesim::simulateTopology (ScaleSimBench.cpp).
void registerScaleSimBenchmarks();
/// How the cost grows with the input resolution and the batch, one model per engine
/// (ScalingBench.cpp).
void registerScalingBenchmarks();

/// Wall-clock seconds of one call of \p f.
template <typename F> double secondsOf(F&& f) {
  const auto start = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

/// Median of \p samples (0 when empty).
double median(std::vector<double> samples);

/// Runs the benchmark loop: every iteration times \p measured (the benchmark's own time) and,
/// with the timer paused, \p reference. Sets the counters "ms" (median of \p measured) and
/// "x_<referenceName>" (median measured / median reference). Medians, not means: on a loaded
/// machine a few iterations are descheduled and would dominate a mean.
template <typename M, typename R>
void runAgainstReference(benchmark::State& state, const std::string& referenceName, M&& measured,
                         R&& reference) {
  std::vector<double> ours, theirs;
  for (auto _ : state) {
    ours.push_back(secondsOf(measured));
    state.PauseTiming();
    theirs.push_back(secondsOf(reference));
    state.ResumeTiming();
  }
  const double mine = median(ours);
  state.counters["ms"] = mine * 1e3;
  state.counters["x_" + referenceName] = mine / median(theirs);
}

} // namespace nnaccel::bench
