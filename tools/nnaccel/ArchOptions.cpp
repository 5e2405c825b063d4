// --arch / --preset / --config for the commands that target an engine (ArchOptions.h).
#include "ArchOptions.h"

#include <fmt/format.h>

namespace nnaccel::cli {

void ArchOptions::configure(CLI::App& app, bool withArchOption) {
  if (withArchOption)
    app.add_option("--arch", arch_, "accelerator engine")
        ->check(CLI::IsMember(kEngines))
        ->capture_default_str();
  presetOption_ = app.add_option(
      "--preset", preset_,
      fmt::format("shipped configuration (see 'nnaccel arch list'; default: {} for systolic, {} "
                  "for sparse, {} for broadcast, {} for stream)",
                  kDefaultSystolicPreset, kDefaultSparsePreset, kDefaultBroadcastPreset,
                  kDefaultStreamPreset));
  configOption_ = app.add_option("--config", config_, "architecture config file (YAML)");
  presetOption_->excludes(configOption_);
}

bool ArchOptions::given() const {
  return presetOption_->count() > 0 || configOption_->count() > 0;
}

arch::systolic::SystolicConfig ArchOptions::systolicConfig() const {
  return config(arch::systolic::loadSystolicConfigFile, arch::systolic::systolicPreset,
                kDefaultSystolicPreset);
}

arch::sparse::SparseConfig ArchOptions::sparseConfig() const {
  return config(arch::sparse::loadSparseConfigFile, arch::sparse::sparsePreset,
                kDefaultSparsePreset);
}

arch::broadcast::BroadcastConfig ArchOptions::broadcastConfig() const {
  return config(arch::broadcast::loadBroadcastConfigFile, arch::broadcast::broadcastPreset,
                kDefaultBroadcastPreset);
}

arch::stream::StreamConfig ArchOptions::streamConfig() const {
  return config(arch::stream::loadStreamConfigFile, arch::stream::streamPreset,
                kDefaultStreamPreset);
}

engines::EngineConfig ArchOptions::engineConfig() const {
  if (arch_ == "sparse")
    return engines::EngineConfig(sparseConfig());
  if (arch_ == "broadcast")
    return engines::EngineConfig(broadcastConfig());
  if (arch_ == "stream")
    return engines::EngineConfig(streamConfig());
  return engines::EngineConfig(systolicConfig());
}

} // namespace nnaccel::cli
