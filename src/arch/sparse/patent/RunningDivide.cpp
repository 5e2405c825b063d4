/// \file
/// Patent model (see RunningDivide.h): an executable model of the patent kept to check the text's
/// worked examples; the sparse engine's compiler and simulator do not use it.
///
/// Out-of-line parts of the running-divide decoders (Figs. 4F/4G): construction checks and
/// the error paths, kept out of the per-entry inline step.
#include "nnaccel/arch/sparse/patent/RunningDivide.h"

#include "KeyedError.h"
#include "nnaccel/support/Error.h"

#include <bit>
#include <fmt/format.h>

namespace nnaccel::arch::sparse::patent {

namespace {

using detail::error;

int64_t checkedPositive(int64_t value, const char* key) {
  if (value < 1) {
    throw error(ErrorKind::Usage, key, fmt::format("{} must be at least 1, got {}", key, value));
  }
  return value;
}

} // namespace

int64_t roundUpPow2(int64_t value) {
  if (value < 1 || value > (int64_t{1} << 62)) {
    throw error(ErrorKind::Usage, "value",
                fmt::format("cannot round {} up to a power of two", value));
  }
  return static_cast<int64_t>(std::bit_ceil(static_cast<uint64_t>(value)));
}

RunningDivide::RunningDivide(int64_t max, DivideMode mode)
    : max_(checkedPositive(max, "max")), mode_(mode) {}

void RunningDivide::throwNegative(int64_t zeroCount) const {
  throw error(ErrorKind::Usage, "zeroCount", fmt::format("negative zero count {}", zeroCount));
}

void RunningDivide::throwOverflow(int64_t zeroCount) const {
  throw error(ErrorKind::Unsupported, "zeroCount",
              fmt::format("zero count {} from running index {} reaches {} >= 2 * max = {}; a "
                          "single-subtract decoder cannot reduce it (use pads or full divmod)",
                          zeroCount, value_, value_ + zeroCount + 1, 2 * max_));
}

WeightRunningDecoder::WeightRunningDecoder(int64_t rMax, int64_t sMax, DivideMode mode)
    : rMask_(roundUpPow2(checkedPositive(rMax, "rMax")) - 1),
      rShift_(std::countr_zero(static_cast<uint64_t>(rMask_ + 1))),
      rs_((rMask_ + 1) * checkedPositive(sMax, "sMax"), mode) {}

ActivationRunningDecoder::ActivationRunningDecoder(int64_t xMax, DivideMode mode)
    : x_(checkedPositive(xMax, "xMax"), mode) {}

} // namespace nnaccel::arch::sparse::patent
