/// \file
/// The closed-form cycle model of the systolic machine (private to the simulator): one clock
/// per engine, the PE array's stream port / weight loader / shadow register, the semaphores,
/// and the per-layer accounting (cycles, busy/stall breakdown, traffic, energy).
///
/// Why separate from the functional model: the same timing rules serve `functional = false`
/// runs (ResNet-50 in well under a second), and the exact mode (ExactArray.h) replaces only the
/// PE-array part of it, so the rules other engines follow live in one place.
/// docs/arch/SystolicCycleModel.md states every rule implemented here.
#pragma once
#include "nnaccel/arch/systolic/Program.h"
#include "nnaccel/report/Report.h"
#include "nnaccel/support/IntMath.h"

#include <array>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace nnaccel::arch::systolic::detail {

/// Start and completion cycle of one instruction (done = the cycle its signal becomes visible).
struct Timing {
  int64_t start = 0;
  int64_t done = 0;
};

/// A PE-array instruction's timing plus what its stream port saw, for stall attribution.
struct PeTiming {
  int64_t start = 0;
  int64_t done = 0;
  int64_t portFree = 0;     ///< cycle the stream port became free before it (MATMUL/RESET)
  int64_t weightsReady = 0; ///< cycle the weights it multiplies by were loaded (MATMUL)
};

/// An engine with a pipelined queue: an instruction occupies it for `occupancy` cycles from
/// its start and completes `latency` cycles after that (DMA, activation, pooling).
class PipelinedEngine {
public:
  Timing issue(int64_t ready, int64_t occupancyCycles, int64_t latencyCycles) {
    Timing t;
    t.start = std::max(free_, ready);
    free_ = t.start + occupancyCycles;
    t.done = t.start + latencyCycles + occupancyCycles;
    return t;
  }

private:
  int64_t free_ = 0;
};

/// The closed-form PE array model: stream port, weight loader and shadow register.
class FastPeArray {
public:
  explicit FastPeArray(const SystolicConfig& config) : config_(config) {}
  PeTiming loadWeights(int64_t ready);
  PeTiming matmul(int64_t vectors, int64_t cols, int64_t ready);
  PeTiming psumReset(int64_t entries, int64_t ready);

private:
  const SystolicConfig& config_;
  int64_t streamFree_ = 0, weightsReady_ = 0, loaderFree_ = 0, shadowFree_ = 0;
  int64_t arrayDrained_ = 0;
  bool shadowPending_ = false; ///< a shadow load no MATMUL has swapped in yet
};

/// Cycles of the PE array an instruction needs (both models): the formulas of the doc.
int64_t psumResetCycles(const SystolicConfig& c, const PsumReset& r);
/// A DMA instruction's bytes and where its memory side(s) live: DRAM, or the SBUF resident
/// region (addresses from kResidentBase on). The SBUF side of a DMA_LOAD/STORE is on chip.
struct DmaTraffic {
  int64_t bytes = 0;                          ///< bytes written (and read, but for a zero fill)
  int64_t readBytes = 0;                      ///< 0 for a DMA_COPY zero fill
  bool readsDram = false, writesDram = false; ///< else that side is on chip
  double dramActivations = 0; ///< DRAM rows its pattern opens (the row-buffer model; else 0)
  /// True when neither side is DRAM: the move runs at the on-chip DMA rate.
  bool onChip() const { return !readsDram && !writesDram; }
};
/// DmaTraffic of a DMA_LOAD, DMA_STORE or DMA_COPY (nullopt for every other op); with the
/// row-buffer model of \p dram on, the rows its DRAM side(s) open.
std::optional<DmaTraffic> dmaTraffic(const Op& op, const common::DramFigures& dram);
/// Cycles the DMA engine is busy with \p t: bytes over the on-chip DMA rate, or DRAM's transfer
/// time (its bus, or its banks' row cycles when activations dominate).
int64_t dmaOccupancyCycles(const SystolicConfig& c, const common::DramFigures& dram,
                           const DmaTraffic& t);
/// First-byte latency of \p t: DRAM's, or the on-chip DMA's when it touches no DRAM.
int64_t dmaLatencyCycles(const SystolicConfig& c, const common::DramFigures& dram,
                         const DmaTraffic& t);
int64_t activateCycles(const Activate& a);
int64_t poolCycles(const SystolicConfig& c, const Pool& p);
/// VECTOR: ceil(partitions / poolLanes) * rows * rowLen (one element per lane per cycle; the
/// pipeline latency is the pooling engine's poolLatencyCycles).
int64_t vectorCycles(const SystolicConfig& c, const Vector& v);
/// Number of in-plane window elements of one partition of \p p (summed over its outputs).
int64_t poolWindowElements(const Pool& p);
/// Window count rule of the pooling engine along one axis (the int8 reference's rule): the
/// positions of output \p o's window inside [-padBegin, in + padEnd) when countIncludePad,
/// else inside [0, in).
int64_t poolAxisCount(int64_t o, int64_t stride, int64_t kernel, int64_t dilation, int64_t in,
                      int64_t padBegin, int64_t padEnd, bool countIncludePad);

/// The semaphores: signal completion times, and the cycle a wait is satisfied. Only signals of
/// earlier instructions count (program order); a wait they cannot satisfy is an error.
class Semaphores {
public:
  /// Cycle at which instruction \p index's waits all hold (0 when it has none). Throws
  /// nnaccel::Error (Model) naming the instruction when one cannot be satisfied.
  /// With \p fromDma: whether the signal that satisfied the last of the waits came from a DMA
  /// instruction (the report counts such waits as memory stalls).
  int64_t readyTime(size_t index, const Instruction& inst, bool* fromDma = nullptr) const;
  void signal(size_t index, const Instruction& inst, int64_t doneCycle);

private:
  struct Signal {
    int64_t doneCycle;
    bool fromDma;
  };
  /// Per semaphore: its signals so far, by ascending completion time.
  std::array<std::vector<Signal>, kNumSemaphores> times_;
};

/// Everything the report needs about one layer, accumulated instruction by instruction.
class LayerAccounts {
public:
  LayerAccounts(const Program& program);
  /// Layer index instruction \p index is attributed to (instructions between layers go to the
  /// next layer, trailing ones to the last); -1 when the program has no layer.
  int64_t layerOf(size_t index) const { return instrLayer_.empty() ? -1 : instrLayer_[index]; }

  /// Adds instruction \p index with its timing and, for PE instructions, its stream-port view.
  /// \p readyFromDma: the instruction's last dependency was a DMA (Semaphores::readyTime).
  void add(size_t index, const Instruction& inst, const Timing& t, const PeTiming* pe,
           int64_t readyCycle, bool readyFromDma);
  /// Finishes per-layer cycles (they sum to the total) and returns the stats.
  std::vector<report::LayerStats> finish(int64_t& totalCycles) const;

private:
  void chargeHostTraffic(const Layer& layer, report::LayerStats& s) const;
  struct Account {
    int64_t end = 0;
    int64_t issuedMacs = 0, streamed = 0, instructions = 0;
    int64_t peStream = 0, peWaitWeights = 0, peWaitSync = 0, peReset = 0, peWeightLoad = 0;
    int64_t dmaBusy = 0, actBusy = 0, poolBusy = 0, vectorBusy = 0;
    int64_t dramBusy = 0; ///< of dmaBusy, the cycles DMAs held DRAM (bus or banks)
    /// The report's causes: the PE stream port's intervals clipped to the layer's own span
    /// (from the end of the layers before it), so that overlap with the previous layer is not
    /// counted twice. The port is serial, so these never sum to more than the span.
    int64_t startCycle = -1; ///< the end of the layers before it (set by the first instruction)
    int64_t spanStream = 0, spanWaitWeights = 0, spanWaitDma = 0, spanWaitOther = 0;
    int64_t spanReset = 0;
    report::Traffic sbuf, psum, dram;
    double dramActivations = 0;
    double energyPj = 0;
    report::EnergyParts energy; ///< energyPj by component
  };
  void addTraffic(Account& a, const Instruction& inst);

  const Program& program_;
  EnergyPrices prices_;      ///< the program's config, every `auto` energy priced
  common::DramFigures dram_; ///< the program's DRAM part at its clock
  std::vector<int64_t> instrLayer_;
  std::vector<Account> accounts_;
  int64_t maxDone_ = 0;
};

} // namespace nnaccel::arch::systolic::detail
