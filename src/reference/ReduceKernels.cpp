// The Reduce* family (Mean, Sum, Max, Min, Prod, L1, L2, SumSquare, LogSum, LogSumExp) and Pow
// in plain loops (Kernels.h): each reduced output accumulates in
// double over its inputs in row-major order, so the result is the same on every machine.
#include "nnaccel/ir/OpParams.h"
#include "nnaccel/reference/Kernels.h"
#include "nnaccel/support/Error.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace nnaccel::reference {

Tensor pow(const Tensor& x, const Tensor& y) {
  NNACCEL_ASSERT(x.dtype() == DType::F32) << "pow of a non-f32 base";
  const Tensor e = y.dtype() == DType::F32 ? y : y.castTo(DType::F32);
  const size_t rank = std::max(x.shape().size(), e.shape().size());
  Dims out(rank, 1);
  auto at = [rank](const Dims& s, size_t a) {
    return a < rank - s.size() ? int64_t{1} : s[a - (rank - s.size())];
  };
  for (size_t a = 0; a < rank; ++a)
    out[a] = std::max(at(x.shape(), a), at(e.shape(), a));
  // Strides of each operand over the output (0 where it broadcasts).
  auto strides = [&](const Dims& s) {
    Dims own = rowMajorStrides(s), st(rank, 0);
    for (size_t a = rank - s.size(); a < rank; ++a)
      st[a] = s[a - (rank - s.size())] == 1 ? 0 : own[a - (rank - s.size())];
    return st;
  };
  const Dims sx = strides(x.shape()), se = strides(e.shape());
  Tensor r(DType::F32, out);
  std::vector<int64_t> index(rank, 0);
  for (int64_t i = 0; i < r.numElements(); ++i) {
    int64_t ix = 0, ie = 0;
    for (size_t a = 0; a < rank; ++a) {
      ix += index[a] * sx[a];
      ie += index[a] * se[a];
    }
    r.data<float>()[i] = std::pow(x.data<float>()[ix], e.data<float>()[ie]);
    for (size_t a = rank; a-- > 0;) {
      if (++index[a] < out[a])
        break;
      index[a] = 0;
    }
  }
  return r;
}

namespace {

/// How one reduction op maps, combines and finishes its elements: every op of the family is
/// finish(combine over the line of term(x)).
struct ReduceRule {
  enum class Term { Same, Abs, Square, Exp } term = Term::Same;
  enum class Combine { Sum, Prod, Max, Min } combine = Combine::Sum;
  enum class Finish { None, Mean, Sqrt, Log } finish = Finish::None;
};

ReduceRule ruleOf(ir::OpKind op) {
  using R = ReduceRule;
  switch (op) {
  case ir::OpKind::ReduceMean:
    return {R::Term::Same, R::Combine::Sum, R::Finish::Mean};
  case ir::OpKind::ReduceSum:
    return {};
  case ir::OpKind::ReduceMax:
    return {R::Term::Same, R::Combine::Max, R::Finish::None};
  case ir::OpKind::ReduceMin:
    return {R::Term::Same, R::Combine::Min, R::Finish::None};
  case ir::OpKind::ReduceProd:
    return {R::Term::Same, R::Combine::Prod, R::Finish::None};
  case ir::OpKind::ReduceL1:
    return {R::Term::Abs, R::Combine::Sum, R::Finish::None};
  case ir::OpKind::ReduceL2:
    return {R::Term::Square, R::Combine::Sum, R::Finish::Sqrt};
  case ir::OpKind::ReduceSumSquare:
    return {R::Term::Square, R::Combine::Sum, R::Finish::None};
  case ir::OpKind::ReduceLogSum:
    return {R::Term::Same, R::Combine::Sum, R::Finish::Log};
  case ir::OpKind::ReduceLogSumExp:
    return {R::Term::Exp, R::Combine::Sum, R::Finish::Log};
  default:
    NNACCEL_UNREACHABLE("not a reduction");
    return {};
  }
}

double termOf(ReduceRule::Term t, double v) {
  switch (t) {
  case ReduceRule::Term::Abs:
    return std::fabs(v);
  case ReduceRule::Term::Square:
    return v * v;
  case ReduceRule::Term::Exp:
    return std::exp(v);
  case ReduceRule::Term::Same:
    break;
  }
  return v;
}

/// \p r combined with \p v; a NaN propagates through Max and Min (std::max would drop it).
double combine(ReduceRule::Combine c, double r, double v) {
  constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  switch (c) {
  case ReduceRule::Combine::Max:
    return std::isnan(v) || std::isnan(r) ? kNaN : std::max(r, v);
  case ReduceRule::Combine::Min:
    return std::isnan(v) || std::isnan(r) ? kNaN : std::min(r, v);
  case ReduceRule::Combine::Prod:
    return r * v;
  case ReduceRule::Combine::Sum:
    break;
  }
  return r + v;
}

double identityOf(ReduceRule::Combine c) {
  switch (c) {
  case ReduceRule::Combine::Max:
    return -std::numeric_limits<double>::infinity();
  case ReduceRule::Combine::Min:
    return std::numeric_limits<double>::infinity();
  case ReduceRule::Combine::Prod:
    return 1.0;
  case ReduceRule::Combine::Sum:
    break;
  }
  return 0.0;
}

double finish(ReduceRule::Finish f, double acc, double count) {
  switch (f) {
  case ReduceRule::Finish::Mean:
    return acc / count;
  case ReduceRule::Finish::Sqrt:
    return std::sqrt(acc);
  case ReduceRule::Finish::Log:
    return std::log(acc);
  case ReduceRule::Finish::None:
    break;
  }
  return acc;
}

} // namespace

Tensor reduce(ir::OpKind op, const ir::ReduceParams& p, const Tensor& x) {
  NNACCEL_ASSERT(x.dtype() == DType::F32) << "reduce of a non-f32 tensor";
  const ReduceRule rule = ruleOf(op);
  const Dims& shape = x.shape();
  const auto rank = shape.size();
  std::vector<bool> reduced(rank, false);
  for (int64_t a : p.axes)
    reduced[static_cast<size_t>(a)] = true;
  // The output index of every input element: its kept coordinates, row-major.
  Dims kept(rank, 1);
  for (size_t a = 0; a < rank; ++a)
    kept[a] = reduced[a] ? 1 : shape[a];
  const Dims keptStrides = rowMajorStrides(kept);
  const int64_t outCount = numElements(kept);
  std::vector<double> acc(static_cast<size_t>(outCount), identityOf(rule.combine));
  std::vector<int64_t> index(rank, 0);
  const float* in = x.data<float>();
  for (int64_t i = 0; i < x.numElements(); ++i) {
    int64_t o = 0;
    for (size_t a = 0; a < rank; ++a)
      o += reduced[a] ? 0 : index[a] * keptStrides[a];
    double& r = acc[static_cast<size_t>(o)];
    r = combine(rule.combine, r, termOf(rule.term, in[i]));
    for (size_t a = rank; a-- > 0;) { // next row-major index
      if (++index[a] < shape[a])
        break;
      index[a] = 0;
    }
  }
  const double count =
      static_cast<double>(std::max<int64_t>(1, x.numElements() / std::max<int64_t>(1, outCount)));
  Tensor out(DType::F32, p.outShape);
  NNACCEL_ASSERT(out.numElements() == outCount) << "reduce output size";
  float* dst = out.data<float>();
  for (int64_t o = 0; o < outCount; ++o)
    dst[o] = static_cast<float>(finish(rule.finish, acc[static_cast<size_t>(o)], count));
  return out;
}

Tensor argReduce(bool max, const ir::ArgReduceParams& p, const Tensor& x) {
  NNACCEL_ASSERT(x.dtype() == DType::F32) << "arg-reduce of a non-f32 tensor";
  const Dims& shape = x.shape();
  const auto axis = static_cast<size_t>(p.axis);
  const int64_t outer = numElements(Dims(shape.begin(), shape.begin() + p.axis));
  const int64_t extent = shape[axis];
  const int64_t inner = numElements(Dims(shape.begin() + p.axis + 1, shape.end()));
  Tensor r(DType::I64, p.outShape);
  const float* src = x.data<float>();
  int64_t* dst = r.data<int64_t>();
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      const float* line = src + o * extent * inner + i;
      int64_t best = 0;
      for (int64_t k = 1; k < extent; ++k) {
        const float v = line[k * inner], b = line[best * inner];
        const bool better =
            max ? (p.selectLastIndex ? v >= b : v > b) : (p.selectLastIndex ? v <= b : v < b);
        best = better ? k : best;
      }
      dst[o * inner + i] = best;
    }
  }
  return r;
}

} // namespace nnaccel::reference
