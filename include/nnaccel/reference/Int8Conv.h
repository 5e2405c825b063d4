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
/// (two passes) when a row's L1 norm times the source's magnitude could reach 2^24. Where that
/// takes more than one pass and every sum stays below 2^24 (a channel's L1 norm times
/// max |x - zIn|), one pass on oneDNN's fp32 kernel replaces them: every product and partial sum
/// is then an integer that fp32 holds exactly, in whatever order oneDNN adds. It returns
/// nothing when none of this can be exact, and the caller uses its loops.
///
/// int8ConvMapped is the int8 executor's fast path: it hands the passes' results to the caller's
/// epilogue (the requantization, which also changes the layout) in the channels-last layout
/// oneDNN's int8 kernels compute in, so no s32 tensor is reordered, combined or allocated.
#pragma once

#include "nnaccel/ir/OpParams.h"
#include "nnaccel/tensor/Tensor.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

namespace nnaccel::reference {

/// How the last int8ConvSums or int8ConvMapped call on a cache computed its sums (for tests
/// and profiles): int8 passes, how many of them ran without oneDNN's run-time zero point, or the
/// fp32 pass; none of them when the call returned nullopt.
struct Int8ConvRoute {
  int int8Passes = 0;
  int plainPasses = 0;
  bool floatPass = false;
};

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
  /// The route of the last call (all zero before the first).
  const Int8ConvRoute& lastRoute() const;

private:
  std::unique_ptr<State> state_;
};

/// The s32 sums acc[n][m][o...] = sum over the taps reaching o of (x[n][c][i...] - zIn) * w[...]
/// of Conv \p p on oneDNN, with padding adding nothing: quant::convAccumulate without the bias,
/// bit for bit. ConvTranspose (\p p.transposed) always returns nullopt: oneDNN 2.6's u8
/// deconvolution with a source zero point is not exact on every layer. \p x is s8 [N, C, in...], \p
/// w s8 in the ONNX layout (only its elements are read, not its shape: [N, K] serves for a 1x1
/// [N, K, 1]) and the same values on every call with \p cache (it keeps them from the first).
/// Returns nullopt when oneDNN cannot compute these sums exactly (see the file comment) or
/// rejects the configuration.
std::optional<Tensor> int8ConvSums(const ir::ConvParams& p, const Tensor& x, const Tensor& w,
                                   int32_t zIn, Int8ConvCache& cache);

/// The s32 sums of one convolution as oneDNN's passes leave them: channels-last, i.e. \c rows
/// = N * output volume rows of \c channels = M sums each (row-major [N, out..., M]), the sums
/// being offsets[m] + sum over k of factors[k] * passes[k] in wrap-around int32 arithmetic (the
/// true sums fit int32). One to four passes (see the file comment); \c offsets is empty (all 0)
/// or one per channel: the zero point's share of passes run without oneDNN's zero point. With
/// \c floatSums the one pass holds f32 values instead (the fp32 pass: integers below 2^24, see
/// the file comment). The buffers live until the epilogue returns.
struct Int8ConvPasses {
  int64_t rows = 0;
  int64_t channels = 0;
  int64_t positions = 1; ///< output positions per image (rows = images * positions)
  std::vector<const int32_t*> passes;
  std::vector<int32_t> factors;
  std::vector<int32_t> offsets;
  bool floatSums = false;
};

/// Writes the int8 results of the sums into \p out in the ONNX layout [images, channels,
/// positions].
using Int8ConvEpilogue = std::function<void(const Int8ConvPasses& sums, int8_t* out)>;

/// Conv \p p's int8 result: int8ConvSums's sums, without the bias, handed channels-last to
/// \p epilogue, which writes the s8 [N, M, out...] result returned (in \p recycled's storage
/// when it is an s8 tensor of that shape). Returns nullopt where int8ConvSums does; \p epilogue
/// has not run then.
std::optional<Tensor> int8ConvMapped(const ir::ConvParams& p, const Tensor& x, const Tensor& w,
                                     int32_t zIn, const Int8ConvEpilogue& epilogue,
                                     Int8ConvCache& cache, Tensor recycled = {});

} // namespace nnaccel::reference
