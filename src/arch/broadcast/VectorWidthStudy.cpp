/// \file
/// The broadcast engine's vector-width study, `nnaccel sweep vector-width MODEL --arch
/// broadcast`: which 1xN kernel decomposition and broadcast group size P suit each layer
/// (sweepDecompositions, timing only). One row per array layer with the cycles of every (N, P)
/// point, the best point and its speedup over the conventional N = 1 at the same P, then one
/// line per kernel type saying which N wins how often; one CSV row per point.
#include "nnaccel/arch/broadcast/Session.h"
#include "nnaccel/arch/broadcast/Studies.h"
#include "nnaccel/report/Report.h"
#include "nnaccel/report/TextTable.h"

#include <algorithm>
#include <fmt/format.h>
#include <map>
#include <optional>

namespace nnaccel::arch::broadcast {
namespace {

void sortUnique(std::vector<int64_t>& values) {
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
}

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

/// One row per layer: the cycles of every (N, P) point any layer has (ordered by P, then N;
/// "-" where the layer has none), the best point, its cycles and activation reads, and its
/// speedup over N = 1 at the same P. The total row sums a column over the layers when every
/// layer has that point.
std::string table(const std::vector<SweepLayer>& layers) {
  std::map<PointKey, SweepPoint> columns;
  for (const SweepLayer& l : layers)
    for (const SweepPoint& p : l.points)
      columns.emplace(keyOf(p), p);
  constexpr auto kLeft = report::TextTable::Align::Left;
  constexpr auto kRight = report::TextTable::Align::Right;
  std::vector<report::TextTable::Column> header = {
      {"layer", kLeft}, {"op", kLeft}, {"kernel", kLeft}};
  for (const auto& [key, point] : columns)
    header.push_back({pointName(point), kRight});
  for (const char* name : {"best", "cycles", "reads", "vs N1"})
    header.push_back({name, kRight});
  report::TextTable t(std::move(header));

  std::map<PointKey, int64_t> columnTotals;
  std::map<PointKey, bool> columnComplete;
  int64_t bestCycles = 0, bestReads = 0, conventionalCycles = 0;
  bool conventionalComplete = true, anyBest = false;
  for (const SweepLayer& l : layers) {
    std::vector<std::string> row = {l.name, l.op, l.kernel};
    for (const auto& [key, column] : columns) {
      const SweepPoint* p = findPoint(l, column.vectorWidth, column.groupSize);
      row.push_back(p == nullptr ? "-" : report::groupThousands(p->cycles));
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
      row.push_back(report::groupThousands(best.cycles));
      row.push_back(report::groupThousands(best.activationReads));
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
    total.push_back(columnComplete[key] ? report::groupThousands(columnTotals[key]) : "-");
  total.push_back(anyBest ? "per layer" : "-");
  total.push_back(anyBest ? report::groupThousands(bestCycles) : "-");
  total.push_back(anyBest ? report::groupThousands(bestReads) : "-");
  total.push_back(anyBest && conventionalComplete && bestCycles > 0
                      ? fmt::format("{:.2f}x", static_cast<double>(conventionalCycles) /
                                                   static_cast<double>(bestCycles))
                      : "-");
  t.addRow(std::move(total));
  return t.render();
}

/// The integer values of option \p name, or \p fallback when it was not given; sorted, unique.
std::vector<int64_t> integers(const engines::StudyArgs& args, const std::string& name,
                              std::vector<int64_t> fallback) {
  std::vector<int64_t> out;
  if (const auto it = args.values.find(name); it != args.values.end())
    for (double v : it->second)
      out.push_back(static_cast<int64_t>(v));
  if (out.empty())
    out = std::move(fallback);
  sortUnique(out);
  return out;
}

std::string csv(const std::vector<SweepLayer>& layers) {
  std::string text = "layer,op,kernel,n,p,cycles,activation_reads,energy_pj,best\n";
  for (const SweepLayer& l : layers)
    for (size_t i = 0; i < l.points.size(); ++i) {
      const SweepPoint& p = l.points[i];
      if (findPoint(l, p.vectorWidth, p.groupSize) != &p)
        continue; // a width clipped to one already listed: the same decomposition
      text +=
          fmt::format("{},{},{},{},{},{},{},{:.3f},{}\n", report::csvField(l.name),
                      report::csvField(l.op), report::csvField(l.kernel), p.vectorWidth,
                      p.groupSize, p.cycles, p.activationReads, p.energyPj, i == l.best ? 1 : 0);
    }
  return text;
}

engines::StudyResult runVectorWidthStudy(const ir::Graph& g, const BroadcastConfig& config,
                                         const engines::StudyArgs& args) {
  const std::vector<int64_t> widths = integers(args, "widths", {1, 2, 3, 4, 5});
  const std::vector<int64_t> groupSizes = integers(args, "group-sizes", {2, 4, 8});
  const std::vector<SweepLayer> layers = sweepDecompositions(g, config, widths, groupSizes);
  // The session lists a layer once it has a feasible point: an empty sweep means no feasible
  // point at all, unless the model has no array layer (then the config's own point is empty
  // too).
  if (layers.empty() && !sweepDecompositions(g, config, {1}, {config.groupSize}).empty())
    throw Error(ErrorKind::Usage, {},
                fmt::format("--group-sizes: no (N, P) point is feasible on broadcast '{}': a "
                            "group size must divide the {} PEs of a column and hold N (group "
                            "sizes {}; widths {})",
                            config.name, config.pesPerColumn, fmt::join(groupSizes, ","),
                            fmt::join(widths, ",")));
  engines::StudyResult out;
  out.text = fmt::format("vector-width sweep of '{}' on broadcast '{}' ({} column{} x {} PEs; "
                         "widths N {}, group sizes P {}; timing only, not verified)\n",
                         g.name, config.name, config.columns, config.columns == 1 ? "" : "s",
                         config.pesPerColumn, fmt::join(widths, ","), fmt::join(groupSizes, ","));
  if (layers.empty())
    out.text += fmt::format("no layer of '{}' runs on the PE array\n", g.name);
  else
    out.text += table(layers) + kernelSummary(layers);
  out.csv = csv(layers);
  return out;
}

} // namespace

engines::Study vectorWidthStudy() {
  return {"vector-width",
          "time every array layer of a model for each kernel-vector width N and broadcast-group "
          "size P on the broadcast engine: the best choice per layer",
          {{"widths",
            "kernel-vector widths N to time, each >= 1 (1: the conventional 1x1 decomposition; "
            "a width beyond a layer's kernel is clipped to it; default: 1,2,3,4,5)",
            true, 1, 1e9},
           {"group-sizes",
            "broadcast-group sizes P to time, each >= 1 (a P that does not divide the PEs of a "
            "column or is smaller than N is skipped; default: 2,4,8)",
            true, 1, 1e9}},
          [](const ir::Graph& g, const engines::EngineConfig& c, const engines::StudyArgs& a) {
            return runVectorWidthStudy(g, c.as<BroadcastConfig>(), a);
          }};
}

} // namespace nnaccel::arch::broadcast
