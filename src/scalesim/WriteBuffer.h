/// \file
/// SCALE-Sim v2's ofmap write buffer (write_buffer.py), advanced in bulk between the points
/// where it acts. Internal to src/scalesim.
///
/// Words enter a staging line of `wordsPerCycle` slots; full lines, and the partial line when
/// a drain starts, become rows of the DRAM trace. When the buffer holds more than its drain
/// half and no drain is running, a drain of ceil(drainWords / wordsPerCycle) rows starts at
/// the current cycle, one row per cycle, and frees the words of those rows at once: every row
/// counts as full except the last, whose empty slots are subtracted (so partial rows in the
/// middle of a drain count their empty slots as written, as in SCALE-Sim). A word that arrives
/// while a drain is running and the buffer is full stalls the array until the drain ends.
#pragma once

#include <cstdint>
#include <deque>
#include <utility>

namespace nnaccel::scalesim::detail {

class WriteBuffer {
public:
  WriteBuffer(int64_t sramWords, int64_t wordsPerCycle);

  /// Writes \p words words arriving in \p cycle; returns the stall (cycles the writes took
  /// beyond \p cycle).
  int64_t write(int64_t words, int64_t cycle);
  /// Drains everything left, back to back from \p cycle (SCALE-Sim's empty_all_buffers).
  void drainAll(int64_t cycle);

  int64_t dramWrites() const { return dramWrites_; }
  int64_t firstDrainCycle() const { return firstDrainCycle_; }
  int64_t lastDrainCycle() const { return lastDrainCycle_; }

private:
  void store(int64_t words);
  void closePartialRow();
  int64_t drain(int64_t startCycle);

  int64_t activeWords_, drainWords_, wordsPerCycle_;
  int64_t freeWords_;
  int64_t lineFill_ = 0;   ///< words in the staging line
  int64_t rowsClosed_ = 0; ///< rows in the trace so far
  int64_t drainedRows_ = 0;
  int64_t drainEndCycle_ = 0;
  std::deque<std::pair<int64_t, int64_t>> partialRows_; ///< (row, words) of rows closed early
  int64_t dramWrites_ = 0;
  int64_t firstDrainCycle_ = -1, lastDrainCycle_ = -1;
};

} // namespace nnaccel::scalesim::detail
