// DRAM standards of the technology model (docs/Technology.md "DRAM"; research notes in
// docs/research/CellsWiresDram.md section C): each channel's organisation, timings and datasheet
// currents as read in the simulator configs that carry them, and the energies derived from the
// currents by the Micron TN-41-01 method as DRAMsim3 applies it (umd-memsys/DRAMsim3 @ 29817593,
// src/configuration.cc lines 203-207), with the clock period applied (DRAMsim3 leaves its
// results in mA x V x cycles, equal to pJ only at a 1 ns clock):
//   activation + precharge = VDD x (IDD0 x tRC - (IDD3N x tRAS + IDD2N x tRP)) x tCK x devices
//   read burst             = VDD x (IDD4R - IDD3N) x BL/2 x tCK x devices   (write: IDD4W)
// summed over the supply rails the source lists. The currents exclude I/O termination: a
// standard's interface energy is added only where a source gives one.
#include "nnaccel/tech/Dram.h"

#include "nnaccel/support/Error.h"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <fmt/format.h>

namespace nnaccel::tech {

namespace {

/// One supply rail's datasheet currents, in mA.
struct Rail {
  double vddV, idd0, idd2n, idd3n, idd4r, idd4w;
};

/// A speed bin as its source gives it: timings in clock cycles, the rails of one device.
struct SpeedBin {
  const char* name;
  const char* organisation;
  double dataRateMtPerS;
  int64_t busBits, banks, devices, rowBytesPerDevice, burstLength;
  double tCkNs;
  int64_t cl, tRcd, tRp, tRas;
  std::array<Rail, 2> rails; ///< a rail with vddV 0 is absent
  double interfacePjPerBit;
  const char* source;
};

constexpr std::array<SpeedBin, 4> kBins{{
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
     {{{1.2, 48, 34, 43, 135, 123}, {}}},
     0,
     "DRAMsim3 DDR4_8Gb_x8_2400.ini (JEDEC DDR4-2400 bin, datasheet IDD); I/O not included"},
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
     {{{1.2, 95, 37, 56, 302, 278}, {}}},
     0,
     "DRAMsim3 DDR4_8Gb_x16_3200.ini (JEDEC DDR4-3200 bin, datasheet IDD); I/O not included"},
    // DRAMSys configs/memspec/MICRON_6Gb_LPDDR4-3200_32bit_A.json (tukl-msd/DRAMSys @ 3ff9a995):
    // one x16 channel, 8 banks, 2 KiB rows, BL16; rails VDD1 1.8 V and VDD2 1.1 V (the VDD1 read
    // and write currents are not in the memspec: taken as its IDD3N, adding nothing).
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
     {{{1.8, 3.5, 2.0, 2.25, 2.25, 2.25}, {1.1, 45, 27, 30, 275, 210}}},
     0,
     "DRAMSys MICRON_6Gb_LPDDR4-3200 memspec (Micron datasheet IDD); I/O not included"},
    // DRAMsim3 configs/HBM2_8Gb_x128.ini: one 128-bit legacy channel at 2 Gb/s per pin (a stack
    // has 8), 16 banks, 1 KiB rows, BL4. Interface: 0.3 pJ/bit of interposer I/O, O'Connor et
    // al., "Fine-Grained DRAM", MICRO 2017 (HBM2 3.97 pJ/bit = activation 1.21 + on-die data
    // movement 2.24 + I/O 0.3; read in transcriptions, docs/research/CellsWiresDram.md C.3).
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
     {{{1.2, 65, 40, 55, 390, 500}, {}}},
     0.3,
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
  const double burstCycles = static_cast<double>(b.burstLength) / 2;
  double act = 0, read = 0, write = 0;
  for (const Rail& r : b.rails) {
    act += r.vddV * (r.idd0 * tRc - (r.idd3n * static_cast<double>(b.tRas) +
                                     r.idd2n * static_cast<double>(b.tRp)));
    read += r.vddV * (r.idd4r - r.idd3n) * burstCycles;
    write += r.vddV * (r.idd4w - r.idd3n) * burstCycles;
  }
  // mA x V x cycles x ns/cycle = pJ.
  const double burstBits = static_cast<double>(d.burstBytes) * 8;
  d.activatePj = act * b.tCkNs * devices;
  d.readPjPerBit = read * b.tCkNs * devices / burstBits;
  d.writePjPerBit = write * b.tCkNs * devices / burstBits;
  d.interfacePjPerBit = b.interfacePjPerBit;
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
