/// \file
/// The stream machine priced through the technology model (docs/arch/Stream.md, "Energy and
/// area"): the components of its kernel tiles (Figs. 46-48: the cells' selectors and adder trees,
/// the mass multipliers, the weight store, the row FIFOs), its aux tiles (Figs. 49-50) and the
/// chips of a chain, and the components each energy event uses. Which components an event uses
/// is our reading of seed 002; the figures are the technology's (docs/Technology.md), never tuned
/// here. The buses are wires along a row and a mux at each tile input; the chip links have no
/// cited figure yet: their energy stays a number and their area is not counted.
#include "nnaccel/arch/stream/Config.h"

#include <algorithm>
#include <bit>

namespace nnaccel::arch::stream {

namespace {

using tech::ComponentClass;
using tech::ComponentSpec;

ComponentSpec adder(int64_t bits) {
  return {.cls = ComponentClass::IntAdder, .widthBits = bits};
}
ComponentSpec reg(int64_t bits) {
  return {.cls = ComponentClass::Register, .widthBits = bits};
}
ComponentSpec sram(int64_t capacityBytes, int64_t wordBits, int64_t banks = 1) {
  return {.cls = ComponentClass::Sram,
          .widthBits = wordBits,
          .capacityBytes = capacityBytes,
          .banks = banks};
}

/// A product a * w of the cells: activation + weight bits (signed), the mass multiplier's values
/// one bit wider (a difference such as 16a - a before the shift).
int64_t productBits(const StreamConfig& c) {
  return c.activationBits + c.weightBits;
}
/// The adder tree 4806 of a cell sums `lanes` products: the width grows by log2(lanes).
int64_t treeAdderBits(const StreamConfig& c) {
  return productBits(c) + std::bit_width(static_cast<uint64_t>(c.lanes - 1));
}
/// A FIFO word: one position's lanes of accumulator-wide values (resourcesOf's sizing).
int64_t fifoWordBits(const StreamConfig& c) {
  return c.lanes * c.accumulatorBits;
}
int64_t fifoBytes(const StreamConfig& c, int64_t positions) {
  return positions * fifoWordBits(c) / 8;
}
/// Banks of a FIFO of \p bytes: at least \p minimum, and none above 128 KiB, the largest array
/// the SRAM model is fitted to (docs/Technology.md "Storage": larger memories are banked).
int64_t fifoBanks(int64_t bytes, int64_t minimum) {
  constexpr int64_t kLargestFittedBankBytes = 128 * 1024;
  return std::max(minimum, (bytes + kLargestFittedBankBytes - 1) / kLargestFittedBankBytes);
}
ComponentSpec fifoSram(const StreamConfig& c, int64_t positions, int64_t minimumBanks) {
  const int64_t bytes = fifoBytes(c, positions);
  return sram(bytes, fifoWordBits(c), fifoBanks(bytes, minimumBanks));
}

MassMultiplierCost massMultiplierOf(const StreamConfig& c) {
  // The simulator's construction: signed weights (a narrower enumeration than any config's).
  return massMultiplierCost(c.multiplierForm, static_cast<int>(c.weightBits), true);
}

/// Per chip: each kernel tile's cells (K x K positions x lanes outputs, each selecting or
/// multiplying one product per input lane and summing them in its adder tree and summation
/// cell), its mass multipliers (one per input lane), weight store and FIFOs.
std::vector<common::ComponentUse> kernelTileParts(const StreamConfig& c, int64_t chips) {
  const int64_t tiles = c.kernelTileCount() * chips;
  const int64_t cells = tiles * c.kernelSize * c.kernelSize * c.lanes;
  const int64_t selects = cells * c.lanes;
  std::vector<common::ComponentUse> parts;
  if (c.localMultipliers) {
    parts.push_back({"cell_multiplier",
                     {.cls = ComponentClass::IntMultiplier,
                      .widthBits = std::max(c.activationBits, c.weightBits)},
                     selects,
                     "kernel_tiles"});
  } else {
    parts.push_back({"cell_select",
                     {.cls = ComponentClass::Multiplexer,
                      .widthBits = productBits(c),
                      .inputs = c.multiplesPerMassMultiplier()},
                     selects,
                     "kernel_tiles"});
  }
  parts.push_back({"cell_adder", adder(treeAdderBits(c)), selects, "kernel_tiles"});
  parts.push_back({"cell_weights", reg(c.lanes * c.weightBits), cells, "kernel_tiles"});
  parts.push_back({"unit_adder", adder(c.accumulatorBits), tiles * c.lanes, "kernel_tiles"});
  if (!c.localMultipliers) {
    // One mass multiplier per input lane of a tile: its adders (negators count as adders) and
    // the registers of its pipeline stages.
    const MassMultiplierCost mm = massMultiplierOf(c);
    const int64_t multipliers = tiles * c.lanes;
    if (mm.adders + mm.negators > 0)
      parts.push_back({"mass_multiplier_adder", adder(productBits(c) + 1),
                       multipliers * (mm.adders + mm.negators), "mass_multipliers"});
    if (mm.registers > 0)
      parts.push_back({"mass_multiplier_register", reg(productBits(c) + 1),
                       multipliers * mm.registers, "mass_multipliers"});
  }
  // The weight store holds weight_store_pairs sets of every cell's lanes weights, one bank per
  // cell read a set (lanes weights) at a time; one set needs no store (the cells' registers).
  if (c.weightStorePairs > 1)
    parts.push_back({"weight_store",
                     sram(c.weightStorePairs * c.kernelSize * c.kernelSize * c.lanes * c.lanes *
                              c.weightBits / 8,
                          c.lanes * c.weightBits, c.kernelSize * c.kernelSize * c.lanes),
                     tiles, "weight_stores"});
  // Row FIFOs 4705: k - 1 array rows of every lane, at least one bank per row (SRAM: a row is
  // 1,920 positions in fig44); FIFO 4706: a few positions of flip-flops.
  parts.push_back({"row_fifo",
                   fifoSram(c, (c.kernelSize - 1) * c.maxArrayWidthPositions, c.kernelSize - 1),
                   tiles, "fifos"});
  if (c.auxFifoPositions > 0)
    parts.push_back({"aux_input_fifo",
                     {.cls = ComponentClass::FlipFlopFifo,
                      .widthBits = fifoWordBits(c),
                      .depth = c.auxFifoPositions},
                     tiles,
                     "fifos"});
  return parts;
}

/// Per chip: each aux tile's lanes of adders (add, compare, select), multipliers (channel
/// scale), lookup tables 4906 (one per lane, each read every cycle) and its FIFO 4902.
std::vector<common::ComponentUse> auxTileParts(const StreamConfig& c, int64_t chips) {
  const int64_t tiles = c.auxTileCount() * chips;
  if (tiles == 0)
    return {};
  const int64_t lanes = tiles * c.lanes;
  std::vector<common::ComponentUse> parts = {
      {"aux_adder", adder(c.accumulatorBits), lanes, "aux_tiles"},
      {"aux_multiplier",
       {.cls = ComponentClass::IntMultiplier, .widthBits = c.activationBits},
       lanes,
       "aux_tiles"},
      {"aux_lut",
       {.cls = ComponentClass::LookupTable,
        .widthBits = c.activationBits,
        .indexBits = std::countr_zero(static_cast<uint64_t>(c.lutEntries))},
       lanes,
       "aux_tiles"},
  };
  if (c.auxTileFifoPositions > 0)
    parts.push_back({"aux_fifo", fifoSram(c, c.auxTileFifoPositions, 1), tiles, "aux_tiles"});
  return parts;
}

/// The buses (Fig. 44): each row's output bus runs along the row, as long as its tiles side by
/// side (square tiles, our floorplan model), lanes x partial-sum bits wide (an activation set
/// uses lanes x activation bits of it); each tile input selects its set through a mux of the
/// row's choices (4403; 4407 in two halves per aux tile).
void addBuses(const StreamConfig& c, int64_t chips, common::Inventory& inv) {
  const auto kernelTiles = static_cast<double>(c.kernelTileCount() * chips);
  const auto auxTiles = static_cast<double>(c.auxTileCount() * chips);
  const double kernelTileMm2 =
      (inv.groupAreaMm2("kernel_tiles") + inv.groupAreaMm2("mass_multipliers") +
       inv.groupAreaMm2("weight_stores") + inv.groupAreaMm2("fifos")) /
      kernelTiles;
  const double auxTileMm2 = auxTiles > 0 ? inv.groupAreaMm2("aux_tiles") / auxTiles : 0.0;
  double rowUm = 0;
  int64_t choices = 2;
  for (int64_t row = 0; row < c.rows; ++row) {
    rowUm = std::max(rowUm,
                     static_cast<double>(c.tilesInRow(row)) * common::pitchUm(kernelTileMm2) +
                         static_cast<double>(c.auxTilesInRow(row)) * common::pitchUm(auxTileMm2));
    choices = std::max(choices, c.rowMuxChoices(row));
  }
  const int64_t setBits = c.lanes * c.partialSumBits;
  inv.add({"bus_wire",
           {.cls = ComponentClass::Wire, .widthBits = setBits, .lengthUm = rowUm},
           c.rows * chips,
           "buses"});
  inv.add(
      {"bus_activation_bits",
       {.cls = ComponentClass::Wire, .widthBits = c.lanes * c.activationBits, .lengthUm = rowUm},
       c.rows * chips,
       "buses"});
  inv.add({"bus_mux",
           {.cls = ComponentClass::Multiplexer, .widthBits = setBits, .inputs = choices},
           (c.kernelTileCount() + 2 * c.auxTileCount()) * chips,
           "buses"});
}

/// Each chip's link to the next of the chain (the last one's drives the output): a set of
/// activations, or of partial sums, serialized over it.
void addChipLinks(const StreamConfig& c, int64_t chips, common::Inventory& inv) {
  inv.add({"chip_link",
           {.cls = ComponentClass::SerialLink, .widthBits = c.lanes * c.activationBits},
           chips,
           "chip_links"});
  inv.add({"chip_link_partial",
           {.cls = ComponentClass::SerialLink, .widthBits = c.lanes * c.partialSumBits},
           chips,
           "chip_links"});
}

double lanesOf(const StreamConfig& c) {
  return static_cast<double>(c.lanes);
}

using Rule = common::EventRule<StreamConfig, EnergyTable, EnergyPrices>;

/// The events and their components. A cell's select-add is its selector (or, with claim 17's
/// local multipliers, its multiplier) and one adder of its tree; a FIFO value is one lane of a
/// word written and read. An event whose component the machine lacks never happens (0).
std::vector<Rule> eventRules(const StreamConfig& c) {
  using E = EnergyTable;
  using P = EnergyPrices;
  const char* product = c.localMultipliers ? "cell_multiplier" : "cell_select";
  return {
      {"cell_select_add_pj", &E::cellSelectAddPj, &P::cellSelectAddPj, {product, "cell_adder"}},
      {"mass_multiplier_add_pj",
       &E::massMultiplierAddPj,
       &P::massMultiplierAddPj,
       {"mass_multiplier_adder", "mass_multiplier_register"}},
      {"weight_load_pj", &E::weightLoadPj, &P::weightLoadPj, {"weight_store"}},
      {"fifo_value_pj",
       &E::fifoValuePj,
       &P::fifoValuePj,
       {"row_fifo.write", "row_fifo"},
       lanesOf,
       "values"},
      {"unit_add_pj", &E::unitAddPj, &P::unitAddPj, {"unit_adder"}},
      {"aux_fifo_value_pj",
       &E::auxFifoValuePj,
       &P::auxFifoValuePj,
       {"aux_fifo.write", "aux_fifo"},
       lanesOf,
       "values"},
      {"lut_lookup_pj", &E::lutLookupPj, &P::lutLookupPj, {"aux_lut"}},
      {"aux_op_pj", &E::auxOpPj, &P::auxOpPj, {"aux_adder"}},
      {"aux_multiply_pj", &E::auxMultiplyPj, &P::auxMultiplyPj, {"aux_multiplier"}},
      // A set driven along its row's bus and selected by the reading tile's mux: an aux tile's
      // activations toggle their bits of each lane, a kernel tile's partial sums all of them.
      {"bus_set_transfer_pj",
       &E::busSetTransferPj,
       &P::busSetTransferPj,
       {"bus_activation_bits", "bus_mux"}},
      {"bus_partial_set_transfer_pj",
       &E::busPartialSetTransferPj,
       &P::busPartialSetTransferPj,
       {"bus_wire", "bus_mux"}},
      // A set crossing to the next chip of the chain over its serial link.
      {"chip_link_set_pj", &E::chipLinkSetPj, &P::chipLinkSetPj, {"chip_link"}},
      {"chip_link_partial_set_pj",
       &E::chipLinkPartialSetPj,
       &P::chipLinkPartialSetPj,
       {"chip_link_partial"}},
  };
}

} // namespace

common::Inventory streamInventory(const StreamConfig& c, int64_t chips) {
  const int64_t n = chips > 0 ? chips : c.chips;
  std::vector<common::ComponentUse> uses = kernelTileParts(c, n);
  for (common::ComponentUse& u : auxTileParts(c, n))
    uses.push_back(std::move(u));
  common::Inventory inv =
      common::priceInventory(common::processNodeOf(c.technology), std::move(uses));
  addBuses(c, n, inv);
  addChipLinks(c, n, inv);
  common::addOverheads(inv, c.technology, c.clockMhz);
  return inv;
}

std::vector<engines::CostTable::Event> energyEvents(const StreamConfig& c) {
  return common::priceEvents(streamInventory(c), c, c.energy, eventRules(c));
}

EnergyPrices energyPrices(const StreamConfig& c) {
  return common::pricesOf(eventRules(c), energyEvents(c));
}

} // namespace nnaccel::arch::stream
