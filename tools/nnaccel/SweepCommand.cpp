/// \file
/// `nnaccel sweep`: design-space sweeps of one model on one engine.
///
/// `sweep density MODEL --arch sparse`: what weight pruning and activation sparsity buy on the
/// sparse engine. At each density d the model's weights are magnitude-pruned to d
/// (passes::magnitudePrune) and every array layer reads seeded synthetic activations of density
/// d (each layer verified bit for bit on its own input); the table gives cycles, energy, and
/// speedup and energy ratio against the dense PTIS-dense baseline, and the break-even densities
/// where the sparse machine stops winning.
///
/// `sweep vector-width MODEL --arch broadcast`: which 1xN kernel decomposition and broadcast
/// group size P suit each layer on the broadcast engine (arch::broadcast::sweepDecompositions,
/// timing only). One row per array layer with the cycles of every (N, P) point, the best point
/// and its speedup over the conventional N = 1 at the same P, then one line per kernel type
/// saying which N wins how often.
///
/// Both write one CSV row per point with --csv, for plotting.
///
/// `sweep MODEL --arch E --param KEY=V1,V2,...` (the cross product of any engine's config
/// values, with its Pareto front) and `sweep merge` are in SweepGridCommand.cpp; this file
/// wires them into the `sweep` app.
#include "ArchOptions.h"
#include "Command.h"
#include "ModelOptions.h"
#include "ReportOutput.h"
#include "SweepGridCommand.h"
#include "TextTable.h"
#include "nnaccel/arch/broadcast/Session.h"
#include "nnaccel/arch/sparse/Session.h"
#include "nnaccel/driver/Inputs.h"
#include "nnaccel/driver/ModelLoader.h"
#include "nnaccel/passes/Prune.h"
#include "nnaccel/report/Report.h"

#include <algorithm>
#include <charconv>
#include <fmt/format.h>
#include <fstream>
#include <map>
#include <optional>
#include <utility>

namespace nnaccel::cli {
namespace {

struct Point {
  double density = 0;
  arch::sparse::Totals totals;
  bool verified = false;
};

/// The density where \p metric(point) crosses 1 going from above to below (linear
/// interpolation between the two points around it), if the sweep brackets one.
std::optional<double> breakEven(const std::vector<Point>& points,
                                double (*metric)(const arch::sparse::Totals&)) {
  for (size_t i = 0; i + 1 < points.size(); ++i) {
    const double a = metric(points[i].totals), b = metric(points[i + 1].totals);
    if (a >= 1.0 && b < 1.0) {
      const double t = (a - 1.0) / (a - b);
      return points[i].density + t * (points[i + 1].density - points[i].density);
    }
  }
  return std::nullopt;
}

class SweepDensityCommand final : public Command {
public:
  void configure(CLI::App& app) override {
    app_ = &app;
    modelOptions_.configure(app);
    arch_.configure(app);
    app.add_option("--densities", densities_,
                   "weight and activation densities to simulate, each in (0, 1] (default: 0.1 "
                   "to 1.0 in steps of 0.1)")
        ->delimiter(',')
        ->check(CLI::Range(0.0, 1.0));
    app.add_option("--csv", csv_, "also write the points as CSV to this file");
  }

  void run() override {
    if (arch_.engine() != "sparse")
      throw usageError(*app_, "density sweeps need the sparse engine (--arch sparse)");
    for (double d : densities_)
      if (!(d > 0.0))
        throw usageError(*app_, fmt::format("--densities: {} is not in (0, 1]", d));
    if (densities_.empty())
      for (int i = 1; i <= 10; ++i)
        densities_.push_back(i / 10.0);
    std::sort(densities_.begin(), densities_.end());
    const arch::sparse::SparseConfig config = arch_.sparseConfig();
    const ir::Graph model = driver::loadModel(modelOptions_.model(), modelOptions_.loadOptions());
    if (!csv_.empty())
      driver::checkWritable(csv_);
    std::vector<Point> points;
    for (double d : densities_) {
      fmt::print(stderr, "[nnaccel] density {:.2f}\n", d);
      ir::Graph g = model;
      passes::PruneSpec spec;
      spec.density = d;
      passes::magnitudePrune(g, spec);
      arch::sparse::SessionOptions so;
      so.activationDensity = d;
      const arch::sparse::SessionResult r = arch::sparse::simulateModel(g, config, so);
      points.push_back(Point{d, r.totals, r.report.verdict.passed});
    }
    constexpr auto kRight = TextTable::Align::Right;
    TextTable table({{"density", kRight},
                     {"cycles", kRight},
                     {"dense cycles", kRight},
                     {"speedup", kRight},
                     {"energy uJ", kRight},
                     {"dense uJ", kRight},
                     {"energy ratio", kRight},
                     {"oracle cycles", kRight},
                     {"verified", TextTable::Align::Left}});
    for (const Point& p : points)
      table.addRow({fmt::format("{:.2f}", p.density), fmt::format("{}", p.totals.cycles),
                    fmt::format("{}", p.totals.denseCycles),
                    fmt::format("{:.2f}x", p.totals.speedup()),
                    fmt::format("{:.1f}", p.totals.energyPj / 1e6),
                    fmt::format("{:.1f}", p.totals.denseEnergyPj / 1e6),
                    fmt::format("{:.2f}x", p.totals.energyRatio()),
                    fmt::format("{}", p.totals.oracleCycles), p.verified ? "yes" : "NO"});
    fmt::print("density sweep of '{}' on sparse '{}' (weights magnitude-pruned, synthetic "
               "activations, both at the density)\n{}",
               model.name, config.name, table.render());
    auto describe = [](std::optional<double> d) {
      return d ? fmt::format("{:.2f}", *d) : std::string("not bracketed by the sweep");
    };
    fmt::print(
        "break-even density: speedup {}, energy {}\n",
        describe(breakEven(points, [](const arch::sparse::Totals& t) { return t.speedup(); })),
        describe(breakEven(points, [](const arch::sparse::Totals& t) { return t.energyRatio(); })));
    if (!csv_.empty()) {
      std::string text = "density,cycles,dense_cycles,speedup,energy_pj,dense_energy_pj,"
                         "energy_ratio,oracle_cycles,verified\n";
      for (const Point& p : points)
        text += fmt::format("{},{},{},{:.6f},{:.3f},{:.3f},{:.6f},{},{}\n", p.density,
                            p.totals.cycles, p.totals.denseCycles, p.totals.speedup(),
                            p.totals.energyPj, p.totals.denseEnergyPj, p.totals.energyRatio(),
                            p.totals.oracleCycles, p.verified ? 1 : 0);
      writeTextFile(csv_, text);
    }
    for (const Point& p : points)
      if (!p.verified)
        throw Error(
            ErrorKind::Model, ErrorContext{.file = modelOptions_.model()},
            fmt::format("density {:.2f}: simulation does not match the reference", p.density));
  }

private:
  CLI::App* app_ = nullptr;
  ModelOptions modelOptions_;
  ArchOptions arch_;
  std::vector<double> densities_;
  std::string csv_;
};

/// CLI11 check for --widths and --group-sizes: every value an integer >= 1.
CLI::Validator positiveInteger() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        int64_t value = 0;
        const char* end = text.data() + text.size();
        const auto [ptr, ec] = std::from_chars(text.data(), end, value);
        if (ec != std::errc() || ptr != end || value < 1)
          return "expected an integer >= 1, got '" + text + "'";
        return {};
      },
      "INT>=1");
}

void sortUnique(std::vector<int64_t>& values) {
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
}

using arch::broadcast::SweepLayer;
using arch::broadcast::SweepPoint;

/// (N, P) of a point; the sweep's columns are ordered by P, then N.
using PointKey = std::pair<int64_t, int64_t>;
PointKey keyOf(const SweepPoint& p) {
  return {p.groupSize, p.vectorWidth};
}
std::string pointName(const SweepPoint& p) {
  return fmt::format("N{}/P{}", p.vectorWidth, p.groupSize);
}

/// The point of \p layer with N = \p n and P = \p p (the first, if the clipped widths repeat).
const SweepPoint* findPoint(const SweepLayer& layer, int64_t n, int64_t p) {
  for (const SweepPoint& point : layer.points)
    if (point.vectorWidth == n && point.groupSize == p)
      return &point;
  return nullptr;
}

/// Conventional (N = 1) cycles at the best point's P / the best point's cycles; nullopt when the
/// sweep has no N = 1 point at that P or the layer has no point.
std::optional<double> speedupOverConventional(const SweepLayer& layer) {
  if (layer.points.empty())
    return std::nullopt;
  const SweepPoint& best = layer.points[layer.best];
  const SweepPoint* conventional = findPoint(layer, 1, best.groupSize);
  if (conventional == nullptr || best.cycles == 0)
    return std::nullopt;
  return static_cast<double>(conventional->cycles) / static_cast<double>(best.cycles);
}

/// "3x3 s1: best N=3 in 12/13 layers, N=2 in 1" for each kernel type, in order of appearance.
std::string kernelSummary(const std::vector<SweepLayer>& layers) {
  std::vector<std::string> kernels;
  std::map<std::string, std::map<int64_t, int64_t>> bestWidths; // kernel -> N -> layers
  std::map<std::string, int64_t> layerCount, infeasible;
  for (const SweepLayer& l : layers) {
    if (layerCount[l.kernel]++ == 0)
      kernels.push_back(l.kernel);
    if (l.points.empty())
      ++infeasible[l.kernel];
    else
      ++bestWidths[l.kernel][l.points[l.best].vectorWidth];
  }
  std::string out;
  for (const std::string& kernel : kernels) {
    // Most frequent best N first; ties: the smaller N.
    std::vector<std::pair<int64_t, int64_t>> byCount(bestWidths[kernel].begin(),
                                                     bestWidths[kernel].end());
    std::stable_sort(byCount.begin(), byCount.end(),
                     [](const auto& a, const auto& b) { return a.second > b.second; });
    std::string line = kernel + ":";
    for (size_t i = 0; i < byCount.size(); ++i) {
      if (i == 0)
        line += fmt::format(" best N={} in {}/{} layers", byCount[i].first, byCount[i].second,
                            layerCount[kernel]);
      else
        line += fmt::format(", N={} in {}", byCount[i].first, byCount[i].second);
    }
    if (infeasible[kernel] > 0)
      line += fmt::format("{} no feasible point in {}/{} layers", byCount.empty() ? "" : ";",
                          infeasible[kernel], layerCount[kernel]);
    out += line;
    out += '\n';
  }
  return out;
}

class SweepVectorWidthCommand final : public Command {
public:
  void configure(CLI::App& app) override {
    app_ = &app;
    modelOptions_.configure(app);
    arch_.configure(app);
    app.add_option("--widths", widths_,
                   "kernel-vector widths N to time, each >= 1 (1: the conventional 1x1 "
                   "decomposition; a width beyond a layer's kernel is clipped to it; default: "
                   "1,2,3,4,5)")
        ->delimiter(',')
        ->check(positiveInteger());
    app.add_option("--group-sizes", groupSizes_,
                   "broadcast-group sizes P to time, each >= 1 (a P that does not divide the PEs "
                   "of a column or is smaller than N is skipped; default: 2,4,8)")
        ->delimiter(',')
        ->check(positiveInteger());
    app.add_option("--csv", csv_, "also write the points as CSV to this file");
  }

  void run() override {
    if (arch_.engine() != "broadcast")
      throw usageError(*app_, "vector-width sweeps need the broadcast engine (--arch broadcast)");
    if (widths_.empty())
      widths_ = {1, 2, 3, 4, 5};
    if (groupSizes_.empty())
      groupSizes_ = {2, 4, 8};
    sortUnique(widths_);
    sortUnique(groupSizes_);
    const arch::broadcast::BroadcastConfig config = arch_.broadcastConfig();
    const ir::Graph g = driver::loadModel(modelOptions_.model(), modelOptions_.loadOptions());
    if (!csv_.empty())
      driver::checkWritable(csv_);
    const std::vector<SweepLayer> layers =
        arch::broadcast::sweepDecompositions(g, config, widths_, groupSizes_);
    // The session lists a layer once it has a feasible point: an empty sweep means no feasible
    // point at all, unless the model has no array layer (then the config's own point is empty
    // too).
    if (layers.empty() &&
        !arch::broadcast::sweepDecompositions(g, config, {1}, {config.groupSize}).empty())
      throw usageError(
          *app_, fmt::format("--group-sizes: no (N, P) point is feasible on broadcast '{}': a "
                             "group size must divide the {} PEs of a column and hold N (group "
                             "sizes {}; widths {})",
                             config.name, config.pesPerColumn, fmt::join(groupSizes_, ","),
                             fmt::join(widths_, ",")));
    fmt::print("vector-width sweep of '{}' on broadcast '{}' ({} column{} x {} PEs; widths N {}, "
               "group sizes P {}; timing only, not verified)\n",
               g.name, config.name, config.columns, config.columns == 1 ? "" : "s",
               config.pesPerColumn, fmt::join(widths_, ","), fmt::join(groupSizes_, ","));
    if (layers.empty()) {
      fmt::print("no layer of '{}' runs on the PE array\n", g.name);
    } else {
      fmt::print("{}", table(layers));
      fmt::print("{}", kernelSummary(layers));
    }
    if (!csv_.empty()) {
      std::string text = "layer,op,kernel,n,p,cycles,activation_reads,energy_pj,best\n";
      for (const SweepLayer& l : layers)
        for (size_t i = 0; i < l.points.size(); ++i) {
          const SweepPoint& p = l.points[i];
          if (findPoint(l, p.vectorWidth, p.groupSize) != &p)
            continue; // a width clipped to one already listed: the same decomposition
          text += fmt::format("{},{},{},{},{},{},{},{:.3f},{}\n", report::csvField(l.name),
                              report::csvField(l.op), report::csvField(l.kernel), p.vectorWidth,
                              p.groupSize, p.cycles, p.activationReads, p.energyPj,
                              i == l.best ? 1 : 0);
        }
      writeTextFile(csv_, text);
    }
  }

private:
  /// One row per layer: the cycles of every (N, P) point any layer has (ordered by P, then N;
  /// "-" where the layer has none), the best point, its cycles and activation reads, and its
  /// speedup over N = 1 at the same P. The total row sums a column over the layers when every
  /// layer has that point.
  static std::string table(const std::vector<SweepLayer>& layers) {
    std::map<PointKey, SweepPoint> columns;
    for (const SweepLayer& l : layers)
      for (const SweepPoint& p : l.points)
        columns.emplace(keyOf(p), p);
    constexpr auto kLeft = TextTable::Align::Left;
    constexpr auto kRight = TextTable::Align::Right;
    std::vector<TextTable::Column> header = {{"layer", kLeft}, {"op", kLeft}, {"kernel", kLeft}};
    for (const auto& [key, point] : columns)
      header.push_back({pointName(point), kRight});
    for (const char* name : {"best", "cycles", "reads", "vs N1"})
      header.push_back({name, kRight});
    TextTable t(std::move(header));

    std::map<PointKey, int64_t> columnTotals;
    std::map<PointKey, bool> columnComplete;
    int64_t bestCycles = 0, bestReads = 0, conventionalCycles = 0;
    bool conventionalComplete = true, anyBest = false;
    for (const SweepLayer& l : layers) {
      std::vector<std::string> row = {l.name, l.op, l.kernel};
      for (const auto& [key, column] : columns) {
        const SweepPoint* p = findPoint(l, column.vectorWidth, column.groupSize);
        row.push_back(p == nullptr ? "-" : groupThousands(p->cycles));
        columnComplete.emplace(key, true);
        if (p == nullptr)
          columnComplete[key] = false;
        else
          columnTotals[key] += p->cycles;
      }
      if (l.points.empty()) {
        for (int i = 0; i < 4; ++i)
          row.push_back("-");
        conventionalComplete = false;
      } else {
        const SweepPoint& best = l.points[l.best];
        const std::optional<double> speedup = speedupOverConventional(l);
        row.push_back(pointName(best));
        row.push_back(groupThousands(best.cycles));
        row.push_back(groupThousands(best.activationReads));
        row.push_back(speedup ? fmt::format("{:.2f}x", *speedup) : "-");
        anyBest = true;
        bestCycles += best.cycles;
        bestReads += best.activationReads;
        if (const SweepPoint* c = findPoint(l, 1, best.groupSize))
          conventionalCycles += c->cycles;
        else
          conventionalComplete = false;
      }
      t.addRow(std::move(row));
    }
    t.addRule();
    std::vector<std::string> total = {"total", "", ""};
    for (const auto& [key, column] : columns)
      total.push_back(columnComplete[key] ? groupThousands(columnTotals[key]) : "-");
    total.push_back(anyBest ? "per layer" : "-");
    total.push_back(anyBest ? groupThousands(bestCycles) : "-");
    total.push_back(anyBest ? groupThousands(bestReads) : "-");
    total.push_back(anyBest && conventionalComplete && bestCycles > 0
                        ? fmt::format("{:.2f}x", static_cast<double>(conventionalCycles) /
                                                     static_cast<double>(bestCycles))
                        : "-");
    t.addRow(std::move(total));
    return t.render();
  }

  CLI::App* app_ = nullptr;
  ModelOptions modelOptions_;
  ArchOptions arch_;
  std::vector<int64_t> widths_, groupSizes_;
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
    densityApp_ = app.add_subcommand(
        "density", "simulate a model at weight and activation densities from 0.1 to 1.0 on the "
                   "sparse engine: speedup and energy against dense at each point");
    density_.configure(*densityApp_);
    vectorWidthApp_ = app.add_subcommand(
        "vector-width", "time every array layer of a model for each kernel-vector width N and "
                        "broadcast-group size P on the broadcast engine: the best choice per "
                        "layer");
    vectorWidth_.configure(*vectorWidthApp_);
  }
  void run() override {
    if (densityApp_->parsed())
      density_.run();
    else if (vectorWidthApp_->parsed())
      vectorWidth_.run();
    else if (mergeApp_->parsed())
      merge_->run();
    else
      grid_->run();
  }

private:
  std::unique_ptr<Command> grid_ = makeSweepGridCommand();
  std::unique_ptr<Command> merge_ = makeSweepMergeCommand();
  CLI::App* mergeApp_ = nullptr;
  CLI::App* vectorWidthApp_ = nullptr;
  CLI::App* densityApp_ = nullptr;
  SweepDensityCommand density_;
  SweepVectorWidthCommand vectorWidth_;
};

} // namespace

std::unique_ptr<Command> makeSweepCommand() {
  return std::make_unique<SweepCommand>();
}

} // namespace nnaccel::cli
