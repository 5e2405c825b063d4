// Whole-model benchmarks over the zoo (after the default pass pipeline, as `nnaccel run` loads
// them), each reported against a reference measured in the same run:
//   fp32/<model>       Executor::run with its per-node state warm; GMAC/s, and x_fresh = time /
//                      a run on a fresh Executor (oneDNN primitives built, weights converted and
//                      outputs allocated anew: what every run cost before the per-node cache)
//   int8/<model>       Int8Executor::run; x_fp32 = time / the warm fp32 run
//   calibrate/<model>  quant::quantize with the default 4 calibration inputs; x_fp32
//   onnx_load/<model>  import of the exported ONNX bytes + shape inference, passes, verifier
//                      (what `nnaccel run model.onnx` does before running); x_fp32, bytes/s
#include "BenchUtil.h"
#include "nnaccel/driver/ModelLoader.h"
#include "nnaccel/driver/ModelSummary.h"
#include "nnaccel/frontend/Onnx.h"
#include "nnaccel/ir/ShapeInference.h"
#include "nnaccel/quant/Int8Executor.h"
#include "nnaccel/quant/QuantizedModel.h"
#include "nnaccel/reference/Executor.h"
#include "nnaccel/zoo/Zoo.h"

#include <map>
#include <memory>

namespace nnaccel::bench {
namespace {

/// A zoo model loaded once per process, with what the benchmarks need from it.
struct Model {
  ir::Graph graph;
  std::vector<Tensor> input;
  double gmacs = 0;
  std::unique_ptr<reference::Executor> fp32; ///< warm: has run once
  std::unique_ptr<quant::QuantizedModel> quantized;
  std::string onnxBytes;
};

Model& model(const std::string& name) {
  static std::map<std::string, std::unique_ptr<Model>> loaded;
  std::unique_ptr<Model>& m = loaded[name];
  if (!m) {
    m = std::make_unique<Model>();
    m->graph = driver::loadModel(name);
    m->input = quant::makeCalibrationInputs(m->graph, 1, 12345).front();
    m->gmacs = static_cast<double>(driver::summarizeModel(m->graph).totalMacs) * 1e-9;
    m->fp32 = std::make_unique<reference::Executor>(m->graph);
    m->fp32->run(m->input);
  }
  return *m;
}

void fp32Run(benchmark::State& state, const std::string& name) {
  Model& m = model(name);
  runAgainstReference(
      state, "fresh", [&] { m.fp32->run(m.input); },
      [&] { reference::Executor(m.graph).run(m.input); });
  state.counters["GMAC"] = m.gmacs;
  state.counters["GMAC/s"] =
      benchmark::Counter(m.gmacs, benchmark::Counter::kIsIterationInvariantRate);
}

void int8Run(benchmark::State& state, const std::string& name) {
  Model& m = model(name);
  if (!m.quantized) {
    m.quantized = std::make_unique<quant::QuantizedModel>(quant::quantize(m.graph, {}));
  }
  quant::Int8Executor int8(*m.quantized);
  int8.run(m.input);
  runAgainstReference(
      state, "fp32", [&] { int8.run(m.input); }, [&] { m.fp32->run(m.input); });
}

void calibrate(benchmark::State& state, const std::string& name) {
  Model& m = model(name);
  runAgainstReference(
      state, "fp32", [&] { benchmark::DoNotOptimize(quant::quantize(m.graph, {})); },
      [&] { m.fp32->run(m.input); });
}

void onnxLoad(benchmark::State& state, const std::string& name) {
  Model& m = model(name);
  if (m.onnxBytes.empty()) {
    // The zoo graph as built (BatchNormalization unfused), as `nnaccel zoo export` writes it.
    ir::Graph built = zoo::findZooModel(name)->build(zoo::kDefaultSeed);
    ir::inferShapes(built); // the exported file declares every output's type and shape
    m.onnxBytes = frontend::exportOnnxBytes(built);
  }
  runAgainstReference(
      state, "fp32",
      [&] {
        ir::Graph g = frontend::importOnnxBytes(m.onnxBytes, name + ".onnx");
        driver::prepareGraph(g);
        benchmark::DoNotOptimize(g);
      },
      [&] { m.fp32->run(m.input); });
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(m.onnxBytes.size()));
}

} // namespace

void registerModelBenchmarks() {
  using Fn = void (*)(benchmark::State&, const std::string&);
  const std::pair<const char*, Fn> kinds[] = {
      {"fp32", fp32Run}, {"int8", int8Run}, {"calibrate", calibrate}, {"onnx_load", onnxLoad}};
  for (const auto& [kind, fn] : kinds) {
    for (const zoo::ZooModel& zm : zoo::zooModels()) {
      benchmark::RegisterBenchmark((std::string(kind) + "/" + zm.name).c_str(), fn, zm.name)
          ->UseRealTime()
          ->Unit(benchmark::kMillisecond);
    }
  }
}

} // namespace nnaccel::bench
