/// \file
/// The reference executor: the trusted fp32 evaluation of an IR graph.
///
/// Every engine's functional result is compared against this executor (fp32) or against the
/// int8 executor built on it (quant/). Kernels use oneDNN for the ops oneDNN covers
/// (convolution, deconvolution, pooling, eltwise, binary, matmul, softmax, resampling, concat)
/// and plain loops where oneDNN has nothing. Semantics are those of ir/OpParams.h.
///
/// Contract:
///  - the graph is shape-inferred and verified before an Executor is built on it;
///  - run() is deterministic: same graph and inputs give bit-identical outputs;
///  - an op the executor cannot evaluate (e.g. Pad in reflect mode) throws nnaccel::Error
///    (Unsupported) naming the node, never computes something else.
#pragma once

#include "nnaccel/ir/Graph.h"

#include <vector>

namespace nnaccel::reference {

class Executor {
public:
  /// \p g must outlive the executor.
  explicit Executor(const ir::Graph& g);

  /// Runs the graph with \p inputs in Graph::inputs order (dtype and shape must match; a
  /// mismatch throws Error(Usage)). Returns the graph outputs in Graph::outputs order.
  std::vector<Tensor> run(const std::vector<Tensor>& inputs);

  /// Every value of the last run, indexed by ValueId (constants included; values never
  /// computed are empty tensors). For calibration and debugging.
  const std::vector<Tensor>& values() const { return values_; }

private:
  const ir::Graph& graph_;
  std::vector<Tensor> values_;
};

/// Evaluates node \p id of \p g on the given inputs (one per node input, nullptr for omitted
/// optional inputs) and returns its outputs. Used by Executor::run, by constant folding and by
/// the int8 executor for float islands.
std::vector<Tensor> evalNode(const ir::Graph& g, ir::NodeId id,
                             const std::vector<const Tensor*>& inputs);

} // namespace nnaccel::reference
