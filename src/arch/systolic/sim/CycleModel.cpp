/// \file
/// The closed-form cycle model (CycleModel.h): engine clocks, the PE array's stream port and
/// weight loader, semaphores and per-layer accounting. docs/arch/SystolicCycleModel.md is the
/// specification of every formula here.
#include "CycleModel.h"

#include "nnaccel/support/Error.h"
#include "nnaccel/support/IntMath.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <type_traits>

namespace nnaccel::arch::systolic::detail {

namespace {

template <class... Fs> struct Overloaded : Fs... { using Fs::operator()...; };
template <class... Fs> Overloaded(Fs...) -> Overloaded<Fs...>;

std::string instrName(size_t index, const Instruction& inst) {
  return "instruction " + std::to_string(index) + " (" + mnemonic(inst.op) + ")";
}

} // namespace

PeTiming FastPeArray::loadWeights(int64_t ready) {
  PeTiming t;
  const int64_t blocker = config_.shadowWeights ? shadowFree_ : arrayDrained_;
  t.start = std::max({loaderFree_, blocker, ready});
  t.done = t.start + config_.weightLoadCycles;
  weightsReady_ = loaderFree_ = t.done;
  shadowPending_ = config_.shadowWeights;
  return t;
}

PeTiming FastPeArray::matmul(int64_t vectors, int64_t cols, int64_t ready) {
  PeTiming t;
  t.portFree = streamFree_;
  t.weightsReady = weightsReady_;
  t.start = std::max({streamFree_, weightsReady_, ready});
  if (shadowPending_) {
    // The swap travels with the first vector; it leaves PE (R-1, C-1) in cycle
    // t0 + R + C - 2, and the shadow registers may be refilled from the next cycle on.
    shadowFree_ = t.start + config_.peRows + config_.peCols - 1;
    shadowPending_ = false;
  }
  streamFree_ = t.start + vectors;
  t.done = t.start + vectors + config_.peRows + cols - 1;
  arrayDrained_ = std::max(arrayDrained_, t.done);
  return t;
}

PeTiming FastPeArray::psumReset(int64_t entries, int64_t ready) {
  PeTiming t;
  t.portFree = streamFree_;
  t.start = std::max(streamFree_, ready);
  t.done = t.start + ceilDiv(entries, config_.psumResetEntriesPerCycle);
  streamFree_ = t.done;
  return t;
}

int64_t psumResetCycles(const SystolicConfig& c, const PsumReset& r) {
  return ceilDiv(r.entries, c.psumResetEntriesPerCycle);
}

namespace {

/// Rows a DRAM pattern of \p d opens (tech::RowSweep, innermost level first).
template <class D>
double rowsOpened(const tech::DramStandard& s, const D& d, const DramPattern& p) {
  const tech::RowSweep elements =
      p.innerStep == d.elemBytes ? tech::rowSweepOfRun(s, d.innerCount * d.elemBytes)
                                 : tech::rowSweepRepeated(s, tech::rowSweepOfRun(s, d.elemBytes),
                                                          d.innerCount, p.innerStep);
  const tech::RowSweep outer = tech::rowSweepRepeated(s, elements, d.outerCount, p.outerStride);
  return tech::rowSweepRepeated(s, outer, d.partitionCount, p.partitionStride).activations;
}

} // namespace

std::optional<DmaTraffic> dmaTraffic(const Op& op, const common::DramFigures& dram) {
  auto bytesOf = [](const auto& d) {
    return d.partitionCount * d.outerCount * d.innerCount * d.elemBytes;
  };
  std::optional<DmaTraffic> t;
  double rows = 0;
  const bool count = dram.rowBuffer && dram.standard != nullptr;
  if (const auto* d = std::get_if<DmaLoad>(&op)) {
    t = DmaTraffic{bytesOf(*d), bytesOf(*d), !isResidentAddr(d->dram.addr), false};
    if (count && t->readsDram && t->bytes > 0)
      rows = rowsOpened(*dram.standard, *d, d->dram);
  } else if (const auto* st = std::get_if<DmaStore>(&op)) {
    t = DmaTraffic{bytesOf(*st), bytesOf(*st), false, !isResidentAddr(st->dram.addr)};
    if (count && t->writesDram && t->bytes > 0)
      rows = rowsOpened(*dram.standard, *st, st->dram);
  } else if (const auto* c = std::get_if<DmaCopy>(&op)) {
    t = DmaTraffic{bytesOf(*c), c->fillZero ? 0 : bytesOf(*c),
                   !c->fillZero && !isResidentAddr(c->src.addr), !isResidentAddr(c->dst.addr)};
    if (count && t->bytes > 0)
      rows = (t->readsDram ? rowsOpened(*dram.standard, *c, c->src) : 0.0) +
             (t->writesDram ? rowsOpened(*dram.standard, *c, c->dst) : 0.0);
  }
  if (t)
    t->dramActivations = rows;
  return t;
}

int64_t dmaOccupancyCycles(const SystolicConfig& c, const common::DramFigures& dram,
                           const DmaTraffic& t) {
  if (t.onChip())
    return transferCycles(t.bytes, c.sbufDmaBytesPerCycle);
  // A copy inside DRAM: its bytes once over the bus, the rows of both its sides.
  return static_cast<int64_t>(
      std::ceil(common::dramTransferCycles(dram, static_cast<double>(t.bytes), t.dramActivations)));
}

int64_t dmaLatencyCycles(const SystolicConfig& c, const common::DramFigures& dram,
                         const DmaTraffic& t) {
  return t.onChip() ? c.sbufDmaLatencyCycles : dram.latencyCycles;
}

int64_t activateCycles(const Activate& a) {
  return a.rows * a.rowLen;
}

/// Taps an interpolating POOL reads per output: two per axis.
constexpr int64_t kInterpolationTaps = 4;

int64_t poolCycles(const SystolicConfig& c, const Pool& p) {
  const int64_t window =
      p.kind == Pool::Kind::Interpolate ? kInterpolationTaps : p.kernelH * p.kernelW;
  return ceilDiv(p.partitions, c.poolLanes) * p.outRows * p.outW * window;
}

int64_t vectorCycles(const SystolicConfig& c, const Vector& v) {
  // Softmax passes over each line three times: maximum, exponential and sum, divide.
  const int64_t passes = v.func == VectorFunc::Softmax ? 3 : 1;
  return ceilDiv(v.partitions, c.poolLanes) * v.rows * v.rowLen * passes;
}

int64_t poolAxisCount(int64_t o, int64_t stride, int64_t kernel, int64_t dilation, int64_t in,
                      int64_t padBegin, int64_t padEnd, bool countIncludePad) {
  const int64_t lo = countIncludePad ? -padBegin : 0;
  const int64_t hi = countIncludePad ? in + padEnd : in;
  int64_t count = 0;
  for (int64_t k = 0; k < kernel; ++k) {
    const int64_t pos = o * stride - padBegin + k * dilation;
    count += (pos >= lo && pos < hi) ? 1 : 0;
  }
  return count;
}

int64_t poolWindowElements(const Pool& p) {
  if (p.kind == Pool::Kind::Interpolate)
    return p.outRows * p.outW * kInterpolationTaps;
  // Separable: the in-plane elements of window (oy, ox) are rowsIn(oy) * colsIn(ox).
  int64_t rows = 0, cols = 0;
  for (int64_t oy = p.outRow0; oy < p.outRow0 + p.outRows; ++oy) {
    rows += poolAxisCount(oy, p.strideH, p.kernelH, p.dilH, p.inH, p.padTop, 0, false);
  }
  for (int64_t ox = 0; ox < p.outW; ++ox) {
    cols += poolAxisCount(ox, p.strideW, p.kernelW, p.dilW, p.inW, p.padLeft, 0, false);
  }
  return rows * cols;
}

int64_t Semaphores::readyTime(size_t index, const Instruction& inst, bool* fromDma) const {
  int64_t ready = 0;
  if (fromDma != nullptr)
    *fromDma = false;
  for (const SemWait& w : inst.sync.waits) {
    if (w.sem < 0) {
      continue;
    }
    if (w.sem >= kNumSemaphores) {
      throw Error(ErrorKind::Model, {},
                  instrName(index, inst) + ": waits on semaphore " + std::to_string(w.sem) +
                      ", but the machine has semaphores 0.." + std::to_string(kNumSemaphores - 1));
    }
    if (w.count <= 0) {
      continue;
    }
    const std::vector<Signal>& times = times_[static_cast<size_t>(w.sem)];
    if (static_cast<int64_t>(times.size()) < w.count) {
      throw Error(ErrorKind::Model, {},
                  instrName(index, inst) + ": waits for semaphore " + std::to_string(w.sem) +
                      " >= " + std::to_string(w.count) +
                      ", but the instructions before it "
                      "signal it only " +
                      std::to_string(times.size()) +
                      " time(s) (a wait may only depend on earlier instructions)");
    }
    const Signal& satisfying = times[static_cast<size_t>(w.count - 1)];
    if (satisfying.doneCycle >= ready) {
      ready = satisfying.doneCycle;
      if (fromDma != nullptr)
        *fromDma = satisfying.fromDma;
    }
  }
  return ready;
}

void Semaphores::signal(size_t index, const Instruction& inst, int64_t doneCycle) {
  const int32_t s = inst.sync.signal;
  if (s < 0) {
    return;
  }
  if (s >= kNumSemaphores) {
    throw Error(ErrorKind::Model, {},
                instrName(index, inst) + ": signals semaphore " + std::to_string(s) +
                    ", but the machine has semaphores 0.." + std::to_string(kNumSemaphores - 1));
  }
  std::vector<Signal>& times = times_[static_cast<size_t>(s)];
  const bool dma = std::holds_alternative<DmaLoad>(inst.op) ||
                   std::holds_alternative<DmaStore>(inst.op) ||
                   std::holds_alternative<DmaCopy>(inst.op);
  // Completion times arrive nearly sorted: the insertion point is almost always the end.
  const auto at = std::upper_bound(
      times.begin(), times.end(), doneCycle,
      [](int64_t cycle, const Signal& signal) { return cycle < signal.doneCycle; });
  times.insert(at, Signal{doneCycle, dma});
}

LayerAccounts::LayerAccounts(const Program& program)
    : program_(program), prices_(energyPrices(program.config)), dram_(program.config.dramFigures()),
      accounts_(program.layers.size()) {
  if (program.layers.empty()) {
    return;
  }
  const int64_t n = static_cast<int64_t>(program.instructions.size());
  instrLayer_.assign(static_cast<size_t>(n), -1);
  for (size_t l = 0; l < program.layers.size(); ++l) {
    const Layer& layer = program.layers[l];
    const int64_t first = std::clamp<int64_t>(layer.firstInstr, 0, n);
    const int64_t end = std::clamp<int64_t>(layer.endInstr, first, n);
    for (int64_t i = first; i < end; ++i) {
      instrLayer_[static_cast<size_t>(i)] = static_cast<int64_t>(l);
    }
  }
  // An instruction outside every layer's range belongs to the next layer after it (trailing
  // ones to the last layer), so the per-layer cycles still sum to the total.
  int64_t owner = static_cast<int64_t>(program.layers.size()) - 1;
  for (int64_t i = n - 1; i >= 0; --i) {
    int64_t& l = instrLayer_[static_cast<size_t>(i)];
    if (l < 0) {
      l = owner;
    } else {
      owner = l;
    }
  }
}

void LayerAccounts::addTraffic(Account& a, const Instruction& inst) {
  const EnergyPrices& e = prices_;
  const int64_t elem = static_cast<int64_t>(dtypeSizeBytes(program_.dtype));
  report::Traffic sbuf, psum, dram; // psum in entries here, converted below
  double extraPj = 0;
  double activations = 0;
  if (const std::optional<DmaTraffic> t = dmaTraffic(inst.op, dram_)) {
    // Each side of a DMA is DRAM or on chip (SBUF, its resident region or a table memory).
    (t->readsDram ? dram : sbuf).readBytes += t->readBytes;
    (t->writesDram ? dram : sbuf).writeBytes += t->bytes;
    activations = t->dramActivations;
  }
  std::visit(Overloaded{
                 [&](const DmaLoad&) {},
                 [&](const DmaStore&) {},
                 [&](const DmaCopy&) {},
                 [&](const LoadWeights& w) {
                   sbuf.readBytes += w.rows * w.cols * elem;
                   const double pj =
                       static_cast<double>(w.rows * w.cols * elem) * e.weightLoadPjPerByte;
                   extraPj += pj;
                   a.energy.onChip += pj;
                 },
                 [&](const Matmul& m) {
                   const int64_t n = m.srcOuterCount * m.srcInnerCount;
                   sbuf.readBytes += n * m.rows * elem;
                   psum.writeBytes += n * m.cols;
                   psum.readBytes += m.accumulate ? n * m.cols : 0;
                   const double mac = program_.dtype == DType::F32 ? e.macFp32Pj : e.macInt8Pj;
                   extraPj += static_cast<double>(n * m.rows * m.cols) * mac;
                   a.energy.compute += static_cast<double>(n * m.rows * m.cols) * mac;
                 },
                 [&](const PsumReset& r) { psum.writeBytes += r.entries * r.cols; },
                 [&](const Activate& act) {
                   const int64_t elements = act.rows * act.rowLen * act.cols;
                   psum.readBytes += elements;
                   sbuf.writeBytes += elements * act.elemBytes;
                   extraPj += static_cast<double>(elements) * e.actOpPj;
                   a.energy.postProcess += static_cast<double>(elements) * e.actOpPj;
                 },
                 [&](const Pool& p) {
                   const int64_t window = poolWindowElements(p) * p.partitions;
                   sbuf.readBytes += window * p.elemBytes;
                   sbuf.writeBytes += p.outRows * p.outW * p.partitions * p.elemBytes;
                   extraPj += static_cast<double>(window) * e.poolOpPj;
                   a.energy.postProcess += static_cast<double>(window) * e.poolOpPj;
                 },
                 [&](const HostOp&) {},
                 [&](const Barrier&) {},
                 [&](const Vector& v) {
                   // Operand A and the result per element, B (and Select's C) per element (or
                   // per row when broadcast), one vector operation per element: priced like a
                   // pooling-window element.
                   const int64_t elements = v.rows * v.rowLen * v.partitions;
                   const bool binary = isBinary(v.func);
                   const int64_t bReads =
                       !binary ? 0 : (v.bStep == 0 ? v.rows * v.partitions : elements);
                   const int64_t cReads = !isSelect(v.func) ? 0
                                          : v.cStep == 0    ? v.rows * v.partitions
                                                            : elements;
                   sbuf.readBytes += elements + bReads + cReads;
                   sbuf.writeBytes += elements;
                   extraPj += static_cast<double>(elements) * e.poolOpPj;
                   a.energy.postProcess += static_cast<double>(elements) * e.poolOpPj;
                 },
             },
             inst.op);
  constexpr int64_t kEntryBytes = 4;
  a.sbuf += sbuf;
  a.dram += dram;
  a.psum += report::Traffic{psum.readBytes * kEntryBytes, psum.writeBytes * kEntryBytes};
  const double onChipPj = static_cast<double>(sbuf.readBytes) * e.sbufReadPjPerByte +
                          static_cast<double>(sbuf.writeBytes) * e.sbufWritePjPerByte +
                          static_cast<double>(psum.readBytes) * e.psumReadPjPerEntry +
                          static_cast<double>(psum.writeBytes) * e.psumWritePjPerEntry;
  a.dramActivations += activations;
  const double dramPj = static_cast<double>(dram.readBytes) * e.dramReadPjPerByte +
                        static_cast<double>(dram.writeBytes) * e.dramWritePjPerByte +
                        activations * e.dramActivatePj;
  a.energyPj += extraPj + onChipPj + dramPj;
  a.energy.onChip += onChipPj;
  a.energy.dram += dramPj;
}

void LayerAccounts::add(size_t index, const Instruction& inst, const Timing& t, const PeTiming* pe,
                        int64_t readyCycle, bool readyFromDma) {
  maxDone_ = std::max(maxDone_, t.done);
  const int64_t l = layerOf(index);
  if (l < 0) {
    return;
  }
  Account& a = accounts_[static_cast<size_t>(l)];
  if (a.startCycle < 0) {
    // Instructions come in program order and layers own consecutive ranges, so every earlier
    // layer is complete here: its end is final (finish() uses the same running maximum).
    a.startCycle = 0;
    for (int64_t k = 0; k < l; ++k)
      a.startCycle = std::max(a.startCycle, accounts_[static_cast<size_t>(k)].end);
  }
  // The part of [from, to) inside the layer's span.
  const auto inSpan = [&](int64_t from, int64_t to) {
    return std::max<int64_t>(0, to - std::max(from, a.startCycle));
  };
  a.end = std::max(a.end, t.done);
  ++a.instructions;
  addTraffic(a, inst);
  const SystolicConfig& c = program_.config;
  if (const auto* m = std::get_if<Matmul>(&inst.op)) {
    const int64_t n = m->srcOuterCount * m->srcInnerCount;
    a.issuedMacs += n * m->rows * m->cols;
    a.streamed += n;
    a.peStream += n;
    const int64_t gap = pe->start - pe->portFree;
    if (gap > 0) {
      (pe->weightsReady >= readyCycle ? a.peWaitWeights : a.peWaitSync) += gap;
    }
    a.spanStream += inSpan(pe->start, pe->start + n);
    const int64_t wait = inSpan(pe->portFree, pe->start);
    if (pe->weightsReady >= readyCycle)
      a.spanWaitWeights += wait;
    else
      (readyFromDma ? a.spanWaitDma : a.spanWaitOther) += wait;
  } else if (const auto* r = std::get_if<PsumReset>(&inst.op)) {
    a.peReset += psumResetCycles(c, *r);
    a.peWaitSync += std::max<int64_t>(0, pe->start - pe->portFree);
    a.spanReset += inSpan(pe->start, pe->start + psumResetCycles(c, *r));
    (readyFromDma ? a.spanWaitDma : a.spanWaitOther) += inSpan(pe->portFree, pe->start);
  } else if (std::holds_alternative<LoadWeights>(inst.op)) {
    a.peWeightLoad += c.weightLoadCycles;
  } else if (const auto* act = std::get_if<Activate>(&inst.op)) {
    a.actBusy += activateCycles(*act);
  } else if (const auto* p = std::get_if<Pool>(&inst.op)) {
    a.poolBusy += poolCycles(c, *p);
  } else if (const auto* v = std::get_if<Vector>(&inst.op)) {
    a.vectorBusy += vectorCycles(c, *v);
  } else if (const std::optional<DmaTraffic> dma = dmaTraffic(inst.op, dram_)) {
    const int64_t busy = dmaOccupancyCycles(c, dram_, *dma);
    a.dmaBusy += busy;
    a.dramBusy += dma->onChip() ? 0 : busy;
  }
}

/// A host layer's operands leave DRAM for the host and its results come back into DRAM: the
/// bytes the host model (engines/HostModel.h) charges, counted as DRAM traffic too.
void LayerAccounts::chargeHostTraffic(const Layer& layer, report::LayerStats& s) const {
  for (const int32_t t : layer.inputTensors)
    if (t >= 0)
      s.dram.readBytes += program_.tensors[static_cast<size_t>(t)].bytes();
  for (const int32_t t : layer.outputTensors)
    if (t >= 0)
      s.dram.writeBytes += program_.tensors[static_cast<size_t>(t)].bytes();
  s.hostBytes = s.dram.readBytes + s.dram.writeBytes;
}

std::vector<report::LayerStats> LayerAccounts::finish(int64_t& totalCycles) const {
  std::vector<report::LayerStats> out;
  out.reserve(accounts_.size());
  int64_t prevEnd = 0;
  for (size_t l = 0; l < accounts_.size(); ++l) {
    const Layer& layer = program_.layers[l];
    const Account& a = accounts_[l];
    report::LayerStats s;
    s.name = layer.name;
    s.op = layer.op;
    s.shape = layer.shape;
    s.unit = layerUnitName(layer.unit);
    s.hostFallback = layer.unit == LayerUnit::Host;
    s.note = layer.note;
    s.usefulMacs = layer.usefulMacs;
    s.issuedMacs = a.issuedMacs;
    s.streamedElements = a.streamed;
    s.instructions = a.instructions;
    s.cycles = std::max<int64_t>(0, a.end - prevEnd);
    prevEnd = std::max(prevEnd, a.end);
    if (layer.unit == LayerUnit::PeArray) {
      s.busyCycles = a.peStream;
    } else if (layer.unit == LayerUnit::Pool) {
      s.busyCycles = a.poolBusy + a.actBusy;
    } else if (layer.unit == LayerUnit::Vector) {
      s.busyCycles = a.vectorBusy;
    }
    s.stallCycles = std::max<int64_t>(0, s.cycles - s.busyCycles);
    // Causes (docs/report-schema.md), from the PE stream port's intervals inside the layer's
    // span: streaming (compute); a MATMUL waiting for its weights to load, and PSUM resets
    // (fill/drain); waiting for a semaphore a DMA signalled (memory) or another unit signalled
    // (sync). The rest of the span, the array draining and the activation and store after the
    // last MATMUL, is fill/drain. Pool layers: the pooling engine's busy time, the rest waiting
    // for its input (memory); Vector layers likewise with the vector unit's busy time.
    if (layer.unit == LayerUnit::PeArray) {
      s.causes.compute = a.spanStream;
      s.causes.memory = a.spanWaitDma;
      s.causes.sync = a.spanWaitOther;
      s.causes.fillDrain = a.spanWaitWeights + a.spanReset;
      NNACCEL_ASSERT(s.causes.sum() <= s.cycles)
          << "layer '" << layer.name << "': port intervals exceed the layer's span";
      s.causes.fillDrain += s.cycles - s.causes.sum();
    } else if (layer.unit == LayerUnit::Pool || layer.unit == LayerUnit::Vector) {
      s.causes.compute = std::min(s.busyCycles, s.cycles);
      s.causes.memory = s.cycles - s.causes.compute;
    }
    const std::pair<const char*, int64_t> entries[] = {
        {"pe.stream", a.peStream},          {"pe.wait_weights", a.peWaitWeights},
        {"pe.wait_sync", a.peWaitSync},     {"pe.reset", a.peReset},
        {"pe.weight_load", a.peWeightLoad}, {"dma.busy", a.dmaBusy},
        {"dram.busy", a.dramBusy},          {"act.busy", a.actBusy},
        {"pool.busy", a.poolBusy},          {"vector.busy", a.vectorBusy},
    };
    for (const auto& [key, value] : entries) {
      if (value != 0) {
        s.breakdown.emplace_back(key, value);
      }
    }
    s.sbuf = a.sbuf;
    s.psum = a.psum;
    s.dram = a.dram;
    if (dram_.rowBuffer && dram_.standard) {
      // The row-buffer model: rows opened, and the other bursts hit an open row.
      const auto activations = static_cast<int64_t>(std::llround(a.dramActivations));
      const int64_t bursts =
          ceilDiv(a.dram.readBytes + a.dram.writeBytes, dram_.standard->burstBytes);
      s.counts.emplace_back("dram_row_activations", activations);
      s.counts.emplace_back("dram_row_hits", std::max<int64_t>(0, bursts - activations));
    }
    s.energyPj = a.energyPj;
    s.energy = a.energy;
    if (layer.unit == LayerUnit::Host)
      chargeHostTraffic(layer, s);
    out.push_back(std::move(s));
  }
  totalCycles = maxDone_;
  return out;
}

} // namespace nnaccel::arch::systolic::detail
