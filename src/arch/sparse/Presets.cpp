/// \file
/// The shipped sparse (SCNN) presets. configs/sparse/{scnn,tiny}.yaml are the source of truth;
/// CMake compiles them into the library (nnaccel_embed_configs), so `nnaccel` finds them without
/// the source tree. Each preset file lists every key, so a preset does not depend on
/// SparseConfig's in-code defaults.
#include "nnaccel/arch/common/ConfigReader.h"
#include "nnaccel/arch/sparse/Config.h"
#include "nnaccel/support/Error.h"

#include <fmt/format.h>
#include <map>

namespace nnaccel::arch::sparse {

namespace detail {
/// Defined in the generated <build>/src/arch/sparse/nnaccel_arch_sparse_config_presetFiles.cpp.
std::span<const common::EmbeddedConfig> presetFiles();
} // namespace detail

namespace {

/// Every preset, parsed once (a preset that fails to parse is a bug: ConfigTest loads each).
const std::map<std::string, SparseConfig, std::less<>>& presets() {
  static const std::map<std::string, SparseConfig, std::less<>> kPresets = [] {
    std::map<std::string, SparseConfig, std::less<>> out;
    for (const common::EmbeddedConfig& f : detail::presetFiles()) {
      out.emplace(std::string(f.name), parseSparseConfigOver(SparseConfig{}, std::string(f.text),
                                                             std::string(f.fileName)));
    }
    return out;
  }();
  return kPresets;
}

} // namespace

std::vector<std::string> sparsePresetNames() {
  std::vector<std::string> names;
  for (const common::EmbeddedConfig& f : detail::presetFiles()) {
    names.emplace_back(f.name);
  }
  return names;
}

SparseConfig sparsePreset(const std::string& name) {
  const auto& all = presets();
  const auto it = all.find(name);
  if (it == all.end()) {
    throw Error(ErrorKind::Usage, {},
                fmt::format("no sparse preset named '{}' (presets: {})", name,
                            fmt::join(sparsePresetNames(), ", ")));
  }
  return it->second;
}

} // namespace nnaccel::arch::sparse
