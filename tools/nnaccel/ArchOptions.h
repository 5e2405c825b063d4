/// \file
/// The options that pick an accelerator and its configuration, shared by `simulate` and
/// `compile`: `--arch ENGINE` (systolic), `--preset NAME` or `--config FILE` (exclusive).
#pragma once
#include "nnaccel/arch/systolic/Config.h"

#include <CLI/CLI.hpp>
#include <string>

namespace nnaccel::cli {

/// The preset used when neither --preset nor --config is given.
inline constexpr const char* kDefaultSystolicPreset = "server";

class ArchOptions {
public:
  /// Adds --preset and --config to \p app, and --arch unless the command names the engine
  /// itself (`arch show ENGINE`).
  void configure(CLI::App& app, bool withArchOption = true);
  /// The effective systolic config: the preset, the file, or kDefaultSystolicPreset. Throws
  /// nnaccel::Error (Usage for an unknown preset, Config/Io for a bad file).
  arch::systolic::SystolicConfig systolicConfig() const;
  /// True when --preset or --config was given.
  bool given() const;

private:
  std::string arch_ = "systolic";
  std::string preset_, config_;
  CLI::Option* presetOption_ = nullptr;
  CLI::Option* configOption_ = nullptr;
};

} // namespace nnaccel::cli
