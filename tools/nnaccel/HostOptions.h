/// \file
/// `--host KEY=VALUE` (repeatable) on the commands that run engines: sets a field of the host
/// model that charges host-fallback layers (engines/HostModel.h, docs/HostModel.md), so the link
/// and host a user actually has price the layers the accelerator does not run.
#pragma once
#include "nnaccel/engines/HostModel.h"

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace nnaccel::cli {

class HostOptions {
public:
  void configure(CLI::App& app);
  /// The default host model with every given KEY=VALUE applied (usage error naming the key).
  engines::HostModel model() const;

private:
  std::vector<std::string> settings_;
};

} // namespace nnaccel::cli
