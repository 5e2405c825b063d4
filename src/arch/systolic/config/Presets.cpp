/// \file
/// The shipped systolic presets. configs/systolic/{small,edge,server}.yaml are the source of
/// truth; CMake compiles them into the library (nnaccel_embed_configs), so `nnaccel` finds them
/// without the source tree. Each preset file lists every key, so a preset does not depend on
/// SystolicConfig's in-code defaults. Lookup and errors are arch/common/Presets.h's.
#include "nnaccel/config/Presets.h"

#include "nnaccel/arch/systolic/Config.h"

namespace nnaccel::arch::systolic {

namespace detail {
/// Defined in the generated <build>/src/arch/systolic/nnaccel_arch_systolic_isa_presetFiles.cpp.
std::span<const config::EmbeddedConfig> presetFiles();
} // namespace detail

std::vector<std::string> systolicPresetNames() {
  return config::presetNames(detail::presetFiles());
}

SystolicConfig systolicPreset(const std::string& name) {
  static const config::PresetTable<SystolicConfig> kPresets("systolic", detail::presetFiles(),
                                                            parseSystolicConfigOver);
  return kPresets.find(name);
}

} // namespace nnaccel::arch::systolic
