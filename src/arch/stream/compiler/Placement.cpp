/// \file
/// Placement for the stream compiler (Mapper.h): the Placer handing out kernel and aux tiles
/// row by row, and the Mapper's placement helpers: the graph input and outputs on the buses,
/// stream formats, and bypass tiles carrying a set down to the row that reads it.
#include "Mapper.h"
#include "nnaccel/arch/common/Lowering.h"
#include "nnaccel/ir/OpParams.h"
#include "nnaccel/support/Error.h"

#include <algorithm>
#include <bit>
#include <fmt/format.h>

namespace nnaccel::arch::stream::detail {

// ---- Placer ------------------------------------------------------------------------------------

size_t Placer::newKernelTile(const std::string& layer) {
  // Bypasses may already hold the leftmost tiles of a row the cursor reaches.
  cursorIndex_ = std::max(cursorIndex_, kernelUsed(cursorRow_));
  while (cursorRow_ < totalRows() && cursorIndex_ >= rowTiles(cursorRow_)) {
    ++cursorRow_;
    cursorIndex_ = kernelUsed(cursorRow_);
  }
  need(cursorRow_, "kernel tiles");
  return claimKernelTile(cursorRow_, cursorIndex_++, layer);
}

size_t Placer::claimKernelTile(int64_t row, int64_t index, const std::string& layer) {
  KernelTile t;
  t.row = row;
  t.index = index;
  kernelUsed_[row] = std::max(kernelUsed(row), index + 1);
  t.layer = layer;
  t.outSlot = t.index;
  owners_[{t.row, t.outSlot}] = SlotOwner{true, t.index};
  rowsUsed_ = std::max(rowsUsed_, t.row + 1);
  p_.kernelTiles.push_back(std::move(t));
  return p_.kernelTiles.size() - 1;
}

std::optional<size_t> Placer::spareKernelTile(int64_t row, const std::string& layer) {
  const int64_t index =
      row == cursorRow_ ? std::max(cursorIndex_, kernelUsed(row)) : kernelUsed(row);
  if (row >= totalRows() || index >= rowTiles(row))
    return std::nullopt;
  if (row == cursorRow_)
    cursorIndex_ = index + 1;
  return claimKernelTile(row, index, layer);
}

int64_t Placer::kernelUsed(int64_t row) const {
  auto it = kernelUsed_.find(row);
  return it == kernelUsed_.end() ? 0 : it->second;
}

void Placer::advanceToRow(int64_t row) {
  if (cursorRow_ < row) {
    cursorRow_ = row;
    cursorIndex_ = 0;
  }
}

size_t Placer::newAuxTile(int64_t row, const std::string& layer) {
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

int64_t Placer::auxUsed(int64_t row) const {
  auto it = auxUsed_.find(row);
  return it == auxUsed_.end() ? 0 : it->second;
}

bool Placer::readable(BusRef src, int64_t row, int64_t kernelIndex) const {
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

void Placer::need(int64_t row, const char* what) const {
  if (row < totalRows())
    return;
  throw Error(ErrorKind::Config, ErrorContext{.key = "kernel_tiles.rows"},
              fmt::format("model '{}' does not fit: it needs more {} than {} chip(s) of {} "
                          "rows ({} kernel tiles, {} aux tiles per chip) have",
                          p_.model, what, capacityChips(), c_.rows, c_.kernelTileCount(),
                          c_.auxTileCount()));
}

// ---- graph input and outputs ---------------------------------------------------------------

void Mapper::mapInput() {
  if (g_.inputs.size() != 1)
    throw Error(ErrorKind::Unsupported, ErrorContext{},
                fmt::format("model '{}' has {} inputs; the stream ASIC has one input bus", g_.name,
                            g_.inputs.size()));
  const ir::ValueId v = g_.inputs[0];
  const Dims& s = g_.value(v).shape;
  if (s.size() != 4 || s[0] != 1)
    throw Error(ErrorKind::Unsupported, ErrorContext{.node = g_.value(v).name},
                fmt::format("input '{}' has shape {}; the stream ASIC streams one image per "
                            "frame in raster order, NCHW or NHWC read through a Transpose to NCHW",
                            g_.value(v).name, dimsToString(s)));
  // A pixel stream delivers each pixel's channels in turn: an NHWC input (a model converted
  // from TensorFlow) read only by the Transpose to NCHW, directly or through an element-wise
  // chain of one table (a normalisation x / 127.5 - 1, the same for every channel), is read as
  // it is, and the Transpose moves no data (lowerNode makes it a view).
  inputTranspose_ = nhwcInputTranspose(v, nhwcChain_);
  if (inputTranspose_ < 0)
    nhwcChain_.clear();
  const bool nhwc = inputTranspose_ >= 0;
  const FrameShape frame = nhwc ? FrameShape{s[1], s[2], s[3]} : FrameShape{s[2], s[3], s[1]};
  Placed p;
  p.format = formatFor(frame, 1);
  if (p.format.sets() > c_.inputBusSets)
    throw Error(ErrorKind::Config, ErrorContext{.key = "external.input_sets"},
                fmt::format("input '{}' has {} channels: {} sets of {} lanes, but the input "
                            "bus carries {}",
                            g_.value(v).name, frame.channels, p.format.sets(), c_.lanes,
                            c_.inputBusSets));
  for (int64_t i = 0; i < p.format.sets(); ++i) {
    p.sets.push_back(BusRef{-1, i});
    p.timing.push_back(SetTiming{0});
    p.producerAux.push_back(-1);
    noteSet(p.sets.back(),
            std::min(p.format.frame.channels - i * c_.lanes * p.format.tm, c_.lanes * p.format.tm),
            0);
  }
  program_.input = p.format;
  program_.inputValue = v;
  program_.inputPixelMajor = nhwc;
  program_.inputSets = p.sets;
  placed_[v] = std::move(p);
}

/// The Transpose (perm 0, 3, 1, 2), or for one channel the equivalent Reshape, that turns the
/// NHWC graph input \p v into NCHW, when it is
/// \p v's only reader or ends a single-reader path of element-wise chain nodes from \p v
/// (whose one lookup table treats every channel alike); -1 otherwise. The path's values are
/// NHWC tensors: \p chain receives them.
ir::NodeId Mapper::nhwcInputTranspose(ir::ValueId v, std::set<ir::ValueId>& chain) const {
  ir::ValueId at = v;
  for (;; chain.insert(at)) {
    const std::vector<ir::NodeId> users = g_.users(at);
    if (users.size() != 1 || g_.isOutput(at))
      return -1;
    const ir::Node& u = g_.node(users[0]);
    if (u.op == ir::OpKind::Transpose)
      return ir::transposePerm(g_, users[0]) == std::vector<int64_t>{0, 3, 1, 2} ? users[0] : -1;
    // With one channel, NHWC [1, H, W, 1] -> NCHW [1, 1, H, W] is a Reshape as well (an audio
    // model's mel-spectrogram "image"): the same view.
    if (u.op == ir::OpKind::Reshape) {
      const Dims& in = g_.value(at).shape;
      const Dims& out = g_.value(u.outputs[0]).shape;
      const bool oneChannel = in.size() == 4 && in[3] == 1 && out.size() == 4 && out[1] == 1 &&
                              in[0] == out[0] && in[1] == out[2] && in[2] == out[3];
      return oneChannel ? users[0] : -1;
    }
    const auto& f =
        u.outputs.size() == 1 ? functions_[static_cast<size_t>(u.outputs[0])] : std::nullopt;
    if (!f || f->source != v)
      return -1;
    at = u.outputs[0];
  }
}

void Mapper::mapOutputs() {
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
    const int64_t muxSets = c_.primaryOutputSets * placer_.chipsInUse();
    if (static_cast<int64_t>(o.sets.size()) > muxSets)
      throw Error(ErrorKind::Config, ErrorContext{.key = "external.primary_output_sets"},
                  fmt::format("output '{}' has {} sets; the primary output mux selects {}",
                              g_.value(v).name, o.sets.size(), muxSets));
    program_.outputs.push_back(std::move(o));
  }
}

// ---- formats and placement helpers ---------------------------------------------------------

StreamFormat Mapper::formatFor(FrameShape f, int64_t cyclesPerPosition) const {
  StreamFormat s;
  s.frame = f;
  s.lanes = c_.lanes;
  s.cyclesPerPosition = cyclesPerPosition;
  s.tm = canonicalTm(f.channels, cyclesPerPosition);
  return s;
}

/// T for \p channels at \p cyclesPerPosition (§8.4): as many 16-channel groups per lane as the
/// position's cycles and the weight store allow, rounded to a power of two so that the
/// alternating mux (4913, halving the sets per step) reaches it from any smaller T:
/// min(floor2(min(P, pairs)), ceil2(groups)).
int64_t Mapper::canonicalTm(int64_t channels, int64_t cyclesPerPosition) const {
  const auto floor2 = [](int64_t v) { return std::bit_floor(static_cast<uint64_t>(v)); };
  const auto ceil2 = [](int64_t v) { return std::bit_ceil(static_cast<uint64_t>(v)); };
  const int64_t cap = std::max<int64_t>(1, std::min(cyclesPerPosition, c_.weightStorePairs));
  return static_cast<int64_t>(
      std::min(floor2(cap), ceil2(std::max<int64_t>(1, ceilDiv(channels, c_.lanes)))));
}

const Placed& Mapper::at(ir::ValueId v, ir::ValueId forWhat) const {
  auto it = placed_.find(v);
  if (it == placed_.end())
    throw Error(ErrorKind::Unsupported, ErrorContext{.node = g_.value(forWhat).name},
                fmt::format("value '{}' is not a stream on the chip (a graph constant or an "
                            "unsupported producer)",
                            g_.value(v).name));
  const ir::NodeId reader = g_.value(forWhat).producer;
  const bool outputOrView = reader < 0 || forWhat == v || common::isAliasView(qm_, reader) ||
                            g_.node(reader).op == ir::OpKind::Transpose;
  if (it->second.pixelMajor && !outputOrView)
    throw Error(ErrorKind::Unsupported, ErrorContext{.node = g_.value(forWhat).name},
                fmt::format("value '{}' is the frame transposed to NHWC; only the graph's "
                            "outputs and views may read it",
                            g_.value(v).name));
  return it->second;
}

/// \p src made readable by a tile of \p row (kernel tile at \p kernelIndex, or aux when < 0),
/// through bypass aux tiles in the rows between (cached: one bypass per set and row).
BusRef Mapper::bringTo(BusRef src, int64_t row, int64_t kernelIndex, const std::string& layer) {
  NNACCEL_ASSERT(src.bus <= row) << "set on bus " << src.bus << " read from row " << row;
  if (placer_.readable(src, row, kernelIndex))
    return src;
  if (src.bus == row) // an aux tile's set read by a kernel tile of its own row: not allowed
    return src;       // (callers move to the next row first)
  BusRef cur = src;
  for (int64_t r = src.bus + 1; r < row; ++r) {
    auto key = std::make_tuple(src.bus, src.slot, r);
    auto it = bypasses_.find(key);
    cur = it != bypasses_.end() ? it->second : bypassRow(cur, r, row, layer);
    bypasses_[key] = cur;
  }
  return cur;
}

/// Set \p cur (on bus \p row - 1) carried onto bus \p row on its way to row \p target: by an aux
/// tile while the row has one free, else, for an int8 set, by a spare kernel tile configured
/// as an identity 1x1 (int32 partial sums cannot enter a kernel tile's multipliers).
BusRef Mapper::bypassRow(BusRef cur, int64_t row, int64_t target, const std::string& layer) {
  const int64_t channels = channelsOfSet(cur);
  if (placer_.auxUsed(row) < placer_.rowAux(row)) {
    const size_t ti = placer_.newAuxTile(row, layer);
    AuxTile& t = program_.auxTiles[ti];
    t.primary = cur;
    t.function = AuxFunction::Bypass;
    t.channels = channels;
    const BusRef out{t.row, t.outSlot};
    noteSet(out, channels, planAux(ti, 1)); // one registered hop per row
    return out;
  }
  const int64_t groups = ceilDiv(channels, c_.lanes);
  const std::optional<size_t> ki = groups <= c_.weightStorePairs && !carriesPartialSums(cur)
                                       ? placer_.spareKernelTile(row, layer)
                                       : std::nullopt;
  if (!ki)
    throw Error(ErrorKind::Config, ErrorContext{.key = "aux_tiles.tiles_per_row"},
                fmt::format("layer '{}': row {} has no auxiliary or kernel tile left to carry a "
                            "set down to row {} (bypass); the chip has {} aux tiles per row: "
                            "more (aux_tiles.tiles_per_row above {}) would carry it",
                            layer, row, target, placer_.rowAux(row), placer_.rowAux(row)));
  KernelTile& t = program_.kernelTiles[*ki];
  t.bypass = true;
  t.input = cur;
  t.inChannels = t.outChannels = t.inUsedChannels = channels;
  for (int64_t g = 0; g < groups; ++g)
    t.pairs.push_back(GroupPair{g, g});
  t.subRows = t.subCols = 1;
  t.anchorRow = t.anchorCol = 0;
  t.weights.assign(static_cast<size_t>(channels * channels), 0);
  for (int64_t c = 0; c < channels; ++c)
    t.weights[static_cast<size_t>(c * channels + c)] = 1;
  t.bias.assign(static_cast<size_t>(channels), 0);
  const BusRef out{t.row, t.outSlot};
  noteSet(out, channels, kernelTileTiming(t, c_, startOf(cur), 0, 1, 0).startCycle);
  return out;
}

/// True when set \p s carries int32 partial sums (a kernel tile's output, or a vertical block
/// sum not yet requantized), through any bypasses.
bool Mapper::carriesPartialSums(BusRef s) const {
  if (s.bus < 0)
    return false;
  for (const KernelTile& t : program_.kernelTiles)
    if (t.row == s.bus && t.outSlot == s.slot)
      return !t.bypass || carriesPartialSums(t.input);
  for (const AuxTile& t : program_.auxTiles)
    if (t.row == s.bus && t.outSlot == s.slot) {
      if (t.add == AuxAdd::Partial)
        return true;
      if (t.add != AuxAdd::None || !t.requantize.empty() || t.lutEnabled)
        return false;
      return carriesPartialSums(t.primary);
    }
  NNACCEL_ASSERT(false) << "no tile drives bus " << s.bus << " slot " << s.slot;
  return false;
}

/// A new aux tile for layer \p li in row \p row or later, reading \p primary (and \p auxIn).
size_t Mapper::newAuxFor(size_t li, int64_t row, BusRef primary, const BusRef* auxIn) {
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

/// Aux tile \p ti's output set, first position at \p startCycle, appended to \p out
/// (\p foldable: a later LUT or patch may still fold into the tile).
void Mapper::appendAuxSet(Placed& out, size_t ti, int64_t startCycle, bool foldable) {
  const AuxTile& t = aux(ti);
  const BusRef ref{t.row, t.outSlot};
  noteSet(ref, t.channels, startCycle);
  out.sets.push_back(ref);
  out.timing.push_back(SetTiming{startCycle});
  out.producerAux.push_back(foldable ? static_cast<int64_t>(ti) : -1);
}

} // namespace nnaccel::arch::stream::detail
