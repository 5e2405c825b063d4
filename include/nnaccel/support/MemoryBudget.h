/// \file
/// The memory budget: the most any one structure a command allocates may take (a tensor, a
/// simulator's on-chip memories, a sweep's results). Before such an allocation the code states
/// its size with requireMemory, which refuses one beyond the budget with the estimate and the
/// limit, instead of ending in std::bad_alloc or the out-of-memory killer (issue 20,
/// docs/ErrorHandling.md "Resource guards"). The default is 80 % of the machine's physical
/// memory; `--max-memory` sets it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace nnaccel {

/// The budget in bytes: the value set by setMemoryBudgetBytes, else 80 % of physical memory.
std::uint64_t memoryBudgetBytes();
/// Sets the budget (\p bytes > 0); 0 restores the default.
void setMemoryBudgetBytes(std::uint64_t bytes);

/// Throws Error(Unsupported) when \p bytes exceed the budget: "<what> would take 128 GiB, more than
/// the memory budget of 18.4 GiB (--max-memory)".
void requireMemory(std::uint64_t bytes, std::string_view what);

/// "1.5 GiB", "512 KiB", "17 B": binary units, three significant digits.
std::string byteSizeText(std::uint64_t bytes);
/// "8G", "512M", "64k", "1.5GiB", "1000000": a byte count with an optional binary suffix (k, M,
/// G, T, with or without "iB"/"B"); nothing when malformed, zero or beyond 2^62.
std::optional<std::uint64_t> parseByteSize(std::string_view text);

} // namespace nnaccel
