/// \file
/// The stream compiler (Compiler.h): model graph -> ASIC configuration. A Placer owns the chip's
/// rows, tiles and bus slots and enforces the forward-only rule; a Mapper walks the graph in
/// topological order and lowers each node onto tiles through the Placer, tracking for every
/// value where its sets are on the buses and when its first position appears (the stream
/// timing the alignment FIFOs are sized from).
#include "nnaccel/arch/stream/Compiler.h"

#include "nnaccel/arch/common/Lowering.h"
#include "nnaccel/arch/stream/Patch.h"
#include "nnaccel/ir/OpParams.h"
#include "nnaccel/quant/Int8Executor.h"
#include "nnaccel/support/Error.h"

#include <algorithm>
#include <bit>
#include <fmt/format.h>
#include <functional>
#include <map>
#include <optional>
#include <set>

namespace nnaccel::arch::stream {

std::vector<std::pair<int64_t, int64_t>> kernelBlocks(int64_t k) {
  NNACCEL_ASSERT(k >= 1) << "kernel extent " << k;
  const int64_t n = (k + 2) / 3;
  std::vector<std::pair<int64_t, int64_t>> blocks;
  if (n == 1)
    return {{0, k}};
  // The first block is a full 3; the rest share k - 3 as evenly as possible, larger first
  // (5: 3+2, 7: 3+2+2, 9: 3+3+3, 11: 3+3+3+2).
  blocks.emplace_back(0, 3);
  const int64_t rest = k - 3, m = n - 1;
  int64_t at = 3;
  for (int64_t i = 0; i < m; ++i) {
    const int64_t len = rest / m + (i < rest % m ? 1 : 0);
    blocks.emplace_back(at, len);
    at += len;
  }
  return blocks;
}

int64_t blockLatencyPositions(int64_t r0, int64_t h, int64_t q0, int64_t w, int64_t ay, int64_t ax,
                              int64_t cols) {
  return (r0 + h - 1 - ay) * cols + (q0 + w - 1 - ax);
}

namespace {

int64_t ceilDiv(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}

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
};

/// Who drives a bus slot.
struct SlotOwner {
  bool kernel = false;
  int64_t index = 0; ///< kernel-tile or aux-tile index within the row
};

class Placer {
public:
  Placer(Program& p, const StreamConfig& c, int64_t chips) : p_(p), c_(c), chips_(chips) {}

  int64_t totalRows() const { return c_.rows * chips_; }
  int64_t rowTiles(int64_t row) const { return c_.tilesInRow(row % c_.rows); }
  int64_t rowAux(int64_t row) const { return c_.auxTilesInRow(row % c_.rows); }

  /// The next kernel tile, left to right and row by row (its index in Program::kernelTiles).
  size_t newKernelTile(const std::string& layer) {
    while (cursorRow_ < totalRows() && cursorIndex_ >= rowTiles(cursorRow_)) {
      ++cursorRow_;
      cursorIndex_ = 0;
    }
    need(cursorRow_, "kernel tiles");
    KernelTile t;
    t.row = cursorRow_;
    t.index = cursorIndex_++;
    t.layer = layer;
    t.outSlot = t.index;
    owners_[{t.row, t.outSlot}] = SlotOwner{true, t.index};
    rowsUsed_ = std::max(rowsUsed_, t.row + 1);
    p_.kernelTiles.push_back(std::move(t));
    return p_.kernelTiles.size() - 1;
  }

  /// Moves the kernel-tile cursor to the start of row \p row unless it is there or beyond.
  void advanceToRow(int64_t row) {
    if (cursorRow_ < row) {
      cursorRow_ = row;
      cursorIndex_ = 0;
    }
  }

  /// A new aux tile in row \p row or the first later row with one free (its index in
  /// Program::auxTiles).
  size_t newAuxTile(int64_t row, const std::string& layer) {
    while (row < totalRows() && auxUsed(row) >= rowAux(row))
      ++row;
    need(row, "auxiliary tiles");
    AuxTile t;
    t.row = row;
    t.index = auxUsed_[row]++;
    t.layer = layer;
    t.outSlot = rowTiles(row) + t.index;
    owners_[{t.row, t.outSlot}] = SlotOwner{false, t.index};
    rowsUsed_ = std::max(rowsUsed_, row + 1);
    p_.auxTiles.push_back(std::move(t));
    return p_.auxTiles.size() - 1;
  }
  int64_t auxUsed(int64_t row) const {
    auto it = auxUsed_.find(row);
    return it == auxUsed_.end() ? 0 : it->second;
  }

  /// True when a tile of \p row (a kernel tile at \p kernelIndex, or an aux tile when
  /// kernelIndex < 0) can read \p src directly.
  bool readable(BusRef src, int64_t row, int64_t kernelIndex) const {
    if (src.bus == row - 1)
      return true;
    if (src.bus != row)
      return false;
    if (kernelIndex < 0)
      return true; // aux tiles sit right of the row's kernel tiles; placed after the producer
    auto it = owners_.find({src.bus, src.slot});
    NNACCEL_ASSERT(it != owners_.end()) << "no owner for bus " << src.bus << " slot " << src.slot;
    return it->second.kernel && it->second.index < kernelIndex;
  }

  /// The last row whose tiles are in use.
  int64_t rowsUsed() const { return rowsUsed_; }

  void need(int64_t row, const char* what) const {
    if (row < totalRows())
      return;
    throw Error(ErrorKind::Config, ErrorContext{.key = "kernel_tiles.rows"},
                fmt::format("model '{}' does not fit: it needs more {} than {} chip(s) of {} "
                            "rows ({} kernel tiles, {} aux tiles per chip) have{}",
                            p_.model, what, chips_, c_.rows, c_.kernelTileCount(),
                            c_.auxTileCount(),
                            fitHint_.empty() ? "" : fmt::format("; {}", fitHint_)));
  }
  void setFitHint(std::string h) { fitHint_ = std::move(h); }

private:
  Program& p_;
  const StreamConfig& c_;
  int64_t chips_;
  int64_t cursorRow_ = 0, cursorIndex_ = 0;
  std::map<int64_t, int64_t> auxUsed_;
  std::map<std::pair<int64_t, int64_t>, SlotOwner> owners_;
  int64_t rowsUsed_ = 0;
  std::string fitHint_;
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
                                    const std::array<int8_t, 256>& outer) {
  return makeLut([&](int32_t q) {
    return outer[static_cast<size_t>(inner[static_cast<size_t>(q + 128)] + 128)];
  });
}

class Mapper {
public:
  Mapper(const quant::QuantizedModel& qm, const StreamConfig& config, int64_t chips)
      : qm_(qm), g_(qm.graph), c_(config), placer_(program_, config, chips), chips_(chips) {
    program_.config = config;
    program_.model = g_.name;
  }

  Program run() {
    mapInput();
    common::forEachLoweredNode(qm_, consumed_, [&](ir::NodeId id) { lowerNode(id); });
    mapOutputs();
    program_.rowsUsed = placer_.rowsUsed();
    program_.chipsUsed = std::max<int64_t>(1, ceilDiv(placer_.rowsUsed(), c_.rows));
    return std::move(program_);
  }

private:
  // ---- graph input and outputs -------------------------------------------------------------

  void mapInput() {
    if (g_.inputs.size() != 1)
      throw Error(ErrorKind::Unsupported, ErrorContext{},
                  fmt::format("model '{}' has {} inputs; the stream ASIC has one input bus",
                              g_.name, g_.inputs.size()));
    const ir::ValueId v = g_.inputs[0];
    const Dims& s = g_.value(v).shape;
    if (s.size() != 4 || s[0] != 1)
      throw Error(ErrorKind::Unsupported, ErrorContext{.node = g_.value(v).name},
                  fmt::format("input '{}' has shape {}; the stream ASIC streams one NCHW image "
                              "(batch 1) in raster order",
                              g_.value(v).name, dimsToString(s)));
    Placed p;
    p.format = formatFor(FrameShape{s[2], s[3], s[1]}, 1);
    if (p.format.sets() > c_.inputBusSets)
      throw Error(ErrorKind::Config, ErrorContext{.key = "external.input_sets"},
                  fmt::format("input '{}' has {} channels: {} sets of {} lanes, but the input "
                              "bus carries {}",
                              g_.value(v).name, s[1], p.format.sets(), c_.lanes, c_.inputBusSets));
    for (int64_t i = 0; i < p.format.sets(); ++i) {
      p.sets.push_back(BusRef{-1, i});
      p.timing.push_back(SetTiming{0});
      p.producerAux.push_back(-1);
      noteSet(
          p.sets.back(),
          std::min(p.format.frame.channels - i * c_.lanes * p.format.tm, c_.lanes * p.format.tm),
          0);
    }
    program_.input = p.format;
    program_.inputValue = v;
    program_.inputSets = p.sets;
    placed_[v] = std::move(p);
  }

  void mapOutputs() {
    // Claim 1: the last bus reaches the primary output through one mux (4412).
    const int64_t lastBus = std::max<int64_t>(0, placer_.rowsUsed() - 1);
    for (ir::ValueId v : g_.outputs) {
      ir::ValueId src = v;
      auto out = outputFunctions_.find(v);
      if (out != outputFunctions_.end())
        src = out->second;
      const Placed& p = at(src, v);
      OutputSelect o;
      o.value = src;
      for (const BusRef& s : p.sets)
        o.sets.push_back(bringTo(s, lastBus + 1, -1, "primary output"));
      if (static_cast<int64_t>(o.sets.size()) > c_.primaryOutputSets * chips_)
        throw Error(ErrorKind::Config, ErrorContext{.key = "external.primary_output_sets"},
                    fmt::format("output '{}' has {} sets; the primary output mux selects {}",
                                g_.value(v).name, o.sets.size(), c_.primaryOutputSets * chips_));
      program_.outputs.push_back(std::move(o));
    }
  }

  // ---- formats and placement helpers -----------------------------------------------------

  StreamFormat formatFor(FrameShape f, int64_t cyclesPerPosition) const {
    StreamFormat s;
    s.frame = f;
    s.lanes = c_.lanes;
    s.cyclesPerPosition = cyclesPerPosition;
    s.tm = canonicalTm(f.channels, cyclesPerPosition);
    return s;
  }

  /// T for \p channels at \p cyclesPerPosition (§8.4): as many 16-channel groups per lane as
  /// the position's cycles and the weight store allow, rounded to a power of two so that the
  /// alternating mux (4913, halving the sets per step) reaches it from any smaller T:
  /// min(floor2(min(P, pairs)), ceil2(groups)).
  int64_t canonicalTm(int64_t channels, int64_t cyclesPerPosition) const {
    const auto floor2 = [](int64_t v) { return std::bit_floor(static_cast<uint64_t>(v)); };
    const auto ceil2 = [](int64_t v) { return std::bit_ceil(static_cast<uint64_t>(v)); };
    const int64_t cap = std::max<int64_t>(1, std::min(cyclesPerPosition, c_.weightStorePairs));
    return static_cast<int64_t>(
        std::min(floor2(cap), ceil2(std::max<int64_t>(1, ceilDiv(channels, c_.lanes)))));
  }

  const Placed& at(ir::ValueId v, ir::ValueId forWhat) const {
    auto it = placed_.find(v);
    if (it == placed_.end())
      throw Error(ErrorKind::Unsupported, ErrorContext{.node = g_.value(forWhat).name},
                  fmt::format("value '{}' is not a stream on the chip (a graph constant or an "
                              "unsupported producer)",
                              g_.value(v).name));
    return it->second;
  }

  /// \p src made readable by a tile of \p row (kernel tile at \p kernelIndex, or aux when < 0),
  /// through bypass aux tiles in the rows between (cached: one bypass per set and row).
  BusRef bringTo(BusRef src, int64_t row, int64_t kernelIndex, const std::string& layer) {
    NNACCEL_ASSERT(src.bus <= row) << "set on bus " << src.bus << " read from row " << row;
    if (placer_.readable(src, row, kernelIndex))
      return src;
    if (src.bus == row) // an aux tile's set read by a kernel tile of its own row: not allowed
      return src;       // (callers move to the next row first)
    BusRef cur = src;
    for (int64_t r = src.bus + 1; r < row; ++r) {
      auto key = std::make_tuple(src.bus, src.slot, r);
      auto it = bypasses_.find(key);
      if (it != bypasses_.end()) {
        cur = it->second;
        continue;
      }
      const size_t ti = placer_.newAuxTile(r, layer);
      AuxTile& t = program_.auxTiles[ti];
      if (t.row != r)
        throw Error(ErrorKind::Config, ErrorContext{.key = "aux_tiles.tiles_per_row"},
                    fmt::format("layer '{}': row {} has no auxiliary tile left to carry a set "
                                "down to row {} (bypass); the chip has {} per row: more aux "
                                "tiles per row (e.g. the 'large' preset's 8) would carry it",
                                layer, r, row, placer_.rowAux(r)));
      t.primary = cur;
      t.function = AuxFunction::Bypass;
      t.channels = channelsOfSet(src);
      const int64_t start = planAux(ti, 1); // one registered hop per row
      cur = BusRef{t.row, t.outSlot};
      bypasses_[key] = cur;
      noteSet(cur, t.channels, start);
    }
    return cur;
  }

  /// Aux tile \p ti's output set, first position at \p startCycle, appended to \p out
  /// (\p foldable: a later LUT or patch may still fold into the tile).
  void appendAuxSet(Placed& out, size_t ti, int64_t startCycle, bool foldable) {
    const AuxTile& t = aux(ti);
    const BusRef ref{t.row, t.outSlot};
    noteSet(ref, t.channels, startCycle);
    out.sets.push_back(ref);
    out.timing.push_back(SetTiming{startCycle});
    out.producerAux.push_back(foldable ? static_cast<int64_t>(ti) : -1);
  }

  /// Aux tile \p ti's start by the shared rule (Program.h), from its inputs' planned starts
  /// (\p P: its input's cycles per position; \p patchDelayCycles: its patch stage's retiming).
  int64_t planAux(size_t ti, int64_t P, int64_t patchDelayCycles = 0) const {
    const AuxTile& t = program_.auxTiles[ti];
    return auxTileStartCycle(t, c_, startOf(t.primary), t.hasAux ? startOf(t.aux) : 0, P,
                             patchDelayCycles);
  }

  int64_t channelsOfSet(BusRef s) const {
    auto it = setChannels_.find({s.bus, s.slot});
    NNACCEL_ASSERT(it != setChannels_.end()) << "unknown set " << s.bus << ":" << s.slot;
    return it->second;
  }
  int64_t startOf(BusRef s) const {
    auto it = setStart_.find({s.bus, s.slot});
    NNACCEL_ASSERT(it != setStart_.end()) << "unknown set " << s.bus << ":" << s.slot;
    return it->second;
  }
  void noteSet(BusRef s, int64_t channels, int64_t startCycle) {
    setChannels_[{s.bus, s.slot}] = channels;
    setStart_[{s.bus, s.slot}] = startCycle;
    if (s.bus < 0)
      return;
    // Record the figure on the tile that drives the slot.
    for (KernelTile& t : program_.kernelTiles)
      if (t.row == s.bus && t.outSlot == s.slot)
        t.startCycle = startCycle;
    for (AuxTile& t : program_.auxTiles)
      if (t.row == s.bus && t.outSlot == s.slot)
        t.startCycle = startCycle;
  }

  // ---- lowering -------------------------------------------------------------------------------

  void lowerNode(ir::NodeId id) {
    const ir::Node& n = g_.node(id);
    const quant::QuantNode& q = qm_.node(id);
    if (common::isAliasView(qm_, id))
      return lowerView(id);
    switch (q.kind) {
    case quant::QuantOpKind::Accumulate:
      if (n.op == ir::OpKind::Conv)
        return lowerConv(id);
      if (n.op == ir::OpKind::Gemm || n.op == ir::OpKind::MatMul)
        return lowerDense(id);
      break;
    case quant::QuantOpKind::Clamp:
      return lowerLut(id,
                      makeLut([&](int32_t v) { return std::clamp(v, q.clampMin, q.clampMax); }));
    case quant::QuantOpKind::MaxPool:
    case quant::QuantOpKind::AveragePool:
      return lowerPool(id);
    case quant::QuantOpKind::AddSub:
      if (n.op == ir::OpKind::Add)
        return lowerAdd(id);
      break;
    case quant::QuantOpKind::Concat:
      return lowerConcat(id);
    case quant::QuantOpKind::Gather:
      if (n.op == ir::OpKind::Resize || n.op == ir::OpKind::Upsample)
        return lowerExpand(id);
      break;
    case quant::QuantOpKind::FloatIsland:
      if (isOutputFunction(id))
        return lowerOutputFunction(id);
      if (isUnaryElementwise(id))
        return lowerLut(id, floatIslandLut(id));
      break;
    default:
      break;
    }
    throw Error(ErrorKind::Unsupported,
                ErrorContext{.node = n.name, .op = std::string(ir::opName(n.op))},
                fmt::format("the stream ASIC has no unit for it (kernel tiles: "
                            "convolution and dense; aux tiles: activation LUT, pooling, "
                            "sampling, residual add, concatenation)"));
  }

  void lowerView(ir::NodeId id) {
    const ir::Node& n = g_.node(id);
    const Placed& src = at(n.inputs[0], n.outputs[0]);
    Placed p = src;
    const Dims& s = g_.value(n.outputs[0]).shape;
    // A frame flattened to [1, C*H*W] stays a frame: the Dense that reads it uses the whole
    // frame as its kernel. Other views keep the stream as it is when the shape is NCHW-alike.
    if (s.size() == 2 && src.format.frame.positions() > 1)
      p.flattenedFrame = true;
    p.producerAux.assign(p.sets.size(), -1);
    placed_[n.outputs[0]] = std::move(p);
    addLayer(id, "view of its input: no data moves").kind = LayerKind::View;
  }

  Layer& addLayer(ir::NodeId id, std::string note) {
    Layer l = common::layerForNode<Layer>(g_, id, LayerKind::Tiles);
    l.note = std::move(note);
    program_.layers.push_back(std::move(l));
    return program_.layers.back();
  }

  /// The single consumer of \p v, if it has exactly one and is not a graph output.
  std::optional<ir::NodeId> soleConsumer(ir::ValueId v) const {
    for (ir::ValueId o : g_.outputs)
      if (o == v)
        return std::nullopt;
    const std::vector<ir::NodeId> users = g_.users(v);
    if (users.size() != 1)
      return std::nullopt;
    return users[0];
  }

  // ---- convolution and dense ------------------------------------------------------------------

  struct ConvSpec {
    ir::NodeId id = -1;
    std::string name;
    int64_t inChannels = 0, outChannels = 0, group = 1;
    int64_t kh = 1, kw = 1;
    int64_t strideY = 1, strideX = 1;
    int64_t padTop = 0, padLeft = 0;
    int64_t outH = 0, outW = 0;
    /// weight(m, c-in-group, ky, kx)
    std::function<int8_t(int64_t, int64_t, int64_t, int64_t)> weight;
    std::vector<int32_t> bias;
    std::vector<quant::QuantMultiplier> multipliers;
    std::optional<common::FusedClamp> clamp;
    ir::ValueId input = ir::kNoValue, output = ir::kNoValue;
  };

  void lowerConv(ir::NodeId id) {
    const ir::Node& n = g_.node(id);
    const ir::ConvParams cp = ir::convParams(g_, id);
    if (cp.spatialRank != 2 || cp.batch != 1)
      throw Error(ErrorKind::Unsupported, ErrorContext{.node = n.name, .op = "Conv"},
                  fmt::format("{}-D convolution with batch {}; the ASIC streams 2-D "
                              "frames",
                              cp.spatialRank, cp.batch));
    if (cp.dilations[0] != 1 || cp.dilations[1] != 1)
      throw Error(ErrorKind::Unsupported, ErrorContext{.node = n.name, .op = "Conv"},
                  fmt::format("dilation {}x{}; the ASIC's kernel tiles compose dense "
                              "kernels only",
                              cp.dilations[0], cp.dilations[1]));
    const quant::QuantNode& q = qm_.node(id);
    ConvSpec s;
    s.id = id;
    s.name = n.name;
    s.inChannels = cp.inChannels;
    s.outChannels = cp.outChannels;
    s.group = cp.group;
    s.kh = cp.kernel[0];
    s.kw = cp.kernel[1];
    s.strideY = cp.strides[0];
    s.strideX = cp.strides[1];
    s.padTop = cp.padsBegin[0];
    s.padLeft = cp.padsBegin[1];
    s.outH = cp.outSpatial[0];
    s.outW = cp.outSpatial[1];
    const int8_t* w = q.weights.data<int8_t>();
    const int64_t cg = cp.inChannels / cp.group, kh = s.kh, kw = s.kw;
    s.weight = [=](int64_t m, int64_t c, int64_t ky, int64_t kx) {
      return w[((m * cg + c) * kh + ky) * kw + kx];
    };
    s.bias = q.bias;
    s.multipliers = q.multipliers;
    s.clamp = common::fusedClamp(qm_, id);
    s.input = n.inputs[0];
    s.output = s.clamp ? s.clamp->output : n.outputs[0];
    if (s.clamp)
      consumed_.insert(s.clamp->node);
    mapConv(s);
  }

  void lowerDense(ir::NodeId id) {
    const ir::Node& n = g_.node(id);
    const std::optional<common::FullyConnected> fc = common::fullyConnected(qm_, id);
    if (!fc || fc->rows != 1)
      throw Error(ErrorKind::Unsupported, ErrorContext{.node = n.name},
                  fmt::format("only a dense layer over one vector (batch 1, no "
                              "transA) maps onto the ASIC"));
    const Placed& in = at(n.inputs[0], n.outputs[0]);
    const FrameShape f = in.format.frame;
    if (f.values() != fc->reduction)
      throw Error(ErrorKind::Unsupported, ErrorContext{.node = n.name},
                  fmt::format("dense over {} values but its input stream carries {}", fc->reduction,
                              f.values()));
    const quant::QuantNode& q = qm_.node(id);
    // A dense layer is a convolution whose kernel is the whole frame ("valid": one output
    // position, Fig. 27B); its reduction order (c, h, w) is ONNX Flatten's.
    ConvSpec s;
    s.id = id;
    s.name = n.name;
    s.inChannels = f.channels;
    s.outChannels = fc->columns;
    s.kh = f.rows;
    s.kw = f.cols;
    s.outH = s.outW = 1;
    const common::FullyConnected d = *fc;
    const int64_t h = f.rows, wd = f.cols;
    s.weight = [=](int64_t m, int64_t c, int64_t ky, int64_t kx) {
      return d.weight(m, (c * h + ky) * wd + kx);
    };
    s.bias = q.bias;
    s.multipliers = q.multipliers;
    s.clamp = common::fusedClamp(qm_, id);
    s.input = n.inputs[0];
    s.output = s.clamp ? s.clamp->output : n.outputs[0];
    if (s.clamp)
      consumed_.insert(s.clamp->node);
    mapConv(s);
  }

  /// The end of a chain of kernel tiles (or of a vertical sum): its set, when its first
  /// position appears, and its latency in input positions.
  struct ChainEnd {
    BusRef set;
    int64_t startCycle = 0;
    int64_t latencyPositions = 0;
  };

  AuxTile& aux(size_t i) { return program_.auxTiles[i]; }

  /// A new aux tile for layer \p li in row \p row or later, reading \p primary (and \p auxIn).
  size_t newAuxFor(size_t li, int64_t row, BusRef primary, const BusRef* auxIn) {
    const size_t ti = placer_.newAuxTile(std::max<int64_t>(row, 0), program_.layers[li].name);
    program_.layers[li].auxTiles.push_back(static_cast<int64_t>(ti));
    auxLayer_[ti] = li;
    const int64_t r = aux(ti).row;
    const BusRef p = bringTo(primary, r, -1, program_.layers[li].name);
    aux(ti).primary = p;
    aux(ti).channels = channelsOfSet(primary);
    if (auxIn) {
      aux(ti).aux = bringTo(*auxIn, r, -1, program_.layers[li].name);
      aux(ti).hasAux = true;
    }
    return ti;
  }

  void mapConv(const ConvSpec& s) {
    const Placed in = at(s.input, s.output);
    const StreamFormat& fin = in.format;
    const FrameShape f = fin.frame;
    const int64_t P = fin.cyclesPerPosition;
    if (f.cols > c_.maxArrayWidthPositions)
      throw Error(ErrorKind::Config, ErrorContext{.key = "kernel_tiles.max_array_width"},
                  fmt::format("array width {} exceeds the tiles' row FIFOs ({} "
                              "positions)",
                              f.cols, c_.maxArrayWidthPositions));
    // Anchor: the kernel element on the output position (below/right of centre for even
    // sizes). The "same" stream's output (i, j) is centred on input (i, j); the layer's output
    // (oy, ox) is the same-stream position (strideY*oy - padTop + ay, ...): a Sample picks it.
    const int64_t ay = s.kh / 2, ax = s.kw / 2;
    const int64_t offY = ay - s.padTop, offX = ax - s.padLeft;
    const bool needSample = !(s.strideY == 1 && s.strideX == 1 && offY == 0 && offX == 0 &&
                              s.outH == f.rows && s.outW == f.cols);
    if (needSample) {
      const int64_t lastY = offY + s.strideY * (s.outH - 1),
                    lastX = offX + s.strideX * (s.outW - 1);
      if (offY < 0 || offX < 0 || lastY >= f.rows || lastX >= f.cols)
        throw Error(ErrorKind::Unsupported, ErrorContext{.node = s.name},
                    fmt::format("padding {}x{} with kernel {}x{} puts outputs outside "
                                "the array's \"same\" positions; not mappable by Sample",
                                s.padTop, s.padLeft, s.kh, s.kw));
    }
    const int64_t cap = std::min(P, c_.weightStorePairs); // group pairs a tile applies per position
    const StreamFormat fout = formatFor(FrameShape{f.rows, f.cols, s.outChannels}, P);
    const int64_t To = fout.tm, outSets = fout.sets();
    // The input sets' channel ranges: [16 T s, 16 T (s + 1)) except after a concatenation of
    // inputs that are not whole sets at T > 1, whose sets are ragged (their own channel counts).
    const auto inSets = static_cast<int64_t>(in.sets.size());
    std::vector<int64_t> setFirstChannel(in.sets.size() + 1, 0);
    for (size_t si = 0; si < in.sets.size(); ++si)
      setFirstChannel[si + 1] = setFirstChannel[si] + channelsOfSet(in.sets[si]);
    NNACCEL_ASSERT(setFirstChannel.back() == s.inChannels)
        << s.name << ": sets carry " << setFirstChannel.back() << " channels";
    const int64_t cgIn = s.inChannels / s.group, cgOut = s.outChannels / s.group;
    Layer& layer = addLayer(s.id, "");
    const size_t li = program_.layers.size() - 1;
    layer.outputs = {s.output}; // the fused activation's output when there is one
    layer.in = fin;
    layer.out = fout;
    const int64_t positions = f.positions();
    layer.usefulMacs = s.outH * s.outW * s.outChannels * cgIn * s.kh * s.kw;
    const auto rowBlocks = kernelBlocks(s.kh), colBlocks = kernelBlocks(s.kw);
    for (const auto& [q0, w] : colBlocks)
      if (w > f.cols)
        throw Error(ErrorKind::Unsupported, ErrorContext{.node = s.name},
                    fmt::format("array width {} is narrower than a {}-wide kernel "
                                "block",
                                f.cols, w));
    // Grouped and depthwise convolutions skip the group pairs with no weights.
    auto connected = [&](int64_t in0, int64_t in1, int64_t out0, int64_t out1) {
      for (int64_t gi = in0 / cgIn; gi <= (in1 - 1) / cgIn; ++gi)
        if (gi >= out0 / cgOut && gi <= (out1 - 1) / cgOut)
          return true;
      return false;
    };
    // Kernel tiles start where they can read the input: a set written by an aux tile on bus r
    // is readable by kernel tiles from row r + 1 on.
    int64_t maxBus = -1;
    for (const BusRef& b : in.sets)
      maxBus = std::max(maxBus, b.bus);
    placer_.advanceToRow(maxBus + 1);

    Placed out;
    out.format = fout;
    for (int64_t o = 0; o < outSets; ++o) {
      const int64_t oc0 = o * c_.lanes * To, oc1 = std::min(s.outChannels, oc0 + c_.lanes * To);
      const int64_t outGroupsHere = ceilDiv(oc1 - oc0, c_.lanes);
      const int64_t chunk = std::max<int64_t>(1, cap / outGroupsHere);
      std::vector<ChainEnd> blockRows;
      bool biasPlaced = false; // in the first tile of the anchor's block (a grouped convolution
                               // skips the tiles of unconnected input sets)
      for (const auto& [r0, h] : rowBlocks) {
        std::optional<ChainEnd> chain;
        int64_t prevRow = -1;
        for (const auto& [q0, w] : colBlocks) {
          const int64_t lat = blockLatencyPositions(r0, h, q0, w, ay, ax, f.cols);
          for (int64_t si = 0; si < inSets; ++si) {
            const int64_t ic0 = setFirstChannel[static_cast<size_t>(si)],
                          ic1 = setFirstChannel[static_cast<size_t>(si) + 1];
            const int64_t groupsHere = ceilDiv(ic1 - ic0, c_.lanes);
            for (int64_t g0 = 0; g0 < groupsHere; g0 += chunk) {
              const int64_t g1 = std::min(groupsHere, g0 + chunk);
              const int64_t cin0 = ic0 + g0 * c_.lanes, cin1 = std::min(ic1, ic0 + g1 * c_.lanes);
              if (!connected(cin0, cin1, oc0, oc1))
                continue;
              const size_t ti = placer_.newKernelTile(s.name);
              program_.layers[li].kernelTiles.push_back(static_cast<int64_t>(ti));
              const int64_t row = program_.kernelTiles[ti].row;
              const int64_t index = program_.kernelTiles[ti].index;
              const BusRef input = bringTo(in.sets[static_cast<size_t>(si)], row, index, s.name);
              NNACCEL_ASSERT(placer_.readable(input, row, index))
                  << s.name << ": input set not readable from row " << row;
              KernelTile& t = program_.kernelTiles[ti];
              t.input = input;
              t.inChannels = ic1 - ic0;
              t.outChannels = oc1 - oc0;
              for (int64_t gi = g0; gi < g1; ++gi)
                for (int64_t go = 0; go < outGroupsHere; ++go)
                  if (connected(ic0 + gi * c_.lanes, std::min(ic1, ic0 + (gi + 1) * c_.lanes),
                                oc0 + go * c_.lanes, std::min(oc1, oc0 + (go + 1) * c_.lanes)))
                    t.pairs.push_back(GroupPair{gi, go});
              t.subRows = h;
              t.subCols = w;
              t.inFirstChannel = cin0 - ic0;
              t.inUsedChannels = cin1 - cin0;
              t.weights.assign(static_cast<size_t>(t.outChannels * t.inUsedChannels * h * w), 0);
              for (int64_t m = oc0; m < oc1; ++m)
                for (int64_t c = cin0; c < cin1; ++c) {
                  if (c / cgIn != m / cgOut)
                    continue;
                  for (int64_t y = 0; y < h; ++y)
                    for (int64_t x = 0; x < w; ++x)
                      t.weights[static_cast<size_t>(
                          (((m - oc0) * t.inUsedChannels + (c - cin0)) * h + y) * w + x)] =
                          s.weight(m, c % cgIn, r0 + y, q0 + x);
                }
              // The anchor inside the block when the kernel's anchor is; else its nearest cell,
              // and the outputs relabelled (the windows shifted out lie wholly off the array).
              t.anchorRow = std::clamp<int64_t>(ay - r0, 0, h - 1);
              t.anchorCol = std::clamp<int64_t>(ax - q0, 0, w - 1);
              t.offsetRows = t.anchorRow - (ay - r0);
              t.offsetCols = t.anchorCol - (ax - q0);
              t.bias.assign(static_cast<size_t>(t.outChannels), 0);
              // The bias enters once, in the block holding the anchor: its outputs are never
              // relabelled, so no position loses it.
              if (t.offsetRows == 0 && t.offsetCols == 0 && !biasPlaced) {
                for (int64_t m = oc0; m < oc1; ++m)
                  t.bias[static_cast<size_t>(m - oc0)] = s.bias[static_cast<size_t>(m)];
                biasPlaced = true;
              }
              int64_t start = 0;
              if (!chain) {
                start = kernelTileTiming(t, c_, startOf(t.input), lat, P, 0).startCycle;
              } else {
                // The preceding tile's partial enters the auxiliary input: hard-wired in the
                // row, or through mux 4404 for a row's first tile (Fig. 45 ganging).
                t.aux =
                    prevRow == t.row ? KernelTile::Aux::PreviousTile : KernelTile::Aux::RowAbove;
                NNACCEL_ASSERT(prevRow == t.row || t.index == 0) << "chain broken";
                t.auxInput = chain->set;
                NNACCEL_ASSERT(lat >= chain->latencyPositions) << "chain order";
                // FIFO 4706: the block latencies' difference, corrected by the whole positions
                // the partial would still arrive early (this tile's input came later, through
                // bypasses) or late (the neighbour's own adder and waits).
                t.auxDelayPositions = lat - chain->latencyPositions;
                const KernelTileTiming first =
                    kernelTileTiming(t, c_, startOf(t.input), lat, P, chain->startCycle);
                t.auxDelayPositions =
                    std::max<int64_t>(0, t.auxDelayPositions + first.partialEarlyCycles / P -
                                             first.ownWaitCycles / P);
                if (t.auxDelayPositions > c_.auxFifoPositions)
                  throw Error(ErrorKind::Config,
                              ErrorContext{.key = "kernel_tiles.aux_fifo_positions"},
                              fmt::format("a block needs its neighbour's partial "
                                          "delayed {} positions; FIFO 4706 holds {}",
                                          t.auxDelayPositions, c_.auxFifoPositions));
                const KernelTileTiming k =
                    kernelTileTiming(t, c_, startOf(t.input), lat, P, chain->startCycle);
                // The own sums' wait for a late partial: whole positions held in the output
                // register chain (within one position the sums are simply held).
                program_.layers[li].fifoValues +=
                    (t.auxDelayPositions + k.ownWaitCycles / P) * t.outChannels;
                start = k.startCycle;
              }
              // The row FIFOs 4705 (h - 1 of them in use) hold a row of partial sums each.
              program_.layers[li].fifoValues += (h - 1) * f.cols * t.outChannels;
              program_.layers[li].issuedMacs +=
                  positions * h * w * c_.lanes * c_.lanes * static_cast<int64_t>(t.pairs.size());
              const BusRef outRef{t.row, t.outSlot};
              noteSet(outRef, t.outChannels, start);
              chain = ChainEnd{outRef, start, lat};
              prevRow = t.row;
            }
          }
        }
        NNACCEL_ASSERT(chain.has_value()) << s.name << ": empty chain";
        blockRows.push_back(*chain);
      }
      // Vertical sums of the block rows on aux tiles (adder 4904, FIFO 4902 on the earlier,
      // upper, partial); the last also requantizes and applies the activation LUT.
      auto finish = [&](const ChainEnd& upper, const ChainEnd* lower, bool last) {
        const int64_t row = std::max(upper.set.bus, lower ? lower->set.bus : upper.set.bus);
        const size_t ti = newAuxFor(li, row, upper.set, lower ? &lower->set : nullptr);
        AuxTile& a = aux(ti);
        int64_t lat = upper.latencyPositions;
        if (lower) {
          // FIFO 4902 holds the upper rows' partial (or the alignment FIFO the lower's) until
          // the same position of both is present.
          a.add = AuxAdd::Partial;
          alignOperands(li, a, P);
          lat = lower->latencyPositions;
        }
        if (last) {
          for (int64_t m = oc0; m < oc1; ++m)
            a.requantize.push_back(s.multipliers[static_cast<size_t>(m)]);
          if (s.clamp) {
            const int32_t lo = s.clamp->clampMin, hi = s.clamp->clampMax;
            a.lutEnabled = true;
            a.lut = makeLut([=](int32_t v) { return std::clamp(v, lo, hi); });
          }
        }
        const int64_t start = planAux(ti, P);
        const BusRef ref{a.row, a.outSlot};
        noteSet(ref, a.channels, start);
        return std::make_pair(ChainEnd{ref, start, lat}, ti);
      };
      std::pair<ChainEnd, size_t> acc{blockRows[0], 0};
      if (blockRows.size() == 1)
        acc = finish(blockRows[0], nullptr, true);
      for (size_t r = 1; r < blockRows.size(); ++r)
        acc = finish(acc.first, &blockRows[r], r + 1 == blockRows.size());
      out.sets.push_back(acc.first.set);
      out.timing.push_back(SetTiming{acc.first.startCycle});
      out.producerAux.push_back(static_cast<int64_t>(acc.second));
    }
    program_.layers[li].latencyPositions = blockLatencyPositions(0, s.kh, 0, s.kw, ay, ax, f.cols);
    if (needSample) {
      PatchWindow w;
      w.strideRows = s.strideY;
      w.strideCols = s.strideX;
      w.padTop = offY;
      w.padLeft = offX;
      w.outRows = s.outH;
      w.outCols = s.outW;
      out = applyPatch(li, out, AuxFunction::Sample, w, {}, true);
      // Multiplies at positions the Sample discards.
      Layer& l = program_.layers[li];
      l.discardedMacs = l.issuedMacs - l.issuedMacs / positions * (s.outH * s.outW);
    }
    program_.layers[li].out = out.format;
    program_.layers[li].outSets = out.sets;
    placed_[s.output] = std::move(out);
  }

  // ---- aux-tile functions ---------------------------------------------------------------------

  /// A patch function on every set of \p in for layer \p li: folded into the set's producing
  /// aux tile when \p fuse and that tile's output mux still bypasses, else one new aux tile per
  /// set. Returns the new placement.
  Placed applyPatch(size_t li, const Placed& in, AuxFunction fn, const PatchWindow& w,
                    std::vector<quant::CountMultiplier> counts, bool fuse) {
    const FrameShape f = in.format.frame;
    FrameShape of{w.outRows, w.outCols, f.channels};
    const int64_t P = in.format.cyclesPerPosition;
    // The output rate: the input frame's cycles spread evenly over the output positions.
    const int64_t Pout = std::max<int64_t>(1, P * f.positions() / of.positions());
    Placed out;
    out.format = in.format; // the lanes keep their time multiplexing; each value is held longer
    out.format.frame = of;
    out.format.cyclesPerPosition = Pout;
    const int64_t delay = retimeDelayCycles(fn, w, f, P, Pout);
    for (size_t si = 0; si < in.sets.size(); ++si) {
      const int64_t producer = si < in.producerAux.size() ? in.producerAux[si] : -1;
      size_t ti;
      if (fuse && producer >= 0 &&
          aux(static_cast<size_t>(producer)).function == AuxFunction::Bypass) {
        ti = static_cast<size_t>(producer);
        const size_t pl = auxLayer_.at(ti);
        if (pl != li) { // the producing layer's output continues into this function
          program_.layers[pl].outSets.clear();
          program_.layers[pl].note =
              fmt::format("output mux of its last aux tile runs '{}'", program_.layers[li].name);
          program_.layers[li].auxTiles.push_back(static_cast<int64_t>(ti));
        }
      } else {
        ti = newAuxFor(li, in.sets[si].bus, in.sets[si], nullptr);
      }
      AuxTile& t = aux(ti);
      t.function = fn;
      t.window = w;
      t.averageMultipliers = counts;
      appendAuxSet(out, ti, planAux(ti, P, delay), false);
      // Row FIFOs of the patch (one row of per-column partial results per window row beyond the
      // first) and the output FIFO that spreads the results evenly (its peak: the delay).
      program_.layers[li].fifoValues +=
          ((w.kernelRows - 1) * f.cols + ceilDiv(delay, std::max<int64_t>(1, P))) * t.channels;
    }
    return out;
  }

  /// Cycles from a patch input position's arrival until the output position it completes can be
  /// emitted at the even output rate Pout (the output FIFO's latency), computed over one frame.
  static int64_t retimeDelayCycles(AuxFunction fn, const PatchWindow& w, const FrameShape& f,
                                   int64_t P, int64_t Pout) {
    int64_t worst = 0;
    if (fn == AuxFunction::Expand) {
      // Several outputs per input step: the schedule is the Expand stage's own, dry-run over
      // one frame of one channel (the simulator measures the same stage).
      ExpandParams ep;
      ep.factorRows = w.factorRows;
      ep.factorCols = w.factorCols;
      Expand e(FrameShape{f.rows, f.cols, 1}, ep);
      const std::vector<std::vector<Value>> frame{
          std::vector<Value>(static_cast<size_t>(f.positions()), 0)};
      const StreamTrace tr = runFrames(e, frame);
      for (int64_t q = 0; q < w.outRows * w.outCols; ++q)
        worst = std::max(worst, tr.emitStep[static_cast<size_t>(q)] * P - q * Pout);
      return worst;
    }
    for (int64_t oy = 0; oy < w.outRows; ++oy)
      for (int64_t ox = 0; ox < w.outCols; ++ox) {
        // The input position that completes output (oy, ox): its window's last in-array one.
        int64_t y, x;
        if (fn == AuxFunction::Sample) {
          y = w.padTop + w.strideRows * oy;
          x = w.padLeft + w.strideCols * ox;
        } else {
          y = std::min(f.rows - 1, oy * w.strideRows - w.padTop + w.kernelRows - 1);
          x = std::min(f.cols - 1, ox * w.strideCols - w.padLeft + w.kernelCols - 1);
        }
        const int64_t ready = (y * f.cols + x) * P;
        const int64_t slot = (oy * w.outCols + ox) * Pout;
        worst = std::max(worst, ready - slot);
      }
    return worst;
  }

  /// Aux tile \p t's FIFOs within the configured length (else a one-line error).
  void checkAuxFifos(size_t li, const AuxTile& t) const {
    const int64_t d = std::max(t.primaryDelayPositions, t.auxDelayPositions);
    if (d > c_.auxTileFifoPositions)
      throw Error(ErrorKind::Config, ErrorContext{.key = "aux_tiles.fifo_positions"},
                  fmt::format("layer '{}': a set must wait {} positions; the aux tile FIFO "
                              "holds {}",
                              program_.layers[li].name, d, c_.auxTileFifoPositions));
  }

  /// The two inputs of aux tile \p t made to meet: the earlier waits in a FIFO (4902 on the
  /// primary, or the auxiliary alignment FIFO) for the whole positions it leads by, so that the
  /// two arrive less than a position apart (each value is held a position).
  void alignOperands(size_t li, AuxTile& t, int64_t P) {
    const int64_t sa = startOf(t.primary), sb = startOf(t.aux);
    t.primaryDelayPositions = sa <= sb ? (sb - sa) / P : 0;
    t.auxDelayPositions = sa <= sb ? 0 : (sa - sb) / P;
    checkAuxFifos(li, t);
    program_.layers[li].fifoValues += t.primaryDelayPositions * channelsOfSet(t.primary) +
                                      t.auxDelayPositions * channelsOfSet(t.aux);
  }

  /// True when a set of \p p other than the last carries fewer than 16 T channels (the sets of
  /// a concatenation at T > 1 whose inputs are not whole sets).
  bool isRagged(const Placed& p) const {
    for (size_t si = 0; si + 1 < p.sets.size(); ++si)
      if (channelsOfSet(p.sets[si]) != p.format.lanes * p.format.tm)
        return true;
    return false;
  }

  /// \p in with its sets merged pairwise by alternating muxes 4913 (claim 21; Fig. 54 node
  /// 5412) until its time multiplexing is \p tm: each step puts sets 2k and 2k+1 (or a last
  /// odd set alone) on one set holding each value half as long. Needs tm <= P (every value
  /// still held at least one cycle).
  Placed mergeSets(size_t li, Placed in, int64_t tm) {
    const int64_t P = in.format.cyclesPerPosition;
    NNACCEL_ASSERT(tm <= P && in.format.tm <= tm) << "merge to T" << tm << " at P" << P;
    if (in.format.tm < tm && isRagged(in))
      throw Error(ErrorKind::Unsupported, ErrorContext{.node = program_.layers[li].name},
                  fmt::format("an input's sets are ragged (a concatenation of inputs that are not "
                              "whole sets at T{}); alternating mux 4913 cannot merge them to T{}",
                              in.format.tm, tm));
    while (in.format.tm < tm) {
      Placed out;
      out.format = in.format;
      out.format.tm *= 2;
      for (size_t si = 0; si < in.sets.size(); si += 2) {
        const bool pair = si + 1 < in.sets.size();
        const BusRef a = in.sets[si];
        const int64_t row = pair ? std::max(a.bus, in.sets[si + 1].bus) : a.bus;
        const size_t ti = newAuxFor(li, row, a, pair ? &in.sets[si + 1] : nullptr);
        AuxTile& t = aux(ti);
        t.function = AuxFunction::Alternate;
        if (pair) {
          t.channels += channelsOfSet(in.sets[si + 1]);
          alignOperands(li, t, P);
        }
        appendAuxSet(out, ti, planAux(ti, P), false);
      }
      NNACCEL_ASSERT(static_cast<int64_t>(out.sets.size()) == out.format.sets())
          << "merged sets " << out.sets.size() << " for " << out.format.sets();
      in = std::move(out);
    }
    return in;
  }

  void lowerPool(ir::NodeId id) {
    const ir::Node& n = g_.node(id);
    const ir::PoolParams pp = ir::poolParams(g_, id);
    const Placed in = at(n.inputs[0], n.outputs[0]);
    Layer& l = addLayer(id, "");
    const size_t li = program_.layers.size() - 1;
    l.in = in.format;
    const bool global = n.op == ir::OpKind::GlobalAveragePool || n.op == ir::OpKind::GlobalMaxPool;
    const bool average = n.op == ir::OpKind::AveragePool || n.op == ir::OpKind::GlobalAveragePool;
    PatchWindow w;
    if (global) {
      w.kernelRows = in.format.frame.rows;
      w.kernelCols = in.format.frame.cols;
      w.outRows = w.outCols = 1;
    } else {
      if (pp.kernel.size() != 2)
        throw Error(ErrorKind::Unsupported, ErrorContext{.node = n.name},
                    fmt::format("{}-D pooling; the ASIC streams 2-D frames", pp.kernel.size()));
      for (size_t i = 0; i < pp.dilations.size(); ++i)
        if (pp.dilations[i] != 1)
          throw Error(ErrorKind::Unsupported, ErrorContext{.node = n.name},
                      fmt::format("dilated pooling is not a patch function"));
      w.kernelRows = pp.kernel[0];
      w.kernelCols = pp.kernel[1];
      w.strideRows = pp.strides[0];
      w.strideCols = pp.strides[1];
      w.padTop = pp.padsBegin[0];
      w.padLeft = pp.padsBegin[1];
      w.padBottom = pp.padsEnd[0];
      w.padRight = pp.padsEnd[1];
      w.outRows = pp.outSpatial[0];
      w.outCols = pp.outSpatial[1];
      w.countIncludePad = pp.countIncludePad;
      if (std::max(w.kernelRows, w.kernelCols) > c_.maxPatch)
        throw Error(ErrorKind::Config, ErrorContext{.key = "aux_tiles.max_patch"},
                    fmt::format("a {}x{} pooling window exceeds the aux tiles' "
                                "largest patch {}",
                                w.kernelRows, w.kernelCols, c_.maxPatch));
    }
    const AuxFunction fn = !average ? AuxFunction::MaxPool
                           : global ? AuxFunction::GlobalAverage
                                    : AuxFunction::Average;
    std::vector<quant::CountMultiplier> counts;
    if (average)
      counts = qm_.node(id).countMultipliers;
    // A max pool folds into the producing tile (after its LUT) when it is the only reader.
    const bool fuse = !average && soleConsumer(n.inputs[0]) == id;
    Placed out = applyPatch(li, in, fn, w, counts, fuse);
    program_.layers[li].out = out.format;
    program_.layers[li].outSets = out.sets;
    placed_[n.outputs[0]] = std::move(out);
  }

  /// Resize / Upsample "nearest" by whole factors: Expand (4911, Fig. 50) on every set. The
  /// output has more positions than the input, so each lasts fewer cycles: the stream must
  /// have been downsampled enough before (P divisible by the factors, T still <= P).
  void lowerExpand(ir::NodeId id) {
    const ir::Node& n = g_.node(id);
    const Placed in = at(n.inputs[0], n.outputs[0]);
    const FrameShape f = in.format.frame;
    const Dims& os = g_.value(n.outputs[0]).shape;
    const bool shaped = os.size() == 4 && os[0] == 1 && os[1] == f.channels &&
                        os[2] % f.rows == 0 && os[3] % f.cols == 0;
    const int64_t fr = shaped ? os[2] / f.rows : 0, fc = shaped ? os[3] / f.cols : 0;
    bool nearest = shaped;
    const std::vector<int32_t>& index = qm_.node(id).gatherIndex;
    for (int64_t c = 0; nearest && c < f.channels; ++c)
      for (int64_t oy = 0; nearest && oy < os[2]; ++oy)
        for (int64_t ox = 0; ox < os[3]; ++ox)
          if (index[static_cast<size_t>((c * os[2] + oy) * os[3] + ox)] !=
              (c * f.rows + oy / fr) * f.cols + ox / fc) {
            nearest = false;
            break;
          }
    if (!nearest)
      throw Error(ErrorKind::Unsupported, ErrorContext{.node = n.name},
                  fmt::format("{} to {}: only nearest upsampling by whole factors maps onto "
                              "Expand (4911)",
                              ir::opName(n.op), dimsToString(os)));
    const int64_t P = in.format.cyclesPerPosition, factor = fr * fc;
    if (P % factor != 0 || P / factor < in.format.tm)
      throw Error(ErrorKind::Unsupported, ErrorContext{.node = n.name},
                  fmt::format("Expand by {}x{} needs {} cycles per input position (and {} for "
                              "its time multiplexing T{}); the stream has {}. Expanding a "
                              "faster stream needs N-up output sets, which the ASIC's 1-up "
                              "buses do not carry",
                              fr, fc, factor, factor * in.format.tm, in.format.tm, P));
    Layer& l = addLayer(id, "");
    const size_t li = program_.layers.size() - 1;
    l.in = in.format;
    PatchWindow w;
    w.factorRows = fr;
    w.factorCols = fc;
    w.outRows = os[2];
    w.outCols = os[3];
    const bool fuse = soleConsumer(n.inputs[0]) == id;
    Placed out = applyPatch(li, in, AuxFunction::Expand, w, {}, fuse);
    program_.layers[li].out = out.format;
    program_.layers[li].outSets = out.sets;
    placed_[n.outputs[0]] = std::move(out);
  }

  void lowerLut(ir::NodeId id, const std::array<int8_t, 256>& lut) {
    const ir::Node& n = g_.node(id);
    const Placed in = at(n.inputs[0], n.outputs[0]);
    Layer& l = addLayer(id, "");
    const size_t li = program_.layers.size() - 1;
    l.in = in.format;
    l.out = in.format;
    Placed out = in;
    const bool sole = soleConsumer(n.inputs[0]) == id;
    for (size_t si = 0; si < in.sets.size(); ++si) {
      const int64_t producer = si < in.producerAux.size() ? in.producerAux[si] : -1;
      // Fold into the producing aux tile when this is its value's only reader and its output
      // mux still bypasses (the LUT sits before the patch function, Fig. 49).
      if (sole && producer >= 0 &&
          aux(static_cast<size_t>(producer)).function == AuxFunction::Bypass) {
        AuxTile& t = aux(static_cast<size_t>(producer));
        t.lut = t.lutEnabled ? composeLuts(t.lut, lut) : lut;
        t.lutEnabled = true; // the tile's LUT stage may come into use: replanned
        const BusRef ref{t.row, t.outSlot};
        const int64_t start = planAux(static_cast<size_t>(producer), in.format.cyclesPerPosition);
        noteSet(ref, t.channels, start);
        out.timing[si] = SetTiming{start};
        // The producing layer's sets now carry this node's output.
        Layer& pl = program_.layers[auxLayer_.at(static_cast<size_t>(producer))];
        pl.outputs = {n.outputs[0]};
        program_.layers[li].note = fmt::format("lookup table 4906 of '{}' (folded)", pl.name);
        program_.layers[li].outputs.clear();
        continue;
      }
      const size_t ti = newAuxFor(li, in.sets[si].bus, in.sets[si], nullptr);
      AuxTile& t = aux(ti);
      t.lutEnabled = true;
      t.lut = lut;
      const BusRef ref{t.row, t.outSlot};
      const int64_t start = planAux(ti, in.format.cyclesPerPosition);
      noteSet(ref, t.channels, start);
      out.sets[si] = ref;
      out.timing[si] = SetTiming{start};
      out.producerAux[si] = static_cast<int64_t>(ti);
    }
    program_.layers[li].outSets = out.sets;
    placed_[n.outputs[0]] = std::move(out);
  }

  /// The table of a float-island unary op, evaluated by the int8 reference's own rule on each
  /// of the 256 int8 inputs.
  std::array<int8_t, 256> floatIslandLut(ir::NodeId id) const {
    const ir::Node& n = g_.node(id);
    std::vector<int8_t> all(256);
    for (int i = 0; i < 256; ++i)
      all[static_cast<size_t>(i)] = static_cast<int8_t>(i - 128);
    quant::QuantTensor x{Tensor::fromVector<int8_t>({1, 256, 1, 1}, all), qm_.scale(n.inputs[0])};
    std::vector<const quant::QuantTensor*> ins(n.inputs.size(), nullptr);
    ins[0] = &x;
    const std::vector<quant::QuantTensor> y = quant::evalQuantizedNode(qm_, id, ins);
    const int8_t* r = y.at(0).data.data<int8_t>();
    return makeLut([&](int32_t q) { return r[q + 128]; });
  }

  bool isUnaryElementwise(ir::NodeId id) const {
    const ir::Node& n = g_.node(id);
    int computed = 0;
    for (ir::ValueId v : n.inputs)
      if (v != ir::kNoValue && !g_.isConstant(v))
        ++computed;
    return computed == 1 && n.outputs.size() == 1 &&
           g_.value(n.inputs[0]).shape == g_.value(n.outputs[0]).shape &&
           (n.op == ir::OpKind::Sigmoid || n.op == ir::OpKind::Tanh ||
            n.op == ir::OpKind::LeakyRelu || n.op == ir::OpKind::HardSigmoid ||
            n.op == ir::OpKind::Elu || n.op == ir::OpKind::Softplus ||
            n.op == ir::OpKind::HardSwish || n.op == ir::OpKind::Selu);
  }

  /// A Softmax feeding a graph output: the primary output circuit 4413 ("typically
  /// SoftMax") computes it as the values leave the chip.
  bool isOutputFunction(ir::NodeId id) const {
    const ir::Node& n = g_.node(id);
    if (n.op != ir::OpKind::Softmax)
      return false;
    for (ir::ValueId o : g_.outputs)
      if (o == n.outputs[0])
        return true;
    return false;
  }

  void lowerOutputFunction(ir::NodeId id) {
    const ir::Node& n = g_.node(id);
    const StreamFormat f = at(n.inputs[0], n.outputs[0]).format;
    Layer& l = addLayer(id, "primary output circuit 4413 (as the values leave the chip)");
    l.kind = LayerKind::OutputCircuit;
    l.in = l.out = f;
    outputFunctions_[n.outputs[0]] = n.inputs[0];
  }

  void lowerAdd(ir::NodeId id) {
    const ir::Node& n = g_.node(id);
    Placed a = at(n.inputs[0], n.outputs[0]);
    Placed b = at(n.inputs[1], n.outputs[0]);
    if (!(a.format.frame == b.format.frame) ||
        a.format.cyclesPerPosition != b.format.cyclesPerPosition)
      throw Error(ErrorKind::Unsupported, ErrorContext{.node = n.name},
                  fmt::format("Add of streams {}x{}x{} and {}x{}x{} (broadcasting is "
                              "not a stream function)",
                              a.format.frame.rows, a.format.frame.cols, a.format.frame.channels,
                              b.format.frame.rows, b.format.frame.cols, b.format.frame.channels));
    addLayer(id, "");
    const size_t li = program_.layers.size() - 1;
    // Operands on different time multiplexing (a shortcut from a pool keeps its producer's T;
    // a convolution's output takes the canonical one) meet at the larger T.
    const int64_t T = std::max(a.format.tm, b.format.tm);
    a = mergeSets(li, std::move(a), T);
    b = mergeSets(li, std::move(b), T);
    bool sameSets = a.sets.size() == b.sets.size();
    for (size_t si = 0; sameSets && si < a.sets.size(); ++si)
      sameSets = channelsOfSet(a.sets[si]) == channelsOfSet(b.sets[si]);
    if (!sameSets)
      throw Error(ErrorKind::Unsupported, ErrorContext{.node = n.name},
                  fmt::format("its operands' sets split the channels differently (one is a "
                              "concatenation of inputs that are not whole sets at T{}); adder "
                              "4904 adds set by set",
                              T));
    program_.layers[li].in = program_.layers[li].out = a.format;
    Placed out;
    out.format = a.format;
    for (size_t si = 0; si < a.sets.size(); ++si) {
      const int64_t row = std::max(a.sets[si].bus, b.sets[si].bus);
      const size_t ti = newAuxFor(li, row, a.sets[si], &b.sets[si]);
      AuxTile& t = aux(ti);
      t.add = AuxAdd::Scaled;
      t.addScales = qm_.node(id).addSub;
      alignOperands(li, t, a.format.cyclesPerPosition);
      appendAuxSet(out, ti, planAux(ti, a.format.cyclesPerPosition), true);
    }
    program_.layers[li].outSets = out.sets;
    placed_[n.outputs[0]] = std::move(out);
  }

  /// Aux tile \p t's LUT 4906 requantizing int8 by \p m (a concat input onto the output scale).
  static void setRescaleLut(AuxTile& t, quant::QuantMultiplier m) {
    t.lutEnabled = true;
    t.lut = makeLut([=](int32_t v) { return quant::requantize(v, m); });
  }

  /// Concatenation along channels. Where every input but the last is whole sets, it is the bus
  /// arrangement (Fig. 54's 5411): the sets side by side. Otherwise (T = 1) each output set is
  /// packed from pieces of the inputs' sets by concat muxes 4912, the lowest k lanes of one set
  /// then the lowest 16 - k of the next, with a channel Subset first where a piece does not
  /// start at lane 0. Inputs on another scale pass a LUT (an int8 -> int8 requantization)
  /// before any mux. Finally every output set is aligned to the latest by FIFOs, so the
  /// concatenated stream's sets are position-synchronous like any other's.
  void lowerConcat(ir::NodeId id) {
    const ir::Node& n = g_.node(id);
    const ir::ValueId outV = n.outputs[0];
    const Dims& os = g_.value(outV).shape;
    if (os.size() != 4 || ir::concatAxis(g_, id) != 1)
      throw Error(ErrorKind::Unsupported, ErrorContext{.node = n.name},
                  fmt::format("Concat along an axis other than channels"));
    const quant::QuantNode& q = qm_.node(id);
    std::vector<Placed> parts;
    int64_t T = 1;
    for (size_t i = 0; i < n.inputs.size(); ++i) {
      parts.push_back(at(n.inputs[i], outV));
      const Placed& p = parts.back();
      if (p.format.frame.rows != parts[0].format.frame.rows ||
          p.format.frame.cols != parts[0].format.frame.cols ||
          p.format.cyclesPerPosition != parts[0].format.cyclesPerPosition)
        throw Error(ErrorKind::Unsupported, ErrorContext{.node = n.name},
                    fmt::format("inputs differ in frame size or position rate"));
      T = std::max(T, p.format.tm);
    }
    Layer& l = addLayer(id, "bus arrangement (5411: no tile)");
    const size_t li = program_.layers.size() - 1;
    int64_t channels = 0;
    bool packed = false; // T1: some output set needs concat muxes
    // T > 1: mux 4912 packs the lanes of one time slot, so an input that ends inside a set
    // cannot share it with the next; the sets stay as they are (ragged: fewer channels than
    // 16 T) and the consumer reads each with its own channel range.
    bool ragged = false;
    for (size_t i = 0; i < parts.size(); ++i) {
      parts[i] = mergeSets(li, std::move(parts[i]), T);
      const int64_t ch = parts[i].format.frame.channels, perSet = c_.lanes * T;
      if ((i + 1 < parts.size() && ch % perSet != 0) || isRagged(parts[i]))
        (T > 1 ? ragged : packed) = true;
      channels += ch;
    }
    const int64_t P = parts[0].format.cyclesPerPosition;
    Placed out;
    out.format = parts[0].format;
    out.format.frame.channels = channels;
    l.in = parts[0].format;
    l.out = out.format;
    if (packed)
      l.note = "concat muxes 4912 pack the output sets";
    if (ragged)
      l.note = fmt::format("bus arrangement of ragged sets (inputs not whole {}-channel sets at "
                           "T{})",
                           c_.lanes * T, T);
    // The pieces of each output set: (input, set, first lane, lanes), in channel order.
    struct Piece {
      size_t part = 0, set = 0;
      int64_t lane0 = 0, lanes = 0;
    };
    const int64_t perSet = c_.lanes * T;
    std::vector<std::vector<Piece>> pieces(static_cast<size_t>(out.format.sets()));
    if (ragged)
      pieces.clear();
    int64_t at = 0;
    for (size_t i = 0; i < parts.size(); ++i)
      for (size_t si = 0; si < parts[i].sets.size(); ++si) {
        const int64_t ch = channelsOfSet(parts[i].sets[si]);
        if (ragged) {
          pieces.push_back({Piece{i, si, 0, ch}});
          continue;
        }
        for (int64_t lane = 0; lane < ch;) {
          const int64_t take = std::min(perSet - at % perSet, ch - lane);
          pieces[static_cast<size_t>(at / perSet)].push_back(Piece{i, si, lane, take});
          lane += take;
          at += take;
        }
      }
    auto rescaleOf = [&](size_t part) {
      const quant::QuantMultiplier m = q.concatMultipliers.at(part);
      return m == quant::QuantMultiplier{} ? std::nullopt : std::optional(m);
    };
    // Phase 1: each output set, a whole input set passed on or a chain of muxes.
    struct Built {
      BusRef set;
      std::optional<quant::QuantMultiplier> rescale; ///< a passed-on set still to rescale
      int64_t mux = -1;                              ///< the last concat mux tile, if any
    };
    std::vector<Built> built;
    for (const std::vector<Piece>& ps : pieces) {
      const Piece& p0 = ps.front();
      const BusRef s0 = parts[p0.part].sets[p0.set];
      if (ps.size() == 1 && p0.lane0 == 0 && p0.lanes == channelsOfSet(s0)) {
        built.push_back(Built{s0, rescaleOf(p0.part), -1});
        continue;
      }
      NNACCEL_ASSERT(T == 1) << n.name << ": packing at T" << T;
      Built b;
      int64_t accLanes = 0;
      for (const Piece& pc : ps) {
        BusRef src = parts[pc.part].sets[pc.set];
        const std::optional<quant::QuantMultiplier> m = rescaleOf(pc.part);
        if (pc.lane0 > 0 || m) { // a prep tile: the lanes moved down, rescaled
          const size_t ti = newAuxFor(li, src.bus, src, nullptr);
          AuxTile& t = aux(ti);
          if (pc.lane0 > 0) {
            t.function = AuxFunction::Subset;
            t.laneOffset = pc.lane0;
            t.channels = pc.lanes;
            t.window.outRows = out.format.frame.rows;
            t.window.outCols = out.format.frame.cols;
          }
          if (m)
            setRescaleLut(t, *m);
          src = BusRef{t.row, t.outSlot};
          noteSet(src, t.channels, planAux(ti, P));
        }
        if (accLanes == 0) {
          NNACCEL_ASSERT(channelsOfSet(src) == pc.lanes) << n.name << ": first piece";
          b.set = src;
          accLanes = pc.lanes;
          continue;
        }
        const size_t ti = newAuxFor(li, std::max(b.set.bus, src.bus), b.set, &src);
        AuxTile& t = aux(ti);
        t.function = AuxFunction::Concat;
        t.concatLanes = accLanes;
        t.channels = accLanes + pc.lanes;
        alignOperands(li, t, P);
        b.set = BusRef{t.row, t.outSlot};
        b.mux = static_cast<int64_t>(ti);
        noteSet(b.set, t.channels, planAux(ti, P));
        accLanes = t.channels;
      }
      built.push_back(b);
    }
    // Phase 2: align every output set to the latest (a set less than a position early passes).
    int64_t latest = 0;
    for (const Built& b : built)
      latest = std::max(latest, startOf(b.set));
    for (const Built& b : built) {
      const int64_t early = latest - startOf(b.set);
      if (b.mux >= 0) { // delay both inputs of the last mux
        AuxTile& t = aux(static_cast<size_t>(b.mux));
        const int64_t e = early / P;
        t.primaryDelayPositions += e;
        t.auxDelayPositions += e;
        checkAuxFifos(li, t);
        program_.layers[li].fifoValues += e * (channelsOfSet(t.primary) + channelsOfSet(t.aux));
        appendAuxSet(out, static_cast<size_t>(b.mux), planAux(static_cast<size_t>(b.mux), P),
                     false);
        continue;
      }
      if (!b.rescale && early < P) {
        out.sets.push_back(b.set);
        out.timing.push_back(SetTiming{startOf(b.set)});
        out.producerAux.push_back(-1);
        continue;
      }
      const size_t ti = newAuxFor(li, b.set.bus, b.set, nullptr);
      AuxTile& t = aux(ti);
      t.primaryDelayPositions = std::max<int64_t>(0, latest - startOf(t.primary)) / P;
      checkAuxFifos(li, t);
      program_.layers[li].fifoValues += t.primaryDelayPositions * t.channels;
      if (b.rescale)
        setRescaleLut(t, *b.rescale);
      appendAuxSet(out, ti, planAux(ti, P), false);
    }
    program_.layers[li].outSets = out.sets;
    placed_[outV] = std::move(out);
  }

  const quant::QuantizedModel& qm_;
  const ir::Graph& g_;
  const StreamConfig& c_;
  Program program_;
  Placer placer_;
  int64_t chips_;
  std::set<ir::NodeId> consumed_;
  std::map<ir::ValueId, Placed> placed_;
  std::map<ir::ValueId, ir::ValueId> outputFunctions_;
  std::map<size_t, size_t> auxLayer_; ///< aux tile -> the layer that created it
  std::map<std::tuple<int64_t, int64_t, int64_t>, BusRef> bypasses_;
  std::map<std::pair<int64_t, int64_t>, int64_t> setChannels_;
  std::map<std::pair<int64_t, int64_t>, int64_t> setStart_;
};

} // namespace

Program compile(const quant::QuantizedModel& qm, const StreamConfig& config,
                const CompileOptions& options) {
  validate(config);
  const int64_t chips = options.chips > 0 ? options.chips : config.chips;
  try {
    Mapper m(qm, config, chips);
    return m.run();
  } catch (const Error& e) {
    if (e.kind() != ErrorKind::Config || e.context().key != "kernel_tiles.rows")
      throw;
  }
  // It does not fit: map it onto as many chained chips as it takes, to say what it needs.
  constexpr int64_t kProbeChips = 4096;
  Mapper probe(qm, config, kProbeChips);
  const Program p = probe.run();
  const int64_t needed = ceilDiv(p.rowsUsed, config.rows);
  throw Error(ErrorKind::Config, ErrorContext{.key = "chips"},
              fmt::format("model '{}' does not fit: it needs {} kernel tiles and {} aux tiles in "
                          "{} rows, {} chip(s) of {} rows ({} kernel + {} aux tiles each); the "
                          "run has {} chip(s) (use --chips {} to chain them)",
                          qm.graph.name, p.kernelTiles.size(), p.auxTiles.size(), p.rowsUsed,
                          needed, config.rows, config.kernelTileCount(), config.auxTileCount(),
                          chips, needed));
}

} // namespace nnaccel::arch::stream
