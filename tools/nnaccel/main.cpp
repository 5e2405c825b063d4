// nnaccel command-line entry point: parses the subcommand, runs it, and maps every failure to
// one `error: ...` line on stderr and an exit code (0 ok, 1 model/config/io error, 2 usage).
#include "Command.h"
#include "nnaccel/support/Error.h"
#include "nnaccel/support/Interrupt.h"
#include "nnaccel/support/MemoryBudget.h"

#include <cctype>
#include <fmt/core.h>
#include <fmt/ranges.h>
#include <new>
#include <optional>
#include <vector>

namespace {

constexpr int kExitOk = 0;
constexpr int kExitError = 1;
constexpr int kExitUsage = 2;
/// Stopped by Ctrl-C (128 + SIGINT, the shell's convention); the command said what it wrote.
constexpr int kExitInterrupted = 130;

const nnaccel::cli::CommandSpec kCommands[] = {
    {"info", "print the layers of a model: shapes, kernel windows, MACs, parameters",
     nnaccel::cli::makeInfoCommand},
    {"run", "run a model on the reference executor (fp32 or int8) and print its outputs",
     nnaccel::cli::makeRunCommand},
    {"zoo", "list or export the built-in models", nnaccel::cli::makeZooCommand},
    {"simulate", "compile a model for an accelerator, run it on the simulator, verify, report",
     nnaccel::cli::makeSimulateCommand},
    {"compare", "run one model on several engines under one equal-resource budget, side by side",
     nnaccel::cli::makeCompareCommand},
    {"map", "print a model's placement on the stream ASIC (tiles, rows, muxes, delays)",
     nnaccel::cli::makeMapCommand},
    {"compile", "compile a model for an accelerator into a program file",
     nnaccel::cli::makeCompileCommand},
    {"disasm", "print a compiled program, one instruction per line",
     nnaccel::cli::makeDisasmCommand},
    {"arch", "list the accelerator engines and presets, or print an effective config",
     nnaccel::cli::makeArchCommand},
    {"prune", "magnitude-prune a model's weights to a density or per-layer densities; write ONNX",
     nnaccel::cli::makePruneCommand},
    {"sweep",
     "sweep a model over a grid of config values (any engine; Pareto front, shards, MPI), "
     "densities (sparse) or kernel-vector widths and group sizes (broadcast)",
     nnaccel::cli::makeSweepCommand},
    {"scalesim", "run a SCALE-Sim v2 config and topology; write its three reports, same numbers",
     nnaccel::cli::makeScaleSimCommand},
    {"export-topology", "write a model's conv and fully-connected layers as a SCALE-Sim topology",
     nnaccel::cli::makeExportTopologyCommand},
    {"validate",
     "re-run a published experiment (the SCNN paper, the patents' figures) and print published "
     "and measured side by side",
     nnaccel::cli::makeValidateCommand},
};

/// The deepest subcommand the parser reached (the usage hint points to its --help).
const CLI::App& deepestSelected(const CLI::App& app) {
  const auto selected = app.get_subcommands();
  return selected.empty() ? app : deepestSelected(*selected.front());
}

/// CLI11 reports an unknown subcommand as "a subcommand is required"; name it instead. Returns
/// the message for the first word that is not a subcommand where one is required, if any.
std::optional<std::string> unknownSubcommand(const CLI::App& app, int argc, char** argv) {
  const CLI::App* current = &app;
  std::string path = app.get_name();
  for (int i = 1; i < argc; ++i) {
    const std::string word = argv[i];
    if (word.empty() || word[0] == '-') {
      continue;
    }
    if (current->get_require_subcommand_min() == 0) {
      return std::nullopt;
    }
    const CLI::App* sub = nullptr;
    for (const CLI::App* candidate : current->get_subcommands({})) {
      if (candidate->check_name(word)) {
        sub = candidate;
      }
    }
    if (sub == nullptr) {
      std::vector<std::string> names;
      for (const CLI::App* candidate : current->get_subcommands({})) {
        names.push_back(candidate->get_name());
      }
      return fmt::format("unknown command '{}' for '{}'{} (expected one of: {})", word, path,
                         nnaccel::didYouMean(word, names), fmt::join(names, ", "));
    }
    current = sub;
    path += " " + word;
  }
  return std::nullopt;
}

int reportParseError(const CLI::App& app, const CLI::ParseError& e, int argc, char** argv) {
  std::string message = e.what();
  if (const std::optional<std::string> unknown = unknownSubcommand(app, argc, argv)) {
    message = *unknown;
  } else if (message.size() > 1 && std::isupper(static_cast<unsigned char>(message[0])) &&
             !std::isupper(static_cast<unsigned char>(message[1]))) {
    // CLI11 capitalizes its messages; nnaccel's are lower case ("MODEL is required" stays).
    message[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(message[0])));
  }
  fmt::print(stderr, "error: {} {}\n", message, nnaccel::cli::helpPointer(deepestSelected(app)));
  return kExitUsage;
}

int runCli(int argc, char** argv) {
  CLI::App app{"nnaccel: compiler and simulator for CNN accelerators", "nnaccel"};
  app.set_version_flag("--version", "nnaccel 0.1.0");
  app.require_subcommand(1);
  std::string maxMemory;
  app.add_option("--max-memory", maxMemory,
                 "the most any one structure a command allocates may take (a tensor, a "
                 "simulator's memories, a sweep's results), e.g. 8G or 512M (default: 80 % of "
                 "this machine's memory)");
  app.fallthrough(); // --max-memory may follow the subcommand
  std::vector<std::pair<CLI::App*, std::unique_ptr<nnaccel::cli::Command>>> commands;
  for (const nnaccel::cli::CommandSpec& spec : kCommands) {
    CLI::App* sub = app.add_subcommand(spec.name, spec.description);
    std::unique_ptr<nnaccel::cli::Command> command = spec.make();
    command->configure(*sub);
    commands.emplace_back(sub, std::move(command));
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == static_cast<int>(CLI::ExitCodes::Success)) {
      return app.exit(e); // --help / --version: printed on stdout
    }
    return reportParseError(app, e, argc, argv);
  }
  if (!maxMemory.empty()) {
    const std::optional<uint64_t> bytes = nnaccel::parseByteSize(maxMemory);
    if (!bytes)
      throw nnaccel::Error(nnaccel::ErrorKind::Usage, {},
                           "--max-memory '" + maxMemory +
                               "': expected a size such as 8G, 512M or 1000000 (bytes)");
    nnaccel::setMemoryBudgetBytes(*bytes);
  }
  for (auto& [sub, command] : commands) {
    if (sub->parsed()) {
      command->run();
    }
  }
  return kExitOk;
}

} // namespace

int main(int argc, char** argv) {
  try {
    return runCli(argc, argv);
  } catch (const nnaccel::Interrupted&) {
    return kExitInterrupted;
  } catch (const nnaccel::Error& e) {
    fmt::print(stderr, "error: {}\n", e.what());
    return e.kind() == nnaccel::ErrorKind::Usage ? kExitUsage : kExitError;
  } catch (const std::bad_alloc&) {
    // Every large structure is estimated against --max-memory first (support/MemoryBudget.h);
    // an allocation that still fails is one the estimates missed (or a process memory limit
    // below the budget). Say so in the resource terms a user can act on.
    fmt::print(stderr,
               "error: out of memory: an allocation failed below the --max-memory budget "
               "({}; a process limit such as ulimit -v may be lower)\n",
               nnaccel::byteSizeText(nnaccel::memoryBudgetBytes()));
    return kExitError;
  } catch (const std::exception& e) {
    // Reaching this is a bug in nnaccel: every input problem is reported as nnaccel::Error.
    fmt::print(stderr, "error: internal: {}\n", e.what());
    return kExitError;
  } catch (...) {
    fmt::print(stderr, "error: internal: unknown exception\n");
    return kExitError;
  }
}
