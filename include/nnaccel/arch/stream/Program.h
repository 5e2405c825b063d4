/// \file
/// The stream engine's program: a complete configuration of the fixed ASIC of seed 002 (Fig. 44)
/// for one model. Every kernel tile and auxiliary tile that the model uses, with its row and
/// position, the mux selects that connect it to the buses (4403, 4404, 4407), its weights and
/// biases per time-multiplexed group pair, its FIFO lengths (4706, 4902), its requantizer and
/// LUT contents and its patch function, plus the primary output mux (4412). The compiler
/// (Compiler.h) writes it; the simulator (Simulator.h) executes it and nothing else.
///
/// Streams and sets. A logical stream of C channels at P cycles per position travels on
/// ceil(C / (16 T)) bus sets, where T = min(P, ceil(C/16)) channels share each lane in time
/// (the time-multiplexing factor) and each value is held H = P / T cycles (digest §8.4, §8.6).
/// Set s of a stream carries channels [16 T s, 16 T (s+1)).
#pragma once

#include "nnaccel/arch/stream/Config.h"
#include "nnaccel/arch/stream/Patch.h"
#include "nnaccel/arch/stream/Stream.h"
#include "nnaccel/ir/Graph.h"
#include "nnaccel/quant/Kernels.h"
#include "nnaccel/quant/Requantize.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace nnaccel::arch::stream {

/// A place a tile can read a set from: the primary input bus (bus = -1, 4402) or the output bus
/// of kernel-tile row `bus` (4406); `slot` is the set's index on that bus.
struct BusRef {
  int64_t bus = -1;
  int64_t slot = 0;
  bool operator==(const BusRef&) const = default;
};

/// How a logical stream is carried: its geometry and time multiplexing.
struct StreamFormat {
  FrameShape frame;              ///< rows x cols positions, `channels` logical channels
  int64_t cyclesPerPosition = 1; ///< P
  int64_t tm = 1;                ///< T: channels per lane per position
  int64_t sets() const;          ///< ceil(channels / (lanes * T))
  int64_t holdCycles() const;    ///< H = P / T
  int64_t lanes = 16;
};

/// One input-group x output-group weight set a kernel tile applies per position (§8.4).
struct GroupPair {
  int64_t inGroup = 0;  ///< group of 16 channels within the tile's input set
  int64_t outGroup = 0; ///< group of 16 channels within the tile's output set
};

/// A kernel processing tile (Figs. 46-48): 3x3 summation cells per output lane, fed by one
/// 16-lane input set through mux 4403, adding its auxiliary input (the preceding tile in the
/// row, or for a row's first tile the set mux 4404 picks from the row above) after FIFO 4706.
struct KernelTile {
  int64_t row = 0, index = 0; ///< placement: row, position from the left
  std::string layer;          ///< the program layer it serves
  BusRef input;               ///< mux 4403 select
  /// Auxiliary input: none, the preceding tile of the row (hard-wired), or (first tile of a row)
  /// a set of the row above chosen by mux 4404.
  enum class Aux { None, PreviousTile, RowAbove } aux = Aux::None;
  BusRef auxInput;               ///< RowAbove: the set
  int64_t auxDelayPositions = 0; ///< FIFO 4706
  int64_t inChannels = 0;        ///< logical channels of the input set this tile reads (16 Ti)
  int64_t outChannels = 0;       ///< logical channels of the output set (16 To)
  std::vector<GroupPair> pairs;  ///< applied in time order within each position
  /// The configured sub-kernel (<= 3x3 cells; a block of a larger kernel, §8.5) and its anchor
  /// (the cell that lands on the output position, inside the sub-kernel): the tile's everted
  /// sums S(i, j) cover inputs (i - anchorRow .. i - anchorRow + subRows - 1, likewise columns).
  int64_t subRows = 3, subCols = 3;
  int64_t anchorRow = 1, anchorCol = 1;
  /// The input channels its pairs cover: [inFirstChannel, inFirstChannel + inUsedChannels) of
  /// the set (the lanes of its input groups; the other lanes have no weights in this tile).
  int64_t inFirstChannel = 0, inUsedChannels = 0;
  /// Cell weights [outChannels][inUsedChannels][subRows][subCols] (zero where a pair is not
  /// applied), correlation order, s8 values.
  std::vector<int8_t> weights;
  std::vector<int32_t> bias; ///< per output channel (the accumulator's init value, 1005/4807)
  /// A block whose kernel anchor lies outside it: output (i, j) is S(i + offsetRows,
  /// j + offsetCols), zero where that lies outside the array (its window is then wholly off
  /// the array). Output (i, j) is complete (subRows - 1 - anchorRow + offsetRows) * cols +
  /// (subCols - 1 - anchorCol + offsetCols) positions after input (i, j).
  int64_t offsetRows = 0, offsetCols = 0;
  int64_t startCycle = 0; ///< compiler's figure: when its output's first position appears
  int64_t outSlot = 0;    ///< its set's slot on bus `row`
  /// An identity 1x1 carrying an int8 set down one row (a bypass) where the row's aux tiles
  /// are all in use: out = in, one group pair per time slot (issue 25's tile-level placement).
  bool bypass = false;
  /// The input's zero point (real = s * (q - z)): a subtractor before the mass multipliers
  /// feeds q - inputZero (9 bits), so real 0 multiplies to 0; an input outside the frame never
  /// arrives, so the border needs nothing else. 0 when symmetric and for a bypass.
  int32_t inputZero = 0;
};

/// What an auxiliary tile's output mux (4914) selects after the adder, requantizer and LUT.
enum class AuxFunction {
  Bypass,        ///< a pure delay: carries a set to a later row, or aligns a path
  MaxPool,       ///< 4908
  Average,       ///< 4909: window sum times the reciprocal of the in-array count
  Sample,        ///< 4910: crop and stride
  Expand,        ///< 4911: padding / nearest duplication
  GlobalAverage, ///< Fig. 27C: one position per frame
  Alternate,     ///< 4913: two sets of one stream become one set of twice the time multiplexing
  Concat,        ///< 4912: the primary's lowest `concatLanes` lanes, then the aux's lowest lanes
  Subset,        ///< Fig. 30A: lanes [laneOffset, laneOffset + channels) moved to lanes 0..
  /// Expand's schedule (4911) with depth to space: each input position's channels, in
  /// factorRows x factorCols blocks of `channels`, become that many output positions (the
  /// stride phases of a ConvTranspose; nnaccel's addition, docs/arch/Stream.md).
  DepthToSpace,
  /// A linear Resize (nnaccel's addition beside 4911, docs/arch/Stream.md): each output the
  /// weighted sum of its 2 x 2 input taps, by the int8 interpolation rule.
  Interpolate,
};
std::string_view auxFunctionName(AuxFunction f);

/// How adder 4904 combines the primary and auxiliary sets.
enum class AuxAdd {
  None,    ///< bypassed (mux 4905)
  Partial, ///< int32 partial sums of one kernel (vertical block sums, §8.5)
  Scaled,  ///< int8 residual add: each operand rescaled, then requantized (quant::addSub rule)
  /// A multiplier beside the adder (nnaccel's addition, docs/arch/Stream.md, "Channel scale"):
  /// each primary value times its channel's entry of the auxiliary set, a 1x1 frame (one
  /// vector per frame, latched as the primary's frame begins), requantized by the int8 Mul
  /// rule (quant::mulValue). Squeeze-and-excitation's x * s.
  Scale,
  /// The multiplier on two frames streamed together (nnaccel's addition beside Scale): each
  /// primary value times the auxiliary value of the same position and channel, by the int8 Mul
  /// rule (quant::mulValue). M-LSD's x * (x == maxpool(x)).
  Multiply,
  /// Adder 4904 as a comparator (nnaccel's addition): both operands requantized onto the coarser
  /// scale and compared, 1 or 0 (quant::compareValue), e.g. Equal(x, maxpool(x)).
  Compare,
  /// The same comparator passing the larger (Max) or smaller (Min) operand, both requantized
  /// onto the output scale first (quant::minMaxValue): Max(x, conv(x)).
  Extremum,
};

/// A window for the patch functions (pooling, sampling, expanding).
struct PatchWindow {
  int64_t kernelRows = 1, kernelCols = 1;
  int64_t strideRows = 1, strideCols = 1;
  int64_t padTop = 0, padLeft = 0, padBottom = 0, padRight = 0; ///< Sample: crop offsets
  int64_t outRows = 0, outCols = 0;
  bool countIncludePad = false;
  int64_t factorRows = 1, factorCols = 1; ///< Expand: copies per axis; DepthToSpace: block
  /// Interpolate: the quantizer's tables of the rows and columns axes.
  quant::InterpolationAxis interpolateRows, interpolateCols;
};

/// The Interpolate stage's parameters for window \p w: its tables, with the int8 rule's
/// weight bits and rounding (quant::interpolationRound).
InterpolateParams interpolateParams(const PatchWindow& w);

/// An auxiliary function tile (Fig. 49).
struct AuxTile {
  int64_t row = 0, index = 0;
  std::string layer;
  BusRef primary;      ///< mux 4407, first input
  bool hasAux = false; ///< mux 4407, second input used
  BusRef aux;
  int64_t primaryDelayPositions = 0; ///< FIFO 4902 (on the primary, before adder 4904)
  int64_t auxDelayPositions = 0;     ///< alignment FIFO on the auxiliary input
  AuxAdd add = AuxAdd::None;
  quant::AddSubMultipliers addScales; ///< AuxAdd::Scaled
  quant::QuantMultiplier mulScale;    ///< AuxAdd::Scale, Multiply: s_a * s_b / s_out
  quant::Comparison comparison = quant::Comparison::Equal; ///< AuxAdd::Compare
  std::array<quant::QuantMultiplier, 2> compareScales{};   ///< AuxAdd::Compare: s_a/s_c, s_b/s_c;
                                                           ///< Extremum: s_a/s_out, s_b/s_out
  bool extremumMax = true;                                 ///< AuxAdd::Extremum: Max, else Min
  int64_t auxFirstChannel = 0; ///< AuxAdd::Scale: the aux channel of primary lane 0
  /// Requantizer before the LUT: int32 sums -> int8 with a per-channel multiplier (empty: the
  /// input is already int8). One entry per channel of the set.
  std::vector<quant::QuantMultiplier> requantize;
  bool lutEnabled = false;       ///< mux 4907
  std::array<int8_t, 256> lut{}; ///< 4906: output for int8 index q at lut[q + 128]
  /// 4906 addressed by channel too (nnaccel's extension, docs/arch/Stream.md "Per-channel
  /// tables"): when not empty, one table per channel of the set, used instead of \c lut.
  std::vector<std::array<int8_t, 256>> channelLuts;
  AuxFunction function = AuxFunction::Bypass;
  PatchWindow window;
  std::vector<quant::CountMultiplier> averageMultipliers; ///< Average / GlobalAverage
  int64_t channels = 0;                                   ///< logical channels of the set
  int64_t concatLanes = 0; ///< Concat: k, the lanes taken from the primary (1..lanes-1)
  int64_t laneOffset = 0;  ///< Subset: the first input lane kept
  int64_t outSlot = 0;     ///< its set's slot on bus `row`
  int64_t startCycle = 0;  ///< compiler's figure: when its output's first position appears
  /// Zero points of the primary's and the auxiliary's int8 codes (in[0], in[1]; 0 for int32
  /// partial sums) and of the output (out). The int8 rules of the adder, the multiplier and the
  /// comparator work on the differences q - z and add out; the requantizer adds out before the
  /// LUT; Average and GlobalAverage sum q - in[0] and requantize onto out. 0 when symmetric.
  quant::ZeroPoints zero;
};

/// True for the output-mux functions that run a patch stage (5002) with its own latency.
bool isPatchFunction(AuxFunction f);

// ---- Timing rules (one copy: the compiler plans with them, the simulator checks with them) ----
// A set's start is the cycle its frame-0 position 0 appears on its bus; position q of it
// appears q * P cycles later and is held one position (P cycles).

/// How a kernel tile's output meets: its own block sums are ready \p latencyPositions input
/// positions after its input set starts plus the tile's pipeline up to unit adder 4707; a
/// chained partial (starting at \p partialStartCycle) leaves FIFO 4706 after
/// t.auxDelayPositions positions. The partial may not be a position or more early (it would
/// meet the wrong position); when it is late, the own sums wait for it in the tile's output
/// register (the chain's systolic skew) and the wait is counted.
struct KernelTileTiming {
  int64_t startCycle = 0;         ///< when the output set starts (after adder 4707)
  int64_t partialEarlyCycles = 0; ///< > 0: the partial leaves 4706 this much before the sums
  int64_t ownWaitCycles = 0;      ///< > 0: the own sums wait this long for the partial
};
KernelTileTiming kernelTileTiming(const KernelTile& t, const StreamConfig& c,
                                  int64_t inputStartCycle, int64_t latencyPositions,
                                  int64_t cyclesPerPosition, int64_t partialStartCycle);

/// When aux tile \p t's output set starts, given its inputs' starts (\p auxStartCycle unused
/// without an aux input), the input rate and the patch stage's retiming delay: the FIFOs, then
/// adder 4904 or mux 4912/4913 (both inputs present), the requantizer and LUT 4906, the patch
/// function 5002. A tile that does none of those (a bypass or alignment FIFO) still registers its
/// output once: one bus hop.
int64_t auxTileStartCycle(const AuxTile& t, const StreamConfig& c, int64_t primaryStartCycle,
                          int64_t auxStartCycle, int64_t cyclesPerPosition,
                          int64_t patchDelayCycles);

/// A set arriving from outside (the primary input) or leaving (primary output mux 4412).
struct OutputSelect {
  ir::ValueId value = ir::kNoValue;
  std::vector<BusRef> sets; ///< in channel order
};

enum class LayerKind {
  Tiles,         ///< runs on kernel and/or aux tiles
  View,          ///< a reshape: no data moves
  OutputCircuit, ///< computed by the primary output circuit 4413 (e.g. a final Softmax)
};

/// The program-level view of one model layer (what `nnaccel map` prints and the report rows).
struct Layer {
  std::string name;
  LayerKind kind = LayerKind::Tiles;
  std::string op;
  ir::NodeId node = -1;
  std::vector<ir::ValueId> inputs, outputs; ///< computed values read and written
  std::string note;
  StreamFormat in, out;             ///< formats of input 0 and the output
  std::vector<int64_t> kernelTiles; ///< indices into Program::kernelTiles
  std::vector<int64_t> auxTiles;    ///< indices into Program::auxTiles
  std::vector<BusRef> outSets;      ///< where its output lives
  int64_t usefulMacs = 0;           ///< the model's MACs for this layer
  int64_t issuedMacs = 0;           ///< multiplies the tiles perform per frame
  int64_t discardedMacs = 0;        ///< of those, at positions a later Sample discards
  int64_t latencyPositions = 0;     ///< compiler's figure: input (i, j) -> output (i, j)
  int64_t fifoValues = 0;           ///< values held in this layer's FIFOs
  /// The output tensor's layout is NHWC, the stream's own order (a table applied to an NHWC
  /// input before its Transpose to NCHW), rather than NCHW.
  bool outPixelMajor = false;
};

struct Program {
  StreamConfig config;
  std::string model;
  StreamFormat input; ///< the primary input stream
  ir::ValueId inputValue = ir::kNoValue;
  /// The input value is NHWC ([1, H, W, C], read through a Transpose to NCHW): its data is
  /// already the pixel stream's order (each pixel's channels in turn).
  bool inputPixelMajor = false;
  std::vector<BusRef> inputSets;       ///< slots of the primary input bus
  std::vector<KernelTile> kernelTiles; ///< in placement (and evaluation) order per row
  std::vector<AuxTile> auxTiles;
  std::vector<Layer> layers;
  std::vector<OutputSelect> outputs; ///< primary output mux 4412
  int64_t rowsUsed = 0;              ///< kernel-tile rows used, over all chips
  int64_t chipsUsed = 1;
};

} // namespace nnaccel::arch::stream
