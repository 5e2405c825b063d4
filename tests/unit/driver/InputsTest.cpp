// Tests for quant::randomInputs / readInputFile / checkWritable: the documented seeded
// distribution (re-derived here from nnaccel::Rng's raw draws), .npy files checked against the
// model input, and output paths checked before a run, with exact messages.
#include "nnaccel/driver/Inputs.h"

#include "nnaccel/quant/QuantizedModel.h"
#include "nnaccel/support/Rng.h"
#include "nnaccel/tensor/Npy.h"

#include <cmath>
#include <filesystem>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace nnaccel;

namespace {

ir::Graph twoInputGraph() {
  ir::Graph g;
  g.inputs = {g.addValue("x", DType::F32, {2, 3, 4, 5}), g.addValue("y", DType::F32, {64})};
  return g;
}

std::string tempPath(const std::string& name) {
  const std::filesystem::path dir =
      std::filesystem::path(::testing::TempDir()) / "nnaccel_driver_inputs";
  std::filesystem::create_directories(dir);
  return (dir / name).string();
}

} // namespace

TEST(Inputs, RandomInputsFollowTheDocumentedGenerator) {
  const ir::Graph g = twoInputGraph();
  const std::vector<Tensor> a = quant::randomInputs(g, 42);
  ASSERT_EQ(a.size(), 2u);
  EXPECT_EQ(a[0].dtype(), DType::F32);
  EXPECT_EQ(a[0].shape(), (Dims{2, 3, 4, 5}));
  EXPECT_EQ(a[1].shape(), (Dims{64}));
  // nnaccel::Rng(seed), input by input, element by element: 2 * (draw >> 40) * 2^-24 - 1.
  Rng rng(42);
  double sum = 0.0;
  for (const Tensor& t : a) {
    for (float v : t.values<float>()) {
      const float expected = 2.0f * (static_cast<float>(rng.nextU64() >> 40) * 0x1p-24f) - 1.0f;
      ASSERT_EQ(v, expected);
      ASSERT_GE(v, -1.0f);
      ASSERT_LT(v, 1.0f);
      sum += v;
    }
  }
  // Mean of 184 U(-1, 1) draws: standard error 0.043.
  EXPECT_LT(std::fabs(sum / 184.0), 0.2);
  EXPECT_EQ(quant::randomInputs(g, 42), a);
  EXPECT_NE(quant::randomInputs(g, 43)[0], a[0]);
}

TEST(Inputs, NonFloatInputCannotBeRandom) {
  ir::Graph g;
  g.sourcePath = "m.onnx";
  g.inputs = {g.addValue("ids", DType::I64, {4})};
  try {
    quant::randomInputs(g, 1);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Unsupported);
    EXPECT_STREQ(e.what(), "m.onnx: input 'ids' is s64: random inputs are generated for f32 "
                           "inputs only; pass it with --input");
  }
}

TEST(Inputs, ReadInputFileChecksDtypeAndShape) {
  ir::Graph g = twoInputGraph();
  g.inputs.push_back(g.addValue("codes", DType::I8, {64}));
  const Tensor good = quant::randomInputs(twoInputGraph(), 1)[0];
  const std::string goodPath = tempPath("good.npy");
  writeNpy(goodPath, good);
  EXPECT_EQ(driver::readInputFile(g, 0, goodPath), good);

  const std::string shapePath = tempPath("shape.npy");
  writeNpy(shapePath, Tensor(DType::F32, {2, 3, 4, 6}));
  try {
    driver::readInputFile(g, 0, shapePath);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Io);
    EXPECT_EQ(std::string(e.what()),
              shapePath + ": holds f32 2x3x4x6 but model input 'x' is f32 2x3x4x5");
  }
  try {
    driver::readInputFile(g, 2, goodPath);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              goodPath + ": holds f32 2x3x4x5 but model input 'codes' is s8 64");
  }
  const std::string missing = tempPath("missing.npy");
  try {
    driver::readInputFile(g, 0, missing);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Io);
    EXPECT_EQ(std::string(e.what()).rfind(missing + ": ", 0), 0u) << e.what();
  }
}

TEST(Inputs, CheckWritableBeforeARun) {
  EXPECT_NO_THROW(driver::checkWritable(tempPath("new.npy")));
  EXPECT_FALSE(std::filesystem::exists(tempPath("new.npy"))); // checking creates nothing
  writeNpy(tempPath("old.npy"), Tensor(DType::F32, {1}));
  EXPECT_NO_THROW(driver::checkWritable(tempPath("old.npy")));
  auto messageOf = [](const std::string& path) -> std::string {
    try {
      driver::checkWritable(path);
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::Io);
      return e.what();
    }
    return "<no error>";
  };
  // The same wording as the file writers (frontend and .npy).
  EXPECT_EQ(messageOf("/nonexistent-dir/y.npy"),
            "/nonexistent-dir/y.npy: cannot open file for writing (No such file or directory)");
  EXPECT_EQ(messageOf(tempPath("old.npy") + "/y.npy"),
            tempPath("old.npy") + "/y.npy: cannot open file for writing (Not a directory)");
  std::filesystem::create_directories(tempPath("adir"));
  EXPECT_EQ(messageOf(tempPath("adir")),
            tempPath("adir") + ": cannot open file for writing (Is a directory)");
  try {
    writeNpy("/nonexistent-dir/y.npy", Tensor(DType::F32, {1}));
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_STREQ(
        e.what(),
        "/nonexistent-dir/y.npy: cannot open file for writing (No such file or directory)");
  }
  if (::geteuid() != 0) { // root may write anywhere
    const std::string locked = tempPath("locked");
    std::filesystem::create_directories(locked);
    ::chmod(locked.c_str(), 0500);
    EXPECT_EQ(messageOf(locked + "/y.npy"),
              locked + "/y.npy: cannot open file for writing (Permission denied)");
    ::chmod(locked.c_str(), 0700);
  }
}
