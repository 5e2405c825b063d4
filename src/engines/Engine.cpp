/// \file
/// The engine registry (engines register themselves, Engine.h) and the engine-neutral
/// operations on an EngineConfig: presets and files by engine name, `key=value` overrides
/// through the owning engine's schema, resources, the machine description and the budget
/// helpers of TypedEngine.h.
#include "nnaccel/engines/Engine.h"

#include "nnaccel/engines/TypedEngine.h"
#include "nnaccel/support/Error.h"

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <yaml-cpp/yaml.h>

namespace nnaccel::engines {

namespace {

std::vector<std::unique_ptr<Engine>>& registry() {
  static std::vector<std::unique_ptr<Engine>> engines;
  return engines;
}

} // namespace

void registerEngine(std::unique_ptr<Engine> engine) {
  NNACCEL_ASSERT(engine != nullptr) << "null engine registered";
  for (const auto& e : registry())
    NNACCEL_ASSERT(e->name() != engine->name())
        << "engine '" << engine->name() << "' registered twice";
  registry().push_back(std::move(engine));
}

std::vector<const Engine*> allEngines() {
  std::vector<const Engine*> out;
  for (const auto& e : registry())
    out.push_back(e.get());
  std::sort(out.begin(), out.end(), [](const Engine* a, const Engine* b) {
    return a->listOrder() != b->listOrder() ? a->listOrder() < b->listOrder()
                                            : a->name() < b->name();
  });
  return out;
}

std::vector<std::string> engineNames() {
  std::vector<std::string> out;
  for (const Engine* e : allEngines())
    out.push_back(e->name());
  return out;
}

bool isEngine(const std::string& name) {
  const auto names = engineNames();
  return std::find(names.begin(), names.end(), name) != names.end();
}

const Engine& engineNamed(const std::string& name) {
  for (const auto& e : registry())
    if (e->name() == name)
      return *e;
  throw Error(ErrorKind::Usage, {},
              fmt::format("unknown engine '{}' (expected one of: {})", name,
                          fmt::join(engineNames(), ", ")));
}

std::vector<std::string> enginesWithOption(const std::string& optionName) {
  std::vector<std::string> out;
  for (const Engine* e : allEngines())
    for (const OptionSpec& o : e->runOptions())
      if (o.name == optionName)
        out.push_back(e->name());
  return out;
}

int64_t RunOptions::engineOption(const std::string& name, int64_t fallback) const {
  const auto it = engineOptions.find(name);
  return it == engineOptions.end() ? fallback : it->second;
}

const std::string& EngineConfig::engine() const {
  return engine_->name();
}

std::string EngineConfig::toYaml() const {
  return engine_->toYaml(*this);
}

// --- optional capabilities: an engine without them says so -----------------------------------

std::string Engine::writeProgram(const ir::Graph&, const EngineConfig&, const ProgramOptions&,
                                 const std::string&) const {
  NNACCEL_ASSERT(false) << "engine '" << name() << "' has no program files";
  return {};
}

std::string Engine::disassemble(const std::string&) const {
  NNACCEL_ASSERT(false) << "engine '" << name() << "' has no program files";
  return {};
}

std::string Engine::placement(const ir::Graph&, const EngineConfig&, const RunOptions&) const {
  NNACCEL_ASSERT(false) << "engine '" << name() << "' has no placement";
  return {};
}

// --- configs by engine name --------------------------------------------------------------------

std::string defaultPreset(const std::string& engine) {
  return engineNamed(engine).defaultPreset();
}

std::vector<std::string> presetNames(const std::string& engine) {
  return engineNamed(engine).presetNames();
}

EngineConfig loadPreset(const std::string& engine, const std::string& name) {
  return engineNamed(engine).preset(name);
}

EngineConfig loadConfigFile(const std::string& engine, const std::string& path) {
  return engineNamed(engine).loadFile(path);
}

EngineConfig loadConfig(const std::string& engine, const std::string& preset,
                        const std::string& path, const std::vector<Override>& overrides,
                        const std::string& origin) {
  const Engine& e = engineNamed(engine);
  const EngineConfig base =
      path.empty() ? e.preset(preset.empty() ? e.defaultPreset() : preset) : e.loadFile(path);
  return overrides.empty() ? base : applyOverrides(base, overrides, origin);
}

namespace {

/// Inserts \p value at the dotted \p key of \p root (sections become maps).
void setPath(const YAML::Node& root, const Override& o, const std::string& origin) {
  YAML::Node node = root;
  size_t start = 0;
  while (true) {
    const size_t dot = o.key.find('.', start);
    const std::string part = o.key.substr(start, dot == std::string::npos ? dot : dot - start);
    if (part.empty())
      throw Error(ErrorKind::Usage, ErrorContext{.file = origin, .key = o.key},
                  "empty section name in the key");
    if (dot == std::string::npos) {
      YAML::Node value;
      try {
        value = YAML::Load(o.value);
      } catch (const YAML::Exception& e) {
        throw Error(ErrorKind::Usage, ErrorContext{.file = origin, .key = o.key},
                    fmt::format("value '{}' is not a YAML value: {}", o.value, e.msg));
      }
      node[part] = value;
      return;
    }
    if (node[part] && !node[part].IsMap())
      throw Error(ErrorKind::Usage, ErrorContext{.file = origin, .key = o.key},
                  fmt::format("'{}' is set both as a value and as a section", part));
    YAML::Node child = node[part];
    if (!child)
      node[part] = YAML::Node(YAML::NodeType::Map);
    node.reset(node[part]); // yaml-cpp: reset rebinds; assignment would copy into the parent
    start = dot + 1;
  }
}

} // namespace

Override parseOverride(const std::string& text) {
  const size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
    throw Error(ErrorKind::Usage, {},
                fmt::format("'{}' is not a setting: expected KEY=VALUE, e.g. array.rows=64", text));
  return Override{text.substr(0, eq), text.substr(eq + 1)};
}

EngineConfig applyOverrides(const EngineConfig& base, const std::vector<Override>& overrides,
                            const std::string& origin) {
  if (overrides.empty())
    return base;
  YAML::Node doc(YAML::NodeType::Map);
  for (const Override& o : base.implementation().impliedOverrides(base, overrides))
    setPath(doc, o, origin);
  for (const Override& o : overrides)
    setPath(doc, o, origin);
  YAML::Emitter out;
  out << doc;
  return base.implementation().parseOver(base, out.c_str(), origin);
}

double CostTable::areaMm2() const {
  double a = 0;
  for (const Component& c : components)
    a += c.areaUm2 * static_cast<double>(c.count) * 1e-6;
  return a;
}

double CostTable::leakageW() const {
  double w = 0;
  for (const Component& c : components)
    w += c.leakageW * static_cast<double>(c.count);
  return w;
}

double CostTable::peakPowerW(double clockMhz) const {
  double pjPerCycle = 0;
  for (const Component& c : components)
    pjPerCycle += c.actionPj * static_cast<double>(c.count);
  return leakageW() + pjPerCycle * 1e-12 * clockMhz * 1e6;
}

Resources resources(const EngineConfig& config) {
  return config.implementation().resources(config);
}

void describeMachine(report::RunReport& r, const EngineConfig& config) {
  const Resources res = resources(config);
  r.peakMacsPerCycle = res.multipliers;
  r.dramBytesPerCycle = res.dramBytesPerCycle;
  r.onChipBytesPerCycle = res.onChipBytesPerCycle;
  r.configYaml = config.toYaml();
}

void LayerDensities::checkLayerNames(const ir::Graph& g) const {
  for (const auto& entry : perLayer) {
    // (Not a structured binding: clang 14, the fuzz build's compiler, cannot capture one.)
    const std::string& layer = entry.first;
    const auto& nodes = g.nodes();
    if (std::none_of(nodes.begin(), nodes.end(),
                     [&](const ir::Node& n) { return n.name == layer; }))
      throw Error(
          ErrorKind::Usage, ErrorContext{.file = source, .key = layer},
          fmt::format("activation density {} names no layer of model '{}'", entry.second, g.name));
  }
}

report::RunReport simulate(const ir::Graph& g, const EngineConfig& config,
                           const RunOptions& options) {
  return config.implementation().simulate(g, config, options);
}

report::RunReport Engine::simulate(const ir::Graph& g, const EngineConfig& config,
                                   const RunOptions& options) const {
  if (!options.activationDensities.empty() && !takesActivationDensities()) {
    std::vector<std::string> takers;
    for (const Engine* e : allEngines())
      if (e->takesActivationDensities())
        takers.push_back(e->name());
    throw Error(ErrorKind::Usage, {},
                fmt::format("the {} engine's timing does not depend on the activations' values, "
                            "so it takes no activation densities (engines that do: {})",
                            name(),
                            takers.empty() ? "none" : fmt::format("{}", fmt::join(takers, ", "))));
  }
  options.activationDensities.checkLayerNames(g);
  report::RunReport r = compileAndSimulate(g, config, options);
  chargeHostLayers(r, options.host);
  return r;
}

// --- budget helpers (TypedEngine.h) ------------------------------------------------------------

void refuseBudget(const BudgetFigures& figures, const std::string& engine,
                  const std::string& reason) {
  throw Error(ErrorKind::Config, ErrorContext{.file = figures.file, .key = engine}, reason);
}

const BudgetKnob& knob(const std::vector<BudgetKnob>& knobs, const std::string& key) {
  const auto it =
      std::find_if(knobs.begin(), knobs.end(), [&](const BudgetKnob& k) { return k.key == key; });
  NNACCEL_ASSERT(it != knobs.end()) << "no budget knob '" << key << "'";
  return *it;
}

EngineConfig deriveFromPreset(const Engine& engine, const BudgetFigures& figures,
                              const std::string& preset, std::vector<Override> keys) {
  // Named for what it is: the preset reshaped by the budget, never the preset itself.
  const std::string name = fmt::format("{}@budget:{}", preset, figures.name);
  std::string quoted = "\""; // a YAML double-quoted scalar: whatever the budget's name holds
  for (char ch : name) {
    if (ch == '"' || ch == '\\')
      quoted += '\\';
    quoted += ch;
  }
  keys.push_back({"name", quoted + "\""});
  try {
    return applyOverrides(engine.preset(preset), keys,
                          fmt::format("{} (budget for {})", figures.file, engine.name()));
  } catch (const Error& e) {
    const std::string key = e.context().key.empty() ? "" : fmt::format("'{}': ", e.context().key);
    refuseBudget(figures, engine.name(),
                 fmt::format("the budget gives an impossible {} config: {}{}", engine.name(), key,
                             e.reason()));
  }
}

std::string bytesText(int64_t bytes) {
  if (bytes >= (int64_t{1} << 20) && bytes % (int64_t{1} << 20) == 0)
    return fmt::format("{} MiB", bytes >> 20);
  if (bytes >= 1024 && bytes % 1024 == 0)
    return fmt::format("{} KiB", bytes >> 10);
  return fmt::format("{} B", bytes);
}

std::string peakTopsText(int64_t multipliers, double clockMhz) {
  return report::numberText(2.0 * static_cast<double>(multipliers) * clockMhz / 1e6);
}

std::string overrideValue(int64_t v) {
  return std::to_string(v);
}

std::string overrideValue(double v) {
  return fmt::format("{}", v);
}

} // namespace nnaccel::engines
