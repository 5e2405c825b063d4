/// \file
/// The ONNX backend test data shared by the engines' conformance tests: where Debian's
/// libonnx-testdata lives (NNACCEL_ONNX_TESTDATA overrides it) and the cases the manifest
/// (onnx_backend_cases.tsv) marks as passing on the reference executor.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace nnaccel::conformance {

inline std::filesystem::path dataRoot() {
  if (const char* env = std::getenv("NNACCEL_ONNX_TESTDATA"))
    return env;
  return "/usr/share/libonnx-testdata/data";
}

/// The manifest's passing cases, in file order.
inline std::vector<std::string> passingCases() {
  std::ifstream in(std::filesystem::path(NNACCEL_SOURCE_DIR) /
                   "tests/conformance/onnx_backend_cases.tsv");
  std::vector<std::string> cases;
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string name, status;
    if (line.empty() || line[0] == '#' || !(fields >> name >> status))
      continue;
    if (status == "pass")
      cases.push_back(name);
  }
  return cases;
}

} // namespace nnaccel::conformance
