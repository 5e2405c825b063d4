/// \file
/// Reading validation definitions (validations/*.yaml): the schema of docs/Validation.md,
/// checked key by key so that a typo in a definition is a one-line error naming the file and the
/// dotted key, never a row silently measuring nothing. The built-in definitions are embedded in
/// the binary (src/validate/CMakeLists.txt) and parsed once.
#include "nnaccel/config/ConfigReader.h"
#include "nnaccel/support/Error.h"
#include "nnaccel/support/ReadFile.h"
#include "nnaccel/support/Suggest.h"
#include "nnaccel/validate/Validation.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <set>
#include <yaml-cpp/yaml.h>

namespace nnaccel::validate {
namespace detail {
std::span<const config::EmbeddedConfig> definitionFiles();
} // namespace detail

namespace {

/// The current file and key path, and the checks every key shares.
class Reader {
public:
  explicit Reader(std::string file) : file_(std::move(file)) {}

  [[noreturn]] void fail(const std::string& key, const std::string& reason) const {
    throw Error(ErrorKind::Config, ErrorContext{.file = file_, .key = key}, reason);
  }

  /// Rejects keys of \p node outside \p known.
  void onlyKeys(const YAML::Node& node, const std::string& at,
                std::initializer_list<const char*> known) const {
    if (!node.IsMap())
      fail(at, "expected a mapping");
    for (const auto& entry : node) {
      const std::string key = entry.first.as<std::string>();
      if (std::none_of(known.begin(), known.end(), [&](const char* k) { return key == k; }))
        fail(join(at, key), "unknown key");
    }
  }

  std::string text(const YAML::Node& node, const std::string& key, bool required) const {
    if (!node || node.IsNull()) {
      if (required)
        fail(key, "missing");
      return "";
    }
    if (!node.IsScalar())
      fail(key, "expected a string");
    return node.as<std::string>();
  }

  double real(const YAML::Node& node, const std::string& key) const {
    double v = 0;
    if (!node.IsScalar() || !YAML::convert<double>::decode(node, v) || !std::isfinite(v))
      fail(key, fmt::format("expected a number, got '{}'", node.IsScalar() ? node.Scalar() : ""));
    return v;
  }

  int64_t integer(const YAML::Node& node, const std::string& key, int64_t min) const {
    int64_t v = 0;
    if (!node.IsScalar() || !YAML::convert<int64_t>::decode(node, v))
      fail(key, fmt::format("expected an integer, got '{}'", node.IsScalar() ? node.Scalar() : ""));
    if (v < min)
      fail(key, fmt::format("must be >= {} (got {})", min, v));
    return v;
  }

  std::vector<int64_t> integers(const YAML::Node& node, const std::string& key, size_t count,
                                int64_t min) const {
    if (!node.IsSequence() || node.size() != count)
      fail(key, fmt::format("expected a list of {} integers", count));
    std::vector<int64_t> out;
    for (size_t i = 0; i < count; ++i)
      out.push_back(integer(node[i], fmt::format("{}[{}]", key, i), min));
    return out;
  }

  static std::string join(const std::string& at, const std::string& key) {
    return at.empty() ? key : at + "." + key;
  }

private:
  std::string file_;
};

LayerModel readLayer(const Reader& r, const YAML::Node& n, const std::string& at) {
  r.onlyKeys(n, at,
             {"op", "name", "input", "out_channels", "kernel", "strides", "pads", "dilations",
              "group", "seed"});
  LayerModel m;
  m.op = r.text(n["op"], at + ".op", true);
  if (m.op != "Conv" && m.op != "ConvTranspose")
    r.fail(at + ".op", fmt::format("expected Conv or ConvTranspose, got '{}'", m.op));
  if (n["name"])
    m.name = r.text(n["name"], at + ".name", true);
  m.input = r.integers(n["input"], at + ".input", 4, 1);
  m.outChannels = r.integer(n["out_channels"], at + ".out_channels", 1);
  m.kernel = r.integers(n["kernel"], at + ".kernel", 2, 1);
  m.strides =
      n["strides"] ? r.integers(n["strides"], at + ".strides", 2, 1) : std::vector<int64_t>{1, 1};
  m.pads = n["pads"] ? r.integers(n["pads"], at + ".pads", 4, 0) : std::vector<int64_t>(4, 0);
  m.dilations = n["dilations"] ? r.integers(n["dilations"], at + ".dilations", 2, 1)
                               : std::vector<int64_t>{1, 1};
  if (n["group"])
    m.group = r.integer(n["group"], at + ".group", 1);
  if (n["seed"])
    m.seed = static_cast<uint64_t>(r.integer(n["seed"], at + ".seed", 0));
  return m;
}

std::map<std::string, double> readDensities(const Reader& r, const YAML::Node& n,
                                            const std::string& at) {
  if (!n.IsMap())
    r.fail(at, "expected a mapping of layer name to density (\"*\" for the other layers)");
  std::map<std::string, double> out;
  for (const auto& entry : n) {
    const std::string layer = entry.first.as<std::string>();
    const std::string key = at + "." + layer;
    const double d = r.real(entry.second, key);
    if (!(d > 0.0 && d <= 1.0))
      r.fail(key, fmt::format("a density must lie in (0, 1], got {}", d));
    out[layer] = d;
  }
  return out;
}

/// One run; \p reduced allows a partial run (only the keys it replaces).
RunSpec readRun(const Reader& r, const std::string& name, const YAML::Node& n,
                const std::string& at) {
  r.onlyKeys(n, at,
             {"model", "layer", "arch", "preset", "set", "batch", "baseline", "verify", "options",
              "weight_densities", "activation_densities"});
  RunSpec s;
  s.name = name;
  s.model = r.text(n["model"], at + ".model", false);
  if (n["layer"])
    s.layer = readLayer(r, n["layer"], at + ".layer");
  if (s.model.empty() == !s.layer.has_value())
    r.fail(at, "give exactly one of 'model' and 'layer'");
  s.arch = r.text(n["arch"], at + ".arch", true);
  s.preset = r.text(n["preset"], at + ".preset", false);
  if (const YAML::Node set = n["set"]) {
    if (!set.IsMap())
      r.fail(at + ".set", "expected a mapping of config key to value");
    for (const auto& entry : set)
      s.set.emplace_back(entry.first.as<std::string>(),
                         r.text(entry.second, at + ".set." + entry.first.as<std::string>(), true));
  }
  if (n["batch"])
    s.batch = r.integer(n["batch"], at + ".batch", 1);
  if (n["baseline"])
    s.baseline = r.integer(n["baseline"], at + ".baseline", 0) != 0;
  if (n["verify"])
    s.verify = r.integer(n["verify"], at + ".verify", 0) != 0;
  if (const YAML::Node opts = n["options"]) {
    if (!opts.IsMap())
      r.fail(at + ".options", "expected a mapping of run option to integer");
    for (const auto& entry : opts) {
      const std::string key = entry.first.as<std::string>();
      s.options[key] = r.integer(entry.second, at + ".options." + key, 0);
    }
  }
  if (n["weight_densities"])
    s.weightDensities = readDensities(r, n["weight_densities"], at + ".weight_densities");
  if (n["activation_densities"])
    s.activationDensities =
        readDensities(r, n["activation_densities"], at + ".activation_densities");
  return s;
}

Measure readCrossing(const Reader& r, const YAML::Node& n, const std::string& at) {
  r.onlyKeys(n, at, {"x", "runs", "ratio"});
  Measure m;
  const YAML::Node x = n["x"], runs = n["runs"], ratio = n["ratio"];
  if (!x.IsSequence() || !runs.IsSequence() || x.size() != runs.size() || x.size() < 2)
    r.fail(at, "expected 'x' and 'runs': two lists of the same length, at least 2");
  for (size_t i = 0; i < x.size(); ++i) {
    m.x.push_back(r.real(x[i], fmt::format("{}.x[{}]", at, i)));
    if (i > 0 && !(m.x[i] > m.x[i - 1]))
      r.fail(fmt::format("{}.x[{}]", at, i), "x must ascend");
    m.runs.push_back(r.text(runs[i], fmt::format("{}.runs[{}]", at, i), true));
  }
  if (!ratio.IsSequence() || ratio.size() != 2)
    r.fail(at + ".ratio", "expected [NUMERATOR, DENOMINATOR], two report paths without RUN:");
  m.path = r.text(ratio[0], at + ".ratio[0]", true);
  m.denominator = r.text(ratio[1], at + ".ratio[1]", true);
  return m;
}

Measure readMeasure(const Reader& r, const YAML::Node& n, const std::string& at) {
  if (n.IsScalar())
    return Measure{n.as<std::string>(), "", {}, {}};
  if (n["crossing"]) {
    r.onlyKeys(n, at, {"crossing"});
    return readCrossing(r, n["crossing"], at + ".crossing");
  }
  r.onlyKeys(n, at, {"ratio"});
  const YAML::Node ratio = n["ratio"];
  if (!ratio.IsSequence() || ratio.size() != 2)
    r.fail(at + ".ratio", "expected [NUMERATOR, DENOMINATOR], two report paths");
  return Measure{
      r.text(ratio[0], at + ".ratio[0]", true), r.text(ratio[1], at + ".ratio[1]", true), {}, {}};
}

RowSpec readRow(const Reader& r, const YAML::Node& n, const std::string& at) {
  r.onlyKeys(n, at,
             {"name", "measured", "published", "claim", "unit", "source", "tolerance", "note",
              "full_only"});
  RowSpec row;
  row.name = r.text(n["name"], at + ".name", true);
  if (!n["measured"])
    r.fail(at + ".measured", "missing");
  row.measure = readMeasure(r, n["measured"], at + ".measured");
  if (n["published"])
    row.published = r.real(n["published"], at + ".published");
  row.claim = r.text(n["claim"], at + ".claim", false);
  if (row.published.has_value() == !row.claim.empty())
    r.fail(at, "give exactly one of 'published' (a number) and 'claim' (what the source states "
               "without a number)");
  if (!row.claim.empty() && !parseClaim(row.claim))
    r.fail(at + ".claim", fmt::format("expected a comparison and a number ('> 1', '>= 100', "
                                      "'< 1', '<= 1', '== 1'), got '{}'",
                                      row.claim));
  row.unit = r.text(n["unit"], at + ".unit", true);
  row.source = r.text(n["source"], at + ".source", true);
  if (n["tolerance"]) {
    row.tolerance = r.real(n["tolerance"], at + ".tolerance");
    if (row.tolerance < 0)
      r.fail(at + ".tolerance", "must be >= 0");
  }
  row.note = r.text(n["note"], at + ".note", false);
  if (n["full_only"])
    row.fullOnly = r.integer(n["full_only"], at + ".full_only", 0) != 0;
  return row;
}

/// The run name a path starts with ("scnn:total.cycles" -> "scnn").
std::string runOf(const Reader& r, const std::string& path, const std::string& at) {
  const auto colon = path.find(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == path.size())
    r.fail(at, fmt::format("expected RUN:PATH, got '{}'", path));
  return path.substr(0, colon);
}

void checkReferences(const Reader& r, const Validation& v) {
  std::set<std::string> runs, used;
  for (const RunSpec& s : v.runs)
    runs.insert(s.name);
  for (size_t i = 0; i < v.rows.size(); ++i) {
    const RowSpec& row = v.rows[i];
    const std::string at = fmt::format("rows[{}].measured", i);
    std::vector<std::string> named = row.measure.runs;
    if (!row.measure.crossing())
      for (const std::string& path : {row.measure.path, row.measure.denominator})
        if (!path.empty())
          named.push_back(runOf(r, path, at));
    for (const std::string& run : named) {
      if (!runs.count(run)) {
        const std::vector<std::string> names(runs.begin(), runs.end());
        r.fail(at, fmt::format("no run named '{}'{}", run, didYouMean(run, names)));
      }
      used.insert(run);
    }
  }
  for (const RunSpec& s : v.runs)
    if (!used.count(s.name))
      r.fail("runs." + s.name, "no row measures this run");
  for (const RunSpec& s : v.reducedRuns)
    if (!runs.count(s.name))
      r.fail("reduced." + s.name, "no run of that name to replace");
}

} // namespace

std::optional<Claim> parseClaim(const std::string& text) {
  const auto space = text.find(' ');
  if (space == std::string::npos)
    return std::nullopt;
  static const std::set<std::string> kOps = {">", "<", ">=", "<=", "=="};
  Claim c;
  c.op = text.substr(0, space);
  YAML::Node n = YAML::Load(text.substr(space + 1));
  if (!kOps.count(c.op) || !n.IsScalar() || !YAML::convert<double>::decode(n, c.value) ||
      !std::isfinite(c.value))
    return std::nullopt;
  return c;
}

Validation parseValidation(const std::string& yamlText, const std::string& fileName) {
  const Reader r(fileName);
  YAML::Node doc;
  try {
    doc = YAML::Load(yamlText);
  } catch (const YAML::Exception& e) {
    throw Error(ErrorKind::Config, ErrorContext{.file = fileName},
                fmt::format("not valid YAML: {}", e.what()));
  }
  r.onlyKeys(doc, "", {"name", "title", "description", "runs", "reduced", "rows"});
  Validation v;
  v.file = fileName;
  v.name = r.text(doc["name"], "name", true);
  v.title = r.text(doc["title"], "title", true);
  v.description = r.text(doc["description"], "description", false);
  const YAML::Node runs = doc["runs"];
  if (!runs || !runs.IsMap() || runs.size() == 0)
    r.fail("runs", "expected a mapping of run name to run");
  for (const auto& entry : runs) {
    const std::string name = entry.first.as<std::string>();
    v.runs.push_back(readRun(r, name, entry.second, "runs." + name));
  }
  if (const YAML::Node reduced = doc["reduced"]) {
    if (!reduced.IsMap())
      r.fail("reduced", "expected a mapping of run name to run");
    for (const auto& entry : reduced) {
      const std::string name = entry.first.as<std::string>();
      v.reducedRuns.push_back(readRun(r, name, entry.second, "reduced." + name));
    }
  }
  const YAML::Node rows = doc["rows"];
  if (!rows || !rows.IsSequence() || rows.size() == 0)
    r.fail("rows", "expected a list of rows");
  for (size_t i = 0; i < rows.size(); ++i)
    v.rows.push_back(readRow(r, rows[i], fmt::format("rows[{}]", i)));
  checkReferences(r, v);
  return v;
}

const std::vector<Validation>& builtinValidations() {
  static const std::vector<Validation> all = [] {
    std::vector<Validation> out;
    for (const config::EmbeddedConfig& f : detail::definitionFiles())
      out.push_back(parseValidation(std::string(f.text), std::string(f.fileName)));
    std::sort(out.begin(), out.end(),
              [](const Validation& a, const Validation& b) { return a.name < b.name; });
    return out;
  }();
  return all;
}

Validation readValidationFile(const std::string& path) {
  return parseValidation(readFileCapped(path, kMaxTextFileBytes, "validation file"), path);
}

const Validation& validationNamed(const std::string& name) {
  std::vector<std::string> names;
  for (const Validation& v : builtinValidations()) {
    if (v.name == name)
      return v;
    names.push_back(v.name);
  }
  throw Error(ErrorKind::Usage, {},
              fmt::format("no validation named '{}'{} (see 'nnaccel validate')", name,
                          didYouMean(name, names)));
}

} // namespace nnaccel::validate
