// Whole-file read/write for the ONNX frontend, with nnaccel::Error(Io) naming the path.
#pragma once

#include <string>
#include <string_view>

namespace nnaccel::frontend::detail {

/// Reads \p path completely; throws Error(Io) if it is missing, a directory or unreadable.
std::string readFileBytes(const std::string& path);
/// Writes \p bytes to \p path (replacing it); throws Error(Io) on failure.
void writeFileBytes(const std::string& path, std::string_view bytes);

} // namespace nnaccel::frontend::detail
