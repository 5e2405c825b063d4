/// \file
/// The options that pick an accelerator and its configuration, shared by the commands that
/// target an engine: `--arch ENGINE` (any registered engine), `--preset NAME` or `--config FILE`
/// (exclusive). Engines and their default presets come from the registry.
#pragma once
#include "nnaccel/engines/Engine.h"

#include <CLI/CLI.hpp>
#include <string>

namespace nnaccel::cli {

class ArchOptions {
public:
  /// Adds --preset and --config to \p app, and --arch unless the command names the engine
  /// itself (`arch show ENGINE`).
  void configure(CLI::App& app, bool withArchOption = true);
  /// The effective config of engine(): the file (--config), the preset (--preset) or the
  /// engine's default preset. Throws nnaccel::Error (Usage for an unknown preset, Config/Io for
  /// a bad file).
  engines::EngineConfig engineConfig() const;
  /// True when --preset or --config was given.
  bool given() const;
  /// The engine (--arch, or the one the command named).
  const std::string& engine() const { return arch_; }
  const engines::Engine& implementation() const { return engines::engineNamed(arch_); }
  void setEngine(std::string engine) { arch_ = std::move(engine); }

private:
  std::string arch_;
  std::string preset_, config_;
  CLI::Option* presetOption_ = nullptr;
  CLI::Option* configOption_ = nullptr;
};

} // namespace nnaccel::cli
