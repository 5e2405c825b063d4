// The DRAM standards (src/tech/Dram.cpp): each channel's figures as its source gives them, the
// energies derived from the datasheet currents by the TN-41-01 formula, and the row-buffer
// sweep that counts the rows an access pattern opens.
#include "nnaccel/tech/Dram.h"

#include "../../support/ErrorOf.h"

#include <gtest/gtest.h>

namespace nnaccel::tech {
namespace {

TEST(Dram, StandardsCarryTheirSourcesFiguresAndDerivedEnergies) {
  EXPECT_EQ(dramStandardNames(),
            (std::vector<std::string>{"ddr4-2400", "ddr4-3200", "lpddr4-3200", "hbm2"}));
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
  EXPECT_EQ(ddr4.interfacePjPerBit, 0); // no cited I/O figure: excluded, and said so
  // HBM2: one 128-bit channel at 2 Gb/s, tCK 1 ns; O'Connor's 0.3 pJ/bit interposer I/O.
  const DramStandard& hbm2 = dramStandard("hbm2");
  EXPECT_DOUBLE_EQ(hbm2.peakBytesPerNs(), 32);
  EXPECT_NEAR(hbm2.activatePj, 828, 1e-9);
  EXPECT_NEAR(hbm2.readPjPerBit, 804.0 / 512, 1e-12);
  EXPECT_NEAR(hbm2.writePjPerBit, 1068.0 / 512, 1e-12);
  EXPECT_EQ(hbm2.interfacePjPerBit, 0.3);
  // LPDDR4: the activation sums the memspec's two rails (1.8 V and 1.1 V).
  EXPECT_NEAR(dramStandard("lpddr4-3200").activatePj,
              (1.8 * (3.5 * 97 - (2.25 * 68 + 2.0 * 29)) + 1.1 * (45 * 97 - (30 * 68 + 27 * 29))) *
                  0.625,
              1e-9);
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
