/// \file
/// Node attributes: a typed map from ONNX attribute name to value.
///
/// Attributes are kept in ONNX form (names, types and defaults of the ONNX spec) so the
/// importer and exporter are lossless. Code that needs an op's *meaning* reads the resolved
/// parameter structs of OpParams.h instead of raw attributes.
#pragma once

#include "nnaccel/tensor/Tensor.h"

#include <map>
#include <string>
#include <variant>
#include <vector>

namespace nnaccel::ir {

using AttrValue = std::variant<int64_t, float, std::string, std::vector<int64_t>,
                               std::vector<float>, std::vector<std::string>, Tensor>;

/// "int", "float", "string", "ints", "floats", "strings", "tensor".
std::string_view attrTypeName(const AttrValue& v);

class AttrMap {
public:
  bool has(const std::string& name) const { return values_.count(name) != 0; }
  void set(const std::string& name, AttrValue v) { values_[name] = std::move(v); }
  void erase(const std::string& name) { values_.erase(name); }
  const std::map<std::string, AttrValue>& all() const { return values_; }
  bool empty() const { return values_.empty(); }

  /// Typed lookup. Returns nullptr if absent; throws nnaccel::Error (Model, key = name) if
  /// present with another type. The caller adds node context.
  template <typename T> const T* find(const std::string& name) const {
    auto it = values_.find(name);
    if (it == values_.end()) {
      return nullptr;
    }
    if (const T* p = std::get_if<T>(&it->second)) {
      return p;
    }
    throwTypeMismatch(name, it->second, typeid(T).name());
  }
  int64_t getInt(const std::string& name, int64_t dflt) const;
  float getFloat(const std::string& name, float dflt) const;
  std::string getString(const std::string& name, const std::string& dflt) const;
  std::vector<int64_t> getInts(const std::string& name, const std::vector<int64_t>& dflt) const;
  std::vector<float> getFloats(const std::string& name, const std::vector<float>& dflt) const;

  bool operator==(const AttrMap& o) const { return values_ == o.values_; }

private:
  [[noreturn]] static void throwTypeMismatch(const std::string& name, const AttrValue& v,
                                             const char* wanted);
  std::map<std::string, AttrValue> values_;
};

} // namespace nnaccel::ir
