/// \file
/// SCALE-Sim's write_buffer.py, element by element in effect but in bulk in practice: between
/// two triggers (a drain start or a stall) the words of a line only fill the staging line.
#include "WriteBuffer.h"

#include "nnaccel/support/Error.h"

#include <algorithm>

namespace nnaccel::scalesim::detail {

WriteBuffer::WriteBuffer(int64_t sramWords, int64_t wordsPerCycle)
    : activeWords_((sramWords + 1) / 2), drainWords_(sramWords - activeWords_),
      wordsPerCycle_(wordsPerCycle), freeWords_(sramWords) {}

void WriteBuffer::store(int64_t words) {
  freeWords_ -= words;
  const int64_t filled = lineFill_ + words;
  rowsClosed_ += filled / wordsPerCycle_;
  lineFill_ = filled % wordsPerCycle_;
}

void WriteBuffer::closePartialRow() {
  if (lineFill_ != 0) {
    partialRows_.emplace_back(rowsClosed_, lineFill_);
    ++rowsClosed_;
    lineFill_ = 0;
  }
}

int64_t WriteBuffer::drain(int64_t startCycle) {
  const int64_t rows =
      std::min((drainWords_ + wordsPerCycle_ - 1) / wordsPerCycle_, rowsClosed_ - drainedRows_);
  NNACCEL_ASSERT(rows > 0) << "write buffer drain with nothing to drain";
  const int64_t lastRow = drainedRows_ + rows - 1;
  int64_t lastRowWords = wordsPerCycle_;
  while (!partialRows_.empty() && partialRows_.front().first <= lastRow) {
    if (partialRows_.front().first == lastRow) {
      lastRowWords = partialRows_.front().second;
    }
    partialRows_.pop_front();
  }
  const int64_t words = rows * wordsPerCycle_ - (wordsPerCycle_ - lastRowWords);
  dramWrites_ += words;
  freeWords_ += words;
  drainedRows_ += rows;
  if (firstDrainCycle_ < 0) {
    firstDrainCycle_ = startCycle;
  }
  lastDrainCycle_ = startCycle + rows - 1;
  return lastDrainCycle_;
}

int64_t WriteBuffer::write(int64_t words, int64_t cycle) {
  int64_t current = cycle;
  while (words > 0) {
    if (current < drainEndCycle_) {
      // Stall on the word that leaves no free space while the drain runs.
      const int64_t quiet = std::min(words, std::max<int64_t>(freeWords_ - 1, 0));
      store(quiet);
      words -= quiet;
      if (words == 0) {
        break;
      }
      store(1);
      --words;
      current = drainEndCycle_;
    } else {
      // Start a drain on the word that leaves less than the active half free.
      const int64_t quiet = std::min(words, std::max<int64_t>(freeWords_ - activeWords_, 0));
      store(quiet);
      words -= quiet;
      if (words == 0) {
        break;
      }
      store(1);
      --words;
      closePartialRow();
      drainEndCycle_ = drain(current);
    }
  }
  return current - cycle;
}

void WriteBuffer::drainAll(int64_t cycle) {
  closePartialRow();
  while (drainedRows_ < rowsClosed_) {
    drainEndCycle_ = drain(cycle);
    cycle = drainEndCycle_ + 1;
  }
}

} // namespace nnaccel::scalesim::detail
