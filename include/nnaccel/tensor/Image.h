/// \file
/// Photographs as model inputs: PNG and JPEG files decoded (libpng, libjpeg-turbo) and turned
/// into the f32 tensor a vision model expects, the way the common preprocessing pipelines do
/// it: channel conversion, a bilinear resize, a layout, and a normalization.
///
/// The preprocessing, in order (docs/CLI.md, "Images as inputs"):
///  1. channels: an 8-bit gray, gray+alpha, RGB or RGBA image is converted to the input's channel
///     count: 1 = luma (ITU-R BT.601 weights 0.299, 0.587, 0.114, as PIL's convert("L")),
///     3 = RGB (gray replicated, alpha dropped), 4 = RGBA (an opaque alpha of 255 added);
///     `bgr` order reverses the first three channels (OpenCV and Caffe/Paddle models);
///  2. size: bilinear with half-pixel centres and edge clamping (OpenCV's INTER_LINEAR, PIL's
///     BILINEAR without antialiasing), to the input's height and width;
///  3. values: y = (x / 255 - mean[c]) / std[c] (the named presets below fix mean and std);
///  4. layout: NCHW or NHWC, chosen from the input's shape when not given: the channels are on
///     whichever of axes 1 and 3 alone has extent 3, else alone has extent 1, 3 or 4; NCHW when
///     that does not decide.
/// A batch larger than 1 repeats the image.
#pragma once

#include "nnaccel/tensor/Tensor.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace nnaccel {

/// An 8-bit image, rows top to bottom, each pixel's channels in turn (HWC).
struct Image {
  int64_t height = 0, width = 0, channels = 0; ///< channels: 1 gray, 2 gray+alpha, 3 RGB, 4 RGBA
  std::vector<uint8_t> pixels;
};

/// Largest image file and image (pixels) read: a decoded image this size is 1 GiB of RGBA.
inline constexpr std::size_t kMaxImageFileBytes = std::size_t{256} << 20;
inline constexpr int64_t kMaxImagePixels = int64_t{1} << 28;

/// True when \p path names a PNG or JPEG file (by its first bytes; false when unreadable).
bool isImageFile(const std::string& path);
/// Decodes the PNG or JPEG file \p path. Throws Error(Io) naming the file when it is not one,
/// is corrupt or truncated, or is larger than the limits above.
Image readImage(const std::string& path);
/// readImage without the pixels: the size and channels from the file's header, with the same
/// checks of the header (what binding symbolic dims and describing an input need).
Image readImageHeader(const std::string& path);
/// Decodes \p bytes, the contents of a PNG or JPEG file (the pixels unless \p headerOnly);
/// errors name \p origin. readImage's decoder, and the fuzz target's entry point.
Image decodeImage(const std::string& bytes, const std::string& origin, bool headerOnly = false);

enum class ImageLayout { Auto, Nchw, Nhwc };
enum class ChannelOrder { Rgb, Bgr };

/// How an image becomes a tensor. mean and std have one value, or one per channel.
struct ImagePreprocess {
  ImageLayout layout = ImageLayout::Auto;
  ChannelOrder order = ChannelOrder::Rgb;
  int64_t height = 0, width = 0; ///< --size; 0: the input's extents, else the image's own
  std::vector<float> mean{0.0f}, std{1.0f};
  /// Named normalizations: "unit" ([0, 1], the default), "signed" ([-1, 1]), "raw" ([0, 255]),
  /// "imagenet" (torchvision's mean 0.485, 0.456, 0.406 and std 0.229, 0.224, 0.225).
  /// Returns false for an unknown name.
  bool setPreset(const std::string& name);
  std::string describe() const; ///< e.g. "RGB, (x/255 - 0.5) / 0.5"
};

/// The layout \p p gives an input of \p dims (-1 for an unbound extent); rank 4 only.
ImageLayout resolveLayout(const ImagePreprocess& p, const Dims& dims);
/// The shape the image of \p height x \p width x \p channels takes for an input declared
/// \p dims (-1 where unbound: filled from --size, else the image): used to bind symbolic dims.
Dims imageInputShape(int64_t height, int64_t width, int64_t channels, const ImagePreprocess& p,
                     const Dims& dims);
/// \p image preprocessed into an f32 tensor of \p shape (rank 4, fully bound).
Tensor imageToTensor(const Image& image, const ImagePreprocess& p, const Dims& shape);

} // namespace nnaccel
