/// \file
/// The int8 reference executor: runs a QuantizedModel with the exact integer semantics of
/// docs/Quantization.md. Engines compare their int8 results against it bit for bit, layer by
/// layer (values()) or per node (evalQuantizedNode()).
///
/// Contract:
///  - inputs are fp32 tensors in Graph::inputs order; f32 inputs are quantized with their
///    calibrated scale (quantizeTensor), other inputs are passed through;
///  - every node runs per its QuantNode: integer kernels (quant/Kernels.h) or, for float
///    islands, dequantize -> reference::evalNode in fp32 -> quantize with the output's scale;
///  - run() is deterministic and integer-exact: the same model and inputs give identical bits.
#pragma once

#include "nnaccel/quant/QuantizedModel.h"

#include <functional>
#include <vector>

namespace nnaccel::quant {

/// The outputs of one int8 run, in Graph::outputs order.
struct Int8Result {
  std::vector<QuantTensor> outputs; ///< int8 tensors with their scales (raw for non-f32)
  std::vector<Tensor> dequantized;  ///< outputs[i].dequantize() (a bool output: as bool)
};

class Int8Executor {
public:
  /// \p model must outlive the executor.
  explicit Int8Executor(const QuantizedModel& model);

  /// Runs the model. A wrong number of inputs, or an input whose dtype or shape differs from
  /// the graph's, throws nnaccel::Error (Usage). \p nodeDone, when set, is called after each
  /// node with (nodes done, nodes): the progress of a long reference run.
  Int8Result run(const std::vector<Tensor>& inputs,
                 const std::function<void(size_t, size_t)>& nodeDone = {});

  /// Every value of the last run by ValueId: int8 tensors with their scales for quantized
  /// values, raw tensors for the others. Graph constants are not copied here: their int8 form
  /// is QuantizedModel::constants (see value()).
  const std::vector<QuantTensor>& values() const { return values_; }
  /// Value \p id of the last run; constants resolve to their int8 form when they have one and
  /// to the raw fp32 constant otherwise.
  QuantTensor value(ir::ValueId id) const;

private:
  const QuantizedModel& model_;
  std::vector<QuantTensor> values_;
};

/// Evaluates node \p id of \p model on int8 inputs (one per node input; nullptr for omitted
/// inputs and for graph constants, which are read from the model) and returns its outputs
/// (one per node output; empty for omitted outputs). The single definition of every op's int8
/// semantics, used by Int8Executor::run; engines call it to reproduce float islands.
std::vector<QuantTensor> evalQuantizedNode(const QuantizedModel& model, ir::NodeId id,
                                           const std::vector<const QuantTensor*>& inputs);

} // namespace nnaccel::quant
