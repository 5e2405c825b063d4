/// \file
/// Whole-file reading with a size cap, the one way every loader reads a user's file (models,
/// .npy inputs, images, configs, budgets, programs, CSVs, SCALE-Sim files): a directory or a
/// device is refused, a regular file larger than its kind's cap is refused before it is read,
/// and a pipe is read only up to the cap, so no input can hang a command or exhaust memory
/// (docs/ErrorHandling.md "Resource guards").
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace nnaccel {

/// Caps by kind of file. Text: configs, budgets, JSON specs, SCALE-Sim files. Tables: sweep
/// CSVs. Data: .npy tensors and compiled programs, which hold whole tensors.
inline constexpr std::size_t kMaxTextFileBytes = std::size_t{64} << 20;
inline constexpr std::size_t kMaxTableFileBytes = std::size_t{1} << 30;
inline constexpr std::size_t kMaxDataFileBytes = std::size_t{4} << 30;

/// Reads \p path completely. Throws Error(Io) naming the file when it is a directory or a
/// device (character or block special file, socket: "is a device, not a \p noun"), cannot be
/// opened or read, or holds more than \p maxBytes (checked from its size first, and while
/// reading, so a pipe that never ends is refused too).
std::string readFileCapped(const std::string& path, std::size_t maxBytes,
                           std::string_view noun = "file");

} // namespace nnaccel
