// Tensor storage, shape helpers and dtype conversions.
#include "nnaccel/tensor/Tensor.h"

#include "nnaccel/support/MemoryBudget.h"

#include <cmath>
#include <cstring>
#include <limits>

namespace nnaccel {

std::size_t dtypeSizeBytes(DType t) {
  switch (t) {
  case DType::F32:
  case DType::I32:
    return 4;
  case DType::I8:
  case DType::U8:
  case DType::Bool:
    return 1;
  case DType::I64:
    return 8;
  }
  NNACCEL_UNREACHABLE("bad dtype");
  return 0;
}

std::string_view dtypeName(DType t) {
  switch (t) {
  case DType::F32:
    return "f32";
  case DType::I8:
    return "s8";
  case DType::U8:
    return "u8";
  case DType::I32:
    return "s32";
  case DType::I64:
    return "s64";
  case DType::Bool:
    return "bool";
  }
  NNACCEL_UNREACHABLE("bad dtype");
  return "";
}

int64_t numElements(const Dims& dims) {
  int64_t n = 1;
  for (int64_t d : dims) {
    NNACCEL_ASSERT(d >= 0) << "negative dimension in " << dimsToString(dims);
    n *= d;
  }
  return n;
}

std::string dimsToString(const Dims& dims) {
  if (dims.empty()) {
    return "scalar";
  }
  std::string s;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i) {
      s += 'x';
    }
    s += std::to_string(dims[i]);
  }
  return s;
}

Dims rowMajorStrides(const Dims& dims) {
  Dims strides(dims.size(), 1);
  for (size_t i = dims.size(); i-- > 1;) {
    strides[i - 1] = strides[i] * dims[i];
  }
  return strides;
}

namespace {
/// The bytes of a \p dtype tensor of \p shape, refused beyond the memory budget before anything
/// is allocated.
size_t budgetedBytes(DType dtype, const Dims& shape) {
  const auto bytes = static_cast<uint64_t>(nnaccel::numElements(shape)) * dtypeSizeBytes(dtype);
  if (bytes > memoryBudgetBytes())
    requireMemory(bytes,
                  "a " + std::string(dtypeName(dtype)) + " tensor of " + dimsToString(shape));
  return static_cast<size_t>(bytes);
}
} // namespace

Tensor::Tensor(DType dtype, Dims shape)
    : dtype_(dtype), shape_(std::move(shape)), bytes_(budgetedBytes(dtype_, shape_)) {}

Tensor Tensor::reshaped(Dims newShape) const {
  NNACCEL_ASSERT(nnaccel::numElements(newShape) == numElements())
      << "reshape " << dimsToString(shape_) << " -> " << dimsToString(newShape);
  Tensor t = *this;
  t.shape_ = std::move(newShape);
  return t;
}

namespace {
template <typename F> auto visitElement(const Tensor& t, int64_t i, F&& f) {
  switch (t.dtype()) {
  case DType::F32:
    return f(t.data<float>()[i]);
  case DType::I8:
    return f(t.data<int8_t>()[i]);
  case DType::U8:
    return f(t.data<uint8_t>()[i]);
  case DType::I32:
    return f(t.data<int32_t>()[i]);
  case DType::I64:
    return f(t.data<int64_t>()[i]);
  case DType::Bool:
    return f(t.data<bool>()[i]);
  }
  NNACCEL_UNREACHABLE("bad dtype");
  return f(0);
}

template <typename T>
void storeElement(Tensor& t, int64_t i, double v, int64_t iv, bool fromFloat) {
  if constexpr (std::is_same_v<T, float>) {
    t.data<T>()[i] = fromFloat ? static_cast<float>(v) : static_cast<float>(iv);
  } else if constexpr (std::is_same_v<T, bool>) {
    t.data<T>()[i] = fromFloat ? (v != 0.0) : (iv != 0);
  } else if (fromFloat) {
    // Out-of-range float-to-int conversion is undefined behaviour in C++ (and unspecified in
    // ONNX Cast): truncate toward zero, then saturate to the target range; NaN becomes 0.
    const double lo = static_cast<double>(std::numeric_limits<T>::min());
    const double hi = static_cast<double>(std::numeric_limits<T>::max());
    const double tv = std::trunc(v);
    t.data<T>()[i] = std::isnan(v) ? T{0}
                     : tv <= lo    ? std::numeric_limits<T>::min()
                     : tv >= hi    ? std::numeric_limits<T>::max()
                                   : static_cast<T>(tv);
  } else {
    t.data<T>()[i] = static_cast<T>(iv); // integer narrowing wraps (well defined in C++20)
  }
}
} // namespace

double Tensor::elementAsDouble(int64_t i) const {
  NNACCEL_ASSERT(i >= 0 && i < numElements());
  return visitElement(*this, i, [](auto v) { return static_cast<double>(v); });
}

int64_t Tensor::elementAsInt64(int64_t i) const {
  NNACCEL_ASSERT(i >= 0 && i < numElements());
  return visitElement(*this, i, [](auto v) { return static_cast<int64_t>(v); });
}

std::vector<int64_t> Tensor::toInt64Vector() const {
  NNACCEL_ASSERT(dtype_ != DType::F32) << "toInt64Vector on a float tensor";
  std::vector<int64_t> out(static_cast<size_t>(numElements()));
  for (int64_t i = 0; i < numElements(); ++i) {
    out[static_cast<size_t>(i)] = elementAsInt64(i);
  }
  return out;
}

Tensor Tensor::castTo(DType to) const {
  Tensor out(to, shape_);
  const bool fromFloat = dtype_ == DType::F32;
  for (int64_t i = 0; i < numElements(); ++i) {
    const double v = fromFloat ? elementAsDouble(i) : 0.0;
    const int64_t iv = fromFloat ? 0 : elementAsInt64(i);
    switch (to) {
    case DType::F32:
      storeElement<float>(out, i, v, iv, fromFloat);
      break;
    case DType::I8:
      storeElement<int8_t>(out, i, v, iv, fromFloat);
      break;
    case DType::U8:
      storeElement<uint8_t>(out, i, v, iv, fromFloat);
      break;
    case DType::I32:
      storeElement<int32_t>(out, i, v, iv, fromFloat);
      break;
    case DType::I64:
      storeElement<int64_t>(out, i, v, iv, fromFloat);
      break;
    case DType::Bool:
      storeElement<bool>(out, i, v, iv, fromFloat);
      break;
    }
  }
  return out;
}

} // namespace nnaccel
