/// \file
/// The shipped sparse (SCNN) presets. configs/sparse/{scnn,tiny}.yaml are the source of truth;
/// CMake compiles them into the library (nnaccel_embed_configs), so `nnaccel` finds them without
/// the source tree. Each preset file lists every key, so a preset does not depend on
/// SparseConfig's in-code defaults. Lookup and errors are arch/common/Presets.h's.
#include "nnaccel/config/Presets.h"

#include "nnaccel/arch/sparse/Config.h"

namespace nnaccel::arch::sparse {

namespace detail {
/// Defined in the generated <build>/src/arch/sparse/nnaccel_arch_sparse_config_presetFiles.cpp.
std::span<const config::EmbeddedConfig> presetFiles();
} // namespace detail

std::vector<std::string> sparsePresetNames() {
  return config::presetNames(detail::presetFiles());
}

SparseConfig sparsePreset(const std::string& name) {
  static const config::PresetTable<SparseConfig> kPresets("sparse", detail::presetFiles(),
                                                          parseSparseConfigOver);
  return kPresets.find(name);
}

} // namespace nnaccel::arch::sparse
