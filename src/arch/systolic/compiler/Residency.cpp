/// \file
/// Residency (CompilerContext.h): which activations stay in the SBUF resident region between
/// layers (seed 000 [0071]: the memory subsystem keeps intermediate results for the next layer)
/// and which spill to DRAM. Lifetimes come from the graph: a value is live from the step that
/// produces it to its last reader, a view's readers counting for the value it aliases.
#include "CompilerContext.h"
#include "nnaccel/ir/OpKind.h"

#include <algorithm>
#include <fmt/format.h>
#include <limits>

namespace nnaccel::arch::systolic {

Residency::Residency(const ir::Graph& g, const SystolicConfig& c)
    : lastUse_(g.numValues(), -1), pinned_(g.numValues(), false), region_(residentRegionBytes(c)) {
  const auto nodes = static_cast<ir::NodeId>(g.numNodes());
  for (ir::NodeId id = 0; id < nodes; ++id)
    for (ir::ValueId v : g.node(id).inputs)
      if (v != ir::kNoValue)
        lastUse_[static_cast<size_t>(v)] = std::max<int64_t>(lastUse_[static_cast<size_t>(v)], id);
  for (ir::ValueId v : g.inputs)
    pinned_[static_cast<size_t>(v)] = true;
  for (ir::ValueId v : g.outputs) {
    pinned_[static_cast<size_t>(v)] = true;
    lastUse_[static_cast<size_t>(v)] = std::numeric_limits<int64_t>::max();
  }
  // A view's output may alias its input: its readers and its pinning pass to the input.
  for (ir::NodeId id = nodes - 1; id >= 0; --id) {
    const ir::Node& n = g.node(id);
    if (!ir::isRowMajorView(n.op) || n.inputs.empty() || n.inputs[0] == ir::kNoValue)
      continue;
    const auto in = static_cast<size_t>(n.inputs[0]);
    for (ir::ValueId out : n.outputs) {
      if (out == ir::kNoValue)
        continue;
      lastUse_[in] = std::max(lastUse_[in], lastUse_[static_cast<size_t>(out)]);
      pinned_[in] = pinned_[in] || pinned_[static_cast<size_t>(out)];
    }
  }
}

std::optional<int64_t> Residency::place(ir::ValueId v, int64_t bytes, int64_t now,
                                        std::string& spill) {
  spill.clear();
  const auto i = static_cast<size_t>(v);
  if (region_.capacityBytes() == 0 || pinned_[i])
    return std::nullopt;
  const int64_t last = std::max<int64_t>(lastUse_[i], now);
  if (const std::optional<int64_t> offset = region_.place({bytes, now, last}))
    return kResidentBase + *offset;
  spill = fmt::format("{} B; the largest extent of the {} B resident region free over its "
                      "lifetime is {} B",
                      bytes, region_.capacityBytes(), region_.largestFreeBytes(now, last));
  return std::nullopt;
}

} // namespace nnaccel::arch::systolic
