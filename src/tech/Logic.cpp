// Standard-cell logic and wires of the technology model (docs/Technology.md, "Logic"):
// multiplexers, built as trees of 2:1 cells, at 45 nm; on-chip wires per bit and millimetre;
// chip-to-chip serial links per bit.
//
// Source: the Nangate (FreePDK45) Open Cell Library, typical corner (TypTyp, 25 C, 1.10 V),
// NangateOpenCellLibrary_typical.lib revision 1.0 of 10 Feb 2011, cell MUX2_X1, read in the copy
// at Max-astro/dp-buffer-insertion @ 9969ff5b (docs/research/CellsWiresDram.md section A).
// Liberty internal_power values are energies per output transition in the library's
// capacitance x voltage^2 unit (1 fF x 1 V^2 = 1 fJ).
#include "Library.h"
#include "nnaccel/support/Error.h"

#include <array>
#include <bit>
#include <cmath>
#include <fmt/format.h>
#include <utility>

namespace nnaccel::tech::detail {

namespace {

/// MUX2_X1 `area`.
constexpr double kMux2AreaUm2 = 1.862;
/// MUX2_X1 internal energy per output transition driven by a data input (A or B): the mean of
/// the fall and rise tables at their 4th index (41 ps input slew, 7.56 fF load): A 3.648/2.566,
/// B 3.941/2.232 fJ.
constexpr double kMux2InternalFj = (3.648 + 2.566 + 3.941 + 2.232) / 4;
/// MUX2_X1 data-pin capacitance (pin A 0.946 fF, B 0.945 fF).
constexpr double kMux2InputCapFf = 0.946;
/// MUX2_X1 `cell_leakage_power` (nW; the library's leakage_power_unit).
constexpr double kMux2LeakageNw = 35.93;
/// The library's nominal supply.
constexpr double kLibraryVddV = 1.10;
/// The supply of DSENT's Bulk45LVT technology, at which its arbiter figures are (below).
constexpr double kDsentVddV = 1.0;
/// Our choice: a data bit toggles with probability 0.5 per cycle (uncorrelated data).
constexpr double kActivity = 0.5;

constexpr int64_t kMaxMuxInputs = int64_t{1} << 20;

/// On-chip wire energy per bit, millimetre and transition: 240 fJ at 40 nm and 150 fJ projected
/// for 10 nm (the high-voltage column), S. W. Keckler, W. J. Dally, B. Khailany, M. Garland,
/// D. Glasco, "GPUs and the Future of Parallel Computing", IEEE Micro 31(5), 2011, Table 1 (read
/// in two transcriptions only: docs/research/CellsWiresDram.md B). Its "256 bits over 10 mm:
/// 310 pJ" is 0.121 pJ per bit and mm moved, the 240 fJ at the 0.5 activity used here; the
/// Nangate library's wire-load capacitance (0.1774 fF/um at 1.1 V) gives 0.107 pJ per transition,
/// the same order. Wires barely scale with the node (their capacitance per mm stays), so a node's
/// figure is interpolated between the two in log(feature size), as the table projects, not
/// scaled by the logic equations.
constexpr double kWireNm40PjPerBitMm = 0.240, kWireNm10PjPerBitMm = 0.150;

double wirePjPerBitMmTransition(double featureNm) {
  const double t = std::log(40.0 / featureNm) / std::log(40.0 / 10.0);
  return kWireNm40PjPerBitMm * std::pow(kWireNm10PjPerBitMm / kWireNm40PjPerBitMm, t);
}

/// One selection of a k-input, n-bit tree: every data input the cycle drives charges its pin
/// (k pins of 1/2 C V^2 per transition) and the selected path's log2(k) cells switch; the
/// unselected cells' outputs do not (the select lines are static over a run: weights are
/// stationary). Our model of the cell's figures; each bit toggles with kActivity.
double selectionEnergyPj(int64_t inputs, int64_t widthBits) {
  const auto levels = static_cast<double>(std::bit_width(static_cast<uint64_t>(inputs - 1)));
  const double pinFj = 0.5 * kMux2InputCapFf * kLibraryVddV * kLibraryVddV;
  return static_cast<double>(widthBits) * kActivity *
         (levels * kMux2InternalFj + static_cast<double>(inputs) * pinFj) * 1e-3;
}

} // namespace

ProcessNode logicSourceNode() {
  return node("45nm", kLibraryVddV);
}

ProcessNode arbiterSourceNode() {
  return node("45nm", kDsentVddV);
}

namespace {

SourceCost wireCost(const ComponentSpec& s, const ProcessNode& at) {
  if (s.widthBits < 1 || s.widthBits > 1 << 16)
    throw Error(ErrorKind::Config, {},
                fmt::format("a wire of {} bits: widths 1 to 65536 are priced", s.widthBits));
  if (!(s.lengthUm >= 0 && s.lengthUm <= 1e5))
    throw Error(ErrorKind::Config, {},
                fmt::format("a wire of {} um: lengths 0 to 100 mm are priced", s.lengthUm));
  // Routed over the logic in the upper metal layers: no area of its own (our choice), and no
  // repeaters' leakage.
  return {static_cast<double>(s.widthBits) * s.lengthUm * 1e-3 *
              wirePjPerBitMmTransition(at.featureNm) * kActivity,
          0, 0, "Keckler et al. IEEE Micro 2011 (40 nm, secondary)", 0};
}

} // namespace

/// A short-reach chip-to-chip link in a package: 0.54 pJ per bit, J. W. Poulton et al., "A 0.54
/// pJ/b 20 Gb/s Ground-Referenced Single-Ended Short-Reach Serial Link in 28 nm CMOS for Advanced
/// Packaging Applications", IEEE JSSC 48(12), 2013 (abstract: 16-lane links over 4.5 mm of
/// organic package substrate, 0.9 V). A link's energy is set by its signalling and channel, so
/// the figure is used at every node (our choice); the paper gives no area per lane, so a link
/// has none here (nor leakage: its energy per bit is the whole-link figure at speed).
constexpr double kSerialLinkPjPerBit = 0.54;

ComponentCost serialLinkCost(const ComponentSpec& s) {
  if (s.widthBits < 1 || s.widthBits > 1 << 16)
    throw Error(
        ErrorKind::Config, {},
        fmt::format("a serial link word of {} bits: widths 1 to 65536 are priced", s.widthBits));
  return {static_cast<double>(s.widthBits) * kSerialLinkPjPerBit, 0, 0, 0,
          "Poulton et al. JSSC 2013 (28 nm ground-referenced link)"};
}

ComponentCost wireCostAt(const ComponentSpec& s, const ProcessNode& at) {
  const SourceCost c = wireCost(s, at);
  return {c.readEnergyPj, 0, 0, 0, c.source};
}

namespace {

/// Matrix arbiters: DSENT 0.91 (C. Sun et al., "DSENT - A Tool Connecting Emerging Photonics with
/// Electronics for Opto-Electronic Networks-on-Chip Modeling", NOCS 2012) as shipped in gem5
/// (ext/dsent, model/electrical/MatrixArbiter.cc: N(N-1)/2 priority flip-flops and their gates),
/// its Bulk45LVT technology (45 nm, 1.0 V): energy per arbitration and area for 2 to 32
/// requesters, from our runs (docs/research/OverheadSources.md section 4). DSENT's leakage is
/// not used: its LVT devices at 340 K leak about 19x the Nangate cells per um^2, so an arbiter
/// leaks at logic's rate like the other logic here.
struct ArbiterRun {
  double requesters, energyPj, areaUm2;
};
constexpr std::array<ArbiterRun, 5> kArbiterRuns{{
    {2, 0.0138, 16.5},
    {4, 0.0815, 93.6},
    {8, 0.341, 429},
    {16, 0.835, 1828},
    {32, 2.73, 7530},
}};
constexpr int64_t kMaxArbiterRequesters = 1024;

/// Between two runs, a power law through both (log-log interpolation; our choice); above 32
/// requesters, the last pair's law extended.
std::pair<double, double> arbiterAt(double requesters) {
  size_t i = 0;
  while (i + 2 < kArbiterRuns.size() && requesters > kArbiterRuns[i + 1].requesters)
    ++i;
  const ArbiterRun& a = kArbiterRuns[i];
  const ArbiterRun& b = kArbiterRuns[i + 1];
  const double t = std::log(requesters / a.requesters) / std::log(b.requesters / a.requesters);
  const auto along = [&](double x, double y) { return x * std::pow(y / x, t); };
  return {along(a.energyPj, b.energyPj), along(a.areaUm2, b.areaUm2)};
}

SourceCost arbiterCost(const ComponentSpec& s) {
  if (s.inputs < 2 || s.inputs > kMaxArbiterRequesters)
    throw Error(ErrorKind::Config, {},
                fmt::format("an arbiter of {} requesters: 2 to {} are priced", s.inputs,
                            kMaxArbiterRequesters));
  const auto [pj, um2] = arbiterAt(static_cast<double>(s.inputs));
  return {pj, 0, um2, "DSENT 0.91 matrix arbiter (45 nm LVT, our runs)",
          um2 * logicLeakageWPerUm2(ComponentClass::IntAdder)};
}

} // namespace

SourceCost logicCost(const ComponentSpec& s) {
  if (s.cls == ComponentClass::Arbiter)
    return arbiterCost(s);
  NNACCEL_ASSERT(s.cls == ComponentClass::Multiplexer) << "not a logic class";
  if (s.widthBits < 1 || s.widthBits > 4096)
    throw Error(ErrorKind::Config, {},
                fmt::format("a multiplexer of {} bits: widths 1 to 4096 are priced", s.widthBits));
  if (s.inputs < 2 || s.inputs > kMaxMuxInputs)
    throw Error(
        ErrorKind::Config, {},
        fmt::format("a multiplexer of {} inputs: 2 to {} are priced", s.inputs, kMaxMuxInputs));
  // A tree of k - 1 two-input cells per bit.
  const auto cells = static_cast<double>((s.inputs - 1) * s.widthBits);
  return {selectionEnergyPj(s.inputs, s.widthBits), 0, cells * kMux2AreaUm2,
          "Nangate 45 nm Open Cell Library MUX2_X1 (typical, 1.1 V)",
          cells * kMux2LeakageNw * 1e-9};
}

} // namespace nnaccel::tech::detail
