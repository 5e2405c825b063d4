// Shape and dtype inference for every op of Ops.def, plus the static folding of small
// shape-arithmetic nodes (Shape -> Gather -> Unsqueeze -> Concat -> Reshape and friends) so that
// nnaccel sees static shapes. General constant folding of float tensors is a graph pass
// (passes/ConstantFolding), not done here.
#include "nnaccel/ir/ShapeInference.h"

#include "NodeInputs.h"
#include "nnaccel/ir/LogicOps.h"
#include "nnaccel/ir/OpParams.h"
#include "nnaccel/ir/ShapeOps.h"

#include <algorithm>
#include <cstring>

namespace nnaccel::ir {

// The module's private helpers (NodeInputs.h).
using namespace detail;

namespace {

/// Shape-arithmetic nodes whose outputs hold at most this many elements are folded by shape
/// inference; larger ones (e.g. a Reshape of a weight) are left to the ConstantFolding pass.
constexpr int64_t kFoldLimitElements = 4096;

/// Inferred type and shape of one output, with its value when folded.
struct OutInfo {
  DType dtype = DType::F32;
  Dims shape;
  std::optional<Tensor> folded;
};

/// The constant data of every present input if all present inputs are constants.
std::optional<std::vector<const Tensor*>> allConstant(const Graph& g, NodeId id) {
  std::vector<const Tensor*> result;
  for (ValueId v : g.node(id).inputs) {
    if (v == kNoValue) {
      result.push_back(nullptr);
      continue;
    }
    if (!g.value(v).constant) {
      return std::nullopt;
    }
    result.push_back(g.value(v).constant.get());
  }
  return result;
}

bool foldable(const Dims& outShape) {
  return checkedProduct(outShape, kFoldLimitElements).has_value();
}

/// Rejects non-f32 data for the ops nnaccel evaluates in floating point only.
void requireF32(const Graph& g, NodeId id, const Value& v) {
  if (v.dtype != DType::F32) {
    g.fail(id,
           "input " + quoted(v.name) + " has dtype " + std::string(dtypeName(v.dtype)) +
               "; this op supports f32 only",
           ErrorKind::Unsupported);
  }
}

/// Input dtypes of ops that also run on integer tensors (the reference executor's integer
/// kernels): Relu and Clip clamp s8/u8/s32/s64, max pooling compares s8/u8 (oneDNN pooling has
/// no s32/s64). Every other op of these families is f32 only.
void requireDTypeOf(const Graph& g, NodeId id, const Value& v) {
  const OpKind op = g.node(id).op;
  const bool isInteger = v.dtype == DType::I8 || v.dtype == DType::U8 || v.dtype == DType::I32 ||
                         v.dtype == DType::I64;
  const bool isByte = v.dtype == DType::I8 || v.dtype == DType::U8;
  if (((op == OpKind::Relu || op == OpKind::Clip) && isInteger) ||
      ((op == OpKind::MaxPool || op == OpKind::GlobalMaxPool || op == OpKind::QLinearConv ||
        op == OpKind::ConvInteger || op == OpKind::MatMulInteger) &&
       isByte)) {
    return;
  }
  requireF32(g, id, v);
}

/// Rejects an operand of an op the executor runs on oneDNN (MatMul, Concat) whose rank is above
/// kMaxKernelRank.
void requireKernelRank(const Graph& g, NodeId id, const Value& v, int64_t rank) {
  if (rank > kMaxKernelRank) {
    g.fail(id,
           "input " + quoted(v.name) + " of shape " + dimsToString(v.shape) + ": rank " +
               str(rank) + " exceeds the " + str(kMaxKernelRank) + " dimensions nnaccel supports",
           ErrorKind::Unsupported);
  }
}

/// Advances a row-major multi-index over \p shape.
void nextIndex(Dims& index, const Dims& shape) {
  for (size_t a = shape.size(); a-- > 0;) {
    if (++index[a] < shape[a]) {
      return;
    }
    index[a] = 0;
  }
}

/// Flat index into \p inShape of the element that numpy broadcasting maps to output \p index.
int64_t broadcastSource(const Dims& index, const Dims& inShape) {
  const size_t offset = index.size() - inShape.size();
  int64_t flat = 0;
  for (size_t a = 0; a < inShape.size(); ++a) {
    flat = flat * inShape[a] + (inShape[a] == 1 ? 0 : index[a + offset]);
  }
  return flat;
}

// --- small folds ---------------------------------------------------------------------------------

Tensor foldBinary(const Graph& g, NodeId id, OpKind op, const Tensor& a, const Tensor& b,
                  const Dims& outShape) {
  const bool isFloat = a.dtype() == DType::F32;
  Tensor wide(isFloat ? DType::F32 : DType::I64, outShape);
  Dims index(outShape.size(), 0);
  for (int64_t i = 0; i < wide.numElements(); ++i, nextIndex(index, outShape)) {
    const int64_t ia = broadcastSource(index, a.shape());
    const int64_t ib = broadcastSource(index, b.shape());
    if (isFloat) {
      const float x = a.data<float>()[ia];
      const float y = b.data<float>()[ib];
      float r = 0.0f;
      switch (op) {
      case OpKind::Add:
        r = x + y;
        break;
      case OpKind::Sub:
        r = x - y;
        break;
      case OpKind::Mul:
        r = x * y;
        break;
      case OpKind::Min:
      case OpKind::Max:
        r = minMaxOf(op == OpKind::Max, x, y);
        break;
      default:
        r = x / y;
        break;
      }
      wide.data<float>()[i] = r;
      continue;
    }
    const int64_t x = a.elementAsInt64(ia);
    const int64_t y = b.elementAsInt64(ib);
    // Two's-complement wraparound (computed unsigned: signed overflow would be undefined).
    const auto ux = static_cast<uint64_t>(x);
    const auto uy = static_cast<uint64_t>(y);
    int64_t r = 0;
    switch (op) {
    case OpKind::Add:
      r = static_cast<int64_t>(ux + uy);
      break;
    case OpKind::Sub:
      r = static_cast<int64_t>(ux - uy);
      break;
    case OpKind::Mul:
      r = static_cast<int64_t>(ux * uy);
      break;
    case OpKind::Min:
      r = std::min(x, y);
      break;
    case OpKind::Max:
      r = std::max(x, y);
      break;
    default:
      if (y == 0) {
        g.fail(id, "integer division by zero");
      }
      // Truncation toward zero, as ONNX runtimes do for integer Div.
      r = y == -1 ? static_cast<int64_t>(uint64_t{0} - ux) : x / y;
      break;
    }
    wide.data<int64_t>()[i] = r;
  }
  return isFloat ? wide : wide.castTo(a.dtype());
}

Tensor foldGather(const Tensor& data, const std::vector<int64_t>& indices, int64_t axis,
                  const Dims& outShape) {
  Tensor out(data.dtype(), outShape);
  const Dims& d = data.shape();
  const int64_t outer = product(d.begin(), d.begin() + axis);
  const int64_t dim = d[static_cast<size_t>(axis)];
  const int64_t inner = product(d.begin() + axis + 1, d.end());
  const auto n = static_cast<int64_t>(indices.size());
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t j = 0; j < n; ++j) {
      for (int64_t k = 0; k < inner; ++k) {
        copyElement(data, (o * dim + indices[static_cast<size_t>(j)]) * inner + k, out,
                    (o * n + j) * inner + k);
      }
    }
  }
  return out;
}

Tensor foldSlice(const Tensor& data, const SliceParams& p, const Dims& outShape) {
  Tensor out(data.dtype(), outShape);
  const Dims strides = rowMajorStrides(data.shape());
  Dims index(outShape.size(), 0);
  for (int64_t i = 0; i < out.numElements(); ++i, nextIndex(index, outShape)) {
    int64_t src = 0;
    for (size_t a = 0; a < index.size(); ++a) {
      src += (p.starts[a] + index[a] * p.steps[a]) * strides[a];
    }
    copyElement(data, src, out, i);
  }
  return out;
}

Tensor foldConcat(const std::vector<const Tensor*>& parts, int64_t axis, const Dims& outShape) {
  Tensor out(parts.front()->dtype(), outShape);
  const int64_t outer = product(outShape.begin(), outShape.begin() + axis);
  int64_t dst = 0;
  for (int64_t o = 0; o < outer; ++o) {
    for (const Tensor* t : parts) {
      const int64_t chunk = product(t->shape().begin() + axis, t->shape().end());
      for (int64_t k = 0; k < chunk; ++k) {
        copyElement(*t, o * chunk + k, out, dst++);
      }
    }
  }
  return out;
}

// --- per-op inference ----------------------------------------------------------------------------

OutInfo same(const Value& v) {
  return OutInfo{v.dtype, v.shape, std::nullopt};
}

/// A QLinear op's output type: its zero point input \p index's dtype, uint8 when absent.
DType qlinearOutputType(const Graph& g, NodeId id, size_t index) {
  const Value* z = optionalInput(g, id, index);
  return z == nullptr ? DType::U8 : z->dtype;
}

std::vector<OutInfo> inferConvLike(const Graph& g, NodeId id) {
  const Node& n = g.node(id);
  const Value& x = requiredInput(g, id, 0, "data");
  requireDTypeOf(g, id, x);
  Dims out;
  if (n.op == OpKind::Conv || n.op == OpKind::ConvTranspose || n.op == OpKind::QLinearConv ||
      n.op == OpKind::ConvInteger) {
    const ConvParams p = convParams(g, id);
    out = {p.batch, p.outChannels};
    out.insert(out.end(), p.outSpatial.begin(), p.outSpatial.end());
    if (n.op == OpKind::QLinearConv) // the output's integer type: y_zero_point's (uint8 without)
      return {OutInfo{qlinearOutputType(g, id, 7), out, std::nullopt}};
    if (n.op == OpKind::ConvInteger) {
      requireDTypeOf(g, id, requiredInput(g, id, 1, "w"));
      return {OutInfo{DType::I32, out, std::nullopt}};
    }
  } else {
    const PoolParams p = poolParams(g, id);
    out = {p.batch, p.channels};
    out.insert(out.end(), p.outSpatial.begin(), p.outSpatial.end());
    if (n.op == OpKind::MaxPool) {
      // MaxPool's optional Indices output: s64 flat positions, one per pooled value.
      return {OutInfo{x.dtype, out, std::nullopt}, OutInfo{DType::I64, out, std::nullopt}};
    }
  }
  return {OutInfo{x.dtype, out, std::nullopt}};
}

std::vector<OutInfo> inferMatMul(const Graph& g, NodeId id) {
  const bool qlinear = g.node(id).op == OpKind::QLinearMatMul; // a, a_s, a_z, b, b_s, b_z, y_s, y_z
  const bool integer = g.node(id).op == OpKind::MatMulInteger; // a, b, a_zero_point, b_zero_point
  const Value& a = requiredInput(g, id, 0, "A");
  const Value& b = requiredInput(g, id, qlinear ? 3 : 1, "B");
  if (integer) {
    requireDTypeOf(g, id, a);
    requireDTypeOf(g, id, b);
  } else if (!qlinear) {
    requireF32(g, id, a);
    requireF32(g, id, b);
  }
  if (a.shape.empty() || b.shape.empty()) {
    g.fail(id, "MatMul operands must have rank >= 1, found " + dimsToString(a.shape) + " and " +
                   dimsToString(b.shape));
  }
  Dims sa = a.shape.size() == 1 ? Dims{1, a.shape[0]} : a.shape;
  Dims sb = b.shape.size() == 1 ? Dims{b.shape[0], 1} : b.shape;
  requireKernelRank(g, id, a, static_cast<int64_t>(sa.size()));
  requireKernelRank(g, id, b, static_cast<int64_t>(sb.size()));
  if (sa.back() != sb[sb.size() - 2]) {
    g.fail(id,
           "inner dimensions differ: " + dimsToString(a.shape) + " and " + dimsToString(b.shape));
  }
  Dims out = broadcastShapes(g, id, Dims(sa.begin(), sa.end() - 2), Dims(sb.begin(), sb.end() - 2));
  if (a.shape.size() > 1) {
    out.push_back(sa[sa.size() - 2]);
  }
  if (b.shape.size() > 1) {
    out.push_back(sb.back());
  }
  return {OutInfo{qlinear   ? qlinearOutputType(g, id, 7)
                  : integer ? DType::I32
                            : DType::F32,
                  out, std::nullopt}};
}

std::vector<OutInfo> inferBinary(const Graph& g, NodeId id) {
  const Node& n = g.node(id);
  const Value& a = requiredInput(g, id, 0, "A");
  const Value& b = requiredInput(g, id, 1, "B");
  if (a.dtype != b.dtype) {
    g.fail(id, "input dtypes differ: " + std::string(dtypeName(a.dtype)) + " and " +
                   std::string(dtypeName(b.dtype)));
  }
  OutInfo out{a.dtype, broadcastShapes(g, id, a.shape, b.shape), std::nullopt};
  if (a.constant && b.constant && a.dtype != DType::Bool && foldable(out.shape)) {
    out.folded = foldBinary(g, id, n.op, *a.constant, *b.constant, out.shape);
  }
  return {out};
}

/// Equal/Greater/Less/GreaterOrEqual/LessOrEqual (one numeric dtype) and Not/And/Or/Xor (bool):
/// a bool output, broadcast; folded when every input is a small constant.
std::vector<OutInfo> inferLogic(const Graph& g, NodeId id) {
  const Node& n = g.node(id);
  const Value& a = requiredInput(g, id, 0, "A");
  const Value* b = n.op == OpKind::Not ? nullptr : &requiredInput(g, id, 1, "B");
  if (isLogical(n.op)) {
    for (const Value* v : {&a, b})
      if (v && v->dtype != DType::Bool)
        g.fail(id,
               "input " + quoted(v->name) + " has dtype " + std::string(dtypeName(v->dtype)) +
                   "; logical ops take bool",
               ErrorKind::Model);
  } else if (a.dtype != b->dtype || a.dtype == DType::Bool) {
    g.fail(id,
           "inputs must share one numeric dtype, found " + std::string(dtypeName(a.dtype)) +
               " and " + std::string(dtypeName(b->dtype)),
           a.dtype == b->dtype ? ErrorKind::Unsupported : ErrorKind::Model);
  }
  OutInfo out{DType::Bool, b ? broadcastShapes(g, id, a.shape, b->shape) : a.shape, std::nullopt};
  if (a.constant && (!b || b->constant) && foldable(out.shape))
    out.folded = isLogical(n.op) ? logicalValues(n.op, *a.constant, b ? b->constant.get() : nullptr)
                                 : compareValues(n.op, *a.constant, *b->constant);
  return {out};
}

/// Where(cond, X, Y): X and Y of one dtype, all three broadcast together.
std::vector<OutInfo> inferWhere(const Graph& g, NodeId id) {
  const Value& c = requiredInput(g, id, 0, "condition");
  const Value& x = requiredInput(g, id, 1, "X");
  const Value& y = requiredInput(g, id, 2, "Y");
  if (c.dtype != DType::Bool)
    g.fail(id, "condition " + quoted(c.name) + " has dtype " + std::string(dtypeName(c.dtype)) +
                   "; it must be bool");
  if (x.dtype != y.dtype)
    g.fail(id, "X and Y dtypes differ: " + std::string(dtypeName(x.dtype)) + " and " +
                   std::string(dtypeName(y.dtype)));
  const std::optional<Dims> shape = broadcastAll({c.shape, x.shape, y.shape});
  if (!shape)
    g.fail(id, "shapes " + dimsToString(c.shape) + ", " + dimsToString(x.shape) + " and " +
                   dimsToString(y.shape) + " do not broadcast together");
  OutInfo out{x.dtype, *shape, std::nullopt};
  if (c.constant && x.constant && y.constant && foldable(out.shape))
    out.folded = whereValues(*c.constant, *x.constant, *y.constant);
  return {out};
}

/// Min, Max, Sum, Mean of any number of inputs of one dtype (Mean: f32), broadcast together.
std::vector<OutInfo> inferVariadic(const Graph& g, NodeId id) {
  const Node& n = g.node(id);
  const Value& first = requiredInput(g, id, 0, "data_0");
  if (n.op == OpKind::Mean)
    requireF32(g, id, first);
  Dims shape = first.shape;
  for (size_t i = 1; i < n.inputs.size(); ++i) {
    const Value& v = requiredInput(g, id, i, "data_" + std::to_string(i));
    if (v.dtype != first.dtype)
      g.fail(id, "input dtypes differ: " + std::string(dtypeName(first.dtype)) + " and " +
                     std::string(dtypeName(v.dtype)));
    shape = broadcastShapes(g, id, shape, v.shape);
  }
  return {OutInfo{first.dtype, shape, std::nullopt}};
}

std::vector<OutInfo> inferConcat(const Graph& g, NodeId id) {
  const Node& n = g.node(id);
  if (n.inputs.empty()) {
    g.fail(id, "Concat needs at least one input");
  }
  const int64_t axis = concatAxis(g, id);
  const Value& first = requiredInput(g, id, 0, "data");
  requireKernelRank(g, id, first, static_cast<int64_t>(first.shape.size()));
  Dims out = first.shape;
  out[static_cast<size_t>(axis)] = 0;
  for (size_t i = 0; i < n.inputs.size(); ++i) {
    const Value& v = requiredInput(g, id, i, "data");
    if (v.dtype != first.dtype) {
      g.fail(id, "input " + quoted(v.name) + " has dtype " + std::string(dtypeName(v.dtype)) +
                     ", expected " + std::string(dtypeName(first.dtype)));
    }
    bool compatible = v.shape.size() == first.shape.size();
    for (size_t a = 0; compatible && a < v.shape.size(); ++a) {
      compatible = a == static_cast<size_t>(axis) || v.shape[a] == first.shape[a];
    }
    if (!compatible) {
      g.fail(id, "input " + quoted(v.name) + " of shape " + dimsToString(v.shape) +
                     " does not match " + dimsToString(first.shape) + " outside axis " + str(axis));
    }
    out[static_cast<size_t>(axis)] += v.shape[static_cast<size_t>(axis)];
  }
  OutInfo info{first.dtype, out, std::nullopt};
  if (auto consts = allConstant(g, id); consts && foldable(out)) {
    info.folded = foldConcat(*consts, axis, out);
  }
  return {info};
}

std::vector<OutInfo> inferGather(const Graph& g, NodeId id) {
  const Value& data = requiredInput(g, id, 0, "data");
  const Value& indices = requiredInput(g, id, 1, "indices");
  if (indices.dtype != DType::I64 && indices.dtype != DType::I32) {
    g.fail(id, "indices " + quoted(indices.name) + " must be s32 or s64, found " +
                   std::string(dtypeName(indices.dtype)));
  }
  const int64_t axis = gatherAxis(g, id);
  Dims out(data.shape.begin(), data.shape.begin() + axis);
  out.insert(out.end(), indices.shape.begin(), indices.shape.end());
  out.insert(out.end(), data.shape.begin() + axis + 1, data.shape.end());
  OutInfo info{data.dtype, out, std::nullopt};
  if (indices.constant) {
    const int64_t dim = data.shape[static_cast<size_t>(axis)];
    std::vector<int64_t> idx = indices.constant->toInt64Vector();
    for (int64_t& i : idx) {
      if (i < -dim || i >= dim) {
        g.fail(id, "index " + str(i) + " is out of range for axis " + str(axis) + " of extent " +
                       str(dim));
      }
      i = i < 0 ? i + dim : i;
    }
    if (data.constant && foldable(out)) {
      info.folded = foldGather(*data.constant, idx, axis, out);
    }
  }
  return {info};
}

std::vector<OutInfo> inferSlice(const Graph& g, NodeId id) {
  const Value& data = requiredInput(g, id, 0, "data");
  const SliceParams p = sliceParams(g, id);
  Dims out(data.shape.size());
  for (size_t a = 0; a < out.size(); ++a) {
    const int64_t span = p.ends[a] - p.starts[a];
    const int64_t step = p.steps[a];
    if (step > 0) {
      out[a] = span <= 0 ? 0 : (span - 1) / step + 1;
    } else {
      out[a] = span >= 0 ? 0 : (span + 1) / step + 1;
    }
  }
  OutInfo info{data.dtype, out, std::nullopt};
  if (data.constant && foldable(out)) {
    info.folded = foldSlice(*data.constant, p, out);
  }
  return {info};
}

/// Split: one slice of the axis per output (constant inputs fold).
std::vector<OutInfo> inferSplit(const Graph& g, NodeId id) {
  const Value& data = requiredInput(g, id, 0, "input");
  const SplitParams p = splitParams(g, id);
  std::vector<OutInfo> outs;
  SliceParams s{Dims(data.shape.size(), 0), data.shape, Dims(data.shape.size(), 1)};
  const auto axis = static_cast<size_t>(p.axis);
  for (int64_t size : p.sizes) {
    s.ends[axis] = s.starts[axis] + size;
    Dims out = data.shape;
    out[axis] = size;
    OutInfo info{data.dtype, out, std::nullopt};
    if (data.constant && foldable(out))
      info.folded = foldSlice(*data.constant, s, out);
    outs.push_back(std::move(info));
    s.starts[axis] = s.ends[axis];
  }
  return outs;
}

/// Reshape, Squeeze, Unsqueeze and Identity: same data, new shape.
std::vector<OutInfo> inferView(const Graph& g, NodeId id, Dims out) {
  const Value& data = requiredInput(g, id, 0, "data");
  OutInfo info{data.dtype, out, std::nullopt};
  if (data.constant && foldable(out)) {
    info.folded = data.constant->reshaped(out);
  }
  return {info};
}

std::vector<OutInfo> inferShapeOp(const Graph& g, NodeId id) {
  Tensor t = shapeOpValue(g, id, requiredInput(g, id, 0, "data").shape);
  return {OutInfo{DType::I64, t.shape(), std::move(t)}};
}

std::vector<OutInfo> inferConstantOfShape(const Graph& g, NodeId id) {
  ConstantOfShapeSpec spec = constantOfShapeSpec(g, id, requiredConstantInput(g, id, 0, "shape"));
  OutInfo info{spec.fill.dtype(), spec.shape, std::nullopt};
  if (foldable(spec.shape)) {
    info.folded = constantOfShapeValue(spec);
  }
  return {info};
}

std::vector<OutInfo> inferDropout(const Graph& g, NodeId id) {
  const Node& n = g.node(id);
  const Value& x = requiredInput(g, id, 0, "data");
  if (n.opset >= 12) {
    if (const Tensor* t = constantInput(g, id, 2, "training_mode");
        t != nullptr && t->numElements() > 0 && t->elementAsInt64(0) != 0) {
      g.fail(id, "training_mode=true is not supported (inference only)", ErrorKind::Unsupported);
    }
  }
  const DType maskType = n.opset < 10 ? x.dtype : DType::Bool;
  return {same(x), OutInfo{maskType, x.shape, std::nullopt}};
}

std::vector<OutInfo> computeOutputs(const Graph& g, NodeId id) {
  const Node& n = g.node(id);
  const auto in0 = [&]() -> const Value& { return requiredInput(g, id, 0, "data"); };
  switch (n.op) {
  case OpKind::Conv:
  case OpKind::ConvTranspose:
  case OpKind::QLinearConv:
  case OpKind::ConvInteger:
  case OpKind::MaxPool:
  case OpKind::AveragePool:
  case OpKind::GlobalAveragePool:
  case OpKind::GlobalMaxPool:
    return inferConvLike(g, id);
  case OpKind::BatchNormalization:
    requireF32(g, id, in0());
    batchNormParams(g, id);
    return {same(in0())};
  case OpKind::LRN:
    requireF32(g, id, in0());
    lrnParams(g, id);
    return {same(in0())};
  case OpKind::InstanceNormalization:
    requireF32(g, id, in0());
    normalizationParams(g, id);
    return {same(in0())};
  case OpKind::LayerNormalization: {
    requireF32(g, id, in0());
    const NormalizationParams p = normalizationParams(g, id);
    const OutInfo stat{DType::F32, p.statShape, std::nullopt};
    return {same(in0()), stat, stat};
  }
  NNACCEL_UNARY_ACTIVATION_CASES:
    requireDTypeOf(g, id, in0());
    activationParams(g, id);
    return {same(in0())};
  case OpKind::PRelu: {
    const Value& x = in0();
    const Value& slope = requiredInput(g, id, 1, "slope");
    requireF32(g, id, x);
    requireF32(g, id, slope);
    if (broadcastShapes(g, id, x.shape, slope.shape) != x.shape) {
      g.fail(id, "slope " + quoted(slope.name) + " of shape " + dimsToString(slope.shape) +
                     " does not broadcast to the input shape " + dimsToString(x.shape));
    }
    return {same(x)};
  }
  case OpKind::Add:
  case OpKind::Sub:
  case OpKind::Mul:
  case OpKind::Div:
    return inferBinary(g, id);
  case OpKind::Pow: {
    // An f32 base; the exponent any numeric type (read as f32), broadcast both ways.
    const Value& x = in0();
    const Value& y = requiredInput(g, id, 1, "exponent");
    requireF32(g, id, x);
    if (y.dtype == DType::Bool)
      g.fail(id, "exponent " + quoted(y.name) + " is bool", ErrorKind::Unsupported);
    return {OutInfo{DType::F32, broadcastShapes(g, id, x.shape, y.shape), std::nullopt}};
  }
  case OpKind::Min:
  case OpKind::Max:
    return g.node(id).inputs.size() == 2 ? inferBinary(g, id) : inferVariadic(g, id);
  case OpKind::Sum:
  case OpKind::Mean:
    return inferVariadic(g, id);
  case OpKind::Equal:
  case OpKind::Greater:
  case OpKind::Less:
  case OpKind::GreaterOrEqual:
  case OpKind::LessOrEqual:
  case OpKind::Not:
  case OpKind::And:
  case OpKind::Or:
  case OpKind::Xor:
    return inferLogic(g, id);
  case OpKind::Where:
    return inferWhere(g, id);
  case OpKind::Expand: {
    const Value& x = in0();
    OutInfo out{x.dtype, expandShape(g, id), std::nullopt};
    if (x.constant && foldable(out.shape))
      out.folded = expandValues(*x.constant, out.shape);
    return {out};
  }
  case OpKind::Tile: {
    const Value& x = in0();
    const std::vector<int64_t> repeats = tileRepeats(g, id);
    Dims shape = x.shape;
    for (size_t a = 0; a < shape.size(); ++a)
      shape[a] = checkedProduct(std::vector<int64_t>{shape[a], repeats[a]}, kMaxTensorElements)
                     .value_or(kMaxTensorElements + 1);
    OutInfo out{x.dtype, shape, std::nullopt};
    if (x.constant && foldable(out.shape))
      out.folded = tileValues(*x.constant, repeats);
    return {out};
  }
  case OpKind::ArgMax:
  case OpKind::ArgMin:
    requireF32(g, id, in0());
    return {OutInfo{DType::I64, argReduceParams(g, id).outShape, std::nullopt}};
  case OpKind::Gemm: {
    requireF32(g, id, in0());
    const GemmParams p = gemmParams(g, id);
    return {OutInfo{DType::F32, {p.m, p.n}, std::nullopt}};
  }
  case OpKind::MatMul:
  case OpKind::QLinearMatMul:
  case OpKind::MatMulInteger:
    return inferMatMul(g, id);
  case OpKind::DynamicQuantizeLinear: // y (uint8), y_scale, y_zero_point
    requireF32(g, id, in0());
    return {OutInfo{DType::U8, in0().shape, std::nullopt}, OutInfo{DType::F32, {}, std::nullopt},
            OutInfo{DType::U8, {}, std::nullopt}};
  case OpKind::Softmax:
    requireF32(g, id, in0());
    softmaxParams(g, id);
    return {same(in0())};
  NNACCEL_REDUCE_CASES:
    requireF32(g, id, in0());
    return {OutInfo{DType::F32, reduceParams(g, id).outShape, std::nullopt}};
  case OpKind::Concat:
    return inferConcat(g, id);
  case OpKind::Flatten: {
    // The input's shape is validated (at most kMaxTensorElements), so the checked products
    // of its two parts cannot fail.
    const Value& x = in0();
    const auto axis = flattenAxis(g, id);
    return {OutInfo{x.dtype,
                    {product(x.shape.begin(), x.shape.begin() + axis),
                     product(x.shape.begin() + axis, x.shape.end())},
                    std::nullopt}};
  }
  case OpKind::Reshape:
    return inferView(g, id, reshapeTarget(g, id));
  case OpKind::Transpose: {
    const Value& x = in0();
    Dims out;
    for (int64_t a : transposePerm(g, id)) {
      out.push_back(x.shape[static_cast<size_t>(a)]);
    }
    return {OutInfo{x.dtype, out, std::nullopt}};
  }
  case OpKind::Squeeze:
    return inferView(g, id, squeezedShape(in0().shape, squeezeAxes(g, id)));
  case OpKind::Unsqueeze:
    return inferView(g, id, unsqueezedShape(in0().shape, unsqueezeAxes(g, id)));
  case OpKind::Pad: {
    const Value& x = in0();
    const PadParams p = padParams(g, id);
    Dims out = x.shape;
    for (size_t a = 0; a < out.size(); ++a) {
      out[a] += p.padsBegin[a] + p.padsEnd[a];
    }
    return {OutInfo{x.dtype, out, std::nullopt}};
  }
  case OpKind::Resize:
  case OpKind::Upsample:
    return {OutInfo{in0().dtype, resizeParams(g, id).outShape, std::nullopt}};
  case OpKind::DepthToSpace: {
    const Value& x = in0();
    const int64_t b = depthToSpaceParams(g, id).blocksize;
    return {OutInfo{
        x.dtype, {x.shape[0], x.shape[1] / (b * b), x.shape[2] * b, x.shape[3] * b}, std::nullopt}};
  }
  case OpKind::Identity:
    return inferView(g, id, in0().shape);
  case OpKind::Dropout:
    return inferDropout(g, id);
  case OpKind::Constant: {
    Tensor t = constantNodeValue(g, id);
    return {OutInfo{t.dtype(), t.shape(), std::move(t)}};
  }
  case OpKind::Shape:
    return inferShapeOp(g, id);
  case OpKind::Gather:
    return inferGather(g, id);
  case OpKind::Slice:
    return inferSlice(g, id);
  case OpKind::Split:
    return inferSplit(g, id);
  case OpKind::Cast: {
    const Value& x = in0();
    const DType to = castTarget(g, id);
    OutInfo info{to, x.shape, std::nullopt};
    if (x.constant && foldable(x.shape)) {
      info.folded = castValues(g, id, *x.constant);
    }
    return {info};
  }
  case OpKind::ConstantOfShape:
    return inferConstantOfShape(g, id);
  case OpKind::QuantizeLinear:
    return {OutInfo{qdqParams(g, id).quantized, in0().shape, std::nullopt}};
  case OpKind::DequantizeLinear:
    qdqParams(g, id); // validates
    return {OutInfo{DType::F32, in0().shape, std::nullopt}};
  }
  NNACCEL_UNREACHABLE("bad op kind");
  return {};
}

void inferNodeImpl(Graph& g, NodeId id) {
  const Node& n = g.node(id);
  for (ValueId v : n.inputs) {
    if (v != kNoValue && !g.value(v).shapeKnown) {
      g.fail(id, "input " + quoted(g.value(v).name) + " has no inferred shape");
    }
  }
  std::vector<OutInfo> outs = computeOutputs(g, id);
  if (n.outputs.size() > outs.size()) {
    g.fail(id, "node has " + str(static_cast<int64_t>(n.outputs.size())) +
                   " outputs, this op produces at most " + str(static_cast<int64_t>(outs.size())));
  }
  for (size_t k = 0; k < n.outputs.size(); ++k) {
    const ValueId out = n.outputs[k];
    if (out == kNoValue) {
      continue;
    }
    OutInfo& info = outs[k];
    if (!info.folded) {
      for (int64_t d : info.shape) {
        if (d <= 0) {
          // Empty tensors are valid ONNX that nnaccel does not compile; negative extents
          // mean the model is inconsistent.
          g.fail(id,
                 "output " + quoted(g.value(out).name) + " has shape " + dimsToString(info.shape) +
                     (d == 0 ? "; zero-sized dimensions are not supported"
                             : "; negative dimensions are invalid"),
                 d == 0 ? ErrorKind::Unsupported : ErrorKind::Model);
        }
      }
    }
    if (!checkedProduct(info.shape, kMaxTensorElements)) {
      g.fail(id,
             "output " + quoted(g.value(out).name) + " has shape " + dimsToString(info.shape) +
                 ", more than the 2^32 elements per tensor nnaccel supports",
             ErrorKind::Unsupported);
    }
    Value& v = g.value(out);
    v.dtype = info.dtype;
    v.shape = info.shape;
    v.shapeKnown = true;
    v.constant = info.folded ? std::make_shared<const Tensor>(std::move(*info.folded)) : nullptr;
  }
}

} // namespace

void inferNode(Graph& g, NodeId id) {
  withNodeContext(g, id, [&] { inferNodeImpl(g, id); });
}

namespace {

/// "1x?x7": a declared shape with its unknown (-1) dimensions as '?'.
std::string declaredToString(const Dims& dims) {
  if (dims.empty()) {
    return "scalar";
  }
  std::string s;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i > 0) {
      s += 'x';
    }
    s += dims[i] < 0 ? std::string("?") : str(dims[i]);
  }
  return s;
}

/// Throws Error(Model) naming output \p v (and its producer) if its inferred dtype or shape
/// disagrees with the type the model declares for it.
void checkDeclaredOutput(const Graph& g, const Value& v) {
  if (!v.shapeKnown) {
    return; // not produced: verify() reports it
  }
  std::string mismatch;
  if (v.declaredDType && *v.declaredDType != v.dtype) {
    mismatch = std::string(dtypeName(*v.declaredDType)) + " but infers to " +
               std::string(dtypeName(v.dtype));
  } else if (v.declaredShape) {
    const Dims& declared = *v.declaredShape;
    bool same = declared.size() == v.shape.size();
    for (size_t i = 0; same && i < declared.size(); ++i) {
      same = declared[i] < 0 || declared[i] == v.shape[i];
    }
    if (!same) {
      mismatch = declaredToString(declared) + " but infers to " + dimsToString(v.shape);
    }
  }
  if (mismatch.empty()) {
    return;
  }
  const std::string reason = "output " + quoted(v.name) + " is declared " + mismatch;
  if (v.producer >= 0) {
    g.fail(v.producer, reason);
  }
  throw Error(ErrorKind::Model, ErrorContext{.file = g.sourcePath}, reason);
}

} // namespace

void inferShapes(Graph& g) {
  g.topoSort();
  for (ValueId in : g.inputs) {
    const Value& v = g.value(in);
    if (!v.shapeKnown) {
      throw Error(ErrorKind::Unsupported, ErrorContext{.file = g.sourcePath},
                  "graph input " + quoted(v.name) + " has no static shape");
    }
    for (int64_t d : v.shape) {
      if (d <= 0 || d > detail::kMaxExtent) {
        throw Error(ErrorKind::Model, ErrorContext{.file = g.sourcePath},
                    "graph input " + quoted(v.name) + " has shape " + dimsToString(v.shape) +
                        "; dimensions must be positive and at most " +
                        std::to_string(detail::kMaxExtent));
      }
    }
    if (!checkedProduct(v.shape, kMaxTensorElements)) {
      throw Error(ErrorKind::Unsupported, ErrorContext{.file = g.sourcePath},
                  "graph input " + quoted(v.name) + " has shape " + dimsToString(v.shape) +
                      ", more than the 2^32 elements per tensor nnaccel supports");
    }
  }
  for (NodeId id = 0; id < static_cast<NodeId>(g.numNodes()); ++id) {
    inferNode(g, id);
  }
  for (ValueId out : g.outputs) {
    checkDeclaredOutput(g, g.value(out));
  }
}

} // namespace nnaccel::ir
