// Whole-file read/write with errors that name the file (see FileBytes.h).
#include "FileBytes.h"

#include "nnaccel/support/Error.h"
#include "nnaccel/support/ReadFile.h"

#include <cerrno>
#include <climits>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace nnaccel::frontend::detail {

namespace {
[[noreturn]] void failIo(const std::string& path, const std::string& reason) {
  throw Error(ErrorKind::Io, ErrorContext{.file = path}, reason);
}
} // namespace

std::optional<std::uintmax_t> fileSizeBytes(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    return std::nullopt;
  }
  const std::uintmax_t size = std::filesystem::file_size(path, ec);
  return ec ? std::nullopt : std::optional(size);
}

std::string readFileBytes(const std::string& path) {
  // The protobuf limit: importModelFile refuses larger files first, with its own message.
  return readFileCapped(path, static_cast<std::size_t>(INT_MAX));
}

void writeFileBytes(const std::string& path, std::string_view bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) {
    failIo(path, std::string("cannot open file for writing (") + std::strerror(errno) + ")");
  }
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) {
    failIo(path, "write error");
  }
}

} // namespace nnaccel::frontend::detail
