/// \file
/// Tests of the position codec (formats/PositionCodec.h): Table 11's three kinds and Table 12's
/// wrap in the decoder (with the `>=` of digest erratum 4 and r = -1 of erratum 5), pads for
/// long runs, the encode -> decode round trip for every built-in table and wrap mode over
/// seeded random sparse tensors (densities 0 to 1, shapes with tails), whether the encoder
/// rejects exactly the unreachable cases, and every error path.
#include "nnaccel/arch/sparse/formats/PositionCodec.h"

#include "SparseTestSupport.h"
#include "nnaccel/support/Error.h"
#include "nnaccel/support/Rng.h"

#include <gtest/gtest.h>
#include <string>

using namespace nnaccel;
using namespace nnaccel::arch::sparse::formats;

namespace {

using test_support::expectError;

struct Sparse {
  std::vector<Position> positions;
  std::vector<int32_t> values;
};

/// The non-zeros of a dense [k][s][r] tensor in raster order.
Sparse nonZeros(const std::vector<int32_t>& dense, int64_t rMax, int64_t sMax) {
  Sparse out;
  for (size_t i = 0; i < dense.size(); ++i) {
    if (dense[i] != 0) {
      const auto linear = static_cast<int64_t>(i);
      out.positions.push_back({linear % rMax, (linear / rMax) % sMax, linear / (rMax * sMax)});
      out.values.push_back(dense[i]);
    }
  }
  return out;
}

/// Whether the greedy encoder must reach every position (see encodePositions' contract), for
/// tables whose Row and Channel arguments, if any, include 0.
bool reachable(const CodeTable& table, const Frame& frame, const std::vector<Position>& ps) {
  Position from{-1, 0, 0};
  for (const Position& to : ps) {
    const bool sameChannel = from.k == to.k;
    if (frame.wrapR && frame.wrapS) {
      // Run codes reach everything.
    } else if (sameChannel) {
      if (!frame.wrapR && from.s != to.s && !table.has(CodeKind::Row)) {
        return false;
      }
    } else if (table.has(CodeKind::Channel)) {
      if (!frame.wrapR && to.s > 0 && !table.has(CodeKind::Row)) {
        return false;
      }
    } else if (!(frame.wrapS && table.has(CodeKind::Row))) {
      return false;
    }
    from = to;
  }
  return true;
}

/// Encodes, decodes and checks the round trip; returns false if the encoder threw
/// Unsupported.
bool roundTrip(const Sparse& in, const CodeTable& table, const Frame& frame) {
  std::vector<CodedEntry> entries;
  try {
    entries = encodePositions(in.positions, in.values, table, frame);
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Unsupported) << e.what();
    return false;
  }
  const std::vector<Position> decoded = decodePositions(entries, table, frame);
  EXPECT_EQ(decoded.size(), entries.size());
  Sparse out;
  for (size_t i = 0; i < entries.size(); ++i) {
    // Every decoded position (pads included) is in the frame and in raster order.
    EXPECT_TRUE(decoded[i].r >= 0 && decoded[i].r < frame.rMax && decoded[i].s >= 0 &&
                decoded[i].s < frame.sMax);
    if (i > 0) {
      EXPECT_TRUE(rasterLess(decoded[i - 1], decoded[i]));
    }
    if (entries[i].value != 0) {
      out.positions.push_back(decoded[i]);
      out.values.push_back(entries[i].value);
    }
  }
  EXPECT_EQ(out.positions, in.positions);
  EXPECT_EQ(out.values, in.values);
  return true;
}

} // namespace

TEST(PositionDecoder, Table11KindsStartAtMinusOne) {
  // Follows digest erratum 5: the initial position has r = -1, so R0 lands on r = 0.
  const CodeTable t = CodeTable::parse("R0 R2 S1 K2", "t");
  PositionDecoder d(t, Frame{100, 100, false, false});
  EXPECT_EQ(d.position(), (Position{-1, 0, 0}));
  EXPECT_EQ(d.next(0), (Position{0, 0, 0}));
  EXPECT_EQ(d.next(1), (Position{3, 0, 0})); // R2: two zeros, then the next element
  EXPECT_EQ(d.next(2), (Position{1, 1, 0})); // S1: next row, r = 1
  EXPECT_EQ(d.next(1), (Position{4, 1, 0}));
  EXPECT_EQ(d.next(3), (Position{2, 0, 1})); // K2: next channel, s = 0, r = 2
  d.reset();
  EXPECT_EQ(d.next(0), (Position{0, 0, 0}));
}

TEST(PositionDecoder, WrapUsesGreaterOrEqual) {
  // Follows digest erratum 4: Table 12 must test `>=` with rMax the number of columns.
  const CodeTable t = CodeTable::parse("R0 R1 R7 S4", "t");
  PositionDecoder d(t, Frame{3, 2, true, true});
  EXPECT_EQ(d.next(1), (Position{1, 0, 0}));
  EXPECT_EQ(d.next(1), (Position{0, 1, 0})); // r = 3 >= 3 wraps to the next row
  EXPECT_EQ(d.next(2), (Position{2, 1, 1})); // r = 8: s += 2 -> s = 3 -> k += 1
  EXPECT_EQ(d.next(3), (Position{1, 1, 2})); // S4: r = 4 wraps, s = 2 wraps into k
  // Without wrap the coordinates run past the frame.
  PositionDecoder n(t, Frame{3, 2, false, false});
  n.next(2);
  EXPECT_EQ(n.next(2), (Position{15, 0, 0}));
  // Only r wraps: s grows without bound.
  PositionDecoder r(t, Frame{3, 2, true, false});
  r.next(2);
  EXPECT_EQ(r.next(2), (Position{0, 5, 0}));
  // Only s wraps: an S code past the last row enters the next channel.
  PositionDecoder s(t, Frame{3, 2, false, true});
  s.next(3);
  EXPECT_EQ(s.next(3), (Position{4, 0, 1}));
}

TEST(PositionDecoder, Errors) {
  const CodeTable t = CodeTable::parse("R0 R1 R2", "t");
  PositionDecoder d(t, Frame{3, 3, true, true});
  expectError([&] { d.next(3); }, ErrorKind::Usage, "code 3 is outside the code table (3 codes)");
  expectError([&] { PositionDecoder(t, Frame{0, 3, true, false}); }, ErrorKind::Usage, "rMax=0");
  expectError([&] { PositionDecoder(t, Frame{3, 0, false, true}); }, ErrorKind::Usage, "sMax=0");
  // Unwrapped axes need no size.
  PositionDecoder free(t, Frame{0, 0, false, false});
  EXPECT_EQ(free.next(2), (Position{2, 0, 0}));
}

TEST(PositionEncoder, LongRunsGetPads) {
  const CodeTable zrl = CodeTable::zeroRunLength(4);
  const Frame frame{10, 10, true, true};
  // Gap of 40 zeros: R15 pad (16), R15 pad (16), R8 (9) = 41 steps.
  const std::vector<Position> ps{{0, 4, 0}};
  const std::vector<int32_t> vs{5};
  const auto e = encodePositions(ps, vs, zrl, frame);
  EXPECT_EQ(e, (std::vector<CodedEntry>{{15, 0}, {15, 0}, {8, 5}}));
  // A run of exactly 15 needs no pad; 16 needs one (R15 pad then R0).
  EXPECT_EQ(encodePositions(std::vector<Position>{{5, 1, 0}}, vs, zrl, frame),
            (std::vector<CodedEntry>{{15, 5}}));
  EXPECT_EQ(encodePositions(std::vector<Position>{{6, 1, 0}}, vs, zrl, frame),
            (std::vector<CodedEntry>{{15, 0}, {0, 5}}));
  // The 9-zero run of Fig. 4C weights (R9 omitted): R4, pad, R4 is what the digest describes;
  // the greedy encoder takes the largest run below the gap: R8 pad then R0.
  const CodeTable w = CodeTable::fig4cWeights();
  EXPECT_EQ(encodePositions(std::vector<Position>{{0, 3, 0}}, vs, w, Frame{3, 4, true, true}),
            (std::vector<CodedEntry>{{8, 0}, {0, 5}}));
}

TEST(PositionEncoder, JumpPolicy) {
  // No wrap, Fig. 4C weights, 3x3: a target two rows down takes an S0 pad then the exact S;
  // a target in the next row takes the largest S not past it (pad), then a run.
  const CodeTable w = CodeTable::fig4cWeights();
  const Frame frame{8, 3, false, false};
  const std::vector<int32_t> v1{7};
  EXPECT_EQ(encodePositions(std::vector<Position>{{1, 2, 0}}, v1, w, frame),
            (std::vector<CodedEntry>{{10, 0}, {11, 7}}));
  EXPECT_EQ(encodePositions(std::vector<Position>{{6, 1, 0}}, v1, w, frame),
            (std::vector<CodedEntry>{{13, 0}, {2, 7}})); // S3 pad, R2
  // Two channels on: K0 pad, then K1 exact.
  EXPECT_EQ(encodePositions(std::vector<Position>{{1, 0, 2}}, v1, w, frame),
            (std::vector<CodedEntry>{{14, 0}, {15, 7}}));
  // Without Channel codes but with wrapS, Row codes walk into the next channel.
  const CodeTable rs = CodeTable::parse("R0 S0 S1", "t");
  EXPECT_EQ(encodePositions(std::vector<Position>{{1, 0, 1}}, v1, rs, Frame{4, 2, false, true}),
            (std::vector<CodedEntry>{{1, 0}, {2, 7}}));
}

TEST(PositionEncoder, RoundTripEveryTableAndWrapMode) {
  struct Shape {
    int64_t rMax, sMax, channels;
  };
  const Shape shapes[] = {{3, 3, 4}, {5, 7, 2}, {1, 1, 5}, {13, 13, 1}, {1, 3, 3},
                          {4, 1, 2}, {7, 5, 3}, {2, 2, 1}, {40, 2, 2}};
  const CodeTable tables[] = {CodeTable::fig4cWeights(),
                              CodeTable::fig4cActivations(),
                              CodeTable::fig4cActivations(true),
                              CodeTable::fig5a(),
                              CodeTable::fig5b(),
                              CodeTable::fig5c(),
                              CodeTable::fig5d(),
                              CodeTable::fig5e(),
                              CodeTable::zeroRunLength(4),
                              CodeTable::zeroRunLength(2),
                              CodeTable::parse("R1 R0 S0 S2 K0", "u")};
  Rng rng(2026);
  int encoded = 0;
  int rejected = 0;
  for (const CodeTable& table : tables) {
    for (int mode = 0; mode < 4; ++mode) {
      const bool wrapR = (mode & 1) != 0;
      const bool wrapS = (mode & 2) != 0;
      for (const Shape& shape : shapes) {
        const Frame frame{shape.rMax, shape.sMax, wrapR, wrapS};
        for (int percent = 0; percent <= 100; percent += 5) {
          const auto dense = test_support::randomSparse(
              rng, static_cast<size_t>(shape.rMax * shape.sMax * shape.channels), percent);
          const Sparse in = nonZeros(dense, shape.rMax, shape.sMax);
          const bool expected = reachable(table, frame, in.positions);
          const bool ok = roundTrip(in, table, frame);
          EXPECT_EQ(ok, expected) << table.name() << " mode " << mode << " " << shape.rMax << "x"
                                  << shape.sMax << "x" << shape.channels << " " << percent << "%";
          (ok ? encoded : rejected) += 1;
        }
      }
    }
  }
  EXPECT_GT(encoded, 1000);
  EXPECT_GT(rejected, 100); // the unreachable cases are exercised too
}

TEST(PositionEncoder, ActivationFramesOneChannel) {
  // Activations: (x, y) as (r, s), k unused, sMax = tile height, wrapS = false.
  Rng rng(7);
  for (const CodeTable& table : {CodeTable::fig4cActivations(), CodeTable::fig5a(),
                                 CodeTable::fig5b(), CodeTable::fig5c()}) {
    for (const bool wrapR : {true, false}) {
      if (!wrapR && !table.has(CodeKind::Row)) {
        continue;
      }
      for (int percent = 0; percent <= 100; percent += 5) {
        const Frame frame{240, 3, wrapR, false};
        const Sparse in = nonZeros(test_support::randomSparse(rng, 240 * 3, percent), 240, 3);
        EXPECT_TRUE(roundTrip(in, table, frame)) << table.name();
      }
    }
  }
}

TEST(PositionEncoder, Errors) {
  const CodeTable w = CodeTable::fig4cWeights();
  const Frame frame{3, 3, false, false};
  const std::vector<int32_t> two{1, 2};
  expectError(
      [&] {
        encodePositions(std::vector<Position>{{1, 0, 0}, {0, 0, 0}}, two, w, frame);
      },
      ErrorKind::Usage, "position 1 (r=0, s=0, k=0) does not follow (r=1, s=0, k=0)");
  expectError(
      [&] {
        encodePositions(std::vector<Position>{{1, 0, 0}, {1, 0, 0}}, two, w, frame);
      },
      ErrorKind::Usage, "raster order");
  expectError(
      [&] {
        encodePositions(std::vector<Position>{{0, 1, 0}, {1, 0, 0}}, two, w, frame);
      },
      ErrorKind::Usage, "raster order");
  expectError(
      [&] {
        encodePositions(std::vector<Position>{{0, 0, 0}}, two, w, frame);
      },
      ErrorKind::Usage, "1 positions but 2 values");
  expectError(
      [&] {
        encodePositions(std::vector<Position>{{0, 0, 0}, {1, 0, 0}}, std::vector<int32_t>{1, 0}, w,
                        frame);
      },
      ErrorKind::Usage, "value 1 is zero");
  expectError(
      [&] {
        encodePositions(std::vector<Position>{{3, 0, 0}}, std::vector<int32_t>{1}, w, frame);
      },
      ErrorKind::Usage, "outside the frame");
  expectError(
      [&] {
        encodePositions(std::vector<Position>{{0, 0, -1}}, std::vector<int32_t>{1}, w, frame);
      },
      ErrorKind::Usage, "outside the frame");
  expectError(
      [&] {
        encodePositions(std::vector<Position>{}, std::vector<int32_t>{}, w, Frame{0, 3, true});
      },
      ErrorKind::Usage, "frame sizes must be positive");
  // No Row code without wrap: the next row cannot be reached.
  expectError(
      [&] {
        encodePositions(std::vector<Position>{{0, 1, 0}}, std::vector<int32_t>{1},
                        CodeTable::fig5d(), frame);
      },
      ErrorKind::Unsupported, "cannot reach (r=0, s=1, k=0) from (r=-1, s=0, k=0)");
  // No Channel code and no s wrap: the next channel cannot be reached.
  expectError(
      [&] {
        encodePositions(std::vector<Position>{{0, 0, 1}}, std::vector<int32_t>{1},
                        CodeTable::fig5b(), Frame{3, 3, true, false});
      },
      ErrorKind::Unsupported, "cannot reach");
  // A run code missing: R1 only cannot code a gap of 0.
  expectError(
      [&] {
        encodePositions(std::vector<Position>{{0, 0, 0}}, std::vector<int32_t>{1},
                        CodeTable::parse("R1", "t"), frame);
      },
      ErrorKind::Unsupported, "cannot reach");
  // The only Row code lands outside the frame (r = 5 >= 3 without wrap).
  expectError(
      [&] {
        encodePositions(std::vector<Position>{{0, 2, 0}}, std::vector<int32_t>{1},
                        CodeTable::parse("R0 S5", "t"), frame);
      },
      ErrorKind::Unsupported, "cannot reach");
  // The only Row code lands past the target.
  expectError(
      [&] {
        encodePositions(std::vector<Position>{{0, 1, 0}}, std::vector<int32_t>{1},
                        CodeTable::parse("R0 S2", "t"), frame);
      },
      ErrorKind::Unsupported, "cannot reach");
}

TEST(PositionEncoder, DeterministicAndNoSpuriousEntries) {
  // Encoding the same input twice gives identical output, and an empty input gives no entries.
  const CodeTable w = CodeTable::fig5e();
  const Frame frame{5, 7, false, false};
  Rng rng(11);
  const Sparse in = nonZeros(test_support::randomSparse(rng, 5 * 7 * 3, 30), 5, 7);
  EXPECT_EQ(encodePositions(in.positions, in.values, w, frame),
            encodePositions(in.positions, in.values, w, frame));
  EXPECT_TRUE(encodePositions({}, {}, w, frame).empty());
}
