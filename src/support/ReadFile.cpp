/// \file
/// Bounded whole-file reading (support/ReadFile.h).
#include "nnaccel/support/ReadFile.h"

#include "nnaccel/support/Error.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>

namespace nnaccel {

namespace {

struct ClosesFile {
  void operator()(std::FILE* f) const { std::fclose(f); }
};

[[noreturn]] void failRead(const std::string& path, const std::string& reason) {
  throw Error(ErrorKind::Io, ErrorContext{.file = path}, reason);
}

std::string tooLarge(std::size_t maxBytes) {
  return "the file is larger than the " + std::to_string(maxBytes) + "-byte limit for its kind";
}

/// Refuses what is not a file or a pipe, and a regular file above the cap, before reading.
void checkKind(const std::string& path, std::size_t maxBytes, std::string_view noun) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (ec)
    return; // missing or unreadable: fopen reports it with its errno
  if (fs::is_directory(status))
    failRead(path, "is a directory, not a " + std::string(noun));
  if (fs::is_character_file(status) || fs::is_block_file(status) || fs::is_socket(status))
    failRead(path, "is a device, not a " + std::string(noun));
  if (fs::is_regular_file(status)) {
    const std::uintmax_t size = fs::file_size(path, ec);
    if (!ec && size > maxBytes)
      failRead(path, tooLarge(maxBytes));
  }
}

} // namespace

std::string readFileCapped(const std::string& path, std::size_t maxBytes, std::string_view noun) {
  checkKind(path, maxBytes, noun);
  std::unique_ptr<std::FILE, ClosesFile> f(std::fopen(path.c_str(), "rb"));
  if (!f)
    failRead(path, std::string("cannot open file (") + std::strerror(errno) + ")");
  std::string bytes;
  char buffer[1 << 16];
  size_t n = 0;
  while ((n = std::fread(buffer, 1, sizeof buffer, f.get())) > 0) {
    if (n > maxBytes - bytes.size())
      failRead(path, tooLarge(maxBytes));
    bytes.append(buffer, n);
  }
  if (std::ferror(f.get()))
    failRead(path, "read error");
  return bytes;
}

} // namespace nnaccel
