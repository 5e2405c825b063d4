/// \file
/// The reference executor: the trusted fp32 evaluation of an IR graph.
///
/// Every engine's functional result is compared against this executor (fp32) or against the
/// int8 executor built on it (quant/). Kernels use oneDNN for the ops oneDNN covers
/// (convolution, deconvolution, pooling, batch norm, eltwise, binary, matmul, softmax, concat)
/// and plain loops where oneDNN has no op with ONNX's semantics (docs/ReferenceExecutor.md).
/// Semantics are those of ir/OpParams.h.
///
/// Contract:
///  - the graph is shape-inferred and verified before an Executor is built on it;
///  - run() is deterministic: same graph and inputs give bit-identical outputs, on every
///    AVX2-or-better x86-64 machine (oneDNN is capped at AVX2, see dnnlIsaName());
///  - an op the executor cannot evaluate (e.g. Pad in reflect mode) throws nnaccel::Error
///    (Unsupported) naming the node, never computes something else.
#pragma once

#include "nnaccel/ir/Graph.h"

#include <memory>
#include <string>
#include <vector>

namespace nnaccel::reference {

struct KernelCache;

class Executor {
public:
  /// \p g must outlive the executor and must not change while it exists: the executor keeps
  /// per-node state between runs (oneDNN primitives, weights converted to oneDNN's layouts),
  /// built on the first run, so repeated runs (calibration) pay for it once.
  explicit Executor(const ir::Graph& g);
  ~Executor();
  Executor(Executor&&) noexcept;

  /// Runs the graph with \p inputs in Graph::inputs order (dtype and shape must match; a
  /// mismatch throws Error(Usage)). Returns the graph outputs in Graph::outputs order.
  std::vector<Tensor> run(const std::vector<Tensor>& inputs);

  /// Every value computed by the last run (graph inputs and node outputs), indexed by ValueId.
  /// Constants are NOT copied here (their entries are empty; the graph owns them, and copying
  /// would double the weight memory of e.g. VGG-16): use value() to read any value.
  const std::vector<Tensor>& values() const { return values_; }
  /// Value \p id of the last run: the graph's constant data for constants, else the computed
  /// tensor (empty if never computed).
  const Tensor& value(ir::ValueId id) const;

private:
  const ir::Graph& graph_;
  std::vector<Tensor> values_;
  std::vector<std::unique_ptr<KernelCache>> caches_; ///< per NodeId
};

/// Evaluates node \p id of \p g on the given inputs (one per node input, nullptr for omitted
/// optional inputs) and returns its outputs. Used by constant folding and by the int8 executor
/// for float islands; Executor::run runs the same code with its per-node state, and gives the
/// same bits.
std::vector<Tensor> evalNode(const ir::Graph& g, ir::NodeId id,
                             const std::vector<const Tensor*>& inputs);

/// The CPU ISA oneDNN's kernels run with, for reports: "avx2" on every AVX2-or-better x86-64
/// machine, since the reference caps oneDNN at AVX2 so fp32 results (and int8 calibration scales
/// derived from them) do not depend on the machine; lower ("avx", "sse41") on older CPUs.
std::string dnnlIsaName();

} // namespace nnaccel::reference
