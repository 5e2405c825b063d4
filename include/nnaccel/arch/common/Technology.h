/// \file
/// How an engine prices itself through the technology model (docs/Technology.md): the
/// `technology:` section every engine config shares (a node, its supply and the chip-level
/// overhead shares), the machine's inventory of components, priced at that node, with the clock
/// network and control added, and the report fields it fills (area by component, leakage, the
/// clock network's energy per cycle, and through RunReport::finalize the static energy).
#pragma once

#include "nnaccel/config/ConfigReader.h"
#include "nnaccel/engines/Engine.h"
#include "nnaccel/report/Report.h"
#include "nnaccel/tech/Components.h"
#include "nnaccel/tech/Overhead.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace nnaccel::arch::common {

/// The `technology:` section of an engine config.
struct TechnologyConfig {
  std::string node = "45nm";
  std::optional<double> vddV; ///< nullopt (`auto`): the node's nominal supply
  /// Chip-level overhead shares (tech/Overhead.h); nullopt (`auto`): the published figure.
  std::optional<double> clockPowerShare, clockAreaShare, controlAreaShare;

  bool operator==(const TechnologyConfig&) const = default;
};

inline constexpr config::RealRange kVddRange{0.4, false, 2.0};
/// An overhead's share of the chip: the two area shares together stay below 0.9.
inline constexpr config::RealRange kChipShareRange{0.0, false, 0.45};

/// The section's schema (ConfigReader, ConfigChecker or ConfigWriter).
template <typename Visitor, typename T> void walkTechnology(Visitor& v, T& t) {
  v.section("technology", [&] {
    v.text("node", t.node);
    v.optionalReal("vdd_v", t.vddV, kVddRange);
    v.optionalReal("clock_power_share", t.clockPowerShare, kChipShareRange);
    v.optionalReal("clock_area_share", t.clockAreaShare, kChipShareRange);
    v.optionalReal("control_area_share", t.controlAreaShare, kChipShareRange);
  });
}

/// The process node \p t names; an unknown node fails \p checker at `technology.node`.
tech::ProcessNode processNodeOf(const TechnologyConfig& t, const config::ConfigPath& checker);
/// The same for a config already validated (asserts the node is known).
tech::ProcessNode processNodeOf(const TechnologyConfig& t);

/// One kind of component of a machine: its name in reports ("pe_multiplier"), what it is, how
/// many, and the report group its area is shown under ("pe_array").
struct ComponentUse {
  std::string name;
  tech::ComponentSpec spec;
  int64_t count = 1;
  std::string group;
  std::string what; ///< how `arch cost` describes it ("": tech::describe(spec))
};

struct PricedComponent {
  ComponentUse use;
  tech::ComponentCost cost; ///< one instance
  double areaMm2() const { return cost.areaUm2 * static_cast<double>(use.count) * 1e-6; }
  double leakageW() const { return cost.leakageW * static_cast<double>(use.count); }
};

/// A machine's components priced at one node.
struct Inventory {
  tech::ProcessNode node;
  std::vector<PricedComponent> parts;

  /// The part named \p name (asserts it exists).
  const PricedComponent& part(const std::string& name) const;
  /// The part named \p name, or nullptr.
  const PricedComponent* find(const std::string& name) const;
  double areaMm2() const;
  double leakageW() const;
  /// Area of the parts of group \p group.
  double groupAreaMm2(std::string_view group) const;
  /// Prices \p use at this inventory's node and appends it (a part sized from the others, such
  /// as a wire as long as a tile is wide).
  void add(ComponentUse use);
  /// Area per group, in first-appearance order (sums to areaMm2()).
  std::vector<std::pair<std::string, double>> areaMm2ByGroup() const;
  /// The report's technology fields.
  report::TechnologySummary summary() const;
  /// `arch cost`'s table: these components and \p events (each event's price and basis).
  engines::CostTable costTable(std::vector<engines::CostTable::Event> events) const;
};

/// The overhead shares \p t gives (its numbers, else the published ones).
tech::ChipShares chipSharesOf(const TechnologyConfig& t);

/// Appends the clock network and control to \p inv (docs/Technology.md, "Clock network and
/// control"), last, once every other part is in: their areas as their shares of the finished
/// chip; control's leakage at logic's rate; the clock network's energy per cycle as its share of
/// the chip's peak power at \p clockMhz (every other part acting once, and the leakage). The
/// clock runs every cycle, so reports charge that energy per cycle (summary's clockPjPerCycle).
void addOverheads(Inventory& inv, const TechnologyConfig& t, double clockMhz);

/// The energy of part \p name of \p inv: "x" is one action (or read) of component x, "x.write"
/// one write (asserts the part exists).
double partEnergyPj(const Inventory& inv, const std::string& name);

/// One `energy:` key of an engine config as the simulator charges it: \p configured when the
/// config gives a number, else the sum of \p parts (partEnergyPj) over \p per (a word's bytes,
/// for a per-byte key, or its values; the basis then says "/ N bytes" or "/ N <perUnit>"). An
/// event that uses a component
/// the machine does not have (an int8-only array's fp32 MAC, a missing global buffer) never
/// happens: 0, "no X".
engines::CostTable::Event priceEvent(const Inventory& inv, const std::string& key,
                                     const std::optional<double>& configured,
                                     const std::vector<std::string>& parts, double per = 1,
                                     std::string_view perUnit = "bytes");

/// An engine's `energy:` key that is `auto` or a number (in \p Table) and that its simulator
/// reads from \p Prices: the components it uses and, for a key per byte (or per value), how
/// many of them one access of the components moves.
template <typename Config, typename Table, typename Prices> struct EventRule {
  const char* key;
  std::optional<double> Table::*configured;
  double Prices::*price;
  std::vector<std::string> parts;
  double (*perAccess)(const Config&) = nullptr;
  const char* perUnit = "bytes";
};
/// \p rules priced for config \p c with energy table \p e: `arch cost`'s events.
template <typename Config, typename Table, typename Prices>
std::vector<engines::CostTable::Event>
priceEvents(const Inventory& inv, const Config& c, const Table& e,
            const std::vector<EventRule<Config, Table, Prices>>& rules) {
  std::vector<engines::CostTable::Event> events;
  for (const auto& r : rules)
    events.push_back(priceEvent(inv, r.key, e.*r.configured, r.parts,
                                r.perAccess ? r.perAccess(c) : 1.0, r.perUnit));
  return events;
}

/// The simulator's prices from priceEvents' \p events (in the same rule order).
template <typename Config, typename Table, typename Prices>
Prices pricesOf(const std::vector<EventRule<Config, Table, Prices>>& rules,
                const std::vector<engines::CostTable::Event>& events) {
  Prices p;
  size_t i = 0;
  for (const auto& r : rules)
    p.*r.price = events.at(i++).pj;
  return p;
}

/// The side of a square of \p areaMm2, in micrometres: the pitch of a tile or PE of that area,
/// the length of a wire that crosses it (our floorplan model: square tiles side by side).
double pitchUm(double areaMm2);

/// Prices \p uses at \p node (tech::costOf per kind).
Inventory priceInventory(const tech::ProcessNode& node, std::vector<ComponentUse> uses);

} // namespace nnaccel::arch::common
