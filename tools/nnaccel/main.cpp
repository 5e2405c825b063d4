// nnaccel command-line entry point (subcommands are being built; see issue 2).
#include "nnaccel/ir/OpKind.h"

#include <CLI/CLI.hpp>
#include <fmt/core.h>

int main(int argc, char** argv) {
  CLI::App app{"nnaccel: compiler and simulator for CNN accelerators"};
  app.require_subcommand(0, 1);
  CLI11_PARSE(app, argc, argv);
  fmt::print("nnaccel: {} ops in the IR\n", nnaccel::ir::allOps().size());
  return 0;
}
