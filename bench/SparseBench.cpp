// The sparse engine's cycle-level simulation speed (issue 4 item 12), against references
// measured in the same run:
//   sparse_vgg16_35/<threads>  VGG-16 at 224x224 magnitude-pruned to 35% weight density on the
//                              scnn preset: one full cycle-level simulation (sparse machine and
//                              dense baseline). Counters: "products_per_s" (non-zero products
//                              simulated per second of wall time), "cycles" (simulated), and
//                              x_int8ref = time / Int8Executor::run of the same pruned model.
//                              <threads> is 2 (PE halves on two threads) or 1
//                              (SimOptions::threads).
//   sparse_zoo/<model>         the same for the other zoo models, unpruned.
#include "BenchUtil.h"
#include "nnaccel/arch/sparse/Compiler.h"
#include "nnaccel/arch/sparse/Simulator.h"
#include "nnaccel/driver/ModelLoader.h"
#include "nnaccel/passes/Prune.h"
#include "nnaccel/quant/Int8Executor.h"
#include "nnaccel/quant/QuantizedModel.h"
#include "nnaccel/zoo/Zoo.h"

#include <map>
#include <memory>

namespace nnaccel::bench {
namespace {

struct SparseModel {
  ir::Graph graph;
  std::vector<Tensor> input;
  std::unique_ptr<quant::QuantizedModel> quantized;
  std::unique_ptr<arch::sparse::Program> program;
};

SparseModel& sparseModel(const std::string& name, double density) {
  static std::map<std::pair<std::string, double>, std::unique_ptr<SparseModel>> loaded;
  std::unique_ptr<SparseModel>& m = loaded[{name, density}];
  if (!m) {
    m = std::make_unique<SparseModel>();
    m->graph = driver::loadModel(name);
    if (density < 1.0) {
      passes::PruneSpec spec;
      spec.density = density;
      passes::magnitudePrune(m->graph, spec);
    }
    m->input = quant::makeCalibrationInputs(m->graph, 1, 12345).front();
    m->quantized = std::make_unique<quant::QuantizedModel>(quant::quantize(m->graph, {}));
    m->program = std::make_unique<arch::sparse::Program>(
        arch::sparse::compile(*m->quantized, arch::sparse::sparsePreset("scnn")));
  }
  return *m;
}

void simulate(benchmark::State& state, const std::string& name, double density, int threads) {
  SparseModel& m = sparseModel(name, density);
  quant::Int8Executor ref(*m.quantized);
  int64_t products = 0, cycles = 0;
  runAgainstReference(
      state, "int8ref",
      [&] {
        arch::sparse::Simulator sim(*m.program, *m.quantized);
        for (size_t i = 0; i < m.input.size(); ++i)
          sim.setInput(i, m.input[i]);
        arch::sparse::SimOptions so;
        so.threads = threads;
        sim.run(so);
        products = cycles = 0;
        for (const arch::sparse::LayerDetail& d : sim.layerDetails()) {
          products += d.products;
          cycles += d.cycles;
        }
      },
      [&] { ref.run(m.input); });
  state.counters["products"] = static_cast<double>(products);
  state.counters["cycles"] = static_cast<double>(cycles);
  state.counters["products_per_s"] = static_cast<double>(products) / (state.counters["ms"] / 1e3);
}

} // namespace

void registerSparseBenchmarks() {
  for (int threads : {2, 1})
    benchmark::RegisterBenchmark(
        ("sparse_vgg16_35/" + std::to_string(threads)).c_str(),
        [threads](benchmark::State& s) { simulate(s, "vgg16", 0.35, threads); })
        ->UseRealTime()
        ->Iterations(1)
        ->Unit(benchmark::kSecond);
  for (const zoo::ZooModel& zm : zoo::zooModels())
    if (zm.name != "vgg16")
      benchmark::RegisterBenchmark(
          ("sparse_zoo/" + zm.name).c_str(),
          [name = zm.name](benchmark::State& s) { simulate(s, name, 1.0, 2); })
          ->UseRealTime()
          ->Iterations(1)
          ->Unit(benchmark::kSecond);
}

} // namespace nnaccel::bench
