/// \file
/// dataPath(name): the path of a file of tests/data/scalesim (SCALE-Sim reference
/// configurations, topologies and traces), shared by the scalesim test sources.
#pragma once

#include "../../support/SourcePaths.h"

#include <fmt/format.h>
#include <string>

namespace nnaccel::scalesim::test {

inline std::string dataPath(const std::string& name) {
  return fmt::format("{}/tests/data/scalesim/{}", nnaccel::test::sourceDir().string(), name);
}

} // namespace nnaccel::scalesim::test
