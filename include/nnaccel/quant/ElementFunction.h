/// \file
/// Element-wise chains as one lookup table: a value computed from one upstream int8 value
/// only by element-wise integer rules (Clamp, a single-table Lookup, Add/Sub/Mul of two such
/// functions of the same value, as in x * clip(x + 3, 0, 6) / 6 when an exporter writes
/// HardSwish out, and comparisons and Where whose operands are such functions or scalar
/// constants, as in a threshold mask x where x > t else 0) is, element by element, a function
/// of that value's 256 int8 codes. The table
/// is built by applying the int8 reference's own per-element rules (quant/Kernels.h) to each
/// code, so an engine that looks it up gives the reference's bits exactly. Engines whose units
/// look up tables (the stream engine's aux-tile LUT 4906) run a whole chain in one pass.
#pragma once

#include "nnaccel/quant/QuantizedModel.h"

#include <array>
#include <cstdint>
#include <optional>
#include <set>
#include <vector>

namespace nnaccel::quant {

/// Value y = table[q_source + 128] element by element.
struct ElementFunction {
  ir::ValueId source = ir::kNoValue; ///< a computed value that is not itself such a function
  std::array<int8_t, 256> table{};
};

/// Per ValueId: the element function of every computed value the rules above produce from a
/// single source (a Clamp of a convolution's output has the convolution's output as source);
/// nullopt for every other value. The nodes in \p sourceNodes (an engine's fused activations,
/// whose outputs it computes in place anyway) are not composed: their outputs are sources.
/// Deterministic; a pure function of its arguments.
std::vector<std::optional<ElementFunction>>
elementFunctions(const QuantizedModel& qm, const std::set<ir::NodeId>& sourceNodes);

} // namespace nnaccel::quant
