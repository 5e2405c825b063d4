// nnaccel graph IR -> ONNX ModelProto (see include/nnaccel/frontend/Onnx.h).
//
// The output is a plain ONNX model (IR version 8, default-domain opset = Graph::opsetVersion,
// producer "nnaccel") that onnx::checker::check_model accepts and importOnnxBytes turns back
// into an equal graph: constants become raw_data initializers, attributes keep their ONNX
// names and types, and every intermediate value gets a value_info entry with its shape (the
// graph is shape-inferred first if it was not).
// FusedActivation marks are an nnaccel annotation with no ONNX form and are not exported.
#include "FileBytes.h"
#include "OnnxTensor.h"
#include "nnaccel/frontend/Onnx.h"
#include "nnaccel/ir/ShapeInference.h"

#include <onnx/onnx_pb.h>
#include <set>

namespace nnaccel::frontend {

namespace {

constexpr int64_t kExportIrVersion = 8;

template <class... Fs> struct Overloaded : Fs... { using Fs::operator()...; };
template <class... Fs> Overloaded(Fs...) -> Overloaded<Fs...>;

void attributeToProto(const std::string& name, const ir::AttrValue& value,
                      onnx::AttributeProto& a) {
  a.set_name(name);
  std::visit(Overloaded{
                 [&](int64_t v) {
                   a.set_type(onnx::AttributeProto::INT);
                   a.set_i(v);
                 },
                 [&](float v) {
                   a.set_type(onnx::AttributeProto::FLOAT);
                   a.set_f(v);
                 },
                 [&](const std::string& v) {
                   a.set_type(onnx::AttributeProto::STRING);
                   a.set_s(v);
                 },
                 [&](const std::vector<int64_t>& v) {
                   a.set_type(onnx::AttributeProto::INTS);
                   a.mutable_ints()->Add(v.begin(), v.end());
                 },
                 [&](const std::vector<float>& v) {
                   a.set_type(onnx::AttributeProto::FLOATS);
                   a.mutable_floats()->Add(v.begin(), v.end());
                 },
                 [&](const std::vector<std::string>& v) {
                   a.set_type(onnx::AttributeProto::STRINGS);
                   for (const std::string& s : v) {
                     a.add_strings(s);
                   }
                 },
                 [&](const Tensor& v) {
                   a.set_type(onnx::AttributeProto::TENSOR);
                   detail::tensorToProto(v, *a.mutable_t());
                 },
             },
             value);
}

/// Type (and shape, when known) of \p v as an ONNX ValueInfoProto.
void valueInfoToProto(const ir::Value& v, onnx::ValueInfoProto& info) {
  info.set_name(v.name);
  onnx::TypeProto::Tensor* tt = info.mutable_type()->mutable_tensor_type();
  tt->set_elem_type(detail::onnxFromDType(v.dtype));
  if (v.shapeKnown) {
    onnx::TensorShapeProto* shape = tt->mutable_shape();
    for (int64_t d : v.shape) {
      shape->add_dim()->set_dim_value(d);
    }
  }
}

std::string valueName(const ir::Graph& g, ir::ValueId id) {
  return id == ir::kNoValue ? std::string() : g.value(id).name;
}

} // namespace

std::string exportOnnxBytes(const ir::Graph& graph) {
  // ONNX requires nodes in topological order; sort a copy (constants are shared, not copied).
  ir::Graph g = graph;
  g.topoSort();
  // The checker requires a type and shape on every graph output; a graph that was not inferred
  // yet is inferred here (on the copy), which also gives node outputs their real dtypes.
  bool allKnown = true;
  for (const ir::Node& n : g.nodes()) {
    for (ir::ValueId out : n.outputs) {
      allKnown = allKnown && (out == ir::kNoValue || g.value(out).shapeKnown);
    }
  }
  if (!allKnown) {
    ir::inferShapes(g);
  }

  onnx::ModelProto model;
  model.set_ir_version(kExportIrVersion);
  model.set_producer_name("nnaccel");
  onnx::OperatorSetIdProto* opset = model.add_opset_import();
  opset->set_domain("");
  opset->set_version(g.opsetVersion);
  onnx::GraphProto* gp = model.mutable_graph();
  gp->set_name(g.name.empty() ? "nnaccel" : g.name);

  std::set<ir::ValueId> referenced(g.outputs.begin(), g.outputs.end());
  for (const ir::Node& n : g.nodes()) {
    referenced.insert(n.inputs.begin(), n.inputs.end());
  }
  referenced.erase(ir::kNoValue);
  const std::set<ir::ValueId> inputs(g.inputs.begin(), g.inputs.end());
  const std::set<ir::ValueId> outputs(g.outputs.begin(), g.outputs.end());

  for (ir::ValueId id : g.inputs) {
    valueInfoToProto(g.value(id), *gp->add_input());
  }
  for (ir::ValueId id : referenced) {
    const ir::Value& v = g.value(id);
    if (v.constant && v.producer < 0 && !inputs.count(id)) {
      onnx::TensorProto* t = gp->add_initializer();
      t->set_name(v.name);
      detail::tensorToProto(*v.constant, *t);
    }
  }
  for (const ir::Node& n : g.nodes()) {
    onnx::NodeProto* np = gp->add_node();
    np->set_op_type(std::string(ir::opName(n.op)));
    np->set_name(n.name);
    for (ir::ValueId in : n.inputs) {
      NNACCEL_ASSERT(in == ir::kNoValue || inputs.count(in) || g.value(in).producer >= 0 ||
                     g.value(in).constant)
          << "export: input '" << g.value(in).name << "' of node '" << n.name
          << "' has no producer";
      np->add_input(valueName(g, in));
    }
    for (ir::ValueId out : n.outputs) {
      np->add_output(valueName(g, out));
      if (out != ir::kNoValue && g.value(out).shapeKnown && !outputs.count(out)) {
        valueInfoToProto(g.value(out), *gp->add_value_info());
      }
    }
    for (const auto& [name, value] : n.attrs.all()) {
      attributeToProto(name, value, *np->add_attribute());
    }
  }
  for (ir::ValueId id : g.outputs) {
    valueInfoToProto(g.value(id), *gp->add_output());
  }

  std::string bytes;
  if (!model.SerializeToString(&bytes)) {
    throw Error(ErrorKind::Unsupported, ErrorContext{},
                "graph '" + g.name +
                    "' cannot be serialized as ONNX (over the 2 GiB protobuf limit)");
  }
  return bytes;
}

void exportOnnxFile(const ir::Graph& g, const std::string& path) {
  detail::writeFileBytes(path, exportOnnxBytes(g));
}

} // namespace nnaccel::frontend
