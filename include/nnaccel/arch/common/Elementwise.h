/// \file
/// Element-wise layers in the form an engine's vector / post-processing unit runs them: a list
/// of strided passes, each applying one int8 rule (clamp, lookup table, add, sub, mul,
/// requantize, min, max, copy, fill) to every point of an iteration space, reading at most two
/// operands through address generators (offset + per-axis strides, stride 0 where numpy
/// broadcasting repeats a value) and writing the output through another.
///
/// One lowering for every engine (the nodes an element-wise unit can take, and how), and one
/// exact execution of the passes: the result is computed from the passes and the int8 scalar
/// rules of quant/Kernels.h, not by calling the int8 reference executor, so the engines'
/// verification against that executor checks the lowering. Engines decide where operands live
/// and what a pass costs (lanes, memory traffic); elementOps() and operandBytes() give the
/// counts their cycle models need.
///
/// Covered: standalone Relu/Clip (Clamp), every quant Lookup node (one table, or one per index
/// along an axis), Add/Sub/Mul of tensors or constants and Min/Max of two tensors with numpy
/// broadcasting, comparisons of two tensors (a 0/1 result), linear Resize (one interpolating
/// pass through per-axis tap tables), Softmax and ReduceMean/Sum/Max/Min over contiguous axes
/// (one pass over their lines), Where of a comparison (a requantizing pass of y, then a
/// predicated pass of x), Concat (one
/// requantizing pass per input into its slice of the output), Resize that repeats each input
/// element an integer number of times (one copy pass with stride-0 repeat axes), Transpose,
/// Slice and constant-zero Pad.
#pragma once

#include "nnaccel/ir/Graph.h"
#include "nnaccel/quant/Kernels.h"
#include "nnaccel/quant/QuantizedModel.h"
#include "nnaccel/tensor/Tensor.h"

#include <cstdint>
#include <span>
#include <string>
#include <variant>
#include <vector>

namespace nnaccel::arch::common {

/// The rule a pass applies to each point.
enum class ElementwiseFunc : uint8_t {
  Clamp,      ///< min(max(a, clampLo), clampHi)
  Lookup,     ///< table[(tableBase + t) * 256 + a + 128], t the point's index on tableAxis
              ///< (0 when -1)
  Add,        ///< quant::addSubValue(false, addSub, a, b)
  Sub,        ///< quant::addSubValue(true, addSub, a, b)
  Mul,        ///< quant::mulValue(multiplier, a, b)
  Min,        ///< quant::minMaxValue(false, multiplier, multiplierB, a, b)
  Max,        ///< quant::minMaxValue(true, multiplier, multiplierB, a, b)
  Requantize, ///< quant::requantize(a, multiplier)
  Copy,       ///< a
  Fill,       ///< zero.out (the code of real 0: a constant-zero Pad's border); reads nothing
  Compare,    ///< quant::compareValue(comparison, multiplier, multiplierB, a, b): 0 or 1
  Div,        ///< quant::divValue(multiplier, a, b): a times an integer reciprocal of b
  /// quant::interpolateAt over the layer's interpolation tables: a is read through per-axis
  /// index tables (two taps per interpolating axis), not through its strides alone
  Interpolate,
  /// quant::softmaxLine: each point is a line of lineLength elements, lineStride apart, from
  /// its a and out offsets (max, exponential table and sum, divide and requantize)
  Softmax,
  /// quant::reduceLine(reduction, ..., multiplier): each point reduces a line of lineLength
  /// elements of a, lineStride apart, into one output element
  Reduce,
  /// A MatMul of two tensors: each point is the int32 dot product of a line of a (lineLength
  /// elements, lineStride apart) and a line of b (lineLength elements, lineStrideB apart),
  /// quant::requantize(acc, multiplier): one multiply-accumulate per element of the line
  Dot,
  /// A predicated write (Where): quant::requantize(b, multiplierB) where a (a comparison's 0/1)
  /// is non-zero; the output keeps what an earlier pass wrote elsewhere
  Select,
};
std::string_view elementwiseFuncName(ElementwiseFunc f);
/// Operands the function reads: 0 (Fill), 1 or 2 (Add, Sub, Mul, Min, Max, Compare, Select).
int elementwiseArity(ElementwiseFunc f);

/// An address generator over the pass's iteration space: point i reads (or writes) element
/// offset + sum_k i[k] * strides[k] of a row-major tensor.
struct StridedAccess {
  ir::ValueId value = ir::kNoValue; ///< the tensor (a computed value or an int8 constant)
  int64_t offset = 0;               ///< elements
  Dims strides;                     ///< elements, one per iteration axis
};

/// One pass: func applied at every point of `extents`.
struct ElementwisePass {
  ElementwiseFunc func = ElementwiseFunc::Copy;
  Dims extents;       ///< the iteration space
  StridedAccess a, b; ///< operands (b for binary functions only)
  StridedAccess out;  ///< destination in the layer's output
  int32_t clampLo = quant::kInt8Min, clampHi = quant::kInt8Max;
  int64_t tableAxis = -1; ///< Lookup: iteration axis selecting the table
  int64_t tableBase = 0;  ///< Lookup: the layer's table that index 0 on tableAxis selects
  quant::AddSubMultipliers addSub;
  quant::QuantMultiplier multiplier;
  quant::QuantMultiplier multiplierB; ///< Min/Max/Compare: operand b's rescale (multiplier: a's)
  quant::Comparison comparison = quant::Comparison::Equal; ///< Compare
  /// Interpolate: distinct elements of a the index tables reach (a.strides are a's row-major
  /// strides, which the table indices multiply)
  int64_t gatheredElements = 0;
  int64_t lineLength = 1, lineStride = 1; ///< Softmax, Reduce, Dot: elements per line, spacing
  int64_t lineStrideB = 1;                ///< Dot: spacing of b's line
  quant::Reduction reduction = quant::Reduction::Mean; ///< Reduce
  /// Zero points of a (in[0]), b (in[1]) and the output (out): every rule computes on the
  /// differences q - z and adds out (quant/Kernels.h); all 0 for a symmetric model. Set by
  /// lowerElementwise from the model's values.
  quant::ZeroPoints zero;

  int64_t points() const { return numElements(extents); }
};

/// An element-wise layer: its passes write every element of `output` (shape outShape) once
/// (Fill passes first where a Pad border is zero).
struct ElementwiseLayer {
  ir::ValueId output = ir::kNoValue;
  Dims outShape;
  std::vector<ElementwisePass> passes;
  std::vector<int8_t> tables; ///< Lookup tables (quant::kLookupEntries per table)
  /// Interpolate: one per output axis (quant::InterpolationAxis)
  std::vector<quant::InterpolationAxis> interpolation;
  std::vector<int32_t> expTable; ///< Softmax: quant::QuantNode::softmaxExp

  /// Operations the unit performs: one per point of every pass; an Interpolate point is one
  /// multiply-accumulate per tap (2^k for k interpolating axes); a Softmax point three per
  /// element of its line (compare for the maximum, table read and add, divide and requantize);
  /// a Reduce point one per element of its line; a Dot point one multiply-accumulate per element
  /// of its line.
  int64_t elementOps() const;
  /// Bytes of the interpolation index and weight tables (4 bytes per entry).
  int64_t interpolationTableBytes() const;
  /// Distinct bytes the passes read from computed (non-constant) values, one byte per element.
  int64_t activationReadBytes(const ir::Graph& g) const;
  /// Bytes of int8 constants and tables the passes read.
  int64_t constantBytes(const ir::Graph& g) const;
  /// Distinct bytes the passes read from value \p v (its share of activationReadBytes).
  int64_t readBytesOf(ir::ValueId v) const;
};

/// The element-wise layer of node \p id, or why an element-wise unit cannot run it.
std::variant<ElementwiseLayer, std::string> lowerElementwise(const quant::QuantizedModel& qm,
                                                             ir::NodeId id);

/// Runs \p layer exactly: operands are read from \p values (indexed by ValueId; s8) or, for
/// constants, from their int8 form in \p qm. Returns the s8 output tensor.
Tensor runElementwise(const ElementwiseLayer& layer, const quant::QuantizedModel& qm,
                      std::span<const Tensor> values);

} // namespace nnaccel::arch::common
