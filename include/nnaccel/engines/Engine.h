/// \file
/// One handle on every accelerator engine: the registry behind `simulate`, `compare` and
/// `sweep`. An EngineConfig is an engine's validated config (any of the four); this header
/// loads one from a preset or a file, applies `key=value` overrides through the engine's own
/// schema (so an override is checked exactly like a config file), states the machine's
/// resources in engine-neutral units, and runs a model to the common report.
///
/// Why: the CLI commands that work across engines (compare, sweep) must not know each engine's
/// types; each engine keeps its own config struct and session, and this is the only place that
/// maps an engine name to them. Dependency direction: engines -> arch/* -> report.
#pragma once

#include "nnaccel/arch/broadcast/Config.h"
#include "nnaccel/arch/sparse/Config.h"
#include "nnaccel/arch/stream/Config.h"
#include "nnaccel/arch/systolic/Config.h"
#include "nnaccel/ir/Graph.h"
#include "nnaccel/report/Report.h"
#include "nnaccel/tensor/Tensor.h"

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace nnaccel::engines {

/// The engines, in the order every listing uses.
const std::vector<std::string>& engineNames();
/// True when \p name is one of engineNames().
bool isEngine(const std::string& name);
/// The preset used when none is named (systolic: server, sparse: scnn, broadcast: npu,
/// stream: fig44). Asserts \p engine is known.
std::string defaultPreset(const std::string& engine);
/// The shipped presets of \p engine.
std::vector<std::string> presetNames(const std::string& engine);

/// A validated config of one engine.
class EngineConfig {
public:
  using Variant = std::variant<arch::systolic::SystolicConfig, arch::sparse::SparseConfig,
                               arch::broadcast::BroadcastConfig, arch::stream::StreamConfig>;

  explicit EngineConfig(Variant config) : config_(std::move(config)) {}

  /// "systolic", "sparse", "broadcast" or "stream".
  const std::string& engine() const;
  /// The config's name (preset name, the file's `name`, or "custom").
  const std::string& name() const;
  const Variant& variant() const { return config_; }
  /// The effective config as YAML in the engine's schema layout.
  std::string toYaml() const;

  bool operator==(const EngineConfig&) const = default;

private:
  Variant config_;
};

/// \p engine's preset \p name (empty: defaultPreset). Throws nnaccel::Error (Usage) for an
/// unknown engine or preset.
EngineConfig loadPreset(const std::string& engine, const std::string& name = "");
/// \p engine's config file at \p path. Throws nnaccel::Error (Io, Config) naming the file.
EngineConfig loadConfigFile(const std::string& engine, const std::string& path);

/// One `key=value` setting of a config: \p key is the schema's dotted path ("array.rows"),
/// \p value a YAML scalar ("64", "true", "hash") or flow sequence ("[int8, fp32]").
struct Override {
  std::string key;
  std::string value;
};
/// Parses "array.rows=64". Throws nnaccel::Error (Usage) naming \p text when there is no '=',
/// or the key or value is empty.
Override parseOverride(const std::string& text);
/// \p base with \p overrides applied through the engine's schema: an unknown key, a wrong type
/// or an impossible value throws nnaccel::Error (Config) naming \p origin (e.g. "--param") and
/// the key. The name stays \p base's unless an override sets `name`.
EngineConfig applyOverrides(const EngineConfig& base, const std::vector<Override>& overrides,
                            const std::string& origin);

/// A machine's resources in engine-neutral units (what `compare --budget` equalizes).
struct Resources {
  int64_t multipliers = 0;      ///< multiplies the datapath can start per cycle
  int64_t sramBytes = 0;        ///< on-chip storage for activations, weights and partial sums
  double clockMhz = 0;          ///< cycles -> time
  double dramBytesPerCycle = 0; ///< off-chip bandwidth (0: the engine has no DRAM interface)
};
/// \p config's resources; how each engine's keys count is documented in docs/Compare.md.
Resources resources(const EngineConfig& config);

/// How to run a model; options that apply to one engine are ignored by the others.
struct RunOptions {
  bool verify = true;        ///< check every layer against the int8 reference executor
  bool baselineRows = false; ///< add the patent's baseline to the report
  /// Graph inputs (Graph::inputs order); empty: seeded random inputs (inputSeed).
  std::vector<Tensor> inputs;
  uint64_t inputSeed = 0x6e6e61636365;
  int sparseThreads = 1;   ///< sparse: PE grid simulation threads (1 or 2; results identical)
  int64_t streamChips = 0; ///< stream: chained ASICs (0: the config's count)
  /// Progress: (what, done, total), called from the run loop.
  std::function<void(const std::string&, size_t, size_t)> progress;
};

/// Fills \p r's machine description from \p config: the roofline's peak multiplies per cycle
/// and DRAM bandwidth (resources()) and the effective config as YAML.
void describeMachine(report::RunReport& r, const EngineConfig& config);

/// Compiles \p g (shape-inferred, passes applied) for \p config, simulates it, verifies it
/// (int8, bit-exact) and returns the common report. Throws nnaccel::Error when the model cannot
/// be compiled for the machine (the message names the layer and the reason); a verification
/// failure is in report.verdict, not thrown. The report's machine description is filled
/// (describeMachine).
report::RunReport simulate(const ir::Graph& g, const EngineConfig& config,
                           const RunOptions& options);

} // namespace nnaccel::engines
