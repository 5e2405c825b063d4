/// \file
/// The broadcast machine priced through the technology model (docs/arch/Broadcast.md, "Energy
/// and area"): its components, and the components each energy event uses. Which components an
/// event uses is our reading of seed 004's PE (FIG. 10) and column; the figures are the
/// technology's (docs/Technology.md), never tuned here. The PE-to-PE broadcast links are wires as
/// long as a PE is wide (no area of their own).
#include "nnaccel/arch/broadcast/Config.h"

#include <algorithm>

namespace nnaccel::arch::broadcast {

namespace {

using tech::ComponentClass;
using tech::ComponentSpec;

constexpr int64_t kPartialSumWordBytesPerLane = 4;

ComponentSpec sram(int64_t capacityBytes, int64_t wordBytes, int64_t banks = 1) {
  return ComponentSpec{.cls = ComponentClass::Sram,
                       .widthBits = wordBytes * 8,
                       .capacityBytes = capacityBytes,
                       .banks = banks};
}

/// A word of \p wantBytes, but no wider than one of \p banks banks of \p capacityBytes (a
/// register file smaller than a lane-wide word is read a bank's width at a time).
int64_t wordOf(int64_t capacityBytes, int64_t wantBytes, int64_t banks = 1) {
  return std::clamp<int64_t>(wantBytes, 1, std::max<int64_t>(1, capacityBytes / banks));
}

/// A register file's word: one operand byte per MAC lane (partial sums: 4 bytes per lane).
int64_t inputRfWordBytes(const BroadcastConfig& c) {
  return wordOf(c.inputRfBytes, c.macLanesPerPe);
}
int64_t weightRfWordBytes(const BroadcastConfig& c) {
  return wordOf(c.weightRfBytes, c.macLanesPerPe);
}
int64_t outputRfWordBytes(const BroadcastConfig& c) {
  return wordOf(c.outputRfBytes, c.macLanesPerPe * kPartialSumWordBytesPerLane);
}
int64_t columnBufferWordBytes(const BroadcastConfig& c) {
  return wordOf(c.columnBufferBytes, c.drainBytesPerCycle);
}
/// The global buffer: one bank per column, each read the column's share of the bytes per cycle.
int64_t globalBufferWordBytes(const BroadcastConfig& c) {
  const auto share =
      static_cast<int64_t>(c.globalBufferBytesPerCycle / static_cast<double>(c.columns));
  return wordOf(c.globalBufferCapacityBytes, share, c.columns);
}

template <int64_t (*Word)(const BroadcastConfig&)> double bytesOf(const BroadcastConfig& c) {
  return static_cast<double>(Word(c));
}

using Rule = common::EventRule<BroadcastConfig, EnergyTable, EnergyPrices>;

const std::vector<Rule>& eventRules() {
  using E = EnergyTable;
  using P = EnergyPrices;
  static const std::vector<Rule> rules = {
      {"mac_pj", &E::macPj, &P::macPj, {"pe_multiplier", "pe_adder"}},
      {"input_rf_write_pj_per_byte",
       &E::inputRfWritePjPerByte,
       &P::inputRfWritePjPerByte,
       {"input_rf.write"},
       bytesOf<inputRfWordBytes>},
      {"input_rf_read_pj_per_byte",
       &E::inputRfReadPjPerByte,
       &P::inputRfReadPjPerByte,
       {"input_rf"},
       bytesOf<inputRfWordBytes>},
      {"weight_rf_write_pj_per_byte",
       &E::weightRfWritePjPerByte,
       &P::weightRfWritePjPerByte,
       {"weight_rf.write"},
       bytesOf<weightRfWordBytes>},
      {"weight_rf_read_pj_per_byte",
       &E::weightRfReadPjPerByte,
       &P::weightRfReadPjPerByte,
       {"weight_rf"},
       bytesOf<weightRfWordBytes>},
      // A partial sum is read and written in turn: priced as the read (the writes cost within a
      // factor of the CACTI runs' ratio, docs/Technology.md).
      {"output_rf_access_pj_per_byte",
       &E::outputRfAccessPjPerByte,
       &P::outputRfAccessPjPerByte,
       {"output_rf"},
       bytesOf<outputRfWordBytes>},
      {"column_buffer_access_pj_per_byte",
       &E::columnBufferAccessPjPerByte,
       &P::columnBufferAccessPjPerByte,
       {"column_buffer"},
       bytesOf<columnBufferWordBytes>},
      // Without a global buffer (capacity 0) these never happen: 0, "no global_buffer".
      {"global_buffer_read_pj_per_byte",
       &E::globalBufferReadPjPerByte,
       &P::globalBufferReadPjPerByte,
       {"global_buffer"},
       bytesOf<globalBufferWordBytes>},
      {"global_buffer_write_pj_per_byte",
       &E::globalBufferWritePjPerByte,
       &P::globalBufferWritePjPerByte,
       {"global_buffer.write"},
       bytesOf<globalBufferWordBytes>},
      // A byte from one PE to the next: a byte-wide wire across one PE.
      {"broadcast_pj_per_byte", &E::broadcastPjPerByte, &P::broadcastPjPerByte, {"broadcast_link"}},
  };
  return rules;
}

/// The memory 310 part's events and the prices they fill.
const common::DramEvents<EnergyPrices>& dramEvents() {
  static const common::DramEvents<EnergyPrices> events{kMemoryEnergyKeys,
                                                       {&EnergyPrices::memoryReadPjPerByte,
                                                        &EnergyPrices::memoryWritePjPerByte,
                                                        &EnergyPrices::memoryActivatePj}};
  return events;
}

} // namespace

common::Inventory broadcastInventory(const BroadcastConfig& c) {
  const int64_t pes = c.peCount();
  const int64_t lanes = pes * c.macLanesPerPe;
  const std::vector<common::ComponentUse> uses = {
      // Each MAC lane: an int8 multiplier and the int32 adder of its partial sum.
      {"pe_multiplier", ComponentSpec{.cls = ComponentClass::IntMultiplier, .widthBits = 8}, lanes,
       "pe_array"},
      {"pe_adder", ComponentSpec{.cls = ComponentClass::IntAdder, .widthBits = 32}, lanes,
       "pe_array"},
      // Each PE's register files (FIG. 10), small SRAMs read a lane-wide word at a time.
      {"input_rf", sram(c.inputRfBytes, inputRfWordBytes(c)), pes, "register_files"},
      {"weight_rf", sram(c.weightRfBytes, weightRfWordBytes(c)), pes, "register_files"},
      {"output_rf", sram(c.outputRfBytes, outputRfWordBytes(c)), pes, "register_files"},
      {"column_buffer", sram(c.columnBufferBytes, columnBufferWordBytes(c)), c.columns,
       "column_buffers"},
  };
  std::vector<common::ComponentUse> all = uses;
  // global_buffer.capacity_bytes 0: no global buffer, everything goes to memory 310.
  if (c.globalBufferCapacityBytes > 0)
    all.push_back({"global_buffer",
                   sram(c.globalBufferCapacityBytes, globalBufferWordBytes(c), c.columns), 1,
                   "global_buffer"});
  common::Inventory inv =
      common::priceInventory(common::processNodeOf(c.technology), std::move(all));
  // The PE-to-PE links (FIG. 7/8): one byte-wide wire per PE, as long as a PE (its MAC lanes and
  // register files) is wide.
  const double peMm2 = (inv.groupAreaMm2("pe_array") + inv.groupAreaMm2("register_files")) /
                       static_cast<double>(pes);
  inv.add({"broadcast_link",
           ComponentSpec{
               .cls = ComponentClass::Wire, .widthBits = 8, .lengthUm = common::pitchUm(peMm2)},
           pes, "pe_array"});
  common::addOverheads(inv, c.technology, c.clockMhz);
  return inv;
}

std::vector<engines::CostTable::Event> energyEvents(const BroadcastConfig& c) {
  return common::priceEventsWithDram(broadcastInventory(c), c, c.energy, eventRules(), c.memory,
                                     c.memorySettings(), dramEvents());
}

EnergyPrices energyPrices(const BroadcastConfig& c) {
  return common::pricesWithDram(eventRules(), dramEvents(), energyEvents(c));
}

} // namespace nnaccel::arch::broadcast
