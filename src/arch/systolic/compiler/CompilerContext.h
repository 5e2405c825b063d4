/// \file
/// State shared by the systolic compiler's lowering passes (Compiler.cpp drives them,
/// ConvLowering.cpp, PoolLowering.cpp and VectorLowering.cpp emit instructions): the program being
/// built, DRAM allocation and the emitter. Private to src/arch/systolic.
#pragma once
#include "Emitter.h"
#include "nnaccel/arch/common/BufferAllocator.h"
#include "nnaccel/arch/common/Elementwise.h"
#include "nnaccel/arch/systolic/AccessPlan.h"
#include "nnaccel/arch/systolic/Compiler.h"
#include "nnaccel/ir/Graph.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace nnaccel::quant {
struct QuantizedModel;
enum class QuantOpKind;
} // namespace nnaccel::quant

namespace nnaccel::arch::systolic {

inline constexpr int64_t kDramAlignBytes = 64;

/// Thrown by a lowering whose tiles do not fit the SBUF working area while a resident region
/// takes part of it: compile() retries with a smaller region (never escapes the compiler).
struct WorkingAreaTooSmall {
  ir::NodeId node = -1;
};

/// Where activations live between layers (Residency.cpp): in the SBUF resident region from the
/// layer that produces them to their last consumer while they fit, else in DRAM. Graph inputs
/// and outputs, and values a view passes on to one, stay in DRAM (the host reads them there).
/// Steps are node ids: the driver lowers nodes in id order.
class Residency {
public:
  Residency(const ir::Graph& g, const SystolicConfig& c);
  /// A resident address for a new tensor of \p bytes holding \p v, produced at step \p now,
  /// or nullopt (DRAM) with \p spill set to the reason when the region cannot hold it.
  std::optional<int64_t> place(ir::ValueId v, int64_t bytes, int64_t now, std::string& spill);

private:
  std::vector<int64_t> lastUse_; ///< per value: the last node that reads it (or a view of it)
  std::vector<bool> pinned_;     ///< per value: must live in DRAM
  common::BufferAllocator region_;
};

struct CompilerContext {
  CompilerContext(const ir::Graph& graph, const quant::QuantizedModel* quantModel,
                  const SystolicConfig& cfg, const CompileOptions& opts, Program& prog)
      : g(graph), qm(quantModel), config(cfg), options(opts), program(prog), emitter(prog),
        residency(graph, cfg) {}

  const ir::Graph& g;
  const quant::QuantizedModel* qm;
  const SystolicConfig& config;
  const CompileOptions& options;
  Program& program;
  Emitter emitter;
  Residency residency;
  int64_t elemBytes = 1; ///< 1 for I8 programs, 4 for F32

  /// Allocates \p bytes of DRAM (64-byte aligned) and returns the address.
  int64_t allocDram(int64_t bytes);
  /// Adds a constant segment and returns its address.
  int64_t addSegment(std::vector<uint8_t> bytes);
  /// Adds a DRAM tensor (allocating it unless \p aliasAddr >= 0) and returns its index.
  int32_t addTensor(DramTensor t, int64_t aliasAddr = -1);
  Range dramRange(int32_t tensor) const;
  /// SBUF bytes per partition a lowering may tile in (the resident region lies above them).
  int64_t sbufBytes() const { return config.sbufWorkingBytesPerPartition(); }
};

/// A convolution as the array sees it (Conv, ConvTranspose, Gemm and MatMul all lower to it).
struct ConvDesc {
  ir::NodeId node = -1;
  bool transposed = false;
  int64_t batch = 1, inChannels = 1, outChannels = 1, groups = 1;
  AxisGeometry h, w; ///< h.out / w.out are the output extents

  /// DRAM layout, in elements: (n, c, y, x) is at base + n*nStride + c*cStride + y*yStride +
  /// x*xStride of the input (resp. output) tensor.
  int32_t inTensor = -1, outTensor = -1;
  int64_t inNStride = 0, inCStride = 0, inYStride = 0, inXStride = 0;
  int64_t outNStride = 0, outCStride = 0, outYStride = 0, outXStride = 0;

  /// Writes the weight between output channel m and input channel c (same group) at kernel
  /// position (r, s) — ORIGINAL coordinates — as elemBytes bytes.
  std::function<void(int64_t m, int64_t c, int64_t r, int64_t s, uint8_t* out)> weightAt;
  /// Activation-table record (kActRecordBytes) of output channel m.
  std::function<void(int64_t m, uint8_t* out)> actRecord;
  ActFunc func = ActFunc::Identity;
  int64_t clampLo = -128, clampHi = 127;
  float alpha = 0, beta = 0, gamma = 0;
  /// When >= 0, the packed weights are already in DRAM at this address (written at run time by
  /// the baseline's rotated weight copy) instead of a constant segment.
  int64_t packedWeightsAddr = -1;
  /// When >= 0, the weights are a computed tensor (the B of a MatMul of two tensors): the weight
  /// between output channel m and input channel c of image n is the element at n *
  /// weightNStride + c * weightCStride + m (elements) of this program tensor, DMA'd into the
  /// weight buffer at run time like any other weight set (1x1 kernels, one group).
  int32_t weightTensor = -1;
  int64_t weightNStride = 0, weightCStride = 0;
};

/// Emits the instructions of one convolution layer (ConvLowering.cpp).
void lowerConv(CompilerContext& ctx, const ConvDesc& d);
/// Bytes of the packed weights lowerConv reads (the baseline allocates its rotated copy).
int64_t packedWeightBytes(const CompilerContext& ctx, const ConvDesc& d);
/// Writes the packed weights of \p d (ConvLowering.cpp's layout) into a new byte vector.
std::vector<uint8_t> packWeights(const CompilerContext& ctx, const ConvDesc& d);

/// Pooling-engine description (PoolLowering.cpp).
struct PoolDesc {
  ir::NodeId node = -1;
  Pool::Kind kind = Pool::Kind::Max;
  int64_t batch = 1, channels = 1, inH = 1, inW = 1, outH = 1, outW = 1;
  int64_t kernelH = 1, kernelW = 1, strideH = 1, strideW = 1, dilH = 1, dilW = 1;
  int64_t padTop = 0, padLeft = 0, padBottom = 0, padRight = 0;
  bool countIncludePad = false;
  int32_t inTensor = -1, outTensor = -1;
  /// I8 average: (count, M, shift) per distinct window count.
  std::vector<std::array<int32_t, 3>> countTable;
  /// I8 average: the input's and output's zero points (POOL zero.in, zero.out).
  int32_t zeroIn = 0, zeroOut = 0;
  /// Interpolate: (index0, index1, weight1) per output column and per output row.
  std::vector<std::array<int32_t, 3>> columnTaps, rowTaps;
};
/// \p records as kPoolRecordBytes pool-table records (the fourth int32 of each zero).
std::vector<uint8_t> packPoolRecords(const std::vector<std::array<int32_t, 3>>& records);
/// Emits a pooling layer; returns false (nothing emitted) when it cannot fit on chip.
bool lowerPool(CompilerContext& ctx, const PoolDesc& d);

/// One operand (or the result) of an element-wise layer in DRAM as an [n][c][s] array of int8
/// elements: element (n, c, s) at addr + n * nStride + c * cStride + s, or, when perRow (operand
/// B only), one value per (n, c) at addr + n * nStride + c * cStride. A stride of 0 broadcasts.
struct VectorOperand {
  int64_t addr = 0;
  int64_t nStride = 0, cStride = 0;
  int64_t sStride = 1; ///< elements between neighbours along s (the DMA's inner step)
  bool perRow = false;
  Range range; ///< the DRAM it lives in (hazard tracking); empty for an absent operand
};

/// An element-wise layer on the vector unit (VectorLowering.cpp): out = op(a, b) over batch x
/// channels x plane elements, channels on SBUF partitions.
struct VectorDesc {
  Vector op; ///< func, multipliers and clamp; the lowering fills partitions, counts, addresses
  int64_t batch = 1, channels = 1, plane = 1;
  VectorOperand a, b, out; ///< b absent (empty range) for unary functions
  VectorOperand c;         ///< Select/SelectNot's condition; absent otherwise
  /// Lookup: DRAM address of the tables, one per channel (perChannelTables) or one for all.
  int64_t tablesAddr = -1;
  bool perChannelTables = false;
  /// Softmax: DRAM address of the exponential table as kLookupEntries pool-table records
  /// (each plane is one line: one row of one partition)
  int64_t expTableAddr = -1;
};
/// Emits an element-wise layer in channel blocks and plane chunks that fit the state buffer.
void lowerVector(CompilerContext& ctx, const VectorDesc& d);

/// An operand's [n][c][s] element strides relative to the output (VectorOperand without the
/// address), from the numpy broadcast of its shape.
struct OperandView {
  int64_t nStride = 0, cStride = 0;
  bool perRow = false;
};

/// How an int8 element-wise node runs (planElementwise): on the vector unit, as a channel
/// Concat (DRAM copies or REQUANTIZE per input), or as a replication DMA pattern (nearest
/// Resize by integer factors).
struct ElementwisePlan {
  enum class Kind : uint8_t { Vector, Concat, Replicate } kind = Kind::Vector;
  Vector op;                     ///< Vector: func, multipliers, clamp
  int inputA = 0, inputB = -1;   ///< node inputs read as A and B (-1: unary)
  int inputC = -1;               ///< Select/SelectNot: the node input read as C (the condition)
  OperandView a, b, c;           ///< their views
  bool perChannelTables = false; ///< Lookup: one table per channel
  /// Lookup: a table the compiler computed (a Where folded into its source's 256 codes,
  /// quant::elementFunctions) instead of the node's own lookupTables
  std::vector<int8_t> table;
  /// Lookup whose tables vary along the last axis of a rank >= 3 tensor (a LayerNorm affine on
  /// [N, T, C]): that axis goes to the partitions, the DMA reading the tensor transposed
  bool lastAxisOnPartitions = false;
  /// Softmax: the tensor viewed as lines, one per partition row (softmaxView)
  quant::LineGeometry softmaxLines;
  int64_t scaleH = 1, scaleW = 1; ///< Replicate: the integer factors
};

/// The DRAM tensors of an element-wise node: per node input its program tensor (-1 for a graph
/// constant: its int8 form becomes a constant segment), and the output tensor.
struct ElementwiseIo {
  std::vector<int32_t> inputs;
  int32_t output = -1;
};

/// True for the int8 node kinds the vector lowering handles.
bool isElementwiseKind(quant::QuantOpKind k);
/// The plan of int8 element-wise node \p id, or the one-line reason it stays on the host.
std::variant<ElementwisePlan, std::string> planElementwise(const CompilerContext& ctx,
                                                           ir::NodeId id);
/// Emits node \p id as \p plan says.
void lowerElementwise(CompilerContext& ctx, ir::NodeId id, const ElementwisePlan& plan,
                      const ElementwiseIo& io);

/// Why the passes of \p l cannot be DMA copies (empty when they can): DataMovementLowering.cpp.
std::string dataMovementObstacle(const common::ElementwiseLayer& l);
/// Emits the Copy and Fill passes of data-movement layer \p l (one input) as DMA_COPY
/// instructions from tensor \p inTensor into tensor \p outTensor.
void lowerDataMovement(CompilerContext& ctx, const common::ElementwiseLayer& l, int32_t inTensor,
                       int32_t outTensor);

/// Software-pipelined emission shared by the lowerings: load(0); then for every step k:
/// load(k+1), compute(k), drain(k) — so step k+1's DMA overlaps step k's compute. A step whose
/// load overwrites a single-buffered resource step k still reads (canPrefetch(k+1) false) is
/// loaded after drain(k) instead: the emitter can only order an instruction after earlier ones.
void emitPipelined(int64_t steps, const std::function<void(int64_t)>& load,
                   const std::function<void(int64_t)>& compute,
                   const std::function<void(int64_t)>& drain,
                   const std::function<bool(int64_t)>& canPrefetch = {});

} // namespace nnaccel::arch::systolic
