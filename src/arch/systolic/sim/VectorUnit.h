/// \file
/// The arithmetic of the pooling engine's vector unit (VECTOR, Isa.h), private to the simulator.
///
/// Why its own file: every function must reproduce the int8 reference executor bit for bit, so
/// each element is computed with the quant module's scalar rules (quant::addSubOperand,
/// addSubRescaled, mulValue, requantize; docs/Quantization.md) and nothing else; keeping that in
/// one small place makes the correspondence easy to check.
#pragma once
#include "nnaccel/arch/systolic/Isa.h"
#include "nnaccel/quant/Requantize.h"

#include <cstdint>
#include <optional>
#include <span>

namespace nnaccel::arch::systolic::detail {

/// One element's operands (b: binary functions; c: Select and SelectNot).
struct VectorOperands {
  int8_t a = 0, b = 0, c = 0;
};

/// One element of \p v from operands \p x and the partition's lookup table \p table
/// (kLookupTableBytes int8 entries), clamped to [clampLo, clampHi]; nullopt when an Add/Sub
/// intermediate leaves int32 (only a program whose multipliers the quantizer did not make).
std::optional<int8_t> vectorElement(const Vector& v, const VectorOperands& x, const int8_t* table,
                                    quant::Rounding rounding);

/// Applies \p v to one partition: \p part is the partition's SBUF bytes, \p table its lookup
/// table, \p expTable the Softmax exponentials read from the pool table (quant::kLookupEntries
/// values); every multiplier rounds as \p rounding (the program's rule). Every operand is read
/// before any result is written (dst may overlap a or b).
/// Returns false, writing nothing, when an element's intermediate leaves int32.
bool vectorPartition(const Vector& v, uint8_t* part, const int8_t* table,
                     std::span<const int32_t> expTable, quant::Rounding rounding);

} // namespace nnaccel::arch::systolic::detail
