/// \file
/// Helpers shared by the tests of the formats library and of the sparse patent models
/// (tests/unit/arch/sparse/patent): the error expectation and the seeded random sparse vectors.
#pragma once

#include "nnaccel/support/Error.h"
#include "nnaccel/support/Rng.h"

#include <cstdint>
#include <gtest/gtest.h>
#include <string>
#include <vector>

namespace nnaccel::arch::sparse::formats::test_support {

/// \p count values, each non-zero with probability percent/100, non-zero values in
/// [-127, 127] \ {0}. Shared by the formats and patent tests.
inline std::vector<int32_t> randomSparse(Rng& rng, size_t count, int percent) {
  std::vector<int32_t> out(count, 0);
  for (int32_t& v : out) {
    if (static_cast<int>(rng.nextU64() % 100) < percent) {
      v = static_cast<int32_t>(rng.nextU64() % 254) - 127;
      v = v >= 0 ? v + 1 : v;
    }
  }
  return out;
}

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
