/// \file
/// The SCALE-Sim .cfg reader: what configparser accepts (delimiters, key case, comments,
/// [DEFAULT], extra keys) and every error, each one line naming the file, line or key.
#include "nnaccel/scalesim/Config.h"

#include "../../support/SourcePaths.h"
#include "nnaccel/support/Error.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

using namespace nnaccel;
using namespace nnaccel::scalesim;

namespace {

constexpr const char* kScaleCfg = R"([general]
run_name = scale_example_run_32x32_os

[architecture_presets]
ArrayHeight:    32
ArrayWidth:     32
IfmapSramSzkB:   64
FilterSramSzkB:  64
OfmapSramSzkB:   64
IfmapOffset:    0
FilterOffset:   10000000
OfmapOffset:    20000000
Bandwidth : 10
Dataflow : os
MemoryBanks:   1

[run_presets]
InterfaceBandwidth: CALC
)";

/// kScaleCfg with the line starting with \p key replaced by \p line ("" drops it).
std::string withLine(const std::string& key, const std::string& line) {
  std::string text = kScaleCfg;
  const size_t at = text.find(key);
  const size_t end = text.find('\n', at);
  return text.replace(at, end - at + (line.empty() ? 1 : 0), line);
}

void expectError(const std::string& text, const std::string& message) {
  try {
    parseConfigText(text, "t.cfg");
    FAIL() << "expected: " << message;
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Config);
    EXPECT_EQ(std::string(e.what()), message);
  }
}

TEST(ScaleSimConfig, ReadsScaleSimsSampleConfig) {
  const Config c = parseConfigText(kScaleCfg, "scale.cfg");
  EXPECT_EQ(c.runName, "scale_example_run_32x32_os");
  EXPECT_EQ(c.bandwidthMode, BandwidthMode::Calc);
  EXPECT_EQ(c.arrayRows, 32);
  EXPECT_EQ(c.arrayCols, 32);
  EXPECT_EQ(c.ifmapSramKiB, 64);
  EXPECT_EQ(c.filterSramKiB, 64);
  EXPECT_EQ(c.ofmapSramKiB, 64);
  EXPECT_EQ(c.ifmapAddrOffset, 0);
  EXPECT_EQ(c.filterAddrOffset, 10000000);
  EXPECT_EQ(c.ofmapAddrOffset, 20000000);
  EXPECT_EQ(c.dataflow, Dataflow::OutputStationary);
  EXPECT_TRUE(c.userBandwidthWordsPerCycle.empty()); // CALC ignores Bandwidth
  EXPECT_STREQ(dataflowName(c.dataflow), "os");
}

TEST(ScaleSimConfig, ConfigparserSyntax) {
  const Config c = parseConfigFile(
      fmt::format("{}/tests/data/scalesim/quirky.cfg", nnaccel::test::sourceDir().string()));
  EXPECT_EQ(c.runName, "quirky");
  EXPECT_EQ(c.arrayRows, 5); // "arrayheight = 5"
  EXPECT_EQ(c.arrayCols, 7); // "ARRAYWIDTH: 7"
  EXPECT_EQ(c.ifmapSramKiB, 2);
  EXPECT_EQ(c.ifmapAddrOffset, 0); // from [DEFAULT]
  EXPECT_EQ(c.dataflow, Dataflow::WeightStationary);
  EXPECT_EQ(c.bandwidthMode, BandwidthMode::User); // "USER   " is stripped
  EXPECT_EQ(c.userBandwidthWordsPerCycle, (std::vector<int64_t>{4, 10, 10}));
  EXPECT_EQ(parseConfigText(withLine("ArrayHeight", "ArrayHeight = +1_6"), "t").arrayRows, 16);
  EXPECT_EQ(parseConfigText(withLine("Dataflow", "Dataflow = is"), "t").dataflow,
            Dataflow::InputStationary);
}

TEST(ScaleSimConfig, StructureErrors) {
  expectError("ArrayHeight: 4\n", "t.cfg:1: key before any [section] header");
  expectError("[general\nrun_name = x\n", "t.cfg:1: malformed section header '[general'");
  expectError("[]\n", "t.cfg:1: malformed section header '[]'");
  expectError("[general]\nrun_name\n", "t.cfg:2: expected 'key: value' or 'key = value', got "
                                       "'run_name'");
  expectError("[general]\n= x\n", "t.cfg:2: empty key in '= x'");
  expectError("[general]\nrun_name = a\nRUN_NAME = b\n",
              "t.cfg:3: key 'run_name' appears twice in section [general]");
  expectError("[general]\n[general]\n", "t.cfg:2: section [general] appears twice");
  expectError(withLine("[run_presets]", "[presets]"), "t.cfg: missing section [run_presets]");
  expectError(withLine("ArrayWidth", ""), "t.cfg: 'architecture_presets.ArrayWidth': missing key");
}

TEST(ScaleSimConfig, ValueErrors) {
  expectError(withLine("ArrayHeight", "ArrayHeight: 0"),
              "t.cfg: 'architecture_presets.ArrayHeight': expected an integer >= 1, got '0'");
  expectError(withLine("ArrayWidth", "ArrayWidth: 3.5"),
              "t.cfg: 'architecture_presets.ArrayWidth': expected an integer >= 1, got '3.5'");
  expectError(withLine("IfmapSramSzkB", "IfmapSramSzkB: 0"),
              "t.cfg: 'architecture_presets.IfmapSramSzkB': expected an integer >= 1, got '0'");
  expectError(withLine("OfmapOffset", "OfmapOffset: -1"),
              "t.cfg: 'architecture_presets.OfmapOffset': expected an integer >= 0, got '-1'");
  expectError(withLine("FilterOffset", "FilterOffset: 99999999999999999999"),
              "t.cfg: 'architecture_presets.FilterOffset': expected an integer >= 0, got "
              "'99999999999999999999'");
  expectError(withLine("Dataflow", "Dataflow : OS"),
              "t.cfg: 'architecture_presets.Dataflow': expected os, ws or is, got 'OS'");
  expectError(withLine("InterfaceBandwidth", "InterfaceBandwidth: calc"),
              "t.cfg: 'run_presets.InterfaceBandwidth': expected USER or CALC, got 'calc'");
  // The run name is a folder under the output folder: nothing that leaves it.
  for (const char* name : {"../escape", "/tmp/x", "a/b", "..", ".", "a\\b"})
    expectError(withLine("run_name", std::string("run_name = ") + name),
                std::string("t.cfg: 'general.run_name': must be a plain folder name (no '/', "
                            "'\\', '.' or '..'), got '") +
                    name + "'");
}

TEST(ScaleSimConfig, UserBandwidth) {
  const std::string user = withLine("InterfaceBandwidth", "InterfaceBandwidth: USER");
  EXPECT_EQ(parseConfigText(user, "t").userBandwidthWordsPerCycle, (std::vector<int64_t>{10}));
  std::string noBandwidth = withLine("Bandwidth", "");
  noBandwidth = noBandwidth.replace(noBandwidth.find("InterfaceBandwidth: CALC"), 24,
                                    "InterfaceBandwidth: USER");
  expectError(noBandwidth, "t.cfg: 'architecture_presets.Bandwidth': missing key");
  std::string bad = withLine("Bandwidth", "Bandwidth : 10, ten");
  bad = bad.replace(bad.find("InterfaceBandwidth: CALC"), 24, "InterfaceBandwidth: USER");
  expectError(bad, "t.cfg: 'architecture_presets.Bandwidth': expected comma-separated "
                   "integers, got '10, ten'");
  std::string zero = withLine("Bandwidth", "Bandwidth : 0, 10");
  zero = zero.replace(zero.find("InterfaceBandwidth: CALC"), 24, "InterfaceBandwidth: USER");
  expectError(zero, "t.cfg: 'architecture_presets.Bandwidth': the first bandwidth (the one "
                    "SCALE-Sim uses) must be >= 1 word per cycle, got 0");
}

TEST(ScaleSimConfig, FileErrors) {
  try {
    parseConfigFile("/nonexistent/scale.cfg");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Io);
    EXPECT_EQ(std::string(e.what()),
              "/nonexistent/scale.cfg: cannot open file (No such file or directory)");
  }
  try {
    parseConfigFile(::testing::TempDir());
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Io);
    EXPECT_NE(std::string(e.what()).find("is a directory, not a file"), std::string::npos);
  }
}

} // namespace
