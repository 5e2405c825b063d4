/// \file
/// `nnaccel simulate`, `nnaccel compile`, `nnaccel disasm` and `nnaccel map`: compile a model for
/// a registered accelerator engine, look at its program or placement, run it on the engine's
/// simulator with every layer checked against the reference executor, and print the common
/// per-layer report (--report writes it as JSON). One code path for every engine: the options an
/// engine adds are declared by the engine (EngineOptions.h), and the capabilities (program
/// files, placement, fp32) are asked of the registry.
#include "ArchOptions.h"
#include "CalibrationOptions.h"
#include "Command.h"
#include "EngineOptions.h"
#include "HostOptions.h"
#include "ImageOptions.h"
#include "ModelOptions.h"
#include "Progress.h"
#include "ReportOutput.h"
#include "StopOnCtrlC.h"
#include "nnaccel/driver/Inputs.h"
#include "nnaccel/driver/ModelLoader.h"
#include "nnaccel/engines/Engine.h"
#include "nnaccel/passes/Prune.h"
#include "nnaccel/quant/QuantizedModel.h"
#include "nnaccel/report/Html.h"
#include "nnaccel/support/Cores.h"
#include "nnaccel/support/Interrupt.h"

#include <chrono>
#include <csignal>
#include <fmt/format.h>
#include <fstream>
#include <unistd.h>

namespace nnaccel::cli {
namespace {

DType dtypeOf(const std::string& s) {
  return s == "int8" ? DType::I8 : DType::F32;
}

/// The registered engines with program files (`compile`, `disasm`, `simulate --program`).
std::vector<std::string> programEngines() {
  std::vector<std::string> out;
  for (const engines::Engine* e : engines::allEngines())
    if (e->hasProgramFiles())
      out.push_back(e->name());
  return out;
}

class SimulateCommand final : public Command {
public:
  void configure(CLI::App& app) override {
    app_ = &app;
    modelOptions_.configure(app);
    images_.configure(app);
    calibration_.configure(app);
    arch_.configure(app);
    app.add_option("--dtype", dtype_,
                   "int8 (bit-exact against the int8 reference) or fp32 (engines with an fp32 "
                   "path, within the tolerance their docs state)")
        ->check(oneOf({"int8", "fp32"}))
        ->capture_default_str();
    app.add_option("--input", inputs_,
                   "a .npy file or a PNG/JPEG image for each model input, in order (default: a "
                   "seeded random input)");
    app.add_option("--report", report_,
                   "also write the report as JSON (docs/report-schema.md) to this file (- for "
                   "standard output)");
    output_.configure(app, "charts of cycles by cause, utilization, traffic, energy, the "
                           "engine's own per-layer figures, a DRAM and on-chip roofline, and "
                           "the config");
    app.add_option("--program", program_,
                   "run this compiled program (from `nnaccel compile`) instead of compiling");
    std::vector<std::string> baselines;
    for (const engines::Engine* e : engines::allEngines())
      if (!e->baselineDescription().empty())
        baselines.push_back(fmt::format("{}: {}", e->name(), e->baselineDescription()));
    app.add_flag("--baseline", baseline_,
                 fmt::format("also compare every layer with the baseline the patent improves on "
                             "({})",
                             fmt::join(baselines, "; ")));
    engineOptions_.configure(app);
    hostOptions_.configure(app);
    app.add_option(
        "--weight-densities", weightDensities_,
        "magnitude-prune the weights first, per layer, as `prune --weight-densities` does: a "
        "JSON file {\"layer name\": density, ...} with an optional \"default\"");
    app.add_option("--activation-densities", activationDensities_,
                   "engines whose timing depends on the data (sparse): each array layer named in "
                   "this JSON file ({\"layer name\": density, ...}, optional \"default\") reads "
                   "seeded synthetic activations of exactly that density and is verified on them");
    app.add_flag("--timing-only", timingOnly_,
                 "skip the verification against the reference executor (an engine whose timing "
                 "does not depend on the data runs its cycle model only)");
  }

  void run() override {
    const engines::Engine& engine = arch_.implementation();
    engines::RunOptions ro;
    ro.engineOptions = engineOptions_.collect(*app_, engine.name());
    ro.host = hostOptions_.model();
    if (timingOnly_)
      engineOptions_.checkTimingOnly(*app_, ro.engineOptions);
    checkEngineTakes(engine);
    ir::Graph g = driver::loadModel(modelOptions_.model(),
                                    modelOptions_.loadOptions(inputs_, images_.preprocess()));
    if (!weightDensities_.empty())
      passes::magnitudePrune(g, passes::readPruneSpecFile(weightDensities_));
    if (!activationDensities_.empty()) {
      const passes::PruneSpec spec = passes::readPruneSpecFile(activationDensities_);
      ro.activationDensities = {spec.density, spec.perLayer, activationDensities_};
    }
    if (!inputs_.empty() && inputs_.size() != g.inputs.size())
      throw usageError(*app_,
                       fmt::format("model '{}' has {} input(s) but {} --input file(s) were given",
                                   modelOptions_.model(), g.inputs.size(), inputs_.size()));
    output_.check(*app_, {&report_});
    for (size_t i = 0; i < inputs_.size(); ++i)
      ro.inputs.push_back(driver::readInputFile(g, i, inputs_[i], images_.preprocess()));
    if (dtype_ == "int8") // the engines refuse them too, without knowing the files
      quant::checkFiniteInt8Inputs(g, ro.inputs, inputs_);
    // The int8 model is calibrated as `run --dtype int8` calibrates it: on --calib's files, else
    // on the --input files, else on the default seeded random sets. A --program was compiled on
    // the default sets (`compile` has no calibration options), so its reference is too.
    calibration_.check();
    ro.calibrationMethod = std::string(quant::calibrationMethodName(calibration_.method().method));
    ro.calibrationPercentile = calibration_.method().percentile;
    ro.calibrationEqualize = calibration_.method().equalize;
    ro.calibrationAsymmetric = calibration_.method().asymmetric;
    ro.calibrationBiasCorrection = calibration_.method().biasCorrection;
    if (calibration_.hasFolder())
      ro.calibrationSets = calibration_.readFolder(g, modelOptions_.model(), images_.preprocess());
    else if (!ro.inputs.empty() && program_.empty())
      ro.calibrationSets = {ro.inputs};
    ProgressLine progress;
    ro.verify = !timingOnly_;
    ro.baselineRows = baseline_;
    ro.dtype = dtypeOf(dtype_);
    ro.programFile = program_;
    ro.threads = defaultSimulationThreads();
    ro.progress = std::ref(progress);
    ro.layerProgress = [&progress](size_t layer, size_t layers, double fraction) {
      progress.layerFraction(layer, layers, fraction);
    };
    const StopOnCtrlC stop;
    std::optional<report::RunReport> r;
    try {
      r = engine.simulate(g, arch_.engineConfig(), ro);
    } catch (const Interrupted&) {
      fmt::print(stderr, "[nnaccel] interrupted before the first layer finished; no report "
                         "written\n");
      throw;
    }
    write(*r);
    if (r->interrupted) {
      fmt::print(stderr,
                 "[nnaccel] interrupted: the report holds the {} of {} layers that finished{}\n",
                 r->layers.size(), r->layersPlanned,
                 report_.empty() && !output_.wantsCsv() && !output_.wantsHtml()
                     ? ""
                     : " (written to the requested files)");
      throw Interrupted();
    }
  }

private:
  /// The options the command itself has that \p engine cannot take: usage errors.
  void checkEngineTakes(const engines::Engine& engine) const {
    const std::string unavailable = engine.fp32Unavailable();
    if (dtype_ != "int8" && !unavailable.empty())
      throw usageError(*app_, fmt::format("the {} engine {}; --dtype fp32 is not available",
                                          engine.name(), unavailable));
    if (program_.empty())
      return;
    if (!weightDensities_.empty())
      throw usageError(*app_, "--program carries its own weights; drop --weight-densities");
    if (!engine.hasProgramFiles())
      throw usageError(*app_,
                       fmt::format("--program applies to {}", enginesPhrase(programEngines())));
    if (baseline_)
      throw usageError(*app_, "--baseline compiles the model; it cannot be combined with "
                              "--program");
    if (arch_.given())
      throw usageError(*app_, "--program carries its own config; drop --preset/--config/--set");
    for (const CLI::Option* o : calibration_.options())
      if (o->count() > 0)
        throw usageError(*app_, fmt::format("--program carries its own int8 scales (`compile` "
                                            "calibrates on the default seeded sets); drop {}",
                                            o->get_name()));
  }

  void write(const report::RunReport& r) const {
    fmt::print(humanOut(), "{}", r.formatTable());
    if (!report_.empty())
      writeTextFile(report_, r.toJson() + "\n");
    if (output_.wantsCsv())
      output_.writeCsv(report::RunReport::csvHeader() + r.toCsvRows());
    if (output_.wantsHtml())
      output_.writeHtml(report::renderRunHtml(r));
    if (r.verdict.checked && !r.verdict.passed)
      throw Error(ErrorKind::Model, ErrorContext{.file = modelOptions_.model()},
                  "simulation does not match the reference: " + r.verdict.detail);
  }

  CLI::App* app_ = nullptr;
  ModelOptions modelOptions_;
  ImageOptions images_;
  CalibrationOptions calibration_;
  ArchOptions arch_;
  EngineOptions engineOptions_;
  HostOptions hostOptions_;
  std::string dtype_ = "int8";
  std::vector<std::string> inputs_;
  std::string report_, program_, weightDensities_, activationDensities_;
  ReportOutput output_;
  bool baseline_ = false, timingOnly_ = false;
};

class CompileCommand final : public Command {
public:
  void configure(CLI::App& app) override {
    app_ = &app;
    modelOptions_.configure(app);
    arch_.configure(app);
    app.add_option("--dtype", dtype_, "int8 or fp32")
        ->check(oneOf({"int8", "fp32"}))
        ->capture_default_str();
    app.add_option("-o,--output", output_, "program file to write (.nnx)")->required();
    app.add_flag("--baseline", baseline_, "compile the patents' baselines instead");
  }
  void run() override {
    const engines::Engine& engine = arch_.implementation();
    if (!engine.hasProgramFiles())
      throw usageError(*app_,
                       fmt::format("the {} engine has no program file; 'compile' and "
                                   "'disasm' apply to {} ('simulate --arch {}' compiles "
                                   "and runs in one step)",
                                   engine.name(), enginesPhrase(programEngines()), engine.name()));
    const engines::EngineConfig config = arch_.engineConfig();
    const ir::Graph g = driver::loadModel(modelOptions_.model(), modelOptions_.loadOptions());
    driver::checkWritable(output_);
    engines::ProgramOptions po;
    po.dtype = dtypeOf(dtype_);
    po.baseline = baseline_;
    fmt::print("{}wrote {}\n", engine.writeProgram(g, config, po, output_), output_);
  }

private:
  CLI::App* app_ = nullptr;
  ModelOptions modelOptions_;
  ArchOptions arch_;
  std::string dtype_ = "int8", output_;
  bool baseline_ = false;
};

class DisasmCommand final : public Command {
public:
  void configure(CLI::App& app) override {
    app_ = &app;
    app.add_option("PROGRAM", path_, "a program file written by `nnaccel compile`")->required();
    const std::vector<std::string> names = programEngines();
    if (!names.empty())
      engine_ = names.front();
    app.add_option("--arch", engine_, "the engine that wrote the program")
        ->check(CLI::IsMember(names))
        ->capture_default_str();
  }
  void run() override {
    if (engine_.empty())
      throw usageError(*app_, "no registered engine writes program files");
    fmt::print("{}", engines::engineNamed(engine_).disassemble(path_));
  }

private:
  CLI::App* app_ = nullptr;
  std::string path_, engine_;
};

/// `nnaccel map MODEL --arch E`: the placement of a model on an engine that places layers on
/// fixed resources (which layer on which tiles and rows, mux selects, FIFO delays) as a table.
class MapCommand final : public Command {
public:
  void configure(CLI::App& app) override {
    app_ = &app;
    modelOptions_.configure(app);
    arch_.configure(app);
    engineOptions_.configure(app, true);
  }
  void run() override {
    const engines::Engine& engine = arch_.implementation();
    if (!engine.hasPlacement()) {
      std::vector<std::string> placing;
      for (const engines::Engine* e : engines::allEngines())
        if (e->hasPlacement())
          placing.push_back(e->name());
      throw usageError(*app_, fmt::format("'map' prints a model's placement on an engine's fixed "
                                          "resources; the {} engine has no placement (use "
                                          "--arch {})",
                                          engine.name(), fmt::join(placing, " or --arch ")));
    }
    engines::RunOptions ro;
    ro.engineOptions = engineOptions_.collect(*app_, engine.name());
    const engines::EngineConfig config = arch_.engineConfig();
    const ir::Graph g = driver::loadModel(modelOptions_.model(), modelOptions_.loadOptions());
    fmt::print("{}", engine.placement(g, config, ro));
  }

private:
  CLI::App* app_ = nullptr;
  ModelOptions modelOptions_;
  ArchOptions arch_;
  EngineOptions engineOptions_;
};

} // namespace

std::unique_ptr<Command> makeMapCommand() {
  return std::make_unique<MapCommand>();
}
std::unique_ptr<Command> makeSimulateCommand() {
  return std::make_unique<SimulateCommand>();
}
std::unique_ptr<Command> makeCompileCommand() {
  return std::make_unique<CompileCommand>();
}
std::unique_ptr<Command> makeDisasmCommand() {
  return std::make_unique<DisasmCommand>();
}

} // namespace nnaccel::cli
