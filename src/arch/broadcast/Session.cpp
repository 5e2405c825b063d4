/// \file
/// One verified broadcast-engine run and its report, and the N x P sweep (Session.h).
#include "nnaccel/arch/broadcast/Session.h"

#include "nnaccel/arch/common/Verify.h"
#include "nnaccel/quant/QuantizedModel.h"
#include "nnaccel/report/TextTable.h"

#include <algorithm>
#include <fmt/format.h>
#include <optional>

namespace nnaccel::arch::broadcast {

namespace {

double ratio(double a, double b) {
  return b > 0 ? a / b : 0.0;
}

/// The memory plan's summary lines: the global buffer's use and which layer outputs went to
/// memory 310, with the reasons (the first few; each layer's note has its own).
void summarizeMemory(const Program& p, report::RunReport& rep) {
  constexpr size_t kListed = 8;
  int64_t outputs = 0, onChip = 0;
  std::vector<std::string> spilled;
  for (const Layer& l : p.layers) {
    if (l.kind == LayerKind::View || l.kind == LayerKind::Host || l.outputs.empty())
      continue;
    ++outputs;
    onChip += l.memory.outputInBuffer ? 1 : 0;
    if (!l.memory.outputInBuffer)
      spilled.push_back(fmt::format("{} ({})", l.name, l.memory.spill));
  }
  rep.summary.emplace_back(
      "global buffer", fmt::format("{} B, peak use {} B; {} of {} array-layer outputs stay on chip",
                                   report::groupThousands(p.config.globalBufferCapacityBytes),
                                   report::groupThousands(p.bufferPeakBytes), onChip, outputs));
  if (spilled.empty())
    return;
  const std::string list = report::listWithNotes(spilled, kListed);
  rep.summary.emplace_back("outputs written to memory 310", list);
}

} // namespace

double Totals::readReduction(Variant baseline) const {
  return ratio(static_cast<double>(variants[baseline].activationReadBytes),
               static_cast<double>(variants[kMethod].activationReadBytes));
}
double Totals::speedup(Variant baseline) const {
  return ratio(static_cast<double>(variants[baseline].cycles),
               static_cast<double>(variants[kMethod].cycles));
}

SessionResult simulateModel(const ir::Graph& model, const BroadcastConfig& config,
                            const SessionOptions& options) {
  validate(config);
  const quant::QuantizedModel qm =
      common::quantizeForRun(model, options, "broadcast", common::ZeroPointSupport::Asymmetric);
  // From here on the quantized model's graph: a QDQ model's Quantize/Dequantize pairs are
  // absorbed into its scales there (quant/QdqModel.h), and node and value ids are its own.
  const ir::Graph& g = qm.graph;
  options.reportProgress("compiling", 0, 1);
  SessionResult r;
  r.program = compile(qm, config, [&](size_t done, size_t total) {
    options.reportProgress("compiling", done, total);
  });
  const common::Int8Run run(g, qm, options, options.verify);

  Simulator sim(r.program, qm);
  for (size_t i = 0; i < run.inputs.size(); ++i)
    sim.setInput(i, run.inputs[i]);
  common::LayerVerifier verifier(g, r.report.verdict, options.verify);
  SimOptions so;
  so.baselines = options.baselines;
  size_t layersDone = 0;
  so.onLayerDone = [&](size_t li) {
    verifier.checkOutputs(
        li, r.program.layers[li], [&](ir::ValueId v) -> const Tensor& { return sim.value(v); },
        [&](ir::ValueId v) { return run.reference->value(v).data; });
    layersDone = li + 1;
    options.reportProgress("simulating", li + 1, r.program.layers.size());
  };
  const bool interrupted = common::runUntilInterrupted([&] { sim.run(so); });
  r.details = sim.layerDetails();
  r.details.resize(layersDone);

  report::RunReport& rep = r.report;
  rep.engine = "broadcast";
  rep.config = config.name;
  rep.model = g.name;
  rep.dtype = "int8";
  rep.summary.push_back(common::quantizationSummary(qm, options));
  rep.peCount = config.peCount();
  rep.peakMacsPerCycle = config.macsPerCycle();
  rep.clockMhz = config.clockMhz;
  rep.technology = broadcastInventory(config).summary();
  rep.layers = sim.layerStats();
  if (interrupted)
    rep.markInterrupted(layersDone, r.program.layers.size());
  rep.finalize();

  Totals& t = r.totals;
  for (size_t i = 0; i < r.details.size(); ++i) {
    const LayerDetail& d = r.details[i];
    const Layer& l = r.program.layers[i];
    for (size_t v = 0; v < kVariants; ++v) {
      VariantStats add = d.variants[v];
      add.energyPj += rep.technology.clockPj(add.cycles); // each variant's time is clocked
      if (l.kind != LayerKind::Conv) { // host, view and element-wise layers: same in every variant
        add = VariantStats{};
        add.cycles = rep.layers[i].cycles;
        add.energyPj = rep.layers[i].energyPj;
      }
      t.variants[v] += add;
    }
    if (options.baselineRows && l.kind == LayerKind::Conv && d.timed[kConventional]) {
      for (Variant base : {kConventional, kNoBroadcast}) {
        const VariantStats& m = d.variants[kMethod];
        const VariantStats& b = d.variants[base];
        report::BaselineRow row;
        row.layer = l.name;
        row.what = base == kConventional
                       ? "conventional 1x1 decomposition (one activation per operand, no sharing)"
                       : "1xN kernel vectors, every activation read into every PE needing it";
        const auto side = [&](const VariantStats& s) {
          report::BaselineRow::Side x;
          x.streamedElements = s.activationReads;
          x.issuedMacs = s.macs;
          x.cycles = s.cycles;
          x.memoryOps = s.inputRfWrites;
          x.dram = s.dram;
          x.sbuf = s.buffer;
          x.energyPj = s.energyPj + rep.technology.clockPj(s.cycles);
          return x;
        };
        row.method = side(m);
        row.baseline = side(b);
        rep.baseline.push_back(row);
      }
    }
  }
  const VariantStats& m = t.variants[kMethod];
  rep.total.metrics = {{"reads", static_cast<double>(m.activationReads)},
                       {"wr/read", m.writesPerRead()}};
  rep.summary.emplace_back(
      "activation reads (data read module)",
      fmt::format("{} reads ({} bytes), {} register-file writes ({:.3f} writes per read), {} "
                  "broadcasts",
                  report::groupThousands(m.activationReads),
                  report::groupThousands(m.activationReadBytes),
                  report::groupThousands(m.inputRfWrites), m.writesPerRead(),
                  report::groupThousands(m.broadcasts)));
  if (options.baselines) {
    for (Variant base : {kConventional, kNoBroadcast}) {
      const VariantStats& b = t.variants[base];
      rep.summary.emplace_back(
          fmt::format("baseline: {}", variantName(base)),
          fmt::format("{} reads, {} bytes ({:.2f}x the method's), {} cycles (method {:.2f}x "
                      "faster), {:.3f} uJ (energy ratio {:.2f}x)",
                      report::groupThousands(b.activationReads),
                      report::groupThousands(b.activationReadBytes), t.readReduction(base),
                      report::groupThousands(b.cycles), t.speedup(base), b.energyPj / 1e6,
                      ratio(b.energyPj, m.energyPj)));
    }
  }
  std::string reuse;
  for (size_t k = 1; k < m.reuseHistogram.size(); ++k)
    reuse.append(
        fmt::format("{}{}: {}", k > 1 ? ", " : "", k, report::groupThousands(m.reuseHistogram[k])));
  rep.summary.emplace_back("re-use histogram (PEs per read: reads)", reuse);
  rep.summary.emplace_back("PE busy (MAC) / idle",
                           fmt::format("{:.1f}% / {:.1f}% of {} PE-cycles",
                                       100.0 * ratio(static_cast<double>(m.peBusyCycles),
                                                     static_cast<double>(m.peCycles)),
                                       100.0 - 100.0 * ratio(static_cast<double>(m.peBusyCycles),
                                                             static_cast<double>(m.peCycles)),
                                       report::groupThousands(m.peCycles)));
  summarizeMemory(r.program, rep);
  for (ir::ValueId v : g.outputs)
    if (!interrupted)
      r.outputs.push_back(
          quant::QuantTensor{sim.value(v), qm.scale(v), qm.zeroPoint(v)}.dequantize());
  return r;
}

std::vector<SweepLayer> sweepDecompositions(const ir::Graph& g, const BroadcastConfig& config,
                                            const std::vector<int64_t>& widths,
                                            const std::vector<int64_t>& groupSizes) {
  validate(config);
  const quant::QuantizedModel qm = quant::quantize(g, {});
  std::vector<SweepLayer> layers;
  std::vector<std::vector<bool>> seen; // per layer, per point: feasible
  for (int64_t p : groupSizes) {
    for (int64_t n : widths) {
      BroadcastConfig c = config;
      c.groupSize = p;
      c.vectorWidth = n;
      c.layerVectorWidths.clear();
      c.readsPerCycle = 1;
      try {
        validate(c);
      } catch (const Error&) {
        continue; // P does not divide the column, or P < N: an infeasible point
      }
      c.readsPerCycle = std::min(config.readsPerCycle, c.lanesPerGroup());
      const Program prog = compile(qm, c);
      Simulator sim(prog, qm);
      SimOptions so;
      so.functional = false;
      so.baselines = false;
      sim.run(so);
      const double clockPjPerCycle = broadcastInventory(c).summary().clockPjPerCycle;
      size_t row = 0;
      for (size_t i = 0; i < prog.layers.size(); ++i) {
        const Layer& l = prog.layers[i];
        if (l.kind != LayerKind::Conv)
          continue;
        if (row == layers.size()) {
          SweepLayer s;
          s.name = l.name;
          s.op = l.op;
          const ir::Node& node = qm.graph.node(l.node);
          if (node.op == ir::OpKind::Conv) {
            const ir::ConvParams cp = ir::convParams(qm.graph, l.node);
            s.kernel =
                fmt::format("{}x{} s{}{}", cp.spatialRank == 2 ? cp.kernel[0] : 1, cp.kernel.back(),
                            cp.strides.back(), cp.isDepthwise() ? " dw" : "");
          } else {
            s.kernel = "fc";
          }
          layers.push_back(s);
        }
        const VariantStats& st = sim.layerDetails()[i].variants[kMethod];
        SweepPoint pt;
        pt.vectorWidth = l.conv.tiling.decomposition.vectorWidth;
        pt.groupSize = p;
        std::vector<SweepPoint>& points = layers[row].points;
        if (std::any_of(points.begin(), points.end(), [&](const SweepPoint& q) {
              return q.vectorWidth == pt.vectorWidth && q.groupSize == p;
            })) { // a width the kernel clipped to one already measured
          ++row;
          continue;
        }
        pt.cycles = st.cycles;
        pt.activationReads = st.activationReads;
        pt.energyPj = st.energyPj + clockPjPerCycle * static_cast<double>(st.cycles);
        points.push_back(pt);
        ++row;
      }
    }
  }
  for (SweepLayer& s : layers) {
    for (size_t i = 1; i < s.points.size(); ++i) {
      const SweepPoint& a = s.points[i];
      const SweepPoint& b = s.points[s.best];
      if (std::tie(a.cycles, a.activationReads, a.vectorWidth) <
          std::tie(b.cycles, b.activationReads, b.vectorWidth))
        s.best = i;
    }
  }
  return layers;
}

} // namespace nnaccel::arch::broadcast
