// Tests of the int8 Conv/ConvTranspose/Gemm accumulators (quant/AccumulateKernels.cpp) against
// independent plain-loop integer references (direct convolution, scatter-form transposed
// convolution, triple-loop matrix product) on seeded random shapes, and of the requantized
// int8 outputs against a 128-bit rounding reference: all bit for bit.
#include "QuantTestUtil.h"
#include "nnaccel/quant/Kernels.h"

#include <gtest/gtest.h>
#include <random>

namespace nnaccel::quant {
namespace {

using namespace nnaccel::quant::test;

struct ConvCase {
  bool transposed = false;
  int64_t batch = 1, inChannels = 1, outChannels = 1, group = 1;
  Dims in, kernel, strides, dilations, padsBegin, padsEnd, outputPadding;
};

ir::ConvParams paramsOf(const ConvCase& c) {
  ir::ConvParams p;
  p.spatialRank = static_cast<int64_t>(c.in.size());
  p.batch = c.batch;
  p.inChannels = c.inChannels;
  p.outChannels = c.outChannels;
  p.group = c.group;
  p.transposed = c.transposed;
  p.inSpatial = c.in;
  p.kernel = c.kernel;
  p.strides = c.strides;
  p.dilations = c.dilations;
  p.padsBegin = c.padsBegin;
  p.padsEnd = c.padsEnd;
  p.outputPadding = c.outputPadding.empty() ? Dims(c.in.size(), 0) : c.outputPadding;
  for (size_t a = 0; a < c.in.size(); ++a) {
    const int64_t span = c.dilations[a] * (c.kernel[a] - 1) + 1;
    p.outSpatial.push_back(
        c.transposed ? c.strides[a] * (c.in[a] - 1) + p.outputPadding[a] + span - c.padsBegin[a] -
                           c.padsEnd[a]
                     : (c.in[a] + c.padsBegin[a] + c.padsEnd[a] - span) / c.strides[a] + 1);
  }
  return p;
}

/// Flat row-major offset of a multi-index.
int64_t flat(const Dims& shape, const Dims& index) {
  int64_t off = 0;
  for (size_t i = 0; i < shape.size(); ++i) {
    off = off * shape[i] + index[i];
  }
  return off;
}

/// Advances a multi-index over \p extent like an odometer; false after the last index.
bool next(Dims& index, const Dims& extent) {
  for (size_t i = index.size(); i-- > 0;) {
    if (++index[i] < extent[i]) {
      return true;
    }
    index[i] = 0;
  }
  return false;
}

/// Direct convolution: every output element sums its in-bounds taps (x - z) * w, read straight
/// from x and w (padding is real 0).
std::vector<int64_t> naiveConv(const ir::ConvParams& p, const Tensor& x, const Tensor& w,
                               const std::vector<int32_t>& bias, int32_t z) {
  const size_t rank = p.inSpatial.size();
  const int64_t cg = p.inChannels / p.group, mg = p.outChannels / p.group;
  Dims xShape{p.batch, p.inChannels}, wShape{p.outChannels, cg}, yShape{p.batch, p.outChannels};
  xShape.insert(xShape.end(), p.inSpatial.begin(), p.inSpatial.end());
  wShape.insert(wShape.end(), p.kernel.begin(), p.kernel.end());
  yShape.insert(yShape.end(), p.outSpatial.begin(), p.outSpatial.end());
  std::vector<int64_t> y(static_cast<size_t>(numElements(yShape)));
  for (int64_t n = 0; n < p.batch; ++n) {
    for (int64_t oc = 0; oc < p.outChannels; ++oc) {
      const int64_t grp = oc / mg;
      Dims o(rank, 0);
      do {
        int64_t sum = bias.empty() ? 0 : bias[static_cast<size_t>(oc)];
        for (int64_t c = 0; c < cg; ++c) {
          Dims k(rank, 0);
          do {
            Dims i(rank);
            bool inside = true;
            for (size_t a = 0; a < rank; ++a) {
              i[a] = o[a] * p.strides[a] - p.padsBegin[a] + k[a] * p.dilations[a];
              inside = inside && i[a] >= 0 && i[a] < p.inSpatial[a];
            }
            if (inside) {
              Dims xi{n, grp * cg + c}, wi{oc, c};
              xi.insert(xi.end(), i.begin(), i.end());
              wi.insert(wi.end(), k.begin(), k.end());
              sum += (int64_t{x.data<int8_t>()[flat(xShape, xi)]} - z) *
                     w.data<int8_t>()[flat(wShape, wi)];
            }
          } while (next(k, p.kernel));
        }
        Dims yi{n, oc};
        yi.insert(yi.end(), o.begin(), o.end());
        y[static_cast<size_t>(flat(yShape, yi))] = sum;
      } while (next(o, p.outSpatial));
    }
  }
  return y;
}

/// Scatter-form transposed convolution: every input element adds its products to the outputs
/// it reaches (o = i * stride - padBegin + k * dilation).
std::vector<int64_t> naiveConvTranspose(const ir::ConvParams& p, const Tensor& x, const Tensor& w,
                                        const std::vector<int32_t>& bias, int32_t z) {
  const size_t rank = p.inSpatial.size();
  const int64_t cg = p.inChannels / p.group, mg = p.outChannels / p.group;
  Dims xShape{p.batch, p.inChannels}, wShape{p.inChannels, mg}, yShape{p.batch, p.outChannels};
  xShape.insert(xShape.end(), p.inSpatial.begin(), p.inSpatial.end());
  wShape.insert(wShape.end(), p.kernel.begin(), p.kernel.end());
  yShape.insert(yShape.end(), p.outSpatial.begin(), p.outSpatial.end());
  std::vector<int64_t> y(static_cast<size_t>(numElements(yShape)));
  const int64_t outVol = numElements(p.outSpatial);
  for (int64_t n = 0; n < p.batch; ++n) {
    for (int64_t oc = 0; oc < p.outChannels; ++oc) {
      for (int64_t e = 0; e < outVol; ++e) {
        y[static_cast<size_t>((n * p.outChannels + oc) * outVol + e)] =
            bias.empty() ? 0 : bias[static_cast<size_t>(oc)];
      }
    }
    for (int64_t c = 0; c < p.inChannels; ++c) {
      const int64_t grp = c / cg;
      Dims i(rank, 0);
      do {
        Dims xi{n, c};
        xi.insert(xi.end(), i.begin(), i.end());
        const int64_t xv = x.data<int8_t>()[flat(xShape, xi)] - z;
        for (int64_t j = 0; j < mg; ++j) {
          Dims k(rank, 0);
          do {
            Dims o(rank);
            bool inside = true;
            for (size_t a = 0; a < rank; ++a) {
              o[a] = i[a] * p.strides[a] - p.padsBegin[a] + k[a] * p.dilations[a];
              inside = inside && o[a] >= 0 && o[a] < p.outSpatial[a];
            }
            if (inside) {
              Dims wi{c, j}, yi{n, grp * mg + j};
              wi.insert(wi.end(), k.begin(), k.end());
              yi.insert(yi.end(), o.begin(), o.end());
              y[static_cast<size_t>(flat(yShape, yi))] += xv * w.data<int8_t>()[flat(wShape, wi)];
            }
          } while (next(k, p.kernel));
        }
      } while (next(i, p.inSpatial));
    }
  }
  return y;
}

void checkConvCase(const ConvCase& c, std::mt19937_64& rng) {
  const ir::ConvParams p = paramsOf(c);
  for (int64_t o : p.outSpatial) {
    ASSERT_GT(o, 0);
  }
  Dims xShape{p.batch, p.inChannels};
  xShape.insert(xShape.end(), p.inSpatial.begin(), p.inSpatial.end());
  Dims wShape = c.transposed ? Dims{p.inChannels, p.outChannels / p.group}
                             : Dims{p.outChannels, p.inChannels / p.group};
  wShape.insert(wShape.end(), p.kernel.begin(), p.kernel.end());
  const Tensor x = randomS8(xShape, rng);
  const Tensor w = randomS8(wShape, rng, -127, 127);
  std::vector<int32_t> bias;
  if (rng() & 1) {
    std::uniform_int_distribution<int32_t> d(-100000, 100000);
    for (int64_t oc = 0; oc < p.outChannels; ++oc) {
      bias.push_back(d(rng));
    }
  }
  const Tensor acc = convAccumulate(p, x, w, bias);
  const std::vector<int64_t> expected =
      c.transposed ? naiveConvTranspose(p, x, w, bias, 0) : naiveConv(p, x, w, bias, 0);
  // With an input zero point: padding and the positions between a transposed convolution's
  // samples are real 0 (the code z).
  const auto z = std::uniform_int_distribution<int32_t>(kInt8Min, kInt8Max)(rng);
  const Tensor accZ = convAccumulate(p, x, w, bias, z);
  const std::vector<int64_t> expectedZ =
      c.transposed ? naiveConvTranspose(p, x, w, bias, z) : naiveConv(p, x, w, bias, z);
  for (size_t i = 0; i < expectedZ.size(); ++i)
    ASSERT_EQ(accZ.data<int32_t>()[i], expectedZ[i]) << "element " << i << ", zero point " << z;
  ASSERT_EQ(acc.dtype(), DType::I32);
  ASSERT_EQ(static_cast<size_t>(acc.numElements()), expected.size());
  Dims expectedShape{p.batch, p.outChannels};
  expectedShape.insert(expectedShape.end(), p.outSpatial.begin(), p.outSpatial.end());
  ASSERT_EQ(acc.shape(), expectedShape);
  for (size_t i = 0; i < expected.size(); ++i) {
    ASSERT_EQ(acc.data<int32_t>()[i], expected[i]) << "element " << i;
  }
  // Per-channel requantization, against the 128-bit reference.
  std::vector<QuantMultiplier> ms;
  std::uniform_real_distribution<double> logM(-14.0, -4.0);
  for (int64_t oc = 0; oc < p.outChannels; ++oc) {
    ms.push_back(quantizeMultiplier(std::exp2(logM(rng))));
  }
  const Tensor y = requantizePerChannel(acc, 1, ms);
  const int64_t outVol = numElements(p.outSpatial);
  for (size_t i = 0; i < expected.size(); ++i) {
    const auto oc = static_cast<size_t>((static_cast<int64_t>(i) / outVol) % p.outChannels);
    ASSERT_EQ(y.data<int8_t>()[i], referenceRequantize(expected[i], ms[oc])) << "element " << i;
  }
}

ConvCase randomCase(std::mt19937_64& rng, bool transposed, size_t rank) {
  auto pick = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  ConvCase c;
  c.transposed = transposed;
  c.batch = pick(1, 2);
  // Groups: 1, a divisor, or depthwise; channel counts include tails such as 17.
  const int64_t kind = pick(0, 3);
  const int64_t group = kind == 0 ? 1 : (kind == 1 ? pick(2, 3) : pick(2, 6));
  const int64_t cg = kind >= 2 ? 1 : pick(1, 6);
  const int64_t mg = kind == 3 ? pick(1, 2) : pick(1, 5);
  c.group = group;
  c.inChannels = group * cg;
  c.outChannels = group * mg;
  if (pick(0, 5) == 0) { // occasionally a 17-channel tail with group 1
    c.group = 1;
    c.inChannels = 17;
    c.outChannels = pick(0, 1) ? 17 : 5;
  }
  for (size_t a = 0; a < rank; ++a) {
    const int64_t k = pick(1, 3);
    const int64_t s = pick(1, 3);
    const int64_t d = pick(1, 2);
    c.kernel.push_back(k);
    c.strides.push_back(s);
    c.dilations.push_back(d);
    const int64_t span = d * (k - 1) + 1;
    if (!transposed) {
      c.padsBegin.push_back(pick(0, span - 1));
      c.padsEnd.push_back(pick(0, span - 1));
      c.in.push_back(pick(std::max<int64_t>(1, span - c.padsBegin[a] - c.padsEnd[a]), 9));
    } else {
      c.padsBegin.push_back(pick(0, span - 1));
      c.padsEnd.push_back(pick(0, span - 1));
      c.outputPadding.push_back(pick(0, std::max(s, d) - 1));
      c.in.push_back(pick(2, 6));
      // Keep at least one output: s * (in - 1) + outputPadding + span - pads >= 1.
      while (s * (c.in[a] - 1) + c.outputPadding[a] + span - c.padsBegin[a] - c.padsEnd[a] < 1) {
        --(c.padsBegin[a] > 0 ? c.padsBegin[a] : c.padsEnd[a]);
      }
    }
  }
  return c;
}

TEST(ConvAccumulate, HandComputed2x2) {
  // x = [[1, 2], [3, 4]], w = [[1, -1], [2, 0]], no pad: 1 - 2 + 6 + 0 = 5, + bias 10.
  ConvCase c;
  c.in = {2, 2};
  c.kernel = {2, 2};
  c.strides = c.dilations = {1, 1};
  c.padsBegin = c.padsEnd = {0, 0};
  const ir::ConvParams p = paramsOf(c);
  const Tensor x = Tensor::fromVector<int8_t>({1, 1, 2, 2}, {1, 2, 3, 4});
  const Tensor w = Tensor::fromVector<int8_t>({1, 1, 2, 2}, {1, -1, 2, 0});
  const std::vector<int32_t> bias{10};
  const Tensor acc = convAccumulate(p, x, w, bias);
  ASSERT_EQ(acc.shape(), (Dims{1, 1, 1, 1}));
  EXPECT_EQ(acc.data<int32_t>()[0], 15);
  // Extremes: 4 * (-128 * -127) = 65024.
  const Tensor xm = Tensor::fromVector<int8_t>({1, 1, 2, 2}, {-128, -128, -128, -128});
  const Tensor wm = Tensor::fromVector<int8_t>({1, 1, 2, 2}, {-127, -127, -127, -127});
  EXPECT_EQ(convAccumulate(p, xm, wm, {}).data<int32_t>()[0], 65024);
}

TEST(ConvAccumulate, Random2dMatchesDirectConvolution) {
  std::mt19937_64 rng(101);
  for (int i = 0; i < 60; ++i) {
    SCOPED_TRACE("case " + std::to_string(i));
    checkConvCase(randomCase(rng, false, 2), rng);
  }
}

TEST(ConvAccumulate, Random1dAnd3dMatchDirectConvolution) {
  std::mt19937_64 rng(102);
  for (int i = 0; i < 30; ++i) {
    SCOPED_TRACE("case " + std::to_string(i));
    checkConvCase(randomCase(rng, false, i % 2 == 0 ? 1 : 3), rng);
  }
}

TEST(ConvAccumulate, ResNetLikeLayerMatches) {
  // 64 -> 17 channels (a channel tail), 3x3 stride 2 pad 1 on 15x15: several im2col chunks.
  std::mt19937_64 rng(103);
  ConvCase c;
  c.inChannels = 64;
  c.outChannels = 17;
  c.in = {15, 15};
  c.kernel = {3, 3};
  c.strides = {2, 2};
  c.dilations = {1, 1};
  c.padsBegin = c.padsEnd = {1, 1};
  checkConvCase(c, rng);
  c.strides = {1, 1};
  c.in = {20, 19}; // 380 output positions: a partial second chunk
  checkConvCase(c, rng);
}

TEST(ConvTransposeAccumulate, RandomMatchesScatterReference) {
  std::mt19937_64 rng(104);
  for (int i = 0; i < 60; ++i) {
    SCOPED_TRACE("case " + std::to_string(i));
    checkConvCase(randomCase(rng, true, i % 4 == 3 ? 1 : 2), rng);
  }
}

TEST(ConvTransposeAccumulate, DcganStyleStride2) {
  std::mt19937_64 rng(105);
  ConvCase c;
  c.transposed = true;
  c.inChannels = 17;
  c.outChannels = 8;
  c.in = {4, 4};
  c.kernel = {4, 4};
  c.strides = {2, 2};
  c.dilations = {1, 1};
  c.padsBegin = c.padsEnd = {1, 1};
  checkConvCase(c, rng);
}

TEST(MatmulAccumulate, RandomMatchesTripleLoop) {
  std::mt19937_64 rng(106);
  for (int i = 0; i < 40; ++i) {
    const auto pick = [&](int64_t lo, int64_t hi) {
      return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
    };
    const int64_t m = pick(1, 6), k = pick(1, 70), n = pick(1, 19);
    const bool transA = (i % 2) == 1;
    const Tensor a = randomS8(transA ? Dims{k, m} : Dims{m, k}, rng);
    const Tensor w = randomS8({n, k}, rng, -127, 127);
    std::vector<int32_t> bias;
    if (i % 3 != 0) {
      for (int64_t j = 0; j < n; ++j) {
        bias.push_back(static_cast<int32_t>(pick(-5000, 5000)));
      }
    }
    const auto z = static_cast<int32_t>(i % 4 == 0 ? 0 : pick(kInt8Min, kInt8Max));
    const Tensor acc = matmulAccumulate(a, transA, w, bias, z);
    ASSERT_EQ(acc.shape(), (Dims{m, n}));
    for (int64_t r = 0; r < m; ++r) {
      for (int64_t col = 0; col < n; ++col) {
        int64_t sum = bias.empty() ? 0 : bias[static_cast<size_t>(col)];
        for (int64_t j = 0; j < k; ++j) {
          const int64_t av = transA ? a.data<int8_t>()[j * m + r] : a.data<int8_t>()[r * k + j];
          sum += (av - z) * w.data<int8_t>()[col * k + j];
        }
        ASSERT_EQ(acc.data<int32_t>()[r * n + col], sum) << "case " << i << ", zero point " << z;
      }
    }
  }
}

TEST(ConvAccumulate, RejectsFourSpatialAxes) {
  ir::ConvParams p;
  p.spatialRank = 4;
  p.inSpatial = p.outSpatial = p.kernel = p.strides = p.dilations = Dims(4, 1);
  p.padsBegin = p.padsEnd = Dims(4, 0);
  const Tensor x(DType::I8, {1, 1, 1, 1, 1, 1});
  try {
    convAccumulate(p, x, x, {});
    FAIL() << "accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Unsupported);
    EXPECT_EQ(e.reason(), "int8 convolution with 4 spatial axes is not supported (1 to 3)");
  }
}

} // namespace
} // namespace nnaccel::quant
