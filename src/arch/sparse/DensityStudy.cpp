/// \file
/// The sparse engine's density study, `nnaccel sweep density MODEL --arch sparse`: what weight
/// pruning and activation sparsity buy on the SCNN array. At each density d the model's weights
/// are magnitude-pruned to d (passes::magnitudePrune) and every array layer reads seeded
/// synthetic activations of density d (each layer verified bit for bit on its own input); the
/// table gives cycles, energy, and speedup and energy ratio against the dense PTIS-dense
/// baseline, and the break-even densities where the sparse machine stops winning.
#include "nnaccel/arch/sparse/Session.h"
#include "nnaccel/arch/sparse/Studies.h"
#include "nnaccel/passes/Prune.h"
#include "nnaccel/report/TextTable.h"

#include <algorithm>
#include <fmt/format.h>
#include <optional>

namespace nnaccel::arch::sparse {
namespace {

struct Point {
  double density = 0;
  Totals totals;
  bool verified = false;
};

/// The density where \p metric(point) crosses 1 going from above to below (linear
/// interpolation between the two points around it), if the sweep brackets one.
std::optional<double> breakEven(const std::vector<Point>& points, double (*metric)(const Totals&)) {
  for (size_t i = 0; i + 1 < points.size(); ++i) {
    const double a = metric(points[i].totals), b = metric(points[i + 1].totals);
    if (a >= 1.0 && b < 1.0) {
      const double t = (a - 1.0) / (a - b);
      return points[i].density + t * (points[i + 1].density - points[i].density);
    }
  }
  return std::nullopt;
}

std::string table(const std::vector<Point>& points) {
  constexpr auto kRight = report::TextTable::Align::Right;
  report::TextTable table({{"density", kRight},
                           {"cycles", kRight},
                           {"dense cycles", kRight},
                           {"speedup", kRight},
                           {"energy uJ", kRight},
                           {"dense uJ", kRight},
                           {"energy ratio", kRight},
                           {"oracle cycles", kRight},
                           {"verified", report::TextTable::Align::Left}});
  for (const Point& p : points)
    table.addRow({fmt::format("{:.2f}", p.density), fmt::format("{}", p.totals.cycles),
                  fmt::format("{}", p.totals.denseCycles),
                  fmt::format("{:.2f}x", p.totals.speedup()),
                  fmt::format("{:.1f}", p.totals.energyPj / 1e6),
                  fmt::format("{:.1f}", p.totals.denseEnergyPj / 1e6),
                  fmt::format("{:.2f}x", p.totals.energyRatio()),
                  fmt::format("{}", p.totals.oracleCycles), p.verified ? "yes" : "NO"});
  return table.render();
}

std::string csv(const std::vector<Point>& points) {
  std::string text = "density,cycles,dense_cycles,speedup,energy_pj,dense_energy_pj,"
                     "energy_ratio,oracle_cycles,verified\n";
  for (const Point& p : points)
    text += fmt::format("{},{},{},{:.6f},{:.3f},{:.3f},{:.6f},{},{}\n", p.density, p.totals.cycles,
                        p.totals.denseCycles, p.totals.speedup(), p.totals.energyPj,
                        p.totals.denseEnergyPj, p.totals.energyRatio(), p.totals.oracleCycles,
                        p.verified ? 1 : 0);
  return text;
}

engines::StudyResult runDensityStudy(const ir::Graph& model, const SparseConfig& config,
                                     const engines::StudyArgs& args) {
  std::vector<double> densities;
  if (const auto it = args.values.find("densities"); it != args.values.end())
    densities = it->second;
  if (densities.empty())
    for (int i = 1; i <= 10; ++i)
      densities.push_back(i / 10.0);
  std::sort(densities.begin(), densities.end());
  std::vector<Point> points;
  for (double d : densities) {
    if (args.progress)
      args.progress(fmt::format("density {:.2f}", d));
    ir::Graph g = model;
    passes::PruneSpec spec;
    spec.density = d;
    passes::magnitudePrune(g, spec);
    SessionOptions so;
    so.activationDensities.density = d;
    const SessionResult r = simulateModel(g, config, so);
    points.push_back(Point{d, r.totals, r.report.verdict.passed});
  }
  engines::StudyResult out;
  const auto describe = [](std::optional<double> d) {
    return d ? fmt::format("{:.2f}", *d) : std::string("not bracketed by the sweep");
  };
  out.text = fmt::format("density sweep of '{}' on sparse '{}' (weights magnitude-pruned, "
                         "synthetic activations, both at the density)\n{}",
                         model.name, config.name, table(points));
  out.text +=
      fmt::format("break-even density: speedup {}, energy {}\n",
                  describe(breakEven(points, [](const Totals& t) { return t.speedup(); })),
                  describe(breakEven(points, [](const Totals& t) { return t.energyRatio(); })));
  out.csv = csv(points);
  for (const Point& p : points)
    if (!p.verified && out.failure.empty())
      out.failure =
          fmt::format("density {:.2f}: simulation does not match the reference", p.density);
  return out;
}

} // namespace

engines::Study densityStudy() {
  return {"density",
          "simulate a model at weight and activation densities from 0.1 to 1.0 on the sparse "
          "engine: speedup and energy against dense at each point",
          {{"densities",
            "weight and activation densities to simulate, each in (0, 1] (default: 0.1 to 1.0 "
            "in steps of 0.1)",
            false, 0.0, 1.0, true}},
          [](const ir::Graph& g, const engines::EngineConfig& c, const engines::StudyArgs& a) {
            return runDensityStudy(g, c.as<SparseConfig>(), a);
          }};
}

} // namespace nnaccel::arch::sparse
