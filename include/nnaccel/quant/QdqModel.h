/// \file
/// Quantized (QDQ) models in int8: the activation scales and weight scales a model brings with
/// it replace calibration (docs/Quantization.md, "QDQ models").
#pragma once

#include "nnaccel/ir/Graph.h"

#include <map>

namespace nnaccel::quant {

/// Removes every QuantizeLinear -> DequantizeLinear pair of \p g (readers of the
/// DequantizeLinear read the QuantizeLinear's input instead) and returns the scale of each value
/// a pair wrapped. Throws Error(Unsupported) naming the node for what has no symmetric int8
/// form: a zero point other than 0 (int8) or 128 (uint8), a per-axis activation scale, a
/// QuantizeLinear whose integer output leaves the graph or feeds anything but a matching
/// DequantizeLinear, a DequantizeLinear of an integer graph input, two scales for one value.
/// Weight DequantizeLinears are constant-folded before (their scales on
/// Value::dequantizedFrom) and do not reach this function.
std::map<ir::ValueId, float> absorbQdqPairs(ir::Graph& g);

} // namespace nnaccel::quant
