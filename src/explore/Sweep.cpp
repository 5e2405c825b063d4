/// \file
/// The engine-neutral sweep (include/nnaccel/explore/Sweep.h): --param parsing, the grid's
/// row-major point order, round-robin shards, the Pareto front and objective, one point's run
/// through the engine registry, and the thread pool that runs a list of points.
#include "nnaccel/explore/Sweep.h"

#include "nnaccel/explore/Mpi.h"
#include "nnaccel/support/Error.h"
#include "nnaccel/support/Interrupt.h"
#include "nnaccel/support/MemoryBudget.h"

#include <algorithm>
#include <atomic>
#include <charconv>
#include <cstdlib>
#include <exception>
#include <fmt/format.h>
#include <limits>
#include <mutex>
#include <optional>
#include <thread>
#include <yaml-cpp/yaml.h>

namespace nnaccel::explore {

namespace {

Error paramError(const std::string& text, const std::string& reason) {
  return Error(ErrorKind::Usage, {}, fmt::format("--param '{}': {}", text, reason));
}

/// Splits \p list at the commas outside brackets and braces.
std::vector<std::string> splitValues(const std::string& list) {
  std::vector<std::string> values;
  std::string current;
  int depth = 0;
  for (char c : list) {
    if (c == '[' || c == '{')
      ++depth;
    else if ((c == ']' || c == '}') && depth > 0)
      --depth;
    if (c == ',' && depth == 0) {
      values.push_back(current);
      current.clear();
    } else {
      current += c;
    }
  }
  values.push_back(current);
  return values;
}

std::string trimmed(const std::string& s) {
  const size_t first = s.find_first_not_of(" \t");
  if (first == std::string::npos)
    return "";
  return s.substr(first, s.find_last_not_of(" \t") - first + 1);
}

/// True when the dotted \p key names a node of \p root.
bool hasPath(const YAML::Node& root, const std::string& key) {
  YAML::Node node = root;
  size_t start = 0;
  while (true) {
    const size_t dot = key.find('.', start);
    const std::string part = key.substr(start, dot == std::string::npos ? dot : dot - start);
    if (!node.IsMap() || part.empty() || !node[part])
      return false;
    node.reset(node[part]);
    if (dot == std::string::npos)
      return true;
    start = dot + 1;
  }
}

} // namespace

Param parseParam(const std::string& text) {
  const size_t eq = text.find('=');
  if (eq == std::string::npos)
    throw paramError(text, "expected KEY=V1,V2,..., e.g. array.rows=32,64,128");
  Param p;
  p.key = trimmed(text.substr(0, eq));
  if (p.key.empty())
    throw paramError(text, "the key is empty (expected KEY=V1,V2,...)");
  const std::string list = text.substr(eq + 1);
  if (trimmed(list).empty())
    throw paramError(text, "no values (expected KEY=V1,V2,...)");
  for (const std::string& raw : splitValues(list)) {
    const std::string value = trimmed(raw);
    if (value.empty())
      throw paramError(text, "empty value in the list");
    if (std::find(p.values.begin(), p.values.end(), value) != p.values.end())
      throw paramError(text, fmt::format("value '{}' is given twice", value));
    p.values.push_back(value);
  }
  return p;
}

std::string paramText(const Param& p) {
  return fmt::format("{}={}", p.key, fmt::join(p.values, ","));
}

Grid::Grid(std::vector<Param> params) : params_(std::move(params)) {
  for (size_t i = 0; i < params_.size(); ++i) {
    for (size_t j = 0; j < i; ++j)
      if (params_[j].key == params_[i].key)
        throw Error(ErrorKind::Usage, {},
                    fmt::format("--param: key '{}' is given twice", params_[i].key));
    NNACCEL_ASSERT(!params_[i].values.empty()) << "param " << params_[i].key << " has no values";
    if (size_ > std::numeric_limits<size_t>::max() / params_[i].values.size())
      throw Error(ErrorKind::Usage, {}, "--param: the grid has more points than fit in 64 bits");
    size_ *= params_[i].values.size();
  }
}

std::vector<std::string> Grid::values(size_t index) const {
  NNACCEL_ASSERT(index < size_) << "point " << index << " outside a grid of " << size_;
  std::vector<std::string> out(params_.size());
  for (size_t i = params_.size(); i-- > 0;) {
    const size_t n = params_[i].values.size();
    out[i] = params_[i].values[index % n];
    index /= n;
  }
  return out;
}

std::vector<engines::Override> Grid::overrides(size_t index) const {
  const std::vector<std::string> v = values(index);
  std::vector<engines::Override> out;
  for (size_t i = 0; i < params_.size(); ++i)
    out.push_back(engines::Override{params_[i].key, v[i]});
  return out;
}

void checkParams(const engines::EngineConfig& base, const std::vector<Param>& params) {
  const YAML::Node schema = YAML::Load(base.toYaml());
  for (const Param& p : params) {
    if (hasPath(schema, p.key))
      continue;
    // Not in the effective config: the key is known only if some value applies on its own.
    std::string firstError;
    bool applies = false;
    for (const std::string& v : p.values) {
      try {
        engines::applyOverrides(base, {engines::Override{p.key, v}}, "--param");
        applies = true;
        break;
      } catch (const Error& e) {
        if (firstError.empty())
          firstError = e.what();
      }
    }
    if (!applies)
      throw Error(ErrorKind::Usage, {},
                  fmt::format("{} (no value of --param '{}' applies to {} '{}'; see 'nnaccel "
                              "arch show {}')",
                              firstError, paramText(p), base.engine(), base.name(), base.engine()));
  }
}

Shard parseShard(const std::string& text) {
  const auto bad = [&](const std::string& reason) {
    return Error(ErrorKind::Usage, {}, fmt::format("--shard '{}': {}", text, reason));
  };
  const size_t slash = text.find('/');
  if (slash == std::string::npos)
    throw bad("expected K/N with 1 <= K <= N, e.g. 1/4");
  const auto number = [&](const std::string& s) {
    size_t v = 0;
    const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (s.empty() || ec != std::errc() || ptr != s.data() + s.size())
      throw bad("expected K/N with 1 <= K <= N, e.g. 1/4");
    return v;
  };
  Shard s{number(text.substr(0, slash)), number(text.substr(slash + 1))};
  if (s.count == 0)
    throw bad("the shard count N must be at least 1");
  if (s.index == 0 || s.index > s.count)
    throw bad(fmt::format("K must be from 1 to {} (shards are numbered from 1)", s.count));
  return s;
}

std::string shardText(const Shard& s) {
  return fmt::format("{}/{}", s.index, s.count);
}

std::vector<size_t> shardPoints(size_t gridSize, const Shard& shard) {
  // A point's index and result (its parameter values a few dozen bytes) stay in memory until
  // the points are ranked: refuse a grid whose results cannot fit before running any.
  const uint64_t points = gridSize < shard.index ? 0 : (gridSize - shard.index) / shard.count + 1;
  constexpr uint64_t kBytesPerPoint = sizeof(size_t) + sizeof(PointResult) + 64;
  if (points > memoryBudgetBytes() / kBytesPerPoint)
    requireMemory(points > UINT64_MAX / kBytesPerPoint ? UINT64_MAX : points * kBytesPerPoint,
                  fmt::format("a sweep of {} points", points));
  std::vector<size_t> out;
  // Stepping by the count from the last point would overflow for a count near SIZE_MAX.
  for (size_t i = shard.index - 1; i < gridSize; i += shard.count) {
    out.push_back(i);
    if (gridSize - i <= shard.count)
      break;
  }
  return out;
}

Objective parseObjective(const std::string& text) {
  if (text == "cycles")
    return Objective::Cycles;
  if (text == "energy")
    return Objective::Energy;
  if (text == "edp")
    return Objective::Edp;
  throw Error(ErrorKind::Usage, {},
              fmt::format("--objective '{}': expected cycles, energy or edp", text));
}

std::string objectiveName(Objective o) {
  switch (o) {
  case Objective::Cycles:
    return "cycles";
  case Objective::Energy:
    return "energy";
  case Objective::Edp:
    return "edp";
  }
  NNACCEL_UNREACHABLE("bad objective");
  return "";
}

std::string statusName(PointStatus s) {
  switch (s) {
  case PointStatus::Ok:
    return "ok";
  case PointStatus::Mismatch:
    return "mismatch";
  case PointStatus::Error:
    return "error";
  case PointStatus::Interrupted:
    return "interrupted";
  }
  NNACCEL_UNREACHABLE("bad status");
  return "";
}

double objectiveValue(const PointResult& p, Objective o) {
  switch (o) {
  case Objective::Cycles:
    return static_cast<double>(p.cycles);
  case Objective::Energy:
    return p.energyPj;
  case Objective::Edp:
    return p.edpPjUs;
  }
  NNACCEL_UNREACHABLE("bad objective");
  return 0;
}

const std::vector<std::string>& paretoMetrics() {
  static const std::vector<std::string> kMetrics = {"cycles",     "time_us",    "energy_pj",
                                                    "edp_pj_us",  "dram_bytes", "multipliers",
                                                    "sram_bytes", "area_mm2"};
  return kMetrics;
}

const std::vector<std::string>& defaultParetoAxes() {
  static const std::vector<std::string> kAxes = {"cycles", "energy_pj"};
  return kAxes;
}

std::vector<std::string> parseParetoAxes(const std::string& text) {
  const auto bad = [&](const std::string& reason) {
    return Error(ErrorKind::Usage, {}, fmt::format("--pareto '{}': {}", text, reason));
  };
  std::vector<std::string> axes;
  for (const std::string& raw : splitValues(text)) {
    const std::string axis = trimmed(raw);
    const auto& known = paretoMetrics();
    if (std::find(known.begin(), known.end(), axis) == known.end())
      throw bad(fmt::format("'{}' is not a metric (expected two or more of: {})", axis,
                            fmt::join(known, ", ")));
    if (std::find(axes.begin(), axes.end(), axis) != axes.end())
      throw bad(fmt::format("'{}' is given twice", axis));
    axes.push_back(axis);
  }
  if (axes.size() < 2)
    throw bad("a front needs two or more metrics, e.g. cycles,energy_pj");
  return axes;
}

double metricValue(const PointResult& p, const std::string& name) {
  if (name == "cycles")
    return static_cast<double>(p.cycles);
  if (name == "time_us")
    return p.timeUs;
  if (name == "energy_pj")
    return p.energyPj;
  if (name == "edp_pj_us")
    return p.edpPjUs;
  if (name == "dram_bytes")
    return static_cast<double>(p.dramBytes);
  if (name == "multipliers")
    return static_cast<double>(p.multipliers);
  if (name == "area_mm2")
    return p.areaMm2;
  NNACCEL_ASSERT(name == "sram_bytes") << "unknown metric " << name;
  return static_cast<double>(p.sramBytes);
}

void rankPoints(std::vector<PointResult>& points, Objective objective,
                const std::vector<std::string>& axes) {
  std::vector<size_t> ok;
  for (size_t i = 0; i < points.size(); ++i) {
    points[i].pareto = points[i].best = false;
    if (points[i].status == PointStatus::Ok)
      ok.push_back(i);
  }
  std::vector<std::vector<double>> values;
  for (size_t i : ok) {
    std::vector<double> v;
    for (const std::string& axis : axes)
      v.push_back(metricValue(points[i], axis));
    values.push_back(std::move(v));
  }
  // Quadratic in the points, which is nothing next to simulating them.
  const auto dominates = [&](size_t a, size_t b) {
    bool strictly = false;
    for (size_t k = 0; k < axes.size(); ++k) {
      if (values[a][k] > values[b][k])
        return false;
      strictly = strictly || values[a][k] < values[b][k];
    }
    return strictly;
  };
  for (size_t b = 0; b < ok.size(); ++b) {
    bool dominated = false;
    for (size_t a = 0; a < ok.size() && !dominated; ++a)
      dominated = dominates(a, b);
    points[ok[b]].pareto = !dominated;
  }
  std::optional<size_t> best;
  for (size_t i : ok) {
    const double v = objectiveValue(points[i], objective);
    const double b = best ? objectiveValue(points[*best], objective) : 0.0;
    if (!best || v < b || (v == b && points[i].index < points[*best].index))
      best = i;
  }
  if (best)
    points[*best].best = true;
}

std::vector<size_t> paretoFront(const std::vector<PointResult>& points,
                                const std::vector<std::string>& axes) {
  std::vector<size_t> front;
  for (size_t i = 0; i < points.size(); ++i)
    if (points[i].pareto)
      front.push_back(i);
  std::sort(front.begin(), front.end(), [&](size_t a, size_t b) {
    for (const std::string& axis : axes) {
      const double va = metricValue(points[a], axis), vb = metricValue(points[b], axis);
      if (va != vb)
        return va < vb;
    }
    return points[a].index < points[b].index;
  });
  return front;
}

PointResult evaluatePoint(const ir::Graph& g, const engines::EngineConfig& base, const Grid& grid,
                          size_t index, const engines::RunOptions& options) {
  PointResult r;
  r.index = index;
  r.values = grid.values(index);
  try {
    const engines::EngineConfig config =
        engines::applyOverrides(base, grid.overrides(index), "--param");
    const engines::Resources res = engines::resources(config);
    r.multipliers = res.multipliers;
    r.sramBytes = res.sramBytes;
    const report::RunReport report = engines::simulate(g, config, options);
    r.cycles = report.total.cycles;
    r.timeUs = res.clockMhz > 0 ? static_cast<double>(r.cycles) / res.clockMhz : 0.0;
    r.energyPj = report.energyPerInferencePj();
    r.areaMm2 = report.technology.areaMm2;
    r.edpPjUs = r.energyPj * r.timeUs;
    r.utilization = report.total.utilization;
    r.dramBytes = report.total.dram.readBytes + report.total.dram.writeBytes;
    if (report.interrupted && (!report.verdict.checked || report.verdict.passed)) {
      r.status = PointStatus::Interrupted;
      r.verified = "interrupted";
      r.error = fmt::format("interrupted (Ctrl-C) after {} of {} layers", report.layers.size(),
                            report.layersPlanned);
    } else if (!report.verdict.checked) {
      r.status = PointStatus::Ok;
      r.verified = "skipped";
    } else if (report.verdict.passed) {
      r.status = PointStatus::Ok;
      r.verified = "yes";
    } else {
      r.status = PointStatus::Mismatch;
      r.verified = "no";
      r.error = report.verdict.detail.empty() ? "outputs differ from the reference"
                                              : report.verdict.detail;
    }
  } catch (const Interrupted&) {
    r = PointResult{.index = index,
                    .values = r.values,
                    .status = PointStatus::Interrupted,
                    .error = "interrupted (Ctrl-C) before its first layer finished"};
  } catch (const Error& e) {
    r = PointResult{.index = index, .values = r.values, .error = e.what()};
  } catch (const std::exception& e) {
    r = PointResult{
        .index = index, .values = r.values, .error = fmt::format("internal: {}", e.what())};
  }
  // A message is one CSV field on one line.
  std::replace(r.error.begin(), r.error.end(), '\n', ' ');
  std::replace(r.error.begin(), r.error.end(), '\r', ' ');
  return r;
}

std::vector<PointResult> runPoints(const std::vector<size_t>& points, int threads,
                                   const std::function<PointResult(size_t)>& evaluate,
                                   const PointDone& done) {
  std::vector<PointResult> results(points.size());
  std::vector<char> ran(points.size(), 0);
  std::atomic<size_t> next{0};
  std::mutex mutex; // guards finished, failure and the done callback
  size_t finished = 0;
  std::exception_ptr failure;
  const auto work = [&] {
    // After Ctrl-C no new point starts; the running ones stop at their next layer.
    for (size_t i; !interruptRequested() && (i = next.fetch_add(1)) < points.size();) {
      try {
        PointResult r = evaluate(points[i]);
        const std::lock_guard<std::mutex> lock(mutex);
        results[i] = std::move(r);
        ran[i] = 1;
        ++finished;
        if (done)
          done(results[i], finished, points.size());
      } catch (...) {
        const std::lock_guard<std::mutex> lock(mutex);
        if (!failure)
          failure = std::current_exception();
        next.store(points.size()); // stop handing out points
      }
    }
  };
  const size_t count = std::min(static_cast<size_t>(std::max(threads, 1)), points.size());
  std::vector<std::thread> pool;
  for (size_t t = 1; t < count; ++t)
    pool.emplace_back(work);
  work();
  for (std::thread& t : pool)
    t.join();
  if (failure)
    std::rethrow_exception(failure);
  std::vector<PointResult> out; // the points that ran (all of them unless interrupted)
  for (size_t i = 0; i < results.size(); ++i)
    if (ran[i])
      out.push_back(std::move(results[i]));
  return out;
}

std::string configDigest(const engines::EngineConfig& config) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : config.toYaml()) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  return fmt::format("{:016x}", h);
}

namespace mpi {

int launchedRanks() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"}) {
    const char* v = std::getenv(name);
    if (v == nullptr)
      continue;
    int n = 0;
    const std::string s(v);
    const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), n);
    if (ec == std::errc() && ptr == s.data() + s.size() && n >= 1)
      return n;
  }
  return 1;
}

} // namespace mpi

} // namespace nnaccel::explore
