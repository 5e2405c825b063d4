/// \file
/// Lowering of int8 element-wise nodes onto the pooling engine's vector unit (VECTOR, Isa.h) and
/// onto pure DMA patterns: standalone Relu/Clip (Clamp), lookup-table functions (Sigmoid, Tanh,
/// HardSwish, ...), Add/Sub/Mul (same shape, per-channel or scalar broadcast, constant operand),
/// Where (SELECT, or one lookup for a threshold mask), Softmax, Concat along the channel axis, and
/// nearest Resize by integer factors.
///
/// Why: these nodes sit between the array's layers (residual adds, squeeze-excite gates, skip
/// concatenations); sending them to the host costs a round trip of both tensors. Like seed 000's
/// pooling engine 418 they are post-processing of SBUF data: every tensor is viewed as
/// [n][c][s] with one channel per SBUF partition (PoolLowering.cpp's layout), processed in
/// channel blocks of peRows partitions and chunks of s that fit the state buffer, double-buffered
/// with emitPipelined. Results are bit-exact: VECTOR applies the quant module's scalar rules.
#include "CompilerContext.h"
#include "nnaccel/ir/OpParams.h"
#include "nnaccel/quant/ElementFunction.h"
#include "nnaccel/quant/QuantizedModel.h"
#include "nnaccel/support/Error.h"

#include <algorithm>
#include <array>
#include <fmt/format.h>
#include <optional>
#include <set>
#include <string>
#include <variant>
#include <vector>

namespace nnaccel::arch::systolic {

namespace {

/// The [n][c][s] view of a shape: n = dim 0, c = dim 1, s = the rest (rank 1: c = dim 0).
struct Ncs {
  int64_t n = 1, c = 1, s = 1;
};

Ncs ncsOf(const Dims& d) {
  Ncs r;
  if (d.size() == 1)
    r.c = d[0];
  if (d.size() >= 2) {
    r.n = d[0];
    r.c = d[1];
    for (size_t k = 2; k < d.size(); ++k)
      r.s *= d[k];
  }
  return r;
}

/// The axis that maps to SBUF partitions (-1 for a scalar).
int64_t channelAxis(size_t rank) {
  return rank >= 2 ? 1 : static_cast<int64_t>(rank) - 1;
}

/// Operand \p in broadcast (numpy rules) to \p out as [n][c][s] element strides; nullopt when
/// its trailing axes are neither all equal to the output's nor all 1.
std::optional<OperandView> operandView(const Dims& in, const Dims& out) {
  const size_t rank = out.size();
  if (in.size() > rank)
    return std::nullopt;
  Dims padded(rank - in.size(), 1);
  padded.insert(padded.end(), in.begin(), in.end());
  std::vector<int64_t> stride(rank, 0);
  int64_t elements = 1;
  for (size_t k = rank; k-- > 0;) {
    if (padded[k] != out[k] && padded[k] != 1)
      return std::nullopt;
    stride[k] = padded[k] == out[k] ? elements : 0;
    elements *= padded[k];
  }
  OperandView v;
  if (rank == 1)
    v.cStride = stride[0];
  if (rank < 2)
    return v;
  v.nStride = stride[0];
  v.cStride = stride[1];
  const bool full = std::equal(padded.begin() + 2, padded.end(), out.begin() + 2);
  const bool one = std::all_of(padded.begin() + 2, padded.end(), [](int64_t d) { return d == 1; });
  if (!full && !one)
    return std::nullopt;
  v.perRow = !full;
  return v;
}

std::string broadcastNote(const ir::Graph& g, const ir::Node& n) {
  return fmt::format("broadcast {} x {} -> {} does not fit the vector unit (each operand must be "
                     "the full tensor, one value per channel, or a scalar)",
                     dimsToString(g.value(n.inputs[0]).shape),
                     dimsToString(g.value(n.inputs[1]).shape),
                     dimsToString(g.value(n.outputs[0]).shape));
}

Vector withMultiplier(Vector op, quant::QuantMultiplier m) {
  op.outMultiplier = m.multiplier;
  op.outShift = m.shift;
  return op;
}

/// The vector function of comparison \p c (VectorFunc lists them in quant::Comparison order).
VectorFunc comparisonFunc(quant::Comparison c) {
  return static_cast<VectorFunc>(static_cast<int>(VectorFunc::Equal) + static_cast<int>(c));
}

/// The comparison that holds for (b, a) when \p c holds for (a, b).
quant::Comparison swappedComparison(quant::Comparison c) {
  using C = quant::Comparison;
  switch (c) {
  case C::Greater:
    return C::Less;
  case C::Less:
    return C::Greater;
  case C::GreaterOrEqual:
    return C::LessOrEqual;
  case C::LessOrEqual:
    return C::GreaterOrEqual;
  default:
    return c;
  }
}

/// Add/Sub/Mul/Min/Max/comparisons: operand views, swapping the operands of a commutative op when
/// only A is a per-row broadcast.
std::variant<ElementwisePlan, std::string> planBinary(const ir::Graph& g, ir::NodeId id,
                                                      const quant::QuantNode& qn) {
  const ir::Node& n = g.node(id);
  const Dims& out = g.value(n.outputs[0]).shape;
  ElementwisePlan p;
  p.inputB = 1;
  const bool add = qn.kind == quant::QuantOpKind::AddSub;
  const bool compare = qn.kind == quant::QuantOpKind::Compare;
  // Min/Max and the comparisons rescale both operands and have no output multiplier.
  const bool minMax = qn.kind == quant::QuantOpKind::MinMax || compare;
  const bool subtract = n.op == ir::OpKind::Sub;
  const bool divide = n.op == ir::OpKind::Div;
  p.op.func = add       ? (subtract ? VectorFunc::Sub : VectorFunc::Add)
              : compare ? comparisonFunc(quant::comparisonOf(n.op))
              : minMax  ? (n.op == ir::OpKind::Max ? VectorFunc::Max : VectorFunc::Min)
              : divide  ? VectorFunc::Div
                        : VectorFunc::Mul;
  quant::QuantMultiplier ma = minMax ? qn.inputMultipliers.at(0) : qn.addSub.a;
  quant::QuantMultiplier mb = minMax ? qn.inputMultipliers.at(1) : qn.addSub.b;
  std::optional<OperandView> a = operandView(g.value(n.inputs[0]).shape, out);
  std::optional<OperandView> b = operandView(g.value(n.inputs[1]).shape, out);
  if (!a || !b)
    return broadcastNote(g, n);
  if (a->perRow && !b->perRow && !subtract && !divide) {
    std::swap(a, b);
    std::swap(ma, mb);
    std::swap(p.inputA, p.inputB);
    if (compare) // a > b is b < a
      p.op.func = comparisonFunc(swappedComparison(quant::comparisonOf(n.op)));
  }
  if (a->perRow)
    return broadcastNote(g, n) +
           (subtract || divide
                ? fmt::format("; {}'s broadcast operand must be the second", ir::opName(n.op))
                : "");
  p.a = *a;
  p.b = *b;
  if (add || minMax) {
    p.op.leftShift = add ? qn.addSub.leftShift : 0;
    p.op.aMultiplier = ma.multiplier;
    p.op.aShift = ma.shift;
    p.op.bMultiplier = mb.multiplier;
    p.op.bShift = mb.shift;
  }
  if (!minMax)
    p.op = withMultiplier(p.op, add ? qn.addSub.output : qn.mulMultiplier);
  return p;
}

std::variant<ElementwisePlan, std::string> planConcat(const ir::Graph& g, ir::NodeId id) {
  const ir::Node& n = g.node(id);
  const Dims& out = g.value(n.outputs[0]).shape;
  const int64_t axis = ir::concatAxis(g, id);
  if (axis != channelAxis(out.size()))
    return fmt::format("Concat along axis {}: the vector unit concatenates channels (axis {})",
                       axis, channelAxis(out.size()));
  ElementwisePlan p;
  p.kind = ElementwisePlan::Kind::Concat;
  return p;
}

/// Nearest Resize whose gather table is an integer replication of the last two axes.
std::variant<ElementwisePlan, std::string> planReplicate(const ir::Graph& g, ir::NodeId id,
                                                         const quant::QuantNode& qn) {
  const ir::Node& n = g.node(id);
  const Dims& in = g.value(n.inputs[0]).shape;
  const Dims& out = g.value(n.outputs[0]).shape;
  const std::string note = "nearest Resize is not an integer-factor replication of H and W "
                           "(the DMA pattern the vector lowering uses)";
  if (in.size() != 4 || out.size() != 4 || in[0] != out[0] || in[1] != out[1] || in[2] < 1 ||
      in[3] < 1 || out[2] % in[2] != 0 || out[3] % in[3] != 0)
    return note;
  ElementwisePlan p;
  p.kind = ElementwisePlan::Kind::Replicate;
  p.scaleH = out[2] / in[2];
  p.scaleW = out[3] / in[3];
  const int64_t planes = in[0] * in[1];
  size_t i = 0;
  for (int64_t c = 0; c < planes; ++c)
    for (int64_t y = 0; y < out[2]; ++y)
      for (int64_t x = 0; x < out[3]; ++x, ++i) {
        const int64_t src = (c * in[2] + y / p.scaleH) * in[3] + x / p.scaleW;
        if (i >= qn.gatherIndex.size() || qn.gatherIndex[i] != src)
          return note;
      }
  return p;
}

/// A unary function of input 0 (same shape as the output).
ElementwisePlan unaryPlan(const ir::Graph& g, ir::NodeId id) {
  const ir::Node& n = g.node(id);
  const std::optional<OperandView> a =
      operandView(g.value(n.inputs[0]).shape, g.value(n.outputs[0]).shape);
  NNACCEL_ASSERT(a && !a->perRow) << "node " << n.name << ": unary operand differs in shape";
  ElementwisePlan p;
  p.a = *a;
  return p;
}

std::variant<ElementwisePlan, std::string> planLookup(const ir::Graph& g, ir::NodeId id,
                                                      const quant::QuantNode& qn) {
  const size_t rank = g.value(g.node(id).inputs[0]).shape.size();
  const bool lastAxis = rank >= 3 && qn.lookupAxis == static_cast<int64_t>(rank) - 1;
  if (qn.lookupAxis >= 0 && qn.lookupAxis != channelAxis(rank) && !lastAxis)
    return fmt::format("lookup tables vary along axis {}; the table memory holds one per channel "
                       "(axis {})",
                       qn.lookupAxis, channelAxis(rank));
  ElementwisePlan p = unaryPlan(g, id);
  p.op.func = VectorFunc::Lookup;
  p.perChannelTables = qn.lookupAxis >= 0;
  p.lastAxisOnPartitions = lastAxis;
  return p;
}

/// Where whose condition and operands are functions of one of its inputs (a threshold mask,
/// x where x > t else 0): one table of that input's codes (quant/ElementFunction.h), a Lookup;
/// nullopt otherwise.
std::optional<ElementwisePlan> selectAsLookup(const CompilerContext& ctx, ir::NodeId id) {
  const ir::Graph& g = ctx.g;
  const ir::Node& n = g.node(id);
  // x's and y's producers stay sources, so the table reads a tensor the program has (a Relu
  // fused into its convolution is not one).
  std::set<ir::NodeId> sources;
  for (size_t i = 1; i < n.inputs.size(); ++i)
    if (!g.isConstant(n.inputs[i]) && g.value(n.inputs[i]).producer >= 0)
      sources.insert(g.value(n.inputs[i]).producer);
  const std::vector<std::optional<quant::ElementFunction>> fs =
      quant::elementFunctions(*ctx.qm, sources);
  const std::optional<quant::ElementFunction>& f = fs[static_cast<size_t>(n.outputs[0])];
  const auto source = f ? std::find(n.inputs.begin(), n.inputs.end(), f->source) : n.inputs.end();
  if (source == n.inputs.end())
    return std::nullopt;
  const std::optional<OperandView> a =
      operandView(g.value(*source).shape, g.value(n.outputs[0]).shape);
  if (!a || a->perRow)
    return std::nullopt;
  ElementwisePlan p;
  p.a = *a;
  p.inputA = static_cast<int>(source - n.inputs.begin());
  p.op.func = VectorFunc::Lookup;
  p.table.assign(f->table.begin(), f->table.end());
  return p;
}

/// Where(cond, x, y): a threshold mask folds into one Lookup (selectAsLookup); otherwise one
/// SELECT pass with the condition as operand C and the full-tensor operand of x and y computed
/// in place as A (quant::select: y requantized everywhere, x where the condition holds).
std::variant<ElementwisePlan, std::string> planSelect(const CompilerContext& ctx, ir::NodeId id,
                                                      const quant::QuantNode& qn) {
  if (std::optional<ElementwisePlan> lookup = selectAsLookup(ctx, id))
    return *std::move(lookup);
  const ir::Graph& g = ctx.g;
  const ir::Node& n = g.node(id);
  const Dims& out = g.value(n.outputs[0]).shape;
  const std::optional<OperandView> c = operandView(g.value(n.inputs[0]).shape, out);
  const std::optional<OperandView> x = operandView(g.value(n.inputs[1]).shape, out);
  const std::optional<OperandView> y = operandView(g.value(n.inputs[2]).shape, out);
  if (!c || !x || !y)
    return fmt::format("broadcast of {}, {} and {} to {} does not fit the vector unit (each "
                       "operand must be the full tensor, one value per channel, or a scalar)",
                       dimsToString(g.value(n.inputs[0]).shape),
                       dimsToString(g.value(n.inputs[1]).shape),
                       dimsToString(g.value(n.inputs[2]).shape), dimsToString(out));
  if (x->perRow && y->perRow)
    return std::string("neither x nor y is the full tensor, which SELECT computes in place");
  const bool elseInPlace = !y->perRow;
  ElementwisePlan p;
  p.op.func = elseInPlace ? VectorFunc::Select : VectorFunc::SelectNot;
  p.inputA = elseInPlace ? 2 : 1;
  p.inputB = elseInPlace ? 1 : 2;
  p.inputC = 0;
  p.a = elseInPlace ? *y : *x;
  p.b = elseInPlace ? *x : *y;
  p.c = *c;
  const quant::QuantMultiplier& ma = qn.inputMultipliers.at(static_cast<size_t>(p.inputA));
  const quant::QuantMultiplier& mb = qn.inputMultipliers.at(static_cast<size_t>(p.inputB));
  p.op.aMultiplier = ma.multiplier;
  p.op.aShift = ma.shift;
  p.op.bMultiplier = mb.multiplier;
  p.op.bShift = mb.shift;
  return p;
}

/// Softmax: each line on one partition row (the vector unit's Softmax reads a row as a line),
/// so a line must fit a quarter of the working state buffer (the unit's A buffer).
std::variant<ElementwisePlan, std::string> planSoftmax(const CompilerContext& ctx, ir::NodeId id,
                                                       const quant::QuantNode& qn) {
  const ir::Graph& g = ctx.g;
  const quant::LineGeometry geo =
      quant::softmaxGeometry(ir::softmaxParams(g, id), g.value(g.node(id).outputs[0]).shape);
  if (geo.length > ctx.sbufBytes() / 4)
    return fmt::format("a softmax line of {} elements exceeds the vector unit's buffer ({} "
                       "bytes per partition)",
                       geo.length, ctx.sbufBytes() / 4);
  ElementwisePlan p;
  p.op = withMultiplier(p.op, qn.softmaxOutput);
  p.op.func = VectorFunc::Softmax;
  p.softmaxLines = geo;
  return p;
}

// --- emission ----------------------------------------------------------------------------------

/// One step: channels [c0, +cCount) of images [n0, +nCount), elements [s0, +len) of each plane.
struct VectorStep {
  int64_t c0, cCount, n0, nCount, s0, len;
  bool firstOfBlock;
};

/// The emission of one VectorDesc: chunking, SBUF layout (two A buffers computed in place, two B
/// buffers), the lookup tables, and each step's load, VECTOR and store.
class VectorLowering {
public:
  VectorLowering(CompilerContext& ctx, const VectorDesc& d)
      : ctx_(ctx), d_(d), em_(ctx.emitter), rows_(ctx.config.peRows) {}

  void run() {
    planChunks();
    makeSteps();
    emitPipelined(
        static_cast<int64_t>(steps_.size()), [&](int64_t k) { load(k); },
        [&](int64_t k) { compute(k); }, [&](int64_t k) { drain(k); },
        [&](int64_t k) { return !(d_.perChannelTables && step(k).firstOfBlock); });
  }

private:
  static constexpr int64_t kVectorBufferSpacingMaxBytes = int64_t{64} << 10;

  bool binary() const { return d_.b.range.hi > d_.b.range.lo; }
  bool select() const { return isSelect(d_.op.func); }
  /// A and B double-buffered, and Select's C.
  int64_t bufferCount() const { return select() ? 6 : 4; }
  const VectorStep& step(int64_t k) const { return steps_[static_cast<size_t>(k)]; }
  static Range sbuf(int64_t addr, int64_t bytes) { return Range{Space::Sbuf, addr, addr + bytes}; }

  /// Elements of s per step, and images per step when whole planes fit. The four buffers (A and
  /// B, double-buffered; six with Select's C) lie a quarter (a sixth) of the working area apart, or
  /// kVectorBufferSpacingMaxBytes when that is less and a step fits: spread out, a step's load
  /// seldom waits for the neighbouring layers' use of low addresses (packing them end to end cost
  /// the PaddleOCR detector 1.4 % of its cycles), and the cap keeps a program on a huge SBUF from
  /// spanning gigabytes (issue 20: a 1 GiB partition made LeNet-5's program, and the simulator's
  /// SBUF, span 4 GiB).
  void planChunks() {
    bufBytes_ = ctx_.sbufBytes() / bufferCount();
    NNACCEL_ASSERT(bufBytes_ >= 1) << "state buffer too small for the vector unit";
    len_ = std::min(d_.plane, bufBytes_);
    images_ = len_ == d_.plane ? std::clamp<int64_t>(bufBytes_ / d_.plane, 1, d_.batch) : 1;
    bufBytes_ = std::max(len_ * images_, std::min(bufBytes_, kVectorBufferSpacingMaxBytes));
  }

  void makeSteps() {
    for (int64_t c0 = 0; c0 < d_.channels; c0 += rows_)
      for (int64_t n0 = 0; n0 < d_.batch; n0 += images_)
        for (int64_t s0 = 0; s0 < d_.plane; s0 += len_)
          steps_.push_back(VectorStep{c0, std::min(rows_, d_.channels - c0), n0,
                                      std::min(images_, d_.batch - n0), s0,
                                      std::min(len_, d_.plane - s0), n0 == 0 && s0 == 0});
  }

  int64_t aAddr(int64_t k) const { return (k % 2) * bufBytes_; }
  int64_t bAddr(int64_t k) const { return (2 + k % 2) * bufBytes_; }
  int64_t cAddr(int64_t k) const { return (4 + k % 2) * bufBytes_; }

  /// DRAM -> SBUF of one operand's block for step \p s (one value per row when perRow).
  void loadOperand(const VectorOperand& o, const VectorStep& s, int64_t sbufAddr) {
    DmaLoad op;
    op.partitionCount = s.cCount;
    op.outerCount = s.nCount;
    op.innerCount = o.perRow ? 1 : s.len;
    op.dram.addr = o.addr + s.n0 * o.nStride + s.c0 * o.cStride + (o.perRow ? 0 : s.s0 * o.sStride);
    op.dram.partitionStride = o.cStride;
    op.dram.outerStride = o.nStride;
    op.dram.innerStep = o.sStride;
    op.sbufAddr = sbufAddr;
    op.sbufOuterStride = op.innerCount;
    em_.emit(op, {o.range}, {sbuf(sbufAddr, bufBytes_)});
  }

  /// The lookup tables of channels [c0, +count): one per partition, or the single table
  /// repeated (DRAM partition stride 0).
  void loadTables(int64_t c0, int64_t count) {
    DmaLoad op;
    op.space = OnChip::LookupTable;
    op.partitionCount = count;
    op.innerCount = kLookupTableBytes;
    op.dram.addr = d_.tablesAddr + (d_.perChannelTables ? c0 * kLookupTableBytes : 0);
    op.dram.partitionStride = d_.perChannelTables ? kLookupTableBytes : 0;
    op.dram.innerStep = 1;
    const int64_t tableBytes = (d_.perChannelTables ? d_.channels : 1) * kLookupTableBytes;
    em_.emit(op, {Range{Space::Dram, d_.tablesAddr, d_.tablesAddr + tableBytes}},
             {Range{Space::LookupTable, 0, kLookupTableBytes}});
  }

  /// The softmax exponentials into pool-table records [0, kLookupEntries).
  void loadExpTable() {
    DmaLoad t;
    t.space = OnChip::PoolTable;
    t.innerCount = quant::kLookupEntries * kPoolRecordBytes;
    t.dram.addr = d_.expTableAddr;
    t.dram.innerStep = 1;
    em_.emit(t, {Range{Space::Dram, t.dram.addr, t.dram.addr + t.innerCount}},
             {Range{Space::PoolTable, 0, quant::kLookupEntries}});
  }

  void load(int64_t k) {
    const VectorStep& s = step(k);
    if (k == 0 && d_.op.func == VectorFunc::Softmax)
      loadExpTable();
    const bool lookup = d_.op.func == VectorFunc::Lookup;
    if (lookup && (k == 0 || (d_.perChannelTables && s.firstOfBlock)))
      loadTables(s.c0, d_.perChannelTables ? s.cCount : std::min(rows_, d_.channels));
    loadOperand(d_.a, s, aAddr(k));
    if (binary())
      loadOperand(d_.b, s, bAddr(k));
    if (select())
      loadOperand(d_.c, s, cAddr(k));
  }

  void compute(int64_t k) {
    const VectorStep& s = step(k);
    Vector v = d_.op;
    v.partitions = s.cCount;
    v.rows = s.nCount;
    v.rowLen = s.len;
    v.a = v.dst = aAddr(k);
    v.aRowStride = v.dstRowStride = s.len;
    std::vector<Range> reads{sbuf(v.a, bufBytes_)};
    if (binary()) {
      v.b = bAddr(k);
      v.bStep = d_.b.perRow ? 0 : 1;
      v.bRowStride = d_.b.perRow ? 1 : s.len;
      reads.push_back(sbuf(v.b, bufBytes_));
    }
    if (select()) {
      v.c = cAddr(k);
      v.cStep = d_.c.perRow ? 0 : 1;
      v.cRowStride = d_.c.perRow ? 1 : s.len;
      reads.push_back(sbuf(v.c, bufBytes_));
    }
    if (v.func == VectorFunc::Lookup)
      reads.push_back(Range{Space::LookupTable, 0, kLookupTableBytes});
    if (v.func == VectorFunc::Softmax) {
      NNACCEL_ASSERT(s.s0 == 0 && s.len == d_.plane) << "a softmax line is one whole plane";
      reads.push_back(Range{Space::PoolTable, 0, quant::kLookupEntries});
    }
    em_.emit(v, reads, {sbuf(v.a, bufBytes_)});
  }

  void drain(int64_t k) {
    const VectorStep& s = step(k);
    DmaStore op;
    op.partitionCount = s.cCount;
    op.outerCount = s.nCount;
    op.innerCount = s.len;
    op.dram.addr =
        d_.out.addr + s.n0 * d_.out.nStride + s.c0 * d_.out.cStride + s.s0 * d_.out.sStride;
    op.dram.partitionStride = d_.out.cStride;
    op.dram.outerStride = d_.out.nStride;
    op.dram.innerStep = d_.out.sStride;
    op.sbufAddr = aAddr(k);
    op.sbufOuterStride = s.len;
    em_.emit(op, {sbuf(op.sbufAddr, bufBytes_)}, {d_.out.range});
  }

  CompilerContext& ctx_;
  const VectorDesc& d_;
  Emitter& em_;
  const int64_t rows_;
  int64_t bufBytes_ = 0, len_ = 1, images_ = 1;
  std::vector<VectorStep> steps_;
};

// --- node -> descriptions ----------------------------------------------------------------------

/// Binds a plan to DRAM: operand addresses (graph constants become constant segments).
class ElementwiseEmitter {
public:
  ElementwiseEmitter(CompilerContext& ctx, const ElementwisePlan& p, const ElementwiseIo& io,
                     ir::NodeId id)
      : ctx_(ctx), p_(p), io_(io), n_(ctx.g.node(id)), id_(id) {}

  void run() {
    switch (p_.kind) {
    case ElementwisePlan::Kind::Vector:
      return elementwise();
    case ElementwisePlan::Kind::Concat:
      return concat();
    case ElementwisePlan::Kind::Replicate:
      return replicate();
    }
  }

private:
  /// DRAM address and range of node input \p i.
  Range inputRange(size_t i) {
    if (io_.inputs[i] >= 0)
      return ctx_.dramRange(io_.inputs[i]);
    const quant::QuantTensor& q = ctx_.qm->constants.at(static_cast<size_t>(n_.inputs[i]));
    NNACCEL_ASSERT(q.isQuantized())
        << "node " << n_.name << ": constant input " << i << " has no int8 form";
    const auto* bytes = reinterpret_cast<const uint8_t*>(q.data.rawData());
    const auto size = static_cast<int64_t>(q.data.sizeBytes());
    const int64_t addr = ctx_.addSegment(std::vector<uint8_t>(bytes, bytes + size));
    return Range{Space::Dram, addr, addr + size};
  }

  VectorOperand operand(const Range& r, const OperandView& v, int64_t offset = 0) const {
    return VectorOperand{r.lo + offset, v.nStride, v.cStride, 1, v.perRow, r};
  }

  Ncs outNcs() const { return ncsOf(ctx_.g.value(n_.outputs[0]).shape); }

  /// The output as a full [n][c][s] operand.
  VectorOperand output(int64_t channelOffset = 0) const {
    const Ncs o = outNcs();
    const OperandView v{o.c * o.s, o.s, false};
    return operand(ctx_.dramRange(io_.output), v, channelOffset * o.s);
  }

  /// The zero point of node input \p i (0 for a constant, which is symmetric, or none).
  int32_t inputZero(int i) const {
    if (i < 0)
      return 0;
    const ir::ValueId v = n_.inputs.at(static_cast<size_t>(i));
    return ctx_.g.isConstant(v) ? 0 : ctx_.qm->zeroPoint(v);
  }

  VectorDesc desc(const Ncs& shape) const {
    VectorDesc d;
    d.op = p_.op;
    d.op.aZero = inputZero(p_.inputA); // the C operand is a comparison's 0/1 (zero point 0)
    d.op.bZero = inputZero(p_.inputB);
    d.op.outZero = ctx_.qm->zeroPoint(n_.outputs[0]);
    d.batch = shape.n;
    d.channels = shape.c;
    d.plane = shape.s;
    return d;
  }

  void elementwise() {
    if (p_.lastAxisOnPartitions)
      return lastAxisLookup();
    if (p_.op.func == VectorFunc::Softmax)
      return softmax();
    VectorDesc d = desc(outNcs());
    d.a = operand(inputRange(static_cast<size_t>(p_.inputA)), p_.a);
    if (p_.inputB >= 0)
      d.b = operand(inputRange(static_cast<size_t>(p_.inputB)), p_.b);
    if (p_.inputC >= 0)
      d.c = operand(inputRange(static_cast<size_t>(p_.inputC)), p_.c);
    d.out = output();
    if (d.op.func == VectorFunc::Lookup) {
      const std::vector<int8_t>& t = p_.table.empty() ? ctx_.qm->node(id_).lookupTables : p_.table;
      d.tablesAddr = ctx_.addSegment(std::vector<uint8_t>(t.begin(), t.end()));
      d.perChannelTables = p_.perChannelTables;
    }
    lowerVector(ctx_, d);
  }

  /// A lookup whose tables vary along the last axis (C) of [N, ..., C]: C on the partitions, the
  /// middle axes as the plane, both tensors read and written transposed (DMA inner step C).
  void lastAxisLookup() {
    const Dims& shape = ctx_.g.value(n_.outputs[0]).shape;
    const Ncs t{shape.front(), shape.back(), numElements(shape) / (shape.front() * shape.back())};
    const OperandView v{t.c * t.s, 1, false};
    VectorDesc d = desc(t);
    d.a = operand(inputRange(static_cast<size_t>(p_.inputA)), v);
    d.out = operand(ctx_.dramRange(io_.output), v);
    d.a.sStride = d.out.sStride = t.c;
    const std::vector<int8_t>& tables = ctx_.qm->node(id_).lookupTables;
    d.tablesAddr = ctx_.addSegment(std::vector<uint8_t>(tables.begin(), tables.end()));
    d.perChannelTables = true;
    lowerVector(ctx_, d);
  }

  /// Softmax lines as planes of one row: [1][outer][length] when a line is contiguous (one line
  /// per partition), else [outer][inner][length] with the DMA reading each line strided.
  void softmax() {
    const quant::LineGeometry& geo = p_.softmaxLines;
    const bool contiguous = geo.inner == 1;
    const Ncs t =
        contiguous ? Ncs{1, geo.outer, geo.length} : Ncs{geo.outer, geo.inner, geo.length};
    const OperandView v = contiguous ? OperandView{geo.outer * geo.length, geo.length, false}
                                     : OperandView{geo.length * geo.inner, 1, false};
    VectorDesc d = desc(t);
    d.a = operand(inputRange(0), v);
    d.out = operand(ctx_.dramRange(io_.output), v);
    d.a.sStride = d.out.sStride = geo.inner;
    std::vector<std::array<int32_t, 3>> records;
    for (int32_t e : ctx_.qm->node(id_).softmaxExp)
      records.push_back({e, 0, 0});
    d.expTableAddr = ctx_.addSegment(packPoolRecords(records));
    lowerVector(ctx_, d);
  }

  /// Each input into its channel range of the output: a DRAM copy when its multiplier is
  /// exactly 1 and its zero point the output's, else a REQUANTIZE through the vector unit (a
  /// LOOKUP through the input's rescale table where the model has one).
  void concat() {
    const std::vector<quant::QuantMultiplier>& m = ctx_.qm->node(id_).inputMultipliers;
    int64_t offset = 0;
    for (size_t i = 0; i < n_.inputs.size(); ++i) {
      const Ncs in = ncsOf(ctx_.g.value(n_.inputs[i]).shape);
      const Range src = inputRange(i);
      const int32_t zero = inputZero(static_cast<int>(i));
      if (m.at(i).isIdentity() && zero == ctx_.qm->zeroPoint(n_.outputs[0])) {
        copyChannels(src, in, offset);
      } else {
        VectorDesc d = desc(in);
        d.op = withMultiplier(d.op, m[i]);
        d.op.func = VectorFunc::Requantize;
        d.op.aZero = zero;
        if (const std::vector<int8_t>* table = ctx_.qm->node(id_).inputTable(i)) {
          d.op.func = VectorFunc::Lookup;
          d.tablesAddr = ctx_.addSegment(std::vector<uint8_t>(table->begin(), table->end()));
        }
        d.a = operand(src, OperandView{in.c * in.s, in.s, false});
        d.out = output(offset);
        lowerVector(ctx_, d);
      }
      offset += in.c;
    }
  }

  void copyChannels(const Range& src, const Ncs& in, int64_t channelOffset) {
    const Ncs o = outNcs();
    DmaCopy op;
    op.partitionCount = in.n;
    op.innerCount = in.c * in.s;
    op.src = DramPattern{src.lo, in.c * in.s, 0, 1};
    op.dst = DramPattern{ctx_.dramRange(io_.output).lo + channelOffset * o.s, o.c * o.s, 0, 1};
    ctx_.emitter.emit(op, {src}, {ctx_.dramRange(io_.output)});
  }

  /// out[.., y * sh + dy, x * sw + dx] = in[.., y, x]: one strided DRAM copy per (dy, dx).
  void replicate() {
    const Dims& in = ctx_.g.value(n_.inputs[0]).shape;
    const Dims& out = ctx_.g.value(n_.outputs[0]).shape;
    const Range src = inputRange(0), dst = ctx_.dramRange(io_.output);
    for (int64_t dy = 0; dy < p_.scaleH; ++dy)
      for (int64_t dx = 0; dx < p_.scaleW; ++dx) {
        DmaCopy op;
        op.partitionCount = in[0] * in[1];
        op.outerCount = in[2];
        op.innerCount = in[3];
        op.src = DramPattern{src.lo, in[2] * in[3], in[3], 1};
        op.dst =
            DramPattern{dst.lo + dy * out[3] + dx, out[2] * out[3], p_.scaleH * out[3], p_.scaleW};
        ctx_.emitter.emit(op, {src}, {dst});
      }
  }

  CompilerContext& ctx_;
  const ElementwisePlan& p_;
  const ElementwiseIo& io_;
  const ir::Node& n_;
  const ir::NodeId id_;
};

} // namespace

bool isElementwiseKind(quant::QuantOpKind k) {
  using K = quant::QuantOpKind;
  return k == K::Clamp || k == K::Lookup || k == K::AddSub || k == K::Mul || k == K::MinMax ||
         k == K::Compare || k == K::Concat || k == K::Gather || k == K::Softmax || k == K::Select;
}

std::variant<ElementwisePlan, std::string> planElementwise(const CompilerContext& ctx,
                                                           ir::NodeId id) {
  const ir::Graph& g = ctx.g;
  const quant::QuantNode& qn = ctx.qm->node(id);
  using K = quant::QuantOpKind;
  if (g.isConstant(g.node(id).inputs[0]) && qn.kind != K::Concat && qn.kind != K::AddSub &&
      qn.kind != K::Mul && qn.kind != K::MinMax)
    return std::string("its input is a constant");
  switch (qn.kind) {
  case K::Clamp: {
    ElementwisePlan p = unaryPlan(g, id);
    p.op.clampLo = std::max<int32_t>(qn.clampMin, quant::kInt8Min);
    p.op.clampHi = std::min<int32_t>(qn.clampMax, quant::kInt8Max);
    return p;
  }
  case K::Lookup:
    return planLookup(g, id, qn);
  case K::AddSub:
  case K::Mul:
  case K::MinMax:
  case K::Compare:
    return planBinary(g, id, qn);
  case K::Concat:
    return planConcat(g, id);
  case K::Gather:
    return planReplicate(g, id, qn);
  case K::Softmax:
    return planSoftmax(ctx, id, qn);
  case K::Select:
    return planSelect(ctx, id, qn);
  default:
    break;
  }
  return std::string("not an element-wise node");
}

void lowerElementwise(CompilerContext& ctx, ir::NodeId id, const ElementwisePlan& plan,
                      const ElementwiseIo& io) {
  ElementwiseEmitter(ctx, plan, io, id).run();
}

void lowerVector(CompilerContext& ctx, const VectorDesc& d) {
  VectorLowering(ctx, d).run();
}

} // namespace nnaccel::arch::systolic
