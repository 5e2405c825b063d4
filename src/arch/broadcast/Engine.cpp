/// \file
/// The broadcast engine's registration (engines/Engine.h): its presets and schema, resources,
/// compare-budget derivation, `arch list` columns and its study (`sweep vector-width`).
#include "nnaccel/arch/broadcast/Session.h"
#include "nnaccel/arch/broadcast/Studies.h"
#include "nnaccel/engines/TypedEngine.h"
#include "nnaccel/quant/QuantizedModel.h"

#include <algorithm>
#include <fmt/format.h>

namespace nnaccel::arch::broadcast {
namespace {

using engines::BudgetKnob;

class BroadcastEngine final : public engines::EngineFor<BroadcastConfig> {
public:
  BroadcastEngine()
      : EngineFor("broadcast", "npu",
                  {broadcastPresetNames, broadcastPreset, loadBroadcastConfigFile,
                   parseBroadcastConfigOver,
                   [](const BroadcastConfig& c) { return broadcast::toYaml(c); }}) {}

  std::string description() const override {
    return "1xN kernel decomposition with activation broadcasting";
  }
  int listOrder() const override { return 30; }

  engines::PresetSummary presetSummary() const override {
    return summarize(
        {"PE columns x PEs", "group", "MACs/PE", "RF in/weight/out", "lanes/column", "reads/cycle",
         "N", "global buffer", "clock MHz", "DRAM B/cycle", "peak int8 TOPS"},
        [](const std::string&, const BroadcastConfig& c) {
          return std::vector<std::string>{
              fmt::format("{}x{}", c.columns, c.pesPerColumn),
              fmt::format("{} PEs", c.groupSize),
              std::to_string(c.macLanesPerPe),
              fmt::format("{}/{}/{}", engines::bytesText(c.inputRfBytes),
                          engines::bytesText(c.weightRfBytes), engines::bytesText(c.outputRfBytes)),
              fmt::format("{}x{} B", c.lanesPerColumn, c.laneBytes),
              std::to_string(c.readsPerCycle),
              c.vectorWidth == 0 ? std::string("auto") : std::to_string(c.vectorWidth),
              engines::bytesText(c.globalBufferCapacityBytes),
              report::numberText(c.clockMhz),
              report::numberText(c.memoryFigures().bytesPerCycle),
              engines::peakTopsText(c.macsPerCycle(), c.clockMhz)};
        });
  }

  std::vector<engines::Override>
  impliedOverrides(const engines::EngineConfig& base,
                   const std::vector<engines::Override>& given) const override {
    return common::impliedByStandard("memory", kMemoryEnergyKeys,
                                     base.as<BroadcastConfig>().memory.standard, given);
  }

  std::vector<BudgetKnob> budgetKnobs() const override {
    return {{"preset", BudgetKnob::Kind::Preset, "npu", 0,
             "PEs per column, MAC lanes and register files from the preset; columns from the "
             "budget; the global buffer takes the SRAM the register files and column buffers "
             "leave"}};
  }

  int64_t budgetMultiplierUnit(const std::vector<BudgetKnob>& knobs) const override {
    const BroadcastConfig p = broadcastPreset(engines::knob(knobs, "preset").text);
    return p.pesPerColumn * p.macLanesPerPe; // one PE column
  }

  engines::EngineConfig deriveFromBudget(const engines::BudgetFigures& b,
                                         const std::vector<BudgetKnob>& knobs) const override {
    const std::string& preset = engines::knob(knobs, "preset").text;
    const BroadcastConfig p = broadcastPreset(preset);
    const int64_t perColumn = p.pesPerColumn * p.macLanesPerPe;
    if (b.multipliers % perColumn != 0)
      engines::refuseBudget(b, name(),
                            fmt::format("{} multipliers are not a whole number of {} PE columns "
                                        "({} PEs x {} MAC lanes each)",
                                        b.multipliers, preset, p.pesPerColumn, p.macLanesPerPe));
    const int64_t columns = b.multipliers / perColumn;
    const int64_t pes = columns * p.pesPerColumn;
    // The global buffer takes what the register files and column buffers leave.
    const int64_t arrayBytes =
        pes * (p.inputRfBytes + p.weightRfBytes + p.outputRfBytes) + columns * p.columnBufferBytes;
    using engines::overrideValue;
    // Through the schema first: it names an impossible column count.
    engines::EngineConfig derived =
        engines::deriveFromPreset(*this, b, preset,
                                  {{"clock_mhz", overrideValue(b.clockMhz)},
                                   {"pe_array.columns", overrideValue(columns)},
                                   {"global_buffer.capacity_bytes",
                                    overrideValue(std::max<int64_t>(0, b.sramBytes - arrayBytes))},
                                   {"memory.bytes_per_cycle", overrideValue(b.dramBytesPerCycle)}});
    if (b.sramBytes < arrayBytes)
      engines::refuseBudget(b, name(),
                            fmt::format("{} SRAM bytes do not hold the register files and column "
                                        "buffers of {} PEs ({} bytes)",
                                        b.sramBytes, pes, arrayBytes));
    return derived;
  }

  std::vector<engines::Study> studies() const override { return {vectorWidthStudy()}; }

  std::optional<engines::CostTable> costTable(const engines::EngineConfig& config) const override {
    const BroadcastConfig& c = config.as<BroadcastConfig>();
    return broadcastInventory(c).costTable(energyEvents(c));
  }

  std::string baselineDescription() const override {
    return "the conventional 1x1 decomposition and 1xN without broadcasting";
  }

  std::string fp32Unavailable() const override {
    return "models int8 operands with int32 accumulation (fp16/bf16 are not modelled)";
  }

  report::RunReport compileAndSimulate(const ir::Graph& g, const engines::EngineConfig& config,
                                       const engines::RunOptions& o) const override {
    const BroadcastConfig& c = config.as<BroadcastConfig>();
    report::RunReport r = simulateModel(g, c, common::sessionOptions<SessionOptions>(o)).report;
    engines::describeMachine(r, config);
    // The memory 310 line; the roofline's DRAM roof is the rate whole tensors stream at.
    r.dramBytesPerCycle = common::summarizeDram(
        c.memoryFigures(), c.memorySettings().bytesPerCycle.has_value(), c.clockMhz,
        {.activations = common::sumOfCount(r, "dram_row_activations")}, r);
    return r;
  }

  std::vector<engines::LayerCoverage> coverage(const ir::Graph& g,
                                               const engines::EngineConfig& config) const override {
    const Program p = compile(quant::quantize(g, {}), config.as<BroadcastConfig>());
    return engines::coverageOf(p.layers, [](const Layer& l) { return l.kind == LayerKind::Host; });
  }

protected:
  engines::Resources resourcesOf(const BroadcastConfig& c) const override {
    return {.multipliers = c.macsPerCycle(),
            .sramBytes = c.peCount() * (c.inputRfBytes + c.weightRfBytes + c.outputRfBytes) +
                         c.columns * c.columnBufferBytes + c.globalBufferCapacityBytes,
            .clockMhz = c.clockMhz,
            .dramBytesPerCycle = c.memoryFigures().bytesPerCycle,
            .onChipBytesPerCycle = c.globalBufferBytesPerCycle};
  }
};

} // namespace

NNACCEL_REGISTER_ENGINE(BroadcastEngine)

} // namespace nnaccel::arch::broadcast
