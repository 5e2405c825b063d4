/// \file
/// The engine-independent half of loading an architecture config: the shipped presets (config
/// files compiled into the binary, see nnaccel_embed_configs) looked up by name, and reading a
/// --config file from disk.
///
/// Why: every engine ships presets and reads config files the same way and must report the
/// same errors (`no sparse preset named 'huge' (presets: scnn, tiny)`, `x.yaml: cannot open file
/// (No such file or directory)`); an engine supplies only its config type, its parser and its
/// embedded files:
///
///   static const config::PresetTable<SparseConfig> kPresets("sparse", detail::presetFiles(),
///                                                            parseSparseConfigOver);
///   return kPresets.find(name);
#pragma once

#include "nnaccel/config/ConfigReader.h"

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace nnaccel::config {

/// The preset names of \p files, in their order (each file name without ".yaml").
std::vector<std::string> presetNames(std::span<const EmbeddedConfig> files);

/// The index of the preset \p name in \p files. Throws nnaccel::Error (Usage)
/// `no ENGINE preset named 'NAME' (presets: a, b)` when there is none.
size_t presetIndex(std::span<const EmbeddedConfig> files, std::string_view engine,
                   std::string_view name);

/// The whole contents of the config file at \p path. Throws nnaccel::Error (Io) naming \p path
/// as given when it is a directory or cannot be opened (with the system's reason).
std::string readConfigFile(const std::string& path);

/// An engine's presets, each parsed once at construction (a preset that fails to parse is a
/// bug: every engine's ConfigTest loads each). Each file is parsed over a default-constructed
/// Config, so a preset lists every key and does not depend on the in-code defaults.
template <typename Config> class PresetTable {
public:
  /// parse(base, yamlText, fileName): the engine's parseXConfigOver.
  using Parser = Config (*)(const Config&, const std::string&, const std::string&);

  PresetTable(std::string_view engine, std::span<const EmbeddedConfig> files, Parser parse)
      : engine_(engine), files_(files) {
    configs_.reserve(files.size());
    for (const EmbeddedConfig& f : files) {
      configs_.push_back(parse(Config{}, std::string(f.text), std::string(f.fileName)));
    }
  }

  std::vector<std::string> names() const { return presetNames(files_); }
  /// The preset \p name; throws Error (Usage) listing the presets when there is none.
  const Config& find(std::string_view name) const {
    return configs_[presetIndex(files_, engine_, name)];
  }

private:
  std::string engine_;
  std::span<const EmbeddedConfig> files_;
  std::vector<Config> configs_;
};

} // namespace nnaccel::config
