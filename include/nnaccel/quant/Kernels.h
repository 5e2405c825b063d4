/// \file
/// The integer kernels of the int8 reference executor: one function per op family, on dense
/// row-major s8/s32 tensors, with the exact semantics of docs/Quantization.md.
///
/// Engines reproduce these bit for bit; they may also call them directly (for example to check
/// one layer's int32 accumulators). All arithmetic is integer: convolution and matrix products
/// accumulate exactly in int32 (the quantizer guarantees the accumulator bound), so any
/// summation order gives the same result. Kernels know nothing about graphs: resolved
/// parameters come from ir/OpParams.h, multipliers from the QuantizedModel. Pure data movement
/// (Transpose, Pad, DepthToSpace, Concat) and max pooling reuse the dtype-generic reference
/// kernels (reference/Kernels.h), which are exact on s8.
#pragma once

#include "nnaccel/ir/OpParams.h"
#include "nnaccel/quant/Requantize.h"
#include "nnaccel/reference/Int8Conv.h"
#include "nnaccel/tensor/Tensor.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace nnaccel::quant {

/// The zero points of an int8 kernel's data operands (in[i]: operand i) and of its result: the
/// code of real 0 of each (real = s * (q - z)). All 0 for the symmetric models nnaccel
/// quantizes itself; an imported asymmetric QDQ model's own values otherwise. Every kernel
/// computes on the differences q - z (|q - z| <= 255) and adds out to its requantized result.
struct ZeroPoints {
  std::array<int32_t, 3> in{0, 0, 0};
  int32_t out = 0;
  bool operator==(const ZeroPoints&) const = default;
};

// --- AccumulateKernels.cpp ---------------------------------------------------------------------
/// Conv (p.transposed == false) or ConvTranspose int32 accumulators:
///   acc[n][oc][o...] = bias[oc] + sum over the taps reaching o of (x[n][c][i...] - zIn) * w[...]
/// \p x is s8 [N, C, in...] with zero point \p zIn (padding, and ConvTranspose's positions
/// between input samples, are real 0: they add nothing), \p w is s8 in the ONNX layout
/// ([M, C/group, k...] for Conv, [C, M/group, k...] for ConvTranspose), \p bias is empty or one
/// int32 per output channel. Returns s32 [N, M, out...]. 1 to 3 spatial axes.
Tensor convAccumulate(const ir::ConvParams& p, const Tensor& x, const Tensor& w,
                      std::span<const int32_t> bias, int32_t zIn = 0);

/// Gemm/MatMul int32 accumulators: acc[m][n] = bias[n] + sum_k (a[m][k] - zIn) * w[n][k].
/// \p a is s8 [M, K] (or [K, M] when \p transA); \p w is s8 [N, K], one row per output
/// channel (like Conv's [M, C/g, k...]); \p bias is empty or [N]. Returns s32 [M, N].
Tensor matmulAccumulate(const Tensor& a, bool transA, const Tensor& w,
                        std::span<const int32_t> bias, int32_t zIn = 0);

/// MatMul of two s8 tensors (numpy batch broadcasting, both of rank >= 2) as int32 sums:
///   acc[..., i, j] = sum_k (a[..., i, k] - za) * (b[..., k, j] - zb)
/// Returns s32 of \p outShape ([..., M, N]).
Tensor tensorMatmulAccumulate(const Tensor& a, const Tensor& b, const Dims& outShape,
                              int32_t za = 0, int32_t zb = 0);

/// The flat batch index of an operand of \p shape (rank >= 2) for each batch index of
/// \p outShape (numpy broadcasting of the dims before the last two).
std::vector<int64_t> matmulBatchIndex(const Dims& shape, const Dims& outShape);

// --- OneDnnAccumulate.cpp -----------------------------------------------------------------------
/// convAccumulate's result computed on oneDNN's integer primitives (reference::int8ConvSums)
/// with the bias added in int32 afterwards, bit for bit; convAccumulate itself where oneDNN
/// cannot give exactly the same sums. \p cache keeps the node's primitives and converted weights
/// between calls (one per node, always with the same \p w).
Tensor convAccumulateOneDnn(const ir::ConvParams& p, const Tensor& x, const Tensor& w,
                            std::span<const int32_t> bias, int32_t zIn,
                            reference::Int8ConvCache& cache);

/// matmulAccumulate's result likewise: the M rows of A as a batch of M one-position 1x1
/// convolutions with N output channels (\p w [N, K] is already their weight layout).
Tensor matmulAccumulateOneDnn(const Tensor& a, bool transA, const Tensor& w,
                              std::span<const int32_t> bias, int32_t zIn,
                              reference::Int8ConvCache& cache);

/// The int8 executor's Conv output on oneDNN: requantizePerChannel(convAccumulate(p, x, w, bias,
/// zIn), 1, multipliers, kInt8Min, kInt8Max, zOut) bit for bit, from reference::int8ConvMapped's
/// channels-last sums and requantizeChannelsLast, without an s32 tensor; those two functions
/// where oneDNN cannot give exactly the loops' sums. The result reuses \p recycled's storage
/// when it is s8 of the output's shape (the node's output of the previous run).
Tensor convRequantizeOneDnn(const ir::ConvParams& p, const Tensor& x, const Tensor& w,
                            std::span<const int32_t> bias,
                            std::span<const QuantMultiplier> multipliers, ZeroPoints z,
                            reference::Int8ConvCache& cache, Tensor recycled = {});

/// matmulAccumulate's rows requantized likewise: requantizePerChannel(matmulAccumulate(a,
/// transA, w, bias, z.in[0]), 1, multipliers, kInt8Min, kInt8Max, z.out), s8 [M, N].
Tensor matmulRequantizeOneDnn(const Tensor& a, bool transA, const Tensor& w,
                              std::span<const int32_t> bias,
                              std::span<const QuantMultiplier> multipliers, ZeroPoints z,
                              reference::Int8ConvCache& cache, Tensor recycled = {});

// --- ChannelsLastRequantize.cpp ------------------------------------------------------------------
/// The epilogue of the oneDNN convolutions: out[r][c] = requantizeTo(bias[c] + sum over k of
/// factors[k] * passes[k][r][c], multipliers[c], zOut, lo, hi) for the channels-last \p sums
/// (int32 wrap-around for the additions: the true sums fit int32). Eight channels at a time on
/// AVX2 where the CPU has it, the scalar rule for the rest: the same bits. \p bias is empty or
/// one entry per channel; \p lo, \p hi and \p zOut must be int8 codes with lo <= hi.
void requantizeChannelsLast(const reference::Int8ConvPasses& sums, std::span<const int32_t> bias,
                            std::span<const QuantMultiplier> multipliers, int32_t zOut, int32_t lo,
                            int32_t hi, int8_t* out);

/// out[i] = requantizeTo(acc[i], m, zOut, lo, hi), with AVX2 where the CPU has it. The same
/// bounds on \p lo, \p hi and \p zOut as requantizeChannelsLast.
void requantizeValues(std::span<const int32_t> acc, QuantMultiplier m, int32_t zOut, int32_t lo,
                      int32_t hi, int8_t* out);

/// addSub's element rule for operands of one shape from its tables (the rescaled operand of
/// every code, a subtraction's negated): out[i] = requantizeTo(tableA[a[i] + 128] + tableB[b[i] +
/// 128], output, zOut), with AVX2 (gathers) where the CPU has it. Every |tableA[i]| +
/// |tableB[j]| must fit int32; \p zOut must be an int8 code.
void addSubLookup(std::span<const int32_t, 256> tableA, std::span<const int32_t, 256> tableB,
                  const int8_t* a, const int8_t* b, int64_t count, QuantMultiplier output,
                  int32_t zOut, int8_t* out);

// --- Kernels.cpp -------------------------------------------------------------------------------
/// An s8 tensor of \p shape for a kernel that writes every element: \p recycled when it is one
/// (its contents are overwritten), else a new one. Saves the executor allocating, zero-filling
/// and page-faulting a node's output on every run.
Tensor int8Output(Tensor recycled, const Dims& shape);

/// s8 result of requantizeTo(acc, multipliers[c], zOut, lo, hi) for every element of the s32
/// tensor \p acc, where c is the element's index along \p axis.
Tensor requantizePerChannel(const Tensor& acc, int64_t axis,
                            std::span<const QuantMultiplier> multipliers, int32_t lo = kInt8Min,
                            int32_t hi = kInt8Max, int32_t zOut = 0);

/// s8 result of requantizeTo(x - zIn, m, zOut) for every element of the s8 or s32 tensor \p x
/// (Concat inputs whose scale or zero point differs from the output's). An exact 1.0
/// multiplier with zIn == zOut returns \p x unchanged.
Tensor requantizeTensor(const Tensor& x, QuantMultiplier m, int32_t zIn = 0, int32_t zOut = 0);

/// min(max(x, lo), hi) element-wise on s8 (Relu: [0, 127]; Clip: its quantized bounds), in
/// \p recycled's storage when it fits (int8Output).
Tensor clampTensor(const Tensor& x, int32_t lo, int32_t hi, Tensor recycled = {});

/// An AveragePool requantization multiplier s_in / (s_out * count) for one window count.
struct CountMultiplier {
  int64_t count = 0;
  QuantMultiplier multiplier;
};

/// The distinct window counts of average pooling \p p, ascending, without 0. The count of a
/// window is the number of its positions inside [-padBegin, in + padEnd) on every axis when
/// count_include_pad, else inside [0, in): the ONNX/onnxruntime divisor (the ceil_mode overhang
/// past pads_end never counts). Global pooling has the single count prod(in).
std::vector<int64_t> averagePoolCounts(const ir::PoolParams& p);

/// AveragePool / GlobalAveragePool on s8: the int64 sum of the window's in-bounds inputs minus
/// \p z.in[0] requantized (requantizeWide: the one rule, exact on int64 sums) with the
/// multiplier of the window's count, plus z.out (a window with count 0 gives z.out, real 0).
/// The multipliers come from quantizeMultiplier(s_in / (s_out * count), 128 * count) (255 *
/// count with a zero point). \p multipliers must hold every count of averagePoolCounts(p).
Tensor averagePool(const ir::PoolParams& p, const Tensor& x,
                   std::span<const CountMultiplier> multipliers, ZeroPoints z = {});

/// The integer Add/Sub rule (TFLite style): with a' = multiplyRounded(qa * 2^leftShift, a)
/// and b' likewise, out = requantize(a' +- b', output).
struct AddSubMultipliers {
  int32_t leftShift = 20;
  QuantMultiplier a, b, output;
};

/// One Add/Sub operand rescaled to the common intermediate: multiplyRounded(q * 2^leftShift, m).
inline int64_t addSubOperand(int32_t q, int32_t leftShift, QuantMultiplier m) {
  return multiplyRounded(q * (int32_t{1} << leftShift), m);
}

/// One element of the integer Add/Sub rule: requantizeTo(a' +- b', output, zOut) of rescaled
/// operands (addSubOperand). The quantizer's multipliers keep a' +- b' within int32.
inline int8_t addSubRescaled(bool subtract, int64_t a, int64_t b, QuantMultiplier output,
                             int32_t zOut = 0) {
  const int64_t sum = subtract ? a - b : a + b;
  NNACCEL_ASSERT(sum >= INT32_MIN && sum <= INT32_MAX) << "add/sub intermediate overflows int32";
  return static_cast<int8_t>(requantizeTo(static_cast<int32_t>(sum), output, zOut));
}

/// One element of addSub() on int8 operands \p qa, \p qb with zero points \p z (the rule on
/// qa - z.in[0] and qb - z.in[1], onto z.out).
inline int8_t addSubValue(bool subtract, const AddSubMultipliers& m, int32_t qa, int32_t qb,
                          ZeroPoints z = {}) {
  return addSubRescaled(subtract, addSubOperand(qa - z.in[0], m.leftShift, m.a),
                        addSubOperand(qb - z.in[1], m.leftShift, m.b), m.output, z.out);
}

/// One element of mul(): requantizeTo(qa * qb, output, zOut) (\p qa, \p qb: the operands'
/// differences from their zero points, |q| <= 255).
inline int8_t mulValue(QuantMultiplier output, int32_t qa, int32_t qb, int32_t zOut = 0) {
  return static_cast<int8_t>(requantizeTo(qa * qb, output, zOut));
}

/// Div of two int8 tensors multiplies by a reciprocal in units of 2^-kReciprocalBits.
inline constexpr int kReciprocalBits = 23;
/// One element of a Div of two tensors: requantizeTo(qa * round(2^23 / qb), output, zOut) with
/// output = s_a / (2^23 * s_b * s_out) (|qa * r| <= 255 * 2^23 < 2^31; \p qa, \p qb: the
/// operands' differences from their zero points); a zero divisor saturates like x / 0 = +-inf
/// (real 0, the code zOut, for 0 / 0).
inline int8_t divValue(QuantMultiplier output, int32_t qa, int32_t qb, int32_t zOut = 0) {
  if (qb == 0)
    return static_cast<int8_t>(qa > 0 ? kInt8Max : qa < 0 ? kInt8Min : zOut);
  const int32_t half = (qb > 0 ? qb : -qb) / 2;
  const int32_t num = int32_t{1} << kReciprocalBits;
  const int32_t r = qb > 0 ? (num + half) / qb : -((num + half) / -qb); // round half away
  return static_cast<int8_t>(requantizeTo(qa * r, output, zOut));
}

/// One element of minMax(): the larger (\p max) or smaller of the operands, each requantized to
/// the output scale by its multiplier (\p ma: s_a / s_out, \p mb: s_b / s_out); with zero
/// points, of (q - z.in[i]) onto the output's z.out.
inline int8_t minMaxValue(bool max, QuantMultiplier ma, QuantMultiplier mb, int32_t qa, int32_t qb,
                          ZeroPoints z = {}) {
  const int32_t a = requantizeTo(qa - z.in[0], ma, z.out);
  const int32_t b = requantizeTo(qb - z.in[1], mb, z.out);
  return static_cast<int8_t>(max ? std::max(a, b) : std::min(a, b));
}

/// Add (or Sub when \p subtract) of two s8 tensors with numpy broadcasting to \p outShape; with
/// zero points, the rule on the differences q - z.in[i], plus z.out. The result reuses
/// \p recycled's storage when it fits (int8Output).
Tensor addSub(bool subtract, const AddSubMultipliers& m, const Tensor& a, const Tensor& b,
              const Dims& outShape, ZeroPoints z = {}, Tensor recycled = {});
/// Mul of two s8 tensors with numpy broadcasting: out = requantize(qa * qb, output); with
/// \p divide, Div of two tensors (divValue). With zero points, on q - z.in[i], plus z.out.
Tensor mul(QuantMultiplier output, const Tensor& a, const Tensor& b, const Dims& outShape,
           bool divide = false, ZeroPoints z = {});
/// Max (\p max) or Min of two s8 tensors with numpy broadcasting (minMaxValue).
Tensor minMax(bool max, QuantMultiplier ma, QuantMultiplier mb, const Tensor& a, const Tensor& b,
              const Dims& outShape, ZeroPoints z = {});

/// The predicate of an int8 comparison (ONNX Equal, Greater, Less, GreaterOrEqual, LessOrEqual).
enum class Comparison : uint8_t { Equal, Greater, Less, GreaterOrEqual, LessOrEqual };
/// The comparison of ONNX op \p op (asserts it is one).
Comparison comparisonOf(ir::OpKind op);

/// One element of compare(): 1 when \p c holds between the operands, each (q - z, \p za and
/// \p zb their zero points) rescaled onto the coarser of the two scales (\p ma: s_a / s_c,
/// \p mb: s_b / s_c, both <= 1) without saturation, else 0. A bool held in int8 is 0 or 1 at
/// scale 1.
inline int8_t compareValue(Comparison c, QuantMultiplier ma, QuantMultiplier mb, int32_t qa,
                           int32_t qb, int32_t za = 0, int32_t zb = 0) {
  const int64_t a = multiplyRounded(qa - za, ma), b = multiplyRounded(qb - zb, mb);
  switch (c) {
  case Comparison::Equal:
    return a == b;
  case Comparison::Greater:
    return a > b;
  case Comparison::Less:
    return a < b;
  case Comparison::GreaterOrEqual:
    return a >= b;
  case Comparison::LessOrEqual:
    return a <= b;
  }
  return 0;
}
/// Comparison \p c of two s8 tensors with numpy broadcasting (compareValue): an s8 0/1 tensor.
Tensor compare(Comparison c, QuantMultiplier ma, QuantMultiplier mb, const Tensor& a,
               const Tensor& b, const Dims& outShape, ZeroPoints z = {});

/// Where of s8 tensors with numpy broadcasting: requantize(y, \p my) everywhere, then
/// requantize(x, \p mx) where \p cond (a comparison's s8 0/1) is non-zero. With zero points,
/// requantizeTo(q - z.in[i], m, z.out) (x is operand 1, y operand 2).
Tensor select(const Tensor& cond, QuantMultiplier mx, QuantMultiplier my, const Tensor& x,
              const Tensor& y, const Dims& outShape, ZeroPoints z = {});

/// Entries of one int8 lookup table: one per int8 input value.
inline constexpr int64_t kLookupEntries = 256;

/// out[i] = tables[t * 256 + x[i] + 128], where t is element i's index along \p axis (0 for
/// every element when \p axis is -1). \p tables holds kLookupEntries entries per table.
Tensor lookup(const Tensor& x, std::span<const int8_t> tables, int64_t axis);

/// out[i] = x[index[i]] with the s8 output of shape \p outShape (Resize/Upsample nearest).
Tensor gather(const Tensor& x, std::span<const int32_t> index, const Dims& outShape);

/// Softmax in int8: e = expTable[max - q] holds round(exp(-(max - q) * s_in) * 2^kSoftmaxExpBits)
/// for the 256 possible differences; each output is p = round(e * 2^kSoftmaxProbBits / sum e)
/// (an int32 probability in [0, 2^16]), requantized to the output scale.
inline constexpr int kSoftmaxExpBits = 15;
inline constexpr int kSoftmaxProbBits = 16;
/// Longest softmax line: sum e <= length * 2^15 and e * 2^16 stay far inside int64.
inline constexpr int64_t kMaxSoftmaxLength = int64_t{1} << 24;

/// A tensor as lines (softmax, reductions): `outer` blocks of `length` x `inner` elements, each
/// of the `inner` columns of a block one line (element k of a line at k * inner).
struct LineGeometry {
  int64_t outer = 1, length = 1, inner = 1;
};
/// The lines a reduction over \p axes (sorted, normalized) of a tensor of \p shape reduces, or
/// nullopt when the axes are not contiguous (extent-1 axes between them do not count).
std::optional<LineGeometry> reduceGeometry(const std::vector<int64_t>& axes, const Dims& shape);

/// Longest reduced line: its int32 sum stays below 128 * 2^23 = 2^30.
inline constexpr int64_t kMaxReduceLength = int64_t{1} << 23;

/// ReduceMean/Sum/Max/Min in int8 along lines.
enum class Reduction : uint8_t { Mean, Sum, Max, Min };
/// The reduction of ONNX op \p op (asserts it is one).
Reduction reductionOf(ir::OpKind op);
/// One reduced line of \p length int8 values at x[k * stride]: the int32 sum (Mean, Sum) or
/// the maximum/minimum of q - z.in[0], requantized by \p m (Mean: s_in / (length * s_out);
/// Sum, Max, Min: s_in / s_out) onto z.out.
int8_t reduceLine(Reduction r, const int8_t* x, int64_t stride, int64_t length, QuantMultiplier m,
                  ZeroPoints z = {});
/// The reduction of an s8 tensor by \p geo into an s8 tensor of \p outShape (outer x inner).
Tensor reduce(Reduction r, const Tensor& x, const LineGeometry& geo, QuantMultiplier m,
              const Dims& outShape, ZeroPoints z = {});
/// The lines of Softmax \p p over a tensor of \p shape: along p.axis (opset >= 13), or over the
/// 2-D coercion at p.axis (every trailing axis in one line).
LineGeometry softmaxGeometry(const ir::SoftmaxParams& p, const Dims& shape);

/// One softmax line of \p length int8 values at x[k * stride] into out[k * stride] (the
/// differences max - q do not depend on the input's zero point; \p zOut is the output's).
void softmaxLine(const int8_t* x, int64_t stride, int64_t length, std::span<const int32_t> expTable,
                 QuantMultiplier output, int8_t* out, int32_t zOut = 0);
/// Softmax of an s8 tensor of \p shape by \p geo: softmaxLine on every line.
Tensor softmax(const Tensor& x, const LineGeometry& geo, std::span<const int32_t> expTable,
               QuantMultiplier output, int32_t zOut = 0);

/// Linear Resize weights are integers in units of 2^-kInterpolationWeightBits.
inline constexpr int kInterpolationWeightBits = 10;
/// Most axes one int8 linear Resize interpolates on (the int64 accumulator has room for more;
/// ONNX's bilinear is 2).
inline constexpr int kMaxInterpolatedAxes = 3;

/// One axis of an int8 linear Resize: per output index, two input indices and the weight of the
/// second, w1 in [0, 2^kInterpolationWeightBits] (the first weighs 2^bits - w1). An axis with
/// `interpolates` false takes index0 with weight 1 (a gather along it; index1/weight1 unused).
struct InterpolationAxis {
  bool interpolates = false;
  std::vector<int32_t> index0, index1, weight1;
  bool operator==(const InterpolationAxis&) const = default;
};

/// One element of interpolate() at output multi-index \p outIndex of the row-major s8 input
/// \p x with element strides \p inStrides: the sum over every combination of taps of the
/// product of their weights times the input element, in int64, divided by 2^(bits * k) for k
/// interpolating axes with rounding half away from zero. The weights of each axis sum to
/// 2^bits, so the result is a convex combination and stays in [-128, 127].
int8_t interpolateAt(const int8_t* x, const Dims& inStrides,
                     std::span<const InterpolationAxis> axes, const Dims& outIndex);
/// interpolateAt's division: \p sum / 2^\p shift rounded half away from zero, clamped to int8
/// (\p sum itself when \p shift is 0). The stream engine's Interpolate tiles use it too.
int8_t interpolationRound(int64_t sum, int shift);
/// The int8 linear Resize of \p x (scale preserving) to \p outShape: interpolateAt everywhere.
Tensor interpolate(const Tensor& x, std::span<const InterpolationAxis> axes, const Dims& outShape);

} // namespace nnaccel::quant
