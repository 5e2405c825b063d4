// ONNX ModelProto -> nnaccel graph IR (see include/nnaccel/frontend/Onnx.h, docs/OnnxImport.md).
//
// The importer is structural: it validates everything it reads (opset, domains, ops, attribute
// types against the ONNX schema, tensor sizes, names) so that a corrupted or hostile file ends
// in one nnaccel::Error naming the file and node, never in a crash or an out-of-bounds read.
// Shapes of intermediate values are left to ir::inferShapes.
#include "DimBinding.h"
#include "FileBytes.h"
#include "LegacyOpsetUpgrade.h"
#include "OnnxTensor.h"
#include "nnaccel/frontend/Onnx.h"
#include "nnaccel/ir/ShapeOps.h"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <map>
#include <onnx/checker.h>
#include <onnx/defs/schema.h>
#include <onnx/onnx_pb.h>
#include <set>
#include <unordered_map>

namespace nnaccel::frontend {

namespace {

using ir::kNoValue;
using ir::ValueId;

// No tensor nnaccel could run is this large (4 TiB of f32); the limit keeps element counts of
// graph inputs far from int64 overflow in shape inference and size computations.
constexpr int64_t kMaxInputElements = int64_t{1} << 40;

bool isDefaultDomain(const std::string& domain) {
  return domain.empty() || domain == "ai.onnx";
}

/// First line of an exception message from the ONNX library, without a trailing period.
std::string firstLine(const char* message) {
  std::string s(message);
  s = s.substr(0, s.find('\n'));
  while (!s.empty() && (s.back() == '.' || s.back() == ' ')) {
    s.pop_back();
  }
  return s;
}

std::string quotedName(const std::string& s) {
  return "'" + s + "'";
}

/// Converts one node attribute to its IR form; throws with \p context (key = attribute name).
ir::AttrValue convertAttribute(const onnx::AttributeProto& a, ErrorContext context) {
  context.key = a.name();
  auto fail = [&](ErrorKind kind, const std::string& reason) {
    return Error(kind, context, reason);
  };
  if (!a.ref_attr_name().empty()) {
    throw fail(ErrorKind::Unsupported, "references function attribute " +
                                           quotedName(a.ref_attr_name()) +
                                           ", which nnaccel does not support");
  }
  auto type = a.type();
  if (type == onnx::AttributeProto::UNDEFINED) {
    // IR version 1 models did not record the type; it is implied by the one field set.
    const std::pair<bool, onnx::AttributeProto::AttributeType> present[] = {
        {a.has_f(), onnx::AttributeProto::FLOAT},
        {a.has_i(), onnx::AttributeProto::INT},
        {a.has_s(), onnx::AttributeProto::STRING},
        {a.has_t(), onnx::AttributeProto::TENSOR},
        {a.has_g(), onnx::AttributeProto::GRAPH},
        {a.floats_size() > 0, onnx::AttributeProto::FLOATS},
        {a.ints_size() > 0, onnx::AttributeProto::INTS},
        {a.strings_size() > 0, onnx::AttributeProto::STRINGS},
        {a.graphs_size() > 0, onnx::AttributeProto::GRAPHS}};
    int found = 0;
    for (const auto& [isSet, t] : present) {
      if (isSet) {
        type = t;
        ++found;
      }
    }
    if (found != 1) {
      throw fail(ErrorKind::Model, "attribute has no type");
    }
  }
  auto require = [&](bool present, const char* field) {
    if (!present) {
      throw fail(ErrorKind::Model, std::string("attribute of type ") +
                                       onnx::AttributeProto_AttributeType_Name(type) + " has no '" +
                                       field + "' field");
    }
  };
  switch (type) {
  case onnx::AttributeProto::FLOAT:
    require(a.has_f(), "f");
    return a.f();
  case onnx::AttributeProto::INT:
    require(a.has_i(), "i");
    return static_cast<int64_t>(a.i());
  case onnx::AttributeProto::STRING:
    require(a.has_s(), "s");
    return a.s();
  case onnx::AttributeProto::TENSOR:
    require(a.has_t(), "t");
    return detail::tensorFromProto(a.t(), context, "tensor");
  case onnx::AttributeProto::FLOATS:
    return std::vector<float>(a.floats().begin(), a.floats().end());
  case onnx::AttributeProto::INTS:
    return std::vector<int64_t>(a.ints().begin(), a.ints().end());
  case onnx::AttributeProto::STRINGS:
    return std::vector<std::string>(a.strings().begin(), a.strings().end());
  case onnx::AttributeProto::GRAPH:
  case onnx::AttributeProto::GRAPHS:
    throw fail(ErrorKind::Unsupported, "graph attributes (subgraphs) are not supported");
  default:
    break;
  }
  const std::string typeName = onnx::AttributeProto_AttributeType_IsValid(type)
                                   ? onnx::AttributeProto_AttributeType_Name(type)
                                   : std::to_string(static_cast<int>(type));
  throw fail(ErrorKind::Unsupported, "attribute type " + typeName + " is not supported");
}

/// Imports one ModelProto at a known default-domain opset.
class Importer {
public:
  Importer(const onnx::ModelProto& model, std::string file, const ImportOptions& options,
           int64_t opset)
      : model_(model), graph_(model.graph()), file_(std::move(file)), options_(options),
        opset_(opset) {}

  ir::Graph run() {
    g_.sourcePath = file_;
    g_.opsetVersion = opset_;
    g_.name = graph_.name();
    if (graph_.sparse_initializer_size() > 0) {
      fail(ErrorKind::Unsupported, "sparse initializer " +
                                       quotedName(graph_.sparse_initializer(0).values().name()) +
                                       " is not supported");
    }
    importInitializers();
    importInputs();
    checkSupportedOps();
    declareNodes();
    connectNodes();
    importOutputs();
    g_.topoSort();
    return std::move(g_);
  }

private:
  [[noreturn]] void fail(ErrorKind kind, const std::string& reason) const {
    throw Error(kind, ErrorContext{.file = file_}, reason);
  }

  ErrorContext nodeContext(int index) const {
    const onnx::NodeProto& n = graph_.node(index);
    ErrorContext c{.file = file_, .node = nodeName(index), .op = n.op_type()};
    if (isDefaultDomain(n.domain())) {
      c.opset = opset_;
    } else {
      for (const auto& imp : model_.opset_import()) {
        if (imp.domain() == n.domain()) {
          c.opset = imp.version();
        }
      }
    }
    return c;
  }

  [[noreturn]] void failNode(int index, ErrorKind kind, const std::string& reason) const {
    throw Error(kind, nodeContext(index), reason);
  }

  std::string nodeName(int index) const {
    const onnx::NodeProto& n = graph_.node(index);
    return n.name().empty() ? n.op_type() + "_" + std::to_string(index) : n.name();
  }

  /// Records that \p producer ("an initializer", "node 'x'", ...) defines \p name; throws if
  /// something already does (node \p nodeIndex, or -1 for an initializer or graph input).
  void claimName(const std::string& name, const std::string& producer, int nodeIndex) {
    auto [it, inserted] = origin_.emplace(name, producer);
    if (inserted) {
      return;
    }
    if (nodeIndex < 0) {
      fail(ErrorKind::Model, "initializer " + quotedName(name) + " is listed twice");
    }
    failNode(nodeIndex, ErrorKind::Model,
             "output " + quotedName(name) + " is already produced by " + it->second);
  }

  void importInitializers() {
    for (int i = 0; i < graph_.initializer_size(); ++i) {
      const onnx::TensorProto& t = graph_.initializer(i);
      if (t.name().empty()) {
        fail(ErrorKind::Model, "initializer " + std::to_string(i) + " has an empty name");
      }
      const std::string what = "initializer " + quotedName(t.name());
      claimName(t.name(), "an initializer", -1);
      g_.addConstant(t.name(), detail::tensorFromProto(t, ErrorContext{.file = file_}, what));
    }
  }

  void importInputs() {
    std::set<std::string> seen;
    detail::DimBinder binder(options_, file_);
    observeSymbolicDims(binder);
    size_t runtimeIndex = 0;
    for (int i = 0; i < graph_.input_size(); ++i) {
      const onnx::ValueInfoProto& in = graph_.input(i);
      const std::string what = "graph input " + quotedName(in.name());
      if (in.name().empty()) {
        fail(ErrorKind::Model, "graph input " + std::to_string(i) + " has an empty name");
      }
      if (!seen.insert(in.name()).second) {
        fail(ErrorKind::Model, what + " is listed twice");
      }
      if (!in.has_type()) {
        fail(ErrorKind::Model, what + " has no type");
      }
      if (!in.type().has_tensor_type()) {
        fail(ErrorKind::Unsupported,
             what +
                 " is not a tensor (sequence, map, optional and sparse inputs are not supported)");
      }
      const onnx::TypeProto::Tensor& tt = in.type().tensor_type();
      const std::optional<DType> dtype = detail::dtypeFromOnnx(tt.elem_type());
      if (std::optional<ValueId> init = g_.findValue(in.name())) {
        // An input with an initializer of the same name (how IR < 4 lists weights): a constant.
        if (tt.elem_type() != onnx::TensorProto::UNDEFINED && dtype != g_.value(*init).dtype) {
          fail(ErrorKind::Model,
               what + " is declared " + detail::onnxTypeName(tt.elem_type()) +
                   " but its initializer holds " +
                   detail::onnxTypeName(detail::onnxFromDType(g_.value(*init).dtype)));
        }
        continue;
      }
      if (!dtype) {
        if (tt.elem_type() == onnx::TensorProto::UNDEFINED) {
          fail(ErrorKind::Model, what + " has no element type");
        }
        fail(ErrorKind::Unsupported, what + " has element type " +
                                         detail::onnxTypeName(tt.elem_type()) +
                                         ", which nnaccel does not support");
      }
      if (!tt.has_shape()) {
        fail(ErrorKind::Unsupported,
             what + " has no shape; nnaccel needs the rank of every graph input");
      }
      Dims dims;
      int64_t count = 1;
      const auto rank = static_cast<size_t>(tt.shape().dim_size());
      for (int d = 0; d < tt.shape().dim_size(); ++d) {
        const auto& dim = tt.shape().dim(d);
        int64_t extent = 0;
        if (dim.has_dim_value()) {
          extent = dim.dim_value();
          if (extent <= 0) {
            // A zero extent is valid ONNX that nnaccel does not compile (empty tensors);
            // a negative one is a malformed model.
            fail(extent == 0 ? ErrorKind::Unsupported : ErrorKind::Model,
                 what + " has dimension " + std::to_string(d) + " = " + std::to_string(extent) +
                     (extent == 0 ? "; zero-sized dimensions are not supported"
                                  : "; input dimensions must be positive"));
          }
        } else {
          extent = binder.bind(in.name(), runtimeIndex, static_cast<size_t>(d), rank,
                               dim.has_dim_param() ? dim.dim_param() : std::string());
        }
        if (__builtin_mul_overflow(count, std::max<int64_t>(extent, 1), &count) ||
            count > kMaxInputElements) {
          fail(ErrorKind::Model, what + " has more than 2^40 elements");
        }
        dims.push_back(extent);
      }
      claimName(in.name(), "a graph input", -1);
      g_.inputs.push_back(g_.addValue(in.name(), *dtype, std::move(dims)));
      ++runtimeIndex;
    }
    // A --dim no input has (a typo), an unbound dimension or disagreeing files: an error.
    binder.finish();
    g_.dimBindings = binder.bindings();
  }

  /// The binder's first pass: the extent each runtime input's data file gives its symbolic
  /// dimensions (inputs are validated in the second pass, in importInputs).
  void observeSymbolicDims(detail::DimBinder& binder) const {
    size_t runtimeIndex = 0;
    for (const onnx::ValueInfoProto& in : graph_.input()) {
      if (g_.findValue(in.name()) || !in.type().has_tensor_type() ||
          !in.type().tensor_type().has_shape())
        continue; // an initializer's declaration, or an input the second pass rejects
      const auto& shape = in.type().tensor_type().shape();
      Dims declared;
      for (int d = 0; d < shape.dim_size(); ++d)
        declared.push_back(shape.dim(d).has_dim_value() ? shape.dim(d).dim_value() : -1);
      binder.declare(runtimeIndex, declared);
      for (int d = 0; d < shape.dim_size(); ++d)
        if (!shape.dim(d).has_dim_value())
          binder.observe(runtimeIndex, static_cast<size_t>(d),
                         static_cast<size_t>(shape.dim_size()), shape.dim(d).dim_param());
      ++runtimeIndex;
    }
  }

  /// Throws one error listing every node whose op nnaccel does not have when there are several
  /// (a single one gets declareNodes' message naming its node): a user learns the whole list
  /// at once. First the count and the ops, then up to kListedPerOp node names per op.
  void checkSupportedOps() const {
    std::map<std::string, std::vector<std::string>> byOp; // op (domain-qualified) -> nodes
    size_t count = 0;
    for (int i = 0; i < graph_.node_size(); ++i) {
      const onnx::NodeProto& proto = graph_.node(i);
      const bool known = isDefaultDomain(proto.domain()) && ir::opFromName(proto.op_type());
      if (known || proto.op_type().empty())
        continue;
      const std::string op = isDefaultDomain(proto.domain())
                                 ? proto.op_type()
                                 : proto.domain() + "." + proto.op_type();
      byOp[op].push_back(quotedName(nodeName(i)));
      ++count;
    }
    if (count < 2)
      return;
    constexpr size_t kListedPerOp = 3;
    std::vector<std::string> ops, nodes;
    for (const auto& [op, names] : byOp) {
      ops.push_back(names.size() > 1 ? op + " x" + std::to_string(names.size()) : op);
      std::string listed;
      for (size_t k = 0; k < std::min(names.size(), kListedPerOp); ++k)
        listed += (k > 0 ? ", " : "") + names[k];
      if (names.size() > kListedPerOp)
        listed += " and " + std::to_string(names.size() - kListedPerOp) + " more";
      nodes.push_back(op + ": " + listed);
    }
    std::string reason = std::to_string(count) + " nodes use ops nnaccel does not support (";
    for (size_t k = 0; k < ops.size(); ++k)
      reason += (k > 0 ? ", " : "") + ops[k];
    reason += "): ";
    for (size_t k = 0; k < nodes.size(); ++k)
      reason += (k > 0 ? "; " : "") + nodes[k];
    fail(ErrorKind::Unsupported, reason);
  }

  /// Validates each node, converts its attributes and creates its output values (Constant
  /// nodes become constants here). Inputs are connected afterwards so that nodes need not be
  /// in topological order in the file.
  void declareNodes() {
    pending_.resize(static_cast<size_t>(graph_.node_size()));
    for (int i = 0; i < graph_.node_size(); ++i) {
      const onnx::NodeProto& proto = graph_.node(i);
      if (proto.op_type().empty()) {
        failNode(i, ErrorKind::Model, "node has no op_type");
      }
      if (!isDefaultDomain(proto.domain())) {
        failNode(i, ErrorKind::Unsupported,
                 "op domain " + quotedName(proto.domain()) +
                     " is not supported (only the default ONNX domain is)");
      }
      const std::optional<ir::OpKind> op = ir::opFromName(proto.op_type());
      if (!op) {
        failNode(i, ErrorKind::Unsupported, "unsupported op");
      }
      const onnx::OpSchema* schema =
          onnx::OpSchemaRegistry::Schema(proto.op_type(), static_cast<int>(opset_), "");
      if (schema == nullptr) {
        failNode(i, ErrorKind::Model, "op is not defined in opset " + std::to_string(opset_));
      }
      if (schema->Deprecated()) {
        failNode(i, ErrorKind::Model, "op is deprecated in opset " + std::to_string(opset_));
      }

      ir::Node& node = pending_[static_cast<size_t>(i)];
      node.op = *op;
      node.name = nodeName(i);
      node.opset = opset_;
      const ErrorContext context = nodeContext(i);
      for (const onnx::AttributeProto& a : proto.attribute()) {
        if (a.name().empty()) {
          failNode(i, ErrorKind::Model, "attribute with an empty name");
        }
        if (node.attrs.has(a.name())) {
          failNode(i, ErrorKind::Model, "attribute " + quotedName(a.name()) + " is given twice");
        }
        node.attrs.set(a.name(), convertAttribute(a, context));
      }
      // Trailing omitted outputs are dropped; omitted ones in between keep their position.
      int numOutputs = proto.output_size();
      while (numOutputs > 0 && proto.output(numOutputs - 1).empty()) {
        --numOutputs;
      }
      if (numOutputs == 0) {
        failNode(i, ErrorKind::Model, "node has no outputs");
      }
      try {
        schema->Verify(proto);
      } catch (const std::exception& e) {
        failNode(i, ErrorKind::Model, "does not match the onnx schema: " + firstLine(e.what()));
      }
      const std::string producer = "node " + quotedName(node.name);
      if (*op == ir::OpKind::Constant) {
        claimName(proto.output(0), producer, i);
        g_.addConstant(proto.output(0), ir::constantNodeValue(node.attrs, context));
        continue;
      }
      for (int k = 0; k < numOutputs; ++k) {
        const std::string& out = proto.output(k);
        if (out.empty()) {
          node.outputs.push_back(kNoValue);
          continue;
        }
        claimName(out, producer, i);
        node.outputs.push_back(g_.addValue(out, DType::F32));
      }
    }
  }

  void connectNodes() {
    for (int i = 0; i < graph_.node_size(); ++i) {
      ir::Node& node = pending_[static_cast<size_t>(i)];
      if (node.op == ir::OpKind::Constant) {
        continue;
      }
      // Trailing omitted inputs are dropped; omitted ones in between become kNoValue.
      const auto& inputs = graph_.node(i).input();
      int numInputs = inputs.size();
      while (numInputs > 0 && inputs.Get(numInputs - 1).empty()) {
        --numInputs;
      }
      for (int k = 0; k < numInputs; ++k) {
        const std::string& in = inputs.Get(k);
        if (in.empty()) {
          node.inputs.push_back(kNoValue);
          continue;
        }
        std::optional<ValueId> id = g_.findValue(in);
        if (!id) {
          failNode(i, ErrorKind::Model,
                   "input " + quotedName(in) +
                       " is not produced by any node, initializer or graph input");
        }
        node.inputs.push_back(*id);
      }
      g_.addNode(std::move(node));
    }
  }

  void importOutputs() {
    if (graph_.output_size() == 0) {
      fail(ErrorKind::Model, "graph has no outputs");
    }
    std::set<std::string> seen;
    for (const onnx::ValueInfoProto& out : graph_.output()) {
      const std::string what = "graph output " + quotedName(out.name());
      if (out.name().empty()) {
        fail(ErrorKind::Model, "graph output with an empty name");
      }
      if (!seen.insert(out.name()).second) {
        fail(ErrorKind::Model, what + " is listed twice");
      }
      std::optional<ValueId> id = g_.findValue(out.name());
      if (!id) {
        fail(ErrorKind::Model, what + " is not produced by any node, initializer or graph input");
      }
      importDeclaredType(out, g_.value(*id));
      g_.outputs.push_back(*id);
    }
  }

  /// Records the element type and shape a graph output declares (ir::inferShapes checks the
  /// inferred ones against them). Dimensions given by dim_param or not at all are unknown
  /// (-1); an output without a type, element type or shape declares nothing of it.
  void importDeclaredType(const onnx::ValueInfoProto& out, ir::Value& v) const {
    if (!out.has_type()) {
      return;
    }
    const std::string what = "graph output " + quotedName(out.name());
    if (!out.type().has_tensor_type()) {
      fail(ErrorKind::Unsupported,
           what + " is not a tensor (sequence, map, optional and sparse outputs are not "
                  "supported)");
    }
    const onnx::TypeProto::Tensor& tt = out.type().tensor_type();
    // An element type nnaccel does not hold (float16, double, ...) is not recorded: no op
    // nnaccel runs produces it, so shape inference rejects the producing node (e.g. "cast to
    // float16 is not supported") with a better message than a type mismatch could give.
    v.declaredDType = detail::dtypeFromOnnx(tt.elem_type());
    if (!tt.has_shape()) {
      return;
    }
    Dims dims;
    for (int d = 0; d < tt.shape().dim_size(); ++d) {
      const auto& dim = tt.shape().dim(d);
      if (!dim.has_dim_value()) {
        dims.push_back(-1);
        continue;
      }
      if (dim.dim_value() < 0) {
        fail(ErrorKind::Model, what + " has dimension " + std::to_string(d) + " = " +
                                   std::to_string(dim.dim_value()) +
                                   "; declared dimensions must be >= 0");
      }
      dims.push_back(dim.dim_value());
    }
    v.declaredShape = std::move(dims);
  }

  const onnx::ModelProto& model_;
  const onnx::GraphProto& graph_;
  std::string file_;
  const ImportOptions& options_;
  int64_t opset_;
  ir::Graph g_;
  std::vector<ir::Node> pending_;                       ///< parallel to graph_.node()
  std::unordered_map<std::string, std::string> origin_; ///< value name -> what defines it
};

void validateOptions(const ImportOptions& options) {
  auto usage = [](const std::string& key, const std::string& reason) {
    return Error(ErrorKind::Usage, ErrorContext{.key = key}, reason);
  };
  if (options.defaultSymbolicDim <= 0) {
    throw usage("defaultSymbolicDim", "symbolic dimension value " +
                                          std::to_string(options.defaultSymbolicDim) +
                                          " must be positive");
  }
  for (const auto& [name, value] : options.dimParams) {
    if (value <= 0) {
      throw usage(name, "symbolic dimension value " + std::to_string(value) + " must be positive");
    }
  }
}

/// The model's default-domain opset; throws if it is missing or declared twice.
int64_t defaultOpset(const onnx::ModelProto& model, const std::string& file) {
  std::optional<int64_t> opset;
  for (const auto& imp : model.opset_import()) {
    if (isDefaultDomain(imp.domain())) {
      if (opset) {
        throw Error(ErrorKind::Model, ErrorContext{.file = file},
                    "the default-domain opset is declared twice");
      }
      opset = imp.version();
    }
  }
  if (!opset) {
    std::string domains;
    for (const auto& imp : model.opset_import()) {
      domains += (domains.empty() ? "'" : ", '") + imp.domain() + "'";
    }
    if (!domains.empty()) {
      // e.g. training-only models (ai.onnx.preview.training): well formed, not for nnaccel.
      throw Error(ErrorKind::Unsupported, ErrorContext{.file = file},
                  "model uses only the domain(s) " + domains +
                      " and no default-domain (ai.onnx) opset");
    }
    throw Error(ErrorKind::Model, ErrorContext{.file = file},
                "model declares no default-domain (ai.onnx) opset");
  }
  return *opset;
}

/// Throws "not a valid <what> (larger than the 2 GiB protobuf limit)" for \p size bytes above
/// what protobuf parses.
void requireProtobufSize(std::uintmax_t size, const ErrorContext& context, const char* what) {
  if (size > static_cast<std::uintmax_t>(INT_MAX)) {
    throw Error(ErrorKind::Model, context,
                std::string("not a valid ") + what + " (larger than the 2 GiB protobuf limit)");
  }
}

/// The same check on a file's size, before reading it into memory (a missing or unreadable file
/// is left for readFileBytes to report).
void requireProtobufFileSize(const std::string& path, const char* what) {
  if (const std::optional<std::uintmax_t> size = detail::fileSizeBytes(path)) {
    requireProtobufSize(*size, ErrorContext{.file = path}, what);
  }
}

ir::Graph importModel(const onnx::ModelProto& model, const std::string& file,
                      const ImportOptions& options) {
  validateOptions(options);
  const ErrorContext context{.file = file};
  if (!model.has_graph()) {
    throw Error(ErrorKind::Model, context, "not a valid ONNX model (no graph)");
  }
  if (model.ir_version() <= 0) {
    throw Error(ErrorKind::Model, context, "not a valid ONNX model (no ir_version)");
  }
  const int64_t opset = defaultOpset(model, file);
  if (opset < kMinOpset || opset > kMaxOpset) {
    throw Error(ErrorKind::Unsupported, context,
                "default-domain opset " + std::to_string(opset) +
                    " is outside the supported range " + std::to_string(kMinOpset) + ".." +
                    std::to_string(kMaxOpset));
  }
  if (opset < kUpgradedOpset) {
    // Legacy opset 1-6: import as written (errors name the model's own nodes), then rewrite the
    // few ops whose meaning changed in opset 7.
    ir::Graph g = Importer(model, file, options, opset).run();
    detail::upgradeLegacyOpset(g, opset);
    return g;
  }
  return Importer(model, file, options, opset).run();
}

} // namespace

ir::Graph importOnnxBytes(std::string_view bytes, const std::string& displayName,
                          const ImportOptions& options) {
  const ErrorContext context{.file = displayName};
  if (bytes.empty()) {
    throw Error(ErrorKind::Model, context, "not a valid ONNX model (the file is empty)");
  }
  requireProtobufSize(bytes.size(), context, "ONNX model");
  onnx::ModelProto model;
  if (!model.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    throw Error(ErrorKind::Model, context, "not a valid ONNX model (protobuf parse failed)");
  }
  return importModel(model, displayName, options);
}

ir::Graph importOnnxFile(const std::string& path, const ImportOptions& options) {
  requireProtobufFileSize(path, "ONNX model");
  return importOnnxBytes(detail::readFileBytes(path), path, options);
}

Tensor readTensorProtoFile(const std::string& path) {
  requireProtobufFileSize(path, "TensorProto");
  const std::string bytes = detail::readFileBytes(path);
  const ErrorContext context{.file = path};
  requireProtobufSize(bytes.size(), context, "TensorProto");
  onnx::TensorProto proto;
  if (!proto.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    throw Error(ErrorKind::Model, context, "not a valid TensorProto (protobuf parse failed)");
  }
  return detail::tensorFromProto(
      proto, context, proto.name().empty() ? "tensor" : "tensor " + quotedName(proto.name()));
}

} // namespace nnaccel::frontend
