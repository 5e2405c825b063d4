/// \file
/// DRAM as a part of the technology model (docs/Technology.md, "DRAM"): named standards with the
/// organisation, timings and datasheet currents of one channel, the energies derived from them
/// by the Micron TN-41-01 method (as DRAMsim3 applies it), and a row-buffer model that counts
/// the row activations of an access pattern. Every figure is defined once, with its source, in
/// src/tech/Dram.cpp.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace nnaccel::tech {

/// One channel of a DRAM standard at one speed bin.
struct DramStandard {
  std::string name;         ///< "ddr4-2400", "hbm2", ...
  std::string organisation; ///< what one channel is ("64-bit channel of 8 x8 8 Gb devices")
  double dataRateMtPerS = 0;
  int64_t busBits = 0;    ///< data bits of one channel
  int64_t banks = 0;      ///< banks of one channel (rank)
  int64_t rowBytes = 0;   ///< bytes one activation opens across the channel's devices
  int64_t burstBytes = 0; ///< bytes of one burst on the channel
  double tRcdNs = 0, tClNs = 0, tRpNs = 0, tRasNs = 0;
  double activatePj = 0;      ///< one activation and its precharge, all devices of the channel
  double readPjPerBit = 0;    ///< array and periphery above background (core rails), per bit read
  double writePjPerBit = 0;   ///< the same, written
  double ioReadPjPerBit = 0;  ///< the device's I/O (I/O rail or DQ termination), per bit read
  double ioWritePjPerBit = 0; ///< the same, written
  double phyPjPerBit = 0;     ///< the memory controller's PHY, per bit either way
  std::string source;

  /// Everything one bit read costs on the channel, activation aside.
  double readTotalPjPerBit() const { return readPjPerBit + ioReadPjPerBit + phyPjPerBit; }
  /// The same, written.
  double writeTotalPjPerBit() const { return writePjPerBit + ioWritePjPerBit + phyPjPerBit; }

  /// Peak bandwidth of the channel.
  double peakBytesPerNs() const { return dataRateMtPerS * 1e-3 * static_cast<double>(busBits) / 8; }
  /// Row cycle: the least time between two activations of one bank.
  double tRcNs() const { return tRasNs + tRpNs; }
  /// First data of a read that opens a row (the bank precharged).
  double rowMissLatencyNs() const { return tRcdNs + tClNs; }
};

/// The named standards, in listing order.
std::vector<std::string> dramStandardNames();
/// The standard \p name; throws nnaccel::Error (Config) listing the names when there is none.
const DramStandard& dramStandard(std::string_view name);

/// Row activations of one access pattern: \p count accesses of \p bytes each, \p strideBytes
/// apart, inside which \p innerActivations rows are opened by each access spanning
/// \p innerSpanBytes. A level whose whole span stays in open rows costs 1 + (span - burst) / row
/// activations; one whose accesses are farther apart than a row costs each access its own
/// (docs/Technology.md "DRAM": our model of an open-page controller sweeping addresses upward).
struct RowSweep {
  double activations = 0; ///< rows opened (fractional: the expectation over alignments)
  double spanBytes = 0;   ///< from the first byte to the last
};
/// A contiguous run of \p bytes.
RowSweep rowSweepOfRun(const DramStandard& d, int64_t bytes);
/// \p count repetitions of \p inner, \p strideBytes apart.
RowSweep rowSweepRepeated(const DramStandard& d, const RowSweep& inner, int64_t count,
                          int64_t strideBytes);

} // namespace nnaccel::tech
