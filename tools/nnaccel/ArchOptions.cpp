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
}

bool ArchOptions::given() const {
  return presetOption_->count() > 0 || configOption_->count() > 0;
}

engines::EngineConfig ArchOptions::engineConfig() const {
  const engines::Engine& e = implementation();
  if (configOption_->count() > 0)
    return e.loadFile(config_);
  return e.preset(presetOption_->count() > 0 ? preset_ : e.defaultPreset());
}

} // namespace nnaccel::cli
