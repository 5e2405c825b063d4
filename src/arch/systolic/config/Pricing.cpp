/// \file
/// The systolic machine priced through the technology model (docs/arch/Systolic.md, "Energy and
/// area"): its components, and the components each energy event uses. Which components an event
/// uses is our reading of seed 000's datapath; their figures are the technology's
/// (docs/Technology.md), never tuned here.
#include "nnaccel/arch/systolic/Config.h"

#include <algorithm>

namespace nnaccel::arch::systolic {

namespace {

using tech::ComponentClass;
using tech::ComponentSpec;

constexpr int64_t kPsumEntryBits = 32;

/// One SBUF partition's word: the DMA's bytes per cycle shared by the partitions, at least a
/// byte (the array reads one int8 per partition per cycle) and at most the partition.
int64_t sbufWordBits(const SystolicConfig& c) {
  const auto bytes = static_cast<int64_t>(c.sbufDmaBytesPerCycle / static_cast<double>(c.peRows));
  return std::clamp<int64_t>(bytes, 1, c.sbufBytesPerPartition) * 8;
}

ComponentSpec arith(ComponentClass cls, int64_t widthBits) {
  return ComponentSpec{.cls = cls, .widthBits = widthBits};
}

} // namespace

common::Inventory systolicInventory(const SystolicConfig& c) {
  using common::ComponentUse;
  const int64_t pes = c.peRows * c.peCols;
  std::vector<ComponentUse> uses = {
      // Each PE: an int8 multiplier, the int32 adder of the partial sum it passes down, the
      // weight register (and its shadow) and the partial-sum register.
      {"pe_multiplier", arith(ComponentClass::IntMultiplier, 8), pes, "pe_array"},
      {"pe_adder", arith(ComponentClass::IntAdder, 32), pes, "pe_array"},
      {"pe_weight_register", arith(ComponentClass::Register, 8), pes * (c.shadowWeights ? 2 : 1),
       "pe_array"},
      {"pe_psum_register", arith(ComponentClass::Register, kPsumEntryBits), pes, "pe_array"},
  };
  if (c.supports(DType::F32)) {
    uses.push_back(
        {"pe_fp32_multiplier", arith(ComponentClass::FpMultiplier, 32), pes, "pe_array"});
    uses.push_back({"pe_fp32_adder", arith(ComponentClass::FpAdder, 32), pes, "pe_array"});
  }
  uses.push_back({"sbuf",
                  ComponentSpec{.cls = ComponentClass::Sram,
                                .widthBits = sbufWordBits(c),
                                .capacityBytes = c.sbufBytesPerPartition},
                  c.peRows, "sbuf"});
  // A PSUM column accumulates a partial sum each cycle: it reads one entry and writes another in
  // the same cycle, a 1R1W array (two ports).
  uses.push_back({"psum",
                  ComponentSpec{.cls = ComponentClass::Sram,
                                .widthBits = kPsumEntryBits,
                                .capacityBytes = c.psumEntriesPerColumn * kPsumEntryBits / 8,
                                .ports = 2},
                  c.peCols, "psum"});
  // The activation engine requantizes one value per PSUM column per cycle: a 32-bit multiply
  // by the fixed-point multiplier and a 32-bit add (rounding and zero point).
  uses.push_back(
      {"act_multiplier", arith(ComponentClass::IntMultiplier, 32), c.peCols, "activation"});
  uses.push_back({"act_adder", arith(ComponentClass::IntAdder, 32), c.peCols, "activation"});
  // The pooling/vector engine: a 32-bit adder (sum or compare) and a 256-entry table per lane.
  uses.push_back({"pool_alu", arith(ComponentClass::IntAdder, 32), c.poolLanes, "pool"});
  uses.push_back({"pool_lookup_table",
                  ComponentSpec{.cls = ComponentClass::LookupTable, .widthBits = 8, .indexBits = 8},
                  c.poolLanes, "pool"});
  common::Inventory inv =
      common::priceInventory(common::processNodeOf(c.technology), std::move(uses));
  common::addOverheads(inv, c.technology, c.clockMhz);
  return inv;
}

namespace {

using Rule = common::EventRule<SystolicConfig, EnergyTable, EnergyPrices>;

double sbufWordBytes(const SystolicConfig& c) {
  return static_cast<double>(sbufWordBits(c)) / 8;
}

/// Each on-chip event and the components it uses ("name.write" for a write).
const std::vector<Rule>& eventRules() {
  using E = EnergyTable;
  using P = EnergyPrices;
  static const std::vector<Rule> rules = {
      {"mac_int8_pj", &E::macInt8Pj, &P::macInt8Pj, {"pe_multiplier", "pe_adder"}},
      // An int8-only array never runs an fp32 MAC (priced 0, "no pe_fp32_multiplier").
      {"mac_fp32_pj", &E::macFp32Pj, &P::macFp32Pj, {"pe_fp32_multiplier", "pe_fp32_adder"}},
      {"sbuf_read_pj_per_byte",
       &E::sbufReadPjPerByte,
       &P::sbufReadPjPerByte,
       {"sbuf"},
       sbufWordBytes},
      {"sbuf_write_pj_per_byte",
       &E::sbufWritePjPerByte,
       &P::sbufWritePjPerByte,
       {"sbuf.write"},
       sbufWordBytes},
      {"psum_read_pj_per_entry", &E::psumReadPjPerEntry, &P::psumReadPjPerEntry, {"psum"}},
      {"psum_write_pj_per_entry", &E::psumWritePjPerEntry, &P::psumWritePjPerEntry, {"psum.write"}},
      {"act_op_pj", &E::actOpPj, &P::actOpPj, {"act_multiplier", "act_adder"}},
      {"pool_op_pj", &E::poolOpPj, &P::poolOpPj, {"pool_alu"}},
      // A weight byte moved into a PE: one 8-bit register's access.
      {"weight_load_pj_per_byte",
       &E::weightLoadPjPerByte,
       &P::weightLoadPjPerByte,
       {"pe_weight_register"}},
  };
  return rules;
}

} // namespace

std::vector<engines::CostTable::Event> energyEvents(const SystolicConfig& c) {
  return common::priceEventsWithDram(systolicInventory(c), c, c.energy, eventRules(), c.dram,
                                     c.dramSettings(),
                                     common::dramEventsOfDramKeys<EnergyPrices>());
}

EnergyPrices energyPrices(const SystolicConfig& c) {
  return common::pricesWithDram(eventRules(), common::dramEventsOfDramKeys<EnergyPrices>(),
                                energyEvents(c));
}

} // namespace nnaccel::arch::systolic
