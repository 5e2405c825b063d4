/// \file
/// End-to-end tests of `nnaccel validate` and of simulate's per-layer density files: the list,
/// a full run with its table and JSON rows, --report to standard output, and every error path
/// (unknown validation, --report without a name, a bad --size; an activation-density file
/// naming no layer, an engine that takes no activation densities, --weight-densities with
/// --program) with its one-line message and exit code; and `run --densities-out`, whose
/// measured densities feed `simulate --activation-densities`.
#include "CliSupport.h"

#include <fstream>
#include <nlohmann/json.hpp>

using namespace nnaccel::clitest;

namespace {

class ValidateCli : public CliFixture {
protected:
  ValidateCli() : CliFixture("validate_") {}
};

TEST_F(ValidateCli, ListsTheValidations) {
  const Result r = run("validate");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(rowStartingWith(r.out, "name"),
            (std::vector<std::string>{"name", "runs", "figures", "what", "it", "reproduces"}));
  EXPECT_EQ(rowStartingWith(r.out, "broadcast-reads").at(1), "6");
}

TEST_F(ValidateCli, RunsOneAndWritesTheRows) {
  const Result r = run("validate broadcast-reads --size reduced --report rows.json");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find("11 of 11 figures agree with the source"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("run 5/6: rows3x18"), std::string::npos) << r.out;
  std::ifstream in(path("rows.json"));
  const nlohmann::json j = nlohmann::json::parse(in);
  EXPECT_EQ(j["validation"], "broadcast-reads");
  EXPECT_EQ(j["size"], "reduced");
  ASSERT_EQ(j["rows"].size(), 11u);
  for (const auto& row : j["rows"]) {
    EXPECT_TRUE(row.contains("published") && row.contains("measured") && row.contains("unit") &&
                row.contains("source"))
        << row.dump();
    EXPECT_EQ(row["agrees"], true) << row.dump();
  }
  // JSON to standard output moves the human text to standard error.
  const Result toStdout = run("validate broadcast-reads --size reduced --report -");
  ASSERT_EQ(toStdout.exitCode, 0) << toStdout.err;
  EXPECT_EQ(nlohmann::json::parse(toStdout.out)["size"], "reduced");
  EXPECT_NE(toStdout.err.find("11 of 11 figures agree"), std::string::npos);
}

TEST_F(ValidateCli, ErrorPaths) {
  expectError("validate scn", 2,
              "no validation named 'scn' (did you mean 'scnn'?) (see 'nnaccel validate')");
  expectError("validate nothing-like-it", 2,
              "no validation named 'nothing-like-it' (see 'nnaccel validate')");
  expectError("validate broadcast-read", 2,
              "no validation named 'broadcast-read' (did you mean 'broadcast-reads'?) (see "
              "'nnaccel validate')");
  expectError("validate --report r.json", 2,
              "--report needs a validation NAME (see 'nnaccel validate --help')");
  expectErrorPrefix("validate broadcast-reads --size huge", 2, "--size: huge not in");
  // The report's path is checked before the runs, not after them.
  expectError("validate broadcast-reads --report nodir/rows.json", 1,
              "nodir/rows.json: cannot open file for writing (No such file or directory)");
}

TEST_F(ValidateCli, ActivationDensityFiles) {
  writeText("a.json", R"({"c3": 0.5, "default": 0.25})");
  const Result r = run("simulate lenet5 --arch sparse --activation-densities a.json");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find("on each array layer's synthetic input"), std::string::npos) << r.out;
  // The a_density column: exactly the densities asked for.
  EXPECT_EQ(rowStartingWith(r.out, "c3").at(13), "0.50") << r.out;
  EXPECT_EQ(rowStartingWith(r.out, "c1").at(13), "0.25") << r.out;
  writeText("bad.json", R"({"conv9": 0.5})");
  expectError("simulate lenet5 --arch sparse --activation-densities bad.json", 2,
              "bad.json: 'conv9': activation density 0.5 names no layer of model 'lenet5'");
  expectError("simulate lenet5 --arch broadcast --activation-densities a.json", 2,
              "the broadcast engine's timing does not depend on the activations' values, so it "
              "takes no activation densities (engines that do: sparse)");
  writeText("w.json", R"({"c3": 0.5})");
  expectError("simulate lenet5 --program p.nnx --weight-densities w.json", 2,
              "--program carries its own weights; drop --weight-densities (see 'nnaccel simulate "
              "--help')");
}

TEST_F(ValidateCli, WeightDensityFilesPruneFirst) {
  writeText("w.json", R"({"c3": 0.5})");
  const Result r = run("simulate lenet5 --arch sparse --weight-densities w.json");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(rowStartingWith(r.out, "c3").at(12), "0.50") << r.out; // w_density
}

} // namespace

namespace {

class DensitiesOutCli : public CliFixture {
protected:
  DensitiesOutCli() : CliFixture("densities_out_") {}
};

TEST_F(DensitiesOutCli, MeasuredDensitiesFeedTheSparseEngine) {
  const Result r = run("run lenet5 --dtype int8 --densities-out d.json");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find("wrote 5 layers' measured input densities to d.json"), std::string::npos)
      << r.out;
  std::ifstream in(path("d.json"));
  const nlohmann::json j = nlohmann::json::parse(in);
  ASSERT_EQ(j.size(), 5u); // c1, c3, c5, f6, f7
  for (const auto& [layer, density] : j.items())
    EXPECT_TRUE(density.get<double>() > 0.0 && density.get<double>() <= 1.0) << layer;
  const Result s = run("simulate lenet5 --arch sparse --activation-densities d.json");
  ASSERT_EQ(s.exitCode, 0) << s.err;
  EXPECT_NE(s.out.find("VERIFIED"), std::string::npos);
  expectError("run lenet5 --densities-out d2.json", 2,
              "--densities-out applies only to --dtype int8 (see 'nnaccel run --help')");
}

} // namespace
