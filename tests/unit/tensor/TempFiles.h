// Scratch files for the tensor module's file-format tests (.npy, PNG, JPEG): one set of helpers
// for NpyTest.cpp and ImageTest.cpp.
#pragma once

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <iterator>
#include <string>

namespace nnaccel::test {

/// Path of \p name in GoogleTest's scratch directory.
inline std::string tempPath(const std::string& name) {
  return (std::filesystem::path(::testing::TempDir()) / ("nnaccel_tensor_" + name)).string();
}

/// Writes \p bytes to tempPath(\p name) and returns the path.
inline std::string writeBytes(const std::string& name, const std::string& bytes) {
  const std::string path = tempPath(name);
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

inline std::string readBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

} // namespace nnaccel::test
