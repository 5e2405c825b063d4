// Aligned plain-text tables and the number and type formatting of the reports (TextTable.h).
#include "nnaccel/report/TextTable.h"

#include "nnaccel/support/Error.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

namespace nnaccel::report {

void TextTable::addRow(std::vector<std::string> cells) {
  NNACCEL_ASSERT(cells.size() <= columns_.size()) << "row has more cells than columns";
  cells.resize(columns_.size());
  rows_.push_back(std::move(cells));
}

void TextTable::addRule() {
  rows_.emplace_back();
}

std::string TextTable::render() const {
  std::vector<size_t> widths(columns_.size());
  for (size_t c = 0; c < columns_.size(); ++c) {
    widths[c] = columns_[c].header.size();
    for (const auto& row : rows_) {
      if (!row.empty()) {
        widths[c] = std::max(widths[c], row[c].size());
      }
    }
  }
  auto line = [&](const std::vector<std::string>& cells) {
    std::string out;
    for (size_t c = 0; c < columns_.size(); ++c) {
      if (c > 0) {
        out += "  ";
      }
      const std::string& cell = cells.empty() ? std::string(widths[c], '-') : cells[c];
      const std::string pad(widths[c] - cell.size(), ' ');
      out += columns_[c].align == Align::Right ? pad + cell : cell + pad;
    }
    out.erase(out.find_last_not_of(' ') + 1);
    return out + "\n";
  };
  std::vector<std::string> header;
  for (const Column& c : columns_) {
    header.push_back(c.header);
  }
  std::string out = line(header) + line({});
  for (const auto& row : rows_) {
    out += line(row);
  }
  return out;
}

std::string typeText(DType dtype, const Dims& shape) {
  return fmt::format("{} {}", dtypeName(dtype), dimsToString(shape));
}

std::string numberText(double value) {
  return fmt::format("{:.6g}", value);
}

std::string groupThousands(int64_t value) {
  // The magnitude as unsigned: -INT64_MIN does not fit an int64_t.
  const std::string digits =
      std::to_string(value < 0 ? -static_cast<uint64_t>(value) : static_cast<uint64_t>(value));
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) {
      out += ',';
    }
    out += digits[i];
  }
  return value < 0 ? "-" + out : out;
}

std::string humanCount(int64_t value) {
  static constexpr const char* kSuffixes[] = {"", "K", "M", "G", "T"};
  double v = static_cast<double>(value);
  size_t s = 0;
  while (std::fabs(v) >= 999.5 && s + 1 < std::size(kSuffixes)) {
    v /= 1000.0;
    ++s;
  }
  if (s == 0) {
    return std::to_string(value);
  }
  const int decimals = std::fabs(v) >= 99.95 ? 0 : std::fabs(v) >= 9.995 ? 1 : 2;
  return fmt::format("{:.{}f}{}", v, decimals, kSuffixes[s]);
}

} // namespace nnaccel::report
