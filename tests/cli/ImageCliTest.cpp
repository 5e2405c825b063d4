// End-to-end tests of PNG/JPEG images as `run` and `simulate` inputs: symbolic dims bound from
// the image (or --size), the layout taken from the input's shape, the preprocessing named on
// the input line, and one-line usage errors for options that do not fit.
#include "CliSupport.h"
#include "nnaccel/frontend/Onnx.h"
#include "nnaccel/ir/ShapeInference.h"
#include "nnaccel/tensor/Npy.h"

#include <filesystem>
#include <gtest/gtest.h>
#include <png.h>

using namespace nnaccel;
using namespace nnaccel::clitest;

namespace {

class ImageCli : public CliFixture {
protected:
  ImageCli() : CliFixture("Image") {}

  /// Writes an RGB PNG of \p h x \p w whose pixel (y, x) is (10 y, 10 x, 200).
  void writeRgbPng(const std::string& name, int64_t h, int64_t w) const {
    std::vector<uint8_t> px;
    for (int64_t y = 0; y < h; ++y)
      for (int64_t x = 0; x < w; ++x)
        px.insert(px.end(), {static_cast<uint8_t>(10 * y), static_cast<uint8_t>(10 * x), 200});
    png_image png{};
    png.version = PNG_IMAGE_VERSION;
    png.width = static_cast<png_uint_32>(w);
    png.height = static_cast<png_uint_32>(h);
    png.format = PNG_FORMAT_RGB;
    ASSERT_TRUE(png_image_write_to_file(&png, path(name).c_str(), 0, px.data(), 0, nullptr));
  }
};

} // namespace

TEST_F(ImageCli, AnImageBindsSymbolicDimsAndNamesItsPreprocessing) {
  writeReluModel(path("nchw.onnx"), {"N", "3", "H", "W"});
  writeRgbPng("img.png", 6, 5);
  const Result r = run("run nchw.onnx --input img.png --output y.npy");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(lineWith(r.out, "symbolic dims"),
            "symbolic dims: N=1 (the batch default; --batch sets it), H=6 (from img.png), W=5 "
            "(from img.png)");
  EXPECT_EQ(lineWith(r.out, "input 'x'"),
            "input 'x': f32 1x3x6x5 (img.png: 6x5 RGB, no resize, NCHW, RGB, (x/255 - 0) / 1)");
  // Pixel (1, 2) of the green plane is 20 / 255.
  const Tensor y = readNpy(path("y.npy"));
  EXPECT_FLOAT_EQ(y.values<float>()[(1 * 6 + 1) * 5 + 2], 20.0f / 255.0f);

  // --size resizes where the dims are symbolic; --batch repeats the image; BGR and a preset.
  const Result sized =
      run("run nchw.onnx --input img.png --size 3x4 --batch 2 --norm signed --channel-order bgr");
  ASSERT_EQ(sized.exitCode, 0) << sized.err;
  EXPECT_EQ(lineWith(sized.out, "input 'x'"),
            "input 'x': f32 2x3x3x4 (img.png: 6x5 RGB, bilinear to 3x4, NCHW, BGR, (x/255 - 0.5) / "
            "0.5)");
}

TEST_F(ImageCli, TheLayoutFollowsTheInputAndFixedExtentsWin) {
  writeReluModel(path("nhwc.onnx"), {"1", "4", "4", "3"});
  writeRgbPng("img.png", 6, 5);
  const Result r = run("run nhwc.onnx --input img.png --norm imagenet");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(lineWith(r.out, "input 'x'"),
            "input 'x': f32 1x4x4x3 (img.png: 6x5 RGB, bilinear to 4x4, NHWC, RGB, (x/255 - "
            "0.485,0.456,0.406) / 0.229,0.224,0.225)");
  // A gray model input takes the luma; the zoo's LeNet-5 is 1x1x32x32.
  const Result gray = run("run lenet5 --input img.png --dtype int8");
  ASSERT_EQ(gray.exitCode, 0) << gray.err;
  EXPECT_NE(gray.out.find("(img.png: 6x5 RGB, bilinear to 32x32, NCHW, RGB, (x/255 - 0) / 1)"),
            std::string::npos)
      << gray.out;
  // simulate takes images too, calibrates its int8 model on them (or on --calib's folder, by
  // --calib-method), and verifies.
  const Result sim = run("simulate lenet5 --input img.png --arch systolic");
  ASSERT_EQ(sim.exitCode, 0) << sim.err;
  EXPECT_NE(sim.out.find("VERIFIED"), std::string::npos) << sim.out;
  std::filesystem::create_directories(path("calib"));
  writeRgbPng("calib/a.png", 8, 8);
  const Result calibrated = run("simulate lenet5 --input img.png --arch sparse --calib calib "
                                "--calib-method entropy");
  ASSERT_EQ(calibrated.exitCode, 0) << calibrated.err;
  EXPECT_NE(calibrated.out.find("VERIFIED"), std::string::npos) << calibrated.out;
  expectError("simulate lenet5 --arch sparse --percentile 90", 2,
              "--percentile applies only to --calib-method percentile (see 'nnaccel simulate "
              "--help')");
}

TEST_F(ImageCli, OptionsThatDoNotFitAreOneLineUsageErrors) {
  writeRgbPng("img.png", 6, 5);
  expectError("run lenet5 --input img.png --size 0x3", 2,
              "--size: '0x3' is not HxW with extents 1..65536 (see 'nnaccel run --help')");
  expectError("run lenet5 --input img.png --mean 0.5", 2,
              "--mean and --std go together (or use --norm) (see 'nnaccel run --help')");
  expectError("run lenet5 --input img.png --mean 0.1,0.2 --std 1,1", 2,
              "img.png: --mean has 2 values, but the input has 1 channel(s)");
  expectError("run lenet5 --input img.png --norm bogus", 2,
              "--norm: bogus not in {unit,signed,raw,imagenet} (see 'nnaccel run --help')");
  writeText("fake.png", "\x89PNG\r\n\x1a\n not really");
  expectErrorPrefix("run lenet5 --input fake.png", 1, "fake.png: not a valid PNG file (");
  // --calib takes one file per input set: a model of two inputs is refused.
  ir::Graph two;
  two.name = "two";
  two.opsetVersion = 13;
  const ir::ValueId a = two.addValue("a", DType::F32, {1, 3, 4, 4});
  const ir::ValueId b = two.addValue("b", DType::F32, {1, 3, 4, 4});
  two.inputs = {a, b};
  ir::Node add;
  add.op = ir::OpKind::Add;
  add.name = "add";
  add.opset = 13;
  add.inputs = {a, b};
  add.outputs = {two.addValue("y", DType::F32)};
  two.outputs = add.outputs;
  two.addNode(std::move(add));
  ir::inferShapes(two);
  frontend::exportOnnxFile(two, path("two.onnx"));
  std::filesystem::create_directories(path("calib"));
  writeRgbPng("calib/a.png", 4, 4);
  expectError("run two.onnx --dtype int8 --calib calib", 2,
              "--calib takes one file per input set, but model 'two.onnx' has 2 inputs (see "
              "'nnaccel run --help')");
  writeReluModel(path("flat.onnx"), {"1", "12"});
  expectError("run flat.onnx --input img.png", 2,
              "img.png: an image is read as an f32 NCHW or NHWC tensor, but model input 'x' is f32 "
              "1x12");
}
