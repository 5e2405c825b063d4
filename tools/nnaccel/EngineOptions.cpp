// Engine-declared command-line options (EngineOptions.h).
#include "EngineOptions.h"

#include "Command.h"

#include <algorithm>
#include <fmt/format.h>

namespace nnaccel::cli {

std::string enginesPhrase(const std::vector<std::string>& names) {
  if (names.size() == 1)
    return fmt::format("the {} engine", names.front());
  std::string list;
  for (size_t i = 0; i < names.size(); ++i)
    list += (i == 0 ? "" : i + 1 == names.size() ? " and " : ", ") + names[i];
  return fmt::format("the {} engines", list);
}

void EngineOptions::configure(CLI::App& app, bool placement) {
  for (const engines::Engine* e : engines::allEngines())
    for (const engines::OptionSpec& spec : e->runOptions()) {
      if ((placement && !spec.forPlacement) || declared_.count(spec.name) > 0)
        continue;
      Declared& d = declared_[spec.name];
      d.spec = spec;
      d.value = spec.defaultValue;
      const std::string flag = "--" + spec.name;
      if (spec.kind == engines::OptionSpec::Kind::Flag) {
        d.option = app.add_flag(flag, d.flag, spec.help);
      } else {
        d.option = app.add_option(flag, d.value, spec.help)->check(CLI::Range(spec.min, spec.max));
        if (spec.defaultValue >= spec.min)
          d.option->capture_default_str();
      }
    }
}

std::map<std::string, int64_t> EngineOptions::collect(const CLI::App& app,
                                                      const std::string& engine) const {
  std::map<std::string, int64_t> out;
  for (const auto& [name, d] : declared_) {
    const std::vector<std::string> declaring = engines::enginesWithOption(name);
    const bool ours = std::find(declaring.begin(), declaring.end(), engine) != declaring.end();
    if (d.option->count() == 0) {
      if (ours && d.spec.kind == engines::OptionSpec::Kind::Integer &&
          d.spec.defaultValue >= d.spec.min)
        out[name] = d.value; // the declared default, shown in --help
      continue;
    }
    if (!ours)
      throw usageError(app, fmt::format("--{} applies to {}", name, enginesPhrase(declaring)));
    out[name] = d.spec.kind == engines::OptionSpec::Kind::Flag ? 1 : d.value;
  }
  return out;
}

void EngineOptions::checkTimingOnly(const CLI::App& app,
                                    const std::map<std::string, int64_t>& given) const {
  for (const auto& [name, value] : given) {
    const Declared& d = declared_.at(name);
    if (!d.spec.needsData.empty() && d.option->count() > 0)
      throw usageError(app, fmt::format("--{} {}; it cannot be combined with --timing-only", name,
                                        d.spec.needsData));
  }
}

} // namespace nnaccel::cli
