// The DRAM standards (src/tech/Dram.cpp): each channel's figures as its source gives them, the
// energies derived from the datasheet currents by the TN-41-01 formula, and the row-buffer
// sweep that counts the rows an access pattern opens.
#include "nnaccel/tech/Dram.h"

#include "../../support/ErrorOf.h"

#include <gtest/gtest.h>

namespace nnaccel::tech {
namespace {

TEST(Dram, StandardsCarryTheirSourcesFiguresAndDerivedEnergies) {
  EXPECT_EQ(dramStandardNames(), (std::vector<std::string>{"ddr4-2400", "ddr4-3200", "lpddr4-3200",
                                                           "lpddr5-6400", "hbm2"}));
  // DDR4-2400, eight x8 devices: 19.2 GB/s, 8 KiB rows across the rank; activation
  // VDD (IDD0 tRC - (IDD3N tRAS + IDD2N tRP)) tCK = 1.2 (48 x 56 - (43 x 39 + 34 x 17)) 0.83 pJ
  // per device; a read burst of 8 bytes per device 1.2 (135 - 43) 4 x 0.83 pJ.
  const DramStandard& ddr4 = dramStandard("ddr4-2400");
  EXPECT_DOUBLE_EQ(ddr4.peakBytesPerNs(), 19.2);
  EXPECT_EQ(ddr4.rowBytes, 8192);
  EXPECT_EQ(ddr4.burstBytes, 64);
  EXPECT_NEAR(ddr4.activatePj, 1.2 * (48 * 56 - (43 * 39 + 34 * 17)) * 0.83 * 8, 1e-9);
  EXPECT_NEAR(ddr4.readPjPerBit, 1.2 * (135 - 43) * 4 * 0.83 / 64, 1e-12);
  EXPECT_NEAR(ddr4.rowMissLatencyNs(), 2 * 17 * 0.83, 1e-12);
  // Its I/O: TN-40-07's DQ termination per pin over 2.4 Gb/s; the PHY: CACTI-IO's DDR4 terms.
  EXPECT_NEAR(ddr4.ioReadPjPerBit, 11.73 / 2.4, 1e-12);
  EXPECT_NEAR(ddr4.ioWritePjPerBit, 4.15 / 2.4, 1e-12);
  EXPECT_NEAR(ddr4.phyPjPerBit, 1.76, 1e-12);
  EXPECT_NEAR(ddr4.readTotalPjPerBit(), ddr4.readPjPerBit + 11.73 / 2.4 + 1.76, 1e-12);
  // HBM2: one 128-bit channel at 2 Gb/s, tCK 1 ns; O'Connor's 0.3 pJ/bit interposer I/O.
  const DramStandard& hbm2 = dramStandard("hbm2");
  EXPECT_DOUBLE_EQ(hbm2.peakBytesPerNs(), 32);
  EXPECT_NEAR(hbm2.activatePj, 828, 1e-9);
  EXPECT_NEAR(hbm2.readPjPerBit, 804.0 / 512, 1e-12);
  EXPECT_NEAR(hbm2.writePjPerBit, 1068.0 / 512, 1e-12);
  EXPECT_EQ(hbm2.ioReadPjPerBit, 0.3);
  EXPECT_EQ(hbm2.ioWritePjPerBit, 0.3);
  EXPECT_EQ(hbm2.phyPjPerBit, 0);
  // LPDDR4: the activation sums the memspec's two rails (1.8 V and 1.1 V).
  EXPECT_NEAR(dramStandard("lpddr4-3200").activatePj,
              (1.8 * (3.5 * 97 - (2.25 * 68 + 2.0 * 29)) + 1.1 * (45 * 97 - (30 * 68 + 27 * 29))) *
                  0.625,
              1e-9);
  // Its VDDQ rail is the device's I/O: 1.1 (150 - 0.75) mA over a 5 ns burst of 256 bits.
  const DramStandard& lp4 = dramStandard("lpddr4-3200");
  EXPECT_NEAR(lp4.ioReadPjPerBit, 1.1 * (150 - 0.75) * 5 / 256, 1e-12);
  EXPECT_NEAR(lp4.ioWritePjPerBit, 1.1 * (55 - 0.75) * 5 / 256, 1e-12);
  EXPECT_NEAR(lp4.phyPjPerBit, 0.96, 1e-12);
  // LPDDR5-6400: Ramulator2's timings (CL 17 CK of 1.25 ns), 12.8 GB/s; the currents are the
  // LPDDR5X sheet's at 7500 MT/s, so a burst of 16 beats lasts 16 / 7.5 ns for the energy.
  const DramStandard& lp5 = dramStandard("lpddr5-6400");
  EXPECT_DOUBLE_EQ(lp5.peakBytesPerNs(), 12.8);
  EXPECT_NEAR(lp5.tClNs, 21.25, 1e-12);
  EXPECT_NEAR(lp5.tRcNs(), 61.25, 1e-12);
  EXPECT_NEAR(lp5.readPjPerBit, (1.8 * (18.0 - 2.8) + 1.05 * (390 - 40)) * (16 / 7.5) / 256, 1e-9);
  EXPECT_NEAR(lp5.ioReadPjPerBit, 0.5 * (111.9 - 0.6) * (16 / 7.5) / 256, 1e-9);
  EXPECT_NEAR(
      lp5.activatePj,
      (1.8 * (3.8 * 196 - (2.8 * 136 + 1.5 * 60)) + 1.05 * (53 * 196 - (40 * 136 + 32.5 * 60))) *
          0.3125,
      1e-6);
  for (const std::string& name : dramStandardNames())
    EXPECT_FALSE(dramStandard(name).source.empty()) << name;
  const std::string e = test::errorOf([] { dramStandard("gddr6"); }, ErrorKind::Config);
  EXPECT_NE(e.find("unknown DRAM standard 'gddr6' (known: ddr4-2400"), std::string::npos) << e;
}

TEST(Dram, RowSweepsOpenOneRowPerRowOfDataOrOnePerFarAccess) {
  const DramStandard& hbm2 = dramStandard("hbm2"); // 1 KiB rows, 64-byte bursts
  // A burst opens one row; a run of 10 KiB opens 1 + (10240 - 64) / 1024 on average.
  EXPECT_DOUBLE_EQ(rowSweepOfRun(hbm2, 64).activations, 1.0);
  EXPECT_DOUBLE_EQ(rowSweepOfRun(hbm2, 10240).activations, 1.0 + (10240.0 - 64) / 1024);
  // 100 rows of 256 bytes, 256 apart, are one contiguous sweep.
  const RowSweep row = rowSweepOfRun(hbm2, 256);
  EXPECT_DOUBLE_EQ(rowSweepRepeated(hbm2, row, 100, 256).activations,
                   rowSweepOfRun(hbm2, 25600).activations);
  // 100 rows of 256 bytes, 4 KiB apart: each opens its own row.
  EXPECT_DOUBLE_EQ(rowSweepRepeated(hbm2, row, 100, 4096).activations, 100 * row.activations);
  // Re-reading the same 64 bytes keeps its row open.
  EXPECT_DOUBLE_EQ(rowSweepRepeated(hbm2, rowSweepOfRun(hbm2, 64), 50, 0).activations, 1.0);
}

} // namespace
} // namespace nnaccel::tech
