// The component library's entry point (Components.h): each class's figures at its source's node
// (Arithmetic.cpp, Storage.cpp) moved to the requested node by Node.h's scaling equations.
#include "Library.h"

#include <fmt/format.h>

namespace nnaccel::tech {

std::string_view componentClassName(ComponentClass c) {
  switch (c) {
  case ComponentClass::IntAdder:
    return "int_adder";
  case ComponentClass::IntMultiplier:
    return "int_multiplier";
  case ComponentClass::FpAdder:
    return "fp_adder";
  case ComponentClass::FpMultiplier:
    return "fp_multiplier";
  case ComponentClass::Register:
    return "register";
  case ComponentClass::Sram:
    return "sram";
  case ComponentClass::FlipFlopFifo:
    return "flip_flop_fifo";
  case ComponentClass::LookupTable:
    return "lookup_table";
  case ComponentClass::Multiplexer:
    return "multiplexer";
  case ComponentClass::Wire:
    return "wire";
  case ComponentClass::SerialLink:
    return "serial_link";
  case ComponentClass::Arbiter:
    return "arbiter";
  }
  return "?";
}

namespace {

bool isArithmetic(ComponentClass c) {
  return c == ComponentClass::IntAdder || c == ComponentClass::IntMultiplier ||
         c == ComponentClass::FpAdder || c == ComponentClass::FpMultiplier;
}

} // namespace

ComponentCost costOf(const ComponentSpec& spec, const ProcessNode& at) {
  if (spec.cls == ComponentClass::Wire)
    return detail::wireCostAt(spec, at);
  if (spec.cls == ComponentClass::SerialLink)
    return detail::serialLinkCost(spec);
  const bool arithmetic = isArithmetic(spec.cls);
  const bool logic = spec.cls == ComponentClass::Multiplexer || spec.cls == ComponentClass::Arbiter;
  const ProcessNode from = arithmetic                            ? detail::arithmeticSourceNode()
                           : spec.cls == ComponentClass::Arbiter ? detail::arbiterSourceNode()
                           : logic                               ? detail::logicSourceNode()
                                                                 : detail::storageSourceNode();
  detail::SourceCost c = arithmetic ? detail::arithmeticCost(spec.cls, spec.widthBits)
                         : logic    ? detail::logicCost(spec)
                                    : detail::storageCost(spec);
  if (arithmetic)
    c.leakageW = detail::logicLeakageWPerUm2(spec.cls) * c.areaUm2;
  const double e = energyScale(from, at);
  const double a = areaScale(from, at);
  // Static power per unit area is held at its source's figure across nodes (our choice until a
  // cited leakage scaling is in: docs/Technology.md), so it scales with the area.
  return {c.readEnergyPj * e, c.writeEnergyPj * e, c.areaUm2 * a, c.leakageW * a, c.source};
}

std::string describe(const ComponentSpec& s) {
  const std::string_view cls = componentClassName(s.cls);
  switch (s.cls) {
  case ComponentClass::Sram: {
    const int64_t kib = s.capacityBytes / 1024;
    const std::string size = kib > 0 && kib * 1024 == s.capacityBytes
                                 ? fmt::format("{}KiB", kib)
                                 : fmt::format("{}B", s.capacityBytes);
    const std::string ports = s.ports > 1 ? fmt::format(", {} ports", s.ports) : "";
    return s.banks > 1
               ? fmt::format("{} {} x {}b, {} banks{}", cls, size, s.widthBits, s.banks, ports)
               : fmt::format("{} {} x {}b{}", cls, size, s.widthBits, ports);
  }
  case ComponentClass::FlipFlopFifo:
    return fmt::format("{} {} x {}b", cls, s.depth, s.widthBits);
  case ComponentClass::LookupTable:
    return fmt::format("{} {} x {}b", cls, int64_t{1} << s.indexBits, s.widthBits);
  case ComponentClass::Multiplexer:
    return fmt::format("{} {}:1 x {}b", cls, s.inputs, s.widthBits);
  case ComponentClass::Arbiter:
    return fmt::format("{} of {}", cls, s.inputs);
  case ComponentClass::Wire:
    return fmt::format("{} {}b x {:.3g} mm", cls, s.widthBits, s.lengthUm * 1e-3);
  default:
    return fmt::format("{} {}b", cls, s.widthBits);
  }
}

std::vector<ComponentSpec> referenceComponents() {
  using C = ComponentClass;
  std::vector<ComponentSpec> specs;
  for (C c : {C::IntAdder, C::IntMultiplier})
    for (int64_t w : {8, 16, 32})
      specs.push_back({.cls = c, .widthBits = w});
  for (C c : {C::FpAdder, C::FpMultiplier})
    for (int64_t w : {16, 32})
      specs.push_back({.cls = c, .widthBits = w});
  for (int64_t w : {8, 32})
    specs.push_back({.cls = C::Register, .widthBits = w});
  specs.push_back({.cls = C::FlipFlopFifo, .widthBits = 64, .depth = 16});
  specs.push_back({.cls = C::LookupTable, .widthBits = 8, .indexBits = 8});
  for (int64_t inputs : {2, 4, 256})
    specs.push_back({.cls = C::Multiplexer, .widthBits = 16, .inputs = inputs});
  specs.push_back({.cls = C::Wire, .widthBits = 1, .lengthUm = 1000});
  specs.push_back({.cls = C::SerialLink, .widthBits = 1});
  specs.push_back({.cls = C::Arbiter, .inputs = 16});
  for (int64_t kib : {1, 8, 64, 128})
    specs.push_back({.cls = C::Sram, .widthBits = 64, .capacityBytes = kib * 1024});
  specs.push_back({.cls = C::Sram, .widthBits = 256, .capacityBytes = 1024 * 1024, .banks = 16});
  specs.push_back({.cls = C::Sram, .widthBits = 32, .capacityBytes = 8 * 1024, .ports = 2});
  return specs;
}

} // namespace nnaccel::tech
