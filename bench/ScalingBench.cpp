/// \file
/// How the simulators' cost grows with the work (issue 24 item 6; docs/Performance.md, "How cost
/// grows with work"): one model per engine, simulated as `nnaccel simulate MODEL --arch ENGINE`
/// runs it (engines::simulate with the engine's default preset, except `large` for the stream
/// engine, a seeded random input and the verification against the int8 reference executor), at
/// 1x, 2x and 4x the model's own input resolution with batch 1 (224 -> 448 -> 896 for the
/// ImageNet models) and at batch 1, 2, 4 and 8 at its own resolution:
///   scaling/<engine>/<model>/<H>x<W>/b<N>
/// Models: ResNet-18 on systolic (`server`) and stream (`large`, on the smallest chain of chips
/// that fits), MobileNetV2 on broadcast (`npu`), and the Fig. 54 model (3x64x64 -> 256x256) on
/// the cycle-level sparse engine (`scnn`, one thread: about 50 M MACs a second, so ResNet-18 at
/// 896x896 alone would take over ten minutes). The zoo builds its models at their own resolution
/// only; the larger inputs are the zoo's own layer function (ZooModel::define) on a graph input of
/// the new shape. The three models are fully convolutional up to a global average pool, so every
/// weight has the same shape and seeded values at every resolution.
///
/// Counters, each the minimum over the iterations (the machine is shared: a descheduled
/// iteration only ever adds time; the phases are those of the fastest iteration):
///   ms                 wall time of the whole engines::simulate call
///   quantize_ms        calibration and quantization (from the session's "quantizing" report to
///                      its "compiling" one)
///   compile_ms         compilation (to the first "int8 reference" report)
///   reference_ms       the int8 reference executor's run (a fresh Int8Executor, as the session
///                      runs it) on the same input, to its last node
///   simulate_ms        the rest: the simulation with the engine's baselines, the per-layer
///                      comparison with the reference, the report
///   simulate_cpu_ms    the process CPU time of that phase (the simulators run on the calling
///                      thread): the work, which a loaded machine inflates much less
///   macs               the report's total useful MACs (as `nnaccel info` counts them)
///   cycles             the report's total simulated cycles
///   dram_mb            the report's total DRAM bytes read and written, in MB
///   ns_per_mac         ms per MAC; sim_ns_per_mac, sim_cpu_ns_per_mac and ref_ns_per_mac the
///                      same for simulate_ms, simulate_cpu_ms and reference_ms
///   x_int8ref          simulate_ms / reference_ms: the simulation against the reference
///                      executor doing the same MACs in the same run
///   cycles_per_mac     cycles / macs
/// With NNACCEL_BENCH_REPORT_DIR set, each point also writes its report (as `simulate --report`
/// writes it) to DIR/<engine>_<model>_<H>x<W>_b<N>.json, for the cycle causes, spills and
/// summaries behind the figures.
#include "BenchUtil.h"
#include "nnaccel/driver/ModelLoader.h"
#include "nnaccel/engines/Engine.h"
#include "nnaccel/zoo/GraphBuilder.h"
#include "nnaccel/zoo/Zoo.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <limits>
#include <map>
#include <string>

namespace nnaccel::bench {
namespace {

/// One engine's model in the scaling study.
struct ScalingSubject {
  const char* engine;
  const char* model;
  const char* preset;    ///< "" for the engine's default
  int maxIterations = 3; ///< at the model's own size; fewer as the work grows (scalingIterations)
};

const ScalingSubject kScalingSubjects[] = {
    {"systolic", "resnet18", "", 3},
    {"broadcast", "mobilenetv2", "", 3},
    {"stream", "resnet18", "large", 3},
    {"sparse", "fig54", "", 1},
};

/// \p zm with its input's height and width multiplied by \p scale and its batch set to
/// \p batch, prepared as loadModel prepares a zoo model.
ir::Graph scaledZooModel(const zoo::ZooModel& zm, int64_t scale, int64_t batch) {
  Dims shape = zm.inputShape;
  shape.at(0) = batch;
  shape.at(2) *= scale;
  shape.at(3) *= scale;
  zoo::GraphBuilder b(zm.name, zoo::kDefaultSeed);
  b.output(zm.define(b, b.input("input", shape)), "output");
  ir::Graph g = b.finish();
  driver::prepareGraph(g);
  return g;
}

/// Iterations of a point with \p workUnits times the work of the model's own size: the long
/// points are timed fewer times (their relative noise is smaller, and the whole study should
/// take minutes).
int scalingIterations(const ScalingSubject& s, int64_t workUnits) {
  if (workUnits <= 1)
    return s.maxIterations;
  return std::max(1, std::min(s.maxIterations, workUnits <= 4 ? 2 : 1));
}

/// Wall and process CPU time of one engines::simulate, split at the session's progress reports.
/// The CPU time (std::clock: every thread of the process) is the work done, which a shared
/// machine inflates far less than the wall time; the simulators run on the calling thread.
struct ScalingPhases {
  using Clock = std::chrono::steady_clock;
  struct Mark {
    Clock::time_point wall;
    std::clock_t cpu = 0;
    static Mark now() { return {Clock::now(), std::clock()}; }
  };
  Mark start, end;
  std::map<std::string, Mark> first, last;

  void record(const std::string& what) {
    const Mark now = Mark::now();
    first.try_emplace(what, now);
    last[what] = now;
  }
  static double msBetween(const Mark& a, const Mark& b) {
    return std::chrono::duration<double, std::milli>(b.wall - a.wall).count();
  }
  static double cpuMsBetween(const Mark& a, const Mark& b) {
    return static_cast<double>(b.cpu - a.cpu) * 1e3 / CLOCKS_PER_SEC;
  }
  double totalMs() const { return msBetween(start, end); }
  double quantizeMs() const { return msBetween(start, first.at("compiling")); }
  double compileMs() const { return msBetween(first.at("compiling"), first.at("int8 reference")); }
  double referenceMs() const {
    return msBetween(first.at("int8 reference"), last.at("int8 reference"));
  }
  double simulateMs() const { return msBetween(last.at("int8 reference"), end); }
  double simulateCpuMs() const { return cpuMsBetween(last.at("int8 reference"), end); }
};

void scalingPoint(benchmark::State& state, const ScalingSubject& s, int64_t scale, int64_t batch) {
  const ir::Graph g = scaledZooModel(*zoo::findZooModel(s.model), scale, batch);
  const engines::EngineConfig config = engines::loadPreset(s.engine, s.preset);
  engines::RunOptions options;
  options.verify = true;
  options.threads = 1; // the sparse engine's PE grid on one thread: the machine is shared
  ScalingPhases phases;
  options.progress = [&phases](const std::string& what, size_t, size_t) { phases.record(what); };

  ScalingPhases fastest;
  double fastestMs = std::numeric_limits<double>::infinity();
  report::RunReport r;
  for (auto _ : state) {
    phases = {};
    phases.start = ScalingPhases::Mark::now();
    r = engines::simulate(g, config, options);
    phases.end = ScalingPhases::Mark::now();
    if (!r.verdict.passed) {
      state.SkipWithError(("not verified: " + r.verdict.detail).c_str());
      return;
    }
    if (phases.totalMs() < fastestMs) {
      fastest = phases;
      fastestMs = phases.totalMs();
    }
  }
  if (const char* dir = std::getenv("NNACCEL_BENCH_REPORT_DIR")) {
    const Dims& in = g.value(g.inputs.at(0)).shape;
    std::ofstream(std::string(dir) + "/" + s.engine + "_" + s.model + "_" +
                  std::to_string(in.at(2)) + "x" + std::to_string(in.at(3)) + "_b" +
                  std::to_string(batch) + ".json")
        << r.toJson() << "\n";
  }
  const double macs = static_cast<double>(r.total.usefulMacs);
  const double cycles = static_cast<double>(r.total.cycles);
  const double dramBytes = static_cast<double>(r.total.dram.readBytes + r.total.dram.writeBytes);
  const double wallMs = fastest.totalMs(), simulateMs = fastest.simulateMs();
  const double referenceMs = fastest.referenceMs();
  state.counters["ms"] = wallMs;
  state.counters["quantize_ms"] = fastest.quantizeMs();
  state.counters["compile_ms"] = fastest.compileMs();
  state.counters["reference_ms"] = referenceMs;
  state.counters["simulate_ms"] = simulateMs;
  state.counters["simulate_cpu_ms"] = fastest.simulateCpuMs();
  state.counters["macs"] = macs;
  state.counters["cycles"] = cycles;
  state.counters["dram_mb"] = dramBytes * 1e-6;
  state.counters["ns_per_mac"] = wallMs * 1e6 / macs;
  state.counters["sim_ns_per_mac"] = simulateMs * 1e6 / macs;
  state.counters["sim_cpu_ns_per_mac"] = fastest.simulateCpuMs() * 1e6 / macs;
  state.counters["ref_ns_per_mac"] = referenceMs * 1e6 / macs;
  state.counters["x_int8ref"] = simulateMs / referenceMs;
  state.counters["cycles_per_mac"] = cycles / macs;
}

} // namespace

void registerScalingBenchmarks() {
  struct Point {
    int64_t scale, batch;
  };
  const Point points[] = {{1, 1}, {2, 1}, {4, 1}, {1, 2}, {1, 4}, {1, 8}};
  for (const ScalingSubject& s : kScalingSubjects) {
    const zoo::ZooModel* zm = zoo::findZooModel(s.model);
    for (const Point& p : points) {
      const std::string name = std::string("scaling/") + s.engine + "/" + s.model + "/" +
                               std::to_string(zm->inputShape.at(2) * p.scale) + "x" +
                               std::to_string(zm->inputShape.at(3) * p.scale) + "/b" +
                               std::to_string(p.batch);
      benchmark::RegisterBenchmark(
          name.c_str(),
          [&s, p](benchmark::State& state) { scalingPoint(state, s, p.scale, p.batch); })
          ->UseRealTime()
          ->Iterations(scalingIterations(s, p.scale * p.scale * p.batch))
          ->Unit(benchmark::kSecond);
    }
  }
}

} // namespace nnaccel::bench
