// PNG and JPEG decoding (libpng's simplified API, libjpeg-turbo's libjpeg API) and the
// preprocessing that turns a photograph into a vision model's input (see Image.h).
#include "nnaccel/tensor/Image.h"

#include "nnaccel/support/Error.h"
#include "nnaccel/support/ReadFile.h"

#include <algorithm>
#include <cmath>
#include <csetjmp>
#include <cstdio>
#include <fmt/format.h>
#include <fstream>
#include <jpeglib.h>
#include <png.h>

namespace nnaccel {

namespace {

[[noreturn]] void failImage(const std::string& path, const std::string& reason) {
  throw Error(ErrorKind::Io, ErrorContext{.file = path}, reason);
}

constexpr unsigned char kPngSignature[] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
constexpr unsigned char kJpegSignature[] = {0xff, 0xd8, 0xff};

bool startsWith(const std::string& bytes, const unsigned char* sig, size_t n) {
  return bytes.size() >= n && std::equal(sig, sig + n, bytes.begin(), [](unsigned char a, char b) {
           return a == static_cast<unsigned char>(b);
         });
}

/// The reason an image of \p height x \p width cannot be read, or "" when it can.
std::string extentProblem(int64_t height, int64_t width) {
  if (height > 0 && width > 0 && height <= kMaxImagePixels / width)
    return {};
  return fmt::format("the image is {}x{} pixels; nnaccel reads at most 2^28", height, width);
}

/// Decodes the PNG \p bytes, or only its header (no pixels) when \p headerOnly.
Image decodePng(const std::string& path, const std::string& bytes, bool headerOnly) {
  png_image png{};
  png.version = PNG_IMAGE_VERSION;
  if (!png_image_begin_read_from_memory(&png, bytes.data(), bytes.size()))
    failImage(path, fmt::format("not a valid PNG file ({})", png.message));
  const bool color = (png.format & PNG_FORMAT_FLAG_COLOR) != 0;
  const bool alpha = (png.format & PNG_FORMAT_FLAG_ALPHA) != 0;
  png.format = (color ? PNG_FORMAT_RGB : PNG_FORMAT_GRAY) | (alpha ? PNG_FORMAT_FLAG_ALPHA : 0);
  Image img;
  img.height = png.height;
  img.width = png.width;
  img.channels = (color ? 3 : 1) + (alpha ? 1 : 0);
  if (const std::string why = extentProblem(img.height, img.width); !why.empty() || headerOnly) {
    png_image_free(&png);
    if (!why.empty())
      failImage(path, why);
    return img;
  }
  img.pixels.resize(PNG_IMAGE_SIZE(png));
  if (!png_image_finish_read(&png, nullptr, img.pixels.data(), 0, nullptr))
    failImage(path, fmt::format("corrupt PNG data ({})", png.message));
  return img;
}

/// libjpeg reports fatal errors through error_exit, which must not return: it jumps back to
/// decodeJpegInto's setjmp with the message formatted.
struct JpegErrors {
  jpeg_error_mgr mgr;
  std::jmp_buf jump;
  char message[JMSG_LENGTH_MAX];
};

void jpegErrorExit(j_common_ptr c) {
  auto* e = reinterpret_cast<JpegErrors*>(c->err);
  (*c->err->format_message)(c, e->message);
  std::longjmp(e->jump, 1);
}

void jpegIgnoreMessage(j_common_ptr) {}

/// Decodes into \p img (owned by the caller, so nothing in this frame needs its value after a
/// longjmp), only the header when \p headerOnly; returns an empty string or the reason it failed.
std::string decodeJpegInto(const std::string& bytes, Image* img, bool headerOnly) {
  jpeg_decompress_struct cinfo;
  JpegErrors errors;
  cinfo.err = jpeg_std_error(&errors.mgr);
  errors.mgr.error_exit = jpegErrorExit;
  errors.mgr.output_message = jpegIgnoreMessage;
  if (setjmp(errors.jump)) {
    jpeg_destroy_decompress(&cinfo);
    return std::string("not a valid JPEG file (") + errors.message + ")";
  }
  jpeg_create_decompress(&cinfo);
  jpeg_mem_src(&cinfo, reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size());
  jpeg_read_header(&cinfo, TRUE);
  if (cinfo.jpeg_color_space == JCS_CMYK || cinfo.jpeg_color_space == JCS_YCCK) {
    jpeg_destroy_decompress(&cinfo);
    return "CMYK JPEG images are not supported";
  }
  cinfo.out_color_space = cinfo.num_components == 1 ? JCS_GRAYSCALE : JCS_RGB;
  const std::string why = extentProblem(cinfo.image_height, cinfo.image_width);
  if (!why.empty() || headerOnly) {
    img->height = cinfo.image_height;
    img->width = cinfo.image_width;
    img->channels = cinfo.num_components == 1 ? 1 : 3;
    jpeg_destroy_decompress(&cinfo);
    return why;
  }
  jpeg_start_decompress(&cinfo);
  img->height = cinfo.output_height;
  img->width = cinfo.output_width;
  img->channels = cinfo.output_components;
  img->pixels.resize(static_cast<size_t>(img->height * img->width * img->channels));
  while (cinfo.output_scanline < cinfo.output_height) {
    JSAMPROW row = img->pixels.data() + static_cast<size_t>(cinfo.output_scanline) *
                                            static_cast<size_t>(img->width * img->channels);
    jpeg_read_scanlines(&cinfo, &row, 1);
  }
  jpeg_finish_decompress(&cinfo);
  jpeg_destroy_decompress(&cinfo);
  return {};
}

} // namespace

bool isImageFile(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::string head(8, '\0');
  if (!f.read(head.data(), static_cast<std::streamsize>(head.size())))
    return false;
  return startsWith(head, kPngSignature, sizeof kPngSignature) ||
         startsWith(head, kJpegSignature, sizeof kJpegSignature);
}

Image decodeImage(const std::string& bytes, const std::string& path, bool headerOnly) {
  if (startsWith(bytes, kPngSignature, sizeof kPngSignature))
    return decodePng(path, bytes, headerOnly);
  if (!startsWith(bytes, kJpegSignature, sizeof kJpegSignature))
    failImage(path, "not a PNG or JPEG file");
  Image img;
  if (const std::string why = decodeJpegInto(bytes, &img, headerOnly); !why.empty())
    failImage(path, why);
  return img;
}

Image readImage(const std::string& path) {
  return decodeImage(readFileCapped(path, kMaxImageFileBytes), path, false);
}

Image readImageHeader(const std::string& path) {
  return decodeImage(readFileCapped(path, kMaxImageFileBytes), path, true);
}

} // namespace nnaccel
