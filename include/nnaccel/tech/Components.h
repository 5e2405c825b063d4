/// \file
/// The component library of the technology model (docs/Technology.md): per-action energy and
/// per-instance area of the parts nnaccel's engines are built from, at any node of Node.h. Each
/// figure is defined once, with its source, in the file that implements its component class
/// (Arithmetic.cpp, Storage.cpp, Logic.cpp); every engine prices its actions through costOf().
#pragma once

#include "nnaccel/tech/Node.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace nnaccel::tech {

enum class ComponentClass : uint8_t {
  IntAdder,      ///< two's-complement adder of widthBits; action: add
  IntMultiplier, ///< widthBits x widthBits integer multiplier; action: multiply
  FpAdder,       ///< IEEE adder, widthBits 16 or 32; action: add
  FpMultiplier,  ///< IEEE multiplier, widthBits 16 or 32; action: multiply
  Register,      ///< widthBits flip-flops; actions: read (the write is in the clock)
  Sram,          ///< capacityBytes of SRAM read and written widthBits at a time, in banks
  FlipFlopFifo,  ///< depth x widthBits of flip-flops with one write and one read per action
  LookupTable,   ///< 2^indexBits entries of widthBits, an SRAM (or flip-flops when tiny)
  Multiplexer,   ///< selects one of `inputs` words of widthBits (a tree of 2:1 cells); action:
                 ///< one selection
  Wire,          ///< widthBits wires of lengthUm; action: one word sent along it
  SerialLink,    ///< a chip-to-chip short-reach serial link; action: widthBits sent across
  Arbiter,       ///< a matrix arbiter among `inputs` requesters; action: one arbitration
};
std::string_view componentClassName(ComponentClass c);

/// One component instance as a config describes it.
struct ComponentSpec {
  ComponentClass cls = ComponentClass::IntAdder;
  int64_t widthBits = 8;     ///< datapath / word width
  int64_t capacityBytes = 0; ///< Sram: total capacity over all banks
  int64_t banks = 1;         ///< Sram: independent banks (each capacityBytes / banks)
  int64_t ports = 1;         ///< Sram: read/write ports of each bank (1R1W = 2)
  int64_t depth = 0;         ///< FlipFlopFifo: entries
  int64_t indexBits = 8;     ///< LookupTable: entries = 2^indexBits
  int64_t inputs = 2;        ///< Multiplexer: words it selects from; Arbiter: requesters
  double lengthUm = 0;       ///< Wire: its length
};

/// What one instance costs at a node.
struct ComponentCost {
  double readEnergyPj = 0;  ///< per action: add, multiply, or one read of widthBits
  double writeEnergyPj = 0; ///< per write of widthBits (storage only)
  double areaUm2 = 0;       ///< one instance
  double leakageW = 0;      ///< static power of one instance
  std::string source;       ///< the citations the figures come from (short form)
};

/// The cost of \p spec at \p node: the class's measured figures at their source's node, fitted
/// over width or capacity where the class says how, scaled by Node.h's equations. An
/// unsupported width or size throws nnaccel::Error (Config) naming the class and the value.
ComponentCost costOf(const ComponentSpec& spec, const ProcessNode& node);

/// A short name of \p spec: "int_multiplier 8b", "sram 64KiB x 64b, 4 banks".
std::string describe(const ComponentSpec& spec);

/// The components of the reference table `nnaccel arch tech` prints (the technology's energy and
/// area reference tables, in the spirit of Accelergy's ERT and ART): every class at the widths
/// and sizes the engines use.
std::vector<ComponentSpec> referenceComponents();

} // namespace nnaccel::tech
