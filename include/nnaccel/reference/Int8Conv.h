/// \file
/// Exact int8 convolution sums on oneDNN's integer primitives, for the int8 reference executor
/// (quant::Int8Executor): sum over the taps of (x - zIn) * w, bit for bit what its integer
/// loops give, at the speed of oneDNN's u8 x s8 -> s32 kernels.
///
/// Why not simply oneDNN's s8 convolution: with the ISA capped at AVX2 (DnnlUtil), oneDNN's int8
/// kernels multiply with vpmaddubsw, whose int16 pair sums saturate unless the u8 operand is at
/// most 128 (s8 sources are shifted to u8 and their weights halved, which loses bits), and they
/// convert the s32 sums to f32 before storing them, exact only below 2^24. Int8ConvSums
/// therefore feeds oneDNN operands that meet both bounds: the source shifted into [0, 128] (split
/// in two passes when its range is wider), the zero point as oneDNN's run-time source zero point
/// (padding then adds nothing, as in the loops), and the weights split into high and low nibbles
/// (two passes) when a row's L1 norm times the source's magnitude could reach 2^24. It returns
/// nothing when even that cannot be exact, and the caller uses its loops.
#pragma once

#include "nnaccel/ir/OpParams.h"
#include "nnaccel/tensor/Tensor.h"

#include <cstdint>
#include <memory>
#include <optional>

namespace nnaccel::reference {

/// One convolution node's oneDNN state for int8ConvSums: its primitives, the weight pieces and
/// their converted copies, kept between runs (build one per node; not shared between threads).
class Int8ConvCache {
public:
  Int8ConvCache();
  ~Int8ConvCache();
  Int8ConvCache(Int8ConvCache&&) noexcept;
  Int8ConvCache& operator=(Int8ConvCache&&) noexcept;

  struct State;
  State& state() { return *state_; }

private:
  std::unique_ptr<State> state_;
};

/// The s32 sums acc[n][m][o...] = sum over the taps reaching o of (x[n][c][i...] - zIn) * w[...]
/// of Conv \p p on oneDNN, with padding adding nothing: quant::convAccumulate without the bias,
/// bit for bit. ConvTranspose (\p p.transposed) always returns nullopt: oneDNN 2.6's u8
/// deconvolution with a source zero point is not exact on every layer. \p x is s8 [N, C, in...], \p
/// w s8 in the ONNX layout and the same tensor on every call with \p cache. Returns nullopt when
/// oneDNN cannot compute these sums exactly (see the file comment) or rejects the configuration.
std::optional<Tensor> int8ConvSums(const ir::ConvParams& p, const Tensor& x, const Tensor& w,
                                   int32_t zIn, Int8ConvCache& cache);

} // namespace nnaccel::reference
