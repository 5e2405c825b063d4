/// \file
/// The sparse (SCNN) machine priced through the technology model (docs/arch/Sparse.md, "Energy
/// and area"): its components, and the components each energy event uses. Which components an
/// event uses is our reading of seed 001 and the SCNN paper's PE; the figures are the
/// technology's (docs/Technology.md), never tuned here. The scatter crossbar is its lanes' input
/// FIFOs and, per accumulator bank, an arbiter and a multiplexer (with two stages, Fig. 3E: a
/// smaller arbiter and multiplexer per stage-1 output and per bank); a combining buffer is
/// flip-flop entries, one address comparator per entry and an adder per bank; a halo link is a
/// wire as long as a PE is wide.
#include "nnaccel/arch/sparse/Config.h"

#include <algorithm>
#include <bit>
#include <fmt/format.h>
#include <string>

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

/// A product on its way to a bank: 2 x value_bits, and its entry's address in the bank.
int64_t crossbarWordBits(const SparseConfig& c) {
  return 2 * c.valueBits + std::bit_width(static_cast<uint64_t>(c.accumulatorBankEntries - 1));
}

/// A bank's entry address (log2 entries_per_bank bits, at least 1: a comparator's width).
int64_t bankAddressBits(const SparseConfig& c) {
  return std::max<int64_t>(1, std::bit_width(static_cast<uint64_t>(c.accumulatorBankEntries - 1)));
}

/// Two stages: a stage-1 output also carries the bank within its stage-2 instance (log2 I).
int64_t stage1WordBits(const SparseConfig& c) {
  return crossbarWordBits(c) + std::bit_width(static_cast<uint64_t>(c.activationsPerVector - 1));
}

/// A halo message: the partial sum and its position in the neighbour's plane (an accumulator
/// address and a bank: log2 of entries x banks).
int64_t haloMessageBits(const SparseConfig& c) {
  return c.accumulatorBits +
         std::bit_width(static_cast<uint64_t>(c.accumulatorBankEntries * c.accumulatorBanks - 1));
}

double weightVectorBytes(const SparseConfig& c) {
  return static_cast<double>(weightVectorBits(c)) / 8;
}
double iaWordBytes(const SparseConfig& c) {
  return static_cast<double>(iaWordBits(c)) / 8;
}
double oaWordBytes(const SparseConfig& c) {
  return static_cast<double>(oaWordBits(c)) / 8;
}

using Rule = common::EventRule<SparseConfig, EnergyTable, EnergyPrices>;

/// What one product through the crossbar uses: its lane FIFO in and out, an arbitration and a
/// selection (at each stage), and with a combining buffer the entry read, add and write (the
/// comparators are added in energyEvents: one per entry).
std::vector<std::string> crossbarParts(const SparseConfig& c) {
  std::vector<std::string> parts = {"crossbar_fifo.write", "crossbar_fifo", "crossbar_arbiter",
                                    "crossbar_mux"};
  if (c.crossbarStages == 2) {
    parts.emplace_back("crossbar_stage2_arbiter");
    parts.emplace_back("crossbar_stage2_mux");
  }
  if (c.combiningBufferEntries > 0) {
    parts.emplace_back("combining_buffer");
    parts.emplace_back("combining_adder");
    parts.emplace_back("combining_buffer.write");
  }
  return parts;
}

std::vector<Rule> eventRules(const SparseConfig& c) {
  using E = EnergyTable;
  using P = EnergyPrices;
  return {
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
       weightVectorBytes},
      {"weight_fifo_write_pj_per_byte",
       &E::weightFifoWritePjPerByte,
       &P::weightFifoWritePjPerByte,
       {"weight_fifo.write"},
       weightVectorBytes},
      {"ia_ram_read_pj_per_byte",
       &E::iaRamReadPjPerByte,
       &P::iaRamReadPjPerByte,
       {"ia_ram"},
       iaWordBytes},
      {"oa_ram_write_pj_per_byte",
       &E::oaRamWritePjPerByte,
       &P::oaRamWritePjPerByte,
       {"oa_ram.write"},
       oaWordBytes},
      {"ppu_op_pj", &E::ppuOpPj, &P::ppuOpPj, {"ppu_alu"}},
      // A halo message: an accumulator value and its address, on a wire across one PE.
      {"halo_pj", &E::haloPj, &P::haloPj, {"halo_link"}},
      // A product through the scatter crossbar: into its lane's input FIFO and out, the
      // arbitration that grants it its bank, and one selection in the bank's multiplexer (two
      // of each with two stages); with a combining buffer, its match, add and entry write.
      {"crossbar_pj", &E::crossbarPj, &P::crossbarPj, crossbarParts(c)},
  };
}

} // namespace

common::Inventory sparseInventory(const SparseConfig& c) {
  const int64_t pes = c.peCount();
  const int64_t bankSets = c.doubleBufferedAccumulators ? 2 : 1;
  std::vector<common::ComponentUse> uses = {
      // Each PE: the F x I multiplier array of value_bits operands.
      {"pe_multiplier", arith(ComponentClass::IntMultiplier, c.valueBits),
       pes * c.multipliersPerPe(), "multipliers"},
      // The accumulator banks (each a small SRAM of accumulator_bits words; two sets when
      // double-buffered) and an adder per bank. A bank completes a read-modify-write each
      // cycle, reading one entry and writing another: a 1R1W array (two ports).
      {"accumulator_bank",
       ComponentSpec{.cls = ComponentClass::Sram,
                     .widthBits = c.accumulatorBits,
                     .capacityBytes = (c.accumulatorBankEntries * c.accumulatorBits + 7) / 8,
                     .ports = 2},
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
      // The scatter crossbar (FIG. 6): a FIFO of crossbar_fifo_depth products (with their bank
      // addresses) per multiplier lane (per lane and bank with virtual output queues), and per
      // accumulator bank an arbiter among the F x I lanes and an F x I : 1 multiplexer.
      {"crossbar_fifo",
       ComponentSpec{.cls = ComponentClass::FlipFlopFifo,
                     .widthBits = crossbarWordBits(c),
                     .depth = c.crossbarFifoDepth},
       pes * c.multipliersPerPe() *
           (c.crossbarQueues == CrossbarQueues::PerBank ? c.accumulatorBanks : 1),
       "crossbar"},
  };
  if (c.crossbarStages == 2) {
    // Fig. 3E: stage 1 is I instances of an F -> A / I crossbar, an arbiter among F lanes and
    // an F : 1 multiplexer per output (A per PE); stage 2 is A / I instances of an I -> I
    // crossbar, an arbiter among I inputs and an I : 1 multiplexer per bank (A per PE).
    uses.push_back({"crossbar_arbiter",
                    ComponentSpec{.cls = ComponentClass::Arbiter, .inputs = c.weightsPerVector},
                    pes * c.accumulatorBanks, "crossbar"});
    uses.push_back({"crossbar_mux",
                    ComponentSpec{.cls = ComponentClass::Multiplexer,
                                  .widthBits = stage1WordBits(c),
                                  .inputs = c.weightsPerVector},
                    pes * c.accumulatorBanks, "crossbar"});
    uses.push_back({"crossbar_stage2_arbiter",
                    ComponentSpec{.cls = ComponentClass::Arbiter, .inputs = c.activationsPerVector},
                    pes * c.accumulatorBanks, "crossbar"});
    uses.push_back({"crossbar_stage2_mux",
                    ComponentSpec{.cls = ComponentClass::Multiplexer,
                                  .widthBits = crossbarWordBits(c),
                                  .inputs = c.activationsPerVector},
                    pes * c.accumulatorBanks, "crossbar"});
  } else {
    uses.push_back({"crossbar_arbiter",
                    ComponentSpec{.cls = ComponentClass::Arbiter,
                                  .inputs = std::max<int64_t>(2, c.multipliersPerPe())},
                    pes * c.accumulatorBanks, "crossbar"});
    uses.push_back({"crossbar_mux",
                    ComponentSpec{.cls = ComponentClass::Multiplexer,
                                  .widthBits = crossbarWordBits(c),
                                  .inputs = std::max<int64_t>(2, c.multipliersPerPe())},
                    pes * c.accumulatorBanks, "crossbar"});
  }
  if (c.combiningBufferEntries > 0) {
    // Seed 001 ¶0103: per bank, combining_entries flip-flop entries (a partial sum of
    // accumulator_bits and its address), a comparator per entry matching an arriving
    // product's address (priced as an adder of the address width: a compare is a subtraction)
    // and the adder that adds a product into its entry.
    uses.push_back({"combining_buffer",
                    ComponentSpec{.cls = ComponentClass::FlipFlopFifo,
                                  .widthBits = c.accumulatorBits + bankAddressBits(c),
                                  .depth = c.combiningBufferEntries},
                    pes * c.accumulatorBanks, "combining_buffer"});
    uses.push_back({"combining_comparator", arith(ComponentClass::IntAdder, bankAddressBits(c)),
                    pes * c.accumulatorBanks * c.combiningBufferEntries, "combining_buffer",
                    "address comparator (priced as an adder of the address width)"});
    uses.push_back({"combining_adder", arith(ComponentClass::IntAdder, c.accumulatorBits),
                    pes * c.accumulatorBanks, "combining_buffer"});
  }
  // The post-processing unit: one 32-bit ALU operation per cycle per PE.
  uses.push_back({"ppu_alu", arith(ComponentClass::IntAdder, 32), pes * c.ppuOpsPerCycle, "ppu"});
  common::Inventory inv = common::priceInventory(common::processNodeOf(c.technology), uses);
  // The halo links (a PE to each neighbour): a message's bits on a wire across one PE.
  inv.add({"halo_link",
           ComponentSpec{.cls = ComponentClass::Wire,
                         .widthBits = haloMessageBits(c),
                         .lengthUm = common::pitchUm(inv.areaMm2() / static_cast<double>(pes))},
           pes, "crossbar"});
  common::addOverheads(inv, c.technology, c.clockMhz);
  return inv;
}

std::vector<engines::CostTable::Event> energyEvents(const SparseConfig& c) {
  const common::Inventory inv = sparseInventory(c);
  const std::vector<Rule> rules = eventRules(c);
  std::vector<engines::CostTable::Event> events =
      common::priceEventsWithDram(inv, c, c.energy, rules, c.dram, c.dramSettings(),
                                  common::dramEventsOfDramKeys<EnergyPrices>());
  if (c.combiningBufferEntries > 0 && !c.energy.crossbarPj) {
    // An arriving product is compared with every entry of its bank's buffer.
    const auto it = std::find_if(rules.begin(), rules.end(),
                                 [](const Rule& r) { return std::string(r.key) == "crossbar_pj"; });
    engines::CostTable::Event& e = events.at(static_cast<size_t>(it - rules.begin()));
    e.pj += static_cast<double>(c.combiningBufferEntries) *
            common::partEnergyPj(inv, "combining_comparator");
    e.basis += fmt::format(" + {} x combining_comparator", c.combiningBufferEntries);
  }
  return events;
}

EnergyPrices energyPrices(const SparseConfig& c) {
  return common::pricesWithDram(eventRules(c), common::dramEventsOfDramKeys<EnergyPrices>(),
                                energyEvents(c));
}

} // namespace nnaccel::arch::sparse
