/// \file
/// VECTOR's element rules and per-partition loop (VectorUnit.h).
#include "VectorUnit.h"

#include "nnaccel/quant/Kernels.h"
#include "nnaccel/quant/Requantize.h"

#include <algorithm>
#include <vector>

namespace nnaccel::arch::systolic::detail {
namespace {

quant::QuantMultiplier multiplier(int32_t m, int32_t shift, quant::Rounding rounding) {
  return quant::QuantMultiplier{m, shift, rounding};
}

/// Add/Sub by quant::addSubValue's two stages, with the int32 range of a' +- b' checked here
/// (addSubRescaled asserts it; a program from a file must fail with an error instead).
std::optional<int8_t> addSub(const Vector& v, int8_t a, int8_t b, quant::Rounding rounding) {
  // A difference q - z (|q - z| <= 255) shifted left fits int32 up to 2^23; the validator
  // refuses more, and a program that slips past fails here instead of overflowing.
  if ((v.aZero != 0 || v.bZero != 0) && v.leftShift > kMaxZeroPointLeftShift)
    return std::nullopt;
  const int64_t ra =
      quant::addSubOperand(a - v.aZero, v.leftShift, multiplier(v.aMultiplier, v.aShift, rounding));
  const int64_t rb =
      quant::addSubOperand(b - v.bZero, v.leftShift, multiplier(v.bMultiplier, v.bShift, rounding));
  const bool subtract = v.func == VectorFunc::Sub;
  const int64_t sum = subtract ? ra - rb : ra + rb;
  if (sum < INT32_MIN || sum > INT32_MAX)
    return std::nullopt;
  return quant::addSubRescaled(subtract, ra, rb, multiplier(v.outMultiplier, v.outShift, rounding),
                               v.outZero);
}

/// The function before the final clamp.
std::optional<int8_t> apply(const Vector& v, const VectorOperands& x, const int8_t* table,
                            quant::Rounding rounding) {
  const quant::QuantMultiplier out = multiplier(v.outMultiplier, v.outShift, rounding);
  const int8_t a = x.a, b = x.b;
  const int32_t da = a - v.aZero, db = b - v.bZero; // the differences every rule computes on
  const quant::ZeroPoints z{{v.aZero, v.bZero, 0}, v.outZero};
  switch (v.func) {
  case VectorFunc::Clamp:
    return a;
  case VectorFunc::Lookup:
    return table[a + 128];
  case VectorFunc::Add:
  case VectorFunc::Sub:
    return addSub(v, a, b, rounding);
  case VectorFunc::Mul:
    return quant::mulValue(out, da, db, v.outZero);
  case VectorFunc::Div:
    return quant::divValue(out, da, db, v.outZero);
  case VectorFunc::Softmax:
    break; // a whole line per row: softmaxRows
  case VectorFunc::Requantize:
    return static_cast<int8_t>(quant::requantizeTo(da, out, v.outZero));
  case VectorFunc::Min:
  case VectorFunc::Max:
    return quant::minMaxValue(v.func == VectorFunc::Max,
                              multiplier(v.aMultiplier, v.aShift, rounding),
                              multiplier(v.bMultiplier, v.bShift, rounding), a, b, z);
  case VectorFunc::Equal:
  case VectorFunc::Greater:
  case VectorFunc::Less:
  case VectorFunc::GreaterOrEqual:
  case VectorFunc::LessOrEqual: {
    // The comparisons in VectorFunc order, which is quant::Comparison's.
    const auto c = static_cast<quant::Comparison>(static_cast<int>(v.func) -
                                                  static_cast<int>(VectorFunc::Equal));
    return quant::compareValue(c, multiplier(v.aMultiplier, v.aShift, rounding),
                               multiplier(v.bMultiplier, v.bShift, rounding), a, b, v.aZero,
                               v.bZero);
  }
  case VectorFunc::Select:
  case VectorFunc::SelectNot: {
    // quant::select: the then-operand B where the condition holds (SelectNot: where it does not).
    const bool pickB = (x.c != 0) == (v.func == VectorFunc::Select);
    return static_cast<int8_t>(
        pickB ? quant::requantizeTo(db, multiplier(v.bMultiplier, v.bShift, rounding), v.outZero)
              : quant::requantizeTo(da, multiplier(v.aMultiplier, v.aShift, rounding), v.outZero));
  }
  }
  return std::nullopt;
}

} // namespace

std::optional<int8_t> vectorElement(const Vector& v, const VectorOperands& x, const int8_t* table,
                                    quant::Rounding rounding) {
  const std::optional<int8_t> r = apply(v, x, table, rounding);
  if (!r)
    return r;
  return static_cast<int8_t>(std::clamp<int64_t>(*r, v.clampLo, v.clampHi));
}

bool vectorPartition(const Vector& v, uint8_t* part, const int8_t* table,
                     std::span<const int32_t> expTable, quant::Rounding rounding) {
  const bool binary = isBinary(v.func);
  const bool select = isSelect(v.func);
  std::vector<int8_t> out(static_cast<size_t>(v.rows * v.rowLen));
  size_t k = 0;
  if (v.func == VectorFunc::Softmax) {
    std::vector<int8_t> line(static_cast<size_t>(v.rowLen));
    for (int64_t y = 0; y < v.rows; ++y, k += static_cast<size_t>(v.rowLen)) {
      for (int64_t x = 0; x < v.rowLen; ++x)
        line[static_cast<size_t>(x)] = static_cast<int8_t>(part[v.a + y * v.aRowStride + x]);
      quant::softmaxLine(line.data(), 1, v.rowLen, expTable,
                         multiplier(v.outMultiplier, v.outShift, rounding), out.data() + k,
                         v.outZero);
    }
    for (int8_t& r : out)
      r = static_cast<int8_t>(std::clamp<int64_t>(r, v.clampLo, v.clampHi));
  }
  for (int64_t y = 0; y < v.rows && v.func != VectorFunc::Softmax; ++y)
    for (int64_t x = 0; x < v.rowLen; ++x) {
      VectorOperands o;
      o.a = static_cast<int8_t>(part[v.a + y * v.aRowStride + x]);
      if (binary)
        o.b = static_cast<int8_t>(part[v.b + y * v.bRowStride + x * v.bStep]);
      if (select)
        o.c = static_cast<int8_t>(part[v.c + y * v.cRowStride + x * v.cStep]);
      const std::optional<int8_t> r = vectorElement(v, o, table, rounding);
      if (!r)
        return false;
      out[k++] = *r;
    }
  k = 0;
  for (int64_t y = 0; y < v.rows; ++y)
    for (int64_t x = 0; x < v.rowLen; ++x)
      part[v.dst + y * v.dstRowStride + x] = static_cast<uint8_t>(out[k++]);
  return true;
}

} // namespace nnaccel::arch::systolic::detail
