/// \file
/// The generic design-space sweep of the `nnaccel sweep` command (SweepGridCommand.cpp):
/// `sweep MODEL --arch E --param KEY=V1,V2,...` on the `sweep` app itself, and `sweep merge`.
/// SweepCommand.cpp owns the `sweep` app and its other subcommands (density, vector-width) and
/// hands the app to these two.
#pragma once

#include "Command.h"

#include <memory>

namespace nnaccel::cli {

/// `nnaccel sweep MODEL ...`: configured on the `sweep` app itself (MODEL is optional there, so
/// the subcommands still parse; run() requires it).
std::unique_ptr<Command> makeSweepGridCommand();
/// `nnaccel sweep merge FILE... [--csv OUT]`.
std::unique_ptr<Command> makeSweepMergeCommand();

} // namespace nnaccel::cli
