/// \file
/// Tests of the engine-neutral sweep (nnaccel/explore/Sweep.h): --param parsing and its errors,
/// the grid's row-major point order, --shard parsing and the round-robin split, the Pareto
/// front and the objective's best point (ties, failed points), the thread pool's order
/// whatever the thread count, the up-front key check, and real points on every engine run in
/// parallel giving the same rows as one thread (the engines share no mutable state).
#include "nnaccel/explore/Sweep.h"

#include "../../support/ErrorOf.h"
#include "nnaccel/driver/ModelLoader.h"
#include "nnaccel/explore/SweepCsv.h"
#include "nnaccel/support/Error.h"

#include <chrono>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <limits>
#include <stdexcept>
#include <string>
#include <thread>

namespace {

using namespace nnaccel;
using namespace nnaccel::explore;

using nnaccel::test::errorOf;

TEST(SweepParam, ParsesKeyAndValues) {
  const Param p = parseParam("array.rows=32, 64,128");
  EXPECT_EQ(p.key, "array.rows");
  EXPECT_EQ(p.values, (std::vector<std::string>{"32", "64", "128"}));
  EXPECT_EQ(paramText(p), "array.rows=32,64,128");
  // Commas inside a flow sequence belong to the value.
  EXPECT_EQ(parseParam("dtypes=[int8],[int8, fp32]").values,
            (std::vector<std::string>{"[int8]", "[int8, fp32]"}));
  EXPECT_EQ(parseParam(paramText(p)), p);
}

TEST(SweepParam, MalformedParamsAreOneLineUsageErrors) {
  EXPECT_EQ(errorOf([] { parseParam("array.rows"); }),
            "--param 'array.rows': expected KEY=V1,V2,..., e.g. array.rows=32,64,128");
  EXPECT_EQ(errorOf([] { parseParam("=4"); }),
            "--param '=4': the key is empty (expected KEY=V1,V2,...)");
  EXPECT_EQ(errorOf([] { parseParam("array.rows="); }),
            "--param 'array.rows=': no values (expected KEY=V1,V2,...)");
  EXPECT_EQ(errorOf([] { parseParam("array.rows=32,,64"); }),
            "--param 'array.rows=32,,64': empty value in the list");
  EXPECT_EQ(errorOf([] { parseParam("array.rows=32,64,32"); }),
            "--param 'array.rows=32,64,32': value '32' is given twice");
  EXPECT_EQ(errorOf([] {
              Grid({parseParam("a=1"), parseParam("a=2")});
            }),
            "--param: key 'a' is given twice");
}

TEST(SweepGrid, EnumeratesTheCrossProductRowMajor) {
  const Grid g({parseParam("a=1,2"), parseParam("b=x,y,z")});
  ASSERT_EQ(g.size(), 6u);
  EXPECT_EQ(g.values(0), (std::vector<std::string>{"1", "x"}));
  EXPECT_EQ(g.values(1), (std::vector<std::string>{"1", "y"}));
  EXPECT_EQ(g.values(3), (std::vector<std::string>{"2", "x"}));
  EXPECT_EQ(g.values(5), (std::vector<std::string>{"2", "z"}));
  const std::vector<engines::Override> o = g.overrides(4);
  ASSERT_EQ(o.size(), 2u);
  EXPECT_EQ(o[0].key, "a");
  EXPECT_EQ(o[0].value, "2");
  EXPECT_EQ(o[1].key, "b");
  EXPECT_EQ(o[1].value, "y");
  const Grid none({});
  EXPECT_EQ(none.size(), 1u);
  EXPECT_TRUE(none.values(0).empty());
}

TEST(SweepShard, ParsesKOfN) {
  EXPECT_EQ(parseShard("1/1"), (Shard{1, 1}));
  EXPECT_EQ(parseShard("3/4"), (Shard{3, 4}));
  EXPECT_EQ(shardText(Shard{2, 5}), "2/5");
  EXPECT_EQ(errorOf([] { parseShard("0/2"); }),
            "--shard '0/2': K must be from 1 to 2 (shards are numbered from 1)");
  EXPECT_EQ(errorOf([] { parseShard("3/2"); }),
            "--shard '3/2': K must be from 1 to 2 (shards are numbered from 1)");
  EXPECT_EQ(errorOf([] { parseShard("1/0"); }),
            "--shard '1/0': the shard count N must be at least 1");
  for (const char* bad : {"x", "1", "1/", "/2", "a/2", "1/2/3", "-1/2", "1/2 "})
    EXPECT_EQ(errorOf([&] { parseShard(bad); }),
              fmt::format("--shard '{}': expected K/N with 1 <= K <= N, e.g. 1/4", bad));
}

TEST(SweepShard, RoundRobinShardsPartitionTheGrid) {
  EXPECT_EQ(shardPoints(7, Shard{1, 3}), (std::vector<size_t>{0, 3, 6}));
  EXPECT_EQ(shardPoints(7, Shard{2, 3}), (std::vector<size_t>{1, 4}));
  EXPECT_EQ(shardPoints(7, Shard{3, 3}), (std::vector<size_t>{2, 5}));
  EXPECT_EQ(shardPoints(2, Shard{3, 3}), (std::vector<size_t>{})); // more shards than points
  EXPECT_EQ(shardPoints(3, Shard{}), (std::vector<size_t>{0, 1, 2}));
  // A shard count near SIZE_MAX must not wrap around to the start of the grid.
  const size_t huge = std::numeric_limits<size_t>::max();
  EXPECT_EQ(shardPoints(10, Shard{1, huge}), (std::vector<size_t>{0}));
  EXPECT_EQ(shardPoints(10, Shard{huge, huge}), (std::vector<size_t>{}));
  for (size_t i = 0; i < 7; ++i)
    EXPECT_TRUE(Shard({i % 3 + 1, 3}).contains(i));
}

TEST(SweepObjective, ParsesTheThreeObjectives) {
  for (const char* name : {"cycles", "energy", "edp"})
    EXPECT_EQ(objectiveName(parseObjective(name)), name);
  EXPECT_EQ(errorOf([] { parseObjective("area"); }),
            "--objective 'area': expected cycles, energy or edp");
}

PointResult point(size_t index, int64_t cycles, double energyPj,
                  PointStatus status = PointStatus::Ok) {
  PointResult p;
  p.index = index;
  p.status = status;
  p.cycles = cycles;
  p.energyPj = energyPj;
  p.timeUs = static_cast<double>(cycles) / 100.0;
  p.edpPjUs = energyPj * p.timeUs;
  return p;
}

std::vector<size_t> paretoIndices(const std::vector<PointResult>& points,
                                  const std::vector<std::string>& axes = defaultParetoAxes()) {
  std::vector<size_t> out;
  for (size_t i : paretoFront(points, axes))
    out.push_back(points[i].index);
  return out;
}

size_t bestIndex(const std::vector<PointResult>& points) {
  size_t n = 0, index = 0;
  for (const PointResult& p : points)
    if (p.best) {
      ++n;
      index = p.index;
    }
  EXPECT_EQ(n, 1u);
  return index;
}

TEST(SweepRank, ParetoFrontMinimizesCyclesAndEnergy) {
  std::vector<PointResult> pts = {
      point(0, 100, 50),                      // front: fewest cycles
      point(1, 200, 20),                      // front
      point(2, 200, 30),                      // dominated by 1 (same cycles, more energy)
      point(3, 300, 20),                      // dominated by 1 (more cycles, same energy)
      point(4, 400, 10),                      // front: least energy
      point(5, 400, 10),                      // equal to 4: both on the front
      point(6, 50, 5, PointStatus::Error),    // failed points are never ranked
      point(7, 60, 6, PointStatus::Mismatch), // nor are points that disagree with the reference
      point(8, 150, 60),                      // dominated by 0
  };
  rankPoints(pts, Objective::Cycles);
  EXPECT_EQ(paretoIndices(pts), (std::vector<size_t>{0, 1, 4, 5}));
  EXPECT_EQ(bestIndex(pts), 0u);
  rankPoints(pts, Objective::Energy);
  EXPECT_EQ(bestIndex(pts), 4u); // tie with 5: the smaller index
  rankPoints(pts, Objective::Edp);
  // edp = energy x cycles / 100: 0 -> 50, 1 -> 40, 4 -> 40, 5 -> 40: 1 is the first of the tie.
  EXPECT_EQ(bestIndex(pts), 1u);
}

TEST(SweepRank, TheFrontCanMinimizeOtherMetrics) {
  std::vector<PointResult> pts = {point(0, 100, 50), point(1, 200, 40), point(2, 300, 60),
                                  point(3, 400, 30)};
  const std::vector<int64_t> multipliers = {1024, 256, 128, 128};
  for (size_t i = 0; i < pts.size(); ++i)
    pts[i].multipliers = multipliers[i];
  const std::vector<std::string> area = {"cycles", "multipliers"};
  rankPoints(pts, Objective::Cycles, area);
  EXPECT_EQ(paretoIndices(pts, area), (std::vector<size_t>{0, 1, 2})); // 3 has more cycles than 2
  const std::vector<std::string> three = {"cycles", "energy_pj", "multipliers"};
  rankPoints(pts, Objective::Cycles, three);
  EXPECT_EQ(paretoIndices(pts, three), (std::vector<size_t>{0, 1, 2, 3}));
  rankPoints(pts, Objective::Cycles);
  EXPECT_EQ(paretoIndices(pts), (std::vector<size_t>{0, 1, 3}));
}

TEST(SweepRank, ParetoAxesAreMetricNames) {
  EXPECT_EQ(parseParetoAxes("cycles,multipliers"),
            (std::vector<std::string>{"cycles", "multipliers"}));
  EXPECT_EQ(parseParetoAxes("time_us, energy_pj,sram_bytes").size(), 3u);
  EXPECT_EQ(errorOf([] { parseParetoAxes("cycles"); }),
            "--pareto 'cycles': a front needs two or more metrics, e.g. cycles,energy_pj");
  EXPECT_EQ(errorOf([] { parseParetoAxes("cycles,cycles"); }),
            "--pareto 'cycles,cycles': 'cycles' is given twice");
  EXPECT_EQ(errorOf([] { parseParetoAxes("cycles,area"); }),
            "--pareto 'cycles,area': 'area' is not a metric (expected two or more of: cycles, "
            "time_us, energy_pj, edp_pj_us, dram_bytes, multipliers, sram_bytes, area_mm2)");
}

TEST(SweepRank, NoOkPointMeansNoFrontAndNoBest) {
  std::vector<PointResult> pts = {point(0, 1, 1, PointStatus::Error)};
  rankPoints(pts, Objective::Cycles);
  EXPECT_TRUE(paretoFront(pts).empty());
  EXPECT_FALSE(pts[0].best);
}

TEST(SweepRun, ResultsComeInPointOrderWhateverTheThreadCount) {
  const std::vector<size_t> indices = {0, 2, 3, 5, 8, 9, 11};
  const auto evaluate = [](size_t i) {
    // Later points finish first, so completion order differs from point order.
    std::this_thread::sleep_for(std::chrono::milliseconds(12 - static_cast<int>(i)));
    return point(i, static_cast<int64_t>(i) * 10, 1.0);
  };
  const std::vector<PointResult> one = runPoints(indices, 1, evaluate);
  for (int threads : {2, 3, 16}) {
    size_t calls = 0, lastDone = 0;
    const std::vector<PointResult> many =
        runPoints(indices, threads, evaluate, [&](const PointResult&, size_t done, size_t total) {
          ++calls;
          EXPECT_EQ(done, lastDone + 1);
          EXPECT_EQ(total, indices.size());
          lastDone = done;
        });
    EXPECT_EQ(many, one) << threads;
    EXPECT_EQ(calls, indices.size());
  }
  ASSERT_EQ(one.size(), indices.size());
  for (size_t i = 0; i < indices.size(); ++i)
    EXPECT_EQ(one[i].index, indices[i]);
  EXPECT_TRUE(runPoints({}, 4, evaluate).empty());
}

TEST(SweepRun, AnExceptionFromEvaluateIsRethrownAfterTheThreadsStop) {
  const auto evaluate = [](size_t i) -> PointResult {
    if (i == 3)
      throw std::runtime_error("boom");
    return point(i, 1, 1);
  };
  EXPECT_THROW(runPoints({0, 1, 2, 3, 4, 5}, 2, evaluate), std::runtime_error);
}

TEST(SweepCheck, UnknownKeysFailBeforeAnyPointRuns) {
  const engines::EngineConfig base = engines::loadPreset("systolic", "small");
  checkParams(base, {parseParam("array.rows=16,32"), parseParam("dram.bytes_per_cycle=8")});
  // Bad values of a known key are failed points later, not an error now.
  checkParams(base, {parseParam("array.rows=0,32")});
  checkParams(base, {parseParam("array.rows=0,-1")});
  const std::string unknown = errorOf([&] { checkParams(base, {parseParam("array.rowz=1,2")}); });
  EXPECT_NE(unknown.find("array"), std::string::npos) << unknown;
  EXPECT_NE(unknown.find("no value of --param 'array.rowz=1,2' applies to systolic 'small'"),
            std::string::npos)
      << unknown;
  EXPECT_EQ(unknown.find('\n'), std::string::npos);
}

class SweepEngines : public ::testing::Test {
protected:
  static void SetUpTestSuite() { model_ = new ir::Graph(driver::loadModel("lenet5")); }
  static void TearDownTestSuite() {
    delete model_;
    model_ = nullptr;
  }

  /// The whole sweep of \p grid over \p base on \p threads threads, as CSV.
  static std::string sweepCsv(const engines::EngineConfig& base, const Grid& grid, int threads,
                              bool verify = true) {
    engines::RunOptions options;
    options.verify = verify;
    SweepResult r{SweepSpec{.model = "lenet5",
                            .engine = base.engine(),
                            .config = base.name(),
                            .configDigest = configDigest(base),
                            .params = grid.params(),
                            .verify = verify},
                  Shard{},
                  {}};
    r.points = runPoints(shardPoints(grid.size(), Shard{}), threads,
                         [&](size_t i) { return evaluatePoint(*model_, base, grid, i, options); });
    rankPoints(r.points, r.spec.objective);
    return toCsv(r);
  }

  static ir::Graph* model_;
};
ir::Graph* SweepEngines::model_ = nullptr;

TEST_F(SweepEngines, APointRunsVerifiedAndAnInvalidConfigIsARow) {
  const engines::EngineConfig base = engines::loadPreset("systolic", "small");
  const Grid grid({parseParam("array.rows=0,16")});
  engines::RunOptions options;
  const PointResult bad = evaluatePoint(*model_, base, grid, 0, options);
  EXPECT_EQ(bad.status, PointStatus::Error);
  EXPECT_NE(bad.error.find("array.rows"), std::string::npos) << bad.error;
  EXPECT_EQ(bad.values, (std::vector<std::string>{"0"}));
  EXPECT_EQ(bad.cycles, 0);
  const PointResult good = evaluatePoint(*model_, base, grid, 1, options);
  EXPECT_EQ(good.status, PointStatus::Ok) << good.error;
  EXPECT_EQ(good.verified, "yes");
  EXPECT_GT(good.cycles, 0);
  EXPECT_GT(good.energyPj, 0);
  EXPECT_DOUBLE_EQ(good.edpPjUs, good.energyPj * good.timeUs);
  const engines::Resources res =
      engines::resources(engines::applyOverrides(base, grid.overrides(1), "test"));
  EXPECT_EQ(good.multipliers, res.multipliers);
  EXPECT_DOUBLE_EQ(good.timeUs, static_cast<double>(good.cycles) / res.clockMhz);
  options.verify = false;
  const PointResult timing = evaluatePoint(*model_, base, grid, 1, options);
  EXPECT_EQ(timing.status, PointStatus::Ok);
  EXPECT_EQ(timing.verified, "skipped");
}

TEST_F(SweepEngines, ParallelRunsOnEveryEngineMatchOneThread) {
  // Two points per engine, all eight run at once on four threads and then one at a time: the
  // engines, the quantizer and the reference executor are shared by concurrent runs, so any
  // shared mutable state would show as a difference here.
  const std::vector<std::pair<engines::EngineConfig, Grid>> sweeps = {
      {engines::loadPreset("systolic", "small"), Grid({parseParam("array.cols=8,16")})},
      {engines::loadPreset("sparse", "tiny"), Grid({parseParam("pe_array.rows=1,2")})},
      {engines::loadPreset("broadcast"), Grid({parseParam("clock_mhz=500,1000")})},
      {engines::loadPreset("stream", "large"), Grid({parseParam("clock_mhz=100,150")})},
  };
  const engines::RunOptions options;
  std::vector<size_t> jobs; // engine * 2 + point
  for (size_t i = 0; i < 2 * sweeps.size(); ++i)
    jobs.push_back(i);
  const auto evaluate = [&](size_t job) {
    const auto& [base, grid] = sweeps[job / 2];
    PointResult r = evaluatePoint(*model_, base, grid, job % 2, options);
    r.index = job;
    return r;
  };
  const std::vector<PointResult> one = runPoints(jobs, 1, evaluate);
  EXPECT_EQ(runPoints(jobs, 4, evaluate), one);
  for (const PointResult& p : one) {
    EXPECT_EQ(p.status, PointStatus::Ok) << sweeps[p.index / 2].first.engine() << ": " << p.error;
    EXPECT_EQ(p.verified, "yes");
  }
  // The CSV of one engine's sweep is the same on one thread and on two.
  const auto& [base, grid] = sweeps[0];
  EXPECT_EQ(sweepCsv(base, grid, 2), sweepCsv(base, grid, 1));
}

} // namespace
