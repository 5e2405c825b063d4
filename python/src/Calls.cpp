// The Python package's calls (Calls.h): each one is a CLI command's work without the parsing.
#include "Calls.h"

#include "Arrays.h"
#include "nnaccel/compare/Compare.h"
#include "nnaccel/driver/Inputs.h"
#include "nnaccel/driver/ModelLoader.h"
#include "nnaccel/driver/ModelSummary.h"
#include "nnaccel/engines/Engine.h"
#include "nnaccel/explore/Sweep.h"
#include "nnaccel/frontend/Onnx.h"
#include "nnaccel/ir/OpKind.h"
#include "nnaccel/ir/ShapeInference.h"
#include "nnaccel/quant/Int8Executor.h"
#include "nnaccel/quant/QuantizedModel.h"
#include "nnaccel/reference/Executor.h"
#include "nnaccel/support/Error.h"
#include "nnaccel/zoo/Zoo.h"

#include <fmt/format.h>
#include <pybind11/stl.h>

namespace py = pybind11;

namespace nnaccel::python {
namespace {

/// Runs \p work with the GIL released. \p progress (a Python callable taking (what, done,
/// total), or None) is called between layers with the GIL held; there, a pending Ctrl-C
/// (PyErr_CheckSignals) stops the run by throwing the KeyboardInterrupt through nnaccel's code,
/// whose state is all RAII, back to Python.
template <typename Work> auto interruptible(const py::object& progress, Work&& work) {
  std::function<void(const std::string&, size_t, size_t)> report =
      [&progress](const std::string& what, size_t done, size_t total) {
        py::gil_scoped_acquire gil;
        if (PyErr_CheckSignals() != 0)
          throw py::error_already_set();
        if (!progress.is_none())
          progress(what, done, total);
      };
  py::gil_scoped_release release;
  return work(report);
}

engines::EngineConfig configOf(const std::string& arch, const std::string& preset,
                               const std::string& config,
                               const std::vector<std::string>& overrides) {
  if (!preset.empty() && !config.empty())
    throw Error(ErrorKind::Usage, ErrorContext{.key = "config"},
                "give a preset or a config file, not both");
  std::vector<engines::Override> parsed;
  for (const std::string& t : overrides)
    parsed.push_back(engines::parseOverride(t));
  return engines::loadConfig(arch, preset, config, parsed, "overrides");
}

/// The engine's own options (`--threads`, `--exact`, ...) by name, checked as the CLI checks
/// them.
std::map<std::string, int64_t> engineOptionsOf(const engines::Engine& e,
                                               const std::map<std::string, int64_t>& given) {
  for (const auto& [name, value] : given) {
    const std::vector<engines::OptionSpec> specs = e.runOptions();
    const auto spec = std::find_if(specs.begin(), specs.end(),
                                   [&](const engines::OptionSpec& s) { return s.name == name; });
    if (spec == specs.end())
      throw Error(ErrorKind::Usage, ErrorContext{.key = name},
                  fmt::format("the {} engine has no option '{}'", e.name(), name));
    const bool flag = spec->kind == engines::OptionSpec::Kind::Flag;
    const int64_t lo = flag ? 0 : spec->min, hi = flag ? 1 : spec->max;
    if (value < lo || value > hi)
      throw Error(ErrorKind::Usage, ErrorContext{.key = name},
                  fmt::format("{} is outside [{}, {}]", value, lo, hi));
  }
  return given;
}

engines::HostModel hostOf(const std::vector<std::string>& settings) {
  engines::HostModel m;
  for (const std::string& s : settings) {
    const engines::Override o = engines::parseOverride(s);
    engines::setHostModelKey(m, o.key, o.value);
  }
  return m;
}

/// The int8 options as the engines' RunOptions carry them.
void applyInt8(engines::RunOptions& ro, const ir::Graph& g, const Int8Options& int8) {
  if (!quant::calibrationMethodFromName(int8.method))
    throw Error(ErrorKind::Usage, ErrorContext{.key = "calibration_method"},
                fmt::format("'{}' is not a calibration method (minmax, percentile, mse, entropy)",
                            int8.method));
  ro.calibrationMethod = int8.method;
  ro.calibrationPercentile = int8.percentile;
  ro.calibrationEqualize = int8.equalize;
  ro.calibrationAsymmetric = int8.asymmetric;
  ro.calibrationBiasCorrection = int8.biasCorrection;
  if (!int8.calibration.is_none()) {
    size_t i = 0;
    for (const py::handle set : int8.calibration) {
      ro.calibrationSets.push_back(toTensors(set, fmt::format("calibration[{}]", i++)));
      quant::checkCalibrationInputs(g, ro.calibrationSets.back(), {}, i - 1);
    }
  } else if (!ro.inputs.empty()) {
    ro.calibrationSets = {ro.inputs};
  }
}

std::vector<Tensor> inputsOf(const Model& m, const py::handle& inputs) {
  std::vector<Tensor> out = toTensors(inputs, "inputs");
  if (!out.empty() && out.size() != m.graph->inputs.size())
    throw Error(ErrorKind::Usage, ErrorContext{.file = m.source},
                fmt::format("model has {} input(s) but {} array(s) were given",
                            m.graph->inputs.size(), out.size()));
  return out;
}

py::list dimsList(const Dims& d) {
  py::list l;
  for (const int64_t v : d)
    l.append(v);
  return l;
}

py::dict pointDict(const explore::PointResult& p, const std::vector<explore::Param>& params) {
  py::dict d;
  d["index"] = p.index;
  py::dict values;
  for (size_t i = 0; i < params.size() && i < p.values.size(); ++i)
    values[py::str(params[i].key)] = p.values[i];
  d["params"] = values;
  d["status"] = explore::statusName(p.status);
  d["cycles"] = p.cycles;
  d["time_us"] = p.timeUs;
  d["energy_pj"] = p.energyPj;
  d["edp_pj_us"] = p.edpPjUs;
  d["utilization"] = p.utilization;
  d["dram_bytes"] = p.dramBytes;
  d["multipliers"] = p.multipliers;
  d["sram_bytes"] = p.sramBytes;
  d["verified"] = p.verified;
  d["error"] = p.error;
  d["pareto"] = p.pareto;
  d["best"] = p.best;
  return d;
}

} // namespace

Model load(const std::string& model, const std::map<std::string, int64_t>& dims,
           std::optional<int64_t> batch, const py::handle& inputs) {
  driver::LoadOptions options;
  options.import.dimParams = dims;
  if (batch) {
    if (*batch < 1)
      throw Error(ErrorKind::Usage, ErrorContext{.key = "batch"},
                  fmt::format("batch {} must be at least 1", *batch));
    options.import.defaultSymbolicDim = *batch;
    options.import.batchGiven = true;
  }
  if (driver::modelSource(model) == driver::ModelSource::Zoo && !dims.empty())
    throw Error(ErrorKind::Usage, ErrorContext{.key = "dims"},
                fmt::format("dims apply only to .onnx files ('{}' is a zoo model with no named "
                            "dimensions; batch sets its batch)",
                            model));
  if (driver::modelSource(model) == driver::ModelSource::File) {
    size_t i = 0;
    for (const Tensor& t : toTensors(inputs, "inputs"))
      options.import.inputData.push_back(
          frontend::InputData{.file = fmt::format("inputs[{}]", i++), .shape = t.shape()});
  }
  py::gil_scoped_release release;
  return Model{model, std::make_shared<const ir::Graph>(driver::loadModel(model, options))};
}

std::string infoJson(const Model& m) {
  return driver::summaryJson(*m.graph, driver::summarizeModel(*m.graph));
}

py::list run(const Model& m, const py::handle& inputs, const std::string& dtype, uint64_t seed,
             const Int8Options& int8) {
  if (dtype != "f32" && dtype != "fp32" && dtype != "int8")
    throw Error(ErrorKind::Usage, ErrorContext{.key = "dtype"},
                fmt::format("'{}' is not a dtype (f32 or int8)", dtype));
  const ir::Graph& g = *m.graph;
  std::vector<Tensor> in = inputsOf(m, inputs);
  engines::RunOptions ro; // the int8 options, parsed and checked as simulate's are
  ro.inputs = in;
  if (dtype == "int8")
    applyInt8(ro, g, int8);
  std::vector<Tensor> out;
  {
    py::gil_scoped_release release;
    if (in.empty())
      in = quant::randomInputs(g, seed);
    if (dtype != "int8") {
      reference::Executor executor(g);
      out = executor.run(in);
    } else {
      quant::checkFiniteInt8Inputs(g, in);
      quant::CalibrationOptions calibration;
      calibration.method = *quant::calibrationMethodFromName(ro.calibrationMethod);
      calibration.percentile = ro.calibrationPercentile;
      calibration.equalize = ro.calibrationEqualize;
      calibration.asymmetric = ro.calibrationAsymmetric;
      calibration.biasCorrection = ro.calibrationBiasCorrection;
      const quant::QuantizedModel qm = quant::quantize(g, ro.calibrationSets, calibration);
      quant::Int8Executor executor(qm);
      out = executor.run(in).dequantized;
    }
  }
  return toArrays(out);
}

std::string simulate(const Model& m, const py::handle& inputs, const SimulateOptions& o,
                     const Int8Options& int8, const py::object& progress) {
  const engines::EngineConfig config = configOf(o.arch, o.preset, o.config, o.overrides);
  const engines::Engine& engine = config.implementation();
  engines::RunOptions ro;
  ro.inputs = inputsOf(m, inputs);
  if (o.dtype != "int8" && o.dtype != "fp32" && o.dtype != "f32")
    throw Error(ErrorKind::Usage, ErrorContext{.key = "dtype"},
                fmt::format("'{}' is not a dtype (int8 or fp32)", o.dtype));
  ro.dtype = o.dtype == "int8" ? DType::I8 : DType::F32;
  if (ro.dtype == DType::F32 && !engine.fp32Unavailable().empty())
    throw Error(ErrorKind::Usage, ErrorContext{.key = "dtype"},
                fmt::format("the {} engine {}; dtype fp32 is not available", engine.name(),
                            engine.fp32Unavailable()));
  if (ro.dtype == DType::I8)
    quant::checkFiniteInt8Inputs(*m.graph, ro.inputs);
  applyInt8(ro, *m.graph, int8);
  ro.verify = !o.timingOnly;
  ro.baselineRows = o.baseline;
  ro.engineOptions = engineOptionsOf(engine, o.engineOptions);
  ro.host = hostOf(o.host);
  ro.threads = o.threads;
  return interruptible(progress, [&](auto& report) {
    ro.progress = report;
    const report::RunReport r = engine.simulate(*m.graph, config, ro);
    return r.toJson();
  });
}

std::string compare(const Model& m, const std::string& budgetFile,
                    const std::vector<std::string>& engineList, bool timingOnly,
                    const py::object& progress) {
  const compare::Budget budget =
      budgetFile.empty() ? compare::defaultBudget() : compare::loadBudgetFile(budgetFile);
  const std::vector<std::string> list = engineList.empty() ? engines::engineNames() : engineList;
  for (const std::string& e : list)
    (void)engines::engineNamed(e); // an unknown name is a usage error before any run
  engines::RunOptions ro;
  ro.verify = !timingOnly;
  return interruptible(progress, [&](auto& report) {
    ro.progress = report;
    const compare::Comparison c = compare::compareModel(
        *m.graph, budget, list, ro, [&](const std::string& engine) { report(engine, 0, 1); });
    for (const compare::EngineRun& r : c.runs)
      if (r.internalError)
        throw std::runtime_error(fmt::format("{}: {}", r.engine, r.error));
    return compare::comparisonJson(c);
  });
}

py::list sweep(const Model& m, const SimulateOptions& base, const std::vector<std::string>& params,
               const std::string& objective, const std::vector<std::string>& paretoAxes,
               int threads, const py::object& progress) {
  const engines::EngineConfig config =
      configOf(base.arch, base.preset, base.config, base.overrides);
  std::vector<explore::Param> ps;
  for (const std::string& text : params)
    ps.push_back(explore::parseParam(text));
  const explore::Grid grid(ps);
  explore::checkParams(config, ps);
  const explore::Objective obj = explore::parseObjective(objective);
  const std::vector<std::string> axes =
      paretoAxes.empty() ? explore::defaultParetoAxes()
                         : explore::parseParetoAxes(fmt::format("{}", fmt::join(paretoAxes, ",")));
  if (threads < 1)
    throw Error(ErrorKind::Usage, ErrorContext{.key = "threads"},
                fmt::format("threads {} must be at least 1", threads));
  engines::RunOptions ro;
  ro.verify = !base.timingOnly;
  ro.host = hostOf(base.host);
  ro.threads = 1; // the points are the parallelism
  std::vector<size_t> indices(grid.size());
  for (size_t i = 0; i < indices.size(); ++i)
    indices[i] = i;
  std::vector<explore::PointResult> points = interruptible(progress, [&](auto& report) {
    return explore::runPoints(
        indices, threads,
        [&](size_t index) { return explore::evaluatePoint(*m.graph, config, grid, index, ro); },
        [&](const explore::PointResult&, size_t done, size_t total) {
          report("sweep", done, total);
        });
  });
  explore::rankPoints(points, obj, axes);
  py::list out;
  for (const explore::PointResult& p : points)
    out.append(pointDict(p, ps));
  return out;
}

py::list engines() {
  py::list out;
  for (const engines::Engine* e : engines::allEngines()) {
    py::dict d;
    d["name"] = e->name();
    d["description"] = e->description();
    d["presets"] = e->presetNames();
    d["default_preset"] = e->defaultPreset();
    d["fp32"] = e->fp32Unavailable().empty();
    out.append(d);
  }
  return out;
}

std::string configYaml(const std::string& arch, const std::string& preset,
                       const std::string& config, const std::vector<std::string>& overrides) {
  return configOf(arch, preset, config, overrides).toYaml();
}

py::list zooList() {
  py::list out;
  for (const zoo::ZooModel& z : zoo::zooModels()) {
    const zoo::ModelCounts counts = z.counts();
    py::dict d;
    d["name"] = z.name;
    d["description"] = z.description;
    d["input_shape"] = dimsList(z.inputShape);
    d["classifier"] = z.isClassifier;
    d["params"] = counts.params;
    d["macs"] = counts.macs;
    out.append(d);
  }
  return out;
}

void zooExport(const std::string& name, const std::string& path, uint64_t seed) {
  const zoo::ZooModel* z = driver::resolveZooModel(name);
  if (z == nullptr)
    throw Error(ErrorKind::Usage, {},
                fmt::format("no zoo model named '{}' (see nnaccel.zoo.list())", name));
  driver::checkWritable(path);
  py::gil_scoped_release release;
  ir::Graph g = z->build(seed);
  ir::inferShapes(g);
  frontend::exportOnnxFile(g, path);
}

} // namespace nnaccel::python
