/// \file
/// State shared by the stream compiler's passes (private to src/arch/stream): the Placer that
/// owns the chip's rows, tiles and bus slots, and the Mapper that lowers the graph onto them.
/// Compiler.cpp drives the Mapper; its members are defined by concern in Placement.cpp (rows,
/// bypasses, graph input and outputs), StreamTiming.cpp (set timing and FIFOs), ConvMapping.cpp
/// (convolution and dense layers: composite kernels and ganging), TransposeLowering.cpp
/// (ConvTranspose as stride phases), AuxLowering.cpp (pooling, sampling, LUTs, adds, set
/// merging) and ConcatLowering.cpp (concatenation and channel slices).
#pragma once

#include "nnaccel/arch/common/Lowering.h"
#include "nnaccel/arch/stream/Compiler.h"
#include "nnaccel/arch/stream/Patch.h"
#include "nnaccel/ir/OpParams.h"
#include "nnaccel/quant/ElementFunction.h"
#include "nnaccel/quant/Int8Executor.h"
#include "nnaccel/support/IntMath.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace nnaccel::arch::stream::detail {

/// The most chips a placement may take: a model that outgrows the run's chips is placed on up
/// to this many so that the error can say what it needs.
inline constexpr int64_t kProbeChips = 4096;

/// Timing of one set: the cycle its frame-0 position 0 leaves its tile (may be virtual, i.e.
/// negative, for block partials whose first positions are windows wholly above the array).
struct SetTiming {
  int64_t startCycle = 0;
};

/// A value on the chip: its format and where each of its sets is.
struct Placed {
  StreamFormat format;
  std::vector<BusRef> sets;
  std::vector<SetTiming> timing; ///< per set
  bool partialSums = false;      ///< int32 partial sums (not yet requantized)
  /// Per set: the aux tile writing it, when a later LUT or patch function may still be folded
  /// into that tile (-1: not foldable).
  std::vector<int64_t> producerAux;
  /// A Flatten/Reshape of a frame into a vector: consumers see the frame (a Dense is a
  /// convolution with the whole frame as its kernel, Fig. 27B).
  bool flattenedFrame = false;
  /// A Transpose of the frame to NHWC, and Reshapes of it: the stream's own order (positions,
  /// each with its channels). Only views and the graph outputs may read it.
  bool pixelMajor = false;
};

/// Who drives a bus slot.
struct SlotOwner {
  bool kernel = false;
  int64_t index = 0; ///< kernel-tile or aux-tile index within the row
};

/// The chip's rows, tiles and bus slots: hands out tiles left to right and row by row and
/// enforces the forward-only rule. A placement may outgrow the run's chips, up to its capacity
/// (kProbeChips, or the run's chips when more): fits() then says so, and the compiler reports
/// what the model needs. Only a placement beyond the capacity is an error here.
class Placer {
public:
  Placer(Program& p, const StreamConfig& c, int64_t chips) : p_(p), c_(c), chips_(chips) {}

  /// The chips the placement may take at most.
  int64_t capacityChips() const { return std::max(chips_, kProbeChips); }
  int64_t totalRows() const { return c_.rows * capacityChips(); }
  int64_t rowTiles(int64_t row) const { return c_.tilesInRow(row % c_.rows); }
  int64_t rowAux(int64_t row) const { return c_.auxTilesInRow(row % c_.rows); }
  /// True while the rows in use are within the run's chips.
  bool fits() const { return rowsUsed_ <= c_.rows * chips_; }
  /// The chips the placement is held to: the run's while it fits them, else its capacity.
  int64_t chipsInUse() const { return fits() ? chips_ : capacityChips(); }

  /// The next kernel tile, left to right and row by row (its index in Program::kernelTiles).
  size_t newKernelTile(const std::string& layer);
  /// An unused kernel tile of row \p row (the leftmost one right of those in use), if any.
  std::optional<size_t> spareKernelTile(int64_t row, const std::string& layer);
  /// Moves the kernel-tile cursor to the start of row \p row unless it is there or beyond.
  void advanceToRow(int64_t row);
  /// A new aux tile in row \p row or the first later row with one free (its index in
  /// Program::auxTiles).
  size_t newAuxTile(int64_t row, const std::string& layer);
  int64_t auxUsed(int64_t row) const;
  int64_t kernelUsed(int64_t row) const;
  /// True when a tile of \p row (a kernel tile at \p kernelIndex, or an aux tile when
  /// kernelIndex < 0) can read \p src directly.
  bool readable(BusRef src, int64_t row, int64_t kernelIndex) const;
  /// The last row whose tiles are in use.
  int64_t rowsUsed() const { return rowsUsed_; }

private:
  /// Throws the "does not fit" error (naming the capacity) when \p row is beyond it.
  void need(int64_t row, const char* what) const;
  /// Kernel tile \p index of row \p row for \p layer, recorded as in use.
  size_t claimKernelTile(int64_t row, int64_t index, const std::string& layer);

  Program& p_;
  const StreamConfig& c_;
  int64_t chips_;
  int64_t cursorRow_ = 0, cursorIndex_ = 0;
  std::map<int64_t, int64_t> auxUsed_, kernelUsed_;
  std::map<std::pair<int64_t, int64_t>, SlotOwner> owners_;
  int64_t rowsUsed_ = 0;
};

/// The lookup table of an int8 -> int8 function.
template <typename F> std::array<int8_t, 256> makeLut(F f) {
  std::array<int8_t, 256> lut{};
  for (int32_t q = quant::kInt8Min; q <= quant::kInt8Max; ++q)
    lut[static_cast<size_t>(q + 128)] = static_cast<int8_t>(f(q));
  return lut;
}

/// \p outer applied after \p inner.
std::array<int8_t, 256> composeLuts(const std::array<int8_t, 256>& inner,
                                    const std::array<int8_t, 256>& outer);

/// Lookup tables for a value's channels: one for all, or one per channel (a per-channel
/// constant operand, a PRelu's slopes, a standalone BatchNormalization).
using ChannelLuts = std::vector<std::array<int8_t, 256>>;

/// \p tables (one, or one per channel of aux tile \p t's set) applied after the tile's LUT
/// stage: composed with the table(s) already there, or set when the stage was unused.
void appendLut(AuxTile& t, const ChannelLuts& tables);

/// A convolution or dense layer as the kernel tiles see it.
struct ConvSpec {
  ir::NodeId id = -1;
  std::string name;
  int64_t inChannels = 0, outChannels = 0, group = 1;
  int64_t kh = 1, kw = 1;
  int64_t strideY = 1, strideX = 1;
  int64_t padTop = 0, padLeft = 0;
  int64_t outH = 0, outW = 0;
  /// The kernel element on the output position; -1: the centre (below/right for even sizes).
  int64_t anchorRow = -1, anchorCol = -1;
  /// A dilated kernel: kh x kw is its dilated extent, with taps every dilation cells.
  int64_t dilationY = 1, dilationX = 1;
  /// weight(m, c-in-group, ky, kx)
  std::function<int8_t(int64_t, int64_t, int64_t, int64_t)> weight;
  std::vector<int32_t> bias;
  std::vector<quant::QuantMultiplier> multipliers;
  std::optional<common::FusedClamp> clamp;
  ir::ValueId input = ir::kNoValue, output = ir::kNoValue;
};

/// What every tile of one convolution shares: its input stream, the kernel's blocks and anchor,
/// the input sets' channel ranges, and the layer being built.
struct ConvPlan {
  const ConvSpec* spec = nullptr;
  Placed in;
  FrameShape frame;
  int64_t cyclesPerPosition = 1;
  /// The kernel element on the output position (below/right of centre for even sizes).
  int64_t anchorRow = 0, anchorCol = 0;
  /// The layer's output (oy, ox) is the "same" stream's (strideY*oy + offY, ...).
  int64_t offY = 0, offX = 0;
  bool needSample = false;
  int64_t pairsPerPosition = 1; ///< group pairs a tile applies per position
  StreamFormat out;
  /// Input set s carries channels [setFirstChannel[s], setFirstChannel[s + 1]).
  std::vector<int64_t> setFirstChannel;
  int64_t inChannelsPerGroup = 1, outChannelsPerGroup = 1;
  std::vector<std::pair<int64_t, int64_t>> rowBlocks, colBlocks;
  size_t layer = 0;

  /// False for the group pairs of a grouped or depthwise convolution with no weights.
  bool connected(int64_t in0, int64_t in1, int64_t out0, int64_t out1) const;
};

/// One output set's channels [oc0, oc1): its 16-channel groups and the input groups a tile
/// takes at a time.
struct ConvOutSet {
  int64_t oc0 = 0, oc1 = 0;
  int64_t outGroups = 0, chunk = 1;
};

/// One kernel tile's share of a convolution: kernel block (r0, h) x (q0, w) of input set `set`
/// (channels [ic0, ic1)), its groups [g0, g1), i.e. channels [cin0, cin1).
struct ConvTileShare {
  int64_t r0 = 0, h = 1, q0 = 0, w = 1;
  size_t set = 0;
  int64_t ic0 = 0, ic1 = 0, g0 = 0, g1 = 0, cin0 = 0, cin1 = 0;
};

/// The end of a chain of kernel tiles (or of a vertical sum): its set, when its first position
/// appears, and its latency in input positions.
struct ChainEnd {
  BusRef set;
  int64_t startCycle = 0;
  int64_t latencyPositions = 0;
};

/// One piece of a concatenation's output set: lanes [lane0, lane0 + lanes) of set `set` of
/// input `part`.
struct ConcatPiece {
  size_t part = 0, set = 0;
  int64_t lane0 = 0, lanes = 0;
};

/// A concatenation input's requantization onto the output's scale and zero point (an int8 LUT:
/// requantizeTo(q - zIn, m, zOut)).
struct ConcatRescale {
  quant::QuantMultiplier m;
  int32_t zIn = 0, zOut = 0;
  /// The model's rescale table for this input (quant::QuantNode::inputTables), which the LUT
  /// then holds instead of requantizing by m; empty if none
  std::vector<int8_t> table;
};

/// A concatenation's output set after packing: a whole input set passed on, or the output of
/// a chain of concat muxes.
struct ConcatSet {
  BusRef set;
  std::optional<ConcatRescale> rescale; ///< a passed-on set still to rescale
  int64_t mux = -1;                     ///< the last concat mux tile, if any
};

/// Walks the graph in topological order and lowers each node onto tiles through the Placer,
/// tracking for every value where its sets are on the buses and when its first position
/// appears (the stream timing the alignment FIFOs are sized from).
class Mapper {
public:
  Mapper(const quant::QuantizedModel& qm, const StreamConfig& config, int64_t chips);

  /// The whole program; its rowsUsed may exceed the run's chips (the caller reports it).
  Program run();

private:
  // ---- graph input and outputs, placement helpers (Placement.cpp) ----------------------------
  void mapInput();
  ir::NodeId nhwcInputTranspose(ir::ValueId v, std::set<ir::ValueId>& chain) const;
  void mapOutputs();
  StreamFormat formatFor(FrameShape f, int64_t cyclesPerPosition) const;
  int64_t canonicalTm(int64_t channels, int64_t cyclesPerPosition) const;
  const Placed& at(ir::ValueId v, ir::ValueId forWhat) const;
  BusRef bringTo(BusRef src, int64_t row, int64_t kernelIndex, const std::string& layer);
  BusRef bypassRow(BusRef cur, int64_t row, int64_t target, const std::string& layer);
  bool carriesPartialSums(BusRef s) const;
  AuxTile& aux(size_t i) { return program_.auxTiles[i]; }
  size_t newAuxFor(size_t li, int64_t row, BusRef primary, const BusRef* auxIn);
  void appendAuxSet(Placed& out, size_t ti, int64_t startCycle, bool foldable);

  // ---- set timing and FIFOs (StreamTiming.cpp) -----------------------------------------------
  int64_t planAux(size_t ti, int64_t P, int64_t patchDelayCycles = 0) const;
  int64_t channelsOfSet(BusRef s) const;
  int64_t startOf(BusRef s) const;
  void noteSet(BusRef s, int64_t channels, int64_t startCycle);
  void checkAuxFifos(size_t li, const AuxTile& t) const;
  void alignOperands(size_t li, AuxTile& t, int64_t P);
  static int64_t retimeDelayCycles(AuxFunction fn, const PatchWindow& w, const FrameShape& f,
                                   int64_t P, int64_t Pout);

  // ---- dispatch and views (Compiler.cpp) -----------------------------------------------------
  void lowerNode(ir::NodeId id);
  void lowerView(ir::NodeId id);
  bool isPixelMajorTranspose(ir::NodeId id) const;
  Layer& addLayer(ir::NodeId id, std::string note);
  std::optional<ir::NodeId> soleConsumer(ir::ValueId v) const;

  // ---- convolution and dense (ConvMapping.cpp) -----------------------------------------------
  void lowerConv(ir::NodeId id);
  void lowerDense(ir::NodeId id);
  void lowerConvTranspose(ir::NodeId id); // TransposeLowering.cpp
  void mapFusedConv(ConvSpec s);
  void mapConv(const ConvSpec& s);
  ConvPlan planConv(const ConvSpec& s);
  ConvOutSet convOutSet(const ConvPlan& plan, int64_t o) const;
  void mapConvOutSet(const ConvPlan& plan, int64_t o, Placed& out);
  ChainEnd mapBlockRow(const ConvPlan& plan, const ConvOutSet& os, int64_t r0, int64_t h,
                       bool& biasPlaced);
  size_t placeConvTile(const ConvPlan& plan, const ConvOutSet& os, const ConvTileShare& sh);
  void fillConvWeights(const ConvPlan& plan, const ConvOutSet& os, const ConvTileShare& sh,
                       KernelTile& t) const;
  void anchorConvTile(const ConvPlan& plan, const ConvOutSet& os, const ConvTileShare& sh,
                      KernelTile& t, bool& biasPlaced) const;
  int64_t chainConvTile(const ConvPlan& plan, KernelTile& t, int64_t lat, const ChainEnd& chain,
                        int64_t prevRow);
  std::pair<ChainEnd, size_t> sumBlockRows(const ConvPlan& plan, const ConvOutSet& os,
                                           const ChainEnd& upper, const ChainEnd* lower, bool last);
  Placed sampleConvOutput(const ConvPlan& plan, const Placed& out);

  // ---- aux-tile functions (AuxLowering.cpp) --------------------------------------------------
  /// \p averageZero: an Average or GlobalAverage's input and output zero points.
  Placed applyPatch(size_t li, const Placed& in, AuxFunction fn, const PatchWindow& w,
                    std::vector<quant::CountMultiplier> counts, bool fuse,
                    quant::ZeroPoints averageZero = {});
  size_t patchTileFor(size_t li, const Placed& in, size_t si, bool fuse);
  bool isRagged(const Placed& p) const;
  Placed mergeSets(size_t li, Placed in, int64_t tm);
  void lowerPool(ir::NodeId id);
  PatchWindow poolWindow(ir::NodeId id, const ir::PoolParams& pp, const FrameShape& f) const;
  void lowerExpand(ir::NodeId id);
  void checkUpsamplingRate(const ir::Node& n, const StreamFormat& in, int64_t fr, int64_t fc,
                           const char* unit) const;
  void lowerInterpolate(ir::NodeId id);
  void placeUpsampling(ir::NodeId id, const Placed& in, AuxFunction fn, const PatchWindow& w);
  void lowerLut(ir::NodeId id, const ChannelLuts& tables, ir::ValueId source, bool alone);
  void foldLut(size_t li, ir::NodeId id, size_t producer, const ChannelLuts& tables,
               const Placed& in, Placed& out, size_t si);
  void lowerChannelLookup(ir::NodeId id);
  bool isOutputFunction(ir::NodeId id) const;
  void lowerOutputFunction(ir::NodeId id);
  void lowerAdd(ir::NodeId id);
  void lowerPair(ir::NodeId id);
  void combineStreams(ir::NodeId id, Placed a, Placed b, bool padded, std::string note,
                      const std::function<void(AuxTile&)>& configure,
                      const std::function<void(AuxTile&)>& configureLone = {});
  void checkAddFrames(const ir::Node& n, const Placed& a, const Placed& b, bool padded) const;
  void checkAddSets(const ir::Node& n, const Placed& a, const Placed& b, bool padded,
                    int64_t T) const;
  bool fusePaddingIntoAdd(ir::NodeId id);

  // ---- channel scale (ScaleLowering.cpp) -----------------------------------------------------
  std::optional<size_t> channelScaleFrame(ir::NodeId id) const;
  void lowerScale(ir::NodeId id, size_t xi);
  std::pair<size_t, int64_t> vectorSetOf(const ir::Node& n, const Placed& s, int64_t c0,
                                         int64_t channels) const;
  void latchVector(size_t li, AuxTile& t, int64_t P, int64_t period);

  // ---- element-wise chains as one LUT (ChainLowering.cpp) ------------------------------------
  void planElementChains();
  bool lowerElementChain(ir::NodeId id);

  // ---- concatenation (ConcatLowering.cpp) ----------------------------------------------------
  void lowerConcat(ir::NodeId id);
  void lowerSlice(ir::NodeId id);
  std::vector<Placed> concatInputs(ir::NodeId id, int64_t& T);
  std::optional<int64_t> zeroOperandChannels(ir::ValueId v) const;
  Placed zeroChannels(size_t li, const std::vector<Placed>& parts, int64_t channels, int64_t T);
  std::vector<std::vector<ConcatPiece>> concatPieces(const std::vector<Placed>& parts,
                                                     int64_t outSets, int64_t perSet,
                                                     bool ragged) const;
  ConcatSet packConcatSet(size_t li, ir::NodeId id, const std::vector<Placed>& parts,
                          const std::vector<ConcatPiece>& ps, const StreamFormat& out, int64_t T);
  BusRef prepareConcatPiece(size_t li, BusRef src, const ConcatPiece& pc,
                            const std::optional<ConcatRescale>& rescale, const StreamFormat& out);
  std::optional<ConcatRescale> concatRescale(ir::NodeId id, size_t part) const;
  void alignConcatSets(size_t li, const std::vector<ConcatSet>& built, int64_t P, Placed& out);

  const quant::QuantizedModel& qm_;
  const ir::Graph& g_;
  const StreamConfig& c_;
  Program program_;
  Placer placer_;
  std::set<ir::NodeId> consumed_;
  std::set<ir::ValueId> nhwcChain_; ///< NHWC values between the input and inputTranspose_
  ir::NodeId inputTranspose_ = -1;  ///< an NHWC input's Transpose to NCHW: a view
  std::map<ir::ValueId, Placed> placed_;
  /// Channel padding fused into its Add (fusePaddingIntoAdd): padded value -> unpadded stream.
  std::map<ir::ValueId, ir::ValueId> paddedOf_;
  std::map<ir::ValueId, ir::ValueId> outputFunctions_;
  /// Per ValueId: its int8 function of an upstream stream (quant/ElementFunction.h).
  std::vector<std::optional<quant::ElementFunction>> functions_;
  std::set<ir::NodeId> chainInterior_;                       ///< nodes inside a chain
  std::map<ir::ValueId, std::vector<ir::NodeId>> chainEnds_; ///< by source: chains' last nodes
  std::map<size_t, size_t> auxLayer_; ///< aux tile -> the layer that created it
  std::map<std::tuple<int64_t, int64_t, int64_t>, BusRef> bypasses_;
  std::map<std::pair<int64_t, int64_t>, int64_t> setChannels_;
  std::map<std::pair<int64_t, int64_t>, int64_t> setStart_;
};

} // namespace nnaccel::arch::stream::detail
