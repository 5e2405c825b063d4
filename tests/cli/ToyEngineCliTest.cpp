/// \file
/// The engine contract is open: the CLI built with a fifth engine registered from tests/
/// (tests/contract/ToyEngine.cpp, no change to src/) lists it, validates --arch against it,
/// simulates on it with its own option, compares it with the shipped engines under the budget
/// (its budget section comes from the engine) and sweeps its config keys.
#include "CliSupport.h"

namespace nnaccel::clitest {
namespace {

class ToyEngineCli : public CliFixture {
protected:
  ToyEngineCli() : CliFixture("toy_", nnaccel::test::cliToyBinary()) {}
};

TEST_F(ToyEngineCli, ArchListAndShowIncludeTheRegisteredEngine) {
  const Result list = run("arch list");
  ASSERT_EQ(list.exitCode, 0) << list.err;
  EXPECT_EQ(rowStartingWith(list.out, "toy"),
            (std::vector<std::string>{"toy", "one", "64", "500"}));
  EXPECT_NE(list.out.find("toy: a row of multipliers (test engine) (default preset: one)"),
            std::string::npos)
      << list.out;
  const Result show = run("arch show toy --preset wide");
  ASSERT_EQ(show.exitCode, 0) << show.err;
  EXPECT_NE(show.out.find("multipliers: 1024"), std::string::npos) << show.out;
}

TEST_F(ToyEngineCli, ArchCostRefusesAnEngineWithoutATechnologyDescription) {
  // The shipped engines are all priced through the technology model; an engine registered
  // without a cost table is refused by name, not printed as an empty table.
  expectError("arch cost toy", 1,
              "the toy engine still prices its events with its own 'energy:' table; it has no "
              "technology description yet");
}

TEST_F(ToyEngineCli, SimulatesWithItsOwnOptionAndRejectsOthers) {
  const Result r = run("simulate lenet5 --arch toy --toy-slowdown 2 --report r.json");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find("VERIFIED"), std::string::npos) << r.out;
  const Result once = run("simulate lenet5 --arch toy");
  ASSERT_EQ(once.exitCode, 0) << once.err;
  const std::vector<std::string> slow = rowStartingWith(r.out, "total");
  const std::vector<std::string> fast = rowStartingWith(once.out, "total");
  ASSERT_GE(slow.size(), 2u);
  ASSERT_GE(fast.size(), 2u);
  EXPECT_NE(slow, fast) << "--toy-slowdown changes the cycles";
  expectError("simulate lenet5 --arch toy --threads 1", 2,
              "--threads applies to the sparse engine (see 'nnaccel simulate --help')");
  expectError("simulate lenet5 --arch sparse --toy-slowdown 2", 2,
              "--toy-slowdown applies to the toy engine (see 'nnaccel simulate --help')");
  expectError("simulate lenet5 --arch toy --dtype fp32", 2,
              "the toy engine multiplies int8 values only; --dtype fp32 is not available (see "
              "'nnaccel simulate --help')");
}

TEST_F(ToyEngineCli, CapabilitiesItLacksAreUsageErrorsNamingTheEnginesThatHaveThem) {
  expectError("compile lenet5 --arch toy -o x.nnx", 2,
              "the toy engine has no program file; 'compile' and 'disasm' apply to the systolic "
              "engine ('simulate --arch toy' compiles and runs in one step) (see 'nnaccel compile "
              "--help')");
  expectError("simulate lenet5 --arch toy --program x.nnx", 2,
              "--program applies to the systolic engine (see 'nnaccel simulate --help')");
  expectError("map lenet5 --arch toy", 2,
              "'map' prints a model's placement on an engine's fixed resources; the toy engine "
              "has no placement (use --arch stream) (see 'nnaccel map --help')");
  expectError("sweep density lenet5 --arch toy", 2,
              "density sweeps need the sparse engine (--arch sparse) (see 'nnaccel sweep density "
              "--help')");
}

TEST_F(ToyEngineCli, ComparePutsItBesideTheShippedEngines) {
  const Result r = run("compare lenet5 --archs systolic,toy --timing-only --show-budget");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find("toy:\n  preset: one"), std::string::npos) << r.out;
  const Result c = run("compare lenet5 --archs systolic,toy");
  ASSERT_EQ(c.exitCode, 0) << c.err;
  EXPECT_NE(c.out.find("one@budget:default"), std::string::npos) << c.out;
}

TEST_F(ToyEngineCli, SweepsItsConfigKeys) {
  const Result r = run("sweep lenet5 --arch toy --param multipliers=16,64 --csv s.csv");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const std::string csv = readFile(path("s.csv"));
  EXPECT_NE(csv.find("# engine: toy\n"), std::string::npos) << csv;
  EXPECT_NE(csv.find("\n0,16,ok,"), std::string::npos) << csv;
  EXPECT_NE(csv.find("\n1,64,ok,"), std::string::npos) << csv;
}

} // namespace
} // namespace nnaccel::clitest
