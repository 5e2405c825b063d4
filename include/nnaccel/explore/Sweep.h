/// \file
/// Design-space sweeps over any engine's config keys (`nnaccel sweep MODEL --param ...`): the
/// grid of configurations, its deterministic split into shards, the parallel run of its points,
/// and the Pareto front and objective that rank them.
///
/// Why a library: the CLI (`sweep`, `sweep merge`), the MPI path (Mpi.h) and the lead's HTML
/// report all need the same point order, the same front and the same rows; none of it knows an
/// engine's types (it goes through engines::applyOverrides and engines::simulate). CSV I/O and
/// merging of shards are in SweepCsv.h. docs/Sweep.md describes the whole feature.
///
/// Determinism: a point's result depends only on the model, the base config and its index, so
/// the rows of a sweep are the same whatever the thread count, the shard split or the MPI rank
/// count; results are always kept in index order.
#pragma once

#include "nnaccel/engines/Engine.h"
#include "nnaccel/ir/Graph.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace nnaccel::explore {

/// One swept config key and its values, as given by `--param array.rows=32,64,128`.
struct Param {
  std::string key;                 ///< the schema's dotted path ("array.rows")
  std::vector<std::string> values; ///< YAML scalars or flow sequences, in the order given

  bool operator==(const Param&) const = default;
};

/// Parses "KEY=V1,V2,...". Commas inside [...] or {...} belong to the value, so a flow
/// sequence can be swept ("dtypes=[int8],[int8, fp32]"). Throws nnaccel::Error (Usage) naming
/// "--param" and \p text when there is no '=', the key is empty, the value list is empty, a
/// value is empty, or a value is given twice.
Param parseParam(const std::string& text);
/// "KEY=V1,V2,..." (what parseParam reads back).
std::string paramText(const Param& p);

/// The cross product of the params. Point index i enumerates it in row-major order: the first
/// param varies slowest and the last fastest, so `--param a=1,2 --param b=x,y` gives the points
/// 0 (a=1,b=x), 1 (a=1,b=y), 2 (a=2,b=x), 3 (a=2,b=y). With no params the grid is one point,
/// the base config.
class Grid {
public:
  /// Throws nnaccel::Error (Usage) when a key is given twice.
  explicit Grid(std::vector<Param> params);

  const std::vector<Param>& params() const { return params_; }
  /// The number of points (the product of the value counts).
  size_t size() const { return size_; }
  /// The value of every param at point \p index (params() order).
  std::vector<std::string> values(size_t index) const;
  /// The overrides of point \p index, for engines::applyOverrides.
  std::vector<engines::Override> overrides(size_t index) const;

private:
  std::vector<Param> params_;
  size_t size_ = 1;
};

/// Checks every param's key against \p base before any point runs: a key that the engine's
/// schema does not know is a one-line usage error (the schema's message for the first value,
/// then the --param and the engine). A key is known when it is a path of base.toYaml(), or when
/// at least one of its values applies to \p base on its own. Invalid values of a known key are
/// left to the points: each becomes an Error row (a value may be valid only together with
/// another param's).
void checkParams(const engines::EngineConfig& base, const std::vector<Param>& params);

/// A slice of the grid for one process of a batch job: `--shard K/N`, K in 1..N. Point i
/// belongs to shard K when i mod N == K - 1 (round robin, so expensive corners of the grid
/// spread over the shards). N = 1 is the whole grid.
struct Shard {
  size_t index = 1; ///< K, 1-based (Slurm array task ids and GNU parallel's {#} start at 1)
  size_t count = 1; ///< N

  bool whole() const { return count == 1; }
  bool contains(size_t point) const { return point % count == index - 1; }
  bool operator==(const Shard&) const = default;
};
/// Parses "K/N" (1 <= K <= N). Throws nnaccel::Error (Usage) naming "--shard" otherwise.
Shard parseShard(const std::string& text);
/// "K/N".
std::string shardText(const Shard& s);
/// The points of \p shard in a grid of \p gridSize points, ascending.
std::vector<size_t> shardPoints(size_t gridSize, const Shard& shard);

/// What "best" means: fewest cycles, least energy, or the least energy-delay product
/// (energy_pj x time_us).
enum class Objective { Cycles, Energy, Edp };
/// "cycles", "energy", "edp". Throws nnaccel::Error (Usage) naming "--objective" otherwise.
Objective parseObjective(const std::string& text);
std::string objectiveName(Objective o);

/// How a point ended.
enum class PointStatus {
  Ok,       ///< simulated; verified bit-exact, or timing only
  Mismatch, ///< simulated, but the outputs differ from the reference (a simulator bug)
  Error,    ///< the config is invalid or the model does not compile for it (see `error`)
  /// Ctrl-C stopped its run (its figures cover the layers that finished; never ranked)
  Interrupted,
};
std::string statusName(PointStatus s);

/// One point of a sweep: its config and what its run gave. A CSV row (SweepCsv.h).
struct PointResult {
  size_t index = 0;                ///< position in the grid
  std::vector<std::string> values; ///< one per param
  PointStatus status = PointStatus::Error;
  int64_t cycles = 0;
  double timeUs = 0; ///< cycles / clock_mhz
  /// The report's energy per inference: dynamic plus static (leakage x time; 0 for an engine
  /// without a technology, docs/Technology.md)
  double energyPj = 0;
  double edpPjUs = 0;      ///< energyPj x timeUs
  double utilization = 0;  ///< useful MACs / (multipliers x cycles), the report's total
  int64_t dramBytes = 0;   ///< DRAM reads + writes
  int64_t multipliers = 0; ///< engines::resources of the point's config
  int64_t sramBytes = 0;   ///< engines::resources of the point's config
  double areaMm2 = 0;      ///< the report's area (0: the engine has no technology)
  std::string verified;    ///< "yes", "no" (Mismatch), "skipped" (timing only), "" (Error)
  std::string error;       ///< Error: the one-line message; Mismatch: the first difference
  bool pareto = false;     ///< on the Pareto front of the points it was ranked with
  bool best = false;       ///< the best point for the objective (one per ranking)

  bool operator==(const PointResult&) const = default;
};

/// The value \p o ranks points by (smaller is better).
double objectiveValue(const PointResult& p, Objective o);

/// The metrics a Pareto front can minimize, named as their CSV columns: cycles, time_us,
/// energy_pj, edp_pj_us, dram_bytes, multipliers (a proxy for area), sram_bytes, area_mm2.
const std::vector<std::string>& paretoMetrics();
/// The default front: fewest cycles and least energy.
const std::vector<std::string>& defaultParetoAxes();
/// Parses "cycles,multipliers": two or more distinct paretoMetrics(). Throws nnaccel::Error
/// (Usage) naming "--pareto" otherwise.
std::vector<std::string> parseParetoAxes(const std::string& text);
/// \p p's value of the metric \p name (one of paretoMetrics()).
double metricValue(const PointResult& p, const std::string& name);

/// Sets `pareto` and `best` over the Ok points of \p points (Mismatch and Error points get
/// neither). The front minimizes every metric of \p axes: a point is on it when no other Ok
/// point is <= on every axis and < on one (points equal on every axis are all on it). `best` is
/// the Ok point with the smallest objective value; a tie goes to the smaller index.
void rankPoints(std::vector<PointResult>& points, Objective objective,
                const std::vector<std::string>& axes = defaultParetoAxes());
/// The positions in \p points of the Pareto points, ordered by the first axis, then the next
/// ones, then the index (the order to draw the front in); rankPoints must have run with \p axes.
std::vector<size_t> paretoFront(const std::vector<PointResult>& points,
                                const std::vector<std::string>& axes = defaultParetoAxes());

/// Runs point \p index of \p grid: applies its overrides to \p base (origin "--param"), reads
/// the config's resources, and simulates \p g. A nnaccel::Error (invalid config, model does not
/// fit) or any other exception becomes an Error row with its message; it is never thrown.
PointResult evaluatePoint(const ir::Graph& g, const engines::EngineConfig& base, const Grid& grid,
                          size_t index, const engines::RunOptions& options);

/// Called once per finished point, serialized (never from two threads at once): the point, how
/// many are done, and how many there are.
using PointDone = std::function<void(const PointResult&, size_t done, size_t total)>;

/// Evaluates every index of \p points on \p threads threads (>= 1; each takes the next index
/// when it is free) and returns the results in the order of \p points, whatever the thread
/// count or timing. \p evaluate must be safe to call concurrently; an exception it throws is
/// rethrown here after every thread has stopped.
std::vector<PointResult> runPoints(const std::vector<size_t>& points, int threads,
                                   const std::function<PointResult(size_t)>& evaluate,
                                   const PointDone& done = {});

/// The identity of a sweep: what a CSV's header records, and what shards must share to merge.
struct SweepSpec {
  std::string model;        ///< MODEL as given (zoo name or file path) and any --dim/--batch
  std::string engine;       ///< a registered engine name
  std::string config;       ///< the base config's name
  std::string configDigest; ///< 16 hex digits, FNV-1a 64 of the base config's YAML
  std::vector<Param> params;
  Objective objective = Objective::Cycles;
  std::vector<std::string> paretoAxes = defaultParetoAxes(); ///< what the front minimizes
  bool verify = true;                                        ///< false: --timing-only

  bool operator==(const SweepSpec&) const = default;
};

/// FNV-1a 64 of \p config's effective YAML, as 16 lower-case hex digits: two bases of the same
/// name but different contents give different digests.
std::string configDigest(const engines::EngineConfig& config);

/// A sweep's rows (or one shard's): the spec, the shard they cover, and the points in index
/// order. rankPoints has run over them with the spec's objective and axes.
struct SweepResult {
  SweepSpec spec;
  Shard shard;
  std::vector<PointResult> points;
};

} // namespace nnaccel::explore
