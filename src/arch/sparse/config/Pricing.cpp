/// \file
/// The sparse (SCNN) machine priced through the technology model (docs/arch/Sparse.md, "Energy
/// and area"): its components, and the components each energy event uses. Which components an
/// event uses is our reading of seed 001 and the SCNN paper's PE; the figures are the
/// technology's (docs/Technology.md), never tuned here. The scatter crossbar and the halo links
/// have no cited figure yet: their energies stay numbers and their area is not counted.
#include "nnaccel/arch/sparse/Config.h"

#include <algorithm>

namespace nnaccel::arch::sparse {

namespace {

using tech::ComponentClass;
using tech::ComponentSpec;

ComponentSpec arith(ComponentClass cls, int64_t widthBits) {
  return ComponentSpec{.cls = cls, .widthBits = widthBits};
}

/// An F-wide weight vector (values and their indices), the FIFO's entry.
int64_t weightVectorBits(const SparseConfig& c) {
  return c.weightsPerVector * (c.valueBits + c.indexBits);
}
/// An I-wide activation vector, the activation RAMs' word (no wider than the RAM itself).
int64_t activationVectorBits(const SparseConfig& c) {
  return c.activationsPerVector * (c.valueBits + c.indexBits);
}
int64_t iaWordBits(const SparseConfig& c) {
  return std::min(activationVectorBits(c), c.iaRamBytes * 8);
}
int64_t oaWordBits(const SparseConfig& c) {
  return std::min(activationVectorBits(c), c.oaRamBytes * 8);
}

struct EventRule {
  const char* key;
  std::optional<double> EnergyTable::*configured;
  double EnergyPrices::*price;
  std::vector<std::string> parts;
  int64_t (*wordBits)(const SparseConfig&) = nullptr; ///< per byte of this word
};

const std::vector<EventRule>& eventRules() {
  using E = EnergyTable;
  using P = EnergyPrices;
  static const std::vector<EventRule> rules = {
      {"multiply_pj", &E::multiplyPj, &P::multiplyPj, {"pe_multiplier"}},
      // A scatter-add: the bank's read, the adder, the bank's write.
      {"accumulator_rmw_pj",
       &E::accumulatorRmwPj,
       &P::accumulatorRmwPj,
       {"accumulator_bank", "accumulator_adder", "accumulator_bank.write"}},
      {"weight_fifo_read_pj_per_byte",
       &E::weightFifoReadPjPerByte,
       &P::weightFifoReadPjPerByte,
       {"weight_fifo"},
       weightVectorBits},
      {"weight_fifo_write_pj_per_byte",
       &E::weightFifoWritePjPerByte,
       &P::weightFifoWritePjPerByte,
       {"weight_fifo.write"},
       weightVectorBits},
      {"ia_ram_read_pj_per_byte",
       &E::iaRamReadPjPerByte,
       &P::iaRamReadPjPerByte,
       {"ia_ram"},
       iaWordBits},
      {"oa_ram_write_pj_per_byte",
       &E::oaRamWritePjPerByte,
       &P::oaRamWritePjPerByte,
       {"oa_ram.write"},
       oaWordBits},
      {"ppu_op_pj", &E::ppuOpPj, &P::ppuOpPj, {"ppu_alu"}},
  };
  return rules;
}

} // namespace

common::Inventory sparseInventory(const SparseConfig& c) {
  const int64_t pes = c.peCount();
  const int64_t bankSets = c.doubleBufferedAccumulators ? 2 : 1;
  const std::vector<common::ComponentUse> uses = {
      // Each PE: the F x I multiplier array of value_bits operands.
      {"pe_multiplier", arith(ComponentClass::IntMultiplier, c.valueBits),
       pes * c.multipliersPerPe(), "multipliers"},
      // The accumulator banks (each a small SRAM of accumulator_bits words; two sets when
      // double-buffered) and an adder per bank.
      {"accumulator_bank",
       ComponentSpec{.cls = ComponentClass::Sram,
                     .widthBits = c.accumulatorBits,
                     .capacityBytes = (c.accumulatorBankEntries * c.accumulatorBits + 7) / 8},
       pes * c.accumulatorBanks * bankSets, "accumulators"},
      {"accumulator_adder", arith(ComponentClass::IntAdder, c.accumulatorBits),
       pes * c.accumulatorBanks, "accumulators"},
      // The weight FIFO: F-wide weight vectors in flip-flops.
      {"weight_fifo",
       ComponentSpec{.cls = ComponentClass::FlipFlopFifo,
                     .widthBits = weightVectorBits(c),
                     .depth = c.weightFifoEntries},
       pes, "weight_fifo"},
      {"ia_ram",
       ComponentSpec{
           .cls = ComponentClass::Sram, .widthBits = iaWordBits(c), .capacityBytes = c.iaRamBytes},
       pes, "activation_rams"},
      {"oa_ram",
       ComponentSpec{
           .cls = ComponentClass::Sram, .widthBits = oaWordBits(c), .capacityBytes = c.oaRamBytes},
       pes, "activation_rams"},
      // The post-processing unit: one 32-bit ALU operation per cycle per PE.
      {"ppu_alu", arith(ComponentClass::IntAdder, 32), pes * c.ppuOpsPerCycle, "ppu"},
  };
  return common::priceInventory(common::processNodeOf(c.technology), uses);
}

std::vector<engines::CostTable::Event> energyEvents(const SparseConfig& c) {
  const common::Inventory inv = sparseInventory(c);
  std::vector<engines::CostTable::Event> events;
  for (const EventRule& r : eventRules())
    events.push_back(common::priceEvent(inv, r.key, c.energy.*r.configured, r.parts,
                                        r.wordBits ? static_cast<double>(r.wordBits(c)) / 8 : 1.0));
  const EnergyTable& e = c.energy;
  events.push_back({"crossbar_pj", e.crossbarPj, "configured"});
  events.push_back({"halo_pj", e.haloPj, "configured"});
  events.push_back({"dram_read_pj_per_byte", e.dramReadPjPerByte, "configured"});
  events.push_back({"dram_write_pj_per_byte", e.dramWritePjPerByte, "configured"});
  return events;
}

EnergyPrices energyPrices(const SparseConfig& c) {
  const std::vector<engines::CostTable::Event> events = energyEvents(c);
  EnergyPrices p;
  for (size_t i = 0; i < eventRules().size(); ++i)
    p.*eventRules()[i].price = events[i].pj;
  const EnergyTable& e = c.energy;
  p.crossbarPj = e.crossbarPj;
  p.haloPj = e.haloPj;
  p.dramReadPjPerByte = e.dramReadPjPerByte;
  p.dramWritePjPerByte = e.dramWritePjPerByte;
  return p;
}

} // namespace nnaccel::arch::sparse
