/// \file
/// The systolic engine's registration (engines/Engine.h): its presets and schema, resources,
/// compare-budget derivation, `arch list` columns, the options it adds (--exact) and its
/// capabilities (program files: `compile`, `disasm`, `simulate --program`; fp32 runs).
#include "nnaccel/arch/systolic/Session.h"
#include "nnaccel/engines/TypedEngine.h"
#include "nnaccel/quant/QuantizedModel.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

namespace nnaccel::arch::systolic {
namespace {

using engines::BudgetKnob;

class SystolicEngine final : public engines::EngineFor<SystolicConfig> {
public:
  SystolicEngine()
      : EngineFor("systolic", "server",
                  {systolicPresetNames, systolicPreset, loadSystolicConfigFile,
                   parseSystolicConfigOver,
                   [](const SystolicConfig& c) { return systolic::toYaml(c); }}) {}

  std::string description() const override { return "weight-stationary systolic array"; }
  int listOrder() const override { return 10; }

  engines::PresetSummary presetSummary() const override {
    return summarize({"PE array", "SBUF/partition", "PSUM/column", "max tile", "clock MHz",
                      "DRAM B/cycle", "peak int8 TOPS"},
                     [](const std::string&, const SystolicConfig& c) {
                       return std::vector<std::string>{
                           fmt::format("{}x{}", c.peRows, c.peCols),
                           engines::bytesText(c.sbufBytesPerPartition),
                           fmt::format("{} entries", c.psumEntriesPerColumn),
                           fmt::format("{}x{}", c.psumMaxTileRows, c.psumMaxTileCols),
                           report::numberText(c.clockMhz),
                           report::numberText(c.dramFigures().bytesPerCycle),
                           engines::peakTopsText(c.peRows * c.peCols, c.clockMhz)};
                     });
  }

  std::vector<engines::Override>
  impliedOverrides(const engines::EngineConfig& base,
                   const std::vector<engines::Override>& given) const override {
    return common::impliedByStandard("dram", common::kDramEnergyKeys,
                                     base.as<SystolicConfig>().dram.standard, given);
  }

  std::vector<BudgetKnob> budgetKnobs() const override {
    return {{"preset", BudgetKnob::Kind::Preset, "server", 0, ""},
            {"rows_per_col", BudgetKnob::Kind::Positive, "", 1.0,
             "array aspect: rows = sqrt(multipliers x rows_per_col), cols = rest"},
            {"psum_share", BudgetKnob::Kind::Share, "", 0.25,
             "of sram_bytes for the PSUM buffer (4-byte entries); the rest is SBUF"}};
  }

  engines::EngineConfig deriveFromBudget(const engines::BudgetFigures& b,
                                         const std::vector<BudgetKnob>& knobs) const override {
    const std::string& preset = engines::knob(knobs, "preset").text;
    const int64_t rows = budgetRows(b.multipliers, engines::knob(knobs, "rows_per_col").real);
    const int64_t cols = b.multipliers / rows;
    const auto psumBytes = static_cast<int64_t>(static_cast<double>(b.sramBytes) *
                                                engines::knob(knobs, "psum_share").real);
    const int64_t entries = psumBytes / (cols * 4);
    const int64_t sbufPerPartition = (b.sramBytes - psumBytes) / rows;
    const SystolicConfig p = systolicPreset(preset);
    // The largest PSUM tile keeps the preset's column count and as many rows as fit.
    const int64_t tileCols = std::min(p.psumMaxTileCols, std::max<int64_t>(1, entries));
    const int64_t tileRows = std::max<int64_t>(1, std::min(p.psumMaxTileRows, entries / tileCols));
    // The resident region keeps the preset's share of each partition, and the on-chip DMA its
    // bytes per partition per cycle.
    const int64_t residentPerPartition =
        static_cast<int64_t>(static_cast<double>(sbufPerPartition) *
                             static_cast<double>(p.sbufResidentBytesPerPartition) /
                             static_cast<double>(p.sbufBytesPerPartition));
    const double onChipDmaBytesPerCycle =
        p.sbufDmaBytesPerCycle * static_cast<double>(rows) / static_cast<double>(p.peRows);
    using engines::overrideValue;
    return engines::deriveFromPreset(
        *this, b, preset,
        {{"clock_mhz", overrideValue(b.clockMhz)},
         {"array.rows", overrideValue(rows)},
         {"array.cols", overrideValue(cols)},
         {"array.weight_load_cycles", overrideValue(rows)},
         {"sbuf.bytes_per_partition", overrideValue(sbufPerPartition)},
         {"sbuf.resident_bytes_per_partition", overrideValue(residentPerPartition)},
         {"sbuf.dma_bytes_per_cycle", overrideValue(onChipDmaBytesPerCycle)},
         {"psum.entries_per_column", overrideValue(entries)},
         {"psum.max_tile_rows", overrideValue(tileRows)},
         {"psum.max_tile_cols", overrideValue(tileCols)},
         {"dram.bytes_per_cycle", overrideValue(b.dramBytesPerCycle)}});
  }

  std::vector<engines::OptionSpec> runOptions() const override {
    return {{"exact", "systolic: step every PE register cycle by cycle (slow; for small layers)",
             engines::OptionSpec::Kind::Flag, 0, 0, 0, false, "steps the data path"}};
  }

  std::string baselineDescription() const override {
    return "zero-inserted transposed convolution with a rotated weight copy and zero-inserted "
           "dilated kernels";
  }

  std::string fp32Unavailable() const override { return ""; }

  report::RunReport compileAndSimulate(const ir::Graph& g, const engines::EngineConfig& config,
                                       const engines::RunOptions& o) const override {
    auto so = common::sessionOptions<SessionOptions>(o);
    so.dtype = o.dtype;
    so.exact = o.engineOption("exact", 0) != 0;
    NNACCEL_ASSERT(!(so.exact && !so.verify)) << "--exact needs the data path";
    NNACCEL_ASSERT(o.programFile.empty() || !o.baselineRows) << "--baseline compiles the model";
    if (!o.programFile.empty())
      so.program = readProgramFile(o.programFile);
    const SystolicConfig& c = config.as<SystolicConfig>();
    SessionResult s = simulateModel(g, c, so);
    report::RunReport& r = s.report;
    // A program carries its own config: the machine is the one it was compiled for.
    engines::describeMachine(r, so.program ? wrap(so.program->config) : config);
    // With the row-buffer model the roofline's DRAM roof is the bandwidth the run achieved.
    if (s.effectiveDramBytesPerCycle > 0)
      r.dramBytesPerCycle = s.effectiveDramBytesPerCycle;
    return std::move(s.report);
  }

  std::vector<engines::LayerCoverage> coverage(const ir::Graph& g,
                                               const engines::EngineConfig& config) const override {
    const quant::QuantizedModel qm = quant::quantize(g, {});
    const Program p = compile(qm.graph, &qm, config.as<SystolicConfig>());
    return engines::coverageOf(p.layers, [](const Layer& l) { return l.unit == LayerUnit::Host; });
  }

  bool hasProgramFiles() const override { return true; }

  std::string writeProgram(const ir::Graph& g, const engines::EngineConfig& config,
                           const engines::ProgramOptions& options,
                           const std::string& path) const override {
    const SystolicConfig& c = config.as<SystolicConfig>();
    CompileOptions co;
    co.dtype = options.dtype;
    co.baseline = options.baseline;
    std::optional<quant::QuantizedModel> qm;
    if (co.dtype == DType::I8)
      qm = quant::quantize(g, {});
    const Program p = compile(qm ? qm->graph : g, qm ? &*qm : nullptr, c, co);
    writeProgramFile(p, path);
    const auto host = std::count_if(p.layers.begin(), p.layers.end(),
                                    [](const Layer& l) { return l.unit == LayerUnit::Host; });
    return fmt::format("compiled '{}' for systolic/{} ({}x{} PEs, {}): {} layers ({} on the "
                       "host), {} instructions, {} bytes of DRAM\n",
                       g.name, c.name, c.peRows, c.peCols,
                       options.dtype == DType::I8 ? "int8" : "fp32", p.layers.size(), host,
                       p.instructions.size(), p.dramBytes);
  }

  std::string disassemble(const std::string& path) const override {
    return systolic::disassemble(readProgramFile(path));
  }

  std::optional<engines::CostTable> costTable(const engines::EngineConfig& config) const override {
    const SystolicConfig& c = config.as<SystolicConfig>();
    return systolicInventory(c).costTable(energyEvents(c));
  }

protected:
  engines::Resources resourcesOf(const SystolicConfig& c) const override {
    return {.multipliers = c.peRows * c.peCols,
            .sramBytes = c.sbufBytesPerPartition * c.peRows + c.psumEntriesPerColumn * c.peCols * 4,
            .clockMhz = c.clockMhz,
            .dramBytesPerCycle = c.dramFigures().bytesPerCycle,
            // The array reads one int8 per partition row and the activation engine writes one
            // per column each cycle (docs/arch/Systolic.md, "Roofline").
            .onChipBytesPerCycle = static_cast<double>(c.peRows + c.peCols)};
  }

private:
  /// rows x cols = multipliers, rows as close to sqrt(multipliers x aspect) as divides.
  static int64_t budgetRows(int64_t multipliers, double rowsPerCol) {
    const double ideal = std::sqrt(static_cast<double>(multipliers) * rowsPerCol);
    int64_t rows = 0;
    const auto distance = [&](int64_t d) { return std::fabs(static_cast<double>(d) - ideal); };
    const auto consider = [&](int64_t d) {
      if (rows == 0 || distance(d) < distance(rows) || (distance(d) == distance(rows) && d < rows))
        rows = d;
    };
    for (int64_t d = 1; d * d <= multipliers; ++d)
      if (multipliers % d == 0) {
        consider(d);
        consider(multipliers / d);
      }
    return rows;
  }
};

} // namespace

NNACCEL_REGISTER_ENGINE(SystolicEngine)

} // namespace nnaccel::arch::systolic
