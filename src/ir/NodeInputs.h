/// \file
/// Private helpers of the ir module for reading a node's inputs and attributes with errors that
/// name the node: present/optional inputs, compile-time-constant parameter inputs, axis
/// normalization, overflow-checked products, message formatting and attaching node context to
/// attribute errors. Shared by OpParams.cpp, ShapeInference.cpp, ShapeOps.cpp and Verifier.cpp
/// so that they report the same messages.
#pragma once

#include "nnaccel/ir/Graph.h"

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace nnaccel::ir::detail {

/// Largest extent (dimension, stride, pad, kernel, dilation) nnaccel accepts; larger values in
/// a model are rejected before any arithmetic on them can overflow.
inline constexpr int64_t kMaxExtent = (int64_t{1} << 31) - 1;
/// Bound of the element-count arithmetic on model-provided shapes (a Reshape target, an
/// inferred output): products above it are reported before they can overflow int64. The
/// supported tensor size, ir::kMaxTensorElements, is smaller.
inline constexpr int64_t kMaxElements = int64_t{1} << 40;

/// Product of dims that are already validated (inferred shapes, constant data, a sub-range of
/// them); asserts that it stays within kMaxElements. Model-provided numbers go through
/// ir::checkedProduct (ShapeOps.h) instead.
int64_t product(std::span<const int64_t> dims);
inline int64_t product(Dims::const_iterator begin, Dims::const_iterator end) {
  return product(std::span<const int64_t>(begin, end));
}

/// "'name'" (values, attributes and inputs are quoted in messages).
std::string quoted(const std::string& s);
/// Decimal text of \p v.
std::string str(int64_t v);

/// Copies element \p src of \p from to element \p dst of \p to (same dtype, bytewise).
void copyElement(const Tensor& from, int64_t src, Tensor& to, int64_t dst);

/// Throws Model "<what> value v is too large" unless |v| <= kMaxExtent for every value.
void requireExtents(const Graph& g, NodeId id, const std::vector<int64_t>& values,
                    std::string_view what);

/// Input \p index of node \p id, or nullptr if it is omitted (absent or kNoValue).
const Value* optionalInput(const Graph& g, NodeId id, size_t index);

/// Input \p index, which must be present and have a known shape; \p role names it in errors
/// (e.g. "weight").
const Value& requiredInput(const Graph& g, NodeId id, size_t index, std::string_view role);

/// The data of parameter input \p index (a Reshape shape, Pad pads, Resize scales, ...), or
/// nullptr if the input is omitted. Throws Error(Unsupported) "<role> input 'x' is not a
/// constant" if it is present but not a compile-time constant (nnaccel is static-shape).
const Tensor* constantInput(const Graph& g, NodeId id, size_t index, std::string_view role);

/// As constantInput, but the input must be present.
const Tensor& requiredConstantInput(const Graph& g, NodeId id, size_t index, std::string_view role);

/// Elements of an integer parameter tensor (rank 0 or 1); throws Model for a float tensor or a
/// higher rank.
std::vector<int64_t> intValues(const Graph& g, NodeId id, const Tensor& t, std::string_view role);

/// Normalizes \p axis from [-rank, rank) to [0, rank); throws Model naming \p what otherwise.
int64_t normalizeAxis(const Graph& g, NodeId id, int64_t axis, int64_t rank, std::string_view what);

/// A required integer attribute; throws Model "missing required attribute 'name'".
int64_t requiredIntAttr(const Graph& g, NodeId id, const std::string& name);
/// A required ints attribute.
std::vector<int64_t> requiredIntsAttr(const Graph& g, NodeId id, const std::string& name);

/// "[1, 2, 3]".
std::string listToString(const std::vector<int64_t>& values);
/// "[0.5, 2]".
std::string listToString(const std::vector<float>& values);

/// Runs \p f and re-throws any nnaccel::Error it raises with node \p id's context filled in
/// (attribute type errors from AttrMap only carry the attribute name).
template <typename F> auto withNodeContext(const Graph& g, NodeId id, F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const Error& e) {
    throw e.withContext(g.contextOf(id));
  }
}

} // namespace nnaccel::ir::detail
