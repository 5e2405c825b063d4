// Node input/attribute access with node-named errors (see NodeInputs.h).
#include "NodeInputs.h"

#include "nnaccel/ir/ShapeOps.h"

#include <cstring>
#include <sstream>

namespace nnaccel::ir::detail {

int64_t product(std::span<const int64_t> dims) {
  const std::optional<int64_t> p = checkedProduct(dims, kMaxElements);
  NNACCEL_ASSERT(p.has_value()) << "product of unvalidated dims "
                                << dimsToString(Dims(dims.begin(), dims.end()));
  return *p;
}

std::string quoted(const std::string& s) {
  return "'" + s + "'";
}

std::string str(int64_t v) {
  return std::to_string(v);
}

void copyElement(const Tensor& from, int64_t src, Tensor& to, int64_t dst) {
  const size_t es = dtypeSizeBytes(from.dtype());
  std::memcpy(to.rawData() + static_cast<size_t>(dst) * es,
              from.rawData() + static_cast<size_t>(src) * es, es);
}

void requireExtents(const Graph& g, NodeId id, const std::vector<int64_t>& values,
                    std::string_view what) {
  for (int64_t v : values) {
    if (v > kMaxExtent || v < -kMaxExtent) {
      g.fail(id, std::string(what) + " value " + std::to_string(v) + " is too large");
    }
  }
}

const Value* optionalInput(const Graph& g, NodeId id, size_t index) {
  const Node& n = g.node(id);
  if (index >= n.inputs.size() || n.inputs[index] == kNoValue) {
    return nullptr;
  }
  return &g.value(n.inputs[index]);
}

const Value& requiredInput(const Graph& g, NodeId id, size_t index, std::string_view role) {
  const Value* v = optionalInput(g, id, index);
  if (v == nullptr) {
    g.fail(id, "missing required input " + std::to_string(index) + " (" + std::string(role) + ")");
  }
  if (!v->shapeKnown) {
    g.fail(id, std::string(role) + " input " + quoted(v->name) + " has no inferred shape");
  }
  return *v;
}

const Tensor* constantInput(const Graph& g, NodeId id, size_t index, std::string_view role) {
  const Value* v = optionalInput(g, id, index);
  if (v == nullptr) {
    return nullptr;
  }
  if (!v->constant) {
    g.fail(id, std::string(role) + " input " + quoted(v->name) + " is not a constant",
           ErrorKind::Unsupported);
  }
  return v->constant.get();
}

const Tensor& requiredConstantInput(const Graph& g, NodeId id, size_t index,
                                    std::string_view role) {
  const Tensor* t = constantInput(g, id, index, role);
  if (t == nullptr) {
    g.fail(id, "missing required input " + std::to_string(index) + " (" + std::string(role) + ")");
  }
  return *t;
}

std::vector<int64_t> intValues(const Graph& g, NodeId id, const Tensor& t, std::string_view role) {
  if (t.dtype() != DType::I64 && t.dtype() != DType::I32) {
    g.fail(id, std::string(role) + " must be an integer tensor, found " +
                   std::string(dtypeName(t.dtype())));
  }
  if (t.rank() > 1) {
    g.fail(id, std::string(role) + " must be 1-D, found shape " + dimsToString(t.shape()));
  }
  return t.toInt64Vector();
}

int64_t normalizeAxis(const Graph& g, NodeId id, int64_t axis, int64_t rank,
                      std::string_view what) {
  if (axis < -rank || axis >= rank) {
    g.fail(id, std::string(what) + " " + std::to_string(axis) + " is out of range for rank " +
                   std::to_string(rank));
  }
  return axis < 0 ? axis + rank : axis;
}

int64_t requiredIntAttr(const Graph& g, NodeId id, const std::string& name) {
  const int64_t* v = withNodeContext(g, id, [&] { return g.node(id).attrs.find<int64_t>(name); });
  if (v == nullptr) {
    g.fail(id, "missing required attribute " + quoted(name));
  }
  return *v;
}

std::vector<int64_t> requiredIntsAttr(const Graph& g, NodeId id, const std::string& name) {
  const auto* v =
      withNodeContext(g, id, [&] { return g.node(id).attrs.find<std::vector<int64_t>>(name); });
  if (v == nullptr) {
    g.fail(id, "missing required attribute " + quoted(name));
  }
  return *v;
}

namespace {
template <typename T> std::string joinList(const std::vector<T>& values) {
  std::ostringstream os;
  os << '[';
  for (size_t i = 0; i < values.size(); ++i) {
    os << (i ? ", " : "") << values[i];
  }
  os << ']';
  return os.str();
}
} // namespace

std::string listToString(const std::vector<int64_t>& values) {
  return joinList(values);
}
std::string listToString(const std::vector<float>& values) {
  return joinList(values);
}

} // namespace nnaccel::ir::detail
