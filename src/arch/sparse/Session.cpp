/// \file
/// One verified sparse-engine run and its report (Session.h).
#include "nnaccel/arch/sparse/Session.h"

#include "nnaccel/arch/common/Pooling.h"
#include "nnaccel/arch/common/Verify.h"
#include "nnaccel/quant/Kernels.h"
#include "nnaccel/quant/QuantizedModel.h"
#include "nnaccel/report/TextTable.h"

#include <fmt/format.h>

namespace nnaccel::arch::sparse {

double Totals::speedup() const {
  return cycles > 0 ? static_cast<double>(denseCycles) / static_cast<double>(cycles) : 0.0;
}
double Totals::energyRatio() const {
  return energyPj > 0 ? denseEnergyPj / energyPj : 0.0;
}

namespace {

std::string percentOf(int64_t part, int64_t whole) {
  return fmt::format(
      "{:.1f}%", whole > 0 ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0.0);
}

/// The int8 reference of one array layer on \p input: its node, then its fused clamp and
/// pooling.
Tensor layerReference(const quant::QuantizedModel& qm, const Layer& l, const Tensor& input) {
  const ir::Node& n = qm.graph.node(l.node);
  const quant::QuantTensor x{input, qm.scale(n.inputs[0]), qm.zeroPoint(n.inputs[0])};
  std::vector<const quant::QuantTensor*> ptrs(n.inputs.size(), nullptr);
  ptrs[0] = &x;
  const Tensor out = quant::clampTensor(quant::evalQuantizedNode(qm, l.node, ptrs).at(0).data,
                                        l.conv.clampMin, l.conv.clampMax);
  if (!l.conv.fusedPool)
    return out;
  const FusedPool& f = *l.conv.fusedPool;
  ir::PoolParams p = f.pool.params;
  p.batch = out.shape().at(0);
  return common::poolInt8(p, out, f.pool.countMultipliers, f.pool.zero)
      .reshaped(qm.graph.value(l.outputs[0]).shape);
}

} // namespace

namespace {

/// The report's name for the config's dense baseline.
std::string baselineName(const SparseConfig& config) {
  return config.baselineDataflow == BaselineDataflow::DotProduct
             ? "DCNN: PT-IS-DP-dense, the SCNN paper's dense accelerator: same PEs, multipliers "
               "and tiling, F dot products of I channels per PE, every weight and activation "
               "multiplied, activations in a shared SRAM"
             : "PTIS-dense (DCNN): same PEs, multipliers, buffers and tiling; every weight and "
               "activation read and multiplied";
}

/// Each Conv layer's baseline energies as counts (`nnaccel validate` reads them by layer): the
/// dense baseline's and, for DCNN, DCNN-opt's, each with the clock over the baseline's cycles,
/// as the layer's own energy has it over its own.
void addBaselineEnergyCounts(const std::vector<LayerDetail>& details, report::RunReport& rep) {
  for (size_t i = 0; i < details.size() && i < rep.layers.size(); ++i) {
    const LayerDetail& d = details[i];
    if (d.denseCycles == 0 && d.denseEnergyPj == 0)
      continue;
    const double clock = rep.technology.clockPj(d.denseCycles);
    rep.layers[i].counts.emplace_back("dense_energy_pj", std::llround(d.denseEnergyPj + clock));
    if (d.denseOptAccess)
      rep.layers[i].counts.emplace_back("dense_opt_energy_pj",
                                        std::llround(d.denseOptEnergyPj + clock));
  }
}

/// The report's line on activation residency: how many layer outputs stay in the PEs' OA RAMs,
/// and which went to DRAM with the busiest PE's share against the RAM (issue 18 item 2).
void summarizeResidency(const Program& p, const std::vector<LayerDetail>& details,
                        report::RunReport& rep) {
  constexpr size_t kListed = 8;
  int64_t stored = 0;
  std::vector<std::string> spilled;
  for (size_t i = 0; i < details.size(); ++i) {
    const Layer& l = p.layers[i];
    if (l.kind != LayerKind::Conv && l.kind != LayerKind::Pool && l.kind != LayerKind::Elementwise)
      continue;
    ++stored;
    if (details[i].outputToDram)
      spilled.push_back(fmt::format("{} (busiest PE {} B)", l.name,
                                    report::groupThousands(details[i].outputPeBytes)));
  }
  if (stored == 0)
    return;
  rep.summary.emplace_back(
      "activations between layers",
      fmt::format("{} of {} layer outputs stay compressed in the OA RAMs ({} B per PE){}{}",
                  stored - static_cast<int64_t>(spilled.size()), stored,
                  report::groupThousands(p.config.oaRamBytes),
                  spilled.empty() ? "" : "; to DRAM: ", report::listWithNotes(spilled, kListed)));
}

} // namespace

SessionResult simulateModel(const ir::Graph& model, const SparseConfig& config,
                            const SessionOptions& options) {
  validate(config);
  const quant::QuantizedModel qm =
      common::quantizeForRun(model, options, "sparse", common::ZeroPointSupport::Asymmetric);
  // From here on the quantized model's graph: a QDQ model's Quantize/Dequantize pairs are
  // absorbed into its scales there (quant/QdqModel.h), and node and value ids are its own.
  const ir::Graph& g = qm.graph;
  options.reportProgress("compiling", 0, 1);
  SessionResult r;
  r.program = compile(qm, config, [&](size_t done, size_t total) {
    options.reportProgress("compiling", done, total);
  });
  // Synthetic activations: each array layer is checked on its own input (layerReference).
  const bool synthetic = !options.activationDensities.empty();
  const common::Int8Run run(g, qm, options, options.verify && !synthetic);

  Simulator sim(r.program, qm);
  for (size_t i = 0; i < run.inputs.size(); ++i)
    sim.setInput(i, run.inputs[i]);
  common::LayerVerifier verifier(
      g, r.report.verdict, options.verify,
      synthetic ? "int8 reference executor on each array layer's synthetic input "
                  "(bit-exact; other layers not checked)"
                : common::kInt8Reference);
  SimOptions so;
  so.denseBaseline = options.denseBaseline;
  so.threads = options.threads;
  so.syntheticActivationDensities = options.activationDensities;
  size_t layersDone = 0;
  so.onLayerDone = [&](size_t li) {
    const Layer& l = r.program.layers[li];
    if (run.reference || l.kind == LayerKind::Conv)
      verifier.checkOutputs(
          li, l, [&](ir::ValueId v) -> const Tensor& { return sim.value(v); },
          [&](ir::ValueId v) {
            return run.reference ? run.reference->value(v).data
                                 : layerReference(qm, l, sim.layerInput(li));
          });
    layersDone = li + 1;
    options.reportProgress("simulating", li + 1, r.program.layers.size());
  };
  if (options.layerProgress)
    so.onLayerProgress = [&](size_t li, double fraction) {
      options.layerProgress(li, r.program.layers.size(), fraction);
    };
  const bool interrupted = common::runUntilInterrupted([&] { sim.run(so); });
  r.details = sim.layerDetails();
  r.details.resize(layersDone);

  report::RunReport& rep = r.report;
  rep.engine = "sparse";
  rep.config = config.name;
  rep.model = g.name;
  rep.dtype = "int8";
  rep.summary.push_back(common::quantizationSummary(qm, options));
  rep.peCount = config.peCount();
  rep.peakMacsPerCycle = config.peCount() * config.multipliersPerPe();
  rep.clockMhz = config.clockMhz;
  rep.technology = sparseInventory(config).summary();
  rep.layers = sim.layerStats();
  addBaselineEnergyCounts(r.details, rep);
  if (interrupted)
    rep.markInterrupted(layersDone, r.program.layers.size());
  rep.finalize();

  Totals& t = r.totals;
  int64_t denseWeights = 0, nzWeights = 0;
  double actNz = 0, actAll = 0;
  for (size_t i = 0; i < r.details.size(); ++i) {
    const LayerDetail& d = r.details[i];
    const Layer& l = r.program.layers[i];
    t.cycles += rep.layers[i].cycles;
    t.denseCycles += l.kind == LayerKind::Conv ? d.denseCycles : rep.layers[i].cycles;
    t.oracleCycles += l.kind == LayerKind::Conv ? d.oracleCycles : rep.layers[i].cycles;
    t.energyPj += rep.layers[i].energyPj;
    // The dense baseline's time is clocked too (the run's layers have their clock energy).
    const double denseEnergyPj = d.denseEnergyPj + rep.technology.clockPj(d.denseCycles);
    t.denseEnergyPj += l.kind == LayerKind::Conv ? denseEnergyPj : rep.layers[i].energyPj;
    t.denseOptEnergyPj += l.kind == LayerKind::Conv
                              ? d.denseOptEnergyPj + rep.technology.clockPj(d.denseCycles)
                              : rep.layers[i].energyPj;
    t.losses += d.losses;
    if (l.kind == LayerKind::Conv) {
      denseWeights += l.conv.denseWeights;
      nzWeights += l.conv.nonZeroWeights;
      const double elements = static_cast<double>(l.conv.planes() * l.conv.planeW * l.conv.planeH);
      actAll += elements;
      actNz += d.activationDensity * elements;
      if (options.baselineRows) {
        report::BaselineRow b;
        b.layer = l.name;
        b.what = baselineName(config);
        b.method.issuedMacs = d.access.multiplies;
        b.method.cycles = d.cycles;
        b.method.dram = rep.layers[i].dram;
        b.method.memoryOps = d.access.accumulatorRmw;
        b.method.energyPj = d.energyPj + rep.technology.clockPj(d.cycles);
        b.baseline.issuedMacs = d.denseAccess.multiplies;
        b.baseline.cycles = d.denseCycles;
        b.baseline.dram =
            report::Traffic{d.denseAccess.dramReadBytes, d.denseAccess.dramWriteBytes};
        b.baseline.memoryOps = d.denseAccess.accumulatorRmw;
        b.baseline.energyPj = denseEnergyPj;
        rep.baseline.push_back(b);
      }
    }
  }
  t.weightDensity =
      denseWeights > 0 ? static_cast<double>(nzWeights) / static_cast<double>(denseWeights) : 1.0;
  t.activationDensity = actAll > 0 ? actNz / actAll : 1.0;
  rep.total.metrics = {{"w_density", t.weightDensity},
                       {"a_density", t.activationDensity},
                       {"dense_cycles", static_cast<double>(t.denseCycles)},
                       {"speedup", t.speedup()}};
  if (options.denseBaseline) {
    rep.summary.emplace_back(config.baselineDataflow == BaselineDataflow::DotProduct
                                 ? "dense baseline (DCNN: PT-IS-DP-dense, the SCNN paper's)"
                                 : "dense baseline (PTIS-dense, same multipliers and buffers)",
                             fmt::format("{} cycles, {:.3f} uJ: speedup {:.2f}x, energy ratio "
                                         "{:.2f}x",
                                         report::groupThousands(t.denseCycles),
                                         t.denseEnergyPj / 1e6, t.speedup(), t.energyRatio()));
    if (config.baselineDataflow == BaselineDataflow::DotProduct)
      rep.summary.emplace_back(
          "DCNN-opt (DCNN with zero-gated multipliers and compressed DRAM transfers)",
          fmt::format("{:.3f} uJ: energy ratio {:.2f}x", t.denseOptEnergyPj / 1e6,
                      t.energyPj > 0 ? t.denseOptEnergyPj / t.energyPj : 0.0));
  }
  rep.summary.emplace_back("oracle bound (useful products / multipliers)",
                           fmt::format("{} cycles ({:.2f}x faster than simulated)",
                                       report::groupThousands(t.oracleCycles),
                                       t.oracleCycles > 0 ? static_cast<double>(t.cycles) /
                                                                static_cast<double>(t.oracleCycles)
                                                          : 0.0));
  const SlotLosses& s = t.losses;
  const int64_t all = s.total();
  rep.summary.emplace_back(
      "multiplier slots (array layers)",
      fmt::format("useful {}, fragmentation {}, outside plane {}, crossbar conflicts {}, weight "
                  "starvation {}, imbalance {}, halo/post-processing {}, DRAM {}, idle PEs {}",
                  percentOf(s.useful, all), percentOf(s.fragmentation, all),
                  percentOf(s.outsidePlane, all), percentOf(s.conflicts, all),
                  percentOf(s.starvation, all), percentOf(s.imbalance, all),
                  percentOf(s.haloPpu, all), percentOf(s.dram, all), percentOf(s.idlePes, all)));
  summarizeResidency(r.program, r.details, rep);
  for (ir::ValueId v : g.outputs)
    if (!interrupted)
      r.outputs.push_back(
          quant::QuantTensor{sim.value(v), qm.scale(v), qm.zeroPoint(v)}.dequantize());
  return r;
}

} // namespace nnaccel::arch::sparse
