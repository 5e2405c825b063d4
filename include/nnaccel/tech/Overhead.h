/// \file
/// Chip-level overheads the component classes leave out (docs/Technology.md, "Clock network and
/// control"): the clock network's share of a chip's power and area, and control logic's share of
/// its area, each as its source published it. An engine's inventory adds them as parts
/// (arch/common/Technology.h, addOverheads); a config may override each share.
#pragma once

namespace nnaccel::tech {

/// Shares of a finished chip, each in [0, 1).
struct ChipShares {
  double clockPower = 0;  ///< the clock network's share of the chip's peak power
  double clockArea = 0;   ///< its share of the chip's area
  double controlArea = 0; ///< control logic's share of the chip's area
};

/// The published shares (src/tech/Overhead.cpp).
ChipShares publishedChipShares();

/// Static power per um^2 of standard-cell logic such as control: the Aladdin adder rate (as the
/// arithmetic classes use it), held across nodes like every leakage figure.
double logicLeakageWPerUm2();

} // namespace nnaccel::tech
