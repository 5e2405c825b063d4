/// \file
/// Quantized (QDQ) models in int8: the activation scales and weight scales a model brings with
/// it replace calibration (docs/Quantization.md, "QDQ models").
#pragma once

#include "nnaccel/ir/Graph.h"

#include <map>

namespace nnaccel::quant {

/// The int8 quantization a QDQ model gives one activation: real = scale * (q - zeroPoint), q an
/// int8 code (a uint8 code u of the model is the int8 code u - 128, its zero point z - 128).
struct ActivationQuant {
  float scale = 0;
  int32_t zeroPoint = 0;
  bool operator==(const ActivationQuant&) const = default;
};

/// Removes every QuantizeLinear -> DequantizeLinear pair of \p g (readers of the
/// DequantizeLinear read the QuantizeLinear's input instead) and returns the scale and zero
/// point of each value a pair wrapped. Throws Error(Unsupported) naming the node for what has no
/// int8 form here: a per-axis activation scale, a QuantizeLinear whose integer output leaves
/// the graph or feeds anything but a matching DequantizeLinear, a DequantizeLinear of an
/// integer graph input, two quantizations of one value. Weight DequantizeLinears are
/// constant-folded before (their scales on Value::dequantizedFrom) and do not reach this
/// function.
std::map<ir::ValueId, ActivationQuant> absorbQdqPairs(ir::Graph& g);

} // namespace nnaccel::quant
