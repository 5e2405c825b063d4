/// \file
/// The engine contract and its registry: what every accelerator engine provides, and the one
/// handle (EngineConfig) the commands that work across engines (simulate, compare, sweep, arch,
/// budgets) use. An engine implements Engine in its own folder (src/arch/<engine>/Engine.cpp)
/// and registers itself there with NNACCEL_REGISTER_ENGINE; nothing outside that folder names
/// it. Adding an engine is one new folder and one build-list line (docs/AddingAnEngine.md).
///
/// Why this shape: ramulator2 and Glow register implementations by name from their own
/// translation units and let each one list its own parameters; oneDNN's implementation list
/// lets each implementation say why it declines a problem. Here an engine declares its presets,
/// config schema (through its own parser), resources, budget knobs, per-engine run options and
/// optional capabilities (program files, a placement), and says per layer whether it runs it.
/// Dependency direction: report, ir, quant <- engines <- arch/<engine> <- {compare, explore,
/// cli} <- tools.
#pragma once

#include "nnaccel/engines/HostModel.h"
#include "nnaccel/ir/Graph.h"
#include "nnaccel/report/Report.h"
#include "nnaccel/support/Error.h"
#include "nnaccel/tensor/DType.h"
#include "nnaccel/tensor/Tensor.h"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <typeinfo>
#include <utility>
#include <vector>

namespace nnaccel::engines {

class Engine;

/// A validated config of one engine. The engine owns the type; holders only compare, name and
/// print it, and the engine itself reads it back with as<Config>().
class EngineConfig {
public:
  template <typename Config>
  EngineConfig(const Engine& engine, Config config)
      : engine_(&engine), config_(std::make_shared<const Holder<Config>>(std::move(config))) {}

  /// The engine's registered name ("systolic").
  const std::string& engine() const;
  /// The engine that owns this config.
  const Engine& implementation() const { return *engine_; }
  /// The config's name (preset name, the file's `name`, or "custom").
  const std::string& name() const { return config_->name(); }
  /// The effective config as YAML in the engine's schema layout.
  std::string toYaml() const;

  /// The config as its engine's type; asserts the type matches.
  template <typename Config> const Config& as() const {
    NNACCEL_ASSERT(config_->type() == typeid(Config))
        << "config of engine '" << engine() << "' read as another type";
    return static_cast<const Holder<Config>&>(*config_).value;
  }

  bool operator==(const EngineConfig& o) const {
    return engine_ == o.engine_ && config_->equals(*o.config_);
  }

private:
  struct HolderBase {
    virtual ~HolderBase() = default;
    virtual const std::type_info& type() const = 0;
    virtual bool equals(const HolderBase& o) const = 0;
    virtual const std::string& name() const = 0;
  };
  template <typename Config> struct Holder final : HolderBase {
    explicit Holder(Config c) : value(std::move(c)) {}
    const std::type_info& type() const override { return typeid(Config); }
    bool equals(const HolderBase& o) const override {
      return o.type() == typeid(Config) && static_cast<const Holder&>(o).value == value;
    }
    const std::string& name() const override { return value.name; }
    Config value;
  };

  const Engine* engine_;
  std::shared_ptr<const HolderBase> config_;
};

/// A machine's resources in engine-neutral units (what `compare --budget` equalizes).
/// One `key=value` setting of a config: \p key is the schema's dotted path ("array.rows"),
/// \p value a YAML scalar ("64", "true", "hash") or flow sequence ("[int8, fp32]").
struct Override {
  std::string key;
  std::string value;
};

struct Resources {
  int64_t multipliers = 0;      ///< multiplies the datapath can start per cycle
  int64_t sramBytes = 0;        ///< on-chip storage for activations, weights and partial sums
  double clockMhz = 0;          ///< cycles -> time
  double dramBytesPerCycle = 0; ///< off-chip bandwidth (0: the engine has no DRAM interface)
  /// The bandwidth of the on-chip buffer whose traffic reports count as `sbuf` (the roofline's
  /// second roof; 0: none)
  double onChipBytesPerCycle = 0;
};

/// A command-line option an engine adds to `simulate` (and, where it applies, `map`): the CLI
/// declares every registered engine's options and rejects one given with another engine.
struct OptionSpec {
  enum class Kind { Flag, Integer };
  std::string name; ///< without dashes: "threads" is --threads
  std::string help;
  Kind kind = Kind::Flag;
  int64_t min = 0, max = 0;  ///< Integer: inclusive range
  int64_t defaultValue = 0;  ///< Integer: the value when not given (shown in --help)
  bool forPlacement = false; ///< also an option of `map` (engines with a placement)
  /// Non-empty: the option cannot go with a timing-only run, because it "steps the data path".
  std::string needsData;
};

/// Densities by layer name, with a default for the layers not named (`simulate
/// --activation-densities FILE`, a validation's `activation_densities`).
struct LayerDensities {
  std::optional<double> density; ///< every layer not in perLayer (nullopt: none)
  std::map<std::string, double> perLayer;
  std::string source; ///< the file they were read from (named in errors), "" when built in code
  bool empty() const { return !density && perLayer.empty(); }
  /// The density of layer \p name, if any.
  std::optional<double> of(const std::string& name) const {
    const auto it = perLayer.find(name);
    return it != perLayer.end() ? std::optional<double>(it->second) : density;
  }
  /// Throws Error (Usage) naming source and the key when a perLayer name is no node of \p g.
  void checkLayerNames(const ir::Graph& g) const;
};

/// How to run a model. Options of one engine (OptionSpec) arrive in engineOptions by name.
struct RunOptions {
  bool verify = true;        ///< check every layer against the reference executor
  bool baselineRows = false; ///< add the patent's baseline to the report
  DType dtype = DType::I8;   ///< I8, or F32 on an engine whose fp32Unavailable() is empty
  /// Graph inputs (Graph::inputs order); empty: seeded random inputs (inputSeed).
  std::vector<Tensor> inputs;
  uint64_t inputSeed = 0x6e6e61636365;
  /// The int8 model's calibration input sets (each in Graph::inputs order; empty: the default
  /// seeded random sets) and how its activation ranges are chosen: a quant::CalibrationMethod
  /// by name ("minmax", "percentile", "mse", "entropy"), the percentile method's share, and
  /// whether channels are equalized first (quant::CalibrationOptions::equalize), whether
  /// activations are asymmetric (quant::CalibrationOptions::asymmetric) and whether biases are
  /// corrected after calibration (quant::CalibrationOptions::biasCorrection).
  std::vector<std::vector<Tensor>> calibrationSets;
  std::string calibrationMethod = "minmax";
  double calibrationPercentile = 99.99;
  bool calibrationEqualize = false;
  bool calibrationAsymmetric = false;
  bool calibrationBiasCorrection = false;
  /// Threads one run may use (results never depend on it); a sweep running points in parallel
  /// gives each run one.
  int threads = 1;
  /// The given per-engine options (OptionSpec::name -> value; a flag is 1).
  std::map<std::string, int64_t> engineOptions;
  /// A program file to run instead of compiling (engines with hasProgramFiles()).
  std::string programFile;
  /// Progress: (what, done, total), called from the run loop.
  std::function<void(const std::string&, size_t, size_t)> progress;
  /// Progress inside the layer being simulated: (layer index, layers, fraction of it done),
  /// called from an engine's long inner loops (the sparse array's cycles) every few thousand
  /// cycles. Engines whose layers are short do not call it.
  std::function<void(size_t, size_t, double)> layerProgress;
  /// The host and link that the layers no unit of the engine runs are charged to.
  HostModel host;
  /// Seeded synthetic activations: each array layer given a density reads an input of exactly
  /// that density (rounded to whole elements) instead of its producer's output, and is verified
  /// on it; only engines whose timing depends on the data take them
  /// (Engine::takesActivationDensities), the others refuse.
  LayerDensities activationDensities;

  /// engineOptions[name], or \p fallback when it was not given.
  int64_t engineOption(const std::string& name, int64_t fallback) const;
};

/// What `compile` writes for an engine with program files.
struct ProgramOptions {
  DType dtype = DType::I8;
  bool baseline = false; ///< compile the patents' baselines instead
};

/// One row group of `nnaccel arch list`: the engine's own columns, one row per preset.
struct PresetSummary {
  std::vector<std::string> columns;
  std::vector<std::vector<std::string>> rows;
};

/// One knob of an engine's section in a compare budget (docs/Compare.md): how the engine's
/// config is derived from the budget's figures.
struct BudgetKnob {
  enum class Kind {
    Preset,   ///< the engine's preset the budget reshapes (text, one of presetNames())
    Positive, ///< a real > 0
    Share,    ///< a fraction in (0, 1)
  };
  std::string key;
  Kind kind = Kind::Positive;
  std::string text; ///< Preset
  double real = 0;  ///< Positive, Share
  std::string comment;

  bool operator==(const BudgetKnob&) const = default;
};

/// The engine-neutral figures of a compare budget.
struct BudgetFigures {
  std::string name;
  std::string file = "<budget>"; ///< where it came from (error messages)
  int64_t multipliers = 0;
  int64_t sramBytes = 0;
  double clockMhz = 0;
  double dramBytesPerCycle = 0;
};

/// One option of an engine's study: a comma-separated list of numbers (`--densities 0.1,0.5`),
/// a file path (`--weight-densities w.json`) or one of a few words (`--axis weights`).
struct StudyOption {
  enum class Kind {
    Numbers, ///< a list of numbers (integers, min, max, minExclusive) in StudyArgs::values
    File,    ///< a path, in StudyArgs::texts (the study reads it and names it in its errors)
    Choice,  ///< one of choices, in StudyArgs::texts
  };
  std::string name; ///< without dashes
  std::string help;
  bool integers = false; ///< each value an integer (else a real)
  double min = 0, max = 0;
  bool minExclusive = false; ///< values must be > min (else >= min)
  Kind kind = Kind::Numbers;
  std::vector<std::string> choices; ///< Kind::Choice: the words it takes

  static StudyOption file(std::string name, std::string help) {
    StudyOption o;
    o.name = std::move(name);
    o.help = std::move(help);
    o.kind = Kind::File;
    return o;
  }
  static StudyOption choice(std::string name, std::string help, std::vector<std::string> words) {
    StudyOption o;
    o.name = std::move(name);
    o.help = std::move(help);
    o.kind = Kind::Choice;
    o.choices = std::move(words);
    return o;
  }
};

/// What a study is given: its options' values (absent when not given: the study's default) and
/// a progress line printer.
struct StudyArgs {
  std::map<std::string, std::vector<double>> values; ///< Kind::Numbers options
  std::map<std::string, std::string> texts;          ///< Kind::File and Kind::Choice options
  std::function<void(const std::string&)> progress;
};

/// What a study prints, its CSV (written by the CLI with --csv), and, when some point did not
/// verify, the one-line failure reported after both are written.
struct StudyResult {
  std::string text;
  std::string csv;
  std::string failure;
};

/// An engine-specific design-space study, `nnaccel sweep NAME MODEL --arch ENGINE`: e.g. the
/// sparse engine's weight/activation density sweep. Throws Error (Usage) for option values the
/// study cannot take.
struct Study {
  std::string name;        ///< the `sweep` subcommand
  std::string description; ///< its one-line help
  std::vector<StudyOption> options;
  std::function<StudyResult(const ir::Graph&, const EngineConfig&, const StudyArgs&)> run;
};

/// `nnaccel arch cost`: an engine config priced through the technology model (docs/Technology.md)
/// in the spirit of Accelergy's ART and ERT: what the machine is built from, and what each
/// event the simulator counts costs.
struct CostTable {
  std::string node; ///< "7nm"
  double vddV = 0;
  struct Component {
    std::string name, group, what; ///< "pe_multiplier", "pe_array", "int_multiplier 8b"
    int64_t count = 0;
    double actionPj = 0, writePj = 0; ///< one instance's action (or read) and write
    double areaUm2 = 0;               ///< one instance
    double leakageW = 0;              ///< one instance
    std::string source;
  };
  std::vector<Component> components;
  struct Event {
    std::string key; ///< the config key under `energy:` ("mac_int8_pj")
    double pj = 0;
    std::string basis; ///< "pe_multiplier + pe_adder", or "configured"
  };
  std::vector<Event> events;

  double areaMm2() const;
  double leakageW() const;
  /// Peak power at \p clockMhz: the leakage and every component acting once per cycle (an
  /// upper bound, as a thermal design power is; docs/Compare.md).
  double peakPowerW(double clockMhz) const;
};

/// Whether an engine runs a layer, and why not when it does not.
struct LayerCoverage {
  std::string layer, op;
  bool onEngine = true;
  std::string reason; ///< why it falls back to the host ("" when onEngine)
};

/// The contract every engine implements (see EngineFor in TypedEngine.h for the typed half).
class Engine {
public:
  virtual ~Engine() = default;

  /// The registered name: "systolic".
  virtual const std::string& name() const = 0;
  /// One line: "weight-stationary systolic array".
  virtual std::string description() const = 0;
  /// Where a listing puts it (lower first; ties by name).
  virtual int listOrder() const = 0;

  // --- configs, through the engine's own schema -------------------------------------------
  virtual std::vector<std::string> presetNames() const = 0;
  virtual std::string defaultPreset() const = 0;
  /// Throws Error (Usage) listing the presets for an unknown name.
  virtual EngineConfig preset(const std::string& name) const = 0;
  /// Throws Error (Io, Config) naming the file.
  virtual EngineConfig loadFile(const std::string& path) const = 0;
  /// \p yamlText parsed over \p base; errors name \p origin and the key.
  virtual EngineConfig parseOver(const EngineConfig& base, const std::string& yamlText,
                                 const std::string& origin) const = 0;
  virtual std::string toYaml(const EngineConfig& config) const = 0;
  virtual Resources resources(const EngineConfig& config) const = 0;
  /// `arch list`: the presets in the engine's own columns.
  virtual PresetSummary presetSummary() const = 0;

  /// Settings that \p given implies on \p base, applied before \p given (which wins): naming a
  /// DRAM standard in place of a custom part makes the part's numbers `auto` unless \p given
  /// sets them too (applyOverrides).
  virtual std::vector<Override> impliedOverrides(const EngineConfig& /*base*/,
                                                 const std::vector<Override>& /*given*/) const {
    return {};
  }

  // --- compare budgets ---------------------------------------------------------------------
  /// The knobs of the engine's budget section with their defaults.
  virtual std::vector<BudgetKnob> budgetKnobs() const = 0;
  /// The engine's config under \p figures with \p knobs. Throws Error (Config) naming
  /// figures.file and the engine when the budget cannot be arranged as this engine
  /// (refuseBudget, deriveFromPreset in TypedEngine.h).
  virtual EngineConfig deriveFromBudget(const BudgetFigures& figures,
                                        const std::vector<BudgetKnob>& knobs) const = 0;
  /// The multipliers come in units of this many (a PE, a column, a chip): an area or power
  /// budget searches whole units.
  virtual int64_t budgetMultiplierUnit(const std::vector<BudgetKnob>& /*knobs*/) const { return 1; }

  // --- running -----------------------------------------------------------------------------
  /// Options the engine adds to `simulate` (and `map`).
  virtual std::vector<OptionSpec> runOptions() const { return {}; }
  /// The baseline the patent improves on, as `simulate --baseline` adds it ("" when none).
  virtual std::string baselineDescription() const { return ""; }
  /// Why the engine has no fp32 path ("computes on integers ..."), or "" when it has one.
  virtual std::string fp32Unavailable() const = 0;
  /// Compiles \p g (shape-inferred, passes applied) for \p config, simulates and verifies it,
  /// and returns the common report with its machine description (describeMachine), every host
  /// layer charged by options.host (chargeHostLayers: nothing in a total is free). Throws
  /// Error when the model cannot be compiled for the machine; a verification failure is in
  /// report.verdict.
  report::RunReport simulate(const ir::Graph& g, const EngineConfig& config,
                             const RunOptions& options) const;
  /// Per layer of \p g as the engine lowers it: on the engine, or why it falls back.
  virtual std::vector<LayerCoverage> coverage(const ir::Graph& g,
                                              const EngineConfig& config) const = 0;

  // --- optional capabilities ---------------------------------------------------------------
  /// True when the engine writes program files (`compile`, `disasm`, `simulate --program`).
  virtual bool hasProgramFiles() const { return false; }
  /// Compiles \p g into the program file \p path; returns the one-paragraph summary printed.
  virtual std::string writeProgram(const ir::Graph& g, const EngineConfig& config,
                                   const ProgramOptions& options, const std::string& path) const;
  /// The program file at \p path, one instruction per line.
  virtual std::string disassemble(const std::string& path) const;
  /// True when the engine runs synthetic activations of given densities
  /// (RunOptions::activationDensities); simulate() refuses them otherwise.
  virtual bool takesActivationDensities() const { return false; }
  /// The engine's studies (`sweep NAME`); none by default.
  virtual std::vector<Study> studies() const { return {}; }
  /// The config priced through the technology model, or nullopt for an engine that still prices
  /// its events with its own table (issue 21).
  virtual std::optional<CostTable> costTable(const EngineConfig&) const { return std::nullopt; }
  /// True when the engine places a model on fixed resources (`map`).
  virtual bool hasPlacement() const { return false; }
  /// The placement of \p g as a readable table.
  virtual std::string placement(const ir::Graph& g, const EngineConfig& config,
                                const RunOptions& options) const;

protected:
  /// The engine's run behind simulate(): compile, simulate, verify, and fill the common report
  /// (host layers with their LayerStats::hostBytes; simulate() charges them).
  virtual report::RunReport compileAndSimulate(const ir::Graph& g, const EngineConfig& config,
                                               const RunOptions& options) const = 0;
};

// --- the registry ----------------------------------------------------------------------------

/// Adds \p engine; asserts its name is new. Engines call it through NNACCEL_REGISTER_ENGINE.
void registerEngine(std::unique_ptr<Engine> engine);
/// Every registered engine, by listOrder() then name.
std::vector<const Engine*> allEngines();
/// The engine named \p name; throws Error (Usage) listing the engines for an unknown one.
const Engine& engineNamed(const std::string& name);
/// The registered engines' names, in allEngines() order.
std::vector<std::string> engineNames();
/// True when \p name is a registered engine.
bool isEngine(const std::string& name);
/// The registered engines that declare the option \p optionName.
std::vector<std::string> enginesWithOption(const std::string& optionName);

/// Registers an engine from its own translation unit at static-initialization time; use it in
/// the engine's namespace after the class. The translation unit must be linked whole (the
/// engine's CMake uses nnaccel_register_engine).
#define NNACCEL_REGISTER_ENGINE(EngineType)                                                        \
  namespace {                                                                                      \
  const bool kRegistered##EngineType = [] {                                                        \
    ::nnaccel::engines::registerEngine(std::make_unique<EngineType>());                            \
    return true;                                                                                   \
  }();                                                                                             \
  }

// --- operations on configs (through the owning engine) ----------------------------------------

/// The preset used when none is named.
std::string defaultPreset(const std::string& engine);
/// The shipped presets of \p engine.
std::vector<std::string> presetNames(const std::string& engine);
/// \p engine's preset \p name (empty: defaultPreset). Throws Error (Usage) for an unknown engine
/// or preset.
EngineConfig loadPreset(const std::string& engine, const std::string& name = "");
/// \p engine's config file at \p path. Throws Error (Io, Config) naming the file.
EngineConfig loadConfigFile(const std::string& engine, const std::string& path);

/// Parses "array.rows=64". Throws Error (Usage) naming \p text when there is no '=', or the key
/// or value is empty.
Override parseOverride(const std::string& text);
/// \p base with \p overrides applied through the engine's schema: an unknown key, a wrong type
/// or an impossible value throws Error (Config) naming \p origin (e.g. "--param") and the key.
/// The name stays \p base's unless an override sets `name`.
EngineConfig applyOverrides(const EngineConfig& base, const std::vector<Override>& overrides,
                            const std::string& origin);

/// \p engine's config as a user names it: the file \p path when non-empty, else the preset
/// \p preset (empty: the engine's default), with \p overrides applied (applyOverrides, errors
/// naming \p origin). What `--preset/--config/--set` and the Python package's
/// preset/config/overrides arguments resolve to.
EngineConfig loadConfig(const std::string& engine, const std::string& preset,
                        const std::string& path, const std::vector<Override>& overrides,
                        const std::string& origin);
/// \p config's resources; how each engine's keys count is documented in docs/Compare.md.
Resources resources(const EngineConfig& config);

/// Fills \p r's machine description from \p config: the roofline's peak multiplies per cycle
/// and DRAM bandwidth (resources()) and the effective config as YAML.
void describeMachine(report::RunReport& r, const EngineConfig& config);

/// config.implementation().simulate(g, config, options) (host layers charged).
report::RunReport simulate(const ir::Graph& g, const EngineConfig& config,
                           const RunOptions& options);

} // namespace nnaccel::engines
