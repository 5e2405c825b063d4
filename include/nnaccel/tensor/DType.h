/// \file
/// Element types nnaccel tensors can hold.
///
/// The set is what CNN inference needs end to end: fp32 activations and weights, int8/uint8
/// quantized data, int32 accumulators and biases, int64 shape tensors, bool masks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace nnaccel {

enum class DType : uint8_t { F32, I8, U8, I32, I64, Bool };

/// Bytes per element.
std::size_t dtypeSizeBytes(DType t);
/// Short lowercase name: "f32", "s8", "u8", "s32", "s64", "bool".
std::string_view dtypeName(DType t);

/// Compile-time mapping from C++ element type to DType.
template <typename T> struct DTypeOf;
template <> struct DTypeOf<float> { static constexpr DType value = DType::F32; };
template <> struct DTypeOf<int8_t> { static constexpr DType value = DType::I8; };
template <> struct DTypeOf<uint8_t> { static constexpr DType value = DType::U8; };
template <> struct DTypeOf<int32_t> { static constexpr DType value = DType::I32; };
template <> struct DTypeOf<int64_t> { static constexpr DType value = DType::I64; };
template <> struct DTypeOf<bool> { static constexpr DType value = DType::Bool; };

} // namespace nnaccel
