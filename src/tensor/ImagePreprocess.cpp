// From a decoded photograph to a model input (see Image.h): channel conversion, bilinear
// resize with half-pixel centres, normalization and layout.
#include "nnaccel/support/Error.h"
#include "nnaccel/tensor/Image.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <fmt/ranges.h>

namespace nnaccel {

namespace {

[[noreturn]] void usage(const std::string& reason) {
  throw Error(ErrorKind::Usage, ErrorContext{}, reason);
}

bool isChannelExtent(int64_t d) {
  return d == 1 || d == 3 || d == 4;
}

/// \p img's pixels as \p channels channels in 0..255 (HWC floats), in \p order.
std::vector<float> convertChannels(const Image& img, int64_t channels, ChannelOrder order) {
  const int64_t n = img.height * img.width, c = img.channels;
  std::vector<float> out(static_cast<size_t>(n * channels));
  const bool color = c >= 3, alpha = c == 2 || c == 4;
  for (int64_t p = 0; p < n; ++p) {
    const uint8_t* px = img.pixels.data() + p * c;
    const float r = px[0], g = color ? px[1] : px[0], b = color ? px[2] : px[0];
    const float a = alpha ? px[c - 1] : 255.0f;
    float* o = out.data() + p * channels;
    if (channels == 1) {
      o[0] = color ? 0.299f * r + 0.587f * g + 0.114f * b : r;
      continue;
    }
    const bool bgr = order == ChannelOrder::Bgr;
    o[0] = bgr ? b : r;
    o[1] = g;
    o[2] = bgr ? r : b;
    if (channels == 4)
      o[3] = a;
  }
  return out;
}

/// Source coordinate and weight of output position \p o of \p out along an axis of \p in:
/// half-pixel centres, clamped at the edges (OpenCV INTER_LINEAR).
struct Tap {
  int64_t i0, i1;
  float w1;
};
std::vector<Tap> taps(int64_t in, int64_t out) {
  std::vector<Tap> t(static_cast<size_t>(out));
  const double scale = static_cast<double>(in) / static_cast<double>(out);
  for (int64_t o = 0; o < out; ++o) {
    const double src = std::max(0.0, (static_cast<double>(o) + 0.5) * scale - 0.5);
    const auto i0 = std::min(static_cast<int64_t>(src), in - 1);
    t[static_cast<size_t>(o)] = {i0, std::min(i0 + 1, in - 1), static_cast<float>(src - i0)};
  }
  return t;
}

/// Bilinear resize of an HWC float image.
std::vector<float> resize(const std::vector<float>& src, int64_t h, int64_t w, int64_t c,
                          int64_t outH, int64_t outW) {
  if (h == outH && w == outW)
    return src;
  const std::vector<Tap> ty = taps(h, outH), tx = taps(w, outW);
  std::vector<float> out(static_cast<size_t>(outH * outW * c));
  for (int64_t y = 0; y < outH; ++y) {
    const Tap& a = ty[static_cast<size_t>(y)];
    for (int64_t x = 0; x < outW; ++x) {
      const Tap& b = tx[static_cast<size_t>(x)];
      for (int64_t k = 0; k < c; ++k) {
        const auto at = [&](int64_t yy, int64_t xx) {
          return src[static_cast<size_t>((yy * w + xx) * c + k)];
        };
        const float top = at(a.i0, b.i0) + b.w1 * (at(a.i0, b.i1) - at(a.i0, b.i0));
        const float bottom = at(a.i1, b.i0) + b.w1 * (at(a.i1, b.i1) - at(a.i1, b.i0));
        out[static_cast<size_t>((y * outW + x) * c + k)] = top + a.w1 * (bottom - top);
      }
    }
  }
  return out;
}

float perChannel(const std::vector<float>& v, int64_t c) {
  return v.size() == 1 ? v[0] : v[static_cast<size_t>(c)];
}

} // namespace

bool ImagePreprocess::setPreset(const std::string& name) {
  if (name == "unit") {
    mean = {0.0f};
    std = {1.0f};
  } else if (name == "signed") {
    mean = {0.5f};
    std = {0.5f};
  } else if (name == "raw") {
    mean = {0.0f};
    std = {1.0f / 255.0f};
  } else if (name == "imagenet") {
    mean = {0.485f, 0.456f, 0.406f};
    std = {0.229f, 0.224f, 0.225f};
  } else {
    return false;
  }
  return true;
}

std::string ImagePreprocess::describe() const {
  return fmt::format("{}, (x/255 - {}) / {}", order == ChannelOrder::Bgr ? "BGR" : "RGB",
                     fmt::join(mean, ","), fmt::join(std, ","));
}

ImageLayout resolveLayout(const ImagePreprocess& p, const Dims& dims) {
  if (p.layout != ImageLayout::Auto)
    return p.layout;
  if (dims.size() != 4)
    return ImageLayout::Nchw;
  // An extent of 3 (RGB) first, then 1 or 4, on exactly one of axes 1 and 3.
  for (const auto channels : {+[](int64_t d) { return d == 3; }, +isChannelExtent})
    if (channels(dims[1]) != channels(dims[3]))
      return channels(dims[3]) ? ImageLayout::Nhwc : ImageLayout::Nchw;
  return ImageLayout::Nchw;
}

Dims imageInputShape(int64_t height, int64_t width, int64_t channels, const ImagePreprocess& p,
                     const Dims& dims) {
  if (dims.size() != 4)
    usage(fmt::format("an image is a rank-4 input (NCHW or NHWC), but the input is rank {}",
                      dims.size()));
  const bool nhwc = resolveLayout(p, dims) == ImageLayout::Nhwc;
  const size_t cAxis = nhwc ? 3 : 1, hAxis = nhwc ? 1 : 2, wAxis = nhwc ? 2 : 3;
  Dims shape = dims;
  const auto fill = [&](size_t axis, int64_t given, int64_t own) {
    if (shape[axis] < 0)
      shape[axis] = given > 0 ? given : own;
  };
  // The batch (axis 0) stays as declared: --batch binds it, and the image is repeated.
  fill(cAxis, 0, channels == 2 ? 1 : channels == 4 ? 3 : channels);
  fill(hAxis, p.height, height);
  fill(wAxis, p.width, width);
  return shape;
}

Tensor imageToTensor(const Image& image, const ImagePreprocess& p, const Dims& shape) {
  NNACCEL_ASSERT(shape.size() == 4) << "image input of rank " << shape.size();
  const bool nhwc = resolveLayout(p, shape) == ImageLayout::Nhwc;
  const int64_t n = shape[0], c = shape[nhwc ? 3 : 1], h = shape[nhwc ? 1 : 2],
                w = shape[nhwc ? 2 : 3];
  if (!isChannelExtent(c))
    usage(fmt::format("an image has 1, 3 or 4 channels, but the input's {} layout gives it {}",
                      nhwc ? "NHWC" : "NCHW", c));
  for (const auto* v : {&p.mean, &p.std})
    if (v->size() != 1 && static_cast<int64_t>(v->size()) != c)
      usage(fmt::format("--{} has {} values, but the input has {} channel(s)",
                        v == &p.mean ? "mean" : "std", v->size(), c));
  for (float s : p.std)
    if (!(s != 0.0f) || !std::isfinite(s))
      usage(fmt::format("--std must be finite and non-zero, got {}", s));
  const std::vector<float> hwc =
      resize(convertChannels(image, c, p.order), image.height, image.width, c, h, w);
  Tensor t(DType::F32, shape);
  float* out = t.data<float>();
  for (int64_t b = 0; b < n; ++b)
    for (int64_t y = 0; y < h; ++y)
      for (int64_t x = 0; x < w; ++x)
        for (int64_t k = 0; k < c; ++k) {
          // (x/255 - mean) / std as (x - 255 mean) / (255 std): exact for the presets.
          const float v =
              (hwc[static_cast<size_t>((y * w + x) * c + k)] - 255.0f * perChannel(p.mean, k)) /
              (255.0f * perChannel(p.std, k));
          const int64_t at = nhwc ? ((b * h + y) * w + x) * c + k : ((b * c + k) * h + y) * w + x;
          out[at] = v;
        }
  return t;
}

} // namespace nnaccel
