/// \file
/// A dense, row-major (NCHW for images) tensor with an element type and a shape.
///
/// Tensor is a plain value type: copying copies the data. Graph constants are held as
/// `std::shared_ptr<const Tensor>` so large weights are shared rather than copied.
/// Typed access (`data<float>()`) asserts that the element type matches.
#pragma once

#include "nnaccel/support/Error.h"
#include "nnaccel/tensor/DType.h"

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace nnaccel {

/// Tensor dimensions. Every dimension of a materialized tensor is >= 0.
using Dims = std::vector<int64_t>;

/// Product of \p dims (1 for a scalar). Asserts on negative dims.
int64_t numElements(const Dims& dims);
/// "1x3x224x224" ("scalar" for rank 0).
std::string dimsToString(const Dims& dims);
/// Row-major strides in elements.
Dims rowMajorStrides(const Dims& dims);

class Tensor {
public:
  Tensor() = default;
  /// Zero-filled tensor.
  Tensor(DType dtype, Dims shape);

  /// Tensor from typed values; asserts values.size() == numElements(shape).
  template <typename T> static Tensor fromVector(Dims shape, const std::vector<T>& values) {
    Tensor t(DTypeOf<T>::value, std::move(shape));
    NNACCEL_ASSERT(static_cast<int64_t>(values.size()) == t.numElements())
        << "fromVector: " << values.size() << " values for shape " << dimsToString(t.shape());
    T* dst = t.data<T>();
    for (size_t i = 0; i < values.size(); ++i) {
      dst[i] = values[i];
    }
    return t;
  }
  /// Rank-0 tensor holding \p v.
  template <typename T> static Tensor scalar(T v) { return fromVector<T>({}, {v}); }

  DType dtype() const { return dtype_; }
  const Dims& shape() const { return shape_; }
  int64_t rank() const { return static_cast<int64_t>(shape_.size()); }
  int64_t dim(int64_t i) const { return shape_.at(static_cast<size_t>(i)); }
  int64_t numElements() const { return nnaccel::numElements(shape_); }
  std::size_t sizeBytes() const { return bytes_.size(); }

  template <typename T> T* data() {
    NNACCEL_ASSERT(DTypeOf<T>::value == dtype_)
        << "tensor holds " << dtypeName(dtype_) << ", accessed as " << dtypeName(DTypeOf<T>::value);
    return reinterpret_cast<T*>(bytes_.data());
  }
  template <typename T> const T* data() const {
    NNACCEL_ASSERT(DTypeOf<T>::value == dtype_)
        << "tensor holds " << dtypeName(dtype_) << ", accessed as " << dtypeName(DTypeOf<T>::value);
    return reinterpret_cast<const T*>(bytes_.data());
  }
  template <typename T> std::span<T> values() {
    return {data<T>(), static_cast<size_t>(numElements())};
  }
  template <typename T> std::span<const T> values() const {
    return {data<T>(), static_cast<size_t>(numElements())};
  }
  std::byte* rawData() { return bytes_.data(); }
  const std::byte* rawData() const { return bytes_.data(); }

  /// Same data viewed with another shape of equal element count.
  Tensor reshaped(Dims newShape) const;
  /// Element \p i converted to double / int64 whatever the dtype (for shape math and printing).
  double elementAsDouble(int64_t i) const;
  int64_t elementAsInt64(int64_t i) const;
  /// All elements converted to int64 (shape tensors); asserts integer dtype.
  std::vector<int64_t> toInt64Vector() const;
  /// Element-wise copy converted to \p to (float<->int conversions truncate toward zero, as
  /// ONNX Cast does; used for shape/constant folding, not for quantization).
  Tensor castTo(DType to) const;

  bool operator==(const Tensor& o) const {
    return dtype_ == o.dtype_ && shape_ == o.shape_ && bytes_ == o.bytes_;
  }

private:
  DType dtype_ = DType::F32;
  Dims shape_;
  std::vector<std::byte> bytes_;
};

} // namespace nnaccel
