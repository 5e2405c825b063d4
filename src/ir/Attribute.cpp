// Typed attribute access with errors that name the attribute.
#include "nnaccel/ir/Attribute.h"

namespace nnaccel::ir {

std::string_view attrTypeName(const AttrValue& v) {
  static constexpr std::string_view kNames[] = {"int",    "float",   "string", "ints",
                                                "floats", "strings", "tensor"};
  return kNames[v.index()];
}

void AttrMap::throwTypeMismatch(const std::string& name, const AttrValue& v, const char*) {
  throw Error(ErrorKind::Model, ErrorContext{.key = name},
              "attribute has type " + std::string(attrTypeName(v)) +
                  ", which this op does not accept");
}

int64_t AttrMap::getInt(const std::string& name, int64_t dflt) const {
  const int64_t* p = find<int64_t>(name);
  return p ? *p : dflt;
}

float AttrMap::getFloat(const std::string& name, float dflt) const {
  auto it = values_.find(name);
  if (it == values_.end()) {
    return dflt;
  }
  // Some exporters write integral values of float attributes as ints; accept both.
  if (const int64_t* i = std::get_if<int64_t>(&it->second)) {
    return static_cast<float>(*i);
  }
  const float* p = find<float>(name);
  return *p;
}

std::string AttrMap::getString(const std::string& name, const std::string& dflt) const {
  const std::string* p = find<std::string>(name);
  return p ? *p : dflt;
}

std::vector<int64_t> AttrMap::getInts(const std::string& name,
                                      const std::vector<int64_t>& dflt) const {
  const auto* p = find<std::vector<int64_t>>(name);
  return p ? *p : dflt;
}

std::vector<float> AttrMap::getFloats(const std::string& name,
                                      const std::vector<float>& dflt) const {
  const auto* p = find<std::vector<float>>(name);
  return p ? *p : dflt;
}

} // namespace nnaccel::ir
