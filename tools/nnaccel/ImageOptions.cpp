// The image preprocessing options of `run` and `simulate` (see ImageOptions.h).
#include "ImageOptions.h"

#include "Command.h"

#include <charconv>
#include <fmt/format.h>

namespace nnaccel::cli {

namespace {

/// "HxW" with positive extents of at most 2^16, or nullopt.
std::optional<std::pair<int64_t, int64_t>> parseSize(const std::string& text) {
  const size_t x = text.find('x');
  if (x == std::string::npos)
    return std::nullopt;
  int64_t h = 0, w = 0;
  const char* end = text.data() + text.size();
  const auto hr = std::from_chars(text.data(), text.data() + x, h);
  const auto wr = std::from_chars(text.data() + x + 1, end, w);
  if (hr.ptr != text.data() + x || wr.ptr != end || hr.ec != std::errc() || wr.ec != std::errc() ||
      h < 1 || w < 1 || h > 65536 || w > 65536)
    return std::nullopt;
  return std::pair{h, w};
}

} // namespace

void ImageOptions::configure(CLI::App& app) {
  app_ = &app;
  const std::string group = "Image inputs (PNG/JPEG --input files)";
  app.add_option("--layout", layout_,
                 "tensor layout of an image input: nchw, nhwc, or auto (from the input's shape: "
                 "the axis of extent 1, 3 or 4 holds the channels)")
      ->check(oneOf({"auto", "nchw", "nhwc"}))
      ->capture_default_str()
      ->group(group);
  app.add_option("--size", size_,
                 "HxW to resize images to where the input's height and width are symbolic "
                 "(default: the image's own size; fixed extents always win)")
      ->group(group);
  app.add_option("--norm", norm_,
                 "value normalization: unit (x/255), signed ((x/255 - 0.5)/0.5), raw (x), imagenet "
                 "(torchvision's mean/std)")
      ->check(oneOf({"unit", "signed", "raw", "imagenet"}))
      ->capture_default_str()
      ->group(group);
  app.add_option("--mean", mean_, "per-channel mean on the [0, 1] scale (overrides --norm)")
      ->delimiter(',')
      ->group(group);
  app.add_option("--std", std_, "per-channel standard deviation on the [0, 1] scale")
      ->delimiter(',')
      ->group(group);
  app.add_option("--channel-order", order_,
                 "rgb, or bgr (OpenCV-, Caffe- and Paddle-trained models)")
      ->check(oneOf({"rgb", "bgr"}))
      ->capture_default_str()
      ->group(group);
}

ImagePreprocess ImageOptions::preprocess() const {
  ImagePreprocess p;
  p.layout = layout_ == "nchw"   ? ImageLayout::Nchw
             : layout_ == "nhwc" ? ImageLayout::Nhwc
                                 : ImageLayout::Auto;
  p.order = order_ == "bgr" ? ChannelOrder::Bgr : ChannelOrder::Rgb;
  const bool known = p.setPreset(norm_);
  NNACCEL_ASSERT(known) << "--norm '" << norm_ << "' passed the validator";
  if (!size_.empty()) {
    const auto hw = parseSize(size_);
    if (!hw)
      throw usageError(*app_, fmt::format("--size: '{}' is not HxW with extents 1..65536", size_));
    std::tie(p.height, p.width) = *hw;
  }
  if (!mean_.empty())
    p.mean = mean_;
  if (!std_.empty())
    p.std = std_;
  if ((mean_.empty() != std_.empty()))
    throw usageError(*app_, "--mean and --std go together (or use --norm)");
  return p;
}

} // namespace nnaccel::cli
