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
#include <memory>
#include <vector>

namespace nnaccel::reference {
class Int8ConvCache;
}

namespace nnaccel::quant {

/// What computes the int32 accumulators of Conv, ConvTranspose, Gemm and MatMul by a constant.
/// Both give the same bits (tests/unit/quant/OneDnnAccumulateTest.cpp checks it).
enum class Int8Accumulation : uint8_t {
  OneDnn, ///< oneDNN's integer primitives where they are exact, the loops elsewhere (the default)
  Loops,  ///< the integer loops of AccumulateKernels.cpp only: the oracle of the tests
};

/// The outputs of one int8 run, in Graph::outputs order.
struct Int8Result {
  std::vector<QuantTensor> outputs; ///< int8 tensors with their scales (raw for non-f32)
  std::vector<Tensor> dequantized;  ///< outputs[i].dequantize() (a bool output: as bool)
};

class Int8Executor {
public:
  /// \p model must outlive the executor. \p accumulation: see Int8Accumulation (the results
  /// are the same bits either way).
  explicit Int8Executor(const QuantizedModel& model,
                        Int8Accumulation accumulation = Int8Accumulation::OneDnn);
  ~Int8Executor();
  Int8Executor(Int8Executor&&) noexcept;

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
  reference::Int8ConvCache* cacheFor(ir::NodeId id);

  const QuantizedModel& model_;
  Int8Accumulation accumulation_;
  std::vector<QuantTensor> values_;
  /// Per NodeId: the oneDNN primitives and converted weights of an accumulating node, kept
  /// between runs (created on the node's first run).
  std::vector<std::unique_ptr<reference::Int8ConvCache>> caches_;
};

/// Evaluates node \p id of \p model on int8 inputs (one per node input; nullptr for omitted
/// inputs and for graph constants, which are read from the model) and returns its outputs
/// (one per node output; empty for omitted outputs). The single definition of every op's int8
/// semantics, used by Int8Executor::run; engines call it to reproduce float islands. With
/// OneDnn accumulation, a node's primitives are built for this call only (Int8Executor keeps
/// them between runs).
std::vector<QuantTensor>
evalQuantizedNode(const QuantizedModel& model, ir::NodeId id,
                  const std::vector<const QuantTensor*>& inputs,
                  Int8Accumulation accumulation = Int8Accumulation::OneDnn);

} // namespace nnaccel::quant
