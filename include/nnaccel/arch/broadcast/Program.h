/// \file
/// What the broadcast engine's compiler emits and its simulator executes: one program for one
/// model on one BroadcastConfig.
///
/// A program is a list of layers in execution order. A Conv layer carries everything the data
/// read module and the PE array need: the decomposition (N, dummy columns or transpose), the
/// layer's geometry in the decomposed frame, the tiling (operands per pass, filters per block,
/// channels per chunk, x-residue classes for dilation), the weight operands of every filter with
/// their sparsity bitmaps (the kernel decomposing module's output, as stored in memory 310),
/// and the post-processing of the drain (bias, requantization, clamp). The same layer also
/// carries the two baselines' decompositions and tilings (conventional 1x1, and 1xN without
/// broadcasting), which the simulator times on the same machine. Host layers are operators the
/// engine does not cover (counted and reported, never hidden); View layers only rename a value.
/// Every layer also carries its place in the memory hierarchy (LayerMemory, MemoryPlan.h):
/// where it reads each operand from and whether its output stays in the global buffer.
#pragma once

#include "nnaccel/arch/broadcast/Config.h"
#include "nnaccel/arch/broadcast/Decompose.h"
#include "nnaccel/arch/common/Elementwise.h"
#include "nnaccel/ir/Graph.h"
#include "nnaccel/ir/OpParams.h"
#include "nnaccel/quant/Kernels.h"
#include "nnaccel/quant/Requantize.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace nnaccel::arch::broadcast {

/// How a layer's loop nest is cut to fit the register files (docs/arch/BroadcastCompiler.md).
struct Tiling {
  Decomposition decomposition;
  bool broadcast = true;    ///< activations shared PE to PE (false: every tap its own read)
  int64_t operandBlock = 1; ///< operands (output points along x) per pass, per group
  int64_t filterBlock = 1;  ///< output channels whose partial sums a PE holds (depthwise: 1)
  int64_t channelChunk = 1; ///< input channels per activation read (one segment slice)
  int64_t xClasses = 1;     ///< dilated x: operands split into residue classes (one pass each)
  int64_t classStride = 1;  ///< operand start step inside a class, in stream positions
  /// Images of a batch whose rows stream through each loaded weight slice, one after another
  /// (the output RFs and the column buffer hold all their sums); 1: weights loaded per image.
  int64_t batchImages = 1;
  bool operator==(const Tiling&) const = default;
};

/// The post-processing of one output channel at the drain: clamp(requantize(acc + bias)).
struct ChannelPost {
  int32_t bias = 0;
  quant::QuantMultiplier multiplier;
};

enum class LayerKind : uint8_t {
  Conv,        ///< 1xN decomposed convolution on the PE array (conventional 1x1 when N = 1)
  Pool,        ///< max / average pooling on the PEs' lanes (¶0058)
  Elementwise, ///< element-wise / data-movement passes on the PEs' lanes (¶0058)
  Host,        ///< an operator the engine does not cover, on the host (quant::evalQuantizedNode)
  View,        ///< reshape-like renaming of a value: no data moves
};
std::string_view layerKindName(LayerKind k);

/// Where a convolution's outputs land in the layer's output tensor, in the original (not the
/// decomposed) frame: output (y, x) goes to (y * stepY + offsetY, x * stepX + offsetX) of an
/// fullH x fullW plane (0: the convolution's own extent). A transposed convolution's stride
/// phases each write every stepY-th row and stepX-th column.
struct OutputPlacement {
  int64_t stepY = 1, stepX = 1, offsetY = 0, offsetX = 0;
  int64_t fullH = 0, fullW = 0;
};

struct ConvLayer {
  /// Geometry in the decomposed frame (x: the axis kernel vectors run along; after a transpose
  /// the original input's height), for one image (a batch's images share the weight slices,
  /// Tiling::batchImages); a Gemm is a 1x1 convolution on a 1 x 1 plane per
  /// row of A (matrixLayout).
  ConvAxes axes;
  int64_t inChannels = 0, outChannels = 0;
  int64_t convGroups = 1;       ///< grouped convolution: each group is its own standard conv
  bool depthwise = false;       ///< one input channel per output channel (no channel reduction)
  bool matrixLayout = false;    ///< Gemm/MatMul: input [rows, C], output [rows, K]
  bool inputTransposed = false; ///< Gemm with transA: input A stored [C, rows], output [rows, K]
  /// A ConvTranspose stride phase no kernel tap reaches: one zero-weight tap, so its outputs are
  /// the requantized bias (a configuration without zero skipping issues those zero MACs).
  bool biasOnly = false;
  Tiling tiling;               ///< the method: 1xN with broadcasting
  Tiling baselineConventional; ///< the conventional 1x1 decomposition (same machine)
  Tiling baselineNoBroadcast;  ///< 1xN without broadcasting (same N, same tiling)
  /// Weight operands (Decompose.h), one per output channel; depthwise: one for all channels
  /// (C = channels, no reduction). Each has taps = N, depth = segments * (C per group).
  std::vector<WeightOperand> weights;
  std::vector<ChannelPost> post; ///< per output channel
  int32_t clampMin = quant::kInt8Min, clampMax = quant::kInt8Max;
  /// Zero points (real = s * (q - z)): the PEs multiply q - inputZero (a padded tap is never
  /// multiplied, so it adds real 0), the drain requantizes onto outputZero. 0 when symmetric.
  int32_t inputZero = 0, outputZero = 0;
  OutputPlacement placement;
  int64_t usefulMacs = 0;   ///< MACs of the convolution itself (no dummies, no padding)
  int64_t denseWeights = 0; ///< real weights (no dummies)
  int64_t nonZeroWeights = 0;
  int64_t dummyWeights = 0; ///< dummy positions of all weight operands
  int64_t channelsPerGroup() const { return inChannels / convGroups; }
  int64_t filtersPerGroup() const { return outChannels / convGroups; }
  /// Bytes of the weight operands as stored in memory 310: values plus bitmap bits.
  int64_t weightBytes() const;
};

/// A pooling layer (2-D, batch 1, undilated).
struct PoolLayer {
  ir::PoolParams params;
  std::vector<quant::CountMultiplier> countMultipliers; ///< average pooling (quant)
  quant::ZeroPoints zero; ///< the input's and output's zero points (average pooling)
};

/// Where a layer reads an operand from (docs/arch/BroadcastCompiler.md, "Memory hierarchy").
enum class OperandSource : uint8_t {
  Buffer, ///< resident in the global buffer: every read the schedule makes hits the buffer
  Staged, ///< in memory 310, copied into the global buffer once before the layer; reads hit it
  Dram,   ///< in memory 310: every read the schedule makes crosses memory 310
};
std::string_view operandSourceName(OperandSource s);

/// A layer's place in the memory hierarchy, decided by the compiler (planMemory, MemoryPlan.h).
struct LayerMemory {
  std::vector<OperandSource> inputs; ///< per Layer::inputs entry
  /// Conv: the weight operands (staged when they fit beside the live activations); lane
  /// layers: constants and lookup tables, read once straight from memory 310.
  OperandSource weights = OperandSource::Dram;
  int64_t stagedBytes = 0;       ///< copied memory 310 -> global buffer before the layer runs
  bool outputInBuffer = false;   ///< the output stays on chip (else it is written to memory 310)
  int64_t outputOffsetBytes = 0; ///< its global-buffer address when it stays on chip
  std::string spill;             ///< why the output goes to memory 310 (empty when it stays)
  std::string note; ///< what the report's layer note adds: spills, staged or streamed operands
};

struct Layer {
  std::string name; ///< graph node name
  std::string op;   ///< "Conv+Relu", "Gemm", ...
  LayerKind kind = LayerKind::Host;
  ir::NodeId node = -1;
  std::vector<ir::ValueId> inputs;  ///< graph values read
  std::vector<ir::ValueId> outputs; ///< graph values produced (the checked ones)
  std::string note;                 ///< host-fallback reason, decomposition notes
  ConvLayer conv;                   ///< kind == Conv (a transposed one: its first phase)
  /// A ConvTranspose: one stride-1 convolution per output stride phase (seed 004 decomposes
  /// kernels; the phases decompose the transposed kernel the same way), each writing its rows
  /// and columns of the output (ConvLayer::placement). Empty for other layers.
  std::vector<ConvLayer> phases;
  common::ElementwiseLayer elementwise; ///< kind == Elementwise
  PoolLayer pool;                       ///< kind == Pool
  LayerMemory memory;                   ///< the memory plan (Views: empty, nothing moves)
  /// The weight operands' bytes (every phase of a ConvTranspose); 0 for other kinds.
  int64_t weightBytes() const;
};

struct Program {
  BroadcastConfig config;
  std::string model;
  std::vector<Layer> layers;
  int64_t weightBytes = 0;     ///< weight operands in memory 310 (values + bitmaps), bytes
  int64_t bufferPeakBytes = 0; ///< the most global-buffer bytes live at once (MemoryPlan.h)
};

} // namespace nnaccel::arch::broadcast
