/// \file
/// The sparse engine's density study, `nnaccel sweep density MODEL --arch sparse`: what weight
/// pruning and activation sparsity buy on the SCNN array. At each point the model's weights are
/// magnitude-pruned (passes::magnitudePrune) and the array layers read seeded synthetic
/// activations (each layer verified bit for bit on its own input), at the point's density, or,
/// with per-layer profiles (--weight-densities, --activation-densities), at the profile scaled
/// by the point's value (densityPoint; --axis picks the operands the value applies to). The
/// table gives cycles, energy, the achieved densities, and speedup and energy ratio against the
/// dense PTIS-dense baseline, and the break-even points where the sparse machine stops winning.
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
  double value = 0; ///< the density, or the profiles' scale
  Totals totals;
  bool verified = false;
};

/// The value where \p metric(point) crosses 1 going from above to below (linear interpolation
/// between the two points around it), if the sweep brackets one.
std::optional<double> breakEven(const std::vector<Point>& points, double (*metric)(const Totals&)) {
  for (size_t i = 0; i + 1 < points.size(); ++i) {
    const double a = metric(points[i].totals), b = metric(points[i + 1].totals);
    if (a >= 1.0 && b < 1.0) {
      const double t = (a - 1.0) / (a - b);
      return points[i].value + t * (points[i + 1].value - points[i].value);
    }
  }
  return std::nullopt;
}

std::string table(const std::vector<Point>& points, const std::string& axis) {
  constexpr auto kRight = report::TextTable::Align::Right;
  report::TextTable table({{axis, kRight},
                           {"w density", kRight},
                           {"a density", kRight},
                           {"cycles", kRight},
                           {"dense cycles", kRight},
                           {"speedup", kRight},
                           {"energy uJ", kRight},
                           {"dense uJ", kRight},
                           {"energy ratio", kRight},
                           {"oracle cycles", kRight},
                           {"verified", report::TextTable::Align::Left}});
  for (const Point& p : points)
    table.addRow({fmt::format("{:.2f}", p.value), fmt::format("{:.3f}", p.totals.weightDensity),
                  fmt::format("{:.3f}", p.totals.activationDensity),
                  fmt::format("{}", p.totals.cycles), fmt::format("{}", p.totals.denseCycles),
                  fmt::format("{:.2f}x", p.totals.speedup()),
                  fmt::format("{:.1f}", p.totals.energyPj / 1e6),
                  fmt::format("{:.1f}", p.totals.denseEnergyPj / 1e6),
                  fmt::format("{:.2f}x", p.totals.energyRatio()),
                  fmt::format("{}", p.totals.oracleCycles), p.verified ? "yes" : "NO"});
  return table.render();
}

std::string csv(const std::vector<Point>& points, const std::string& axis) {
  std::string text = axis + ",weight_density,activation_density,cycles,dense_cycles,speedup,"
                            "energy_pj,dense_energy_pj,energy_ratio,oracle_cycles,verified\n";
  for (const Point& p : points)
    text += fmt::format("{},{:.6f},{:.6f},{},{},{:.6f},{:.3f},{:.3f},{:.6f},{},{}\n", p.value,
                        p.totals.weightDensity, p.totals.activationDensity, p.totals.cycles,
                        p.totals.denseCycles, p.totals.speedup(), p.totals.energyPj,
                        p.totals.denseEnergyPj, p.totals.energyRatio(), p.totals.oracleCycles,
                        p.verified ? 1 : 0);
  return text;
}

/// \p spec with every density (the default too) multiplied by \p factor.
passes::PruneSpec scaled(passes::PruneSpec spec, double factor) {
  if (spec.density)
    *spec.density *= factor;
  for (auto& entry : spec.perLayer)
    entry.second *= factor;
  return spec;
}

engines::LayerDensities layerDensities(const passes::PruneSpec& spec) {
  return {spec.density, spec.perLayer, spec.source};
}

/// How one operand is set across the sweep, for the title line: \p set followed by its target
/// when the sweep or a file sets it, else \p untouched.
std::string describe(const std::optional<passes::PruneSpec>& file, bool swept, const char* set,
                     const char* untouched) {
  if (swept && file)
    return fmt::format("{} {}'s densities x the scale", set, file->source);
  if (swept)
    return fmt::format("{} the density", set);
  if (file)
    return fmt::format("{} {}'s densities", set, file->source);
  return untouched;
}

/// The profiles the study's options name: the files read and checked against \p model.
DensityProfiles readProfiles(const ir::Graph& model, const engines::StudyArgs& args) {
  DensityProfiles p;
  if (const auto it = args.texts.find("weight-densities"); it != args.texts.end()) {
    p.weights = passes::readPruneSpecFile(it->second);
    passes::checkPruneSpec(model, *p.weights);
  }
  if (const auto it = args.texts.find("activation-densities"); it != args.texts.end()) {
    p.activations = passes::readPruneSpecFile(it->second);
    layerDensities(*p.activations).checkLayerNames(model);
  }
  if (const auto it = args.texts.find("axis"); it != args.texts.end()) {
    p.sweepWeights = it->second != "activations";
    p.sweepActivations = it->second != "weights";
  }
  return p;
}

engines::StudyResult runDensityStudy(const ir::Graph& model, const SparseConfig& config,
                                     const engines::StudyArgs& args) {
  const DensityProfiles profiles = readProfiles(model, args);
  const std::string axis = profiles.scales() ? "scale" : "density";
  std::vector<double> values;
  if (const auto it = args.values.find("densities"); it != args.values.end())
    values = it->second;
  if (values.empty())
    for (int i = 1; i <= 10; ++i)
      values.push_back(i / 10.0);
  std::sort(values.begin(), values.end());
  std::vector<Point> points;
  for (double v : values) {
    if (args.progress)
      args.progress(fmt::format("{} {:.2f}", axis, v));
    const DensityPoint at = densityPoint(profiles, v);
    ir::Graph g = model;
    if (at.weights)
      passes::magnitudePrune(g, *at.weights);
    SessionOptions so;
    so.activationDensities = at.activations;
    const SessionResult r = simulateModel(g, config, so);
    points.push_back(Point{v, r.totals, r.report.verdict.passed});
  }
  engines::StudyResult out;
  const auto describeBreakEven = [](std::optional<double> d) {
    return d ? fmt::format("{:.2f}", *d) : std::string("not bracketed by the sweep");
  };
  out.text =
      fmt::format("density sweep of '{}' on sparse '{}' ({}; {})\n{}", model.name, config.name,
                  describe(profiles.weights, profiles.sweepWeights, "weights magnitude-pruned to",
                           "weights unpruned"),
                  describe(profiles.activations, profiles.sweepActivations,
                           "synthetic activations at", "activations computed from the input"),
                  table(points, axis));
  out.text += fmt::format(
      "break-even {}: speedup {}, energy {}\n", axis,
      describeBreakEven(breakEven(points, [](const Totals& t) { return t.speedup(); })),
      describeBreakEven(breakEven(points, [](const Totals& t) { return t.energyRatio(); })));
  out.csv = csv(points, axis);
  for (const Point& p : points)
    if (!p.verified && out.failure.empty())
      out.failure =
          fmt::format("{} {:.2f}: simulation does not match the reference", axis, p.value);
  return out;
}

} // namespace

bool DensityProfiles::scales() const {
  return (sweepWeights && weights) || (sweepActivations && activations);
}

DensityPoint densityPoint(const DensityProfiles& profiles, double value) {
  DensityPoint p;
  if (profiles.sweepWeights)
    p.weights =
        profiles.weights ? scaled(*profiles.weights, value) : passes::PruneSpec{.density = value};
  else
    p.weights = profiles.weights;
  if (profiles.sweepActivations)
    p.activations = profiles.activations ? layerDensities(scaled(*profiles.activations, value))
                                         : engines::LayerDensities{.density = value};
  else if (profiles.activations)
    p.activations = layerDensities(*profiles.activations);
  return p;
}

engines::Study densityStudy() {
  return {"density",
          "simulate a model at weight and activation densities from 0.1 to 1.0 (or per-layer "
          "density profiles scaled by 0.1 to 1.0) on the sparse engine: speedup and energy "
          "against dense at each point",
          {{"densities",
            "the sweep's points, each in (0, 1]: the density of every layer of the swept "
            "operands, or the factor a profile file's densities are multiplied by (default: 0.1 "
            "to 1.0 in steps of 0.1)",
            false, 0.0, 1.0, true},
           engines::StudyOption::file(
               "weight-densities",
               "the weights' per-layer profile, as prune --weight-densities reads it ({\"layer "
               "name\": density, ...}, optional \"default\"; unlisted layers stay unpruned)"),
           engines::StudyOption::file(
               "activation-densities",
               "the activations' per-layer profile, as simulate --activation-densities reads it "
               "(unlisted layers read their computed input)"),
           engines::StudyOption::choice(
               "axis",
               "the operands the sweep's value applies to: both (default), weights or "
               "activations; the other keeps its file's densities or, without one, the model's "
               "weights / the computed activations",
               {"both", "weights", "activations"})},
          [](const ir::Graph& g, const engines::EngineConfig& c, const engines::StudyArgs& a) {
            return runDensityStudy(g, c.as<SparseConfig>(), a);
          }};
}

} // namespace nnaccel::arch::sparse
