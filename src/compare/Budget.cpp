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
#include "nnaccel/tech/Node.h"

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
constexpr RealRange kNonNegative{0.0, false};
constexpr std::string_view kOwnNode = "auto";

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
  v.text("node", b.node);
  v.real("area_mm2", b.areaMm2, kNonNegative);
  v.real("power_w", b.powerW, kNonNegative);
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
  const std::vector<std::string> nodes = tech::nodeNames();
  if (b.node != kOwnNode && std::find(nodes.begin(), nodes.end(), b.node) == nodes.end())
    path.fail("node", fmt::format("unknown process node '{}' (expected auto or one of: {})", b.node,
                                  fmt::join(nodes, ", ")));
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

BudgetCost budgetCost(const engines::EngineConfig& config) {
  BudgetCost c;
  std::optional<engines::CostTable> t = config.implementation().costTable(config);
  if (!t)
    return c;
  c.table = std::move(*t);
  c.areaMm2 = c.table.areaMm2();
  c.peakPowerW = c.table.peakPowerW(engines::resources(config).clockMhz);
  return c;
}

namespace {

/// \p engine's config for the budget's figures with its multipliers and SRAM scaled by
/// \p scale, at the budget's node.
engines::EngineConfig deriveScaled(const Budget& budget, const std::string& engine, double scale) {
  engines::BudgetFigures f = budget.figures();
  f.multipliers = std::max<int64_t>(1, std::llround(static_cast<double>(f.multipliers) * scale));
  f.sramBytes = std::max<int64_t>(1, std::llround(static_cast<double>(f.sramBytes) * scale));
  engines::EngineConfig c =
      engines::engineNamed(engine).deriveFromBudget(f, budget.section(engine).knobs);
  if (budget.node != kOwnNode)
    c = engines::applyOverrides(c, {{"technology.node", budget.node}}, budget.file);
  return c;
}

bool fits(const Budget& b, const BudgetCost& cost) {
  return (b.areaMm2 <= 0 || cost.areaMm2 <= b.areaMm2) &&
         (b.powerW <= 0 || cost.peakPowerW <= b.powerW);
}

/// Powers of two tried for an area or power budget: 64x down to 1/1024 of the figures.
constexpr int kLargestScaleLog2 = 6, kSmallestScaleLog2 = -10;

} // namespace

engines::EngineConfig deriveConfig(const Budget& budget, const std::string& engine) {
  if (budget.areaMm2 <= 0 && budget.powerW <= 0)
    return deriveScaled(budget, engine, 1.0);
  // The largest machine (multipliers and SRAM scaled together) whose area and peak power fit.
  std::string refusalAtBudget; // why the engine cannot take the budget's own figures
  for (int k = kLargestScaleLog2; k >= kSmallestScaleLog2; --k) {
    const double scale = std::ldexp(1.0, k);
    try {
      engines::EngineConfig c = deriveScaled(budget, engine, scale);
      if (fits(budget, budgetCost(c)))
        return c;
    } catch (const Error& e) {
      if (k == 0) // a scale the engine cannot arrange: try the next, keep the budget's reason
        refusalAtBudget = e.reason();
    }
  }
  const std::string what = budget.areaMm2 > 0 && budget.powerW > 0
                               ? fmt::format("{} mm2 and {} W", budget.areaMm2, budget.powerW)
                           : budget.areaMm2 > 0 ? fmt::format("{} mm2", budget.areaMm2)
                                                : fmt::format("{} W", budget.powerW);
  throw Error(
      ErrorKind::Config, ErrorContext{.file = budget.file, .key = engine},
      fmt::format("no {} machine of 1/1024 to 64 times the budget's multipliers and SRAM "
                  "fits {}{}",
                  engine, what,
                  refusalAtBudget.empty()
                      ? ""
                      : fmt::format(" (at the budget's own figures: {})", refusalAtBudget)));
}

} // namespace nnaccel::compare
