/// \file
/// Patent model. This is an executable model of seed 001's Figs. 4F and 4G, kept to check the
/// text's worked example (¶0132, PatentVectors.Paragraph0132RunningSumRMax4). The sparse engine
/// does not use it: its simulator decodes every entry once, with the table-driven PositionDecoder
/// (formats/PositionCodec.h, Table 12's full divide), which the weight decoder here equals
/// (RunningDivide.WeightDecoderMatchesTheTableDecoder); the single-subtract limit is not
/// modelled in the engine's timing.
///
/// The running-divide decoders of seed 001 (digest §3.5, Figs. 4F and 4G): zero counts are
/// accumulated into a running index L_i = L_{i-1} + z_i + 1 (L_0 = -1, digest erratum 5) that
/// is kept below a maximum by subtracting it once per step, each subtraction bumping the next
/// coordinate. The patent's test is "positive"; it must be non-negative (digest erratum 4).
///
/// The hardware subtracts at most once per step, so it fails when the tentative sum reaches
/// twice the maximum; DivideMode::SingleSubtract models that limit (and throws), FullDivmod
/// divides (any zero count decodes).
///  - Weights (Fig. 4F): r_max is rounded up to a power of two so r is the low bits of an rs
///    field; rs_max = r_max_rounded * s_max; wrapping rs bumps k.
///  - Activations (Fig. 4G): x is the running sum, x_max needs no rounding; wrapping bumps y.
#pragma once

#include "nnaccel/arch/sparse/formats/PositionCodec.h"

#include <cstdint>

namespace nnaccel::arch::sparse::patent {

/// The smallest power of two >= \p value. Throws nnaccel::Error (Usage) unless
/// 1 <= value <= 2^62.
int64_t roundUpPow2(int64_t value);

/// How a running sum that reaches its maximum is reduced.
enum class DivideMode : uint8_t {
  FullDivmod,     ///< divide: any zero count is decoded
  SingleSubtract, ///< one subtract per step, as in Figs. 4F/4G; overflow throws
};

/// A running sum modulo \p max with one carry output: the shared core of Figs. 4F and 4G.
class RunningDivide {
public:
  /// Throws nnaccel::Error (Usage) unless max >= 1.
  RunningDivide(int64_t max, DivideMode mode);

  /// Adds zeroCount + 1 and reduces; returns the carry (how many times max was subtracted:
  /// 0 or 1 in SingleSubtract mode). Throws nnaccel::Error (Usage) for a negative zero count,
  /// and in SingleSubtract mode nnaccel::Error (Unsupported) when the tentative sum is
  /// >= 2 * max (one subtraction cannot reduce it).
  int64_t step(int64_t zeroCount) {
    if (zeroCount < 0) {
      throwNegative(zeroCount);
    }
    const int64_t sum = value_ + zeroCount + 1;
    if (sum < max_) {
      value_ = sum;
      return 0;
    }
    if (sum - max_ < max_) { // the (non-negative) single subtract
      value_ = sum - max_;
      return 1;
    }
    if (mode_ == DivideMode::SingleSubtract) {
      throwOverflow(zeroCount); // the state is left unchanged
    }
    value_ = sum % max_;
    return sum / max_;
  }
  /// The current remainder (-1 before the first step).
  int64_t value() const { return value_; }
  int64_t max() const { return max_; }
  /// Back to the initial state (value -1).
  void reset() { value_ = -1; }

private:
  [[noreturn]] void throwNegative(int64_t zeroCount) const;
  [[noreturn]] void throwOverflow(int64_t zeroCount) const;

  int64_t max_;
  DivideMode mode_;
  int64_t value_ = -1;
};

/// Fig. 4F: weight positions (r, s, k) from zero counts with r_max rounded to a power of two.
/// Positions with r >= rMax (the pad columns of the rounded field) decode as such.
class WeightRunningDecoder {
public:
  /// Throws nnaccel::Error (Usage) unless rMax, sMax >= 1.
  WeightRunningDecoder(int64_t rMax, int64_t sMax, DivideMode mode);

  formats::Position next(int64_t zeroCount) {
    k_ += rs_.step(zeroCount);
    return formats::Position{rs_.value() & rMask_, rs_.value() >> rShift_, k_};
  }
  void reset() {
    rs_.reset();
    k_ = 0;
  }
  int64_t rMaxRounded() const { return rMask_ + 1; }
  /// rs_max = rMaxRounded() * sMax: the field's wrap point.
  int64_t rsMax() const { return rs_.max(); }

private:
  int64_t rMask_;
  int rShift_;
  RunningDivide rs_;
  int64_t k_ = 0;
};

/// Fig. 4G: activation positions (x, y) = (r, s) from zero counts; x_max needs no rounding.
class ActivationRunningDecoder {
public:
  /// Throws nnaccel::Error (Usage) unless xMax >= 1.
  ActivationRunningDecoder(int64_t xMax, DivideMode mode);

  formats::Position next(int64_t zeroCount) {
    y_ += x_.step(zeroCount);
    return formats::Position{x_.value(), y_, 0};
  }
  void reset() {
    x_.reset();
    y_ = 0;
  }

private:
  RunningDivide x_;
  int64_t y_ = 0;
};

} // namespace nnaccel::arch::sparse::patent
