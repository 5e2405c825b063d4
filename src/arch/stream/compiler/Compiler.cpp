/// \file
/// The stream compiler (Compiler.h): model graph -> ASIC configuration. A Placer owns the chip's
/// rows, tiles and bus slots and enforces the forward-only rule; a Mapper walks the graph in
/// topological order and lowers each node onto tiles through the Placer, tracking for every
/// value where its sets are on the buses and when its first position appears (the stream
/// timing the alignment FIFOs are sized from). Both are declared in Mapper.h; this file holds
/// the entry point, the walk and the dispatch by op, the lowerings live in files by concern.
#include "nnaccel/arch/stream/Compiler.h"

#include "Mapper.h"
#include "nnaccel/arch/common/Lowering.h"
#include "nnaccel/support/Error.h"

#include <algorithm>
#include <fmt/format.h>

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

namespace detail {

Mapper::Mapper(const quant::QuantizedModel& qm, const StreamConfig& config, int64_t chips)
    : qm_(qm), g_(qm.graph), c_(config), placer_(program_, config, chips) {
  program_.config = config;
  program_.model = g_.name;
}

Program Mapper::run() {
  planElementChains();
  mapInput();
  common::forEachLoweredNode(qm_, consumed_, [&](ir::NodeId id) { lowerNode(id); });
  mapOutputs();
  program_.rowsUsed = placer_.rowsUsed();
  program_.chipsUsed = std::max<int64_t>(1, ceilDiv(placer_.rowsUsed(), c_.rows));
  return std::move(program_);
}

void Mapper::lowerNode(ir::NodeId id) {
  const ir::Node& n = g_.node(id);
  const quant::QuantNode& q = qm_.node(id);
  if (id == inputTranspose_) {
    lowerView(id);
    program_.layers.back().note = "NHWC input to NCHW: the input bus already delivers each "
                                  "pixel's channels in turn, no data moves";
    return;
  }
  if (common::isAliasView(qm_, id))
    return lowerView(id);
  if (isPixelMajorTranspose(id))
    return lowerView(id);
  if (lowerElementChain(id)) { // Clamp, single-table Lookup, and Add/Sub/Mul within a chain
    program_.layers.back().outPixelMajor = nhwcChain_.contains(n.outputs[0]);
    return;
  }
  switch (q.kind) {
  case quant::QuantOpKind::Accumulate:
    if (n.op == ir::OpKind::Conv)
      return lowerConv(id);
    if (n.op == ir::OpKind::ConvTranspose)
      return lowerConvTranspose(id);
    if (n.op == ir::OpKind::Gemm || n.op == ir::OpKind::MatMul)
      return lowerDense(id);
    break;
  case quant::QuantOpKind::MaxPool:
  case quant::QuantOpKind::AveragePool:
    return lowerPool(id);
  case quant::QuantOpKind::AddSub:
    if (n.op == ir::OpKind::Add)
      return lowerAdd(id);
    break;
  case quant::QuantOpKind::Mul:
    if (n.op != ir::OpKind::Mul)
      break; // a Div of two tensors: no divider on the chip
    if (const std::optional<size_t> xi = channelScaleFrame(id))
      return lowerScale(id, *xi);
    if (!g_.isConstant(n.inputs[0]) && !g_.isConstant(n.inputs[1]))
      return lowerPair(id); // two frames streamed together
    break;
  case quant::QuantOpKind::Compare:
  case quant::QuantOpKind::MinMax:
    return lowerPair(id);
  case quant::QuantOpKind::Lookup:
    if (q.lookupAxis == 1)
      return lowerChannelLookup(id);
    break;
  case quant::QuantOpKind::Concat:
    if (fusePaddingIntoAdd(id))
      return;
    return lowerConcat(id);
  case quant::QuantOpKind::DataMovement:
    if (n.op == ir::OpKind::Slice)
      return lowerSlice(id);
    break;
  case quant::QuantOpKind::Interpolate:
    return lowerInterpolate(id);
  case quant::QuantOpKind::Gather:
    if (n.op == ir::OpKind::Resize || n.op == ir::OpKind::Upsample)
      return lowerExpand(id);
    break;
  case quant::QuantOpKind::Softmax:
  case quant::QuantOpKind::FloatIsland:
    if (isOutputFunction(id))
      return lowerOutputFunction(id);
    break;
  default:
    break;
  }
  throw Error(ErrorKind::Unsupported,
              ErrorContext{.node = n.name, .op = std::string(ir::opName(n.op))},
              fmt::format("the stream ASIC has no unit for it (kernel tiles: "
                          "convolution, transposed convolution and dense; aux tiles: activation "
                          "LUT, pooling, sampling, upsampling, residual add, max/min, compare, "
                          "multiply, channel scale, concatenation)"));
}

void Mapper::lowerView(ir::NodeId id) {
  const ir::Node& n = g_.node(id);
  const Placed& src = at(n.inputs[0], n.outputs[0]);
  Placed p = src;
  const Dims& s = g_.value(n.outputs[0]).shape;
  // A frame flattened to [1, C*H*W] stays a frame: the Dense that reads it uses the whole frame
  // as its kernel. Other views keep the stream as it is when the shape is NCHW-alike.
  if (s.size() == 2 && src.format.frame.positions() > 1)
    p.flattenedFrame = true;
  const bool transposed = isPixelMajorTranspose(id);
  p.pixelMajor = src.pixelMajor || transposed;
  p.producerAux.assign(p.sets.size(), -1);
  placed_[n.outputs[0]] = std::move(p);
  addLayer(id, transposed ? "the frame as NHWC: the stream's own order (each position's "
                            "channels in turn), no data moves"
                          : "view of its input: no data moves")
      .kind = LayerKind::View;
}

/// True for a Transpose of a placed NCHW frame to NHWC (perm 0, 2, 3, 1): the order in which
/// the stream already carries it.
bool Mapper::isPixelMajorTranspose(ir::NodeId id) const {
  const ir::Node& n = g_.node(id);
  if (n.op != ir::OpKind::Transpose || n.inputs.empty() || !placed_.contains(n.inputs[0]) ||
      g_.value(n.inputs[0]).shape.size() != 4)
    return false;
  const Placed& src = placed_.at(n.inputs[0]);
  return !src.pixelMajor && !src.flattenedFrame &&
         ir::transposePerm(g_, id) == std::vector<int64_t>{0, 2, 3, 1};
}

Layer& Mapper::addLayer(ir::NodeId id, std::string note) {
  Layer l = common::layerForNode<Layer>(g_, id, LayerKind::Tiles);
  l.note = std::move(note);
  program_.layers.push_back(std::move(l));
  return program_.layers.back();
}

/// The single consumer of \p v, if it has exactly one and is not a graph output.
std::optional<ir::NodeId> Mapper::soleConsumer(ir::ValueId v) const {
  for (ir::ValueId o : g_.outputs)
    if (o == v)
      return std::nullopt;
  const std::vector<ir::NodeId> users = g_.users(v);
  if (users.size() != 1)
    return std::nullopt;
  return users[0];
}

} // namespace detail

namespace {

/// The error for a model whose placement \p p outgrew the run's \p chips: what it needs.
Error doesNotFit(const quant::QuantizedModel& qm, const StreamConfig& config, int64_t chips,
                 const Program& p) {
  const int64_t needed = ceilDiv(p.rowsUsed, config.rows);
  return Error(ErrorKind::Config, ErrorContext{.key = "chips"},
               fmt::format("model '{}' does not fit: it needs {} kernel tiles and {} aux tiles "
                           "in {} rows, {} chip(s) of {} rows ({} kernel + {} aux tiles each); "
                           "the run has {} chip(s) (use --chips {} to chain them)",
                           qm.graph.name, p.kernelTiles.size(), p.auxTiles.size(), p.rowsUsed,
                           needed, config.rows, config.kernelTileCount(), config.auxTileCount(),
                           chips, needed));
}

} // namespace

Program compile(const quant::QuantizedModel& qm, const StreamConfig& config,
                const CompileOptions& options) {
  validate(config);
  const int64_t chips = options.chips > 0 ? options.chips : config.chips;
  // A model that outgrows the run's chips is placed on as many chained chips as it takes (up to
  // Placer::capacityChips), so that the error can say what it needs.
  Program p = detail::Mapper(qm, config, chips).run();
  if (p.rowsUsed > chips * config.rows && !options.chooseChips)
    throw doesNotFit(qm, config, chips, p);
  return p;
}

} // namespace nnaccel::arch::stream
