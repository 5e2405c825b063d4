/// \file
/// The shipped stream presets. configs/stream/*.yaml are the source of truth; CMake compiles
/// them into the library (nnaccel_embed_configs), so `nnaccel` finds them without the source
/// tree. Each preset file lists every key, so a preset does not depend on StreamConfig's
/// in-code defaults. Lookup and errors are arch/common/Presets.h's.
#include "nnaccel/config/Presets.h"

#include "nnaccel/arch/stream/Config.h"

namespace nnaccel::arch::stream {

namespace detail {
/// Defined in the generated <build>/src/arch/stream/nnaccel_arch_stream_config_presetFiles.cpp.
std::span<const config::EmbeddedConfig> presetFiles();
} // namespace detail

std::vector<std::string> streamPresetNames() {
  return config::presetNames(detail::presetFiles());
}

StreamConfig streamPreset(const std::string& name) {
  static const config::PresetTable<StreamConfig> kPresets("stream", detail::presetFiles(),
                                                          parseStreamConfigOver);
  return kPresets.find(name);
}

} // namespace nnaccel::arch::stream
