/// \file
/// The schema-walking visitors of architecture configs: YAML reading with visited-key tracking,
/// the shared range checks (scalars, integer maps, choice lists), and the YAML writer (see the
/// header for the design).
#include "nnaccel/config/ConfigReader.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fmt/format.h>
#include <optional>
#include <yaml-cpp/yaml.h>

namespace nnaccel::config {

// --- ConfigPath ---------------------------------------------------------------------------------

std::string ConfigPath::path(std::string_view key) const {
  std::string out;
  auto add = [&out](std::string_view part) {
    if (!out.empty()) {
      out.push_back('.');
    }
    out.append(part);
  };
  for (const std::string& s : sections_) {
    add(s);
  }
  if (!key.empty()) {
    add(key);
  }
  return out;
}

void ConfigPath::fail(std::string_view key, const std::string& reason) const {
  throw Error(ErrorKind::Config, ErrorContext{.file = file_, .key = path(key)}, reason);
}

void ConfigPath::checkInteger(std::string_view key, int64_t value, IntRange range) const {
  if (value < range.min) {
    fail(key, fmt::format("must be >= {} (got {})", range.min, value));
  }
  if (value > range.max) {
    fail(key, fmt::format("must be <= {} (got {})", range.max, value));
  }
}

void ConfigPath::checkReal(std::string_view key, double value, RealRange range) const {
  if (!std::isfinite(value)) {
    fail(key, fmt::format("must be finite (got {})", value));
  }
  if (range.minExclusive && value <= range.min) {
    fail(key, fmt::format("must be > {} (got {})", range.min, value));
  }
  if (value < range.min) {
    fail(key, fmt::format("must be >= {} (got {})", range.min, value));
  }
  if (value > range.max) {
    fail(key, fmt::format("must be <= {} (got {})", range.max, value));
  }
}

namespace {
/// "a, b, c".
template <typename Names> std::string joinNames(const Names& names) {
  std::string out;
  for (std::string_view n : names) {
    out.append(out.empty() ? "" : ", ").append(n);
  }
  return out;
}
/// "layers.conv1": the key of an integer map's entry, relative to the current section.
std::string entryKey(std::string_view mapKey, std::string_view name) {
  return std::string(mapKey).append(".").append(name);
}
} // namespace

void ConfigPath::checkIntegerMap(std::string_view key, const IntegerMap& values,
                                 IntRange range) const {
  for (size_t i = 0; i < values.size(); ++i) {
    const std::string& name = values[i].first;
    if (name.empty()) {
      fail(key, "an entry's name must not be empty");
    }
    for (size_t j = 0; j < i; ++j) {
      if (values[j].first == name) {
        fail(entryKey(key, name), "listed twice");
      }
    }
    checkInteger(entryKey(key, name), values[i].second, range);
  }
}

void ConfigPath::checkChoiceList(std::string_view key, std::span<const size_t> indices,
                                 std::span<const std::string_view> names) const {
  if (indices.empty()) {
    fail(key, "must list at least one value (of " + joinNames(names) + ")");
  }
  for (size_t i = 0; i < indices.size(); ++i) {
    if (std::find(indices.begin(), indices.begin() + static_cast<std::ptrdiff_t>(i), indices[i]) !=
        indices.begin() + static_cast<std::ptrdiff_t>(i)) {
      fail(key, fmt::format("lists '{}' twice", names[indices[i]]));
    }
  }
}

// --- ConfigReader -------------------------------------------------------------------------------

namespace {

/// "'abc'", "a mapping", "nothing": what a node holds, for "expected X, got Y".
std::string describe(const YAML::Node& n) {
  switch (n.Type()) {
  case YAML::NodeType::Scalar:
    return n.Tag() == "!" ? fmt::format("the string \"{}\"", n.Scalar())
                          : fmt::format("'{}'", n.Scalar());
  case YAML::NodeType::Sequence:
    return "a sequence";
  case YAML::NodeType::Map:
    return "a mapping";
  default:
    return "nothing";
  }
}

/// A plain (unquoted) scalar: numbers and booleans must not be written as strings.
bool isPlainScalar(const YAML::Node& n) {
  return n.IsScalar() && n.Tag() != "!";
}

} // namespace

struct ConfigReader::State {
  /// A mapping being walked and the keys the schema looked up in it.
  struct Frame {
    YAML::Node node;
    std::vector<std::string> visited;
  };
  std::vector<Frame> frames;

  /// The value of \p key in the innermost mapping (nullopt when absent); records the visit and
  /// rejects a key written twice.
  std::optional<YAML::Node> lookup(const ConfigPath& where, std::string_view key) {
    Frame& frame = frames.back();
    frame.visited.emplace_back(key);
    std::optional<YAML::Node> found;
    for (const auto& kv : frame.node) {
      if (kv.first.IsScalar() && kv.first.Scalar() == key) {
        if (found) {
          where.fail(key, fmt::format("written twice (lines {} and {})", found->Mark().line + 1,
                                      kv.second.Mark().line + 1));
        }
        found.emplace(kv.second); // (YAML::Node's operator= would assign through, not rebind)
      }
    }
    return found;
  }

  /// Rejects the keys of the innermost mapping the schema did not visit.
  void rejectUnvisited(const ConfigPath& where) const {
    const Frame& frame = frames.back();
    for (const auto& kv : frame.node) {
      if (!kv.first.IsScalar()) {
        where.fail("", fmt::format("a key must be a plain name (line {}), got {}",
                                   kv.first.Mark().line + 1, describe(kv.first)));
      }
      const std::string& key = kv.first.Scalar();
      if (std::find(frame.visited.begin(), frame.visited.end(), key) == frame.visited.end()) {
        where.fail(key, "unknown key (expected one of: " + joinNames(frame.visited) + ")");
      }
    }
  }
};

ConfigReader::ConfigReader(const std::string& yamlText, std::string file)
    : ConfigPath(std::move(file)), state_(std::make_unique<State>()) {
  YAML::Node root;
  try {
    root = YAML::Load(yamlText);
  } catch (const YAML::ParserException& e) {
    throw Error(ErrorKind::Config, ErrorContext{.file = this->file()},
                fmt::format("invalid YAML at line {}, column {}: {}", e.mark.line + 1,
                            e.mark.column + 1, e.msg));
  }
  if (root.IsNull()) {
    root.reset(YAML::Node(YAML::NodeType::Map)); // an empty file keeps every default
  }
  if (!root.IsMap()) {
    fail("", "expected a mapping of config keys at the top level, got " + describe(root));
  }
  state_->frames.push_back({root, {}});
}

ConfigReader::~ConfigReader() = default;

bool ConfigReader::enter(std::string_view key) {
  const std::optional<YAML::Node> node = state_->lookup(*this, key);
  if (!node || node->IsNull()) {
    return false; // absent or `key:` with nothing: the section keeps its defaults
  }
  if (!node->IsMap()) {
    fail(key, "expected a mapping, got " + describe(*node));
  }
  push(key);
  state_->frames.push_back({*node, {}});
  return true;
}

void ConfigReader::leave() {
  state_->rejectUnvisited(*this);
  state_->frames.pop_back();
  pop();
}

void ConfigReader::finish() {
  NNACCEL_ASSERT(state_->frames.size() == 1) << "ConfigReader::finish inside a section";
  state_->rejectUnvisited(*this);
}

namespace {
/// The integer \p node holds, checked against \p range (errors name \p key).
int64_t integerOf(const ConfigPath& where, std::string_view key, const YAML::Node& node,
                  IntRange range, std::string_view expected = "an integer") {
  int64_t parsed = 0;
  if (!isPlainScalar(node) || !YAML::convert<int64_t>::decode(node, parsed)) {
    where.fail(key, fmt::format("expected {}, got {}", expected, describe(node)));
  }
  where.checkInteger(key, parsed, range);
  return parsed;
}
} // namespace

void ConfigReader::integer(std::string_view key, int64_t& value, IntRange range) {
  const std::optional<YAML::Node> found = state_->lookup(*this, key);
  if (found) {
    value = integerOf(*this, key, *found, range);
  }
}

void ConfigReader::optionalInteger(std::string_view key, std::optional<int64_t>& value,
                                   IntRange range) {
  const std::optional<YAML::Node> found = state_->lookup(*this, key);
  if (!found)
    return;
  if (isPlainScalar(*found) && found->Scalar() == "auto") {
    value.reset();
    return;
  }
  value = integerOf(*this, key, *found, range, "an integer or auto");
}

void ConfigReader::integerMap(std::string_view key, IntegerMap& values, IntRange range) {
  const std::optional<YAML::Node> found = state_->lookup(*this, key);
  if (!found || found->IsNull()) {
    return; // absent or `key:` with nothing: keeps its default, as a section does
  }
  const YAML::Node& node = *found;
  if (!node.IsMap()) {
    fail(key, "expected a mapping of names to integers, got " + describe(node));
  }
  IntegerMap parsed;
  std::vector<int> lines; // of parsed's entries, for "written twice"
  for (const auto& kv : node) {
    const int line = kv.first.Mark().line + 1;
    if (!kv.first.IsScalar() || kv.first.Scalar().empty()) {
      fail(key, fmt::format("a key must be a non-empty name (line {}), got {}", line,
                            describe(kv.first)));
    }
    const std::string& name = kv.first.Scalar();
    const std::string entry = entryKey(key, name);
    for (size_t j = 0; j < parsed.size(); ++j) {
      if (parsed[j].first == name) {
        fail(entry, fmt::format("written twice (lines {} and {})", lines[j], line));
      }
    }
    parsed.emplace_back(name, integerOf(*this, entry, kv.second, range));
    lines.push_back(line);
  }
  values = std::move(parsed);
}

void ConfigReader::real(std::string_view key, double& value, RealRange range) {
  const std::optional<YAML::Node> found = state_->lookup(*this, key);
  if (!found) {
    return;
  }
  const YAML::Node& node = *found;
  double parsed = 0;
  if (!isPlainScalar(node) || !YAML::convert<double>::decode(node, parsed)) {
    fail(key, "expected a number, got " + describe(node));
  }
  checkReal(key, parsed, range);
  value = parsed;
}

void ConfigReader::optionalReal(std::string_view key, std::optional<double>& value,
                                RealRange range) {
  const std::optional<YAML::Node> found = state_->lookup(*this, key);
  if (!found) {
    return;
  }
  const YAML::Node& node = *found;
  double parsed = 0;
  if (isPlainScalar(node) && node.Scalar() == "auto") {
    value.reset();
    return;
  }
  if (!isPlainScalar(node) || !YAML::convert<double>::decode(node, parsed)) {
    fail(key, "expected a number or auto, got " + describe(node));
  }
  checkReal(key, parsed, range);
  value = parsed;
}

void ConfigReader::boolean(std::string_view key, bool& value) {
  const std::optional<YAML::Node> found = state_->lookup(*this, key);
  if (!found) {
    return;
  }
  const YAML::Node& node = *found;
  bool parsed = false;
  if (!isPlainScalar(node) || !YAML::convert<bool>::decode(node, parsed)) {
    fail(key, "expected true or false, got " + describe(node));
  }
  value = parsed;
}

void ConfigReader::text(std::string_view key, std::string& value) {
  const std::optional<YAML::Node> found = state_->lookup(*this, key);
  if (!found) {
    return;
  }
  const YAML::Node& node = *found;
  if (!node.IsScalar()) {
    fail(key, "expected a string, got " + describe(node));
  }
  if (node.Scalar().empty()) {
    fail(key, "must not be empty");
  }
  value = node.Scalar();
}

namespace {
/// Index of the scalar \p node in \p names, or names.size().
size_t choiceIndex(const YAML::Node& node, std::span<const std::string_view> names) {
  if (!isPlainScalar(node)) {
    return names.size();
  }
  return static_cast<size_t>(std::find(names.begin(), names.end(), node.Scalar()) - names.begin());
}
} // namespace

bool ConfigReader::readChoice(std::string_view key, std::span<const std::string_view> names,
                              size_t& index, std::span<const std::string_view> notModelled) {
  const std::optional<YAML::Node> found = state_->lookup(*this, key);
  if (!found) {
    return false;
  }
  const YAML::Node& node = *found;
  index = choiceIndex(node, names);
  if (index == names.size()) {
    if (choiceIndex(node, notModelled) < notModelled.size()) {
      fail(key, fmt::format("{} is not modelled by this engine yet (supported: {})", node.Scalar(),
                            joinNames(names)));
    }
    fail(key, "expected one of " + joinNames(names) + ", got " + describe(node));
  }
  return true;
}

bool ConfigReader::readChoiceList(std::string_view key, std::span<const std::string_view> names,
                                  std::vector<size_t>& indices) {
  const std::optional<YAML::Node> found = state_->lookup(*this, key);
  if (!found) {
    return false;
  }
  const YAML::Node& node = *found;
  if (!node.IsSequence()) {
    fail(key, "expected a list of " + joinNames(names) + ", got " + describe(node));
  }
  indices.clear();
  for (const YAML::Node& item : node) {
    indices.push_back(choiceIndex(item, names));
    if (indices.back() == names.size()) {
      fail(key,
           "expected a list of " + joinNames(names) + ", got " + describe(item) + " in the list");
    }
  }
  checkChoiceList(key, indices, names);
  return true;
}

// --- ConfigChecker ------------------------------------------------------------------------------

void ConfigChecker::text(std::string_view key, const std::string& value) const {
  if (value.empty()) {
    fail(key, "must not be empty");
  }
}

// --- ConfigWriter -------------------------------------------------------------------------------

namespace {

/// True when \p s reads back as the same string without quotes: a name-like word that YAML
/// does not take for a boolean, a null or a number.
bool isPlainWord(std::string_view s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) {
    return false;
  }
  for (char ch : s) {
    if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '_' && ch != '-' && ch != '.') {
      return false;
    }
  }
  std::string lower(s);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
  for (const char* reserved : {"true", "false", "yes", "no", "on", "off", "y", "n", "null"}) {
    if (lower == reserved) {
      return false;
    }
  }
  return true;
}

} // namespace

struct ConfigWriter::State {
  YAML::Emitter out;
};

ConfigWriter::ConfigWriter(std::string_view header) : state_(std::make_unique<State>()) {
  size_t start = 0;
  while (start < header.size()) {
    const size_t end = std::min(header.find('\n', start), header.size());
    state_->out << YAML::Comment(std::string(header.substr(start, end - start)));
    start = end + 1;
  }
  state_->out << YAML::BeginMap;
}

ConfigWriter::~ConfigWriter() = default;

std::string ConfigWriter::yaml() const {
  // The top-level mapping stays open (the emitter writes each entry as it comes), so the
  // writer's text so far is the document.
  const std::string text = state_->out.c_str();
  return text.empty() || text.back() == '\n' ? text : text + "\n";
}

void ConfigWriter::beginSection(std::string_view key) {
  state_->out << YAML::Key << std::string(key) << YAML::Value << YAML::BeginMap;
}

void ConfigWriter::endSection() {
  state_->out << YAML::EndMap;
}

void ConfigWriter::scalar(std::string_view key, std::string_view value, bool mayQuote) {
  state_->out << YAML::Key << std::string(key) << YAML::Value;
  if (mayQuote && !isPlainWord(value))
    state_->out << YAML::DoubleQuoted;
  state_->out << std::string(value);
}

void ConfigWriter::flowList(std::string_view key, const std::vector<std::string_view>& values) {
  state_->out << YAML::Key << std::string(key) << YAML::Value << YAML::Flow << YAML::BeginSeq;
  for (std::string_view v : values)
    state_->out << std::string(v);
  state_->out << YAML::EndSeq;
}

void ConfigWriter::integer(std::string_view key, int64_t value, IntRange) {
  scalar(key, std::to_string(value));
}

void ConfigWriter::real(std::string_view key, double value, RealRange) {
  scalar(key, fmt::format("{}", value)); // shortest round-trip form
}

void ConfigWriter::optionalReal(std::string_view key, const std::optional<double>& value,
                                RealRange) {
  scalar(key, value ? fmt::format("{}", *value) : std::string("auto"));
}

void ConfigWriter::optionalInteger(std::string_view key, const std::optional<int64_t>& value,
                                   IntRange) {
  scalar(key, value ? std::to_string(*value) : std::string("auto"));
}

void ConfigWriter::integerMap(std::string_view key, const IntegerMap& values, IntRange) {
  state_->out << YAML::Key << std::string(key) << YAML::Value;
  if (values.empty())
    state_->out << YAML::Flow;
  state_->out << YAML::BeginMap;
  for (const auto& [name, value] : values) {
    state_->out << YAML::Key;
    if (!isPlainWord(name))
      state_->out << YAML::DoubleQuoted;
    state_->out << name << YAML::Value << std::to_string(value);
  }
  state_->out << YAML::EndMap;
}

void ConfigWriter::boolean(std::string_view key, bool value) {
  scalar(key, value ? "true" : "false");
}

void ConfigWriter::text(std::string_view key, const std::string& value) {
  scalar(key, value, true);
}

} // namespace nnaccel::config
