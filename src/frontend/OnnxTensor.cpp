// TensorProto <-> Tensor conversion with full validation of element type, dims and data size
// (see OnnxTensor.h). Every byte read from a TensorProto is bounds-checked here first.
#include "OnnxTensor.h"

#include "nnaccel/tensor/Half.h"

#include <bit>
#include <cctype>
#include <cstring>
#include <limits>

namespace nnaccel::frontend::detail {

static_assert(std::endian::native == std::endian::little,
              "ONNX raw_data is little-endian; a big-endian host would need byte swapping");

namespace {

// Guards the element-count product (and count * element size) against int64 overflow. Real
// data is bounded far lower by the 2 GiB protobuf limit; the data-length check does the rest.
constexpr int64_t kMaxElements = std::numeric_limits<int64_t>::max() / 16;

/// Copies the values of the typed field \p field (already checked to hold one per element) into
/// \p out, each checked by \p inRange (int8/uint8/bool are stored widened in int32_data).
template <typename T, typename Field, typename RangeCheck, typename Fail>
void copyTypedValues(Tensor& out, const Field& field, const char* fieldName, RangeCheck inRange,
                     const Fail& fail) {
  NNACCEL_ASSERT(static_cast<int64_t>(field.size()) == out.numElements()) << fieldName;
  T* dst = out.data<T>();
  for (int i = 0; i < field.size(); ++i) {
    const auto v = field.Get(i);
    if (!inRange(v)) {
      fail(ErrorKind::Model, std::string(fieldName) + " value " + std::to_string(i) + " is " +
                                 std::to_string(v) + ", outside the range of " +
                                 std::string(dtypeName(out.dtype())));
    }
    dst[i] = static_cast<T>(v);
  }
}

/// Throws the tensor's error: \p what (which tensor) + reason, in \p context.
struct TensorFail {
  const ErrorContext& context;
  const std::string& what;
  [[noreturn]] void operator()(ErrorKind kind, const std::string& reason) const {
    throw Error(kind, context, what.empty() ? reason : what + " " + reason);
  }
};

template <typename Lo, typename Hi> auto rangeCheck(Lo lo, Hi hi) {
  return [lo, hi](auto v) { return v >= lo && v <= hi; };
}
constexpr auto kAnyValue = [](auto) { return true; };

/// Number of values in the typed fields other than \p expected (a mismatch means the writer
/// put the data in the wrong field).
int64_t valuesOutside(const onnx::TensorProto& p, const void* expected) {
  int64_t n = 0;
  auto add = [&](const auto& field) {
    if (static_cast<const void*>(&field) != expected) {
      n += field.size();
    }
  };
  add(p.float_data());
  add(p.int32_data());
  add(p.int64_data());
  add(p.double_data());
  add(p.uint64_data());
  add(p.string_data());
  return n;
}

/// A float16 tensor widened to fp32: two little-endian bytes per value in raw_data, or one
/// value's bits per entry of int32_data (ONNX's layout for float16).
Tensor halfTensorFromProto(const onnx::TensorProto& proto, Dims dims, int64_t count,
                           const TensorFail& fail) {
  const bool raw = proto.has_raw_data();
  if (valuesOutside(proto, raw ? nullptr : &proto.int32_data()) > 0) {
    fail(ErrorKind::Model, "has values in a typed data field that does not match element type "
                           "float16");
  }
  const int64_t given =
      raw ? static_cast<int64_t>(proto.raw_data().size()) / 2 : proto.int32_data_size();
  if (given != count || (raw && proto.raw_data().size() % 2 != 0)) {
    fail(ErrorKind::Model, "has " + std::to_string(raw ? proto.raw_data().size() : given) +
                               (raw ? " bytes of raw_data" : " values in int32_data") +
                               ", expected " + std::to_string(raw ? 2 * count : count) +
                               " for float16 shape " + dimsToString(dims));
  }
  Tensor t(DType::F32, std::move(dims));
  float* out = t.data<float>();
  for (int64_t i = 0; i < count; ++i) {
    uint32_t bits = 0;
    if (raw) {
      const auto* b = reinterpret_cast<const unsigned char*>(proto.raw_data().data()) + 2 * i;
      bits = b[0] | (uint32_t{b[1]} << 8);
    } else {
      bits = static_cast<uint32_t>(proto.int32_data(static_cast<int>(i)));
      if (bits > 0xffffu) {
        fail(ErrorKind::Model, "has float16 element " + std::to_string(i) + " = " +
                                   std::to_string(proto.int32_data(static_cast<int>(i))) +
                                   " in int32_data; expected a 16-bit pattern");
      }
    }
    out[i] = halfBitsToFloat(static_cast<uint16_t>(bits));
  }
  return t;
}

} // namespace

std::optional<DType> dtypeFromOnnx(int32_t elemType) {
  switch (elemType) {
  case onnx::TensorProto::FLOAT:
  case onnx::TensorProto::FLOAT16: // widened to fp32 (tensor/Half.h, docs/IR.md)
    return DType::F32;
  case onnx::TensorProto::INT8:
    return DType::I8;
  case onnx::TensorProto::UINT8:
    return DType::U8;
  case onnx::TensorProto::INT32:
    return DType::I32;
  case onnx::TensorProto::INT64:
    return DType::I64;
  case onnx::TensorProto::BOOL:
    return DType::Bool;
  default:
    return std::nullopt;
  }
}

int32_t onnxFromDType(DType t) {
  switch (t) {
  case DType::F32:
    return onnx::TensorProto::FLOAT;
  case DType::I8:
    return onnx::TensorProto::INT8;
  case DType::U8:
    return onnx::TensorProto::UINT8;
  case DType::I32:
    return onnx::TensorProto::INT32;
  case DType::I64:
    return onnx::TensorProto::INT64;
  case DType::Bool:
    return onnx::TensorProto::BOOL;
  }
  NNACCEL_UNREACHABLE("bad dtype");
  return 0;
}

std::string onnxTypeName(int32_t elemType) {
  if (elemType == onnx::TensorProto::UNDEFINED) {
    return "undefined";
  }
  if (!onnx::TensorProto_DataType_IsValid(elemType)) {
    return "data type " + std::to_string(elemType);
  }
  std::string name =
      onnx::TensorProto_DataType_Name(static_cast<onnx::TensorProto_DataType>(elemType));
  for (char& c : name) {
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return name;
}

Tensor tensorFromProto(const onnx::TensorProto& proto, const ErrorContext& context,
                       const std::string& what) {
  const TensorFail fail{context, what};
  if (proto.data_location() == onnx::TensorProto::EXTERNAL || proto.external_data_size() > 0) {
    fail(ErrorKind::Unsupported, "uses external data, which nnaccel does not read (save the "
                                 "model with all tensors embedded)");
  }
  if (proto.has_segment()) {
    fail(ErrorKind::Unsupported, "is segmented, which nnaccel does not support");
  }
  const std::optional<DType> dtype = dtypeFromOnnx(proto.data_type());
  if (!dtype) {
    if (proto.data_type() == onnx::TensorProto::UNDEFINED) {
      fail(ErrorKind::Model, "has no element type");
    }
    fail(ErrorKind::Unsupported, "has element type " + onnxTypeName(proto.data_type()) +
                                     ", which nnaccel does not support (supported: float, "
                                     "float16, int8, uint8, int32, int64, bool)");
  }

  Dims dims(proto.dims().begin(), proto.dims().end());
  int64_t count = 1;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] < 0) {
      fail(ErrorKind::Model, "has dimension " + std::to_string(i) + " = " +
                                 std::to_string(dims[i]) + "; dimensions must be non-negative");
    }
    if (__builtin_mul_overflow(count, dims[i], &count) || count > kMaxElements) {
      fail(ErrorKind::Model, "has dims " + dimsToString(dims) + " whose element count overflows");
    }
  }

  if (proto.data_type() == onnx::TensorProto::FLOAT16) {
    return halfTensorFromProto(proto, std::move(dims), count, fail);
  }
  if (proto.has_raw_data()) {
    if (valuesOutside(proto, nullptr) > 0) {
      fail(ErrorKind::Model, "has both raw_data and typed data fields");
    }
    const std::string& raw = proto.raw_data();
    const auto expectedBytes = static_cast<uint64_t>(count) * dtypeSizeBytes(*dtype);
    if (raw.size() != expectedBytes) {
      fail(ErrorKind::Model, "has " + std::to_string(raw.size()) + " bytes of raw_data, expected " +
                                 std::to_string(expectedBytes) + " for " +
                                 std::string(dtypeName(*dtype)) + " shape " + dimsToString(dims));
    }
    Tensor t(*dtype, std::move(dims));
    if (!raw.empty()) {
      std::memcpy(t.rawData(), raw.data(), raw.size());
    }
    if (*dtype == DType::Bool) {
      // Any byte but 0/1 would be an invalid bool object (undefined behaviour to read).
      for (size_t i = 0; i < raw.size(); ++i) {
        const auto b = static_cast<unsigned char>(raw[i]);
        if (b > 1) {
          fail(ErrorKind::Model, "has bool element " + std::to_string(i) + " = " +
                                     std::to_string(b) + " in raw_data; expected 0 or 1");
        }
      }
    }
    return t;
  }

  const void* expectedField = nullptr;
  const char* fieldName = "";
  int64_t given = 0;
  switch (*dtype) {
  case DType::F32:
    expectedField = &proto.float_data();
    fieldName = "float_data";
    given = proto.float_data_size();
    break;
  case DType::I64:
    expectedField = &proto.int64_data();
    fieldName = "int64_data";
    given = proto.int64_data_size();
    break;
  case DType::I8:
  case DType::U8:
  case DType::I32:
  case DType::Bool:
    expectedField = &proto.int32_data();
    fieldName = "int32_data";
    given = proto.int32_data_size();
    break;
  }
  if (valuesOutside(proto, expectedField) > 0) {
    fail(ErrorKind::Model, "has values in a typed data field that does not match element type " +
                               onnxTypeName(proto.data_type()));
  }
  // Checked before allocating: the dims alone may claim an enormous tensor.
  if (given != count) {
    fail(ErrorKind::Model, "has " + std::to_string(given) + " values in " + fieldName +
                               ", expected " + std::to_string(count) + " for shape " +
                               dimsToString(dims));
  }
  Tensor t(*dtype, std::move(dims));
  switch (*dtype) {
  case DType::F32:
    copyTypedValues<float>(t, proto.float_data(), "float_data", kAnyValue, fail);
    break;
  case DType::I64:
    copyTypedValues<int64_t>(t, proto.int64_data(), "int64_data", kAnyValue, fail);
    break;
  case DType::I32:
    copyTypedValues<int32_t>(t, proto.int32_data(), "int32_data", kAnyValue, fail);
    break;
  case DType::I8:
    copyTypedValues<int8_t>(t, proto.int32_data(), "int32_data", rangeCheck(-128, 127), fail);
    break;
  case DType::U8:
    copyTypedValues<uint8_t>(t, proto.int32_data(), "int32_data", rangeCheck(0, 255), fail);
    break;
  case DType::Bool:
    copyTypedValues<bool>(t, proto.int32_data(), "int32_data", rangeCheck(0, 1), fail);
    break;
  }
  return t;
}

void tensorToProto(const Tensor& tensor, onnx::TensorProto& proto) {
  proto.set_data_type(onnxFromDType(tensor.dtype()));
  proto.clear_dims();
  for (int64_t d : tensor.shape()) {
    proto.add_dims(d);
  }
  proto.set_raw_data(reinterpret_cast<const char*>(tensor.rawData()), tensor.sizeBytes());
}

} // namespace nnaccel::frontend::detail
