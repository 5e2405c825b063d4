/// \file
/// The memory budget (support/MemoryBudget.h): physical memory from sysconf, the refusal, and
/// the byte sizes it prints and parses.
#include "nnaccel/support/MemoryBudget.h"

#include "nnaccel/support/Error.h"

#include <atomic>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <unistd.h>

namespace nnaccel {

namespace {

std::atomic<std::uint64_t> budgetSet{0};

std::uint64_t defaultBudget() {
  const long pages = ::sysconf(_SC_PHYS_PAGES), pageBytes = ::sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || pageBytes <= 0)
    return std::uint64_t{1} << 62; // unknown: no limit of our own
  return static_cast<std::uint64_t>(static_cast<double>(pages) * static_cast<double>(pageBytes) *
                                    0.8);
}

} // namespace

std::uint64_t memoryBudgetBytes() {
  const std::uint64_t set = budgetSet.load();
  if (set != 0)
    return set;
  static const std::uint64_t fallback = defaultBudget();
  return fallback;
}

void setMemoryBudgetBytes(std::uint64_t bytes) {
  budgetSet.store(bytes);
}

void requireMemory(std::uint64_t bytes, std::string_view what) {
  const std::uint64_t budget = memoryBudgetBytes();
  if (bytes <= budget)
    return;
  throw Error(ErrorKind::Unsupported, ErrorContext{},
              std::string(what) + " would take " + byteSizeText(bytes) +
                  ", more than the memory budget of " + byteSizeText(budget) +
                  (budgetSet.load() == 0 ? " (80 % of this machine's memory; --max-memory)"
                                         : " (--max-memory)"));
}

std::string byteSizeText(std::uint64_t bytes) {
  static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  auto value = static_cast<double>(bytes);
  size_t unit = 0;
  while (value >= 1024 && unit + 1 < std::size(kUnits)) {
    value /= 1024;
    ++unit;
  }
  char text[32];
  if (unit == 0)
    std::snprintf(text, sizeof text, "%llu B", static_cast<unsigned long long>(bytes));
  else
    std::snprintf(text, sizeof text, "%.3g %s", value, kUnits[unit]);
  return text;
}

std::optional<std::uint64_t> parseByteSize(std::string_view text) {
  double number = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), number);
  if (ec != std::errc{} || !(number > 0))
    return std::nullopt;
  std::string_view suffix(end, static_cast<size_t>(text.data() + text.size() - end));
  for (std::string_view tail : {"iB", "B"})
    if (suffix.size() > tail.size() && suffix.ends_with(tail)) {
      suffix.remove_suffix(tail.size());
      break;
    }
  double scale = 1;
  if (suffix == "k" || suffix == "K")
    scale = 0x1p10;
  else if (suffix == "M")
    scale = 0x1p20;
  else if (suffix == "G")
    scale = 0x1p30;
  else if (suffix == "T")
    scale = 0x1p40;
  else if (!suffix.empty() && suffix != "B")
    return std::nullopt;
  const double bytes = std::ceil(number * scale);
  if (!(bytes >= 1 && bytes <= 0x1p62))
    return std::nullopt;
  return static_cast<std::uint64_t>(bytes);
}

} // namespace nnaccel
