// Data-movement kernels for every dtype: Concat on oneDNN concat (s64 and bool are moved as
// pairs of s32 / as u8, which is bit-exact), and Transpose, Slice, Pad, DepthToSpace and Gather
// as strided element copies (exact by construction; oneDNN reorders do not cover s64/bool).
#include "CachedKernels.h"
#include "KernelUtil.h"
#include "Strided.h"

#include <cstring>

namespace nnaccel::reference {

namespace {
namespace du = dnnl_util;

/// Calls f(E{}) with an unsigned integer type as wide as one element of \p t (elements are
/// moved, never interpreted).
template <typename F> void withElementType(DType t, F&& f) {
  switch (dtypeSizeBytes(t)) {
  case 1:
    f(uint8_t{});
    return;
  case 4:
    f(uint32_t{});
    return;
  case 8:
    f(uint64_t{});
    return;
  default:
    NNACCEL_UNREACHABLE("unexpected element size");
  }
}

/// y[i] = x[base + sum_a idx_a * srcStrides[a]] for every row-major index of \p outShape.
Tensor stridedCopy(const Tensor& x, const Dims& outShape, const Dims& srcStrides, int64_t base) {
  Tensor y(x.dtype(), outShape);
  const Dims dstStrides = rowMajorStrides(outShape);
  withElementType(x.dtype(), [&](auto e) {
    using E = decltype(e);
    const E* src = reinterpret_cast<const E*>(x.rawData());
    E* dst = reinterpret_cast<E*>(y.rawData());
    forEachIndex<2>(outShape, {&srcStrides, &dstStrides}, {base, 0},
                    [&](const std::array<int64_t, 2>& o) { dst[o[1]] = src[o[0]]; });
  });
  return y;
}

/// How oneDNN concat moves a dtype it has no type for: bool as u8, s64 as two s32 per element.
struct ConcatView {
  DType dtype;
  int64_t lastDimFactor;
};
ConcatView concatView(DType t) {
  switch (t) {
  case DType::Bool:
    return {DType::U8, 1};
  case DType::I64:
    return {DType::I32, 2};
  default:
    return {t, 1};
  }
}

/// Source index along one axis of Pad's output position \p o; -1 selects the pad value.
int64_t padSourceIndex(ir::PadParams::Mode mode, int64_t o, int64_t padBegin, int64_t dim) {
  const int64_t i = o - padBegin;
  if (i >= 0 && i < dim) {
    return i;
  }
  switch (mode) {
  case ir::PadParams::Mode::Constant:
    return -1;
  case ir::PadParams::Mode::Edge:
    return i < 0 ? 0 : dim - 1;
  case ir::PadParams::Mode::Reflect: {
    if (dim == 1) {
      return 0;
    }
    // Reflection without repeating the edge is periodic with period 2 * (dim - 1).
    const int64_t period = 2 * (dim - 1);
    int64_t r = i % period;
    r = r < 0 ? r + period : r;
    return r < dim ? r : period - r;
  }
  }
  return -1;
}
} // namespace

Tensor concat(const std::vector<const Tensor*>& inputs, int64_t axis) {
  KernelCache once;
  return concat(inputs, axis, once);
}

Tensor concat(const std::vector<const Tensor*>& inputs, int64_t axis, KernelCache& cache) {
  return du::guard("Concat", [&]() -> Tensor {
    NNACCEL_ASSERT(!inputs.empty()) << "concat of nothing";
    const Tensor& first = *inputs.front();
    const DType dtype = first.dtype();
    NNACCEL_ASSERT(axis >= 0 && axis < first.rank()) << "concat axis " << axis;
    Dims outShape = first.shape();
    outShape[static_cast<size_t>(axis)] = 0;
    for (const Tensor* t : inputs) {
      if (t->dtype() != dtype) {
        unsupported("Concat of " + std::string(dtypeName(dtype)) + " and " +
                    std::string(dtypeName(t->dtype())) + " inputs is not supported");
      }
      Dims rest = t->shape();
      if (t->rank() == first.rank()) {
        rest[static_cast<size_t>(axis)] = first.dim(axis);
      }
      if (rest != first.shape()) {
        throw Error(ErrorKind::Model, {},
                    "concat input " + dimsToString(t->shape()) + " does not match " +
                        dimsToString(first.shape()) + " outside axis " + std::to_string(axis));
      }
      outShape[static_cast<size_t>(axis)] += t->dim(axis);
    }
    Tensor y = cache.output(dtype, outShape);
    if (y.numElements() == 0) {
      return y;
    }
    if (first.rank() > DNNL_MAX_NDIMS) {
      unsupported("Concat of rank-" + std::to_string(first.rank()) + " tensors is not supported");
    }
    const ConcatView view = concatView(dtype);
    auto viewDesc = [&](const Dims& shape) {
      Dims s = shape;
      s.back() *= view.lastDimFactor;
      return du::plainDesc(s, view.dtype);
    };
    std::vector<dnnl::memory::desc> srcMds;
    du::Args srcs;
    for (const Tensor* t : inputs) {
      if (t->numElements() == 0) {
        continue; // oneDNN does not take empty sources; they contribute nothing
      }
      srcMds.push_back(viewDesc(t->shape()));
      srcs.emplace(DNNL_ARG_MULTIPLE_SRC + static_cast<int>(srcs.size()),
                   du::wrap(*t, srcMds.back()));
    }
    const dnnl::memory::desc dstMd = viewDesc(outShape);
    du::Primitive& prim = cache.obtain([&] {
      const dnnl::concat::primitive_desc pd(dstMd, static_cast<int>(axis), srcMds, du::engine());
      return du::Primitive(pd, dnnl::concat(pd));
    });
    prim.execute(srcs, {{DNNL_ARG_DST, du::wrap(y, dstMd)}});
    return y;
  });
}

Tensor transpose(const Tensor& x, const std::vector<int64_t>& perm) {
  NNACCEL_ASSERT(static_cast<int64_t>(perm.size()) == x.rank()) << "transpose perm size";
  const Dims inStrides = rowMajorStrides(x.shape());
  Dims outShape, srcStrides;
  for (int64_t a : perm) {
    outShape.push_back(x.dim(a));
    srcStrides.push_back(inStrides[static_cast<size_t>(a)]);
  }
  return stridedCopy(x, outShape, srcStrides, 0);
}

Tensor slice(const ir::SliceParams& p, const Tensor& x) {
  NNACCEL_ASSERT(static_cast<int64_t>(p.starts.size()) == x.rank() &&
                 p.ends.size() == p.starts.size() && p.steps.size() == p.starts.size())
      << "slice params do not cover every axis";
  const Dims inStrides = rowMajorStrides(x.shape());
  Dims outShape, srcStrides;
  int64_t base = 0;
  for (size_t a = 0; a < p.starts.size(); ++a) {
    const int64_t start = p.starts[a], end = p.ends[a], step = p.steps[a];
    NNACCEL_ASSERT(step != 0) << "slice step 0";
    const int64_t span = step > 0 ? end - start : start - end;
    const int64_t absStep = step > 0 ? step : -step;
    const int64_t count = span > 0 ? (span + absStep - 1) / absStep : 0;
    if (count > 0) {
      NNACCEL_ASSERT(start >= 0 && start < x.dim(static_cast<int64_t>(a)) &&
                     start + (count - 1) * step >= 0 &&
                     start + (count - 1) * step < x.dim(static_cast<int64_t>(a)))
          << "slice out of range on axis " << a;
      base += start * inStrides[a];
    }
    outShape.push_back(count);
    srcStrides.push_back(step * inStrides[a]);
  }
  return stridedCopy(x, outShape, srcStrides, base);
}

Tensor depthToSpace(const ir::DepthToSpaceParams& p, const Tensor& x) {
  NNACCEL_ASSERT(x.rank() == 4) << "DepthToSpace needs a 4-D input";
  const int64_t n = x.dim(0), c = x.dim(1), h = x.dim(2), w = x.dim(3), b = p.blocksize;
  NNACCEL_ASSERT(b > 0 && c % (b * b) == 0) << "DepthToSpace blocksize";
  const int64_t cOut = c / (b * b);
  // DCR: channels are [b, b, C'] (depth, column, row); CRD: [C', b, b].
  const Tensor split =
      p.crd ? x.reshaped({n, cOut, b, b, h, w}) : x.reshaped({n, b, b, cOut, h, w});
  const std::vector<int64_t> perm =
      p.crd ? std::vector<int64_t>{0, 1, 4, 2, 5, 3} : std::vector<int64_t>{0, 3, 4, 1, 5, 2};
  return transpose(split, perm).reshaped({n, cOut, h * b, w * b});
}

Tensor pad(const ir::PadParams& p, const Tensor& x) {
  const size_t rank = x.shape().size();
  NNACCEL_ASSERT(p.padsBegin.size() == rank && p.padsEnd.size() == rank) << "pad rank";
  Dims outShape(rank);
  for (size_t a = 0; a < rank; ++a) {
    outShape[a] = x.shape()[a] + p.padsBegin[a] + p.padsEnd[a];
    NNACCEL_ASSERT(outShape[a] >= 0) << "pad crops more than the axis";
    if (p.mode != ir::PadParams::Mode::Constant && x.shape()[a] == 0 && outShape[a] > 0) {
      throw Error(ErrorKind::Model, {}, "cannot pad an empty axis in reflect or edge mode");
    }
  }
  Tensor y(x.dtype(), outShape);
  if (y.numElements() == 0) {
    return y;
  }
  // Per axis and output position: the source element offset, or -1 for the pad value.
  const Dims inStrides = rowMajorStrides(x.shape());
  std::vector<Dims> offsets(rank);
  for (size_t a = 0; a < rank; ++a) {
    for (int64_t o = 0; o < outShape[a]; ++o) {
      const int64_t i = padSourceIndex(p.mode, o, p.padsBegin[a], x.shape()[a]);
      offsets[a].push_back(i < 0 ? -1 : i * inStrides[a]);
    }
  }
  // Integer data takes the exact integer fill (p.value rounds magnitudes above 2^24).
  const Tensor padValue =
      (p.valueIsInteger ? Tensor::scalar(p.intValue) : Tensor::scalar(p.value)).castTo(x.dtype());
  withElementType(x.dtype(), [&](auto e) {
    using E = decltype(e);
    const E* src = reinterpret_cast<const E*>(x.rawData());
    const E value = *reinterpret_cast<const E*>(padValue.rawData());
    E* dst = reinterpret_cast<E*>(y.rawData());
    Dims idx(rank, 0);
    const int64_t count = y.numElements();
    for (int64_t out = 0; out < count; ++out) {
      int64_t off = 0;
      bool inside = true;
      for (size_t a = 0; a < rank; ++a) {
        const int64_t o = offsets[a][static_cast<size_t>(idx[a])];
        inside = inside && o >= 0;
        off += o;
      }
      dst[out] = inside ? src[off] : value;
      for (size_t a = rank; a-- > 0;) {
        if (++idx[a] < outShape[a]) {
          break;
        }
        idx[a] = 0;
      }
    }
  });
  return y;
}

Tensor gather(const Tensor& data, const Tensor& indices, int64_t axis) {
  if (indices.dtype() != DType::I32 && indices.dtype() != DType::I64) {
    unsupported("Gather with " + std::string(dtypeName(indices.dtype())) +
                " indices is not supported (s32, s64)");
  }
  NNACCEL_ASSERT(axis >= 0 && axis < data.rank()) << "gather axis";
  const auto ax = static_cast<size_t>(axis);
  const int64_t axisDim = data.dim(axis);
  Dims outShape(data.shape().begin(), data.shape().begin() + axis);
  outShape.insert(outShape.end(), indices.shape().begin(), indices.shape().end());
  outShape.insert(outShape.end(), data.shape().begin() + axis + 1, data.shape().end());
  int64_t outer = 1, inner = 1;
  for (size_t a = 0; a < ax; ++a) {
    outer *= data.shape()[a];
  }
  for (size_t a = ax + 1; a < data.shape().size(); ++a) {
    inner *= data.shape()[a];
  }
  Tensor y(data.dtype(), outShape);
  const size_t chunkBytes = static_cast<size_t>(inner) * dtypeSizeBytes(data.dtype());
  const int64_t numIndices = indices.numElements();
  for (int64_t j = 0; j < numIndices; ++j) {
    int64_t idx = indices.elementAsInt64(j);
    if (idx < -axisDim || idx >= axisDim) {
      throw Error(ErrorKind::Model, {},
                  "gather index " + std::to_string(idx) + " is out of range for axis " +
                      std::to_string(axis) + " of extent " + std::to_string(axisDim));
    }
    idx = idx < 0 ? idx + axisDim : idx;
    for (int64_t o = 0; o < outer; ++o) {
      std::memcpy(y.rawData() + static_cast<size_t>(o * numIndices + j) * chunkBytes,
                  data.rawData() + static_cast<size_t>(o * axisDim + idx) * chunkBytes, chunkBytes);
    }
  }
  return y;
}

} // namespace nnaccel::reference
