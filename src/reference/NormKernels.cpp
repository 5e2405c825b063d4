// BatchNormalization (inference) on oneDNN batch_normalization_forward with global statistics
// and separate scale/shift. Any rank >= 2 is viewed as [N, C, rest] since only axis 1 matters.
#include "CachedKernels.h"
#include "KernelUtil.h"

namespace nnaccel::reference {

namespace du = dnnl_util;

Tensor batchNorm(const ir::BatchNormParams& p, const Tensor& x, const Tensor& scale,
                 const Tensor& bias, const Tensor& mean, const Tensor& var) {
  KernelCache once;
  return batchNorm(p, x, scale, bias, mean, var, once);
}

Tensor batchNorm(const ir::BatchNormParams& p, const Tensor& x, const Tensor& scale,
                 const Tensor& bias, const Tensor& mean, const Tensor& var, KernelCache& cache) {
  return du::guard("BatchNormalization", [&]() -> Tensor {
    for (const Tensor* t : {&x, &scale, &bias, &mean, &var}) {
      requireDType(*t, DType::F32, "BatchNormalization");
    }
    NNACCEL_ASSERT(x.rank() >= 2 && x.dim(1) == p.channels) << "batchnorm input shape";
    for (const Tensor* t : {&scale, &bias, &mean, &var}) {
      NNACCEL_ASSERT(t->numElements() == p.channels) << "batchnorm parameter size";
    }
    const int64_t rest = x.numElements() / (x.dim(0) * p.channels);
    const Dims view{x.dim(0), p.channels, rest};
    Tensor y = cache.output(DType::F32, x.shape());
    const dnnl::memory::desc dataMd = du::plainDesc(view, DType::F32);
    const dnnl::memory::desc channelMd = du::plainDesc({p.channels}, DType::F32);
    du::Primitive& prim = cache.obtain([&] {
      const auto flags = dnnl::normalization_flags::use_global_stats |
                         dnnl::normalization_flags::use_scale |
                         dnnl::normalization_flags::use_shift;
      const dnnl::batch_normalization_forward::desc d(dnnl::prop_kind::forward_inference, dataMd,
                                                      p.epsilon, flags);
      const dnnl::batch_normalization_forward::primitive_desc pd(d, du::engine());
      return du::Primitive(pd, dnnl::batch_normalization_forward(pd));
    });
    prim.execute({{DNNL_ARG_SRC, du::wrap(x, dataMd)},
                  {DNNL_ARG_MEAN, du::wrap(mean, channelMd)},
                  {DNNL_ARG_VARIANCE, du::wrap(var, channelMd)},
                  {DNNL_ARG_SCALE, du::wrap(scale, channelMd)},
                  {DNNL_ARG_SHIFT, du::wrap(bias, channelMd)}},
                 {{DNNL_ARG_DST, du::wrap(y, dataMd)}});
    return y;
  });
}

} // namespace nnaccel::reference
