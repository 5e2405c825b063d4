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

struct Budget {
  std::string name = "custom";
  std::string file = "<budget>"; ///< where it came from (error messages)
  int64_t multipliers = 1024;
  int64_t sramBytes = 2 << 20;
  double clockMhz = 1000;
  double dramBytesPerCycle = 32;

  std::string systolicPreset = "server";
  double systolicRowsPerCol = 1.0; ///< rows = sqrt(multipliers x this)
  double systolicPsumShare = 0.25; ///< of sramBytes for the PSUM buffer
  std::string sparsePreset = "scnn";
  double sparseIaShare = 0.5; ///< of a PE's RAM (after FIFO and accumulators) for IA RAM
  std::string broadcastPreset = "npu";
  std::string streamPreset = "large";
};

/// The shipped default (configs/budgets/default.yaml).
Budget defaultBudget();
/// Parses a budget document; unknown keys, wrong types and out-of-range values throw
/// nnaccel::Error (Config) naming \p file and the key. Absent keys keep the default's values.
Budget parseBudget(const std::string& yamlText, const std::string& file);
Budget loadBudgetFile(const std::string& path);
/// The budget as YAML (parseBudget reads it back).
std::string toYaml(const Budget& b);

/// \p engine's config under \p budget. Throws nnaccel::Error (Config) naming the budget file
/// and the reason when the budget cannot be arranged as that engine (e.g. multipliers that are
/// not a multiple of the stream chip's cells).
engines::EngineConfig deriveConfig(const Budget& budget, const std::string& engine);

} // namespace nnaccel::compare
