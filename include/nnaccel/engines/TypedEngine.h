/// \file
/// The typed half of the engine contract: EngineFor<Config> implements Engine's config plumbing
/// (presets, files, overrides, YAML, resources) over an engine's own config type and its
/// schema functions, so an engine writes only what is its own: its resources, budget
/// derivation, preset summary and run. Also the budget helpers every engine's derivation uses.
#pragma once

#include "nnaccel/engines/Engine.h"
#include "nnaccel/report/TextTable.h"

#include <string>
#include <vector>

namespace nnaccel::engines {

/// An engine's schema functions over its config type \p Config (the functions each engine's
/// Config.h already declares).
template <typename Config> struct ConfigFunctions {
  std::vector<std::string> (*presetNames)();
  Config (*preset)(const std::string&);
  Config (*loadFile)(const std::string&);
  Config (*parseOver)(const Config&, const std::string&, const std::string&);
  std::string (*toYaml)(const Config&);
};

/// Engine over the config type \p Config.
template <typename Config> class EngineFor : public Engine {
public:
  EngineFor(std::string name, std::string defaultPreset, ConfigFunctions<Config> functions)
      : name_(std::move(name)), defaultPreset_(std::move(defaultPreset)), fn_(functions) {}

  const std::string& name() const final { return name_; }
  std::vector<std::string> presetNames() const final { return fn_.presetNames(); }
  std::string defaultPreset() const final { return defaultPreset_; }
  EngineConfig preset(const std::string& name) const final {
    return wrap(fn_.preset(name.empty() ? defaultPreset_ : name));
  }
  EngineConfig loadFile(const std::string& path) const final { return wrap(fn_.loadFile(path)); }
  EngineConfig parseOver(const EngineConfig& base, const std::string& yamlText,
                         const std::string& origin) const final {
    return wrap(fn_.parseOver(base.as<Config>(), yamlText, origin));
  }
  std::string toYaml(const EngineConfig& config) const final {
    return fn_.toYaml(config.as<Config>());
  }
  Resources resources(const EngineConfig& config) const final {
    return resourcesOf(config.as<Config>());
  }

  /// \p config as this engine's handle.
  EngineConfig wrap(Config config) const { return EngineConfig(*this, std::move(config)); }

protected:
  /// The machine's resources in engine-neutral units (docs/Compare.md).
  virtual Resources resourcesOf(const Config& config) const = 0;
  /// The preset summary rows of every preset, through \p row.
  template <typename Row> PresetSummary summarize(std::vector<std::string> columns, Row row) const {
    PresetSummary s{std::move(columns), {}};
    for (const std::string& p : fn_.presetNames())
      s.rows.push_back(row(p, fn_.preset(p)));
    return s;
  }

private:
  std::string name_, defaultPreset_;
  ConfigFunctions<Config> fn_;
};

/// Throws Error (Config) naming the budget file and \p engine: the budget cannot be arranged
/// as that engine, for \p reason.
[[noreturn]] void refuseBudget(const BudgetFigures& figures, const std::string& engine,
                               const std::string& reason);

/// The knob \p key of \p knobs (asserts it is there).
const BudgetKnob& knob(const std::vector<BudgetKnob>& knobs, const std::string& key);

/// \p engine's preset \p preset reshaped by \p keys through the engine's schema and named
/// "PRESET@budget:NAME"; a value the schema rejects is refused (refuseBudget) with its key.
EngineConfig deriveFromPreset(const Engine& engine, const BudgetFigures& figures,
                              const std::string& preset, std::vector<Override> keys);

/// Decimal text of an integer / a real, for Override values.
std::string overrideValue(int64_t v);
std::string overrideValue(double v);

/// Cell texts of an `arch list` row (figures: report::numberText): 16384 -> "16 KiB" (also MiB,
/// else "1000 B"); peak int8 TOPS (every multiplier busy, a MAC counting as two operations):
/// 16x16 PEs at 1000 MHz -> "0.512".
std::string bytesText(int64_t bytes);
std::string peakTopsText(int64_t multipliers, double clockMhz);

/// Per program layer of an engine, the coverage row: on the engine unless \p isHost.
template <typename Layer, typename IsHost>
std::vector<LayerCoverage> coverageOf(const std::vector<Layer>& layers, IsHost isHost) {
  std::vector<LayerCoverage> out;
  for (const Layer& l : layers)
    out.push_back(LayerCoverage{l.name, l.op, !isHost(l), isHost(l) ? l.note : std::string()});
  return out;
}

} // namespace nnaccel::engines
