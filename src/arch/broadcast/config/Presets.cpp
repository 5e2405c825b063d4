/// \file
/// The shipped broadcast presets. configs/broadcast/{npu,fig8}.yaml are the source of truth;
/// CMake compiles them into the library (nnaccel_embed_configs), so `nnaccel` finds them without
/// the source tree. Each preset file lists every key, so a preset does not depend on
/// BroadcastConfig's in-code defaults. Lookup and errors are arch/common/Presets.h's.
#include "nnaccel/config/Presets.h"

#include "nnaccel/arch/broadcast/Config.h"

namespace nnaccel::arch::broadcast {

namespace detail {
/// Defined in the generated
/// <build>/src/arch/broadcast/nnaccel_arch_broadcast_config_presetFiles.cpp.
std::span<const config::EmbeddedConfig> presetFiles();
} // namespace detail

std::vector<std::string> broadcastPresetNames() {
  return config::presetNames(detail::presetFiles());
}

BroadcastConfig broadcastPreset(const std::string& name) {
  static const config::PresetTable<BroadcastConfig> kPresets("broadcast", detail::presetFiles(),
                                                             parseBroadcastConfigOver);
  return kPresets.find(name);
}

} // namespace nnaccel::arch::broadcast
