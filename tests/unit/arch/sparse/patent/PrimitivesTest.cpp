/// \file
/// Tests of the four primitive instructions of seed 001 (encode sparse data, calculate index,
/// multiply pairs, scatter-add) against the patent's vectors (¶0092, ¶0186-0188, ¶0193, Fig.
/// 3B) and the digest's derived ones (§3.7, §3.9), and of the Table 14 loop against a naive
/// dense convolution on random tensors.
/// Primitives.h is a patent model, kept to check the text's worked examples; the engine
/// does not use it.
#include "nnaccel/arch/sparse/patent/Primitives.h"

#include "nnaccel/support/Error.h"
#include "nnaccel/support/Rng.h"

#include <gtest/gtest.h>
#include <string>
#include <vector>

namespace nnaccel::arch::sparse::patent {
namespace {

using namespace formats;

using Vec = std::vector<int32_t>;

/// Runs \p fn, expects an nnaccel::Error of kind Usage whose reason contains \p needle.
template <typename Fn> void expectUsage(Fn&& fn, const std::string& needle) {
  try {
    fn();
    FAIL() << "expected an nnaccel::Error mentioning '" << needle << "'";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Usage) << e.reason();
    EXPECT_NE(e.reason().find(needle), std::string::npos) << e.reason();
  }
}

/// Fig. 3B: two 3x3 kernels (r fastest, then s, then k) with a..f = 1..6 at (2,0,0), (0,1,0),
/// (1,2,0), (0,1,1), (2,1,1), (1,2,1).
Vec fig3bKernels() {
  Vec v(18, 0);
  v[2] = 1;
  v[3] = 2;
  v[7] = 3;
  v[9 + 3] = 4;
  v[9 + 5] = 5;
  v[9 + 7] = 6;
  return v;
}

// --- Encode sparse data -------------------------------------------------------------------------

TEST(EncodeSparse, RegisterExampleOfParagraph0188) {
  // Follows digest §4.1: direct indices; the patent's before/after registers exactly.
  const EncodeSparseConfig config{8, IndexEncoding::Direct, 4};
  EncodeSparseRegisters regs(8);
  regs.a = {1, 2, 3, 1, 2, 7, 0, 0};
  regs.ax = {8, 11, 12, 15, 17, 19, 0, 0};
  regs.g = 6;
  const Vec input = {0, 0, 3, 0, 4, 5, 0, 0};
  PrimitiveCounts counts;
  encodeSparseStep(regs, config, input, 32, &counts);
  EXPECT_EQ(regs.a, (Vec{1, 2, 3, 1, 2, 7, 3, 4}));
  EXPECT_EQ(regs.b, (Vec{5, 0, 0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(regs.ax, (Vec{8, 11, 12, 15, 17, 19, 34, 36}));
  EXPECT_EQ(regs.bx, (Vec{37, 0, 0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(regs.g, 9);
  EXPECT_EQ(counts.encodeSparseCalls, 1);

  // "Test G >= 8" then store A/AX; A <- B, AX <- BX, B = BX = 0, G -= 8 (digest §4.1 [R]).
  ASSERT_TRUE(encodeSparseFull(regs));
  const SparseVector stored = encodeSparseStore(regs);
  EXPECT_EQ(stored.values, (Vec{1, 2, 3, 1, 2, 7, 3, 4}));
  EXPECT_EQ(stored.indices, (Vec{8, 11, 12, 15, 17, 19, 34, 36}));
  EXPECT_EQ(regs.a, (Vec{5, 0, 0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(regs.ax, (Vec{37, 0, 0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(regs.b, Vec(8, 0));
  EXPECT_EQ(regs.bx, Vec(8, 0));
  EXPECT_EQ(regs.g, 1);
  EXPECT_FALSE(encodeSparseFull(regs));
  // The final flush returns the partial word.
  const SparseVector tail = encodeSparseStore(regs);
  EXPECT_EQ(tail.values, (Vec{5}));
  EXPECT_EQ(tail.indices, (Vec{37}));
  EXPECT_EQ(regs.g, 0);
}

TEST(EncodeSparse, ZeroCountsOfFig3B) {
  // ¶0186: data vector (a..f), index vector (2, 0, 3, 4, 1, 1); runs cross the kernel boundary.
  const Vec kernels = fig3bKernels();
  const SparseVector all = encodeSparse(kernels, EncodeSparseConfig{});
  EXPECT_EQ(all.values, (Vec{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(all.indices, (Vec{2, 0, 3, 4, 1, 1}));

  // Two-lane words: three stored vectors, the zero run carried across input words.
  PrimitiveCounts counts;
  const auto words =
      encodeSparseVectors(kernels, EncodeSparseConfig{2, IndexEncoding::ZeroCount, 4}, &counts);
  ASSERT_EQ(words.size(), 3U);
  EXPECT_EQ(words[0], (SparseVector{{1, 2}, {2, 0}}));
  EXPECT_EQ(words[1], (SparseVector{{3, 4}, {3, 4}}));
  EXPECT_EQ(words[2], (SparseVector{{5, 6}, {1, 1}}));
  EXPECT_EQ(counts.encodeSparseCalls, 9); // 18 scalars in 2-lane input words

  // Eight-lane words: 3 + 2 + 1 outputs never fill A, so one partial word at the end.
  const auto wide = encodeSparseVectors(kernels, EncodeSparseConfig{});
  ASSERT_EQ(wide.size(), 1U);
  EXPECT_EQ(wide[0], all);
}

TEST(EncodeSparse, ZeroRunPadsAndTrailingZeros) {
  Vec v(16, 0);
  v.push_back(7); // 16 zeros: the 16th becomes a pad (count 15), then 7 with count 0
  EXPECT_EQ(encodeSparse(v, EncodeSparseConfig{}), (SparseVector{{0, 7}, {15, 0}}));
  Vec v15(15, 0);
  v15.push_back(7); // 15 zeros fit one 4-bit count
  EXPECT_EQ(encodeSparse(v15, EncodeSparseConfig{}), (SparseVector{{7}, {15}}));
  Vec v33(33, 0);
  v33.push_back(5); // 16 + 16 + 1
  EXPECT_EQ(encodeSparse(v33, EncodeSparseConfig{}), (SparseVector{{0, 0, 5}, {15, 15, 1}}));
  // 2-bit counts: runs of at most 3 zeros.
  Vec v2 = {0, 0, 0, 0, 0, 9};
  EXPECT_EQ(encodeSparse(v2, EncodeSparseConfig{8, IndexEncoding::ZeroCount, 2}),
            (SparseVector{{0, 9}, {3, 1}}));

  // Trailing zeros are never coded: the instruction emits pads inside the trailing run, the
  // program drops them.
  Vec trailing = {3};
  trailing.resize(41, 0);
  EncodeSparseRegisters regs(8);
  const EncodeSparseConfig config{};
  for (size_t start = 0; start < 24; start += 8) {
    encodeSparseStep(regs, config, std::span<const int32_t>(trailing).subspan(start, 8),
                     static_cast<int64_t>(start));
  }
  EXPECT_EQ(regs.g, 2); // 3, then the pad at the 16th zero (index 16)
  EXPECT_EQ(regs.a[1], 0);
  EXPECT_EQ(regs.ax[1], 15);
  EXPECT_EQ(encodeSparse(trailing, config), (SparseVector{{3}, {0}}));
  EXPECT_TRUE(encodeSparseVectors(Vec(20, 0), config).empty());
  EXPECT_TRUE(encodeSparseVectors(Vec{}, config).empty());
}

TEST(EncodeSparse, ZeroCountsEqualTheZeroRunLengthCodeTable) {
  // The register-level zero-count form and the coded form with the plain zero-run-length table
  // and a wrapping frame agree, pads included, on random vectors of several densities.
  Rng rng(1234);
  for (int bits : {2, 4}) {
    const CodeTable zrl = CodeTable::zeroRunLength(bits);
    for (int trial = 0; trial < 40; ++trial) {
      Vec v(1 + rng.nextU64() % 120, 0);
      const uint64_t densityPermille = 20 + rng.nextU64() % 900;
      for (int32_t& x : v) {
        const uint64_t u = rng.nextU64();
        if (u % 1000 < densityPermille) {
          x = static_cast<int32_t>((u >> 20) % 255) - 127;
        }
      }
      const SparseVector zeroCounts =
          encodeSparse(v, EncodeSparseConfig{4, IndexEncoding::ZeroCount, bits});
      const SparseVector coded = encodeSparseCoded(v, zrl, Frame{7, 5, true, true});
      EXPECT_EQ(zeroCounts, coded) << "bits " << bits << " trial " << trial;
    }
  }
}

TEST(EncodeSparse, DirectIndicesOverAVector) {
  Vec v(20, 0);
  v[1] = 4;
  v[9] = -2;
  v[10] = 8;
  v[19] = 1;
  const auto words = encodeSparseVectors(v, EncodeSparseConfig{4, IndexEncoding::Direct, 4});
  ASSERT_EQ(words.size(), 1U);
  EXPECT_EQ(words[0], (SparseVector{{4, -2, 8, 1}, {1, 9, 10, 19}}));
}

TEST(EncodeSparse, CodedFig4DWithFig4CWeightCodes) {
  // Digest §3.9: Fig. 4D's four kernels, Fig. 4C weight codes, no wrap (3 pads).
  const std::vector<Vec> kernels = {{0, 3, 0, 0, 0, 0, 4, 0, 5},
                                    {6, 7, 0, 0, 0, 0, 0, 8, 0},
                                    {0, 9, 0, 10, 0, 11, 0, 12, 0},
                                    {0, 0, 0, 13, 0, 14, 0, 0, 0}};
  Vec all;
  for (const Vec& k : kernels) {
    all.insert(all.end(), k.begin(), k.end());
  }
  const SparseVector coded =
      encodeSparseCoded(all, CodeTable::fig4cWeights(), Frame{3, 3, false, false});
  EXPECT_EQ(coded.indices, (Vec{1, 10, 10, 1, 14, 0, 10, 11, 15, 10, 1, 11, 14, 10, 1}));
  EXPECT_EQ(coded.values, (Vec{3, 0, 4, 5, 6, 7, 0, 8, 9, 10, 11, 12, 0, 13, 14}));
  // With wrap (r_max = s_max = 3) the codes are Fig. 4E's zero counts (digest erratum 3).
  const SparseVector wrapped = encodeSparseCoded(all, CodeTable::fig4cWeights(), Frame{3, 3});
  EXPECT_EQ(wrapped.indices, (Vec{1, 4, 1, 0, 0, 5, 2, 1, 1, 1, 4, 1}));

  const auto vectors = splitIntoVectors(coded, 4);
  ASSERT_EQ(vectors.size(), 4U);
  EXPECT_EQ(vectors[3], (SparseVector{{0, 13, 14}, {14, 10, 1}}));
  EXPECT_EQ(splitIntoVectors(SparseVector{{1, 2, 3}, {0, 0, 0}}, 2).back(),
            (SparseVector{{3}, {0}}));
}

TEST(EncodeSparse, Errors) {
  EncodeSparseRegisters regs(8);
  regs.g = 8; // the program forgot to store A
  const Vec input = {1, 0, 0, 0, 0, 0, 0, 0};
  encodeSparseStep(regs, EncodeSparseConfig{}, Vec{0, 0, 0, 0, 0, 0, 0, 0}, 0); // no output: fine
  regs.g = 15;
  const EncodeSparseRegisters before = regs;
  expectUsage(
      [&] {
        encodeSparseStep(regs, EncodeSparseConfig{}, Vec{1, 2}, 0);
      },
      "would overflow B");
  EXPECT_EQ(regs.g, 15); // unchanged after the failed instruction
  EXPECT_EQ(regs.a, before.a);
  expectUsage([&] { encodeSparseStep(regs, EncodeSparseConfig{}, Vec(9, 1), 0); },
              "the input word has 9 values");
  expectUsage([&] { encodeSparseStep(regs, EncodeSparseConfig{4}, input, 0); },
              "have 8 lanes, the configuration 4");
  expectUsage(
      [&] {
        encodeSparseStep(regs, EncodeSparseConfig{8, IndexEncoding::Direct, 4}, Vec{1}, -1);
      },
      "direct index IX = -1");
  regs.g = 17;
  expectUsage([&] { encodeSparseStep(regs, EncodeSparseConfig{}, input, 0); }, "G = 17");
  expectUsage([] { EncodeSparseRegisters bad(0); }, "lanes = 0");
  expectUsage(
      [&] {
        encodeSparse(input, EncodeSparseConfig{8, IndexEncoding::ZeroCount, 17});
      },
      "indexBits = 17");
  expectUsage([&] { encodeSparse(input, EncodeSparseConfig{0}); }, "lanes = 0");
  expectUsage(
      [&] {
        encodeSparseCoded(input, CodeTable::zeroRunLength(4), Frame{0, 3});
      },
      "frame rMax = 0");
  expectUsage([] { splitIntoVectors(SparseVector{{1}, {}}, 2); }, "1 values but 0 indices");
  expectUsage([] { splitIntoVectors(SparseVector{}, 0); }, "lanes = 0");
}

// --- Multiply pairs ---------------------------------------------------------------------------

TEST(MultiplyPairs, TableFiveOrderingWeightLaneInner) {
  // t = f + i*F (Table 5). The ¶0198 example lists the first operand outer (a*p, a*q, ...);
  // we follow Table 5 so that products and addresses share one ordering (digest §4.3 [R]).
  PrimitiveCounts counts;
  const PairVector p = multiplyPairs(Vec{1, 2, 3, 4}, 4, Vec{10, 20, 30, 40}, 4, &counts);
  EXPECT_EQ(p.lanes, (Vec{10, 20, 30, 40, 20, 40, 60, 80, 30, 60, 90, 120, 40, 80, 120, 160}));
  EXPECT_EQ(p.lanes[1], 2 * 10); // f = 1, i = 0
  EXPECT_EQ(p.lanes[4], 1 * 20); // f = 0, i = 1
  EXPECT_EQ(counts.products, 16);
  EXPECT_EQ(counts.multiplyPairsCalls, 1);

  // 16-bit extremes are exact in int32.
  const PairVector big = multiplyPairs(Vec{-32768, 32767}, 2, Vec{-32768}, 1);
  EXPECT_EQ(big.lanes, (Vec{1073741824, -1073709056}));
}

TEST(MultiplyPairs, PartialVectorsMaskLanes) {
  PrimitiveCounts counts;
  const PairVector p = multiplyPairs(Vec{2, -3, 5}, 4, Vec{7, 0}, 4, &counts);
  ASSERT_EQ(p.lanes.size(), 16U);
  EXPECT_EQ(p.validCount(), 6);
  EXPECT_EQ(counts.products, 6); // the zero-valued activation pad is still multiplied
  for (int t = 0; t < 16; ++t) {
    const int f = t % 4;
    const int i = t / 4;
    EXPECT_EQ(p.valid(t), f < 3 && i < 2) << t;
  }
  EXPECT_EQ(p.lanes, (Vec{14, -21, 35, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}));
}

TEST(MultiplyPairs, Errors) {
  expectUsage(
      [] {
        multiplyPairs(Vec{1, 2, 3}, 2, Vec{1}, 1);
      },
      "the weight operand has 3 values but its register only 2 lanes");
  expectUsage([] { multiplyPairs(Vec{1}, 1, Vec{1}, 0); }, "activation register has 0 lanes");
  expectUsage(
      [] {
        multiplyPairs(Vec{1}, 1, Vec{1, 40000}, 2);
      },
      "activation lane 1: value 40000 does not fit 16 bits");
  expectUsage([] { multiplyPairs(Vec{-32769}, 1, Vec{1}, 1); }, "weight lane 0");
}

// --- Calculate index ---------------------------------------------------------------------------

/// The ¶0092 / §3.7 set-up: weights of Fig. 3B as 4-bit zero counts in a wrapping 3x3 frame;
/// activations (7,3), (12,3), (20,3), (24,3) in a 30 x 6 tile (so max_x_oa = 30 + 3 - 1 = 32,
/// max_y_oa = 6 + 3 - 1 = 8, the digest's assumption) as 8-bit zero counts: linear indices 97,
/// 102, 110, 114 give counts 97, 4, 7, 3.
struct Paragraph0092 {
  CodeTable weightTable = CodeTable::zeroRunLength(4);
  CodeTable activationTable = CodeTable::zeroRunLength(8);
  PositionDecoder weightStart{weightTable, Frame{3, 3, true, true}};
  PositionDecoder activationStart{activationTable, Frame{30, 6, true, false}};
  Vec weightIndices = {2, 0, 3, 4};
  Vec activationIndices = {97, 4, 7, 3};
  OutputFrame frame{32, 8};
};

TEST(CalculateIndices, Paragraph0092SingleWeight) {
  const Paragraph0092 p;
  // Weight (2,0,0) alone: ¶0092 / ¶0193 give 105, 110, 118, 122 (k = 0, digest erratum 10).
  PrimitiveCounts counts;
  const CalculateIndexResult r = calculateIndices(Vec{2}, p.weightStart, 1, p.activationIndices,
                                                  p.activationStart, 4, p.frame, &counts);
  EXPECT_EQ(r.addresses.lanes, (Vec{105, 110, 118, 122}));
  EXPECT_EQ(counts.calculateIndexCalls, 1);
  EXPECT_EQ(counts.addresses, 4);
  EXPECT_EQ(r.weightState.position(), (Position{2, 0, 0}));
  EXPECT_EQ(r.activationState.position(), (Position{24, 3, 0}));
  // The input states are operands, not modified.
  EXPECT_EQ(p.weightStart.position(), (Position{-1, 0, 0}));
}

TEST(CalculateIndices, DerivedSixteenAddressExample) {
  // Digest §3.7 [D]: F = I = 4, t = f + i*F, max_y_oa = 8.
  const Paragraph0092 p;
  const Vec expected = {105, 135, 168, 391, 110, 140, 173, 396,
                        118, 148, 181, 404, 122, 152, 185, 408};
  const CalculateIndexResult r = calculateIndices(
      p.weightIndices, p.weightStart, 4, p.activationIndices, p.activationStart, 4, p.frame);
  EXPECT_EQ(r.addresses.lanes, expected);
  EXPECT_EQ(r.weightState.position(), (Position{0, 1, 1}));

  // The same addresses from 2-lane vectors, with the decode state carried explicitly: the
  // weight state chains across weight vectors, the activation state across activation vectors
  // and is held while the weight vectors of one activation vector run.
  std::vector<int32_t> got(16, -1);
  PositionDecoder activationState = p.activationStart;
  for (int av = 0; av < 2; ++av) {
    PositionDecoder weightState = p.weightStart;
    PositionDecoder activationAfter = activationState;
    for (int wv = 0; wv < 2; ++wv) {
      const Vec wx(p.weightIndices.begin() + 2 * wv, p.weightIndices.begin() + 2 * wv + 2);
      const Vec ax(p.activationIndices.begin() + 2 * av, p.activationIndices.begin() + 2 * av + 2);
      CalculateIndexResult part =
          calculateIndices(wx, weightState, 2, ax, activationState, 2, p.frame);
      for (int t = 0; t < 4; ++t) {
        const int f = 2 * wv + t % 2;
        const int i = 2 * av + t / 2;
        got[static_cast<size_t>(f + 4 * i)] = part.addresses.lanes[static_cast<size_t>(t)];
      }
      weightState = part.weightState;
      activationAfter = part.activationState;
    }
    activationState = activationAfter;
  }
  EXPECT_EQ(got, expected);
}

TEST(CalculateIndices, PartialVectorsAndLinearisation) {
  const Paragraph0092 p;
  // Three weights in a 4-lane register, one activation in a 2-lane register.
  PrimitiveCounts counts;
  const CalculateIndexResult r = calculateIndices(Vec{2, 0, 3}, p.weightStart, 4, Vec{97},
                                                  p.activationStart, 2, p.frame, &counts);
  EXPECT_EQ(r.addresses.lanes, (Vec{105, 135, 168, 0, 0, 0, 0, 0}));
  EXPECT_EQ(r.addresses.validCount(), 3);
  EXPECT_EQ(counts.addresses, 3);
  // Eq. 1 with k = 1 (¶0090's 1-based label): (9,3,1) -> 9 + 3*32 + 1*32*8 = 361.
  const std::vector<Position> w = {{2, 0, 1}};
  const std::vector<Position> a = {{7, 3, 0}};
  EXPECT_EQ(linearIndices(w, 1, a, 1, p.frame).lanes, (Vec{361}));
}

TEST(CalculateIndices, Errors) {
  const Paragraph0092 p;
  expectUsage(
      [&] { calculateIndices(Vec{16}, p.weightStart, 1, Vec{0}, p.activationStart, 1, p.frame); },
      "calculate index: weight lane 0");
  expectUsage(
      [&] {
        calculateIndices(Vec{0}, p.weightStart, 1, Vec{0, -1}, p.activationStart, 2, p.frame);
      },
      "activation lane 1: index -1 is not a code number");
  expectUsage(
      [&] {
        calculateIndices(Vec{0, 0}, p.weightStart, 1, Vec{0}, p.activationStart, 1, p.frame);
      },
      "weight operand has 2 values");
  // max_x_oa = 20 cannot hold x = 22 (weight (2,0,0) + activation (20,3)): lane t = 2.
  expectUsage(
      [&] {
        calculateIndices(Vec{2}, p.weightStart, 1, p.activationIndices, p.activationStart, 4,
                         OutputFrame{20, 8});
      },
      "calculate index lane 2: output position (x=22, y=3, k=0) is outside");
  expectUsage(
      [&] {
        calculateIndices(Vec{2}, p.weightStart, 1, Vec{0}, p.activationStart, 1,
                         OutputFrame{32, 0});
      },
      "max_y_oa = 0");
  const std::vector<Position> negative = {{-1, 0, 0}};
  const std::vector<Position> origin = {{0, 0, 0}};
  expectUsage([&] { linearIndices(negative, 1, origin, 1, p.frame); }, "x=-1");
}

// --- Scatter-add ---------------------------------------------------------------------------------

TEST(ScatterAdd, TableThirteenWithDuplicates) {
  Vec acc(8, 100);
  PrimitiveCounts counts;
  scatterAdd(acc, Vec{3, 5, 3, 3, 0}, Vec{1, 2, 4, 0, -7}, &counts);
  // Duplicate index 3 within one instruction: every scalar is added (serialised semantics).
  EXPECT_EQ(acc, (Vec{93, 100, 100, 105, 100, 102, 100, 100}));
  EXPECT_EQ(counts.scatterAddCalls, 1);
  EXPECT_EQ(counts.scatterRequests, 4);
  EXPECT_EQ(counts.zeroValueLanes, 1); // the zero scalar issues no request
  EXPECT_EQ(counts.maskedLanes, 0);
}

TEST(ScatterAdd, PairVectorsSkipMaskedLanes) {
  const PairVector products = multiplyPairs(Vec{2, 0}, 2, Vec{3}, 2); // lanes 2, 3 masked
  PairVector addresses = products;
  addresses.lanes = {1, 6, 1000, -5}; // garbage in masked lanes is never used
  Vec acc(8, 0);
  PrimitiveCounts counts;
  scatterAdd(acc, addresses, products, &counts);
  EXPECT_EQ(acc, (Vec{0, 6, 0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(counts.scatterRequests, 1);
  EXPECT_EQ(counts.zeroValueLanes, 1); // 0 * 3 from the zero-valued weight pad
  EXPECT_EQ(counts.maskedLanes, 2);
}

TEST(ScatterAdd, Errors) {
  Vec acc(4, 0);
  expectUsage(
      [&] {
        scatterAdd(acc, Vec{0, 1, 4}, Vec{1, 1, 1});
      },
      "scatter-add lane 2: index 4 is outside the accumulator [0, 4)");
  EXPECT_EQ(acc, Vec(4, 0)); // unchanged: lanes are checked before any add
  expectUsage([&] { scatterAdd(acc, Vec{-1}, Vec{0}); }, "lane 0: index -1");
  expectUsage([&] { scatterAdd(acc, Vec{0, 1}, Vec{1}); }, "2 indices but 1 scalars");
  const PairVector a = multiplyPairs(Vec{1}, 1, Vec{1}, 2);
  const PairVector b = multiplyPairs(Vec{1}, 1, Vec{1, 1}, 2);
  expectUsage([&] { scatterAdd(acc, a, b); }, "the address register has 1x2 lanes (1x1 valid");
  expectUsage([&] { scatterAdd(acc, PairVector{}, PairVector{}); }, "scatter-add");
}

// --- The Table 14 loop ---------------------------------------------------------------------------

/// Naive dense reference: ONNX Conv (cross-correlation), stride 1, same zero padding, no bias.
Vec naiveConvolution(const SparseConvShape& s, const std::vector<int8_t>& in,
                     const std::vector<int8_t>& w) {
  const int padH = (s.kernelHeight - 1) / 2;
  const int padW = (s.kernelWidth - 1) / 2;
  Vec out(static_cast<size_t>(s.outChannels * s.height * s.width), 0);
  for (int k = 0; k < s.outChannels; ++k) {
    for (int y = 0; y < s.height; ++y) {
      for (int x = 0; x < s.width; ++x) {
        int32_t sum = 0;
        for (int c = 0; c < s.channels; ++c) {
          for (int i = 0; i < s.kernelHeight; ++i) {
            for (int j = 0; j < s.kernelWidth; ++j) {
              const int yi = y + i - padH;
              const int xi = x + j - padW;
              if (yi < 0 || yi >= s.height || xi < 0 || xi >= s.width) {
                continue;
              }
              sum += in[static_cast<size_t>((c * s.height + yi) * s.width + xi)] *
                     w[static_cast<size_t>(
                         ((k * s.channels + c) * s.kernelHeight + i) * s.kernelWidth + j)];
            }
          }
        }
        out[static_cast<size_t>((k * s.height + y) * s.width + x)] = sum;
      }
    }
  }
  return out;
}

/// Random int8 values, non-zero with probability densityPermille / 1000.
std::vector<int8_t> randomInt8(Rng& rng, size_t n, uint64_t densityPermille) {
  std::vector<int8_t> v(n, 0);
  for (int8_t& x : v) {
    const uint64_t u = rng.nextU64();
    if (u % 1000 < densityPermille) {
      const auto value = static_cast<int8_t>(static_cast<uint8_t>(u >> 32));
      x = value == 0 ? int8_t{1} : value;
    }
  }
  return v;
}

/// The counters of a whole loop agree with each other.
void expectConsistentCounts(const PrimitiveCounts& c, int F, int I) {
  EXPECT_EQ(c.multiplyPairsCalls, c.calculateIndexCalls);
  EXPECT_EQ(c.multiplyPairsCalls, c.scatterAddCalls);
  EXPECT_EQ(c.products, c.addresses);
  EXPECT_EQ(c.products, c.scatterRequests + c.zeroValueLanes);
  EXPECT_EQ(c.products + c.maskedLanes, c.multiplyPairsCalls * F * I);
}

TEST(SparseConvolution, EqualsNaiveConvolutionOnRandomTensors) {
  const std::vector<SparseConvShape> shapes = {
      {1, 1, 1, 1, 1, 1}, {2, 5, 7, 3, 3, 3}, {3, 6, 4, 5, 3, 1},
      {2, 4, 9, 2, 1, 5}, {3, 7, 6, 4, 5, 3}, {1, 2, 3, 2, 5, 5}, // kernel wider than the tile
  };
  Rng rng(20240601);
  int cases = 0;
  int64_t maskedLanes = 0;
  int64_t zeroValueLanes = 0;
  for (const SparseConvShape& shape : shapes) {
    for (uint64_t densityPermille : {100U, 350U, 700U, 1000U}) {
      const auto in = randomInt8(
          rng, static_cast<size_t>(shape.channels * shape.height * shape.width), densityPermille);
      const auto w = randomInt8(rng,
                                static_cast<size_t>(shape.outChannels * shape.channels *
                                                    shape.kernelHeight * shape.kernelWidth),
                                densityPermille);
      const Vec expected = naiveConvolution(shape, in, w);
      for (int F : {1, 2, 4}) {
        for (int I : {1, 2, 4}) {
          for (int chunk : {0, 2}) {
            SparseConvOptions options;
            options.weightLanes = F;
            options.activationLanes = I;
            options.outChannelsPerChunk = chunk;
            const SparseConvResult r = sparseConvolution(shape, in, w, options);
            ASSERT_EQ(r.output, expected)
                << "C=" << shape.channels << " H=" << shape.height << " W=" << shape.width
                << " K=" << shape.outChannels << " kH=" << shape.kernelHeight
                << " kW=" << shape.kernelWidth << " density " << densityPermille << " F=" << F
                << " I=" << I << " Kc=" << chunk;
            expectConsistentCounts(r.counts, F, I);
            maskedLanes += r.counts.maskedLanes;
            zeroValueLanes += r.counts.zeroValueLanes;
            ++cases;
          }
        }
      }
    }
  }
  EXPECT_EQ(cases, 6 * 4 * 9 * 2);
  EXPECT_GT(maskedLanes, 0);    // vectors with tails occurred
  EXPECT_GT(zeroValueLanes, 0); // pads occurred
}

TEST(SparseConvolution, DenseTensorsCountEveryProduct) {
  // All values non-zero and no pads: one product and one request per (input, weight) pair
  // whose output lands anywhere in the halo-inclusive accumulator.
  const SparseConvShape shape{2, 3, 4, 3, 3, 3};
  const std::vector<int8_t> in(2 * 3 * 4, 2);
  const std::vector<int8_t> w(3 * 2 * 3 * 3, -1);
  SparseConvOptions options;
  options.weightLanes = 4;
  options.activationLanes = 4;
  const SparseConvResult r = sparseConvolution(shape, in, w, options);
  EXPECT_EQ(r.output, naiveConvolution(shape, in, w));
  const int64_t pairs = 2 * (3 * 4) * (3 * 3 * 3); // C * (H*W) * (K*kH*kW)
  EXPECT_EQ(r.counts.products, pairs);
  EXPECT_EQ(r.counts.scatterRequests, pairs);
  EXPECT_EQ(r.counts.zeroValueLanes, 0);
  // Per channel: 3 activation vectors (12 values) x 7 weight vectors (27 values, tail of 3).
  EXPECT_EQ(r.counts.multiplyPairsCalls, 2 * 3 * 7);
  EXPECT_EQ(r.counts.maskedLanes, 2 * 3 * (16 - 12)); // the 3-of-4 weight tail, once per pass
  // Encode: 24 activation scalars in 4-lane words (6) + 2 channels x 27 weights (7 words each).
  EXPECT_EQ(r.counts.encodeSparseCalls, 6 + 2 * 7);
  // Centre output of channel 0: 2 channels x 9 taps x (2 * -1).
  EXPECT_EQ(r.output[1 * 4 + 1], -36);
}

TEST(SparseConvolution, CodedIndicesGiveTheSameResult) {
  // Weights with Fig. 4C / 5E weight codes, activations with the IA tables of Figs. 4C, 5A-5C.
  const SparseConvShape shape{3, 6, 8, 4, 3, 3};
  Rng rng(77);
  const auto in = randomInt8(rng, 3 * 6 * 8, 250);
  const auto w = randomInt8(rng, 4 * 3 * 3 * 3, 300);
  const Vec expected = naiveConvolution(shape, in, w);
  const std::vector<std::pair<CodeTable, CodeTable>> tables = {
      {CodeTable::fig4cWeights(), CodeTable::fig4cActivations()},
      {CodeTable::fig5e(), CodeTable::fig5a()},
      {CodeTable::fig4cWeights(), CodeTable::fig5b()},
      {CodeTable::fig5e(), CodeTable::fig5c()},
  };
  for (const auto& [weightCodes, activationCodes] : tables) {
    SparseConvOptions options;
    options.weightLanes = 2;
    options.activationLanes = 4;
    options.weightCodes = weightCodes;
    options.activationCodes = activationCodes;
    const SparseConvResult r = sparseConvolution(shape, in, w, options);
    EXPECT_EQ(r.output, expected) << weightCodes.name() << " / " << activationCodes.name();
    expectConsistentCounts(r.counts, 2, 4);
  }
}

TEST(SparseConvolution, Errors) {
  const SparseConvShape shape{1, 3, 3, 1, 3, 3};
  const std::vector<int8_t> in(9, 1);
  const std::vector<int8_t> w(9, 1);
  const SparseConvOptions options;
  expectUsage(
      [&] {
        sparseConvolution(SparseConvShape{1, 3, 3, 1, 2, 3}, in, w, options);
      },
      "kernel 2x3 must have odd sizes");
  expectUsage(
      [&] {
        sparseConvolution(SparseConvShape{0, 3, 3, 1, 3, 3}, in, w, options);
      },
      "must be positive");
  expectUsage([&] { sparseConvolution(shape, std::vector<int8_t>(8, 1), w, options); },
              "input has 8 values, expected C*H*W = 9");
  expectUsage([&] { sparseConvolution(shape, in, std::vector<int8_t>(10, 1), options); },
              "weights have 10 values");
  SparseConvOptions badLanes;
  badLanes.activationLanes = 0;
  expectUsage([&] { sparseConvolution(shape, in, w, badLanes); }, "I = 0");
}

} // namespace
} // namespace nnaccel::arch::sparse::patent
