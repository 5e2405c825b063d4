// The oneDNN-backed kernels of Kernels.h with per-node state: the Executor passes each node's
// KernelCache so the node's primitive is created, and its constant weights converted to the
// primitive's layout, once per Executor rather than once per run. The Kernels.h functions are
// these with a fresh cache (one-off calls: evalNode, constant folding, the int8 executor).
#pragma once

#include "DnnlUtil.h"
#include "nnaccel/reference/Kernels.h"

#include <memory>

namespace nnaccel::reference {

/// What a oneDNN-backed kernel keeps between executions of one node. The Executor holds one per
/// node (parameters and shapes are fixed by shape inference, so the primitive built on the first
/// run fits every later run); one-off calls (evalNode, the Kernels.h functions) use a fresh one.
struct KernelCache {
  std::unique_ptr<dnnl_util::Primitive> primitive;
  /// The node's weights and bias (Conv/ConvTranspose) are graph constants, converted once.
  bool constantWeights = false;

  /// The node's output of the previous run, handed back by the Executor for reuse.
  Tensor recycled;

  /// The cached primitive, created with \p build() (returning a Primitive) on first use.
  template <typename Build> dnnl_util::Primitive& obtain(Build&& build) {
    if (!primitive) {
      primitive = std::make_unique<dnnl_util::Primitive>(build());
    }
    return *primitive;
  }

  /// The output tensor of a kernel that writes every element: the recycled one when its dtype
  /// and shape fit (its old contents are overwritten), else a new one. Saves allocating,
  /// zero-filling and page-faulting every activation buffer on every run.
  Tensor output(DType dtype, const Dims& shape) {
    if (recycled.dtype() == dtype && recycled.shape() == shape &&
        recycled.sizeBytes() == static_cast<size_t>(numElements(shape)) * dtypeSizeBytes(dtype)) {
      return std::move(recycled);
    }
    return Tensor(dtype, shape);
  }
};

Tensor conv(const ir::ConvParams& p, const Tensor& x, const Tensor& w, const Tensor* bias,
            KernelCache& cache);
Tensor pool(const ir::PoolParams& p, const Tensor& x, KernelCache& cache);
Tensor batchNorm(const ir::BatchNormParams& p, const Tensor& x, const Tensor& scale,
                 const Tensor& bias, const Tensor& mean, const Tensor& var, KernelCache& cache);
Tensor activation(const ir::ActivationParams& p, const Tensor& x, KernelCache& cache);
Tensor binary(ir::OpKind op, const Tensor& a, const Tensor& b, KernelCache& cache);
Tensor gemm(const ir::GemmParams& p, const Tensor& a, const Tensor& b, const Tensor* c,
            KernelCache& cache);
Tensor matmul(const Tensor& a, const Tensor& b, KernelCache& cache);
Tensor softmax(const ir::SoftmaxParams& p, const Tensor& x, KernelCache& cache);
Tensor concat(const std::vector<const Tensor*>& inputs, int64_t axis, KernelCache& cache);

} // namespace nnaccel::reference
