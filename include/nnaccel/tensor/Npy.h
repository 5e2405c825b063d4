/// \file
/// Reading and writing NumPy .npy files (the format of `nnaccel run --input/--output`).
///
/// Supported: format versions 1.0 and 2.0 on read (1.0 on write), C order, little-endian
/// element types `<f4` (f32), `|i1` (s8), `|u1` (u8), `<i4` (s32), `<i8` (s64) and `|b1`
/// (bool). A file in Fortran order is a well-formed file nnaccel does not handle:
/// Error(Unsupported). Anything malformed or outside the list above (bad magic, truncated
/// header or data, trailing bytes, an unparsable header, an element type such as `<f8` or
/// `>f4`, a bool byte other than 0/1) is Error(Io) naming the file and the reason.
#pragma once

#include "nnaccel/tensor/Tensor.h"

#include <string>
#include <string_view>

namespace nnaccel {

/// Reads the .npy file \p path.
Tensor readNpy(const std::string& path);
/// Parses \p bytes, the contents of an .npy file; errors name \p origin (readNpy's parser,
/// and the fuzz target's entry point).
Tensor parseNpy(std::string_view bytes, const std::string& origin);
/// Writes \p t to \p path as an .npy file (version 1.0). Throws Error(Io) if it cannot.
void writeNpy(const std::string& path, const Tensor& t);

} // namespace nnaccel
