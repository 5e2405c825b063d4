/// \file
/// A full systolic run: quantize, compile, simulate, verify layer by layer, report (Session.h).
#include "nnaccel/arch/systolic/Session.h"

#include "nnaccel/arch/common/Verify.h"
#include "nnaccel/arch/systolic/Simulator.h"
#include "nnaccel/quant/Int8Executor.h"
#include "nnaccel/quant/QuantizedModel.h"
#include "nnaccel/reference/Executor.h"
#include "nnaccel/report/TextTable.h"
#include "nnaccel/support/Error.h"

#include <fmt/format.h>
#include <optional>

namespace nnaccel::arch::systolic {
namespace {

struct Reference {
  const quant::QuantizedModel* qm = nullptr;
  std::optional<quant::Int8Executor> int8;
  std::optional<reference::Executor> fp32;
  Tensor value(ir::ValueId v) const {
    if (int8)
      return int8->value(v).data;
    return fp32->values().at(static_cast<size_t>(v));
  }
};

struct RunOutcome {
  std::vector<report::LayerStats> stats;
  report::Verdict verdict;
  std::vector<Tensor> outputs;
  /// Set when the user interrupted the run: stats holds the layers finished before it.
  bool interrupted = false;
};

RunOutcome runProgram(const ir::Graph& g, const Program& program, const quant::QuantizedModel* qm,
                      const Reference* ref, const std::vector<Tensor>& inputs,
                      const SessionOptions& options, const std::string& what) {
  Simulator sim(program, HostContext{qm, &g});
  for (size_t i = 0; i < inputs.size(); ++i)
    sim.setInput(i, inputs[i]);
  RunOutcome out;
  common::LayerVerifier verifier(
      g, out.verdict, ref != nullptr,
      program.dtype == DType::I8 ? std::string(common::kInt8Reference)
                                 : fmt::format("fp32 reference executor (relative error <= {:.0e})",
                                               kF32RelativeTolerance),
      program.dtype == DType::I8, kF32RelativeTolerance);
  SimOptions so;
  so.functional = options.verify;
  so.exact = options.exact;
  size_t layersDone = 0;
  so.onLayerDone = [&](size_t li) {
    const Layer& l = program.layers[li];
    for (size_t j = 0; j < l.outputTensors.size() && verifier.active(); ++j)
      if (l.outputTensors[j] >= 0)
        verifier.check(li, l.name, l.op, l.outputValues[j], sim.readTensor(l.outputTensors[j]),
                       ref->value(l.outputValues[j]));
    layersDone = li + 1;
    options.reportProgress(what, li + 1, program.layers.size());
  };
  out.interrupted = common::runUntilInterrupted([&] { sim.run(so); });
  out.stats = sim.layerStats();
  if (out.interrupted) {
    out.stats.resize(layersDone);
    return out;
  }
  if (options.verify) {
    for (ir::ValueId v : g.outputs) {
      int32_t t = -1;
      for (const Layer& l : program.layers)
        for (size_t j = 0; j < l.outputValues.size(); ++j)
          if (l.outputValues[j] == v)
            t = l.outputTensors[j];
      if (t < 0) {
        out.outputs.push_back(ref ? ref->value(v) : Tensor{});
        continue;
      }
      const Tensor raw = sim.readTensor(t);
      const DramTensor& d = program.tensors[static_cast<size_t>(t)];
      out.outputs.push_back(d.scale > 0 ? quant::QuantTensor{raw, d.scale, d.zeroPoint}.dequantize()
                                        : raw);
    }
  }
  return out;
}

/// The SBUF resident region's summary line: how many layer outputs stay on chip, and which
/// went to DRAM (the first few; each layer's note says why).
void summarizeResidency(const Program& p, report::RunReport& rep) {
  constexpr size_t kListed = 8;
  int64_t onChip = 0, activations = 0;
  for (const Layer& l : p.layers) {
    if (l.unit == LayerUnit::View) // a view shares its input's bytes
      continue;
    for (int32_t ti : l.outputTensors) {
      const DramTensor* t = ti >= 0 ? &p.tensors[static_cast<size_t>(ti)] : nullptr;
      if (t && t->role == DramTensor::Role::Activation) {
        ++activations;
        onChip += isResidentAddr(t->addr) ? 1 : 0;
      }
    }
  }
  std::vector<std::string> spilled;
  for (const Layer& l : p.layers)
    if (const size_t at = l.note.find(kSpillNote); at != std::string::npos)
      spilled.push_back(fmt::format("{}: {}", l.name, l.note.substr(at + kSpillNote.size())));
  rep.summary.emplace_back(
      "SBUF resident region",
      fmt::format("{} B per partition ({} B in all); {} of {} intermediate layer outputs stay on "
                  "chip",
                  report::groupThousands(p.config.sbufResidentBytesPerPartition),
                  report::groupThousands(residentRegionBytes(p.config)), onChip, activations));
  if (spilled.empty())
    return;
  const std::string list = report::listWithNotes(spilled, kListed);
  rep.summary.emplace_back("outputs spilled to DRAM", list);
}

/// The DRAM part's summary line and, with the row-buffer model, the bandwidth the run achieved:
/// DMA bytes (a host layer's are not DMAs) over the cycles DMAs held DRAM (0: not measured).
double summarizeDram(const SystolicConfig& c, report::RunReport& rep) {
  const common::DramFigures f = c.dramFigures();
  if (!f.standard)
    return 0;
  int64_t bytes = 0, busy = 0;
  for (const report::LayerStats& l : rep.layers) {
    if (!l.hostFallback)
      bytes += l.dram.readBytes + l.dram.writeBytes;
    for (const auto& [key, cycles] : l.breakdown)
      busy += key == "dram.busy" ? cycles : 0;
  }
  common::DramUse use{.activations = common::sumOfCount(rep, "dram_row_activations"),
                      .hits = common::sumOfCount(rep, "dram_row_hits"),
                      .wholeTensorStreams = false};
  if (busy > 0)
    use.effectiveBytesPerCycle = static_cast<double>(bytes) / static_cast<double>(busy);
  const double used =
      common::summarizeDram(f, c.dramBytesPerCycle.has_value(), c.clockMhz, use, rep);
  return f.rowBuffer && busy > 0 ? used : 0;
}

report::BaselineRow::Side sideOf(const report::LayerStats& s) {
  report::BaselineRow::Side side;
  side.streamedElements = s.streamedElements;
  side.issuedMacs = s.issuedMacs;
  side.cycles = s.cycles;
  side.dram = s.dram;
  side.sbuf = s.sbuf;
  side.memoryOps = s.dram.readBytes + s.dram.writeBytes + s.sbuf.readBytes + s.sbuf.writeBytes;
  return side;
}

} // namespace

SessionResult simulateModel(const ir::Graph& g, const SystolicConfig& config,
                            const SessionOptions& options) {
  const std::vector<Tensor> inputs = common::runInputs(g, options);
  std::optional<quant::QuantizedModel> qm;
  if (options.dtype == DType::I8)
    qm = common::quantizeForRun(g, options, "systolic", common::ZeroPointSupport::Asymmetric);
  const quant::QuantizedModel* qmp = qm ? &*qm : nullptr;
  // int8 programs are compiled from the quantized model's graph (a QDQ model's Quantize/
  // Dequantize pairs are absorbed into its scales there: quant/QdqModel.h).
  const ir::Graph& pg = qmp ? qmp->graph : g;

  SessionResult result;
  CompileOptions co;
  co.dtype = options.dtype;
  if (options.program) {
    result.program = *options.program;
    if (result.program.dtype != options.dtype)
      throw Error(ErrorKind::Usage, ErrorContext{},
                  fmt::format("the program was compiled for {}, not for the requested dtype",
                              result.program.dtype == DType::I8 ? "int8" : "fp32"));
    if (result.program.model != g.name)
      throw Error(ErrorKind::Usage, ErrorContext{},
                  fmt::format("the program was compiled from model '{}', not '{}'",
                              result.program.model, g.name));
  } else {
    options.reportProgress("compiling", 0, 1);
    result.program = compile(pg, qmp, config, co);
  }
  const SystolicConfig& cfg = result.program.config;

  Reference ref;
  if (options.verify) {
    options.reportProgress(qmp ? "int8 reference" : "fp32 reference", 0, 1);
    if (qmp) {
      ref.int8.emplace(*qmp);
      ref.int8->run(inputs, [&](size_t done, size_t total) {
        options.reportProgress("int8 reference", done, total);
      });
    } else {
      ref.fp32.emplace(g);
      ref.fp32->run(inputs);
    }
  }
  const Reference* refp = options.verify ? &ref : nullptr;
  RunOutcome main = runProgram(pg, result.program, qmp, refp, inputs, options, "simulating");

  report::RunReport& r = result.report;
  r.engine = "systolic";
  r.config = cfg.name;
  r.model = g.name;
  r.dtype = options.dtype == DType::I8 ? "int8" : "fp32";
  if (qmp)
    r.summary.push_back(common::quantizationSummary(*qmp, options));
  r.peCount = cfg.peRows * cfg.peCols;
  r.peakMacsPerCycle = r.peCount;
  r.clockMhz = cfg.clockMhz;
  r.technology = systolicInventory(cfg).summary();
  r.exact = options.exact;
  r.layers = main.stats;
  r.verdict = main.verdict;
  result.outputs = std::move(main.outputs);
  summarizeResidency(result.program, r);
  result.effectiveDramBytesPerCycle = summarizeDram(result.program.config, r);
  if (main.interrupted) {
    r.markInterrupted(r.layers.size(), result.program.layers.size());
    r.finalize();
    return result;
  }

  if (options.baselineRows) {
    co.baseline = true;
    const Program base = compile(pg, qmp, cfg, co);
    RunOutcome b = runProgram(pg, base, qmp, refp, inputs, options, "baseline");
    if (b.verdict.checked && !b.verdict.passed) {
      r.verdict.passed = false;
      r.verdict.detail = "baseline program: " + b.verdict.detail;
    }
    for (size_t li = 0; li < base.layers.size() && li < main.stats.size(); ++li) {
      // "baseline: WHAT" marks a layer the baseline computes its own way; "baseline not
      // applicable: WHY" one it cannot run here (listed too, never silently dropped).
      const std::string& note = base.layers[li].note;
      constexpr std::string_view kOwn = "baseline: ", kNot = "baseline not applicable: ";
      const bool own = note.starts_with(kOwn), notApplicable = note.starts_with(kNot);
      if (!own && !notApplicable)
        continue;
      report::BaselineRow row;
      row.layer = base.layers[li].name;
      row.applicable = own;
      const size_t from = own ? kOwn.size() : kNot.size();
      const size_t spill = note.find(std::string("; ") + std::string(kSpillNote));
      row.what = note.substr(from, spill == std::string::npos ? std::string::npos : spill - from);
      row.method = sideOf(main.stats[li]);
      row.baseline = sideOf(b.stats[li]);
      r.baseline.push_back(row);
    }
  }
  r.finalize();
  return result;
}

} // namespace nnaccel::arch::systolic
