/// \file
/// The systolic engine's instruction set (seeds 000 + 003; the patents describe only the
/// computation instruction field by field, the rest is documented in docs/arch/SystolicIsa.md).
///
/// Machine model the instructions act on:
///  - DRAM: one flat byte-addressed memory (Program::dramBytes).
///  - State buffer (SBUF): peRows partitions of sbufBytesPerPartition bytes. PE row p is
///    hard-wired to partition p (seed 000 para [0055]); one partition holds one input channel,
///    row-major (addr = base + (y * width + x) * elemBytes).
///  - Summation buffer (PSUM): peCols columns of psumEntriesPerColumn 32-bit entries (int32
///    for s8 programs, fp32 for f32 programs), each with its own adder and, in WrittenFlags
///    mode, a written flag.
///  - Activation table: per PE column, kActTableSlots records of 16 bytes (s8: bias int32,
///    multiplier M int32, shift int32, unused; f32: bias f32, three unused). Loaded by DMA.
///  - Pool table: kPoolTableEntries records {count int32, M int32, shift int32, unused}, the
///    average-pool multiplier for a window of `count` elements; for an interpolating POOL,
///    records {index0 int32, index1 int32, weight1 int32, unused} (one per output column, then
///    one per output row). Loaded by DMA.
///  - Lookup-table memory (vector unit): one kLookupTableBytes int8 table per SBUF partition,
///    entry q + 128 holding f(q). Loaded by DMA.
///  - Semaphores: kNumSemaphores counters, all 0 at start, only ever incremented.
///
/// Every instruction runs on one engine (engineOf) whose queue executes in program order;
/// engines run concurrently. An instruction starts only when each of its waits holds
/// (semaphore >= count) and increments its signal semaphore when it completes: that is the
/// whole synchronisation mechanism between DMA and compute, plus BARRIER. Each engine RETIRES in
/// order (an instruction completes no earlier than the previous one on its engine), so a
/// semaphore signalled by one engine counts that engine's instructions in program order.
/// HOST and BARRIER are full fences: they start when every earlier instruction has completed,
/// and no later instruction starts before they complete.
///
/// Units: SBUF and DRAM addresses, strides and steps are in BYTES; PSUM addresses, steps and
/// strides are in ENTRIES; counts are in elements.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <variant>
#include <vector>

namespace nnaccel::arch::systolic {

inline constexpr int kNumSemaphores = 32;
inline constexpr int kActTableSlots = 2;
inline constexpr int kActRecordBytes = 16;
inline constexpr int kPoolTableEntries = 256;
inline constexpr int kPoolRecordBytes = 16;
inline constexpr int kLookupTableBytes = 256; ///< per partition: one int8 output per int8 input
/// VECTOR Add/Sub: |q| * 2^leftShift <= 2^31 for every int8 q.
inline constexpr int kMaxVectorLeftShift = 24;
/// With a zero point an Add/Sub operand is a difference |q - z| <= 255: 255 * 2^23 < 2^31.
inline constexpr int kMaxZeroPointLeftShift = 23;

/// Optional wait/signal carried by every instruction. sem == -1 means "none".
struct SemWait {
  int32_t sem = -1;
  int64_t count = 0; ///< start only once semaphore[sem] >= count
};
struct Sync {
  std::array<SemWait, 4> waits{}; ///< at most one per waitable engine
  int32_t signal = -1;            ///< incremented by one when the instruction completes
};

/// A three-level DRAM access pattern (bytes): element (p, o, i) is at
/// addr + p * partitionStride + o * outerStride + i * innerStep.
struct DramPattern {
  int64_t addr = 0;
  int64_t partitionStride = 0;
  int64_t outerStride = 0;
  int64_t innerStep = 0;
};

/// On-chip destination/source of a DMA.
enum class OnChip : uint8_t {
  Sbuf,        ///< partitions [partitionStart, +partitionCount), address sbufAddr
  ActTable,    ///< "partition" = PE column, sbufAddr = byte offset in that column's table
  PoolTable,   ///< partitionStart = 0, partitionCount = 1, sbufAddr = byte offset in the table
  LookupTable, ///< partition p's lookup table (vector unit), sbufAddr = byte offset in it
};

/// DRAM -> on-chip. partitionCount x outerCount x innerCount elements of elemBytes each; on
/// chip the inner run is contiguous and rows are sbufOuterStride bytes apart.
struct DmaLoad {
  OnChip space = OnChip::Sbuf;
  int64_t elemBytes = 1;
  int64_t partitionStart = 0, partitionCount = 1;
  int64_t outerCount = 1, innerCount = 1;
  DramPattern dram;
  int64_t sbufAddr = 0, sbufOuterStride = 0;
};

/// SBUF -> DRAM, the mirror of DmaLoad (space is always Sbuf).
struct DmaStore {
  int64_t elemBytes = 1;
  int64_t partitionStart = 0, partitionCount = 1;
  int64_t outerCount = 1, innerCount = 1;
  DramPattern dram;
  int64_t sbufAddr = 0, sbufOuterStride = 0;
};

/// DRAM -> DRAM copy (or a fill with fillValue when fillZero) with patterns on both sides; used
/// by the baselines (zero insertion, rotated weight copy; seed 000 FIG. 3) and Pad borders.
struct DmaCopy {
  bool fillZero = false; ///< write fillValue (the code of real 0), read nothing (src ignored)
  int32_t fillValue = 0; ///< the byte a fill writes: the tensor's zero point (0 when symmetric)
  int64_t elemBytes = 1;
  int64_t partitionCount = 1, outerCount = 1, innerCount = 1;
  DramPattern src, dst;
};

/// Loads one weight element per PE: PE (p, m) for p < rows, m < cols gets the element at
/// SBUF partition p, address addr + m * colStride; every other PE gets 0. The compiler puts
/// the weight W[c][m][r][s] at an address computed from its ORIGINAL (r, s) (seed 000 claim 8).
/// With shadow weights the load fills the shadow register; the next MATMUL swaps it in.
struct LoadWeights {
  int64_t addr = 0;
  int64_t rows = 1, cols = 1;
  int64_t colStride = 1;
  /// s8: the loaded weight is the element minus zero (a computed tensor with a zero point
  /// loaded as weights, attention's B); 0 for constant weights, which are symmetric.
  int32_t zero = 0;
};

/// Streams outerCount x innerCount input vectors through the array. Vector k = (o, i) is the
/// element at src + o * srcOuterStride + i * srcInnerStep of partitions 0..rows-1 (zeros on the
/// other rows); its partial sum of column m (m < cols) is added into PSUM entry
/// dst + o * dstOuterStride + i * dstInnerStep of column m. The source and destination counts
/// are separate fields (the patent's fetch and write counts) and must be equal.
struct Matmul {
  int64_t rows = 1, cols = 1;
  int64_t src = 0, srcInnerStep = 1, srcInnerCount = 1, srcOuterStride = 0, srcOuterCount = 1;
  int64_t dst = 0, dstInnerStep = 1, dstInnerCount = 1, dstOuterStride = 0, dstOuterCount = 1;
  /// false: the first write of this instruction to an entry replaces its content
  /// (overwrite); true: it is added. In WrittenFlags mode an entry whose flag is clear reads
  /// as 0 on the accumulate path too, and every write sets the flag.
  bool accumulate = true;
  /// s8: the array multiplies element - srcZero on rows 0..rows-1 (the input's zero point: real
  /// 0 multiplies to 0; padding is never streamed, so nothing else needs correcting).
  int32_t srcZero = 0;
};

/// Zeroes `entries` consecutive PSUM entries starting at addr in columns 0..cols-1 (FIG. 7A).
struct PsumReset {
  int64_t addr = 0, entries = 1, cols = 1;
};

/// Activation function of the activation engine. s8 programs use Identity/Clamp only (the int8
/// rule: requantize then clamp to [clampLo, clampHi]); f32 programs add the bias then apply it.
enum class ActFunc : uint8_t {
  Identity,
  Relu,
  Clip,
  LeakyRelu,
  Sigmoid,
  Tanh,
  Elu,
  HardSigmoid,
  HardSwish,
  Selu,
  Softplus
};

/// Drains a PSUM tile of rows x rowLen entries (entry psum + y * psumRowStride + x) of columns
/// colStart..colStart+cols-1 through the activation engine into SBUF: column colStart + m goes to
/// partition dstPartition + m at dst + y * dstRowStride + x * elemBytes.
/// s8: out = requantizeTo(acc + bias, {M, shift}, zeroOut) clamped to [clampLo, clampHi]
/// (docs/Quantization.md) with bias/M/shift from activation-table slot tableSlot of the column.
/// f32: out = func(acc + bias) with alpha/beta/gamma (ir::ActivationParams semantics).
/// releaseEntries (WrittenFlags mode): clears the drained entries' written flags.
struct Activate {
  int64_t psum = 0, psumRowStride = 0, rows = 1, rowLen = 1;
  int64_t colStart = 0, cols = 1;
  int64_t dstPartition = 0, dst = 0, dstRowStride = 0;
  int64_t elemBytes = 1;
  int64_t tableSlot = 0;
  ActFunc func = ActFunc::Identity;
  int64_t clampLo = -128, clampHi = 127;
  float alpha = 0, beta = 0, gamma = 0;
  bool releaseEntries = false;
  int32_t zeroOut = 0; ///< s8: the output's zero point
};

/// Pooling engine, SBUF -> SBUF, partitions [partitionStart, +partitions) in parallel.
/// The source holds input rows srcRow0 .. srcRow0+srcRows-1 (all inW columns, rows srcRowStride
/// bytes apart) of an inH x inW plane; the instruction computes output rows outRow0 ..
/// outRow0+outRows-1 (outW columns) into dst (rows dstRowStride bytes apart). Output (oy, ox)
/// reduces input (oy*strideH + ky*dilH - padTop, ox*strideW + kx*dilW - padLeft) over the
/// kernel, skipping positions outside the plane. Average divides by the window's in-plane
/// count, or by kernelH*kernelW when countIncludePad (positions in the pads are counted; the
/// ONNX rule: not beyond the padded extent, see quant/Kernels.h), s8 via the pool table.
///
/// Interpolate (s8 only; the linear Resize of quant::interpolateAt): pool-table record ox
/// (0 <= ox < outW) gives output column ox's input columns index0, index1 and the weight w1 of
/// the second in 2^-quant::kInterpolationWeightBits (the first weighs the rest); record
/// tableRow0 + r gives output row outRow0 + r's input rows the same way. Output (oy, ox) is
/// the sum of the four products wy * wx * x, divided by 2^(2 * bits) with rounding half away
/// from zero (an axis that only gathers has index1 = index0, w1 = 0, which gives the same
/// value). Kernel, stride, padding and dilation fields must keep their defaults.
struct Pool {
  enum class Kind : uint8_t { Max, Average, Interpolate } kind = Kind::Max;
  int64_t elemBytes = 1;
  int64_t partitionStart = 0, partitions = 1;
  int64_t src = 0, srcRowStride = 0, srcRow0 = 0, srcRows = 1, inH = 1, inW = 1;
  int64_t dst = 0, dstRowStride = 0, outRow0 = 0, outRows = 1, outW = 1;
  int64_t kernelH = 1, kernelW = 1, strideH = 1, strideW = 1, padTop = 0, padLeft = 0;
  int64_t padBottom = 0, padRight = 0, dilH = 1, dilW = 1;
  bool countIncludePad = false;
  int64_t tableRow0 = 0; ///< Interpolate: the pool-table record of output row outRow0
  /// s8 Average: the sum is of element - zeroIn, requantized onto zeroOut (an empty window
  /// gives zeroOut, real 0). Max and Interpolate work on the codes.
  int32_t zeroIn = 0, zeroOut = 0;
};

/// Function of the vector unit (VECTOR). Every result is finally clamped to [clampLo, clampHi].
enum class VectorFunc : uint8_t {
  Clamp,          ///< a
  Lookup,         ///< the partition's lookup table at a + 128
  Add,            ///< quant::addSubValue(false, {leftShift, aM, bM, outM}, a, b)
  Sub,            ///< quant::addSubValue(true, ...)
  Mul,            ///< quant::mulValue(outM, a, b)
  Requantize,     ///< quant::requantize(a, outM)
  Min,            ///< quant::minMaxValue(false, aM, bM, a, b): both onto the output scale, smaller
  Max,            ///< quant::minMaxValue(true, aM, bM, a, b)
  Equal,          ///< quant::compareValue(Equal, aM, bM, a, b): both onto the coarser scale; 0 or 1
  Greater,        ///< quant::compareValue(Greater, ...)
  Less,           ///< quant::compareValue(Less, ...)
  GreaterOrEqual, ///< quant::compareValue(GreaterOrEqual, ...)
  LessOrEqual,    ///< quant::compareValue(LessOrEqual, ...)
  Div,            ///< quant::divValue(outM, a, b): a times round(2^23 / b), requantized
  /// Each row (y) is one softmax line of rowLen elements: quant::softmaxLine with the exponential
  /// table in the pool table (record d's first int32 = expTable[d], d = max - a) and outM.
  /// The pooling engine's table serves its element-wise function too (docs/arch/Systolic.md).
  Softmax,
  /// Where: C (a comparison's s8 0/1) picks, out = C != 0 ? requantize(B, bM) : requantize(A, aM)
  /// (quant::select); A is the else-operand so that it can be computed in place.
  Select,
  /// out = C == 0 ? requantize(B, bM) : requantize(A, aM): Select with A as the then-operand,
  /// for a Where whose else-operand is the broadcast one (x where c else 0).
  SelectNot,
};

/// True for Select and SelectNot, which read operand C.
constexpr bool isSelect(VectorFunc f) {
  return f == VectorFunc::Select || f == VectorFunc::SelectNot;
}

/// True for the comparisons (Equal ... LessOrEqual), which rescale both operands by aM, bM.
constexpr bool isComparison(VectorFunc f) {
  return f >= VectorFunc::Equal && f <= VectorFunc::LessOrEqual;
}

/// True for the functions that read operand B.
constexpr bool isBinary(VectorFunc f) {
  return f == VectorFunc::Add || f == VectorFunc::Sub || f == VectorFunc::Mul ||
         f == VectorFunc::Min || f == VectorFunc::Max || isComparison(f) || f == VectorFunc::Div ||
         isSelect(f);
}

/// Vector (element-wise) unit of the pooling engine, SBUF -> SBUF, s8 programs only: the
/// post-processing of seed 000's pooling engine 418 between layers. Partitions
/// [partitionStart, +partitions) in parallel; in each, element (y, x) for y < rows, x < rowLen:
///   A   at a + y * aRowStride + x
///   B   at b + y * bRowStride + x * bStep   (bStep 0: one value per row, bRowStride 0 too:
///                                            one scalar per partition; binary functions)
///   C   at c + y * cRowStride + x * cStep   (the same; Select and SelectNot only)
///   out at dst + y * dstRowStride + x
/// dst may equal a (in place). Multipliers are quant::QuantMultiplier {M, shift} pairs.
/// Zero points: every function computes on A - aZero and B - bZero (C is a 0/1 condition) and
/// adds outZero before the final clamp (quant::ZeroPoints); all 0 for a symmetric model.
struct Vector {
  VectorFunc func = VectorFunc::Clamp;
  int64_t partitionStart = 0, partitions = 1;
  int64_t rows = 1, rowLen = 1;
  int64_t a = 0, aRowStride = 0;
  int64_t b = 0, bRowStride = 0, bStep = 1;
  int64_t dst = 0, dstRowStride = 0;
  int64_t c = 0, cRowStride = 0, cStep = 1;   ///< Select/SelectNot: the condition
  int32_t leftShift = 0;                      ///< Add/Sub: operands scaled by 2^leftShift
  int32_t aMultiplier = 1 << 30, aShift = -1; ///< Add/Sub/Min/Max/comparisons/Select: A's rescale
  int32_t bMultiplier = 1 << 30, bShift = -1; ///< Add/Sub/Min/Max/comparisons/Select: B's rescale
  int32_t outMultiplier = 1 << 30, outShift = -1; ///< Add/Sub/Mul/Requantize: output rescale
  int64_t clampLo = -128, clampHi = 127;
  int32_t aZero = 0, bZero = 0, outZero = 0;
  bool operator==(const Vector&) const = default;
};

/// Runs graph node `node` on the host (the layer's DRAM tensors in, DRAM tensors out).
/// Implicitly waits for every engine to be idle; takes no accelerator cycles.
struct HostOp {
  int32_t node = -1;
  int32_t layer = -1; ///< index into Program::layers (its tensor bindings)
};

/// Waits until every engine has completed every earlier instruction.
struct Barrier {};

/// Opcode = index in this variant (the file format): new ops are appended.
using Op = std::variant<DmaLoad, DmaStore, DmaCopy, LoadWeights, Matmul, PsumReset, Activate, Pool,
                        HostOp, Barrier, Vector>;

struct Instruction {
  Op op;
  Sync sync;
};

enum class Engine : uint8_t { Dma, Pe, Act, Pool, Host, Control };
Engine engineOf(const Op& op);
const char* engineName(Engine e);
/// Mnemonic: DMA_LOAD, DMA_STORE, DMA_COPY, LOAD_WEIGHTS, MATMUL, PSUM_RESET, ACTIVATE, POOL,
/// HOST, BARRIER, VECTOR.
const char* mnemonic(const Op& op);

bool operator==(const Instruction& a, const Instruction& b);

} // namespace nnaccel::arch::systolic
