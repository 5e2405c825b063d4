/// \file
/// The compare budget: its schema (one walk used to read, check and print it: the engine-neutral
/// figures, then one section per registered engine with the knobs it declares), the embedded
/// default, and the derivation of each engine's config through the registry (docs/Compare.md).
/// Each engine derives its config from its preset through its own schema, so its checks are
/// the engine's own.
#include "nnaccel/compare/Budget.h"

#include "nnaccel/config/ConfigReader.h"
#include "nnaccel/config/Presets.h"
#include "nnaccel/engines/TypedEngine.h"
#include "nnaccel/support/Error.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <span>

namespace nnaccel::compare {

namespace detail {
std::span<const config::EmbeddedConfig> budgetFiles(); // generated from configs/budgets
} // namespace detail

namespace {

using config::IntRange;
using config::kBytesPerCycleRange;
using config::kClockMhzRange;
using config::RealRange;

constexpr IntRange kMultipliers{1, int64_t{1} << 30};
constexpr IntRange kSramBytes{1024, int64_t{1} << 40};
constexpr RealRange kPositive{0.0, true};

/// A fraction in (0, 1): checked after the walk (RealRange has no upper bound).
void checkShare(const config::ConfigPath& path, const std::string& key, double share) {
  if (!(share > 0.0 && share < 1.0))
    path.fail(key, fmt::format("must be between 0 and 1, exclusive (got {})", share));
}

/// The knobs of every registered engine, with the engine's defaults.
std::vector<Budget::EngineSection> defaultSections() {
  std::vector<Budget::EngineSection> out;
  for (const engines::Engine* e : engines::allEngines())
    out.push_back({e->name(), e->budgetKnobs()});
  return out;
}

template <typename Visitor, typename B> void walkSchema(Visitor& v, B& b) {
  v.text("name", b.name);
  v.integer("multipliers", b.multipliers, kMultipliers);
  v.integer("sram_bytes", b.sramBytes, kSramBytes);
  v.real("clock_mhz", b.clockMhz, kClockMhzRange);
  v.real("dram_bytes_per_cycle", b.dramBytesPerCycle, kBytesPerCycleRange);
  for (auto& section : b.engines)
    v.section(section.engine, [&] {
      for (auto& k : section.knobs) {
        if (k.kind == engines::BudgetKnob::Kind::Preset)
          v.text(k.key, k.text);
        else
          v.real(k.key, k.real, kPositive);
      }
    });
}

void checkPreset(const config::ConfigPath& path, const std::string& engine, const std::string& key,
                 const std::string& preset) {
  const std::vector<std::string> names = engines::presetNames(engine);
  if (std::find(names.begin(), names.end(), preset) == names.end())
    path.fail(engine + "." + key, fmt::format("unknown {} preset '{}' (expected one of: {})",
                                              engine, preset, fmt::join(names, ", ")));
}

void validate(const Budget& b, const std::string& file) {
  config::ConfigPath path(file);
  for (const Budget::EngineSection& section : b.engines)
    for (const engines::BudgetKnob& k : section.knobs) {
      if (k.kind == engines::BudgetKnob::Kind::Share)
        checkShare(path, section.engine + "." + k.key, k.real);
      if (k.kind == engines::BudgetKnob::Kind::Preset)
        checkPreset(path, section.engine, k.key, k.text);
    }
}

Budget parseOver(const Budget& base, const std::string& yamlText, const std::string& file) {
  Budget b = config::parseConfigOver(
      base, yamlText, file, [](auto& reader, Budget& x) { walkSchema(reader, x); },
      [](const Budget& x, const std::string& f) { validate(x, f); });
  b.file = file;
  return b;
}

} // namespace

Budget parseBudget(const std::string& yamlText, const std::string& file) {
  Budget base = defaultBudget();
  base.name = "custom";
  return parseOver(base, yamlText, file);
}

Budget defaultBudget() {
  static const Budget kDefault = [] {
    for (const config::EmbeddedConfig& f : detail::budgetFiles())
      if (f.name == "default") {
        Budget base;
        base.engines = defaultSections();
        return parseOver(base, std::string(f.text), std::string(f.fileName));
      }
    NNACCEL_ASSERT(false) << "configs/budgets/default.yaml is not compiled in";
    return Budget{};
  }();
  return kDefault;
}

Budget loadBudgetFile(const std::string& path) {
  return parseBudget(config::readConfigFile(path), path);
}

std::string toYaml(const Budget& b) {
  config::ConfigWriter writer("nnaccel compare budget (schema: docs/Compare.md)");
  walkSchema(writer, b);
  return writer.yaml();
}

const Budget::EngineSection& Budget::section(const std::string& engine) const {
  const auto it = std::find_if(engines.begin(), engines.end(),
                               [&](const EngineSection& s) { return s.engine == engine; });
  NNACCEL_ASSERT(it != engines.end()) << "budget has no section for engine '" << engine << "'";
  return *it;
}

engines::EngineConfig deriveConfig(const Budget& budget, const std::string& engine) {
  return engines::engineNamed(engine).deriveFromBudget(budget.figures(),
                                                       budget.section(engine).knobs);
}

} // namespace nnaccel::compare
