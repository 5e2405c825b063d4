/// \file
/// Engines' inventories priced through the technology model (Technology.h).
#include "nnaccel/arch/common/Technology.h"

#include "nnaccel/support/Error.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

namespace nnaccel::arch::common {

namespace {

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
  return {node.name, node.vddV, areaMm2(), areaMm2ByGroup(), leakageW()};
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
    t.components.push_back({p.use.name, p.use.group, tech::describe(p.use.spec), p.use.count,
                            p.cost.readEnergyPj, p.cost.writeEnergyPj, p.cost.areaUm2,
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
