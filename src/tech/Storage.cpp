// Storage components of the technology model (docs/Technology.md, "Storage"): registers,
// flip-flop FIFOs, SRAMs as a function of capacity, word width, banks and ports, and lookup
// tables, at 45 nm; and the static power of logic per unit area.
//
// SRAM: CACTI runs made by Accelergy's CACTI plug-in and logged in the reference outputs of
// Accelergy-Project/timeloop-accelergy-exercises @ 2d551080
// (workspace/example_designs/example_designs/<design>/ref_outputs/default_problem/
// timeloop-mapper.accelergy.log and *.ART_summary.yaml), 45 nm, one port, one bank: published
// tool runs, not a paper (docs/research/TechnologySources.md section 3).
// Registers and logic leakage: the Aladdin primitive table (Y. S. Shao et al., "Aladdin: a
// pre-RTL, power-performance accelerator simulator", ISCA 2014; 40 nm, 1 ns cycle) as transcribed
// in Accelergy-Project/accelergy-library-plug-in @ ba4e9dac library/aladdin/*.csv, which that
// plug-in applies unscaled at 45 nm; so do we.
#include "Library.h"
#include "nnaccel/support/Error.h"

#include <array>
#include <cmath>
#include <fmt/format.h>

namespace nnaccel::tech::detail {

namespace {

/// A CACTI run: capacity, word width, read and write energy per access, area.
struct SramRun {
  double capacityBytes, widthBits, readPj, writePj, areaUm2;
};
constexpr std::array<SramRun, 3> kCactiRuns{{
    // simple_weight_stationary shared_glb: 16384 x 64 b (CACTI log; ART area incl. address
    // generation)
    {131072, 64, 32.286, 26.065, 429745.6},
    // simba_like GlobalBuffer: 2048 x 256 b
    {65536, 256, 51.799, 66.239, 199065.1},
    // simple_weight_stationary pe_spad, priced by the plug-in at its 768 B minimum, 32 b words
    {768, 32, 0.628, 1.530, 1419.8},
}};
/// SRAM static power per bit: 3.34e-15 J per 1 ns cycle for the 128 KiB run and 1.66e-15 for
/// the 64 KiB run (3.19e-12 and 3.17e-12 W per bit); their mean.
constexpr double kSramLeakageWPerBit = (3.34e-6 / (131072.0 * 8) + 1.66e-6 / (65536.0 * 8)) / 2;
/// The smallest SRAM priced: the CACTI plug-in's minimum (smaller arrays are priced as this).
constexpr double kMinSramBytes = 768;

/// Ports. The cell grows by two local-wire pitches in height and in width per port beyond the
/// first (CACTI 7, HewlettPackard/cacti @ 1ffd8dfb, parameter.cc lines 2016-2036); at 45 nm the
/// single-port cell is 10 F x 14.6 F (tech_params/45nm.dat lines 56-57: 146 F^2, aspect 1.46)
/// and the pitch 2.5 F (line 92), so a cell of P ports is (10 + 5 (P-1)) x (14.6 + 5 (P-1)) F^2.
/// Energy per access and leakage grow linearly with the ports, fitted to CACTI 7 runs at those
/// sources (4 KB of 64-bit words, 45 nm, high-performance cells; 1, 2, 3, 6 and 12 ports:
/// docs/research/OverheadSources.md section 3): read +20.6 % and write +23.5 % per added port,
/// leakage +21.2 % (its 1- and 12-port runs). Our runs, so the fit is ours.
constexpr double kCellWidthF = 10, kCellHeightF = 14.6, kPortPitchesF = 5;
constexpr double kReadPerPort = 0.206, kWritePerPort = 0.235, kLeakagePerPort = 0.212;
constexpr int64_t kMaxSramPorts = 16;

double cellAreaRatio(int64_t ports) {
  const double extra = kPortPitchesF * static_cast<double>(ports - 1);
  return (kCellWidthF + extra) * (kCellHeightF + extra) / (kCellWidthF * kCellHeightF);
}

/// Aladdin: a 1-bit register costs 0.009 pJ per read and 5.98 um^2 (write energy 0, as in
/// Accelergy's reference table for registers: the clock's energy is not split out).
constexpr double kRegisterReadPjPerBit = 0.009;
constexpr double kRegisterAreaUm2PerBit = 5.98;
/// Aladdin leakage at a 1 ns cycle: 32-bit adder 0.0024 pJ per cycle on 278 um^2, 32x32
/// multiplier 0.08 pJ per cycle on 6350 um^2.
constexpr double kAdderLeakageWPerUm2 = 0.0024e-12 / 1e-9 / 278;
constexpr double kMultiplierLeakageWPerUm2 = 0.08e-12 / 1e-9 / 6350;

/// y = k * capacity^a * width^b through three runs (solved exactly in logs, Cramer's rule): the
/// power law of a CACTI-like model, fitted to the published runs (our choice of form).
struct PowerLaw {
  double lnK = 0, a = 0, b = 0;
  double at(double capacityBytes, double widthBits) const {
    return std::exp(lnK + a * std::log(capacityBytes) + b * std::log(widthBits));
  }
};

template <typename F> PowerLaw fitRuns(F value) {
  std::array<std::array<double, 4>, 3> m{};
  for (size_t i = 0; i < 3; ++i)
    m[i] = {1.0, std::log(kCactiRuns[i].capacityBytes), std::log(kCactiRuns[i].widthBits),
            std::log(value(kCactiRuns[i]))};
  const auto det = [&](size_t replace) {
    const auto e = [&](size_t r, size_t c) { return c == replace ? m[r][3] : m[r][c]; };
    return e(0, 0) * (e(1, 1) * e(2, 2) - e(1, 2) * e(2, 1)) -
           e(0, 1) * (e(1, 0) * e(2, 2) - e(1, 2) * e(2, 0)) +
           e(0, 2) * (e(1, 0) * e(2, 1) - e(1, 1) * e(2, 0));
  };
  const double d = det(3);
  return {det(0) / d, det(1) / d, det(2) / d};
}

const PowerLaw& readLaw() {
  static const PowerLaw law = fitRuns([](const SramRun& r) { return r.readPj; });
  return law;
}
const PowerLaw& writeLaw() {
  static const PowerLaw law = fitRuns([](const SramRun& r) { return r.writePj; });
  return law;
}
const PowerLaw& areaLaw() {
  static const PowerLaw law = fitRuns([](const SramRun& r) { return r.areaUm2; });
  return law;
}

SourceCost sramCost(double capacityBytes, double widthBits, int64_t banks, int64_t ports,
                    const char* source) {
  const double bank = std::max(capacityBytes / static_cast<double>(banks), kMinSramBytes);
  const auto added = static_cast<double>(ports - 1);
  return {readLaw().at(bank, widthBits) * (1 + kReadPerPort * added),
          writeLaw().at(bank, widthBits) * (1 + kWritePerPort * added),
          static_cast<double>(banks) * areaLaw().at(bank, widthBits) * cellAreaRatio(ports), source,
          kSramLeakageWPerBit * capacityBytes * 8 * (1 + kLeakagePerPort * added)};
}

void requirePositive(int64_t v, std::string_view what) {
  if (v < 1)
    throw Error(ErrorKind::Config, {}, fmt::format("{} must be at least 1 (got {})", what, v));
}

} // namespace

ProcessNode storageSourceNode() {
  return node("45nm");
}

double logicLeakageWPerUm2(ComponentClass cls) {
  return cls == ComponentClass::IntMultiplier || cls == ComponentClass::FpMultiplier
             ? kMultiplierLeakageWPerUm2
             : kAdderLeakageWPerUm2;
}

SourceCost storageCost(const ComponentSpec& s) {
  requirePositive(s.widthBits, "width_bits");
  const auto w = static_cast<double>(s.widthBits);
  const char* aladdin = "Aladdin ISCA 2014 (40 nm, as Accelergy's library applies it at 45 nm)";
  const char* cacti = "CACTI runs of Accelergy's exercises (45 nm), power law fitted";
  switch (s.cls) {
  case ComponentClass::Register:
    return {kRegisterReadPjPerBit * w, 0, kRegisterAreaUm2PerBit * w, aladdin,
            kAdderLeakageWPerUm2 * kRegisterAreaUm2PerBit * w};
  case ComponentClass::FlipFlopFifo: {
    requirePositive(s.depth, "depth");
    const double bits = w * static_cast<double>(s.depth);
    return {kRegisterReadPjPerBit * w, kRegisterReadPjPerBit * w, kRegisterAreaUm2PerBit * bits,
            aladdin, kAdderLeakageWPerUm2 * kRegisterAreaUm2PerBit * bits};
  }
  case ComponentClass::Sram:
    requirePositive(s.capacityBytes, "capacity_bytes");
    requirePositive(s.banks, "banks");
    if (s.capacityBytes * 8 < s.widthBits * s.banks)
      throw Error(ErrorKind::Config, {},
                  fmt::format("an SRAM of {} bytes in {} banks cannot hold one {}-bit word per "
                              "bank",
                              s.capacityBytes, s.banks, s.widthBits));
    if (s.ports < 1 || s.ports > kMaxSramPorts)
      throw Error(ErrorKind::Config, {},
                  fmt::format("an SRAM of {} ports: 1 to {} are priced", s.ports, kMaxSramPorts));
    return sramCost(static_cast<double>(s.capacityBytes), w, s.banks, s.ports, cacti);
  case ComponentClass::LookupTable: {
    if (s.indexBits < 1 || s.indexBits > 24)
      throw Error(ErrorKind::Config, {},
                  fmt::format("a lookup table of 2^{} entries: 1 to 24 index bits are priced",
                              s.indexBits));
    const double bytes = std::ldexp(w, static_cast<int>(s.indexBits)) / 8;
    return sramCost(bytes, w, 1, 1, cacti);
  }
  default:
    NNACCEL_UNREACHABLE("not a storage class");
  }
}

} // namespace nnaccel::tech::detail
