/// \file
/// The sparse engine's registration (engines/Engine.h): its presets and schema, resources,
/// compare-budget derivation, `arch list` columns, the option it adds (--threads) and its study
/// (`sweep density`).
#include "nnaccel/arch/sparse/Session.h"
#include "nnaccel/arch/sparse/Studies.h"
#include "nnaccel/engines/TypedEngine.h"
#include "nnaccel/quant/QuantizedModel.h"
#include "nnaccel/support/Cores.h"

#include <fmt/format.h>

namespace nnaccel::arch::sparse {
namespace {

using engines::BudgetKnob;

class SparseEngine final : public engines::EngineFor<SparseConfig> {
public:
  SparseEngine()
      : EngineFor("sparse", "scnn",
                  {sparsePresetNames, sparsePreset, loadSparseConfigFile, parseSparseConfigOver,
                   [](const SparseConfig& c) { return sparse::toYaml(c); }}) {}

  std::string description() const override { return "SCNN compressed-sparse PE grid"; }
  int listOrder() const override { return 20; }

  engines::PresetSummary presetSummary() const override {
    return summarize(
        {"PE grid", "mults/PE (FxI)", "accumulators/PE", "weight FIFO", "IA/OA RAM", "clock MHz",
         "DRAM B/cycle", "peak int8 TOPS"},
        [](const std::string&, const SparseConfig& c) {
          return std::vector<std::string>{
              fmt::format("{}x{}", c.peRows, c.peCols),
              fmt::format("{}x{}", c.weightsPerVector, c.activationsPerVector),
              fmt::format("{} banks x {}", c.accumulatorBanks, c.accumulatorBankEntries),
              fmt::format("{} vectors", c.weightFifoEntries),
              fmt::format("{}/{}", engines::bytesText(c.iaRamBytes),
                          engines::bytesText(c.oaRamBytes)),
              report::numberText(c.clockMhz),
              report::numberText(c.dramFigures().bytesPerCycle),
              engines::peakTopsText(c.peCount() * c.multipliersPerPe(), c.clockMhz)};
        });
  }

  std::vector<engines::Override>
  impliedOverrides(const engines::EngineConfig& base,
                   const std::vector<engines::Override>& given) const override {
    return common::impliedByStandard("dram", common::kDramEnergyKeys,
                                     base.as<SparseConfig>().dram.standard, given);
  }

  std::vector<BudgetKnob> budgetKnobs() const override {
    return {{"preset", BudgetKnob::Kind::Preset, "scnn", 0,
             "F x I multipliers per PE from the preset; PEs = multipliers / (F x I)"},
            {"ia_share", BudgetKnob::Kind::Share, "", 0.5,
             "of each PE's RAM left after its weight FIFO and accumulators"}};
  }

  int64_t budgetMultiplierUnit(const std::vector<BudgetKnob>& knobs) const override {
    return sparsePreset(engines::knob(knobs, "preset").text).multipliersPerPe();
  }

  engines::EngineConfig deriveFromBudget(const engines::BudgetFigures& b,
                                         const std::vector<BudgetKnob>& knobs) const override {
    const std::string& preset = engines::knob(knobs, "preset").text;
    const SparseConfig p = sparsePreset(preset);
    const int64_t perPe = p.multipliersPerPe();
    if (b.multipliers % perPe != 0)
      engines::refuseBudget(b, name(),
                            fmt::format("{} multipliers are not a whole number of {} PEs ({} x {} "
                                        "multipliers each)",
                                        b.multipliers, preset, p.weightsPerVector,
                                        p.activationsPerVector));
    const int64_t pes = b.multipliers / perPe;
    int64_t rows = 1;
    for (int64_t d = 1; d * d <= pes; ++d)
      if (pes % d == 0)
        rows = d;
    // What a PE keeps besides its RAMs (weight FIFO, accumulators) is fixed by the preset.
    const int64_t fixedPerPe = resourcesOf(p).sramBytes / p.peCount() - p.iaRamBytes - p.oaRamBytes;
    const int64_t ramPerPe = b.sramBytes / pes - fixedPerPe;
    if (ramPerPe < 2)
      engines::refuseBudget(b, name(),
                            fmt::format("{} SRAM bytes over {} PEs leave no activation RAM after "
                                        "each PE's {}-byte weight FIFO and accumulators",
                                        b.sramBytes, pes, fixedPerPe));
    const auto ia =
        static_cast<int64_t>(static_cast<double>(ramPerPe) * engines::knob(knobs, "ia_share").real);
    using engines::overrideValue;
    return engines::deriveFromPreset(
        *this, b, preset,
        {{"clock_mhz", overrideValue(b.clockMhz)},
         {"pe_array.rows", overrideValue(rows)},
         {"pe_array.cols", overrideValue(pes / rows)},
         {"buffers.ia_ram_bytes", overrideValue(ia)},
         {"buffers.oa_ram_bytes", overrideValue(ramPerPe - ia)},
         {"dram.bytes_per_cycle", overrideValue(b.dramBytesPerCycle)}});
  }

  std::vector<engines::OptionSpec> runOptions() const override {
    return {{"threads",
             "sparse: simulate the PE grid on this many threads (1 or 2; results are identical; "
             "the default is 2 when a second core is idle, 1-minute load average below cores - "
             "1, else 1: the per-cycle hand-off is slower than one thread on a loaded machine)",
             engines::OptionSpec::Kind::Integer, 1, 2, defaultSimulationThreads()}};
  }

  std::vector<engines::Study> studies() const override { return {densityStudy()}; }

  std::optional<engines::CostTable> costTable(const engines::EngineConfig& config) const override {
    const SparseConfig& c = config.as<SparseConfig>();
    return sparseInventory(c).costTable(energyEvents(c));
  }

  bool takesActivationDensities() const override { return true; }

  std::string baselineDescription() const override {
    return "the dense PTIS-dense array, whose totals every sparse report shows";
  }

  std::string fp32Unavailable() const override {
    return "computes on integers (int8 data in its value_bits-wide words)";
  }

  report::RunReport compileAndSimulate(const ir::Graph& g, const engines::EngineConfig& config,
                                       const engines::RunOptions& o) const override {
    auto so = common::sessionOptions<SessionOptions>(o);
    so.threads = static_cast<int>(o.engineOption("threads", o.threads));
    so.activationDensities = o.activationDensities;
    const SparseConfig& c = config.as<SparseConfig>();
    report::RunReport r = simulateModel(g, c, so).report;
    engines::describeMachine(r, config);
    // The DRAM line; the roofline's DRAM roof is the rate whole tensors stream at.
    r.dramBytesPerCycle = common::summarizeDram(
        c.dramFigures(), c.dramSettings().bytesPerCycle.has_value(), c.clockMhz,
        {.activations = common::sumOfCount(r, "dram_row_activations")}, r);
    return r;
  }

  std::vector<engines::LayerCoverage> coverage(const ir::Graph& g,
                                               const engines::EngineConfig& config) const override {
    const Program p = compile(quant::quantize(g, {}), config.as<SparseConfig>());
    return engines::coverageOf(p.layers, [](const Layer& l) { return l.kind == LayerKind::Host; });
  }

protected:
  engines::Resources resourcesOf(const SparseConfig& c) const override {
    // Per PE: IA and OA RAMs, the weight FIFO (F values with their indices per entry) and the
    // accumulator banks (two sets when double-buffered).
    const int64_t fifoBytes =
        c.weightFifoEntries * c.weightsPerVector * (c.valueBits + c.indexBits) / 8;
    const int64_t accumulatorBytes =
        c.accumulatorEntries() * c.accumulatorBits / 8 * (c.doubleBufferedAccumulators ? 2 : 1);
    return {.multipliers = c.peCount() * c.multipliersPerPe(),
            .sramBytes = c.peCount() * (c.iaRamBytes + c.oaRamBytes + fifoBytes + accumulatorBytes),
            .clockMhz = c.clockMhz,
            .dramBytesPerCycle = c.dramFigures().bytesPerCycle,
            // Each PE reads one vector of I activations from its IA RAM and one of F weights
            // from its weight FIFO per cycle (docs/arch/Sparse.md, "Roofline").
            .onChipBytesPerCycle =
                static_cast<double>(c.peCount() * (c.activationsPerVector + c.weightsPerVector))};
  }
};

} // namespace

NNACCEL_REGISTER_ENGINE(SparseEngine)

} // namespace nnaccel::arch::sparse
