/// \file
/// End-to-end tests of `nnaccel scalesim` and `nnaccel export-topology`: SCALE-Sim's command
/// line writes its three reports into OUTDIR/run_name with SCALE-Sim's numbers (one row each is
/// pinned here; tests/unit/scalesim pins them all), GEMM input, an exported topology runs
/// through `scalesim`, `info` and `simulate`, and every error path with its exact message and
/// exit code.
#include "../support/SourcePaths.h"
#include "CliSupport.h"

#include <filesystem>
#include <fmt/format.h>

namespace fs = std::filesystem;
using namespace nnaccel::clitest;

namespace {

std::string data(const std::string& name) {
  return fmt::format("'{}/tests/data/scalesim/{}'", nnaccel::test::sourceDir().string(), name);
}

class ScaleSimCli : public CliFixture {
protected:
  ScaleSimCli() : CliFixture("scalesim_") {}
};

TEST_F(ScaleSimCli, WritesScaleSimReports) {
  const Result r =
      run(fmt::format("scalesim -c {} -t {} -p out", data("os_user.cfg"), data("conv_small.csv")));
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_NE(r.out.find("8x4 array, os dataflow, USER bandwidth"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("reports in out/os_user"), std::string::npos) << r.out;
  const std::string compute = readFile(dir_ / "out/os_user/COMPUTE_REPORT.csv");
  EXPECT_EQ(lineWith(compute, "0, "),
            "0, 1598, 1303, 10.560075093867335, 78.125, 57.01013513513513,");
  EXPECT_EQ(countLines(compute), 6u);
  EXPECT_EQ(countLines(readFile(dir_ / "out/os_user/BANDWIDTH_REPORT.csv")), 6u);
  const std::string detail = readFile(dir_ / "out/os_user/DETAILED_ACCESS_REPORT.csv");
  EXPECT_EQ(countLines(detail), 6u);
  EXPECT_EQ(detail.rfind("LayerID, SRAM IFMAP Start Cycle,", 0), 0u);
}

TEST_F(ScaleSimCli, GemmInput) {
  const Result r = run(
      fmt::format("scalesim -c {} -t {} -p out -i gemm", data("is_calc.cfg"), data("gemm.csv")));
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(rowStartingWith(r.out, "0").at(1), "g1");
  EXPECT_EQ(countLines(readFile(dir_ / "out/is_calc/COMPUTE_REPORT.csv")), 3u);
}

TEST_F(ScaleSimCli, ExportedTopologyRunsEverywhere) {
  Result r = run("export-topology lenet5 -o lenet.csv");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(r.out, "wrote 5 layers (417K MACs as SCALE-Sim counts them) to lenet.csv\n");
  EXPECT_EQ(lineWith(readFile(dir_ / "lenet.csv"), "c1,"), "c1, 32, 32, 5, 5, 1, 6, 1, 1,");

  r = run(fmt::format("scalesim -c {} -t lenet.csv -p out", data("ws_calc.cfg")));
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(countLines(readFile(dir_ / "out/ws_calc/COMPUTE_REPORT.csv")), 6u);

  r = run("info lenet.csv");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find("Conv+Relu"), std::string::npos) << r.out;

  r = run(fmt::format("simulate {}", data("depthwise.csv")));
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find("VERIFIED"), std::string::npos) << r.out;
}

TEST_F(ScaleSimCli, ScaleSimErrors) {
  const std::string cfg = data("os_calc.cfg"), topo = data("conv_small.csv");
  expectError(fmt::format("scalesim -t {} -p out", topo), 2,
              "-c is required (see 'nnaccel scalesim --help')");
  expectError(fmt::format("scalesim -c {} -t {} -p out -i mnk", cfg, topo), 2,
              "-i: mnk not in {conv,gemm} (see 'nnaccel scalesim --help')");
  expectError(fmt::format("scalesim -c nope.cfg -t {} -p out", topo), 1,
              "nope.cfg: cannot open file (No such file or directory)");
  writeText("bad.cfg", "[general]\nrun_name = x\n[run_presets]\nInterfaceBandwidth: CALC\n"
                       "[architecture_presets]\nArrayHeight: 4\n");
  expectError(fmt::format("scalesim -c bad.cfg -t {} -p out", topo), 1,
              "bad.cfg: 'architecture_presets.ArrayWidth': missing key");
  writeText("bad.csv", "header\nc1,4,4,3,3,1,1,1,\nc2,4,4,3,3,1,1,\n");
  expectError(fmt::format("scalesim -c {} -t bad.csv -p out", cfg), 1,
              "bad.csv:3: expected at least 8 fields before the last comma (name, IFMAP H, "
              "IFMAP W, filter H, filter W, channels, filters, stride), got 7");
  writeText("out", "a file where the report directory should go");
  expectErrorPrefix(fmt::format("scalesim -c {} -t {} -p out", cfg, topo), 1,
                    "out/os_calc: cannot create the report directory");
}

TEST_F(ScaleSimCli, ExportTopologyErrors) {
  expectError("export-topology lenet5", 2,
              "--output is required (see 'nnaccel export-topology --help')");
  expectError("export-topology resnet19 -o t.csv", 2,
              "model 'resnet19': no such file and no zoo model of that name (did you mean "
              "'resnet18'?) (see 'nnaccel zoo "
              "list')");
  expectError("export-topology dcgan -o t.csv", 1,
              "dcgan: no convolution or fully-connected layer to export");
  EXPECT_FALSE(fs::exists(dir_ / "t.csv"));
  expectErrorPrefix("export-topology lenet5 -o missing/dir/t.csv", 1, "missing/dir/t.csv");
}

} // namespace
