// Tests for photographs as model inputs: PNG decoding is exact (gray, RGB, RGBA, 16-bit and
// palette images through libpng's simplified API), JPEG decoding is within the codec's error,
// and every failure names the file; the preprocessing (channel conversion, half-pixel bilinear
// resize, normalization presets, layout) gives hand-computed values.
#include "nnaccel/tensor/Image.h"

#include "TempFiles.h"
#include "nnaccel/support/Error.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <jpeglib.h>
#include <png.h>
#include <zlib.h>

using namespace nnaccel;
using namespace nnaccel::test;

namespace {

/// Writes an 8-bit PNG of \p channels (1..4) channels.
std::string writePng(const std::string& name, int64_t h, int64_t w, int64_t channels,
                     const std::vector<uint8_t>& pixels) {
  static constexpr png_uint_32 kFormats[] = {0, PNG_FORMAT_GRAY, PNG_FORMAT_GA, PNG_FORMAT_RGB,
                                             PNG_FORMAT_RGBA};
  png_image png{};
  png.version = PNG_IMAGE_VERSION;
  png.width = static_cast<png_uint_32>(w);
  png.height = static_cast<png_uint_32>(h);
  png.format = kFormats[channels];
  const std::string path = tempPath(name);
  EXPECT_TRUE(png_image_write_to_file(&png, path.c_str(), 0, pixels.data(), 0, nullptr));
  return path;
}

/// Writes a quality-100 RGB JPEG.
std::string writeJpeg(const std::string& name, int64_t h, int64_t w,
                      const std::vector<uint8_t>& rgb) {
  const std::string path = tempPath(name);
  std::FILE* f = std::fopen(path.c_str(), "wb");
  jpeg_compress_struct c;
  jpeg_error_mgr err;
  c.err = jpeg_std_error(&err);
  jpeg_create_compress(&c);
  jpeg_stdio_dest(&c, f);
  c.image_width = static_cast<JDIMENSION>(w);
  c.image_height = static_cast<JDIMENSION>(h);
  c.input_components = 3;
  c.in_color_space = JCS_RGB;
  jpeg_set_defaults(&c);
  jpeg_set_quality(&c, 100, TRUE);
  jpeg_start_compress(&c, TRUE);
  while (c.next_scanline < c.image_height) {
    JSAMPROW row = const_cast<uint8_t*>(rgb.data()) + c.next_scanline * w * 3;
    jpeg_write_scanlines(&c, &row, 1);
  }
  jpeg_finish_compress(&c);
  jpeg_destroy_compress(&c);
  std::fclose(f);
  return path;
}

std::vector<float> floatsOf(const Tensor& t) {
  const auto v = t.values<float>();
  return {v.begin(), v.end()};
}

std::string errorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

} // namespace

TEST(Image, PngDecodesExactlyInEveryChannelLayout) {
  for (int64_t channels : {1, 2, 3, 4}) {
    SCOPED_TRACE(channels);
    std::vector<uint8_t> px(static_cast<size_t>(3 * 5 * channels));
    for (size_t i = 0; i < px.size(); ++i)
      px[i] = static_cast<uint8_t>(i * 17 + 3);
    const std::string path = writePng("c" + std::to_string(channels) + ".png", 3, 5, channels, px);
    EXPECT_TRUE(isImageFile(path));
    const Image img = readImage(path);
    EXPECT_EQ(img.height, 3);
    EXPECT_EQ(img.width, 5);
    EXPECT_EQ(img.channels, channels);
    EXPECT_EQ(img.pixels, px);
    const Image header = readImageHeader(path); // the size without decoding
    EXPECT_EQ(header.height, 3);
    EXPECT_EQ(header.width, 5);
    EXPECT_EQ(header.channels, channels);
    EXPECT_TRUE(header.pixels.empty());
  }
}

TEST(Image, JpegDecodesWithinTheCodecsError) {
  std::vector<uint8_t> rgb(8 * 8 * 3);
  for (size_t i = 0; i < rgb.size(); ++i)
    rgb[i] = static_cast<uint8_t>(64 + (i % 3) * 40 + (i / 24) * 4);
  const std::string path = writeJpeg("smooth.jpg", 8, 8, rgb);
  EXPECT_TRUE(isImageFile(path));
  const Image img = readImage(path);
  ASSERT_EQ(img.channels, 3);
  const Image header = readImageHeader(path);
  EXPECT_EQ(header.height, 8);
  EXPECT_EQ(header.width, 8);
  EXPECT_EQ(header.channels, 3);
  EXPECT_TRUE(header.pixels.empty());
  ASSERT_EQ(img.pixels.size(), rgb.size());
  for (size_t i = 0; i < rgb.size(); ++i)
    EXPECT_NEAR(img.pixels[i], rgb[i], 6) << i;
}

TEST(Image, BadFilesNameTheFileAndTheReason) {
  const std::string text = writeBytes("text.png", "not an image at all");
  EXPECT_FALSE(isImageFile(text));
  EXPECT_EQ(errorOf([&] { readImage(text); }), text + ": not a PNG or JPEG file");
  EXPECT_EQ(errorOf([&] { readImage(tempPath("missing.png")); }),
            tempPath("missing.png") + ": cannot open file (No such file or directory)");
  // Truncated files: the header survives, the data does not.
  std::vector<uint8_t> px(40 * 40 * 3, 200);
  const std::string png = readBytes(writePng("full.png", 40, 40, 3, px));
  const std::string cutPng = writeBytes("cut.png", png.substr(0, png.size() / 2));
  EXPECT_TRUE(isImageFile(cutPng));
  EXPECT_NE(errorOf([&] { readImage(cutPng); }).find(cutPng + ": corrupt PNG data ("),
            std::string::npos);
  const std::string jpg = readBytes(writeJpeg("full.jpg", 40, 40, px));
  const std::string cutJpg = writeBytes("cut.jpg", jpg.substr(0, 40));
  EXPECT_NE(errorOf([&] { readImage(cutJpg); }).find(cutJpg + ": not a valid JPEG file ("),
            std::string::npos);
  const std::string header = writeBytes("header.png", png.substr(0, 12));
  EXPECT_NE(errorOf([&] { readImage(header); }).find(header + ": not a valid PNG file ("),
            std::string::npos);
}

TEST(Image, AnImageOfMoreThan2To28PixelsIsRefusedBeforeDecoding) {
  // A 1x1 PNG whose IHDR then claims 65536 x 65536 pixels (2^32), with the chunk's CRC redone:
  // the header is valid, and the reader refuses the size before allocating anything.
  std::string png = readBytes(writePng("tiny.png", 1, 1, 1, {7}));
  const size_t ihdr = 8; // after the signature: length (4), "IHDR" (4), width (4), height (4)
  for (size_t field : {ihdr + 8, ihdr + 12}) {
    png[field] = 0;
    png[field + 1] = 1;
    png[field + 2] = 0;
    png[field + 3] = 0;
  }
  const uLong crc =
      crc32(0, reinterpret_cast<const Bytef*>(png.data() + ihdr + 4), 4 + 13); // type + data
  for (int k = 0; k < 4; ++k)
    png[ihdr + 8 + 13 + static_cast<size_t>(k)] = static_cast<char>((crc >> (24 - 8 * k)) & 0xff);
  const std::string huge = writeBytes("huge.png", png);
  for (const auto& read : {readImage, readImageHeader})
    EXPECT_EQ(errorOf([&] { read(huge); }),
              huge + ": the image is 65536x65536 pixels; nnaccel reads at most 2^28");
}

TEST(ImagePreprocess, ChannelsResizeNormalizationAndLayout) {
  // A 2x2 RGBA image: the alpha is dropped for a 3-channel input; BGR swaps red and blue.
  Image img{2, 2, 4, {255, 0, 0, 9, 0, 255, 0, 9, 0, 0, 255, 9, 255, 255, 255, 9}};
  ImagePreprocess p;
  const Tensor nchw = imageToTensor(img, p, {1, 3, 2, 2});
  EXPECT_EQ(floatsOf(nchw), (std::vector<float>{1, 0, 0, 1, 0, 1, 0, 1, 0, 0, 1, 1}));
  p.order = ChannelOrder::Bgr;
  const Tensor nhwc = imageToTensor(img, p, {1, 2, 2, 3});
  EXPECT_EQ(floatsOf(nhwc), (std::vector<float>{0, 0, 1, 0, 1, 0, 1, 0, 0, 1, 1, 1}));
  // Luma for one channel (BT.601), an opaque alpha for four, the signed preset.
  Image rgb{1, 1, 3, {255, 0, 0}};
  ImagePreprocess s;
  ASSERT_TRUE(s.setPreset("signed"));
  EXPECT_FLOAT_EQ(floatsOf(imageToTensor(rgb, s, {1, 1, 1, 1}))[0], 0.299f * 2 - 1);
  s.layout = ImageLayout::Nhwc; // [1, 1, 1, 4] reads as NCHW by default
  EXPECT_EQ(floatsOf(imageToTensor(rgb, s, {1, 1, 1, 4})), (std::vector<float>{1, -1, -1, 1}));
  // Half-pixel bilinear, 2 -> 4 along a row of gray 0, 255: 0, 63.75, 191.25, 255.
  Image row{1, 2, 1, {0, 255}};
  ImagePreprocess raw;
  ASSERT_TRUE(raw.setPreset("raw"));
  const std::vector<float> up = floatsOf(imageToTensor(row, raw, {1, 1, 1, 4}));
  const std::vector<float> expected{0, 63.75f, 191.25f, 255};
  for (size_t i = 0; i < 4; ++i)
    EXPECT_NEAR(up[i], expected[i], 1e-3f);
  // A batch of two repeats the image.
  EXPECT_EQ(floatsOf(imageToTensor(row, raw, {2, 1, 1, 2})), (std::vector<float>{0, 255, 0, 255}));
  EXPECT_FALSE(raw.setPreset("bogus"));
}

TEST(ImagePreprocess, LayoutAndShapeFromTheInputsDeclaredDims) {
  ImagePreprocess p;
  EXPECT_EQ(resolveLayout(p, {-1, 3, -1, -1}), ImageLayout::Nchw);
  EXPECT_EQ(resolveLayout(p, {1, 128, 128, 3}), ImageLayout::Nhwc);
  EXPECT_EQ(resolveLayout(p, {1, -1, -1, 4}), ImageLayout::Nhwc);
  EXPECT_EQ(resolveLayout(p, {1, 3, 3, 3}), ImageLayout::Nchw);
  EXPECT_EQ(resolveLayout(p, {1, 4, 4, 3}), ImageLayout::Nhwc); // 3 before 1 and 4
  EXPECT_EQ(resolveLayout(p, {1, 1, 1, 4}), ImageLayout::Nchw);
  // Symbolic spatial dims take the image's size, or --size; the batch stays for --batch.
  EXPECT_EQ(imageInputShape(172, 448, 1, p, {-1, 3, -1, -1}), (Dims{-1, 3, 172, 448}));
  p.height = 160;
  p.width = 448;
  EXPECT_EQ(imageInputShape(172, 448, 1, p, {-1, 3, -1, -1}), (Dims{-1, 3, 160, 448}));
  EXPECT_EQ(imageInputShape(172, 448, 4, p, {1, -1, -1, -1}), (Dims{1, 3, 160, 448}));
  p.layout = ImageLayout::Nhwc;
  EXPECT_EQ(imageInputShape(10, 20, 3, p, {1, -1, -1, -1}), (Dims{1, 160, 448, 3}));
}

TEST(ImagePreprocess, OptionsThatDoNotFitTheInputAreUsageErrors) {
  Image img{1, 1, 3, {1, 2, 3}};
  ImagePreprocess p;
  p.mean = {0.1f, 0.2f};
  EXPECT_EQ(errorOf([&] {
              imageToTensor(img, p, {1, 3, 1, 1});
            }),
            "--mean has 2 values, but the input has 3 channel(s)");
  p.mean = {0.0f};
  p.std = {0.0f};
  EXPECT_EQ(errorOf([&] {
              imageToTensor(img, p, {1, 3, 1, 1});
            }),
            "--std must be finite and non-zero, got 0");
  ImagePreprocess nchw;
  nchw.layout = ImageLayout::Nchw;
  EXPECT_EQ(errorOf([&] {
              imageToTensor(img, nchw, {1, 5, 1, 1});
            }),
            "an image has 1, 3 or 4 channels, but the input's NCHW layout gives it 5");
  EXPECT_EQ(errorOf([&] {
              imageInputShape(1, 1, 3, ImagePreprocess{}, {1, 3});
            }),
            "an image is a rank-4 input (NCHW or NHWC), but the input is rank 2");
}
