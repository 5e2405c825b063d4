/// \file
/// `nnaccel simulate`, `nnaccel compile` and `nnaccel disasm`: compile a model for an accelerator
/// engine (systolic, sparse, broadcast), look at the program, run it on the engine's simulator
/// with every layer checked against the reference executor, and print the common per-layer
/// report (--report writes it as JSON). Each engine has one run function; a table maps --arch to
/// it, and each function rejects the options that do not apply to its engine.
#include "ArchOptions.h"
#include "Command.h"
#include "ModelOptions.h"
#include "ReportOutput.h"
#include "nnaccel/arch/broadcast/Session.h"
#include "nnaccel/arch/sparse/Session.h"
#include "nnaccel/arch/stream/Session.h"
#include "nnaccel/arch/systolic/Session.h"
#include "nnaccel/driver/Inputs.h"
#include "nnaccel/engines/Engine.h"
#include "nnaccel/quant/QuantizedModel.h"
#include "nnaccel/report/Html.h"

#include <algorithm>
#include <chrono>
#include <fmt/core.h>
#include <fstream>
#include <iterator>
#include <string_view>
#include <thread>
#include <unistd.h>

namespace nnaccel::cli {
namespace {

/// Progress on stderr once a run has taken more than a second: one line per phase change and at
/// most one line every two seconds otherwise (a carriage-return update on a terminal).
class Progress {
public:
  void operator()(const std::string& what, size_t done, size_t total) {
    const auto now = std::chrono::steady_clock::now();
    const double elapsed = std::chrono::duration<double>(now - start_).count();
    if (elapsed < 1.0)
      return;
    const bool tty = isatty(STDERR_FILENO) != 0;
    const double since = std::chrono::duration<double>(now - last_).count();
    if (what == phase_ && since < (tty ? 0.1 : 2.0) && done != total)
      return;
    last_ = now;
    phase_ = what;
    printed_ = true;
    const std::string line =
        total > 1 ? fmt::format("[nnaccel] {}: layer {}/{} ({:.1f} s)", what, done, total, elapsed)
                  : fmt::format("[nnaccel] {} ({:.1f} s)", what, elapsed);
    if (tty)
      fmt::print(stderr, "\r{:<60}", line);
    else
      fmt::print(stderr, "{}\n", line);
    std::fflush(stderr);
  }
  ~Progress() {
    if (printed_ && isatty(STDERR_FILENO) != 0)
      fmt::print(stderr, "\n");
  }

private:
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now(), last_{};
  std::string phase_;
  bool printed_ = false;
};

DType dtypeOf(const std::string& s) {
  return s == "int8" ? DType::I8 : DType::F32;
}

class SimulateCommand final : public Command {
public:
  void configure(CLI::App& app) override {
    app_ = &app;
    modelOptions_.configure(app);
    arch_.configure(app);
    app.add_option("--dtype", dtype_,
                   "int8 (bit-exact against the int8 reference) or fp32 (systolic only)")
        ->check(CLI::IsMember({"int8", "fp32"}))
        ->capture_default_str();
    app.add_option("--input", inputs_,
                   "a .npy file for each model input, in order (default: a seeded random input)");
    app.add_option("--report", report_,
                   "also write the report as JSON (docs/report-schema.md) to this file");
    output_.configure(app);
    app.add_option("--program", program_,
                   "run this compiled program (from `nnaccel compile`) instead of compiling");
    app.add_flag("--baseline", baseline_,
                 "also compare every layer with the baseline the patent improves on (systolic: "
                 "zero-inserted transposed convolution with a rotated weight copy and "
                 "zero-inserted dilated kernels; sparse: the dense PTIS-dense array, whose "
                 "totals every sparse report shows; broadcast: the conventional 1x1 "
                 "decomposition and 1xN without broadcasting)");
    app.add_flag("--exact", exact_,
                 "systolic: step every PE register cycle by cycle (slow; for small layers)");
    threadsOption_ =
        app.add_option("--threads", threads_,
                       "sparse: simulate the PE grid on this many threads (1 or 2; results are "
                       "identical; 2, the default on a machine with two cores or more, is faster "
                       "when nothing else runs)")
            ->check(CLI::Range(1, 2))
            ->capture_default_str();
    app.add_option("--chips", chips_,
                   "stream: chain this many ASICs when the model does not fit on one (default: "
                   "the config's chips)")
        ->check(CLI::Range(int64_t{1}, int64_t{1024}));
    app.add_flag("--timing-only", timingOnly_,
                 "systolic: run the cycle model only (no data, no verification); sparse: skip "
                 "the verification (its timing depends on the data, so it always computes); "
                 "broadcast: skip the verification");
  }

  void run() override {
    const ir::Graph g = driver::loadModel(modelOptions_.model(), modelOptions_.loadOptions());
    if (!inputs_.empty() && inputs_.size() != g.inputs.size())
      throw usageError(*app_,
                       fmt::format("model '{}' has {} input(s) but {} --input file(s) were given",
                                   modelOptions_.model(), g.inputs.size(), inputs_.size()));
    if (!report_.empty())
      driver::checkWritable(report_);
    output_.check(*app_);
    std::vector<Tensor> inputs;
    for (size_t i = 0; i < inputs_.size(); ++i)
      inputs.push_back(driver::readInputFile(g, i, inputs_[i]));
    Progress progress;
    const report::RunReport r = (this->*runnerFor(arch_.engine()))(g, std::move(inputs), progress);
    fmt::print("{}", r.formatTable());
    if (!report_.empty()) {
      std::ofstream out(report_);
      out << r.toJson() << "\n";
      if (!out)
        throw Error(ErrorKind::Io, ErrorContext{.file = report_}, "cannot write the report");
      fmt::print("wrote report to {}\n", report_);
    }
    if (output_.wantsCsv())
      output_.writeCsv(report::RunReport::csvHeader() + r.toCsvRows());
    if (output_.wantsHtml())
      output_.writeHtml(report::renderRunHtml(r));
    if (r.verdict.checked && !r.verdict.passed)
      throw Error(ErrorKind::Model, ErrorContext{.file = modelOptions_.model()},
                  "simulation does not match the reference: " + r.verdict.detail);
  }

  report::RunReport runSystolic(const ir::Graph& g, std::vector<Tensor> inputs,
                                Progress& progress) {
    if (timingOnly_ && exact_)
      throw usageError(*app_, "--exact steps the data path; it cannot be combined with "
                              "--timing-only");
    if (!program_.empty() && baseline_)
      throw usageError(*app_, "--baseline compiles the model; it cannot be combined with "
                              "--program");
    const arch::systolic::SystolicConfig config = arch_.systolicConfig();
    arch::systolic::SessionOptions so;
    so.dtype = dtypeOf(dtype_);
    so.baseline = baseline_;
    so.exact = exact_;
    so.functional = !timingOnly_;
    so.inputs = std::move(inputs);
    if (!program_.empty()) {
      so.program = arch::systolic::readProgramFile(program_);
      if (arch_.given())
        throw usageError(*app_, "--program carries its own config; drop --preset/--config");
    }
    so.progress = std::ref(progress);
    report::RunReport r = arch::systolic::simulateModel(g, config, so).report;
    engines::describeMachine(r, engines::EngineConfig(config));
    return r;
  }

  /// The run function of each engine in kEngines (ArchOptions.h).
  using Runner = report::RunReport (SimulateCommand::*)(const ir::Graph&, std::vector<Tensor>,
                                                        Progress&);
  static Runner runnerFor(const std::string& engine) {
    static constexpr std::pair<std::string_view, Runner> kRunners[] = {
        {"systolic", &SimulateCommand::runSystolic},
        {"sparse", &SimulateCommand::runSparse},
        {"broadcast", &SimulateCommand::runBroadcast},
        {"stream", &SimulateCommand::runStream},
    };
    const auto* it = std::find_if(std::begin(kRunners), std::end(kRunners),
                                  [&](const auto& entry) { return entry.first == engine; });
    NNACCEL_ASSERT(it != std::end(kRunners)) << "no simulate path for engine '" << engine << "'";
    return it->second;
  }

  /// The options only the systolic engine takes (--dtype fp32, --exact, --program) and
  /// --threads, which only the sparse engine takes, are usage errors on \p engine. \p integers
  /// says why it has no fp32 path, \p oneModel why it has no --exact.
  void rejectOtherEnginesOptions(std::string_view engine, std::string_view integers,
                                 std::string_view oneModel) const {
    if (dtype_ != "int8")
      throw usageError(
          *app_, fmt::format("the {} engine {}; --dtype fp32 is not available", engine, integers));
    if (exact_)
      throw usageError(*app_, fmt::format("--exact applies to the systolic engine; the {} "
                                          "engine {}",
                                          engine, oneModel));
    if (!program_.empty())
      throw usageError(*app_, "--program applies to the systolic engine");
    if (engine != "sparse" && threadsOption_->count() > 0)
      throw usageError(*app_, "--threads applies to the sparse engine");
  }

  report::RunReport runSparse(const ir::Graph& g, std::vector<Tensor> inputs, Progress& progress) {
    rejectOtherEnginesOptions("sparse",
                              "computes on integers (int8 data in its value_bits-wide words)",
                              "is always simulated cycle by cycle");
    const arch::sparse::SparseConfig config = arch_.sparseConfig();
    arch::sparse::SessionOptions so;
    so.verify = !timingOnly_;
    so.baselineRows = baseline_;
    so.threads = threads_;
    so.inputs = std::move(inputs);
    so.progress = std::ref(progress);
    report::RunReport r = arch::sparse::simulateModel(g, config, so).report;
    engines::describeMachine(r, engines::EngineConfig(config));
    return r;
  }

  report::RunReport runBroadcast(const ir::Graph& g, std::vector<Tensor> inputs,
                                 Progress& progress) {
    rejectOtherEnginesOptions("broadcast",
                              "models int8 operands with int32 accumulation (fp16/bf16 are "
                              "not modelled)",
                              "has a single cycle model (no register-level mode)");
    const arch::broadcast::BroadcastConfig config = arch_.broadcastConfig();
    arch::broadcast::SessionOptions so;
    so.verify = !timingOnly_;
    so.baselineRows = baseline_;
    so.inputs = std::move(inputs);
    so.progress = std::ref(progress);
    report::RunReport r = arch::broadcast::simulateModel(g, config, so).report;
    engines::describeMachine(r, engines::EngineConfig(config));
    return r;
  }

  report::RunReport runStream(const ir::Graph& g, std::vector<Tensor> inputs, Progress& progress) {
    rejectOtherEnginesOptions("stream", "streams int8 activations with int32 partial sums",
                              "has a single position-by-position model");
    engines::RunOptions ro;
    ro.verify = !timingOnly_;
    ro.inputs = std::move(inputs);
    ro.progress = std::ref(progress);
    ro.streamChips = chips_;
    return engines::simulate(g, engines::EngineConfig(arch_.streamConfig()), ro);
  }

private:
  CLI::App* app_ = nullptr;
  ModelOptions modelOptions_;
  ArchOptions arch_;
  int64_t chips_ = 0;
  std::string dtype_ = "int8";
  std::vector<std::string> inputs_;
  std::string report_, program_;
  ReportOutput output_;
  bool baseline_ = false, exact_ = false, timingOnly_ = false;
  CLI::Option* threadsOption_ = nullptr;
  /// Two when the machine has two cores or more: the CLI's runs are usually alone on it.
  int threads_ = std::thread::hardware_concurrency() >= 2 ? 2 : 1;
};

class CompileCommand final : public Command {
public:
  void configure(CLI::App& app) override {
    app_ = &app;
    modelOptions_.configure(app);
    arch_.configure(app);
    app.add_option("--dtype", dtype_, "int8 or fp32")
        ->check(CLI::IsMember({"int8", "fp32"}))
        ->capture_default_str();
    app.add_option("-o,--output", output_, "program file to write (.nnx)")->required();
    app.add_flag("--baseline", baseline_, "compile the patents' baselines instead");
  }
  void run() override {
    if (arch_.engine() != "systolic")
      throw usageError(*app_, fmt::format("the {} engine has no program file; 'compile' and "
                                          "'disasm' apply to the systolic engine ('simulate "
                                          "--arch {}' compiles and runs in one step)",
                                          arch_.engine(), arch_.engine()));
    const arch::systolic::SystolicConfig config = arch_.systolicConfig();
    const ir::Graph g = driver::loadModel(modelOptions_.model(), modelOptions_.loadOptions());
    driver::checkWritable(output_);
    arch::systolic::CompileOptions co;
    co.dtype = dtypeOf(dtype_);
    co.baseline = baseline_;
    std::optional<quant::QuantizedModel> qm;
    if (co.dtype == DType::I8)
      qm = quant::quantize(g, {});
    const arch::systolic::Program p = arch::systolic::compile(g, qm ? &*qm : nullptr, config, co);
    arch::systolic::writeProgramFile(p, output_);
    int64_t host = 0;
    for (const auto& l : p.layers)
      host += l.unit == arch::systolic::LayerUnit::Host ? 1 : 0;
    fmt::print("compiled '{}' for systolic/{} ({}x{} PEs, {}): {} layers ({} on the host), {} "
               "instructions, {} bytes of DRAM\nwrote {}\n",
               g.name, config.name, config.peRows, config.peCols, dtype_, p.layers.size(), host,
               p.instructions.size(), p.dramBytes, output_);
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
    app.add_option("PROGRAM", path_, "a program file written by `nnaccel compile`")->required();
  }
  void run() override {
    fmt::print("{}", arch::systolic::disassemble(arch::systolic::readProgramFile(path_)));
  }

private:
  std::string path_;
};

/// `nnaccel map MODEL --arch stream`: the placement of a model on the stream ASIC (which layer
/// on which tiles and rows, mux selects, FIFO delays) as a readable table.
class MapCommand final : public Command {
public:
  void configure(CLI::App& app) override {
    app_ = &app;
    modelOptions_.configure(app);
    arch_.configure(app);
    app.add_option("--chips", chips_, "chain this many ASICs (default: the config's chips)")
        ->check(CLI::Range(int64_t{1}, int64_t{1024}));
  }
  void run() override {
    if (arch_.engine() != "stream")
      throw usageError(*app_, fmt::format("'map' places a model on the stream ASIC's tiles; the "
                                          "{} engine has no placement (use --arch stream)",
                                          arch_.engine()));
    const arch::stream::StreamConfig config = arch_.streamConfig();
    const ir::Graph g = driver::loadModel(modelOptions_.model(), modelOptions_.loadOptions());
    const quant::QuantizedModel qm = quant::quantize(g, {});
    arch::stream::CompileOptions co;
    co.chips = chips_;
    const arch::stream::Program p = arch::stream::compile(qm, config, co);
    fmt::print("placement of '{}' on stream '{}':\n{}", g.name, config.name,
               arch::stream::placementTable(p));
  }

private:
  CLI::App* app_ = nullptr;
  ModelOptions modelOptions_;
  ArchOptions arch_;
  int64_t chips_ = 0;
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
