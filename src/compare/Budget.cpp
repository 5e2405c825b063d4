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
#include <optional>
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

/// \p engine's config for the budget's figures with \p multipliers and the SRAM scaled with
/// them, at the budget's node.
engines::EngineConfig deriveWith(const Budget& budget, const std::string& engine,
                                 int64_t multipliers) {
  engines::BudgetFigures f = budget.figures();
  const double scale = static_cast<double>(multipliers) / static_cast<double>(f.multipliers);
  f.multipliers = multipliers;
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

/// The largest machine under an area or power budget: a whole number of the engine's units
/// (budgetMultiplierUnit: a PE, a column, a chip) of multipliers, the SRAM scaled with them.
/// Units from 1/1024 of the budget's multipliers to 64 times them (at least 64 units) are
/// searched: halving from the top until a machine fits, then bisecting between it and the
/// last that did not, then scanning kScanUnits further up. Area and peak power grow with the
/// machine except where the engine arranges a count awkwardly, which the scan covers nearby.
/// A count the engine cannot arrange counts as not fitting.
class FitSearch {
public:
  FitSearch(const Budget& budget, const std::string& engine)
      : budget_(budget), engine_(engine),
        unit_(engines::engineNamed(engine).budgetMultiplierUnit(budget.section(engine).knobs)),
        lowestUnits_(std::max<int64_t>(1, budget.multipliers / 1024 / unit_)),
        highestUnits_(std::max<int64_t>(64, budget.multipliers * 64 / unit_)) {}

  engines::EngineConfig largest() {
    int64_t tooLarge = 0;
    for (int64_t n = highestUnits_;; n = std::max(lowestUnits_, n / 2)) {
      if (probe(n)) {
        int64_t fitting = n;
        if (tooLarge != 0)
          while (tooLarge - fitting > 1) {
            const int64_t mid = fitting + (tooLarge - fitting) / 2;
            (probe(mid) ? fitting : tooLarge) = mid;
          }
        // A count the engine arranges awkwardly (a prime number of systolic multipliers is a
        // 1 x p array) can be larger than its neighbours, so the bisection may stop below a
        // count that fits: look a little further up.
        const int64_t last = std::min(highestUnits_, fitting + kScanUnits);
        for (int64_t up = fitting + 1; up <= last; ++up)
          if (probe(up))
            fitting = up;
        return *probeConfig(fitting);
      }
      tooLarge = n;
      if (n == lowestUnits_)
        break;
    }
    throw Error(ErrorKind::Config, ErrorContext{.file = budget_.file, .key = engine_},
                fmt::format("no {} machine of {} to {} multipliers fits {}{}", engine_,
                            lowestUnits_ * unit_, highestUnits_ * unit_, limits(), smallestText()));
  }

private:
  std::optional<engines::EngineConfig> probeConfig(int64_t units) {
    try {
      return deriveWith(budget_, engine_, units * unit_);
    } catch (const Error& e) {
      if (units == lowestUnits_)
        smallestRefusal_ = e.reason();
      return std::nullopt;
    }
  }

  bool probe(int64_t units) {
    const std::optional<engines::EngineConfig> c = probeConfig(units);
    if (!c)
      return false;
    const BudgetCost cost = budgetCost(*c);
    if (units == lowestUnits_)
      smallest_ = cost;
    return fits(budget_, cost);
  }

  std::string limits() const {
    const Budget& b = budget_;
    return b.areaMm2 > 0 && b.powerW > 0 ? fmt::format("{} mm2 and {} W", b.areaMm2, b.powerW)
           : b.areaMm2 > 0               ? fmt::format("{} mm2", b.areaMm2)
                                         : fmt::format("{} W", b.powerW);
  }

  /// What the smallest machine searched takes, or why it cannot be arranged.
  std::string smallestText() const {
    if (smallest_)
      return fmt::format(" (the smallest, {} multipliers, takes {:.4g} mm2 and {:.4g} W peak)",
                         lowestUnits_ * unit_, smallest_->areaMm2, smallest_->peakPowerW);
    return smallestRefusal_.empty() ? "" : fmt::format(" (the smallest: {})", smallestRefusal_);
  }

  static constexpr int64_t kScanUnits = 64;

  const Budget& budget_;
  const std::string& engine_;
  const int64_t unit_, lowestUnits_, highestUnits_;
  std::optional<BudgetCost> smallest_;
  std::string smallestRefusal_;
};

} // namespace

engines::EngineConfig deriveConfig(const Budget& budget, const std::string& engine) {
  if (budget.areaMm2 <= 0 && budget.powerW <= 0)
    return deriveWith(budget, engine, budget.multipliers);
  return FitSearch(budget, engine).largest();
}

} // namespace nnaccel::compare
