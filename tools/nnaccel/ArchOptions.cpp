// --arch / --preset / --config for the commands that target an engine (ArchOptions.h).
#include "ArchOptions.h"

#include "Command.h"

#include <fmt/format.h>

namespace nnaccel::cli {

void ArchOptions::configure(CLI::App& app, bool withArchOption) {
  const std::vector<const engines::Engine*> all = engines::allEngines();
  if (arch_.empty() && !all.empty())
    arch_ = all.front()->name();
  if (withArchOption)
    app.add_option("--arch", arch_, "accelerator engine")
        ->check(oneOf(engines::engineNames()))
        ->capture_default_str();
  std::vector<std::string> defaults;
  for (const engines::Engine* e : all)
    defaults.push_back(fmt::format("{} for {}", e->defaultPreset(), e->name()));
  presetOption_ =
      app.add_option("--preset", preset_,
                     fmt::format("shipped configuration (see 'nnaccel arch list'; default: {})",
                                 fmt::join(defaults, ", ")));
  configOption_ = app.add_option("--config", config_, "architecture config file (YAML)");
  presetOption_->excludes(configOption_);
  setOption_ = app.add_option("--set", settings_,
                              "set a config key over the preset or file, KEY=VALUE with the "
                              "schema's dotted key (--set array.rows=64); repeatable ('nnaccel "
                              "arch show ENGINE' prints the keys)");
}

bool ArchOptions::given() const {
  return presetOption_->count() > 0 || configOption_->count() > 0 || setOption_->count() > 0;
}

engines::EngineConfig ArchOptions::engineConfig() const {
  std::vector<engines::Override> overrides;
  for (const std::string& text : settings_)
    overrides.push_back(engines::parseOverride(text));
  return engines::loadConfig(arch_, presetOption_->count() > 0 ? preset_ : "",
                             configOption_->count() > 0 ? config_ : "", overrides, "--set");
}

} // namespace nnaccel::cli
