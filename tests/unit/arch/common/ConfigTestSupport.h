/// \file
/// Helpers shared by the engines' config tests (tests/unit/arch/*/ConfigTest.cpp): expecting an
/// nnaccel::Error with an exact one-line message, and reading a file of the source tree (the
/// preset YAML files the binary embeds).
///
/// Why shared: every engine's ConfigTest checks its rejections the same way (kind, exact
/// message, the file in the context, the dotted key returned for further checks); one copy keeps
/// the checks identical.
#pragma once

#include "../../../support/SourcePaths.h"
#include "nnaccel/support/Error.h"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>
#include <string>

namespace nnaccel::test {

/// Runs \p action expecting an nnaccel::Error of \p kind whose message is exactly \p message and
/// whose context names \p file; returns the error's key ("" and a test failure when nothing is
/// thrown).
template <typename Action>
std::string expectError(Action&& action, ErrorKind kind, const std::string& file,
                        const std::string& message) {
  try {
    action();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), kind) << e.what();
    EXPECT_EQ(std::string(e.what()), message);
    EXPECT_EQ(e.context().file, file);
    return e.context().key;
  }
  ADD_FAILURE() << "no error, expected: " << message;
  return "";
}

/// The contents of \p relative under the source tree ("" when it cannot be read).
inline std::string sourceFile(const std::string& relative) {
  std::ifstream in(nnaccel::test::sourceDir() / relative, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

} // namespace nnaccel::test
