// Bounded whole-file reading (see ReadFile.h).
#include "ReadFile.h"

#include "nnaccel/support/Error.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fmt/format.h>
#include <memory>

namespace nnaccel::detail {

namespace {

struct ClosesFile {
  void operator()(std::FILE* f) const { std::fclose(f); }
};

} // namespace

std::string readWholeFile(const std::string& path, std::size_t maxBytes) {
  const auto failRead = [&](const std::string& reason) {
    throw Error(ErrorKind::Io, ErrorContext{.file = path}, reason);
  };
  std::unique_ptr<std::FILE, ClosesFile> f(std::fopen(path.c_str(), "rb"));
  if (!f)
    failRead(std::string("cannot open file (") + std::strerror(errno) + ")");
  std::string bytes;
  char buffer[1 << 16];
  size_t n = 0;
  while ((n = std::fread(buffer, 1, sizeof buffer, f.get())) > 0) {
    if (n > maxBytes - bytes.size())
      failRead(fmt::format("the file is larger than {} bytes", maxBytes));
    bytes.append(buffer, n);
  }
  if (std::ferror(f.get()))
    failRead("read error");
  return bytes;
}

} // namespace nnaccel::detail
