/// \file
/// The broadcast machine model (Simulator.h): the layer loop, the work-item distribution over
/// broadcast groups, the per-pass slot schedule with lanes, broadcast links, register-file
/// buffers and MAC timing, the column-buffer drain, the functional data path, the split of each
/// layer's traffic between the global buffer and memory 310 (DRAM), and the counts behind the
/// report. docs/arch/BroadcastCycleModel.md states every rule implemented here.
#include "nnaccel/arch/broadcast/Simulator.h"

#include "nnaccel/arch/broadcast/Schedule.h"
#include "nnaccel/arch/common/Lowering.h"
#include "nnaccel/arch/common/Pooling.h"
#include "nnaccel/ir/OpParams.h"
#include "nnaccel/quant/Requantize.h"
#include "nnaccel/support/Error.h"
#include "nnaccel/support/IntMath.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fmt/format.h>
#include <map>
#include <tuple>

namespace nnaccel::arch::broadcast {

double VariantStats::writesPerRead() const {
  return activationReads > 0
             ? static_cast<double>(inputRfWrites) / static_cast<double>(activationReads)
             : 0.0;
}

VariantStats& VariantStats::operator+=(const VariantStats& o) {
  cycles += o.cycles;
  activationReads += o.activationReads;
  activationReadBytes += o.activationReadBytes;
  weightReadBytes += o.weightReadBytes;
  inputRfWrites += o.inputRfWrites;
  inputRfWriteBytes += o.inputRfWriteBytes;
  broadcasts += o.broadcasts;
  broadcastBytes += o.broadcastBytes;
  weightRfWriteBytes += o.weightRfWriteBytes;
  macs += o.macs;
  peBusyCycles += o.peBusyCycles;
  peCycles += o.peCycles;
  memoryWaitCycles += o.memoryWaitCycles;
  peWaitOperandCycles += o.peWaitOperandCycles;
  peWaitWeightsOutputCycles += o.peWaitWeightsOutputCycles;
  readStallCycles += o.readStallCycles;
  outputBytes += o.outputBytes;
  columnBufferBytes += o.columnBufferBytes;
  outputRfBytes += o.outputRfBytes;
  dram += o.dram;
  dramActivations += o.dramActivations;
  buffer += o.buffer;
  if (reuseHistogram.size() < o.reuseHistogram.size())
    reuseHistogram.resize(o.reuseHistogram.size(), 0);
  for (size_t i = 0; i < o.reuseHistogram.size(); ++i)
    reuseHistogram[i] += o.reuseHistogram[i];
  energyPj += o.energyPj;
  return *this;
}

std::string_view variantName(Variant v) {
  switch (v) {
  case kMethod:
    return "1xN broadcast";
  case kConventional:
    return "conventional 1x1";
  case kNoBroadcast:
    return "1xN no broadcast";
  case kVariants:
    break;
  }
  return "?";
}

double energyPj(const VariantStats& s, const EnergyPrices& e) {
  const auto d = [](int64_t v) { return static_cast<double>(v); };
  // Every MAC reads one activation byte and one weight byte from the register files.
  return d(s.macs) * (e.macPj + e.inputRfReadPjPerByte + e.weightRfReadPjPerByte) +
         d(s.inputRfWriteBytes) * e.inputRfWritePjPerByte +
         d(s.broadcastBytes) * e.broadcastPjPerByte + d(s.dram.readBytes) * e.memoryReadPjPerByte +
         d(s.dram.writeBytes) * e.memoryWritePjPerByte + s.dramActivations * e.memoryActivatePj +
         d(s.buffer.readBytes) * e.globalBufferReadPjPerByte +
         d(s.buffer.writeBytes) * e.globalBufferWritePjPerByte +
         d(s.weightRfWriteBytes) * e.weightRfWritePjPerByte +
         d(s.outputRfBytes) * e.outputRfAccessPjPerByte +
         d(s.columnBufferBytes) * e.columnBufferAccessPjPerByte;
}

report::EnergyParts energyParts(const VariantStats& s, const EnergyPrices& e) {
  const auto d = [](int64_t v) { return static_cast<double>(v); };
  report::EnergyParts p;
  p.compute = d(s.macs) * e.macPj;
  p.onChip = d(s.macs) * (e.inputRfReadPjPerByte + e.weightRfReadPjPerByte) +
             d(s.inputRfWriteBytes) * e.inputRfWritePjPerByte +
             d(s.weightRfWriteBytes) * e.weightRfWritePjPerByte +
             d(s.outputRfBytes) * e.outputRfAccessPjPerByte +
             d(s.columnBufferBytes) * e.columnBufferAccessPjPerByte +
             d(s.buffer.readBytes) * e.globalBufferReadPjPerByte +
             d(s.buffer.writeBytes) * e.globalBufferWritePjPerByte;
  p.interconnect = d(s.broadcastBytes) * e.broadcastPjPerByte;
  p.dram = d(s.dram.readBytes) * e.memoryReadPjPerByte +
           d(s.dram.writeBytes) * e.memoryWritePjPerByte + s.dramActivations * e.memoryActivatePj;
  return p;
}

namespace {

/// Bytes of a weight segment slice: values plus bitmap bits (Compiler.cpp's rule).
int64_t segmentBytes(int64_t taps, int64_t channels, int64_t filters) {
  return filters * (taps * channels + ceilDiv(taps * channels, 8));
}

/// The bytes one variant of a layer moves through the data read module and the drain, by
/// operand, before the memory plan splits them between the levels.
struct OperandTraffic {
  std::vector<int64_t> inputReadBytes; ///< per Layer::inputs entry: what the schedule reads
  int64_t weightReadBytes = 0;         ///< weight segments, constants, lookup tables
  int64_t outputBytes = 0;             ///< drained from the column buffers
};

/// The timing state of one broadcast group (docs/arch/BroadcastCycleModel.md §state).
struct GroupClock {
  std::vector<int64_t> laneFree;               ///< per loading lane of the group
  std::vector<int64_t> macFree;                ///< per PE: multiplier free
  std::vector<std::array<int64_t, 2>> bufFree; ///< per PE, per operand buffer: writable from
  std::vector<int64_t> bufNext;                ///< per PE: operands started (buffer ring index)
  std::array<int64_t, 2> weightBufFree{0, 0};  ///< weight RF segment buffers
  int64_t weightNext = 0;
  int64_t outputFree = 0;      ///< output RF free: the previous item's outputs left
  std::vector<int64_t> starts; ///< start cycles of the last readsPerCycle reads (a ring)
  int64_t startsNext = 0;
  int64_t lastStart = 0;

  GroupClock(int64_t pes, int64_t lanes, int64_t readsPerCycle)
      : laneFree(static_cast<size_t>(lanes), 0), macFree(static_cast<size_t>(pes), 0),
        bufFree(static_cast<size_t>(pes), {0, 0}), bufNext(static_cast<size_t>(pes), 0),
        starts(static_cast<size_t>(readsPerCycle), -1) {}
  int64_t lanesFree() const { return *std::max_element(laneFree.begin(), laneFree.end()); }
  int64_t end() const {
    return std::max(lanesFree(), *std::max_element(macFree.begin(), macFree.end()));
  }
};

/// Non-zero (or, without zero skipping, real) weights per tap of every (filter, segment,
/// chunk) under one variant's decomposition, as prefix sums over the taps. A depthwise layer's
/// "filters" are its channels (each output reduces its own channel only), one chunk each.
class TapCounts {
public:
  TapCounts(const ConvLayer& c, const Tiling& t, bool skipZeros)
      : taps_(t.decomposition.vectorWidth) {
    const Decomposition& m = c.tiling.decomposition; // the stored operands' layout
    const Decomposition& d = t.decomposition;
    const int64_t channels = c.depthwise ? c.inChannels : c.channelsPerGroup();
    filters_ = c.depthwise ? channels : static_cast<int64_t>(c.weights.size());
    segments_ = d.segments();
    chunks_ = c.depthwise ? 1 : ceilDiv(channels, t.channelChunk);
    const int64_t chunkChannels = c.depthwise ? 1 : t.channelChunk;
    prefix_.assign(static_cast<size_t>(filters_ * segments_ * chunks_ * (taps_ + 1)), 0);
    for (int64_t f = 0; f < filters_; ++f) {
      const WeightOperand& w = c.weights[static_cast<size_t>(c.depthwise ? 0 : f)];
      for (int64_t r = 0; r < d.rows; ++r)
        for (int64_t v = 0; v < d.vectorsPerRow(); ++v)
          for (int64_t ch = 0; ch < chunks_; ++ch) {
            int32_t* p = at(f, r * d.vectorsPerRow() + v, ch);
            const int64_t c0 = c.depthwise ? f : ch * chunkChannels;
            const int64_t c1 = std::min(channels, c0 + chunkChannels);
            for (int64_t n = 0; n < taps_; ++n) {
              const int64_t x = v * taps_ + n; // column of the decomposed kernel
              int32_t count = 0;
              if (x < d.width) {
                const int64_t mn = x % m.vectorWidth;
                const int64_t mg = r * m.vectorsPerRow() + x / m.vectorWidth;
                for (int64_t cc = c0; cc < c1; ++cc)
                  count += skipZeros ? (w.bit(mn, mg * channels + cc) ? 1 : 0) : 1;
              }
              p[n + 1] = p[n] + count;
            }
          }
    }
  }
  /// Weights of taps [lo, hi) of (filter, segment, chunk).
  int64_t range(int64_t f, int64_t seg, int64_t chunk, int64_t lo, int64_t hi) const {
    const int32_t* p = at(f, seg, chunk);
    return hi > lo ? p[hi] - p[lo] : 0;
  }

private:
  int32_t* at(int64_t f, int64_t seg, int64_t chunk) {
    return prefix_.data() + ((f * segments_ + seg) * chunks_ + chunk) * (taps_ + 1);
  }
  const int32_t* at(int64_t f, int64_t seg, int64_t chunk) const {
    return prefix_.data() + ((f * segments_ + seg) * chunks_ + chunk) * (taps_ + 1);
  }
  int64_t taps_ = 1, filters_ = 0, segments_ = 1, chunks_ = 1;
  std::vector<int32_t> prefix_;
};

/// One work item: output row oy, x class, operand block, and a filter block (standard) or a
/// channel block (depthwise) within conv group `group`.
struct Item {
  int64_t oy = 0, cls = 0, firstOperand = 0, operands = 0;
  int64_t group = 0, firstFilter = 0, filters = 0; ///< depthwise: firstFilter/filters = channels
};

/// One pass of an item: channel chunk, kernel row r, vector v.
struct Pass {
  int64_t chunk = 0, r = 0, v = 0;
};

/// Appends item \p it once per filter block (standard) or channel block (depthwise).
void appendFilterBlocks(const ConvLayer& c, const Tiling& t, int64_t channels, Item it,
                        std::vector<Item>& items) {
  if (c.depthwise) {
    for (int64_t c0 = 0; c0 < channels; c0 += t.channelChunk) {
      it.firstFilter = c0;
      it.filters = std::min(t.channelChunk, channels - c0);
      items.push_back(it);
    }
    return;
  }
  for (int64_t grp = 0; grp < c.convGroups; ++grp)
    for (int64_t f0 = 0; f0 < c.filtersPerGroup(); f0 += t.filterBlock) {
      it.group = grp;
      it.firstFilter = f0;
      it.filters = std::min(t.filterBlock, c.filtersPerGroup() - f0);
      items.push_back(it);
    }
}

/// A variant's work items, in (row, class, block, filters) order.
std::vector<Item> workItems(const ConvLayer& c, const Tiling& t, int64_t channels) {
  const ConvAxes& a = c.axes;
  std::vector<Item> items;
  for (int64_t oy = 0; oy < a.outH; ++oy)
    for (int64_t cls = 0; cls < t.xClasses; ++cls) {
      const int64_t count = cls < a.outW ? ceilDiv(a.outW - cls, t.xClasses) : 0;
      for (int64_t k0 = 0; k0 < count; k0 += t.operandBlock)
        appendFilterBlocks(c, t, channels,
                           Item{oy, cls, k0, std::min(t.operandBlock, count - k0), 0, 0, 0}, items);
    }
  return items;
}

/// An item's passes: every channel chunk, kernel row and vector, skipping the padding rows
/// (nothing to read, no MAC: bitmap-skipped).
void itemPasses(const ConvLayer& c, const Decomposition& dec, const Item& it, int64_t chunks,
                std::vector<Pass>& passes) {
  const ConvAxes& a = c.axes;
  passes.clear();
  for (int64_t ch = 0; ch < chunks; ++ch)
    for (int64_t r = 0; r < dec.rows; ++r) {
      const int64_t y = it.oy * a.strideY + r * a.dilationY - a.padTop;
      if (y < 0 || y >= a.inH)
        continue;
      for (int64_t v = 0; v < dec.vectorsPerRow(); ++v)
        passes.push_back(Pass{ch, r, v});
    }
}

/// The timing state of one variant's run: every group's clock and every column buffer's
/// drain. Items go to units: a group, or in column accumulation a column of groups.
struct ArrayClocks {
  int64_t groupsPerColumn;
  bool columnMode;
  int64_t units;
  std::vector<GroupClock> groups;
  std::vector<int64_t> drainFreeCycle; ///< per column: its buffer's drain ends

  explicit ArrayClocks(const BroadcastConfig& config)
      : groupsPerColumn(config.groupsPerColumn()),
        columnMode(config.accumulation == Accumulation::Column),
        units(columnMode ? config.columns : config.groups()),
        groups(static_cast<size_t>(config.groups()),
               GroupClock(config.groupSize, config.lanesPerGroup(), config.readsPerCycle)),
        drainFreeCycle(static_cast<size_t>(config.columns), 0) {}

  int64_t groupsPerUnit() const { return columnMode ? groupsPerColumn : 1; }
  /// Group \p g (< groupsPerUnit()) of unit \p unit.
  GroupClock& group(int64_t unit, int64_t g) {
    return groups[static_cast<size_t>(columnMode ? unit * groupsPerColumn + g : unit)];
  }
  /// The group of unit \p unit that runs the item's pass \p pass.
  GroupClock& passGroup(int64_t unit, size_t pass) {
    return columnMode ? group(unit, static_cast<int64_t>(pass) % groupsPerColumn) : group(unit, 0);
  }
  int64_t columnOf(int64_t unit) const { return columnMode ? unit : unit / groupsPerColumn; }

  /// The unit whose lanes free up first (the first on ties); \p readyCycle gets when.
  int64_t firstFreeUnit(int64_t& readyCycle) {
    int64_t unit = 0;
    readyCycle = -1;
    for (int64_t u = 0; u < units; ++u) {
      int64_t ready = 0;
      for (int64_t g = 0; g < groupsPerUnit(); ++g)
        ready = std::max(ready, group(u, g).lanesFree());
      if (readyCycle < 0 || ready < readyCycle) {
        readyCycle = ready;
        unit = u;
      }
    }
    return unit;
  }

  /// The cycle the last group and the last column buffer are done.
  int64_t endCycle() const {
    int64_t end = 0;
    for (const GroupClock& gc : groups)
      end = std::max(end, gc.end());
    for (int64_t dr : drainFreeCycle)
      end = std::max(end, dr);
    return end;
  }
};

} // namespace

struct Simulator::Impl {
  const Program& program;
  const quant::QuantizedModel& qm;
  const BroadcastConfig& config;
  common::DramFigures memory; ///< memory 310's part at the clock
  /// Every event's energy, priced once per run (the technology model, config/Pricing.cpp).
  const EnergyPrices prices = energyPrices(config);
  std::vector<Tensor> values;
  std::vector<report::LayerStats> stats;
  std::vector<LayerDetail> details;
  struct CachedSchedule {
    RowSchedule schedule;
    std::vector<int64_t> reuse; ///< its reuse histogram
  };
  std::map<std::tuple<int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, bool>,
           CachedSchedule>
      schedules;
  /// Per-pass scratch (reused: a pass allocates nothing).
  std::vector<int64_t> complete;
  std::vector<int32_t> received, buffer;

  Impl(const Program& p, const quant::QuantizedModel& q)
      : program(p), qm(q), config(p.config), memory(p.config.memoryFigures()),
        values(q.graph.numValues()) {}

  const CachedSchedule& schedule(const PassShape& s, bool broadcast) {
    const auto key = std::make_tuple(s.positions, s.operands, s.taps, s.stride, s.realTaps,
                                     s.validBegin, s.validEnd, broadcast);
    auto it = schedules.find(key);
    if (it == schedules.end()) {
      RowSchedule r = scheduleRow(s, config.groupSize, broadcast);
      std::vector<int64_t> reuse = r.reuseHistogram();
      it = schedules.emplace(key, CachedSchedule{std::move(r), std::move(reuse)}).first;
    }
    return it->second;
  }

  const Tensor& input(ir::ValueId v) const {
    const Tensor& t = values.at(static_cast<size_t>(v));
    NNACCEL_ASSERT(t.sizeBytes() > 0 || numElements(qm.graph.value(v).shape) == 0)
        << "value " << v << " read before it was produced";
    return t;
  }

  void run(const SimOptions& options) {
    stats.clear();
    details.clear();
    for (size_t i = 0; i < program.layers.size(); ++i) {
      const Layer& l = program.layers[i];
      report::LayerStats s;
      s.name = l.name;
      s.op = l.op;
      s.unit = std::string(layerKindName(l.kind));
      s.note = l.note;
      if (!l.memory.note.empty())
        s.note.append(s.note.empty() ? "" : "; ").append(l.memory.note);
      LayerDetail d;
      switch (l.kind) {
      case LayerKind::Conv:
        runConv(l, options, s, d);
        break;
      case LayerKind::View: {
        if (!options.functional)
          break;
        const Tensor& x = input(l.inputs[0]);
        Tensor out(DType::I8, qm.graph.value(l.outputs[0]).shape);
        std::memcpy(out.data<int8_t>(), x.data<int8_t>(), x.sizeBytes());
        values[static_cast<size_t>(l.outputs[0])] = std::move(out);
        break;
      }
      case LayerKind::Elementwise:
        runElementwise(l, options, s, d);
        break;
      case LayerKind::Pool:
        runPool(l, options, s, d);
        break;
      case LayerKind::Host:
        if (options.functional)
          common::runHostNode(qm, l.node, values, s);
        else // timing only: nothing to evaluate (and no traffic counted)
          s.hostFallback = true;
        break;
      }
      if (!l.inputs.empty())
        s.shape = dimsToString(qm.graph.value(l.inputs[0]).shape);
      if (!l.outputs.empty())
        s.shape.append(" -> ").append(dimsToString(qm.graph.value(l.outputs[0]).shape));
      stats.push_back(std::move(s));
      details.push_back(d);
      if (options.onLayerDone)
        options.onLayerDone(i);
    }
  }

  // --- Pool and Elementwise layers ------------------------------------------------------------

  /// An Elementwise layer: its passes on the PEs' lanes (laneLayer). An input listed twice
  /// (x + x) is read once.
  void runElementwise(const Layer& l, const SimOptions& options, report::LayerStats& s,
                      LayerDetail& d) {
    const common::ElementwiseLayer& e = l.elementwise;
    if (options.functional)
      values[static_cast<size_t>(e.output)] = common::runElementwise(e, qm, values);
    OperandTraffic t{{}, e.constantBytes(qm.graph), numElements(e.outShape)};
    for (size_t i = 0; i < l.inputs.size(); ++i) {
      const auto first = l.inputs.begin() + static_cast<std::ptrdiff_t>(i);
      const bool repeated = std::find(l.inputs.begin(), first, l.inputs[i]) != first;
      t.inputReadBytes.push_back(repeated ? 0 : e.readBytesOf(l.inputs[i]));
    }
    laneLayer(l, e.elementOps(), t, s, d);
    if (qm.node(l.node).kind == quant::QuantOpKind::TensorMatMul)
      s.usefulMacs = ir::nodeMacs(qm.graph, l.node);
    s.counts.emplace_back("element_ops", e.elementOps());
    s.counts.emplace_back("passes", static_cast<int64_t>(e.passes.size()));
  }

  /// A Pool layer: one lane operation per window position of every output.
  void runPool(const Layer& l, const SimOptions& options, report::LayerStats& s, LayerDetail& d) {
    const ir::Value& out = qm.graph.value(l.outputs[0]);
    if (options.functional)
      values[static_cast<size_t>(l.outputs[0])] =
          common::poolInt8(l.pool.params, input(l.inputs[0]), l.pool.countMultipliers, l.pool.zero)
              .reshaped(out.shape);
    const int64_t ops = common::poolWindowOps(l.pool.params);
    laneLayer(
        l, ops,
        OperandTraffic{{numElements(qm.graph.value(l.inputs[0]).shape)}, 0, numElements(out.shape)},
        s, d);
    s.counts.emplace_back("window_ops", ops);
  }

  /// The cost of \p ops lane operations on the PE array (each lane one element operation per
  /// cycle, priced as one MAC slot: the ALU op and two register-file reads) and the traffic
  /// \p t: activations read, constants / lookup tables read from memory 310, the output drained.
  /// The span is finishLayer's: first-access latency plus the longer of the lanes' work and the
  /// traffic at each level's bandwidth; the same in every variant.
  void laneLayer(const Layer& l, int64_t ops, const OperandTraffic& t, report::LayerStats& s,
                 LayerDetail& d) const {
    VariantStats m;
    m.macs = ops;
    for (int64_t bytes : t.inputReadBytes)
      m.activationReadBytes += bytes;
    m.weightReadBytes = t.weightReadBytes;
    m.inputRfWriteBytes = m.activationReadBytes + t.weightReadBytes;
    m.outputBytes = t.outputBytes;
    const int64_t computeCycles = ceilDiv(ops, config.macsPerCycle());
    m.peBusyCycles = computeCycles * config.peCount();
    chargeHierarchy(l.memory, t, m);
    finishLayer(computeCycles, m);
    for (size_t v = 0; v < kVariants; ++v)
      d.variants[v] = m;
    s.cycles = m.cycles;
    s.busyCycles = computeCycles;
    s.stallCycles = m.cycles - computeCycles;
    s.causes.compute = computeCycles;
    s.causes.memory = m.memoryWaitCycles;
    s.dram = m.dram;
    s.sbuf = m.buffer;
    s.energyPj = m.energyPj;
    s.energy = energyParts(m, prices);
    s.counts = {{"rf_read_bytes", m.macs * 2}, {"rf_write_bytes", m.inputRfWriteBytes}};
  }

  // --- the memory hierarchy -------------------------------------------------------------------

  /// Splits \p t by \p m: reads of resident or staged operands hit the global buffer, the
  /// others cross memory 310; staging copies cross memory 310 into the buffer once; the output
  /// is written where it lives.
  static void chargeHierarchy(const LayerMemory& m, const OperandTraffic& t, VariantStats& st) {
    const auto read = [&](OperandSource src, int64_t bytes) {
      (src == OperandSource::Dram ? st.dram : st.buffer).readBytes += bytes;
    };
    for (size_t i = 0; i < t.inputReadBytes.size() && i < m.inputs.size(); ++i)
      read(m.inputs[i], t.inputReadBytes[i]);
    read(m.weights, t.weightReadBytes);
    st.dram.readBytes += m.stagedBytes;
    st.buffer.writeBytes += m.stagedBytes;
    (m.outputInBuffer ? st.buffer : st.dram).writeBytes += t.outputBytes;
  }

  /// A layer's span once its array work took \p arrayCycles: the first-access latency of the
  /// farthest level it touches (memory 310, else the global buffer) plus the longer of the
  /// array's work and each level's traffic at its bandwidth; PE-cycles and energy.
  void finishLayer(int64_t arrayCycles, VariantStats& st) const {
    const auto atRate = [](const report::Traffic& t, double bytesPerCycle) {
      return transferCycles(t.readBytes + t.writeBytes, bytesPerCycle);
    };
    const bool touchesDram = st.dram.readBytes + st.dram.writeBytes > 0;
    const int64_t latency = touchesDram ? memory.latencyCycles : config.globalBufferLatencyCycles;
    // A layer's DRAM traffic streams whole tensors in order: with the row-buffer model its reads
    // and its writes each sweep their rows (docs/Technology.md "DRAM").
    if (memory.rowBuffer && memory.standard)
      for (const int64_t bytes : {st.dram.readBytes, st.dram.writeBytes})
        st.dramActivations +=
            bytes > 0 ? tech::rowSweepOfRun(*memory.standard, bytes).activations : 0.0;
    const int64_t bound = std::max(atRate(st.dram, common::dramStreamBytesPerCycle(memory)),
                                   atRate(st.buffer, config.globalBufferBytesPerCycle));
    st.cycles = latency + std::max(arrayCycles, bound);
    st.memoryWaitCycles = latency + std::max<int64_t>(0, bound - arrayCycles);
    st.peCycles = st.cycles * config.peCount();
    st.energyPj = energyPj(st, prices);
  }

  // --- one Conv layer ------------------------------------------------------------------------

  /// The functional side of a variant run (the method only): input, output and accumulators.
  struct DataPath {
    const int8_t* x = nullptr;
    int8_t* out = nullptr;
    std::vector<int32_t> acc;    ///< [operand][filter or channel] of the current item
    std::vector<int8_t> operand; ///< [operand][tap][channel]: the PEs' input RF contents
    std::vector<int8_t> read;    ///< one read's activation vector
  };

  /// The input element (c, y, x) in the decomposed frame.
  static int64_t inputIndex(const ConvLayer& c, int64_t ch, int64_t y, int64_t x) {
    const ConvAxes& a = c.axes;
    if (c.matrixLayout)
      return c.inputTransposed ? ch * a.inW + x : x * c.inChannels + ch;
    if (c.tiling.decomposition.transposed) // decomposed (y, x) = original (x, y)
      return (ch * a.inW + x) * a.inH + y;
    return (ch * a.inH + y) * a.inW + x;
  }
  static int64_t outputIndex(const ConvLayer& c, int64_t m, int64_t oy, int64_t ox) {
    const ConvAxes& a = c.axes;
    if (c.matrixLayout)
      return ox * c.outChannels + m;
    // Original-frame coordinates and extents (decomposed (y, x) = original (x, y) when the
    // decomposition is transposed), then the placement of the convolution's outputs.
    const bool t = c.tiling.decomposition.transposed;
    const int64_t y = t ? ox : oy, x = t ? oy : ox;
    const OutputPlacement& p = c.placement;
    const int64_t h = p.fullH > 0 ? p.fullH : (t ? a.outW : a.outH);
    const int64_t w = p.fullW > 0 ? p.fullW : (t ? a.outH : a.outW);
    return (m * h + y * p.stepY + p.offsetY) * w + x * p.stepX + p.offsetX;
  }

  /// A Conv layer. The schedule is planned for one image; a batch runs in runs of
  /// `Tiling::batchImages` images, each run from an idle machine, whose rows stream through each
  /// loaded weight slice one image after another (every variant the same way, with its own
  /// tiling). Every variant's figures are the sum over the runs. The timing does not depend on
  /// the activation values, so the baselines are timed once per run length. The memory plan's
  /// split, latency and bandwidth bound apply once to the layer's sums.
  void runConv(const Layer& l, const SimOptions& options, report::LayerStats& s, LayerDetail& d) {
    const ConvLayer& first = l.conv;
    const int64_t images = first.matrixLayout ? 1 : qm.graph.value(l.inputs[0]).shape.at(0);
    Tensor out;
    if (options.functional)
      out = Tensor(DType::I8, qm.graph.value(l.outputs[0]).shape);
    const std::vector<ConvLayer> single{first};
    const std::vector<ConvLayer>& convs = l.phases.empty() ? single : l.phases;
    for (size_t v = 0; v < kVariants; ++v) {
      if (v != kMethod && !options.baselines)
        continue;
      const bool functional = v == kMethod && options.functional;
      for (const ConvLayer& c : convs) {
        const Tiling* tilings[kVariants] = {&c.tiling, &c.baselineConventional,
                                            &c.baselineNoBroadcast};
        d.variants[v] += runBatch(l, c, *tilings[v], images, functional ? &out : nullptr);
      }
      VariantStats& st = d.variants[v];
      chargeHierarchy(l.memory, {{st.activationReadBytes}, st.weightReadBytes, st.outputBytes}, st);
      finishLayer(st.cycles, st); // st.cycles: the array's cycles, summed over phases and images
      d.timed[v] = true;
    }
    if (options.functional)
      values[static_cast<size_t>(l.outputs[0])] = std::move(out);
    fillStats(l, d, s);
    if (!l.phases.empty()) // the operator's own MACs, not the phases' taps
      s.usefulMacs = ir::nodeMacs(qm.graph, l.node);
  }

  /// The \p images of a batch in runs of `t.batchImages`; with \p out, the values too (the
  /// input is the layer's first). Timing only: equal runs time alike, so each length runs once.
  VariantStats runBatch(const Layer& l, const ConvLayer& c, const Tiling& t, int64_t images,
                        Tensor* out) {
    const int64_t perRun = std::clamp<int64_t>(t.batchImages, 1, images);
    VariantStats sum;
    std::map<int64_t, VariantStats> timed; // run length -> its figures (timing only)
    std::vector<DataPath> data;
    for (int64_t n0 = 0; n0 < images; n0 += perRun) {
      const int64_t run = std::min(perRun, images - n0);
      if (!out) {
        auto it = timed.find(run);
        if (it == timed.end())
          it = timed.emplace(run, runVariant(c, t, run, nullptr)).first;
        sum += it->second;
        continue;
      }
      const Tensor& x = input(l.inputs[0]);
      data.assign(static_cast<size_t>(run), DataPath{});
      for (int64_t i = 0; i < run; ++i) {
        data[static_cast<size_t>(i)].x = x.data<int8_t>() + (n0 + i) * (x.numElements() / images);
        data[static_cast<size_t>(i)].out =
            out->data<int8_t>() + (n0 + i) * (out->numElements() / images);
      }
      sum += runVariant(c, t, run, &data);
    }
    return sum;
  }

  /// One run of \p images images (\p data: one DataPath per image, or null for timing only):
  /// every work item's passes load their weight slice once for all the images.
  VariantStats runVariant(const ConvLayer& c, const Tiling& t, int64_t images,
                          std::vector<DataPath>* data) {
    const int64_t channels = c.depthwise ? c.inChannels : c.channelsPerGroup();
    const int64_t chunks = c.depthwise ? 1 : ceilDiv(channels, t.channelChunk);
    const TapCounts counts(c, t, config.skipZeroWeights);
    VariantStats st;
    st.reuseHistogram.assign(static_cast<size_t>(t.decomposition.vectorWidth + 1), 0);
    ArrayClocks clocks(config);
    std::vector<Pass> passes;
    std::vector<int64_t> macCycles;
    for (const Item& it : workItems(c, t, channels)) {
      int64_t unitReady = -1;
      const int64_t unit = clocks.firstFreeUnit(unitReady);
      itemPasses(c, t.decomposition, it, chunks, passes);
      if (data)
        for (DataPath& dp : *data)
          dp.acc.assign(static_cast<size_t>(it.operands * it.filters), 0);
      int64_t itemEnd = unitReady;
      for (size_t p = 0; p < passes.size(); ++p)
        itemEnd = std::max(itemEnd, runPass(c, t, it, passes[p], counts, clocks.passGroup(unit, p),
                                            st, images, data, macCycles));
      drainItem(it, images, unit, itemEnd, clocks, st);
      if (data)
        for (DataPath& dp : *data)
          drainOutputs(c, t, it, dp);
    }
    st.cycles = clocks.endCycle(); // the array's; finishLayer adds the memory levels
    return st;
  }

  /// Drain: the item's outputs of its \p images images (and, in column mode, the groups'
  /// partial sums) pass the column buffer from \p itemEnd; the output RFs are free once their
  /// contents have moved into it.
  void drainItem(const Item& it, int64_t images, int64_t unit, int64_t itemEnd, ArrayClocks& clocks,
                 VariantStats& st) const {
    const int64_t sums = images * it.operands * it.filters;
    const int64_t outBytes = sums;
    const int64_t psumBytes = clocks.columnMode ? sums * 4 * clocks.groupsPerColumn : 0;
    int64_t& drain = clocks.drainFreeCycle[static_cast<size_t>(clocks.columnOf(unit))];
    const int64_t drainStart = std::max(itemEnd, drain);
    drain = drainStart + ceilDiv(outBytes + psumBytes, config.drainBytesPerCycle);
    for (int64_t g = 0; g < clocks.groupsPerUnit(); ++g)
      clocks.group(unit, g).outputFree = drainStart;
    st.outputBytes += outBytes;
    st.columnBufferBytes += 2 * (outBytes + psumBytes);
  }

  /// One pass's row stream as every image of a run sees it (the same slots, weights and MACs).
  struct PassPlan {
    PassShape shape;
    const CachedSchedule* cached = nullptr;
    int64_t x0 = 0;       ///< input column of stream position 0
    int64_t c0 = 0;       ///< first channel of the pass's chunk
    int64_t cc = 0;       ///< its channels
    int64_t macReady = 0; ///< the weight slice is in the weight RF and the output RF is free
  };

  /// Times (and, with \p data, computes) one pass on one group for the \p images images of a
  /// run: the weight slice is loaded once, then each image's row streams through it, image after
  /// image (the output RFs hold every image's sums); returns the pass's last MAC end.
  int64_t runPass(const ConvLayer& c, const Tiling& t, const Item& it, const Pass& ps,
                  const TapCounts& counts, GroupClock& gc, VariantStats& st, int64_t images,
                  std::vector<DataPath>* data, std::vector<int64_t>& macCycles) {
    const Decomposition& dec = t.decomposition;
    const ConvAxes& a = c.axes;
    const int64_t n = dec.vectorWidth, m = t.classStride, d = a.dilationX;
    const int64_t channels = c.depthwise ? c.inChannels : c.channelsPerGroup();
    PassPlan plan;
    plan.c0 = c.depthwise ? it.firstFilter : ps.chunk * t.channelChunk;
    plan.cc = c.depthwise ? it.filters : std::min(t.channelChunk, channels - plan.c0);
    const int64_t chunkIndex = c.depthwise ? it.firstFilter / t.channelChunk : ps.chunk;
    const int64_t seg = ps.r * dec.vectorsPerRow() + ps.v;
    // Stream position j reads input column x0 + j * d (Schedule.h, Decompose.h).
    const int64_t firstOx = it.cls + it.firstOperand * t.xClasses;
    plan.x0 = firstOx * a.strideX + ps.v * n * d - a.padLeft;
    PassShape& shape = plan.shape;
    shape.operands = it.operands;
    shape.taps = n;
    shape.stride = m;
    shape.positions = (it.operands - 1) * m + n;
    shape.realTaps = dec.realTaps(ps.v);
    const auto firstValid = [&](int64_t bound) { // smallest j with x0 + j * d >= bound
      const int64_t num = bound - plan.x0;
      return num <= 0 ? 0 : ceilDiv(num, d);
    };
    shape.validBegin = std::min(shape.positions, firstValid(0));
    shape.validEnd = std::min(shape.positions, firstValid(a.inW));
    plan.cached = &schedule(shape, t.broadcast);

    // Weights: the segment slice of the item's filters, over all of the group's lanes, into a
    // weight RF buffer (two when two slices fit); once for every image of the run.
    const int64_t filters = c.depthwise ? 1 : it.filters;
    const int64_t wBytes = segmentBytes(n, plan.cc, filters);
    const int64_t weightBuffers = 2 * wBytes <= config.weightRfBytes ? 2 : 1;
    const auto wb = static_cast<size_t>(gc.weightNext++ % weightBuffers);
    const int64_t lanes = static_cast<int64_t>(gc.laneFree.size());
    const int64_t wStart = std::max(gc.lanesFree(), gc.weightBufFree[wb]);
    const int64_t weightsReady = wStart + ceilDiv(wBytes, lanes * config.laneBytes);
    std::fill(gc.laneFree.begin(), gc.laneFree.end(), weightsReady);
    st.weightReadBytes += wBytes;
    st.weightRfWriteBytes += wBytes * config.groupSize;

    // MAC cycles of every operand: the lanes are a dot-product unit reducing into one output
    // per cycle, so each output (a filter; a channel of a depthwise layer) takes its live taps'
    // non-zero weights over the lanes, rounded up (seed 004 ¶0020: depthwise on 1x1 operands
    // keeps one lane of the dot product busy).
    macCycles.assign(static_cast<size_t>(it.operands), 0);
    int64_t macs = 0;
    const int64_t outputs = c.depthwise ? it.filters : filters;
    for (int64_t k = 0; k < it.operands; ++k) {
      const int64_t lo = std::clamp(shape.validBegin - k * m, int64_t{0}, n);
      const int64_t hi = std::clamp(shape.validEnd - k * m, int64_t{0}, shape.realTaps);
      int64_t cyc = 0;
      for (int64_t f = 0; f < outputs; ++f) {
        const int64_t w = counts.range(
            c.depthwise ? it.firstFilter + f : it.group * c.filtersPerGroup() + it.firstFilter + f,
            seg, c.depthwise ? 0 : chunkIndex, lo, hi);
        macs += w;
        cyc += ceilDiv(w, config.macLanesPerPe);
      }
      macCycles[static_cast<size_t>(k)] = cyc;
    }
    st.macs += macs * images;

    // A PE multiplies once its operand, the weight slice and its output RF are all there.
    plan.macReady = std::max(weightsReady, gc.outputFree);
    int64_t passEnd = weightsReady;
    for (int64_t i = 0; i < images; ++i)
      passEnd = std::max(passEnd,
                         streamImage(c, t, it, ps, plan, gc, st,
                                     data ? &(*data)[static_cast<size_t>(i)] : nullptr, macCycles));
    gc.weightBufFree[wb] = passEnd;
    return passEnd;
  }

  /// One image's row of a pass: the slots (reads in order over the lanes, broadcasts, operand
  /// completion) and each complete operand's MACs; returns its last MAC end.
  int64_t streamImage(const ConvLayer& c, const Tiling& t, const Item& it, const Pass& ps,
                      const PassPlan& plan, GroupClock& gc, VariantStats& st, DataPath* data,
                      const std::vector<int64_t>& macCycles) {
    const RowSchedule& sch = plan.cached->schedule;
    const int64_t n = t.decomposition.vectorWidth, d = c.axes.dilationX, cc = plan.cc;
    const int64_t transfer = ceilDiv(cc, config.laneBytes);
    const int64_t buffers = config.inputRfPolicy == RfPolicy::DoubleBuffer ? 2 : 1;
    complete.assign(static_cast<size_t>(it.operands), 0);
    received.assign(static_cast<size_t>(it.operands), 0);
    buffer.assign(static_cast<size_t>(it.operands), -1);
    if (data)
      data->operand.resize(static_cast<size_t>(it.operands * n * cc));
    int64_t end = 0;
    for (const Slot& slot : sch.slots) {
      auto lane = std::min_element(gc.laneFree.begin(), gc.laneFree.end());
      int64_t start = std::max(*lane, gc.lastStart);
      const int64_t oldest = gc.starts[static_cast<size_t>(gc.startsNext)];
      if (oldest >= 0)
        start = std::max(start, oldest + 1); // at most readsPerCycle reads start per cycle
      const int64_t unblocked = start;
      for (int32_t i = 0; i < slot.deliveries; ++i) {
        const Delivery& dv = sch.deliveries[static_cast<size_t>(slot.firstDelivery + i)];
        auto& buf = buffer[static_cast<size_t>(dv.operand)];
        if (buf < 0) { // the operand's first activation claims the PE's next buffer
          auto& next = gc.bufNext[static_cast<size_t>(dv.pe)];
          buf = static_cast<int32_t>(next++ % buffers);
          start = std::max(start, gc.bufFree[static_cast<size_t>(dv.pe)][static_cast<size_t>(buf)]);
        }
      }
      st.readStallCycles += start - unblocked;
      gc.lastStart = start;
      gc.starts[static_cast<size_t>(gc.startsNext)] = start;
      gc.startsNext = (gc.startsNext + 1) % static_cast<int64_t>(gc.starts.size());
      const int64_t done = start + transfer;
      *lane = done;
      if (data)
        gather(c, it, ps, plan.x0 + slot.position * d, plan.c0, cc, *data);
      for (int32_t i = 0; i < slot.deliveries; ++i) {
        const Delivery& dv = sch.deliveries[static_cast<size_t>(slot.firstDelivery + i)];
        const int64_t arrive =
            i == 0 ? done : done + config.broadcastLatencyCycles + (i - 1) / config.broadcastFanOut;
        const auto k = static_cast<size_t>(dv.operand);
        complete[k] = std::max(complete[k], arrive);
        if (data)
          std::memcpy(data->operand.data() + (dv.operand * n + dv.tap) * cc, data->read.data(),
                      static_cast<size_t>(cc));
        if (++received[k] == sch.liveTaps[k]) { // complete: the PE multiplies
          const auto pe = static_cast<size_t>(dv.pe);
          const int64_t macStart = std::max({complete[k], gc.macFree[pe], plan.macReady});
          // The PE's idle time before this MAC, by what it waited for last: its operand's
          // activations over the loading lanes, or the weight slice / output RF.
          if (macStart > gc.macFree[pe])
            (complete[k] >= plan.macReady ? st.peWaitOperandCycles
                                          : st.peWaitWeightsOutputCycles) +=
                macStart - gc.macFree[pe];
          const int64_t macEnd = macStart + macCycles[k];
          gc.macFree[pe] = macEnd;
          gc.bufFree[pe][static_cast<size_t>(buffer[k])] = macEnd;
          st.peBusyCycles += macCycles[k];
          end = std::max(end, macEnd);
        }
      }
    }
    st.activationReads += sch.reads();
    st.activationReadBytes += sch.reads() * cc;
    st.inputRfWrites += sch.writes();
    st.inputRfWriteBytes += sch.writes() * cc;
    st.broadcasts += sch.broadcasts();
    st.broadcastBytes += sch.broadcasts() * cc;
    st.outputRfBytes += it.operands * it.filters * 8; // read-modify-write of int32 sums
    for (size_t r = 0; r < plan.cached->reuse.size() && r < st.reuseHistogram.size(); ++r)
      st.reuseHistogram[r] += plan.cached->reuse[r];
    if (data)
      multiply(c, t, it, ps, sch, plan.shape, plan.c0, cc, *data);
    return end;
  }

  /// One read: the activation vector (channels c0 .. c0+cc of the item's group) at (row, x).
  void gather(const ConvLayer& c, const Item& it, const Pass& ps, int64_t x, int64_t c0, int64_t cc,
              DataPath& data) const {
    const int64_t y = it.oy * c.axes.strideY + ps.r * c.axes.dilationY - c.axes.padTop;
    const int64_t base = c.depthwise ? 0 : it.group * c.channelsPerGroup();
    data.read.resize(static_cast<size_t>(cc));
    for (int64_t ch = 0; ch < cc; ++ch)
      data.read[static_cast<size_t>(ch)] = data.x[inputIndex(c, base + c0 + ch, y, x)];
  }

  /// The PEs' MACs of one pass: every operand's live taps with the weight segment slice.
  void multiply(const ConvLayer& c, const Tiling& t, const Item& it, const Pass& ps,
                const RowSchedule& sch, const PassShape& shape, int64_t c0, int64_t cc,
                DataPath& data) const {
    const Decomposition& dec = t.decomposition;
    const int64_t n = dec.vectorWidth, m = t.classStride;
    const int64_t channels = c.depthwise ? c.inChannels : c.channelsPerGroup();
    const int64_t seg = ps.r * dec.vectorsPerRow() + ps.v;
    for (int64_t k = 0; k < it.operands; ++k) {
      if (sch.liveTaps[static_cast<size_t>(k)] == 0)
        continue;
      const int64_t lo = std::clamp(shape.validBegin - k * m, int64_t{0}, n);
      const int64_t hi = std::clamp(shape.validEnd - k * m, int64_t{0}, shape.realTaps);
      int32_t* acc = data.acc.data() + k * it.filters;
      for (int64_t tap = lo; tap < hi; ++tap) {
        const int8_t* xv = data.operand.data() + (k * n + tap) * cc;
        if (c.depthwise) {
          const WeightOperand& w = c.weights[0];
          const int8_t* wv = w.values.data() + tap * w.depth + seg * channels + c0;
          for (int64_t ch = 0; ch < cc; ++ch)
            acc[ch] += (xv[ch] - c.inputZero) * wv[ch];
          continue;
        }
        for (int64_t f = 0; f < it.filters; ++f) {
          const WeightOperand& w =
              c.weights[static_cast<size_t>(it.group * c.filtersPerGroup() + it.firstFilter + f)];
          const int8_t* wv = w.values.data() + tap * w.depth + seg * channels + c0;
          int32_t sum = 0;
          for (int64_t ch = 0; ch < cc; ++ch)
            sum += (xv[ch] - c.inputZero) * wv[ch];
          acc[f] += sum;
        }
      }
    }
  }

  /// Post-processing at the drain: bias, requantization and the clamp of every output.
  void drainOutputs(const ConvLayer& c, const Tiling& t, const Item& it, DataPath& data) const {
    for (int64_t k = 0; k < it.operands; ++k) {
      const int64_t ox = it.cls + (it.firstOperand + k) * t.xClasses;
      for (int64_t f = 0; f < it.filters; ++f) {
        const int64_t m =
            c.depthwise ? it.firstFilter + f : it.group * c.filtersPerGroup() + it.firstFilter + f;
        const ChannelPost& post = c.post[static_cast<size_t>(m)];
        const int32_t acc = data.acc[static_cast<size_t>(k * it.filters + f)];
        data.out[outputIndex(c, m, it.oy, ox)] = static_cast<int8_t>(quant::requantizeTo(
            acc + post.bias, post.multiplier, c.outputZero, c.clampMin, c.clampMax));
      }
    }
  }

  void fillStats(const Layer& l, const LayerDetail& d, report::LayerStats& s) const {
    const ConvLayer& c = l.conv;
    const VariantStats& m = d.variants[kMethod];
    s.usefulMacs = c.usefulMacs;
    s.issuedMacs = m.macs;
    s.streamedElements = m.activationReads;
    s.cycles = m.cycles;
    s.busyCycles = m.peBusyCycles / config.peCount();
    s.stallCycles = s.cycles - s.busyCycles;
    s.addBreakdown("pe.mac", s.busyCycles);
    s.addBreakdown("read.stall", m.readStallCycles);
    // Causes (docs/report-schema.md), averaged over the PEs: MAC cycles (compute); waiting for
    // an operand's activations over the loading lanes, plus the first-access latency and the
    // cycles the global buffer's or memory 310's bandwidth adds beyond the PEs' end (memory);
    // waiting for the weight slice or the output RF's drain (fill/drain). The rest of the span is
    // the average PE's time with no work left while other PEs and the drain finish (idle).
    const auto perPe = [&](int64_t peCycles) { return peCycles / config.peCount(); };
    s.causes.compute = s.busyCycles;
    s.causes.memory =
        std::min(m.memoryWaitCycles + perPe(m.peWaitOperandCycles), s.cycles - s.causes.compute);
    s.causes.fillDrain =
        std::min(perPe(m.peWaitWeightsOutputCycles), s.cycles - s.causes.compute - s.causes.memory);
    s.causes.idle = s.cycles - s.causes.compute - s.causes.memory - s.causes.fillDrain;
    s.dram = m.dram;
    s.sbuf = m.buffer;
    s.psum = report::Traffic{m.columnBufferBytes / 2, m.columnBufferBytes / 2};
    s.energyPj = m.energyPj;
    s.energy = energyParts(m, prices);
    const auto ratio = [](int64_t a, int64_t b) {
      return b > 0 ? static_cast<double>(a) / static_cast<double>(b) : 0.0;
    };
    s.metrics = {{"N", static_cast<double>(c.tiling.decomposition.vectorWidth)},
                 {"reads", static_cast<double>(m.activationReads)},
                 {"wr/read", m.writesPerRead()}};
    if (d.timed[kConventional] && d.timed[kNoBroadcast]) {
      const VariantStats& conv = d.variants[kConventional];
      const VariantStats& nob = d.variants[kNoBroadcast];
      s.metrics.emplace_back("reads_vs_1x1",
                             ratio(conv.activationReadBytes, m.activationReadBytes));
      s.metrics.emplace_back("reads_vs_nobc",
                             ratio(nob.activationReadBytes, m.activationReadBytes));
      s.metrics.emplace_back("speedup_vs_1x1", ratio(conv.cycles, m.cycles));
    }
    s.counts = {{"activation_reads", m.activationReads},
                {"input_rf_writes", m.inputRfWrites},
                {"broadcasts", m.broadcasts},
                {"weight_read_bytes", m.weightReadBytes},
                {"macs", m.macs},
                {"read_stall_cycles", m.readStallCycles},
                {"rf_read_bytes", m.macs * 2},
                {"rf_write_bytes", m.inputRfWriteBytes + m.weightRfWriteBytes},
                {"dram_row_activations", std::llround(m.dramActivations)}};
    // The baselines' reads of the same layer (`nnaccel validate`'s read-count figures).
    if (d.timed[kConventional] && d.timed[kNoBroadcast]) {
      s.counts.emplace_back("activation_reads_1x1", d.variants[kConventional].activationReads);
      s.counts.emplace_back("activation_reads_no_broadcast",
                            d.variants[kNoBroadcast].activationReads);
    }
    // Reads delivered to k PEs (the re-use histogram; the HTML report stacks the "reuse."
    // group per layer).
    for (size_t k = 1; k < m.reuseHistogram.size(); ++k)
      s.counts.emplace_back(fmt::format("reuse.{}_pe{}", k, k == 1 ? "" : "s"),
                            m.reuseHistogram[k]);
  }
};

Simulator::Simulator(const Program& program, const quant::QuantizedModel& qm)
    : impl_(std::make_unique<Impl>(program, qm)) {}
Simulator::~Simulator() = default;

void Simulator::setInput(size_t i, const Tensor& value) {
  const ir::ValueId v = impl_->qm.graph.inputs.at(i);
  impl_->values[static_cast<size_t>(v)] =
      value.dtype() == DType::F32 ? impl_->qm.quantizeInput(value, v).data : value;
}

void Simulator::run(const SimOptions& options) {
  impl_->run(options);
}

const Tensor& Simulator::value(ir::ValueId v) const {
  return impl_->values.at(static_cast<size_t>(v));
}
const std::vector<report::LayerStats>& Simulator::layerStats() const {
  return impl_->stats;
}
const std::vector<LayerDetail>& Simulator::layerDetails() const {
  return impl_->details;
}

} // namespace nnaccel::arch::broadcast
