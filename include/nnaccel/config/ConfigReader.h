/// \file
/// Schema walking for architecture config files (YAML), shared by every engine's config.
///
/// Why: an engine's config is one struct, and three things must agree on its layout: parsing a
/// file, checking the invariants of a config built in code, and printing the effective config.
/// An engine writes its schema once, as a function template that calls a visitor for every key
///
///   template <typename V, typename C> void walk(V& v, C& c) {
///     v.section("array", [&] { v.integer("rows", c.peRows, {1, 4096}); });
///   }
///
/// and instantiates it with the three visitors here:
///  - ConfigReader (SystolicConfig&): reads a YAML document, checks types and ranges, tracks the
///    visited keys and rejects unknown ones with their dotted path;
///  - ConfigChecker (const SystolicConfig&): the same range checks on values built in code;
///  - ConfigWriter (const SystolicConfig&): emits the YAML layout the reader accepts (through
///    yaml-cpp's emitter).
/// Every error is nnaccel::Error (Config) with the file and the dotted key path as context:
/// `edge.yaml: 'psum.max_tile_rows': must be >= 1 (got 0)`.
///
/// Besides scalars and sections a schema may hold an integer map (IntegerMap: user-chosen names
/// to integers, e.g. a per-layer setting `layers: {conv1: 3, conv2: 1}`), whose entries are
/// named `layers.conv1` in errors; and an enumerated key may list spellings the schema knows
/// but the engine does not model (`data_type: fp16`), which get their own message instead of
/// "expected one of".
#pragma once

#include "nnaccel/support/Error.h"

#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace nnaccel::config {

/// Inclusive bounds of an integer key.
struct IntRange {
  int64_t min = std::numeric_limits<int64_t>::min();
  int64_t max = std::numeric_limits<int64_t>::max();
};

/// Bounds of a real key: always finite, >= min (> min when minExclusive) and <= max.
struct RealRange {
  double min = -std::numeric_limits<double>::infinity();
  bool minExclusive = false;
  double max = std::numeric_limits<double>::infinity();
};

/// The bounds every engine's rate, clock and energy keys share, chosen so that what follows from
/// any accepted value stays finite and inside int64 (docs/ErrorHandling.md "Numeric guards"):
/// at 1/1024 byte per cycle the largest transfer the importer admits (2^40 bytes) takes 2^50
/// cycles; at 1 kHz that many cycles are still a finite time; an action of at most 10^12 pJ
/// (1 J) counted 2^62 times is finite energy.
inline constexpr RealRange kBytesPerCycleRange{1.0 / 1024, false, 1073741824.0};
inline constexpr RealRange kClockMhzRange{1e-3, false, 1e6};
inline constexpr RealRange kEnergyPjRange{0.0, false, 1e12};

/// An integer map's entries (name, value) in file order; names are unique and non-empty.
using IntegerMap = std::vector<std::pair<std::string, int64_t>>;

/// One spelling of an enumerated key's value.
template <typename E> struct EnumName {
  std::string_view name;
  E value;
};

/// A config file compiled into the binary (the preset YAML files; see
/// nnaccel_embed_configs in src/arch/common/CMakeLists.txt).
struct EmbeddedConfig {
  std::string_view name;     ///< preset name: the file name without ".yaml"
  std::string_view fileName; ///< "small.yaml" (names the file in error messages)
  std::string_view text;     ///< the file's contents
};

/// The current position in the schema (file + section stack) and the checks shared by the
/// reader and the checker.
class ConfigPath {
public:
  explicit ConfigPath(std::string file) : file_(std::move(file)) {}

  const std::string& file() const { return file_; }
  /// "psum.max_tile_rows" for \p key inside section "psum" ("" names the current section).
  std::string path(std::string_view key) const;
  /// Throws nnaccel::Error (Config) naming the file and path(key).
  [[noreturn]] void fail(std::string_view key, const std::string& reason) const;

  void checkInteger(std::string_view key, int64_t value, IntRange range) const;
  void checkReal(std::string_view key, double value, RealRange range) const;
  /// Every entry of the integer map \p key: a non-empty name, listed once, its value in
  /// \p range (an entry's errors name `key.name`).
  void checkIntegerMap(std::string_view key, const IntegerMap& values, IntRange range) const;
  /// A list of choices (indices into \p names): non-empty, no duplicates.
  void checkChoiceList(std::string_view key, std::span<const size_t> indices,
                       std::span<const std::string_view> names) const;

protected:
  void push(std::string_view key) { sections_.emplace_back(key); }
  void pop() { sections_.pop_back(); }

private:
  std::string file_;
  std::vector<std::string> sections_;
};

namespace detail {
template <typename E> std::vector<std::string_view> enumNames(std::span<const EnumName<E>> names) {
  std::vector<std::string_view> out;
  for (const EnumName<E>& n : names) {
    out.push_back(n.name);
  }
  return out;
}
/// Index of \p value in \p names, or names.size() when the schema does not list it.
template <typename E> size_t enumIndex(std::span<const EnumName<E>> names, E value) {
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i].value == value) {
      return i;
    }
  }
  return names.size();
}
} // namespace detail

/// Reads a YAML document through a schema walk. Keys absent from the document leave the value
/// untouched (defaults); present keys are type- and range-checked; finish() rejects every key
/// the walk did not visit.
class ConfigReader : public ConfigPath {
public:
  /// Parses \p yamlText; malformed YAML throws Error (Config) with the line and column.
  ConfigReader(const std::string& yamlText, std::string file);
  ~ConfigReader();
  ConfigReader(const ConfigReader&) = delete;
  ConfigReader& operator=(const ConfigReader&) = delete;

  /// Runs \p body inside the mapping \p key (if present); then rejects its unvisited keys.
  template <typename F> void section(std::string_view key, F&& body) {
    const bool present = enter(key);
    if (present) {
      body();
      leave();
    }
  }
  void integer(std::string_view key, int64_t& value, IntRange range);
  void real(std::string_view key, double& value, RealRange range);
  /// A number in \p range, or `auto` (nullopt: the value is derived, e.g. from the technology
  /// model).
  void optionalReal(std::string_view key, std::optional<double>& value, RealRange range);
  /// An integer in \p range, or `auto` (nullopt: the value is derived).
  void optionalInteger(std::string_view key, std::optional<int64_t>& value, IntRange range);
  void boolean(std::string_view key, bool& value);
  /// A non-empty string.
  void text(std::string_view key, std::string& value);
  /// A mapping of names to integers in \p range (absent or empty: \p values untouched;
  /// present: replaces \p values, in file order). Names are plain or quoted YAML keys.
  void integerMap(std::string_view key, IntegerMap& values, IntRange range);
  /// One of \p names. A spelling in \p notModelled is rejected as "X is not modelled by this
  /// engine yet" rather than as an unknown value.
  template <typename E>
  void choice(std::string_view key, E& value, std::span<const EnumName<E>> names,
              std::span<const std::string_view> notModelled = {}) {
    const std::vector<std::string_view> spelled = detail::enumNames(names);
    size_t index = 0;
    if (readChoice(key, spelled, index, notModelled)) {
      value = names[index].value;
    }
  }
  template <typename E>
  void choiceList(std::string_view key, std::vector<E>& values,
                  std::span<const EnumName<E>> names) {
    const std::vector<std::string_view> spelled = detail::enumNames(names);
    std::vector<size_t> indices;
    if (readChoiceList(key, spelled, indices)) {
      values.clear();
      for (size_t i : indices) {
        values.push_back(names[i].value);
      }
    }
  }
  /// Rejects the unvisited top-level keys. Call after the walk.
  void finish();

private:
  struct State;
  bool enter(std::string_view key);
  void leave();
  bool readChoice(std::string_view key, std::span<const std::string_view> names, size_t& index,
                  std::span<const std::string_view> notModelled);
  bool readChoiceList(std::string_view key, std::span<const std::string_view> names,
                      std::vector<size_t>& indices);
  std::unique_ptr<State> state_;
};

/// Checks the values of a config built in code with the reader's range rules.
class ConfigChecker : public ConfigPath {
public:
  using ConfigPath::ConfigPath;

  template <typename F> void section(std::string_view key, F&& body) {
    push(key);
    body();
    pop();
  }
  void integer(std::string_view key, int64_t value, IntRange range) const {
    checkInteger(key, value, range);
  }
  void real(std::string_view key, double value, RealRange range) const {
    checkReal(key, value, range);
  }
  void optionalInteger(std::string_view key, const std::optional<int64_t>& value,
                       IntRange range) const {
    if (value)
      checkInteger(key, *value, range);
  }
  void optionalReal(std::string_view key, const std::optional<double>& value,
                    RealRange range) const {
    if (value)
      checkReal(key, *value, range);
  }
  void boolean(std::string_view, bool) const {}
  void text(std::string_view key, const std::string& value) const;
  void integerMap(std::string_view key, const IntegerMap& values, IntRange range) const {
    checkIntegerMap(key, values, range);
  }
  template <typename E>
  void choice(std::string_view key, E value, std::span<const EnumName<E>> names,
              std::span<const std::string_view> = {}) const {
    if (detail::enumIndex(names, value) == names.size()) {
      fail(key, "holds a value the schema does not list");
    }
  }
  template <typename E>
  void choiceList(std::string_view key, const std::vector<E>& values,
                  std::span<const EnumName<E>> names) const {
    std::vector<size_t> indices;
    for (const E& v : values) {
      indices.push_back(detail::enumIndex(names, v));
      if (indices.back() == names.size()) {
        fail(key, "holds a value the schema does not list");
      }
    }
    checkChoiceList(key, indices, detail::enumNames(names));
  }
};

/// Emits the config as YAML in the schema's nested layout (what ConfigReader reads back). Reals
/// are printed in the shortest form that parses back to the same double.
class ConfigWriter {
public:
  /// Lines of \p header are emitted first as `# ` comments.
  explicit ConfigWriter(std::string_view header = {});
  ~ConfigWriter();
  ConfigWriter(const ConfigWriter&) = delete;
  ConfigWriter& operator=(const ConfigWriter&) = delete;

  template <typename F> void section(std::string_view key, F&& body) {
    beginSection(key);
    body();
    endSection();
  }
  void integer(std::string_view key, int64_t value, IntRange = {});
  void real(std::string_view key, double value, RealRange = {});
  /// The number, or `auto` for nullopt.
  void optionalReal(std::string_view key, const std::optional<double>& value, RealRange = {});
  /// The integer, or `auto` for nullopt.
  void optionalInteger(std::string_view key, const std::optional<int64_t>& value, IntRange = {});
  void boolean(std::string_view key, bool value);
  void text(std::string_view key, const std::string& value);
  /// `key: {}` when empty, else one `name: value` line per entry (names quoted when needed).
  void integerMap(std::string_view key, const IntegerMap& values, IntRange = {});
  template <typename E>
  void choice(std::string_view key, E value, std::span<const EnumName<E>> names,
              std::span<const std::string_view> = {}) {
    scalar(key, nameOf(names, value));
  }
  template <typename E>
  void choiceList(std::string_view key, const std::vector<E>& values,
                  std::span<const EnumName<E>> names) {
    std::vector<std::string_view> spelled;
    for (const E& v : values)
      spelled.push_back(nameOf(names, v));
    flowList(key, spelled);
  }

  /// The document: the header comments and one block mapping, ending in a newline.
  std::string yaml() const;

private:
  template <typename E> static std::string_view nameOf(std::span<const EnumName<E>> names, E v) {
    const size_t i = detail::enumIndex(names, v);
    NNACCEL_ASSERT(i < names.size()) << "writing a config value the schema does not list";
    return names[i].name;
  }
  void beginSection(std::string_view key);
  void endSection();
  /// `key: value`, the value plain when it is a plain word or number, else double-quoted.
  void scalar(std::string_view key, std::string_view value, bool mayQuote = false);
  void flowList(std::string_view key, const std::vector<std::string_view>& values);

  struct State; ///< the yaml-cpp emitter
  std::unique_ptr<State> state_;
};

/// The one parse sequence of every engine's config: \p base's values, overwritten by the keys of
/// \p yamlText through the schema walk \p walk (called as walk(reader, config)), unknown keys
/// rejected, then \p validate(config, file) for the cross-field rules.
template <typename Config, typename Walk, typename Validate>
Config parseConfigOver(const Config& base, const std::string& yamlText, const std::string& file,
                       Walk&& walk, Validate&& validate) {
  ConfigReader reader(yamlText, file);
  Config c = base;
  walk(reader, c);
  reader.finish();
  validate(c, file);
  return c;
}

} // namespace nnaccel::config
