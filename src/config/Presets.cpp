/// \file
/// Preset lookup over the embedded config files and the config-file reader shared by every
/// engine's loader (see nnaccel/config/Presets.h).
#include "nnaccel/config/Presets.h"

#include "nnaccel/support/Error.h"
#include "nnaccel/support/ReadFile.h"
#include "nnaccel/support/Suggest.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <sstream>

namespace nnaccel::config {

std::vector<std::string> presetNames(std::span<const EmbeddedConfig> files) {
  std::vector<std::string> names;
  names.reserve(files.size());
  for (const EmbeddedConfig& f : files) {
    names.emplace_back(f.name);
  }
  return names;
}

size_t presetIndex(std::span<const EmbeddedConfig> files, std::string_view engine,
                   std::string_view name) {
  for (size_t i = 0; i < files.size(); ++i) {
    if (files[i].name == name) {
      return i;
    }
  }
  throw Error(ErrorKind::Usage, {},
              fmt::format("no {} preset named '{}'{} (presets: {})", engine, name,
                          didYouMean(name, presetNames(files)),
                          fmt::join(presetNames(files), ", ")));
}

std::string readConfigFile(const std::string& path) {
  return readFileCapped(path, kMaxTextFileBytes, "config file");
}

} // namespace nnaccel::config
