/// \file
/// The options that pick an accelerator and its configuration, shared by `simulate` and
/// `compile`: `--arch ENGINE` (systolic, sparse, broadcast, stream), `--preset NAME` or `--config
/// FILE` (exclusive).
#pragma once
#include "nnaccel/arch/broadcast/Config.h"
#include "nnaccel/arch/sparse/Config.h"
#include "nnaccel/arch/stream/Config.h"
#include "nnaccel/arch/systolic/Config.h"
#include "nnaccel/engines/Engine.h"

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace nnaccel::cli {

/// The presets used when neither --preset nor --config is given.
inline constexpr const char* kDefaultSystolicPreset = "server";
inline constexpr const char* kDefaultSparsePreset = "scnn";
inline constexpr const char* kDefaultBroadcastPreset = "npu";
inline constexpr const char* kDefaultStreamPreset = "fig44";
/// The engines `--arch` accepts.
inline const std::vector<std::string> kEngines = {"systolic", "sparse", "broadcast", "stream"};

class ArchOptions {
public:
  /// Adds --preset and --config to \p app, and --arch unless the command names the engine
  /// itself (`arch show ENGINE`).
  void configure(CLI::App& app, bool withArchOption = true);
  /// The effective systolic config: the preset, the file, or kDefaultSystolicPreset. Throws
  /// nnaccel::Error (Usage for an unknown preset, Config/Io for a bad file).
  arch::systolic::SystolicConfig systolicConfig() const;
  /// The effective sparse config, likewise (default: kDefaultSparsePreset).
  arch::sparse::SparseConfig sparseConfig() const;
  /// The effective broadcast config, likewise (default: kDefaultBroadcastPreset).
  arch::broadcast::BroadcastConfig broadcastConfig() const;
  /// The effective stream ASIC config, likewise (default: kDefaultStreamPreset).
  arch::stream::StreamConfig streamConfig() const;
  /// The effective config of engine(), as the registry's handle.
  engines::EngineConfig engineConfig() const;
  /// True when --preset or --config was given.
  bool given() const;
  /// The engine (--arch, or the one the command named).
  const std::string& engine() const { return arch_; }
  void setEngine(std::string engine) { arch_ = std::move(engine); }

private:
  /// The file (--config) through \p loadFile, else the preset (--preset, or \p defaultPreset)
  /// through \p preset.
  template <typename Config>
  Config config(Config (*loadFile)(const std::string&), Config (*preset)(const std::string&),
                const char* defaultPreset) const {
    if (configOption_->count() > 0)
      return loadFile(config_);
    return preset(presetOption_->count() > 0 ? preset_ : defaultPreset);
  }

  std::string arch_ = "systolic";
  std::string preset_, config_;
  CLI::Option* presetOption_ = nullptr;
  CLI::Option* configOption_ = nullptr;
};

} // namespace nnaccel::cli
