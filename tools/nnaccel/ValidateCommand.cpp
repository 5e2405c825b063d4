/// \file
/// `nnaccel validate [NAME] [--size full|reduced] [--report FILE] [--strict]`: re-runs a
/// published experiment (validations/*.yaml) end to end and prints the published and measured
/// figures side by side; with no NAME, lists the validations. A figure outside its tolerance is
/// a finding, not a failure, unless --strict asks for one (exit 1); a run that does not verify
/// always fails.
#include "Command.h"
#include "ReportOutput.h"
#include "nnaccel/engines/Engine.h"
#include "nnaccel/support/Cores.h"
#include "nnaccel/validate/Validation.h"

#include <fmt/core.h>

namespace nnaccel::cli {
namespace {

class ValidateCommand final : public Command {
public:
  void configure(CLI::App& app) override {
    app_ = &app;
    app.add_option("NAME", name_,
                   "the validation to run, or a definition file of your own (.yaml, "
                   "docs/Validation.md); none: list them");
    app.add_option("--size", size_,
                   "full (the published experiment) or reduced (the test "
                   "suite's smaller runs, where the definition gives them)")
        ->check(CLI::IsMember({"full", "reduced"}));
    app.add_option("--report", report_,
                   "also write the rows as JSON ({name, published, measured, unit, source, ...}) "
                   "to this file (- for standard output)");
    app.add_flag("--strict", strict_, "exit 1 when a figure lies outside its tolerance");
    app.add_option("--set", sets_,
                   "set a config key in every run, over its own settings, KEY=VALUE as simulate's "
                   "--set (e.g. --set crossbar.queues=per_bank: what one of the design's "
                   "alternatives does to every figure); repeatable");
  }

  void run() override {
    if (name_.empty()) {
      if (!report_.empty())
        throw usageError(*app_, "--report needs a validation NAME");
      fmt::print("{}", validate::listText());
      return;
    }
    claimOutputs(*app_, {&report_});
    // A definition of the user's is a file; a built-in one is a name.
    const bool isFile = name_.ends_with(".yaml") || name_.ends_with(".yml");
    const validate::Validation v =
        isFile ? validate::readValidationFile(name_) : validate::validationNamed(name_);
    validate::ValidateOptions options;
    options.size = size_ == "reduced" ? validate::Size::Reduced : validate::Size::Full;
    options.threads = defaultSimulationThreads();
    for (const std::string& text : sets_) {
      const engines::Override o = engines::parseOverride(text);
      options.overrides.emplace_back(o.key, o.value);
    }
    options.progress = [](const std::string& line) { fmt::print(humanOut(), "{}\n", line); };
    const validate::ValidationResult r = validate::runValidation(v, options);
    fmt::print(humanOut(), "\n{}", validate::formatResult(r));
    if (!report_.empty())
      writeTextFile(report_, validate::resultJson(r));
    if (!r.verified())
      throw Error(ErrorKind::Model, {},
                  fmt::format("validation '{}': a run did not match its reference", v.name));
    if (strict_ && r.agreeing() < r.measured())
      throw Error(ErrorKind::Usage, {},
                  fmt::format("validation '{}': {} of {} figures lie outside their tolerance "
                              "(--strict)",
                              v.name, r.measured() - r.agreeing(), r.measured()));
  }

private:
  CLI::App* app_ = nullptr;
  std::string name_, size_ = "full", report_;
  std::vector<std::string> sets_;
  bool strict_ = false;
};

} // namespace

std::unique_ptr<Command> makeValidateCommand() {
  return std::make_unique<ValidateCommand>();
}

} // namespace nnaccel::cli
