// int8 x int8 -> int32 accumulation for Conv, ConvTranspose, Gemm and MatMul.
//
// Conv and ConvTranspose share one scheme: a per-axis tap table maps (output coordinate,
// kernel offset) to the input coordinate it reads (or -1: padding, or for ConvTranspose a
// position between the strided input samples), an im2col step gathers, for a chunk of output
// positions, the Cg * kvol taps of each position into one int8 row, and every output channel is
// an int8 dot product with its weight row. Integer accumulation is exact, so this order is as
// good as any other; engines may sum in whatever order their dataflow uses.
#include "nnaccel/quant/Kernels.h"

#include <algorithm>
#include <array>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace nnaccel::quant {

namespace {

constexpr size_t kMaxSpatial = 3;
/// Output positions gathered per im2col chunk (bounds the scratch to chunk * Cg * kvol bytes).
constexpr int64_t kChunkPositions = 256;

/// A convolution's spatial geometry padded to three axes (leading axes of extent 1).
struct Geometry3 {
  std::array<int64_t, kMaxSpatial> in{1, 1, 1}, out{1, 1, 1}, kernel{1, 1, 1};
  /// table[a][o * kernel[a] + k]: input coordinate read by output o at kernel offset k, or -1.
  std::array<std::vector<int64_t>, kMaxSpatial> table;

  int64_t inVolume() const { return in[0] * in[1] * in[2]; }
  int64_t outVolume() const { return out[0] * out[1] * out[2]; }
  int64_t kernelVolume() const { return kernel[0] * kernel[1] * kernel[2]; }
};

Geometry3 geometryOf(const ir::ConvParams& p) {
  const size_t rank = static_cast<size_t>(p.spatialRank);
  if (rank < 1 || rank > kMaxSpatial) {
    throw Error(ErrorKind::Unsupported, {},
                "int8 convolution with " + std::to_string(rank) +
                    " spatial axes is not supported (1 to 3)");
  }
  Geometry3 g;
  const size_t offset = kMaxSpatial - rank;
  for (size_t a = 0; a < kMaxSpatial; ++a) {
    int64_t stride = 1, dilation = 1, padBegin = 0;
    if (a >= offset) {
      const size_t s = a - offset;
      g.in[a] = p.inSpatial[s];
      g.out[a] = p.outSpatial[s];
      g.kernel[a] = p.kernel[s];
      stride = p.strides[s];
      dilation = p.dilations[s];
      padBegin = p.padsBegin[s];
    }
    std::vector<int64_t>& t = g.table[a];
    t.assign(static_cast<size_t>(g.out[a] * g.kernel[a]), -1);
    for (int64_t o = 0; o < g.out[a]; ++o) {
      for (int64_t k = 0; k < g.kernel[a]; ++k) {
        int64_t i = -1;
        if (!p.transposed) {
          i = o * stride - padBegin + k * dilation; // Conv: o reads i
        } else {
          const int64_t scaled = o + padBegin - k * dilation; // ConvTranspose: i writes o
          i = (scaled >= 0 && scaled % stride == 0) ? scaled / stride : -1;
        }
        t[static_cast<size_t>(o * g.kernel[a] + k)] = (i >= 0 && i < g.in[a]) ? i : -1;
      }
    }
  }
  return g;
}

/// Gathers, for output positions [p0, p0 + count), the taps (c, kd, kh, kw) of \p channels
/// input channels starting at \p x into consecutive rows of \p col (one row per position);
/// a tap outside the input reads \p pad (the code of real 0).
void im2col(const Geometry3& g, const int8_t* x, int64_t channels, int64_t p0, int64_t count,
            int8_t pad, int8_t* col) {
  const int64_t inVol = g.inVolume();
  const auto& [t0, t1, t2] = g.table;
  const auto [k0, k1, k2] = g.kernel;
  int8_t* dst = col;
  for (int64_t p = p0; p < p0 + count; ++p) {
    const int64_t o2 = p % g.out[2];
    const int64_t o1 = (p / g.out[2]) % g.out[1];
    const int64_t o0 = p / (g.out[2] * g.out[1]);
    for (int64_t c = 0; c < channels; ++c) {
      const int8_t* xc = x + c * inVol;
      for (int64_t a = 0; a < k0; ++a) {
        const int64_t i0 = t0[static_cast<size_t>(o0 * k0 + a)];
        for (int64_t b = 0; b < k1; ++b) {
          const int64_t i1 = t1[static_cast<size_t>(o1 * k1 + b)];
          if (i0 < 0 || i1 < 0) {
            std::fill(dst, dst + k2, pad);
            dst += k2;
            continue;
          }
          const int8_t* xrow = xc + (i0 * g.in[1] + i1) * g.in[2];
          const int64_t* row2 = t2.data() + o2 * k2;
          for (int64_t k = 0; k < k2; ++k) {
            *dst++ = row2[k] < 0 ? pad : xrow[row2[k]];
          }
        }
      }
    }
  }
}

/// Four int8 dot products of \p a with the weight rows w0..w3 (written so the compiler
/// vectorizes the four reductions together).
inline void dot4(const int8_t* a, const int8_t* w0, const int8_t* w1, const int8_t* w2,
                 const int8_t* w3, int64_t n, int32_t out[4]) {
  int32_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  for (int64_t i = 0; i < n; ++i) {
    const int32_t v = a[i];
    s0 += v * w0[i];
    s1 += v * w1[i];
    s2 += v * w2[i];
    s3 += v * w3[i];
  }
  out[0] = s0;
  out[1] = s1;
  out[2] = s2;
  out[3] = s3;
}

inline int32_t dot1(const int8_t* a, const int8_t* w, int64_t n) {
  int32_t s = 0;
  for (int64_t i = 0; i < n; ++i) {
    s += static_cast<int32_t>(a[i]) * w[i];
  }
  return s;
}

#if defined(__x86_64__)
/// dot4 with AVX2: 16 int8 at a time widened to int16 (vpmovsxbw), pairs of products summed
/// into int32 lanes (vpmaddwd). Exact: |q_a q_w| <= 2^14, so a pair sum fits int16 x int16 ->
/// int32 without the saturation of vpmaddubsw's int16 sums, and the lanes' int32 sums are the
/// scalar loop's (the quantizer bounds K so no int32 sum overflows): the same bits as dot4.
[[gnu::target("avx2"), gnu::always_inline]] inline __m256i widen16(const int8_t* p) {
  return _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
}

[[gnu::target("avx2"), gnu::always_inline]] inline int32_t lanesSum(__m256i s) {
  const __m128i h = _mm_add_epi32(_mm256_castsi256_si128(s), _mm256_extracti128_si256(s, 1));
  const __m128i q = _mm_add_epi32(h, _mm_shuffle_epi32(h, 0x4e));
  return _mm_cvtsi128_si32(_mm_add_epi32(q, _mm_shuffle_epi32(q, 0xb1)));
}

[[gnu::target("avx2")]] void dot4Avx2(const int8_t* a, const int8_t* w0, const int8_t* w1,
                                      const int8_t* w2, const int8_t* w3, int64_t n,
                                      int32_t out[4]) {
  __m256i s0 = _mm256_setzero_si256(), s1 = s0, s2 = s0, s3 = s0;
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m256i v = widen16(a + i);
    s0 = _mm256_add_epi32(s0, _mm256_madd_epi16(v, widen16(w0 + i)));
    s1 = _mm256_add_epi32(s1, _mm256_madd_epi16(v, widen16(w1 + i)));
    s2 = _mm256_add_epi32(s2, _mm256_madd_epi16(v, widen16(w2 + i)));
    s3 = _mm256_add_epi32(s3, _mm256_madd_epi16(v, widen16(w3 + i)));
  }
  int32_t tail[4] = {0, 0, 0, 0};
  dot4(a + i, w0 + i, w1 + i, w2 + i, w3 + i, n - i, tail);
  out[0] = lanesSum(s0) + tail[0];
  out[1] = lanesSum(s1) + tail[1];
  out[2] = lanesSum(s2) + tail[2];
  out[3] = lanesSum(s3) + tail[3];
}
#endif

/// dot4 on the widest exact kernel this CPU has (chosen once).
void dot4Best(const int8_t* a, const int8_t* w0, const int8_t* w1, const int8_t* w2,
              const int8_t* w3, int64_t n, int32_t out[4]) {
#if defined(__x86_64__)
  static const bool avx2 = __builtin_cpu_supports("avx2");
  if (avx2)
    return dot4Avx2(a, w0, w1, w2, w3, n, out);
#endif
  dot4(a, w0, w1, w2, w3, n, out);
}

/// out[oc * outStride + p] = bias[oc] + dot(rows[p], weights[oc]) for p < numRows, oc < numOut.
void dotRows(const int8_t* rows, int64_t numRows, const int8_t* weights, int64_t numOut,
             int64_t length, const int32_t* bias, int32_t* out, int64_t outStride) {
  for (int64_t p = 0; p < numRows; ++p) {
    const int8_t* a = rows + p * length;
    int64_t oc = 0;
    for (; oc + 4 <= numOut; oc += 4) {
      int32_t s[4];
      const int8_t* w = weights + oc * length;
      dot4Best(a, w, w + length, w + 2 * length, w + 3 * length, length, s);
      for (int64_t j = 0; j < 4; ++j) {
        out[(oc + j) * outStride + p] = (bias ? bias[oc + j] : 0) + s[j];
      }
    }
    for (; oc < numOut; ++oc) {
      out[oc * outStride + p] = (bias ? bias[oc] : 0) + dot1(a, weights + oc * length, length);
    }
  }
}

void checkBias(std::span<const int32_t> bias, int64_t channels) {
  NNACCEL_ASSERT(bias.empty() || static_cast<int64_t>(bias.size()) == channels)
      << "bias has " << bias.size() << " entries for " << channels << " output channels";
}

/// With an input zero point z, sum (x - z) * w = sum x * w - z * sum w: the bias of each of the
/// \p channels weight rows of \p length less z times the row's sum (padding then reads the code
/// z, which adds nothing). \p bias unchanged (or empty) when z is 0.
std::vector<int32_t> biasForZeroPoint(std::span<const int32_t> bias, const int8_t* rows,
                                      int64_t channels, int64_t length, int32_t z) {
  std::vector<int32_t> out(bias.begin(), bias.end());
  if (z == 0)
    return out;
  out.resize(static_cast<size_t>(channels), 0);
  for (int64_t c = 0; c < channels; ++c) {
    int64_t sum = 0;
    for (int64_t i = 0; i < length; ++i)
      sum += rows[c * length + i];
    out[static_cast<size_t>(c)] -= static_cast<int32_t>(z * sum);
  }
  return out;
}

} // namespace

Tensor convAccumulate(const ir::ConvParams& p, const Tensor& x, const Tensor& w,
                      std::span<const int32_t> biasIn, int32_t zIn) {
  NNACCEL_ASSERT(x.dtype() == DType::I8 && w.dtype() == DType::I8) << "convAccumulate wants s8";
  const Geometry3 g = geometryOf(p);
  const int64_t group = p.group;
  const int64_t cg = p.inChannels / group;
  const int64_t mg = p.outChannels / group;
  const int64_t kvol = g.kernelVolume();
  const int64_t rowLength = cg * kvol;
  const int64_t inVol = g.inVolume();
  const int64_t outVol = g.outVolume();
  NNACCEL_ASSERT(x.numElements() == p.batch * p.inChannels * inVol) << "conv input size";
  NNACCEL_ASSERT(w.numElements() == p.outChannels * rowLength) << "conv weight size";
  checkBias(biasIn, p.outChannels);

  // Weight rows [group][mg][cg * kvol] in the im2col order (c outer, kernel offset inner).
  // Conv weights [M, C/g, k...] already are; ConvTranspose [C, M/g, k...] is rearranged.
  std::vector<int8_t> transposedWeights;
  const int8_t* weights = w.data<int8_t>();
  if (p.transposed) {
    transposedWeights.resize(static_cast<size_t>(w.numElements()));
    for (int64_t grp = 0; grp < group; ++grp) {
      for (int64_t c = 0; c < cg; ++c) {
        for (int64_t m = 0; m < mg; ++m) {
          const int8_t* src = weights + ((grp * cg + c) * mg + m) * kvol;
          int8_t* dst = transposedWeights.data() + (grp * mg + m) * rowLength + c * kvol;
          std::copy(src, src + kvol, dst);
        }
      }
    }
    weights = transposedWeights.data();
  }
  const std::vector<int32_t> biasRows =
      biasForZeroPoint(biasIn, weights, p.outChannels, rowLength, zIn);
  const std::span<const int32_t> bias(biasRows);

  Dims outShape{p.batch, p.outChannels};
  outShape.insert(outShape.end(), p.outSpatial.begin(), p.outSpatial.end());
  Tensor out(DType::I32, outShape);
  std::vector<int8_t> col(static_cast<size_t>(std::min(kChunkPositions, outVol) * rowLength));
  for (int64_t n = 0; n < p.batch; ++n) {
    for (int64_t grp = 0; grp < group; ++grp) {
      const int8_t* xg = x.data<int8_t>() + (n * p.inChannels + grp * cg) * inVol;
      const int8_t* wg = weights + grp * mg * rowLength;
      const int32_t* bg = bias.empty() ? nullptr : bias.data() + grp * mg;
      int32_t* outG = out.data<int32_t>() + (n * p.outChannels + grp * mg) * outVol;
      for (int64_t p0 = 0; p0 < outVol; p0 += kChunkPositions) {
        const int64_t count = std::min(kChunkPositions, outVol - p0);
        im2col(g, xg, cg, p0, count, static_cast<int8_t>(zIn), col.data());
        dotRows(col.data(), count, wg, mg, rowLength, bg, outG + p0, outVol);
      }
    }
  }
  return out;
}

Tensor matmulAccumulate(const Tensor& a, bool transA, const Tensor& w,
                        std::span<const int32_t> biasIn, int32_t zIn) {
  NNACCEL_ASSERT(a.dtype() == DType::I8 && w.dtype() == DType::I8) << "matmulAccumulate wants s8";
  NNACCEL_ASSERT(a.rank() == 2 && w.rank() == 2) << "matmulAccumulate wants 2-D operands";
  const int64_t m = transA ? a.dim(1) : a.dim(0);
  const int64_t k = transA ? a.dim(0) : a.dim(1);
  const int64_t n = w.dim(0);
  NNACCEL_ASSERT(w.dim(1) == k) << "matmulAccumulate: K mismatch " << k << " vs " << w.dim(1);
  checkBias(biasIn, n);
  const std::vector<int32_t> biasRows = biasForZeroPoint(biasIn, w.data<int8_t>(), n, k, zIn);
  const std::span<const int32_t> bias(biasRows);
  std::vector<int8_t> transposed;
  const int8_t* rows = a.data<int8_t>();
  if (transA) {
    transposed.resize(static_cast<size_t>(m * k));
    for (int64_t i = 0; i < k; ++i) {
      for (int64_t j = 0; j < m; ++j) {
        transposed[static_cast<size_t>(j * k + i)] = rows[i * m + j];
      }
    }
    rows = transposed.data();
  }
  // acc^T[n][m] = bias[n] + dot(w[n], a[m]) is dotRows with a's rows as positions; write it
  // transposed into [M, N] directly (outStride 1, position stride N) one row of A at a time.
  Tensor out(DType::I32, {m, n});
  int32_t* acc = out.data<int32_t>();
  for (int64_t i = 0; i < m; ++i) {
    dotRows(rows + i * k, 1, w.data<int8_t>(), n, k, bias.empty() ? nullptr : bias.data(),
            acc + i * n, 1);
  }
  return out;
}

std::vector<int64_t> matmulBatchIndex(const Dims& shape, const Dims& outShape) {
  NNACCEL_ASSERT(shape.size() >= 2 && outShape.size() >= shape.size()) << "matmul batch ranks";
  const size_t outBatchRank = outShape.size() - 2;
  const size_t lead = outShape.size() - shape.size(); // dims the operand lacks (broadcast)
  const int64_t batches = numElements(Dims(outShape.begin(), outShape.end() - 2));
  std::vector<int64_t> index(static_cast<size_t>(batches), 0);
  for (int64_t b = 0; b < batches; ++b) {
    int64_t rest = b, flat = 0, stride = 1;
    for (size_t d = outBatchRank; d-- > 0;) {
      const int64_t coord = rest % outShape[d];
      rest /= outShape[d];
      if (d < lead)
        continue;
      const int64_t extent = shape[d - lead];
      flat += (extent == 1 ? 0 : coord) * stride;
      stride *= extent;
    }
    index[static_cast<size_t>(b)] = flat;
  }
  return index;
}

Tensor tensorMatmulAccumulate(const Tensor& a, const Tensor& b, const Dims& outShape, int32_t za,
                              int32_t zb) {
  NNACCEL_ASSERT(a.dtype() == DType::I8 && b.dtype() == DType::I8) << "tensor matmul wants s8";
  NNACCEL_ASSERT(a.rank() >= 2 && b.rank() >= 2) << "tensor matmul wants rank >= 2";
  const int64_t m = a.dim(a.rank() - 2), k = a.dim(a.rank() - 1), n = b.dim(b.rank() - 1);
  NNACCEL_ASSERT(b.dim(b.rank() - 2) == k) << "tensor matmul: K mismatch";
  const std::vector<int64_t> ia = matmulBatchIndex(a.shape(), outShape);
  const std::vector<int64_t> ib = matmulBatchIndex(b.shape(), outShape);
  Tensor out(DType::I32, outShape);
  std::vector<int8_t> bt(static_cast<size_t>(n * k)); // B of one batch as [N, K] rows
  for (size_t batch = 0; batch < ia.size(); ++batch) {
    const int8_t* bb = b.data<int8_t>() + ib[batch] * k * n;
    for (int64_t r = 0; r < k; ++r)
      for (int64_t c = 0; c < n; ++c)
        bt[static_cast<size_t>(c * k + r)] = bb[r * n + c];
    const int8_t* ab = a.data<int8_t>() + ia[batch] * m * k;
    int32_t* acc = out.data<int32_t>() + static_cast<int64_t>(batch) * m * n;
    if (za != 0 || zb != 0) { // products of two differences (|q - z| <= 255): plain loops
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) {
          int32_t sum = 0;
          for (int64_t r = 0; r < k; ++r)
            sum += (ab[i * k + r] - za) * (bt[static_cast<size_t>(j * k + r)] - zb);
          acc[i * n + j] = sum;
        }
      continue;
    }
    for (int64_t i = 0; i < m; ++i)
      dotRows(ab + i * k, 1, bt.data(), n, k, nullptr, acc + i * n, 1);
  }
  return out;
}

} // namespace nnaccel::quant
