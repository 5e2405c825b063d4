/// \file
/// Helpers shared by the format library's tests (one test binary): the error expectation and
/// the seeded random sparse vectors (defined in PositionCodecTest.cpp).
#pragma once

#include "nnaccel/support/Error.h"
#include "nnaccel/support/Rng.h"

#include <cstdint>
#include <gtest/gtest.h>
#include <string>
#include <vector>

namespace nnaccel::arch::sparse::formats::test_support {

/// \p percent of \p count values non-zero (seeded), the rest zero.
std::vector<int32_t> randomSparse(Rng& rng, size_t count, int percent);

/// \p fn must throw nnaccel::Error of \p kind whose message contains \p needle.
template <typename Fn> void expectError(Fn&& fn, ErrorKind kind, const std::string& needle) {
  try {
    fn();
    ADD_FAILURE() << "expected an error containing '" << needle << "'";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), kind) << e.what();
    const std::string message = Error::format(e.context(), e.reason());
    EXPECT_NE(message.find(needle), std::string::npos) << message;
  }
}

} // namespace nnaccel::arch::sparse::formats::test_support
