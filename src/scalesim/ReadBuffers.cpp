/// \file
/// SCALE-Sim's read buffers (read_buffer_estimate_bw.py for CALC, read_buffer.py for USER) as
/// miss counters over the read stream, with repeated passes skipped once they cannot change
/// anything (see ReadBuffers.h and docs/ScaleSim.md).
#include "ReadBuffers.h"

#include "nnaccel/support/Error.h"
#include "nnaccel/support/IntMath.h"

#include <algorithm>

namespace nnaccel::scalesim::detail {

namespace {

int64_t sramWords(const Config& c, Operand op) {
  return 1024 * (op == Operand::Ifmap ? c.ifmapSramKiB : c.filterSramKiB);
}

int64_t idRange(const LayerMatrices& m, Operand op) {
  return op == Operand::Ifmap ? m.ifmapWords() : m.filterWords();
}

/// CALC: a cache of capacity 50 sets x floor(words / 100) addresses that empties when full.
class EstimateModel {
public:
  EstimateModel(int64_t ids, int64_t words)
      : stamp_(static_cast<size_t>(ids), 0), setWords_(words / 100),
        capacity_(kSetsPerRefill * setWords_) {}

  void access(int64_t line, int64_t id) {
    uint8_t& s = stamp_[static_cast<size_t>(id)];
    if (s == epoch_) {
      return;
    }
    s = epoch_;
    ++misses_;
    if (++inEpoch_ == capacity_) {
      refill(line);
    }
  }
  /// Changes of state a repeated pass can cause: a pass without a refill read only addresses
  /// the buffer still holds, and so will every later pass.
  int64_t changes() const { return refills_; }

  /// Misses that still fit in the current fill (the caller checks), without per-address state.
  void addMisses(int64_t count) {
    misses_ += count;
    inEpoch_ += count;
  }
  /// Words the current fill can still take before the buffer counts as refilled.
  int64_t room() const { return capacity_ - inEpoch_; }
  /// The buffer is full after a miss in \p line: it forgets everything.
  void refill(int64_t line) {
    inEpoch_ = 0;
    ++refills_;
    lastRefillLine_ = line;
    if (++epoch_ == 0) { // stamps are bytes: start over when the epoch counter wraps
      std::fill(stamp_.begin(), stamp_.end(), uint8_t{0});
      epoch_ = 1;
    }
  }

  void setLastRefillLine(int64_t line) { lastRefillLine_ = line; }

  void finish(ReadStream& out) const {
    out.dramReads = misses_;
    out.refilled = refills_ > 0;
    out.lastRefillLine = lastRefillLine_;
    // The first refill fetches 50 sets at 10 words per cycle; without one, the final fetch
    // covers every started set at the same rate.
    const int64_t sets = refills_ > 0 ? kSetsPerRefill : ceilDiv(misses_, setWords_);
    out.calcLeadCycles = ceilDiv(sets * setWords_, kDefaultWordsPerCycle);
  }

private:
  static constexpr int64_t kSetsPerRefill = 50;        // active fraction 0.5 of 100 sets
  static constexpr int64_t kDefaultWordsPerCycle = 10; // SCALE-Sim's "arbitrary" 10
  std::vector<uint8_t> stamp_;
  uint8_t epoch_ = 1;
  int64_t setWords_, capacity_;
  int64_t inEpoch_ = 0, misses_ = 0, refills_ = 0, lastRefillLine_ = -1;
};

/// USER: a circular window of sets over the prefetch order.
class UserModel {
public:
  UserModel(const LayerMatrices& m, const Folds& f, Operand op, const Config& c)
      : wordsPerCycle_(c.userBandwidthWordsPerCycle.front()) {
    const int64_t words = sramWords(c, op);
    const int64_t activeWords = ceilDiv(words, 2), prefetchWords = words - activeWords;
    const int64_t setWords = ceilDiv(words, 100);
    const size_t ids = static_cast<size_t>(idRange(m, op));

    // Cut the prefetch order into sets of setWords valid reads (repeats count, and a set holds
    // each address once); list the sets each address is in, ascending (two passes: count, fill).
    std::vector<uint32_t> lastSet(ids, kNoSet);
    int64_t slots = 0;
    auto cut = [&](auto&& addToSet) {
      uint32_t set = 0;
      int64_t inSet = 0;
      std::fill(lastSet.begin(), lastSet.end(), kNoSet);
      slots = forEachPrefetch(m, f, op, [&](int64_t id) {
        if (id < 0) {
          return;
        }
        if (lastSet[static_cast<size_t>(id)] != set) {
          lastSet[static_cast<size_t>(id)] = set;
          addToSet(id, set);
        }
        if (++inSet == setWords) {
          ++set;
          inSet = 0;
        }
      });
      return set;
    };
    setsBegin_.assign(ids + 1, 0);
    const uint32_t lastSetIndex =
        cut([&](int64_t id, uint32_t) { ++setsBegin_[static_cast<size_t>(id) + 1]; });
    for (size_t i = 0; i < ids; ++i) {
      setsBegin_[i + 1] += setsBegin_[i];
    }
    sets_.resize(static_cast<size_t>(setsBegin_[ids]));
    std::vector<int64_t> fill(setsBegin_.begin(), setsBegin_.end() - 1);
    cut([&](int64_t id, uint32_t set) {
      sets_[static_cast<size_t>(fill[static_cast<size_t>(id)]++)] = set;
    });
    numSets_ = int64_t{lastSetIndex} + 1; // the last set may be empty
    activeSets_ = std::min(ceilDiv(activeWords, setWords), numSets_);
    prefetchSets_ = std::min(ceilDiv(prefetchWords, setWords), numSets_ - activeSets_);
    hitVersion_.assign(ids, 0);

    const int64_t fetchRows = ceilDiv(slots, wordsPerCycle_);
    activeFetchRows_ = std::min(ceilDiv(activeWords, wordsPerCycle_), fetchRows);
    prefetchRows_ = ceilDiv(prefetchWords, wordsPerCycle_);
  }

  void access(int64_t line, int64_t id) {
    uint32_t& seen = hitVersion_[static_cast<size_t>(id)];
    if (seen == version_) {
      return;
    }
    if (!inWindow(id)) {
      // Slide the window by the prefetch sets until it covers one of the address's sets. The
      // window (activeSets_ >= prefetchSets_ sets) covers a set as soon as its end passes it,
      // so the number of slides follows from the nearest set ahead of the window's end. Each
      // prefetch starts the cycle after the previous one's last response and takes
      // prefetchRows_ cycles plus the port latency.
      const int64_t slides =
          distanceAhead(id, (windowStart_ + activeSets_) % numSets_) / prefetchSets_ + 1;
      windowStart_ = (windowStart_ + slides * prefetchSets_) % numSets_;
      if (++version_ == 0) { // the cached hits are stale: start over when the counter wraps
        std::fill(hitVersion_.begin(), hitVersion_.end(), uint32_t{0});
        version_ = 1;
      }
      prefetches_ += slides;
      lastPrefetchCycle_ += slides * (prefetchRows_ + 1);
      if (stalls_.empty() || stalls_.back().line != line) {
        stalls_.push_back({line, lastPrefetchCycle_});
      } else {
        stalls_.back().lastPrefetchCycle = lastPrefetchCycle_;
      }
    }
    seen = version_;
  }
  int64_t changes() const { return prefetches_; }

  void finish(ReadStream& out) {
    out.dramReads = (activeFetchRows_ + prefetches_ * prefetchRows_) * wordsPerCycle_;
    out.userDramStartCycle = -activeFetchRows_; // the active fill ends at cycle -1
    out.userDramStopCycle = lastPrefetchCycle_;
    out.stalls = std::move(stalls_);
  }

private:
  /// The sets holding \p id, ascending.
  std::pair<const uint32_t*, const uint32_t*> setsOf(int64_t id) const {
    const uint32_t* base = sets_.data();
    const uint32_t* first = base + setsBegin_[static_cast<size_t>(id)];
    const uint32_t* last = base + setsBegin_[static_cast<size_t>(id) + 1];
    NNACCEL_ASSERT(last > first) << "address " << id << " is not in the prefetch order";
    return {first, last};
  }

  /// True when a set holding \p id is in the circular window [windowStart_, + activeSets_).
  bool inWindow(int64_t id) const {
    const auto [first, last] = setsOf(id);
    const int64_t end = windowStart_ + activeSets_;
    const uint32_t* at = std::lower_bound(first, last, windowStart_);
    if (at != last && *at < end) {
      return true;
    }
    return end > numSets_ && *first < end - numSets_; // the window wraps around
  }

  /// Circular distance from set \p from forward to the nearest set holding \p id.
  int64_t distanceAhead(int64_t id, int64_t from) const {
    const auto [first, last] = setsOf(id);
    const uint32_t* at = std::lower_bound(first, last, from);
    return at != last ? *at - from : *first + numSets_ - from;
  }

  int64_t wordsPerCycle_;
  int64_t numSets_ = 1, activeSets_ = 1, prefetchSets_ = 0;
  static constexpr uint32_t kNoSet = ~uint32_t{0};
  std::vector<int64_t> setsBegin_;
  std::vector<uint32_t> sets_;
  std::vector<uint32_t> hitVersion_;
  uint32_t version_ = 1;
  int64_t windowStart_ = 0, prefetches_ = 0, lastPrefetchCycle_ = -1;
  int64_t activeFetchRows_ = 0, prefetchRows_ = 0;
  std::vector<ReadEvent> stalls_;
};

template <typename Model>
void runStream(const LayerMatrices& m, const Folds& f, Operand op, Model& model, ReadStream& out) {
  const int64_t linesPerFold = f.linesPerFold;
  for (const Segment& seg : readSegments(f, op)) {
    const int64_t repLines = seg.foldsPerRep * linesPerFold;
    const int64_t segStart = seg.firstFold * linesPerFold;
    int64_t firstInRep = -1, lastInRep = -1;
    for (int64_t r = 0; r < seg.reps; ++r) {
      const int64_t before = model.changes();
      const int64_t repStart = segStart + r * repLines;
      for (int64_t j = 0; j < seg.foldsPerRep; ++j) {
        // Every rep reads what rep 0 reads: take the fold's geometry from rep 0.
        const int64_t fold = seg.firstFold + j;
        const int64_t base = repStart + j * linesPerFold;
        const int64_t colFold = fold / f.rowFolds, rowFold = fold % f.rowFolds;
        if (r == 0) {
          forEachRead(m, f, op, colFold, rowFold, [&](int64_t l, int64_t id) {
            if (id >= 0) {
              if (firstInRep < 0) {
                firstInRep = base + l - repStart;
              }
              lastInRep = base + l - repStart;
              model.access(base + l, id);
            }
          });
        } else {
          forEachRead(m, f, op, colFold, rowFold, [&](int64_t l, int64_t id) {
            if (id >= 0) {
              model.access(base + l, id);
            }
          });
        }
      }
      if (model.changes() == before) {
        break; // this pass hit everywhere, so will the rest
      }
    }
    if (firstInRep >= 0) {
      if (out.firstLine < 0) {
        out.firstLine = segStart + firstInRep;
      }
      out.lastLine = segStart + (seg.reps - 1) * repLines + lastInRep;
    }
  }
}

/// Line (relative to its rep) of the \p index-th read of a rep of filter segment \p seg, and
/// the first and last lines with reads.
struct RepLines {
  int64_t reads = 0, first = -1, last = -1, atIndex = -1;
};
RepLines filterRepLines(const Folds& f, const Segment& seg, int64_t index) {
  RepLines out;
  for (int64_t j = 0; j < seg.foldsPerRep; ++j) {
    const int64_t fold = seg.firstFold + j;
    forEachFilterLine(f, fold / f.rowFolds, fold % f.rowFolds, [&](int64_t l, int64_t reads) {
      const int64_t line = j * f.linesPerFold + l;
      if (out.first < 0) {
        out.first = line;
      }
      out.last = line;
      if (index >= out.reads && index < out.reads + reads) {
        out.atIndex = line;
      }
      out.reads += reads;
    });
  }
  return out;
}

/// CALC on a filter stream, whose reps each read distinct addresses that no other segment
/// reads: from the start of a fill, reads miss until the fill is full or the whole rep is in
/// it (then every later read hits), so the outcome follows from the counts alone.
void runDistinctCalc(const Folds& f, EstimateModel& model, ReadStream& out) {
  for (const Segment& seg : readSegments(f, Operand::Filter)) {
    const RepLines rep0 = filterRepLines(f, seg, -1);
    const int64_t perRep = rep0.reads, total = perRep * seg.reps;
    const int64_t segStart = seg.firstFold * f.linesPerFold;
    const int64_t repLineCount = seg.foldsPerRep * f.linesPerFold;
    if (perRep == 0) {
      continue;
    }
    if (out.firstLine < 0) {
      out.firstLine = segStart + rep0.first;
    }
    out.lastLine = segStart + (seg.reps - 1) * repLineCount + rep0.last;
    int64_t pos = 0, inFill = 0, lastRefillIndex = -1; // inFill: this segment's reads in the fill
    while (inFill < perRep && pos < total) {
      const int64_t need = model.room();
      const int64_t take = std::min({need, perRep - inFill, total - pos});
      model.addMisses(take);
      pos += take;
      inFill += take;
      if (take == need) {
        model.refill(-1);
        lastRefillIndex = pos - 1;
        inFill = 0;
      }
    }
    if (lastRefillIndex >= 0) {
      const RepLines at = filterRepLines(f, seg, lastRefillIndex % perRep);
      model.setLastRefillLine(segStart + (lastRefillIndex / perRep) * repLineCount + at.atIndex);
    }
  }
}

} // namespace

ReadStream simulateReads(const LayerMatrices& m, const Folds& f, Operand op, const Config& config) {
  ReadStream out;
  if (config.bandwidthMode == BandwidthMode::Calc) {
    if (op == Operand::Filter) {
      EstimateModel model(0, sramWords(config, op));
      runDistinctCalc(f, model, out);
      model.finish(out);
      return out;
    }
    EstimateModel model(idRange(m, op), sramWords(config, op));
    runStream(m, f, op, model, out);
    model.finish(out);
  } else {
    UserModel model(m, f, op, config);
    runStream(m, f, op, model, out);
    model.finish(out);
  }
  return out;
}

} // namespace nnaccel::scalesim::detail
