/// \file
/// Tests of the running-divide decoders (patent/RunningDivide.h, Figs. 4F/4G): power-of-two
/// rounding, the non-negative subtract test (digest erratum 4), the single-subtract hardware
/// limit against full divmod, agreement with the table-driven position decoder, reset, and the
/// error paths.
/// RunningDivide.h is a patent model, kept to check the text's worked examples; the engine
/// does not use it.
#include "nnaccel/arch/sparse/patent/RunningDivide.h"

#include "SparseTestSupport.h"
#include "nnaccel/support/Error.h"
#include "nnaccel/support/Rng.h"

#include <gtest/gtest.h>
#include <string>

using namespace nnaccel;
using namespace nnaccel::arch::sparse::formats;
using namespace nnaccel::arch::sparse::patent;

namespace {

using test_support::expectError;

} // namespace

TEST(RunningDivide, RoundUpPow2) {
  EXPECT_EQ(roundUpPow2(1), 1);
  EXPECT_EQ(roundUpPow2(2), 2);
  EXPECT_EQ(roundUpPow2(3), 4);
  EXPECT_EQ(roundUpPow2(4), 4);
  EXPECT_EQ(roundUpPow2(5), 8);
  EXPECT_EQ(roundUpPow2(129), 256); // digest §3.4: x_max 129 rounds to 256
  EXPECT_EQ(roundUpPow2(int64_t{1} << 62), int64_t{1} << 62);
  expectError([] { roundUpPow2(0); }, ErrorKind::Usage, "cannot round 0");
  expectError([] { roundUpPow2((int64_t{1} << 62) + 1); }, ErrorKind::Usage, "cannot round");
}

TEST(RunningDivide, NonNegativeTestWrapsAtExactlyMax) {
  // Follows digest erratum 4: the subtract result 0 ("non-negative", not "positive") wraps.
  RunningDivide d(3, DivideMode::SingleSubtract);
  EXPECT_EQ(d.value(), -1);
  EXPECT_EQ(d.step(2), 0); // -1 + 3 = 2
  EXPECT_EQ(d.value(), 2);
  EXPECT_EQ(d.step(0), 1); // 3 - 3 = 0 >= 0: wrap
  EXPECT_EQ(d.value(), 0);
  d.reset();
  EXPECT_EQ(d.value(), -1);
}

TEST(RunningDivide, SingleSubtractLimitAgainstFullDivmod) {
  // From value v, a zero count z needs a second subtract when v + z + 1 >= 2 * max.
  RunningDivide single(4, DivideMode::SingleSubtract);
  RunningDivide full(4, DivideMode::FullDivmod);
  EXPECT_EQ(single.step(7), 1); // -1 + 8 = 7 < 8: one subtract, value 3
  EXPECT_EQ(single.value(), 3);
  EXPECT_EQ(full.step(7), 1);
  EXPECT_EQ(full.value(), 3);
  EXPECT_EQ(single.step(3), 1); // 3 + 4 = 7: still fine
  EXPECT_EQ(single.value(), 3);
  expectError([&] { single.step(4); }, ErrorKind::Unsupported,
              "zero count 4 from running index 3 reaches 8 >= 2 * max = 8");
  EXPECT_EQ(single.value(), 3); // the state is left unchanged
  EXPECT_EQ(full.step(4), 2);   // 3 + 5 = 8 -> 0 with two carries
  EXPECT_EQ(full.value(), 0);
  EXPECT_EQ(full.step(100), 25); // 0 + 101 = 101 = 25 * 4 + 1
  EXPECT_EQ(full.value(), 1);
}

TEST(RunningDivide, WeightDecoderMatchesTheTableDecoder) {
  // Fig. 4F: with r rounded to a power of two, the running divide over rs is the table decoder
  // with plain R codes on the rounded frame (r wraps into s, s into k).
  Rng rng(3);
  const CodeTable zrl = CodeTable::zeroRunLength(6);
  for (const auto& [rMax, sMax] : {std::pair<int64_t, int64_t>{3, 3}, {5, 7}, {1, 1}, {4, 2}}) {
    WeightRunningDecoder running(rMax, sMax, DivideMode::SingleSubtract);
    EXPECT_EQ(running.rMaxRounded(), roundUpPow2(rMax));
    EXPECT_EQ(running.rsMax(), roundUpPow2(rMax) * sMax);
    PositionDecoder table(zrl, Frame{roundUpPow2(rMax), sMax, true, true});
    for (int i = 0; i < 500; ++i) {
      // Zero counts below rs_max always fit the single subtract.
      const auto z = static_cast<int64_t>(rng.nextU64() % static_cast<uint64_t>(running.rsMax()));
      EXPECT_EQ(running.next(z), table.next(static_cast<uint16_t>(z)));
    }
    running.reset();
    table.reset();
    EXPECT_EQ(running.next(0), table.next(0));
  }
}

TEST(RunningDivide, ActivationDecoder) {
  // Fig. 4G: x running sum, subtract x_max (no rounding needed) bumps y.
  ActivationRunningDecoder d(5, DivideMode::SingleSubtract);
  EXPECT_EQ(d.next(2), (Position{2, 0, 0}));
  EXPECT_EQ(d.next(2), (Position{0, 1, 0})); // x = 5 >= 5
  EXPECT_EQ(d.next(8), (Position{4, 2, 0})); // x = 9 -> 4
  expectError([&] { d.next(5); }, ErrorKind::Unsupported, "single-subtract");
  d.reset();
  EXPECT_EQ(d.next(0), (Position{0, 0, 0}));
  ActivationRunningDecoder full(5, DivideMode::FullDivmod);
  EXPECT_EQ(full.next(23), (Position{3, 4, 0}));
}

TEST(RunningDivide, Errors) {
  expectError([] { RunningDivide(0, DivideMode::FullDivmod); }, ErrorKind::Usage,
              "max must be at least 1, got 0");
  expectError([] { WeightRunningDecoder(0, 3, DivideMode::FullDivmod); }, ErrorKind::Usage,
              "rMax must be at least 1");
  expectError([] { WeightRunningDecoder(3, 0, DivideMode::FullDivmod); }, ErrorKind::Usage,
              "sMax must be at least 1");
  expectError([] { ActivationRunningDecoder(-2, DivideMode::FullDivmod); }, ErrorKind::Usage,
              "xMax must be at least 1, got -2");
  RunningDivide d(3, DivideMode::FullDivmod);
  expectError([&] { d.step(-1); }, ErrorKind::Usage, "negative zero count -1");
}
