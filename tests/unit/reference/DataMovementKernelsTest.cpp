// Tests of the data-movement kernels on several dtypes: Concat (f32, s64 and bool via oneDNN's
// reinterpreted types), Transpose, Slice with negative steps, Pad in every mode with negative
// pads, DepthToSpace DCR/CRD against the ONNX specification's reshape-transpose definition,
// Gather with negative indices and its out-of-range error.
#include "TestUtil.h"
#include "nnaccel/reference/Kernels.h"

#include <gtest/gtest.h>
#include <numeric>

using namespace nnaccel;
using namespace nnaccel::reference;
using nnaccel::reference::test::tensorOf;
using nnaccel::reference::test::valuesOf;

namespace {
Tensor iota(DType dtype, Dims shape) {
  Tensor t(DType::I64, std::move(shape));
  std::iota(t.data<int64_t>(), t.data<int64_t>() + t.numElements(), int64_t{0});
  return t.castTo(dtype);
}
} // namespace

TEST(DataMovementKernels, ConcatFloatMiddleAxis) {
  const Tensor a = iota(DType::F32, {2, 1, 2});
  const Tensor b = iota(DType::F32, {2, 2, 2});
  const Tensor y = concat({&a, &b}, 1);
  EXPECT_EQ(y.shape(), (Dims{2, 3, 2}));
  EXPECT_EQ(valuesOf<float>(y), (std::vector<float>{0, 1, 0, 1, 2, 3, 2, 3, 4, 5, 6, 7}));
}

TEST(DataMovementKernels, ConcatInt64AndBool) {
  const Tensor a = tensorOf<int64_t>({1, 2}, {int64_t{1} << 40, -3});
  const Tensor b = tensorOf<int64_t>({1, 1}, {-(int64_t{1} << 50)});
  EXPECT_EQ(valuesOf<int64_t>(concat({&a, &b}, 1)),
            (std::vector<int64_t>{int64_t{1} << 40, -3, -(int64_t{1} << 50)}));
  EXPECT_EQ(valuesOf<int64_t>(concat({&b, &a}, 1)),
            (std::vector<int64_t>{-(int64_t{1} << 50), int64_t{1} << 40, -3}));
  const Tensor c = tensorOf<bool>({2}, {true, false});
  const Tensor d = tensorOf<bool>({1}, {true});
  EXPECT_EQ(valuesOf<bool>(concat({&c, &d}, 0)), (std::vector<bool>{true, false, true}));
}

TEST(DataMovementKernels, ConcatRejectsMixedDtypes) {
  const Tensor a = iota(DType::F32, {2});
  const Tensor b = iota(DType::I32, {2});
  try {
    concat({&a, &b}, 0);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Unsupported);
    EXPECT_STREQ(e.what(), "Concat of f32 and s32 inputs is not supported");
  }
}

TEST(DataMovementKernels, ConcatRejectsMismatchedShapes) {
  const Tensor a = iota(DType::F32, {2, 3});
  const Tensor b = iota(DType::F32, {2, 4});
  try {
    concat({&a, &b}, 0);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Model);
    EXPECT_STREQ(e.what(), "concat input 2x4 does not match 2x3 outside axis 0");
  }
}

TEST(DataMovementKernels, Transpose) {
  // x[i][j][k] = 6i + 3j + k... with shape [2, 3, 2]: y = x.transpose(2, 0, 1) has shape [2, 2, 3].
  const Tensor x = iota(DType::I32, {2, 3, 2});
  const Tensor y = transpose(x, {2, 0, 1});
  EXPECT_EQ(y.shape(), (Dims{2, 2, 3}));
  EXPECT_EQ(valuesOf<int32_t>(y), (std::vector<int32_t>{0, 2, 4, 6, 8, 10, 1, 3, 5, 7, 9, 11}));
}

TEST(DataMovementKernels, SliceWithNegativeStep) {
  const Tensor x = iota(DType::F32, {3, 4});
  // x[2:0:-1, 0:4:3] -> rows 2, 1; columns 0, 3.
  const Tensor y = slice({.starts = {2, 0}, .ends = {0, 4}, .steps = {-1, 3}}, x);
  EXPECT_EQ(y.shape(), (Dims{2, 2}));
  EXPECT_EQ(valuesOf<float>(y), (std::vector<float>{8, 11, 4, 7}));
  // Reverse the whole axis: end clamped to -1.
  const Tensor r = slice({.starts = {0, 3}, .ends = {3, -1}, .steps = {1, -1}}, x);
  EXPECT_EQ(valuesOf<float>(r), (std::vector<float>{3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8}));
}

TEST(DataMovementKernels, PadModes) {
  using Mode = ir::PadParams::Mode;
  const Tensor x = tensorOf<float>({1, 3}, {1, 2, 3});
  auto padded = [&](Mode mode, Dims begin, Dims end) {
    return valuesOf<float>(pad({.mode = mode, .padsBegin = begin, .padsEnd = end, .value = 9}, x));
  };
  EXPECT_EQ(padded(Mode::Constant, {0, 2}, {1, 1}),
            (std::vector<float>{9, 9, 1, 2, 3, 9, 9, 9, 9, 9, 9, 9}));
  // numpy reflect of [1, 2, 3] by 3 / 4: [2, 3, 2 | 1 2 3 | 2 1 2 3].
  EXPECT_EQ(padded(Mode::Reflect, {0, 3}, {0, 4}),
            (std::vector<float>{2, 3, 2, 1, 2, 3, 2, 1, 2, 3}));
  EXPECT_EQ(padded(Mode::Edge, {0, 2}, {0, 1}), (std::vector<float>{1, 1, 1, 2, 3, 3}));
  // Negative pads crop: drop the first column, add one constant at the end.
  EXPECT_EQ(padded(Mode::Constant, {0, -1}, {0, 1}), (std::vector<float>{2, 3, 9}));
  const Tensor xi = tensorOf<int64_t>({2}, {5, 6});
  EXPECT_EQ(valuesOf<int64_t>(
                pad({.mode = Mode::Constant, .padsBegin = {1}, .padsEnd = {0}, .value = -2}, xi)),
            (std::vector<int64_t>{-2, 5, 6}));
}

TEST(DataMovementKernels, PadIntegerFillIsExact) {
  // 2^53 + 1 and 2^24 + 1 are not floats: the fill must come from intValue, not value.
  using Mode = ir::PadParams::Mode;
  const int64_t big = (int64_t{1} << 53) + 1;
  const Tensor x64 = tensorOf<int64_t>({1}, {7});
  EXPECT_EQ(valuesOf<int64_t>(pad({.mode = Mode::Constant,
                                   .padsBegin = {1},
                                   .padsEnd = {1},
                                   .value = static_cast<float>(big),
                                   .valueIsInteger = true,
                                   .intValue = big},
                                  x64)),
            (std::vector<int64_t>{big, 7, big}));
  const int32_t mid = (1 << 24) + 1;
  const Tensor x32 = tensorOf<int32_t>({1}, {7});
  EXPECT_EQ(valuesOf<int32_t>(pad({.mode = Mode::Constant,
                                   .padsBegin = {0},
                                   .padsEnd = {2},
                                   .value = static_cast<float>(mid),
                                   .valueIsInteger = true,
                                   .intValue = -mid},
                                  x32)),
            (std::vector<int32_t>{7, -mid, -mid}));
}

TEST(DataMovementKernels, DepthToSpace) {
  // ONNX spec: DCR: reshape [N, b, b, C/b^2, H, W], transpose [0, 3, 4, 1, 5, 2];
  // CRD: reshape [N, C/b^2, b, b, H, W], transpose [0, 1, 4, 2, 5, 3]. x: 1x4x1x2, b = 2.
  const Tensor x = iota(DType::F32, {1, 4, 1, 2});
  // DCR: y[0][0][h*2+i][w*2+j] = x[0][i*2+j][h][w].
  EXPECT_EQ(valuesOf<float>(depthToSpace({.blocksize = 2, .crd = false}, x)),
            (std::vector<float>{0, 2, 1, 3, 4, 6, 5, 7}));
  // CRD with 8 channels -> 2 output channels: y[c][h*2+i][w*2+j] = x[c*4 + i*2 + j][h][w].
  const Tensor x8 = iota(DType::F32, {1, 8, 1, 1});
  const Tensor y = depthToSpace({.blocksize = 2, .crd = true}, x8);
  EXPECT_EQ(y.shape(), (Dims{1, 2, 2, 2}));
  EXPECT_EQ(valuesOf<float>(y), (std::vector<float>{0, 1, 2, 3, 4, 5, 6, 7}));
  const Tensor yd = depthToSpace({.blocksize = 2, .crd = false}, x8);
  EXPECT_EQ(valuesOf<float>(yd), (std::vector<float>{0, 2, 4, 6, 1, 3, 5, 7}));
}

TEST(DataMovementKernels, GatherNegativeIndicesAndErrors) {
  const Tensor data = iota(DType::F32, {3, 2});
  const Tensor idx = tensorOf<int64_t>({2, 2}, {0, -1, 2, 1});
  const Tensor y = gather(data, idx, 0);
  EXPECT_EQ(y.shape(), (Dims{2, 2, 2}));
  EXPECT_EQ(valuesOf<float>(y), (std::vector<float>{0, 1, 4, 5, 4, 5, 2, 3}));
  const Tensor cols = gather(data, tensorOf<int32_t>({}, {1}), 1);
  EXPECT_EQ(cols.shape(), (Dims{3}));
  EXPECT_EQ(valuesOf<float>(cols), (std::vector<float>{1, 3, 5}));
  try {
    gather(data, tensorOf<int64_t>({1}, {3}), 0);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "gather index 3 is out of range for axis 0 of extent 3");
  }
}
