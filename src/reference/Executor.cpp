// The reference executor: walks the graph's nodes in order, evaluating each node by resolving
// its parameters (ir/OpParams.h) and dispatching to the kernels of Kernels.h. The Executor keeps
// one KernelCache per node, so oneDNN primitives are built and constant weights converted on the
// first run only; evalNode runs the same code with a fresh cache. Errors raised by kernels get the
// node's context here.
#include "nnaccel/reference/Executor.h"

#include "CachedKernels.h"
#include "nnaccel/ir/LogicOps.h"
#include "nnaccel/ir/OpParams.h"
#include "nnaccel/ir/ShapeOps.h"

#include <algorithm>
#include <limits>
#include <numeric>

namespace nnaccel::reference {

namespace {
using ir::OpKind;

/// Inputs of one node with presence checks.
class NodeInputs {
public:
  NodeInputs(const ir::Graph& g, ir::NodeId id, const std::vector<const Tensor*>& inputs)
      : g_(g), id_(id), inputs_(inputs) {}
  const Tensor& at(size_t i) const {
    const Tensor* t = optional(i);
    if (!t) {
      g_.fail(id_, "missing input " + std::to_string(i));
    }
    return *t;
  }
  const Tensor* optional(size_t i) const { return i < inputs_.size() ? inputs_[i] : nullptr; }
  std::vector<const Tensor*> all() const {
    std::vector<const Tensor*> v;
    for (size_t i = 0; i < inputs_.size(); ++i) {
      v.push_back(&at(i));
    }
    return v;
  }

private:
  const ir::Graph& g_;
  ir::NodeId id_;
  const std::vector<const Tensor*>& inputs_;
};

bool hasOutput(const ir::Node& n, size_t i) {
  return i < n.outputs.size() && n.outputs[i] != ir::kNoValue;
}

bool isConstantInput(const ir::Graph& g, const ir::Node& n, size_t i) {
  return i < n.inputs.size() && n.inputs[i] != ir::kNoValue && g.isConstant(n.inputs[i]);
}

Tensor flattened(const Tensor& x, int64_t axis) {
  const auto mid = x.shape().begin() + axis;
  const int64_t outer = std::accumulate(x.shape().begin(), mid, int64_t{1}, std::multiplies<>());
  const int64_t inner = std::accumulate(mid, x.shape().end(), int64_t{1}, std::multiplies<>());
  return x.reshaped({outer, inner});
}

bool isIntegerTensor(const Tensor* t) {
  return t && (t->dtype() == DType::I8 || t->dtype() == DType::U8 || t->dtype() == DType::I32 ||
               t->dtype() == DType::I64);
}

/// A unary activation. Clip on integers with integer bound inputs (Clip-12+, bounds of the
/// input's type) reads the bounds exactly: ActivationParams holds them as float, which is
/// inexact beyond 2^24.
Tensor evalActivation(const ir::Graph& g, ir::NodeId id, const NodeInputs& in, KernelCache& cache) {
  const ir::ActivationParams p = ir::activationParams(g, id);
  const Tensor& x = in.at(0);
  const Tensor* lo = in.optional(1);
  const Tensor* hi = in.optional(2);
  if (p.kind == OpKind::Clip && isIntegerTensor(&x) && (lo || hi) && (!lo || isIntegerTensor(lo)) &&
      (!hi || isIntegerTensor(hi))) {
    return clampInteger(x, lo ? lo->elementAsInt64(0) : std::numeric_limits<int64_t>::lowest(),
                        hi ? hi->elementAsInt64(0) : std::numeric_limits<int64_t>::max());
  }
  return activation(p, x, cache);
}

std::vector<Tensor> evalUnchecked(const ir::Graph& g, ir::NodeId id, const NodeInputs& in,
                                  KernelCache& cache) {
  const ir::Node& n = g.node(id);
  auto one = [](Tensor t) {
    std::vector<Tensor> v;
    v.push_back(std::move(t));
    return v;
  };
  switch (n.op) {
  NNACCEL_UNARY_ACTIVATION_CASES:
    return one(evalActivation(g, id, in, cache));
  case OpKind::Conv:
  case OpKind::ConvTranspose: {
    cache.constantWeights =
        isConstantInput(g, n, 1) && (!in.optional(2) || isConstantInput(g, n, 2));
    return one(conv(ir::convParams(g, id), in.at(0), in.at(1), in.optional(2), cache));
  }
  case OpKind::MaxPool:
  case OpKind::AveragePool:
  case OpKind::GlobalAveragePool:
  case OpKind::GlobalMaxPool: {
    const ir::PoolParams p = ir::poolParams(g, id);
    std::vector<Tensor> out = one(pool(p, in.at(0), cache));
    if (n.op == OpKind::MaxPool && hasOutput(n, 1)) {
      out.push_back(maxPoolIndices(p, in.at(0)));
    }
    return out;
  }
  case OpKind::BatchNormalization:
    for (size_t i = 1; i < n.outputs.size(); ++i) {
      if (hasOutput(n, i)) {
        g.fail(id, "training-mode outputs (running mean/variance) are not supported",
               ErrorKind::Unsupported);
      }
    }
    return one(batchNorm(ir::batchNormParams(g, id), in.at(0), in.at(1), in.at(2), in.at(3),
                         in.at(4), cache));
  case OpKind::PRelu:
    return one(prelu(in.at(0), in.at(1)));
  case OpKind::Add:
  case OpKind::Sub:
  case OpKind::Mul:
  case OpKind::Div:
  case OpKind::Min:
  case OpKind::Max:
    if (n.inputs.size() == 2)
      return one(binary(n.op, in.at(0), in.at(1), cache));
    [[fallthrough]];
  case OpKind::Sum:
  case OpKind::Mean: {
    // Left to right, as the pipeline's chain of two-input nodes computes it; Mean divides the
    // sum by the count once.
    const OpKind step = n.op == OpKind::Min || n.op == OpKind::Max ? n.op : OpKind::Add;
    Tensor acc = in.at(0);
    for (size_t i = 1; i < n.inputs.size(); ++i)
      acc = binary(step, acc, in.at(i));
    if (n.op == OpKind::Mean && n.inputs.size() > 1)
      acc = binary(OpKind::Div, acc,
                   Tensor::fromVector<float>({}, {static_cast<float>(n.inputs.size())}));
    return one(std::move(acc));
  }
  case OpKind::Pow:
    return one(pow(in.at(0), in.at(1)));
  case OpKind::Gemm:
    return one(gemm(ir::gemmParams(g, id), in.at(0), in.at(1), in.optional(2), cache));
  case OpKind::MatMul:
    return one(matmul(in.at(0), in.at(1), cache));
  case OpKind::Softmax:
    return one(softmax(ir::softmaxParams(g, id), in.at(0), cache));
  case OpKind::Concat:
    return one(concat(in.all(), ir::concatAxis(g, id), cache));
  case OpKind::Flatten:
    return one(flattened(in.at(0), ir::flattenAxis(g, id)));
  case OpKind::Reshape:
    return one(in.at(0).reshaped(ir::reshapeTarget(g, id)));
  case OpKind::Transpose:
    return one(transpose(in.at(0), ir::transposePerm(g, id)));
  case OpKind::Squeeze:
    return one(in.at(0).reshaped(ir::squeezedShape(in.at(0).shape(), ir::squeezeAxes(g, id))));
  case OpKind::Unsqueeze:
    return one(in.at(0).reshaped(ir::unsqueezedShape(in.at(0).shape(), ir::unsqueezeAxes(g, id))));
  case OpKind::Pad:
    return one(pad(ir::padParams(g, id), in.at(0)));
  case OpKind::Resize:
  case OpKind::Upsample:
    return one(resize(ir::resizeParams(g, id), in.at(0)));
  case OpKind::DepthToSpace:
    return one(depthToSpace(ir::depthToSpaceParams(g, id), in.at(0)));
  case OpKind::Identity:
    return one(in.at(0));
  case OpKind::Dropout: {
    // Inference: identity; the optional mask is all true. Training mode is not evaluated.
    if (const Tensor* training = in.optional(2);
        training && training->numElements() > 0 && training->elementAsInt64(0) != 0) {
      g.fail(id, "training_mode=true is not supported", ErrorKind::Unsupported);
    }
    std::vector<Tensor> out = one(in.at(0));
    if (hasOutput(n, 1)) {
      // The mask is bool from opset 10 on; before, it has the data's type (all ones).
      Tensor mask(DType::Bool, in.at(0).shape());
      std::fill_n(mask.data<bool>(), mask.numElements(), true);
      out.push_back(n.opset < 10 ? mask.castTo(in.at(0).dtype()) : std::move(mask));
    }
    return out;
  }
  case OpKind::Constant:
    return one(ir::constantNodeValue(g, id));
  case OpKind::Shape:
    return one(ir::shapeOpValue(g, id, in.at(0).shape()));
  case OpKind::Gather:
    return one(gather(in.at(0), in.at(1), ir::gatherAxis(g, id)));
  case OpKind::Slice:
    return one(slice(ir::sliceParams(g, id), in.at(0)));
  NNACCEL_REDUCE_CASES:
    return one(reduce(n.op, ir::reduceParams(g, id), in.at(0)));
  case OpKind::LRN:
    return one(lrn(ir::lrnParams(g, id), in.at(0)));
  case OpKind::InstanceNormalization:
    return one(normalize(ir::normalizationParams(g, id), in.at(0), in.at(1), &in.at(2)));
  case OpKind::LayerNormalization: {
    std::vector<Tensor> out(3);
    out[0] = normalize(ir::normalizationParams(g, id), in.at(0), in.at(1), in.optional(2), &out[1],
                       &out[2]);
    out.resize(n.outputs.size());
    return out;
  }
  case OpKind::Split: {
    const ir::SplitParams p = ir::splitParams(g, id);
    const Dims& shape = in.at(0).shape();
    ir::SliceParams s{Dims(shape.size(), 0), shape, Dims(shape.size(), 1)};
    const auto axis = static_cast<size_t>(p.axis);
    std::vector<Tensor> out;
    for (int64_t size : p.sizes) {
      s.ends[axis] = s.starts[axis] + size;
      out.push_back(slice(s, in.at(0)));
      s.starts[axis] = s.ends[axis];
    }
    return out;
  }
  case OpKind::Cast:
    return one(ir::castValues(g, id, in.at(0)));
  case OpKind::QLinearConv:
  case OpKind::QLinearMatMul:
    g.fail(id,
           "QOperator nodes are written out as DequantizeLinear -> Conv/MatMul -> "
           "QuantizeLinear by the default pipeline (passes/ExpandFunctions.h); run it first",
           ErrorKind::Unsupported);
  case OpKind::ConvInteger:
    return one(
        convInteger(ir::convParams(g, id), in.at(0), in.at(1), in.optional(2), in.optional(3)));
  case OpKind::MatMulInteger:
    return one(matmulInteger(in.at(0), in.at(1), in.optional(2), in.optional(3)));
  case OpKind::DynamicQuantizeLinear:
    return dynamicQuantizeLinear(in.at(0));
  case OpKind::QuantizeLinear:
    return one(quantizeLinear(ir::qdqParams(g, id), in.at(0)));
  case OpKind::DequantizeLinear:
    return one(dequantizeLinear(ir::qdqParams(g, id), in.at(0)));
  case OpKind::Equal:
  case OpKind::Greater:
  case OpKind::Less:
  case OpKind::GreaterOrEqual:
  case OpKind::LessOrEqual:
    return one(ir::compareValues(n.op, in.at(0), in.at(1)));
  case OpKind::Not:
  case OpKind::And:
  case OpKind::Or:
  case OpKind::Xor:
    return one(ir::logicalValues(n.op, in.at(0), n.op == OpKind::Not ? nullptr : &in.at(1)));
  case OpKind::Where:
    return one(ir::whereValues(in.at(0), in.at(1), in.at(2)));
  case OpKind::Expand:
    return one(ir::expandValues(in.at(0), ir::expandShape(g, id)));
  case OpKind::Tile:
    return one(ir::tileValues(in.at(0), ir::tileRepeats(g, id)));
  case OpKind::ArgMax:
  case OpKind::ArgMin:
    return one(argReduce(n.op == OpKind::ArgMax, ir::argReduceParams(g, id), in.at(0)));
  case OpKind::ConstantOfShape:
    return one(ir::constantOfShapeValue(g, id, in.at(0)));
  }
  g.fail(id, "op is not supported by the reference executor", ErrorKind::Unsupported);
}

/// evalNode with the node's kernel state.
std::vector<Tensor> evalWithCache(const ir::Graph& g, ir::NodeId id,
                                  const std::vector<const Tensor*>& inputs, KernelCache& cache) {
  try {
    std::vector<Tensor> out = evalUnchecked(g, id, NodeInputs(g, id, inputs), cache);
    out.resize(g.node(id).outputs.size());
    return out;
  } catch (const Error& e) {
    throw e.withContext(g.contextOf(id));
  }
}
} // namespace

std::vector<Tensor> evalNode(const ir::Graph& g, ir::NodeId id,
                             const std::vector<const Tensor*>& inputs) {
  KernelCache once;
  return evalWithCache(g, id, inputs, once);
}

Executor::Executor(const ir::Graph& g) : graph_(g), values_(g.numValues()) {
  for (size_t i = 0; i < g.numNodes(); ++i) {
    caches_.push_back(std::make_unique<KernelCache>());
  }
}

Executor::~Executor() = default;
Executor::Executor(Executor&&) noexcept = default;

const Tensor& Executor::value(ir::ValueId id) const {
  if (const auto& c = graph_.value(id).constant) {
    return *c;
  }
  return values_.at(static_cast<size_t>(id));
}

std::vector<Tensor> Executor::run(const std::vector<Tensor>& inputs) {
  const ir::Graph& g = graph_;
  const ErrorContext where{.file = g.sourcePath};
  if (inputs.size() != g.inputs.size()) {
    throw Error(ErrorKind::Usage, where,
                "expected " + std::to_string(g.inputs.size()) + " inputs, got " +
                    std::to_string(inputs.size()));
  }
  // Hand every node's output of the previous run back to its kernel state: kernels that write
  // every element reuse the buffer instead of allocating and zero-filling a new one.
  for (size_t nid = 0; nid < g.numNodes(); ++nid) {
    const ir::Node& n = g.node(static_cast<ir::NodeId>(nid));
    if (!n.outputs.empty() && n.outputs[0] != ir::kNoValue) {
      caches_[nid]->recycled = std::move(values_[static_cast<size_t>(n.outputs[0])]);
    }
  }
  std::vector<bool> ready(g.numValues(), false);
  values_.assign(g.numValues(), Tensor());
  for (size_t v = 0; v < g.numValues(); ++v) {
    ready[v] = g.value(static_cast<ir::ValueId>(v)).constant != nullptr;
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    const ir::Value& v = g.value(g.inputs[i]);
    if (inputs[i].dtype() != v.dtype || inputs[i].shape() != v.shape) {
      throw Error(ErrorKind::Usage, where,
                  "input '" + v.name + "': expected " + std::string(dtypeName(v.dtype)) + " " +
                      dimsToString(v.shape) + ", got " + std::string(dtypeName(inputs[i].dtype())) +
                      " " + dimsToString(inputs[i].shape()));
    }
    values_[static_cast<size_t>(g.inputs[i])] = inputs[i];
    ready[static_cast<size_t>(g.inputs[i])] = true;
  }
  for (size_t nid = 0; nid < g.numNodes(); ++nid) {
    const auto id = static_cast<ir::NodeId>(nid);
    const ir::Node& n = g.node(id);
    const bool folded = std::all_of(n.outputs.begin(), n.outputs.end(), [&](ir::ValueId o) {
      return o == ir::kNoValue || g.value(o).constant;
    });
    if (folded) {
      continue; // every output is a constant computed by shape inference or folding
    }
    std::vector<const Tensor*> args;
    for (ir::ValueId in : n.inputs) {
      if (in == ir::kNoValue) {
        args.push_back(nullptr);
        continue;
      }
      NNACCEL_ASSERT(ready[static_cast<size_t>(in)])
          << "node '" << n.name << "' reads '" << g.value(in).name << "' before it is computed";
      args.push_back(&value(in));
    }
    KernelCache& cache = *caches_[nid];
    std::vector<Tensor> out = evalWithCache(g, id, args, cache);
    cache.recycled = Tensor(); // a kernel that did not take its old output frees it now
    for (size_t k = 0; k < n.outputs.size(); ++k) {
      const ir::ValueId o = n.outputs[k];
      if (o == ir::kNoValue) {
        continue;
      }
      const ir::Value& v = g.value(o);
      NNACCEL_ASSERT(out[k].dtype() == v.dtype && out[k].shape() == v.shape)
          << "node '" << n.name << "' (" << ir::opName(n.op) << ") produced "
          << dtypeName(out[k].dtype()) << " " << dimsToString(out[k].shape()) << " for '" << v.name
          << "', shape inference says " << dtypeName(v.dtype) << " " << dimsToString(v.shape);
      values_[static_cast<size_t>(o)] = std::move(out[k]);
      ready[static_cast<size_t>(o)] = true;
    }
  }
  std::vector<Tensor> results;
  for (ir::ValueId o : g.outputs) {
    NNACCEL_ASSERT(ready[static_cast<size_t>(o)])
        << "graph output '" << g.value(o).name << "' was never computed";
    results.push_back(value(o));
  }
  return results;
}

} // namespace nnaccel::reference
