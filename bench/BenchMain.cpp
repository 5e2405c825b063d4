// The benchmark program's entry point: registers every benchmark, then runs Google Benchmark
// with its usual command line (--benchmark_filter, --benchmark_format=json, ...).
#include "BenchUtil.h"

int main(int argc, char** argv) {
  nnaccel::bench::registerModelBenchmarks();
  nnaccel::bench::registerConvBenchmarks();
  nnaccel::bench::registerSystolicBenchmarks();
  nnaccel::bench::registerSparseBenchmarks();
  nnaccel::bench::registerStreamBenchmarks();
  nnaccel::bench::registerScaleSimBenchmarks();
  nnaccel::bench::registerScalingBenchmarks();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) {
    return 1;
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
