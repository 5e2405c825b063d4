// Whole-file reading with a size bound for the tensor module's file formats (.npy, images):
// private to the module.
#pragma once

#include <cstddef>
#include <string>

namespace nnaccel::detail {

/// Reads \p path completely. Throws Error(Io) naming the file when it cannot be opened or read,
/// or when it holds more than \p maxBytes (checked while reading, so a device or pipe that
/// never ends is refused too).
std::string readWholeFile(const std::string& path, std::size_t maxBytes);

} // namespace nnaccel::detail
