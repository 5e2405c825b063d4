/// \file
/// Engines' inventories priced through the technology model (Technology.h).
#include "nnaccel/arch/common/Technology.h"

#include "nnaccel/support/Error.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

namespace nnaccel::arch::common {

namespace {

/// The clock network's part: its action is one clock cycle.
constexpr std::string_view kClockNetwork = "clock_network";

std::optional<tech::ProcessNode> tryNode(const TechnologyConfig& t, std::string& why) {
  try {
    return tech::node(t.node, t.vddV);
  } catch (const Error& e) {
    why = e.reason();
    return std::nullopt;
  }
}

} // namespace

tech::ProcessNode processNodeOf(const TechnologyConfig& t, const config::ConfigPath& checker) {
  std::string why;
  std::optional<tech::ProcessNode> n = tryNode(t, why);
  if (!n)
    checker.fail(why.starts_with("supply") ? "technology.vdd_v" : "technology.node", why);
  return *n;
}

tech::ProcessNode processNodeOf(const TechnologyConfig& t) {
  std::string why;
  std::optional<tech::ProcessNode> n = tryNode(t, why);
  NNACCEL_ASSERT(n.has_value()) << "technology not validated: " << why;
  return *n;
}

const PricedComponent* Inventory::find(const std::string& name) const {
  const auto it = std::find_if(parts.begin(), parts.end(),
                               [&](const PricedComponent& p) { return p.use.name == name; });
  return it == parts.end() ? nullptr : &*it;
}

const PricedComponent& Inventory::part(const std::string& name) const {
  const PricedComponent* p = find(name);
  NNACCEL_ASSERT(p != nullptr) << "no component '" << name << "' in the inventory";
  return *p;
}

double Inventory::areaMm2() const {
  double a = 0;
  for (const PricedComponent& p : parts)
    a += p.areaMm2();
  return a;
}

double Inventory::leakageW() const {
  double w = 0;
  for (const PricedComponent& p : parts)
    w += p.leakageW();
  return w;
}

double Inventory::groupAreaMm2(std::string_view group) const {
  double a = 0;
  for (const PricedComponent& p : parts)
    a += p.use.group == group ? p.areaMm2() : 0.0;
  return a;
}

void Inventory::add(ComponentUse use) {
  Inventory one = priceInventory(node, {std::move(use)});
  parts.push_back(std::move(one.parts.front()));
}

double pitchUm(double areaMm2) {
  return std::sqrt(std::max(0.0, areaMm2)) * 1e3;
}

std::vector<std::pair<std::string, double>> Inventory::areaMm2ByGroup() const {
  std::vector<std::pair<std::string, double>> groups;
  for (const PricedComponent& p : parts) {
    auto it = std::find_if(groups.begin(), groups.end(),
                           [&](const auto& g) { return g.first == p.use.group; });
    if (it == groups.end())
      groups.emplace_back(p.use.group, p.areaMm2());
    else
      it->second += p.areaMm2();
  }
  return groups;
}

report::TechnologySummary Inventory::summary() const {
  const PricedComponent* clock = find(std::string(kClockNetwork));
  return {node.name,        node.vddV,  areaMm2(),
          areaMm2ByGroup(), leakageW(), clock ? clock->cost.readEnergyPj : 0.0};
}

tech::ChipShares chipSharesOf(const TechnologyConfig& t) {
  const tech::ChipShares published = tech::publishedChipShares();
  return {t.clockPowerShare.value_or(published.clockPower),
          t.clockAreaShare.value_or(published.clockArea),
          t.controlAreaShare.value_or(published.controlArea)};
}

void addOverheads(Inventory& inv, const TechnologyConfig& t, double clockMhz) {
  NNACCEL_ASSERT(clockMhz > 0 && !inv.find(std::string(kClockNetwork))) << "overheads added twice";
  const tech::ChipShares s = chipSharesOf(t);
  // The other parts are the rest of the finished chip: chip = parts / (1 - the shares).
  const double chipUm2 = inv.areaMm2() * 1e6 / (1.0 - s.clockArea - s.controlArea);
  const double controlUm2 = s.controlArea * chipUm2;
  inv.parts.push_back({{"control",
                        {},
                        1,
                        "control",
                        fmt::format("{:.3g} % of the chip's area", 100 * s.controlArea)},
                       {0, 0, controlUm2, tech::logicLeakageWPerUm2() * controlUm2,
                        "Jouppi et al. ISCA 2017 (TPU v1 control share)"}});
  // Peak power per cycle: every part acting once, and the leakage (W x 1e6 / MHz = pJ/cycle).
  double peakPjPerCycle = inv.leakageW() * 1e6 / clockMhz;
  for (const PricedComponent& p : inv.parts)
    peakPjPerCycle += p.cost.readEnergyPj * static_cast<double>(p.use.count);
  inv.parts.push_back(
      {{std::string(kClockNetwork),
        {},
        1,
        "clock_network",
        fmt::format("{:.3g} % of peak power, {:.3g} % of the chip's area", 100 * s.clockPower,
                    100 * s.clockArea)},
       {s.clockPower / (1.0 - s.clockPower) * peakPjPerCycle, 0, s.clockArea * chipUm2, 0,
        "Chen et al. MICRO 2014 (DaDianNao clock network share)"}});
}

double partEnergyPj(const Inventory& inv, const std::string& name) {
  const bool write = name.ends_with(".write");
  const tech::ComponentCost& c =
      inv.part(write ? name.substr(0, name.size() - std::string_view(".write").size()) : name).cost;
  return write ? c.writeEnergyPj : c.readEnergyPj;
}

engines::CostTable::Event priceEvent(const Inventory& inv, const std::string& key,
                                     const std::optional<double>& configured,
                                     const std::vector<std::string>& parts, double per,
                                     std::string_view perUnit) {
  if (configured)
    return {key, *configured, "configured"};
  for (const std::string& part : parts) {
    const std::string base = part.ends_with(".write") ? part.substr(0, part.size() - 6) : part;
    if (!inv.find(base))
      return {key, 0.0, "no " + base};
  }
  double pj = 0;
  std::string basis;
  for (const std::string& part : parts) {
    pj += partEnergyPj(inv, part);
    basis += (basis.empty() ? "" : " + ") + part;
  }
  if (per != 1) {
    pj /= per;
    basis += fmt::format(" / {} {}", per, perUnit);
  }
  return {key, pj, basis};
}

engines::CostTable Inventory::costTable(std::vector<engines::CostTable::Event> events) const {
  engines::CostTable t;
  t.node = node.name;
  t.vddV = node.vddV;
  for (const PricedComponent& p : parts)
    t.components.push_back({p.use.name, p.use.group,
                            p.use.what.empty() ? tech::describe(p.use.spec) : p.use.what,
                            p.use.count, p.cost.readEnergyPj, p.cost.writeEnergyPj, p.cost.areaUm2,
                            p.cost.leakageW, p.cost.source});
  t.events = std::move(events);
  return t;
}

Inventory priceInventory(const tech::ProcessNode& node, std::vector<ComponentUse> uses) {
  Inventory inv{node, {}};
  for (ComponentUse& u : uses) {
    try {
      tech::ComponentCost c = tech::costOf(u.spec, node);
      inv.parts.push_back({std::move(u), std::move(c)});
    } catch (const Error& e) {
      throw Error(e.kind(), {}, fmt::format("component '{}': {}", u.name, e.reason()));
    }
  }
  return inv;
}

} // namespace nnaccel::arch::common
