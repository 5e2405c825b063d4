/// \file
/// Tests of the systolic config: the presets (load, round trip through toYaml, file/name
/// agreement, the embedded copies equal the files in configs/systolic), partial files keeping
/// defaults, and every rejection rule with its one-line message naming the file and key path.
#include "nnaccel/arch/systolic/Config.h"

#include "../../common/ConfigTestSupport.h"
#include "nnaccel/support/Error.h"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>

namespace {

using namespace nnaccel;
using namespace nnaccel::arch::systolic;

using test::sourceFile;

/// Parses \p yaml as "edge.yaml" expecting a Config error with exactly \p message; returns the
/// error's key for further checks.
std::string expectConfigError(const std::string& yaml, const std::string& message) {
  SCOPED_TRACE(yaml);
  return test::expectError([&] { parseSystolicConfig(yaml, "edge.yaml"); }, ErrorKind::Config,
                           "edge.yaml", message);
}

// --- presets ------------------------------------------------------------------------------------

TEST(SystolicPresets, NamesAndShapes) {
  EXPECT_EQ(systolicPresetNames(), (std::vector<std::string>{"small", "edge", "server"}));
  const SystolicConfig small = systolicPreset("small");
  EXPECT_EQ(small.name, "small");
  EXPECT_EQ(small.peRows, 16);
  EXPECT_EQ(small.peCols, 16);
  EXPECT_EQ(small.sbufBytesPerPartition, 16 * 1024);
  EXPECT_EQ(small.psumEntriesPerColumn, 512);
  EXPECT_EQ(small.psumMaxTileRows, 16);
  EXPECT_EQ(small.psumMaxTileCols, 32);
  EXPECT_EQ(small.psumZeroMode, PsumZeroMode::Reset);
  EXPECT_TRUE(small.supports(DType::I8));
  EXPECT_TRUE(small.supports(DType::F32));
  EXPECT_FALSE(small.supports(DType::U8));

  const SystolicConfig edge = systolicPreset("edge");
  EXPECT_EQ(edge.peRows, 32);
  EXPECT_EQ(edge.peCols, 32);

  const SystolicConfig server = systolicPreset("server");
  EXPECT_EQ(server.peRows, 128);
  EXPECT_EQ(server.peCols, 64);
  EXPECT_EQ(server.sbufBytesPerPartition, 192 * 1024);
  EXPECT_EQ(server.psumEntriesPerColumn, 2048);
  EXPECT_EQ(server.psumZeroMode, PsumZeroMode::WrittenFlags);
  EXPECT_DOUBLE_EQ(server.clockMhz, 1400.0);
}

TEST(SystolicPresets, EmbeddedCopiesMatchTheSourceFiles) {
  // The binary's presets are compiled from configs/systolic/*.yaml; each file lists every key,
  // so parsing it over any base gives the same config.
  SystolicConfig odd;
  odd.peRows = 3;
  odd.psumZeroMode = PsumZeroMode::WrittenFlags;
  odd.dtypes = {DType::F32};
  odd.energy.poolOpPj = 99;
  for (const std::string& name : systolicPresetNames()) {
    SCOPED_TRACE(name);
    const std::string text = sourceFile("configs/systolic/" + name + ".yaml");
    ASSERT_FALSE(text.empty());
    EXPECT_EQ(parseSystolicConfigOver(odd, text, name + ".yaml"), systolicPreset(name));
    EXPECT_EQ(parseSystolicConfigOver(SystolicConfig{}, text, name + ".yaml"),
              systolicPreset(name));
  }
}

TEST(SystolicConfigYaml, ToYamlUsesTheNestedLayout) {
  const std::string yaml = toYaml(systolicPreset("small"));
  EXPECT_EQ(yaml.rfind("# nnaccel systolic", 0), 0u) << yaml;
  for (const char* line :
       {"\nname: small\n", "\narray:\n  rows: 16\n  cols: 16\n", "\n  shadow_weights: true\n",
        "\nsbuf:\n  bytes_per_partition: 16384\n", "\n  zero_mode: reset\n",
        "\ndtypes: [int8, fp32]\n",
        "\ndram:\n  standard: custom\n  channels: 1\n  row_buffer: false\n  bytes_per_cycle: 16\n",
        "\n  mac_int8_pj: auto\n", "\n  dram_read_pj_per_byte: 160\n", "\nclock_mhz: 1000\n",
        "\ntechnology:\n  node: \"45nm\"\n  vdd_v: auto\n"}) {
    EXPECT_NE(yaml.find(line), std::string::npos) << line << "\n" << yaml;
  }
}

TEST(SystolicConfigYaml, NamesThatNeedQuotingRoundTrip) {
  for (const char* name : {"my arch", "true", "16", "a: b", "quote\"and\\slash", "#x", "no"}) {
    SystolicConfig c = systolicPreset("edge");
    c.name = name;
    EXPECT_EQ(parseSystolicConfig(toYaml(c), "q.yaml").name, name) << toYaml(c);
  }
}

TEST(SystolicConfigYaml, RealsRoundTripExactly) {
  SystolicConfig c = systolicPreset("small");
  c.dramBytesPerCycle = 0.1 + 0.2; // not the shortest decimal of 0.3
  c.clockMhz = 1e-3;
  c.energy.macFp32Pj = 123456.789012345;
  EXPECT_EQ(parseSystolicConfig(toYaml(c), "r.yaml"), c);
}

// --- partial files and defaults -----------------------------------------------------------------

TEST(SystolicConfigParse, PartialFileKeepsSmallPresetDefaults) {
  const SystolicConfig c =
      parseSystolicConfig("array:\n  rows: 8\ndram:\n  latency_cycles: 7\n", "partial.yaml");
  SystolicConfig expected = systolicPreset("small");
  expected.name = "custom";
  expected.peRows = 8;
  expected.dramLatencyCycles = 7;
  EXPECT_EQ(c, expected);
}

TEST(SystolicConfigParse, EmptyFileAndEmptySectionKeepDefaults) {
  SystolicConfig expected = systolicPreset("small");
  expected.name = "custom";
  EXPECT_EQ(parseSystolicConfig("", "empty.yaml"), expected);
  EXPECT_EQ(parseSystolicConfig("# only a comment\n", "c.yaml"), expected);
  EXPECT_EQ(parseSystolicConfig("array:\nenergy: {}\n", "e.yaml"), expected);
}

TEST(SystolicConfigParse, EveryKeyIsRead) {
  const SystolicConfig c = parseSystolicConfig(R"(name: mine
clock_mhz: 250.5
array: {rows: 4, cols: 8, weight_load_cycles: 0, shadow_weights: no}
sbuf: {bytes_per_partition: 2048, resident_bytes_per_partition: 512, dma_bytes_per_cycle: 96,
       dma_latency_cycles: 5}
psum: {entries_per_column: 100, max_tile_rows: 10, max_tile_cols: 10, zero_mode: written_flags,
       reset_entries_per_cycle: 3}
dtypes: [fp32]
activation: {latency_cycles: 1}
pool: {lanes: 2, latency_cycles: 0}
dram: {bytes_per_cycle: 0.5, latency_cycles: 0}
technology: {node: 7nm, vdd_v: 0.75}
energy: {mac_int8_pj: 1, mac_fp32_pj: 2, sbuf_read_pj_per_byte: 3, sbuf_write_pj_per_byte: 4,
         psum_read_pj_per_entry: 5, psum_write_pj_per_entry: 6, dram_read_pj_per_byte: 7,
         dram_write_pj_per_byte: 8, act_op_pj: 9, pool_op_pj: 10, weight_load_pj_per_byte: 0}
)",
                                               "all.yaml");
  EXPECT_EQ(c.name, "mine");
  EXPECT_DOUBLE_EQ(c.clockMhz, 250.5);
  EXPECT_EQ(c.peRows, 4);
  EXPECT_EQ(c.peCols, 8);
  EXPECT_EQ(c.weightLoadCycles, 0);
  EXPECT_FALSE(c.shadowWeights);
  EXPECT_EQ(c.sbufBytesPerPartition, 2048);
  EXPECT_EQ(c.sbufResidentBytesPerPartition, 512);
  EXPECT_EQ(c.sbufWorkingBytesPerPartition(), 1536);
  EXPECT_DOUBLE_EQ(c.sbufDmaBytesPerCycle, 96);
  EXPECT_EQ(c.sbufDmaLatencyCycles, 5);
  EXPECT_EQ(c.psumEntriesPerColumn, 100);
  EXPECT_EQ(c.psumTileEntries(), 100);
  EXPECT_EQ(c.psumZeroMode, PsumZeroMode::WrittenFlags);
  EXPECT_EQ(c.psumResetEntriesPerCycle, 3);
  EXPECT_EQ(c.dtypes, (std::vector<DType>{DType::F32}));
  EXPECT_EQ(c.actLatencyCycles, 1);
  EXPECT_EQ(c.poolLanes, 2);
  EXPECT_EQ(c.poolLatencyCycles, 0);
  EXPECT_EQ(c.dramBytesPerCycle, 0.5);
  EXPECT_EQ(c.dramLatencyCycles, 0);
  const EnergyTable& e = c.energy;
  EXPECT_EQ((std::vector<std::optional<double>>{
                e.macInt8Pj, e.macFp32Pj, e.sbufReadPjPerByte, e.sbufWritePjPerByte,
                e.psumReadPjPerEntry, e.psumWritePjPerEntry, e.dramReadPjPerByte,
                e.dramWritePjPerByte, e.actOpPj, e.poolOpPj, e.weightLoadPjPerByte}),
            (std::vector<std::optional<double>>{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 0}));
  EXPECT_EQ(c.technology.node, "7nm");
  EXPECT_EQ(c.technology.vddV, 0.75);
}

// --- rejections ---------------------------------------------------------------------------------

TEST(SystolicConfigErrors, UnknownKeysAreNamedWithTheirPath) {
  EXPECT_EQ(expectConfigError("psum:\n  entries: 5\n",
                              "edge.yaml: 'psum.entries': unknown key (expected one of: "
                              "entries_per_column, max_tile_rows, max_tile_cols, zero_mode, "
                              "reset_entries_per_cycle)"),
            "psum.entries");
  expectConfigError("arrays:\n  rows: 5\n",
                    "edge.yaml: 'arrays': unknown key (expected one of: name, clock_mhz, "
                    "technology, array, sbuf, psum, dtypes, activation, pool, dram, energy)");
  expectConfigError("energy:\n  mac_int4_pj: 1\n",
                    "edge.yaml: 'energy.mac_int4_pj': unknown key (expected one of: mac_int8_pj, "
                    "mac_fp32_pj, sbuf_read_pj_per_byte, sbuf_write_pj_per_byte, "
                    "psum_read_pj_per_entry, psum_write_pj_per_entry, dram_read_pj_per_byte, "
                    "dram_write_pj_per_byte, dram_activate_pj, act_op_pj, pool_op_pj, "
                    "weight_load_pj_per_byte)");
  expectConfigError("array: {rows: 4, rows: 8}\n",
                    "edge.yaml: 'array.rows': written twice (lines 1 and 1)");
  expectConfigError("? [a]\n: 1\n",
                    "edge.yaml: a key must be a plain name (line 1), got a sequence");
}

TEST(SystolicConfigErrors, WrongTypes) {
  EXPECT_EQ(expectConfigError("array:\n  rows: many\n",
                              "edge.yaml: 'array.rows': expected an integer, got 'many'"),
            "array.rows");
  expectConfigError("array:\n  rows: \"16\"\n",
                    "edge.yaml: 'array.rows': expected an integer, got the string \"16\"");
  expectConfigError("array:\n  rows: 16.5\n",
                    "edge.yaml: 'array.rows': expected an integer, got '16.5'");
  expectConfigError("array:\n  rows:\n",
                    "edge.yaml: 'array.rows': expected an integer, got nothing");
  expectConfigError("array:\n  rows: [1]\n",
                    "edge.yaml: 'array.rows': expected an integer, got a sequence");
  expectConfigError("array:\n  shadow_weights: maybe\n",
                    "edge.yaml: 'array.shadow_weights': expected true or false, got 'maybe'");
  expectConfigError("dram:\n  bytes_per_cycle: fast\n",
                    "edge.yaml: 'dram.bytes_per_cycle': expected a number or auto, got 'fast'");
  expectConfigError("array: 16\n", "edge.yaml: 'array': expected a mapping, got '16'");
  expectConfigError("name: [a, b]\n", "edge.yaml: 'name': expected a string, got a sequence");
  expectConfigError("name: \"\"\n", "edge.yaml: 'name': must not be empty");
  expectConfigError("- 1\n- 2\n",
                    "edge.yaml: expected a mapping of config keys at the top level, got a "
                    "sequence");
}

TEST(SystolicConfigErrors, WrongEnumsAndDtypeLists) {
  expectConfigError("psum:\n  zero_mode: zero\n",
                    "edge.yaml: 'psum.zero_mode': expected one of reset, written_flags, got "
                    "'zero'");
  expectConfigError("dtypes: [int8, int4]\n",
                    "edge.yaml: 'dtypes': expected a list of int8, fp32, got 'int4' in the list");
  expectConfigError("dtypes: int8\n",
                    "edge.yaml: 'dtypes': expected a list of int8, fp32, got 'int8'");
  expectConfigError("dtypes: []\n",
                    "edge.yaml: 'dtypes': must list at least one value (of int8, fp32)");
  expectConfigError("dtypes: [int8, fp32, int8]\n", "edge.yaml: 'dtypes': lists 'int8' twice");
}

TEST(SystolicConfigErrors, IntegerRanges) {
  expectConfigError("array:\n  rows: 0\n", "edge.yaml: 'array.rows': must be >= 1 (got 0)");
  expectConfigError("array:\n  cols: -3\n", "edge.yaml: 'array.cols': must be >= 1 (got -3)");
  expectConfigError("array:\n  cols: 4097\n",
                    "edge.yaml: 'array.cols': must be <= 4096 (got 4097)");
  expectConfigError("array:\n  weight_load_cycles: -1\n",
                    "edge.yaml: 'array.weight_load_cycles': must be >= 0 (got -1)");
  expectConfigError("sbuf:\n  bytes_per_partition: 1023\n",
                    "edge.yaml: 'sbuf.bytes_per_partition': must be >= 1024 (got 1023)");
  expectConfigError("sbuf:\n  bytes_per_partition: 1073741825\n",
                    "edge.yaml: 'sbuf.bytes_per_partition': must be <= 1073741824 (got "
                    "1073741825)");
  expectConfigError("psum:\n  entries_per_column: 0\n",
                    "edge.yaml: 'psum.entries_per_column': must be >= 1 (got 0)");
  expectConfigError("psum:\n  max_tile_cols: 0\n",
                    "edge.yaml: 'psum.max_tile_cols': must be >= 1 (got 0)");
  expectConfigError("psum:\n  reset_entries_per_cycle: 0\n",
                    "edge.yaml: 'psum.reset_entries_per_cycle': must be >= 1 (got 0)");
  expectConfigError("activation:\n  latency_cycles: -2\n",
                    "edge.yaml: 'activation.latency_cycles': must be >= 0 (got -2)");
  expectConfigError("pool:\n  lanes: 0\n", "edge.yaml: 'pool.lanes': must be >= 1 (got 0)");
  expectConfigError("pool:\n  latency_cycles: -1\n",
                    "edge.yaml: 'pool.latency_cycles': must be >= 0 (got -1)");
  expectConfigError("dram:\n  latency_cycles: 1000000001\n",
                    "edge.yaml: 'dram.latency_cycles': must be <= 1000000000 (got 1000000001)");
  expectConfigError("array:\n  rows: 99999999999999999999\n",
                    "edge.yaml: 'array.rows': expected an integer, got '99999999999999999999'");
}

TEST(SystolicConfigErrors, RealRanges) {
  expectConfigError("dram:\n  bytes_per_cycle: 0\n",
                    "edge.yaml: 'dram.bytes_per_cycle': must be >= 0.0009765625 (got 0)");
  expectConfigError("dram:\n  bytes_per_cycle: .inf\n",
                    "edge.yaml: 'dram.bytes_per_cycle': must be finite (got inf)");
  expectConfigError("clock_mhz: -1\n", "edge.yaml: 'clock_mhz': must be >= 0.001 (got -1)");
  expectConfigError("clock_mhz: .nan\n", "edge.yaml: 'clock_mhz': must be finite (got nan)");
  expectConfigError("energy:\n  dram_read_pj_per_byte: -0.5\n",
                    "edge.yaml: 'energy.dram_read_pj_per_byte': must be >= 0 (got -0.5)");
  expectConfigError("energy:\n  mac_fp32_pj: .inf\n",
                    "edge.yaml: 'energy.mac_fp32_pj': must be finite (got inf)");
}

TEST(SystolicConfigErrors, PsumTileMustFitTheColumn) {
  EXPECT_EQ(expectConfigError("psum:\n  entries_per_column: 2048\n  max_tile_rows: 64\n  "
                              "max_tile_cols: 64\n",
                              "edge.yaml: 'psum.max_tile_rows': 64 x 64 = 4096 exceeds "
                              "psum.entries_per_column = 2048"),
            "psum.max_tile_rows");
  // Exactly full is fine.
  EXPECT_NO_THROW(parseSystolicConfig("psum: {entries_per_column: 4096, max_tile_rows: 64, "
                                      "max_tile_cols: 64}\n",
                                      "ok.yaml"));
}

TEST(SystolicConfigErrors, ResidentRegionLeavesAWorkingArea) {
  EXPECT_EQ(expectConfigError("sbuf:\n  bytes_per_partition: 4096\n  "
                              "resident_bytes_per_partition: 3073\n",
                              "edge.yaml: 'sbuf.resident_bytes_per_partition': 3073 leaves less "
                              "than 1024 of the 4096 bytes per partition for working tiles"),
            "sbuf.resident_bytes_per_partition");
  expectConfigError("sbuf:\n  resident_bytes_per_partition: -1\n",
                    "edge.yaml: 'sbuf.resident_bytes_per_partition': must be >= 0 (got -1)");
  expectConfigError("sbuf:\n  dma_bytes_per_cycle: 0\n",
                    "edge.yaml: 'sbuf.dma_bytes_per_cycle': must be >= 0.0009765625 (got 0)");
  EXPECT_NO_THROW(parseSystolicConfig("sbuf: {bytes_per_partition: 4096, "
                                      "resident_bytes_per_partition: 3072}\n",
                                      "ok.yaml"));
}

TEST(SystolicConfigValidate, ChecksConfigsBuiltInCode) {
  SystolicConfig c = systolicPreset("small");
  EXPECT_NO_THROW(validate(c));
  c.peRows = 0;
  EXPECT_THROW(
      {
        try {
          validate(c, "mem.yaml");
        } catch (const Error& e) {
          EXPECT_STREQ(e.what(), "mem.yaml: 'array.rows': must be >= 1 (got 0)");
          throw;
        }
      },
      Error);
  c = systolicPreset("small");
  c.dtypes = {DType::U8};
  try {
    validate(c);
    ADD_FAILURE() << "u8 accepted";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "<config>: 'dtypes': holds a value the schema does not list");
  }
  c = systolicPreset("small");
  c.dtypes = {};
  EXPECT_THROW(validate(c), Error);
  c = systolicPreset("small");
  c.psumMaxTileCols = 33; // 16 x 33 > 512
  try {
    validate(c);
    ADD_FAILURE() << "tile accepted";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "<config>: 'psum.max_tile_rows': 16 x 33 = 528 exceeds "
                           "psum.entries_per_column = 512");
  }
  c = systolicPreset("small");
  c.name = "";
  EXPECT_THROW(validate(c), Error);
}

// --- files --------------------------------------------------------------------------------------

TEST(SystolicConfigFile, LoadsAFileAndNamesItInErrors) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "nnaccel_config_test";
  std::filesystem::create_directories(dir);
  const std::string good = (dir / "mine.yaml").string();
  std::ofstream(good) << "name: mine\narray: {rows: 8, cols: 4}\n";
  const SystolicConfig c = loadSystolicConfigFile(good);
  EXPECT_EQ(c.name, "mine");
  EXPECT_EQ(c.peRows, 8);
  EXPECT_EQ(c.peCols, 4);

  const std::string bad = (dir / "bad.yaml").string();
  std::ofstream(bad) << "array: {rows: 0}\n";
  try {
    loadSystolicConfigFile(bad);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Config);
    EXPECT_EQ(std::string(e.what()), bad + ": 'array.rows': must be >= 1 (got 0)");
  }
  try {
    loadSystolicConfigFile((dir / "missing.yaml").string());
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Io);
    EXPECT_EQ(std::string(e.what()),
              (dir / "missing.yaml").string() + ": cannot open file (No such file or directory)");
  }
  try {
    loadSystolicConfigFile(dir.string());
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Io);
    EXPECT_EQ(std::string(e.what()), dir.string() + ": is a directory, not a config file");
  }
  std::filesystem::remove_all(dir);
}

// --- the DRAM part (arch/common/Dram.h, docs/Technology.md "DRAM") ------------------------------

TEST(SystolicDram, AStandardDerivesBandwidthAndEnergiesAndANumberOverrides) {
  const SystolicConfig server = systolicPreset("server");
  EXPECT_EQ(server.dram, (nnaccel::arch::common::DramPart{"hbm2", 8, true}));
  EXPECT_FALSE(server.dramBytesPerCycle.has_value());
  EXPECT_NEAR(server.dramFigures().bytesPerCycle, 8 * 32.0 / 1.4, 1e-9);
  EXPECT_EQ(server.dramFigures().latencyCycles, 280); // the preset's end-to-end number
  const EnergyPrices p = energyPrices(server);
  const tech::DramStandard& hbm2 = tech::dramStandard("hbm2");
  EXPECT_DOUBLE_EQ(p.dramReadPjPerByte, 8 * hbm2.readTotalPjPerBit());
  EXPECT_DOUBLE_EQ(p.dramActivatePj, hbm2.activatePj);
  const SystolicConfig capped = parseSystolicConfigOver(
      server, "dram: {bytes_per_cycle: 64, latency_cycles: auto}\n", "c.yaml");
  EXPECT_DOUBLE_EQ(capped.dramFigures().bytesPerCycle, 64);
  EXPECT_EQ(capped.dramFigures().latencyCycles, 40); // tRCD + CL = 28 ns at 1.4 GHz
  // The custom presets keep their numbers; the round trip keeps `auto`.
  EXPECT_EQ(systolicPreset("edge").dram.standard, "custom");
  EXPECT_EQ(parseSystolicConfig(toYaml(server), "r.yaml").dram, server.dram);
}

TEST(SystolicDram, ErrorsNameTheKey) {
  expectConfigError("dram: {standard: ddr5}\n",
                    "edge.yaml: 'dram.standard': unknown DRAM standard 'ddr5' (known: ddr4-2400, "
                    "ddr4-3200, lpddr4-3200, lpddr5-6400, hbm2)");
  expectConfigError("dram: {bytes_per_cycle: auto}\n",
                    "edge.yaml: 'dram.bytes_per_cycle': auto needs a DRAM standard "
                    "(dram.standard is custom)");
  expectConfigError("energy: {dram_read_pj_per_byte: auto}\n",
                    "edge.yaml: 'energy.dram_read_pj_per_byte': auto needs a DRAM standard "
                    "(dram.standard is custom)");
  expectConfigError("dram: {row_buffer: true}\n",
                    "edge.yaml: 'dram.row_buffer': the row-buffer model needs a DRAM standard's "
                    "rows and banks (dram.standard is custom)");
  expectConfigError("dram: {channels: 0}\n", "edge.yaml: 'dram.channels': must be >= 1 (got 0)");
  expectConfigError("dram: {latency_cycles: soon}\n",
                    "edge.yaml: 'dram.latency_cycles': expected an integer or auto, got 'soon'");
}

} // namespace

// --- technology and pricing (config/Pricing.cpp, docs/arch/Systolic.md "Energy and area") -------

TEST(SystolicTechnology, UnknownNodesAndSuppliesAreNamedWithTheirKey) {
  EXPECT_EQ(expectConfigError("technology:\n  node: 22nm\n",
                              "edge.yaml: 'technology.node': unknown process node '22nm' (known: "
                              "180nm, 130nm, 90nm, 65nm, 45nm, 32nm, 28nm, 20nm, 16nm, 14nm, "
                              "10nm, 7nm)"),
            "technology.node");
  expectConfigError("technology:\n  vdd_v: 5\n",
                    "edge.yaml: 'technology.vdd_v': must be <= 2 (got 5)");
  // The overhead shares: the two area shares together stay below 0.9.
  expectConfigError("technology:\n  clock_power_share: 0.5\n",
                    "edge.yaml: 'technology.clock_power_share': must be <= 0.45 (got 0.5)");
  expectConfigError("technology:\n  control_area_share: -0.1\n",
                    "edge.yaml: 'technology.control_area_share': must be >= 0 (got -0.1)");
  expectConfigError("technology:\n  clock_area_share: most\n",
                    "edge.yaml: 'technology.clock_area_share': expected a number or auto, got "
                    "'most'");
  expectConfigError("energy:\n  act_op_pj: cheap\n",
                    "edge.yaml: 'energy.act_op_pj': expected a number or auto, got 'cheap'");
}

TEST(SystolicTechnology, AutoEventsArePricedFromTheirComponentsAndNumbersOverride) {
  const SystolicConfig small = systolicPreset("small"); // 45 nm at its nominal 1.0 V
  const tech::ProcessNode at = tech::node("45nm");
  const auto pj = [&](tech::ComponentClass cls, int64_t w) {
    return tech::costOf(tech::ComponentSpec{.cls = cls, .widthBits = w}, at).readEnergyPj;
  };
  const EnergyPrices p = energyPrices(small);
  EXPECT_DOUBLE_EQ(p.macInt8Pj, pj(tech::ComponentClass::IntMultiplier, 8) +
                                    pj(tech::ComponentClass::IntAdder, 32));
  EXPECT_DOUBLE_EQ(p.poolOpPj, pj(tech::ComponentClass::IntAdder, 32));
  EXPECT_DOUBLE_EQ(p.dramReadPjPerByte, 160); // configured (Dally's LPDDR figure)
  // SBUF: 16 KiB partitions with a 4-byte word (64 B per cycle over 16 partitions).
  const tech::ComponentCost sbuf = tech::costOf(
      tech::ComponentSpec{
          .cls = tech::ComponentClass::Sram, .widthBits = 32, .capacityBytes = 16384},
      at);
  EXPECT_DOUBLE_EQ(p.sbufReadPjPerByte, sbuf.readEnergyPj / 4);
  const std::vector<engines::CostTable::Event> events = energyEvents(small);
  EXPECT_EQ(events.front().key, "mac_int8_pj");
  EXPECT_EQ(events.front().basis, "pe_multiplier + pe_adder");
  // A number overrides; a smaller node makes every auto event cheaper.
  SystolicConfig c = parseSystolicConfigOver(small, "energy: {mac_int8_pj: 0.5}\n", "o.yaml");
  EXPECT_EQ(energyPrices(c).macInt8Pj, 0.5);
  EXPECT_EQ(energyEvents(c).front().basis, "configured");
  c = parseSystolicConfigOver(small, "technology: {node: 7nm}\n", "n.yaml");
  EXPECT_LT(energyPrices(c).macInt8Pj, p.macInt8Pj / 10);
  EXPECT_NEAR(systolicInventory(c).areaMm2() / systolicInventory(small).areaMm2(), 0.059, 1e-9);
}

TEST(SystolicTechnology, InventoryCountsEveryUnitOfTheConfig) {
  const SystolicConfig server = systolicPreset("server");
  const nnaccel::arch::common::Inventory inv = systolicInventory(server);
  EXPECT_EQ(inv.node.name, "7nm");
  EXPECT_EQ(inv.part("pe_multiplier").use.count, 128 * 64);
  EXPECT_EQ(inv.part("pe_weight_register").use.count, 2 * 128 * 64); // with the shadow copy
  EXPECT_EQ(inv.part("sbuf").use.count, 128);
  EXPECT_EQ(inv.part("sbuf").use.spec.capacityBytes, 196608);
  EXPECT_EQ(inv.part("psum").use.count, 64);
  double groups = 0;
  for (const auto& [name, mm2] : inv.areaMm2ByGroup())
    groups += mm2;
  EXPECT_NEAR(groups, inv.areaMm2(), 1e-12);
  // An int8-only array has no fp32 units.
  SystolicConfig int8 = server;
  int8.dtypes = {DType::I8};
  EXPECT_EQ(systolicInventory(int8).find("pe_fp32_multiplier"), nullptr);
  EXPECT_LT(systolicInventory(int8).areaMm2(), inv.areaMm2());
  // ... and never runs an fp32 MAC: that event uses a component the machine does not have.
  const std::vector<engines::CostTable::Event> events = energyEvents(int8);
  EXPECT_EQ(events.at(1).key, "mac_fp32_pj");
  EXPECT_EQ(events.at(1).pj, 0.0);
  EXPECT_EQ(events.at(1).basis, "no pe_fp32_multiplier");
}
