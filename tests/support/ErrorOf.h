/// \file
/// errorOf(f, kind): the message of the nnaccel::Error that \p f throws, checked to be of
/// \p kind; fails the calling test when \p f throws none. Shared by the test programs that
/// check one-line error messages, so each need not keep its own copy.
#pragma once

#include "nnaccel/support/Error.h"

#include <gtest/gtest.h>
#include <string>
#include <utility>

namespace nnaccel::test {

template <typename F> std::string errorOf(F&& f, ErrorKind kind = ErrorKind::Usage) {
  try {
    std::forward<F>(f)();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), kind) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "expected an error";
  return "";
}

} // namespace nnaccel::test
