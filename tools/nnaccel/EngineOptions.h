/// \file
/// The options engines add to a command (engines::OptionSpec): every registered engine's
/// options are declared on the command, and after parsing the given ones are collected for the
/// selected engine; one given with an engine that does not declare it is a usage error naming
/// the engines that do ("--threads applies to the sparse engine").
#pragma once
#include "nnaccel/engines/Engine.h"

#include <CLI/CLI.hpp>
#include <map>
#include <string>

namespace nnaccel::cli {

class EngineOptions {
public:
  /// Declares every registered engine's options on \p app (only those with forPlacement when
  /// \p placement); an option two engines declare is declared once.
  void configure(CLI::App& app, bool placement = false);
  /// The given options, checked against \p engine's declarations (usage error otherwise).
  std::map<std::string, int64_t> collect(const CLI::App& app, const std::string& engine) const;
  /// Usage error for a given option of \p given that needs the data path (OptionSpec::needsData).
  void checkTimingOnly(const CLI::App& app, const std::map<std::string, int64_t>& given) const;

private:
  struct Declared {
    engines::OptionSpec spec;
    CLI::Option* option = nullptr;
    int64_t value = 0;
    bool flag = false;
  };
  std::map<std::string, Declared> declared_;
};

/// "the sparse engine", "the systolic and stream engines": the engines in \p names.
std::string enginesPhrase(const std::vector<std::string>& names);

} // namespace nnaccel::cli
