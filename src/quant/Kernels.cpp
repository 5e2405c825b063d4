// The element-wise, pooling and gather int8 kernels: per-channel requantization, clamps,
// average pooling with per-count multipliers, Add/Sub/Mul with broadcasting, and gathers.
#include "nnaccel/quant/Kernels.h"

#include <algorithm>
#include <array>

namespace nnaccel::quant {

namespace {

/// Calls f(outIndex, aOffset, bOffset) for every element of \p outShape, row-major, where the
/// offsets read \p aShape and \p bShape with numpy broadcasting (right-aligned, extent-1 axes
/// repeated).
template <typename F>
void forEachBroadcast(const Dims& outShape, const Dims& aShape, const Dims& bShape, F&& f) {
  const size_t rank = outShape.size();
  NNACCEL_ASSERT(aShape.size() <= rank && bShape.size() <= rank) << "broadcast rank";
  auto stridesFor = [&](const Dims& shape) {
    Dims strides(rank, 0);
    const Dims own = rowMajorStrides(shape);
    const size_t offset = rank - shape.size();
    for (size_t i = 0; i < shape.size(); ++i) {
      NNACCEL_ASSERT(shape[i] == outShape[offset + i] || shape[i] == 1)
          << "cannot broadcast " << dimsToString(shape) << " to " << dimsToString(outShape);
      strides[offset + i] = shape[i] == 1 ? 0 : own[i];
    }
    return strides;
  };
  const Dims sa = stridesFor(aShape);
  const Dims sb = stridesFor(bShape);
  const int64_t total = numElements(outShape);
  if (rank == 0) {
    f(0, 0, 0);
    return;
  }
  if (total == 0) {
    return;
  }
  const int64_t inner = outShape[rank - 1];
  const int64_t innerA = sa[rank - 1];
  const int64_t innerB = sb[rank - 1];
  Dims idx(rank, 0);
  int64_t offA = 0, offB = 0;
  for (int64_t out = 0; out < total; out += inner) {
    for (int64_t i = 0; i < inner; ++i) {
      f(out + i, offA + i * innerA, offB + i * innerB);
    }
    // Odometer over the outer axes.
    for (size_t axis = rank - 1; axis-- > 0;) {
      if (++idx[axis] < outShape[axis]) {
        offA += sa[axis];
        offB += sb[axis];
        break;
      }
      offA -= sa[axis] * (outShape[axis] - 1);
      offB -= sb[axis] * (outShape[axis] - 1);
      idx[axis] = 0;
    }
  }
}

void requireS8(const Tensor& t, const char* what) {
  NNACCEL_ASSERT(t.dtype() == DType::I8) << what << " wants s8, got " << dtypeName(t.dtype());
}

int8_t toS8(int32_t v) {
  return static_cast<int8_t>(v);
}

/// True for an int8 code (a zero point or clamp bound the vector kernels take).
bool isCode(int32_t v) {
  return v >= kInt8Min && v <= kInt8Max;
}

/// Per-axis pooling windows: taps (in-bounds input coordinates) and the count factor of each
/// output coordinate; three axes (leading extent-1 axes added).
struct PoolAxes {
  std::array<int64_t, 3> in{1, 1, 1}, out{1, 1, 1};
  std::array<std::vector<std::vector<int64_t>>, 3> taps;
  std::array<std::vector<int64_t>, 3> countFactor;
};

PoolAxes poolAxes(const ir::PoolParams& params) {
  ir::PoolParams p = params;
  const size_t rank = p.inSpatial.size();
  if (rank < 1 || rank > 3) {
    throw Error(ErrorKind::Unsupported, {},
                "int8 average pooling with " + std::to_string(rank) +
                    " spatial axes is not supported (1 to 3)");
  }
  if (p.global) {
    p.kernel = p.inSpatial;
    p.strides = p.dilations = p.outSpatial = Dims(rank, 1);
    p.padsBegin = p.padsEnd = Dims(rank, 0);
  }
  PoolAxes axes;
  const size_t offset = 3 - rank;
  for (size_t a = 0; a < 3; ++a) {
    int64_t kernel = 1, stride = 1, dilation = 1, padBegin = 0, padEnd = 0;
    if (a >= offset) {
      const size_t s = a - offset;
      axes.in[a] = p.inSpatial[s];
      axes.out[a] = p.outSpatial[s];
      kernel = p.kernel[s];
      stride = p.strides[s];
      dilation = p.dilations.empty() ? 1 : p.dilations[s];
      padBegin = p.padsBegin[s];
      padEnd = p.padsEnd[s];
    }
    // Counted positions: the explicitly padded extent, or the input only.
    const int64_t countLo = p.countIncludePad ? -padBegin : 0;
    const int64_t countHi = p.countIncludePad ? axes.in[a] + padEnd : axes.in[a];
    for (int64_t o = 0; o < axes.out[a]; ++o) {
      std::vector<int64_t> taps;
      int64_t counted = 0;
      for (int64_t k = 0; k < kernel; ++k) {
        const int64_t pos = o * stride - padBegin + k * dilation;
        counted += (pos >= countLo && pos < countHi) ? 1 : 0;
        if (pos >= 0 && pos < axes.in[a]) {
          taps.push_back(pos);
        }
      }
      axes.taps[a].push_back(std::move(taps));
      axes.countFactor[a].push_back(counted);
    }
  }
  return axes;
}

} // namespace

Tensor requantizePerChannel(const Tensor& acc, int64_t axis,
                            std::span<const QuantMultiplier> multipliers, int32_t lo, int32_t hi,
                            int32_t zOut) {
  NNACCEL_ASSERT(acc.dtype() == DType::I32) << "requantizePerChannel wants s32";
  NNACCEL_ASSERT(axis >= 0 && axis < acc.rank()) << "channel axis " << axis;
  const int64_t channels = acc.dim(axis);
  NNACCEL_ASSERT(static_cast<int64_t>(multipliers.size()) == channels)
      << multipliers.size() << " multipliers for " << channels << " channels";
  int64_t inner = 1;
  for (int64_t i = axis + 1; i < acc.rank(); ++i) {
    inner *= acc.dim(i);
  }
  const int64_t outer = acc.numElements() / std::max<int64_t>(1, channels * inner);
  Tensor out(DType::I8, acc.shape());
  const int32_t* src = acc.data<int32_t>();
  int8_t* dst = out.data<int8_t>();
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t c = 0; c < channels; ++c) {
      const QuantMultiplier m = multipliers[static_cast<size_t>(c)];
      const int64_t base = (o * channels + c) * inner;
      for (int64_t i = 0; i < inner; ++i) {
        dst[base + i] = toS8(requantizeTo(src[base + i], m, zOut, lo, hi));
      }
    }
  }
  return out;
}

Tensor requantizeTensor(const Tensor& x, QuantMultiplier m, int32_t zIn, int32_t zOut) {
  if (x.dtype() == DType::I8 && m.isIdentity() && zIn == zOut) {
    return x; // exactly 1.0 on the same zero point: the identity on int8 values
  }
  Tensor out(DType::I8, x.shape());
  int8_t* dst = out.data<int8_t>();
  if (x.dtype() == DType::I8) {
    const int8_t* src = x.data<int8_t>();
    for (int64_t i = 0, count = x.numElements(); i < count; ++i) {
      dst[i] = toS8(requantizeTo(src[i] - zIn, m, zOut));
    }
  } else {
    NNACCEL_ASSERT(x.dtype() == DType::I32) << "requantizeTensor wants s8 or s32";
    const int32_t* src = x.data<int32_t>();
    for (int64_t i = 0, count = x.numElements(); i < count; ++i) {
      dst[i] = toS8(requantizeTo(src[i] - zIn, m, zOut));
    }
  }
  return out;
}

Tensor int8Output(Tensor recycled, const Dims& shape) {
  if (recycled.dtype() == DType::I8 && recycled.shape() == shape &&
      recycled.sizeBytes() == static_cast<size_t>(numElements(shape)))
    return recycled;
  return Tensor(DType::I8, shape);
}

Tensor clampTensor(const Tensor& x, int32_t lo, int32_t hi, Tensor recycled) {
  requireS8(x, "clampTensor");
  Tensor out = int8Output(std::move(recycled), x.shape());
  const int8_t* src = x.data<int8_t>();
  int8_t* dst = out.data<int8_t>();
  const int64_t count = x.numElements();
  if (!isCode(lo) || !isCode(hi)) { // bounds that are not codes: the rule as written
    for (int64_t i = 0; i < count; ++i)
      dst[i] = toS8(std::min<int32_t>(std::max<int32_t>(src[i], lo), hi));
    return out;
  }
  // On the codes' unsigned images (q + 128, order preserving) the baseline ISA has byte min and
  // max (pminub, pmaxub), so the compiler vectorizes this 16 codes at a time.
  const auto toUnsigned = [](int32_t q) { return static_cast<uint8_t>(q + 128); };
  const uint8_t low = toUnsigned(lo), high = toUnsigned(hi);
  for (int64_t i = 0; i < count; ++i) {
    const auto u = static_cast<uint8_t>(static_cast<uint8_t>(src[i]) ^ 0x80u);
    dst[i] = static_cast<int8_t>(std::min(std::max(u, low), high) ^ 0x80u);
  }
  return out;
}

std::vector<int64_t> averagePoolCounts(const ir::PoolParams& p) {
  const PoolAxes axes = poolAxes(p);
  std::vector<int64_t> counts{1};
  for (size_t a = 0; a < 3; ++a) {
    std::vector<int64_t> factors = axes.countFactor[a];
    std::sort(factors.begin(), factors.end());
    factors.erase(std::unique(factors.begin(), factors.end()), factors.end());
    std::vector<int64_t> next;
    for (int64_t c : counts) {
      for (int64_t f : factors) {
        next.push_back(c * f);
      }
    }
    std::sort(next.begin(), next.end());
    next.erase(std::unique(next.begin(), next.end()), next.end());
    counts = std::move(next);
  }
  counts.erase(std::remove(counts.begin(), counts.end(), 0), counts.end());
  return counts;
}

Tensor averagePool(const ir::PoolParams& p, const Tensor& x,
                   std::span<const CountMultiplier> multipliers, ZeroPoints z) {
  requireS8(x, "averagePool");
  const PoolAxes axes = poolAxes(p);
  const int64_t inVol = axes.in[0] * axes.in[1] * axes.in[2];
  const int64_t outVol = axes.out[0] * axes.out[1] * axes.out[2];
  const int64_t planes = p.batch * p.channels;
  NNACCEL_ASSERT(x.numElements() == planes * inVol) << "average pool input size";
  auto multiplierFor = [&](int64_t count) {
    auto it = std::lower_bound(multipliers.begin(), multipliers.end(), count,
                               [](const CountMultiplier& m, int64_t c) { return m.count < c; });
    NNACCEL_ASSERT(it != multipliers.end() && it->count == count)
        << "no multiplier for window count " << count;
    return it->multiplier;
  };
  Dims outShape{p.batch, p.channels};
  for (size_t a = 3 - p.inSpatial.size(); a < 3; ++a) {
    outShape.push_back(axes.out[a]);
  }
  Tensor out(DType::I8, outShape);
  int8_t* dst = out.data<int8_t>();
  const int8_t* src = x.data<int8_t>();
  for (int64_t o0 = 0; o0 < axes.out[0]; ++o0) {
    for (int64_t o1 = 0; o1 < axes.out[1]; ++o1) {
      for (int64_t o2 = 0; o2 < axes.out[2]; ++o2) {
        const int64_t count = axes.countFactor[0][static_cast<size_t>(o0)] *
                              axes.countFactor[1][static_cast<size_t>(o1)] *
                              axes.countFactor[2][static_cast<size_t>(o2)];
        const QuantMultiplier m = count > 0 ? multiplierFor(count) : QuantMultiplier{};
        const auto& t0 = axes.taps[0][static_cast<size_t>(o0)];
        const auto& t1 = axes.taps[1][static_cast<size_t>(o1)];
        const auto& t2 = axes.taps[2][static_cast<size_t>(o2)];
        const int64_t outPos = (o0 * axes.out[1] + o1) * axes.out[2] + o2;
        for (int64_t plane = 0; plane < planes; ++plane) {
          const int8_t* xp = src + plane * inVol;
          int64_t sum = 0; // a window may hold more than 2^24 values: int32 could overflow
          for (int64_t i0 : t0) {
            for (int64_t i1 : t1) {
              const int8_t* row = xp + (i0 * axes.in[1] + i1) * axes.in[2];
              for (int64_t i2 : t2) {
                sum += row[i2] - z.in[0];
              }
            }
          }
          dst[plane * outVol + outPos] =
              count > 0 ? toS8(requantizeWide(sum, m, kInt8Min - z.out, kInt8Max - z.out) + z.out)
                        : toS8(z.out);
        }
      }
    }
  }
  return out;
}

namespace {

/// addSub's elements for operands of the output's own shape (no broadcasting). When the tables'
/// magnitudes cannot add up to more than int32 holds, addSubLookup (vectorized); otherwise in
/// blocks: the int32 intermediates a' +- b' from the tables, then requantizeValues on the block,
/// and a block whose intermediate leaves int32 goes through addSubRescaled, which reports it.
void addSubSameShape(bool subtract, const std::array<int64_t, 256>& tableA,
                     const std::array<int64_t, 256>& tableB, const int8_t* a, const int8_t* b,
                     int64_t count, QuantMultiplier output, int32_t zOut, int8_t* out) {
  const auto largest = [](const std::array<int64_t, 256>& t) {
    int64_t m = 0;
    for (const int64_t v : t)
      m = std::max(m, v < 0 ? -v : v);
    return m;
  };
  if (largest(tableA) + largest(tableB) <= INT32_MAX) { // no intermediate can overflow
    std::array<int32_t, 256> narrowA{}, narrowB{};
    for (size_t q = 0; q < 256; ++q) {
      narrowA[q] = static_cast<int32_t>(tableA[q]);
      narrowB[q] = static_cast<int32_t>(subtract ? -tableB[q] : tableB[q]);
    }
    addSubLookup(narrowA, narrowB, a, b, count, output, zOut, out);
    return;
  }
  constexpr int64_t kBlock = 8192;
  std::vector<int32_t> sums(static_cast<size_t>(std::min(kBlock, count)));
  for (int64_t start = 0; start < count; start += kBlock) {
    const int64_t n = std::min(kBlock, count - start);
    int64_t least = 0, most = 0;
    for (int64_t i = 0; i < n; ++i) {
      const int64_t ta = tableA[static_cast<size_t>(a[start + i] + 128)];
      const int64_t tb = tableB[static_cast<size_t>(b[start + i] + 128)];
      const int64_t sum = subtract ? ta - tb : ta + tb;
      least = std::min(least, sum);
      most = std::max(most, sum);
      sums[static_cast<size_t>(i)] = static_cast<int32_t>(sum);
    }
    if (least < INT32_MIN || most > INT32_MAX) {
      for (int64_t i = 0; i < n; ++i)
        out[start + i] =
            addSubRescaled(subtract, tableA[static_cast<size_t>(a[start + i] + 128)],
                           tableB[static_cast<size_t>(b[start + i] + 128)], output, zOut);
      continue;
    }
    requantizeValues(std::span(sums.data(), static_cast<size_t>(n)), output, zOut, kInt8Min,
                     kInt8Max, out + start);
  }
}

} // namespace

Tensor addSub(bool subtract, const AddSubMultipliers& m, const Tensor& a, const Tensor& b,
              const Dims& outShape, ZeroPoints z, Tensor recycled) {
  requireS8(a, "addSub");
  requireS8(b, "addSub");
  NNACCEL_ASSERT(m.leftShift >= 0 && m.leftShift <= 23) << "leftShift " << m.leftShift;
  // a' and b' depend only on the int8 operand: tabulate them (256 entries each). |q - z| <= 255,
  // so (q - z) * 2^leftShift stays within int32.
  std::array<int64_t, 256> tableA{}, tableB{};
  for (int32_t q = kInt8Min; q <= kInt8Max; ++q) {
    tableA[static_cast<size_t>(q + 128)] = addSubOperand(q - z.in[0], m.leftShift, m.a);
    tableB[static_cast<size_t>(q + 128)] = addSubOperand(q - z.in[1], m.leftShift, m.b);
  }
  Tensor out = int8Output(std::move(recycled), outShape);
  const int8_t* pa = a.data<int8_t>();
  const int8_t* pb = b.data<int8_t>();
  int8_t* dst = out.data<int8_t>();
  if (a.shape() == outShape && b.shape() == outShape && isCode(z.out)) {
    addSubSameShape(subtract, tableA, tableB, pa, pb, out.numElements(), m.output, z.out, dst);
    return out;
  }
  forEachBroadcast(outShape, a.shape(), b.shape(), [&](int64_t i, int64_t ia, int64_t ib) {
    dst[i] = addSubRescaled(subtract, tableA[static_cast<size_t>(pa[ia] + 128)],
                            tableB[static_cast<size_t>(pb[ib] + 128)], m.output, z.out);
  });
  return out;
}

Tensor mul(QuantMultiplier output, const Tensor& a, const Tensor& b, const Dims& outShape,
           bool divide, ZeroPoints z) {
  requireS8(a, "mul");
  requireS8(b, "mul");
  Tensor out(DType::I8, outShape);
  const int8_t* pa = a.data<int8_t>();
  const int8_t* pb = b.data<int8_t>();
  int8_t* dst = out.data<int8_t>();
  forEachBroadcast(outShape, a.shape(), b.shape(), [&](int64_t i, int64_t ia, int64_t ib) {
    const int32_t qa = pa[ia] - z.in[0], qb = pb[ib] - z.in[1];
    dst[i] = divide ? divValue(output, qa, qb, z.out) : mulValue(output, qa, qb, z.out);
  });
  return out;
}

Tensor minMax(bool max, QuantMultiplier ma, QuantMultiplier mb, const Tensor& a, const Tensor& b,
              const Dims& outShape, ZeroPoints z) {
  requireS8(a, "minMax");
  requireS8(b, "minMax");
  Tensor out(DType::I8, outShape);
  const int8_t* pa = a.data<int8_t>();
  const int8_t* pb = b.data<int8_t>();
  int8_t* dst = out.data<int8_t>();
  forEachBroadcast(outShape, a.shape(), b.shape(), [&](int64_t i, int64_t ia, int64_t ib) {
    dst[i] = minMaxValue(max, ma, mb, pa[ia], pb[ib], z);
  });
  return out;
}

Tensor select(const Tensor& cond, QuantMultiplier mx, QuantMultiplier my, const Tensor& x,
              const Tensor& y, const Dims& outShape, ZeroPoints z) {
  requireS8(cond, "select");
  requireS8(x, "select");
  requireS8(y, "select");
  Tensor out(DType::I8, outShape);
  const int8_t* pc = cond.data<int8_t>();
  const int8_t* px = x.data<int8_t>();
  const int8_t* py = y.data<int8_t>();
  int8_t* dst = out.data<int8_t>();
  forEachBroadcast(outShape, y.shape(), y.shape(), [&](int64_t i, int64_t iy, int64_t) {
    dst[i] = static_cast<int8_t>(requantizeTo(py[iy] - z.in[2], my, z.out));
  });
  forEachBroadcast(outShape, cond.shape(), x.shape(), [&](int64_t i, int64_t ic, int64_t ix) {
    if (pc[ic] != 0)
      dst[i] = static_cast<int8_t>(requantizeTo(px[ix] - z.in[1], mx, z.out));
  });
  return out;
}

Comparison comparisonOf(ir::OpKind op) {
  switch (op) {
  case ir::OpKind::Equal:
    return Comparison::Equal;
  case ir::OpKind::Greater:
    return Comparison::Greater;
  case ir::OpKind::Less:
    return Comparison::Less;
  case ir::OpKind::GreaterOrEqual:
    return Comparison::GreaterOrEqual;
  case ir::OpKind::LessOrEqual:
    return Comparison::LessOrEqual;
  default:
    NNACCEL_UNREACHABLE("not a comparison");
    return Comparison::Equal;
  }
}

Tensor compare(Comparison c, QuantMultiplier ma, QuantMultiplier mb, const Tensor& a,
               const Tensor& b, const Dims& outShape, ZeroPoints z) {
  requireS8(a, "compare");
  requireS8(b, "compare");
  Tensor out(DType::I8, outShape);
  const int8_t* pa = a.data<int8_t>();
  const int8_t* pb = b.data<int8_t>();
  int8_t* dst = out.data<int8_t>();
  forEachBroadcast(outShape, a.shape(), b.shape(), [&](int64_t i, int64_t ia, int64_t ib) {
    dst[i] = compareValue(c, ma, mb, pa[ia], pb[ib], z.in[0], z.in[1]);
  });
  return out;
}

Tensor gather(const Tensor& x, std::span<const int32_t> index, const Dims& outShape) {
  requireS8(x, "gather");
  NNACCEL_ASSERT(static_cast<int64_t>(index.size()) == numElements(outShape)) << "gather size";
  Tensor out(DType::I8, outShape);
  const int8_t* src = x.data<int8_t>();
  int8_t* dst = out.data<int8_t>();
  for (size_t i = 0; i < index.size(); ++i) {
    NNACCEL_ASSERT(index[i] >= 0 && index[i] < x.numElements()) << "gather index " << index[i];
    dst[i] = src[index[i]];
  }
  return out;
}

Tensor lookup(const Tensor& x, std::span<const int8_t> tables, int64_t axis) {
  requireS8(x, "lookup");
  const Dims& shape = x.shape();
  NNACCEL_ASSERT(axis >= -1 && axis < static_cast<int64_t>(shape.size())) << "lookup axis";
  const int64_t count = axis < 0 ? 1 : shape[static_cast<size_t>(axis)];
  NNACCEL_ASSERT(static_cast<int64_t>(tables.size()) == count * kLookupEntries)
      << "lookup: " << tables.size() << " entries for " << count << " tables";
  int64_t inner = 1; // elements per step along the axis
  for (size_t d = static_cast<size_t>(axis + 1); axis >= 0 && d < shape.size(); ++d) {
    inner *= shape[d];
  }
  Tensor out(DType::I8, shape);
  const int8_t* src = x.data<int8_t>();
  int8_t* dst = out.data<int8_t>();
  for (int64_t i = 0, n = x.numElements(); i < n; ++i) {
    const int64_t t = axis < 0 ? 0 : (i / inner) % count;
    dst[i] = tables[static_cast<size_t>(t * kLookupEntries + src[i] + 128)];
  }
  return out;
}

int8_t interpolateAt(const int8_t* x, const Dims& inStrides,
                     std::span<const InterpolationAxis> axes, const Dims& outIndex) {
  // Interpolating axes contribute two taps each; the combinations are the bits of `combo`.
  std::array<size_t, kMaxInterpolatedAxes> active{};
  int k = 0;
  int64_t base = 0;
  for (size_t a = 0; a < axes.size(); ++a) {
    const InterpolationAxis& ax = axes[a];
    const auto o = static_cast<size_t>(outIndex[a]);
    if (ax.interpolates) {
      NNACCEL_ASSERT(k < kMaxInterpolatedAxes) << "too many interpolating axes";
      active[static_cast<size_t>(k++)] = a;
    } else {
      base += ax.index0[o] * inStrides[a];
    }
  }
  constexpr int64_t one = int64_t{1} << kInterpolationWeightBits;
  int64_t acc = 0;
  for (int combo = 0; combo < (1 << k); ++combo) {
    int64_t at = base, weight = 1;
    for (int j = 0; j < k; ++j) {
      const size_t a = active[static_cast<size_t>(j)];
      const InterpolationAxis& ax = axes[a];
      const auto o = static_cast<size_t>(outIndex[a]);
      const bool second = (combo >> j) & 1;
      at += (second ? ax.index1[o] : ax.index0[o]) * inStrides[a];
      weight *= second ? ax.weight1[o] : one - ax.weight1[o];
    }
    acc += weight * x[at];
  }
  return interpolationRound(acc, kInterpolationWeightBits * k);
}

int8_t interpolationRound(int64_t sum, int shift) {
  if (shift == 0)
    return static_cast<int8_t>(sum);
  const int64_t half = int64_t{1} << (shift - 1);
  const int64_t q = sum >= 0 ? (sum + half) >> shift : -((-sum + half) >> shift);
  return static_cast<int8_t>(std::clamp<int64_t>(q, kInt8Min, kInt8Max));
}

Tensor interpolate(const Tensor& x, std::span<const InterpolationAxis> axes, const Dims& outShape) {
  requireS8(x, "interpolate");
  NNACCEL_ASSERT(axes.size() == outShape.size() && x.shape().size() == outShape.size())
      << "interpolation rank";
  Tensor out(DType::I8, outShape);
  const Dims inStrides = rowMajorStrides(x.shape());
  const int8_t* src = x.data<int8_t>();
  int8_t* dst = out.data<int8_t>();
  Dims index(outShape.size(), 0);
  for (int64_t i = 0, count = out.numElements(); i < count; ++i) {
    dst[i] = interpolateAt(src, inStrides, axes, index);
    for (size_t a = index.size(); a-- > 0;) {
      if (++index[a] < outShape[a])
        break;
      index[a] = 0;
    }
  }
  return out;
}

LineGeometry softmaxGeometry(const ir::SoftmaxParams& p, const Dims& shape) {
  LineGeometry geo;
  const auto axis = static_cast<size_t>(p.axis);
  for (size_t a = 0; a < shape.size(); ++a) {
    if (a < axis)
      geo.outer *= shape[a];
    else if (a == axis || p.coerce2d)
      geo.length *= shape[a];
    else
      geo.inner *= shape[a];
  }
  return geo;
}

void softmaxLine(const int8_t* x, int64_t stride, int64_t length, std::span<const int32_t> expTable,
                 QuantMultiplier output, int8_t* out, int32_t zOut) {
  int32_t max = kInt8Min;
  for (int64_t k = 0; k < length; ++k)
    max = std::max<int32_t>(max, x[k * stride]);
  int64_t sum = 0;
  for (int64_t k = 0; k < length; ++k)
    sum += expTable[static_cast<size_t>(max - x[k * stride])];
  // sum >= expTable[0] = 2^15 > 0: the maximum contributes exp(0).
  for (int64_t k = 0; k < length; ++k) {
    const int64_t e = expTable[static_cast<size_t>(max - x[k * stride])];
    const auto p = static_cast<int32_t>(((e << kSoftmaxProbBits) + sum / 2) / sum);
    out[k * stride] = static_cast<int8_t>(requantizeTo(p, output, zOut));
  }
}

Tensor softmax(const Tensor& x, const LineGeometry& geo, std::span<const int32_t> expTable,
               QuantMultiplier output, int32_t zOut) {
  requireS8(x, "softmax");
  NNACCEL_ASSERT(geo.outer * geo.length * geo.inner == x.numElements()) << "softmax lines";
  Tensor out(DType::I8, x.shape());
  for (int64_t o = 0; o < geo.outer; ++o)
    for (int64_t i = 0; i < geo.inner; ++i) {
      const int64_t at = o * geo.length * geo.inner + i;
      softmaxLine(x.data<int8_t>() + at, geo.inner, geo.length, expTable, output,
                  out.data<int8_t>() + at, zOut);
    }
  return out;
}

std::optional<LineGeometry> reduceGeometry(const std::vector<int64_t>& axes, const Dims& shape) {
  LineGeometry geo;
  bool seen = false, after = false;
  for (size_t a = 0; a < shape.size(); ++a) {
    const bool reduced = std::find(axes.begin(), axes.end(), static_cast<int64_t>(a)) != axes.end();
    if (reduced && after && shape[a] != 1)
      return std::nullopt; // a gap of kept axes between reduced ones
    if (reduced) {
      geo.length *= shape[a];
      seen = true;
    } else if (!seen) {
      geo.outer *= shape[a];
    } else {
      geo.inner *= shape[a];
      after = after || shape[a] != 1;
    }
  }
  return geo;
}

Reduction reductionOf(ir::OpKind op) {
  switch (op) {
  case ir::OpKind::ReduceMean:
    return Reduction::Mean;
  case ir::OpKind::ReduceSum:
    return Reduction::Sum;
  case ir::OpKind::ReduceMax:
    return Reduction::Max;
  case ir::OpKind::ReduceMin:
    return Reduction::Min;
  default:
    NNACCEL_UNREACHABLE("not a reduction");
    return Reduction::Mean;
  }
}

int8_t reduceLine(Reduction r, const int8_t* x, int64_t stride, int64_t length, QuantMultiplier m,
                  ZeroPoints z) {
  int64_t acc = r == Reduction::Max   ? kInt8Min - z.in[0]
                : r == Reduction::Min ? kInt8Max - z.in[0]
                                      : 0;
  for (int64_t k = 0; k < length; ++k) {
    const int64_t v = x[k * stride] - z.in[0];
    acc = r == Reduction::Max ? std::max(acc, v) : r == Reduction::Min ? std::min(acc, v) : acc + v;
  }
  return static_cast<int8_t>(requantizeTo(static_cast<int32_t>(acc), m, z.out));
}

Tensor reduce(Reduction r, const Tensor& x, const LineGeometry& geo, QuantMultiplier m,
              const Dims& outShape, ZeroPoints z) {
  requireS8(x, "reduce");
  NNACCEL_ASSERT(geo.outer * geo.length * geo.inner == x.numElements() &&
                 geo.outer * geo.inner == numElements(outShape))
      << "reduction lines";
  Tensor out(DType::I8, outShape);
  for (int64_t o = 0; o < geo.outer; ++o)
    for (int64_t i = 0; i < geo.inner; ++i)
      out.data<int8_t>()[o * geo.inner + i] = reduceLine(
          r, x.data<int8_t>() + o * geo.length * geo.inner + i, geo.inner, geo.length, m, z);
  return out;
}

} // namespace nnaccel::quant
