/// \file
/// Code tables of the SCNN position encoding: the built-in tables of Figs. 4C and 5A-5E
/// (digest §3.4, reproduced exactly), the plain zero-run-length table, and the parser of
/// user-supplied tables.
#include "nnaccel/arch/sparse/formats/CodeTable.h"

#include "nnaccel/support/Error.h"

#include <algorithm>
#include <bit>
#include <cctype>
#include <charconv>
#include <fmt/format.h>
#include <utility>

namespace nnaccel::arch::sparse::formats {

namespace {

constexpr size_t kMaxCodes = size_t{1} << 16;

/// Appends kind n for n in [first, last].
void appendRange(std::vector<Code>& codes, CodeKind kind, int32_t first, int32_t last) {
  for (int32_t n = first; n <= last; ++n) {
    codes.push_back({kind, n});
  }
}

Error configError(std::string_view source, std::string reason) {
  ErrorContext context;
  context.file = std::string(source);
  return Error(ErrorKind::Config, std::move(context), std::move(reason));
}

} // namespace

char codeKindLetter(CodeKind kind) {
  switch (kind) {
  case CodeKind::Run:
    return 'R';
  case CodeKind::Row:
    return 'S';
  case CodeKind::Channel:
    return 'K';
  }
  NNACCEL_UNREACHABLE("bad CodeKind");
  return '?';
}

CodeTable::CodeTable(std::string name, std::vector<Code> codes)
    : name_(std::move(name)), codes_(std::move(codes)) {
  if (codes_.empty()) {
    throw configError(name_, "code table has no codes");
  }
  if (codes_.size() > kMaxCodes) {
    throw configError(name_, fmt::format("code table has {} codes, at most {} are allowed",
                                         codes_.size(), kMaxCodes));
  }
  std::vector<std::pair<int32_t, uint16_t>> byKind[3];
  for (size_t i = 0; i < codes_.size(); ++i) {
    const Code& c = codes_[i];
    if (c.n < 0) {
      throw configError(name_, fmt::format("code {} has a negative argument {}", i, c.n));
    }
    byKind[static_cast<size_t>(c.kind)].emplace_back(c.n, static_cast<uint16_t>(i));
  }
  for (size_t kind = 0; kind < 3; ++kind) {
    std::sort(byKind[kind].begin(), byKind[kind].end());
    for (const auto& [n, number] : byKind[kind]) {
      arguments_[kind].push_back(n);
      codeNumbers_[kind].push_back(number);
    }
  }
  for (const auto& args : arguments_) {
    const auto dup = std::adjacent_find(args.begin(), args.end());
    if (dup != args.end()) {
      const auto kind = static_cast<CodeKind>(&args - arguments_);
      throw configError(name_, fmt::format("duplicate code {}{}", codeKindLetter(kind), *dup));
    }
  }
  if (arguments_[static_cast<size_t>(CodeKind::Run)].empty()) {
    throw configError(name_, "code table has no run (R/X) code");
  }
  bits_ = std::max(1, static_cast<int>(std::bit_width(codes_.size() - 1)));
}

CodeTable CodeTable::zeroRunLength(int indexBits) {
  if (indexBits < 1 || indexBits > 16) {
    ErrorContext context;
    context.key = "indexBits";
    throw Error(ErrorKind::Usage, std::move(context),
                fmt::format("index width must be in [1, 16] bits, got {}", indexBits));
  }
  std::vector<Code> codes;
  appendRange(codes, CodeKind::Run, 0, (int32_t{1} << indexBits) - 1);
  return CodeTable(fmt::format("zrl{}", indexBits), std::move(codes));
}

CodeTable CodeTable::fig4cWeights() {
  std::vector<Code> codes;
  appendRange(codes, CodeKind::Run, 0, 8);
  codes.push_back({CodeKind::Run, 10}); // R9 is omitted on purpose to reach R10
  appendRange(codes, CodeKind::Row, 0, 3);
  appendRange(codes, CodeKind::Channel, 0, 1);
  return CodeTable("fig4c-weights", std::move(codes));
}

CodeTable CodeTable::fig4cActivations(bool code10IsY16) {
  std::vector<Code> codes;
  appendRange(codes, CodeKind::Run, 0, 8);
  codes.push_back({CodeKind::Run, 10});
  // Digest erratum 9: code 10 is printed "Y16"; the X run 8, 10, 16, 24 says X16.
  codes.push_back({code10IsY16 ? CodeKind::Row : CodeKind::Run, 16});
  codes.push_back({CodeKind::Run, 24});
  appendRange(codes, CodeKind::Row, 0, 3);
  return CodeTable(code10IsY16 ? "fig4c-ia-y16" : "fig4c-ia", std::move(codes));
}

CodeTable CodeTable::fig5a() {
  std::vector<Code> codes;
  appendRange(codes, CodeKind::Run, 0, 7);
  for (int32_t n : {12, 16, 24, 32, 48, 64, 96, 128}) { // digest erratum 8: no "18"
    codes.push_back({CodeKind::Run, n});
  }
  return CodeTable("fig5a", std::move(codes));
}

CodeTable CodeTable::fig5b() {
  std::vector<Code> codes;
  appendRange(codes, CodeKind::Run, 0, 7);
  appendRange(codes, CodeKind::Row, 0, 7);
  return CodeTable("fig5b", std::move(codes));
}

CodeTable CodeTable::fig5c() {
  std::vector<Code> codes;
  appendRange(codes, CodeKind::Run, 0, 10);
  appendRange(codes, CodeKind::Row, 0, 4);
  return CodeTable("fig5c", std::move(codes));
}

CodeTable CodeTable::fig5d() {
  std::vector<Code> codes;
  appendRange(codes, CodeKind::Run, 0, 13);
  appendRange(codes, CodeKind::Channel, 0, 1);
  return CodeTable("fig5d", std::move(codes));
}

CodeTable CodeTable::fig5e() {
  std::vector<Code> codes;
  appendRange(codes, CodeKind::Run, 0, 9);
  appendRange(codes, CodeKind::Row, 0, 3); // digest erratum 8: four S codes, not three
  appendRange(codes, CodeKind::Channel, 0, 1);
  return CodeTable("fig5e", std::move(codes));
}

CodeTable CodeTable::builtin(std::string_view name) {
  if (name == "fig4c-weights") {
    return fig4cWeights();
  }
  if (name == "fig4c-ia") {
    return fig4cActivations(false);
  }
  if (name == "fig4c-ia-y16") {
    return fig4cActivations(true);
  }
  if (name == "fig5a") {
    return fig5a();
  }
  if (name == "fig5b") {
    return fig5b();
  }
  if (name == "fig5c") {
    return fig5c();
  }
  if (name == "fig5d") {
    return fig5d();
  }
  if (name == "fig5e") {
    return fig5e();
  }
  if (name.size() > 3 && name.substr(0, 3) == "zrl") {
    int bits = 0;
    const std::string_view digits = name.substr(3);
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), bits);
    if (ec == std::errc() && end == digits.data() + digits.size() && bits >= 1 && bits <= 16) {
      return zeroRunLength(bits);
    }
  }
  ErrorContext context;
  context.key = std::string(name);
  throw Error(ErrorKind::Config, std::move(context),
              "unknown code table (expected fig4c-weights, fig4c-ia, fig4c-ia-y16, fig5a..fig5e "
              "or zrl1..zrl16)");
}

CodeTable CodeTable::parse(std::string_view text, std::string_view source) {
  std::vector<Code> codes;
  size_t pos = 0;
  while (pos < text.size()) {
    const auto isSeparator = [](char ch) {
      return ch == ',' || std::isspace(static_cast<unsigned char>(ch)) != 0;
    };
    if (isSeparator(text[pos])) {
      ++pos;
      continue;
    }
    size_t end = pos;
    while (end < text.size() && !isSeparator(text[end])) {
      ++end;
    }
    const std::string_view token = text.substr(pos, end - pos);
    pos = end;
    CodeKind kind = CodeKind::Run;
    switch (std::toupper(static_cast<unsigned char>(token[0]))) {
    case 'R':
    case 'X':
      kind = CodeKind::Run;
      break;
    case 'S':
    case 'Y':
      kind = CodeKind::Row;
      break;
    case 'K':
      kind = CodeKind::Channel;
      break;
    default:
      throw configError(source, fmt::format("bad code '{}' (expected R/X, S/Y or K followed by "
                                            "a non-negative number)",
                                            token));
    }
    const std::string_view digits = token.substr(1);
    int32_t n = 0;
    const auto [numEnd, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
    if (digits.empty() || ec != std::errc() || numEnd != digits.data() + digits.size() ||
        !std::isdigit(static_cast<unsigned char>(digits[0]))) {
      throw configError(source, fmt::format("bad code '{}' (expected R/X, S/Y or K followed by "
                                            "a non-negative number)",
                                            token));
    }
    if (codes.size() == kMaxCodes) {
      throw configError(source, fmt::format("code table has more than {} codes", kMaxCodes));
    }
    codes.push_back({kind, n});
  }
  return CodeTable(std::string(source), std::move(codes));
}

int CodeTable::find(CodeKind kind, int32_t n) const {
  const auto& args = arguments_[static_cast<size_t>(kind)];
  const auto it = std::lower_bound(args.begin(), args.end(), n);
  if (it == args.end() || *it != n) {
    return -1;
  }
  return codeNumbers_[static_cast<size_t>(kind)][static_cast<size_t>(it - args.begin())];
}

std::span<const int32_t> CodeTable::arguments(CodeKind kind) const {
  return arguments_[static_cast<size_t>(kind)];
}

std::string CodeTable::toString() const {
  std::string out;
  for (const Code& c : codes_) {
    if (!out.empty()) {
      out += ' ';
    }
    out += codeKindLetter(c.kind);
    out += std::to_string(c.n);
  }
  return out;
}

} // namespace nnaccel::arch::sparse::formats
