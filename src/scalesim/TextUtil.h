/// \file
/// Small text helpers shared by the SCALE-Sim config and topology readers: whitespace trimming,
/// Python-int() parsing and whole-file reading. Internal to src/scalesim.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace nnaccel::scalesim::detail {

/// \p s without leading and trailing whitespace (Python's str.strip()).
std::string_view trim(std::string_view s);

/// The value of \p s as Python's int() reads it (surrounding whitespace, an optional sign,
/// decimal digits with single underscores between them), or nullopt. Values outside int64 are
/// nullopt too.
std::optional<int64_t> parsePythonInt(std::string_view s);

/// The bytes of \p path; Error(Io) naming the file when it cannot be read.
std::string readTextFile(const std::string& path);

} // namespace nnaccel::scalesim::detail
