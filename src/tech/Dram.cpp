// DRAM standards of the technology model (docs/Technology.md "DRAM"; research notes in
// docs/research/CellsWiresDram.md section C and docs/research/DramInterfaceSources.md): each
// channel's organisation, timings and datasheet currents as read in the simulator configs that
// carry them, and the energies derived from the currents by the Micron TN-41-01 method as
// DRAMsim3 applies it (umd-memsys/DRAMsim3 @ 29817593, src/configuration.cc lines 203-207), with
// the clock period applied (DRAMsim3 leaves its results in mA x V x cycles, equal to pJ only at
// a 1 ns clock):
//   activation + precharge = VDD x (IDD0 x tRC - (IDD3N x tRAS + IDD2N x tRP)) x tCK x devices
//   read burst             = VDD x (IDD4R - IDD3N) x burst time x devices   (write: IDD4W)
// summed over the supply rails the source lists; an I/O rail (VDDQ) gives the device's I/O
// energy. Where the source has no I/O rail, the device's I/O is its DQ termination power per
// pin over the data rate; the memory controller's PHY is CACTI-IO's default for the interface.
#include "nnaccel/tech/Dram.h"

#include "nnaccel/support/Error.h"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <fmt/format.h>

namespace nnaccel::tech {

namespace {

/// One supply rail's datasheet currents, in mA; an I/O rail (VDDQ) feeds the device's I/O.
struct Rail {
  double vddV, idd0, idd2n, idd3n, idd4r, idd4w;
  bool io = false;
};

/// Device-side I/O where the source has no I/O rail: DQ termination power per pin while the
/// channel reads or writes (mW), or a per-bit figure.
struct DeviceIo {
  double dqReadMwPerPin = 0, dqWriteMwPerPin = 0, pjPerBit = 0;
};

/// A speed bin as its source gives it: timings in clock cycles, the rails of one device.
struct SpeedBin {
  const char* name;
  const char* organisation;
  double dataRateMtPerS;
  int64_t busBits, banks, devices, rowBytesPerDevice, burstLength;
  double tCkNs;
  int64_t cl, tRcd, tRp, tRas;
  std::array<Rail, 3> rails; ///< a rail with vddV 0 is absent
  DeviceIo deviceIo;
  double phyPjPerBit;
  /// The data rate the currents were measured at, when it differs (energy per bit is taken as
  /// independent of the rate; 0: dataRateMtPerS).
  double currentsMtPerS;
  const char* source;
};

// Controller PHY, per bit either way: CACTI-IO's default coefficients (HewlettPackard/cacti @
// 1ffd8dfb, extio_technology.cc; the model of N. P. Jouppi, A. B. Kahng, N. Muralimanohar,
// V. Srinivas, "CACTI-IO: CACTI With OFF-Chip Power-Area-Timing Models", IEEE TVLSI 23(7),
// 2015): the sum of its dynamic mW/Gbps terms (datapath, phase rotator, clock tree, receiver,
// duty-cycle correction, deskew, leveling, PLL). DDR4 (lines 779-797): 1.76. LPDDR2 (lines
// 373-393): 0.96, CACTI-IO's only mobile PHY, used for LPDDR4 and LPDDR5 (our choice). The
// PHY's static power (30 mW DDR4, 10 mW LPDDR2) is not charged.
constexpr double kDdr4PhyPjPerBit = 0.5 + 0.01 + 0.5 + 0.5 + 0.05 + 0.1 + 0.05 + 0.05;
constexpr double kMobilePhyPjPerBit = 0.3 + 0.01 + 0.4 + 0.2 + 0.05;

// DDR4 device I/O: DQ termination power per pin, reading 11.73 mW and writing 4.15 mW
// (Micron TN-40-07 "Calculating Memory Power for DDR4 SDRAM", Rev. B 8/18, Table 26; read only
// in a transcription, so secondary: docs/research/DramInterfaceSources.md section 3). A POD
// line draws it while driven; the controller's own termination is not included.
constexpr DeviceIo kDdr4DqTermination{11.73, 4.15, 0};

constexpr std::array<SpeedBin, 5> kBins{{
    // DRAMsim3 configs/DDR4_8Gb_x8_2400.ini: a 64-bit channel of eight x8 devices, 16 banks
    // (4 groups x 4), 1 KiB rows per device.
    {"ddr4-2400",
     "64-bit channel (rank) of 8 x8 8 Gb devices",
     2400,
     64,
     16,
     8,
     1024,
     8,
     0.83,
     17,
     17,
     17,
     39,
     {{{1.2, 48, 34, 43, 135, 123}, {}, {}}},
     kDdr4DqTermination,
     kDdr4PhyPjPerBit,
     0,
     "DRAMsim3 DDR4_8Gb_x8_2400.ini (JEDEC DDR4-2400 bin, datasheet IDD); I/O: Micron TN-40-07 "
     "DQ termination (secondary); PHY: CACTI-IO DDR4 default"},
    // DRAMsim3 configs/DDR4_8Gb_x16_3200.ini: four x16 devices, 8 banks, 2 KiB rows per device.
    {"ddr4-3200",
     "64-bit channel (rank) of 4 x16 8 Gb devices",
     3200,
     64,
     8,
     4,
     2048,
     8,
     0.63,
     22,
     22,
     22,
     52,
     {{{1.2, 95, 37, 56, 302, 278}, {}, {}}},
     kDdr4DqTermination,
     kDdr4PhyPjPerBit,
     0,
     "DRAMsim3 DDR4_8Gb_x16_3200.ini (JEDEC DDR4-3200 bin, datasheet IDD); I/O: Micron TN-40-07 "
     "DQ termination (secondary); PHY: CACTI-IO DDR4 default"},
    // DRAMSys configs/memspec/MICRON_6Gb_LPDDR4-3200_32bit_A.json (tukl-msd/DRAMSys @ 3ff9a995):
    // one x16 channel, 8 banks, 2 KiB rows, BL16; rails VDD1 1.8 V, VDD2 1.1 V and VDDQ 1.1 V
    // (idd4rq 150, idd4wq 55, idd3nq 0.75 mA; the VDD1 read and write currents are not in the
    // memspec: taken as its IDD3N, adding nothing). IDD4RQ is the datasheet's test load.
    {"lpddr4-3200",
     "16-bit channel of a Micron 6 Gb LPDDR4 device",
     3200,
     16,
     8,
     1,
     2048,
     16,
     0.625,
     28,
     29,
     29,
     68,
     {{{1.8, 3.5, 2.0, 2.25, 2.25, 2.25},
       {1.1, 45, 27, 30, 275, 210},
       {1.1, 0.75, 0.75, 0.75, 150, 55, true}}},
     {},
     kMobilePhyPjPerBit,
     0,
     "DRAMSys MICRON_6Gb_LPDDR4-3200 memspec (Micron datasheet IDD, VDDQ rail as I/O); PHY: "
     "CACTI-IO LPDDR2 default"},
    // LPDDR5-6400, one x16 channel in bank-group mode: 4 groups x 4 banks, 2 KiB rows, BL16,
    // CK 800 MHz (tCK 1.25 ns, 8 data beats per CK); timings CL 17, tRCD 15, tRP 15, tRAS 34 CK
    // (CMU-SAFARI/ramulator2 @ c5b1c3a4, python/ramulator/dram/lpddr5.py lines 197-214, citing
    // JESD209-5B; gem5 @ b1a44b89 lpddr5.py agrees on the organisation). Currents: Micron Y52P
    // LPDDR5X 16 Gb datasheet, Rev. H 03/2025, Table 18 (single die, 7500 MT/s, maxima, IDD4RQ
    // typical; read
    // in a transcription, so secondary: docs/research/DramInterfaceSources.md section 2):
    // VDD1 1.8 V, VDD2H 1.05 V, VDDQ 0.5 V (ODT on). No simulator config carries LPDDR5 currents.
    {"lpddr5-6400",
     "16-bit channel of an LPDDR5 device (bank-group mode)",
     6400,
     16,
     16,
     1,
     2048,
     16,
     1.25 / 4, // the 3.2 GHz double-data-rate clock: the source's 800 MHz CK counts x 4
     68,
     60,
     60,
     136,
     {{{1.8, 3.8, 1.5, 2.8, 18.0, 16.5},
       {1.05, 53, 32.5, 40, 390, 265},
       {0.5, 0.6, 0.6, 0.6, 111.9, 0.6, true}}},
     {},
     kMobilePhyPjPerBit,
     7500,
     "timings: Ramulator2 LPDDR5_6400 (JESD209-5B); currents: Micron Y52P LPDDR5X Table 18 "
     "(secondary, maxima at 7500 MT/s); PHY: CACTI-IO LPDDR2 default"},
    // DRAMsim3 configs/HBM2_8Gb_x128.ini: one 128-bit legacy channel at 2 Gb/s per pin (a stack
    // has 8), 16 banks, 1 KiB rows, BL4. Device I/O: 0.3 pJ/bit of interposer I/O, O'Connor et
    // al., "Fine-Grained DRAM", MICRO 2017 (HBM2 3.97 pJ/bit = activation 1.21 + on-die data
    // movement 2.24 + I/O 0.3; read in transcriptions, docs/research/CellsWiresDram.md C.3),
    // no separate PHY figure.
    {"hbm2",
     "128-bit channel of an 8 Gb HBM2 stack (8 channels per stack)",
     2000,
     128,
     16,
     1,
     1024,
     4,
     1.0,
     14,
     14,
     14,
     34,
     {{{1.2, 65, 40, 55, 390, 500}, {}, {}}},
     {0, 0, 0.3},
     0,
     0,
     "DRAMsim3 HBM2_8Gb_x128.ini (datasheet IDD); I/O: O'Connor et al. MICRO 2017"},
}};

DramStandard derive(const SpeedBin& b) {
  DramStandard d;
  d.name = b.name;
  d.organisation = b.organisation;
  d.dataRateMtPerS = b.dataRateMtPerS;
  d.busBits = b.busBits;
  d.banks = b.banks;
  d.rowBytes = b.rowBytesPerDevice * b.devices;
  d.burstBytes = b.busBits / 8 * b.burstLength;
  d.tRcdNs = static_cast<double>(b.tRcd) * b.tCkNs;
  d.tClNs = static_cast<double>(b.cl) * b.tCkNs;
  d.tRpNs = static_cast<double>(b.tRp) * b.tCkNs;
  d.tRasNs = static_cast<double>(b.tRas) * b.tCkNs;
  const auto devices = static_cast<double>(b.devices);
  const double tRc = static_cast<double>(b.tRas + b.tRp);
  // A burst's data beats at the rate the currents were measured at, in ns (burst length /
  // 2 clocks of a double-data-rate clock at the channel's own rate).
  const double rateRatio = b.currentsMtPerS > 0 ? b.dataRateMtPerS / b.currentsMtPerS : 1.0;
  const double burstNs = static_cast<double>(b.burstLength) / 2 * b.tCkNs * rateRatio;
  double act = 0, read = 0, write = 0, ioRead = 0, ioWrite = 0;
  for (const Rail& r : b.rails) {
    act += r.vddV * (r.idd0 * tRc - (r.idd3n * static_cast<double>(b.tRas) +
                                     r.idd2n * static_cast<double>(b.tRp)));
    (r.io ? ioRead : read) += r.vddV * (r.idd4r - r.idd3n) * burstNs;
    (r.io ? ioWrite : write) += r.vddV * (r.idd4w - r.idd3n) * burstNs;
  }
  // mA x V x ns = pJ.
  const double burstBits = static_cast<double>(d.burstBytes) * 8;
  const double gbPerSPerPin = b.dataRateMtPerS * 1e-3;
  d.activatePj = act * b.tCkNs * devices;
  d.readPjPerBit = read * devices / burstBits;
  d.writePjPerBit = write * devices / burstBits;
  d.ioReadPjPerBit =
      ioRead * devices / burstBits + b.deviceIo.dqReadMwPerPin / gbPerSPerPin + b.deviceIo.pjPerBit;
  d.ioWritePjPerBit = ioWrite * devices / burstBits + b.deviceIo.dqWriteMwPerPin / gbPerSPerPin +
                      b.deviceIo.pjPerBit;
  d.phyPjPerBit = b.phyPjPerBit;
  d.source = b.source;
  return d;
}

const std::vector<DramStandard>& standards() {
  static const std::vector<DramStandard> all = [] {
    std::vector<DramStandard> v;
    for (const SpeedBin& b : kBins)
      v.push_back(derive(b));
    return v;
  }();
  return all;
}

} // namespace

std::vector<std::string> dramStandardNames() {
  std::vector<std::string> names;
  for (const DramStandard& d : standards())
    names.push_back(d.name);
  return names;
}

const DramStandard& dramStandard(std::string_view name) {
  for (const DramStandard& d : standards())
    if (d.name == name)
      return d;
  throw Error(ErrorKind::Config, {},
              fmt::format("unknown DRAM standard '{}' (known: {})", name,
                          fmt::join(dramStandardNames(), ", ")));
}

RowSweep rowSweepOfRun(const DramStandard& d, int64_t bytes) {
  NNACCEL_ASSERT(bytes > 0) << "a run of " << bytes << " bytes";
  const auto span = static_cast<double>(bytes);
  // A run starting at a burst boundary, uniformly placed in its row, crosses (span - burst) /
  // row row boundaries on average.
  return {1.0 + std::max(0.0, span - static_cast<double>(d.burstBytes)) /
                    static_cast<double>(d.rowBytes),
          span};
}

RowSweep rowSweepRepeated(const DramStandard& d, const RowSweep& inner, int64_t count,
                          int64_t strideBytes) {
  NNACCEL_ASSERT(count > 0) << "a pattern of " << count << " accesses";
  const double span =
      static_cast<double>(count - 1) * static_cast<double>(std::abs(strideBytes)) + inner.spanBytes;
  // Either every access opens its rows anew, or the accesses sweep open rows: the cheaper.
  const double apart = static_cast<double>(count) * inner.activations;
  const double swept = 1.0 + std::max(0.0, span - static_cast<double>(d.burstBytes)) /
                                 static_cast<double>(d.rowBytes);
  return {std::min(apart, swept), span};
}

} // namespace nnaccel::tech
