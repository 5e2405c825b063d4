// The systolic engine on whole zoo models with the server preset (issue 3 item 12), each against
// a reference measured in the same run:
//   systolic_timing/<model>  compile (int8, quantized model given) + cycle model only;
//                            x_fp32 = time / the warm fp32 reference run; "cycles" counter
//   systolic_int8/<model>    functional int8 simulation of the compiled program (with the cycle
//                            model); x_int8ref = time / Int8Executor::run of the same model
#include "BenchUtil.h"
#include "nnaccel/arch/systolic/Compiler.h"
#include "nnaccel/arch/systolic/Simulator.h"
#include "nnaccel/driver/ModelLoader.h"
#include "nnaccel/quant/Int8Executor.h"
#include "nnaccel/quant/QuantizedModel.h"
#include "nnaccel/reference/Executor.h"
#include "nnaccel/zoo/Zoo.h"

#include <map>
#include <memory>

namespace nnaccel::bench {
namespace {

using arch::systolic::Program;
using arch::systolic::Simulator;

struct SystolicModel {
  ir::Graph graph;
  std::vector<Tensor> input;
  std::unique_ptr<quant::QuantizedModel> quantized;
  std::unique_ptr<reference::Executor> fp32;
  arch::systolic::SystolicConfig config = arch::systolic::systolicPreset("server");
};

SystolicModel& systolicModel(const std::string& name) {
  static std::map<std::string, std::unique_ptr<SystolicModel>> loaded;
  std::unique_ptr<SystolicModel>& m = loaded[name];
  if (!m) {
    m = std::make_unique<SystolicModel>();
    m->graph = driver::loadModel(name);
    m->input = quant::makeCalibrationInputs(m->graph, 1, 12345).front();
    m->quantized = std::make_unique<quant::QuantizedModel>(quant::quantize(m->graph, {}));
    m->fp32 = std::make_unique<reference::Executor>(m->graph);
    m->fp32->run(m->input);
  }
  return *m;
}

Program compileInt8(const SystolicModel& m) {
  arch::systolic::CompileOptions o;
  o.dtype = DType::I8;
  return arch::systolic::compile(m.graph, m.quantized.get(), m.config, o);
}

void timing(benchmark::State& state, const std::string& name) {
  SystolicModel& m = systolicModel(name);
  int64_t cycles = 0;
  runAgainstReference(
      state, "fp32",
      [&] {
        const Program p = compileInt8(m);
        Simulator sim(p, {m.quantized.get(), &m.graph});
        arch::systolic::SimOptions so;
        so.functional = false;
        sim.run(so);
        cycles = sim.totalCycles();
      },
      [&] { m.fp32->run(m.input); });
  state.counters["cycles"] = static_cast<double>(cycles);
}

void functionalInt8(benchmark::State& state, const std::string& name) {
  SystolicModel& m = systolicModel(name);
  const Program p = compileInt8(m);
  quant::Int8Executor ref(*m.quantized);
  ref.run(m.input);
  runAgainstReference(
      state, "int8ref",
      [&] {
        Simulator sim(p, {m.quantized.get(), &m.graph});
        for (size_t i = 0; i < m.input.size(); ++i)
          sim.setInput(i, m.input[i]);
        sim.run();
      },
      [&] { ref.run(m.input); });
}

} // namespace

void registerSystolicBenchmarks() {
  using Fn = void (*)(benchmark::State&, const std::string&);
  const std::pair<const char*, Fn> kinds[] = {{"systolic_timing", timing},
                                              {"systolic_int8", functionalInt8}};
  for (const auto& [kind, fn] : kinds)
    for (const zoo::ZooModel& zm : zoo::zooModels())
      benchmark::RegisterBenchmark((std::string(kind) + "/" + zm.name).c_str(), fn, zm.name)
          ->UseRealTime()
          ->Unit(benchmark::kMillisecond);
}

} // namespace nnaccel::bench
