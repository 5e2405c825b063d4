// Test helper: builds small onnx::ModelProtos in code (inputs, nodes, attributes, initializers)
// so importer/exporter tests state exactly what the file contains, plus helpers to run the
// import and capture the nnaccel::Error it must throw. Tensors are written here with the
// protobuf API directly (not through the frontend's own conversion code) so the tests check
// the importer against an independent encoding.
#pragma once

#include "nnaccel/frontend/Onnx.h"

#include <cstring>
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>
#include <string>
#include <variant>
#include <vector>

namespace nnaccel::frontend::testing {

/// Directory of Debian's libonnx-testdata backend test cases.
inline const std::string kOnnxTestData = "/usr/share/libonnx-testdata/data";

/// One input dimension: a value, a symbolic name (dim_param), or unset (std::monostate).
using DimSpec = std::variant<std::monostate, int64_t, std::string>;

/// A TensorProto with \p values stored little-endian in raw_data.
template <typename T>
onnx::TensorProto rawTensor(const std::string& name, int32_t elemType, std::vector<int64_t> dims,
                            const std::vector<T>& values) {
  onnx::TensorProto t;
  t.set_name(name);
  t.set_data_type(elemType);
  for (int64_t d : dims) {
    t.add_dims(d);
  }
  std::string raw(values.size() * sizeof(T), '\0');
  if (!values.empty()) {
    std::memcpy(raw.data(), values.data(), raw.size());
  }
  t.set_raw_data(raw);
  return t;
}

inline onnx::TensorProto floatTensor(const std::string& name, std::vector<int64_t> dims,
                                     const std::vector<float>& values) {
  return rawTensor<float>(name, onnx::TensorProto::FLOAT, std::move(dims), values);
}

inline onnx::TensorProto int64Tensor(const std::string& name, std::vector<int64_t> dims,
                                     const std::vector<int64_t>& values) {
  return rawTensor<int64_t>(name, onnx::TensorProto::INT64, std::move(dims), values);
}

// Attribute setters: one per ONNX attribute type; each returns the attribute for tweaks.
inline onnx::AttributeProto& addAttr(onnx::NodeProto& n, const std::string& name,
                                     onnx::AttributeProto::AttributeType type) {
  onnx::AttributeProto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(type);
  return *a;
}
inline onnx::AttributeProto& attrInt(onnx::NodeProto& n, const std::string& name, int64_t v) {
  auto& a = addAttr(n, name, onnx::AttributeProto::INT);
  a.set_i(v);
  return a;
}
inline onnx::AttributeProto& attrFloat(onnx::NodeProto& n, const std::string& name, float v) {
  auto& a = addAttr(n, name, onnx::AttributeProto::FLOAT);
  a.set_f(v);
  return a;
}
inline onnx::AttributeProto& attrString(onnx::NodeProto& n, const std::string& name,
                                        const std::string& v) {
  auto& a = addAttr(n, name, onnx::AttributeProto::STRING);
  a.set_s(v);
  return a;
}
inline onnx::AttributeProto& attrInts(onnx::NodeProto& n, const std::string& name,
                                      const std::vector<int64_t>& v) {
  auto& a = addAttr(n, name, onnx::AttributeProto::INTS);
  a.mutable_ints()->Add(v.begin(), v.end());
  return a;
}
inline onnx::AttributeProto& attrFloats(onnx::NodeProto& n, const std::string& name,
                                        const std::vector<float>& v) {
  auto& a = addAttr(n, name, onnx::AttributeProto::FLOATS);
  a.mutable_floats()->Add(v.begin(), v.end());
  return a;
}
inline onnx::AttributeProto& attrStrings(onnx::NodeProto& n, const std::string& name,
                                         const std::vector<std::string>& v) {
  auto& a = addAttr(n, name, onnx::AttributeProto::STRINGS);
  for (const auto& s : v) {
    a.add_strings(s);
  }
  return a;
}
inline onnx::AttributeProto& attrTensor(onnx::NodeProto& n, const std::string& name,
                                        const onnx::TensorProto& t) {
  auto& a = addAttr(n, name, onnx::AttributeProto::TENSOR);
  *a.mutable_t() = t;
  return a;
}

/// Gives \p tt a shape (present even when \p dims is empty: a scalar) of values, symbolic
/// names (dim_param) and unset dimensions.
inline void setShape(onnx::TypeProto::Tensor& tt, const std::vector<DimSpec>& dims) {
  auto* shape = tt.mutable_shape();
  for (const DimSpec& d : dims) {
    auto* dim = shape->add_dim();
    if (const int64_t* value = std::get_if<int64_t>(&d)) {
      dim->set_dim_value(*value);
    } else if (const std::string* param = std::get_if<std::string>(&d)) {
      dim->set_dim_param(*param);
    }
  }
}

class ModelBuilder {
public:
  explicit ModelBuilder(int64_t opset = 13, int64_t irVersion = 8) {
    model_.set_ir_version(irVersion);
    model_.set_producer_name("nnaccel-test");
    auto* imp = model_.add_opset_import();
    imp->set_domain("");
    imp->set_version(opset);
    model_.mutable_graph()->set_name("test_graph");
  }

  onnx::ValueInfoProto& input(const std::string& name, const std::vector<DimSpec>& dims,
                              int32_t elemType = onnx::TensorProto::FLOAT) {
    onnx::ValueInfoProto* v = graph().add_input();
    v->set_name(name);
    auto* tt = v->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(elemType);
    setShape(*tt, dims);
    return *v;
  }

  onnx::ValueInfoProto& output(const std::string& name,
                               int32_t elemType = onnx::TensorProto::FLOAT) {
    onnx::ValueInfoProto* v = graph().add_output();
    v->set_name(name);
    v->mutable_type()->mutable_tensor_type()->set_elem_type(elemType);
    return *v;
  }

  onnx::NodeProto& node(const std::string& opType, const std::vector<std::string>& inputs,
                        const std::vector<std::string>& outputs, const std::string& name = "") {
    onnx::NodeProto* n = graph().add_node();
    n->set_op_type(opType);
    n->set_name(name);
    for (const auto& in : inputs) {
      n->add_input(in);
    }
    for (const auto& out : outputs) {
      n->add_output(out);
    }
    return *n;
  }

  onnx::TensorProto& initializer(const onnx::TensorProto& t) {
    onnx::TensorProto* added = graph().add_initializer();
    *added = t;
    return *added;
  }

  onnx::ModelProto& proto() { return model_; }
  onnx::GraphProto& graph() { return *model_.mutable_graph(); }

  std::string bytes() const {
    std::string out;
    model_.SerializeToString(&out);
    return out;
  }

  ir::Graph import(const ImportOptions& options = {}) const {
    return importOnnxBytes(bytes(), "m.onnx", options);
  }

private:
  onnx::ModelProto model_;
};

/// Runs \p fn, which must throw nnaccel::Error, and returns that error (a test failure and a
/// placeholder error otherwise).
template <typename Fn> Error expectError(Fn&& fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e;
  }
  ADD_FAILURE() << "expected an nnaccel::Error";
  return Error(ErrorKind::Model, {}, "<no error thrown>");
}

/// The error importing \p b throws.
inline Error importError(const ModelBuilder& b, const ImportOptions& options = {}) {
  return expectError([&] { b.import(options); });
}

} // namespace nnaccel::frontend::testing
