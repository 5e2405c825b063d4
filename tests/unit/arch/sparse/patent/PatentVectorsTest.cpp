/// \file
/// The worked examples of seed 001 as test vectors (digest §3.1-3.7 and the derived vectors of
/// §3.9): Fig. 3B, the Fig. 4B tile stream, Figs. 4D/4E, the ¶0132 running sums (corrected),
/// the ¶0092 addresses, and the greedy encoder's outputs for Figs. 4C and 5A-5E. Each test
/// that follows a digest erratum says which.
/// They check the patent models of this folder and the formats library's encoder
/// (formats/PositionCodec.h).
#include "nnaccel/arch/sparse/formats/CodeTable.h"
#include "nnaccel/arch/sparse/formats/PositionCodec.h"
#include "nnaccel/arch/sparse/patent/RunningDivide.h"
#include "nnaccel/arch/sparse/patent/WeightTileStream.h"
#include "nnaccel/arch/sparse/patent/ZeroRunLength.h"

#include <gtest/gtest.h>
#include <string>

using namespace nnaccel;
using namespace nnaccel::arch::sparse::formats;
using namespace nnaccel::arch::sparse::patent;

namespace {

/// Fig. 4D: four 3x3 kernels k = 0..3, rows s, columns r.
constexpr int32_t kFig4d[4][3][3] = {{{0, 3, 0}, {0, 0, 0}, {4, 0, 5}},
                                     {{6, 7, 0}, {0, 0, 0}, {0, 8, 0}},
                                     {{0, 9, 0}, {10, 0, 11}, {0, 12, 0}},
                                     {{0, 0, 0}, {13, 0, 14}, {0, 0, 0}}};

struct Sparse {
  std::vector<Position> positions;
  std::vector<int32_t> values;
};

Sparse fig4d() {
  Sparse out;
  for (int64_t k = 0; k < 4; ++k) {
    for (int64_t s = 0; s < 3; ++s) {
      for (int64_t r = 0; r < 3; ++r) {
        if (kFig4d[k][s][r] != 0) {
          out.positions.push_back({r, s, k});
          out.values.push_back(kFig4d[k][s][r]);
        }
      }
    }
  }
  return out;
}

/// The IA example of digest §3.9: x_max = 8, 4 rows, non-zeros at (2,0) (7,1) (1,3) (6,3).
Sparse iaExample() {
  return Sparse{{{2, 0, 0}, {7, 1, 0}, {1, 3, 0}, {6, 3, 0}}, {7, 3, 9, 2}};
}

/// "R1 S0(pad) ..." (X/Y letters for activations), as the digest prints encoder outputs.
std::string show(const std::vector<CodedEntry>& entries, const CodeTable& table, bool activations) {
  std::string out;
  for (const CodedEntry& e : entries) {
    const Code& c = table[e.code];
    if (!out.empty()) {
      out += ' ';
    }
    char letter = codeKindLetter(c.kind);
    if (activations) {
      letter = letter == 'R' ? 'X' : 'Y';
    }
    out += letter;
    out += std::to_string(c.n);
    if (e.value == 0) {
      out += "(pad)";
    }
  }
  return out;
}

std::vector<int> codesOf(const std::vector<CodedEntry>& entries) {
  std::vector<int> out;
  for (const CodedEntry& e : entries) {
    out.push_back(e.code);
  }
  return out;
}

std::vector<int32_t> valuesOf(const std::vector<CodedEntry>& entries) {
  std::vector<int32_t> out;
  for (const CodedEntry& e : entries) {
    out.push_back(e.value);
  }
  return out;
}

/// Encodes, checks the round trip of the non-pad entries, and returns the entries.
std::vector<CodedEntry> encodeChecked(const Sparse& in, const CodeTable& table,
                                      const Frame& frame) {
  const auto entries = encodePositions(in.positions, in.values, table, frame);
  const auto decoded = decodePositions(entries, table, frame);
  std::vector<Position> got;
  for (size_t i = 0; i < entries.size(); ++i) {
    if (entries[i].value != 0) {
      got.push_back(decoded[i]);
    }
  }
  EXPECT_EQ(got, in.positions) << table.name();
  return entries;
}

} // namespace

TEST(PatentVectors, Fig3bDataAndIndexVectors) {
  // Two 3x3 kernels, a..f = 1..6 at (r,s,k) (2,0,0) (0,1,0) (1,2,0) (0,1,1) (2,1,1) (1,2,1)
  // (0-based k as in ¶0193; follows digest erratum 10).
  std::vector<int32_t> dense(18, 0);
  const Position ps[] = {{2, 0, 0}, {0, 1, 0}, {1, 2, 0}, {0, 1, 1}, {2, 1, 1}, {1, 2, 1}};
  for (size_t i = 0; i < 6; ++i) {
    dense[static_cast<size_t>(ps[i].r + 3 * ps[i].s + 9 * ps[i].k)] = static_cast<int32_t>(i + 1);
  }
  const auto v = encodeZeroRunLength(dense, 1);
  EXPECT_EQ(v.data, (std::vector<int32_t>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(v.index, (std::vector<uint16_t>{2, 0, 3, 4, 1, 1})); // the run of 4 crosses kernels
  // The same through the position codec with plain R codes and full wrap.
  PositionDecoder d(CodeTable::zeroRunLength(4), Frame{3, 3, true, true});
  for (size_t i = 0; i < 6; ++i) {
    EXPECT_EQ(d.next(v.index[i]), ps[i]);
  }
}

TEST(PatentVectors, Fig4bTileStream) {
  // Follows digest erratum 13: the header says C = 4 while the figure shows channel 0 only;
  // channels 1..3 are filled here so that the trailing "0" (delta of channel 1) appears.
  WeightTile tile;
  tile.outputChannels = {1, 2};
  tile.inputChannels = 4;
  tile.kernelR = 3;
  tile.kernelS = 3;
  tile.weights.assign(4 * 2 * 9, 0);
  const int32_t k1[3][3] = {{0, 3, 0}, {0, 0, 0}, {4, 0, 5}};
  const int32_t k2[3][3] = {{6, 0, 0}, {0, 7, 0}, {0, 0, 8}};
  for (int64_t s = 0; s < 3; ++s) {
    for (int64_t r = 0; r < 3; ++r) {
      tile.at(0, 0, s, r) = k1[s][r];
      tile.at(0, 1, s, r) = k2[s][r];
    }
  }
  tile.at(1, 1, 0, 0) = 1;
  tile.at(3, 0, 0, 0) = 2;
  const auto symbols = encodeWeightTileSymbols(tile);
  const std::vector<int64_t> printed{2, 1, 2, 4, 0, 6, 1, 3, 4, 4, 1, 5, 0, 6, 3, 7, 3, 8, 0};
  ASSERT_GE(symbols.size(), printed.size());
  EXPECT_EQ(std::vector<int64_t>(symbols.begin(), symbols.begin() + 19), printed);
  EXPECT_EQ(std::vector<int64_t>(symbols.begin() + 19, symbols.end()),
            (std::vector<int64_t>{/*c=1*/ 1, 9, 1, /*c=3*/ 1, 1, 0, 2}));
  EXPECT_EQ(decodeWeightTileSymbols(symbols, 3, 3), tile);
  const CodedWeightTile coded = compressWeightTile(tile);
  EXPECT_EQ(unpack(pack(coded, WeightTileFormat{}), WeightTileFormat{}), coded);
  // 16-bit K, k1, k2, C; three channels of (delta, count); 8 entries of 4 + 8 bits.
  EXPECT_EQ(packedBits(coded, WeightTileFormat{}), 4 * 16 + 3 * 32 + 8 * 12);
}

TEST(PatentVectors, Fig4d4eZeroCountsAndPositions) {
  // Follows digest errata 1 (the ¶0132 list lacks a "1"), 3 (Fig. 4E's "S" letters are plain
  // zero counts under wrap), 4 (`>=` wrap) and 5 (start at r = -1).
  const Sparse in = fig4d();
  const std::vector<Position> fig4e{{1, 0, 0}, {0, 2, 0}, {2, 2, 0}, {0, 0, 1},
                                    {1, 0, 1}, {1, 2, 1}, {1, 0, 2}, {0, 1, 2},
                                    {2, 1, 2}, {1, 2, 2}, {0, 1, 3}, {2, 1, 3}};
  EXPECT_EQ(in.positions, fig4e);
  const std::vector<int> counts{1, 4, 1, 0, 0, 5, 2, 1, 1, 1, 4, 1};
  for (const CodeTable& table : {CodeTable::fig4cWeights(), CodeTable::zeroRunLength(4)}) {
    const auto e = encodeChecked(in, table, Frame{3, 3, true, true});
    EXPECT_EQ(codesOf(e), counts) << table.name(); // R0..R8 are codes 0..8
    EXPECT_EQ(valuesOf(e), (std::vector<int32_t>{3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14}));
  }
  EXPECT_EQ(show(encodePositions(in.positions, in.values, CodeTable::fig4cWeights(),
                                 Frame{3, 3, true, true}),
                 CodeTable::fig4cWeights(), false),
            "R1 R4 R1 R0 R0 R5 R2 R1 R1 R1 R4 R1");
}

TEST(PatentVectors, Paragraph0132RunningSumRMax4) {
  // Follows digest erratum 2: with r_max = 4 (rs = r + 4s) the 4th zero count is 1, not 0,
  // and the running sums are {1,8,10,12,13,21,...}, not the printed {1,8,10,11,12,20,...}.
  const Sparse in = fig4d();
  const std::vector<int> counts{1, 6, 1, 1, 0, 7, 3, 2, 1, 2, 6, 1};
  const auto e = encodeChecked(in, CodeTable::zeroRunLength(4), Frame{4, 3, true, true});
  EXPECT_EQ(codesOf(e), counts);
  std::vector<int64_t> sums;
  int64_t running = -1;
  for (const int c : counts) {
    running += c + 1;
    sums.push_back(running);
  }
  EXPECT_EQ(sums, (std::vector<int64_t>{1, 8, 10, 12, 13, 21, 25, 28, 30, 33, 40, 42}));
  // Decoding: r = L & 3, q = L >> 2, s = q mod 3, k = q div 3 ("division by 3"), and the
  // Fig. 4F running divide gives the same positions.
  WeightRunningDecoder running4f(3, 3, DivideMode::SingleSubtract);
  EXPECT_EQ(running4f.rMaxRounded(), 4);
  EXPECT_EQ(running4f.rsMax(), 12);
  for (size_t i = 0; i < counts.size(); ++i) {
    const int64_t L = sums[i];
    const Position linear{L & 3, (L >> 2) % 3, (L >> 2) / 3};
    EXPECT_EQ(linear, in.positions[i]);
    EXPECT_EQ(running4f.next(counts[i]), in.positions[i]);
  }
  // The printed list decodes the 4th weight (value 6) to the pad column (3, 2, 0), and its
  // running sums are the printed ones.
  const std::vector<int> printedCounts{1, 6, 1, 0, 0, 7, 3, 2, 1, 2, 6, 1};
  WeightRunningDecoder printed(3, 3, DivideMode::SingleSubtract);
  std::vector<int64_t> printedSums;
  running = -1;
  std::vector<Position> printedPositions;
  for (const int c : printedCounts) {
    running += c + 1;
    printedSums.push_back(running);
    printedPositions.push_back(printed.next(c));
  }
  EXPECT_EQ(printedSums, (std::vector<int64_t>{1, 8, 10, 11, 12, 20, 24, 27, 29, 32, 39, 41}));
  EXPECT_EQ(printedPositions[3], (Position{3, 2, 0}));
  EXPECT_NE(printedPositions[4], in.positions[4]);
}

TEST(PatentVectors, Paragraph0092Addresses) {
  // Weight (2,0,0) (first Fig. 3B position, zero count 2) plus IA (7,3) (12,3) (20,3) (24,3),
  // linearised x + 32 * y with k = 0: follows digest erratum 10 (0-based k).
  PositionDecoder weights(CodeTable::zeroRunLength(4), Frame{3, 3, true, true});
  const Position w = weights.next(2);
  EXPECT_EQ(w, (Position{2, 0, 0}));
  const Sparse ia{{{7, 3, 0}, {12, 3, 0}, {20, 3, 0}, {24, 3, 0}}, {1, 1, 1, 1}};
  const Frame iaFrame{32, 8, true, false};
  const auto entries = encodeChecked(ia, CodeTable::fig4cActivations(), iaFrame);
  std::vector<int64_t> addresses;
  for (const Position& a : decodePositions(entries, CodeTable::fig4cActivations(), iaFrame)) {
    addresses.push_back((w.r + a.r) + 32 * (w.s + a.s));
  }
  // After the pads of the first run (7 + 3 * 32 = 103 zeros): X4 X7 X3.
  std::vector<int64_t> nonPad;
  for (size_t i = 0; i < entries.size(); ++i) {
    if (entries[i].value != 0) {
      nonPad.push_back(addresses[i]);
    }
  }
  EXPECT_EQ(nonPad, (std::vector<int64_t>{105, 110, 118, 122}));
}

TEST(PatentVectors, Fig4dWithFig4cAndFig5eNoWrap) {
  // Digest §3.9: 15 entries with 3 pads; Fig. 5E gives the same code numbers.
  const Sparse in = fig4d();
  const std::vector<int> codes{1, 10, 10, 1, 14, 0, 10, 11, 15, 10, 1, 11, 14, 10, 1};
  const std::vector<int32_t> values{3, 0, 4, 5, 6, 7, 0, 8, 9, 10, 11, 12, 0, 13, 14};
  for (const CodeTable& table : {CodeTable::fig4cWeights(), CodeTable::fig5e()}) {
    const auto e = encodeChecked(in, table, Frame{3, 3, false, false});
    EXPECT_EQ(codesOf(e), codes) << table.name();
    EXPECT_EQ(valuesOf(e), values) << table.name();
    EXPECT_EQ(show(e, table, false), "R1 S0(pad) S0 R1 K0 R0 S0(pad) S1 K1 S0 R1 S1 K0(pad) S0 R1");
  }
}

TEST(PatentVectors, Fig4dWithFig5d) {
  // Digest §3.9: r rounded to 4 (rs = r + 4s), K codes change channel, no k wrap.
  const Sparse in = fig4d();
  const CodeTable t = CodeTable::fig5d();
  const auto rs = encodeChecked(in, t, Frame{4, 3, true, false});
  EXPECT_EQ(show(rs, t, false), "R1 R6 R1 K0 R0 R7 K1 R2 R1 R2 K0(pad) R3 R1");
  EXPECT_EQ(codesOf(rs), (std::vector<int>{1, 6, 1, 14, 0, 7, 15, 2, 1, 2, 14, 3, 1}));
  EXPECT_EQ(valuesOf(rs), (std::vector<int32_t>{3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 0, 13, 14}));
  // Full wrap (r_max = 4, s_max = 3): pure R, the corrected ¶0132 list (digest erratum 2).
  const auto full = encodeChecked(in, t, Frame{4, 3, true, true});
  EXPECT_EQ(show(full, t, false), "R1 R6 R1 R1 R0 R7 R3 R2 R1 R2 R6 R1");
}

TEST(PatentVectors, ActivationExample) {
  // Digest §3.9 IA example; Fig. 4C-IA follows digest erratum 9 (code 10 = X16).
  const Sparse ia = iaExample();
  const CodeTable t4c = CodeTable::fig4cActivations();
  const auto e4c = encodeChecked(ia, t4c, Frame{8, 4, true, false});
  EXPECT_EQ(show(e4c, t4c, true), "X2 X10(pad) X1 X8(pad) X0 X4");
  EXPECT_EQ(codesOf(e4c), (std::vector<int>{2, 9, 1, 8, 0, 4}));
  EXPECT_EQ(valuesOf(e4c), (std::vector<int32_t>{7, 0, 3, 0, 9, 2}));
  const CodeTable t5a = CodeTable::fig5a();
  const auto e5a = encodeChecked(ia, t5a, Frame{8, 4, true, false});
  EXPECT_EQ(show(e5a, t5a, true), "X2 X12 X7(pad) X1 X4");
  EXPECT_EQ(codesOf(e5a), (std::vector<int>{2, 8, 7, 1, 4}));
  const CodeTable t5b = CodeTable::fig5b();
  const auto e5b = encodeChecked(ia, t5b, Frame{8, 4, false, false});
  EXPECT_EQ(show(e5b, t5b, true), "X2 Y7 Y0(pad) Y1 X4");
  EXPECT_EQ(codesOf(e5b), (std::vector<int>{2, 15, 8, 9, 4}));
  const CodeTable t5c = CodeTable::fig5c();
  const auto e5c = encodeChecked(ia, t5c, Frame{8, 4, false, false});
  EXPECT_EQ(show(e5c, t5c, true), "X2 Y4(pad) X2 Y0(pad) Y1 X4");
  EXPECT_EQ(codesOf(e5c), (std::vector<int>{2, 15, 2, 11, 12, 4}));
  EXPECT_EQ(valuesOf(e5c), (std::vector<int32_t>{7, 0, 3, 0, 9, 2}));
  // The printed Y16 reading decodes code 10 as a row jump instead.
  PositionDecoder y16(CodeTable::fig4cActivations(true), Frame{8, 4, true, false});
  EXPECT_EQ(y16.next(2), (Position{2, 0, 0}));
  EXPECT_EQ(y16.next(10), (Position{0, 3, 0})); // Y16: y += 1, x = 16 wraps two more rows
}
