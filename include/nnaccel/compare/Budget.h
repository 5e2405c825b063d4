/// \file
/// An equal-resource budget for `nnaccel compare`: the multipliers, on-chip SRAM bytes, clock
/// and DRAM bandwidth every engine gets, and per engine the preset and the few choices that say
/// how its config is derived from them (array aspect, SRAM split). deriveConfig applies the
/// budget to an engine's preset through the engine's own schema, so a budget that gives an
/// impossible machine is reported with the engine's key, never silently rounded.
/// The rules are in docs/Compare.md; configs/budgets/default.yaml is compiled in.
#pragma once

#include "nnaccel/engines/Engine.h"

#include <cstdint>
#include <string>

namespace nnaccel::compare {

/// The values come from configs/budgets/default.yaml (defaultBudget()); a budget file sets any
/// of them over it. Every key is listed in that file, so the struct has no second copy.
struct Budget {
  std::string name;
  std::string file = "<budget>"; ///< where it came from (error messages)
  int64_t multipliers = 0;
  int64_t sramBytes = 0;
  double clockMhz = 0;
  double dramBytesPerCycle = 0;

  std::string systolicPreset;
  double systolicRowsPerCol = 0; ///< rows = sqrt(multipliers x this)
  double systolicPsumShare = 0;  ///< of sramBytes for the PSUM buffer
  std::string sparsePreset;
  double sparseIaShare = 0; ///< of a PE's RAM (after FIFO and accumulators) for IA RAM
  std::string broadcastPreset;
  std::string streamPreset;
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

} // namespace nnaccel::compare
