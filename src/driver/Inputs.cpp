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

namespace {

/// The graph input an image is read for: an f32 tensor of rank 4 (else Error(Usage)).
const ir::Value& imageInput(const ir::Graph& g, size_t inputIndex, const std::string& path) {
  const ir::Value& v = g.value(g.inputs[inputIndex]);
  if (v.dtype != DType::F32 || v.shape.size() != 4)
    throw Error(ErrorKind::Usage, ErrorContext{.file = path},
                fmt::format("an image is read as an f32 NCHW or NHWC tensor, but model input "
                            "'{}' is {} {}",
                            v.name, dtypeName(v.dtype), dimsToString(v.shape)));
  return v;
}

} // namespace

Tensor readInputFile(const ir::Graph& g, size_t inputIndex, const std::string& path,
                     const ImagePreprocess& image) {
  NNACCEL_ASSERT(inputIndex < g.inputs.size()) << "input index " << inputIndex << " out of range";
  const ir::Value& v = g.value(g.inputs[inputIndex]);
  if (isImageFile(path)) {
    imageInput(g, inputIndex, path);
    try {
      return imageToTensor(readImage(path), image, v.shape);
    } catch (const Error& e) {
      if (e.kind() != ErrorKind::Usage || !e.context().file.empty())
        throw;
      throw Error(ErrorKind::Usage, ErrorContext{.file = path}, e.reason());
    }
  }
  Tensor t = readNpy(path);
  if (t.dtype() != v.dtype || t.shape() != v.shape) {
    throw Error(ErrorKind::Io, ErrorContext{.file = path},
                fmt::format("holds {} {} but model input '{}' is {} {}", dtypeName(t.dtype()),
                            dimsToString(t.shape()), v.name, dtypeName(v.dtype),
                            dimsToString(v.shape)));
  }
  return t;
}

frontend::InputData inputData(const std::string& path, const ImagePreprocess& image) {
  if (!isImageFile(path))
    return {path, readNpy(path).shape(), {}};
  const Image img = readImageHeader(path);
  return {path, {}, [h = img.height, w = img.width, c = img.channels, image](const Dims& declared) {
            return declared.size() == 4 ? imageInputShape(h, w, c, image, declared) : declared;
          }};
}

std::string describeInputFile(const ir::Graph& g, size_t inputIndex, const std::string& path,
                              const ImagePreprocess& image) {
  if (!isImageFile(path))
    return path;
  const Image img = readImageHeader(path);
  const Dims& shape = imageInput(g, inputIndex, path).shape;
  const bool nhwc = resolveLayout(image, shape) == ImageLayout::Nhwc;
  static constexpr const char* kKinds[] = {"", "gray", "gray+alpha", "RGB", "RGBA"};
  const int64_t h = shape[nhwc ? 1 : 2], w = shape[nhwc ? 2 : 3];
  return fmt::format("{}: {}x{} {}, {}, {}, {}", path, img.height, img.width,
                     kKinds[std::clamp<int64_t>(img.channels, 0, 4)],
                     img.height == h && img.width == w ? "no resize"
                                                       : fmt::format("bilinear to {}x{}", h, w),
                     nhwc ? "NHWC" : "NCHW", image.describe());
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
