/// \file
/// Patent model. This is an executable model of seed 001's four primitive instructions and the
/// Table 14 loop (claims 1, 6, 8, 11; ¶0186-0198), kept to check the text's worked examples
/// (¶0092, ¶0188, Table 13, Fig. 3B). The sparse engine does not use it: the engine models the
/// SCNN accelerator's PE array (F x I multipliers, scatter crossbar, accumulator banks;
/// ArrayModel.cpp) cycle by cycle on entries decoded once, not a GPU running these
/// instructions.
///
/// The four primitive instructions of seed 001 (digest §4, claims 1, 6, 8, 11) as an
/// instruction-level model: encode sparse data, calculate index, multiply pairs and
/// scatter-add, plus the Table 14 loop built from them (a sparse convolution that must equal
/// the dense one). This is the GPU/ISA view of the SCNN dataflow; it fixes the choices the
/// patent leaves open so that programs written against it are exact and deterministic:
///  - Product ordering: lane t = f + i*F pairs weight lane f with activation lane i, for both
///    MultiplyPairs and CalculateIndices (Table 5). The example in ¶0198 lists MultiplyPairs(W, A)
///    with the first operand outer (a*p, a*q, ...); we follow Table 5 instead (digest §4.3 [R]).
///  - Decode state: the running-sum state of an index operand is an explicit register operand
///    (a PositionDecoder: its table and frame are the register's configuration, its position()
///    the running sum). CalculateIndices reads the state of both operands and returns the
///    states after decoding; the program decides what to keep (digest §8 [R]).
///  - Register widths: a vector operand has F (weights) or I (activations) lanes; a partial
///    vector at a channel's end fills the first lanes and masks the rest. Masked lanes produce
///    no product, address or scatter request; a zero-valued lane (a pad) is multiplied but
///    produces no scatter request (digest §2.4, §8 [R]).
///  - Values are integers: operands of MultiplyPairs must fit 16 bits (8- or 16-bit lanes), so
///    every product is exact in int32.
#pragma once

#include "nnaccel/arch/sparse/formats/CodeTable.h"
#include "nnaccel/arch/sparse/formats/PositionCodec.h"

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace nnaccel::arch::sparse::patent {

/// Work done by primitive instructions. Each primitive adds its own work to the counts passed
/// to it (pass a fresh object to count one call).
struct PrimitiveCounts {
  int64_t encodeSparseCalls = 0; ///< input words (register form) or blocks (coded form)
  int64_t multiplyPairsCalls = 0;
  int64_t calculateIndexCalls = 0;
  int64_t scatterAddCalls = 0;
  int64_t products = 0;        ///< multiplies on unmasked lanes (zero-valued pads included)
  int64_t addresses = 0;       ///< linear addresses computed on unmasked lanes
  int64_t maskedLanes = 0;     ///< scatter-add lanes masked off by partial vectors
  int64_t zeroValueLanes = 0;  ///< unmasked scatter-add lanes with value 0: no request
  int64_t scatterRequests = 0; ///< accumulator read-add-writes actually issued

  PrimitiveCounts& operator+=(const PrimitiveCounts& other);
  bool operator==(const PrimitiveCounts&) const = default;
};

// --- Encode sparse data (claim 11, ¶0186-0188) -----------------------------------------------

/// A compressed vector: the non-zero values A and their encoded indices AX, in scan order.
/// AX holds zero counts, direct indices or code numbers, depending on how it was made.
struct SparseVector {
  std::vector<int32_t> values;  ///< A (0 marks a zero-valued pad entry)
  std::vector<int32_t> indices; ///< AX
  bool operator==(const SparseVector&) const = default;
};

/// How EncodeSparse encodes the index of each output.
enum class IndexEncoding {
  ZeroCount, ///< zeros since the previous output (¶0186); decodes with zeroRunLength(indexBits)
  Direct,    ///< the element's absolute index IX + lane (¶0188)
};

struct EncodeSparseConfig {
  int lanes = 8; ///< width of I, A, AX, B and BX (8 byte lanes in ¶0188)
  IndexEncoding encoding = IndexEncoding::ZeroCount;
  /// ZeroCount only: width of a zero count. A run longer than 2^indexBits - 1 zeros gets a
  /// zero-valued pad entry (count 2^indexBits - 1) in place of its 2^indexBits-th zero.
  int indexBits = 4;
};

/// The registers of the iterative encode-sparse-data instruction (¶0187-0188): two output
/// words of values (A, B) and of indices (AX, BX), each `lanes` wide, and the count G of valid
/// outputs in A then B. zeroRun (ZeroCount only) is the number of zeros seen since the last
/// output; it carries the run across input words.
struct EncodeSparseRegisters {
  explicit EncodeSparseRegisters(int lanes);
  std::vector<int32_t> a, b, ax, bx;
  int32_t g = 0;
  int32_t zeroRun = 0;
};

/// Executes one encode-sparse-data instruction on the input word \p input (at most
/// config.lanes scalars; a shorter word is the tail of a vector, its missing lanes masked) whose
/// first element has direct index \p inputIndex (IX). Each non-zero lane, and in ZeroCount mode
/// each zero lane that completes a run of 2^indexBits zeros (a pad), appends one output at slot
/// G (A when G < lanes, else B) and increments G. Throws nnaccel::Error (Usage) when the word
/// is wider than the registers, the lanes of \p regs differ from config.lanes, or an output
/// would overflow B (the program must store A when G >= lanes before the next instruction).
void encodeSparseStep(EncodeSparseRegisters& regs, const EncodeSparseConfig& config,
                      std::span<const int32_t> input, int64_t inputIndex,
                      PrimitiveCounts* counts = nullptr);

/// "Test G >= lanes" (¶0188): the program stores A/AX when this is true.
bool encodeSparseFull(const EncodeSparseRegisters& regs);

/// Stores the first output word: returns the min(G, lanes) valid outputs of A/AX, then shifts
/// A <- B, AX <- BX, clears B and BX and decreases G by that number (digest §4.1 [R]: the
/// patent implies but does not state this). With G < lanes it is the final (partial) flush.
SparseVector encodeSparseStore(EncodeSparseRegisters& regs);

/// The program of ¶0187 over a whole scalar vector: encodeSparseStep on successive words of
/// config.lanes scalars (IX = 0, lanes, 2*lanes, ...), storing whenever G >= lanes and flushing
/// the partial word at the end. Returns the stored words: vectors of config.lanes outputs, the
/// last one possibly partial. Zero-valued pads inside a trailing zero run are dropped (trailing
/// zeros are never coded, digest §8), so the result equals encodePositions with the
/// zeroRunLength(indexBits) table and a wrapping frame.
std::vector<SparseVector> encodeSparseVectors(std::span<const int32_t> scalars,
                                              const EncodeSparseConfig& config,
                                              PrimitiveCounts* counts = nullptr);

/// The concatenation of encodeSparseVectors: e.g. Fig. 3B's two kernels give values (a..f) and
/// zero counts (2, 0, 3, 4, 1, 1).
SparseVector encodeSparse(std::span<const int32_t> scalars, const EncodeSparseConfig& config);

/// Encode sparse data with coordinate-typed codes (¶0189): the scalar at raster index j has
/// position r = j % rMax, s = (j / rMax) % sMax, k = j / (rMax * sMax) in \p frame (r fastest);
/// the non-zeros are coded with encodePositions. AX holds the code numbers, A the values
/// (pads included). Errors are those of encodePositions.
SparseVector encodeSparseCoded(std::span<const int32_t> scalars, const formats::CodeTable& table,
                               const formats::Frame& frame);

/// Splits \p vector into vectors of \p lanes entries (the last one possibly partial).
std::vector<SparseVector> splitIntoVectors(const SparseVector& vector, int lanes);

// --- Multiply pairs and calculate index (claims 1, 8; Table 5) --------------------------------

/// A Cartesian-product register (products or addresses): weightLanes * activationLanes lanes,
/// lane t = f + i * weightLanes pairs weight lane f with activation lane i (Table 5). Lanes with
/// f >= validWeights or i >= validActivations are masked (partial vectors) and hold 0.
struct PairVector {
  int weightLanes = 0;      ///< F
  int activationLanes = 0;  ///< I
  int validWeights = 0;     ///< unmasked weight lanes (the first ones)
  int validActivations = 0; ///< unmasked activation lanes (the first ones)
  std::vector<int32_t> lanes;

  bool valid(int t) const {
    return t % weightLanes < validWeights && t / weightLanes < validActivations;
  }
  int validCount() const { return validWeights * validActivations; }
  bool operator==(const PairVector&) const = default;
};

/// MultiplyPairs: lane t = f + i*F of the result is weights[f] * activations[i]. \p weights and
/// \p activations are the valid lanes of F- and I-wide registers. Throws nnaccel::Error (Usage)
/// when F or I is not positive, an operand has more values than lanes, or a value does not fit
/// 16 bits (naming the operand and lane).
PairVector multiplyPairs(std::span<const int32_t> weights, int weightLanes,
                         std::span<const int32_t> activations, int activationLanes,
                         PrimitiveCounts* counts = nullptr);

/// The halo-inclusive output frame of Eq. 1: a = x + y * maxXOa + k * maxXOa * maxYOa.
struct OutputFrame {
  int64_t maxXOa = 0;
  int64_t maxYOa = 0;
};

/// The sum-and-linearise half of CalculateIndices (claim 1, steps 4-5; Table 5): lane
/// t = f + i*F holds the linear address of (weights[f].r + activations[i].r,
/// weights[f].s + activations[i].s, weights[f].k) (activation positions are (x, y) in (r, s)).
/// Throws nnaccel::Error (Usage) for bad lane counts, a non-positive frame, or an output
/// coordinate outside 0 <= x < maxXOa, 0 <= y < maxYOa, k >= 0, or an address beyond int32
/// (naming the lane).
PairVector linearIndices(std::span<const formats::Position> weights, int weightLanes,
                         std::span<const formats::Position> activations, int activationLanes,
                         const OutputFrame& frame, PrimitiveCounts* counts = nullptr);

/// The result of CalculateIndices: the F*I addresses and the decode states after the operands.
struct CalculateIndexResult {
  PairVector addresses;
  /// The decode states after every valid lane of the weight and of the activation operand.
  formats::PositionDecoder weightState;
  formats::PositionDecoder activationState;
};

/// CalculateIndices, the claimed instruction (claim 1, Fig. 9A): decodes the weight index
/// vector \p weightIndices (code numbers) from \p weightState into (r, s, k) positions and the
/// activation index vector \p activationIndices from \p activationState into (x, y), sums all
/// F*I pairs and linearises them with \p frame (see linearIndices). The input states are not
/// modified; the states after decoding are returned. In the Table 14 loop the weight state is
/// reset at the start of every pass over a channel's weights (the rewind) and chained across
/// its weight vectors; the activation state is chained across the activation vectors of a
/// channel and held fixed while the inner loop runs. Throws nnaccel::Error (Usage) for an index
/// that is not a code of the decoder's table (naming the operand and lane) and for the errors
/// of linearIndices.
CalculateIndexResult calculateIndices(std::span<const int32_t> weightIndices,
                                      const formats::PositionDecoder& weightState, int weightLanes,
                                      std::span<const int32_t> activationIndices,
                                      const formats::PositionDecoder& activationState,
                                      int activationLanes, const OutputFrame& frame,
                                      PrimitiveCounts* counts = nullptr);

// --- Scatter-add (claim 6, Table 13) ----------------------------------------------------------

/// Table 13: accumulator[indices[j]] += scalars[j] for j = 0 .. n-1, in lane order, so equal
/// indices within one instruction are all added (serialised semantics, digest §4.4 [R]).
/// Lanes with scalar 0 issue no request (counted as zeroValueLanes). The adds are 32-bit and
/// wrap modulo 2^32 (the patent leaves accumulator width and overflow open). Throws nnaccel::Error
/// (Usage) when the operands differ in length or an index is outside the accumulator (naming
/// the lane); the accumulator is unchanged then.
void scatterAdd(std::span<int32_t> accumulator, std::span<const int32_t> indices,
                std::span<const int32_t> scalars, PrimitiveCounts* counts = nullptr);

/// Scatter-add of a product register at an address register of the same shape: masked lanes
/// are skipped (no request, no range check), as are zero-valued ones. Throws nnaccel::Error
/// (Usage) when the shapes differ or an unmasked index is outside the accumulator.
void scatterAdd(std::span<int32_t> accumulator, const PairVector& addresses,
                const PairVector& products, PrimitiveCounts* counts = nullptr);

// --- The Table 14 loop ------------------------------------------------------------------------

/// A stride-1 convolution with "same" zero padding and odd kernel sizes, with the semantics of
/// ONNX Conv (cross-correlation, no bias): input s8 [C, H, W], weights s8 [K, C, kH, kW],
/// output s32 [K, H, W] with
///   out[k][y][x] = sum_{c,i,j} in[c][y + i - (kH-1)/2][x + j - (kW-1)/2] * w[k][c][i][j].
/// In the patent's notation the x-offset r runs over kW and the y-offset s over kH.
struct SparseConvShape {
  int channels = 0;     ///< C
  int height = 0;       ///< H
  int width = 0;        ///< W
  int outChannels = 0;  ///< K
  int kernelHeight = 0; ///< kH (odd)
  int kernelWidth = 0;  ///< kW (odd)
};

struct SparseConvOptions {
  int weightLanes = 4;     ///< F
  int activationLanes = 4; ///< I
  /// Output channels per chunk (Kc, "output channel chunk KN" of Table 14); 0 = all K.
  int outChannelsPerChunk = 0;
  /// Index encoding: unset = zero counts from the register-level EncodeSparse (indexBits 4);
  /// set = codes of these tables (encodeSparseCoded, wrapping frames).
  std::optional<formats::CodeTable> weightCodes;
  std::optional<formats::CodeTable> activationCodes;
};

struct SparseConvResult {
  std::vector<int32_t> output; ///< [K, H, W]
  PrimitiveCounts counts;      ///< totals over every instruction of the loop
};

/// The Table 14 program: encodes every input channel's activations (frame W x H, x fastest)
/// and, per output-channel chunk and input channel, the weights (stored flipped, see below)
/// with EncodeSparse; then for each input channel, each I-wide activation vector and each
/// F-wide weight vector runs MultiplyPairs, CalculateIndices and ScatterAdd into a
/// halo-inclusive accumulator [Kc, H + kH - 1, W + kW - 1]; finally crops the home region
/// (offset ((kH-1)/2, (kW-1)/2)) into the output. Throws nnaccel::Error (Usage) for
/// non-positive sizes, even kernels, bad lane counts, or tensors of the wrong size.
SparseConvResult sparseConvolution(const SparseConvShape& shape, std::span<const int8_t> input,
                                   std::span<const int8_t> weights,
                                   const SparseConvOptions& options);

} // namespace nnaccel::arch::sparse::patent
