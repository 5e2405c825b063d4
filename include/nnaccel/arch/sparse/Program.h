/// \file
/// What the sparse engine's compiler emits and its simulator executes: the layer sequencer's
/// program for one model on one SparseConfig.
///
/// A program is a list of layers in execution order. A Conv layer is everything the layer
/// sequencer and the PEs need for one PT-IS-CP-sparse pass: the geometry of its input planes
/// and output plane, the planar tilings over the PE grid, the per-PE accumulator frames with
/// their halo descriptors (seed 001 Table 8, generated from the geometry), the output-channel
/// groups with their compressed weight tile streams (the DRAM image the sequencer broadcasts),
/// and the post-processing parameters (bias, requantization, clamp). Pool layers run in the
/// post-processing units, and so do Elementwise layers (activations, lookup tables, residual adds,
/// concatenation, nearest upsampling: arch/common/Elementwise.h); Host layers are operators the
/// engine does not cover (counted and reported, never hidden); View layers only rename a value.
///
/// The mapping of every convolution onto the Cartesian-product dataflow is one rule (see
/// docs/arch/SparseCompiler.md): input plane p holds pixels u (x) and v (y); a non-zero weight of
/// output channel k on plane p carries a displacement (dx, dy); the product lands on output
/// (u * coordScale + dx, v * coordScale + dy) of the accumulator plane the PEs tile. Stride > 1
/// splits each input channel into stride^2 phase planes; padding only changes the displacements;
/// a transposed convolution scales the input coordinate (coordScale = stride). A dilated axis is
/// split into output phases, undilated convolutions laid side by side in the accumulator plane
/// with gaps for their halos; per-axis coordinate maps say which input pixel a plane position
/// holds and which output pixel an accumulator cell is.
#pragma once

#include "nnaccel/arch/common/Elementwise.h"
#include "nnaccel/arch/sparse/Config.h"
#include "nnaccel/arch/sparse/formats/PositionCodec.h"
#include "nnaccel/ir/Graph.h"
#include "nnaccel/ir/OpParams.h"
#include "nnaccel/quant/Kernels.h"
#include "nnaccel/quant/Requantize.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace nnaccel::arch::sparse {

/// A balanced split of [0, size) into `parts` contiguous ranges: range i is
/// [i*size/parts, (i+1)*size/parts).
struct Split {
  int64_t size = 0;
  int64_t parts = 1;
  int64_t begin(int64_t i) const { return i * size / parts; }
  int64_t end(int64_t i) const { return (i + 1) * size / parts; }
  int64_t length(int64_t i) const { return end(i) - begin(i); }
  bool operator==(const Split&) const = default;
};

/// A planar tiling of a W x H plane over gridX x gridY PEs (PE (px, py) has index
/// py * gridX + px; PEs of the config beyond the grid idle).
struct Tiling {
  Split x, y;
  int64_t pes() const { return x.parts * y.parts; }
  bool operator==(const Tiling&) const = default;
};

/// One of the eight halo regions of a PE's accumulator frame (seed 001 Table 7/8): frame cells
/// x in [x1, x2], y in [y1, y2] (inclusive, all Kc channels) are sent to the neighbour at
/// (peDx, peDy) and added at frame cell (x + xo, y + yo) of that neighbour's frame. Invalid
/// descriptors (no neighbour: the array edge) drop their partial sums (they lie outside the
/// output plane).
struct HaloDescriptor {
  int64_t x1 = 0, x2 = -1, y1 = 0, y2 = -1;
  int64_t xo = 0, yo = 0;
  int32_t peDx = 0, peDy = 0;
  bool valid = false;
  int64_t cells() const { return (x2 - x1 + 1) * (y2 - y1 + 1); }
};

/// A PE's accumulator frame for one layer: the output tile it owns plus its halo margins.
/// Frame cell (fx, fy) is output pixel (outX0 - haloLeft + fx, outY0 - haloTop + fy); the
/// accumulator address of (fx, fy, k) is fx + fy * width + k * width * height (seed 001 Eq. 1).
struct PeFrame {
  int64_t inX0 = 0, inY0 = 0, inW = 0, inH = 0; ///< input-plane tile (held, with input halos)
  /// Input halos: positions of the held tile that are other PEs' inputs, replicated here.
  int64_t inHaloLeft = 0, inHaloTop = 0, inHaloRight = 0, inHaloBottom = 0;
  int64_t outX0 = 0, outY0 = 0, outW = 0, outH = 0; ///< output tile it owns (home region)
  int64_t haloLeft = 0, haloTop = 0, haloRight = 0, haloBottom = 0;
  int64_t width() const { return haloLeft + outW + haloRight; }
  int64_t height() const { return haloTop + outH + haloBottom; }
  std::vector<HaloDescriptor> halos; ///< the 8 regions (empty ones omitted)
};

/// One output-channel group (the patent's weight "tile"): Kc output channels, their weights in
/// the Fig. 4B tile-stream form, one coded channel per input plane that has a non-zero weight.
struct WeightGroup {
  int64_t firstChannel = 0; ///< absolute output channel of k = 0
  int64_t channels = 0;     ///< Kc of this group (the last may be smaller)
  struct Plane {
    int64_t plane = 0;                        ///< input plane index
    std::vector<formats::CodedEntry> entries; ///< code + value, incl. zero-valued pads
  };
  std::vector<Plane> planes; ///< ascending plane index (empty planes are skipped, delta-coded)
  int64_t streamBits = 0;    ///< size of the packed tile stream in DRAM
};

/// The post-processing of one output channel: out = clamp(requantize(acc + bias)).
struct ChannelPost {
  int32_t bias = 0;
  quant::QuantMultiplier multiplier;
};

enum class LayerKind : uint8_t {
  Conv,        ///< PT-IS-CP-sparse on the PE array
  Pool,        ///< max / average pooling in the post-processing units
  Elementwise, ///< element-wise / data-movement passes in the post-processing units
  Host,        ///< an operator the engine does not cover, on the host (quant::evalQuantizedNode)
  View,        ///< reshape-like renaming of a value: no data moves
};
std::string_view layerKindName(LayerKind k);

/// The post-processing units' share of a pooling (seed 001 ¶0082: each PE's PPU pools the
/// output tile it owns). Per PE, per channel and image: the window elements of the pooled
/// outputs it owns, and the pooling-input values those windows read from other PEs' tiles
/// (halo values, one message each from the neighbour that holds it; SparseCompiler.md §2.8).
/// A global pooling (a 1 x 1 output) is a reduction: every PE reduces its own tile and sends
/// one partial to the owner, PE 0.
struct PoolTileWork {
  std::vector<int64_t> windowOps, haloValues; ///< per PE (index py * gridX + px)
  int64_t totalWindowOps() const;
  int64_t totalHaloValues() const;
  /// The busiest PE's operations: its window elements plus the halo values it receives.
  int64_t maxPeOps() const;
};

struct PoolLayer {
  ir::PoolParams params; ///< batch 1, 2-D
  /// Average pooling: s_in / (s_out * count) for each window element count (quant).
  std::vector<quant::CountMultiplier> countMultipliers;
  quant::ZeroPoints zero; ///< the input's and output's zero points (average pooling)
  Tiling tiling;          ///< output tiling over the PE grid (each PE pools its own output tile)
};

/// A pooling fused into a Conv layer's post-processing (post_processing.fuse_pooling; seed 001
/// ¶0082: once an output-channel group is complete the PPU exchanges halos, applies the
/// non-linear function and pooling, then compresses): the un-pooled output is never stored.
struct FusedPool {
  std::string node;         ///< the pooling node's name
  ir::ValueId convOutput{}; ///< the convolution's own output (after its fused clamp)
  PoolLayer pool;           ///< params of one image; tiling: the pooled output's over the grid
  /// Per PE of the convolution's grid (index py * gridX + px), per channel: window elements
  /// plus received halo values (the PPU's extra operations per output channel of a group).
  std::vector<int64_t> peOpsPerChannel;
  int64_t windowOpsPerChannel = 0, haloValuesPerChannel = 0; ///< over all PEs
};

struct ConvLayer {
  // Input planes: plane p = (c * phasesY + phaseY) * phasesX + phaseX holds input pixel
  // (phaseY + v * phasesY, phaseX + u * phasesX) of channel c (phases = the stride; 1 for a
  // transposed convolution, whose coordinate is scaled instead).
  // A dilated axis (SparseCompiler.md §2.3) splits its output into outPhases undilated
  // convolutions: the planes then hold, per channel, one tap class (k mod phases) of every output
  // phase side by side, and the PEs tile the accumulator plane accH x accW of the output phases
  // separated by gaps. Elsewhere outPhases is 1 and the accumulator plane is the output.
  int64_t inChannels = 0, inH = 0, inW = 0;
  int64_t phasesX = 1, phasesY = 1;
  int64_t planeH = 0, planeW = 0;
  int64_t outPhasesX = 1, outPhasesY = 1;
  int64_t accH = 0, accW = 0;
  /// Plane position [phase * planeW + u] -> input x (-1: no pixel, a zero); likewise y.
  std::vector<int32_t> inputXOf, inputYOf;
  /// Accumulator-plane x -> output x (-1: a gap cell between output phases); likewise y.
  std::vector<int32_t> outputXOf, outputYOf;
  int64_t coordScaleX = 1, coordScaleY = 1; ///< transposed convolution: input coordinate * stride
  int64_t convGroups = 1;                   ///< grouped / depthwise convolution
  /// Gemm/MatMul: the input is [rows, C] and the output [rows, K] (pixel-major); a convolution's
  /// are [1, C, H, W] and [1, K, OH, OW].
  bool matrixLayout = false;
  /// Gemm with transA: the input is A stored [C, rows] (channel-major); the output stays [rows, K].
  bool inputTransposed = false;
  int64_t outChannels = 0, outH = 0, outW = 0;
  /// Weight coordinate frame: r = dx - dxMin in [0, extentX), s = dy - dyMin in [0, extentY).
  int64_t dxMin = 0, dyMin = 0, extentX = 1, extentY = 1;
  Tiling inTiling, outTiling;
  std::vector<PeFrame> frames; ///< per used PE (inTiling.pes())
  int64_t kc = 1;              ///< output channels per group
  std::vector<WeightGroup> groups;
  /// Output-channel slices: a fully-connected layer on the whole array (SCNN paper section 4.3;
  /// docs/arch/SparseCycleModel.md "Fully connected layers"). PE s runs the groups
  /// [sliceFirstGroup[s], sliceFirstGroup[s + 1]) over the whole input, which every PE holds
  /// (`frames` has the one frame they share), and receives those groups' weights alone. Empty:
  /// every PE runs every group on its own tile of the plane (the weight broadcast).
  std::vector<int64_t> sliceFirstGroup;
  /// Input halos (pe_array.halos: input, seed 001 ¶0070): frames hold no output halos; a PE's
  /// input tile includes the inputs its products need, and products landing outside its frame
  /// are dropped.
  bool inputHalos = false;
  std::vector<ChannelPost> post; ///< per output channel
  int32_t clampMin = quant::kInt8Min, clampMax = quant::kInt8Max;
  /// Zero points (real = s * (q - z)). The compressed input holds the non-zero differences
  /// q - inputZero (real 0 is what the Cartesian product skips; a padded pixel is absent), and
  /// post-processing requantizes onto outputZero. 0 when symmetric.
  int32_t inputZero = 0, outputZero = 0;
  /// The pooling the post-processing units apply before compressing (none: the output as is).
  /// The layer's output value is then the pooled one.
  std::optional<FusedPool> fusedPool;
  int64_t denseWeights = 0; ///< weights of the dense layer (the dense baseline's count)
  int64_t nonZeroWeights = 0;
  /// Dense taps per plane for one output channel (the dense baseline's weight vectors).
  std::vector<int64_t> denseTapsPerPlane;
  int64_t planes() const { return inChannels * phasesX * phasesY; }
  /// PEs that hold work: one per output-channel slice, else one per tile.
  int64_t usedPes() const {
    return sliceFirstGroup.empty() ? inTiling.pes()
                                   : static_cast<int64_t>(sliceFirstGroup.size()) - 1;
  }
  /// True when a dilated axis lays output phases side by side: the layout is not the tensor's.
  bool phaseDecomposed() const { return outPhasesX * outPhasesY > 1; }
};

struct Layer {
  std::string name; ///< graph node name
  std::string op;   ///< "Conv+Relu", "MaxPool", ...
  LayerKind kind = LayerKind::Host;
  ir::NodeId node = -1;
  std::vector<ir::ValueId> inputs;      ///< graph values read
  std::vector<ir::ValueId> outputs;     ///< graph values produced (the checked ones)
  std::string note;                     ///< host-fallback reason, mapping notes
  ConvLayer conv;                       ///< kind == Conv
  PoolLayer pool;                       ///< kind == Pool
  common::ElementwiseLayer elementwise; ///< kind == Elementwise
  Tiling ppuTiling; ///< kind == Elementwise: output tiling over the PE grid (HW of NCHW)
};

struct Program {
  SparseConfig config;
  std::string model;
  std::vector<Layer> layers;
  /// Sum of the packed weight streams (the DRAM weight image), bytes.
  int64_t weightBytes = 0;
};

} // namespace nnaccel::arch::sparse
