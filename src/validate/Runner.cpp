/// \file
/// Running a validation: each run's model is loaded (a zoo name, an .onnx file or the
/// definition's one-layer model), pruned to the run's weight densities, simulated on the named
/// engine through the registry exactly as `simulate` would, and every row's measured figure is
/// read from the runs' report JSON by path. Nothing here knows an engine: the definitions name
/// them, the registry runs them.
#include "nnaccel/driver/ModelLoader.h"
#include "nnaccel/engines/Engine.h"
#include "nnaccel/ir/Graph.h"
#include "nnaccel/passes/Prune.h"
#include "nnaccel/support/Error.h"
#include "nnaccel/support/Rng.h"
#include "nnaccel/validate/Validation.h"

#include <cmath>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <optional>

namespace nnaccel::validate {
namespace {

/// Weights of magnitude in [0.25, 0.5) with random signs: none is zero, none quantizes to zero.
Tensor layerWeights(Rng& rng, Dims shape) {
  std::vector<float> v(static_cast<size_t>(numElements(shape)));
  for (float& x : v) {
    const float magnitude = rng.uniform(0.25f, 0.5f);
    x = (rng.nextU64() & 1) != 0 ? -magnitude : magnitude;
  }
  return Tensor::fromVector<float>(std::move(shape), v);
}

ir::Graph buildLayer(const LayerModel& m, const std::string& name) {
  const bool transposed = m.op == "ConvTranspose";
  Rng rng(m.seed);
  ir::Graph g;
  g.name = name;
  g.opsetVersion = 13;
  const ir::ValueId x = g.addValue("x", DType::F32, Dims(m.input.begin(), m.input.end()));
  const int64_t channels = m.input[1];
  const Dims wShape = transposed
                          ? Dims{channels, m.outChannels / m.group, m.kernel[0], m.kernel[1]}
                          : Dims{m.outChannels, channels / m.group, m.kernel[0], m.kernel[1]};
  ir::Node n;
  n.op = transposed ? ir::OpKind::ConvTranspose : ir::OpKind::Conv;
  n.name = m.name;
  n.opset = 13;
  n.inputs = {x, g.addConstant("w", layerWeights(rng, wShape))};
  n.attrs.set("kernel_shape", m.kernel);
  n.attrs.set("strides", m.strides);
  n.attrs.set("pads", m.pads);
  n.attrs.set("dilations", m.dilations);
  n.attrs.set("group", m.group);
  const ir::ValueId y = g.addValue("y", DType::F32);
  n.outputs = {y};
  g.addNode(std::move(n));
  g.inputs = {x};
  g.outputs = {y};
  return g;
}

/// The run's model as loaded or built, before pruning.
ir::Graph buildRunModel(const RunSpec& s, const Validation& v) {
  if (s.layer) {
    ir::Graph g = buildLayer(*s.layer, v.name + "/" + s.name);
    try {
      driver::prepareGraph(g);
    } catch (const Error& e) {
      throw e.withContext(ErrorContext{.file = v.file, .key = "runs." + s.name + ".layer"});
    }
    return g;
  }
  driver::LoadOptions load;
  load.import.defaultSymbolicDim = s.batch;
  load.import.batchGiven = s.batch != 1;
  return driver::loadModel(s.model, load);
}

/// The run's model, its weights pruned to the run's densities.
ir::Graph loadRunModel(const RunSpec& s, const Validation& v) {
  const std::string& validation = v.file;
  ir::Graph g = buildRunModel(s, v);
  if (!s.weightDensities.empty()) {
    passes::PruneSpec prune;
    for (const auto& [layer, d] : s.weightDensities) {
      if (layer == "*")
        prune.density = d;
      else
        prune.perLayer[layer] = d;
    }
    prune.source = validation;
    passes::magnitudePrune(g, prune);
  }
  return g;
}

engines::RunOptions runOptions(const RunSpec& s, int threads) {
  engines::RunOptions o;
  o.verify = s.verify;
  o.baselineRows = s.baseline;
  o.threads = threads;
  o.engineOptions = s.options;
  for (const auto& [layer, d] : s.activationDensities) {
    if (layer == "*")
      o.activationDensities.density = d;
    else
      o.activationDensities.perLayer[layer] = d;
  }
  return o;
}

report::RunReport simulateRun(const RunSpec& s, const Validation& v,
                              const ValidateOptions& validate) {
  std::vector<engines::Override> overrides;
  for (const auto& [key, value] : s.set)
    overrides.push_back(engines::Override{key, value});
  for (const auto& [key, value] : validate.overrides)
    overrides.push_back(engines::Override{key, value});
  const engines::EngineConfig config =
      engines::loadConfig(s.arch, s.preset, "", overrides, v.file + " runs." + s.name);
  const ir::Graph g = loadRunModel(s, v);
  engines::RunOptions options = runOptions(s, validate.threads);
  options.activationDensities.source = v.file;
  return engines::simulate(g, config, options);
}

/// \p spec with the fields \p reduced gives replaced.
RunSpec reducedRun(const RunSpec& spec, const std::vector<RunSpec>& reduced) {
  for (const RunSpec& r : reduced)
    if (r.name == spec.name)
      return r;
  return spec;
}

/// The numbers \p node holds at \p rest (a dotted path), summed over layer selections.
double valueAt(const nlohmann::json& node, const std::string& rest, const std::string& path);

/// \p text matches \p pattern, where a final '*' matches any rest.
bool matches(const std::string& text, const std::string& pattern) {
  if (!pattern.empty() && pattern.back() == '*')
    return text.rfind(pattern.substr(0, pattern.size() - 1), 0) == 0;
  return text == pattern;
}

/// Layer \p l passes every comma-separated condition of \p selector: "*", "op=Conv" (Conv,
/// alone or with a fused activation, "Conv+Relu"), "name=inception_3a/*", or a bare layer name.
/// (A baseline row's name is its `layer`.)
bool selects(const nlohmann::json& l, const std::string& selector, const char* nameKey) {
  size_t begin = 0;
  while (begin <= selector.size()) {
    const size_t end = std::min(selector.find(',', begin), selector.size());
    const std::string cond = selector.substr(begin, end - begin);
    const std::string op = l.value("op", ""), name = l.value(nameKey, "");
    bool ok = cond == "*";
    if (cond.rfind("op=", 0) == 0)
      ok = op == cond.substr(3) || op.rfind(cond.substr(3) + "+", 0) == 0;
    else if (cond.rfind("name=", 0) == 0)
      ok = matches(name, cond.substr(5));
    else if (cond != "*")
      ok = name == cond;
    if (!ok)
      return false;
    begin = end + 1;
  }
  return true;
}

double layersValue(const nlohmann::json& layers, const std::string& selector, const char* nameKey,
                   const std::string& rest, const std::string& path) {
  // A figure some selected layers lack (a count only array layers record) adds nothing from
  // them; when no selected layer has it, the path is wrong and says so.
  double sum = 0;
  bool any = false, anyValue = false;
  std::optional<Error> lastMissing;
  for (const nlohmann::json& l : layers) {
    if (!selects(l, selector, nameKey))
      continue;
    any = true;
    try {
      sum += valueAt(l, rest, path);
      anyValue = true;
    } catch (const Error& e) {
      lastMissing = e;
    }
  }
  if (!any)
    throw Error(ErrorKind::Config, {.key = path},
                fmt::format("no layer of the run's report matches '{}'", selector));
  if (!anyValue)
    throw *lastMissing;
  return sum;
}

double valueAt(const nlohmann::json& node, const std::string& rest, const std::string& path) {
  if (rest.empty()) {
    if (!node.is_number())
      throw Error(ErrorKind::Config, {.key = path}, "names no number in the run's report");
    return node.get<double>();
  }
  // "layer[NAME]", "layers[SELECTOR]" and "baseline[SELECTOR]" (the --baseline rows, by their
  // layer) hold names with dots: read up to the bracket.
  for (const char* prefix : {"layer[", "layers[", "baseline["}) {
    const std::string p = prefix;
    if (rest.rfind(p, 0) == 0) {
      const bool baseline = p == "baseline[";
      const auto close = rest.find(']');
      if (close == std::string::npos)
        throw Error(ErrorKind::Config, {.key = path}, "unclosed '['");
      const std::string selector = rest.substr(p.size(), close - p.size());
      std::string after = rest.substr(close + 1);
      if (!after.empty() && after[0] == '.')
        after.erase(0, 1);
      const char* array = baseline ? "baseline" : "layers";
      if (!node.contains(array))
        throw Error(ErrorKind::Config, {.key = path},
                    fmt::format("'{}' is not in the run's report", array));
      return layersValue(node.at(array), selector, baseline ? "layer" : "name", after, path);
    }
  }
  const auto dot = rest.find('.');
  const std::string key = rest.substr(0, dot);
  if (!node.is_object() || !node.contains(key)) {
    throw Error(ErrorKind::Config, {.key = path},
                fmt::format("'{}' is not in the run's report", key));
  }
  return valueAt(node.at(key), dot == std::string::npos ? "" : rest.substr(dot + 1), path);
}

bool claimHolds(const std::string& text, double v) {
  const std::optional<Claim> c = parseClaim(text);
  NNACCEL_ASSERT(c.has_value()) << "claim '" << text << "' (checked when parsed)";
  if (c->op == ">")
    return v > c->value;
  if (c->op == "<")
    return v < c->value;
  if (c->op == ">=")
    return v >= c->value;
  if (c->op == "<=")
    return v <= c->value;
  return v == c->value;
}

/// \p path ("total.cycles") in the report of the run named \p run.
double measureIn(const std::string& run, const std::string& path, const ValidationResult& r) {
  for (const RunResult& rr : r.runs)
    if (rr.spec.name == run) {
      try {
        return reportValue(rr.report.toJson(), path);
      } catch (const Error& e) {
        throw e.withContext(ErrorContext{.file = r.validation->file, .key = run + ":" + path});
      }
    }
  NNACCEL_ASSERT(false) << "row path '" << path << "' names no run (checked when parsed)";
  return 0;
}

/// "RUN:PATH" in that run's report.
double measure(const std::string& path, const ValidationResult& r) {
  const auto colon = path.find(':');
  return measureIn(path.substr(0, colon), path.substr(colon + 1), r);
}

double ratioOf(double num, double den) {
  return den != 0 ? num / den : std::nan("");
}

/// Where the ratio \p m.path / \p m.denominator crosses 1 along m.runs (at m.x).
double crossingOf(const Measure& m, const ValidationResult& r) {
  std::vector<double> ratios;
  for (const std::string& run : m.runs)
    ratios.push_back(ratioOf(measureIn(run, m.path, r), measureIn(run, m.denominator, r)));
  for (size_t i = 0; i + 1 < ratios.size(); ++i) {
    const double a = ratios[i] - 1, b = ratios[i + 1] - 1;
    if (a == 0)
      return m.x[i];
    if ((a < 0) != (b < 0) && b != 0)
      return m.x[i] + (m.x[i + 1] - m.x[i]) * a / (a - b);
    if (b == 0)
      return m.x[i + 1];
  }
  return std::nan("");
}

double measureRow(const Measure& m, const ValidationResult& r) {
  if (m.crossing())
    return crossingOf(m, r);
  const double v = measure(m.path, r);
  return m.denominator.empty() ? v : ratioOf(v, measure(m.denominator, r));
}

} // namespace

double reportValue(const std::string& reportJson, const std::string& path) {
  return valueAt(nlohmann::json::parse(reportJson), path, path);
}

bool ValidationResult::verified() const {
  for (const RunResult& r : runs)
    if (r.spec.verify && !(r.report.verdict.checked && r.report.verdict.passed))
      return false;
  return true;
}

int ValidationResult::agreeing() const {
  int n = 0;
  for (const RowResult& r : rows)
    n += r.agrees ? 1 : 0;
  return n;
}

int ValidationResult::measured() const {
  int n = 0;
  for (const RowResult& r : rows)
    n += r.skipped ? 0 : 1;
  return n;
}

namespace {

/// Row \p spec measured from \p r's runs (skipped when it is full-size only and \p size is
/// reduced), with its ratio to the published figure and whether it agrees.
RowResult scoreRow(const RowSpec& spec, const ValidationResult& r, Size size) {
  RowResult row;
  row.spec = spec;
  if (spec.fullOnly && size == Size::Reduced) {
    row.skipped = true;
    row.measured = std::nan("");
    return row;
  }
  row.measured = measureRow(spec.measure, r);
  if (!spec.published) {
    row.agrees = claimHolds(spec.claim, row.measured);
    return row;
  }
  row.ratio = *spec.published != 0 ? row.measured / *spec.published : std::nan("");
  // A published 0 has no ratio: the tolerance is then absolute.
  row.agrees = *spec.published == 0 ? std::abs(row.measured) <= spec.tolerance
                                    : std::isfinite(*row.ratio) &&
                                          std::abs(*row.ratio - 1.0) <= spec.tolerance + 1e-12;
  return row;
}

} // namespace

ValidationResult runValidation(const Validation& v, const ValidateOptions& options) {
  ValidationResult r;
  r.validation = &v;
  r.size = options.size;
  for (size_t i = 0; i < v.runs.size(); ++i) {
    const RunSpec s =
        options.size == Size::Reduced ? reducedRun(v.runs[i], v.reducedRuns) : v.runs[i];
    if (options.progress)
      options.progress(fmt::format("run {}/{}: {} ({} on {}{})", i + 1, v.runs.size(), s.name,
                                   s.layer ? "a one-layer model" : s.model, s.arch,
                                   s.preset.empty() ? "" : " '" + s.preset + "'"));
    try {
      r.runs.push_back(RunResult{s, simulateRun(s, v, options)});
    } catch (const Error& e) {
      // An error that names its file (a config key of this run, a model file) says where it is;
      // one that does not gets the validation and the run.
      if (!e.context().file.empty())
        throw;
      throw Error(e.kind(), ErrorContext{.file = v.file, .key = "runs." + s.name}, e.what());
    }
  }
  for (const RowSpec& spec : v.rows)
    r.rows.push_back(scoreRow(spec, r, options.size));
  return r;
}

} // namespace nnaccel::validate
