/// \file
/// Whitespace trimming, Python-int() parsing and file reading for the SCALE-Sim readers.
#include "TextUtil.h"

#include "nnaccel/support/Error.h"
#include "nnaccel/support/ReadFile.h"

#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

namespace nnaccel::scalesim::detail {

std::string_view trim(std::string_view s) {
  constexpr std::string_view kSpace = " \t\r\n\f\v";
  const size_t first = s.find_first_not_of(kSpace);
  if (first == std::string_view::npos) {
    return {};
  }
  const size_t last = s.find_last_not_of(kSpace);
  return s.substr(first, last - first + 1);
}

std::optional<int64_t> parsePythonInt(std::string_view s) {
  s = trim(s);
  bool negative = false;
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s.empty() || s.front() == '_' || s.back() == '_') {
    return std::nullopt;
  }
  uint64_t magnitude = 0;
  const uint64_t limit = static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) + 1;
  char previous = ' ';
  for (char ch : s) {
    if (ch == '_') {
      if (previous == '_') {
        return std::nullopt;
      }
    } else if (ch >= '0' && ch <= '9') {
      const uint64_t digit = static_cast<uint64_t>(ch - '0');
      if (magnitude > (limit - digit) / 10) {
        return std::nullopt;
      }
      magnitude = magnitude * 10 + digit;
    } else {
      return std::nullopt;
    }
    previous = ch;
  }
  if (!negative && magnitude == limit) {
    return std::nullopt;
  }
  return negative ? static_cast<int64_t>(0 - magnitude) : static_cast<int64_t>(magnitude);
}

std::string readTextFile(const std::string& path) {
  return readFileCapped(path, kMaxTextFileBytes);
}

} // namespace nnaccel::scalesim::detail
