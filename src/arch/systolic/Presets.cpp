/// \file
/// The shipped systolic presets. configs/systolic/{small,edge,server}.yaml are the source of
/// truth; CMake compiles them into the library (nnaccel_embed_configs), so `nnaccel` finds them
/// without the source tree. Each preset file lists every key, so a preset does not depend on
/// SystolicConfig's in-code defaults.
#include "nnaccel/arch/common/ConfigReader.h"
#include "nnaccel/arch/systolic/Config.h"
#include "nnaccel/support/Error.h"

#include <fmt/format.h>
#include <map>

namespace nnaccel::arch::systolic {

namespace detail {
/// Defined in the generated <build>/src/arch/systolic/nnaccel_arch_systolic_isa_presetFiles.cpp.
std::span<const common::EmbeddedConfig> presetFiles();
} // namespace detail

namespace {

/// Every preset, parsed once (a preset that fails to parse is a bug: ConfigTest loads each).
const std::map<std::string, SystolicConfig, std::less<>>& presets() {
  static const std::map<std::string, SystolicConfig, std::less<>> kPresets = [] {
    std::map<std::string, SystolicConfig, std::less<>> out;
    for (const common::EmbeddedConfig& f : detail::presetFiles()) {
      out.emplace(
          std::string(f.name),
          parseSystolicConfigOver(SystolicConfig{}, std::string(f.text), std::string(f.fileName)));
    }
    return out;
  }();
  return kPresets;
}

} // namespace

std::vector<std::string> systolicPresetNames() {
  std::vector<std::string> names;
  for (const common::EmbeddedConfig& f : detail::presetFiles()) {
    names.emplace_back(f.name);
  }
  return names;
}

SystolicConfig systolicPreset(const std::string& name) {
  const auto& all = presets();
  const auto it = all.find(name);
  if (it == all.end()) {
    throw Error(ErrorKind::Usage, {},
                fmt::format("no systolic preset named '{}' (presets: {})", name,
                            fmt::join(systolicPresetNames(), ", ")));
  }
  return it->second;
}

} // namespace nnaccel::arch::systolic
