/// \file
/// An equal-resource budget for `nnaccel compare`: the multipliers, on-chip SRAM bytes, clock
/// and DRAM bandwidth every engine gets, and per engine the preset and the few choices that say
/// how its config is derived from them (array aspect, SRAM split), as knobs the engine declares.
/// deriveConfig asks the engine (through the registry) to apply the budget to its preset through
/// its own schema, so a budget that gives an impossible machine is reported with the engine's
/// key, never silently rounded.
/// The rules are in docs/Compare.md; configs/budgets/default.yaml is compiled in.
#pragma once

#include "nnaccel/engines/Engine.h"

#include <cstdint>
#include <string>
#include <vector>

namespace nnaccel::compare {

/// The engine-neutral figures come from configs/budgets/default.yaml (defaultBudget()); each
/// registered engine's section starts from the knobs the engine declares
/// (engines::Engine::budgetKnobs). A budget file sets any of them over that.
struct Budget : engines::BudgetFigures {
  /// One engine's section: its knobs, in the engine's order.
  struct EngineSection {
    std::string engine;
    std::vector<engines::BudgetKnob> knobs;
    bool operator==(const EngineSection&) const = default;
  };

  std::vector<EngineSection> engines; ///< every registered engine, in listing order
  /// The process node every engine is priced at ("auto": each preset's own).
  std::string node = "auto";
  /// Equal area and power: 0 leaves it free; else each engine takes the largest scale of the
  /// multipliers and SRAM (powers of two) whose machine fits it (docs/Compare.md).
  double areaMm2 = 0;
  double powerW = 0;

  /// The engine-neutral figures, as the engines' derivations read them.
  const engines::BudgetFigures& figures() const { return *this; }
  /// \p engine's section; asserts it is there.
  const EngineSection& section(const std::string& engine) const;
};

/// The shipped default (configs/budgets/default.yaml).
Budget defaultBudget();
/// Parses a budget document; unknown keys, wrong types, out-of-range values and unknown presets
/// throw nnaccel::Error (Config) naming \p file and the key. Absent keys keep the default's
/// values; an absent name is "custom".
Budget parseBudget(const std::string& yamlText, const std::string& file);
Budget loadBudgetFile(const std::string& path);
/// The budget as YAML (parseBudget reads it back).
std::string toYaml(const Budget& b);

/// \p engine's config under \p budget. Throws nnaccel::Error (Config) naming the budget file
/// and the reason when the budget cannot be arranged as that engine (e.g. multipliers that are
/// not a multiple of the stream chip's cells).
engines::EngineConfig deriveConfig(const Budget& budget, const std::string& engine);

/// The cost table of \p config as the budget prices it (its node), and whether it is within
/// the budget's area and power.
struct BudgetCost {
  engines::CostTable table;
  double areaMm2 = 0, peakPowerW = 0;
};
BudgetCost budgetCost(const engines::EngineConfig& config);

} // namespace nnaccel::compare
