/// \file
/// `nnaccel sweep density MODEL --arch sparse`: what weight pruning and activation sparsity buy
/// on the sparse engine. At each density d the model's weights are magnitude-pruned to d
/// (passes::magnitudePrune) and every array layer reads seeded synthetic activations of density
/// d (each layer verified bit for bit on its own input); the table gives cycles, energy, and
/// speedup and energy ratio against the dense PTIS-dense baseline, and the break-even densities
/// where the sparse machine stops winning. --csv writes one row per point for plotting.
#include "ArchOptions.h"
#include "Command.h"
#include "ModelOptions.h"
#include "TextTable.h"
#include "nnaccel/arch/sparse/Session.h"
#include "nnaccel/driver/Inputs.h"
#include "nnaccel/driver/ModelLoader.h"
#include "nnaccel/passes/Prune.h"

#include <fmt/format.h>
#include <fstream>
#include <optional>

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
      std::ofstream out(csv_);
      out << "density,cycles,dense_cycles,speedup,energy_pj,dense_energy_pj,energy_ratio,"
             "oracle_cycles,verified\n";
      for (const Point& p : points)
        out << fmt::format("{},{},{},{:.6f},{:.3f},{:.3f},{:.6f},{},{}\n", p.density,
                           p.totals.cycles, p.totals.denseCycles, p.totals.speedup(),
                           p.totals.energyPj, p.totals.denseEnergyPj, p.totals.energyRatio(),
                           p.totals.oracleCycles, p.verified ? 1 : 0);
      if (!out)
        throw Error(ErrorKind::Io, ErrorContext{.file = csv_}, "cannot write the CSV");
      fmt::print("wrote {}\n", csv_);
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

class SweepCommand final : public Command {
public:
  void configure(CLI::App& app) override {
    app.require_subcommand(1);
    density_.configure(*app.add_subcommand(
        "density", "simulate a model at weight and activation densities from 0.1 to 1.0 on the "
                   "sparse engine: speedup and energy against dense at each point"));
  }
  void run() override { density_.run(); }

private:
  SweepDensityCommand density_;
};

} // namespace

std::unique_ptr<Command> makeSweepCommand() {
  return std::make_unique<SweepCommand>();
}

} // namespace nnaccel::cli
