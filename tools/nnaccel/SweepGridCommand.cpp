/// \file
/// `nnaccel sweep MODEL --arch E --param KEY=V1,V2,... [--param ...]` and `nnaccel sweep merge`:
/// the generic design-space sweep over any engine's config keys (docs/Sweep.md).
///
/// The sweep checks its options and every --param key before any point runs (one-line usage
/// errors), loads the model once, runs the grid's points (or one --shard of them) on a thread
/// pool, or across the ranks of `mpirun -np P` in an NNACCEL_MPI build, ranks them (Pareto front
/// over --pareto's metrics, best point by --objective), prints a table and writes the CSV that
/// `sweep merge` combines. A point whose config is invalid or whose model does not fit is a row
/// with its error; only a point that disagrees with the reference makes the exit code 1. The
/// engine-neutral logic is in nnaccel_explore (include/nnaccel/explore/).
#include "SweepGridCommand.h"

#include "ArchOptions.h"
#include "Command.h"
#include "HostOptions.h"
#include "ModelOptions.h"
#include "ReportOutput.h"
#include "StopOnCtrlC.h"
#include "TextTable.h"
#include "nnaccel/driver/Inputs.h"
#include "nnaccel/driver/ModelLoader.h"
#include "nnaccel/engines/Engine.h"
#include "nnaccel/explore/Mpi.h"
#include "nnaccel/explore/Sweep.h"
#include "nnaccel/explore/SweepCsv.h"
#include "nnaccel/explore/SweepHtml.h"
#include "nnaccel/support/ReadFile.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fmt/format.h>
#include <fstream>
#include <optional>
#include <sstream>
#include <thread>
#include <unistd.h>

namespace nnaccel::cli {

/// What a sweep's --html page holds (explore::renderSweepHtml).
constexpr const char* kSweepHtml =
    "the Pareto front on its first two axes with every other point behind it, cycles and energy "
    "against each numeric parameter, cycles and energy per point, and the table of points";
namespace {

using explore::PointResult;
using explore::PointStatus;
using explore::SweepResult;

/// A progress bar on stderr: redrawn in place (carriage return) on a terminal, otherwise a
/// plain line at most every five seconds and at the end. Every line starts with "[nnaccel] ".
class SweepProgress {
public:
  explicit SweepProgress(int threads) : threads_(threads) {}

  void operator()(const PointResult& p, size_t done, size_t total) {
    if (p.status != PointStatus::Ok)
      ++failed_;
    const auto now = std::chrono::steady_clock::now();
    const double since = std::chrono::duration<double>(now - last_).count();
    if (done != total && since < (tty_ ? 0.1 : 5.0))
      return;
    last_ = now;
    constexpr size_t kWidth = 30;
    const size_t filled = total == 0 ? kWidth : done * kWidth / total;
    const std::string line =
        fmt::format("[nnaccel] sweep [{}{}] {}/{} points, {} failed, {:.1f} s{}",
                    std::string(filled, '#'), std::string(kWidth - filled, '.'), done, total,
                    failed_, elapsed(), remainingText(elapsed(), done, total));
    if (tty_)
      fmt::print(stderr, "\r{}", line);
    else
      fmt::print(stderr, "{}\n", line);
    std::fflush(stderr);
    printed_ = true;
  }

  /// The last line: how long the points took, on how many threads.
  void finish(size_t points, int ranks) {
    if (printed_ && tty_)
      fmt::print(stderr, "\n");
    fmt::print(stderr, "[nnaccel] sweep: {} point{} in {:.1f} s ({} thread{}{})\n", points,
               points == 1 ? "" : "s", elapsed(), threads_, threads_ == 1 ? "" : "s",
               ranks > 1 ? fmt::format(" on each of {} MPI ranks", ranks) : "");
    printed_ = false;
  }

  ~SweepProgress() {
    if (printed_ && tty_)
      fmt::print(stderr, "\n");
  }

private:
  double elapsed() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }

  int threads_;
  bool tty_ = isatty(STDERR_FILENO) != 0;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now(), last_{};
  size_t failed_ = 0;
  bool printed_ = false;
};

/// "array.rows=64 array.cols=32" (or "base config" with no params).
std::string pointText(const SweepResult& r, const PointResult& p) {
  std::vector<std::string> parts;
  for (size_t i = 0; i < r.spec.params.size(); ++i)
    parts.push_back(fmt::format("{}={}", r.spec.params[i].key, p.values[i]));
  return parts.empty() ? std::string("base config") : fmt::format("{}", fmt::join(parts, " "));
}

/// \p p's metric \p axis as the front's lines print it.
std::string metricText(const PointResult& p, const std::string& axis) {
  const double v = explore::metricValue(p, axis);
  if (axis == "time_us")
    return fmt::format("{:.1f}", v);
  if (axis == "energy_pj" || axis == "edp_pj_us" || axis == "area_mm2")
    return fmt::format("{:.6g}", v);
  return groupThousands(static_cast<int64_t>(v));
}

/// The table of points, the Pareto front, the best point and the failed points, on stdout.
void printSweep(const SweepResult& r) {
  const explore::SweepSpec& s = r.spec;
  const explore::Grid grid(s.params);
  std::vector<std::string> keys;
  for (const explore::Param& p : s.params)
    keys.push_back(p.key);
  fmt::print(humanOut(), "sweep of '{}' on {} '{}': {} point{}{}, objective {}, {}{}\n", s.model,
             s.engine, s.config, grid.size(), grid.size() == 1 ? "" : "s",
             keys.empty() ? "" : fmt::format(" ({})", fmt::join(keys, " x ")),
             explore::objectiveName(s.objective),
             s.verify ? "verified against the int8 reference" : "timing only, not verified",
             r.shard.whole() ? ""
                             : fmt::format("; shard {}: {} point{}", explore::shardText(r.shard),
                                           r.points.size(), r.points.size() == 1 ? "" : "s"));
  constexpr auto kLeft = TextTable::Align::Left;
  constexpr auto kRight = TextTable::Align::Right;
  std::vector<TextTable::Column> columns = {{"point", kRight}};
  for (const std::string& k : keys)
    columns.push_back({k, kRight});
  for (const char* c : {"status", "cycles", "time us", "energy uJ", "edp uJ*us", "util %",
                        "multipliers", "sram KiB", "area mm2"})
    columns.push_back({c, kRight});
  columns.push_back({"pareto", kLeft});
  columns.push_back({"best", kLeft});
  TextTable table(std::move(columns));
  for (const PointResult& p : r.points) {
    std::vector<std::string> row = {fmt::format("{}", p.index)};
    row.insert(row.end(), p.values.begin(), p.values.end());
    const bool ran = p.status != PointStatus::Error;
    row.push_back(explore::statusName(p.status));
    row.push_back(ran ? groupThousands(p.cycles) : "-");
    row.push_back(ran ? fmt::format("{:.1f}", p.timeUs) : "-");
    row.push_back(ran ? fmt::format("{:.3f}", p.energyPj / 1e6) : "-");
    row.push_back(ran ? fmt::format("{:.4g}", p.edpPjUs / 1e6) : "-");
    row.push_back(ran ? fmt::format("{:.1f}", p.utilization * 100) : "-");
    row.push_back(p.multipliers > 0 ? groupThousands(p.multipliers) : "-");
    row.push_back(p.sramBytes > 0 ? fmt::format("{:.0f}", static_cast<double>(p.sramBytes) / 1024)
                                  : "-");
    row.push_back(p.areaMm2 > 0 ? fmt::format("{:.4g}", p.areaMm2) : "-");
    row.push_back(p.pareto ? "*" : "");
    row.push_back(p.best ? "<" : "");
    table.addRow(std::move(row));
  }
  fmt::print(humanOut(), "{}", table.render());
  const std::vector<size_t> front = explore::paretoFront(r.points, s.paretoAxes);
  const std::string scope = r.shard.whole() ? "" : " of this shard";
  const std::string axes = fmt::format("{}", fmt::join(s.paretoAxes, ", "));
  if (front.empty()) {
    fmt::print(humanOut(), "Pareto front{} (min {}): empty, no point ran\n", scope, axes);
  } else {
    fmt::print(humanOut(), "Pareto front{} (min {}), {} point{}:\n", scope, axes, front.size(),
               front.size() == 1 ? "" : "s");
    for (size_t i : front) {
      const PointResult& p = r.points[i];
      std::vector<std::string> values;
      for (const std::string& axis : s.paretoAxes)
        values.push_back(fmt::format("{} {}", axis, metricText(p, axis)));
      fmt::print(humanOut(), "  point {} ({}): {}\n", p.index, pointText(r, p),
                 fmt::join(values, ", "));
    }
    for (const PointResult& p : r.points)
      if (p.best)
        fmt::print(humanOut(), "best by {}{}: point {} ({})\n", explore::objectiveName(s.objective),
                   scope, p.index, pointText(r, p));
  }
  for (const PointResult& p : r.points)
    if (p.status != PointStatus::Ok)
      fmt::print(humanOut(), "point {} ({}): {}: {}\n", p.index, pointText(r, p),
                 p.status == PointStatus::Error         ? "error"
                 : p.status == PointStatus::Interrupted ? "interrupted"
                                                        : "does not match the reference",
                 p.error);
}

/// After the output: a point that disagrees with the reference is a simulator bug; exit 1.
void failOnMismatch(const SweepResult& r) {
  std::vector<std::string> mismatched;
  for (const PointResult& p : r.points)
    if (p.status == PointStatus::Mismatch)
      mismatched.push_back(fmt::format("{} ({})", p.index, pointText(r, p)));
  if (!mismatched.empty())
    throw Error(ErrorKind::Model, {},
                fmt::format("sweep of '{}': point{} {} do{} not match the reference", r.spec.model,
                            mismatched.size() == 1 ? "" : "s", fmt::join(mismatched, ", "),
                            mismatched.size() == 1 ? "es" : ""));
}

/// Worker threads per process: --jobs, else every core this rank gets (the cores divided by
/// the ranks mpirun started on this node).
int defaultThreads() {
  int local = 1;
  if (const char* v = std::getenv("OMPI_COMM_WORLD_LOCAL_SIZE"))
    local = std::max(1, std::atoi(v));
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  return std::max(1, cores / local);
}

class SweepGridCommand final : public Command {
public:
  void configure(CLI::App& app) override {
    app_ = &app;
    modelOptions_.configure(app);
    // MODEL is optional on the `sweep` app so that `sweep density ...` parses; run() needs it.
    app.get_option("MODEL")->required(false);
    arch_.configure(app);
    hostOptions_.configure(app);
    app.add_option("--param", params_,
                   "a config key and the values to sweep it over, KEY=V1,V2,... (the keys of "
                   "'nnaccel arch show ENGINE', e.g. array.rows=32,64,128); repeatable: the "
                   "sweep runs the cross product")
        ->allow_extra_args(false);
    app.add_option("--objective", objective_,
                   "what the best point minimizes: cycles, energy, or edp (energy x time)")
        ->check(oneOf({"cycles", "energy", "edp"}))
        ->capture_default_str();
    app.add_option("--pareto", pareto_,
                   "the metrics the Pareto front minimizes, two or more of cycles, time_us, "
                   "energy_pj, edp_pj_us, dram_bytes, multipliers (area), sram_bytes")
        ->capture_default_str();
    app.add_option("--csv", csv_,
                   "write one row per point to this CSV file (needed with --shard; 'nnaccel "
                   "sweep merge' combines shard files)");
    app.add_option("--shard", shard_,
                   "run only shard K of N of the grid (K/N, 1 <= K <= N; point i belongs to "
                   "shard i mod N + 1), e.g. --shard $SLURM_ARRAY_TASK_ID/8");
    app.add_option("-j,--jobs", jobs_,
                   "points simulated at once (default: every core; under mpirun: the cores "
                   "divided by the ranks on the node)")
        ->check(CLI::Range(1, 4096));
    app.add_flag("--timing-only", timingOnly_,
                 "skip the verification against the int8 reference (an engine whose timing does "
                 "not depend on the data runs its cycle model only); verified by default");
    output_.configure(app, kSweepHtml, /*withCsv=*/false);
  }

  void run() override {
    if (modelOptions_.model().empty())
      throw usageError(*app_, "MODEL is required (or one of the subcommands density, "
                              "vector-width, merge)");
    const int ranks = explore::mpi::launchedRanks();
#ifndef NNACCEL_HAVE_MPI
    if (ranks > 1)
      throw usageError(*app_,
                       fmt::format("started by mpirun with {} ranks, but this nnaccel was built "
                                   "without MPI (configure with -DNNACCEL_MPI=ON, or use --shard "
                                   "K/N and 'nnaccel sweep merge')",
                                   ranks));
#endif
    std::vector<explore::Param> params;
    for (const std::string& text : params_)
      params.push_back(explore::parseParam(text));
    const explore::Grid grid(params);
    const std::vector<std::string> axes = explore::parseParetoAxes(pareto_);
    explore::Shard shard;
    if (!shard_.empty())
      shard = explore::parseShard(shard_);
    if (!shard_.empty() && csv_.empty())
      throw usageError(*app_, "--shard needs --csv FILE (the rows 'nnaccel sweep merge' reads)");
    const engines::EngineConfig base = arch_.engineConfig();
    explore::checkParams(base, params);
    const ir::Graph model = driver::loadModel(modelOptions_.model(), modelOptions_.loadOptions());
    output_.check(*app_, {&csv_});

    std::string modelText = modelOptions_.model();
    if (const std::string bindings = ModelOptions::bindingsText(model); !bindings.empty())
      modelText += fmt::format(" ({})", bindings);
    SweepResult result{explore::SweepSpec{.model = modelText,
                                          .engine = base.engine(),
                                          .config = base.name(),
                                          .configDigest = explore::configDigest(base),
                                          .params = params,
                                          .objective = explore::parseObjective(objective_),
                                          .paretoAxes = axes,
                                          .verify = !timingOnly_},
                       shard,
                       {}};
    engines::RunOptions options;
    options.verify = !timingOnly_;
    options.host = hostOptions_.model();
    options.threads = 1; // the sweep's threads are the parallelism
    const auto evaluate = [&](size_t index) {
      return explore::evaluatePoint(model, base, grid, index, options);
    };
    const std::vector<size_t> points = explore::shardPoints(grid.size(), shard);
    const int threads = jobs_ > 0 ? jobs_ : defaultThreads();
    SweepProgress progress(threads);
#ifdef NNACCEL_HAVE_MPI
    if (ranks > 1) {
      const explore::mpi::Session session;
      result.points = explore::mpi::runPoints(session, points, threads, evaluate, params.size(),
                                              std::ref(progress));
      if (session.rank() != 0)
        return; // rank 0 ranks, prints and writes
      progress.finish(points.size(), session.size());
      finish(result);
      return;
    }
#endif
    const StopOnCtrlC stop;
    result.points = explore::runPoints(points, threads, evaluate, std::ref(progress));
    progress.finish(points.size(), 1);
    finish(result);
    if (interruptRequested()) {
      fmt::print(stderr,
                 "[nnaccel] interrupted: {} of {} points ran; the files hold them, the points "
                 "cut short marked interrupted and left out of the ranking\n",
                 result.points.size(), points.size());
      throw Interrupted();
    }
  }

private:
  void finish(SweepResult& result) const {
    explore::rankPoints(result.points, result.spec.objective, result.spec.paretoAxes);
    printSweep(result);
    if (!csv_.empty())
      writeTextFile(csv_, explore::toCsv(result));
    if (output_.wantsHtml())
      output_.writeHtml(explore::renderSweepHtml(result));
    failOnMismatch(result);
  }

  CLI::App* app_ = nullptr;
  ModelOptions modelOptions_;
  ArchOptions arch_;
  HostOptions hostOptions_;
  std::vector<std::string> params_;
  std::string objective_ = "cycles";
  std::string pareto_ = "cycles,energy_pj";
  std::string csv_, shard_;
  int jobs_ = 0;
  bool timingOnly_ = false;
  ReportOutput output_;
};

class SweepMergeCommand final : public Command {
public:
  void configure(CLI::App& app) override {
    app_ = &app;
    app.add_option("FILES", files_,
                   "the CSV files of the shards 1/N to N/N of one sweep (from 'nnaccel sweep "
                   "--shard K/N --csv FILE'), in any order")
        ->required();
    app.add_option("--csv", csv_,
                   "write the merged sweep to this CSV file (- for standard output)");
    output_.configure(app, kSweepHtml, /*withCsv=*/false);
  }

  void run() override {
    output_.check(*app_, {&csv_});
    std::vector<std::pair<std::string, SweepResult>> shards;
    for (const std::string& path : files_) {
      shards.emplace_back(path, explore::readCsv(readFileCapped(path, kMaxTableFileBytes), path));
    }
    SweepResult merged = explore::mergeShards(shards);
    printSweep(merged);
    if (!csv_.empty())
      writeTextFile(csv_, explore::toCsv(merged));
    if (output_.wantsHtml())
      output_.writeHtml(explore::renderSweepHtml(merged));
    failOnMismatch(merged);
  }

private:
  CLI::App* app_ = nullptr;
  std::vector<std::string> files_;
  std::string csv_;
  ReportOutput output_;
};

} // namespace

std::unique_ptr<Command> makeSweepGridCommand() {
  return std::make_unique<SweepGridCommand>();
}

std::unique_ptr<Command> makeSweepMergeCommand() {
  return std::make_unique<SweepMergeCommand>();
}

} // namespace nnaccel::cli
