/// \file
/// Tests of the sparse (SCNN) config: the presets (names, the scnn preset's pinned values, load,
/// round trip through toYaml, the embedded copies equal configs/sparse/*.yaml), every key
/// parsing, partial files keeping the scnn defaults, and every rejection rule (unknown keys,
/// types, enums, each range, each cross-field rule) with its one-line message naming the file
/// and the dotted key.
#include "nnaccel/arch/sparse/Config.h"

#include "../../common/ConfigTestSupport.h"
#include "nnaccel/support/Error.h"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>

namespace {

using namespace nnaccel;
using namespace nnaccel::arch::sparse;

using test::sourceFile;

/// Parses \p yaml as "chip.yaml" expecting a Config error with exactly \p message; returns the
/// error's key for further checks.
std::string expectConfigError(const std::string& yaml, const std::string& message) {
  SCOPED_TRACE(yaml);
  return test::expectError([&] { parseSparseConfig(yaml, "chip.yaml"); }, ErrorKind::Config,
                           "chip.yaml", message);
}

/// validate(c, "mem.yaml") must throw exactly \p message.
void expectInvalid(const SparseConfig& c, const std::string& message) {
  test::expectError([&] { validate(c, "mem.yaml"); }, ErrorKind::Config, "mem.yaml", message);
}

// --- presets ------------------------------------------------------------------------------------

TEST(SparsePresets, Names) {
  EXPECT_EQ(sparsePresetNames(), (std::vector<std::string>{"scnn", "scnn-isca17", "tiny"}));
}

TEST(SparsePresets, ScnnValuesArePinned) {
  const SparseConfig c = sparsePreset("scnn");
  EXPECT_EQ(c.name, "scnn");
  EXPECT_DOUBLE_EQ(c.clockMhz, 1000.0);
  EXPECT_EQ(c.peRows, 8);
  EXPECT_EQ(c.peCols, 8);
  EXPECT_EQ(c.peCount(), 64);
  EXPECT_EQ(c.weightsPerVector, 4);
  EXPECT_EQ(c.activationsPerVector, 4);
  EXPECT_EQ(c.multipliersPerPe(), 16);
  EXPECT_EQ(c.accumulatorBanks, 32);
  EXPECT_EQ(c.accumulatorBankEntries, 32);
  EXPECT_EQ(c.accumulatorEntries(), 1024);
  EXPECT_TRUE(c.doubleBufferedAccumulators);
  EXPECT_TRUE(c.accumulatorForwarding);
  EXPECT_EQ(c.accumulatorWriteLatencyCycles, 1);
  EXPECT_EQ(c.crossbarFifoDepth, 2);
  EXPECT_EQ(c.bankMapping, BankMapping::LowBits);
  EXPECT_EQ(c.crossbarQueues, CrossbarQueues::PerLane);
  EXPECT_EQ(c.crossbarStages, 1);         // Fig. 3C's single stage
  EXPECT_EQ(c.combiningBufferEntries, 0); // no combining buffer
  EXPECT_EQ(c.weightFifoEntries, 50);
  EXPECT_EQ(c.iaRamBytes, 10 * 1024);
  EXPECT_EQ(c.oaRamBytes, 10 * 1024);
  EXPECT_EQ(c.broadcastVectorsPerCycle, 1);
  EXPECT_EQ(c.ppuOpsPerCycle, 1);
  EXPECT_EQ(c.haloLinkLatencyCycles, 2);
  EXPECT_EQ(c.valueBits, 16);
  EXPECT_EQ(c.accumulatorBits, 24);
  EXPECT_EQ(c.indexBits, 4);
  EXPECT_EQ(c.weightCodes, WeightCodeTable::ZeroRunLength);
  EXPECT_EQ(c.activationCodes, ActivationCodeTable::ZeroRunLength);
  EXPECT_EQ(c.dramBytesPerCycle, 32.0);
  EXPECT_EQ(c.dramLatencyCycles, 100);
  // The energy table is the documented default table (docs/arch/Sparse.md).
  EXPECT_EQ(c.energy, EnergyTable{});
  EXPECT_FALSE(c.energy.multiplyPj.has_value()); // auto: priced by the technology model
  EXPECT_EQ(c.energy.dramReadPjPerByte, 160.0);
  EXPECT_EQ(c.technology.node, "16nm");
  // The preset equals the struct's in-code defaults apart from the name.
  SparseConfig defaults;
  defaults.name = "scnn";
  EXPECT_EQ(c, defaults);
}

TEST(SparsePresets, TinyValues) {
  const SparseConfig c = sparsePreset("tiny");
  EXPECT_EQ(c.name, "tiny");
  EXPECT_EQ(c.peRows, 2);
  EXPECT_EQ(c.peCols, 2);
  EXPECT_EQ(c.weightsPerVector, 2);
  EXPECT_EQ(c.activationsPerVector, 2);
  EXPECT_EQ(c.accumulatorBanks, 8);
  EXPECT_EQ(c.accumulatorBankEntries, 8);
  EXPECT_EQ(c.weightFifoEntries, 6);
  EXPECT_EQ(c.iaRamBytes, 1024);
  EXPECT_EQ(c.oaRamBytes, 1024);
  EXPECT_EQ(c.valueBits, 16);
  EXPECT_EQ(c.accumulatorBits, 24);
  EXPECT_EQ(c.energy, EnergyTable{});
}

TEST(SparsePresets, EmbeddedCopiesMatchTheSourceFiles) {
  // The binary's presets are compiled from configs/sparse/*.yaml; each file lists every key, so
  // parsing it over any base gives the same config.
  SparseConfig odd;
  odd.peRows = 3;
  odd.bankMapping = BankMapping::Hash;
  odd.weightCodes = WeightCodeTable::Fig5E;
  odd.activationCodes = ActivationCodeTable::Fig5B;
  odd.accumulatorForwarding = false;
  odd.energy.haloPj = 99;
  for (const std::string& name : sparsePresetNames()) {
    SCOPED_TRACE(name);
    const std::string text = sourceFile("configs/sparse/" + name + ".yaml");
    ASSERT_FALSE(text.empty());
    EXPECT_EQ(parseSparseConfigOver(odd, text, name + ".yaml"), sparsePreset(name));
    EXPECT_EQ(parseSparseConfigOver(SparseConfig{}, text, name + ".yaml"), sparsePreset(name));
  }
}

// --- YAML output --------------------------------------------------------------------------------

TEST(SparseConfigYaml, ToYamlUsesTheNestedLayout) {
  const std::string yaml = toYaml(sparsePreset("scnn"));
  EXPECT_EQ(yaml.rfind("# nnaccel sparse", 0), 0u) << yaml;
  for (const char* line :
       {"\nname: scnn\n", "\nclock_mhz: 1000\n",
        "\npe_array:\n  rows: 8\n  cols: 8\n  weights_per_vector: 4\n  activations_per_vector: "
        "4\n  broadcast: auto\n  halos: output\n",
        "\naccumulators:\n  banks: 32\n  entries_per_bank: 32\n  double_buffered: true\n  "
        "forwarding: true\n  write_latency_cycles: 1\n  address_rounding: exact\n  "
        "combining_entries: 0\n",
        "\ncrossbar:\n  fifo_depth: 2\n  bank_mapping: low_bits\n  queues: per_lane\n  "
        "stages: 1\n",
        "\nbuffers:\n  weight_fifo_entries: 50\n  ia_ram_bytes: 10240\n  oa_ram_bytes: 10240\n  "
        "broadcast_vectors_per_cycle: 1\n",
        "\npost_processing:\n  ops_per_cycle: 1\n  halo_link_latency_cycles: 2\n",
        "\nnumerics:\n  value_bits: 16\n  accumulator_bits: 24\n",
        "\nencoding:\n  index_bits: 4\n  weight_codes: zero_run_length\n  activation_codes: "
        "zero_run_length\n",
        "\ndram:\n  standard: custom\n  channels: 1\n  row_buffer: false\n  bytes_per_cycle: 32\n"
        "  latency_cycles: 100\n",
        "\nenergy:\n  multiply_pj: auto\n", "\n  crossbar_pj: auto\n",
        "\n  dram_write_pj_per_byte: 160\n", "\ntechnology:\n  node: \"16nm\"\n  vdd_v: auto\n"}) {
    EXPECT_NE(yaml.find(line), std::string::npos) << line << "\n" << yaml;
  }
}

TEST(SparseConfigYaml, EveryEnumValueRoundTrips) {
  for (const BankMapping m : {BankMapping::LowBits, BankMapping::Hash}) {
    for (const WeightCodeTable w : {WeightCodeTable::ZeroRunLength, WeightCodeTable::Fig4C,
                                    WeightCodeTable::Fig5D, WeightCodeTable::Fig5E}) {
      for (const ActivationCodeTable a :
           {ActivationCodeTable::ZeroRunLength, ActivationCodeTable::Fig4C,
            ActivationCodeTable::Fig5A, ActivationCodeTable::Fig5B, ActivationCodeTable::Fig5C}) {
        SparseConfig c = sparsePreset("tiny");
        c.bankMapping = m;
        c.weightCodes = w;
        c.activationCodes = a;
        EXPECT_EQ(parseSparseConfig(toYaml(c), "e.yaml"), c) << toYaml(c);
      }
    }
  }
}

TEST(SparseConfigYaml, ModifiedConfigRoundTripsExactly) {
  SparseConfig c = sparsePreset("scnn");
  c.name = "my chip: v2";
  c.clockMhz = 0.1 + 0.2; // not the shortest decimal of 0.3
  c.doubleBufferedAccumulators = false;
  c.accumulatorForwarding = false;
  c.accumulatorWriteLatencyCycles = 3;
  c.dramBytesPerCycle = 1e-3;
  c.energy.crossbarPj = 123456.789012345;
  c.energy.ppuOpPj = 0;
  const std::string yaml = toYaml(c);
  EXPECT_EQ(parseSparseConfig(yaml, "r.yaml"), c) << yaml;
}

TEST(SparseConfigYaml, CrossbarVariantsRoundTrip) {
  // The patent's crossbar alternatives (seed 001 §1.4) as config choices, each alone and
  // together, through toYaml and back.
  for (const int64_t stages : {1, 2}) {
    for (const int64_t entries : {0, 1, 8, 256}) {
      for (const CrossbarQueues q : {CrossbarQueues::PerLane, CrossbarQueues::PerBank}) {
        if (stages == 2 && q == CrossbarQueues::PerBank)
          continue; // rejected (SparseConfigErrors.TwoStageCrossbarMustSplit)
        SparseConfig c = sparsePreset("scnn");
        c.crossbarStages = stages;
        c.combiningBufferEntries = entries;
        c.crossbarQueues = q;
        const std::string yaml = toYaml(c);
        EXPECT_NE(yaml.find("\n  stages: " + std::to_string(stages) + "\n"), std::string::npos);
        EXPECT_NE(yaml.find("\n  combining_entries: " + std::to_string(entries) + "\n"),
                  std::string::npos);
        EXPECT_EQ(parseSparseConfig(yaml, "v.yaml"), c) << yaml;
      }
    }
  }
}

// --- partial files and defaults -----------------------------------------------------------------

TEST(SparseConfigParse, PartialFileKeepsScnnDefaults) {
  const SparseConfig c = parseSparseConfig(
      "pe_array:\n  rows: 4\ncrossbar:\n  bank_mapping: hash\nenergy:\n  halo_pj: 3.5\n",
      "partial.yaml");
  SparseConfig expected = sparsePreset("scnn");
  expected.name = "custom";
  expected.peRows = 4;
  expected.bankMapping = BankMapping::Hash;
  expected.energy.haloPj = 3.5;
  EXPECT_EQ(c, expected);
}

TEST(SparseConfigParse, EmptyFileAndEmptySectionKeepDefaults) {
  SparseConfig expected = sparsePreset("scnn");
  expected.name = "custom";
  EXPECT_EQ(parseSparseConfig("", "empty.yaml"), expected);
  EXPECT_EQ(parseSparseConfig("# only a comment\n", "c.yaml"), expected);
  EXPECT_EQ(parseSparseConfig("pe_array:\nenergy: {}\n", "e.yaml"), expected);
}

TEST(SparseConfigParse, OverABaseKeepsTheBase) {
  const SparseConfig c =
      parseSparseConfigOver(sparsePreset("tiny"), "accumulators: {banks: 16}\n", "o.yaml");
  SparseConfig expected = sparsePreset("tiny");
  expected.accumulatorBanks = 16;
  EXPECT_EQ(c, expected);
}

TEST(SparseConfigParse, EveryKeyIsRead) {
  const SparseConfig c = parseSparseConfig(R"(name: mine
clock_mhz: 250.5
pe_array: {rows: 3, cols: 5, weights_per_vector: 6, activations_per_vector: 7}
accumulators: {banks: 64, entries_per_bank: 9, double_buffered: no, forwarding: false,
               write_latency_cycles: 4, combining_entries: 5}
crossbar: {fifo_depth: 3, bank_mapping: hash}
buffers: {weight_fifo_entries: 11, ia_ram_bytes: 2000, oa_ram_bytes: 3000,
          broadcast_vectors_per_cycle: 2}
post_processing: {ops_per_cycle: 5, halo_link_latency_cycles: 0}
numerics: {value_bits: 8, accumulator_bits: 32}
encoding: {index_bits: 4, weight_codes: fig5d, activation_codes: fig5c}
dram: {bytes_per_cycle: 0.5, latency_cycles: 0}
technology: {node: 28nm}
energy: {multiply_pj: 1, accumulator_rmw_pj: 2, crossbar_pj: 3, weight_fifo_read_pj_per_byte: 4,
         weight_fifo_write_pj_per_byte: 5, ia_ram_read_pj_per_byte: 6,
         oa_ram_write_pj_per_byte: 7, halo_pj: 8, ppu_op_pj: 9, dram_read_pj_per_byte: 10,
         dram_write_pj_per_byte: 0}
)",
                                           "all.yaml");
  EXPECT_EQ(c.name, "mine");
  EXPECT_DOUBLE_EQ(c.clockMhz, 250.5);
  EXPECT_EQ(c.peRows, 3);
  EXPECT_EQ(c.peCols, 5);
  EXPECT_EQ(c.weightsPerVector, 6);
  EXPECT_EQ(c.activationsPerVector, 7);
  EXPECT_EQ(c.accumulatorBanks, 64);
  EXPECT_EQ(c.accumulatorBankEntries, 9);
  EXPECT_FALSE(c.doubleBufferedAccumulators);
  EXPECT_FALSE(c.accumulatorForwarding);
  EXPECT_EQ(c.accumulatorWriteLatencyCycles, 4);
  EXPECT_EQ(c.combiningBufferEntries, 5);
  EXPECT_EQ(c.crossbarFifoDepth, 3);
  EXPECT_EQ(c.bankMapping, BankMapping::Hash);
  EXPECT_EQ(c.weightFifoEntries, 11);
  EXPECT_EQ(c.iaRamBytes, 2000);
  EXPECT_EQ(c.oaRamBytes, 3000);
  EXPECT_EQ(c.broadcastVectorsPerCycle, 2);
  EXPECT_EQ(c.ppuOpsPerCycle, 5);
  EXPECT_EQ(c.haloLinkLatencyCycles, 0);
  EXPECT_EQ(c.valueBits, 8);
  EXPECT_EQ(c.accumulatorBits, 32);
  EXPECT_EQ(c.indexBits, 4);
  EXPECT_EQ(c.weightCodes, WeightCodeTable::Fig5D);
  EXPECT_EQ(c.activationCodes, ActivationCodeTable::Fig5C);
  EXPECT_EQ(c.dramBytesPerCycle, 0.5);
  EXPECT_EQ(c.dramLatencyCycles, 0);
  const EnergyTable& e = c.energy;
  EXPECT_EQ((std::vector<std::optional<double>>{
                e.multiplyPj, e.accumulatorRmwPj, e.crossbarPj, e.weightFifoReadPjPerByte,
                e.weightFifoWritePjPerByte, e.iaRamReadPjPerByte, e.oaRamWritePjPerByte, e.haloPj,
                e.ppuOpPj, e.dramReadPjPerByte, e.dramWritePjPerByte}),
            (std::vector<std::optional<double>>{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 0}));
  EXPECT_EQ(c.technology.node, "28nm");
  // Every event configured: the prices are the numbers.
  EXPECT_EQ(energyPrices(c).ppuOpPj, 9);
}

TEST(SparseConfigParse, CrossbarVariantKeys) {
  const SparseConfig c =
      parseSparseConfig("accumulators: {combining_entries: 8}\ncrossbar: {stages: 2}\n", "v.yaml");
  EXPECT_EQ(c.combiningBufferEntries, 8);
  EXPECT_EQ(c.crossbarStages, 2);
  SparseConfig expected = sparsePreset("scnn");
  expected.name = "custom";
  expected.combiningBufferEntries = 8;
  expected.crossbarStages = 2;
  EXPECT_EQ(c, expected) << "nothing else changes";
  // The tiny preset (F = I = 2, A = 8) splits too: 2 instances of 2 -> 4, then 4 of 2 -> 2.
  EXPECT_EQ(parseSparseConfigOver(sparsePreset("tiny"), "crossbar: {stages: 2}\n", "t.yaml")
                .crossbarStages,
            2);
  // A = I: stage 1 is I instances of F -> 1, stage 2 one instance of I -> I.
  EXPECT_NO_THROW(parseSparseConfig("accumulators: {banks: 4}\ncrossbar: {stages: 2}\n", "ok"));
}

TEST(SparseConfigParse, EnumSpellings) {
  EXPECT_EQ(parseSparseConfig("crossbar: {bank_mapping: low_bits}\n", "a").bankMapping,
            BankMapping::LowBits);
  const std::pair<const char*, WeightCodeTable> weights[] = {
      {"zero_run_length", WeightCodeTable::ZeroRunLength},
      {"fig4c", WeightCodeTable::Fig4C},
      {"fig5d", WeightCodeTable::Fig5D},
      {"fig5e", WeightCodeTable::Fig5E}};
  for (const auto& [text, value] : weights) {
    EXPECT_EQ(
        parseSparseConfig(std::string("encoding: {weight_codes: ") + text + "}\n", "w").weightCodes,
        value)
        << text;
  }
  const std::pair<const char*, ActivationCodeTable> activations[] = {
      {"zero_run_length", ActivationCodeTable::ZeroRunLength},
      {"fig4c", ActivationCodeTable::Fig4C},
      {"fig5a", ActivationCodeTable::Fig5A},
      {"fig5b", ActivationCodeTable::Fig5B},
      {"fig5c", ActivationCodeTable::Fig5C}};
  for (const auto& [text, value] : activations) {
    EXPECT_EQ(parseSparseConfig(std::string("encoding: {activation_codes: ") + text + "}\n", "a")
                  .activationCodes,
              value)
        << text;
  }
}

// --- rejections ---------------------------------------------------------------------------------

TEST(SparseConfigErrors, UnknownKeysAreNamedWithTheirPath) {
  EXPECT_EQ(expectConfigError("accumulators:\n  bank: 5\n",
                              "chip.yaml: 'accumulators.bank': unknown key (expected one of: "
                              "banks, entries_per_bank, double_buffered, forwarding, "
                              "write_latency_cycles, address_rounding, combining_entries)"),
            "accumulators.bank");
  expectConfigError(
      "array:\n  rows: 5\n",
      "chip.yaml: 'array': unknown key (expected one of: name, clock_mhz, technology, "
      "pe_array, accumulators, crossbar, buffers, post_processing, numerics, "
      "encoding, dram, baseline, energy)");
  expectConfigError("pe_array: {rows: 4, F: 4}\n",
                    "chip.yaml: 'pe_array.F': unknown key (expected one of: rows, cols, "
                    "weights_per_vector, activations_per_vector, broadcast, halos)");
  expectConfigError("crossbar: {depth: 2}\n",
                    "chip.yaml: 'crossbar.depth': unknown key (expected one of: fifo_depth, "
                    "bank_mapping, queues, stages)");
  expectConfigError("buffers: {ia_ram: 2}\n",
                    "chip.yaml: 'buffers.ia_ram': unknown key (expected one of: "
                    "weight_fifo_entries, ia_ram_bytes, oa_ram_bytes, "
                    "broadcast_vectors_per_cycle)");
  expectConfigError("post_processing: {ops: 2}\n",
                    "chip.yaml: 'post_processing.ops': unknown key (expected one of: "
                    "ops_per_cycle, halo_link_latency_cycles, fuse_pooling)");
  expectConfigError("numerics: {bits: 2}\n",
                    "chip.yaml: 'numerics.bits': unknown key (expected one of: value_bits, "
                    "accumulator_bits)");
  expectConfigError("encoding: {codes: fig4c}\n",
                    "chip.yaml: 'encoding.codes': unknown key (expected one of: index_bits, "
                    "weight_codes, activation_codes)");
  expectConfigError(
      "dram: {bandwidth: 2}\n",
      "chip.yaml: 'dram.bandwidth': unknown key (expected one of: standard, channels, "
      "row_buffer, bytes_per_cycle, latency_cycles)");
  expectConfigError("energy:\n  mac_pj: 1\n",
                    "chip.yaml: 'energy.mac_pj': unknown key (expected one of: multiply_pj, "
                    "accumulator_rmw_pj, crossbar_pj, weight_fifo_read_pj_per_byte, "
                    "weight_fifo_write_pj_per_byte, ia_ram_read_pj_per_byte, "
                    "oa_ram_write_pj_per_byte, halo_pj, ppu_op_pj, dram_read_pj_per_byte, "
                    "dram_write_pj_per_byte, dram_activate_pj)");
  expectConfigError("pe_array: {rows: 4, rows: 8}\n",
                    "chip.yaml: 'pe_array.rows': written twice (lines 1 and 1)");
}

TEST(SparseConfigErrors, WrongTypes) {
  EXPECT_EQ(expectConfigError("pe_array:\n  rows: many\n",
                              "chip.yaml: 'pe_array.rows': expected an integer, got 'many'"),
            "pe_array.rows");
  expectConfigError("accumulators:\n  banks: \"32\"\n",
                    "chip.yaml: 'accumulators.banks': expected an integer, got the string \"32\"");
  expectConfigError("numerics:\n  value_bits: 16.5\n",
                    "chip.yaml: 'numerics.value_bits': expected an integer, got '16.5'");
  expectConfigError("accumulators:\n  double_buffered: maybe\n",
                    "chip.yaml: 'accumulators.double_buffered': expected true or false, got "
                    "'maybe'");
  expectConfigError("accumulators:\n  forwarding: 1\n",
                    "chip.yaml: 'accumulators.forwarding': expected true or false, got '1'");
  expectConfigError("energy:\n  halo_pj: cheap\n",
                    "chip.yaml: 'energy.halo_pj': expected a number or auto, got 'cheap'");
  expectConfigError("crossbar: 2\n", "chip.yaml: 'crossbar': expected a mapping, got '2'");
  expectConfigError("name: \"\"\n", "chip.yaml: 'name': must not be empty");
}

TEST(SparseConfigErrors, WrongEnums) {
  expectConfigError("pe_array:\n  broadcast: sideways\n",
                    "chip.yaml: 'pe_array.broadcast': expected one of auto, weights, "
                    "activations, got 'sideways'");
  EXPECT_EQ(expectConfigError("crossbar:\n  bank_mapping: modulo\n",
                              "chip.yaml: 'crossbar.bank_mapping': expected one of low_bits, hash, "
                              "got 'modulo'"),
            "crossbar.bank_mapping");
  expectConfigError("encoding:\n  weight_codes: fig5a\n",
                    "chip.yaml: 'encoding.weight_codes': expected one of zero_run_length, fig4c, "
                    "fig5d, fig5e, got 'fig5a'");
  expectConfigError("encoding:\n  activation_codes: fig5d\n",
                    "chip.yaml: 'encoding.activation_codes': expected one of zero_run_length, "
                    "fig4c, fig5a, fig5b, fig5c, got 'fig5d'");
}

TEST(SparseConfigErrors, IntegerRanges) {
  const std::pair<const char*, const char*> cases[] = {
      {"pe_array: {rows: 0}", "'pe_array.rows': must be >= 1 (got 0)"},
      {"pe_array: {cols: 1025}", "'pe_array.cols': must be <= 1024 (got 1025)"},
      {"pe_array: {weights_per_vector: 0}", "'pe_array.weights_per_vector': must be >= 1 (got 0)"},
      {"pe_array: {activations_per_vector: 257}",
       "'pe_array.activations_per_vector': must be <= 256 (got 257)"},
      {"accumulators: {banks: 0}", "'accumulators.banks': must be >= 1 (got 0)"},
      {"accumulators: {banks: 8192}", "'accumulators.banks': must be <= 4096 (got 8192)"},
      {"accumulators: {entries_per_bank: 0}",
       "'accumulators.entries_per_bank': must be >= 1 (got 0)"},
      {"accumulators: {write_latency_cycles: -1}",
       "'accumulators.write_latency_cycles': must be >= 0 (got -1)"},
      {"crossbar: {fifo_depth: 0}", "'crossbar.fifo_depth': must be >= 1 (got 0)"},
      {"buffers: {weight_fifo_entries: 0}", "'buffers.weight_fifo_entries': must be >= 1 (got 0)"},
      {"buffers: {ia_ram_bytes: 0}", "'buffers.ia_ram_bytes': must be >= 1 (got 0)"},
      {"buffers: {oa_ram_bytes: 1073741825}",
       "'buffers.oa_ram_bytes': must be <= 1073741824 (got 1073741825)"},
      {"buffers: {broadcast_vectors_per_cycle: 0}",
       "'buffers.broadcast_vectors_per_cycle': must be >= 1 (got 0)"},
      {"post_processing: {ops_per_cycle: 0}",
       "'post_processing.ops_per_cycle': must be >= 1 (got 0)"},
      {"post_processing: {halo_link_latency_cycles: -2}",
       "'post_processing.halo_link_latency_cycles': must be >= 0 (got -2)"},
      {"numerics: {value_bits: 7}", "'numerics.value_bits': must be >= 8 (got 7)"},
      {"numerics: {value_bits: 33, accumulator_bits: 64}",
       "'numerics.value_bits': must be <= 32 (got 33)"},
      {"numerics: {accumulator_bits: 15}", "'numerics.accumulator_bits': must be >= 16 (got 15)"},
      {"numerics: {accumulator_bits: 65}", "'numerics.accumulator_bits': must be <= 64 (got 65)"},
      {"encoding: {index_bits: 0}", "'encoding.index_bits': must be >= 1 (got 0)"},
      {"encoding: {index_bits: 17}", "'encoding.index_bits': must be <= 16 (got 17)"},
      {"dram: {latency_cycles: 1000000001}",
       "'dram.latency_cycles': must be <= 1000000000 (got 1000000001)"},
  };
  for (const auto& [yaml, message] : cases) {
    expectConfigError(std::string(yaml) + "\n", std::string("chip.yaml: ") + message);
  }
}

TEST(SparseConfigErrors, RealRanges) {
  expectConfigError("clock_mhz: 0\n", "chip.yaml: 'clock_mhz': must be >= 0.001 (got 0)");
  expectConfigError("clock_mhz: .nan\n", "chip.yaml: 'clock_mhz': must be finite (got nan)");
  expectConfigError("dram: {bytes_per_cycle: -1}\n",
                    "chip.yaml: 'dram.bytes_per_cycle': must be >= 0.0009765625 (got -1)");
  expectConfigError("energy: {multiply_pj: -0.5}\n",
                    "chip.yaml: 'energy.multiply_pj': must be >= 0 (got -0.5)");
  expectConfigError("energy: {dram_write_pj_per_byte: .inf}\n",
                    "chip.yaml: 'energy.dram_write_pj_per_byte': must be finite (got inf)");
  // Bounds whose consequences stay inside int64 and finite (config::kBytesPerCycleRange).
  expectConfigError("dram: {bytes_per_cycle: 1e-300}\n",
                    "chip.yaml: 'dram.bytes_per_cycle': must be >= 0.0009765625 (got 1e-300)");
  expectConfigError("dram: {bytes_per_cycle: 1e300}\n",
                    "chip.yaml: 'dram.bytes_per_cycle': must be <= 1073741824 (got 1e+300)");
  expectConfigError("clock_mhz: 1e9\n",
                    "chip.yaml: 'clock_mhz': must be <= 1000000 (got 1000000000)");
  expectConfigError("energy: {multiply_pj: 1e300}\n",
                    "chip.yaml: 'energy.multiply_pj': must be <= 1000000000000 (got 1e+300)");
}

TEST(SparseConfigErrors, BanksMustBeAPowerOfTwo) {
  EXPECT_EQ(expectConfigError("accumulators: {banks: 24}\n",
                              "chip.yaml: 'accumulators.banks': must be a power of two (got 24)"),
            "accumulators.banks");
  expectConfigError("accumulators: {banks: 3}\n",
                    "chip.yaml: 'accumulators.banks': must be a power of two (got 3)");
  for (const char* ok : {"1", "2", "64", "4096"}) {
    EXPECT_EQ(parseSparseConfig(std::string("accumulators: {banks: ") + ok + "}\n", "ok.yaml")
                  .accumulatorBanks,
              std::stoll(ok));
  }
}

TEST(SparseConfigErrors, HashMappingNeedsTwoBanks) {
  EXPECT_EQ(expectConfigError("accumulators: {banks: 1}\ncrossbar: {bank_mapping: hash}\n",
                              "chip.yaml: 'crossbar.bank_mapping': hash needs accumulators.banks "
                              ">= 2 (got 1)"),
            "crossbar.bank_mapping");
  EXPECT_NO_THROW(parseSparseConfig("accumulators: {banks: 1}\n", "ok.yaml"));
}

TEST(SparseConfigErrors, CrossbarVariantRanges) {
  EXPECT_EQ(expectConfigError("crossbar: {stages: 3}\n",
                              "chip.yaml: 'crossbar.stages': must be <= 2 (got 3)"),
            "crossbar.stages");
  expectConfigError("crossbar: {stages: 0}\n",
                    "chip.yaml: 'crossbar.stages': must be >= 1 (got 0)");
  EXPECT_EQ(expectConfigError("accumulators: {combining_entries: -1}\n",
                              "chip.yaml: 'accumulators.combining_entries': must be >= 0 (got -1)"),
            "accumulators.combining_entries");
  expectConfigError("accumulators: {combining_entries: 257}\n",
                    "chip.yaml: 'accumulators.combining_entries': must be <= 256 (got 257)");
}

TEST(SparseConfigErrors, TwoStageCrossbarMustSplit) {
  // Virtual output queues are modelled for the single stage only.
  EXPECT_EQ(expectConfigError("crossbar: {stages: 2, queues: per_bank}\n",
                              "chip.yaml: 'crossbar.stages': 2 needs crossbar.queues: per_lane "
                              "(virtual output queues are modelled for the single-stage crossbar "
                              "only)"),
            "crossbar.stages");
  // Stage 1 is I instances of F lanes, stage 2 A / I instances of I: F, I >= 2 and I | A.
  const char* tail = " banks: it needs F >= 2, I >= 2 and I dividing accumulators.banks (stage 1: "
                     "I instances of F -> A / I, stage 2: A / I instances of I -> I)";
  const std::pair<const char*, const char*> cases[] = {
      {"pe_array: {weights_per_vector: 1}\ncrossbar: {stages: 2}\n", "1 x 4 lanes onto 32"},
      {"pe_array: {activations_per_vector: 1}\ncrossbar: {stages: 2}\n", "4 x 1 lanes onto 32"},
      {"pe_array: {activations_per_vector: 3}\ncrossbar: {stages: 2}\n", "4 x 3 lanes onto 32"},
      {"pe_array: {activations_per_vector: 8}\naccumulators: {banks: 4}\ncrossbar: {stages: 2}\n",
       "4 x 8 lanes onto 4"}};
  for (const auto& [yaml, what] : cases) {
    EXPECT_EQ(expectConfigError(yaml, std::string("chip.yaml: 'crossbar.stages': 2 cannot split "
                                                  "F x I = ") +
                                          what + tail),
              "crossbar.stages");
  }
  // The same shapes with one stage are fine.
  EXPECT_NO_THROW(parseSparseConfig("pe_array: {activations_per_vector: 3}\n", "ok.yaml"));
  EXPECT_NO_THROW(parseSparseConfig("crossbar: {queues: per_bank}\n", "ok.yaml"));
}

TEST(SparseConfigErrors, AccumulatorMustHoldAValue) {
  EXPECT_EQ(expectConfigError("numerics: {value_bits: 32, accumulator_bits: 24}\n",
                              "chip.yaml: 'numerics.accumulator_bits': 24 is narrower than "
                              "numerics.value_bits = 32"),
            "numerics.accumulator_bits");
  // Not required: accumulator_bits >= 2 * value_bits (the scnn preset has 16 / 24).
  EXPECT_NO_THROW(parseSparseConfig("numerics: {value_bits: 24, accumulator_bits: 24}\n", "ok"));
  EXPECT_NO_THROW(parseSparseConfig("numerics: {value_bits: 8, accumulator_bits: 16}\n", "ok"));
}

TEST(SparseConfigErrors, PatentCodeTablesNeedFourBitCodes) {
  EXPECT_EQ(expectConfigError("encoding: {index_bits: 5, weight_codes: fig4c}\n",
                              "chip.yaml: 'encoding.index_bits': the weight code table needs "
                              "4-bit codes (got 5)"),
            "encoding.index_bits");
  expectConfigError("encoding: {index_bits: 3, activation_codes: fig5a}\n",
                    "chip.yaml: 'encoding.index_bits': the activation code table needs 4-bit "
                    "codes (got 3)");
  // Plain zero-run-length codes take any width.
  EXPECT_EQ(parseSparseConfig("encoding: {index_bits: 7}\n", "ok.yaml").indexBits, 7);
}

TEST(SparseConfigValidate, ChecksConfigsBuiltInCode) {
  SparseConfig c = sparsePreset("scnn");
  EXPECT_NO_THROW(validate(c));
  c.peCols = 0;
  expectInvalid(c, "mem.yaml: 'pe_array.cols': must be >= 1 (got 0)");
  c = sparsePreset("scnn");
  c.accumulatorBanks = 48;
  expectInvalid(c, "mem.yaml: 'accumulators.banks': must be a power of two (got 48)");
  c = sparsePreset("scnn");
  c.crossbarFifoDepth = 0;
  expectInvalid(c, "mem.yaml: 'crossbar.fifo_depth': must be >= 1 (got 0)");
  c = sparsePreset("scnn");
  c.valueBits = 4;
  expectInvalid(c, "mem.yaml: 'numerics.value_bits': must be >= 8 (got 4)");
  c = sparsePreset("scnn");
  c.bankMapping = static_cast<BankMapping>(7);
  expectInvalid(c, "mem.yaml: 'crossbar.bank_mapping': holds a value the schema does not list");
  c = sparsePreset("scnn");
  c.activationCodes = ActivationCodeTable::Fig5B;
  c.indexBits = 8;
  expectInvalid(c, "mem.yaml: 'encoding.index_bits': the activation code table needs 4-bit codes "
                   "(got 8)");
  c = sparsePreset("scnn");
  c.crossbarStages = 2;
  c.crossbarQueues = CrossbarQueues::PerBank;
  expectInvalid(c, "mem.yaml: 'crossbar.stages': 2 needs crossbar.queues: per_lane (virtual "
                   "output queues are modelled for the single-stage crossbar only)");
  c = sparsePreset("scnn");
  c.combiningBufferEntries = -3;
  expectInvalid(c, "mem.yaml: 'accumulators.combining_entries': must be >= 0 (got -3)");
  c = sparsePreset("scnn");
  c.name = "";
  EXPECT_THROW(validate(c), Error);
}

// --- files --------------------------------------------------------------------------------------

TEST(SparseConfigFile, LoadsAFileAndNamesItInErrors) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / "nnaccel_sparse_config_test";
  std::filesystem::create_directories(dir);
  const std::string good = (dir / "mine.yaml").string();
  std::ofstream(good) << "name: mine\npe_array: {rows: 4, cols: 2}\n";
  const SparseConfig c = loadSparseConfigFile(good);
  EXPECT_EQ(c.name, "mine");
  EXPECT_EQ(c.peRows, 4);
  EXPECT_EQ(c.peCols, 2);
  EXPECT_EQ(c.accumulatorBanks, 32); // scnn default

  const std::string bad = (dir / "bad.yaml").string();
  std::ofstream(bad) << "accumulators: {banks: 12}\n";
  try {
    loadSparseConfigFile(bad);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Config);
    EXPECT_EQ(std::string(e.what()), bad + ": 'accumulators.banks': must be a power of two (got "
                                           "12)");
    EXPECT_EQ(e.context().key, "accumulators.banks");
  }
  try {
    loadSparseConfigFile((dir / "missing.yaml").string());
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Io);
    EXPECT_EQ(std::string(e.what()),
              (dir / "missing.yaml").string() + ": cannot open file (No such file or directory)");
  }
  try {
    loadSparseConfigFile(dir.string());
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Io);
    EXPECT_EQ(std::string(e.what()), dir.string() + ": is a directory, not a config file");
  }
  std::filesystem::remove_all(dir);
}

} // namespace

namespace nnaccel::arch::sparse {
namespace {

TEST(SparseConfigErrors, CrossbarModelLimits) {
  // One request bit per multiplier lane in a 64-bit word; FIFO slots up to 128.
  expectConfigError("pe_array: {weights_per_vector: 16, activations_per_vector: 8}\n",
                    "chip.yaml: 'pe_array.activations_per_vector': F x I = 16 x 8 = 128 "
                    "multipliers per PE exceeds the 64 the crossbar model supports");
  EXPECT_EQ(
      parseSparseConfig("pe_array: {weights_per_vector: 8, activations_per_vector: 8}\n", "ok.yaml")
          .multipliersPerPe(),
      64);
  expectConfigError("crossbar: {fifo_depth: 129}\n",
                    "chip.yaml: 'crossbar.fifo_depth': must be <= 128 (got 129)");
}

} // namespace
} // namespace nnaccel::arch::sparse

// --- technology and pricing (config/Pricing.cpp, docs/arch/Sparse.md "Energy and area") ---------

TEST(SparseTechnology, InventoryAndEventsFollowTheConfig) {
  const SparseConfig c = sparsePreset("scnn");
  const nnaccel::arch::common::Inventory inv = sparseInventory(c);
  EXPECT_EQ(inv.node.name, "16nm");
  EXPECT_EQ(inv.part("pe_multiplier").use.count, 64 * 16);                // 8x8 PEs, F x I = 16
  EXPECT_EQ(inv.part("pe_multiplier").use.spec.widthBits, 16);            // value_bits
  EXPECT_EQ(inv.part("accumulator_bank").use.count, 64 * 32 * 2);         // double-buffered
  EXPECT_EQ(inv.part("accumulator_bank").use.spec.capacityBytes, 32 * 3); // 32 x 24 bits
  EXPECT_EQ(inv.part("weight_fifo").use.spec.widthBits, 4 * (16 + 4));    // F x (value + index)
  EXPECT_EQ(inv.part("ia_ram").use.spec.capacityBytes, 10240);
  const EnergyPrices p = energyPrices(c);
  EXPECT_DOUBLE_EQ(p.multiplyPj, inv.part("pe_multiplier").cost.readEnergyPj);
  EXPECT_DOUBLE_EQ(p.accumulatorRmwPj, inv.part("accumulator_bank").cost.readEnergyPj +
                                           inv.part("accumulator_adder").cost.readEnergyPj +
                                           inv.part("accumulator_bank").cost.writeEnergyPj);
  EXPECT_DOUBLE_EQ(p.iaRamReadPjPerByte, inv.part("ia_ram").cost.readEnergyPj / 10); // 80-bit word
  // The crossbar: the lane FIFO's write and read, the bank's arbitration among its 16 lanes
  // and one selection in its 16:1 mux.
  EXPECT_NEAR(p.crossbarPj,
              inv.part("crossbar_fifo").cost.writeEnergyPj +
                  inv.part("crossbar_fifo").cost.readEnergyPj +
                  inv.part("crossbar_arbiter").cost.readEnergyPj +
                  inv.part("crossbar_mux").cost.readEnergyPj,
              1e-12);
  EXPECT_EQ(inv.part("crossbar_mux").use.spec.inputs, 16);
  EXPECT_EQ(inv.part("crossbar_mux").use.count, 64 * 32);
  EXPECT_EQ(inv.part("crossbar_arbiter").use.spec.inputs, 16);
  EXPECT_EQ(inv.part("crossbar_arbiter").use.count, 64 * 32);
  // 8-bit values: cheaper multiplies; a number overrides.
  const SparseConfig narrow =
      parseSparseConfigOver(c, "numerics: {value_bits: 8}\nenergy: {ppu_op_pj: 3}\n", "n.yaml");
  EXPECT_LT(energyPrices(narrow).multiplyPj, p.multiplyPj / 3);
  EXPECT_EQ(energyPrices(narrow).ppuOpPj, 3);
  double groups = 0;
  for (const auto& [name, mm2] : inv.areaMm2ByGroup())
    groups += mm2;
  EXPECT_NEAR(groups, inv.areaMm2(), 1e-12);
}

TEST(SparseTechnology, TwoStageCrossbarPricesItsSmallerArbitersAndMuxes) {
  // Fig. 3E for P = 16, A = 32: stage 1 is 4 instances of a 4 -> 8 crossbar (32 arbiters among
  // 4 lanes and 32 4:1 muxes per PE), stage 2 is 8 instances of a 4 -> 4 crossbar (32 arbiters
  // among 4 inputs and 32 4:1 muxes per PE), instead of 32 16-input arbiters and 16:1 muxes.
  const SparseConfig one = sparsePreset("scnn");
  SparseConfig two = one;
  two.crossbarStages = 2;
  const nnaccel::arch::common::Inventory a = sparseInventory(one), b = sparseInventory(two);
  EXPECT_EQ(a.find("crossbar_stage2_arbiter"), nullptr);
  EXPECT_EQ(a.find("crossbar_stage2_mux"), nullptr);
  for (const char* part : {"crossbar_arbiter", "crossbar_stage2_arbiter"}) {
    EXPECT_EQ(b.part(part).use.spec.inputs, 4) << part;
    EXPECT_EQ(b.part(part).use.count, 64 * 32) << part;
  }
  EXPECT_EQ(b.part("crossbar_mux").use.spec.inputs, 4);
  // A product, its bank address and, before stage 2, the bank within the instance (log2 I).
  EXPECT_EQ(b.part("crossbar_mux").use.spec.widthBits, 2 * 16 + 5 + 2);
  EXPECT_EQ(b.part("crossbar_stage2_mux").use.spec.inputs, 4);
  EXPECT_EQ(b.part("crossbar_stage2_mux").use.spec.widthBits, 2 * 16 + 5);
  EXPECT_EQ(b.part("crossbar_fifo").use.count, a.part("crossbar_fifo").use.count);
  // A product passes two smaller arbitrations and selections.
  const EnergyPrices p = energyPrices(two);
  EXPECT_NEAR(
      p.crossbarPj,
      b.part("crossbar_fifo").cost.writeEnergyPj + b.part("crossbar_fifo").cost.readEnergyPj +
          b.part("crossbar_arbiter").cost.readEnergyPj + b.part("crossbar_mux").cost.readEnergyPj +
          b.part("crossbar_stage2_arbiter").cost.readEnergyPj +
          b.part("crossbar_stage2_mux").cost.readEnergyPj,
      1e-12);
  EXPECT_LT(p.crossbarPj, energyPrices(one).crossbarPj);
  // Two 4-input arbiters are far smaller than one among 16 (DSENT: 93.6 vs 1,828 um^2 at
  // 45 nm), two 4:1 muxes (3 + 3 cells per bit) smaller than one 16:1 (15 cells per bit).
  EXPECT_LT(2 * b.part("crossbar_arbiter").cost.areaUm2,
            a.part("crossbar_arbiter").cost.areaUm2 / 5);
  EXPECT_LT(b.part("crossbar_mux").areaMm2() + b.part("crossbar_stage2_mux").areaMm2(),
            a.part("crossbar_mux").areaMm2());
  EXPECT_LT(b.groupAreaMm2("crossbar"), a.groupAreaMm2("crossbar"));
  EXPECT_DOUBLE_EQ(energyPrices(two).accumulatorRmwPj, energyPrices(one).accumulatorRmwPj);
}

TEST(SparseTechnology, CombiningBufferIsPricedPerBankAndPerProduct) {
  const SparseConfig none = sparsePreset("scnn");
  SparseConfig eight = none;
  eight.combiningBufferEntries = 8;
  const nnaccel::arch::common::Inventory a = sparseInventory(none), b = sparseInventory(eight);
  for (const char* part : {"combining_buffer", "combining_comparator", "combining_adder"})
    EXPECT_EQ(a.find(part), nullptr) << part;
  EXPECT_EQ(a.groupAreaMm2("combining_buffer"), 0.0);
  // Per bank: 8 flip-flop entries of a 24-bit partial sum and its 5-bit address, one 5-bit
  // comparator per entry, one 24-bit adder.
  EXPECT_EQ(b.part("combining_buffer").use.count, 64 * 32);
  EXPECT_EQ(b.part("combining_buffer").use.spec.depth, 8);
  EXPECT_EQ(b.part("combining_buffer").use.spec.widthBits, 24 + 5);
  EXPECT_EQ(b.part("combining_comparator").use.count, 64 * 32 * 8);
  EXPECT_EQ(b.part("combining_comparator").use.spec.widthBits, 5);
  EXPECT_EQ(b.part("combining_adder").use.count, 64 * 32);
  EXPECT_EQ(b.part("combining_adder").use.spec.widthBits, 24);
  EXPECT_GT(b.groupAreaMm2("combining_buffer"), 0.0);
  EXPECT_NEAR(b.groupAreaMm2("combining_buffer"),
              b.part("combining_buffer").areaMm2() + b.part("combining_comparator").areaMm2() +
                  b.part("combining_adder").areaMm2(),
              1e-12);
  // Every product through the crossbar is matched against the 8 entries and read, added and
  // written into one; the bank's read-add-write (paid per commit) is priced as before.
  const EnergyPrices p0 = energyPrices(none), p8 = energyPrices(eight);
  EXPECT_NEAR(p8.crossbarPj,
              p0.crossbarPj + b.part("combining_buffer").cost.readEnergyPj +
                  b.part("combining_adder").cost.readEnergyPj +
                  b.part("combining_buffer").cost.writeEnergyPj +
                  8 * b.part("combining_comparator").cost.readEnergyPj,
              1e-9);
  EXPECT_DOUBLE_EQ(p8.accumulatorRmwPj, p0.accumulatorRmwPj);
  // A commit saved is worth more than the buffer's cost per product (what makes it an option).
  EXPECT_LT(p8.crossbarPj - p0.crossbarPj, p0.accumulatorRmwPj);
  bool described = false;
  for (const auto& e : energyEvents(eight)) {
    if (e.key == "crossbar_pj") {
      EXPECT_EQ(e.basis, "crossbar_fifo.write + crossbar_fifo + crossbar_arbiter + crossbar_mux + "
                         "combining_buffer + combining_adder + combining_buffer.write + 8 x "
                         "combining_comparator");
      described = true;
    }
  }
  EXPECT_TRUE(described);
  // A configured number is charged as it is.
  eight.energy.crossbarPj = 1.5;
  EXPECT_EQ(energyPrices(eight).crossbarPj, 1.5);
}
