// Standard-cell logic of the technology model (docs/Technology.md, "Logic"): multiplexers, built
// as trees of 2:1 cells, at 45 nm.
//
// Source: the Nangate (FreePDK45) Open Cell Library, typical corner (TypTyp, 25 C, 1.10 V),
// NangateOpenCellLibrary_typical.lib revision 1.0 of 10 Feb 2011, cell MUX2_X1, read in the copy
// at Max-astro/dp-buffer-insertion @ 9969ff5b (docs/research/CellsWiresDram.md section A).
// Liberty internal_power values are energies per output transition in the library's
// capacitance x voltage^2 unit (1 fF x 1 V^2 = 1 fJ).
#include "Library.h"
#include "nnaccel/support/Error.h"

#include <bit>
#include <fmt/format.h>

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
/// Our choice: a data bit toggles with probability 0.5 per cycle (uncorrelated data).
constexpr double kActivity = 0.5;

constexpr int64_t kMaxMuxInputs = int64_t{1} << 20;

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

SourceCost logicCost(const ComponentSpec& s) {
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
