// Whole-file read/write for the ONNX frontend, with nnaccel::Error(Io) naming the path.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace nnaccel::frontend::detail {

/// Size of the regular file \p path, or nullopt if it cannot be determined (missing, not a
/// regular file): lets callers reject an oversized file before reading it.
std::optional<std::uintmax_t> fileSizeBytes(const std::string& path);
/// Reads \p path completely; throws Error(Io) if it is missing, a directory or unreadable.
std::string readFileBytes(const std::string& path);
/// Writes \p bytes to \p path (replacing it); throws Error(Io) on failure.
void writeFileBytes(const std::string& path, std::string_view bytes);

} // namespace nnaccel::frontend::detail
