// Tests of the element-wise, pooling and gather int8 kernels (quant/Kernels.cpp): hand-computed
// cases, an independent naive average pool (window counts cross-checked against the fp32
// reference executor's pooling), Add/Sub/Mul against exact and real-valued references, and the
// vectorized paths (clamp, same-shape Add/Sub, input quantization) against their element rules.
#include "nnaccel/quant/Kernels.h"

#include "QuantTestUtil.h"
#include "nnaccel/quant/QuantizedModel.h"
#include "nnaccel/reference/Kernels.h"

#include <algorithm>
#include <cmath>
#include <gtest/gtest.h>
#include <limits>
#include <random>

namespace nnaccel::quant {
namespace {

using namespace nnaccel::quant::test;

/// Clamp bounds that keep every int64 value: the reference without saturation.
constexpr std::pair<int64_t, int64_t> kNoClamp{std::numeric_limits<int64_t>::min(),
                                               std::numeric_limits<int64_t>::max()};

TEST(QuantKernels, RequantizePerChannelAlongAnyAxis) {
  // acc [2, 3] with channel axis 1: multipliers 1, 0.5, 2.
  const Tensor acc = Tensor::fromVector<int32_t>({2, 3}, {10, 5, 100, -3, -7, -100});
  const std::vector<QuantMultiplier> ms{quantizeMultiplier(1.0), quantizeMultiplier(0.5),
                                        quantizeMultiplier(2.0)};
  EXPECT_EQ(s8(requantizePerChannel(acc, 1, ms)), (std::vector<int8_t>{10, 3, 127, -3, -4, -128}));
  // Channel axis 0 with inner extent 3; custom range [0, 6] (a fused Relu6).
  const std::vector<QuantMultiplier> ms0{quantizeMultiplier(1.0), quantizeMultiplier(0.25)};
  EXPECT_EQ(s8(requantizePerChannel(acc, 0, ms0, 0, 6)), (std::vector<int8_t>{6, 5, 6, 0, 0, 0}));
}

TEST(QuantKernels, RequantizeTensorClampAndGather) {
  const Tensor x = Tensor::fromVector<int8_t>({4}, {-128, -3, 5, 127});
  EXPECT_EQ(requantizeTensor(x, QuantMultiplier{}), x);
  EXPECT_EQ(s8(requantizeTensor(x, quantizeMultiplier(0.5))),
            (std::vector<int8_t>{-64, -2, 3, 64})); // -1.5 -> -2, 2.5 -> 3, 63.5 -> 64
  const Tensor acc = Tensor::fromVector<int32_t>({2}, {1000, -7});
  EXPECT_EQ(s8(requantizeTensor(acc, quantizeMultiplier(0.1))),
            (std::vector<int8_t>{100, -1})); // -0.7 -> -1
  EXPECT_EQ(s8(clampTensor(x, 0, 127)), (std::vector<int8_t>{0, 0, 5, 127}));
  EXPECT_EQ(s8(clampTensor(x, -4, 4)), (std::vector<int8_t>{-4, -3, 4, 4}));
  const std::vector<int32_t> index{3, 3, 0, 1, 2, 0};
  EXPECT_EQ(s8(gather(x, index, {2, 3})), (std::vector<int8_t>{127, 127, -128, -3, 5, -128}));
}

ir::PoolParams avgParams(Dims in, Dims kernel, Dims strides, Dims padsBegin, Dims padsEnd,
                         bool ceil, bool includePad, int64_t channels = 1, int64_t batch = 1) {
  ir::PoolParams p;
  p.kind = ir::PoolParams::Kind::Average;
  p.spatialRank = static_cast<int64_t>(in.size());
  p.batch = batch;
  p.channels = channels;
  p.ceilMode = ceil;
  p.countIncludePad = includePad;
  for (size_t a = 0; a < in.size(); ++a) {
    const int64_t num = in[a] + padsBegin[a] + padsEnd[a] - kernel[a];
    int64_t out = (ceil ? (num + strides[a] - 1) / strides[a] : num / strides[a]) + 1;
    // ONNX/PyTorch: the last window must start inside the input or left padding.
    if (ceil && (out - 1) * strides[a] >= in[a] + padsBegin[a]) {
      --out;
    }
    p.outSpatial.push_back(out);
  }
  p.inSpatial = std::move(in);
  p.kernel = std::move(kernel);
  p.strides = std::move(strides);
  p.dilations = Dims(p.inSpatial.size(), 1);
  p.padsBegin = std::move(padsBegin);
  p.padsEnd = std::move(padsEnd);
  return p;
}

TEST(QuantKernels, AveragePoolCountsHandComputed) {
  // 5x5, kernel 3, stride 2, pads 1: windows [-1, 1], [1, 3], [3, 5] per axis.
  EXPECT_EQ(averagePoolCounts(avgParams({5, 5}, {3, 3}, {2, 2}, {1, 1}, {1, 1}, false, false)),
            (std::vector<int64_t>{4, 6, 9}));
  EXPECT_EQ(averagePoolCounts(avgParams({5, 5}, {3, 3}, {2, 2}, {1, 1}, {1, 1}, false, true)),
            (std::vector<int64_t>{9}));
  // 3x3, kernel 2, stride 2, ceil_mode: the overhang past the input never counts, with or
  // without count_include_pad.
  EXPECT_EQ(averagePoolCounts(avgParams({3, 3}, {2, 2}, {2, 2}, {0, 0}, {0, 0}, true, false)),
            (std::vector<int64_t>{1, 2, 4}));
  EXPECT_EQ(averagePoolCounts(avgParams({3, 3}, {2, 2}, {2, 2}, {0, 0}, {0, 0}, true, true)),
            (std::vector<int64_t>{1, 2, 4}));
  ir::PoolParams global;
  global.kind = ir::PoolParams::Kind::Average;
  global.global = true;
  global.spatialRank = 2;
  global.channels = 2;
  global.inSpatial = {7, 5};
  global.outSpatial = {1, 1};
  EXPECT_EQ(averagePoolCounts(global), (std::vector<int64_t>{35}));
}

TEST(QuantKernels, AveragePoolHandComputed) {
  // 3x3 input 1..9, kernel 2 stride 2 ceil_mode, multiplier 1/count (s_in == s_out).
  const ir::PoolParams p = avgParams({3, 3}, {2, 2}, {2, 2}, {0, 0}, {0, 0}, true, false);
  std::vector<CountMultiplier> ms;
  for (int64_t c : averagePoolCounts(p)) {
    ms.push_back({c, quantizeMultiplier(1.0 / static_cast<double>(c))});
  }
  const Tensor x = Tensor::fromVector<int8_t>({1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  // (1+2+4+5)/4 = 3, (3+6)/2 = 4.5 -> 5, (7+8)/2 = 7.5 -> 8, 9.
  EXPECT_EQ(s8(averagePool(p, x, ms)), (std::vector<int8_t>{3, 5, 8, 9}));
}

TEST(QuantKernels, AveragePoolOverMoreThan2Pow24ValuesSumsInInt64) {
  // Window sums beyond int32: an int32 accumulator wraps around (-127 * 17,640,000 became a
  // positive +0.91 average). Global pooling, multipliers as the quantizer makes them.
  auto globalParams = [](int64_t h, int64_t w) {
    ir::PoolParams p;
    p.kind = ir::PoolParams::Kind::Average;
    p.global = true;
    p.spatialRank = 2;
    p.channels = 1;
    p.inSpatial = {h, w};
    p.outSpatial = {1, 1};
    return p;
  };
  auto multipliers = [](double ratio, int64_t count) {
    return std::vector<CountMultiplier>{
        {count, quantizeMultiplier(ratio / static_cast<double>(count), 128 * count)}};
  };
  // 4200 x 4200 values of -127 with s_in == s_out: the average is exactly -127.
  const ir::PoolParams big = globalParams(4200, 4200);
  Tensor x(DType::I8, {1, 1, 4200, 4200});
  std::fill(x.values<int8_t>().begin(), x.values<int8_t>().end(), int8_t{-127});
  EXPECT_EQ(s8(averagePool(big, x, multipliers(1.0, 4200 * 4200))), (std::vector<int8_t>{-127}));
  // 2^25 values of -127 with s_out = 2 s_in: -127 * 2^25 * 2^-26 = -63.5 exactly -> -64.
  const ir::PoolParams pow2 = globalParams(8192, 4096);
  Tensor y(DType::I8, {1, 1, 8192, 4096});
  std::fill(y.values<int8_t>().begin(), y.values<int8_t>().end(), int8_t{-127});
  EXPECT_EQ(s8(averagePool(pow2, y, multipliers(0.5, int64_t{1} << 25))),
            (std::vector<int8_t>{-64}));
  // Mixed signs: the first half 127, the second half -128: the sum is -2^24 (count 2^25),
  // average -0.5 -> -1 (half away from zero) with s_in == s_out.
  std::fill(y.values<int8_t>().begin(), y.values<int8_t>().begin() + (int64_t{1} << 24),
            int8_t{127});
  std::fill(y.values<int8_t>().begin() + (int64_t{1} << 24), y.values<int8_t>().end(),
            int8_t{-128});
  EXPECT_EQ(s8(averagePool(pow2, y, multipliers(1.0, int64_t{1} << 25))),
            (std::vector<int8_t>{-1}));
}

/// Independent naive average pool on one plane: sum of in-bounds taps, count per the ONNX rule.
std::vector<int64_t> naiveWindow(const ir::PoolParams& p, const int8_t* plane, int64_t o0,
                                 int64_t o1, int64_t& count) {
  int64_t sum = 0, counted = 0;
  for (int64_t k0 = 0; k0 < p.kernel[0]; ++k0) {
    for (int64_t k1 = 0; k1 < p.kernel[1]; ++k1) {
      const int64_t i0 = o0 * p.strides[0] - p.padsBegin[0] + k0;
      const int64_t i1 = o1 * p.strides[1] - p.padsBegin[1] + k1;
      const bool in0 = i0 >= 0 && i0 < p.inSpatial[0], in1 = i1 >= 0 && i1 < p.inSpatial[1];
      const bool pad0 = i0 >= -p.padsBegin[0] && i0 < p.inSpatial[0] + p.padsEnd[0];
      const bool pad1 = i1 >= -p.padsBegin[1] && i1 < p.inSpatial[1] + p.padsEnd[1];
      counted += p.countIncludePad ? (pad0 && pad1) : (in0 && in1);
      if (in0 && in1) {
        sum += plane[i0 * p.inSpatial[1] + i1];
      }
    }
  }
  count = counted;
  return {sum};
}

TEST(QuantKernels, AveragePoolMatchesNaiveAndReferenceCounts) {
  std::mt19937_64 rng(5);
  auto pick = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  int64_t compared = 0;
  for (int i = 0; i < 80; ++i) {
    const int64_t k0 = pick(1, 3), k1 = pick(1, 3);
    const ir::PoolParams p =
        avgParams({pick(k0, 8), pick(k1, 8)}, {k0, k1}, {pick(1, 3), pick(1, 3)},
                  {pick(0, k0 - 1), pick(0, k1 - 1)}, {pick(0, k0 - 1), pick(0, k1 - 1)},
                  (i % 2) == 1, (i % 4) >= 2, pick(1, 3), pick(1, 2));
    const Tensor x = randomS8({p.batch, p.channels, p.inSpatial[0], p.inSpatial[1]}, rng);
    // s_out = s_in / 2: multipliers 2 / count.
    std::vector<CountMultiplier> ms;
    for (int64_t c : averagePoolCounts(p)) {
      ms.push_back({c, quantizeMultiplier(2.0 / static_cast<double>(c))});
    }
    const Tensor y = averagePool(p, x, ms);
    ASSERT_EQ(y.shape(), (Dims{p.batch, p.channels, p.outSpatial[0], p.outSpatial[1]}));
    // The fp32 reference pooling of the same integers gives sum / count.
    const Tensor ref = reference::pool(p, x.castTo(DType::F32));
    ASSERT_EQ(ref.shape(), y.shape());
    const int64_t planeIn = p.inSpatial[0] * p.inSpatial[1];
    const int64_t planeOut = p.outSpatial[0] * p.outSpatial[1];
    for (int64_t plane = 0; plane < p.batch * p.channels; ++plane) {
      for (int64_t o0 = 0; o0 < p.outSpatial[0]; ++o0) {
        for (int64_t o1 = 0; o1 < p.outSpatial[1]; ++o1) {
          int64_t count = 0;
          const int64_t sum = naiveWindow(p, x.data<int8_t>() + plane * planeIn, o0, o1, count)[0];
          ASSERT_GT(count, 0);
          const auto m = std::find_if(ms.begin(), ms.end(),
                                      [&](const CountMultiplier& c) { return c.count == count; });
          ASSERT_NE(m, ms.end()) << "count " << count << " missing";
          const int64_t at = plane * planeOut + o0 * p.outSpatial[1] + o1;
          ASSERT_EQ(y.data<int8_t>()[at], referenceRequantize(sum, m->multiplier)) << "case " << i;
          // Same divisor as the reference executor: its output is sum / count.
          ASSERT_NEAR(ref.data<float>()[at], static_cast<double>(sum) / count, 1e-4)
              << "case " << i << " count " << count;
          ++compared;
        }
      }
    }
  }
  EXPECT_GT(compared, 1000);
}

TEST(QuantKernels, AddSubHandComputed) {
  // s_a = 0.5, s_b = 0.25, s_out = 0.5: twiceMax = 1, a' = q_a * 2^20 / 2, b' = q_b * 2^20 / 4.
  AddSubMultipliers m;
  m.leftShift = 20;
  m.a = quantizeMultiplier(0.5);
  m.b = quantizeMultiplier(0.25);
  m.output = quantizeMultiplier(1.0 / (std::ldexp(1.0, 20) * 0.5));
  const Tensor a = Tensor::fromVector<int8_t>({4}, {10, -10, 127, 1});
  const Tensor b = Tensor::fromVector<int8_t>({4}, {4, 3, 127, -1});
  // Real: 5 + 1 = 6 -> 12; -5 + 0.75 = -4.25 -> -8.5 -> -9; 63.5 + 31.75 -> 190.5 -> 127;
  // 0.5 - 0.25 = 0.25 -> 0.5 -> 1.
  EXPECT_EQ(s8(addSub(false, m, a, b, {4})), (std::vector<int8_t>{12, -9, 127, 1}));
  // Sub: 5 - 1 = 4 -> 8; -5 - 0.75 -> -11.5 -> -12; 63.5 - 31.75 = 31.75 -> 63.5 -> 64;
  // 0.5 + 0.25 -> 1.5 -> 2.
  EXPECT_EQ(s8(addSub(true, m, a, b, {4})), (std::vector<int8_t>{8, -12, 64, 2}));
}

TEST(QuantKernels, AddSubAndMulBroadcastMatchReferences) {
  std::mt19937_64 rng(9);
  std::uniform_real_distribution<double> logScale(-9.0, -3.0);
  int64_t total = 0, exactToReal = 0;
  const std::vector<std::array<Dims, 3>> shapes{
      {Dims{2, 3, 4}, Dims{2, 3, 4}, Dims{2, 3, 4}},
      {Dims{2, 3, 4}, Dims{3, 1}, Dims{2, 3, 4}},
      {Dims{1, 3, 1, 5}, Dims{2, 1, 4, 1}, Dims{2, 3, 4, 5}},
      {Dims{}, Dims{6}, Dims{6}},
      {Dims{4, 1}, Dims{}, Dims{4, 1}}};
  for (int trial = 0; trial < 40; ++trial) {
    const auto& [sa_, sb_, so_] = shapes[static_cast<size_t>(trial) % shapes.size()];
    const Tensor a = randomS8(sa_, rng), b = randomS8(sb_, rng);
    const double sa = std::exp2(logScale(rng)), sb = std::exp2(logScale(rng));
    const double sOut = std::exp2(logScale(rng)) * 2;
    const double twiceMax = 2 * std::max(sa, sb);
    AddSubMultipliers m;
    m.a = quantizeMultiplier(sa / twiceMax);
    m.b = quantizeMultiplier(sb / twiceMax);
    m.output = quantizeMultiplier(twiceMax / (std::ldexp(1.0, 20) * sOut));
    const QuantMultiplier mulM = quantizeMultiplier(sa * sb / (sOut * 64));
    const bool subtract = trial % 2 == 1;
    const Tensor y = addSub(subtract, m, a, b, so_);
    const Tensor z = mul(mulM, a, b, so_);
    // Index maps of the broadcast, computed independently.
    const Dims outStrides = rowMajorStrides(so_);
    auto source = [&](const Dims& shape, int64_t flatOut) {
      int64_t off = 0, stride = 1;
      for (size_t k = shape.size(); k-- > 0;) {
        const size_t outAxis = so_.size() - shape.size() + k;
        const int64_t idx = (flatOut / outStrides[outAxis]) % so_[outAxis];
        off += (shape[k] == 1 ? 0 : idx) * stride;
        stride *= shape[k];
      }
      return off;
    };
    for (int64_t i = 0; i < numElements(so_); ++i) {
      const int64_t qa = a.data<int8_t>()[source(sa_, i)], qb = b.data<int8_t>()[source(sb_, i)];
      const int64_t ra = referenceRequantize(qa << 20, m.a, kNoClamp.first, kNoClamp.second),
                    rb = referenceRequantize(qb << 20, m.b, kNoClamp.first, kNoClamp.second);
      ASSERT_EQ(y.data<int8_t>()[i], referenceRequantize(subtract ? ra - rb : ra + rb, m.output));
      ASSERT_EQ(z.data<int8_t>()[i], referenceRequantize(qa * qb, mulM));
      // Against real arithmetic: at most one step away, and almost always exact.
      const double real = (static_cast<double>(qa) * sa + (subtract ? -1 : 1) * qb * sb) / sOut;
      const double want = std::clamp(std::round(real), -128.0, 127.0);
      ASSERT_LE(std::fabs(y.data<int8_t>()[i] - want), 1.0);
      exactToReal += y.data<int8_t>()[i] == want ? 1 : 0;
      ++total;
    }
  }
  EXPECT_GT(static_cast<double>(exactToReal) / static_cast<double>(total), 0.99);
}

/// With zero points every kernel computes on the differences q - z and adds the output's zero
/// point before saturating: checked element by element against the 128-bit reference rule on
/// explicitly formed differences, for random zero points and multipliers.
TEST(QuantKernels, ZeroPointsAreOffsetsOfTheDifferences) {
  std::mt19937_64 rng(17);
  const auto pickZero = [&] { return std::uniform_int_distribution<int32_t>(-128, 127)(rng); };
  std::uniform_real_distribution<double> logM(-3.0, -0.1);
  const auto clampS8 = [](int64_t v) { return std::clamp<int64_t>(v, -128, 127); };
  for (int trial = 0; trial < 30; ++trial) {
    SCOPED_TRACE("trial " + std::to_string(trial));
    const Dims shape{3, 7};
    const Tensor a = randomS8(shape, rng), b = randomS8(shape, rng);
    const Tensor cond = randomS8(shape, rng, 0, 1);
    const ZeroPoints z{{pickZero(), pickZero(), pickZero()}, pickZero()};
    const QuantMultiplier ma = quantizeMultiplier(std::exp2(logM(rng)));
    const QuantMultiplier mb = quantizeMultiplier(std::exp2(logM(rng)));
    AddSubMultipliers m;
    m.a = ma;
    m.b = mb;
    m.output = quantizeMultiplier(std::ldexp(1.0, -20) * 2);
    const Tensor sum = addSub(trial % 2 == 1, m, a, b, shape, z);
    const Tensor product = mul(ma, a, b, shape, false, z);
    const Tensor larger = minMax(true, ma, mb, a, b, shape, z);
    const Tensor greater = compare(Comparison::Greater, ma, mb, a, b, shape, z);
    const Tensor chosen =
        select(cond, ma, mb, a, b, shape, ZeroPoints{{0, z.in[0], z.in[1]}, z.out});
    const Tensor moved = requantizeTensor(a, ma, z.in[0], z.out);
    for (int64_t i = 0; i < numElements(shape); ++i) {
      const int64_t da = a.data<int8_t>()[i] - z.in[0], db = b.data<int8_t>()[i] - z.in[1];
      const int64_t ra = referenceRequantize(da << 20, ma, kNoClamp.first, kNoClamp.second);
      const int64_t rb = referenceRequantize(db << 20, mb, kNoClamp.first, kNoClamp.second);
      const int64_t s = referenceRequantize(trial % 2 == 1 ? ra - rb : ra + rb, m.output,
                                            kNoClamp.first, kNoClamp.second);
      ASSERT_EQ(sum.data<int8_t>()[i], clampS8(s + z.out)) << i;
      ASSERT_EQ(product.data<int8_t>()[i],
                clampS8(referenceRequantize(da * db, ma, kNoClamp.first, kNoClamp.second) + z.out));
      const int64_t xa = referenceRequantize(da, ma, kNoClamp.first, kNoClamp.second);
      const int64_t xb = referenceRequantize(db, mb, kNoClamp.first, kNoClamp.second);
      ASSERT_EQ(larger.data<int8_t>()[i], clampS8(std::max(xa, xb) + z.out)) << i;
      ASSERT_EQ(greater.data<int8_t>()[i], xa > xb ? 1 : 0) << i; // no saturation before comparing
      ASSERT_EQ(chosen.data<int8_t>()[i], clampS8((cond.data<int8_t>()[i] != 0 ? xa : xb) + z.out));
      ASSERT_EQ(moved.data<int8_t>()[i], clampS8(xa + z.out)) << i;
    }
    // Lines: ReduceMean of each row's differences; global average pooling of each plane.
    const QuantMultiplier mean = quantizeMultiplier(std::exp2(logM(rng)) / 7);
    const Tensor reduced = reduce(Reduction::Mean, a, LineGeometry{3, 7, 1}, mean, {3}, z);
    ir::PoolParams p;
    p.kind = ir::PoolParams::Kind::Average;
    p.global = true;
    p.spatialRank = 1;
    p.batch = 1;
    p.channels = 3;
    p.inSpatial = {7};
    p.outSpatial = {1};
    const std::vector<CountMultiplier> counts{{7, mean}};
    const Tensor pooled = averagePool(p, a.reshaped({1, 3, 7}), counts, z);
    for (int64_t row = 0; row < 3; ++row) {
      int64_t total = 0;
      for (int64_t k = 0; k < 7; ++k)
        total += a.data<int8_t>()[row * 7 + k] - z.in[0];
      const int64_t want =
          clampS8(referenceRequantize(total, mean, kNoClamp.first, kNoClamp.second) + z.out);
      ASSERT_EQ(reduced.data<int8_t>()[row], want) << row;
      ASSERT_EQ(pooled.data<int8_t>()[row], want) << row;
    }
  }
}

TEST(QuantKernels, AveragePoolRejectsFourSpatialAxes) {
  ir::PoolParams p;
  p.kind = ir::PoolParams::Kind::Average;
  p.spatialRank = 4;
  p.inSpatial = p.outSpatial = p.kernel = p.strides = p.dilations = Dims(4, 1);
  p.padsBegin = p.padsEnd = Dims(4, 0);
  try {
    averagePoolCounts(p);
    FAIL() << "accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Unsupported);
    EXPECT_EQ(e.reason(), "int8 average pooling with 4 spatial axes is not supported (1 to 3)");
  }
}

/// clampTensor's vector path (bounds that are codes) and its written-out rule (bounds that are
/// not), with and without a recycled output.
TEST(QuantKernels, ClampMatchesTheRuleForEveryBound) {
  std::mt19937_64 rng(23);
  const std::pair<int32_t, int32_t> bounds[] = {{-128, 127},  {0, 127},    {-5, 5},
                                                {10, -10},    {-300, 300}, {200, 300},
                                                {-300, -200}, {-128, -128}};
  for (const auto& [lo, hi] : bounds) {
    for (const int64_t count : {0, 1, 15, 16, 37, 200}) {
      const Tensor x = randomS8({count}, rng);
      Tensor recycled = randomS8({count}, rng);
      const Tensor y = clampTensor(x, lo, hi, count % 2 == 0 ? std::move(recycled) : Tensor());
      ASSERT_EQ(y.shape(), x.shape());
      for (int64_t i = 0; i < count; ++i)
        ASSERT_EQ(y.data<int8_t>()[i], static_cast<int8_t>(std::min<int32_t>(
                                           std::max<int32_t>(x.data<int8_t>()[i], lo), hi)))
            << lo << ".." << hi << " at " << i;
    }
  }
}

/// Same-shape Add/Sub (the vector path, and the checked blocks when the tables could overflow
/// int32) against addSubValue element by element.
TEST(QuantKernels, SameShapeAddSubMatchesTheElementRule) {
  std::mt19937_64 rng(29);
  std::uniform_real_distribution<double> logM(-6.0, -0.05);
  for (int trial = 0; trial < 60; ++trial) {
    SCOPED_TRACE("trial " + std::to_string(trial));
    const bool wide = trial % 3 == 2; // |a'| + |b'| could pass int32: the checked blocks
    AddSubMultipliers m;
    m.leftShift = wide ? 23 : 20;
    m.a = quantizeMultiplier(wide ? 1.5 : std::exp2(logM(rng)));
    m.b = quantizeMultiplier(wide ? 1.2 : std::exp2(logM(rng)));
    m.output = quantizeMultiplier(std::exp2(logM(rng)) / (1 << 18));
    const ZeroPoints z =
        wide ? ZeroPoints{} : ZeroPoints{{trial % 7 - 3, trial % 5 - 2, 0}, trial % 9 - 4};
    const Dims shape{1 + trial % 3, 8 * (trial % 4) + trial % 11};
    const int range = wide ? 60 : 128; // keeps the wide case's sums within int32
    const Tensor a = randomS8(shape, rng, -range, range - 1),
                 b = randomS8(shape, rng, -range, range - 1);
    const bool subtract = trial % 2 == 1;
    const Tensor y = addSub(subtract, m, a, b, shape, z, Tensor(DType::I8, shape));
    for (int64_t i = 0; i < numElements(shape); ++i)
      ASSERT_EQ(y.data<int8_t>()[i],
                addSubValue(subtract, m, a.data<int8_t>()[i], b.data<int8_t>()[i], z))
          << i;
  }
}

TEST(QuantKernelsDeathTest, SameShapeAddSubReportsAnIntermediateBeyondInt32) {
  AddSubMultipliers m;
  m.leftShift = 23;
  m.a = m.b = quantizeMultiplier(1.5); // 127 * 2^23 * 1.5 twice: past INT32_MAX
  m.output = quantizeMultiplier(1.0 / (1 << 20));
  const Tensor a = Tensor::fromVector<int8_t>({2}, {127, 1}), b = a;
  EXPECT_DEATH(addSub(false, m, a, b, {2}), "add/sub intermediate overflows int32");
}

/// quantizeTensor's vector path (ties away from zero) and its element path (ties to even)
/// against quantizeValue: random values, exact ties, the clamp bounds, zeros, infinities, NaN,
/// denormals, every zero point.
TEST(QuantKernels, QuantizeTensorMatchesQuantizeValue) {
  std::mt19937_64 rng(31);
  std::uniform_real_distribution<float> wide(-400.0f, 400.0f), narrow(-2.0f, 2.0f);
  for (int trial = 0; trial < 80; ++trial) {
    const auto count = static_cast<int64_t>(trial % 37 + (trial % 3) * 16);
    Tensor x(DType::F32, {count});
    for (int64_t i = 0; i < count; ++i) {
      float& v = x.data<float>()[i];
      switch (i % 8) {
      case 0:
        v = wide(rng);
        break;
      case 1:
        v = (std::floor(wide(rng)) + 0.5f) * 0.25f; // a tie at scale 0.25
        break;
      case 2:
        v = std::array<float, 6>{0.0f,
                                 -0.0f,
                                 std::numeric_limits<float>::infinity(),
                                 -std::numeric_limits<float>::infinity(),
                                 std::numeric_limits<float>::quiet_NaN(),
                                 1e-40f}[rng() % 6];
        break;
      case 3:
        v = (127.5f - static_cast<float>(rng() % 3)) * 0.25f * (rng() % 2 == 0 ? 1.0f : -1.0f);
        break;
      default:
        v = narrow(rng);
      }
    }
    const float scale = trial % 4 == 0 ? 0.25f : std::exp2(narrow(rng) * 3);
    const int32_t zero = static_cast<int32_t>(rng() % 256) - 128;
    for (const Rounding rounding : {Rounding::HalfAway, Rounding::HalfEven}) {
      const QuantTensor q = quantizeTensor(x, scale, rounding, zero);
      for (int64_t i = 0; i < count; ++i)
        ASSERT_EQ(q.data.data<int8_t>()[i],
                  quantizeValue(x.data<float>()[i], scale, kInt8Min, kInt8Max, rounding, zero))
            << "trial " << trial << " element " << i << " = " << x.data<float>()[i];
    }
  }
}

} // namespace
} // namespace nnaccel::quant
