/// \file
/// IEEE 754 binary16 ("float16", ONNX element type 10) as nnaccel holds it: widened to fp32 on
/// import (every half is exactly an fp32 value), and rounded back to half precision where a
/// model casts to float16. Arithmetic stays fp32 (docs/IR.md, "float16 models").
#pragma once

#include <cstdint>

namespace nnaccel {

/// The fp32 value of the binary16 bit pattern \p bits (exact; NaN and infinities kept).
float halfBitsToFloat(uint16_t bits);

/// \p x rounded to the nearest binary16 value (ties to even), returned as fp32: values beyond
/// the largest half (65504) become infinities, tiny ones half subnormals or zero, NaN stays NaN.
float roundToHalf(float x);

} // namespace nnaccel
