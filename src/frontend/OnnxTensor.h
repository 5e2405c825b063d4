// Conversion between onnx::TensorProto / element types and nnaccel::Tensor / DType.
// Private to the ONNX frontend: the importer (initializers, TENSOR attributes, Constant nodes),
// readTensorProtoFile and the exporter all go through these functions, so the size and type
// checks that keep a corrupted file from being read out of bounds live in exactly one place.
#pragma once

#include "nnaccel/support/Error.h"
#include "nnaccel/tensor/Tensor.h"

#include <onnx/onnx_pb.h>
#include <optional>
#include <string>

namespace nnaccel::frontend::detail {

/// The DType for an ONNX TensorProto::DataType value; nullopt for types nnaccel does not hold.
std::optional<DType> dtypeFromOnnx(int32_t elemType);
/// The ONNX TensorProto::DataType for \p t.
int32_t onnxFromDType(DType t);
/// Lower-case ONNX spelling of an element type for messages ("float16"), or "data type N".
std::string onnxTypeName(int32_t elemType);

/// Converts \p proto to a Tensor, validating element type, dims and data length. On any
/// problem throws nnaccel::Error with \p context and a reason prefixed by \p what (e.g.
/// "initializer 'w'"; may be empty).
Tensor tensorFromProto(const onnx::TensorProto& proto, const ErrorContext& context,
                       const std::string& what);

/// Writes \p tensor into \p proto (dims, data_type, little-endian raw_data). The name is left
/// to the caller.
void tensorToProto(const Tensor& tensor, onnx::TensorProto& proto);

} // namespace nnaccel::frontend::detail
