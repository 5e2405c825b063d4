// Whole-file read/write with errors that name the file (see FileBytes.h).
#include "FileBytes.h"

#include "nnaccel/support/Error.h"

#include <cerrno>
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
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    failIo(path, "is a directory, not a file");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    failIo(path, std::string("cannot open file (") + std::strerror(errno) + ")");
  }
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) {
    failIo(path, "read error");
  }
  return std::move(buffer).str();
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
