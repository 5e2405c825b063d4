// The values of Squeeze/Unsqueeze shapes, Shape, Constant and ConstantOfShape (see ShapeOps.h),
// shared by shape inference and the executors so folding and evaluation agree.
#include "nnaccel/ir/ShapeOps.h"

#include "NodeInputs.h"

#include <algorithm>
#include <cstring>

namespace nnaccel::ir {

using detail::quoted;
using detail::str;

namespace {
bool contains(const std::vector<int64_t>& axes, int64_t a) {
  return std::find(axes.begin(), axes.end(), a) != axes.end();
}
} // namespace

std::optional<int64_t> checkedProduct(std::span<const int64_t> dims, int64_t limit) {
  int64_t p = 1;
  for (int64_t d : dims) {
    if (d < 0 || (d != 0 && p > limit / d)) {
      return std::nullopt;
    }
    p *= d;
  }
  return p <= limit ? std::optional(p) : std::nullopt;
}

Dims squeezedShape(const Dims& shape, const std::vector<int64_t>& axes) {
  Dims out;
  for (size_t a = 0; a < shape.size(); ++a) {
    if (!contains(axes, static_cast<int64_t>(a))) {
      out.push_back(shape[a]);
    }
  }
  return out;
}

Dims unsqueezedShape(const Dims& shape, const std::vector<int64_t>& axes) {
  Dims out;
  auto next = shape.begin();
  const auto rank = static_cast<int64_t>(shape.size() + axes.size());
  for (int64_t a = 0; a < rank; ++a) {
    if (contains(axes, a)) {
      out.push_back(1);
    } else {
      NNACCEL_ASSERT(next != shape.end()) << "unsqueeze axes are not normalized";
      out.push_back(*next++);
    }
  }
  return out;
}

Tensor shapeOpValue(const Graph& g, NodeId id, const Dims& inputShape) {
  const Node& n = g.node(id);
  const auto rank = static_cast<int64_t>(inputShape.size());
  int64_t start = 0;
  int64_t end = rank;
  if (n.opset >= 15) {
    const auto clampAxis = [rank](int64_t a) {
      return std::clamp<int64_t>(a < 0 ? a + rank : a, 0, rank);
    };
    detail::withNodeContext(g, id, [&] {
      start = clampAxis(n.attrs.getInt("start", 0));
      end = clampAxis(n.attrs.getInt("end", rank));
    });
  }
  std::vector<int64_t> dims;
  for (int64_t a = start; a < end; ++a) {
    dims.push_back(inputShape[static_cast<size_t>(a)]);
  }
  return Tensor::fromVector<int64_t>({static_cast<int64_t>(dims.size())}, dims);
}

Tensor constantNodeValue(const AttrMap& attrs, const ErrorContext& context) {
  if (attrs.all().size() != 1) {
    throw Error(ErrorKind::Model, context,
                "constant must have exactly one value attribute, found " +
                    str(static_cast<int64_t>(attrs.all().size())));
  }
  const auto& [name, value] = *attrs.all().begin();
  ErrorContext keyed = context;
  keyed.key = name;
  if (name == "value") {
    if (const Tensor* t = std::get_if<Tensor>(&value)) {
      return *t;
    }
  } else if (name == "value_float") {
    if (const float* f = std::get_if<float>(&value)) {
      return Tensor::scalar(*f);
    }
  } else if (name == "value_floats") {
    if (const auto* fs = std::get_if<std::vector<float>>(&value)) {
      return Tensor::fromVector<float>({static_cast<int64_t>(fs->size())}, *fs);
    }
  } else if (name == "value_int") {
    if (const int64_t* i = std::get_if<int64_t>(&value)) {
      return Tensor::scalar(*i);
    }
  } else if (name == "value_ints") {
    if (const auto* is = std::get_if<std::vector<int64_t>>(&value)) {
      return Tensor::fromVector<int64_t>({static_cast<int64_t>(is->size())}, *is);
    }
  } else if (name == "value_string" || name == "value_strings") {
    throw Error(ErrorKind::Unsupported, keyed, "string constants are not supported");
  } else {
    throw Error(ErrorKind::Model, keyed, "is not a value attribute of Constant");
  }
  throw Error(ErrorKind::Model, keyed,
              "has type " + std::string(attrTypeName(value)) + ", which Constant does not accept");
}

Tensor constantNodeValue(const Graph& g, NodeId id) {
  return constantNodeValue(g.node(id).attrs, g.contextOf(id));
}

ConstantOfShapeSpec constantOfShapeSpec(const Graph& g, NodeId id, const Tensor& shape) {
  ConstantOfShapeSpec spec;
  spec.shape = detail::intValues(g, id, shape, "shape");
  detail::requireExtents(g, id, spec.shape, "shape");
  for (int64_t d : spec.shape) {
    if (d < 0) {
      g.fail(id, "shape " + detail::listToString(spec.shape) + " has a negative dimension");
    }
  }
  spec.fill = Tensor::scalar<float>(0.0f);
  const Tensor* v =
      detail::withNodeContext(g, id, [&] { return g.node(id).attrs.find<Tensor>("value"); });
  if (v != nullptr) {
    if (v->numElements() != 1) {
      g.fail(id, "attribute " + quoted("value") + " must hold one element, found shape " +
                     dimsToString(v->shape()));
    }
    spec.fill = v->reshaped({});
  }
  return spec;
}

Tensor constantOfShapeValue(const ConstantOfShapeSpec& spec) {
  Tensor out(spec.fill.dtype(), spec.shape);
  const size_t elementBytes = dtypeSizeBytes(spec.fill.dtype());
  for (int64_t i = 0; i < out.numElements(); ++i) {
    std::memcpy(out.rawData() + static_cast<size_t>(i) * elementBytes, spec.fill.rawData(),
                elementBytes);
  }
  return out;
}

Tensor constantOfShapeValue(const Graph& g, NodeId id, const Tensor& shape) {
  return constantOfShapeValue(constantOfShapeSpec(g, id, shape));
}

} // namespace nnaccel::ir
