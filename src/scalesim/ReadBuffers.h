/// \file
/// SCALE-Sim v2's two read-buffer models, run over an operand's read stream.
///
/// CALC mode (read_buffer_estimate_bw.py) never stalls: every new address joins the current
/// "set" of floor(words / 100) addresses; after 50 sets the buffer counts as refilled and
/// forgets everything it holds, so the DRAM reads are the misses of a cache that empties
/// every 50 sets. USER mode (read_buffer.py) cuts the prefetch order into sets of
/// ceil(words / 100) reads, keeps a circular window of them active, and on a miss slides the
/// window and issues a prefetch of fixed length that starts when the previous one ended; a read
/// waits for it. Both only depend on the address order, never on time, so they run here before
/// the cycle loop and hand it the lines where something happens. Internal to src/scalesim.
#pragma once

#include "Folds.h"

#include <cstdint>
#include <vector>

namespace nnaccel::scalesim::detail {

/// A line of the read stream whose reads issued prefetches (USER mode): the reads of that line
/// complete no earlier than lastPrefetchCycle.
struct ReadEvent {
  int64_t line = 0;
  int64_t lastPrefetchCycle = 0;
};

struct ReadStream {
  int64_t firstLine = -1; ///< first demand line with a valid read
  int64_t lastLine = -1;  ///< last demand line with a valid read
  int64_t dramReads = 0;  ///< words SCALE-Sim counts as read from DRAM

  // CALC mode. The DRAM trace starts calcLeadCycles before the first request when the buffer
  // was refilled at least once (at cycle -calcLeadCycles otherwise) and stops one cycle after
  // the last refill (at cycle -1 otherwise); the cycle loop turns lines into cycles.
  bool refilled = false;
  int64_t lastRefillLine = -1;
  int64_t calcLeadCycles = 0;

  // USER mode.
  std::vector<ReadEvent> stalls; ///< ascending lines
  int64_t userDramStartCycle = 0;
  int64_t userDramStopCycle = 0;
};

/// Runs \p op's read stream for this layer through the read buffer of \p config's mode.
ReadStream simulateReads(const LayerMatrices& m, const Folds& f, Operand op, const Config& config);

} // namespace nnaccel::scalesim::detail
