/// \file
/// The stream engine's registration (engines/Engine.h): its presets and schema, resources,
/// compare-budget derivation (whole chips), `arch list` columns, the option it adds (--chips)
/// and its placement (`nnaccel map`).
#include "nnaccel/arch/stream/Session.h"
#include "nnaccel/engines/TypedEngine.h"
#include "nnaccel/quant/QuantizedModel.h"

#include <fmt/format.h>

namespace nnaccel::arch::stream {
namespace {

using engines::BudgetKnob;

/// The most chips a run may chain (--chips).
constexpr int64_t kMaxChainedChips = 1024;

class StreamEngine final : public engines::EngineFor<StreamConfig> {
public:
  StreamEngine()
      : EngineFor("stream", "fig44",
                  {streamPresetNames, streamPreset, loadStreamConfigFile, parseStreamConfigOver,
                   [](const StreamConfig& c) { return stream::toYaml(c); }}) {}

  std::string description() const override {
    return "everted pixel-synchronous pipeline of duplicate 3x3 tiles";
  }
  int listOrder() const override { return 40; }

  engines::PresetSummary presetSummary() const override {
    return summarize(
        {"rows", "kernel tiles", "aux tiles", "tile", "weight pairs", "max width", "chips",
         "clock MHz", "peak int8 TOPS"},
        [](const std::string&, const StreamConfig& c) {
          return std::vector<std::string>{
              std::to_string(c.rows),
              std::to_string(c.kernelTileCount()),
              std::to_string(c.auxTileCount()),
              fmt::format("{}x{}, {}x{} lanes", c.kernelSize, c.kernelSize, c.lanes, c.lanes),
              std::to_string(c.weightStorePairs),
              std::to_string(c.maxArrayWidthPositions),
              std::to_string(c.chips),
              report::numberText(c.clockMhz),
              engines::peakTopsText(c.macsPerCycle(), c.clockMhz)};
        });
  }

  std::vector<BudgetKnob> budgetKnobs() const override {
    return {{"preset", BudgetKnob::Kind::Preset, "large", 0,
             "whole chips: chips = multipliers / one chip's cells"}};
  }

  int64_t budgetMultiplierUnit(const std::vector<BudgetKnob>& knobs) const override {
    const StreamConfig p = streamPreset(engines::knob(knobs, "preset").text);
    return p.macsPerCycle() / p.chips; // one chip's multiply-select cells
  }

  engines::EngineConfig deriveFromBudget(const engines::BudgetFigures& b,
                                         const std::vector<BudgetKnob>& knobs) const override {
    const std::string& preset = engines::knob(knobs, "preset").text;
    const StreamConfig p = streamPreset(preset);
    const int64_t perChip = p.macsPerCycle() / p.chips;
    const int64_t chips = b.multipliers / perChip;
    if (chips >= 1 && b.multipliers % perChip != 0)
      engines::refuseBudget(b, name(),
                            fmt::format("{} multipliers are not a whole number of {} chips ({} "
                                        "multiply-select cells each; {} or {} would be)",
                                        b.multipliers, preset, perChip, chips * perChip,
                                        (chips + 1) * perChip));
    if (chips < 1)
      engines::refuseBudget(
          b, name(),
          fmt::format("{} multipliers are less than one {} chip's {} multiply-select cells ({} "
                      "kernel tiles x {}x{} positions x {}x{} lanes): the stream design spends a "
                      "cell on every weight of the model",
                      b.multipliers, preset, perChip, p.kernelTileCount(), p.kernelSize,
                      p.kernelSize, p.lanes, p.lanes));
    using engines::overrideValue;
    return engines::deriveFromPreset(
        *this, b, preset,
        {{"clock_mhz", overrideValue(b.clockMhz)}, {"chips.count", overrideValue(chips)}});
  }

  std::vector<engines::OptionSpec> runOptions() const override {
    return {{"chips",
             "stream: chain this many ASICs when the model does not fit on one (default: the "
             "config's chips)",
             engines::OptionSpec::Kind::Integer, 1, kMaxChainedChips, 0, true}};
  }

  std::string fp32Unavailable() const override {
    return "streams int8 activations with int32 partial sums";
  }

  report::RunReport compileAndSimulate(const ir::Graph& g, const engines::EngineConfig& config,
                                       const engines::RunOptions& o) const override {
    auto so = common::sessionOptions<SessionOptions>(o);
    so.chips = o.engineOption("chips", 0);
    SessionResult s = simulateModel(g, config.as<StreamConfig>(), so);
    report::RunReport r = std::move(s.report);
    // The machine that ran: the chips the placement took.
    engines::describeMachine(r, chained(config, std::max<int64_t>(1, s.program.chipsUsed)));
    return r;
  }

  std::vector<engines::LayerCoverage> coverage(const ir::Graph& g,
                                               const engines::EngineConfig& config) const override {
    // Every layer runs on tiles, a view or the output circuit; an operator without a unit is
    // refused whole by the compiler (Error naming the node). Coverage asks what runs, not how
    // many chips it takes: the placement may chain up to the CLI's limit of chips.
    CompileOptions co;
    co.chips = kMaxChainedChips;
    const Program p = compile(quant::quantize(g, {}), config.as<StreamConfig>(), co);
    return engines::coverageOf(p.layers, [](const Layer&) { return false; });
  }

  bool hasPlacement() const override { return true; }

  std::optional<engines::CostTable> costTable(const engines::EngineConfig& config) const override {
    const StreamConfig& c = config.as<StreamConfig>();
    return streamInventory(c).costTable(energyEvents(c));
  }

  std::string placement(const ir::Graph& g, const engines::EngineConfig& config,
                        const engines::RunOptions& o) const override {
    // As simulate does: without --chips, the smallest chain of chips that holds the model.
    CompileOptions co;
    co.chips = o.engineOption("chips", 0);
    co.chooseChips = co.chips == 0;
    const Program p = compile(quant::quantize(g, {}), config.as<StreamConfig>(), co);
    return fmt::format("placement of '{}' on stream '{}'{}:\n{}", g.name, config.name(),
                       co.chooseChips ? fmt::format(" ({} chip(s), chosen: the smallest chain "
                                                    "that fits; --chips fixes it)",
                                                    p.chipsUsed)
                                      : "",
                       placementTable(p));
  }

protected:
  engines::Resources resourcesOf(const StreamConfig& c) const override {
    // FIFO capacity: each kernel tile's row FIFOs 4705 ((k - 1) array rows of every lane) and
    // its auxiliary-input FIFO 4706, each aux tile's FIFO 4902; values are accumulator-wide.
    const int64_t laneBytes = c.accumulatorBits / 8;
    const int64_t kernelTileBytes =
        ((c.kernelSize - 1) * c.maxArrayWidthPositions + c.auxFifoPositions) * c.lanes * laneBytes;
    const int64_t auxTileBytes = c.auxTileFifoPositions * c.lanes * laneBytes;
    return {.multipliers = c.macsPerCycle(),
            .sramBytes =
                c.chips * (c.kernelTileCount() * kernelTileBytes + c.auxTileCount() * auxTileBytes),
            .clockMhz = c.clockMhz,
            .dramBytesPerCycle = 0};
  }

private:
  /// \p config with the run's chip count (\p chips > 0), not the file's.
  engines::EngineConfig chained(const engines::EngineConfig& config, int64_t chips) const {
    if (chips <= 0)
      return config;
    StreamConfig c = config.as<StreamConfig>();
    c.chips = chips;
    return wrap(std::move(c));
  }
};

} // namespace

NNACCEL_REGISTER_ENGINE(StreamEngine)

} // namespace nnaccel::arch::stream
