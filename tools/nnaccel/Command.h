/// \file
/// The subcommand structure of the `nnaccel` CLI.
///
/// Each subcommand (info, run, zoo) is a Command: it declares its options on its CLI11 sub-app in
/// configure() and does its work in run() after a successful parse. main() owns parsing, exit
/// codes and error printing, so a command only prints results to stdout and throws
/// nnaccel::Error on bad input.
#pragma once

#include "nnaccel/support/Error.h"
#include "nnaccel/support/Suggest.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <fmt/format.h>
#include <memory>
#include <string>

namespace nnaccel::cli {

class Command {
public:
  virtual ~Command() = default;
  /// Adds this command's options, positionals and nested subcommands to \p app.
  virtual void configure(CLI::App& app) = 0;
  /// Runs the parsed command. Throws nnaccel::Error on bad input (main maps it to an exit code).
  virtual void run() = 0;
};

/// A registered subcommand: its name, its one-line help and a factory.
struct CommandSpec {
  const char* name;
  const char* description;
  std::unique_ptr<Command> (*make)();
};

std::unique_ptr<Command> makeInfoCommand();
std::unique_ptr<Command> makeRunCommand();
std::unique_ptr<Command> makeZooCommand();
std::unique_ptr<Command> makeSimulateCommand();
std::unique_ptr<Command> makeMapCommand();
std::unique_ptr<Command> makeCompileCommand();
std::unique_ptr<Command> makeDisasmCommand();
std::unique_ptr<Command> makeArchCommand();
std::unique_ptr<Command> makePruneCommand();
std::unique_ptr<Command> makeSweepCommand();
std::unique_ptr<Command> makeScaleSimCommand();
std::unique_ptr<Command> makeExportTopologyCommand();
std::unique_ptr<Command> makeCompareCommand();
std::unique_ptr<Command> makeValidateCommand();

/// "nnaccel zoo export" for the (sub)command \p app: its parents' names and its own.
inline std::string commandName(const CLI::App& app) {
  const CLI::App* parent = app.get_parent();
  return parent == nullptr ? app.get_name() : commandName(*parent) + " " + app.get_name();
}

/// The pointer every command-line error ends with: "(see 'nnaccel run --help')".
inline std::string helpPointer(const CLI::App& app) {
  return "(see '" + commandName(app) + " --help')";
}

/// A command-line error found after parsing (options that do not go together): exit code 2,
/// the message followed by the pointer to \p app's --help.
inline Error usageError(const CLI::App& app, const std::string& message) {
  return Error(ErrorKind::Usage, {}, message + " " + helpPointer(app));
}

/// Validator for an option taking one of \p names: "X not in {a,b}" as CLI11's IsMember says
/// it, with the nearest name suggested (support/Suggest.h).
inline CLI::Validator oneOf(std::vector<std::string> names) {
  std::string list;
  for (const std::string& n : names)
    list += (list.empty() ? "" : ",") + n;
  return CLI::Validator(
      [names, list](std::string& text) -> std::string {
        if (std::find(names.begin(), names.end(), text) != names.end())
          return "";
        return text + " not in {" + list + "}" + nnaccel::didYouMean(text, names);
      },
      "{" + list + "}");
}

/// Validator for seeds: a decimal integer in [0, 2^64).
/// ", about 12 s left" for a phase that finished \p done of \p total steps in \p elapsedSeconds,
/// assuming the rest go at the same rate; "" before the first step, after the last and under a
/// second. A progress line's estimate, not a measurement.
inline std::string remainingText(double elapsedSeconds, double done, size_t total) {
  if (done <= 0 || done >= static_cast<double>(total))
    return "";
  const double left = elapsedSeconds / done * (static_cast<double>(total) - done);
  if (left < 1)
    return "";
  return left >= 90 ? fmt::format(", about {:.0f} min left", left / 60)
                    : fmt::format(", about {:.0f} s left", left);
}

inline CLI::Validator seedValidator() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        const bool digits = !text.empty() && text.size() <= 20 &&
                            text.find_first_not_of("0123456789") == std::string::npos;
        if (!digits || (text.size() == 20 && text > "18446744073709551615")) {
          return "expected an integer from 0 to 18446744073709551615, got '" + text + "'";
        }
        return {};
      },
      "UINT64");
}

/// Help text shared by every command that takes a MODEL argument.
inline constexpr const char* kModelHelp =
    "an .onnx file or the name of a built-in zoo model (see 'nnaccel zoo list')";

} // namespace nnaccel::cli
