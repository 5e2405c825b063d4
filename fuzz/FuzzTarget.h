/// \file
/// What every fuzz target shares: the bytes as text, and the one accepted failure. Each target
/// feeds arbitrary bytes to one loader; nnaccel::Error (a one-line user error) is the expected
/// outcome for bad input, and anything else is a finding: a crash, a sanitizer report, an
/// NNACCEL_ASSERT abort, a leaked std::exception, a timeout or an out-of-memory
/// (docs/Fuzzing.md).
#pragma once

#include "nnaccel/support/Error.h"

#include <cstddef>
#include <cstdint>
#include <string>

namespace nnaccel::fuzz {

inline std::string text(const uint8_t* data, size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

/// Runs \p parse, swallowing the user errors bad input must produce.
template <typename F> int accept(F&& parse) {
  try {
    parse();
  } catch (const Error&) {
  }
  return 0;
}

} // namespace nnaccel::fuzz
