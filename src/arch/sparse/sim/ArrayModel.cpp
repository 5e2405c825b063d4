/// \file
/// The cycle-level PE-array model of one Conv layer (ArrayModel.h). Every rule is in
/// docs/arch/SparseCycleModel.md; the comments name the patent table each step follows.
#include "ArrayModel.h"

#include "Crossbar.h"
#include "nnaccel/arch/sparse/Compiler.h"
#include "nnaccel/quant/Requantize.h"
#include "nnaccel/support/Error.h"
#include "nnaccel/support/IntMath.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdlib>
#include <memory>
#include <span>
#include <thread>

namespace nnaccel::arch::sparse {

namespace sp = formats;

namespace {

/// Input pixel (u, v) of plane \p plane, or nullptr where the plane holds no pixel.
const int8_t* planePixel(const ConvLayer& l, const int8_t* in, int64_t plane, int64_t u,
                         int64_t v) {
  const int64_t px = plane % l.phasesX, py = (plane / l.phasesX) % l.phasesY;
  const int64_t c = plane / (l.phasesX * l.phasesY);
  const int32_t x = l.inputXOf[static_cast<size_t>(px * l.planeW + u)];
  const int32_t y = l.inputYOf[static_cast<size_t>(py * l.planeH + v)];
  if (x < 0 || y < 0)
    return nullptr;
  if (l.matrixLayout)
    return l.inputTransposed ? &in[c * l.inW + x] : &in[x * l.inChannels + c];
  return &in[(c * l.inH + y) * l.inW + x];
}

} // namespace

LayerInput compactInput(const ConvLayer& l, const SparseConfig& config, const int8_t* in) {
  const sp::CodeTable table = activationCodeTable(config);
  const int64_t pes = l.inTiling.pes(), planes = l.planes();
  LayerInput r;
  r.planes = planes;
  r.begin.reserve(static_cast<size_t>(pes * planes + 1));
  r.pixels.reserve(static_cast<size_t>(pes * planes));
  r.bitsPerPe.assign(static_cast<size_t>(pes), 0);
  std::vector<sp::Position> pos;
  std::vector<int32_t> val;
  for (int64_t p = 0; p < pes; ++p) {
    const PeFrame& f = l.frames[static_cast<size_t>(p)];
    const sp::Frame frame = activationFrame(config, f.inW, f.inH);
    for (int64_t c = 0; c < planes; ++c) {
      r.begin.push_back(static_cast<int64_t>(r.entries.size()));
      pos.clear();
      val.clear();
      int64_t pixels = 0;
      for (int64_t y = 0; y < f.inH; ++y)
        for (int64_t x = 0; x < f.inW; ++x) {
          const int8_t* v = planePixel(l, in, c, f.inX0 + x, f.inY0 + y);
          pixels += v != nullptr ? 1 : 0;
          if (v != nullptr && *v != l.inputZero) { // real 0 is the zero point's code
            pos.push_back(sp::Position{x, y, 0});
            val.push_back(*v - l.inputZero);
            r.replicated += x < f.inHaloLeft || x >= f.inW - f.inHaloRight || y < f.inHaloTop ||
                            y >= f.inH - f.inHaloBottom;
          }
        }
      r.pixels.push_back(pixels);
      r.nonZeros += static_cast<int64_t>(val.size());
      r.denseElements += pixels;
      if (val.empty())
        continue;
      const std::vector<sp::CodedEntry> coded = sp::encodePositions(pos, val, table, frame);
      // The buffer holds values and codes; the destination unit's decoder recovers the
      // positions (PositionDecoder), which the model keeps next to each entry.
      sp::PositionDecoder dec(table, frame);
      for (const sp::CodedEntry& e : coded) {
        const sp::Position q = dec.next(e.code);
        r.entries.push_back(IaEntry{e.value, static_cast<int32_t>(q.r), static_cast<int32_t>(q.s)});
      }
      r.bitsPerPe[static_cast<size_t>(p)] +=
          static_cast<int64_t>(coded.size()) * (config.valueBits + table.bits()) + 16;
    }
  }
  r.begin.push_back(static_cast<int64_t>(r.entries.size()));
  return r;
}

namespace {

struct WEntry {
  int32_t value;
  int32_t r, s, k;
};

/// One (group, plane) step of the Table 4 sequence: the weight vectors of one input plane.
struct PlaneWork {
  int64_t plane = 0;
  int64_t wBegin = 0, wCount = 0; ///< decoded weight entries (sparse) or dense weights
  int64_t wVecs = 0;
  int64_t vecStart = 0; ///< index of its first vector in the layer's broadcast sequence
};

enum class Phase : uint8_t { Compute, Drain, WaitSwap, Done };

struct Pe {
  int64_t group = 0;
  size_t work = 0;
  int64_t iaVec = 0, wVec = 0;
  int64_t busyUntil = 0; ///< dense mode: issuing a run of weight vectors
  Phase phase = Phase::Compute;
  int64_t released = 0; ///< the channel pointer: vectors before it are freed
  std::unique_ptr<Crossbar> xbar;
  std::vector<int32_t>* acc = nullptr;
  // slot accounting (cycles)
  int64_t issueCycles = 0, stallCrossbar = 0, stallWeights = 0, drainCycles = 0, waitSwap = 0;
  int64_t doneAt = -1;
  /// The cycle the PE finished computing its group in this step (handled after the step).
  int64_t finishedAt = -1;
  /// Its last step stalled on weight vectors not yet broadcast, with nothing in its crossbar:
  /// nothing changes in the PE until the sequencer broadcasts again.
  bool starved = false;
  // access counts
  int64_t dropped = 0; ///< input halos: products outside the PE's tile, dropped before the crossbar
  int64_t products = 0, useful = 0, fragmentation = 0, iaReads = 0, weightReads = 0, denseLanes = 0;
};

constexpr int64_t kUnknown = -1;
/// Whether frame cell (\p x, \p y) lies in frame \p f.
bool inFrame(const PeFrame& f, int64_t x, int64_t y) {
  return x >= 0 && x < f.width() && y >= 0 && y < f.height();
}

/// The widest weight vector (F) the crossbar's 64 lanes allow.
constexpr size_t kMaxVector = 64;
/// Credit waits up to this many cycles are stepped addition by addition (nextBroadcast).
constexpr int64_t kSteppedAdditions = 64;
/// Cycles between two progress reports of a layer (runArray's progress): often enough for a
/// display, rare enough to cost nothing.
constexpr int64_t kProgressCycles = int64_t{1} << 14;

class ArrayRun {
public:
  /// Runs \p groups of \p l (all of them, or one PE's slice) with \p dramShare of the DRAM
  /// stream for its weights.
  ArrayRun(const ConvLayer& l, std::span<const WeightGroup> groups, double dramShare,
           const SparseConfig& c, const LayerInput& in, bool dense, int threads,
           const std::function<void(double)>& progress)
      : l_(l), groupList_(groups), dramShare_(dramShare), c_(c), dram_(c.dramFigures()), in_(in),
        dense_(dense), threads_(threads), progress_(progress), pes_(l.inTiling.pes()),
        groups_(static_cast<int64_t>(groups.size())), F_(c.weightsPerVector),
        I_(c.activationsPerVector), P_(F_ * I_) {
    for (const WeightGroup& wg : groups)
      channels_ += wg.channels;
  }

  ArrayResult run() {
    mapFrames();
    buildWork();
    initTimeline();
    simulate();
    ArrayResult r;
    finish(r);
    return r;
  }

private:
  // --- frames: which accumulator cells are output pixels ------------------------------------
  /// Per cell of a frame axis of \p cells starting at accumulator-plane coordinate \p origin:
  /// 1 when it is an output pixel (inside the plane, not a gap between output phases).
  static std::vector<uint8_t> outputCells(const std::vector<int32_t>& outputOf, int64_t origin,
                                          int64_t cells) {
    std::vector<uint8_t> m(static_cast<size_t>(cells), 0);
    const auto size = static_cast<int64_t>(outputOf.size());
    for (int64_t i = 0; i < cells; ++i)
      m[static_cast<size_t>(i)] =
          origin + i >= 0 && origin + i < size && outputOf[static_cast<size_t>(origin + i)] >= 0;
    return m;
  }

  /// The output-pixel masks of every frame and the output pixels of every home region.
  void mapFrames() {
    for (const PeFrame& f : l_.frames) {
      outputX_.push_back(outputCells(l_.outputXOf, f.outX0 - f.haloLeft, f.width()));
      outputY_.push_back(outputCells(l_.outputYOf, f.outY0 - f.haloTop, f.height()));
      const auto home = [](const std::vector<uint8_t>& m, int64_t lo, int64_t n) {
        return std::count(m.begin() + lo, m.begin() + lo + n, 1);
      };
      homeOutputs_.push_back(home(outputX_.back(), f.haloLeft, f.outW) *
                             home(outputY_.back(), f.haloTop, f.outH));
    }
  }

  // --- weights: the broadcast sequence ----------------------------------------------------
  void buildWork() {
    const sp::CodeTable table = weightCodeTable(c_);
    const sp::Frame frame = weightFrame(c_, l_.extentX, l_.extentY);
    const int64_t cg = l_.inChannels / l_.convGroups, mg = l_.outChannels / l_.convGroups;
    const int64_t phases = l_.phasesX * l_.phasesY;
    work_.resize(static_cast<size_t>(groups_));
    int64_t vec = 0;
    for (int64_t g = 0; g < groups_; ++g) {
      const WeightGroup& wg = groupList_[static_cast<size_t>(g)];
      if (!dense_) {
        for (const WeightGroup::Plane& pl : wg.planes) {
          PlaneWork w;
          w.plane = pl.plane;
          w.wBegin = static_cast<int64_t>(weights_.size());
          // Decode the tile stream's codes: the running position restarts per input channel.
          sp::PositionDecoder dec(table, frame);
          for (const sp::CodedEntry& e : pl.entries) {
            const sp::Position q = dec.next(e.code);
            weights_.push_back(WEntry{e.value, static_cast<int32_t>(q.r), static_cast<int32_t>(q.s),
                                      static_cast<int32_t>(q.k)});
          }
          w.wCount = static_cast<int64_t>(pl.entries.size());
          w.wVecs = ceilDiv(w.wCount, F_);
          w.vecStart = vec;
          vec += w.wVecs;
          work_[static_cast<size_t>(g)].push_back(w);
        }
      } else {
        // PTIS-dense: every plane connected to the group's channels, all taps, zeros included.
        const int64_t first = wg.firstChannel, last = wg.firstChannel + wg.channels;
        for (int64_t plane = 0; plane < l_.planes(); ++plane) {
          const int64_t ch = plane / phases, grp = ch / cg;
          const int64_t m0 = std::max(first, grp * mg), m1 = std::min(last, (grp + 1) * mg);
          const int64_t taps = l_.denseTapsPerPlane[static_cast<size_t>(plane % phases)];
          if (m1 <= m0 || taps == 0)
            continue;
          PlaneWork w;
          w.plane = plane;
          w.wCount = (m1 - m0) * taps;
          w.wVecs = ceilDiv(w.wCount, F_);
          w.vecStart = vec;
          vec += w.wVecs;
          work_[static_cast<size_t>(g)].push_back(w);
        }
      }
    }
    totalVecs_ = vec;
    vectorBits_ = F_ * (c_.valueBits + (dense_ ? 0 : table.bits()));
  }

  int64_t iaCount(int64_t pe, int64_t plane) const {
    const auto i = static_cast<size_t>(pe * in_.planes + plane);
    return dense_ ? in_.pixels[i] : in_.begin[i + 1] - in_.begin[i];
  }

  // --- the post-processing timeline (Tables 7, 9, 10) --------------------------------------
  void initTimeline() {
    const auto n = static_cast<size_t>(pes_ * groups_);
    done_.assign(n, kUnknown);
    swap_.assign(n, kUnknown);
    haloEnd_.assign(n, kUnknown);
    ppuEnd_.assign(n, kUnknown);
    doneCount_.assign(static_cast<size_t>(groups_), 0);
    accs_.resize(n);
    neighbours_.resize(static_cast<size_t>(pes_));
    senders_.resize(static_cast<size_t>(pes_));
    haloCells_.assign(static_cast<size_t>(pes_), 0);
    const int64_t gx = l_.inTiling.x.parts;
    for (int64_t p = 0; p < pes_; ++p) {
      for (const HaloDescriptor& d : l_.frames[static_cast<size_t>(p)].halos) {
        if (!d.valid)
          continue;
        haloCells_[static_cast<size_t>(p)] += d.cells();
        const int64_t q = (p / gx + d.peDy) * gx + p % gx + d.peDx;
        neighbours_[static_cast<size_t>(p)].push_back(q);
        senders_[static_cast<size_t>(q)].push_back(p);
      }
    }
  }

  size_t at(int64_t pe, int64_t g) const { return static_cast<size_t>(g * pes_ + pe); }
  /// PE \p p's fused-pooling operations per output channel (FusedPool; 0 without one).
  int64_t poolOps(int64_t p) const {
    return l_.fusedPool ? l_.fusedPool->peOpsPerChannel[static_cast<size_t>(p)] : 0;
  }
  int64_t ops(int64_t n) const { return ceilDiv(n, c_.ppuOpsPerCycle); }

  /// Resolves every timeline value of group \p g that its inputs determine.
  void resolve(int64_t g) {
    const int64_t kc = groupList_[static_cast<size_t>(g)].channels;
    for (bool changed = true; changed;) {
      changed = false;
      for (int64_t p = 0; p < pes_; ++p) {
        const size_t i = at(p, g);
        if (swap_[i] == kUnknown && done_[i] != kUnknown) {
          const int64_t prev = g == 0 ? 0 : ppuEnd_[at(p, g - 1)];
          const bool needPrev = c_.doubleBufferedAccumulators && g > 0;
          if (!needPrev || prev != kUnknown) {
            swap_[i] = std::max(done_[i], needPrev ? prev : 0);
            changed = true;
          }
        }
        if (haloEnd_[i] == kUnknown && swap_[i] != kUnknown) {
          int64_t start = swap_[i];
          bool known = true;
          for (int64_t q : neighbours_[static_cast<size_t>(p)]) {
            known = known && swap_[at(q, g)] != kUnknown;
            start = known ? std::max(start, swap_[at(q, g)]) : start;
          }
          if (known) {
            const int64_t msgs = haloCells_[static_cast<size_t>(p)] * kc;
            haloEnd_[i] = start + ops(msgs) + (msgs > 0 ? c_.haloLinkLatencyCycles : 0);
            changed = true;
          }
        }
        if (ppuEnd_[i] == kUnknown && haloEnd_[i] != kUnknown) {
          // The barrier: the non-linear pass starts once every PE that sends this PE a halo
          // (and the PE itself) has finished its halo exchange.
          int64_t start = haloEnd_[i];
          bool known = true;
          for (int64_t q : senders_[static_cast<size_t>(p)]) {
            known = known && haloEnd_[at(q, g)] != kUnknown;
            start = known ? std::max(start, haloEnd_[at(q, g)]) : start;
          }
          if (known) {
            // bias + requantize + compact of the home region's output pixels, then a fused
            // pooling's window elements and received halo values (and their link latency)
            ppuEnd_[i] =
                start + ops((homeOutputs_[static_cast<size_t>(p)] + poolOps(p)) * kc) +
                (l_.fusedPool && l_.fusedPool->haloValuesPerChannel > 0 ? c_.haloLinkLatencyCycles
                                                                        : 0);
            changed = true;
          }
        }
      }
    }
  }

  /// When PE \p p may start group g + 1 (it has finished computing g), or kUnknown.
  int64_t startTime(int64_t p, int64_t g) const {
    if (c_.doubleBufferedAccumulators)
      return swap_[at(p, g)];
    return ppuEnd_[at(p, g)];
  }

  void groupComputed(int64_t p, int64_t g, int64_t cycle) {
    done_[at(p, g)] = cycle;
    for (int64_t gg = g; gg <= maxGroup_; ++gg)
      resolve(gg);
    if (!dense_ && ++doneCount_[static_cast<size_t>(g)] == pes_)
      postProcess(g);
  }

  // --- the lock-step cycle loop --------------------------------------------------------------
  void simulate() {
    pe_.resize(static_cast<size_t>(pes_));
    CrossbarParams xp;
    xp.lanes = static_cast<int>(P_);
    xp.banks = static_cast<int>(c_.accumulatorBanks);
    xp.fifoDepth = static_cast<int>(c_.crossbarFifoDepth);
    xp.hashBanks = c_.bankMapping == BankMapping::Hash;
    xp.virtualOutputQueues = c_.crossbarQueues == CrossbarQueues::PerBank;
    xp.forwarding = c_.accumulatorForwarding;
    xp.writeLatencyCycles = static_cast<int>(c_.accumulatorWriteLatencyCycles);
    xp.stages = static_cast<int>(c_.crossbarStages);
    xp.stage1Inputs = static_cast<int>(F_); // Fig. 3E: one stage-1 instance per activation
    xp.combiningEntries = static_cast<int>(c_.combiningBufferEntries);
    for (int64_t p = 0; p < pes_; ++p) {
      Pe& pe = pe_[static_cast<size_t>(p)];
      if (!dense_) {
        pe.xbar = std::make_unique<Crossbar>(xp);
        pe.acc = &accumulator(p, 0);
      }
    }
    // The compiler sizes Kc so that a group's plane fits the weight FIFO; the dense baseline's
    // planes (every tap of Kc channels) may not: it is then modelled as if the FIFO held one
    // plane (docs/arch/SparseCycleModel.md), never as a deadlock.
    int64_t fifoCap = c_.weightFifoEntries;
    for (const auto& gw : work_)
      for (const PlaneWork& w : gw)
        fifoCap = std::max(fifoCap, w.wVecs);
    // The weights stream in order: whole rows, so the banks open rows faster than the bus
    // moves them unless rows are small against the bus (the row-buffer model's stream rate).
    const double creditPerCycle = common::dramStreamBytesPerCycle(dram_) * 8.0 * dramShare_;
    const double creditCap = std::max(creditPerCycle, static_cast<double>(vectorBits_)) * 2.0;
    double credit = 0;
    int64_t broadcast = 0; // vectors broadcast so far
    StepWorker worker(*this, parallelSteps() ? pes_ / 2 : pes_);
    int64_t t = 0, nextProgress = kProgressCycles;
    for (bool running = true; running; ++t) {
      if (progress_ && t >= nextProgress && totalVecs_ > 0) {
        progress_(static_cast<double>(broadcast) / static_cast<double>(totalVecs_));
        nextProgress = t + kProgressCycles;
      }
      // 1. Every PE steps one cycle (the two halves of the grid in parallel): it sees the
      //    vectors broadcast before this cycle.
      worker.step(t, broadcast);
      // 2. Serially: finished groups enter the timeline, the sequencer broadcasts.
      int64_t active = 0, wake = INT64_MAX, minReleased = INT64_MAX;
      bool busy = false;
      for (int64_t p = 0; p < pes_; ++p) {
        Pe& pe = pe_[static_cast<size_t>(p)];
        if (pe.finishedAt >= 0) {
          maxGroup_ = std::max(maxGroup_, pe.group);
          groupComputed(p, pe.group, pe.finishedAt);
          pe.finishedAt = -1;
        }
      }
      for (int64_t p = 0; p < pes_; ++p) {
        const Pe& pe = pe_[static_cast<size_t>(p)];
        if (pe.phase == Phase::Done)
          continue;
        ++active;
        minReleased = std::min(minReleased, pe.released);
        if (pe.phase == Phase::WaitSwap) {
          const int64_t s = startTime(p, pe.group);
          wake = std::min(wake, s == kUnknown ? INT64_MAX : s);
        } else if (pe.phase == Phase::Compute && dense_ && pe.busyUntil > t + 1) {
          wake = std::min(wake, pe.busyUntil);
        } else if (pe.phase != Phase::Compute || !pe.starved) {
          busy = true; // a starved PE waits for the sequencer's next broadcast (below)
        }
      }
      running = active > 0;
      if (broadcast < totalVecs_) {
        const int64_t before = broadcast;
        bool fifoFull = false;
        if (t >= dram_.latencyCycles) {
          credit = std::min(creditCap, credit + creditPerCycle);
          for (int64_t n = 0; n < c_.broadcastVectorsPerCycle && broadcast < totalVecs_; ++n) {
            fifoFull = minReleased != INT64_MAX && broadcast >= minReleased + fifoCap;
            if (fifoFull || credit < static_cast<double>(vectorBits_))
              break;
            credit -= static_cast<double>(vectorBits_);
            ++broadcast;
          }
        }
        if (broadcast > before || fifoFull)
          busy = true;  // the PEs see new vectors next cycle, or free FIFO entries
        else if (!busy) // only an idle array can skip: no search on the stepping path
          wake = std::min(wake, nextBroadcast(t, credit, creditPerCycle, creditCap));
      }
      // Nothing can change before the next wake-up (a PE's, or the sequencer's once DRAM has
      // delivered): skip the idle cycles, so run time does not grow with DRAM latency.
      if (running && !busy && wake != INT64_MAX && wake > t + 1) {
        skipTo(t, wake - 1);
        credit = creditAfter(t, wake - 1, credit, creditPerCycle, creditCap);
        t = wake - 1;
      }
    }
    cycles_ = t;
  }

  /// The first cycle after \p t in which the sequencer, waiting on DRAM alone with \p credit
  /// bits, can broadcast. A short wait adds the credit cycle by cycle, as the loop above does,
  /// so skipping gives the cycles stepping gives; a long one (a bandwidth far below a vector per
  /// cycle) is computed in closed form, so run time does not grow with it.
  int64_t nextBroadcast(int64_t t, double credit, double perCycle, double cap) const {
    const int64_t first = std::max(t + 1, dram_.latencyCycles);
    const auto need = static_cast<double>(vectorBits_);
    const double additions = std::ceil((need - credit) / perCycle);
    if (additions > kSteppedAdditions)
      return first + static_cast<int64_t>(additions) - 1;
    for (int64_t u = first;; ++u) {
      credit = std::min(cap, credit + perCycle);
      if (credit >= need)
        return u;
    }
  }

  /// The sequencer's credit after the cycles (\p t, \p to], starting from \p credit.
  double creditAfter(int64_t t, int64_t to, double credit, double perCycle, double cap) const {
    const int64_t first = std::max(t + 1, dram_.latencyCycles);
    if (to - first + 1 > kSteppedAdditions)
      return std::min(cap, credit + static_cast<double>(to - first + 1) * perCycle);
    for (int64_t u = first; u <= to; ++u)
      credit = std::min(cap, credit + perCycle);
    return credit;
  }

  /// With two threads, large layers step the two halves of the grid in parallel.
  bool parallelSteps() const {
    return threads_ >= 2 && !dense_ && pes_ >= 8 && totalVecs_ * pes_ >= 4096;
  }

  void stepRange(int64_t lo, int64_t hi, int64_t t, int64_t visible) {
    for (int64_t p = lo; p < hi; ++p)
      step(p, pe_[static_cast<size_t>(p)], t, visible);
  }

  /// Steps PEs [split, pes) on a second thread while the caller steps [0, split); a spinning
  /// hand-off per cycle (the steps are short), falling back to yielding when the other side is
  /// late.
  class StepWorker {
  public:
    StepWorker(ArrayRun& run, int64_t split) : run_(run), split_(split) {
      if (split_ < run_.pes_)
        thread_ = std::thread([this] { loop(); });
    }
    ~StepWorker() {
      if (thread_.joinable()) {
        stop_.store(true, std::memory_order_release);
        go_.fetch_add(1, std::memory_order_release);
        thread_.join();
      }
    }
    void step(int64_t t, int64_t visible) {
      if (!thread_.joinable()) {
        run_.stepRange(0, run_.pes_, t, visible);
        return;
      }
      t_ = t;
      visible_ = visible;
      const uint64_t gen = go_.fetch_add(1, std::memory_order_acq_rel) + 1;
      run_.stepRange(0, split_, t, visible);
      wait(done_, gen);
    }

  private:
    static void wait(const std::atomic<uint64_t>& a, uint64_t value) {
      for (int spins = 0; a.load(std::memory_order_acquire) < value; ++spins)
        if (spins > 2000)
          std::this_thread::yield();
    }
    void loop() {
      for (uint64_t gen = 1;; ++gen) {
        wait(go_, gen);
        if (stop_.load(std::memory_order_acquire))
          return;
        run_.stepRange(split_, run_.pes_, t_, visible_);
        done_.store(gen, std::memory_order_release);
      }
    }
    ArrayRun& run_;
    int64_t split_;
    int64_t t_ = 0, visible_ = 0;
    std::atomic<uint64_t> go_{0}, done_{0};
    std::atomic<bool> stop_{false};
    std::thread thread_;
  };

  /// Attributes the skipped cycles (t, to] to every PE's current state.
  void skipTo(int64_t t, int64_t to) {
    const int64_t n = to - t;
    for (Pe& pe : pe_) {
      if (pe.phase == Phase::WaitSwap)
        pe.waitSwap += n;
      else if (pe.phase == Phase::Compute && pe.starved)
        pe.stallWeights += n;
      else if (pe.phase == Phase::Compute)
        pe.issueCycles += n; // dense mode: a run of issues
    }
  }

  std::vector<int32_t>& accumulator(int64_t p, int64_t g) {
    std::vector<int32_t>& a = accs_[at(p, g)];
    const PeFrame& f = l_.frames[static_cast<size_t>(p)];
    a.assign(
        static_cast<size_t>(groupList_[static_cast<size_t>(g)].channels * f.width() * f.height()),
        0);
    return a;
  }

  void step(int64_t p, Pe& pe, int64_t t, int64_t visible) {
    switch (pe.phase) {
    case Phase::Compute:
      compute(p, pe, t, visible);
      return;
    case Phase::Drain:
      pe.xbar->arbitrate(t);
      ++pe.drainCycles;
      if (pe.xbar->empty())
        endGroup(pe, t + 1);
      return;
    case Phase::WaitSwap: {
      const int64_t s = startTime(p, pe.group);
      if (s != kUnknown && s <= t) {
        ++pe.group;
        pe.work = 0;
        pe.iaVec = pe.wVec = 0;
        pe.phase = Phase::Compute;
        if (!dense_)
          pe.acc = &accumulator(p, pe.group);
        compute(p, pe, t, visible);
      } else {
        ++pe.waitSwap;
      }
      return;
    }
    case Phase::Done:
      return;
    }
  }

  /// The PE has computed its group; the timeline and the functional post-processing see it
  /// after the step (afterStep), so a step only touches its own PE.
  void endGroup(Pe& pe, int64_t cycle) {
    pe.finishedAt = cycle;
    if (pe.group + 1 == groups_) {
      pe.phase = Phase::Done;
      pe.doneAt = cycle;
    } else {
      pe.phase = Phase::WaitSwap;
    }
  }

  /// One cycle of the Table 4 sequence.
  void compute(int64_t p, Pe& pe, int64_t t, int64_t visible) {
    pe.starved = false;
    const bool ready = dense_ || pe.xbar->ready(); // sampled at the start of the cycle
    if (!dense_)
      pe.xbar->arbitrate(t);
    if (dense_ && pe.busyUntil > t) {
      ++pe.issueCycles;
      return;
    }
    const std::vector<PlaneWork>& works = work_[static_cast<size_t>(pe.group)];
    // Skip planes this PE has no activations in (counts come from the count RAMs: no cycle);
    // the channel pointer may pass them once their vectors have arrived.
    while (pe.work < works.size() && pe.iaVec == 0 && pe.wVec == 0 &&
           iaCount(p, works[pe.work].plane) == 0) {
      const PlaneWork& w = works[pe.work];
      if (w.vecStart + w.wVecs > visible) {
        stallOnWeights(pe);
        return;
      }
      pe.released = w.vecStart + w.wVecs;
      ++pe.work;
    }
    if (pe.work == works.size()) {
      finishCompute(pe, t);
      return;
    }
    const PlaneWork& w = works[pe.work];
    const int64_t ias = iaCount(p, w.plane);
    if (dense_) {
      const int64_t iaVecs = ceilDiv(ias, I_);
      // A dense PE issues the plane's weight vectors back to back once they have arrived; once
      // the whole plane has arrived it runs every remaining activation vector against it (the
      // FIFO keeps the plane until its channel pointer moves on).
      if (pe.wVec == 0 && w.vecStart + w.wVecs <= visible) {
        const int64_t runCycles = (iaVecs - pe.iaVec) * w.wVecs;
        pe.busyUntil = t + runCycles;
        ++pe.issueCycles;
        pe.denseLanes += (ias - pe.iaVec * I_) * w.wCount;
        pe.iaReads += ias - pe.iaVec * I_;
        pe.weightReads += runCycles;
        pe.iaVec = 0;
        pe.released = w.vecStart + w.wVecs;
        ++pe.work;
        return;
      }
      const int64_t run = std::min(w.wVecs - pe.wVec, visible - (w.vecStart + pe.wVec));
      if (run <= 0) {
        stallOnWeights(pe);
        return;
      }
      pe.busyUntil = t + run;
      ++pe.issueCycles;
      const int64_t nI = std::min(I_, ias - pe.iaVec * I_);
      pe.denseLanes += nI * (std::min(w.wCount, (pe.wVec + run) * F_) - pe.wVec * F_);
      pe.iaReads += pe.wVec == 0 ? nI : 0;
      pe.weightReads += run;
      pe.wVec += run;
    } else {
      if (w.vecStart + pe.wVec >= visible) {
        stallOnWeights(pe);
        return;
      }
      if (!ready) {
        ++pe.stallCrossbar;
        return;
      }
      ++pe.issueCycles;
      issue(p, pe, w, ias);
      ++pe.wVec;
    }
    if (pe.wVec == w.wVecs) {
      pe.wVec = 0;
      if (++pe.iaVec * I_ >= ias) { // the plane's last activation vector (no division)
        if (!dense_)
          accumulatePlane(p, pe, w, ias);
        pe.iaVec = 0;
        pe.released = w.vecStart + w.wVecs;
        ++pe.work;
      }
    }
  }

  /// A cycle stalled on weight vectors not yet broadcast; starved if the crossbar is idle too.
  void stallOnWeights(Pe& pe) const {
    ++pe.stallWeights;
    pe.starved = dense_ || pe.xbar->empty();
  }

  void finishCompute(Pe& pe, int64_t t) {
    if (dense_ || pe.xbar->empty()) {
      if (pe.group + 1 < groups_)
        ++pe.waitSwap; // the cycle the group ends in: the timeline sees it after this step
      endGroup(pe, t);
      return;
    }
    pe.phase = Phase::Drain;
    ++pe.drainCycles;
  }

  /// One F x I Cartesian product (Table 5) scattered through the crossbar (Table 6). Only
  /// where each product goes and when is modelled here; the products' values are added once the
  /// PE has issued the whole plane (accumulatePlane): integer sums do not depend on the order.
  void issue(int64_t p, Pe& pe, const PlaneWork& w, int64_t ias) {
    const PeFrame& f = l_.frames[static_cast<size_t>(p)];
    // Eq. 1's multipliers (rounded up to powers of two with accumulators.address_rounding).
    const int64_t fw = c_.addressStride(f.width()), fh = c_.addressStride(f.height());
    const int64_t offX = f.inX0 * l_.coordScaleX + l_.dxMin - f.outX0 + f.haloLeft;
    const int64_t offY = f.inY0 * l_.coordScaleY + l_.dyMin - f.outY0 + f.haloTop;
    const auto iaBase =
        static_cast<size_t>(in_.begin[static_cast<size_t>(p * in_.planes + w.plane)]);
    const int64_t i0 = pe.iaVec * I_, nI = std::min(I_, ias - i0);
    const int64_t f0 = pe.wVec * F_, nF = std::min(F_, w.wCount - f0);
    // Accumulator address = the activation's part + the weight's part (ArrayModel.h).
    std::array<int64_t, kMaxVector> wOff;
    std::array<int, kMaxVector> wLane;
    std::array<const WEntry*, kMaxVector> wEntry;
    int nzF = 0;
    for (int64_t j = 0; j < nF; ++j) {
      const WEntry& wt = weights_[static_cast<size_t>(w.wBegin + f0 + j)];
      if (wt.value == 0)
        continue; // a zero-valued pad: no request
      wOff[static_cast<size_t>(nzF)] = wt.r + fw * (wt.s + fh * wt.k);
      wEntry[static_cast<size_t>(nzF)] = &wt;
      wLane[static_cast<size_t>(nzF++)] = static_cast<int>(j);
    }
    std::array<int, kMaxVector> lanes;
    std::array<uint32_t, kMaxVector> addresses;
    int n = 0, dropped = 0;
    for (int64_t i = 0; i < nI; ++i) {
      const IaEntry& a = in_.entries[iaBase + static_cast<size_t>(i0 + i)];
      if (a.value == 0)
        continue;
      const int64_t ax = a.x * l_.coordScaleX + offX, ay = a.y * l_.coordScaleY + offY;
      const int64_t base = ax + fw * ay;
      const int lane0 = static_cast<int>(i * F_);
      for (int j = 0; j < nzF; ++j) {
        // Input halos: a product outside the PE's own tile is computed and dropped.
        if (l_.inputHalos && !inFrame(f, ax + wEntry[static_cast<size_t>(j)]->r,
                                      ay + wEntry[static_cast<size_t>(j)]->s)) {
          ++dropped;
          continue;
        }
        lanes[static_cast<size_t>(n)] = lane0 + wLane[static_cast<size_t>(j)];
        addresses[static_cast<size_t>(n++)] =
            static_cast<uint32_t>(base + wOff[static_cast<size_t>(j)]);
      }
    }
    pe.xbar->pushAll(lanes.data(), addresses.data(), n);
    const int64_t valid = n + dropped;
    pe.products += valid;
    pe.dropped += dropped;
    pe.fragmentation += P_ - valid;
    pe.iaReads += pe.wVec == 0 ? nI : 0;
    pe.weightReads += 1;
  }

  /// The values of every product of plane \p w on PE \p p (the Cartesian product of its \p ias
  /// activations and the plane's weights) added into the group's accumulators, and the useful
  /// ones (those landing on an output pixel) counted.
  void accumulatePlane(int64_t p, Pe& pe, const PlaneWork& w, int64_t ias) {
    const PeFrame& f = l_.frames[static_cast<size_t>(p)];
    const int64_t fw = f.width(), fh = f.height();
    const int64_t offX = f.inX0 * l_.coordScaleX + l_.dxMin - f.outX0 + f.haloLeft;
    const int64_t offY = f.inY0 * l_.coordScaleY + l_.dyMin - f.outY0 + f.haloTop;
    const uint8_t* outX = outputX_[static_cast<size_t>(p)].data();
    const uint8_t* outY = outputY_[static_cast<size_t>(p)].data();
    const IaEntry* ia =
        &in_.entries[static_cast<size_t>(in_.begin[static_cast<size_t>(p * in_.planes + w.plane)])];
    const WEntry* wts = &weights_[static_cast<size_t>(w.wBegin)];
    int32_t* acc = pe.acc->data();
    int64_t useful = 0;
    for (int64_t j = 0; j < w.wCount; ++j) {
      const WEntry& wt = wts[j];
      if (wt.value == 0)
        continue;
      int32_t* accK = acc + fw * fh * wt.k;
      const int64_t offXr = offX + wt.r, offYs = offY + wt.s;
      for (int64_t i = 0; i < ias; ++i) {
        const IaEntry& a = ia[i];
        if (a.value == 0)
          continue; // a zero-valued pad
        const int64_t fx = a.x * l_.coordScaleX + offXr, fy = a.y * l_.coordScaleY + offYs;
        if (l_.inputHalos && !inFrame(f, fx, fy))
          continue; // dropped (issue)
        accK[fx + fw * fy] += a.value * wt.value;
        useful += (outX[fx] & outY[fy]) != 0;
      }
    }
    pe.useful += useful;
  }

  // --- functional post-processing of a group (all PEs done): Tables 7, 9, 10 ----------------
  void postProcess(int64_t g) {
    const WeightGroup& wg = groupList_[static_cast<size_t>(g)];
    const int64_t kc = wg.channels;
    const int64_t gx = l_.inTiling.x.parts;
    for (int64_t p = 0; p < pes_; ++p) {
      const PeFrame& f = l_.frames[static_cast<size_t>(p)];
      const std::vector<int32_t>& src = accs_[at(p, g)];
      for (const HaloDescriptor& d : f.halos) {
        if (!d.valid)
          continue;
        const int64_t q = (p / gx + d.peDy) * gx + p % gx + d.peDx;
        const PeFrame& nf = l_.frames[static_cast<size_t>(q)];
        std::vector<int32_t>& dst = accs_[at(q, g)];
        for (int64_t k = 0; k < kc; ++k)
          for (int64_t y = d.y1; y <= d.y2; ++y)
            for (int64_t x = d.x1; x <= d.x2; ++x)
              dst[static_cast<size_t>(x + d.xo + nf.width() * (y + d.yo + nf.height() * k))] +=
                  src[static_cast<size_t>(x + f.width() * (y + f.height() * k))];
        haloMessages_ += d.cells() * kc;
      }
    }
    // Sums are exact in int32 (quantization bounds every reduction); narrower accumulators wrap.
    const int64_t bits = std::min<int64_t>(c_.accumulatorBits, 32);
    const int64_t accMin = -(int64_t{1} << (bits - 1)), accMax = (int64_t{1} << (bits - 1)) - 1;
    for (int64_t p = 0; p < pes_; ++p) {
      const PeFrame& f = l_.frames[static_cast<size_t>(p)];
      std::vector<int32_t>& a = accs_[at(p, g)];
      for (int64_t k = 0; k < kc; ++k) {
        const int64_t m = wg.firstChannel + k;
        const ChannelPost& post = l_.post[static_cast<size_t>(m)];
        for (int64_t y = 0; y < f.outH; ++y) {
          const int64_t oy = l_.outputYOf[static_cast<size_t>(f.outY0 + y)];
          for (int64_t x = 0; x < f.outW; ++x) {
            const int64_t ox = l_.outputXOf[static_cast<size_t>(f.outX0 + x)];
            if (ox < 0 || oy < 0)
              continue; // a gap between output phases
            int64_t v = a[static_cast<size_t>(x + f.haloLeft +
                                              f.width() * (y + f.haloTop + f.height() * k))];
            if (v < accMin || v > accMax) {
              ++overflows_; // the accumulator wraps like the hardware's two's complement
              const uint64_t mask = (uint64_t{1} << bits) - 1;
              uint64_t u = static_cast<uint64_t>(v) & mask;
              if (u >> (bits - 1))
                u |= ~mask;
              v = static_cast<int64_t>(u);
            }
            const int32_t q =
                quant::requantizeTo(static_cast<int32_t>(v) + post.bias, post.multiplier,
                                    l_.outputZero, l_.clampMin, l_.clampMax);
            const size_t o = l_.matrixLayout
                                 ? static_cast<size_t>(ox * l_.outChannels + m)
                                 : static_cast<size_t>((m * l_.outH + oy) * l_.outW + ox);
            output_[o] = static_cast<int8_t>(q);
          }
        }
      }
      a.clear();
      a.shrink_to_fit();
    }
  }

  void finish(ArrayResult& r) {
    LayerDetail& d = r.detail;
    int64_t layerEnd = cycles_;
    int64_t computeEnd = 0;
    for (int64_t p = 0; p < pes_; ++p) {
      layerEnd = std::max(layerEnd, ppuEnd_[at(p, groups_ - 1)]);
      computeEnd = std::max(computeEnd, pe_[static_cast<size_t>(p)].doneAt);
    }
    d.cycles = layerEnd;
    SlotLosses& s = d.losses;
    for (const Pe& pe : pe_) {
      s.conflicts += (pe.stallCrossbar + pe.drainCycles) * P_;
      s.starvation += pe.stallWeights * P_;
      s.haloPpu += pe.waitSwap * P_ + (layerEnd - computeEnd) * P_;
      s.imbalance += (computeEnd - pe.doneAt) * P_;
    }
    int64_t products = 0, useful = 0, fragmentation = 0, iaReads = 0, weightReads = 0,
            denseLanes = 0;
    for (const Pe& pe : pe_) {
      products += pe.products;
      useful += pe.useful;
      fragmentation += pe.fragmentation;
      iaReads += pe.iaReads;
      weightReads += pe.weightReads;
      denseLanes += pe.denseLanes;
    }
    AccessCounts& a = dense_ ? d.denseAccess : d.access;
    const int64_t iaEntryBits = c_.valueBits + (dense_ ? 0 : activationCodeTable(c_).bits());
    a.iaReadBytes = iaReads * iaEntryBits / 8;
    a.weightFifoReadBytes = weightReads * vectorBits_ / 8;
    a.weightFifoWriteBytes = totalVecs_ * pes_ * vectorBits_ / 8;
    if (dense_) {
      a.multiplies = denseLanes;
      a.accumulatorRmw = denseLanes;
    } else {
      s.useful = useful;
      s.outsidePlane = products - useful;
      s.fragmentation = fragmentation;
      a.multiplies = products;
      int64_t dropped = 0;
      for (const Pe& pe : pe_)
        dropped += pe.dropped;
      a.crossbarTraversals = products - dropped;
      int64_t grants = 0;
      for (const Pe& pe : pe_)
        grants += pe.xbar->stats().commits; // the grants, or the combining buffers' commits
      a.accumulatorRmw = grants + haloMessages_;
      d.products = products;
      d.accumulatorOverflows = overflows_;
      r.output = std::move(output_);
    }
    for (int64_t p = 0; p < pes_; ++p) {
      const int64_t msgs = haloCells_[static_cast<size_t>(p)] * channels_;
      a.haloMessages += msgs;
      a.ppuOps += msgs + (homeOutputs_[static_cast<size_t>(p)] + poolOps(p)) * channels_;
    }
    if (l_.fusedPool) // the pooling's halo values: one message each, neighbour to neighbour
      a.haloMessages += l_.fusedPool->haloValuesPerChannel * channels_;
    d.groups = groups_;
    d.kc = l_.kc;
    d.gridX = l_.inTiling.x.parts;
    d.gridY = l_.inTiling.y.parts;
  }

  const ConvLayer& l_;
  std::span<const WeightGroup> groupList_;
  double dramShare_;
  int64_t channels_ = 0; ///< output channels of groupList_
  const SparseConfig& c_;
  common::DramFigures dram_; ///< the config's DRAM part at its clock
  const LayerInput& in_;
  bool dense_;
  int threads_;
  const std::function<void(double)>& progress_;
  int64_t pes_, groups_, F_, I_, P_;
  std::vector<std::vector<PlaneWork>> work_;
  std::vector<WEntry> weights_;
  int64_t totalVecs_ = 0, vectorBits_ = 0;
  std::vector<Pe> pe_;
  std::vector<int64_t> done_, swap_, haloEnd_, ppuEnd_;
  std::vector<int64_t> doneCount_;
  std::vector<std::vector<int32_t>> accs_;
  std::vector<std::vector<int64_t>> neighbours_; ///< PEs this PE sends halos to
  std::vector<std::vector<int64_t>> senders_;    ///< PEs that send halos to this PE
  std::vector<int64_t> haloCells_;
  std::vector<std::vector<uint8_t>> outputX_, outputY_; ///< per PE: frame cells that are outputs
  std::vector<int64_t> homeOutputs_;                    ///< per PE: output pixels it owns
  int64_t cycles_ = 0;
  int64_t haloMessages_ = 0, overflows_ = 0;
  int64_t maxGroup_ = 0;

public:
  std::vector<int8_t> output_;
};

} // namespace

namespace {

ArrayResult runGroups(const ConvLayer& layer, std::span<const WeightGroup> groups, double dramShare,
                      const SparseConfig& config, const LayerInput& input, bool dense, int threads,
                      const std::function<void(double)>& progress) {
  ArrayRun run(layer, groups, dramShare, config, input, dense, threads, progress);
  if (!dense) {
    const int64_t n = layer.matrixLayout ? layer.outW * layer.outChannels
                                         : layer.outChannels * layer.outH * layer.outW;
    run.output_.assign(static_cast<size_t>(n), 0);
  }
  return run.run();
}

/// Adds slice \p b's detail (run for \p b.cycles) into the layer's \p a; the slots of a
/// PE that finished before the layer are imbalance (addSliceIdle, once the layer's end is known).
void addSlice(LayerDetail& a, const LayerDetail& b, bool dense) {
  a.cycles = std::max(a.cycles, b.cycles);
  a.losses += b.losses;
  (dense ? a.denseAccess : a.access) += dense ? b.denseAccess : b.access;
  a.products += b.products;
  a.accumulatorOverflows += b.accumulatorOverflows;
  a.groups += b.groups;
}

/// Copies group \p wg's output channels from \p from to \p to (a layer output each).
void copyChannels(const ConvLayer& layer, const WeightGroup& wg, const std::vector<int8_t>& from,
                  std::vector<int8_t>& to) {
  if (!layer.matrixLayout) { // [K, OH, OW]: one block
    const int64_t plane = layer.outH * layer.outW;
    std::copy_n(from.begin() + wg.firstChannel * plane, wg.channels * plane,
                to.begin() + wg.firstChannel * plane);
    return;
  }
  for (int64_t row = 0; row < layer.outW; ++row) // [rows, K]: a run per row
    std::copy_n(from.begin() + row * layer.outChannels + wg.firstChannel, wg.channels,
                to.begin() + row * layer.outChannels + wg.firstChannel);
}

/// A layer's output-channel slices (ConvLayer::sliceFirstGroup), PE by PE:
/// each runs its groups as a one-PE array on the whole input, its weights unicast over an
/// equal share of the DRAM stream (every PE streams at once). The layer ends with its slowest
/// PE; the others' remaining slots are imbalance.
ArrayResult runSlices(const ConvLayer& layer, const SparseConfig& config, const LayerInput& input,
                      bool dense, int threads, const std::function<void(double)>& progress) {
  const int64_t slices = layer.usedPes();
  const std::span<const WeightGroup> all(layer.groups);
  ArrayResult r;
  std::vector<int64_t> sliceCycles;
  for (int64_t s = 0; s < slices; ++s) {
    const auto first = static_cast<size_t>(layer.sliceFirstGroup[static_cast<size_t>(s)]);
    const auto last = static_cast<size_t>(layer.sliceFirstGroup[static_cast<size_t>(s) + 1]);
    std::function<void(double)> sliceProgress;
    if (progress)
      sliceProgress = [&](double f) { progress((static_cast<double>(s) + f) / slices); };
    ArrayResult one = runGroups(layer, all.subspan(first, last - first), 1.0 / slices, config,
                                input, dense, threads, sliceProgress);
    sliceCycles.push_back(one.detail.cycles);
    addSlice(r.detail, one.detail, dense);
    if (dense)
      continue;
    if (r.output.empty())
      r.output.assign(one.output.size(), 0);
    for (size_t g = first; g < last; ++g) // the slice's channels
      copyChannels(layer, layer.groups[g], one.output, r.output);
  }
  const int64_t lanes = config.multipliersPerPe();
  for (int64_t c : sliceCycles)
    r.detail.losses.imbalance += (r.detail.cycles - c) * lanes;
  r.detail.kc = layer.kc;
  r.detail.gridX = slices;
  r.detail.gridY = 1;
  return r;
}

} // namespace

ArrayResult runArray(const ConvLayer& layer, const SparseConfig& config, const LayerInput& input,
                     bool dense, int threads, const std::function<void(double)>& progress) {
  NNACCEL_ASSERT(layer.sliceFirstGroup.empty() || layer.inTiling.pes() == 1)
      << "output-channel slices share one frame";
  if (!layer.sliceFirstGroup.empty())
    return runSlices(layer, config, input, dense, threads, progress);
  return runGroups(layer, layer.groups, 1.0, config, input, dense, threads, progress);
}

} // namespace nnaccel::arch::sparse
