/// \file
/// The exact PE-array model (ExactArray.h): the register-level grid, stepped one cycle at a
/// time, every PE updated every cycle it holds data. Compiled with -ffp-contract=off so the
/// f32 partial sums p_out = p_in + x * w are the same bits as the fast model's.
///
/// One cycle t, in this order:
///  1. weight loader: the head LOAD_WEIGHTS starts if the loader is idle, its waits hold and
///     the register it fills is free (shadow: the previous swap has left the array; no shadow:
///     every earlier MATMUL is done); the running load shifts its rows down the column chains
///     (peRows shifts spread over weightLoadCycles cycles, the bottom row first);
///  2. stream port: the head MATMUL / PSUM_RESET starts if the port is free, its waits hold
///     and (MATMUL) its weights are loaded;
///  3. data path: row p receives vector t - t0 - p of the injecting MATMUL (the skew); every PE
///     holding an input swaps its shadow in if the input carries the swap, computes
///     p_out = p_in + x * w from the partial sum the PE above produced last cycle, and passes
///     x right and p_out down; the bottom row's p_out is the PSUM write of cycle t + 1.
#include "ExactArray.h"

#include "nnaccel/support/Error.h"

#include <algorithm>
#include <deque>
#include <limits>
#include <variant>

namespace nnaccel::arch::systolic::detail {

namespace {

constexpr int64_t kNever = std::numeric_limits<int64_t>::max();

enum class Kind : uint8_t { Load, Matmul, Reset };

/// One queued PE instruction with its program-order dependencies.
template <class Acc> struct Item {
  Kind kind = Kind::Matmul;
  int64_t index = 0;
  int64_t ready = 0;
  int64_t vectors = 0, cols = 0, cycles = 0;
  bool swap = false;       ///< MATMUL: its first vector carries the shadow swap
  int64_t weightsDep = -1; ///< MATMUL: the LOAD_WEIGHTS whose weights it multiplies by
  int64_t swapDep = -1;    ///< LOAD_WEIGHTS with shadow: the MATMUL that swapped last
  int64_t drainCount = 0;  ///< LOAD_WEIGHTS without shadow: earlier MATMULs to wait for
  std::shared_ptr<const std::vector<Acc>> data;
};

/// A MATMUL whose vectors are entering the array.
template <class Acc> struct Injecting {
  int64_t index = 0, t0 = 0, vectors = 0;
  bool swap = false;
  std::shared_ptr<const std::vector<Acc>> data;
};

/// What the grid derived for one instruction. Written when it happens; a replay writes the
/// same values again (asserted).
template <class Acc> struct Result {
  int64_t start = -1, done = -1;
  int64_t shadowFree = -1; ///< MATMUL with swap: first cycle the shadow registers are free
  int64_t portFree = 0, weightsReady = 0;
  int64_t vectors = 0, cols = 0;
  std::vector<Acc> sums;
};

template <class Acc> Acc multiplyAdd(Acc partial, Acc x, Acc w) {
  if constexpr (std::is_same_v<Acc, float>) {
    return partial + x * w;
  } else {
    // int8 x int8 always fits; the adder wraps like 32-bit hardware.
    return static_cast<int32_t>(static_cast<uint32_t>(partial) + static_cast<uint32_t>(x * w));
  }
}

void setOnce(int64_t& field, int64_t value) {
  NNACCEL_ASSERT(field < 0 || field == value)
      << "exact PE array: replay derived " << value << " where it derived " << field;
  field = value;
}

} // namespace

int64_t exactStepEstimate(const Program& p) {
  const int64_t pes = p.config.peRows * p.config.peCols;
  int64_t steps = 0;
  for (const Instruction& inst : p.instructions) {
    if (const auto* m = std::get_if<Matmul>(&inst.op)) {
      steps += (m->srcOuterCount * m->srcInnerCount + p.config.peRows + p.config.peCols) * pes;
    } else if (std::holds_alternative<LoadWeights>(inst.op)) {
      steps += p.config.peRows * pes;
    }
    if (steps > kExactStepLimit) {
      return steps; // enough to refuse; avoids overflow on huge programs
    }
  }
  return steps;
}

template <class Acc> struct ExactArray<Acc>::Impl {
  /// Everything that evolves cycle by cycle (copied for the checkpoint).
  struct State {
    int64_t t = 0;
    // PE registers, index p * cols + m.
    std::vector<Acc> weight, shadow, x, psum;
    std::vector<int64_t> xItem, xVector, psItem, psVector; ///< tag; item -1 = empty
    std::vector<uint8_t> xSwap;
    int64_t occupied = 0; ///< PEs holding an input
    // Weight loader.
    std::deque<Item<Acc>> loadQueue;
    int64_t loadIndex = -1, loadStart = 0, loadShifts = 0;
    std::shared_ptr<const std::vector<Acc>> loadData;
    int64_t loaderFree = 0;
    // Stream port.
    std::deque<Item<Acc>> streamQueue;
    std::vector<Injecting<Acc>> injecting;
    int64_t portFree = 0;
    // Drain tracking for loads without shadow: MATMULs [0, drainKnown) are done, the last of
    // them at drainMax.
    int64_t drainKnown = 0, drainMax = 0;
  };

  const SystolicConfig& config;
  const int64_t rows, cols;
  State current, base;
  bool currentValid = true;
  std::vector<Item<Acc>> log; ///< items enqueued since `base`
  std::vector<Result<Acc>> results;
  std::vector<int64_t> matmulOrder; ///< instruction index of every MATMUL, in program order
  int64_t steps = 0;
  /// The input entering one row in the current cycle.
  struct Entry {
    Acc value{};
    int64_t item = -1, vector = 0;
    bool swap = false;
  };
  std::vector<Entry> injectBuffer;
  // Program-order bookkeeping.
  int64_t lastLoad = -1, lastSwap = -1;
  bool shadowPending = false;

  explicit Impl(const SystolicConfig& c) : config(c), rows(c.peRows), cols(c.peCols) {
    const size_t n = static_cast<size_t>(rows * cols);
    State& s = current;
    s.weight.assign(n, Acc{});
    s.shadow.assign(n, Acc{});
    s.x.assign(n, Acc{});
    s.psum.assign(n, Acc{});
    s.xItem.assign(n, -1);
    s.xVector.assign(n, 0);
    s.psItem.assign(n, -1);
    s.psVector.assign(n, 0);
    s.xSwap.assign(n, 0);
    base = current;
  }

  Result<Acc>& result(int64_t index) {
    if (static_cast<size_t>(index) >= results.size()) {
      results.resize(static_cast<size_t>(index) + 1);
    }
    return results[static_cast<size_t>(index)];
  }

  // --- queue bookkeeping ---------------------------------------------------------------------

  /// Earliest cycle an instruction appended to the queue of \p kind could act.
  static int64_t openAt(const State& s, Kind kind) {
    if (kind == Kind::Load) {
      return s.loadQueue.empty() ? s.loaderFree : kNever;
    }
    return s.streamQueue.empty() ? s.portFree : kNever;
  }
  static int64_t openMin(const State& s) {
    return std::min(openAt(s, Kind::Load), openAt(s, Kind::Matmul));
  }
  static void push(State& s, const Item<Acc>& item) {
    (item.kind == Kind::Load ? s.loadQueue : s.streamQueue).push_back(item);
  }

  void enqueue(const Item<Acc>& item) {
    log.push_back(item);
    if (currentValid && openAt(current, item.kind) < current.t) {
      currentValid = false; // it could have acted in cycles already stepped: replay
    }
    if (currentValid) {
      push(current, item);
    }
  }

  void takeBase() {
    base = current;
    log.clear();
  }

  /// Steps until instruction \p index has completed (done known).
  void runUntilDone(int64_t index) {
    if (!currentValid) {
      current = base;
      for (const Item<Acc>& item : log) {
        push(current, item);
      }
      currentValid = true;
    }
    while (result(index).done < 0) {
      const int64_t open = openMin(current);
      if (current.t == open) {
        takeBase();
      }
      if (idle(current)) {
        const int64_t next = nextEvent(current);
        NNACCEL_ASSERT(next != kNever)
            << "exact PE array: instruction " << index << " can never start";
        if (next > current.t) {
          if (current.t < open && open < next) {
            current.t = open;
            takeBase();
          }
          current.t = next;
          continue;
        }
      }
      step(current);
    }
    if (current.t <= openMin(current)) {
      takeBase();
    }
  }

  // --- start conditions ------------------------------------------------------------------------

  bool idle(const State& s) const {
    return s.occupied == 0 && s.injecting.empty() &&
           (s.loadIndex < 0 || s.t >= s.loadStart + config.weightLoadCycles);
  }

  /// Known time the head load's register becomes free, or kNever if not known yet.
  int64_t loadBlockedUntil(State& s, const Item<Acc>& item) {
    if (config.shadowWeights) {
      if (item.swapDep < 0) {
        return 0;
      }
      const int64_t free = result(item.swapDep).shadowFree;
      return free < 0 ? kNever : free;
    }
    while (s.drainKnown < item.drainCount) {
      const int64_t done = result(matmulOrder[static_cast<size_t>(s.drainKnown)]).done;
      if (done < 0) {
        return kNever;
      }
      s.drainMax = std::max(s.drainMax, done);
      ++s.drainKnown;
    }
    return s.drainMax;
  }

  int64_t loadStartTime(State& s) {
    if (s.loadQueue.empty()) {
      return kNever;
    }
    const Item<Acc>& head = s.loadQueue.front();
    const int64_t blocked = loadBlockedUntil(s, head);
    return blocked == kNever ? kNever : std::max({head.ready, s.loaderFree, blocked});
  }

  int64_t streamStartTime(State& s) {
    if (s.streamQueue.empty()) {
      return kNever;
    }
    const Item<Acc>& head = s.streamQueue.front();
    int64_t weights = 0;
    if (head.kind == Kind::Matmul && head.weightsDep >= 0) {
      weights = result(head.weightsDep).done;
      if (weights < 0) {
        return kNever;
      }
    }
    return std::max({head.ready, s.portFree, weights});
  }

  int64_t nextEvent(State& s) { return std::min(loadStartTime(s), streamStartTime(s)); }

  // --- one cycle -------------------------------------------------------------------------------

  void startLoads(State& s) {
    while (loadStartTime(s) <= s.t) {
      Item<Acc> item = s.loadQueue.front();
      s.loadQueue.pop_front();
      Result<Acc>& r = result(item.index);
      setOnce(r.start, s.t);
      setOnce(r.done, s.t + config.weightLoadCycles);
      s.loadIndex = item.index;
      s.loadStart = s.t;
      s.loadShifts = 0;
      s.loadData = item.data;
      s.loaderFree = s.t + config.weightLoadCycles;
      if (config.weightLoadCycles == 0) {
        shiftLoad(s, rows); // a zero-cycle load completes before this cycle's data path
      }
    }
    const int64_t length = config.weightLoadCycles;
    if (s.loadIndex >= 0 && length > 0 && s.t < s.loadStart + length) {
      // Spread peRows shifts over the load's cycles: floor((j + 1) R / L) shifts done by the
      // end of cycle j.
      const int64_t j = s.t - s.loadStart;
      shiftLoad(s, (j + 1) * rows / length - s.loadShifts);
    }
  }

  /// Shifts the loading register chain of every column down by \p count rows; the row that
  /// enters at the top is the next one of the load, bottom row first.
  void shiftLoad(State& s, int64_t count) {
    std::vector<Acc>& reg = config.shadowWeights ? s.shadow : s.weight;
    for (int64_t c = 0; c < count; ++c) {
      const int64_t feedRow = rows - 1 - s.loadShifts;
      for (int64_t p = rows - 1; p > 0; --p) {
        std::copy_n(reg.begin() + (p - 1) * cols, cols, reg.begin() + p * cols);
      }
      std::copy_n(s.loadData->begin() + feedRow * cols, cols, reg.begin());
      ++s.loadShifts;
      steps += rows * cols;
    }
  }

  void startStream(State& s) {
    while (streamStartTime(s) <= s.t) {
      Item<Acc> item = s.streamQueue.front();
      s.streamQueue.pop_front();
      Result<Acc>& r = result(item.index);
      setOnce(r.start, s.t);
      r.portFree = s.portFree;
      if (item.kind == Kind::Reset) {
        setOnce(r.done, s.t + item.cycles);
        s.portFree = s.t + item.cycles;
        continue;
      }
      r.weightsReady = item.weightsDep >= 0 ? result(item.weightsDep).done : 0;
      r.vectors = item.vectors;
      r.cols = item.cols;
      r.sums.resize(static_cast<size_t>(item.vectors * item.cols));
      s.portFree = s.t + item.vectors;
      s.injecting.push_back({item.index, s.t, item.vectors, item.swap, item.data});
    }
  }

  void dataPath(State& s) {
    const int64_t t = s.t;
    // The input entering row p this cycle (the skew: vector k reaches row p at t0 + k + p).
    std::vector<Entry>& inject = injectBuffer;
    inject.assign(static_cast<size_t>(rows), Entry{});
    for (const Injecting<Acc>& in : s.injecting) {
      for (int64_t p = 0; p < rows; ++p) {
        const int64_t k = t - in.t0 - p;
        if (k >= 0 && k < in.vectors) {
          Entry& e = inject[static_cast<size_t>(p)];
          NNACCEL_ASSERT(e.item < 0) << "exact PE array: two vectors enter row " << p;
          e = {(*in.data)[static_cast<size_t>(k * rows + p)], in.index, k, in.swap && k == 0};
        }
      }
    }
    int64_t occupied = 0;
    // Bottom-right first: every PE reads its left and upper neighbours' previous-cycle values.
    for (int64_t p = rows - 1; p >= 0; --p) {
      for (int64_t m = cols - 1; m >= 0; --m) {
        const size_t i = static_cast<size_t>(p * cols + m);
        Acc xIn{};
        int64_t item = -1, vector = 0;
        bool swap = false;
        if (m == 0) {
          const Entry& e = inject[static_cast<size_t>(p)];
          xIn = e.value;
          item = e.item;
          vector = e.vector;
          swap = e.swap;
        } else {
          xIn = s.x[i - 1];
          item = s.xItem[i - 1];
          vector = s.xVector[i - 1];
          swap = s.xSwap[i - 1] != 0;
        }
        s.x[i] = xIn;
        s.xItem[i] = item;
        s.xVector[i] = vector;
        s.xSwap[i] = swap ? 1 : 0;
        if (item < 0) {
          s.psItem[i] = -1;
          continue;
        }
        ++occupied;
        ++steps;
        if (swap) {
          s.weight[i] = s.shadow[i];
          if (p == rows - 1 && m == cols - 1) {
            setOnce(result(item).shadowFree, t + 1);
          }
        }
        Acc partialIn{};
        if (p > 0) {
          const size_t up = i - static_cast<size_t>(cols);
          NNACCEL_ASSERT(s.psItem[up] == item && s.psVector[up] == vector)
              << "exact PE array: partial sum and input of PE (" << p << ", " << m
              << ") belong to different vectors";
          partialIn = s.psum[up];
        }
        s.psum[i] = multiplyAdd(partialIn, xIn, s.weight[i]);
        s.psItem[i] = item;
        s.psVector[i] = vector;
        if (p == rows - 1) {
          deliver(item, vector, m, s.psum[i], t + 1);
        }
      }
    }
    s.occupied = occupied;
    std::erase_if(s.injecting,
                  [&](const Injecting<Acc>& in) { return t >= in.t0 + in.vectors - 1 + rows - 1; });
  }

  /// The bottom row's output of column \p m for vector \p k, written into PSUM in \p cycle.
  void deliver(int64_t item, int64_t k, int64_t m, Acc value, int64_t cycle) {
    Result<Acc>& r = result(item);
    if (m >= r.cols) {
      return; // columns the instruction does not use are not written
    }
    r.sums[static_cast<size_t>(k * r.cols + m)] = value;
    if (k == r.vectors - 1 && m == r.cols - 1) {
      setOnce(r.done, cycle + 1);
    }
  }

  void step(State& s) {
    startLoads(s);
    startStream(s);
    if (s.occupied > 0 || !s.injecting.empty()) {
      dataPath(s);
    }
    ++s.t;
  }

  PeTiming timing(int64_t index) {
    const Result<Acc>& r = result(index);
    return PeTiming{r.start, r.done, r.portFree, r.weightsReady};
  }
};

template <class Acc>
ExactArray<Acc>::ExactArray(const SystolicConfig& config) : impl_(std::make_unique<Impl>(config)) {}

template <class Acc> ExactArray<Acc>::~ExactArray() = default;

template <class Acc>
PeTiming ExactArray<Acc>::loadWeights(int64_t index, std::vector<Acc> weights, int64_t readyCycle) {
  Impl& im = *impl_;
  NNACCEL_ASSERT(static_cast<int64_t>(weights.size()) == im.rows * im.cols) << "weights size";
  Item<Acc> item;
  item.kind = Kind::Load;
  item.index = index;
  item.ready = readyCycle;
  item.swapDep = im.lastSwap;
  item.drainCount = static_cast<int64_t>(im.matmulOrder.size());
  item.data = std::make_shared<const std::vector<Acc>>(std::move(weights));
  im.lastLoad = index;
  im.shadowPending = im.config.shadowWeights;
  im.enqueue(item);
  im.runUntilDone(index);
  return im.timing(index);
}

template <class Acc>
PeTiming ExactArray<Acc>::matmul(int64_t index, int64_t vectors, int64_t cols,
                                 std::vector<Acc> inputs, int64_t readyCycle,
                                 std::vector<Acc>& sums) {
  Impl& im = *impl_;
  NNACCEL_ASSERT(vectors >= 1 && cols >= 1 && cols <= im.cols) << "matmul shape";
  NNACCEL_ASSERT(static_cast<int64_t>(inputs.size()) == vectors * im.rows) << "inputs size";
  Item<Acc> item;
  item.kind = Kind::Matmul;
  item.index = index;
  item.ready = readyCycle;
  item.vectors = vectors;
  item.cols = cols;
  item.weightsDep = im.lastLoad;
  item.swap = im.shadowPending;
  item.data = std::make_shared<const std::vector<Acc>>(std::move(inputs));
  if (im.shadowPending) {
    im.lastSwap = index;
    im.shadowPending = false;
  }
  im.matmulOrder.push_back(index);
  im.enqueue(item);
  im.runUntilDone(index);
  sums = im.result(index).sums;
  return im.timing(index);
}

template <class Acc>
PeTiming ExactArray<Acc>::psumReset(int64_t index, int64_t cycles, int64_t readyCycle) {
  Impl& im = *impl_;
  Item<Acc> item;
  item.kind = Kind::Reset;
  item.index = index;
  item.ready = readyCycle;
  item.cycles = cycles;
  im.enqueue(item);
  im.runUntilDone(index);
  return im.timing(index);
}

template <class Acc> int64_t ExactArray<Acc>::peSteps() const {
  return impl_->steps;
}

template class ExactArray<int32_t>;
template class ExactArray<float>;

} // namespace nnaccel::arch::systolic::detail
