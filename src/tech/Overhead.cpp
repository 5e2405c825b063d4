// Chip-level overheads of the technology model (docs/Technology.md, "Clock network and
// control"): the shares of a chip the component tables do not hold, with their sources.
#include "nnaccel/tech/Overhead.h"

#include "Library.h"

namespace nnaccel::tech {

namespace {

/// The clock network: 0.71 W of the node's 15.97 W (4.48 %) and 586,323 um^2 (0.87 %) of its
/// area. Y. Chen et al., "DaDianNao: A Machine-Learning Supercomputer", MICRO 2014, Table VI
/// "Node layout characteristics" (ST 28 nm LP, 606 MHz; post-layout PrimePower at a 100 %
/// toggle rate, i.e. the chip's peak power; read in the authors' PDF:
/// docs/research/ClockFractionSources.md). The power total includes the node's HyperTransport
/// links; the share is applied to the whole chip as published. The table's percentage is used:
/// its rounded watts give 4.45 %.
constexpr double kClockPowerShare = 0.0448;
constexpr double kClockAreaShare = 0.0087;

/// Control: "just 2 %" of the TPU v1 die. N. P. Jouppi et al., "In-Datacenter Performance
/// Analysis of a Tensor Processing Unit", ISCA 2017, Fig. 2 caption and section 2 (28 nm;
/// docs/research/OverheadSources.md 1e). The paper gives no control power, so control adds area
/// and leakage only.
constexpr double kControlAreaShare = 0.02;

} // namespace

ChipShares publishedChipShares() {
  return {kClockPowerShare, kClockAreaShare, kControlAreaShare};
}

double logicLeakageWPerUm2() {
  return detail::logicLeakageWPerUm2(ComponentClass::IntAdder);
}

} // namespace nnaccel::tech
