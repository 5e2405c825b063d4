/// \file
/// The broadcast engine's cycle-level simulation speed (docs/Performance.md, "Broadcast
/// engine"; the issue asks for MobileNetV2 at 224x224 in under 10 s on the 2-core machine, with
/// simulated MACs per second recorded):
///   broadcast_mobilenetv2                  one `simulateModel` of zoo MobileNetV2 (224x224) on
///                                          the npu preset, verification off: quantization,
///                                          compilation and the cycle-level simulation with the
///                                          functional data path and both baselines
///                                          (conventional 1x1, 1xN without broadcasting) timed,
///                                          as `nnaccel simulate mobilenetv2 --arch broadcast`
///                                          does minus the check. Counters: "macs" (the model's
///                                          convolution MACs), "macs_per_s" (those per second of
///                                          wall time), "cycles" (simulated, the method),
///                                          "quantize_ms" (the session's quantization, from its
///                                          progress callback), "compile_ms" (`compile` timed
///                                          once on its own) and "simulate_ms" (the rest:
///                                          simulation with both baselines, report),
///                                          x_int8ref = time / Int8Executor::run of the same
///                                          quantized model, interleaved in the same run.
///   broadcast_mobilenetv2_int8_reference   Int8Executor::run of that model alone, with the same
///                                          "macs_per_s" counter for comparison.
/// Registered statically under fixed names: nothing here reads the zoo's tables before main.
#include "BenchUtil.h"
#include "nnaccel/arch/broadcast/Session.h"
#include "nnaccel/driver/ModelLoader.h"
#include "nnaccel/quant/Int8Executor.h"
#include "nnaccel/quant/QuantizedModel.h"

#include <chrono>
#include <map>
#include <memory>
#include <string>

namespace nnaccel::bench {
namespace {

/// MobileNetV2 as `nnaccel simulate` loads it, its quantized form (for the int8 reference),
/// the random input simulateModel would draw, and the model's MACs. Built once.
struct BroadcastModel {
  ir::Graph graph;
  std::vector<Tensor> input;
  std::unique_ptr<quant::QuantizedModel> quantized;
  double macs = 0;
};

BroadcastModel& mobileNetV2() {
  static std::unique_ptr<BroadcastModel> m;
  if (!m) {
    m = std::make_unique<BroadcastModel>();
    m->graph = driver::loadModel("mobilenetv2");
    m->input = quant::makeCalibrationInputs(m->graph, 1, 12345).front();
    m->quantized = std::make_unique<quant::QuantizedModel>(quant::quantize(m->graph, {}));
  }
  return *m;
}

arch::broadcast::SessionOptions sessionOptions(const BroadcastModel& m) {
  arch::broadcast::SessionOptions o;
  o.verify = false;
  o.baselines = true;
  o.inputs = m.input;
  return o;
}

void setMacCounters(benchmark::State& state, double macs) {
  state.counters["macs"] = macs;
  state.counters["macs_per_s"] = macs / (state.counters["ms"] / 1e3);
}

void simulateMobileNetV2(benchmark::State& state) {
  BroadcastModel& m = mobileNetV2();
  const arch::broadcast::BroadcastConfig config = arch::broadcast::broadcastPreset("npu");
  arch::broadcast::SessionOptions options = sessionOptions(m);
  // Where the time goes: the session reports "quantizing" and then "compiling" as each starts.
  using Clock = std::chrono::steady_clock;
  std::map<std::string, Clock::time_point> phaseStart;
  options.progress = [&](const std::string& what, size_t, size_t) {
    phaseStart.try_emplace(what, Clock::now());
  };
  quant::Int8Executor ref(*m.quantized);
  int64_t cycles = 0;
  std::vector<double> quantizeSeconds;
  runAgainstReference(
      state, "int8ref",
      [&] {
        phaseStart.clear();
        const arch::broadcast::SessionResult r =
            arch::broadcast::simulateModel(m.graph, config, options);
        quantizeSeconds.push_back(
            std::chrono::duration<double>(phaseStart.at("compiling") - phaseStart.at("quantizing"))
                .count());
        m.macs = static_cast<double>(r.report.total.usefulMacs);
        cycles = r.report.total.cycles;
      },
      [&] { ref.run(m.input); });
  // The compiler alone, outside the timed region (the same deterministic quantization).
  const double compileSeconds =
      secondsOf([&] { (void)arch::broadcast::compile(*m.quantized, config); });
  setMacCounters(state, m.macs);
  state.counters["cycles"] = static_cast<double>(cycles);
  state.counters["quantize_ms"] = median(quantizeSeconds) * 1e3;
  state.counters["compile_ms"] = compileSeconds * 1e3;
  state.counters["simulate_ms"] =
      state.counters["ms"] - state.counters["quantize_ms"] - state.counters["compile_ms"];
}

void int8Reference(benchmark::State& state) {
  BroadcastModel& m = mobileNetV2();
  if (m.macs == 0) { // the MAC count comes from the engine's report: one timing-free run
    arch::broadcast::SessionOptions o = sessionOptions(m);
    o.baselines = false;
    m.macs = static_cast<double>(
        arch::broadcast::simulateModel(m.graph, arch::broadcast::broadcastPreset("npu"), o)
            .report.total.usefulMacs);
  }
  quant::Int8Executor ref(*m.quantized);
  std::vector<double> samples;
  for (auto _ : state)
    samples.push_back(secondsOf([&] { ref.run(m.input); }));
  state.counters["ms"] = median(samples) * 1e3;
  setMacCounters(state, m.macs);
}

[[maybe_unused]] const bool registered = [] {
  benchmark::RegisterBenchmark("broadcast_mobilenetv2", simulateMobileNetV2)
      ->UseRealTime()
      ->Iterations(3)
      ->Unit(benchmark::kSecond);
  benchmark::RegisterBenchmark("broadcast_mobilenetv2_int8_reference", int8Reference)
      ->UseRealTime()
      ->Iterations(5)
      ->Unit(benchmark::kMillisecond);
  return true;
}();

} // namespace
} // namespace nnaccel::bench
