/// \file
/// Per-layer int8 sensitivity: how much each value's int8 rounding alone costs the model's
/// outputs, so that a user whose int8 model disagrees with fp32 learns which layers to blame
/// (`nnaccel run --dtype int8 --sensitivity`).
///
/// Method (the layer-wise analysis of TensorRT's and PPQ's quantization debuggers): run the fp32
/// reference once; then, for every value the int8 model holds at a scale (graph inputs and the
/// outputs of int8 nodes), replace that value alone by its fake-quantized form,
/// clamp(round(x / s), -127, 127) * s with the model's scale s, recompute only the nodes
/// downstream of it in fp32, and compare the graph outputs with the clean fp32 ones. Float
/// islands and constants are not measured. Deterministic.
#pragma once

#include "nnaccel/quant/Agreement.h"
#include "nnaccel/quant/QuantizedModel.h"

#include <string>
#include <vector>

namespace nnaccel::quant {

struct ValueSensitivity {
  ir::ValueId value = ir::kNoValue;
  std::string name;           ///< the value's name
  std::string op;             ///< its producer's op ("input" for a graph input)
  float scale = 0;            ///< the int8 scale
  double clippedFraction = 0; ///< share of its elements beyond 127 steps (saturated)
  /// Why a per-tensor scale can starve it: the largest channel's max|x| over the median
  /// channel's (channels on axis 1, rank >= 3; 1 otherwise). Above ~10, the small channels get
  /// a few int8 steps each.
  double channelSpread = 1;
  /// The worst (lowest cosine) graph output's agreement with the clean fp32 outputs.
  Agreement worstOutput;
  std::string worstOutputName;
};

/// The sensitivity of every measured value of \p model on \p inputs (Graph::inputs order),
/// worst (lowest output cosine) first; ties keep graph order.
std::vector<ValueSensitivity> measureSensitivity(const QuantizedModel& model,
                                                 const std::vector<Tensor>& inputs);

/// The fp32 graph run with every measured value fake-quantized at once: what int8 rounding of
/// the activations alone does to the outputs, without the integer arithmetic of the int8 rules
/// (requantization multipliers, lookup tables, integer element-wise rules). Comparing it with
/// the int8 executor's outputs separates the two sources of error.
/// Values listed in \p keptInFp32 are left unquantized: the mixed-precision what-if of
/// measureFallback.
std::vector<Tensor> runFakeQuantized(const QuantizedModel& model, const std::vector<Tensor>& inputs,
                                     const std::vector<ir::ValueId>& keptInFp32 = {});

/// One point of the precision-fallback curve: the \p keptInFp32 most sensitive values left in
/// fp32, every other measured value at int8 (fake-quantized, fp32 arithmetic), and the worst
/// output's agreement with fp32.
struct FallbackStep {
  size_t keptInFp32 = 0;
  Agreement worstOutput;
  std::string worstOutputName;
};

/// Which values int8 cannot hold: the fake-quantized graph with the first k values of
/// \p ranking (measureSensitivity's order, worst first) left in fp32, for k = 0, 1, 2, 4, 8, ...
/// until the worst output's cosine reaches \p targetCosine or every value is kept (which is
/// the fp32 graph). TensorRT's per-layer precision fallback and PPQ's dispatcher search the
/// same way, greedy in the single-value ranking. One fp32 run per step.
std::vector<FallbackStep> measureFallback(const QuantizedModel& model,
                                          const std::vector<Tensor>& inputs,
                                          const std::vector<ValueSensitivity>& ranking,
                                          double targetCosine);

} // namespace nnaccel::quant
