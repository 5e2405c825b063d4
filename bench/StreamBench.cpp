/// \file
/// The stream engine's simulation speed (issue 6 item 10: a VGG-style model at 224x224 streams at
/// >= 50 million multiply-accumulates per second on the 2-core machine), against the int8
/// reference executor measured in the same run:
///   stream/<model>  one Simulator::run of the compiled configuration (one frame): every kernel
///                   tile on the everted aperture engine, every aux tile on its patch function,
///                   the timing checks. The program is compiled once outside the loop (as
///                   `nnaccel simulate` compiles once). Counters: "macs" (the model's MACs),
///                   "macs_per_s" (those per second of wall time), "issued_macs" (what the tiles
///                   compute, including the positions a Sample later discards),
///                   "issued_macs_per_s", "frame_cycles" (the simulated frame period) and
///                   x_int8ref = time / Int8Executor::run of the same quantized model.
/// Models: vgg16 on 7 chained `large` chips, resnet18 on 3, fig54 on 1.
#include "BenchUtil.h"
#include "nnaccel/arch/stream/Compiler.h"
#include "nnaccel/arch/stream/Config.h"
#include "nnaccel/arch/stream/Simulator.h"
#include "nnaccel/driver/ModelLoader.h"
#include "nnaccel/quant/Int8Executor.h"
#include "nnaccel/quant/QuantizedModel.h"

#include <map>
#include <memory>
#include <string>

namespace nnaccel::bench {
namespace {

struct StreamModel {
  ir::Graph graph;
  Tensor int8Input;
  std::vector<Tensor> input;
  std::unique_ptr<quant::QuantizedModel> quantized;
  std::unique_ptr<arch::stream::Program> program;
};

StreamModel& streamModel(const std::string& name, int64_t chips) {
  static std::map<std::string, std::unique_ptr<StreamModel>> loaded;
  std::unique_ptr<StreamModel>& m = loaded[name];
  if (!m) {
    m = std::make_unique<StreamModel>();
    m->graph = driver::loadModel(name);
    m->input = quant::makeCalibrationInputs(m->graph, 1, 12345).front();
    m->quantized = std::make_unique<quant::QuantizedModel>(quant::quantize(m->graph, {}));
    arch::stream::CompileOptions co;
    co.chips = chips;
    m->program = std::make_unique<arch::stream::Program>(
        arch::stream::compile(*m->quantized, arch::stream::streamPreset("large"), co));
    const ir::ValueId in = m->program->inputValue;
    m->int8Input = quant::quantizeTensor(m->input.at(0), m->quantized->scale(in)).data;
  }
  return *m;
}

void simulate(benchmark::State& state, const std::string& name, int64_t chips) {
  StreamModel& m = streamModel(name, chips);
  quant::Int8Executor ref(*m.quantized);
  int64_t frameCycles = 0;
  runAgainstReference(
      state, "int8ref",
      [&] {
        arch::stream::Simulator sim(*m.program, *m.quantized);
        sim.setInput(m.int8Input);
        sim.run({});
        frameCycles = sim.framePeriodCycles();
        benchmark::DoNotOptimize(sim.timingViolations().size());
      },
      [&] { ref.run(m.input); });
  int64_t macs = 0, issued = 0;
  for (const arch::stream::Layer& l : m.program->layers) {
    macs += l.usefulMacs;
    issued += l.issuedMacs;
  }
  const double seconds = state.counters["ms"] / 1e3;
  state.counters["macs"] = static_cast<double>(macs);
  state.counters["macs_per_s"] = static_cast<double>(macs) / seconds;
  state.counters["issued_macs"] = static_cast<double>(issued);
  state.counters["issued_macs_per_s"] = static_cast<double>(issued) / seconds;
  state.counters["frame_cycles"] = static_cast<double>(frameCycles);
}

} // namespace

void registerStreamBenchmarks() {
  const std::pair<const char*, int64_t> models[] = {{"vgg16", 7}, {"resnet18", 3}, {"fig54", 1}};
  for (const auto& [name, chips] : models)
    benchmark::RegisterBenchmark((std::string("stream/") + name).c_str(),
                                 [name = std::string(name), chips = chips](benchmark::State& s) {
                                   simulate(s, name, chips);
                                 })
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime()
        ->Iterations(2);
}

} // namespace nnaccel::bench
