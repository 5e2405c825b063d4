/// \file
/// `nnaccel compare MODEL [--archs a,b,...] [--budget FILE]`: the same model on several engines
/// under one equal-resource budget (compare::compareModel), printed as side-by-side tables, and
/// written as JSON (--report), CSV (--csv) and HTML (--html, --screenshot) on request.
#include "Command.h"
#include "HostOptions.h"
#include "ModelOptions.h"
#include "Progress.h"
#include "ReportOutput.h"
#include "StopOnCtrlC.h"
#include "nnaccel/compare/Compare.h"
#include "nnaccel/driver/Inputs.h"
#include "nnaccel/driver/ModelLoader.h"

#include <chrono>
#include <fmt/format.h>
#include <memory>

namespace nnaccel::cli {
namespace {

class CompareCommand final : public Command {
public:
  void configure(CLI::App& app) override {
    app_ = &app;
    modelOptions_.configure(app);
    app.add_option("--archs", engines_, "engines to compare, comma-separated")
        ->delimiter(',')
        ->check(oneOf(engines::engineNames()))
        ->capture_default_str();
    app.add_option("--budget", budgetFile_,
                   "equal-resource budget (YAML, docs/Compare.md; default: "
                   "configs/budgets/default.yaml, compiled in)");
    app.add_option("--report", report_,
                   "also write the comparison as JSON to this file (- for standard output)");
    app.add_flag("--timing-only", timingOnly_,
                 "skip the verification against the reference executor");
    app.add_flag("--show-budget", showBudget_, "print the effective budget as YAML and exit");
    output_.configure(app, "the engines' totals side by side, then each engine's charts");
    hostOptions_.configure(app);
  }

  void run() override {
    const compare::Budget budget =
        budgetFile_.empty() ? compare::defaultBudget() : compare::loadBudgetFile(budgetFile_);
    if (showBudget_) {
      fmt::print("{}", compare::toYaml(budget));
      return;
    }
    if (engines_.empty())
      throw usageError(*app_, "--archs needs at least one engine");
    const ir::Graph g = driver::loadModel(modelOptions_.model(), modelOptions_.loadOptions());
    output_.check(*app_, {&report_});
    engines::RunOptions options;
    options.verify = !timingOnly_;
    options.host = hostOptions_.model();
    // One line per engine: which, of how many, and the time so far with what is left at the
    // rate of the engines done (they differ, so an estimate); then that engine's own phases
    // and layers, as `simulate` shows them.
    const auto start = std::chrono::steady_clock::now();
    size_t started = 0;
    std::unique_ptr<ProgressLine> engineProgress;
    options.progress = [&](const std::string& what, size_t done, size_t total) {
      if (engineProgress)
        (*engineProgress)(what, done, total);
    };
    options.layerProgress = [&](size_t layer, size_t layers, double fraction) {
      if (engineProgress)
        engineProgress->layerFraction(layer, layers, fraction);
    };
    const StopOnCtrlC stop;
    const compare::Comparison c =
        compare::compareModel(g, budget, engines_, options, [&](const std::string& engine) {
          engineProgress.reset();
          const double elapsed =
              std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
          fmt::print(stderr, "[nnaccel] engine {}/{}: {} ({:.1f} s{})\n", started + 1,
                     engines_.size(), engine, elapsed,
                     remainingText(elapsed, started, engines_.size()));
          ++started;
          engineProgress = std::make_unique<ProgressLine>(fmt::format("{}: ", engine));
        });
    engineProgress.reset();
    fmt::print(humanOut(), "{}", compare::formatComparison(c));
    if (!report_.empty())
      writeTextFile(report_, compare::comparisonJson(c));
    if (output_.wantsCsv())
      output_.writeCsv(compare::comparisonCsv(c));
    if (output_.wantsHtml())
      output_.writeHtml(compare::renderComparisonHtml(c));
    if (interruptRequested()) {
      fmt::print(stderr, "[nnaccel] interrupted: the comparison holds the engines and layers "
                         "that finished (the interrupted engine's totals cover its finished "
                         "layers only; the engines after it did not run)\n");
      throw Interrupted();
    }
    for (const compare::EngineRun& r : c.runs) {
      if (r.internalError) // a bug in nnaccel: main() prints it as "error: internal: ..."
        throw std::runtime_error(fmt::format("{}: {}", r.engine, r.error));
      if (r.report && r.report->verdict.checked && !r.report->verdict.passed)
        throw Error(
            ErrorKind::Model, ErrorContext{.file = modelOptions_.model()},
            fmt::format("{} does not match the reference: {}", r.engine, r.report->verdict.detail));
    }
  }

private:
  CLI::App* app_ = nullptr;
  ModelOptions modelOptions_;
  std::vector<std::string> engines_ = engines::engineNames();
  std::string budgetFile_, report_;
  bool timingOnly_ = false, showBudget_ = false;
  ReportOutput output_;
  HostOptions hostOptions_;
};

} // namespace

std::unique_ptr<Command> makeCompareCommand() {
  return std::make_unique<CompareCommand>();
}

} // namespace nnaccel::cli
