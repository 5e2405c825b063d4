/// \file
/// The fixed framing of a systolic program file (.nnx), shared by the codec and its tests:
///
///   offset 0   8 bytes   magic "NNXSYS01"
///   offset 8   4 bytes   format version, little-endian (Program::kVersion)
///   offset 12  8 bytes   payload length N, little-endian
///   offset 20  N bytes   payload: the sections, zigzag LEB128 varints (IsaFields.h order)
///   offset 20+N 4 bytes  CRC-32 (IEEE 802.3, reflected, as zlib's crc32) of the payload, LE
///
/// The explicit payload length lets the reader tell a truncated file from trailing garbage
/// before it checks the CRC. The layout is documented in docs/arch/SystolicIsa.md.
#pragma once
#include <cstddef>
#include <cstdint>

namespace nnaccel::arch::systolic::format {

inline constexpr char kMagic[8] = {'N', 'N', 'X', 'S', 'Y', 'S', '0', '1'};
inline constexpr size_t kMagicBytes = 8;
inline constexpr size_t kVersionOffset = 8;
inline constexpr size_t kLengthOffset = 12;
inline constexpr size_t kPayloadOffset = 20;
inline constexpr size_t kCrcBytes = 4;

/// Section tags, written in this order before each section of the payload.
enum class Section : uint8_t {
  Config = 1,
  Header = 2,
  Tensors = 3,
  Segments = 4,
  Layers = 5,
  Instructions = 6,
};

/// CRC-32 (polynomial 0xEDB88320 reflected, initial value and final xor 0xFFFFFFFF).
uint32_t crc32(const uint8_t* data, size_t size);

} // namespace nnaccel::arch::systolic::format
