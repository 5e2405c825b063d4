/// \file
/// `nnaccel sweep`: design-space sweeps of one model on one engine.
///
/// `sweep MODEL --arch E --param KEY=V1,V2,...` (the cross product of any engine's config
/// values, with its Pareto front) and `sweep merge` are in SweepGridCommand.cpp. Every study an
/// engine declares (engines::Study, e.g. `sweep density` on the sparse engine, `sweep
/// vector-width` on the broadcast engine) is a subcommand here, with the options the study
/// declares (lists of numbers, file paths the study reads, or one of a few words); its table is
/// printed and its points written as CSV with --csv.
#include "ArchOptions.h"
#include "Command.h"
#include "EngineOptions.h"
#include "ModelOptions.h"
#include "ReportOutput.h"
#include "SweepGridCommand.h"
#include "nnaccel/driver/Inputs.h"
#include "nnaccel/driver/ModelLoader.h"

#include <charconv>
#include <fmt/format.h>
#include <map>
#include <optional>
#include <set>

namespace nnaccel::cli {
namespace {

/// CLI11 check of one value of a study option: a number (an integer when \p o says so) in the
/// option's range.
CLI::Validator studyValue(const engines::StudyOption& o) {
  return CLI::Validator(
      [o](std::string& text) -> std::string {
        double value = 0;
        const char* end = text.data() + text.size();
        const auto [ptr, ec] = std::from_chars(text.data(), end, value);
        const bool integral =
            !o.integers || value == static_cast<double>(static_cast<int64_t>(value));
        const bool inRange = (o.minExclusive ? value > o.min : value >= o.min) && value <= o.max;
        if (ec != std::errc() || ptr != end || !integral || !inRange)
          return o.integers ? fmt::format("expected an integer >= {}, got '{}'", o.min, text)
                            : fmt::format("{} is not in {}{}, {}]", text,
                                          o.minExclusive ? "(" : "[", o.min, o.max);
        return {};
      },
      o.integers ? "INT" : "NUMBER");
}

/// `sweep NAME MODEL --arch E`: the study NAME of the engine --arch names (every engine that
/// declares a study of that name can run it).
class SweepStudyCommand final : public Command {
public:
  explicit SweepStudyCommand(engines::Study study) : study_(std::move(study)) {}

  void configure(CLI::App& app) override {
    app_ = &app;
    modelOptions_.configure(app);
    arch_.configure(app);
    for (const engines::StudyOption& o : study_.options)
      switch (o.kind) {
      case engines::StudyOption::Kind::Numbers:
        app.add_option("--" + o.name, values_[o.name], o.help)
            ->delimiter(',')
            ->check(studyValue(o));
        break;
      case engines::StudyOption::Kind::File:
        app.add_option("--" + o.name, texts_[o.name], o.help)->type_name("FILE");
        break;
      case engines::StudyOption::Kind::Choice:
        app.add_option("--" + o.name, texts_[o.name], o.help)->check(CLI::IsMember(o.choices));
        break;
      }
    app.add_option("--csv", csv_,
                   "also write the points as CSV to this file (- for standard output)");
  }

  void run() override {
    const engines::Engine& engine = arch_.implementation();
    std::vector<std::string> owners;
    std::optional<engines::Study> study;
    for (const engines::Engine* e : engines::allEngines())
      for (engines::Study& s : e->studies())
        if (s.name == study_.name) {
          owners.push_back(e->name());
          if (e == &engine)
            study = std::move(s);
        }
    if (!study)
      throw usageError(*app_, fmt::format("{} sweeps need {} (--arch {})", study_.name,
                                          enginesPhrase(owners), fmt::join(owners, " or --arch ")));
    const engines::EngineConfig config = arch_.engineConfig();
    const ir::Graph g = driver::loadModel(modelOptions_.model(), modelOptions_.loadOptions());
    claimOutputs(*app_, {&csv_});
    engines::StudyArgs args;
    for (const auto& [name, values] : values_)
      if (!values.empty())
        args.values[name] = values;
    for (const auto& [name, text] : texts_)
      if (!text.empty())
        args.texts[name] = text;
    args.progress = [](const std::string& line) { fmt::print(stderr, "[nnaccel] {}\n", line); };
    engines::StudyResult result;
    try {
      result = study->run(g, config, args);
    } catch (const Error& e) {
      if (e.kind() == ErrorKind::Usage && e.context().file.empty())
        throw usageError(*app_, e.reason());
      throw;
    }
    fmt::print(humanOut(), "{}", result.text);
    if (!csv_.empty())
      writeTextFile(csv_, result.csv);
    if (!result.failure.empty())
      throw Error(ErrorKind::Model, ErrorContext{.file = modelOptions_.model()}, result.failure);
  }

private:
  engines::Study study_;
  CLI::App* app_ = nullptr;
  ModelOptions modelOptions_;
  ArchOptions arch_;
  std::map<std::string, std::vector<double>> values_;
  std::map<std::string, std::string> texts_;
  std::string csv_;
};

/// `nnaccel sweep`: the generic grid sweep (`sweep MODEL --param ...`, SweepGridCommand.cpp)
/// on the app itself, and the subcommands density, vector-width and merge.
class SweepCommand final : public Command {
public:
  void configure(CLI::App& app) override {
    app.require_subcommand(0, 1);
    grid_->configure(app);
    mergeApp_ = app.add_subcommand(
        "merge", "combine the CSV files of the shards of one sweep (--shard K/N) into the whole "
                 "sweep with its Pareto front");
    merge_->configure(*mergeApp_);
    // One subcommand per study name the registered engines declare (the first description).
    for (const engines::Engine* e : engines::allEngines())
      for (const engines::Study& study : e->studies()) {
        if (!studyNames_.insert(study.name).second)
          continue;
        CLI::App* sub = app.add_subcommand(study.name, study.description);
        studies_.emplace_back(sub, std::make_unique<SweepStudyCommand>(study));
        studies_.back().second->configure(*sub);
      }
  }
  void run() override {
    for (auto& [sub, command] : studies_)
      if (sub->parsed())
        return command->run();
    if (mergeApp_->parsed())
      merge_->run();
    else
      grid_->run();
  }

private:
  std::unique_ptr<Command> grid_ = makeSweepGridCommand();
  std::unique_ptr<Command> merge_ = makeSweepMergeCommand();
  CLI::App* mergeApp_ = nullptr;
  std::vector<std::pair<CLI::App*, std::unique_ptr<Command>>> studies_;
  std::set<std::string> studyNames_;
};

} // namespace

std::unique_ptr<Command> makeSweepCommand() {
  return std::make_unique<SweepCommand>();
}

} // namespace nnaccel::cli
