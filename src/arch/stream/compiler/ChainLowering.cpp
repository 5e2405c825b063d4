/// \file
/// Element-wise chains on one aux-tile LUT (Mapper, Mapper.h): a value computed from one stream
/// only by element-wise integer rules (quant/ElementFunction.h), such as the HardSwish an
/// exporter writes out as x * clip(x + 3, 0, 6) / 6, is a function of that stream's 256 int8
/// codes. The aux tiles have a lookup table (4906) but no multiplier, so the chain's end is one
/// table applied to its source stream (folded into the source's aux tile where it can be), and
/// the nodes inside the chain move no data. docs/arch/Stream.md, "Element-wise chains".
#include "Mapper.h"
#include "nnaccel/quant/ElementFunction.h"
#include "nnaccel/quant/Kernels.h"
#include "nnaccel/support/Error.h"

#include <algorithm>
#include <fmt/format.h>

namespace nnaccel::arch::stream::detail {

/// Finds every chain: its interior nodes (all of whose readers continue the chain from the same
/// source) and its ends, by source.
void Mapper::planElementChains() {
  std::set<ir::NodeId> fused; // activations the kernel tiles' drains apply in place
  for (ir::NodeId id = 0; id < static_cast<ir::NodeId>(g_.numNodes()); ++id)
    if (qm_.node(id).kind == quant::QuantOpKind::Accumulate)
      if (const auto clamp = common::fusedClamp(qm_, id))
        fused.insert(clamp->node);
  functions_ = quant::elementFunctions(qm_, fused);
  for (ir::NodeId id = 0; id < static_cast<ir::NodeId>(g_.numNodes()); ++id) {
    const ir::Node& n = g_.node(id);
    if (n.outputs.size() != 1 || !functions_[static_cast<size_t>(n.outputs[0])])
      continue;
    const ir::ValueId y = n.outputs[0];
    const ir::ValueId source = functions_[static_cast<size_t>(y)]->source;
    const std::vector<ir::NodeId> users = g_.users(y);
    bool interior = !users.empty() && !g_.isOutput(y);
    for (ir::NodeId u : users) {
      const ir::Node& un = g_.node(u);
      const auto& f =
          un.outputs.size() == 1 ? functions_[static_cast<size_t>(un.outputs[0])] : std::nullopt;
      interior = interior && f && f->source == source;
    }
    if (interior)
      chainInterior_.insert(id);
    else
      chainEnds_[source].push_back(id);
  }
}

/// Lowers node \p id when it is part of an element-wise chain: an interior node as a layer with
/// no tiles, a chain's end as one LUT on the source stream. False for other nodes.
bool Mapper::lowerElementChain(ir::NodeId id) {
  const ir::Node& n = g_.node(id);
  if (n.outputs.size() != 1 || !functions_[static_cast<size_t>(n.outputs[0])])
    return false;
  const quant::ElementFunction& f = *functions_[static_cast<size_t>(n.outputs[0])];
  const std::vector<ir::NodeId>& ends = chainEnds_.at(f.source);
  if (chainInterior_.contains(id)) {
    std::vector<std::string> names;
    for (ir::NodeId e : ends)
      names.push_back(fmt::format("'{}'", g_.node(e).name));
    Layer& l = addLayer(id, fmt::format("in the lookup table of {} (element-wise chain from "
                                        "'{}'): no tile of its own",
                                        fmt::join(names, ", "), g_.value(f.source).name));
    l.outputs.clear();
    return true;
  }
  // The source's aux tile may take the table when this chain is the source's only reader.
  bool alone = ends.size() == 1 && !g_.isOutput(f.source);
  for (ir::NodeId u : g_.users(f.source))
    alone = alone && (u == id || chainInterior_.contains(u));
  lowerLut(id, {f.table}, f.source, alone);
  if (n.inputs.size() != 1 || n.inputs[0] != f.source) {
    Layer& l = program_.layers.back();
    l.inputs = {f.source};
    if (l.note.empty())
      l.note = fmt::format("element-wise chain from '{}' as one lookup table 4906",
                           g_.value(f.source).name);
  }
  return true;
}

/// A Lookup with one table per channel (a per-channel constant Add/Sub/Mul/Div, a PRelu's
/// slopes, a standalone BatchNormalization) as LUT 4906 addressed by channel: each set's aux
/// tile holds the tables of its own channels (docs/arch/Stream.md, "Per-channel tables").
void Mapper::lowerChannelLookup(ir::NodeId id) {
  const ir::Node& n = g_.node(id);
  const quant::QuantNode& q = qm_.node(id);
  const Placed& in = at(n.inputs[0], n.outputs[0]);
  const int64_t channels = g_.value(n.outputs[0]).shape.at(1);
  if (in.pixelMajor || in.flattenedFrame || in.format.frame.channels != channels)
    throw Error(ErrorKind::Unsupported, ErrorContext{.node = n.name},
                fmt::format("its {} tables run along axis 1, which is not the channel axis of "
                            "the stream it reads ({} channels per position)",
                            channels, in.format.frame.channels));
  // Every lane looks up its own copy of the table (16 lookups a cycle); with per-channel tables
  // a lane's copy holds the tables of the channels it carries in turn.
  for (BusRef set : in.sets) {
    const int64_t perLane = ceilDiv(channelsOfSet(set), c_.lanes);
    if (perLane * quant::kLookupEntries > c_.lutEntries)
      throw Error(ErrorKind::Config, ErrorContext{.node = n.name, .key = "aux_tiles.lut_entries"},
                  fmt::format("each lane carries {} channels in turn and needs their {} tables "
                              "of {} entries; the LUT holds {}",
                              perLane, perLane, quant::kLookupEntries, c_.lutEntries));
  }
  ChannelLuts tables(static_cast<size_t>(channels));
  NNACCEL_ASSERT(q.lookupTables.size() == tables.size() * quant::kLookupEntries)
      << n.name << ": tables";
  for (size_t c = 0; c < tables.size(); ++c)
    std::copy_n(q.lookupTables.begin() + static_cast<std::ptrdiff_t>(c * quant::kLookupEntries),
                quant::kLookupEntries, tables[c].begin());
  lowerLut(id, tables, n.inputs[0], soleConsumer(n.inputs[0]).has_value());
  Layer& l = program_.layers.back();
  if (l.note.empty())
    l.note = fmt::format("lookup table 4906 addressed by channel: {} tables of {} entries",
                         channels, quant::kLookupEntries);
}

} // namespace nnaccel::arch::stream::detail
