// The int8 reference executor: per-node dispatch onto the integer kernels or a float island,
// and the whole-graph run with input quantization and output dequantization.
#include "nnaccel/quant/Int8Executor.h"

#include "nnaccel/ir/LogicOps.h"
#include "nnaccel/ir/OpParams.h"
#include "nnaccel/reference/Executor.h"
#include "nnaccel/reference/Int8Conv.h"
#include "nnaccel/reference/Kernels.h"

namespace nnaccel::quant {

namespace {

/// Constant \p v as an operand: its int8 form, or the raw fp32 constant.
QuantTensor constantOperand(const QuantizedModel& m, ir::ValueId v) {
  const QuantTensor& q = m.constants.at(static_cast<size_t>(v));
  return q.isQuantized() ? q : QuantTensor{*m.graph.value(v).constant, 0.0f};
}

/// The value \p t stands for, in the graph's dtype: the dequantized f32 tensor, or for a bool
/// held in int8 (0/1 at scale 1) the bool tensor.
Tensor asGraphValue(const QuantTensor& t, DType graphDType) {
  Tensor x = t.dequantize();
  return t.isQuantized() && graphDType == DType::Bool ? x.castTo(DType::Bool) : x;
}

/// Dequantize the inputs, evaluate in fp32, quantize f32 outputs with their scales.
std::vector<QuantTensor> evalFloatIsland(const QuantizedModel& m, ir::NodeId id,
                                         const std::vector<const QuantTensor*>& inputs) {
  const ir::Graph& g = m.graph;
  const ir::Node& n = g.node(id);
  std::vector<Tensor> owned(n.inputs.size());
  std::vector<const Tensor*> args(n.inputs.size(), nullptr);
  for (size_t i = 0; i < n.inputs.size(); ++i) {
    const ir::ValueId v = n.inputs[i];
    if (v == ir::kNoValue) {
      continue;
    }
    if (g.isConstant(v)) {
      args[i] = g.value(v).constant.get(); // constants enter islands in exact fp32
      continue;
    }
    NNACCEL_ASSERT(inputs[i] != nullptr) << "missing input " << i << " of " << n.name;
    if (inputs[i]->isQuantized()) {
      owned[i] = asGraphValue(*inputs[i], g.value(v).dtype);
      args[i] = &owned[i];
    } else {
      args[i] = &inputs[i]->data;
    }
  }
  std::vector<Tensor> outs = reference::evalNode(g, id, args);
  std::vector<QuantTensor> result(n.outputs.size());
  for (size_t i = 0; i < n.outputs.size() && i < outs.size(); ++i) {
    const ir::ValueId v = n.outputs[i];
    if (v == ir::kNoValue) {
      continue;
    }
    const float scale = m.scale(v);
    result[i] = (outs[i].dtype() == DType::F32 && scale > 0)
                    ? quantizeTensor(outs[i], scale, m.rounding, m.zeroPoint(v))
                    : QuantTensor{std::move(outs[i]), 0.0f};
  }
  return result;
}

/// The int32 accumulators of Conv/ConvTranspose/Gemm/MatMul node \p id on input \p x, by the
/// integer loops (the oracle of the oneDNN path).
Tensor accumulateLoops(const QuantizedModel& m, ir::NodeId id, const Tensor& x) {
  const ir::Graph& g = m.graph;
  const ir::Node& n = g.node(id);
  const QuantNode& q = m.node(id);
  const int32_t zIn = m.zeroPointsOf(id).in[0];
  if (n.op == ir::OpKind::Conv || n.op == ir::OpKind::ConvTranspose)
    return convAccumulate(ir::convParams(g, id), x, q.weights, q.bias, zIn);
  return matmulAccumulate(x, n.op == ir::OpKind::Gemm && q.transA, q.weights, q.bias, zIn);
}

/// Node \p id's int8 output on oneDNN with \p cache (the loops where oneDNN is not exact), in
/// \p recycled's storage when it fits.
Tensor requantizeOneDnn(const QuantizedModel& m, ir::NodeId id, const Tensor& x,
                        reference::Int8ConvCache& cache, Tensor recycled) {
  const ir::Graph& g = m.graph;
  const ir::Node& n = g.node(id);
  const QuantNode& q = m.node(id);
  const ZeroPoints z = m.zeroPointsOf(id);
  if (n.op == ir::OpKind::Conv || n.op == ir::OpKind::ConvTranspose)
    return convRequantizeOneDnn(ir::convParams(g, id), x, q.weights, q.bias, q.multipliers, z,
                                cache, std::move(recycled));
  return matmulRequantizeOneDnn(x, n.op == ir::OpKind::Gemm && q.transA, q.weights, q.bias,
                                q.multipliers, z, cache, std::move(recycled));
}

/// Conv/ConvTranspose/Gemm/MatMul node \p id on input \p x: on oneDNN with \p cache, or with
/// the integer loops when \p cache is null.
Tensor evalAccumulate(const QuantizedModel& m, ir::NodeId id, const Tensor& input,
                      reference::Int8ConvCache* cache, Tensor recycled) {
  const ir::Graph& g = m.graph;
  const ir::Node& n = g.node(id);
  NNACCEL_ASSERT(n.op == ir::OpKind::Conv || n.op == ir::OpKind::ConvTranspose ||
                 n.op == ir::OpKind::Gemm || n.op == ir::OpKind::MatMul)
      << "accumulate op " << ir::opName(n.op);
  // Gemm: A [M, K] (or [K, M]); MatMul: A [..., M, K] (or [K]) as rows of K. The constant is
  // [N, K], one row per output channel.
  const int64_t k = m.node(id).weights.dim(1);
  const Tensor x =
      n.op == ir::OpKind::MatMul ? input.reshaped({input.numElements() / k, k}) : Tensor();
  const Tensor& operand = n.op == ir::OpKind::MatMul ? x : input;
  Tensor y = cache
                 ? requantizeOneDnn(m, id, operand, *cache, std::move(recycled))
                 : requantizePerChannel(accumulateLoops(m, id, operand), 1, m.node(id).multipliers,
                                        kInt8Min, kInt8Max, m.zeroPointsOf(id).out);
  if (n.op == ir::OpKind::MatMul)
    return y.reshaped(g.value(n.outputs[0]).shape);
  return y;
}

/// A constant Pad of int8 codes fills with the code of real 0: the input's zero point.
ir::PadParams int8PadParams(const ir::Graph& g, ir::NodeId id, int32_t zIn) {
  ir::PadParams p = ir::padParams(g, id);
  p.valueIsInteger = true;
  p.intValue = zIn;
  return p;
}

Tensor evalDataMovement(const ir::Graph& g, ir::NodeId id, const Tensor& x, int32_t zIn) {
  const ir::Node& n = g.node(id);
  switch (n.op) {
  case ir::OpKind::Transpose:
    return reference::transpose(x, ir::transposePerm(g, id));
  case ir::OpKind::Pad:
    return reference::pad(int8PadParams(g, id, zIn), x);
  case ir::OpKind::DepthToSpace:
    return reference::depthToSpace(ir::depthToSpaceParams(g, id), x);
  case ir::OpKind::Slice:
    return reference::slice(ir::sliceParams(g, id), x);
  case ir::OpKind::Tile:
    return ir::tileValues(x, ir::tileRepeats(g, id));
  case ir::OpKind::Expand:
    return ir::expandValues(x, ir::expandShape(g, id));
  default: // Reshape, Flatten, Squeeze, Unsqueeze, Identity, Dropout: same data, new shape
    return x.reshaped(g.value(n.outputs[0]).shape);
  }
}

/// Node \p id on \p inputs; \p cache: see evalAccumulate; \p recycled: the node's output of the
/// previous run, whose storage the kernels that write every element reuse.
std::vector<QuantTensor> evalNodeImpl(const QuantizedModel& m, ir::NodeId id,
                                      const std::vector<const QuantTensor*>& inputs,
                                      reference::Int8ConvCache* cache, Tensor recycled) {
  const ir::Graph& g = m.graph;
  const ir::Node& n = g.node(id);
  const QuantNode& q = m.node(id);
  NNACCEL_ASSERT(inputs.size() == n.inputs.size())
      << "node " << n.name << ": " << inputs.size() << " inputs for " << n.inputs.size();
  if (q.kind == QuantOpKind::Folded) {
    std::vector<QuantTensor> result(n.outputs.size());
    for (size_t i = 0; i < n.outputs.size(); ++i) {
      if (n.outputs[i] != ir::kNoValue) {
        result[i] = constantOperand(m, n.outputs[i]);
      }
    }
    return result;
  }
  if (q.kind == QuantOpKind::FloatIsland) {
    return evalFloatIsland(m, id, inputs);
  }
  // Integer kinds: data operands are int8 (constants in their int8 form from the model).
  auto operand = [&](size_t i) -> const Tensor& {
    const ir::ValueId v = n.inputs.at(i);
    const QuantTensor* t = g.isConstant(v) ? &m.constants.at(static_cast<size_t>(v)) : inputs[i];
    NNACCEL_ASSERT(t != nullptr && t->isQuantized())
        << "node " << n.name << ": input " << i << " is not an int8 tensor";
    return t->data;
  };
  const ir::ValueId out = n.outputs[0];
  const Dims& outShape = g.value(out).shape;
  const ZeroPoints z = m.zeroPointsOf(id);
  Tensor y;
  switch (q.kind) {
  case QuantOpKind::Accumulate:
    y = evalAccumulate(m, id, operand(0), cache, std::move(recycled));
    break;
  case QuantOpKind::TensorMatMul:
    y = requantizeTensor(tensorMatmulAccumulate(operand(0), operand(1), outShape, z.in[0], z.in[1]),
                         q.mulMultiplier, 0, z.out);
    break;
  case QuantOpKind::Clamp:
    y = clampTensor(operand(0), q.clampMin, q.clampMax, std::move(recycled));
    break;
  case QuantOpKind::MaxPool:
    y = reference::pool(ir::poolParams(g, id), operand(0));
    break;
  case QuantOpKind::DataMovement:
    y = evalDataMovement(g, id, operand(0), z.in[0]);
    break;
  case QuantOpKind::Gather:
    y = gather(operand(0), q.gatherIndex, outShape);
    break;
  case QuantOpKind::Interpolate:
    y = interpolate(operand(0), q.interpolation, outShape);
    break;
  case QuantOpKind::Reduce:
    y = reduce(reductionOf(n.op), operand(0),
               *reduceGeometry(ir::reduceParams(g, id).axes, g.value(n.inputs[0]).shape),
               q.reduceMultiplier, outShape, z);
    break;
  case QuantOpKind::Softmax:
    y = softmax(operand(0), softmaxGeometry(ir::softmaxParams(g, id), outShape), q.softmaxExp,
                q.softmaxOutput, z.out);
    break;
  case QuantOpKind::AveragePool:
    y = averagePool(ir::poolParams(g, id), operand(0), q.countMultipliers, z);
    break;
  case QuantOpKind::AddSub:
    y = addSub(n.op == ir::OpKind::Sub, q.addSub, operand(0), operand(1), outShape, z,
               std::move(recycled));
    break;
  case QuantOpKind::Mul:
    y = mul(q.mulMultiplier, operand(0), operand(1), outShape, n.op == ir::OpKind::Div, z);
    break;
  case QuantOpKind::Lookup:
    y = lookup(operand(0), q.lookupTables, q.lookupAxis);
    break;
  case QuantOpKind::MinMax:
    y = minMax(n.op == ir::OpKind::Max, q.inputMultipliers.at(0), q.inputMultipliers.at(1),
               operand(0), operand(1), outShape, z);
    break;
  case QuantOpKind::Select:
    y = select(operand(0), q.inputMultipliers.at(1), q.inputMultipliers.at(2), operand(1),
               operand(2), outShape, z);
    break;
  case QuantOpKind::Compare:
    y = compare(comparisonOf(n.op), q.inputMultipliers.at(0), q.inputMultipliers.at(1), operand(0),
                operand(1), outShape, z);
    break;
  case QuantOpKind::Concat: {
    std::vector<Tensor> parts;
    parts.reserve(n.inputs.size());
    for (size_t i = 0; i < n.inputs.size(); ++i) {
      const ir::ValueId v = n.inputs[i];
      const int32_t zIn = g.isConstant(v) ? 0 : m.zeroPoint(v);
      const std::vector<int8_t>* table = q.inputTable(i);
      parts.push_back(table ? lookup(operand(i), *table, -1)
                            : requantizeTensor(operand(i), q.inputMultipliers.at(i), zIn, z.out));
    }
    std::vector<const Tensor*> ptrs;
    for (const Tensor& t : parts) {
      ptrs.push_back(&t);
    }
    y = reference::concat(ptrs, ir::concatAxis(g, id));
    break;
  }
  case QuantOpKind::Folded:
  case QuantOpKind::FloatIsland:
    NNACCEL_UNREACHABLE("handled above");
  }
  NNACCEL_ASSERT(y.shape() == outShape)
      << "node " << n.name << ": int8 result " << dimsToString(y.shape()) << ", graph says "
      << dimsToString(outShape);
  std::vector<QuantTensor> result(n.outputs.size());
  result[0] = QuantTensor{std::move(y), m.scale(out), m.zeroPoint(out)};
  return result;
}

/// evalNodeImpl with the node's error context.
std::vector<QuantTensor> evalNodeInContext(const QuantizedModel& model, ir::NodeId id,
                                           const std::vector<const QuantTensor*>& inputs,
                                           reference::Int8ConvCache* cache, Tensor recycled = {}) {
  try {
    return evalNodeImpl(model, id, inputs, cache, std::move(recycled));
  } catch (const Error& e) {
    throw e.withContext(model.graph.contextOf(id));
  }
}

} // namespace

std::vector<QuantTensor> evalQuantizedNode(const QuantizedModel& model, ir::NodeId id,
                                           const std::vector<const QuantTensor*>& inputs,
                                           Int8Accumulation accumulation) {
  reference::Int8ConvCache once;
  return evalNodeInContext(model, id, inputs,
                           accumulation == Int8Accumulation::OneDnn ? &once : nullptr);
}

Int8Executor::Int8Executor(const QuantizedModel& model, Int8Accumulation accumulation)
    : model_(model), accumulation_(accumulation) {}
Int8Executor::~Int8Executor() = default;
Int8Executor::Int8Executor(Int8Executor&&) noexcept = default;

/// This executor's cache for node \p id (created on first use), or null with loop accumulation.
reference::Int8ConvCache* Int8Executor::cacheFor(ir::NodeId id) {
  if (accumulation_ != Int8Accumulation::OneDnn || model_.node(id).kind != QuantOpKind::Accumulate)
    return nullptr;
  caches_.resize(model_.graph.numNodes());
  std::unique_ptr<reference::Int8ConvCache>& c = caches_[static_cast<size_t>(id)];
  if (!c)
    c = std::make_unique<reference::Int8ConvCache>();
  return c.get();
}

QuantTensor Int8Executor::value(ir::ValueId id) const {
  if (model_.graph.isConstant(id)) {
    return constantOperand(model_, id);
  }
  return values_.at(static_cast<size_t>(id));
}

Int8Result Int8Executor::run(const std::vector<Tensor>& inputs,
                             const std::function<void(size_t, size_t)>& nodeDone) {
  checkFiniteInt8Inputs(model_.graph, inputs);
  const ir::Graph& g = model_.graph;
  ErrorContext context;
  context.file = g.sourcePath;
  if (inputs.size() != g.inputs.size()) {
    throw Error(ErrorKind::Usage, context,
                "expected " + std::to_string(g.inputs.size()) + " inputs, got " +
                    std::to_string(inputs.size()));
  }
  // Hand every node's output of the previous run back to it: the kernels that write every
  // element reuse the storage instead of allocating and zero-filling a new tensor.
  std::vector<Tensor> recycled(g.numNodes());
  for (size_t i = 0; i < g.numNodes() && values_.size() == g.numValues(); ++i) {
    const ir::Node& n = g.node(static_cast<ir::NodeId>(i));
    if (!n.outputs.empty() && n.outputs[0] != ir::kNoValue)
      recycled[i] = std::move(values_[static_cast<size_t>(n.outputs[0])].data);
  }
  values_.assign(g.numValues(), QuantTensor{});
  for (size_t i = 0; i < inputs.size(); ++i) {
    const ir::ValueId v = g.inputs[i];
    const ir::Value& value = g.value(v);
    if (inputs[i].dtype() != value.dtype || inputs[i].shape() != value.shape) {
      throw Error(ErrorKind::Usage, context,
                  "input '" + value.name + "': expected " + std::string(dtypeName(value.dtype)) +
                      " " + dimsToString(value.shape) + ", got " +
                      std::string(dtypeName(inputs[i].dtype())) + " " +
                      dimsToString(inputs[i].shape()));
    }
    const float scale = model_.scale(v);
    values_[static_cast<size_t>(v)] = (value.dtype == DType::F32 && scale > 0)
                                          ? model_.quantizeInput(inputs[i], v)
                                          : QuantTensor{inputs[i], 0.0f};
  }
  for (size_t i = 0; i < g.numNodes(); ++i) {
    const auto id = static_cast<ir::NodeId>(i);
    const ir::Node& n = g.node(id);
    if (model_.node(id).kind == QuantOpKind::Folded) {
      continue;
    }
    std::vector<const QuantTensor*> args(n.inputs.size(), nullptr);
    for (size_t k = 0; k < n.inputs.size(); ++k) {
      const ir::ValueId v = n.inputs[k];
      if (v != ir::kNoValue && !g.isConstant(v)) {
        args[k] = &values_[static_cast<size_t>(v)];
      }
    }
    std::vector<QuantTensor> outs =
        evalNodeInContext(model_, id, args, cacheFor(id), std::move(recycled[i]));
    for (size_t k = 0; k < n.outputs.size(); ++k) {
      if (n.outputs[k] != ir::kNoValue) {
        values_[static_cast<size_t>(n.outputs[k])] = std::move(outs[k]);
      }
    }
    if (nodeDone)
      nodeDone(i + 1, g.numNodes());
  }
  Int8Result result;
  for (ir::ValueId v : g.outputs) {
    result.outputs.push_back(value(v));
    result.dequantized.push_back(asGraphValue(result.outputs.back(), g.value(v).dtype));
  }
  return result;
}

} // namespace nnaccel::quant
