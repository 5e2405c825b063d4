// The reference executor: walks the graph's nodes in order, evaluating each node by resolving
// its parameters (ir/OpParams.h) and dispatching to the kernels of Kernels.h. The Executor keeps
// one KernelCache per node, so oneDNN primitives are built and constant weights converted on the
// first run only; evalNode runs the same code with a fresh cache. Errors raised by kernels get the
// node's context here.
#include "nnaccel/reference/Executor.h"

#include "CachedKernels.h"
#include "nnaccel/ir/OpParams.h"

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

Dims squeezed(const Dims& shape, const std::vector<int64_t>& axes) {
  Dims out;
  for (size_t a = 0; a < shape.size(); ++a) {
    if (std::find(axes.begin(), axes.end(), static_cast<int64_t>(a)) == axes.end()) {
      out.push_back(shape[a]);
    }
  }
  return out;
}

Dims unsqueezed(const Dims& shape, const std::vector<int64_t>& axes) {
  Dims out;
  auto next = shape.begin();
  const size_t rank = shape.size() + axes.size();
  for (size_t a = 0; a < rank; ++a) {
    if (std::find(axes.begin(), axes.end(), static_cast<int64_t>(a)) != axes.end()) {
      out.push_back(1);
    } else {
      out.push_back(*next++);
    }
  }
  return out;
}

Tensor flattened(const Tensor& x, int64_t axis) {
  const auto mid = x.shape().begin() + axis;
  const int64_t outer = std::accumulate(x.shape().begin(), mid, int64_t{1}, std::multiplies<>());
  const int64_t inner = std::accumulate(mid, x.shape().end(), int64_t{1}, std::multiplies<>());
  return x.reshaped({outer, inner});
}

/// Shape (opset 15 adds start/end, clamped like Python slicing of the dims).
Tensor shapeOf(const ir::Node& n, const Tensor& x) {
  const int64_t rank = x.rank();
  auto clampAxis = [rank](int64_t v) {
    v = v < 0 ? v + rank : v;
    return std::clamp<int64_t>(v, 0, rank);
  };
  const int64_t start = clampAxis(n.attrs.getInt("start", 0));
  const int64_t end = clampAxis(n.attrs.getInt("end", rank));
  std::vector<int64_t> dims;
  for (int64_t a = start; a < end; ++a) {
    dims.push_back(x.dim(a));
  }
  return Tensor::fromVector<int64_t>({static_cast<int64_t>(dims.size())}, dims);
}

/// A Constant node's value: the folded constant if shape inference stored one, else its
/// attribute (value, value_float(s), value_int(s)).
Tensor constantValue(const ir::Graph& g, ir::NodeId id) {
  const ir::Node& n = g.node(id);
  if (hasOutput(n, 0) && g.value(n.outputs[0]).constant) {
    return *g.value(n.outputs[0]).constant;
  }
  if (const Tensor* t = n.attrs.find<Tensor>("value")) {
    return *t;
  }
  if (const float* f = n.attrs.find<float>("value_float")) {
    return Tensor::scalar(*f);
  }
  if (const int64_t* i = n.attrs.find<int64_t>("value_int")) {
    return Tensor::scalar(*i);
  }
  if (const auto* fs = n.attrs.find<std::vector<float>>("value_floats")) {
    return Tensor::fromVector<float>({static_cast<int64_t>(fs->size())}, *fs);
  }
  if (const auto* is = n.attrs.find<std::vector<int64_t>>("value_ints")) {
    return Tensor::fromVector<int64_t>({static_cast<int64_t>(is->size())}, *is);
  }
  g.fail(id, "constant has no supported value attribute", ErrorKind::Unsupported);
}

Tensor constantOfShape(const ir::Graph& g, ir::NodeId id, const Tensor& shapeTensor) {
  if (shapeTensor.dtype() != DType::I64) {
    g.fail(id, "shape input must be s64, got " + std::string(dtypeName(shapeTensor.dtype())));
  }
  const std::vector<int64_t> dims = shapeTensor.toInt64Vector();
  for (int64_t d : dims) {
    if (d < 0) {
      g.fail(id, "negative dimension " + std::to_string(d) + " in shape input");
    }
  }
  const Tensor* value = g.node(id).attrs.find<Tensor>("value");
  const Tensor fill = value ? *value : Tensor::scalar(0.0f);
  if (fill.numElements() != 1) {
    g.fail(id, "value must hold one element, got " + std::to_string(fill.numElements()));
  }
  Tensor out(fill.dtype(), dims);
  const size_t size = dtypeSizeBytes(fill.dtype());
  const int64_t count = out.numElements();
  for (int64_t i = 0; i < count; ++i) {
    std::copy_n(fill.rawData(), size, out.rawData() + static_cast<size_t>(i) * size);
  }
  return out;
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
  case OpKind::GlobalMaxPool:
    if (hasOutput(n, 1)) {
      g.fail(id, "the Indices output of MaxPool is not supported", ErrorKind::Unsupported);
    }
    return one(pool(ir::poolParams(g, id), in.at(0), cache));
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
    return one(binary(n.op, in.at(0), in.at(1), cache));
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
    return one(in.at(0).reshaped(squeezed(in.at(0).shape(), ir::squeezeAxes(g, id))));
  case OpKind::Unsqueeze:
    return one(in.at(0).reshaped(unsqueezed(in.at(0).shape(), ir::unsqueezeAxes(g, id))));
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
    return one(constantValue(g, id));
  case OpKind::Shape:
    return one(shapeOf(n, in.at(0)));
  case OpKind::Gather:
    return one(gather(in.at(0), in.at(1), ir::gatherAxis(g, id)));
  case OpKind::Slice:
    return one(slice(ir::sliceParams(g, id), in.at(0)));
  case OpKind::Cast:
    return one(in.at(0).castTo(ir::castTarget(g, id)));
  case OpKind::ConstantOfShape:
    return one(constantOfShape(g, id, in.at(0)));
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
