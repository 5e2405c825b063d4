// --arch / --preset / --config for the commands that target an engine (ArchOptions.h).
#include "ArchOptions.h"

namespace nnaccel::cli {

void ArchOptions::configure(CLI::App& app, bool withArchOption) {
  if (withArchOption)
    app.add_option("--arch", arch_, "accelerator engine")
        ->check(CLI::IsMember(kEngines))
        ->capture_default_str();
  presetOption_ = app.add_option("--preset", preset_,
                                 std::string("shipped configuration (see 'nnaccel arch list'; "
                                             "default: ") +
                                     kDefaultSystolicPreset + " for systolic, " +
                                     kDefaultSparsePreset + " for sparse)");
  configOption_ = app.add_option("--config", config_, "architecture config file (YAML)");
  presetOption_->excludes(configOption_);
}

bool ArchOptions::given() const {
  return presetOption_->count() > 0 || configOption_->count() > 0;
}

arch::systolic::SystolicConfig ArchOptions::systolicConfig() const {
  if (configOption_->count() > 0)
    return arch::systolic::loadSystolicConfigFile(config_);
  return arch::systolic::systolicPreset(presetOption_->count() > 0 ? preset_
                                                                   : kDefaultSystolicPreset);
}

arch::sparse::SparseConfig ArchOptions::sparseConfig() const {
  if (configOption_->count() > 0)
    return arch::sparse::loadSparseConfigFile(config_);
  return arch::sparse::sparsePreset(presetOption_->count() > 0 ? preset_ : kDefaultSparsePreset);
}

} // namespace nnaccel::cli
