// The technology model's component classes at their sources' nodes (private to src/tech):
// each class's figures as published, before Components.cpp scales them to a config's node.
#pragma once

#include "nnaccel/tech/Components.h"

namespace nnaccel::tech::detail {

/// One instance at its source's node.
struct SourceCost {
  double readEnergyPj = 0;
  double writeEnergyPj = 0;
  double areaUm2 = 0;
  const char* source = "";
  double leakageW = 0; ///< measured static power, where the source gives one
};

/// Arithmetic.cpp: adders and multipliers at 45 nm (Horowitz ISSCC 2014 / Dally Hot Chips 2023).
ProcessNode arithmeticSourceNode();
SourceCost arithmeticCost(ComponentClass cls, int64_t widthBits);

/// Storage.cpp: registers, flip-flop FIFOs, SRAMs and lookup tables at 45 nm.
ProcessNode storageSourceNode();
SourceCost storageCost(const ComponentSpec& spec);

/// Logic.cpp: standard-cell logic (multiplexers) at its library's node; arbiters at DSENT's.
ProcessNode logicSourceNode();
ProcessNode arbiterSourceNode();
SourceCost logicCost(const ComponentSpec& spec);
/// A wire's cost at node \p at (its own interpolation between the source's nodes).
ComponentCost wireCostAt(const ComponentSpec& spec, const ProcessNode& at);
/// A chip-to-chip serial link: the same figure at every node (Logic.cpp).
ComponentCost serialLinkCost(const ComponentSpec& spec);

/// Static power per um^2 of logic (adders, multipliers, registers) at its source's node.
double logicLeakageWPerUm2(ComponentClass cls);

} // namespace nnaccel::tech::detail
