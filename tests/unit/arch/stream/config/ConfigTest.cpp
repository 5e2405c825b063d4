/// \file
/// Tests of the stream engine's ASIC description: the presets (fig44's values pinned against the
/// patent's Fig. 44 example, every preset valid and round-tripping through toYaml, the embedded
/// copies equal configs/stream/, the `large` preset file), claim 1's structure through the
/// accessors (rows, tiles per row, bus sets, mux choices, the primary output mux), the per-row
/// counts with their row overrides, every key parsing, partial files keeping the fig44 defaults,
/// and every rejection rule (unknown keys, types, enums, fp16/bf16 and kernel sizes other than 3
/// not modelled, each range, each cross-field rule) with its one-line message naming the file and
/// the dotted key.
#include "nnaccel/arch/stream/Config.h"

#include "../../common/ConfigTestSupport.h"
#include "nnaccel/support/Error.h"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>

namespace {

using namespace nnaccel;
using namespace nnaccel::arch::stream;

using test::sourceFile;
using RowOverrides = std::vector<std::pair<std::string, int64_t>>;

/// Parses \p yaml as "asic.yaml" expecting a Config error with exactly \p message; returns the
/// error's key for further checks.
std::string expectConfigError(const std::string& yaml, const std::string& message) {
  SCOPED_TRACE(yaml);
  return test::expectError([&] { parseStreamConfig(yaml, "asic.yaml"); }, ErrorKind::Config,
                           "asic.yaml", message);
}

/// validate(c, "mem.yaml") must throw exactly \p message; returns the error's key.
std::string expectInvalid(const StreamConfig& c, const std::string& message) {
  return test::expectError([&] { validate(c, "mem.yaml"); }, ErrorKind::Config, "mem.yaml",
                           message);
}

/// The fig44 preset as parseStreamConfig's base: absent keys keep these values.
StreamConfig fig44Defaults() {
  StreamConfig c = streamPreset("fig44");
  c.name = StreamConfig{}.name;
  c.description = StreamConfig{}.description;
  return c;
}

// --- presets ------------------------------------------------------------------------------------

TEST(StreamPresets, Fig44IsTheFirstAndDefaultPreset) {
  const std::vector<std::string> names = streamPresetNames();
  ASSERT_FALSE(names.empty());
  EXPECT_EQ(names.front(), "fig44");
}

TEST(StreamPresets, Fig44ValuesArePinned) {
  const StreamConfig c = streamPreset("fig44");
  EXPECT_EQ(c.name, "fig44");
  EXPECT_EQ(c.description,
            "Fig. 44 example: 4 rows of 6 3x3 kernel tiles (16x16 lanes), 2 aux tiles per row");
  EXPECT_DOUBLE_EQ(c.clockMhz, 150.0); // the patent's HD processing clock
  // Fig. 44: 4 rows, 6 kernel tiles in the first row (and, by this preset's choice, in each).
  EXPECT_EQ(c.rows, 4);
  EXPECT_EQ(c.kernelTilesPerRow, (PerRowCount{6, {}}));
  EXPECT_EQ(c.kernelSize, 3);
  EXPECT_EQ(c.lanes, 16);
  EXPECT_EQ(c.weightStorePairs, 64);
  EXPECT_EQ(c.maxArrayWidthPositions, 1920);
  EXPECT_EQ(c.auxFifoPositions, 16);
  EXPECT_EQ(c.auxTilesPerRow, (PerRowCount{2, {}}));
  EXPECT_EQ(c.auxTileFifoPositions, 15360);
  EXPECT_EQ(c.lutEntries, 256);
  EXPECT_EQ(c.maxPatch, 3);
  EXPECT_EQ(c.inputBusSets, 1);
  EXPECT_EQ(c.externalSetsPerRow, 3); // the 3 external sets drawn in Fig. 44
  EXPECT_EQ(c.primaryOutputSets, 1);
  EXPECT_EQ(c.partialSumBits, 32);
  EXPECT_EQ(c.activationBits, 8);
  EXPECT_EQ(c.dataType, DataType::Int8);
  EXPECT_EQ(c.weightBits, 8);
  EXPECT_EQ(c.biasBits, 32);
  EXPECT_EQ(c.accumulatorBits, 32);
  EXPECT_EQ(c.multiplierForm, MultiplierForm::SharedPairs);
  EXPECT_FALSE(c.localMultipliers);
  EXPECT_EQ(c.multiplierPipelineStages, 3);
  EXPECT_EQ(c.adderTreeCycles, 2);
  EXPECT_EQ(c.summationCellCycles, 1);
  EXPECT_EQ(c.unitAdderCycles, 1);
  EXPECT_EQ(c.auxAdderCycles, 1);
  EXPECT_EQ(c.lutCycles, 1);
  EXPECT_EQ(c.patchCycles, 1);
  EXPECT_EQ(c.busHopCycles, 1);
  EXPECT_EQ(c.chips, 1);
  EXPECT_EQ(c.chipLinkLatencyCycles, 16);
  // On-chip events are priced by the technology model (auto); buses and links are numbers.
  EXPECT_EQ(c.energy, EnergyTable{});
  EXPECT_FALSE(c.energy.cellSelectAddPj.has_value());
  EXPECT_EQ(c.energy.chipLinkSetPj, std::nullopt); // auto: the serial link's bits
  EXPECT_EQ(c.technology.node, "28nm");
  EXPECT_FALSE(c.technology.vddV.has_value());
}

TEST(StreamPresets, Fig44HasClaimOnesStructure) {
  const StreamConfig c = streamPreset("fig44");
  // Claim 1: at least three rows of kernel tiles.
  EXPECT_GE(c.rows, 3);
  for (int64_t row = 0; row < c.rows; ++row) {
    SCOPED_TRACE(row);
    EXPECT_EQ(c.tilesInRow(row), 6);
    EXPECT_EQ(c.auxTilesInRow(row), 2);
    // Row k's output bus 4406: a set per kernel tile (6), aux tile (2) and external input (3).
    EXPECT_EQ(c.outputBusSets(row), 11);
  }
  EXPECT_EQ(c.kernelTileCount(), 24);
  EXPECT_EQ(c.auxTileCount(), 8);
  // Row 0's muxes 4403 choose from the input bus 4402 (1 set) and row 0's own bus (11);
  // row k's from bus k-1 and bus k (fed back into every mux of the row).
  EXPECT_EQ(c.rowMuxChoices(0), 12);
  EXPECT_EQ(c.rowMuxChoices(1), 22);
  EXPECT_EQ(c.rowMuxChoices(3), 22);
  // The single primary output mux 4412 selects from the last bus.
  EXPECT_EQ(c.primaryOutputChoices(), 11);
  // 24 tiles x 9 cells x 16 output lanes x 16 input lanes.
  EXPECT_EQ(c.macsPerCycle(), 24 * 9 * 16 * 16);
  EXPECT_EQ(c.multiplesPerMassMultiplier(), 256); // 2^8 multiples (digest §1)
  EXPECT_EQ(c.kernelTileLatencyCycles(), 3 + 2 + 1 + 1);
  EXPECT_EQ(c.auxTileLatencyCycles(), 3);
}

TEST(StreamPresets, LargePresetFileIsValid) {
  // configs/stream/large.yaml (embedded once CMake lists it): 8 rows of 16 tiles.
  const std::string text = sourceFile("configs/stream/large.yaml");
  ASSERT_FALSE(text.empty());
  const StreamConfig c = parseStreamConfigOver(StreamConfig{}, text, "large.yaml");
  EXPECT_EQ(c.name, "large");
  EXPECT_EQ(c.rows, 8);
  EXPECT_EQ(c.kernelTileCount(), 128);
  EXPECT_EQ(c.auxTileCount(), 64);
  EXPECT_EQ(c.outputBusSets(7), 16 + 8 + 4);
  EXPECT_EQ(c.primaryOutputSets, 2);
  EXPECT_EQ(c.weightStorePairs, 256);
  EXPECT_EQ(c.maxArrayWidthPositions, 4096);
  EXPECT_DOUBLE_EQ(c.clockMhz, 300.0);
  EXPECT_EQ(parseStreamConfig(toYaml(c), "large.yaml"), c);
}

TEST(StreamPresets, EmbeddedCopiesMatchTheSourceFiles) {
  // The binary's presets are compiled from configs/stream/*.yaml; each file lists every key, so
  // parsing it over any base gives the same config.
  StreamConfig odd;
  odd.rows = 7;
  odd.kernelTilesPerRow = {3, {{"5", 1}}};
  odd.auxTilesPerRow = {0, {{"6", 9}}};
  odd.multiplierForm = MultiplierForm::SignedDigit;
  odd.localMultipliers = true;
  odd.chips = 3;
  odd.energy.auxOpPj = 99;
  for (const std::string& name : streamPresetNames()) {
    SCOPED_TRACE(name);
    const std::string text = sourceFile("configs/stream/" + name + ".yaml");
    ASSERT_FALSE(text.empty());
    EXPECT_EQ(parseStreamConfigOver(odd, text, name + ".yaml"), streamPreset(name));
    EXPECT_EQ(parseStreamConfigOver(StreamConfig{}, text, name + ".yaml"), streamPreset(name));
  }
}

TEST(StreamPresets, InCodeDefaultsAreFig44) {
  EXPECT_NO_THROW(validate(StreamConfig{}));
  EXPECT_EQ(StreamConfig{}, fig44Defaults());
}

// --- YAML output --------------------------------------------------------------------------------

TEST(StreamConfigYaml, ToYamlUsesTheNestedLayout) {
  const std::string yaml = toYaml(streamPreset("fig44"));
  EXPECT_EQ(yaml.rfind("# nnaccel stream", 0), 0u) << yaml;
  for (const char* text :
       {"\nname: fig44\ndescription: \"Fig. 44 example: 4 rows of 6 3x3 kernel tiles (16x16 "
        "lanes), 2 aux tiles per row\"\nclock_mhz: 150\n",
        "\nkernel_tiles:\n  rows: 4\n  tiles_per_row: 6\n  row_overrides: {}\n  kernel_size: 3\n"
        "  lanes: 16\n  weight_store_pairs: 64\n  max_array_width: 1920\n"
        "  aux_fifo_positions: 16\n",
        "\naux_tiles:\n  tiles_per_row: 2\n  row_overrides: {}\n  fifo_positions: 15360\n"
        "  lut_entries: 256\n  max_patch: 3\n",
        "\nexternal:\n  input_sets: 1\n  sets_per_row: 3\n  primary_output_sets: 1\n",
        "\nbus:\n  partial_sum_bits: 32\n  activation_bits: 8\n",
        "\nnumerics:\n  data_type: int8\n  weight_bits: 8\n  bias_bits: 32\n"
        "  accumulator_bits: 32\n",
        "\nmass_multiplier:\n  form: shared_pairs\n  local_multipliers: false\n  pipeline_stages: "
        "3\n",
        "\nlatency:\n  adder_tree_cycles: 2\n  summation_cell_cycles: 1\n  unit_adder_cycles: 1\n"
        "  aux_adder_cycles: 1\n  lut_cycles: 1\n  patch_cycles: 1\n  bus_hop_cycles: 1\n",
        "\nchips:\n  count: 1\n  link_latency_cycles: 16\n",
        "\ntechnology:\n  node: \"28nm\"\n  vdd_v: auto\n",
        "\nenergy:\n  cell_select_add_pj: auto\n  mass_multiplier_add_pj: auto\n"
        "  weight_load_pj: auto\n  fifo_value_pj: auto\n  unit_add_pj: auto\n"
        "  aux_fifo_value_pj: auto\n  lut_lookup_pj: auto\n  aux_op_pj: auto\n"
        "  aux_multiply_pj: auto\n  bus_set_transfer_pj: auto\n  bus_partial_set_transfer_pj: "
        "auto\n"
        "  chip_link_set_pj: auto\n  chip_link_partial_set_pj: auto\n"}) {
    EXPECT_NE(yaml.find(text), std::string::npos) << text << "\n" << yaml;
  }
}

TEST(StreamConfigYaml, EveryMultiplierFormRoundTrips) {
  const std::pair<MultiplierForm, const char*> forms[] = {
      {MultiplierForm::ShiftedTerms, "shifted_terms"},
      {MultiplierForm::SignedDigit, "signed_digit"},
      {MultiplierForm::SharedPairs, "shared_pairs"},
      {MultiplierForm::SharedQuads, "shared_quads"}};
  for (const auto& [form, spelling] : forms) {
    StreamConfig c = streamPreset("fig44");
    c.multiplierForm = form;
    const std::string yaml = toYaml(c);
    EXPECT_NE(yaml.find(std::string("\n  form: ") + spelling + "\n"), std::string::npos) << yaml;
    EXPECT_EQ(parseStreamConfig(yaml, "f.yaml"), c) << yaml;
    EXPECT_EQ(parseStreamConfig(std::string("mass_multiplier: {form: ") + spelling + "}\n", "f")
                  .multiplierForm,
              form);
  }
}

TEST(StreamConfigYaml, LocalMultipliersRoundTrip) {
  // Claim 17: local dual-input multipliers instead of the mass multipliers.
  StreamConfig c = streamPreset("fig44");
  c.localMultipliers = true;
  const std::string yaml = toYaml(c);
  EXPECT_NE(yaml.find("\n  local_multipliers: true\n"), std::string::npos) << yaml;
  EXPECT_EQ(parseStreamConfig(yaml, "l.yaml"), c);
}

TEST(StreamConfigYaml, ModifiedConfigRoundTripsExactly) {
  StreamConfig c = streamPreset("fig44");
  c.name = "my asic: v2";
  c.description = "yes";
  c.clockMhz = 0.1 + 0.2; // not the shortest decimal of 0.3
  c.rows = 5;
  c.kernelTilesPerRow = {6, {{"4", 2}, {"0", 9}}};
  c.auxTilesPerRow = {0, {{"2", 1}}};
  c.externalSetsPerRow = 0;
  c.chips = 4;
  c.energy.fifoValuePj = 123456.789012345;
  c.energy.auxOpPj = 0;
  const std::string yaml = toYaml(c);
  EXPECT_EQ(parseStreamConfig(yaml, "r.yaml"), c) << yaml;
  EXPECT_EQ(toYaml(parseStreamConfig(yaml, "r.yaml")), yaml);
}

// --- per-row counts ----------------------------------------------------------------------------

TEST(StreamConfigRows, OverridesChangeSingleRows) {
  const StreamConfig c = parseStreamConfig(R"(kernel_tiles:
  rows: 4
  tiles_per_row: 6
  row_overrides: {3: 4, 1: 5}
aux_tiles:
  tiles_per_row: 1
  row_overrides: {0: 0}
)",
                                           "rows.yaml");
  EXPECT_EQ(c.kernelTilesPerRow.rowOverrides, (RowOverrides{{"3", 4}, {"1", 5}}));
  EXPECT_EQ(
      (std::vector<int64_t>{c.tilesInRow(0), c.tilesInRow(1), c.tilesInRow(2), c.tilesInRow(3)}),
      (std::vector<int64_t>{6, 5, 6, 4}));
  EXPECT_EQ(c.kernelTileCount(), 21);
  EXPECT_EQ((std::vector<int64_t>{c.auxTilesInRow(0), c.auxTilesInRow(1), c.auxTilesInRow(2),
                                  c.auxTilesInRow(3)}),
            (std::vector<int64_t>{0, 1, 1, 1}));
  EXPECT_EQ(c.auxTileCount(), 3);
  // Bus sets follow the row's own counts (+3 external sets each).
  EXPECT_EQ(c.outputBusSets(0), 6 + 0 + 3);
  EXPECT_EQ(c.outputBusSets(1), 5 + 1 + 3);
  EXPECT_EQ(c.outputBusSets(3), 4 + 1 + 3);
  EXPECT_EQ(c.rowMuxChoices(0), 1 + 9);
  EXPECT_EQ(c.rowMuxChoices(2), 9 + 10);
  EXPECT_EQ(c.primaryOutputChoices(), 8);
  EXPECT_EQ(c.macsPerCycle(), 21 * 9 * 256);
  // Printed in file order with the row names quoted, and read back.
  const std::string yaml = toYaml(c);
  EXPECT_NE(yaml.find("\n  tiles_per_row: 6\n  row_overrides:\n    \"3\": 4\n    \"1\": 5\n"),
            std::string::npos)
      << yaml;
  EXPECT_EQ(parseStreamConfig(yaml, "again.yaml"), c);
}

TEST(StreamConfigRows, MoreRowsAndChips) {
  const StreamConfig c =
      parseStreamConfig("kernel_tiles: {rows: 3, tiles_per_row: 1}\naux_tiles: {tiles_per_row: "
                        "0}\nexternal: {sets_per_row: 0}\nchips: {count: 2}\n",
                        "min.yaml");
  // The smallest claim-1 ASIC: three rows of one tile, no aux tiles, no external sets.
  EXPECT_EQ(c.kernelTileCount(), 3);
  EXPECT_EQ(c.auxTileCount(), 0);
  EXPECT_EQ(c.outputBusSets(2), 1);
  EXPECT_EQ(c.rowMuxChoices(0), 2);
  EXPECT_EQ(c.primaryOutputChoices(), 1);
  EXPECT_EQ(c.macsPerCycle(), 2 * 3 * 9 * 256); // both chips
  const StreamConfig wide = parseStreamConfig("kernel_tiles: {rows: 9}\n", "wide.yaml");
  EXPECT_EQ(wide.kernelTileCount(), 54);
  EXPECT_EQ(wide.tilesInRow(8), 6);
}

TEST(StreamConfigRows, PresentMapReplacesAbsentOrEmptyKeeps) {
  StreamConfig base = streamPreset("fig44");
  base.kernelTilesPerRow.rowOverrides = {{"2", 1}};
  EXPECT_EQ(parseStreamConfigOver(base, "kernel_tiles: {row_overrides: {0: 3}}\n", "o.yaml")
                .kernelTilesPerRow.rowOverrides,
            (RowOverrides{{"0", 3}}));
  EXPECT_TRUE(parseStreamConfigOver(base, "kernel_tiles: {row_overrides: {}}\n", "o.yaml")
                  .kernelTilesPerRow.rowOverrides.empty());
  EXPECT_EQ(
      parseStreamConfigOver(base, "kernel_tiles: {tiles_per_row: 2}\n", "o.yaml").kernelTilesPerRow,
      (PerRowCount{2, {{"2", 1}}}));
}

TEST(StreamConfigRows, OverridesMustNameExistingRows) {
  EXPECT_EQ(expectConfigError("kernel_tiles: {row_overrides: {4: 2}}\n",
                              "asic.yaml: 'kernel_tiles.row_overrides.4': no such row "
                              "(kernel_tiles.rows is 4: rows 0 to 3)"),
            "kernel_tiles.row_overrides.4");
  EXPECT_EQ(expectConfigError("aux_tiles: {row_overrides: {last: 2}}\n",
                              "asic.yaml: 'aux_tiles.row_overrides.last': no such row "
                              "(kernel_tiles.rows is 4: rows 0 to 3)"),
            "aux_tiles.row_overrides.last");
  // Only the plain decimal index: no sign, no leading zero.
  expectConfigError("kernel_tiles: {row_overrides: {-1: 2}}\n",
                    "asic.yaml: 'kernel_tiles.row_overrides.-1': no such row (kernel_tiles.rows "
                    "is 4: rows 0 to 3)");
  expectConfigError("kernel_tiles: {row_overrides: {\"03\": 2}}\n",
                    "asic.yaml: 'kernel_tiles.row_overrides.03': no such row (kernel_tiles.rows "
                    "is 4: rows 0 to 3)");
  // Fewer rows than a base's overrides name.
  expectConfigError("kernel_tiles: {rows: 3, row_overrides: {3: 1}}\n",
                    "asic.yaml: 'kernel_tiles.row_overrides.3': no such row (kernel_tiles.rows "
                    "is 3: rows 0 to 2)");
  EXPECT_NO_THROW(parseStreamConfig("kernel_tiles: {rows: 3, row_overrides: {2: 1}}\n", "ok"));
}

TEST(StreamConfigRows, OverrideValuesAreRangeChecked) {
  EXPECT_EQ(expectConfigError("kernel_tiles: {row_overrides: {1: 0}}\n",
                              "asic.yaml: 'kernel_tiles.row_overrides.1': must be >= 1 (got 0)"),
            "kernel_tiles.row_overrides.1");
  expectConfigError("aux_tiles: {row_overrides: {1: -1}}\n",
                    "asic.yaml: 'aux_tiles.row_overrides.1': must be >= 0 (got -1)");
  expectConfigError("kernel_tiles: {row_overrides: {1: 1025}}\n",
                    "asic.yaml: 'kernel_tiles.row_overrides.1': must be <= 1024 (got 1025)");
  expectConfigError("kernel_tiles:\n  row_overrides:\n    1: 2\n    1: 3\n",
                    "asic.yaml: 'kernel_tiles.row_overrides.1': written twice (lines 3 and 4)");
  expectConfigError("kernel_tiles: {row_overrides: [6, 6, 6, 6]}\n",
                    "asic.yaml: 'kernel_tiles.row_overrides': expected a mapping of names to "
                    "integers, got a sequence");
  expectConfigError("kernel_tiles: {tiles_per_row: [6, 6, 6, 6]}\n",
                    "asic.yaml: 'kernel_tiles.tiles_per_row': expected an integer, got a "
                    "sequence");
}

TEST(StreamConfigRows, ValidateChecksOverridesBuiltInCode) {
  StreamConfig c = streamPreset("fig44");
  c.kernelTilesPerRow.rowOverrides = {{"1", 2}, {"1", 3}};
  EXPECT_EQ(expectInvalid(c, "mem.yaml: 'kernel_tiles.row_overrides.1': listed twice"),
            "kernel_tiles.row_overrides.1");
  c.kernelTilesPerRow.rowOverrides = {{"", 2}};
  expectInvalid(c, "mem.yaml: 'kernel_tiles.row_overrides': an entry's name must not be empty");
  c.kernelTilesPerRow.rowOverrides = {{"9", 2}};
  expectInvalid(c, "mem.yaml: 'kernel_tiles.row_overrides.9': no such row (kernel_tiles.rows is "
                   "4: rows 0 to 3)");
  c.kernelTilesPerRow.rowOverrides = {};
  c.auxTilesPerRow.rowOverrides = {{"0", -2}};
  expectInvalid(c, "mem.yaml: 'aux_tiles.row_overrides.0': must be >= 0 (got -2)");
}

// --- partial files and defaults -----------------------------------------------------------------

TEST(StreamConfigParse, PartialFileKeepsFig44Defaults) {
  const StreamConfig c = parseStreamConfig(
      "kernel_tiles:\n  rows: 6\nmass_multiplier: {local_multipliers: true}\nenergy:\n  aux_op_pj: "
      "0.5\n",
      "partial.yaml");
  StreamConfig expected = fig44Defaults();
  expected.rows = 6;
  expected.localMultipliers = true;
  expected.energy.auxOpPj = 0.5;
  EXPECT_EQ(c, expected);
}

TEST(StreamConfigParse, EmptyFileAndEmptySectionKeepDefaults) {
  EXPECT_EQ(parseStreamConfig("", "empty.yaml"), fig44Defaults());
  EXPECT_EQ(parseStreamConfig("# only a comment\n", "c.yaml"), fig44Defaults());
  EXPECT_EQ(parseStreamConfig("kernel_tiles:\nenergy: {}\nlatency: {}\n", "e.yaml"),
            fig44Defaults());
}

TEST(StreamConfigParse, OverABaseKeepsTheBase) {
  StreamConfig base = streamPreset("fig44");
  base.rows = 5;
  base.chips = 2;
  const StreamConfig c = parseStreamConfigOver(base, "chips: {count: 3}\n", "o.yaml");
  StreamConfig expected = base;
  expected.chips = 3;
  EXPECT_EQ(c, expected);
}

TEST(StreamConfigParse, EveryKeyIsRead) {
  const StreamConfig c = parseStreamConfig(R"(name: mine
description: two chips
clock_mhz: 250.5
kernel_tiles: {rows: 5, tiles_per_row: 7, row_overrides: {4: 2}, kernel_size: 3, lanes: 12,
               weight_store_pairs: 9, max_array_width: 640, aux_fifo_positions: 0}
aux_tiles: {tiles_per_row: 3, row_overrides: {0: 1}, fifo_positions: 100, lut_entries: 1024,
            max_patch: 4}
external: {input_sets: 2, sets_per_row: 5, primary_output_sets: 4}
bus: {partial_sum_bits: 24, activation_bits: 10}
numerics: {data_type: int8, weight_bits: 6, bias_bits: 20, accumulator_bits: 40}
mass_multiplier: {form: signed_digit, local_multipliers: yes, pipeline_stages: 0}
latency: {adder_tree_cycles: 3, summation_cell_cycles: 4, unit_adder_cycles: 5,
          aux_adder_cycles: 6, lut_cycles: 7, patch_cycles: 8, bus_hop_cycles: 0}
chips: {count: 2, link_latency_cycles: 33}
technology: {node: 7nm, vdd_v: 0.8}
energy: {cell_select_add_pj: 1, mass_multiplier_add_pj: 2, fifo_value_pj: 3, lut_lookup_pj: 4,
         bus_set_transfer_pj: 5, aux_op_pj: 6, aux_multiply_pj: 7, chip_link_set_pj: 0,
         weight_load_pj: 8, unit_add_pj: 9, aux_fifo_value_pj: 10}
)",
                                           "all.yaml");
  EXPECT_EQ(c.name, "mine");
  EXPECT_EQ(c.description, "two chips");
  EXPECT_DOUBLE_EQ(c.clockMhz, 250.5);
  EXPECT_EQ(c.rows, 5);
  EXPECT_EQ(c.kernelTilesPerRow, (PerRowCount{7, {{"4", 2}}}));
  EXPECT_EQ(c.kernelSize, 3);
  EXPECT_EQ(c.lanes, 12);
  EXPECT_EQ(c.weightStorePairs, 9);
  EXPECT_EQ(c.maxArrayWidthPositions, 640);
  EXPECT_EQ(c.auxFifoPositions, 0);
  EXPECT_EQ(c.auxTilesPerRow, (PerRowCount{3, {{"0", 1}}}));
  EXPECT_EQ(c.auxTileFifoPositions, 100);
  EXPECT_EQ(c.lutEntries, 1024);
  EXPECT_EQ(c.maxPatch, 4);
  EXPECT_EQ(c.inputBusSets, 2);
  EXPECT_EQ(c.externalSetsPerRow, 5);
  EXPECT_EQ(c.primaryOutputSets, 4);
  EXPECT_EQ(c.partialSumBits, 24);
  EXPECT_EQ(c.activationBits, 10);
  EXPECT_EQ(c.dataType, DataType::Int8);
  EXPECT_EQ(c.weightBits, 6);
  EXPECT_EQ(c.biasBits, 20);
  EXPECT_EQ(c.accumulatorBits, 40);
  EXPECT_EQ(c.multiplierForm, MultiplierForm::SignedDigit);
  EXPECT_TRUE(c.localMultipliers);
  EXPECT_EQ(c.multiplierPipelineStages, 0);
  EXPECT_EQ((std::vector<int64_t>{c.adderTreeCycles, c.summationCellCycles, c.unitAdderCycles,
                                  c.auxAdderCycles, c.lutCycles, c.patchCycles, c.busHopCycles}),
            (std::vector<int64_t>{3, 4, 5, 6, 7, 8, 0}));
  EXPECT_EQ(c.chips, 2);
  EXPECT_EQ(c.chipLinkLatencyCycles, 33);
  EXPECT_EQ(c.technology.node, "7nm");
  EXPECT_EQ(c.technology.vddV, 0.8);
  const EnergyTable& e = c.energy;
  EXPECT_EQ((std::vector<std::optional<double>>{
                e.cellSelectAddPj, e.massMultiplierAddPj, e.fifoValuePj, e.lutLookupPj, e.auxOpPj,
                e.auxMultiplyPj, e.weightLoadPj, e.unitAddPj, e.auxFifoValuePj}),
            (std::vector<std::optional<double>>{1, 2, 3, 4, 6, 7, 8, 9, 10}));
  EXPECT_EQ(e.busSetTransferPj, 5);
  EXPECT_EQ(e.chipLinkSetPj, 0);
  // The accessors over these values.
  EXPECT_EQ(c.kernelTileCount(), 4 * 7 + 2);
  EXPECT_EQ(c.auxTileCount(), 1 + 4 * 3);
  EXPECT_EQ(c.outputBusSets(0), 7 + 1 + 5);
  EXPECT_EQ(c.outputBusSets(4), 2 + 3 + 5);
  EXPECT_EQ(c.rowMuxChoices(0), 2 + 13);
  EXPECT_EQ(c.primaryOutputChoices(), 10);
  EXPECT_EQ(c.macsPerCycle(), 2 * 30 * 9 * 12 * 12);
  EXPECT_EQ(c.multiplesPerMassMultiplier(), 64);
  EXPECT_EQ(c.kernelTileLatencyCycles(), 0 + 3 + 4 + 5);
  EXPECT_EQ(c.auxTileLatencyCycles(), 6 + 7 + 8);
}

// --- rejections ---------------------------------------------------------------------------------

TEST(StreamConfigErrors, UnknownKeysAreNamedWithTheirPath) {
  EXPECT_EQ(expectConfigError("kernel_tiles:\n  columns: 5\n",
                              "asic.yaml: 'kernel_tiles.columns': unknown key (expected one of: "
                              "rows, tiles_per_row, row_overrides, kernel_size, lanes, "
                              "weight_store_pairs, max_array_width, aux_fifo_positions)"),
            "kernel_tiles.columns");
  expectConfigError("tiles:\n  rows: 5\n",
                    "asic.yaml: 'tiles': unknown key (expected one of: name, description, "
                    "clock_mhz, technology, kernel_tiles, aux_tiles, external, bus, numerics, "
                    "mass_multiplier, latency, chips, baseline, energy)");
  expectConfigError("baseline: {dram: ddr9}\n",
                    "asic.yaml: 'baseline.dram': unknown DRAM standard 'ddr9' (expected one of: "
                    "ddr4-2400, ddr4-3200, lpddr4-3200, lpddr5-6400, hbm2)");
  expectConfigError("baseline: {dram_channels: 0}\n",
                    "asic.yaml: 'baseline.dram_channels': must be >= 1 (got 0)");
  expectConfigError("aux_tiles: {lut: 2}\n",
                    "asic.yaml: 'aux_tiles.lut': unknown key (expected one of: tiles_per_row, "
                    "row_overrides, fifo_positions, lut_entries, max_patch)");
  expectConfigError("external: {sets: 2}\n",
                    "asic.yaml: 'external.sets': unknown key (expected one of: input_sets, "
                    "sets_per_row, primary_output_sets)");
  expectConfigError("bus: {width: 2}\n", "asic.yaml: 'bus.width': unknown key (expected one of: "
                                         "partial_sum_bits, activation_bits)");
  expectConfigError("numerics: {dtype: int8}\n",
                    "asic.yaml: 'numerics.dtype': unknown key (expected one of: data_type, "
                    "weight_bits, bias_bits, accumulator_bits)");
  expectConfigError("mass_multiplier: {stages: 2}\n",
                    "asic.yaml: 'mass_multiplier.stages': unknown key (expected one of: form, "
                    "local_multipliers, pipeline_stages)");
  expectConfigError("latency: {fifo_cycles: 2}\n",
                    "asic.yaml: 'latency.fifo_cycles': unknown key (expected one of: "
                    "adder_tree_cycles, summation_cell_cycles, unit_adder_cycles, "
                    "aux_adder_cycles, lut_cycles, patch_cycles, bus_hop_cycles)");
  expectConfigError("chips: {links: 2}\n", "asic.yaml: 'chips.links': unknown key (expected one "
                                           "of: count, link_latency_cycles)");
  expectConfigError("energy:\n  mac_pj: 1\n",
                    "asic.yaml: 'energy.mac_pj': unknown key (expected one of: "
                    "cell_select_add_pj, mass_multiplier_add_pj, weight_load_pj, fifo_value_pj, "
                    "unit_add_pj, aux_fifo_value_pj, lut_lookup_pj, aux_op_pj, aux_multiply_pj, "
                    "bus_set_transfer_pj, bus_partial_set_transfer_pj, chip_link_set_pj, "
                    "chip_link_partial_set_pj)");
  expectConfigError("kernel_tiles: {rows: 4, rows: 5}\n",
                    "asic.yaml: 'kernel_tiles.rows': written twice (lines 1 and 1)");
}

TEST(StreamConfigErrors, WrongTypes) {
  EXPECT_EQ(expectConfigError("kernel_tiles:\n  rows: many\n",
                              "asic.yaml: 'kernel_tiles.rows': expected an integer, got 'many'"),
            "kernel_tiles.rows");
  expectConfigError("kernel_tiles:\n  lanes: \"16\"\n",
                    "asic.yaml: 'kernel_tiles.lanes': expected an integer, got the string "
                    "\"16\"");
  expectConfigError("chips:\n  count: 1.5\n",
                    "asic.yaml: 'chips.count': expected an integer, got '1.5'");
  expectConfigError("mass_multiplier:\n  local_multipliers: maybe\n",
                    "asic.yaml: 'mass_multiplier.local_multipliers': expected true or false, got "
                    "'maybe'");
  expectConfigError("energy:\n  aux_op_pj: cheap\n",
                    "asic.yaml: 'energy.aux_op_pj': expected a number or auto, got 'cheap'");
  expectConfigError("energy:\n  chip_link_set_pj: fast\n",
                    "asic.yaml: 'energy.chip_link_set_pj': expected a number or auto, got 'fast'");
  expectConfigError("technology:\n  node: 3nm\n",
                    "asic.yaml: 'technology.node': unknown process node '3nm' (known: "
                    "180nm, 130nm, 90nm, 65nm, 45nm, 32nm, 28nm, 20nm, 16nm, 14nm, 10nm, 7nm)");
  expectConfigError("bus: 32\n", "asic.yaml: 'bus': expected a mapping, got '32'");
  expectConfigError("name: \"\"\n", "asic.yaml: 'name': must not be empty");
  expectConfigError("description: [a, b]\n",
                    "asic.yaml: 'description': expected a string, got a sequence");
}

TEST(StreamConfigErrors, WrongEnums) {
  EXPECT_EQ(expectConfigError("mass_multiplier:\n  form: booth\n",
                              "asic.yaml: 'mass_multiplier.form': expected one of shifted_terms, "
                              "signed_digit, shared_pairs, shared_quads, got 'booth'"),
            "mass_multiplier.form");
  expectConfigError("numerics:\n  data_type: int4\n",
                    "asic.yaml: 'numerics.data_type': expected one of int8, got 'int4'");
}

TEST(StreamConfigErrors, Fp16AndBf16AreNotModelledYet) {
  EXPECT_EQ(expectConfigError("numerics:\n  data_type: fp16\n",
                              "asic.yaml: 'numerics.data_type': fp16 is not modelled by this "
                              "engine yet (supported: int8)"),
            "numerics.data_type");
  expectConfigError("numerics: {data_type: bf16}\n",
                    "asic.yaml: 'numerics.data_type': bf16 is not modelled by this engine yet "
                    "(supported: int8)");
}

TEST(StreamConfigErrors, OnlyThe3x3KernelIsModelled) {
  // Claim 10's 3x3 tiles; larger kernels are composed of them (claims 14/15, digest §8.5).
  for (const int64_t size : {1, 2, 4, 5, 7, 64}) {
    const std::string text = std::to_string(size);
    EXPECT_EQ(expectConfigError("kernel_tiles: {kernel_size: " + text + "}\n",
                                "asic.yaml: 'kernel_tiles.kernel_size': " + text +
                                    " is not modelled by this engine yet (supported: 3)"),
              "kernel_tiles.kernel_size");
  }
  expectConfigError("kernel_tiles: {kernel_size: 0}\n",
                    "asic.yaml: 'kernel_tiles.kernel_size': must be >= 1 (got 0)");
  expectConfigError("kernel_tiles: {kernel_size: 65}\n",
                    "asic.yaml: 'kernel_tiles.kernel_size': must be <= 64 (got 65)");
}

TEST(StreamConfigErrors, ClaimOneNeedsThreeRows) {
  EXPECT_EQ(expectConfigError("kernel_tiles: {rows: 2}\n",
                              "asic.yaml: 'kernel_tiles.rows': must be >= 3 (got 2)"),
            "kernel_tiles.rows");
  expectConfigError("kernel_tiles: {rows: 0}\n",
                    "asic.yaml: 'kernel_tiles.rows': must be >= 3 (got 0)");
  EXPECT_EQ(parseStreamConfig("kernel_tiles: {rows: 3}\n", "ok").rows, 3);
}

TEST(StreamConfigErrors, IntegerRanges) {
  const std::pair<const char*, const char*> cases[] = {
      {"kernel_tiles: {rows: 1025}", "'kernel_tiles.rows': must be <= 1024 (got 1025)"},
      {"kernel_tiles: {tiles_per_row: 0}", "'kernel_tiles.tiles_per_row': must be >= 1 (got 0)"},
      {"kernel_tiles: {tiles_per_row: 1025}",
       "'kernel_tiles.tiles_per_row': must be <= 1024 (got 1025)"},
      {"kernel_tiles: {lanes: 0}", "'kernel_tiles.lanes': must be >= 1 (got 0)"},
      {"kernel_tiles: {lanes: 257}", "'kernel_tiles.lanes': must be <= 256 (got 257)"},
      {"kernel_tiles: {weight_store_pairs: 0}",
       "'kernel_tiles.weight_store_pairs': must be >= 1 (got 0)"},
      {"kernel_tiles: {max_array_width: 0}",
       "'kernel_tiles.max_array_width': must be >= 1 (got 0)"},
      {"kernel_tiles: {max_array_width: 1048577}",
       "'kernel_tiles.max_array_width': must be <= 1048576 (got 1048577)"},
      {"kernel_tiles: {aux_fifo_positions: -1}",
       "'kernel_tiles.aux_fifo_positions': must be >= 0 (got -1)"},
      {"aux_tiles: {tiles_per_row: -1}", "'aux_tiles.tiles_per_row': must be >= 0 (got -1)"},
      {"aux_tiles: {fifo_positions: -1}", "'aux_tiles.fifo_positions': must be >= 0 (got -1)"},
      {"aux_tiles: {fifo_positions: 1073741825}",
       "'aux_tiles.fifo_positions': must be <= 1073741824 (got 1073741825)"},
      {"aux_tiles: {lut_entries: 1}", "'aux_tiles.lut_entries': must be >= 2 (got 1)"},
      {"aux_tiles: {lut_entries: 65537}", "'aux_tiles.lut_entries': must be <= 65536 (got 65537)"},
      {"aux_tiles: {max_patch: 0}", "'aux_tiles.max_patch': must be >= 1 (got 0)"},
      {"external: {input_sets: 0}", "'external.input_sets': must be >= 1 (got 0)"},
      {"external: {sets_per_row: -1}", "'external.sets_per_row': must be >= 0 (got -1)"},
      {"external: {sets_per_row: 65}", "'external.sets_per_row': must be <= 64 (got 65)"},
      {"external: {primary_output_sets: 0}",
       "'external.primary_output_sets': must be >= 1 (got 0)"},
      {"bus: {partial_sum_bits: 0}", "'bus.partial_sum_bits': must be >= 1 (got 0)"},
      {"bus: {partial_sum_bits: 65}", "'bus.partial_sum_bits': must be <= 64 (got 65)"},
      {"bus: {activation_bits: 0}", "'bus.activation_bits': must be >= 1 (got 0)"},
      {"bus: {activation_bits: 17}", "'bus.activation_bits': must be <= 16 (got 17)"},
      {"numerics: {weight_bits: 0}", "'numerics.weight_bits': must be >= 1 (got 0)"},
      {"numerics: {weight_bits: 17}", "'numerics.weight_bits': must be <= 16 (got 17)"},
      {"numerics: {bias_bits: 0}", "'numerics.bias_bits': must be >= 1 (got 0)"},
      {"numerics: {accumulator_bits: 65}", "'numerics.accumulator_bits': must be <= 64 (got 65)"},
      {"mass_multiplier: {pipeline_stages: -1}",
       "'mass_multiplier.pipeline_stages': must be >= 0 (got -1)"},
      {"latency: {adder_tree_cycles: -1}", "'latency.adder_tree_cycles': must be >= 0 (got -1)"},
      {"latency: {summation_cell_cycles: -1}",
       "'latency.summation_cell_cycles': must be >= 0 (got -1)"},
      {"latency: {unit_adder_cycles: -1}", "'latency.unit_adder_cycles': must be >= 0 (got -1)"},
      {"latency: {aux_adder_cycles: -1}", "'latency.aux_adder_cycles': must be >= 0 (got -1)"},
      {"latency: {lut_cycles: -1}", "'latency.lut_cycles': must be >= 0 (got -1)"},
      {"latency: {patch_cycles: -1}", "'latency.patch_cycles': must be >= 0 (got -1)"},
      {"latency: {bus_hop_cycles: 1025}", "'latency.bus_hop_cycles': must be <= 1024 (got 1025)"},
      {"chips: {count: 0}", "'chips.count': must be >= 1 (got 0)"},
      {"chips: {link_latency_cycles: -1}", "'chips.link_latency_cycles': must be >= 0 (got -1)"},
  };
  for (const auto& [yaml, message] : cases) {
    expectConfigError(std::string(yaml) + "\n", std::string("asic.yaml: ") + message);
  }
}

TEST(StreamConfigErrors, RealRanges) {
  expectConfigError("clock_mhz: 0\n", "asic.yaml: 'clock_mhz': must be >= 0.001 (got 0)");
  expectConfigError("clock_mhz: -150\n", "asic.yaml: 'clock_mhz': must be >= 0.001 (got -150)");
  expectConfigError("clock_mhz: .nan\n", "asic.yaml: 'clock_mhz': must be finite (got nan)");
  expectConfigError("energy: {fifo_value_pj: -0.5}\n",
                    "asic.yaml: 'energy.fifo_value_pj': must be >= 0 (got -0.5)");
  expectConfigError("energy: {chip_link_set_pj: .inf}\n",
                    "asic.yaml: 'energy.chip_link_set_pj': must be finite (got inf)");
}

TEST(StreamConfigErrors, ArrayWidthHoldsAKernelRow) {
  EXPECT_EQ(expectConfigError("kernel_tiles: {max_array_width: 2}\n",
                              "asic.yaml: 'kernel_tiles.max_array_width': 2 is narrower than "
                              "kernel_tiles.kernel_size (3)"),
            "kernel_tiles.max_array_width");
  EXPECT_EQ(parseStreamConfig("kernel_tiles: {max_array_width: 3}\n", "ok").maxArrayWidthPositions,
            3);
}

TEST(StreamConfigErrors, AccumulatorHoldsAProduct) {
  EXPECT_EQ(expectConfigError("numerics: {accumulator_bits: 15}\nbus: {partial_sum_bits: 8}\n",
                              "asic.yaml: 'numerics.accumulator_bits': 15 cannot hold one "
                              "product of numerics.weight_bits (8) x bus.activation_bits (8): "
                              "must be >= 16"),
            "numerics.accumulator_bits");
  EXPECT_NO_THROW(parseStreamConfig(
      "numerics: {accumulator_bits: 16, bias_bits: 16}\nbus: {partial_sum_bits: 16}\n", "ok"));
}

TEST(StreamConfigErrors, BiasFitsTheAccumulator) {
  EXPECT_EQ(expectConfigError("numerics: {bias_bits: 33}\n",
                              "asic.yaml: 'numerics.bias_bits': 33 exceeds "
                              "numerics.accumulator_bits (32): the bias is added into the "
                              "accumulator"),
            "numerics.bias_bits");
}

TEST(StreamConfigErrors, PartialSumsBetweenActivationsAndAccumulator) {
  EXPECT_EQ(expectConfigError("bus: {partial_sum_bits: 7}\n",
                              "asic.yaml: 'bus.partial_sum_bits': 7 is outside "
                              "bus.activation_bits (8) to numerics.accumulator_bits (32): a bus "
                              "lane carries activations or accumulator partial sums"),
            "bus.partial_sum_bits");
  expectConfigError("bus: {partial_sum_bits: 33}\n",
                    "asic.yaml: 'bus.partial_sum_bits': 33 is outside bus.activation_bits (8) to "
                    "numerics.accumulator_bits (32): a bus lane carries activations or "
                    "accumulator partial sums");
  EXPECT_EQ(parseStreamConfig("bus: {partial_sum_bits: 8}\n", "ok").partialSumBits, 8);
}

TEST(StreamConfigErrors, LookupTableCoversEveryActivation) {
  EXPECT_EQ(expectConfigError("aux_tiles: {lut_entries: 128}\n",
                              "asic.yaml: 'aux_tiles.lut_entries': 128 is not a power of two >= "
                              "256 (2^bus.activation_bits): the table maps every activation "
                              "value"),
            "aux_tiles.lut_entries");
  expectConfigError("aux_tiles: {lut_entries: 300}\n",
                    "asic.yaml: 'aux_tiles.lut_entries': 300 is not a power of two >= 256 "
                    "(2^bus.activation_bits): the table maps every activation value");
  EXPECT_EQ(parseStreamConfig("aux_tiles: {lut_entries: 512}\n", "ok").lutEntries, 512);
  EXPECT_EQ(parseStreamConfig("aux_tiles: {lut_entries: 16}\nbus: {activation_bits: 4}\n", "ok")
                .lutEntries,
            16);
}

TEST(StreamConfigErrors, PrimaryOutputMuxSelectsFromTheLastBus) {
  // fig44's last bus: 6 kernel tiles + 2 aux tiles + 3 external sets.
  EXPECT_EQ(expectConfigError("external: {primary_output_sets: 12}\n",
                              "asic.yaml: 'external.primary_output_sets': 12 exceeds the 11 sets "
                              "of the last row's output bus (kernel tiles, aux tiles and "
                              "external inputs of row 3)"),
            "external.primary_output_sets");
  EXPECT_EQ(parseStreamConfig("external: {primary_output_sets: 11}\n", "ok").primaryOutputSets, 11);
  expectConfigError("kernel_tiles: {row_overrides: {3: 1}}\naux_tiles: {tiles_per_row: 0}\n"
                    "external: {sets_per_row: 0, primary_output_sets: 2}\n",
                    "asic.yaml: 'external.primary_output_sets': 2 exceeds the 1 sets of the last "
                    "row's output bus (kernel tiles, aux tiles and external inputs of row 3)");
}

TEST(StreamConfigValidate, ChecksConfigsBuiltInCode) {
  StreamConfig c = streamPreset("fig44");
  EXPECT_NO_THROW(validate(c));
  c.rows = 2;
  expectInvalid(c, "mem.yaml: 'kernel_tiles.rows': must be >= 3 (got 2)");
  c = streamPreset("fig44");
  c.kernelSize = 5;
  expectInvalid(c, "mem.yaml: 'kernel_tiles.kernel_size': 5 is not modelled by this engine yet "
                   "(supported: 3)");
  c = streamPreset("fig44");
  c.lanes = 0;
  expectInvalid(c, "mem.yaml: 'kernel_tiles.lanes': must be >= 1 (got 0)");
  c = streamPreset("fig44");
  c.multiplierForm = static_cast<MultiplierForm>(9);
  expectInvalid(c, "mem.yaml: 'mass_multiplier.form': holds a value the schema does not list");
  c = streamPreset("fig44");
  c.dataType = static_cast<DataType>(1);
  expectInvalid(c, "mem.yaml: 'numerics.data_type': holds a value the schema does not list");
  c = streamPreset("fig44");
  c.clockMhz = 0;
  expectInvalid(c, "mem.yaml: 'clock_mhz': must be >= 0.001 (got 0)");
  c = streamPreset("fig44");
  c.energy.lutLookupPj = -1;
  expectInvalid(c, "mem.yaml: 'energy.lut_lookup_pj': must be >= 0 (got -1)");
  c = streamPreset("fig44");
  c.description = "";
  expectInvalid(c, "mem.yaml: 'description': must not be empty");
  // The default file name.
  test::expectError([&] { validate(c); }, ErrorKind::Config, "<config>",
                    "<config>: 'description': must not be empty");
}

// --- files --------------------------------------------------------------------------------------

TEST(StreamConfigFile, LoadsAFileAndNamesItInErrors) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / "nnaccel_stream_config_test";
  std::filesystem::create_directories(dir);
  const std::string good = (dir / "mine.yaml").string();
  std::ofstream(good) << "name: mine\nkernel_tiles: {rows: 3, row_overrides: {0: 2}}\n";
  const StreamConfig c = loadStreamConfigFile(good);
  EXPECT_EQ(c.name, "mine");
  EXPECT_EQ(c.description, "a custom stream ASIC");
  EXPECT_EQ(c.rows, 3);
  EXPECT_EQ(c.tilesInRow(0), 2);
  EXPECT_EQ(c.tilesInRow(2), 6); // fig44 default
  EXPECT_EQ(c.kernelTileCount(), 14);

  const std::string bad = (dir / "bad.yaml").string();
  std::ofstream(bad) << "kernel_tiles: {rows: 2}\n";
  EXPECT_EQ(test::expectError([&] { loadStreamConfigFile(bad); }, ErrorKind::Config, bad,
                              bad + ": 'kernel_tiles.rows': must be >= 3 (got 2)"),
            "kernel_tiles.rows");
  const std::string missing = (dir / "missing.yaml").string();
  test::expectError([&] { loadStreamConfigFile(missing); }, ErrorKind::Io, missing,
                    missing + ": cannot open file (No such file or directory)");
  test::expectError([&] { loadStreamConfigFile(dir.string()); }, ErrorKind::Io, dir.string(),
                    dir.string() + ": is a directory, not a config file");
  std::filesystem::remove_all(dir);
}

// --- technology and pricing (config/Pricing.cpp, docs/arch/Stream.md "Energy and area") -------

TEST(StreamTechnology, InventoryCountsEveryTilesParts) {
  const StreamConfig c = streamPreset("fig44");
  const nnaccel::arch::common::Inventory inv = streamInventory(c);
  EXPECT_EQ(inv.node.name, "28nm");
  // 24 kernel tiles x 3 x 3 cells x 16 outputs x 16 input lanes select-adds.
  EXPECT_EQ(inv.part("cell_select").use.count, 24 * 9 * 16 * 16);
  EXPECT_EQ(inv.part("cell_select").use.spec.inputs, 256);
  EXPECT_EQ(inv.part("cell_select").use.spec.widthBits, 16);
  EXPECT_EQ(inv.part("cell_adder").use.spec.widthBits, 20); // 16 products: 4 more bits
  EXPECT_EQ(inv.part("cell_weights").use.count, 24 * 9 * 16);
  // One mass multiplier per input lane of a tile, its adders from the construction's plan.
  const MassMultiplierCost mm = massMultiplierCost(MultiplierForm::SharedPairs, 8, true);
  EXPECT_EQ(inv.part("mass_multiplier_adder").use.count, 24 * 16 * (mm.adders + mm.negators));
  // 64 pairs of 9 x 16 x 16 int8 weights per tile; row FIFOs of 2 x 1920 positions of 16 x 32 b.
  EXPECT_EQ(inv.part("weight_store").use.spec.capacityBytes, 64 * 9 * 256);
  EXPECT_EQ(inv.part("row_fifo").use.spec.capacityBytes, 2 * 1920 * 16 * 4);
  EXPECT_EQ(inv.part("aux_fifo").use.count, 8);
  EXPECT_EQ(inv.part("aux_lut").use.spec.indexBits, 8);
  // Groups sum to the total; a chain of three chips is three times one.
  double groups = 0;
  for (const auto& [group, mm2] : inv.areaMm2ByGroup())
    groups += mm2;
  EXPECT_NEAR(groups, inv.areaMm2(), 1e-9 * inv.areaMm2());
  EXPECT_NEAR(streamInventory(c, 3).areaMm2(), 3 * inv.areaMm2(), 1e-9 * inv.areaMm2());
  EXPECT_NEAR(streamInventory(c, 3).leakageW(), 3 * inv.leakageW(), 1e-9 * inv.leakageW());
}

TEST(StreamTechnology, EventsArePricedFromTheirComponents) {
  const StreamConfig c = streamPreset("fig44");
  const nnaccel::arch::common::Inventory inv = streamInventory(c);
  const EnergyPrices p = energyPrices(c);
  const auto pj = [&](const char* part) { return inv.part(part).cost.readEnergyPj; };
  EXPECT_DOUBLE_EQ(p.cellSelectAddPj, pj("cell_select") + pj("cell_adder"));
  EXPECT_DOUBLE_EQ(p.massMultiplierAddPj,
                   pj("mass_multiplier_adder") + pj("mass_multiplier_register"));
  EXPECT_DOUBLE_EQ(p.fifoValuePj,
                   (pj("row_fifo") + inv.part("row_fifo").cost.writeEnergyPj) / 16); // per lane
  EXPECT_DOUBLE_EQ(p.auxMultiplyPj, pj("aux_multiplier"));
  // A set: 16 x 8 bits along a row of 6 kernel and 2 aux tiles, and one selection of the
  // row's mux (the input bus or the previous row's sets and the row's own).
  EXPECT_DOUBLE_EQ(p.busSetTransferPj, pj("bus_activation_bits") + pj("bus_mux"));
  EXPECT_DOUBLE_EQ(p.busPartialSetTransferPj, pj("bus_wire") + pj("bus_mux"));
  EXPECT_EQ(inv.part("bus_activation_bits").use.spec.widthBits, 128);
  EXPECT_EQ(inv.part("bus_wire").use.spec.widthBits, 16 * 32);   // partial sums: the bus's width
  EXPECT_GT(inv.part("bus_wire").use.spec.lengthUm, 6 * 1000.0); // six tiles over 1 mm each
  EXPECT_EQ(inv.part("bus_mux").use.spec.inputs, c.rowMuxChoices(1));
  // A set across the chip link: 16 x 8 bits (partial sums 16 x 32) at Poulton's 0.54 pJ/bit.
  EXPECT_DOUBLE_EQ(p.chipLinkSetPj, pj("chip_link"));
  EXPECT_NEAR(p.chipLinkSetPj, 128 * 0.54, 1e-9);
  EXPECT_NEAR(p.chipLinkPartialSetPj, 512 * 0.54, 1e-9);
  // A number under energy: overrides an event.
  StreamConfig fixed = c;
  fixed.energy.cellSelectAddPj = 0.25;
  EXPECT_DOUBLE_EQ(energyPrices(fixed).cellSelectAddPj, 0.25);
}

TEST(StreamTechnology, LocalMultipliersReplaceTheSelectorsAndMassMultipliers) {
  StreamConfig c = streamPreset("fig44");
  c.localMultipliers = true;
  c.weightStorePairs = 1;
  const nnaccel::arch::common::Inventory inv = streamInventory(c);
  EXPECT_EQ(inv.find("cell_select"), nullptr);
  EXPECT_EQ(inv.find("mass_multiplier_adder"), nullptr);
  EXPECT_EQ(inv.find("weight_store"), nullptr); // one weight set: the cells' registers
  EXPECT_EQ(inv.part("cell_multiplier").use.spec.widthBits, 8);
  const EnergyPrices p = energyPrices(c);
  EXPECT_DOUBLE_EQ(p.cellSelectAddPj, inv.part("cell_multiplier").cost.readEnergyPj +
                                          inv.part("cell_adder").cost.readEnergyPj);
  EXPECT_EQ(p.massMultiplierAddPj, 0.0); // never happens
  EXPECT_EQ(p.weightLoadPj, 0.0);
  // Claim 17 trades every 256:1 selector for one 8-bit multiplier: far less area.
  EXPECT_LT(inv.areaMm2(), streamInventory(streamPreset("fig44")).areaMm2() / 2);
}

} // namespace
