// Tests of the Resize kernel against the ONNX test-data generator's own interpolate_nd
// (expected_values.py): every nearest mode x coordinate transformation, linear up/down with
// each transformation, cubic (A, exclude_outside), tf_crop_and_resize with extrapolation,
// sizes-derived scales and interpolation on the N and C axes.
#include "TestUtil.h"
#include "nnaccel/reference/Kernels.h"

#include <gtest/gtest.h>

using namespace nnaccel;
using namespace nnaccel::reference;
using nnaccel::reference::test::expectTensorNear;
using nnaccel::reference::test::seqTensor;

namespace {
// 1x1x5x10
const std::vector<float> kNearestRoundPreferFloorHalfPixel = {
    1,   1,   1,   0.875,  0.875,  0.75,  0.75,  0.75,  0.625,  0.625,
    1,   1,   1,   0.875,  0.875,  0.75,  0.75,  0.75,  0.625,  0.625,
    0.5, 0.5, 0.5, 0.375,  0.375,  0.25,  0.25,  0.25,  0.125,  0.125,
    0,   0,   0,   -0.125, -0.125, -0.25, -0.25, -0.25, -0.375, -0.375,
    0,   0,   0,   -0.125, -0.125, -0.25, -0.25, -0.25, -0.375, -0.375};
// 1x1x5x10
const std::vector<float> kNearestRoundPreferFloorAsymmetric = {
    1,   1,   0.875,  0.875,  0.75,  0.75,  0.75,  0.625,  0.625,  0.625,
    0.5, 0.5, 0.375,  0.375,  0.25,  0.25,  0.25,  0.125,  0.125,  0.125,
    0.5, 0.5, 0.375,  0.375,  0.25,  0.25,  0.25,  0.125,  0.125,  0.125,
    0,   0,   -0.125, -0.125, -0.25, -0.25, -0.25, -0.375, -0.375, -0.375,
    0,   0,   -0.125, -0.125, -0.25, -0.25, -0.25, -0.375, -0.375, -0.375};
// 1x1x5x10
const std::vector<float> kNearestRoundPreferFloorAlignCorners = {
    1,     1,     0.875, 0.875,  0.875,  0.75,   0.75,  0.75,  0.625, 0.625,  1,     1,     0.875,
    0.875, 0.875, 0.75,  0.75,   0.75,   0.625,  0.625, 0.5,   0.5,   0.375,  0.375, 0.375, 0.25,
    0.25,  0.25,  0.125, 0.125,  0.5,    0.5,    0.375, 0.375, 0.375, 0.25,   0.25,  0.25,  0.125,
    0.125, 0,     0,     -0.125, -0.125, -0.125, -0.25, -0.25, -0.25, -0.375, -0.375};
// 1x1x5x10
const std::vector<float> kNearestRoundPreferFloorPytorchHalfPixel = {
    1,   1,   1,   0.875,  0.875,  0.75,  0.75,  0.75,  0.625,  0.625,
    1,   1,   1,   0.875,  0.875,  0.75,  0.75,  0.75,  0.625,  0.625,
    0.5, 0.5, 0.5, 0.375,  0.375,  0.25,  0.25,  0.25,  0.125,  0.125,
    0,   0,   0,   -0.125, -0.125, -0.25, -0.25, -0.25, -0.375, -0.375,
    0,   0,   0,   -0.125, -0.125, -0.25, -0.25, -0.25, -0.375, -0.375};
// 1x1x5x10
const std::vector<float> kNearestRoundPreferCeilHalfPixel = {
    1,   1,   0.875,  0.875,  0.875,  0.75,  0.75,  0.625,  0.625,  0.625,
    1,   1,   0.875,  0.875,  0.875,  0.75,  0.75,  0.625,  0.625,  0.625,
    0.5, 0.5, 0.375,  0.375,  0.375,  0.25,  0.25,  0.125,  0.125,  0.125,
    0,   0,   -0.125, -0.125, -0.125, -0.25, -0.25, -0.375, -0.375, -0.375,
    0,   0,   -0.125, -0.125, -0.125, -0.25, -0.25, -0.375, -0.375, -0.375};
// 1x1x5x10
const std::vector<float> kNearestRoundPreferCeilAsymmetric = {
    1,   1,   0.875,  0.875,  0.75,  0.75,  0.75,  0.625,  0.625,  0.625,
    0.5, 0.5, 0.375,  0.375,  0.25,  0.25,  0.25,  0.125,  0.125,  0.125,
    0.5, 0.5, 0.375,  0.375,  0.25,  0.25,  0.25,  0.125,  0.125,  0.125,
    0,   0,   -0.125, -0.125, -0.25, -0.25, -0.25, -0.375, -0.375, -0.375,
    0,   0,   -0.125, -0.125, -0.25, -0.25, -0.25, -0.375, -0.375, -0.375};
// 1x1x5x10
const std::vector<float> kNearestRoundPreferCeilAlignCorners = {
    1,     1,     0.875, 0.875,  0.875,  0.75,   0.75,  0.75,  0.625, 0.625,  1,     1,     0.875,
    0.875, 0.875, 0.75,  0.75,   0.75,   0.625,  0.625, 0.5,   0.5,   0.375,  0.375, 0.375, 0.25,
    0.25,  0.25,  0.125, 0.125,  0.5,    0.5,    0.375, 0.375, 0.375, 0.25,   0.25,  0.25,  0.125,
    0.125, 0,     0,     -0.125, -0.125, -0.125, -0.25, -0.25, -0.25, -0.375, -0.375};
// 1x1x5x10
const std::vector<float> kNearestRoundPreferCeilPytorchHalfPixel = {
    1,   1,   0.875,  0.875,  0.875,  0.75,  0.75,  0.625,  0.625,  0.625,
    1,   1,   0.875,  0.875,  0.875,  0.75,  0.75,  0.625,  0.625,  0.625,
    0.5, 0.5, 0.375,  0.375,  0.375,  0.25,  0.25,  0.125,  0.125,  0.125,
    0,   0,   -0.125, -0.125, -0.125, -0.25, -0.25, -0.375, -0.375, -0.375,
    0,   0,   -0.125, -0.125, -0.125, -0.25, -0.25, -0.375, -0.375, -0.375};
// 1x1x5x10
const std::vector<float> kNearestFloorHalfPixel = {
    1,     1,     1,     1,     0.875, 0.875,  0.75,   0.75,  0.75,  0.625, 1,     1,     1,
    1,     0.875, 0.875, 0.75,  0.75,  0.75,   0.625,  1,     1,     1,     1,     0.875, 0.875,
    0.75,  0.75,  0.75,  0.625, 0.5,   0.5,    0.5,    0.5,   0.375, 0.375, 0.25,  0.25,  0.25,
    0.125, 0,     0,     0,     0,     -0.125, -0.125, -0.25, -0.25, -0.25, -0.375};
// 1x1x5x10
const std::vector<float> kNearestFloorAsymmetric = {
    1,     1,     1,     0.875, 0.875,  0.75,   0.75,  0.75,  0.625, 0.625,  1,     1,     1,
    0.875, 0.875, 0.75,  0.75,  0.75,   0.625,  0.625, 0.5,   0.5,   0.5,    0.375, 0.375, 0.25,
    0.25,  0.25,  0.125, 0.125, 0.5,    0.5,    0.5,   0.375, 0.375, 0.25,   0.25,  0.25,  0.125,
    0.125, 0,     0,     0,     -0.125, -0.125, -0.25, -0.25, -0.25, -0.375, -0.375};
// 1x1x5x10
const std::vector<float> kNearestFloorAlignCorners = {
    1,     1,     1,     0.875, 0.875, 0.875, 0.75,  0.75,  0.75,  0.625, 1,     1,     1,
    0.875, 0.875, 0.875, 0.75,  0.75,  0.75,  0.625, 1,     1,     1,     0.875, 0.875, 0.875,
    0.75,  0.75,  0.75,  0.625, 0.5,   0.5,   0.5,   0.375, 0.375, 0.375, 0.25,  0.25,  0.25,
    0.125, 0.5,   0.5,   0.5,   0.375, 0.375, 0.375, 0.25,  0.25,  0.25,  0.125};
// 1x1x5x10
const std::vector<float> kNearestFloorPytorchHalfPixel = {
    1,     1,     1,     1,     0.875, 0.875,  0.75,   0.75,  0.75,  0.625, 1,     1,     1,
    1,     0.875, 0.875, 0.75,  0.75,  0.75,   0.625,  1,     1,     1,     1,     0.875, 0.875,
    0.75,  0.75,  0.75,  0.625, 0.5,   0.5,    0.5,    0.5,   0.375, 0.375, 0.25,  0.25,  0.25,
    0.125, 0,     0,     0,     0,     -0.125, -0.125, -0.25, -0.25, -0.25, -0.375};
// 1x1x5x10
const std::vector<float> kNearestCeilHalfPixel = {
    1,   0.875,  0.875,  0.875,  0.75,  0.75,  0.625,  0.625,  0.625,  0.625,
    0.5, 0.375,  0.375,  0.375,  0.25,  0.25,  0.125,  0.125,  0.125,  0.125,
    0.5, 0.375,  0.375,  0.375,  0.25,  0.25,  0.125,  0.125,  0.125,  0.125,
    0,   -0.125, -0.125, -0.125, -0.25, -0.25, -0.375, -0.375, -0.375, -0.375,
    0,   -0.125, -0.125, -0.125, -0.25, -0.25, -0.375, -0.375, -0.375, -0.375};
// 1x1x5x10
const std::vector<float> kNearestCeilAsymmetric = {
    1,   0.875,  0.875,  0.75,  0.75,  0.75,  0.625,  0.625,  0.625,  0.625,
    0.5, 0.375,  0.375,  0.25,  0.25,  0.25,  0.125,  0.125,  0.125,  0.125,
    0,   -0.125, -0.125, -0.25, -0.25, -0.25, -0.375, -0.375, -0.375, -0.375,
    0,   -0.125, -0.125, -0.25, -0.25, -0.25, -0.375, -0.375, -0.375, -0.375,
    0,   -0.125, -0.125, -0.25, -0.25, -0.25, -0.375, -0.375, -0.375, -0.375};
// 1x1x5x10
const std::vector<float> kNearestCeilAlignCorners = {
    1,   0.875,  0.875,  0.875,  0.75,  0.75,  0.75,  0.625,  0.625,  0.625,
    0.5, 0.375,  0.375,  0.375,  0.25,  0.25,  0.25,  0.125,  0.125,  0.125,
    0.5, 0.375,  0.375,  0.375,  0.25,  0.25,  0.25,  0.125,  0.125,  0.125,
    0,   -0.125, -0.125, -0.125, -0.25, -0.25, -0.25, -0.375, -0.375, -0.375,
    0,   -0.125, -0.125, -0.125, -0.25, -0.25, -0.25, -0.375, -0.375, -0.375};
// 1x1x5x10
const std::vector<float> kNearestCeilPytorchHalfPixel = {
    1,   0.875,  0.875,  0.875,  0.75,  0.75,  0.625,  0.625,  0.625,  0.625,
    0.5, 0.375,  0.375,  0.375,  0.25,  0.25,  0.125,  0.125,  0.125,  0.125,
    0.5, 0.375,  0.375,  0.375,  0.25,  0.25,  0.125,  0.125,  0.125,  0.125,
    0,   -0.125, -0.125, -0.125, -0.25, -0.25, -0.375, -0.375, -0.375, -0.375,
    0,   -0.125, -0.125, -0.125, -0.25, -0.25, -0.375, -0.375, -0.375, -0.375};
// 1x1x6x6
const std::vector<float> kLinearUpHalfPixel = {
    1,     0.9375,  0.854166687,  0.770833313,  0.6875,  0.625,
    0.875, 0.8125,  0.729166687,  0.645833313,  0.5625,  0.5,
    0.625, 0.5625,  0.479166657,  0.395833343,  0.3125,  0.25,
    0.375, 0.3125,  0.229166672,  0.145833328,  0.0625,  0,
    0.125, 0.0625,  -0.020833334, -0.104166664, -0.1875, -0.25,
    0,     -0.0625, -0.145833328, -0.229166672, -0.3125, -0.375};
// 1x1x1x2
const std::vector<float> kLinearDownHalfPixel = {0.791666687, 0.583333373};
// 1x1x6x6
const std::vector<float> kLinearUpAsymmetric = {
    1,    0.916666687,   0.833333313,  0.75,  0.666666687,   0.625,
    0.75, 0.666666687,   0.583333313,  0.5,   0.416666657,   0.375,
    0.5,  0.416666657,   0.333333343,  0.25,  0.166666672,   0.125,
    0.25, 0.166666672,   0.0833333358, 0,     -0.0833333358, -0.125,
    0,    -0.0833333358, -0.166666672, -0.25, -0.333333343,  -0.375,
    0,    -0.0833333358, -0.166666672, -0.25, -0.333333343,  -0.375};
// 1x1x1x2
const std::vector<float> kLinearDownAsymmetric = {1, 0.791666687};
// 1x1x6x6
const std::vector<float> kLinearUpAlignCorners = {
    1,           0.925000012,  0.850000024,  0.774999976,   0.699999988,  0.625,
    0.800000012, 0.725000024,  0.649999976,  0.574999988,   0.5,          0.425000012,
    0.600000024, 0.524999976,  0.449999988,  0.375,         0.300000012,  0.224999994,
    0.400000006, 0.324999988,  0.25,         0.174999997,   0.100000001,  0.0250000004,
    0.200000003, 0.125,        0.0500000007, -0.0250000004, -0.100000001, -0.174999997,
    0,           -0.075000003, -0.150000006, -0.224999994,  -0.300000012, -0.375};
// 1x1x1x2
const std::vector<float> kLinearDownAlignCorners = {1, 0.732142866};
// 1x1x6x6
const std::vector<float> kLinearUpPytorchHalfPixel = {
    1,     0.9375,  0.854166687,  0.770833313,  0.6875,  0.625,
    0.875, 0.8125,  0.729166687,  0.645833313,  0.5625,  0.5,
    0.625, 0.5625,  0.479166657,  0.395833343,  0.3125,  0.25,
    0.375, 0.3125,  0.229166672,  0.145833328,  0.0625,  0,
    0.125, 0.0625,  -0.020833334, -0.104166664, -0.1875, -0.25,
    0,     -0.0625, -0.145833328, -0.229166672, -0.3125, -0.375};
// 1x1x1x2
const std::vector<float> kLinearDownPytorchHalfPixel = {0.791666687, 0.583333373};
// 1x1x1x3
const std::vector<float> kLinearSizesPytorch1 = {0.979166687, 0.8125, 0.645833313};
// 1x1x6x8
const std::vector<float> kCubicUpHalfPixel = {
    1.06591797,    1.02880859,    0.969238281,  0.890625,     0.83984375,    0.761230469,
    0.701660156,   0.664550781,   0.917480469,  0.880371094,  0.820800781,   0.7421875,
    0.69140625,    0.612792969,   0.553222656,  0.516113281,  0.679199219,   0.642089844,
    0.582519531,   0.50390625,    0.453125,     0.374511719,  0.314941406,   0.277832031,
    0.347167969,   0.310058594,   0.250488281,  0.171875,     0.12109375,    0.0424804688,
    -0.0170898438, -0.0541992188, 0.108886719,  0.0717773438, 0.0122070312,  -0.06640625,
    -0.1171875,    -0.195800781,  -0.255371094, -0.292480469, -0.0395507812, -0.0766601562,
    -0.136230469,  -0.21484375,   -0.265625,    -0.344238281, -0.403808594,  -0.440917969};
// 1x1x2x3
const std::vector<float> kCubicDownAlign = {1,           0.825601041,  0.651202083,
                                            0.237609342, 0.0632104054, -0.111188546};
// 1x1x6x8
const std::vector<float> kCubicExcludeA05 = {
    1.05514705,     1.02313221,   0.955377162,  0.88786763,   0.82536763,     0.757858098,
    0.690103054,    0.658088207,  0.927087784,  0.895072997,  0.827317953,    0.759808421,
    0.697308421,    0.62979883,   0.562043786,  0.530028999,  0.65606755,     0.624052763,
    0.556297719,    0.488788158,  0.426288158,  0.358778626,  0.291023582,    0.259008765,
    0.365991235,    0.333976418,  0.266221374,  0.198711827,  0.136211827,    0.068702288,
    0.000947233522, -0.03106758,  0.094971016,  0.0629562065, -0.00479885237, -0.0723083913,
    -0.134808391,   -0.202317938, -0.270072997, -0.302087814, -0.033088237,   -0.0651030466,
    -0.132858112,   -0.200367644, -0.262867659, -0.330377191, -0.398132235,   -0.430147052};
// 1x1x3x3
const std::vector<float> kLinearTfCrop = {
    0.375, 0.356249988, 0.337500006, -0.0250000507, -0.043750044, -0.0625000373, 10, 10, 10};
// 3x4x2x2
const std::vector<float> kLinearNd = {
    0,           -0.125,      -0.25,        -0.375,       -0.25,       -0.375,      -0.5,
    -0.625,      -0.5,        -0.625,       -0.75,        -0.875,      -0.5,        -0.625,
    -0.75,       -0.875,      -0.666666687, -0.791666687, 0.666666687, 0.541666687, -0.125,
    -0.25,       0.416666657, 0.291666657,  0.416666657,  0.291666657, 0.166666672, 0.0416666679,
    0.416666657, 0.291666657, 0.166666672,  0.0416666679, -1,          -1.125,      1.125,
    1,           -0.0625,     -0.1875,      0.875,        0.75,        0.875,       0.75,
    0.625,       0.5,         0.875,        0.75,         0.625,       0.5};

using Mode = ir::ResizeParams::Mode;
const Dims kResizeX{1, 1, 3, 4};

/// Parameters for given scales: out = floor(in * scale), as OpParams resolves them.
ir::ResizeParams withScales(Mode mode, const std::string& transform, std::vector<float> scales,
                            const Dims& in = kResizeX) {
  ir::ResizeParams p;
  p.mode = mode;
  p.coordinateTransform = transform;
  for (size_t i = 0; i < in.size(); ++i) {
    p.outShape.push_back(static_cast<int64_t>(static_cast<float>(in[i]) * scales[i]));
  }
  p.scales = std::move(scales);
  return p;
}

/// Parameters for given sizes: scale = out / in in fp32.
ir::ResizeParams withSizes(Mode mode, const std::string& transform, const Dims& sizes,
                           const Dims& in = kResizeX) {
  ir::ResizeParams p;
  p.mode = mode;
  p.coordinateTransform = transform;
  p.outShape = sizes;
  for (size_t i = 0; i < in.size(); ++i) {
    p.scales.push_back(static_cast<float>(sizes[i]) / static_cast<float>(in[i]));
  }
  p.scalesFromSizes = true;
  return p;
}

struct NearestCase {
  std::string nearestMode, transform;
  const std::vector<float>* expected;
};
} // namespace

TEST(ResizeKernels, NearestAllModesAndTransforms) {
  const std::vector<NearestCase> cases = {
      {"round_prefer_floor", "half_pixel", &kNearestRoundPreferFloorHalfPixel},
      {"round_prefer_floor", "asymmetric", &kNearestRoundPreferFloorAsymmetric},
      {"round_prefer_floor", "align_corners", &kNearestRoundPreferFloorAlignCorners},
      {"round_prefer_floor", "pytorch_half_pixel", &kNearestRoundPreferFloorPytorchHalfPixel},
      {"round_prefer_ceil", "half_pixel", &kNearestRoundPreferCeilHalfPixel},
      {"round_prefer_ceil", "asymmetric", &kNearestRoundPreferCeilAsymmetric},
      {"round_prefer_ceil", "align_corners", &kNearestRoundPreferCeilAlignCorners},
      {"round_prefer_ceil", "pytorch_half_pixel", &kNearestRoundPreferCeilPytorchHalfPixel},
      {"floor", "half_pixel", &kNearestFloorHalfPixel},
      {"floor", "asymmetric", &kNearestFloorAsymmetric},
      {"floor", "align_corners", &kNearestFloorAlignCorners},
      {"floor", "pytorch_half_pixel", &kNearestFloorPytorchHalfPixel},
      {"ceil", "half_pixel", &kNearestCeilHalfPixel},
      {"ceil", "asymmetric", &kNearestCeilAsymmetric},
      {"ceil", "align_corners", &kNearestCeilAlignCorners},
      {"ceil", "pytorch_half_pixel", &kNearestCeilPytorchHalfPixel},
  };
  for (const NearestCase& c : cases) {
    SCOPED_TRACE(c.nearestMode + " / " + c.transform);
    ir::ResizeParams p = withScales(Mode::Nearest, c.transform, {1, 1, 1.7f, 2.5f});
    p.nearestMode = c.nearestMode;
    // Nearest copies input values: exact equality.
    expectTensorNear(resize(p, seqTensor(kResizeX, 24)), {1, 1, 5, 10}, *c.expected, 0.0f, 0.0f);
  }
}

TEST(ResizeKernels, HandComputedNearestUpsampleAsymmetricFloor) {
  // Upsample-style x2 nearest: y[i] = x[floor(i / 2)].
  ir::ResizeParams p = withScales(Mode::Nearest, "asymmetric", {1, 1, 2}, {1, 1, 3});
  p.nearestMode = "floor";
  const Tensor y = resize(p, test::tensorOf<float>({1, 1, 3}, {1, 2, 3}));
  expectTensorNear(y, {1, 1, 6}, {1, 1, 2, 2, 3, 3}, 0.0f, 0.0f);
}

TEST(ResizeKernels, ScaleEqualToSizeRatioStillUsesTheScale) {
  // [10, 20, 30] to 2 outputs, asymmetric, round_prefer_ceil. Given scale 2/3 in fp32
  // (0.6666667, so in * scale floors to 2 as well): x = 1 maps to 1 / 0.6666667 = 1.4999999 ->
  // index 1. Given sizes = 2: the map uses 3 / 2 = 1.5 exactly -> ceil -> index 2. (ONNX 1.12
  // reference, interpolate_nd with scale_factors vs output_size.) The two differ only through
  // ResizeParams::scalesFromSizes, since the scales are the same float.
  const Dims in{1, 1, 3};
  const Tensor x = test::tensorOf<float>(in, {10, 20, 30});
  ir::ResizeParams fromScale = withScales(Mode::Nearest, "asymmetric", {1, 1, 2.0f / 3.0f}, in);
  fromScale.nearestMode = "round_prefer_ceil";
  ASSERT_EQ(fromScale.outShape, (Dims{1, 1, 2}));
  expectTensorNear(resize(fromScale, x), {1, 1, 2}, {10, 20}, 0.0f, 0.0f);
  ir::ResizeParams fromSizes = withSizes(Mode::Nearest, "asymmetric", {1, 1, 2}, in);
  fromSizes.nearestMode = "round_prefer_ceil";
  ASSERT_EQ(fromSizes.scales, fromScale.scales);
  expectTensorNear(resize(fromSizes, x), {1, 1, 2}, {10, 30}, 0.0f, 0.0f);
}

TEST(ResizeKernels, LegacyOpset10NearestFloorsUpAndCeilsDown) {
  // ONNX 1.5's resize_downsample_nearest (Resize-10): scales [1, 1, 0.6, 0.6] on 1x1x2x4 give
  // [[1, 3]]: columns 0 / 0.6 = 0 and ceil(1 / 0.6) = 2, row 0.
  ir::ResizeParams down = withScales(Mode::Nearest, "asymmetric", {1, 1, 0.6f, 0.6f}, {1, 1, 2, 4});
  down.nearestMode = "legacy_opset10";
  expectTensorNear(resize(down, test::tensorOf<float>({1, 1, 2, 4}, {1, 2, 3, 4, 5, 6, 7, 8})),
                   {1, 1, 1, 2}, {1, 3}, 0.0f, 0.0f);
  // Upsampling floors: x3 on [1, 2] gives coordinates 0, 1/3, 2/3, 1, 4/3, 5/3.
  ir::ResizeParams up = withScales(Mode::Nearest, "asymmetric", {1, 1, 3}, {1, 1, 2});
  up.nearestMode = "legacy_opset10";
  expectTensorNear(resize(up, test::tensorOf<float>({1, 1, 2}, {1, 2})), {1, 1, 6},
                   {1, 1, 1, 2, 2, 2}, 0.0f, 0.0f);
  // Mixed axes: rows upsampled x2 (floor), columns downsampled by 0.5 -> 0.4 (ceil, clamped):
  // columns 0, ceil(2.5) = 3; 5 * 0.4 = 2 outputs.
  ir::ResizeParams mixed = withScales(Mode::Nearest, "asymmetric", {1, 1, 2, 0.4f}, {1, 1, 1, 5});
  mixed.nearestMode = "legacy_opset10";
  expectTensorNear(resize(mixed, test::tensorOf<float>({1, 1, 1, 5}, {1, 2, 3, 4, 5})),
                   {1, 1, 2, 2}, {1, 4, 1, 4}, 0.0f, 0.0f);
}

TEST(ResizeKernels, LinearEachTransformUpAndDown) {
  const std::vector<
      std::pair<std::string, std::pair<const std::vector<float>*, const std::vector<float>*>>>
      cases = {{"half_pixel", {&kLinearUpHalfPixel, &kLinearDownHalfPixel}},
               {"asymmetric", {&kLinearUpAsymmetric, &kLinearDownAsymmetric}},
               {"align_corners", {&kLinearUpAlignCorners, &kLinearDownAlignCorners}},
               {"pytorch_half_pixel", {&kLinearUpPytorchHalfPixel, &kLinearDownPytorchHalfPixel}}};
  for (const auto& [transform, expected] : cases) {
    SCOPED_TRACE(transform);
    expectTensorNear(
        resize(withScales(Mode::Linear, transform, {1, 1, 2, 1.5f}), seqTensor(kResizeX, 24)),
        {1, 1, 6, 6}, *expected.first);
    // Downscaling by 0.6: 4 * 0.6 = 2.4 -> 2 outputs, but the coordinate map uses 0.6 itself.
    expectTensorNear(
        resize(withScales(Mode::Linear, transform, {1, 1, 0.6f, 0.6f}), seqTensor(kResizeX, 24)),
        {1, 1, 1, 2}, *expected.second);
  }
}

TEST(ResizeKernels, HandComputedLinearHalfPixel) {
  // [0, 8] upsampled x2, half_pixel: coordinates -0.25, 0.25, 0.75, 1.25 -> clamp/lerp.
  const Tensor y = resize(withScales(Mode::Linear, "half_pixel", {1, 1, 2}, {1, 1, 2}),
                          test::tensorOf<float>({1, 1, 2}, {0, 8}));
  expectTensorNear(y, {1, 1, 4}, {0, 2, 6, 8});
}

TEST(ResizeKernels, LinearPytorchHalfPixelSingleOutput) {
  const Tensor y =
      resize(withSizes(Mode::Linear, "pytorch_half_pixel", {1, 1, 1, 3}), seqTensor(kResizeX, 24));
  expectTensorNear(y, {1, 1, 1, 3}, kLinearSizesPytorch1);
}

TEST(ResizeKernels, Cubic) {
  expectTensorNear(
      resize(withScales(Mode::Cubic, "half_pixel", {1, 1, 2, 2}), seqTensor(kResizeX, 24)),
      {1, 1, 6, 8}, kCubicUpHalfPixel);
  expectTensorNear(
      resize(withScales(Mode::Cubic, "align_corners", {1, 1, 0.8f, 0.8f}), seqTensor(kResizeX, 24)),
      {1, 1, 2, 3}, kCubicDownAlign);
  ir::ResizeParams p = withScales(Mode::Cubic, "half_pixel", {1, 1, 2, 2});
  p.cubicCoeffA = -0.5f;
  p.excludeOutside = true;
  expectTensorNear(resize(p, seqTensor(kResizeX, 24)), {1, 1, 6, 8}, kCubicExcludeA05);
}

TEST(ResizeKernels, TfCropAndResizeExtrapolates) {
  ir::ResizeParams p = withSizes(Mode::Linear, "tf_crop_and_resize", {1, 1, 3, 3});
  p.roi = {0, 0, 0.4f, 0.6f, 1, 1, 1.2f, 0.7f};
  p.extrapolationValue = 10.0f;
  expectTensorNear(resize(p, seqTensor(kResizeX, 24)), {1, 1, 3, 3}, kLinearTfCrop);
}

TEST(ResizeKernels, LinearOnBatchAndChannelAxes) {
  const Dims x{2, 2, 2, 2};
  expectTensorNear(
      resize(withScales(Mode::Linear, "asymmetric", {1.5f, 2, 1, 1}, x), seqTensor(x, 25)),
      {3, 4, 2, 2}, kLinearNd);
}

TEST(ResizeKernels, RejectsUnknownTransform) {
  try {
    resize(withScales(Mode::Linear, "bogus", {1, 1, 2, 2}), seqTensor(kResizeX, 24));
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Unsupported);
    EXPECT_STREQ(e.what(), "Resize coordinate_transformation_mode 'bogus' is not supported");
  }
}
