/// \file
/// SCALE-Sim .cfg reader: the subset of Python's configparser that SCALE-Sim configs use, then
/// the keys scale_config.read_conf_file() reads, validated so that a bad value fails here with
/// the key named instead of deep inside the simulation.
#include "nnaccel/scalesim/Config.h"

#include "TextUtil.h"
#include "nnaccel/support/Error.h"

#include <algorithm>
#include <cctype>
#include <fmt/format.h>
#include <map>
#include <optional>
#include <set>
#include <sstream>

namespace nnaccel::scalesim {

namespace {

using detail::parsePythonInt;
using detail::trim;

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

/// configparser's view of the file: section -> lower-cased key -> stripped value.
class IniFile {
public:
  IniFile(const std::string& text, std::string fileName) : file_(std::move(fileName)) {
    parse(text);
  }

  /// The value of \p key in \p section (falling back to [DEFAULT]), or nullopt.
  std::optional<std::string> find(const std::string& section, const std::string& key) const {
    for (const std::string& s : {section, std::string("DEFAULT")}) {
      const auto sec = sections_.find(s);
      if (sec != sections_.end()) {
        const auto it = sec->second.find(lower(key));
        if (it != sec->second.end()) {
          return it->second;
        }
      }
    }
    return std::nullopt;
  }

  /// The value of \p key in \p section; Error when the section or the key is missing.
  std::string get(const std::string& section, const std::string& key) const {
    if (section != "DEFAULT" && sections_.count(section) == 0) {
      throw Error(ErrorKind::Config, ErrorContext{.file = file_},
                  fmt::format("missing section [{}]", section));
    }
    std::optional<std::string> value = find(section, key);
    if (!value) {
      throw Error(ErrorKind::Config,
                  ErrorContext{.file = file_, .key = fmt::format("{}.{}", section, key)},
                  "missing key");
    }
    return *value;
  }

private:
  [[noreturn]] void fail(int64_t line, const std::string& reason) const {
    throw Error(ErrorKind::Config, ErrorContext{.file = fmt::format("{}:{}", file_, line)}, reason);
  }

  void parse(const std::string& text) {
    std::istringstream in(text);
    std::string section;
    std::string lastKey;
    int64_t lineNo = 0;
    for (std::string raw; std::getline(in, raw);) {
      ++lineNo;
      const std::string_view line = trim(raw);
      if (line.empty()) {
        lastKey.clear();
        continue;
      }
      if (line[0] == '#' || line[0] == ';') {
        continue;
      }
      const bool indented = raw[0] == ' ' || raw[0] == '\t';
      if (indented && !lastKey.empty()) {
        // configparser: an indented line continues the previous value on a new line.
        sections_[section][lastKey] += fmt::format("\n{}", line);
        continue;
      }
      if (line[0] == '[') {
        const size_t close = line.rfind(']');
        if (close == std::string_view::npos || close == 1) {
          fail(lineNo, fmt::format("malformed section header '{}'", line));
        }
        section = std::string(line.substr(1, close - 1));
        if (section != "DEFAULT" && !sectionOrder_.insert(section).second) {
          fail(lineNo, fmt::format("section [{}] appears twice", section));
        }
        sections_[section];
        lastKey.clear();
        continue;
      }
      if (section.empty()) {
        fail(lineNo, "key before any [section] header");
      }
      const size_t delimiter = line.find_first_of("=:");
      if (delimiter == std::string_view::npos) {
        fail(lineNo, fmt::format("expected 'key: value' or 'key = value', got '{}'", line));
      }
      const std::string key = lower(trim(line.substr(0, delimiter)));
      if (key.empty()) {
        fail(lineNo, fmt::format("empty key in '{}'", line));
      }
      auto& keys = sections_[section];
      if (keys.count(key) != 0) {
        fail(lineNo, fmt::format("key '{}' appears twice in section [{}]", key, section));
      }
      keys[key] = std::string(trim(line.substr(delimiter + 1)));
      lastKey = key;
    }
  }

  std::string file_;
  std::map<std::string, std::map<std::string, std::string>> sections_;
  std::set<std::string> sectionOrder_;
};

int64_t readInt(const IniFile& ini, const std::string& file, const std::string& section,
                const std::string& key, int64_t minimum) {
  const std::string value = ini.get(section, key);
  const std::optional<int64_t> parsed = parsePythonInt(value);
  if (!parsed || *parsed < minimum) {
    throw Error(ErrorKind::Config,
                ErrorContext{.file = file, .key = fmt::format("{}.{}", section, key)},
                fmt::format("expected an integer >= {}, got '{}'", minimum, value));
  }
  return *parsed;
}

} // namespace

const char* dataflowName(Dataflow dataflow) {
  switch (dataflow) {
  case Dataflow::OutputStationary:
    return "os";
  case Dataflow::WeightStationary:
    return "ws";
  case Dataflow::InputStationary:
    return "is";
  }
  return "?";
}

Config parseConfigText(const std::string& text, const std::string& fileName) {
  const IniFile ini(text, fileName);
  Config c;
  c.runName = ini.get("general", "run_name");
  // The run name becomes a folder under the output folder: one plain name, which cannot reach
  // outside it.
  if (c.runName == "." || c.runName == ".." ||
      c.runName.find_first_of(std::string_view("/\\\0", 3)) != std::string::npos)
    throw Error(ErrorKind::Config, ErrorContext{.file = fileName, .key = "general.run_name"},
                fmt::format("must be a plain folder name (no '/', '\\', '.' or '..'), got '{}'",
                            c.runName));

  const std::string mode = ini.get("run_presets", "InterfaceBandwidth");
  if (mode == "USER") {
    c.bandwidthMode = BandwidthMode::User;
  } else if (mode == "CALC") {
    c.bandwidthMode = BandwidthMode::Calc;
  } else {
    throw Error(ErrorKind::Config,
                ErrorContext{.file = fileName, .key = "run_presets.InterfaceBandwidth"},
                fmt::format("expected USER or CALC, got '{}'", mode));
  }

  const std::string arch = "architecture_presets";
  c.arrayRows = readInt(ini, fileName, arch, "ArrayHeight", 1);
  c.arrayCols = readInt(ini, fileName, arch, "ArrayWidth", 1);
  c.ifmapSramKiB = readInt(ini, fileName, arch, "IfmapSramSzkB", 1);
  c.filterSramKiB = readInt(ini, fileName, arch, "FilterSramSzkB", 1);
  c.ofmapSramKiB = readInt(ini, fileName, arch, "OfmapSramSzkB", 1);
  c.ifmapAddrOffset = readInt(ini, fileName, arch, "IfmapOffset", 0);
  c.filterAddrOffset = readInt(ini, fileName, arch, "FilterOffset", 0);
  c.ofmapAddrOffset = readInt(ini, fileName, arch, "OfmapOffset", 0);

  const std::string dataflow = ini.get(arch, "Dataflow");
  if (dataflow == "os") {
    c.dataflow = Dataflow::OutputStationary;
  } else if (dataflow == "ws") {
    c.dataflow = Dataflow::WeightStationary;
  } else if (dataflow == "is") {
    c.dataflow = Dataflow::InputStationary;
  } else {
    throw Error(ErrorKind::Config,
                ErrorContext{.file = fileName, .key = fmt::format("{}.Dataflow", arch)},
                fmt::format("expected os, ws or is, got '{}'", dataflow));
  }

  if (c.bandwidthMode == BandwidthMode::User) {
    const std::string list = ini.get(arch, "Bandwidth");
    std::string_view rest = trim(list);
    while (true) {
      const size_t comma = rest.find(',');
      const std::string_view item = rest.substr(0, comma);
      const std::optional<int64_t> value = parsePythonInt(item);
      if (!value) {
        throw Error(ErrorKind::Config,
                    ErrorContext{.file = fileName, .key = fmt::format("{}.Bandwidth", arch)},
                    fmt::format("expected comma-separated integers, got '{}'", list));
      }
      c.userBandwidthWordsPerCycle.push_back(*value);
      if (comma == std::string_view::npos) {
        break;
      }
      rest.remove_prefix(comma + 1);
    }
    if (c.userBandwidthWordsPerCycle.front() < 1) {
      throw Error(ErrorKind::Config,
                  ErrorContext{.file = fileName, .key = fmt::format("{}.Bandwidth", arch)},
                  fmt::format("the first bandwidth (the one SCALE-Sim uses) must be >= 1 word "
                              "per cycle, got {}",
                              c.userBandwidthWordsPerCycle.front()));
    }
  }
  return c;
}

Config parseConfigFile(const std::string& path) {
  return parseConfigText(detail::readTextFile(path), path);
}

} // namespace nnaccel::scalesim
