/// \file
/// The int8 executor's Conv, ConvTranspose, Gemm and MatMul accumulators on oneDNN's integer
/// primitives (reference/Int8Conv.h), several times faster than the loops of
/// AccumulateKernels.cpp and bit-identical to them: integer sums are exact in any order, and
/// int8ConvSums only answers when oneDNN's kernels give exactly these sums. Where it does not
/// (sums that could reach 2^24 even in nibbles, ConvTranspose, geometries oneDNN rejects), the
/// loops run. The executor's path (convRequantizeOneDnn) requantizes oneDNN's channels-last
/// sums directly (requantizeChannelsLast) instead of first building the s32 accumulators.
#include "nnaccel/quant/Kernels.h"
#include "nnaccel/reference/Kernels.h"

namespace nnaccel::quant {

namespace {

/// acc[n][c][...] += bias[c] in int32 (wrap-around arithmetic: the true sums fit int32).
void addBias(Tensor& acc, std::span<const int32_t> bias) {
  if (bias.empty())
    return;
  const int64_t channels = acc.dim(1);
  NNACCEL_ASSERT(static_cast<int64_t>(bias.size()) == channels)
      << "bias has " << bias.size() << " entries for " << channels << " output channels";
  const int64_t inner = acc.numElements() / std::max<int64_t>(1, acc.dim(0) * channels);
  auto* a = reinterpret_cast<uint32_t*>(acc.data<int32_t>());
  for (int64_t row = 0; row < acc.dim(0) * channels; ++row) {
    const auto b = static_cast<uint32_t>(bias[static_cast<size_t>(row % channels)]);
    for (int64_t i = 0; i < inner; ++i)
      a[row * inner + i] += b;
  }
}

/// Gemm/MatMul [M, K] x [N, K]^T as a convolution: batch M, K input and N output channels, one
/// spatial position, a 1-wide kernel.
ir::ConvParams rowsAsConvolution(int64_t m, int64_t k, int64_t n) {
  ir::ConvParams p;
  p.spatialRank = 1;
  p.batch = m;
  p.inChannels = k;
  p.outChannels = n;
  p.inSpatial = p.outSpatial = p.kernel = p.strides = p.dilations = {1};
  p.padsBegin = p.padsEnd = p.outputPadding = {0};
  return p;
}

/// The loops' result: requantizePerChannel of the s32 accumulators.
Tensor requantizedLoops(const Tensor& acc, std::span<const QuantMultiplier> multipliers,
                        int32_t zOut) {
  return requantizePerChannel(acc, 1, multipliers, kInt8Min, kInt8Max, zOut);
}

} // namespace

Tensor convRequantizeOneDnn(const ir::ConvParams& p, const Tensor& x, const Tensor& w,
                            std::span<const int32_t> bias,
                            std::span<const QuantMultiplier> multipliers, ZeroPoints z,
                            reference::Int8ConvCache& cache, Tensor recycled) {
  const auto epilogue = [&](const reference::Int8ConvPasses& sums, int8_t* out) {
    requantizeChannelsLast(sums, bias, multipliers, z.out, kInt8Min, kInt8Max, out);
  };
  std::optional<Tensor> y =
      reference::int8ConvMapped(p, x, w, z.in[0], epilogue, cache, std::move(recycled));
  if (!y)
    return requantizedLoops(convAccumulate(p, x, w, bias, z.in[0]), multipliers, z.out);
  return std::move(*y);
}

Tensor matmulRequantizeOneDnn(const Tensor& a, bool transA, const Tensor& w,
                              std::span<const int32_t> bias,
                              std::span<const QuantMultiplier> multipliers, ZeroPoints z,
                              reference::Int8ConvCache& cache, Tensor recycled) {
  NNACCEL_ASSERT(a.rank() == 2 && w.rank() == 2) << "matmulAccumulate wants 2-D operands";
  const Tensor transposed = transA ? reference::transpose(a, {1, 0}) : Tensor();
  const Tensor& rows = transA ? transposed : a;
  const int64_t m = rows.dim(0), k = rows.dim(1), n = w.dim(0);
  NNACCEL_ASSERT(w.dim(1) == k) << "matmulAccumulate: K mismatch " << k << " vs " << w.dim(1);
  const ir::ConvParams p = rowsAsConvolution(m, k, n);
  // The weights as they are: the oneDNN path reads [N, K] as [N, K, 1] (no copy per call).
  const Tensor y = convRequantizeOneDnn(p, rows.reshaped({m, k, 1}), w, bias, multipliers, z, cache,
                                        std::move(recycled));
  return y.reshaped({m, n});
}

Tensor convAccumulateOneDnn(const ir::ConvParams& p, const Tensor& x, const Tensor& w,
                            std::span<const int32_t> bias, int32_t zIn,
                            reference::Int8ConvCache& cache) {
  std::optional<Tensor> acc = reference::int8ConvSums(p, x, w, zIn, cache);
  if (!acc)
    return convAccumulate(p, x, w, bias, zIn);
  addBias(*acc, bias);
  return std::move(*acc);
}

Tensor matmulAccumulateOneDnn(const Tensor& a, bool transA, const Tensor& w,
                              std::span<const int32_t> bias, int32_t zIn,
                              reference::Int8ConvCache& cache) {
  NNACCEL_ASSERT(a.rank() == 2 && w.rank() == 2) << "matmulAccumulate wants 2-D operands";
  const Tensor rows = transA ? reference::transpose(a, {1, 0}) : a;
  const int64_t m = rows.dim(0), k = rows.dim(1), n = w.dim(0);
  NNACCEL_ASSERT(w.dim(1) == k) << "matmulAccumulate: K mismatch " << k << " vs " << w.dim(1);
  const ir::ConvParams p = rowsAsConvolution(m, k, n);
  const Tensor acc =
      convAccumulateOneDnn(p, rows.reshaped({m, k, 1}), w.reshaped({n, k, 1}), bias, zIn, cache);
  return acc.reshaped({m, n});
}

} // namespace nnaccel::quant
