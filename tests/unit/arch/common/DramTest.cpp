// The DRAM part of an engine config (src/arch/common/Dram.cpp): a named standard's figures at
// a clock, its energy events with and without the row-buffer model, the checks of a custom part,
// and the transfer time of bytes with the rows they open.
#include "nnaccel/arch/common/Dram.h"

#include "nnaccel/support/Error.h"

#include <gtest/gtest.h>

namespace nnaccel::arch::common {
namespace {

constexpr std::array<std::string_view, 3> kKeys{"read_pj", "write_pj", "activate_pj"};

TEST(DramPart, AStandardsFiguresAtAClock) {
  const DramPart hbm{"hbm2", 8, true};
  const DramFigures f = dramFigures(hbm, {}, 1000);
  EXPECT_DOUBLE_EQ(f.bytesPerCycle, 256);                // 8 channels x 32 GB/s at 1 GHz
  EXPECT_EQ(f.latencyCycles, 28);                        // tRCD + CL = 14 + 14 ns
  EXPECT_DOUBLE_EQ(f.activationCycles, 48.0 / (16 * 8)); // tRC over 16 banks x 8 channels
  // A number overrides the derived figure.
  EXPECT_DOUBLE_EQ(dramFigures(hbm, {.bytesPerCycle = 100.0}, 1000).bytesPerCycle, 100);
  // The bus bounds a long run; the banks bound many short ones.
  EXPECT_DOUBLE_EQ(dramTransferCycles(f, 25600, 25), 100);
  EXPECT_DOUBLE_EQ(dramTransferCycles(f, 6400, 100), 100 * 48.0 / 128);
  const DramFigures off = dramFigures({"hbm2", 8, false}, {}, 1000);
  EXPECT_DOUBLE_EQ(dramTransferCycles(off, 6400, 100), 25);
}

TEST(DramPart, EventsPriceReadsWritesAndActivations) {
  const tech::DramStandard& s = tech::dramStandard("hbm2");
  const auto on = dramEvents({"hbm2", 1, true}, {}, kKeys);
  EXPECT_DOUBLE_EQ(on[0].pj, 8 * (s.readPjPerBit + 0.3));
  EXPECT_DOUBLE_EQ(on[1].pj, 8 * (s.writePjPerBit + 0.3));
  EXPECT_DOUBLE_EQ(on[2].pj, s.activatePj);
  EXPECT_EQ(on[2].basis, "hbm2 activation + precharge");
  // Without the row-buffer model a byte carries its share of a full row's activation.
  const auto off = dramEvents({"hbm2", 1, false}, {}, kKeys);
  EXPECT_DOUBLE_EQ(off[0].pj, 8 * (s.readPjPerBit + 0.3) + s.activatePj / 1024);
  EXPECT_EQ(off[2].pj, 0);
  // Configured numbers win; a custom part has only numbers.
  const auto custom = dramEvents({}, {.readPjPerByte = 160.0, .writePjPerByte = 150.0}, kKeys);
  EXPECT_EQ(custom[0].pj, 160);
  EXPECT_EQ(custom[0].basis, "configured");
  EXPECT_EQ(custom[2].pj, 0);
}

TEST(DramPart, ACustomPartNeedsItsNumbersAndAStandardNeedsAName) {
  const config::ConfigPath at("chip.yaml");
  const DramSettings numbers{16.0, 100, 160.0, 160.0, std::nullopt};
  EXPECT_EQ(checkDramPart({}, numbers, at, "dram", kKeys), nullptr);
  EXPECT_EQ(checkDramPart({"ddr4-3200", 2, true}, {}, at, "dram", kKeys)->name, "ddr4-3200");
  const auto message = [&](const DramPart& d, const DramSettings& s) {
    try {
      checkDramPart(d, s, at, "memory", kKeys);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message({"ddr9"}, numbers),
            "chip.yaml: 'memory.standard': unknown DRAM standard 'ddr9' (known: ddr4-2400, "
            "ddr4-3200, lpddr4-3200, lpddr5-6400, hbm2)");
  DramSettings noBandwidth = numbers;
  noBandwidth.bytesPerCycle.reset();
  EXPECT_EQ(message({}, noBandwidth),
            "chip.yaml: 'memory.bytes_per_cycle': auto needs a DRAM standard (memory.standard is "
            "custom)");
  DramSettings noRead = numbers;
  noRead.readPjPerByte.reset();
  EXPECT_EQ(message({}, noRead), "chip.yaml: 'energy.read_pj': auto needs a DRAM standard "
                                 "(memory.standard is custom)");
  EXPECT_EQ(message({"custom", 1, true}, numbers),
            "chip.yaml: 'memory.row_buffer': the row-buffer model needs a DRAM standard's rows "
            "and banks (memory.standard is custom)");
}

TEST(DramPart, NamingAStandardMakesTheCustomNumbersAutoUnlessGiven) {
  using engines::Override;
  const auto keysOf = [](const std::vector<Override>& v) {
    std::vector<std::string> keys;
    for (const Override& o : v) {
      EXPECT_EQ(o.value, "auto") << o.key;
      keys.push_back(o.key);
    }
    return keys;
  };
  // A custom part switched to HBM2: its bandwidth, latency and energies become the standard's,
  // except the ones the same settings give.
  EXPECT_EQ(keysOf(impliedByStandard("dram", kKeys, "custom",
                                     {{"dram.standard", "hbm2"}, {"energy.read_pj", "3"}})),
            (std::vector<std::string>{"dram.bytes_per_cycle", "dram.latency_cycles",
                                      "energy.write_pj", "energy.activate_pj"}));
  // Nothing implied: no standard named, custom named, or the same standard again.
  EXPECT_TRUE(impliedByStandard("dram", kKeys, "custom", {{"dram.channels", "2"}}).empty());
  EXPECT_TRUE(impliedByStandard("dram", kKeys, "hbm2", {{"dram.standard", "custom"}}).empty());
  EXPECT_TRUE(impliedByStandard("dram", kKeys, "hbm2", {{"dram.standard", "hbm2"}}).empty());
  // From one standard to another (a sweep point over a --set base): the base's numbers stay.
  EXPECT_TRUE(impliedByStandard("dram", kKeys, "hbm2", {{"dram.standard", "ddr4-3200"}}).empty());
}

} // namespace
} // namespace nnaccel::arch::common
