/// \file
/// `nnaccel validate`: published results reproduced as commands. A validation is an experiment
/// definition checked into the repository (`validations/*.yaml`, embedded in the binary): the
/// simulator runs it names (model, engine, preset, overrides, options), and rows pairing a
/// published figure, with its source, with the figure measured from those runs. Running one
/// simulates every run end to end through the engine registry and fills each row with the
/// measured value, its ratio to the published one and whether it lies within the row's tolerance.
///
/// Why data and not code: a reader checks a reproduction against the paper line by line in one
/// file (published value, unit, table or paragraph), and the engines know nothing of it. The
/// measured side of a row is a path into a run's report (the JSON of docs/report-schema.md), so
/// what is compared is exactly what `simulate --report` writes.
#pragma once

#include "nnaccel/report/Report.h"

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace nnaccel::validate {

/// A one-layer model written in the definition (`model: {op: Conv, ...}`): seed-level claims are
/// stated for single layers (an 18-wide row, a 4-wide portion, a stride-2 transposed 3x3).
struct LayerModel {
  std::string op = "Conv";    ///< Conv or ConvTranspose
  std::string name = "layer"; ///< the node's name (rows select layers by name)
  std::vector<int64_t> input; ///< [N, C, H, W]
  int64_t outChannels = 1;
  std::vector<int64_t> kernel;    ///< [kh, kw]
  std::vector<int64_t> strides;   ///< [sh, sw] (default 1, 1)
  std::vector<int64_t> pads;      ///< [top, left, bottom, right] (default 0)
  std::vector<int64_t> dilations; ///< [dh, dw] (default 1, 1)
  int64_t group = 1;
  uint64_t seed = 1; ///< weights: magnitudes in [0.25, 0.5), random signs, none zero
};

/// One simulation a validation needs: a model (zoo name, an .onnx path relative to the
/// repository, or a one-layer model) on one engine configuration.
struct RunSpec {
  std::string name; ///< referred to by rows ("scnn", "fig7")
  std::string model;
  std::optional<LayerModel> layer; ///< instead of model
  std::string arch;
  std::string preset;                                   ///< empty: the engine's default
  std::vector<std::pair<std::string, std::string>> set; ///< config overrides, KEY=VALUE
  int64_t batch = 1;
  bool baseline = false; ///< RunOptions::baselineRows
  bool verify = true;
  std::map<std::string, int64_t> options; ///< the engine's run options by name
  /// Weights magnitude-pruned per layer (layer name -> density) before the run, as `prune
  /// --weight-densities` does; "*" applies to every prunable layer not named.
  std::map<std::string, double> weightDensities;
  /// Seeded synthetic activations per array layer (layer name -> density; "*" for the rest),
  /// as `simulate --activation-densities` does, on engines that take them.
  std::map<std::string, double> activationDensities;
};

/// The measured side of a row: a report path, the ratio of two, or where a ratio crosses 1
/// along a series of runs.
struct Measure {
  std::string path;        ///< "RUN:total.cycles"
  std::string denominator; ///< non-empty: measured = path / denominator
  /// A crossing (break-even): runs[i] was made at x[i] (ascending); the ratio of the paths
  /// `path` / `denominator` (without "RUN:") is read from each, and the measure is the x where
  /// it crosses 1, interpolated linearly between the two runs around it (NaN when the series
  /// does not cross).
  std::vector<double> x;
  std::vector<std::string> runs;
  bool crossing() const { return !runs.empty(); }
};

/// One published figure and how it is measured.
struct RowSpec {
  std::string name;
  Measure measure;
  std::optional<double> published; ///< absent: the source states no number (see claim)
  /// With no published number, what the source states: a comparison and a number ("> 1",
  /// ">= 100", "< 1", "<= 1", "== 1").
  std::string claim;
  std::string unit;   ///< "x", "reads", "cycles"
  std::string source; ///< paper, table or figure, page; or the patent paragraph
  /// Relative, |measured / published - 1| <= tolerance; absolute for a published 0.
  double tolerance = 0.2;
  std::string note; ///< where the figure is known to differ, and why (docs/Validation.md)
  /// Measured at full size only (a per-layer figure of a network the reduced size replaces).
  bool fullOnly = false;
};

struct Validation {
  std::string name;  ///< `nnaccel validate NAME`
  std::string title; ///< one line
  std::string file;  ///< the definition's file name, for messages
  std::string description;
  std::vector<RunSpec> runs;
  /// Replacements for the test suite's reduced size (`--size reduced`): a run of that name
  /// with another model, preset or overrides; rows are unchanged.
  std::vector<RunSpec> reducedRuns;
  std::vector<RowSpec> rows;
};

/// A row's claim: its comparison (">", "<", ">=", "<=", "==") and number.
struct Claim {
  std::string op;
  double value = 0;
};
/// \p text ("> 1", ">= 100") as a claim; nullopt when it is not one.
std::optional<Claim> parseClaim(const std::string& text);

/// Parses one definition; throws Error (Config) naming \p fileName and the key for a missing
/// field, a wrong type, an unknown key, a run no row names or a row naming no run.
Validation parseValidation(const std::string& yamlText, const std::string& fileName);
/// The definitions shipped with nnaccel (validations/*.yaml, embedded), by name.
const std::vector<Validation>& builtinValidations();
/// The built-in validation \p name; throws Error (Usage) listing them for an unknown one.
const Validation& validationNamed(const std::string& name);
/// A definition file of the user's (`nnaccel validate FILE.yaml`); throws Error (Io) when it
/// cannot be read and (Config) as parseValidation does.
Validation readValidationFile(const std::string& path);

enum class Size { Full, Reduced };

struct ValidateOptions {
  Size size = Size::Full;
  /// Progress: one line per run started ("run 2/3: scnn (alexnet on sparse 'scnn')").
  std::function<void(const std::string&)> progress;
  int threads = 1; ///< RunOptions::threads of every run
  /// Config overrides (KEY=VALUE, as `simulate --set`) applied to every run after its own: to
  /// show what one of the design's alternatives does to every figure.
  std::vector<std::pair<std::string, std::string>> overrides;
};

/// One row's outcome.
struct RowResult {
  RowSpec spec;
  double measured = 0;
  /// measured / published (absent without a published figure).
  std::optional<double> ratio;
  /// Within tolerance of the published figure, or the claim holds.
  bool agrees = false;
  bool skipped = false; ///< a full-size row of a reduced run: not measured
};

struct RunResult {
  RunSpec spec;
  report::RunReport report;
};

struct ValidationResult {
  const Validation* validation = nullptr;
  Size size = Size::Full;
  std::vector<RunResult> runs;
  std::vector<RowResult> rows;
  /// Every run verified (those run with verify).
  bool verified() const;
  int agreeing() const;
  int measured() const; ///< rows not skipped
};

/// Runs every run of \p v (the reduced replacements with Size::Reduced) and fills its rows.
/// Throws Error for a run that cannot be simulated (naming the validation and the run) and for a
/// row path that names nothing in its run's report.
ValidationResult runValidation(const Validation& v, const ValidateOptions& options);

/// The value at \p path ("total.cycles", "layer[conv1].counts.activation_reads",
/// "layers[op=Conv].cycles", "energy_per_inference_pj") in a report's JSON. `layers[SELECTOR]`
/// sums over the layers that pass every comma-separated condition of SELECTOR: `op=X` (X alone
/// or with a fused activation, "X+Relu"), `name=PATTERN` (a final '*' matches any rest), or `*`
/// (every layer); `layer[NAME]` is the one layer of that name; `baseline[SELECTOR]` sums over the
/// report's baseline rows (`--baseline`), whose name is their layer. Throws Error (Config) naming
/// \p path when it names no number.
double reportValue(const std::string& reportJson, const std::string& path);

/// The side-by-side table, the runs' one-line summaries and the agreement line.
std::string formatResult(const ValidationResult& r);
/// `--report`: {"validation", "title", "size", "runs": [...], "rows": [{name, published,
/// measured, unit, source, ratio, tolerance, agrees, claim, note}]}.
std::string resultJson(const ValidationResult& r);
/// `validate` with no name: one line per built-in validation.
std::string listText();

} // namespace nnaccel::validate
