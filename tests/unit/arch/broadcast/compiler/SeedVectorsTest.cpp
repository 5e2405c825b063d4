/// \file
/// The seed's test vectors for the broadcast engine's building blocks (seed 004, digest
/// /work/shared/notes/digest_004.md §3): the FIG. 8 grid cell by cell against the digest's
/// literal table (receivers, re-use row, readers), 18 / 48 / 324 reads and 2.667 writes per
/// read, FIG. 6/7's four reads and five broadcasts against 9 and 16, the FIG. 4 and FIG. 5
/// weight operands (dummy column, bitmap, outputs 40..115), and §3.9's end-to-end numbers
/// (6k + 8; 9k + 171; 54 vs 144 reads) computed by MAC'ing operands assembled from the
/// schedule's deliveries. The literal vectors were cross-checked with
/// /work/shared/notes/checkers/verify_004_broadcast.py.
#include "nnaccel/arch/broadcast/Decompose.h"
#include "nnaccel/arch/broadcast/Schedule.h"

#include <gtest/gtest.h>
#include <sstream>
#include <string>
#include <tuple>

namespace nnaccel::arch::broadcast {
namespace {

/// A plain stride-1 row pass over a row of \p width activations with N = \p n and every tap
/// real and valid (§2.4: K = W - N + 1 operands).
PassShape rowPass(int64_t width, int64_t n) {
  return PassShape{width, width - n + 1, n, 1, n, 0, width};
}

/// "PE3", "X17": appended, not `"PE" + std::to_string(..)` (GCC 12's false -Wrestrict).
std::string label(const char* prefix, int64_t index) {
  std::string s = prefix;
  s += std::to_string(index);
  return s;
}

std::vector<std::vector<std::string>> tokenize(const std::string& text) {
  std::vector<std::vector<std::string>> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    std::istringstream words(line);
    std::vector<std::string> tokens;
    for (std::string w; words >> w;)
      tokens.push_back(w);
    if (!tokens.empty())
      lines.push_back(tokens);
  }
  return lines;
}

// Digest §3.8, the reconstructed FIG. 8 table, verbatim. "(PE3)" for T16/T17 is the digest's
// choice: the seed does not say who reads an activation no operand starts with (§2.4, §7).
constexpr const char* kFig8 = R"(
      T0  T1  T2  T3  T4  T5  T6  T7  T8  T9  T10 T11 T12 T13 T14 T15 T16 T17
PE0   X0  X1  X2  --  X4  X5  X6  --  X8  X9  X10 --  X12 X13 X14 --  --  --
PE1   --  X1  X2  X3  --  X5  X6  X7  --  X9  X10 X11 --  X13 X14 X15 --  --
PE2   --  --  X2  X3  X4  --  X6  X7  X8  --  X10 X11 X12 --  X14 X15 X16 --
PE3   --  --  --  X3  X4  X5  --  X7  X8  X9  --  X11 X12 X13 --  X15 X16 X17
Reuse 1   2   3   3   3   3   3   3   3   3   3   3   3   3   3   3   2   1
Reader PE0 PE1 PE2 PE3 PE0 PE1 PE2 PE3 PE0 PE1 PE2 PE3 PE0 PE1 PE2 PE3 (PE3) (PE3)
)";

TEST(BroadcastSeedFig8, GridCellByCell) {
  const auto table = tokenize(kFig8);
  ASSERT_EQ(table.size(), 7U);
  const RowSchedule rs = scheduleRow(rowPass(18, 3), 4, true);
  ASSERT_EQ(rs.reads(), 18);

  // Receivers: cell (PE p, slot T t) holds the activation PE p receives in slot t.
  std::vector<std::vector<std::string>> grid(4, std::vector<std::string>(18, "--"));
  for (int64_t t = 0; t < rs.reads(); ++t) {
    const Slot& s = rs.slots[static_cast<size_t>(t)];
    EXPECT_EQ(s.position, t); // slot T t reads X t
    for (int32_t d = s.firstDelivery; d < s.firstDelivery + s.deliveries; ++d) {
      const Delivery& del = rs.deliveries[static_cast<size_t>(d)];
      auto& cell = grid[static_cast<size_t>(del.pe)][static_cast<size_t>(t)];
      EXPECT_EQ(cell, "--") << "PE" << del.pe << " receives twice in T" << t;
      cell = label("X", s.position);
    }
  }
  for (size_t p = 0; p < 4; ++p) {
    const auto& row = table[1 + p];
    ASSERT_EQ(row.size(), 19U);
    EXPECT_EQ(row[0], label("PE", static_cast<int64_t>(p)));
    for (size_t t = 0; t < 18; ++t)
      EXPECT_EQ(grid[p][t], row[1 + t]) << "PE" << p << " T" << t;
  }

  // Re-use row: X0 and X17 once, X1 and X16 twice, X2..X15 three times (§3.8, ¶0093).
  const auto& reuse = table[5];
  ASSERT_EQ(reuse.size(), 19U);
  for (size_t t = 0; t < 18; ++t)
    EXPECT_EQ(std::to_string(rs.slots[t].deliveries), reuse[1 + t]) << "T" << t;
  EXPECT_EQ(rs.reuseHistogram(), (std::vector<int64_t>{0, 2, 2, 14}));

  // Reader row: T0..T3 are the seed's (PE0 reads X0, ... PE3 reads X3), T16/T17 the digest's.
  const auto& reader = table[6];
  ASSERT_EQ(reader.size(), 19U);
  for (size_t t = 0; t < 18; ++t) {
    std::string expected = reader[1 + t];
    if (expected.front() == '(')
      expected = expected.substr(1, expected.size() - 2);
    EXPECT_EQ(label("PE", rs.slots[t].reader), expected) << "T" << t;
  }
}

TEST(BroadcastSeedFig8, OperandsCompleteInOrderOnRoundRobinPes) {
  // §3.8: PE (k mod 4) completes operand k at the end of T(k + 2), each operand receiving
  // exactly its three activations X k, X k+1, X k+2 in increasing X order.
  const RowSchedule rs = scheduleRow(rowPass(18, 3), 4, true);
  EXPECT_EQ(rs.liveTaps, std::vector<int32_t>(16, 3));
  std::vector<std::vector<int64_t>> received(16);
  std::vector<int64_t> completedAt(16, -1);
  for (const Slot& s : rs.slots) {
    for (int32_t d = s.firstDelivery; d < s.firstDelivery + s.deliveries; ++d) {
      const Delivery& del = rs.deliveries[static_cast<size_t>(d)];
      EXPECT_EQ(del.pe, del.operand % 4);
      auto& got = received[static_cast<size_t>(del.operand)];
      got.push_back(s.position);
      if (got.size() == 3)
        completedAt[static_cast<size_t>(del.operand)] = s.position;
    }
  }
  for (int64_t k = 0; k < 16; ++k) {
    EXPECT_EQ(received[static_cast<size_t>(k)], (std::vector<int64_t>{k, k + 1, k + 2}));
    EXPECT_EQ(completedAt[static_cast<size_t>(k)], k + 2);
  }
}

TEST(BroadcastSeedFig8, ReadCounts) {
  // ¶0023 / ¶0093 (digest §3.7, §3.8). Scope (digest §5, last paragraph): 18 and 48 count one
  // 18-wide input row for one kernel row; 324 counts the conventional 1x1 decomposition over
  // the whole 18 x 18 plane (one read per 1x1 operand), as the seed compares them.
  const RowSchedule bc = scheduleRow(rowPass(18, 3), 4, true);
  const RowSchedule plain = scheduleRow(rowPass(18, 3), 4, false);
  EXPECT_EQ(bc.reads(), 18);
  EXPECT_EQ(plain.reads(), 48); // 16 operands x 3
  EXPECT_EQ(bc.writes(), 48);   // Σ re-use
  EXPECT_EQ(plain.writes(), 48);
  EXPECT_EQ(bc.broadcasts(), 30);
  EXPECT_EQ(plain.broadcasts(), 0);
  int64_t conventionalReads = 0;
  for (int64_t row = 0; row < 18; ++row)
    conventionalReads += scheduleRow(rowPass(18, 1), 4, true).reads();
  EXPECT_EQ(conventionalReads, 324);
  // 48 writes from 18 reads = 2.667 writes per read (¶0093).
  const double writesPerRead = static_cast<double>(bc.writes()) / static_cast<double>(bc.reads());
  EXPECT_DOUBLE_EQ(writesPerRead, 8.0 / 3.0);
  EXPECT_NEAR(writesPerRead, 2.667, 5e-4);
}

/// The register file of FIG. 7's PE p (713, 723, 733, 743).
int rf(int32_t pe) {
  return 713 + 10 * pe;
}

TEST(BroadcastSeedFig67, FourReadsFiveBroadcasts) {
  // Digest §3.5/§3.6: tensor 610 is a 4-wide portion of the row (X0..X3), N = 3, 4 PEs.
  // Operands 615A..D = {X0,X1,X2}, {X1,X2,X3}, {X2,X3}, {X3}: 615C and 615D are incomplete,
  // completed later by X4 and X5 from the rest of the row, so the pass is the 6-wide row with
  // only X0..X3 inside the portion (valid range [0, 4)). This is FIG. 8 after T0..T3.
  const PassShape portion{6, 4, 3, 1, 3, 0, 4};
  const RowSchedule rs = scheduleRow(portion, 4, true);
  EXPECT_EQ(rs.liveTaps, (std::vector<int32_t>{3, 3, 2, 1}));

  // Four reads, X t into RF 713 + 10 t. Follows digest erratum (§3.6, §7): the seed says X2 is
  // read "into 723", but ¶0087 broadcasts X2 from 733, so X2 is read into 733.
  ASSERT_EQ(rs.reads(), 4);
  for (int64_t t = 0; t < 4; ++t) {
    EXPECT_EQ(rs.slots[static_cast<size_t>(t)].position, t);
    EXPECT_EQ(rf(rs.slots[static_cast<size_t>(t)].reader), 713 + 10 * t);
  }
  // Broadcasts as (from RF, to RF, activation X).
  std::vector<std::tuple<int, int, int64_t>> broadcasts;
  for (const Slot& s : rs.slots) {
    for (int32_t d = s.firstDelivery; d < s.firstDelivery + s.deliveries; ++d) {
      const Delivery& del = rs.deliveries[static_cast<size_t>(d)];
      if (del.pe != s.reader)
        broadcasts.emplace_back(rf(s.reader), rf(del.pe), s.position);
    }
  }
  const std::vector<std::tuple<int, int, int64_t>> expected = {
      {723, 713, 1}, {733, 713, 2}, {733, 723, 2}, {743, 723, 3}, {743, 733, 3}};
  EXPECT_EQ(broadcasts, expected);
  EXPECT_EQ(rs.broadcasts(), 5);

  // What each RF holds: 713 = 615A, 723 = 615B, 733 = 615C = {X2, X3}, and 743 = 615D = {X3}
  // (follows digest erratum, §3.6/§7: the seed's "fourth PE ... 615A" is 615D).
  std::vector<std::vector<int64_t>> held(4);
  for (const Slot& s : rs.slots) {
    for (int32_t d = s.firstDelivery; d < s.firstDelivery + s.deliveries; ++d)
      held[static_cast<size_t>(rs.deliveries[static_cast<size_t>(d)].pe)].push_back(s.position);
  }
  EXPECT_EQ(held, (std::vector<std::vector<int64_t>>{{0, 1, 2}, {1, 2, 3}, {2, 3}, {3}}));

  // ¶0088 comparisons. Scope (digest §5, last paragraph): 4 and 9 count this 4-wide row
  // portion; 16 counts the 1x1 decomposition over the whole 4 x 4 tensor 610.
  EXPECT_EQ(scheduleRow(portion, 4, false).reads(), 9); // 3 + 3 + 2 + 1
  int64_t conventionalReads = 0;
  for (int64_t row = 0; row < 4; ++row)
    conventionalReads += scheduleRow(rowPass(4, 1), 4, true).reads();
  EXPECT_EQ(conventionalReads, 16);
}

TEST(BroadcastSeedFig4, ThreeByThreeWeightOperandAndSendingOrder) {
  // Digest §3.3: Ker = [[1,2,3],[4,5,6],[7,8,9]], C_f = 1 -> 1 x 3 x 3 C_f; segments 425A
  // (top row), 425B, 425C (follows digest erratum §7: the seed's "425A ... bottom row" is 425C).
  const Decomposition d = decomposeKernel(3, 3, 3, NonDivisible::Expand);
  const auto ker = [](int64_t, int64_t ky, int64_t kx) {
    return static_cast<int8_t>(1 + 3 * ky + kx);
  };
  const WeightOperand op = makeWeightOperand(d, 1, ker);
  EXPECT_EQ(op.taps, 3);
  EXPECT_EQ(op.depth, 3);
  const std::vector<std::vector<int>> segments = {{1, 2, 3}, {4, 5, 6}, {7, 8, 9}};
  for (int64_t g = 0; g < 3; ++g) {
    for (int64_t n = 0; n < 3; ++n)
      EXPECT_EQ(op.value(n, g), segments[static_cast<size_t>(g)][static_cast<size_t>(n)]);
  }
  // Sending order (¶0078): segment by segment, one MAC round per weight position (0,0), (1,0),
  // (2,0) of the segment with all C_f channels (follows digest erratum §7: the seed's second
  // "second round" is the third).
  const int64_t channels = 2;
  const WeightOperand op2 = makeWeightOperand(d, channels, [&](int64_t c, int64_t ky, int64_t kx) {
    return static_cast<int8_t>(ker(0, ky, kx) + 10 * c);
  });
  std::vector<int> sent;
  for (int64_t g = 0; g < d.segments(); ++g) {
    for (int64_t n = 0; n < op2.taps; ++n) {
      for (int64_t c = 0; c < channels; ++c)
        sent.push_back(op2.value(n, g * channels + c));
    }
  }
  EXPECT_EQ(sent,
            (std::vector<int>{1, 11, 2, 12, 3, 13, 4, 14, 5, 15, 6, 16, 7, 17, 8, 18, 9, 19}));
}

TEST(BroadcastSeedFig5, FiveByFiveWithDummyColumn) {
  // Digest §3.4: 5 x 5 x C_f, N = 3 -> 5 x 6 expanded (follows digest erratum §7: filter 520,
  // not 530), 10 segments 535A..J, weight operand 1 x 3 x 10 C_f with 5 C_f dummy bits clear.
  const int64_t cf = 2;
  const Decomposition d = decomposeKernel(5, 5, 3, NonDivisible::Expand);
  EXPECT_EQ(d.expandedWidth, 6);
  EXPECT_EQ(d.segments(), 10);
  const WeightOperand op = makeWeightOperand(d, cf, [](int64_t c, int64_t ky, int64_t kx) {
    return static_cast<int8_t>(1 + kx + 5 * ky + 25 * c);
  });
  EXPECT_EQ(op.taps, 3);
  EXPECT_EQ(op.depth, 10 * cf);
  EXPECT_EQ(op.bitmap.size(), static_cast<size_t>(5 * 6 * cf));
  int64_t clear = 0;
  for (uint8_t b : op.bitmap)
    clear += b == 0 ? 1 : 0;
  EXPECT_EQ(clear, 5 * cf);
  // Kernel row [1,2,3,4,5] (row 0, channel 0) -> [1,2,3 | 4,5,0].
  std::vector<int> row;
  for (int64_t v = 0; v < 2; ++v) {
    for (int64_t n = 0; n < 3; ++n)
      row.push_back(op.value(n, v * cf));
  }
  EXPECT_EQ(row, (std::vector<int>{1, 2, 3, 4, 5, 0}));
  EXPECT_FALSE(op.bit(2, 1 * cf));
}

TEST(BroadcastSeedFig5, RowOutputsSkipTheDummyOutsideTheRow) {
  // Digest §3.4: one row, C = 1, kernel row [1,2,3,4,5] (N = 3, expanded), X_t = t for
  // t = 0..9 -> out(ox) = 15 ox + 40 = 40, 55, 70, 85, 100, 115. For ox = 5 the dummy tap
  // touches x = 10, outside the row: skipped by its bitmap bit, never read.
  const Decomposition d = decomposeKernel(1, 5, 3, NonDivisible::Expand);
  ASSERT_EQ(d, (Decomposition{3, false, 1, 5, 6}));
  const WeightOperand op = makeWeightOperand(
      d, 1, [](int64_t, int64_t, int64_t kx) { return static_cast<int8_t>(kx + 1); });
  ConvAxes a;
  a.inH = 1;
  a.inW = 10;
  a.outH = 1;
  a.outW = 6;
  std::vector<int64_t> out;
  int64_t outsideReads = 0;
  for (int64_t ox = 0; ox < a.outW; ++ox) {
    int64_t acc = 0;
    for (int64_t v = 0; v < d.vectorsPerRow(); ++v) {
      for (int64_t n = 0; n < d.vectorWidth; ++n) {
        const InputPosition p = inputOperandPosition(a, 0, ox, 0, v, n, d.vectorWidth);
        if (!op.bit(n, v))
          continue; // bitmap-skipped: dummy (or zero) weight
        const bool inside = p.y >= 0 && p.y < a.inH && p.x >= 0 && p.x < a.inW;
        outsideReads += inside ? 0 : 1;
        acc += (inside ? p.x : 0) * op.value(n, v); // X_t = t
      }
    }
    out.push_back(acc);
  }
  EXPECT_EQ(out, (std::vector<int64_t>{40, 55, 70, 85, 100, 115}));
  EXPECT_EQ(outsideReads, 0);
  EXPECT_EQ(inputOperandPosition(a, 0, 5, 0, 1, 2, 3).x, 10); // the skipped dummy position
}

/// Runs the row passes of one output row through scheduleRow: pass r streams input row r, each
/// PE assembles its current operand from the deliveries (one operand buffer per PE, which must
/// be complete before the next operand on that PE starts) and MACs it with kernel row r.
/// Returns the outputs and adds the pass's reads to \p reads.
std::vector<int64_t> runRowPasses(const std::vector<std::vector<int64_t>>& input,
                                  const WeightOperand& wo, const Decomposition& d, int64_t pes,
                                  bool broadcast, int64_t& reads) {
  const auto width = static_cast<int64_t>(input[0].size());
  const PassShape shape = rowPass(width, d.vectorWidth);
  ConvAxes a;
  a.inH = static_cast<int64_t>(input.size());
  a.inW = width;
  a.outH = 1;
  a.outW = shape.operands;
  std::vector<int64_t> out(static_cast<size_t>(shape.operands), 0);
  for (int64_t r = 0; r < d.rows; ++r) {
    const RowSchedule rs = scheduleRow(shape, pes, broadcast);
    reads += rs.reads();
    // Per PE: the operand it is loading and its register file contents.
    std::vector<int64_t> loading(static_cast<size_t>(pes), -1);
    std::vector<std::vector<int64_t>> regs(static_cast<size_t>(pes));
    for (const Slot& s : rs.slots) {
      for (int32_t i = s.firstDelivery; i < s.firstDelivery + s.deliveries; ++i) {
        const Delivery& del = rs.deliveries[static_cast<size_t>(i)];
        const auto pe = static_cast<size_t>(del.pe);
        if (loading[pe] != del.operand) {
          EXPECT_EQ(loading[pe], -1) << "PE " << pe << " overwrites an unfinished operand";
          loading[pe] = del.operand;
          regs[pe].assign(static_cast<size_t>(d.vectorWidth), 0);
        }
        // The tensor decomposition says where this tap comes from: the streamed position.
        const InputPosition p =
            inputOperandPosition(a, 0, del.operand, r, 0, del.tap, d.vectorWidth);
        EXPECT_EQ(p.x, s.position);
        EXPECT_EQ(p.y, r);
        regs[pe][static_cast<size_t>(del.tap)] =
            input[static_cast<size_t>(r)][static_cast<size_t>(s.position)];
        if (del.tap == rs.liveTaps[static_cast<size_t>(del.operand)] - 1) { // complete: MAC
          for (int64_t n = 0; n < d.vectorWidth; ++n)
            out[static_cast<size_t>(del.operand)] +=
                regs[pe][static_cast<size_t>(n)] * wo.value(n, r);
          loading[pe] = -1;
        }
      }
    }
  }
  return out;
}

TEST(BroadcastSeedNumeric, RowOnlySixKPlusEight) {
  // Digest §3.9 vector 1: X_t = t (t = 0..17), C = 1, weights [1,2,3] -> out(k) = 6k + 8.
  const Decomposition d = decomposeKernel(1, 3, 3, NonDivisible::Expand);
  const WeightOperand wo = makeWeightOperand(
      d, 1, [](int64_t, int64_t, int64_t kx) { return static_cast<int8_t>(kx + 1); });
  std::vector<std::vector<int64_t>> input(1);
  for (int64_t t = 0; t < 18; ++t)
    input[0].push_back(t);
  for (bool broadcast : {true, false}) {
    int64_t reads = 0;
    const std::vector<int64_t> out = runRowPasses(input, wo, d, 4, broadcast, reads);
    ASSERT_EQ(out.size(), 16U);
    for (int64_t k = 0; k < 16; ++k)
      EXPECT_EQ(out[static_cast<size_t>(k)], 6 * k + 8) << "k " << k;
    EXPECT_EQ(reads, broadcast ? 18 : 48);
  }
}

TEST(BroadcastSeedNumeric, AllOnesThreeByThreeNineKPlus171) {
  // Digest §3.9 vector 2: 3x3 all-ones kernel on a 3 x 18 input X[y][x] = 18y + x ->
  // out(0, k) = 9k + 171; three row passes read 54 = 3 x 18 activations with broadcasting
  // against 144 = 3 x 48 without (the same workload for both: digest §5, last paragraph).
  const Decomposition d = decomposeKernel(3, 3, 3, NonDivisible::Expand);
  const WeightOperand wo =
      makeWeightOperand(d, 1, [](int64_t, int64_t, int64_t) { return int8_t{1}; });
  std::vector<std::vector<int64_t>> input(3);
  for (int64_t y = 0; y < 3; ++y) {
    for (int64_t x = 0; x < 18; ++x)
      input[static_cast<size_t>(y)].push_back(18 * y + x);
  }
  for (bool broadcast : {true, false}) {
    int64_t reads = 0;
    const std::vector<int64_t> out = runRowPasses(input, wo, d, 4, broadcast, reads);
    ASSERT_EQ(out.size(), 16U);
    for (int64_t k = 0; k < 16; ++k)
      EXPECT_EQ(out[static_cast<size_t>(k)], 9 * k + 171) << "k " << k;
    EXPECT_EQ(reads, broadcast ? 54 : 144);
  }
}

} // namespace
} // namespace nnaccel::arch::broadcast
