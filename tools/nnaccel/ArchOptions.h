/// \file
/// The options that pick an accelerator and its configuration, shared by the commands that
/// target an engine: `--arch ENGINE` (any registered engine), `--preset NAME` or `--config FILE`
/// (exclusive), and `--set KEY=VALUE` over either (a dotted config key, checked by the engine's
/// schema). Engines and their default presets come from the registry.
#pragma once
#include "nnaccel/engines/Engine.h"

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace nnaccel::cli {

class ArchOptions {
public:
  /// Adds --preset, --config and --set to \p app, and --arch unless the command names the
  /// engine itself (`arch show ENGINE`).
  void configure(CLI::App& app, bool withArchOption = true);
  /// The effective config of engine(): the file (--config), the preset (--preset) or the
  /// engine's default preset, with the --set overrides applied. Throws nnaccel::Error (Usage
  /// for an unknown preset or a --set without '=', Config/Io for a bad file, Config naming
  /// "--set" and the key for an unknown key or an impossible value).
  engines::EngineConfig engineConfig() const;
  /// True when --preset, --config or --set was given.
  bool given() const;
  /// The engine (--arch, or the one the command named).
  const std::string& engine() const { return arch_; }
  const engines::Engine& implementation() const { return engines::engineNamed(arch_); }
  void setEngine(std::string engine) { arch_ = std::move(engine); }

private:
  std::string arch_;
  std::string preset_, config_;
  std::vector<std::string> settings_; ///< --set KEY=VALUE, in order
  CLI::Option* presetOption_ = nullptr;
  CLI::Option* configOption_ = nullptr;
  CLI::Option* setOption_ = nullptr;
};

} // namespace nnaccel::cli
