// .npy input files checked against the graph's inputs, and output
// paths checked for writing before a run.
#include "nnaccel/driver/Inputs.h"

#include "nnaccel/quant/QuantizedModel.h"
#include "nnaccel/tensor/Npy.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <unistd.h>

namespace nnaccel::driver {

Tensor readInputFile(const ir::Graph& g, size_t inputIndex, const std::string& path) {
  NNACCEL_ASSERT(inputIndex < g.inputs.size()) << "input index " << inputIndex << " out of range";
  const ir::Value& v = g.value(g.inputs[inputIndex]);
  Tensor t = readNpy(path);
  if (t.dtype() != v.dtype || t.shape() != v.shape) {
    throw Error(ErrorKind::Io, ErrorContext{.file = path},
                fmt::format("holds {} {} but model input '{}' is {} {}", dtypeName(t.dtype()),
                            dimsToString(t.shape()), v.name, dtypeName(v.dtype),
                            dimsToString(v.shape)));
  }
  return t;
}

void checkWritable(const std::string& path) {
  namespace fs = std::filesystem;
  auto fail = [&](int error) {
    throw Error(ErrorKind::Io, ErrorContext{.file = path},
                fmt::format("cannot open file for writing ({})", std::strerror(error)));
  };
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (fs::exists(status)) {
    if (fs::is_directory(status)) {
      fail(EISDIR);
    }
    if (::access(path.c_str(), W_OK) != 0) {
      fail(errno);
    }
    return;
  }
  const fs::path parent = fs::path(path).parent_path();
  const std::string dir = parent.empty() ? "." : parent.string();
  const fs::file_status dirStatus = fs::status(dir, ec);
  if (fs::exists(dirStatus) && !fs::is_directory(dirStatus)) {
    fail(ENOTDIR);
  }
  if (::access(dir.c_str(), W_OK | X_OK) != 0) {
    fail(errno);
  }
}

} // namespace nnaccel::driver
