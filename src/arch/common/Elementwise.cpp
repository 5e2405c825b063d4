// Element-wise layers for the engines' vector / post-processing units: the lowering of a
// quantized node into strided passes, and their exact execution (Elementwise.h).
#include "nnaccel/arch/common/Elementwise.h"

#include "nnaccel/ir/OpParams.h"
#include "nnaccel/support/Error.h"

#include <algorithm>
#include <fmt/format.h>

namespace nnaccel::arch::common {

using quant::QuantOpKind;

std::string_view elementwiseFuncName(ElementwiseFunc f) {
  switch (f) {
  case ElementwiseFunc::Clamp:
    return "clamp";
  case ElementwiseFunc::Lookup:
    return "lookup";
  case ElementwiseFunc::Add:
    return "add";
  case ElementwiseFunc::Sub:
    return "sub";
  case ElementwiseFunc::Mul:
    return "mul";
  case ElementwiseFunc::Min:
    return "min";
  case ElementwiseFunc::Max:
    return "max";
  case ElementwiseFunc::Requantize:
    return "requantize";
  case ElementwiseFunc::Copy:
    return "copy";
  case ElementwiseFunc::Fill:
    return "fill";
  case ElementwiseFunc::Compare:
    return "compare";
  case ElementwiseFunc::Div:
    return "div";
  case ElementwiseFunc::Interpolate:
    return "interpolate";
  case ElementwiseFunc::Softmax:
    return "softmax";
  case ElementwiseFunc::Reduce:
    return "reduce";
  case ElementwiseFunc::Dot:
    return "dot";
  case ElementwiseFunc::Select:
    return "select";
  }
  NNACCEL_UNREACHABLE("bad ElementwiseFunc");
  return "";
}

int elementwiseArity(ElementwiseFunc f) {
  switch (f) {
  case ElementwiseFunc::Fill:
    return 0;
  case ElementwiseFunc::Add:
  case ElementwiseFunc::Sub:
  case ElementwiseFunc::Mul:
  case ElementwiseFunc::Min:
  case ElementwiseFunc::Max:
  case ElementwiseFunc::Compare:
  case ElementwiseFunc::Div:
  case ElementwiseFunc::Dot:
  case ElementwiseFunc::Select:
    return 2;
  default:
    return 1;
  }
}

namespace {

/// Strides reading a row-major tensor of \p shape broadcast (numpy rules) to \p outShape.
Dims broadcastStrides(const Dims& shape, const Dims& outShape) {
  const Dims own = rowMajorStrides(shape);
  Dims strides(outShape.size(), 0);
  const size_t lead = outShape.size() - shape.size();
  for (size_t d = 0; d < shape.size(); ++d)
    strides[lead + d] = shape[d] == 1 ? 0 : own[d];
  return strides;
}

/// The pass reading \p v whole (broadcast to the output) and writing the whole output.
ElementwisePass wholePass(const ir::Graph& g, ElementwiseFunc func, ir::ValueId out,
                          ir::ValueId a) {
  const Dims& outShape = g.value(out).shape;
  ElementwisePass p;
  p.func = func;
  p.extents = outShape;
  p.a = {a, 0, broadcastStrides(g.value(a).shape, outShape)};
  p.out = {out, 0, rowMajorStrides(outShape)};
  return p;
}

using Lowered = std::variant<ElementwiseLayer, std::string>;

Lowered lowerBinary(const quant::QuantizedModel& qm, ir::NodeId id, ElementwiseLayer l) {
  const ir::Graph& g = qm.graph;
  const ir::Node& n = g.node(id);
  const quant::QuantNode& q = qm.node(id);
  const ElementwiseFunc func = ir::isComparison(n.op)    ? ElementwiseFunc::Compare
                               : n.op == ir::OpKind::Mul ? ElementwiseFunc::Mul
                               : n.op == ir::OpKind::Div ? ElementwiseFunc::Div
                               : n.op == ir::OpKind::Sub ? ElementwiseFunc::Sub
                               : n.op == ir::OpKind::Min ? ElementwiseFunc::Min
                               : n.op == ir::OpKind::Max ? ElementwiseFunc::Max
                                                         : ElementwiseFunc::Add;
  ElementwisePass p = wholePass(g, func, l.output, n.inputs[0]);
  p.b = {n.inputs[1], 0, broadcastStrides(g.value(n.inputs[1]).shape, l.outShape)};
  p.addSub = q.addSub;
  p.multiplier = q.mulMultiplier;
  if (q.kind == quant::QuantOpKind::MinMax || q.kind == quant::QuantOpKind::Compare) {
    p.multiplier = q.inputMultipliers.at(0);
    p.multiplierB = q.inputMultipliers.at(1);
  }
  if (q.kind == quant::QuantOpKind::Compare)
    p.comparison = quant::comparisonOf(n.op);
  l.passes.push_back(std::move(p));
  return l;
}

/// Where(cond, x, y): y requantized onto the whole output, then x requantized where the
/// comparison's 0/1 is set (a predicated write), each operand broadcast to the output.
Lowered lowerSelect(const quant::QuantizedModel& qm, ir::NodeId id, ElementwiseLayer l) {
  const ir::Graph& g = qm.graph;
  const ir::Node& n = g.node(id);
  const quant::QuantNode& q = qm.node(id);
  ElementwisePass otherwise = wholePass(g, ElementwiseFunc::Requantize, l.output, n.inputs[2]);
  otherwise.multiplier = q.inputMultipliers.at(2);
  l.passes.push_back(std::move(otherwise));
  ElementwisePass chosen = wholePass(g, ElementwiseFunc::Select, l.output, n.inputs[0]);
  chosen.b = {n.inputs[1], 0, broadcastStrides(g.value(n.inputs[1]).shape, l.outShape)};
  chosen.multiplierB = q.inputMultipliers.at(1);
  l.passes.push_back(std::move(chosen));
  return l;
}

/// Concat: each input requantized (copied when its scale and zero point are the output's) into
/// its slice; through its rescale table (a Lookup) where the model has one
/// (quant::QuantNode::inputTables).
Lowered lowerConcat(const quant::QuantizedModel& qm, ir::NodeId id, ElementwiseLayer l) {
  const ir::Graph& g = qm.graph;
  const ir::Node& n = g.node(id);
  const auto axis = static_cast<size_t>(ir::concatAxis(g, id));
  const Dims outStrides = rowMajorStrides(l.outShape);
  int64_t at = 0;
  for (size_t i = 0; i < n.inputs.size(); ++i) {
    const Dims& shape = g.value(n.inputs[i]).shape;
    const quant::QuantMultiplier m = qm.node(id).inputMultipliers.at(i);
    const bool sameZero =
        g.isConstant(n.inputs[i]) || qm.zeroPoint(n.inputs[i]) == qm.zeroPoint(l.output);
    ElementwisePass p;
    p.func = m.isIdentity() && sameZero ? ElementwiseFunc::Copy : ElementwiseFunc::Requantize;
    p.multiplier = m;
    if (const std::vector<int8_t>* table = qm.node(id).inputTable(i)) {
      p.func = ElementwiseFunc::Lookup;
      p.tableBase = static_cast<int64_t>(l.tables.size()) / quant::kLookupEntries;
      l.tables.insert(l.tables.end(), table->begin(), table->end());
    }
    p.extents = shape;
    p.a = {n.inputs[i], 0, rowMajorStrides(shape)};
    p.out = {l.output, at * outStrides[axis], outStrides};
    at += shape[axis];
    if (p.points() > 0)
      l.passes.push_back(std::move(p));
  }
  return l;
}

/// The output index each point of \p passes writes mapped to the input index it reads (the
/// passes' own gather table), for checking a lowering against quant's table.
std::vector<int64_t> passGatherTable(const std::vector<ElementwisePass>& passes, int64_t outSize);

/// A Resize whose mapping repeats every input element f_h x f_w times (nearest with integer
/// scale factors, or a linear resize that only copies): one copy pass over [N, C, H, f_h, W,
/// f_w] that reads with stride 0 along the repeat axes, checked against the quantizer's table.
/// A nearest resize that keeps every k-th row and column from some offset (a downscale by whole
/// factors): one strided copy, checked against the quantizer's gather table.
Lowered subsampleResize(const quant::QuantizedModel& qm, ir::NodeId id, ElementwiseLayer l,
                        const std::string& notExpressible) {
  const ir::ValueId in = qm.graph.node(id).inputs[0];
  const Dims i = rowMajorStrides(qm.graph.value(in).shape), o = rowMajorStrides(l.outShape);
  const std::vector<int32_t>& want = qm.node(id).gatherIndex;
  if (want.empty())
    return notExpressible;
  const int64_t outH = l.outShape[2], outW = l.outShape[3];
  const int64_t stepX = outW > 1 ? want[1] - want[0] : 0;
  const int64_t stepY = outH > 1 ? want[static_cast<size_t>(outW)] - want[0] : 0;
  if (stepX < 0 || stepY < 0)
    return notExpressible;
  ElementwisePass p;
  p.func = ElementwiseFunc::Copy;
  p.extents = l.outShape;
  p.a = {in, want[0], {i[0], i[1], stepY, stepX}};
  p.out = {l.output, 0, o};
  l.passes.push_back(std::move(p));
  const std::vector<int64_t> got = passGatherTable(l.passes, numElements(l.outShape));
  if (!std::equal(got.begin(), got.end(), want.begin(), want.end()))
    return notExpressible;
  return l;
}

Lowered lowerRepeatResize(const quant::QuantizedModel& qm, ir::NodeId id, ElementwiseLayer l) {
  const ir::Graph& g = qm.graph;
  const ir::ValueId in = g.node(id).inputs[0];
  const Dims& inShape = g.value(in).shape;
  const Dims& outShape = l.outShape;
  const std::string notRepeat = "a resize that is neither an integer-factor repeat nor an "
                                "integer-factor subsample of its input (the unit copies with "
                                "strides, it has no gather table)";
  if (inShape.size() != 4 || inShape[0] != outShape[0] || inShape[1] != outShape[1] ||
      inShape[2] == 0 || inShape[3] == 0)
    return notRepeat;
  if (outShape[2] % inShape[2] != 0 || outShape[3] % inShape[3] != 0)
    return subsampleResize(qm, id, std::move(l), notRepeat);
  const int64_t fy = outShape[2] / inShape[2], fx = outShape[3] / inShape[3];
  const Dims i = rowMajorStrides(inShape), o = rowMajorStrides(outShape);
  ElementwisePass p;
  p.func = ElementwiseFunc::Copy;
  p.extents = {inShape[0], inShape[1], inShape[2], fy, inShape[3], fx};
  p.a = {in, 0, {i[0], i[1], i[2], 0, i[3], 0}};
  p.out = {l.output, 0, {o[0], o[1], fy * o[2], o[2], fx * o[3], o[3]}};
  l.passes.push_back(std::move(p));
  const std::vector<int32_t>& want = qm.node(id).gatherIndex;
  const std::vector<int64_t> got = passGatherTable(l.passes, numElements(outShape));
  if (!std::equal(got.begin(), got.end(), want.begin(), want.end()))
    return notRepeat;
  return l;
}

/// A linear Resize: one pass over the output that reads the input through the quantizer's
/// per-axis tap tables (the address generator walks index tables instead of strides).
Lowered lowerInterpolation(const quant::QuantizedModel& qm, ir::NodeId id, ElementwiseLayer l) {
  const ir::ValueId in = qm.graph.node(id).inputs[0];
  ElementwisePass p;
  p.func = ElementwiseFunc::Interpolate;
  p.extents = l.outShape;
  p.a = {in, 0, rowMajorStrides(qm.graph.value(in).shape)};
  p.out = {l.output, 0, rowMajorStrides(l.outShape)};
  l.interpolation = qm.node(id).interpolation;
  p.gatheredElements = 1;
  for (const quant::InterpolationAxis& ax : l.interpolation) {
    std::vector<int32_t> used = ax.index0;
    if (ax.interpolates)
      used.insert(used.end(), ax.index1.begin(), ax.index1.end());
    std::sort(used.begin(), used.end());
    p.gatheredElements *= std::unique(used.begin(), used.end()) - used.begin();
  }
  l.passes.push_back(std::move(p));
  return l;
}

/// A Softmax: one pass whose points are its lines (outer x inner), each reading and writing
/// lineLength elements inner apart.
Lowered lowerSoftmax(const quant::QuantizedModel& qm, ir::NodeId id, ElementwiseLayer l) {
  const ir::ValueId in = qm.graph.node(id).inputs[0];
  const quant::LineGeometry geo =
      quant::softmaxGeometry(ir::softmaxParams(qm.graph, id), l.outShape);
  ElementwisePass p;
  p.func = ElementwiseFunc::Softmax;
  p.extents = {geo.outer, geo.inner};
  p.a = {in, 0, {geo.length * geo.inner, 1}};
  p.out = {l.output, 0, {geo.length * geo.inner, 1}};
  p.lineLength = geo.length;
  p.lineStride = geo.inner;
  p.multiplier = qm.node(id).softmaxOutput;
  l.expTable = qm.node(id).softmaxExp;
  l.passes.push_back(std::move(p));
  return l;
}

/// A reduction over contiguous axes: one pass whose points are the output elements (outer x
/// inner), each reducing a line of the input.
Lowered lowerReduce(const quant::QuantizedModel& qm, ir::NodeId id, ElementwiseLayer l) {
  const ir::Node& n = qm.graph.node(id);
  const ir::ValueId in = n.inputs[0];
  const quant::LineGeometry geo =
      *quant::reduceGeometry(ir::reduceParams(qm.graph, id).axes, qm.graph.value(in).shape);
  ElementwisePass p;
  p.func = ElementwiseFunc::Reduce;
  p.reduction = quant::reductionOf(n.op);
  p.extents = {geo.outer, geo.inner};
  p.a = {in, 0, {geo.length * geo.inner, 1}};
  p.out = {l.output, 0, {geo.inner, 1}};
  p.lineLength = geo.length;
  p.lineStride = geo.inner;
  p.multiplier = qm.node(id).reduceMultiplier;
  l.passes.push_back(std::move(p));
  return l;
}

/// A MatMul of two tensors: one pass over the output [..., M, N]; point (..., i, j) is the dot
/// product of row i of A and column j of B of its batch index (numpy-broadcast batch dims).
Lowered lowerTensorMatMul(const quant::QuantizedModel& qm, ir::NodeId id, ElementwiseLayer l) {
  const ir::Graph& g = qm.graph;
  const ir::Node& n = g.node(id);
  const Dims& a = g.value(n.inputs[0]).shape;
  const Dims& b = g.value(n.inputs[1]).shape;
  const int64_t m = a[a.size() - 2], k = a.back(), cols = b.back();
  const Dims outBatch(l.outShape.begin(), l.outShape.end() - 2);
  auto batchStrides = [&](const Dims& shape, int64_t matrix) {
    Dims s = broadcastStrides(Dims(shape.begin(), shape.end() - 2), outBatch);
    for (int64_t& x : s)
      x *= matrix;
    return s;
  };
  ElementwisePass p;
  p.func = ElementwiseFunc::Dot;
  p.extents = l.outShape;
  p.a = {n.inputs[0], 0, batchStrides(a, m * k)};
  p.a.strides.insert(p.a.strides.end(), {k, 0});
  p.b = {n.inputs[1], 0, batchStrides(b, k * cols)};
  p.b.strides.insert(p.b.strides.end(), {0, 1});
  p.out = {l.output, 0, rowMajorStrides(l.outShape)};
  p.lineLength = k;
  p.lineStride = 1;
  p.lineStrideB = cols;
  p.multiplier = qm.node(id).mulMultiplier;
  l.passes.push_back(std::move(p));
  return l;
}

/// One output index range of a padded axis and where it reads: the interior as one run, an edge
/// border as one run reading its edge element with step 0, each reflected border position alone
/// (a reflection reads backwards, which forward-stepping address patterns express only one
/// position at a time).
struct PadRun {
  int64_t outStart = 0, count = 1, inStart = 0, inStep = 1;
};

/// The runs of one axis of \p dim elements padded by \p before and \p after, or an empty list
/// when a reflection wraps (a pad of dim or more).
std::vector<PadRun> padRuns(ir::PadParams::Mode mode, int64_t dim, int64_t before, int64_t after) {
  const bool reflect = mode == ir::PadParams::Mode::Reflect && dim > 1;
  if (reflect && (before > dim - 1 || after > dim - 1))
    return {};
  std::vector<PadRun> runs;
  if (!reflect) { // edge (or a one-element axis): each border repeats one element
    if (before > 0)
      runs.push_back({0, before, 0, 0});
    runs.push_back({before, dim, 0, 1});
    if (after > 0)
      runs.push_back({before + dim, after, dim - 1, 0});
    return runs;
  }
  for (int64_t t = 0; t < before; ++t)
    runs.push_back({t, 1, before - t, 1});
  runs.push_back({before, dim, 0, 1});
  for (int64_t t = 0; t < after; ++t)
    runs.push_back({before + dim + t, 1, dim - 2 - t, 1});
  return runs;
}

/// At most this many copies for one edge/reflect Pad (a reflection of many rows on several axes
/// multiplies them); beyond it the Pad is refused with its count, never lowered into millions.
constexpr size_t kMaxBorderCopies = 4096;

/// An edge or reflect Pad: one strided copy per combination of the axes' runs.
Lowered borderCopies(const ir::Graph& g, ir::NodeId id, ElementwiseLayer l,
                     const ir::PadParams& pp) {
  const ir::ValueId in = g.node(id).inputs[0];
  const Dims& inShape = g.value(in).shape;
  const Dims inStrides = rowMajorStrides(inShape), outStrides = rowMajorStrides(l.outShape);
  std::vector<std::vector<PadRun>> axes;
  size_t passes = 1;
  for (size_t k = 0; k < inShape.size(); ++k) {
    axes.push_back(padRuns(pp.mode, inShape[k], pp.padsBegin[k], pp.padsEnd[k]));
    if (axes.back().empty())
      return std::string("a reflect Pad as wide as its axis (the reflection wraps)");
    passes *= axes.back().size();
    if (passes > kMaxBorderCopies)
      return fmt::format("a reflect Pad needing more than {} strided copies (one per reflected "
                         "border position and axis combination)",
                         kMaxBorderCopies);
  }
  if (inShape.empty() || numElements(inShape) == 0)
    return std::string("an edge or reflect Pad of an empty tensor");
  for (size_t n = 0; n < passes; ++n) {
    ElementwisePass p;
    p.func = ElementwiseFunc::Copy;
    p.a = {in, 0, inStrides};
    p.out = {l.output, 0, outStrides};
    for (size_t k = inShape.size(), rest = n; k-- > 0;) {
      const PadRun& r = axes[k][rest % axes[k].size()];
      rest /= axes[k].size();
      p.extents.insert(p.extents.begin(), r.count);
      p.a.strides[k] = r.inStep * inStrides[k];
      p.a.offset += r.inStart * inStrides[k];
      p.out.offset += r.outStart * outStrides[k];
    }
    l.passes.push_back(std::move(p));
  }
  return l;
}

/// Transpose, Slice, DepthToSpace and Pad as strided copies (a constant-zero Pad: a zero fill
/// first; edge and reflect: borderCopies).
Lowered lowerDataMovement(const quant::QuantizedModel& qm, ir::NodeId id, ElementwiseLayer l) {
  const ir::Graph& g = qm.graph;
  const ir::Node& n = g.node(id);
  const ir::ValueId in = n.inputs[0];
  const Dims inStrides = rowMajorStrides(g.value(in).shape);
  const Dims outStrides = rowMajorStrides(l.outShape);
  ElementwisePass p;
  p.func = ElementwiseFunc::Copy;
  p.a = {in, 0, Dims(l.outShape.size(), 0)};
  p.out = {l.output, 0, outStrides};
  p.extents = l.outShape;
  switch (n.op) {
  case ir::OpKind::Transpose: {
    const std::vector<int64_t> perm = ir::transposePerm(g, id);
    for (size_t k = 0; k < perm.size(); ++k)
      p.a.strides[k] = inStrides[static_cast<size_t>(perm[k])];
    break;
  }
  case ir::OpKind::Slice: {
    const ir::SliceParams s = ir::sliceParams(g, id);
    for (size_t k = 0; k < s.starts.size(); ++k) {
      p.a.strides[k] = s.steps[k] * inStrides[k];
      if (l.outShape[k] > 0)
        p.a.offset += s.starts[k] * inStrides[k];
    }
    break;
  }
  case ir::OpKind::DepthToSpace: {
    // The output viewed as [N, C/b^2, H, b, W, b]: one copy reading each (i, j) block offset's
    // input channel, DCR ((i*b + j)*C' + c) or CRD (c*b^2 + i*b + j).
    const ir::DepthToSpaceParams d = ir::depthToSpaceParams(g, id);
    const Dims& s = g.value(in).shape;
    const int64_t b = d.blocksize, channels = s[1] / (b * b);
    const int64_t plane = inStrides[1];
    p.extents = {s[0], channels, s[2], b, s[3], b};
    p.out.strides = {outStrides[0], outStrides[1],     b * outStrides[2],
                     outStrides[2], b * outStrides[3], outStrides[3]};
    p.a.strides =
        d.crd ? Dims{inStrides[0], b * b * plane, inStrides[2], b * plane, inStrides[3], plane}
              : Dims{inStrides[0],         plane,        inStrides[2],
                     b * channels * plane, inStrides[3], channels * plane};
    break;
  }
  case ir::OpKind::Expand: // broadcast: stride 0 along the axes the input has as 1 or lacks
    p.a.strides = broadcastStrides(g.value(in).shape, l.outShape);
    break;
  case ir::OpKind::Tile: {
    // The output viewed as [repeats_0, dim_0, repeats_1, dim_1, ...]: stride 0 along repeats.
    const Dims& s = g.value(in).shape;
    p.extents.clear();
    p.a.strides.clear();
    p.out.strides.clear();
    for (size_t k = 0; k < s.size(); ++k) {
      p.extents.insert(p.extents.end(), {s[k] == 0 ? 0 : l.outShape[k] / s[k], s[k]});
      p.a.strides.insert(p.a.strides.end(), {0, inStrides[k]});
      p.out.strides.insert(p.out.strides.end(), {s[k] * outStrides[k], outStrides[k]});
    }
    break;
  }
  case ir::OpKind::Pad: {
    const ir::PadParams pp = ir::padParams(g, id);
    if (std::any_of(pp.padsBegin.begin(), pp.padsBegin.end(), [](int64_t v) { return v < 0; }) ||
        std::any_of(pp.padsEnd.begin(), pp.padsEnd.end(), [](int64_t v) { return v < 0; }))
      return std::string("a Pad with negative pads (a crop)");
    if (pp.mode != ir::PadParams::Mode::Constant)
      return borderCopies(g, id, std::move(l), pp);
    ElementwisePass fill;
    fill.func = ElementwiseFunc::Fill;
    fill.extents = l.outShape;
    fill.out = p.out;
    l.passes.push_back(std::move(fill));
    p.extents = g.value(in).shape;
    p.a.strides = inStrides;
    for (size_t k = 0; k < pp.padsBegin.size(); ++k)
      p.out.offset += pp.padsBegin[k] * outStrides[k];
    break;
  }
  default:
    return fmt::format("{} (a data movement the unit's strided copies do not express)",
                       ir::opName(n.op));
  }
  if (p.points() > 0)
    l.passes.push_back(std::move(p));
  return l;
}

/// Calls \p f(point offsets of a, b and out) for every point of \p p (odometer order).
template <typename F> void forEachPoint(const ElementwisePass& p, F&& f) {
  const size_t rank = p.extents.size();
  if (p.points() == 0)
    return;
  auto stride = [](const StridedAccess& s, size_t k) {
    return k < s.strides.size() ? s.strides[k] : 0;
  };
  std::vector<int64_t> index(rank, 0);
  int64_t ia = p.a.offset, ib = p.b.offset, io = p.out.offset;
  for (int64_t n = 0; n < p.points(); ++n) {
    f(ia, ib, io, index);
    for (size_t k = rank; k-- > 0;) {
      ++index[k];
      ia += stride(p.a, k);
      ib += stride(p.b, k);
      io += stride(p.out, k);
      if (index[k] < p.extents[k])
        break;
      ia -= index[k] * stride(p.a, k);
      ib -= index[k] * stride(p.b, k);
      io -= index[k] * stride(p.out, k);
      index[k] = 0;
    }
  }
}

std::vector<int64_t> passGatherTable(const std::vector<ElementwisePass>& passes, int64_t outSize) {
  std::vector<int64_t> table(static_cast<size_t>(outSize), -1);
  for (const ElementwisePass& p : passes)
    forEachPoint(p, [&](int64_t ia, int64_t, int64_t io, const std::vector<int64_t>&) {
      if (io >= 0 && io < outSize)
        table[static_cast<size_t>(io)] = ia;
    });
  return table;
}

/// The int8 data of operand \p s: a computed value or a constant's int8 form.
const int8_t* operandData(const StridedAccess& s, const quant::QuantizedModel& qm,
                          std::span<const Tensor> values) {
  const Tensor& t = qm.graph.isConstant(s.value)
                        ? qm.constants.at(static_cast<size_t>(s.value)).data
                        : values[static_cast<size_t>(s.value)];
  NNACCEL_ASSERT(t.dtype() == DType::I8) << "element-wise operand is not int8";
  return t.data<int8_t>();
}

int8_t applyFunc(const ElementwisePass& p, const std::vector<int8_t>& tables, int32_t a, int32_t b,
                 int64_t table) {
  switch (p.func) {
  case ElementwiseFunc::Clamp:
    return static_cast<int8_t>(std::clamp(a, p.clampLo, p.clampHi));
  case ElementwiseFunc::Lookup:
    return tables[static_cast<size_t>(table * quant::kLookupEntries + a + 128)];
  case ElementwiseFunc::Add:
  case ElementwiseFunc::Sub:
    return quant::addSubValue(p.func == ElementwiseFunc::Sub, p.addSub, a, b, p.zero);
  case ElementwiseFunc::Mul:
    return quant::mulValue(p.multiplier, a - p.zero.in[0], b - p.zero.in[1], p.zero.out);
  case ElementwiseFunc::Min:
  case ElementwiseFunc::Max:
    return quant::minMaxValue(p.func == ElementwiseFunc::Max, p.multiplier, p.multiplierB, a, b,
                              p.zero);
  case ElementwiseFunc::Requantize:
    return static_cast<int8_t>(quant::requantizeTo(a - p.zero.in[0], p.multiplier, p.zero.out));
  case ElementwiseFunc::Copy:
    return static_cast<int8_t>(a);
  case ElementwiseFunc::Fill:
    return static_cast<int8_t>(p.zero.out);
  case ElementwiseFunc::Compare:
    return quant::compareValue(p.comparison, p.multiplier, p.multiplierB, a, b, p.zero.in[0],
                               p.zero.in[1]);
  case ElementwiseFunc::Div:
    return quant::divValue(p.multiplier, a - p.zero.in[0], b - p.zero.in[1], p.zero.out);
  case ElementwiseFunc::Interpolate:
  case ElementwiseFunc::Softmax:
  case ElementwiseFunc::Reduce:
  case ElementwiseFunc::Dot:
  case ElementwiseFunc::Select:
    NNACCEL_UNREACHABLE("interpolation, softmax, reductions and dot products read several "
                        "elements per point; a select may leave its point unwritten");
  }
  NNACCEL_UNREACHABLE("bad ElementwiseFunc");
  return 0;
}

} // namespace

int64_t ElementwiseLayer::elementOps() const {
  int64_t taps = 1;
  for (const quant::InterpolationAxis& ax : interpolation)
    taps *= ax.interpolates ? 2 : 1;
  int64_t ops = 0;
  for (const ElementwisePass& p : passes)
    ops += p.points() * (p.func == ElementwiseFunc::Interpolate ? taps
                         : p.func == ElementwiseFunc::Softmax   ? 3 * p.lineLength
                         : p.func == ElementwiseFunc::Reduce || p.func == ElementwiseFunc::Dot
                             ? p.lineLength
                             : 1);
  return ops;
}

int64_t ElementwiseLayer::interpolationTableBytes() const {
  int64_t entries = 0;
  for (const quant::InterpolationAxis& ax : interpolation)
    entries += static_cast<int64_t>(ax.index0.size() + ax.index1.size() + ax.weight1.size());
  return entries * 4;
}

namespace {
/// Elements of \p s a pass reads: the product of the extents along which it moves.
int64_t footprint(const ElementwisePass& p, const StridedAccess& s) {
  if (p.func == ElementwiseFunc::Interpolate && &s == &p.a)
    return p.gatheredElements;
  const bool lines = p.func == ElementwiseFunc::Softmax || p.func == ElementwiseFunc::Reduce;
  int64_t n = (lines && &s == &p.a) || p.func == ElementwiseFunc::Dot ? p.lineLength : 1;
  for (size_t k = 0; k < p.extents.size(); ++k)
    if (k < s.strides.size() && s.strides[k] != 0)
      n *= p.extents[k];
  return p.points() == 0 ? 0 : n;
}

template <typename Pred> int64_t readBytes(const std::vector<ElementwisePass>& passes, Pred keep) {
  int64_t bytes = 0;
  for (const ElementwisePass& p : passes) {
    const int arity = elementwiseArity(p.func);
    if (arity >= 1 && keep(p.a.value))
      bytes += footprint(p, p.a);
    if (arity >= 2 && keep(p.b.value))
      bytes += footprint(p, p.b);
  }
  return bytes;
}
} // namespace

int64_t ElementwiseLayer::activationReadBytes(const ir::Graph& g) const {
  return readBytes(passes, [&](ir::ValueId v) { return !g.isConstant(v); });
}

int64_t ElementwiseLayer::constantBytes(const ir::Graph& g) const {
  return readBytes(passes, [&](ir::ValueId v) { return g.isConstant(v); }) +
         static_cast<int64_t>(tables.size()) + interpolationTableBytes() +
         static_cast<int64_t>(expTable.size() * sizeof(int32_t));
}

int64_t ElementwiseLayer::readBytesOf(ir::ValueId v) const {
  return readBytes(passes, [v](ir::ValueId read) { return read == v; });
}

namespace {
/// The layer of node \p id as lowered, or why not (lowerElementwise without zero points).
Lowered lowerPasses(const quant::QuantizedModel& qm, ir::NodeId id) {
  const ir::Graph& g = qm.graph;
  const ir::Node& n = g.node(id);
  const quant::QuantNode& q = qm.node(id);
  ElementwiseLayer l;
  l.output = n.outputs.at(0);
  l.outShape = g.value(l.output).shape;
  switch (q.kind) {
  case QuantOpKind::Clamp: {
    ElementwisePass p = wholePass(g, ElementwiseFunc::Clamp, l.output, n.inputs[0]);
    p.clampLo = q.clampMin;
    p.clampHi = q.clampMax;
    l.passes.push_back(std::move(p));
    return l;
  }
  case QuantOpKind::Lookup: {
    ElementwisePass p = wholePass(g, ElementwiseFunc::Lookup, l.output, n.inputs[0]);
    p.tableAxis = q.lookupAxis;
    l.tables = q.lookupTables;
    l.passes.push_back(std::move(p));
    return l;
  }
  case QuantOpKind::AddSub:
  case QuantOpKind::Mul:
  case QuantOpKind::MinMax:
  case QuantOpKind::Compare:
    return lowerBinary(qm, id, std::move(l));
  case QuantOpKind::Select:
    return lowerSelect(qm, id, std::move(l));
  case QuantOpKind::Concat:
    return lowerConcat(qm, id, std::move(l));
  case QuantOpKind::Gather:
    return lowerRepeatResize(qm, id, std::move(l));
  case QuantOpKind::Interpolate:
    return lowerInterpolation(qm, id, std::move(l));
  case QuantOpKind::Softmax:
    return lowerSoftmax(qm, id, std::move(l));
  case QuantOpKind::Reduce:
    return lowerReduce(qm, id, std::move(l));
  case QuantOpKind::DataMovement:
    return lowerDataMovement(qm, id, std::move(l));
  case QuantOpKind::TensorMatMul:
    return lowerTensorMatMul(qm, id, std::move(l));
  default:
    return fmt::format("{} is not an element-wise operation", ir::opName(n.op));
  }
}
} // namespace

std::variant<ElementwiseLayer, std::string> lowerElementwise(const quant::QuantizedModel& qm,
                                                             ir::NodeId id) {
  Lowered lowered = lowerPasses(qm, id);
  if (auto* l = std::get_if<ElementwiseLayer>(&lowered)) {
    const auto zeroOf = [&](ir::ValueId v) {
      return v == ir::kNoValue || qm.graph.isConstant(v) ? 0 : qm.zeroPoint(v);
    };
    for (ElementwisePass& p : l->passes) {
      const int arity = elementwiseArity(p.func);
      p.zero.in[0] = arity >= 1 ? zeroOf(p.a.value) : 0;
      p.zero.in[1] = arity >= 2 ? zeroOf(p.b.value) : 0;
      p.zero.out = zeroOf(l->output);
    }
  }
  return lowered;
}

Tensor runElementwise(const ElementwiseLayer& layer, const quant::QuantizedModel& qm,
                      std::span<const Tensor> values) {
  Tensor out(DType::I8, layer.outShape);
  int8_t* dst = out.data<int8_t>();
  for (const ElementwisePass& p : layer.passes) {
    const int arity = elementwiseArity(p.func);
    const int8_t* a = arity >= 1 ? operandData(p.a, qm, values) : nullptr;
    const int8_t* b = arity >= 2 ? operandData(p.b, qm, values) : nullptr;
    const auto tableAxis = static_cast<size_t>(p.tableAxis);
    if (p.func == ElementwiseFunc::Reduce) {
      forEachPoint(p, [&](int64_t ia, int64_t, int64_t io, const std::vector<int64_t>&) {
        dst[io] = quant::reduceLine(p.reduction, a + ia, p.lineStride, p.lineLength, p.multiplier,
                                    p.zero);
      });
      continue;
    }
    if (p.func == ElementwiseFunc::Dot) {
      forEachPoint(p, [&](int64_t ia, int64_t ib, int64_t io, const std::vector<int64_t>&) {
        int32_t acc = 0; // |acc| <= lineLength * 255^2 < 2^31 (quantizer's bound)
        for (int64_t i = 0; i < p.lineLength; ++i)
          acc += (a[ia + i * p.lineStride] - p.zero.in[0]) *
                 (b[ib + i * p.lineStrideB] - p.zero.in[1]);
        dst[io] = static_cast<int8_t>(quant::requantizeTo(acc, p.multiplier, p.zero.out));
      });
      continue;
    }
    if (p.func == ElementwiseFunc::Softmax) {
      forEachPoint(p, [&](int64_t ia, int64_t, int64_t io, const std::vector<int64_t>&) {
        quant::softmaxLine(a + ia, p.lineStride, p.lineLength, layer.expTable, p.multiplier,
                           dst + io, p.zero.out);
      });
      continue;
    }
    if (p.func == ElementwiseFunc::Select) {
      forEachPoint(p, [&](int64_t ia, int64_t ib, int64_t io, const std::vector<int64_t>&) {
        if (a[ia] != 0)
          dst[io] = static_cast<int8_t>(
              quant::requantizeTo(b[ib] - p.zero.in[1], p.multiplierB, p.zero.out));
      });
      continue;
    }
    if (p.func == ElementwiseFunc::Interpolate) {
      forEachPoint(p, [&](int64_t, int64_t, int64_t io, const std::vector<int64_t>& index) {
        dst[io] = quant::interpolateAt(a + p.a.offset, p.a.strides, layer.interpolation, index);
      });
      continue;
    }
    forEachPoint(p, [&](int64_t ia, int64_t ib, int64_t io, const std::vector<int64_t>& index) {
      const int64_t table = p.tableBase + (p.tableAxis < 0 ? 0 : index[tableAxis]);
      dst[io] = applyFunc(p, layer.tables, a ? a[ia] : 0, b ? b[ib] : 0, table);
    });
  }
  return out;
}

} // namespace nnaccel::arch::common
