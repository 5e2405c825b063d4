/// \file
/// One verified stream-engine run and the placement table (Session.h).
#include "nnaccel/arch/stream/Session.h"

#include "nnaccel/arch/common/Verify.h"
#include "nnaccel/quant/Int8Executor.h"
#include "nnaccel/report/TextTable.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <functional>
#include <map>

namespace nnaccel::arch::stream {

namespace {

/// The values of node \p id's constant inputs (its weights and bias): what a frame-buffer
/// accelerator reads from DRAM for the layer. 0 for no node.
int64_t weightValues(const ir::Graph& g, ir::NodeId id) {
  if (id < 0)
    return 0;
  int64_t n = 0;
  for (ir::ValueId v : g.node(id).inputs)
    if (g.isConstant(v))
      n += g.value(v).constant->numElements();
  return n;
}

} // namespace

double Totals::discardedShare() const {
  return issuedMacs > 0 ? static_cast<double>(discardedMacs) / static_cast<double>(issuedMacs)
                        : 0.0;
}

SessionResult simulateModel(const ir::Graph& model, const StreamConfig& config,
                            const SessionOptions& options) {
  validate(config);
  const quant::QuantizedModel qm =
      common::quantizeForRun(model, options, "stream", common::ZeroPointSupport::Asymmetric);
  // From here on the quantized model's graph: a QDQ model's Quantize/Dequantize pairs are
  // absorbed into its scales there (quant/QdqModel.h), and node and value ids are its own.
  const ir::Graph& g = qm.graph;
  options.reportProgress("compiling", 0, 1);
  SessionResult r;
  CompileOptions co;
  co.chips = options.chips;
  co.chooseChips = options.chips == 0; // no --chips: the smallest chain that fits
  // A batch streams as frames through one configuration compiled for one image.
  quant::QuantizedModel batchOfOne;
  const int64_t batch = perFrameModel(qm, batchOfOne);
  const quant::QuantizedModel& frameModel = batch > 1 ? batchOfOne : qm;
  r.program = compile(frameModel, config, co);
  const common::Int8Run run(g, qm, options, true);

  Simulator sim(r.program, frameModel);
  const ir::ValueId in = r.program.inputValue;
  sim.setInput(qm.quantizeInput(run.inputs.at(0), in).data);
  common::LayerVerifier verifier(g, r.report.verdict, options.verify);
  SimOptions so;
  so.frames = std::max(options.frames, batch);
  size_t layersDone = 0;
  so.onLayerDone = [&](size_t li) {
    const Layer& l = r.program.layers[li];
    // A layer whose output continues into the next layer's tile (a fused pool) has no sets of
    // its own; the next layer's check covers it.
    if (l.kind == LayerKind::Tiles && !l.outSets.empty()) {
      Tensor got;
      verifier.checkOutputs(
          li, l,
          [&](ir::ValueId v) -> const Tensor& {
            got = sim.value(v);
            return got;
          },
          [&](ir::ValueId v) { return run.reference->value(v).data; });
    }
    layersDone = li + 1;
    options.reportProgress("simulating", li + 1, r.program.layers.size());
  };
  const bool interrupted = common::runUntilInterrupted([&] { sim.run(so); });
  r.details = sim.layerDetails();
  r.details.resize(std::min(r.details.size(), layersDone));
  report::Verdict& verdict = r.report.verdict;
  if (!sim.timingViolations().empty() && (verdict.passed || !verdict.checked)) {
    verdict.checked = true;
    verdict.passed = false;
    verdict.detail = fmt::format("{} timing inconsistencies; first: {}",
                                 sim.timingViolations().size(), sim.timingViolations().front());
  }
  // Graph outputs: the values the primary output mux selects, read in the order the stream
  // delivers them (views after the last layer, e.g. a Transpose to NHWC and a Reshape, are that
  // order), through the output circuit (e.g. a final Softmax) by the int8 rule as they leave.
  const std::function<quant::QuantTensor(ir::ValueId)> leaving = [&](ir::ValueId v) {
    if (sim.hasValue(v))
      return quant::QuantTensor{sim.value(v), qm.scale(v), qm.zeroPoint(v)};
    const ir::NodeId producer = g.value(v).producer;
    const ir::Node& n = g.node(producer);
    const quant::QuantTensor x = leaving(n.inputs[0]);
    std::vector<const quant::QuantTensor*> ins(n.inputs.size(), nullptr);
    ins[0] = &x;
    return quant::evalQuantizedNode(qm, producer, ins).at(0);
  };
  for (ir::ValueId v : g.outputs)
    if (!interrupted)
      r.outputs.push_back(leaving(v).dequantize());

  report::RunReport& rep = r.report;
  rep.engine = "stream";
  rep.config = config.name;
  rep.model = g.name;
  rep.dtype = "int8";
  rep.summary.push_back(common::quantizationSummary(qm, options));
  // A kernel tile is the stream engine's processing element; the machine is the chips the
  // placement took (a model that outgrows the given chips is placed on more).
  const int64_t chips = std::max<int64_t>(1, r.program.chipsUsed);
  rep.peCount = config.kernelTileCount() * chips;
  rep.peakMacsPerCycle = config.macsPerCycle() / std::max<int64_t>(1, config.chips) * chips;
  rep.clockMhz = config.clockMhz;
  rep.technology = streamInventory(config, chips).summary();
  rep.layers = sim.layerStats();
  if (interrupted)
    rep.markInterrupted(layersDone, r.program.layers.size());
  rep.finalize();

  Totals& t = r.totals;
  t.kernelTiles = static_cast<int64_t>(r.program.kernelTiles.size());
  t.auxTiles = static_cast<int64_t>(r.program.auxTiles.size());
  t.rowsUsed = r.program.rowsUsed;
  t.chipsUsed = r.program.chipsUsed;
  for (const LayerDetail& d : r.details) {
    t.bypassTiles += d.bypassTiles;
    t.fifoBits += d.fifoBits;
    t.issuedMacs += d.issuedMacs * sim.frames();
    t.discardedMacs += d.discardedMacs * sim.frames();
  }
  // The same multiply-accumulators as the chips this placement uses.
  const int64_t macsPerCycle = std::max<int64_t>(1, rep.peakMacsPerCycle);
  const double dramBytesPerCycle = config.baselineDramBytesPerCycle();
  const int64_t frames = sim.frames();
  for (const Layer& l : r.program.layers) {
    t.usefulMacs += l.usefulMacs * frames;
    const int64_t compute = (l.usefulMacs * frames + macsPerCycle - 1) / macsPerCycle;
    t.baselineCycles += compute;
    if (l.kind != LayerKind::View) { // a reshape moves no data on either machine
      const int64_t bytes =
          (l.in.frame.values() + l.out.frame.values() + weightValues(g, l.node)) * frames;
      t.frameBufferCycles += std::max(
          compute, static_cast<int64_t>(std::ceil(static_cast<double>(bytes) / dramBytesPerCycle)));
    }
    if (l.usefulMacs > 0) {
      // Output-centric: every MAC reads its input operand; the stream reads each input once.
      t.baselineInputReads += l.usefulMacs * frames;
      t.streamInputReads += l.in.frame.values() * frames;
    }
  }
  t.firstOutputCycles = sim.firstOutputCycle();
  t.framePeriodCycles = sim.framePeriodCycles();
  t.framesPerSecond = config.clockMhz * 1e6 / static_cast<double>(t.framePeriodCycles);
  t.firstOutputMicros = static_cast<double>(t.firstOutputCycles) / config.clockMhz;

  // The run's own figures as numbers (JSON `total.metrics`; `nnaccel validate` reads them).
  const auto per = [&](int64_t x) { return static_cast<double>(x) / static_cast<double>(frames); };
  rep.total.metrics = {{"kernel_tiles", static_cast<double>(t.kernelTiles)},
                       {"aux_tiles", static_cast<double>(t.auxTiles)},
                       {"frame_period_cycles", static_cast<double>(t.framePeriodCycles)},
                       {"first_output_cycles", static_cast<double>(t.firstOutputCycles)},
                       {"output_centric_cycles_per_frame", per(t.baselineCycles)},
                       {"frame_buffer_cycles_per_frame", per(t.frameBufferCycles)},
                       {"output_centric_input_reads_per_frame", per(t.baselineInputReads)},
                       {"stream_input_reads_per_frame", per(t.streamInputReads)}};
  auto& sum = rep.summary;
  sum.emplace_back("tiles used",
                   fmt::format("{} kernel + {} aux ({} bypass) in {} rows on {} "
                               "chip(s) of {} rows x {} kernel + {} aux tiles{}",
                               t.kernelTiles, t.auxTiles, t.bypassTiles, t.rowsUsed, t.chipsUsed,
                               config.rows, config.kernelTileCount(), config.auxTileCount(),
                               options.chips == 0 && t.chipsUsed > config.chips
                                   ? fmt::format(" (chosen: the smallest chain that fits; "
                                                 "--chips fixes it)")
                                   : ""));
  sum.emplace_back("FIFO storage",
                   fmt::format("{} kbit", report::groupThousands((t.fifoBits + 500) / 1000)));
  sum.emplace_back("first-output latency", fmt::format("{} cycles ({:.2f} us at {} MHz)",
                                                       report::groupThousands(t.firstOutputCycles),
                                                       t.firstOutputMicros, config.clockMhz));
  sum.emplace_back("frame rate (back to back)",
                   fmt::format("{:.1f} frames/s (one frame every {} cycles)", t.framesPerSecond,
                               report::groupThousands(t.framePeriodCycles)));
  sum.emplace_back("frames streamed",
                   fmt::format("{}{}: {} cycles = first-output latency {} + {} x frame period {}",
                               frames, batch > 1 ? fmt::format(" (the batch of {})", batch) : "",
                               report::groupThousands(sim.runCycles()),
                               report::groupThousands(t.firstOutputCycles), frames,
                               report::groupThousands(t.framePeriodCycles)));
  sum.emplace_back("multiplies at positions a Sample discards",
                   fmt::format("{} of {} ({:.1f}%)", report::groupThousands(t.discardedMacs),
                               report::groupThousands(t.issuedMacs), 100.0 * t.discardedShare()));
  sum.emplace_back(
      "baseline: output-centric order (inputs re-read from RAM per kernel position)",
      fmt::format("{} activation reads per frame vs the stream's {} (each input used once, on "
                  "arrival): {:.1f}x; compute-bound on the same multipliers it would take {} "
                  "cycles per frame, the stream is bound by its input rate ({} cycles)",
                  report::groupThousands(t.baselineInputReads / frames),
                  report::groupThousands(t.streamInputReads / frames),
                  static_cast<double>(t.baselineInputReads) /
                      static_cast<double>(std::max<int64_t>(1, t.streamInputReads)),
                  report::groupThousands(t.baselineCycles / frames),
                  report::groupThousands(t.framePeriodCycles)));
  sum.emplace_back(
      fmt::format("baseline: frame-buffer accelerator (same multipliers, frames and weights "
                  "through {} x{})",
                  config.baselineDram, config.baselineDramChannels),
      fmt::format("{} cycles per frame ({:.1f} frames/s), {:.1f}x the stream's frame period",
                  report::groupThousands(t.frameBufferCycles / frames),
                  config.clockMhz * 1e6 * static_cast<double>(frames) /
                      static_cast<double>(std::max<int64_t>(1, t.frameBufferCycles)),
                  static_cast<double>(t.frameBufferCycles) /
                      static_cast<double>(frames * std::max<int64_t>(1, t.framePeriodCycles))));
  return r;
}

namespace {

/// An aux tile's output-mux function with its setting (mux 4912's k, the Subset's lanes).
std::string auxFunctionDetail(const AuxTile& t) {
  switch (t.function) {
  case AuxFunction::Concat:
    return fmt::format("concat mux 4912: lanes 0..{} of the first set, then {} of the second",
                       t.concatLanes - 1, t.channels - t.concatLanes);
  case AuxFunction::Subset:
    return fmt::format("subset: lanes {}..{} to lanes 0..{}", t.laneOffset,
                       t.laneOffset + t.channels - 1, t.channels - 1);
  case AuxFunction::DepthToSpace:
    return fmt::format("depth-to-space: {} channels in {}x{} phases", t.channels,
                       t.window.factorRows, t.window.factorCols);
  default:
    return std::string(auxFunctionName(t.function));
  }
}

} // namespace

std::string placementTable(const Program& p) {
  auto bus = [](const BusRef& b) {
    return b.bus < 0 ? fmt::format("in.{}", b.slot) : fmt::format("bus{}.{}", b.bus, b.slot);
  };
  // P: cycles per position, T: channels time-multiplexed per lane, H: cycles each value is held
  // (digest_002 §8.4), of the layer's output.
  std::string out = fmt::format("{:<28} {:<16} {:>6} {:>5} {:>4} {:>3} {:>3} {:<16} {}\n", "layer",
                                "op", "kernel", "aux", "P", "T", "H", "rows", "output sets");
  for (const Layer& l : p.layers) {
    std::vector<int64_t> rows;
    for (int64_t k : l.kernelTiles)
      rows.push_back(p.kernelTiles[static_cast<size_t>(k)].row);
    for (int64_t a : l.auxTiles)
      rows.push_back(p.auxTiles[static_cast<size_t>(a)].row);
    std::sort(rows.begin(), rows.end());
    rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
    std::vector<std::string> names;
    for (const BusRef& b : l.outSets)
      names.push_back(bus(b));
    const std::string sets = fmt::format("{}", fmt::join(names, " "));
    const bool view = l.kind == LayerKind::View;
    const int64_t P = l.out.cyclesPerPosition;
    out += fmt::format("{:<28} {:<16} {:>6} {:>5} {:>4} {:>3} {:>3} {:<16} {}\n", l.name, l.op,
                       l.kernelTiles.size(), l.auxTiles.size(), view ? "-" : std::to_string(P),
                       view ? "-" : std::to_string(l.out.tm),
                       view ? "-" : std::to_string(l.out.holdCycles()),
                       fmt::format("{}", fmt::join(rows, ",")), view ? "(view)" : sets);
  }
  out += "\nkernel tiles (row.index: layer, input -> sub-kernel, pairs, aux input):\n";
  for (const KernelTile& t : p.kernelTiles) {
    std::string aux = "none";
    if (t.aux == KernelTile::Aux::PreviousTile)
      aux = fmt::format("previous tile, FIFO 4706 {} positions", t.auxDelayPositions);
    else if (t.aux == KernelTile::Aux::RowAbove)
      aux = fmt::format("{} via mux 4404, FIFO 4706 {} positions", bus(t.auxInput),
                        t.auxDelayPositions);
    out += fmt::format("  r{}.k{}: {} <- {} (mux 4403); {}x{} anchor ({},{}) offset ({},{}); {}x{} "
                       "channels, {} group pairs; aux {}{}\n",
                       t.row, t.index, t.layer, bus(t.input), t.subRows, t.subCols, t.anchorRow,
                       t.anchorCol, t.offsetRows, t.offsetCols, t.inChannels, t.outChannels,
                       t.pairs.size(), aux, t.bypass ? "; bypass (identity)" : "");
  }
  out += "\naux tiles (row.index: layer, inputs -> adder, requantize, LUT, function):\n";
  for (const AuxTile& t : p.auxTiles) {
    const char* add = t.add == AuxAdd::None       ? "-"
                      : t.add == AuxAdd::Partial  ? "partial sums"
                      : t.add == AuxAdd::Scale    ? "channel scale (int8 multiply)"
                      : t.add == AuxAdd::Multiply ? "int8 multiply of two frames"
                      : t.add == AuxAdd::Compare  ? "int8 compare"
                      : t.add == AuxAdd::Extremum ? (t.extremumMax ? "int8 max" : "int8 min")
                                                  : "scaled int8 add";
    out += fmt::format(
        "  r{}.a{}: {} <- {}{} (mux 4407), FIFO 4902 {} / aux FIFO {} positions; "
        "add {}; requantize {}; LUT {}; {}\n",
        t.row, t.index, t.layer, bus(t.primary), t.hasAux ? fmt::format(" + {}", bus(t.aux)) : "",
        t.primaryDelayPositions, t.auxDelayPositions, add, t.requantize.empty() ? "no" : "yes",
        !t.lutEnabled           ? "no"
        : t.channelLuts.empty() ? "yes"
                                : fmt::format("{} per-channel tables", t.channelLuts.size()),
        auxFunctionDetail(t));
  }
  std::vector<std::string> outs;
  for (const OutputSelect& o : p.outputs)
    for (const BusRef& b : o.sets)
      outs.push_back(bus(b));
  out += fmt::format("\nprimary output mux 4412: {}", fmt::join(outs, " "));
  out += fmt::format("\nrows used: {} ({} chip(s))\n", p.rowsUsed, p.chipsUsed);
  return out;
}

} // namespace nnaccel::arch::stream
