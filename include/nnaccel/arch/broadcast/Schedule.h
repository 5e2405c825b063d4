/// \file
/// The broadcast schedule of one row pass (seed 004 §2.4, FIG. 8 generalized): which activation
/// is read in which slot, into which PE, and which PEs receive it by broadcast.
///
/// A pass streams positions j = 0 .. positions-1 of one input row (one kernel row r, one
/// vector v; with dilation the positions are every d-th column of one residue class, so the
/// pass is always dense). Operand k (k = 0 .. operands-1, an output point) holds positions
/// j = k * stride + n for taps n in [0, N); operand k is assigned to PE (k mod P), round robin.
/// A tap is *live* when it is one of the vector's real taps (n < realTaps: dummy columns are
/// bitmap-skipped) and its position is inside the input (valid range: padding is never read).
///
/// With broadcasting every live position is read once, in increasing order, into its *reader*
/// (the PE of the operand whose first live tap it is, else the PE of the last operand holding
/// it: the digest's choice for FIG. 8's tail), and broadcast to every other PE holding it in
/// the same slot. Without broadcasting every live (operand, tap) is its own read into its own
/// PE, in (position, operand) order. The conventional 1x1 decomposition is N = 1.
#pragma once

#include <cstdint>
#include <vector>

namespace nnaccel::arch::broadcast {

struct PassShape {
  int64_t positions = 0; ///< stream length J
  int64_t operands = 0;  ///< K
  int64_t taps = 1;      ///< N
  int64_t stride = 1;    ///< operand start step, in positions
  int64_t realTaps = 1;  ///< taps n < realTaps hold real weights (the rest are dummies)
  int64_t validBegin = 0, validEnd = 0; ///< positions inside the input: [validBegin, validEnd)
  bool operator==(const PassShape&) const = default;
};

/// One activation written into one PE's input register file.
struct Delivery {
  int32_t pe = 0;      ///< receiving PE (operand mod P)
  int32_t operand = 0; ///< k
  int32_t tap = 0;     ///< n: the activation's place in the operand
};

/// One memory read (a slot of FIG. 8) and the deliveries it feeds.
struct Slot {
  int64_t position = 0;                      ///< j
  int32_t reader = 0;                        ///< the PE whose internal memory the read lands in
  int32_t firstDelivery = 0, deliveries = 0; ///< range in RowSchedule::deliveries
};

struct RowSchedule {
  PassShape shape;
  int64_t pes = 1; ///< P
  bool broadcast = true;
  std::vector<Slot> slots;          ///< in read order
  std::vector<Delivery> deliveries; ///< reader first within each slot, then ascending operand
  /// Live taps of each operand (its completion needs this many deliveries).
  std::vector<int32_t> liveTaps;

  int64_t reads() const { return static_cast<int64_t>(slots.size()); }
  int64_t writes() const { return static_cast<int64_t>(deliveries.size()); }
  int64_t broadcasts() const { return writes() - reads(); } ///< PE-to-PE transfers
  /// histogram[r] = number of reads delivered to r PEs (r = 1 .. N; size N + 1, [0] is 0).
  std::vector<int64_t> reuseHistogram() const;
};

/// Builds the schedule of one pass on \p pes PEs. Requires P * stride >= N when broadcasting
/// (the N operands sharing a position sit on distinct PEs and never two unfinished operands on
/// one PE's buffer; asserted). Operands with no live tap still exist (they produce an output
/// from other passes) and receive nothing.
RowSchedule scheduleRow(const PassShape& shape, int64_t pes, bool broadcast);

} // namespace nnaccel::arch::broadcast
