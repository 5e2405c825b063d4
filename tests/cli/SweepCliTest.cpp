/// \file
/// End-to-end tests of the generic design-space sweep, `nnaccel sweep MODEL --arch E --param
/// KEY=V1,V2,...` and `nnaccel sweep merge` (docs/Sweep.md), on LeNet-5 with small presets: the
/// table, the Pareto front and the CSV; failed points as rows (an invalid config, a model that
/// does not fit, with a quoted message); the same CSV bytes on one thread and on two and from
/// merged shards; --timing-only; and every error path with its exact message and exit code.
/// The MPI path has its own ctest (SweepMpiTest.cmake). Also `sweep density` with per-layer
/// profiles (--weight-densities, --activation-densities, --axis): each point's cycles equal
/// `simulate` with the scaled files, the achieved weight density is the file's to one weight,
/// the operand off the axis is held, and every error path of the profiles.
#include "CliSupport.h"

#include <cmath>
#include <cstdlib>
#include <fmt/format.h>
#include <map>

using namespace nnaccel::clitest;

namespace {

class SweepCli : public CliFixture {
protected:
  SweepCli() : CliFixture("sweep_") {}
};

/// The systolic sweep most tests use: 3 x 2 points on preset small, two of them invalid
/// (array.rows=0).
constexpr const char* kSweep = "sweep lenet5 --arch systolic --preset small --param "
                               "array.rows=0,8,16 --param array.cols=8,16";

/// The data rows of a sweep CSV (the lines after the header row).
std::vector<std::string> dataRows(const std::string& csv) {
  std::vector<std::string> rows;
  std::istringstream in(csv);
  bool header = false;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("#", 0) == 0)
      continue;
    if (!header) {
      header = true;
      continue;
    }
    rows.push_back(line);
  }
  return rows;
}

TEST_F(SweepCli, RunsTheGridAndMarksTheParetoFront) {
  const Result r = run(fmt::format("{} --objective edp --csv grid.csv -j 2", kSweep));
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_NE(r.out.find("sweep of 'lenet5' on systolic 'small': 6 points (array.rows x "
                       "array.cols), objective edp, verified against the int8 reference\n"),
            std::string::npos)
      << r.out;
  // The table: one row per point; the failed points say so.
  // point, 2 values, "error" and a "-" for each of the 8 figures
  EXPECT_EQ(words(lineWith(r.out, "error  ")).size(), 12u) << r.out;
  EXPECT_EQ(rowStartingWith(r.out, "0")[3], "error");
  EXPECT_EQ(rowStartingWith(r.out, "2")[3], "ok");
  EXPECT_NE(r.out.find("Pareto front (min cycles, energy_pj), "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("best by edp: point "), std::string::npos);
  EXPECT_NE(r.out.find("point 0 (array.rows=0 array.cols=8): error: --param: "), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("wrote grid.csv\n"), std::string::npos);

  const std::string csv = readFile(path("grid.csv"));
  EXPECT_EQ(csv.rfind("# nnaccel sweep 2\n# model: lenet5\n# engine: systolic\n# config: small\n"
                      "# config_fnv1a: ",
                      0),
            0u)
      << csv;
  EXPECT_NE(csv.find("\n# param: array.rows=0,8,16\n# param: array.cols=8,16\n# points: 6\n"
                     "# objective: edp\n# pareto: cycles,energy_pj\n# verify: "
                     "yes\nindex,array.rows,array.cols,status,cycles,"
                     "time_us,energy_pj,edp_pj_us,utilization,dram_bytes,multipliers,sram_bytes,"
                     "area_mm2,verified,pareto,best,error\n"),
            std::string::npos)
      << csv;
  const std::vector<std::string> rows = dataRows(csv);
  ASSERT_EQ(rows.size(), 6u);
  EXPECT_EQ(rows[0].rfind("0,0,8,error,,,,,,,,,,,0,0,", 0), 0u) << rows[0];
  EXPECT_EQ(rows[1].rfind("1,0,16,error,", 0), 0u) << rows[1];
  size_t pareto = 0, best = 0;
  for (size_t i = 2; i < rows.size(); ++i) {
    EXPECT_EQ(rows[i].rfind(fmt::format("{},", i), 0), 0u) << rows[i];
    EXPECT_NE(rows[i].find(",ok,"), std::string::npos) << rows[i];
    EXPECT_NE(rows[i].find(",yes,"), std::string::npos) << rows[i];
    pareto += rows[i].find(",yes,1,") != std::string::npos;
    best += rows[i].find(",1,,") != std::string::npos || rows[i].find(",1,1,") != std::string::npos;
  }
  EXPECT_GE(pareto, 1u);
  EXPECT_EQ(best, 1u);
}

TEST_F(SweepCli, TheCsvIsTheSameOnAnyThreadCountAndFromMergedShards) {
  ASSERT_EQ(run(fmt::format("{} -j 1 --csv one.csv", kSweep)).exitCode, 0);
  const Result two = run(fmt::format("{} -j 2 --csv two.csv", kSweep));
  ASSERT_EQ(two.exitCode, 0) << two.err;
  const std::string whole = readFile(path("one.csv"));
  EXPECT_EQ(readFile(path("two.csv")), whole);

  for (int k = 1; k <= 3; ++k) {
    const Result s = run(fmt::format("{} --shard {}/3 --csv s{}.csv", kSweep, k, k));
    ASSERT_EQ(s.exitCode, 0) << s.err;
    EXPECT_NE(s.out.find(fmt::format("; shard {}/3: 2 points\n", k)), std::string::npos) << s.out;
    EXPECT_NE(readFile(path(fmt::format("s{}.csv", k))).find(fmt::format("\n# shard: {}/3\n", k)),
              std::string::npos);
  }
  const Result m = run("sweep merge s3.csv s1.csv s2.csv --csv merged.csv");
  ASSERT_EQ(m.exitCode, 0) << m.err;
  EXPECT_EQ(readFile(path("merged.csv")), whole);
  // merge prints what the whole sweep prints (the same table and front).
  const Result w = run(kSweep);
  EXPECT_EQ(m.out, w.out + "wrote merged.csv\n");
}

TEST_F(SweepCli, TheFrontCanTradeCyclesAgainstArea) {
  // Bigger arrays are faster, and priced by the technology model (docs/Technology.md) they leak
  // more and cost more per operation: on (cycles, energy per inference) every size is a
  // trade-off, as against multipliers and against area. (Before issue 21 the default front was
  // one point: the biggest array was both fastest and cheapest.)
  const Result energy = run("sweep lenet5 --arch systolic --preset small --param "
                            "array.cols=8,16,32 --timing-only");
  ASSERT_EQ(energy.exitCode, 0) << energy.err;
  EXPECT_NE(energy.out.find("Pareto front (min cycles, energy_pj), 3 points:"), std::string::npos)
      << energy.out;
  const Result area = run("sweep lenet5 --arch systolic --preset small --param "
                          "array.cols=8,16,32 --timing-only --pareto cycles,area_mm2");
  EXPECT_NE(area.out.find("Pareto front (min cycles, area_mm2), 3 points:\n  point 2 "
                          "(array.cols=32): cycles 36,555, area_mm2 7.76"),
            std::string::npos)
      << area.out;
  const Result r = run("sweep lenet5 --arch systolic --preset small --param array.cols=8,16,32 "
                       "--pareto cycles,multipliers --csv p.csv");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find("Pareto front (min cycles, multipliers), 3 points:\n  point 2 "
                       "(array.cols=32): cycles "),
            std::string::npos)
      << r.out;
  EXPECT_NE(readFile(path("p.csv")).find("\n# pareto: cycles,multipliers\n"), std::string::npos);
  for (const std::string& row : dataRows(readFile(path("p.csv"))))
    EXPECT_NE(row.find(",yes,1,"), std::string::npos) << row;
}

TEST_F(SweepCli, AModelThatDoesNotFitIsARowWithItsQuotedMessage) {
  // One weight pair per kernel tile: LeNet-5's c5 needs more rows than the aux tiles can bypass.
  const Result r =
      run("sweep lenet5 --arch stream --param kernel_tiles.weight_store_pairs=1,64 --csv s.csv");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const std::vector<std::string> rows = dataRows(readFile(path("s.csv")));
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].rfind("0,1,error,,,,,,,", 0), 0u) << rows[0];
  EXPECT_NE(rows[0].find(",0,0,'aux_tiles.tiles_per_row': layer 'c5': row 5 has no auxiliary "),
            std::string::npos)
      << rows[0];
  EXPECT_NE(rows[1].find(",ok,"), std::string::npos) << rows[1];
  EXPECT_NE(rows[1].find(",yes,1,1,"), std::string::npos) << rows[1]; // the only point that ran
  // A message with commas is quoted (DCGAN's 100-channel input on a one-set input bus).
  const Result q = run("sweep dcgan --arch stream --param external.input_sets=1 --csv q.csv");
  ASSERT_EQ(q.exitCode, 0) << q.err;
  const std::vector<std::string> failed = dataRows(readFile(path("q.csv")));
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_NE(failed[0].find(",0,0,\"'external.input_sets': input 'input' has 100 channels: 7 sets "
                           "of 16 lanes, but the input bus carries 1\""),
            std::string::npos)
      << failed[0];
}

TEST_F(SweepCli, TimingOnlySkipsTheVerification) {
  const Result r = run("sweep lenet5 --arch systolic --preset small --param array.cols=8,16 "
                       "--timing-only --csv t.csv");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find("objective cycles, timing only, not verified\n"), std::string::npos)
      << r.out;
  const std::string csv = readFile(path("t.csv"));
  EXPECT_NE(csv.find("\n# verify: no\n"), std::string::npos);
  for (const std::string& row : dataRows(csv))
    EXPECT_NE(row.find(",skipped,"), std::string::npos) << row;
}

TEST_F(SweepCli, WithoutParamsTheSweepIsTheBaseConfig) {
  const Result r = run("sweep lenet5 --arch broadcast --csv b.csv");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find("sweep of 'lenet5' on broadcast 'npu': 1 point, objective cycles"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("  point 0 (base config): "), std::string::npos) << r.out;
  EXPECT_EQ(dataRows(readFile(path("b.csv"))).size(), 1u);
}

TEST_F(SweepCli, BadOptionsFailBeforeAnyPointRuns) {
  const std::string base = "sweep lenet5 --arch systolic --preset small";
  expectError(base + " --param array.rows", 2,
              "--param 'array.rows': expected KEY=V1,V2,..., e.g. array.rows=32,64,128");
  expectError(base + " --param array.rows=", 2,
              "--param 'array.rows=': no values (expected KEY=V1,V2,...)");
  expectError(base + " --param array.rows=8,,16", 2,
              "--param 'array.rows=8,,16': empty value in the list");
  expectError(base + " --param array.rows=8 --param array.rows=16", 2,
              "--param: key 'array.rows' is given twice");
  expectErrorPrefix(base + " --param array.rowz=8,16", 2, "--param: ");
  const Result unknown = run(base + " --param array.rowz=8,16");
  EXPECT_NE(unknown.err.find("(no value of --param 'array.rowz=8,16' applies to systolic 'small'; "
                             "see 'nnaccel arch show systolic')\n"),
            std::string::npos)
      << unknown.err;
  for (const char* shard : {"0/2", "3/2"})
    expectError(
        fmt::format("{} --shard {} --csv s.csv", base, shard), 2,
        fmt::format("--shard '{}': K must be from 1 to 2 (shards are numbered from 1)", shard));
  expectError(base + " --shard x --csv s.csv", 2,
              "--shard 'x': expected K/N with 1 <= K <= N, e.g. 1/4");
  expectError(base + " --shard 1/2", 2,
              "--shard needs --csv FILE (the rows 'nnaccel sweep merge' reads) (see 'nnaccel "
              "sweep --help')");
  expectError("sweep --arch systolic", 2,
              "MODEL is required (or one of the subcommands density, vector-width, merge) (see "
              "'nnaccel sweep --help')");
  expectErrorPrefix(base + " --objective area", 2, "--objective: area not in {");
  expectErrorPrefix(base + " -j 0", 2, "--jobs: ");
  expectError(base + " --pareto cycles", 2,
              "--pareto 'cycles': a front needs two or more metrics, e.g. cycles,energy_pj");
  expectErrorPrefix(base + " --pareto cycles,area", 2,
                    "--pareto 'cycles,area': 'area' is not a metric (expected two or more of: ");
  expectError("sweep nosuchmodel --arch systolic", 2,
              "model 'nosuchmodel': no such file and no zoo model of that name (see 'nnaccel zoo "
              "list')");
  expectError(base + " --param array.rows=8 --csv nodir/out.csv", 1,
              "nodir/out.csv: cannot open file for writing (No such file or directory)");
#if !NNACCEL_CLI_MPI
  // Started by mpirun (its environment) without MPI support: refuse rather than run P copies.
  ::setenv("OMPI_COMM_WORLD_SIZE", "2", 1);
  expectError("sweep lenet5 --arch systolic", 2,
              "started by mpirun with 2 ranks, but this nnaccel was built without MPI (configure "
              "with -DNNACCEL_MPI=ON, or use --shard K/N and 'nnaccel sweep merge') (see 'nnaccel "
              "sweep --help')");
  ::unsetenv("OMPI_COMM_WORLD_SIZE");
#endif
}

TEST_F(SweepCli, MergeRefusesFilesOfAnotherSweep) {
  const std::string base = "sweep lenet5 --arch systolic --preset small --param array.cols=8,16";
  ASSERT_EQ(run(base + " --shard 1/2 --csv a1.csv").exitCode, 0);
  ASSERT_EQ(run(base + " --shard 2/2 --csv a2.csv").exitCode, 0);
  ASSERT_EQ(run(base + ",32 --shard 2/2 --csv b2.csv").exitCode, 0);
  ASSERT_EQ(run(base + " --shard 1/3 --csv c1.csv").exitCode, 0);
  expectError("sweep merge a1.csv b2.csv", 2,
              "b2.csv: not a shard of the same sweep as a1.csv: params 'array.cols=8,16,32' "
              "instead of 'array.cols=8,16'");
  expectError("sweep merge a1.csv c1.csv", 2,
              "c1.csv: shard 1/3 of 3 shards, but a1.csv is shard 1/2 of 2");
  expectError("sweep merge a1.csv a1.csv", 2, "a1.csv: shard 1/2 is also in a1.csv");
  expectError("sweep merge a2.csv", 2, "sweep merge: shard 1/2 is missing (given: 2/2 in a2.csv)");
  expectError("sweep merge a1.csv missing.csv", 1,
              "missing.csv: cannot open file (No such file or directory)");
  writeText("bad.csv", "index,cycles\n0,1\n");
  expectError("sweep merge bad.csv", 1,
              "bad.csv: line 1: expected '# nnaccel sweep 2' (not a sweep CSV?)");
  expectErrorPrefix("sweep merge", 2, "FILES is required");
  // A good merge still works after all that.
  const Result ok = run("sweep merge a2.csv a1.csv");
  EXPECT_EQ(ok.exitCode, 0) << ok.err;
}

TEST_F(SweepCli, TheOtherSweepsStillParse) {
  const Result help = run("sweep --help");
  ASSERT_EQ(help.exitCode, 0);
  for (const char* word : {"density", "vector-width", "merge", "--param", "--shard", "--objective",
                           "--timing-only", "--jobs"})
    EXPECT_NE(help.out.find(word), std::string::npos) << word;
  const Result d = run("sweep density lenet5 --arch sparse --preset tiny --densities 1.0");
  EXPECT_EQ(d.exitCode, 0) << d.err;
  EXPECT_NE(d.out.find("density sweep of 'lenet5' on sparse 'tiny'"), std::string::npos);
}

// --- sweep density with per-layer profiles -----------------------------------------------------

/// The CSV rows of a `sweep density` run by the value of their first column ("0.5", "1").
std::map<std::string, std::vector<std::string>> densityRows(const std::string& csv) {
  std::map<std::string, std::vector<std::string>> rows;
  std::istringstream in(csv);
  std::string line;
  std::getline(in, line); // header
  while (std::getline(in, line)) {
    std::vector<std::string> cells;
    std::istringstream fields(line);
    for (std::string cell; std::getline(fields, cell, ',');)
      cells.push_back(cell);
    rows[cells.at(0)] = cells;
  }
  return rows;
}

/// The total cycles `simulate` prints ("total: 18,908 cycles (...").
int64_t simulatedCycles(const std::string& out) {
  std::string text = words(lineWith(out, "total: ")).at(1);
  std::erase(text, ',');
  return std::stoll(text);
}

// LeNet-5's prunable layers: c1 150 weights, c3 2,400, c5 48,000, f6 10,080, f7 840.
constexpr double kLenetWeightCount = 61470;

TEST_F(SweepCli, DensityScalesBothProfilesLayerByLayer) {
  writeText("w.json", R"({"c1": 0.2, "c3": 0.5, "default": 0.25})");
  writeText("a.json", R"({"c3": 0.4, "c5": 0.3})");
  // The same profiles at half: what the sweep's point 0.5 must simulate.
  writeText("w2.json", R"({"c1": 0.1, "c3": 0.25, "default": 0.125})");
  writeText("a2.json", R"({"c3": 0.2, "c5": 0.15})");
  const Result r = run("sweep density lenet5 --arch sparse --densities 1,0.5 --weight-densities "
                       "w.json --activation-densities a.json --csv s.csv");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find("density sweep of 'lenet5' on sparse 'scnn' (weights magnitude-pruned to "
                       "w.json's densities x the scale; synthetic activations at a.json's "
                       "densities x the scale)\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("\nbreak-even scale: speedup "), std::string::npos) << r.out;
  const std::string csv = readFile(path("s.csv"));
  EXPECT_EQ(csv.rfind("scale,weight_density,activation_density,cycles,dense_cycles,speedup,", 0),
            0u)
      << csv;
  const auto rows = densityRows(csv);
  ASSERT_EQ(rows.size(), 2u) << csv;
  for (const auto& [value, cells] : rows) {
    ASSERT_EQ(cells.size(), 11u) << value;
    EXPECT_EQ(cells.back(), "1") << value; // verified
  }

  // Each point is `simulate` with the profiles scaled: the same cycles, to the cycle.
  const Result full = run("simulate lenet5 --arch sparse --weight-densities w.json "
                          "--activation-densities a.json");
  ASSERT_EQ(full.exitCode, 0) << full.err;
  EXPECT_EQ(std::stoll(rows.at("1").at(3)), simulatedCycles(full.out)) << full.out;
  const Result half = run("simulate lenet5 --arch sparse --weight-densities w2.json "
                          "--activation-densities a2.json");
  ASSERT_EQ(half.exitCode, 0) << half.err;
  EXPECT_EQ(std::stoll(rows.at("0.5").at(3)), simulatedCycles(half.out)) << half.out;
  // ... whose layers have the scaled file's densities (w_density, a_density columns).
  EXPECT_EQ(rowStartingWith(half.out, "c1").at(12), "0.10") << half.out;
  EXPECT_EQ(rowStartingWith(half.out, "c3").at(12), "0.25") << half.out;
  EXPECT_EQ(rowStartingWith(half.out, "c5").at(12), "0.12") << half.out; // 0.125
  EXPECT_EQ(rowStartingWith(half.out, "c3").at(13), "0.20") << half.out;
  EXPECT_EQ(rowStartingWith(half.out, "c5").at(13), "0.15") << half.out;

  // The achieved weight density is the profile's, to one weight of the model: at 1, c1 keeps 30,
  // c3 1,200, c5 12,000, f6 2,520, f7 210; at 0.5, 15, 600, 6,000, 1,260, 105.
  EXPECT_NEAR(std::stod(rows.at("1").at(1)), 15960 / kLenetWeightCount, 1 / kLenetWeightCount);
  EXPECT_NEAR(std::stod(rows.at("0.5").at(1)), 7980 / kLenetWeightCount, 1 / kLenetWeightCount);
  // c3's and c5's inputs halve; c1's (the image) and the Gemms' stay as computed.
  EXPECT_LT(std::stod(rows.at("0.5").at(2)), std::stod(rows.at("1").at(2)));
}

TEST_F(SweepCli, DensityAxisHoldsTheOperandOffIt) {
  writeText("w.json", R"({"c1": 0.2, "c3": 0.5, "default": 0.25})");
  writeText("dense.json", R"({"default": 1})");
  writeText("half.json", R"({"default": 0.5})");
  // Weights held at the file, activations swept: the axis is a density again.
  const Result r = run("sweep density lenet5 --arch sparse --densities 0.3,1 --weight-densities "
                       "w.json --axis activations --csv s.csv");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find("(weights magnitude-pruned to w.json's densities; synthetic activations "
                       "at the density)\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("\nbreak-even density: speedup "), std::string::npos) << r.out;
  const std::string csv = readFile(path("s.csv"));
  EXPECT_EQ(csv.rfind("density,weight_density,activation_density,", 0), 0u) << csv;
  auto rows = densityRows(csv);
  ASSERT_EQ(rows.size(), 2u) << csv;
  EXPECT_NEAR(std::stod(rows.at("0.3").at(1)), 15960 / kLenetWeightCount, 1 / kLenetWeightCount);
  EXPECT_EQ(rows.at("0.3").at(1), rows.at("1").at(1));
  EXPECT_NEAR(std::stod(rows.at("0.3").at(2)), 0.3, 0.01);
  EXPECT_NEAR(std::stod(rows.at("1").at(2)), 1.0, 1e-9);
  const Result held = run("simulate lenet5 --arch sparse --weight-densities w.json "
                          "--activation-densities dense.json");
  ASSERT_EQ(held.exitCode, 0) << held.err;
  EXPECT_EQ(std::stoll(rows.at("1").at(3)), simulatedCycles(held.out)) << held.out;

  // Weights swept without a file, activations as the model computes them.
  const Result w = run("sweep density lenet5 --arch sparse --densities 0.5 --axis weights "
                       "--csv w.csv");
  ASSERT_EQ(w.exitCode, 0) << w.err;
  EXPECT_NE(w.out.find("(weights magnitude-pruned to the density; activations computed from the "
                       "input)\n"),
            std::string::npos)
      << w.out;
  rows = densityRows(readFile(path("w.csv")));
  EXPECT_NEAR(std::stod(rows.at("0.5").at(1)), 0.5, 1 / kLenetWeightCount);
  const Result computed = run("simulate lenet5 --arch sparse --weight-densities half.json");
  ASSERT_EQ(computed.exitCode, 0) << computed.err;
  EXPECT_EQ(std::stoll(rows.at("0.5").at(3)), simulatedCycles(computed.out)) << computed.out;
}

TEST_F(SweepCli, DensityProfileErrors) {
  const std::string sweep = "sweep density lenet5 --arch sparse --densities 1 ";
  writeText("w.json", R"({"c1": 0.5, "conv9": 0.5})");
  expectError(sweep + "--weight-densities w.json", 2,
              "w.json: 'conv9': no layer of that name in the model (prunable layers: c1, c3, c5, "
              "f6, f7)");
  writeText("pool.json", R"({"s2": 0.5})");
  expectError(sweep + "--weight-densities pool.json", 2,
              "pool.json: 's2': names a node of type AveragePool, not a prunable layer (Conv, "
              "ConvTranspose, Gemm or MatMul with a constant f32 weight; prunable layers: c1, c3, "
              "c5, f6, f7)");
  writeText("a.json", R"({"c3": 0.5, "conv9": 0.25})");
  expectError(sweep + "--activation-densities a.json", 2,
              "a.json: 'conv9': activation density 0.25 names no layer of model 'lenet5'");
  writeText("range.json", R"({"c1": 2})");
  expectError(sweep + "--activation-densities range.json", 2,
              "range.json: 'c1': density must be in (0, 1], got 2");
  writeText("syntax.json", "{\"c1\": 0.5,");
  expectErrorPrefix(sweep + "--weight-densities syntax.json", 2, "syntax.json: invalid JSON: ");
  expectError(sweep + "--weight-densities missing.json", 1,
              "missing.json: cannot open file (No such file or directory)");
  expectError(sweep + "--axis weight", 2,
              "--axis: weight not in {both,weights,activations} (see 'nnaccel sweep density "
              "--help')");
  // The other engine's study has no profiles.
  expectError("sweep vector-width lenet5 --arch broadcast --weight-densities w.json", 2,
              "the following argument was not expected: --weight-densities (see 'nnaccel sweep "
              "vector-width --help')");
}

} // namespace
