/// \file
/// Tests of the mass multiplier (seed 002 Figs. 3-6, digest_002 §3 and §9): the digest's
/// adder counts for all 8-bit multiples, 15a = 16a - a, the stage structure of Figs. 5A and 6,
/// every multiple of every construction against a*w, the split-index form (12 = 2 x 6 bits),
/// the break-even area model and the error paths. DISABLED_PrintDocTable prints the table of
/// docs/arch/StreamMassMultiplier.md.
#include "nnaccel/arch/stream/MassMultiplier.h"

#include "nnaccel/support/Error.h"

#include <array>
#include <bit>
#include <cstdio>
#include <fmt/format.h>
#include <functional>
#include <gtest/gtest.h>
#include <limits>

namespace nnaccel::arch::stream {
namespace {

constexpr std::array<MultiplierForm, 4> kForms = {
    MultiplierForm::ShiftedTerms, MultiplierForm::SignedDigit, MultiplierForm::SharedPairs,
    MultiplierForm::SharedQuads};

/// Nonzero canonical signed digits of v > 0 (reference, independent of the library).
int nafWeight(int64_t v) {
  int weight = 0;
  while (v != 0) {
    if (v & 1) {
      v -= 2 - (v & 3);
      ++weight;
    }
    v >>= 1;
  }
  return weight;
}

/// Deterministic sample inputs: the extremes, small values of both signs and an LCG.
std::vector<int32_t> sampleInputs(int count) {
  std::vector<int32_t> inputs = {0,
                                 1,
                                 -1,
                                 2,
                                 -2,
                                 3,
                                 127,
                                 -128,
                                 255,
                                 12345,
                                 -54321,
                                 std::numeric_limits<int32_t>::max(),
                                 std::numeric_limits<int32_t>::min()};
  uint32_t state = 0x2545F491u;
  while (static_cast<int>(inputs.size()) < count) {
    state = state * 1664525u + 1013904223u;
    inputs.push_back(static_cast<int32_t>(state));
  }
  return inputs;
}

void expectConfigError(const std::function<void()>& f, const std::string& key,
                       const std::string& fragment) {
  try {
    f();
    FAIL() << "expected nnaccel::Error for " << key;
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Config);
    EXPECT_EQ(e.context().key, key);
    EXPECT_NE(e.reason().find(fragment), std::string::npos) << e.reason();
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
  }
}

TEST(MassMultiplierCost, IndependentFormsMatchDigestCountsForEightBits) {
  // digest §3/§9: all 255 nonzero 8-bit multiples computed independently.
  const MassMultiplierCost binary = massMultiplierCost(MultiplierForm::ShiftedTerms, 8);
  EXPECT_EQ(binary.products, 255);
  EXPECT_EQ(binary.adders, 769);
  EXPECT_EQ(binary.maxTermsPerProduct, 8);
  EXPECT_EQ(binary.pipelineStages, 1); // Fig. 3: one stage (or combinational)
  EXPECT_EQ(binary.adderLevels, 3);
  EXPECT_EQ(binary.intermediates, 0);
  const MassMultiplierCost csd = massMultiplierCost(MultiplierForm::SignedDigit, 8);
  EXPECT_EQ(csd.products, 255);
  EXPECT_EQ(csd.adders, 541);
  EXPECT_EQ(csd.maxTermsPerProduct, 5);
  EXPECT_EQ(csd.pipelineStages, 1);
  // Independently of the library: sum of (terms - 1) over the 255 multiples.
  int64_t binarySum = 0, csdSum = 0;
  for (int w = 1; w < 256; ++w) {
    binarySum += std::popcount(static_cast<unsigned>(w)) - 1;
    csdSum += nafWeight(w) - 1;
  }
  EXPECT_EQ(binarySum, 769);
  EXPECT_EQ(csdSum, 541);
}

TEST(MassMultiplierCost, FifteenIsSixteenMinusOne) {
  // Fig. 4: 15a = 8a + 4a + 2a + a (4 terms) or 16a - a (2 terms, one subtraction).
  const MassMultiplier binary(8, false, MultiplierForm::ShiftedTerms);
  const MassMultiplier csd(8, false, MultiplierForm::SignedDigit);
  const ProductRef b15 = binary.productRefs()[15];
  const ProductRef c15 = csd.productRefs()[15];
  ASSERT_GT(b15.node, 0);
  ASSERT_GT(c15.node, 0);
  EXPECT_EQ(binary.nodes()[static_cast<size_t>(b15.node)].operands.size(), 4U);
  const std::vector<PlanOperand>& ops = csd.nodes()[static_cast<size_t>(c15.node)].operands;
  ASSERT_EQ(ops.size(), 2U);
  EXPECT_EQ(ops[0].node, 0); // 16a: the input shifted by 4
  EXPECT_EQ(ops[0].shift, 4);
  EXPECT_FALSE(ops[0].negate);
  EXPECT_EQ(ops[1].node, 0); // - a
  EXPECT_EQ(ops[1].shift, 0);
  EXPECT_TRUE(ops[1].negate);
  EXPECT_EQ(csd.multiple(7, 15), 105);
  EXPECT_EQ(csd.multiple(-7, 15), -105);
}

TEST(MassMultiplierCost, SharedFormsUseFewerAdders) {
  const MassMultiplierCost csd = massMultiplierCost(MultiplierForm::SignedDigit, 8);
  const MassMultiplierCost pairs = massMultiplierCost(MultiplierForm::SharedPairs, 8);
  const MassMultiplierCost quads = massMultiplierCost(MultiplierForm::SharedQuads, 8);
  EXPECT_LT(pairs.adders, csd.adders);
  EXPECT_LT(quads.adders, csd.adders);
  // Every odd multiple 3..255 needs its own adder (even ones are shifts of odd ones), so 127 is
  // the least any construction can use; the Fig. 5A construction reaches it with no
  // intermediate values.
  EXPECT_EQ(pairs.adders, 127);
  EXPECT_EQ(pairs.adderCircuits, 127);
  EXPECT_EQ(pairs.intermediates, 0);
  EXPECT_EQ(quads.adderCircuits, 127);
  EXPECT_GE(quads.adders, pairs.adders); // 3- and 4-input adders buy the shorter pipeline
  EXPECT_EQ(pairs.pipelineStages, 3);    // Fig. 5A: pairs, triples/quads, products
  EXPECT_EQ(quads.pipelineStages, 2);    // Fig. 6 needs only two stages for 8 bits
  EXPECT_EQ(pairs.products, 255);
  EXPECT_EQ(quads.products, 255);
  for (int bits = 2; bits <= 10; ++bits) {
    const MassMultiplierCost independent = massMultiplierCost(MultiplierForm::SignedDigit, bits);
    for (MultiplierForm form : {MultiplierForm::SharedPairs, MultiplierForm::SharedQuads}) {
      const MassMultiplierCost shared = massMultiplierCost(form, bits);
      EXPECT_LE(shared.adders, independent.adders) << bits;
      // One adder per odd multiple >= 3: the least possible, no intermediates.
      EXPECT_EQ(shared.adderCircuits, (int64_t{1} << (bits - 1)) - 1) << bits;
      EXPECT_EQ(shared.intermediates, 0) << bits;
      EXPECT_EQ(massMultiplierCost(form, bits, true).adderCircuits, (int64_t{1} << (bits - 2)) - 1)
          << bits;
    }
  }
}

TEST(MassMultiplierCost, SharedPairsFollowFig5AStageStructure) {
  // Stage 1 holds pairs of terms, stage 2 triples (pair + term) and quads (pair + pair),
  // stage 3 the rest (up to 5 signed digits for 8 bits): a value at stage s has more than
  // 2^(s-1) and at most 2^s terms and adds two values registered before stage s.
  const MassMultiplier mm(8, false, MultiplierForm::SharedPairs);
  std::array<int, 4> perStage{};
  for (size_t i = 1; i < mm.nodes().size(); ++i) {
    const PlanNode& n = mm.nodes()[i];
    ASSERT_EQ(n.operands.size(), 2U);
    const int terms = nafWeight(n.coefficient);
    EXPECT_GT(terms, 1 << (n.stage - 1)) << n.coefficient;
    EXPECT_LE(terms, 1 << n.stage) << n.coefficient;
    for (const PlanOperand& op : n.operands)
      EXPECT_LT(mm.nodes()[static_cast<size_t>(op.node)].stage, n.stage);
    if (n.stage == 1) {
      EXPECT_EQ(n.operands[0].node, 0);
      EXPECT_EQ(n.operands[1].node, 0);
    }
    ++perStage[static_cast<size_t>(n.stage)];
  }
  EXPECT_EQ(perStage[0], 0);
  EXPECT_GT(perStage[1], 0);
  EXPECT_GT(perStage[2], 0);
  EXPECT_GT(perStage[3], 0);
}

TEST(MassMultiplierCost, SharedQuadsFollowFig6StageStructure) {
  // Stage 1: up to four terms straight from the input (no pairs used first), later stages at
  // most four registered values per adder.
  const MassMultiplier mm(10, false, MultiplierForm::SharedQuads);
  for (size_t i = 1; i < mm.nodes().size(); ++i) {
    const PlanNode& n = mm.nodes()[i];
    EXPECT_GE(n.operands.size(), 2U);
    EXPECT_LE(n.operands.size(), 4U);
    if (n.stage == 1) {
      for (const PlanOperand& op : n.operands)
        EXPECT_EQ(op.node, 0);
    }
  }
  EXPECT_EQ(mm.cost().pipelineStages, 2);
}

TEST(MassMultiplierCost, AnalyticStagesMatchConstructionsAndPatentClaims) {
  for (MultiplierForm form : kForms)
    for (bool isSigned : {false, true})
      for (int bits = 1; bits <= 12; ++bits) {
        const MassMultiplierCost c = massMultiplierCost(form, bits, isSigned);
        EXPECT_EQ(analyticPipelineStages(form, bits, isSigned), c.pipelineStages)
            << multiplierFormName(form) << " B=" << bits << " signed=" << isSigned;
        EXPECT_EQ(analyticMaxTerms(form, bits, isSigned), c.maxTermsPerProduct)
            << multiplierFormName(form) << " B=" << bits << " signed=" << isSigned;
      }
  // The canonical-digit bound floor(B/2)+1 against enumeration up to 16 bits.
  for (int bits = 1; bits <= 16; ++bits) {
    int most = 0;
    for (int64_t w = 1; w < (int64_t{1} << bits); ++w)
      most = std::max(most, nafWeight(w));
    EXPECT_EQ(analyticMaxTerms(MultiplierForm::SignedDigit, bits), most) << bits;
  }
  // Fig. 5A is sufficient for B = 8 in its three stages (8 binary terms = 2^3).
  EXPECT_EQ(analyticMaxTerms(MultiplierForm::ShiftedTerms, 8), 8);
  EXPECT_EQ(analyticPipelineStages(MultiplierForm::SharedPairs, 8), 3);
  // Fig. 6 is sufficient for B = 32 in three 4-input stages: 32 binary terms <= 4^3 (the patent's
  // triples/septets-octets/products reach 3, 8, 32 terms); analytic, 2^32 products are not
  // enumerated.
  EXPECT_EQ(analyticMaxTerms(MultiplierForm::ShiftedTerms, 32), 32);
  EXPECT_EQ(analyticMaxTerms(MultiplierForm::SharedQuads, 32), 17);
  EXPECT_EQ(analyticPipelineStages(MultiplierForm::SharedQuads, 32), 3);
  EXPECT_EQ(analyticPipelineStages(MultiplierForm::SharedPairs, 32), 5);
}

TEST(MassMultiplier, EveryMultipleOfEveryConstructionIsExact) {
  const std::vector<int32_t> inputs = sampleInputs(40);
  std::vector<int64_t> multiples;
  for (MultiplierForm form : kForms)
    for (bool isSigned : {false, true})
      for (int bits = 1; bits <= 10; ++bits) {
        const MassMultiplier mm(bits, isSigned, form);
        ASSERT_EQ(mm.codes(), int64_t{1} << bits);
        multiples.assign(static_cast<size_t>(mm.codes()), -1);
        for (int32_t a : inputs) {
          mm.compute(a, multiples);
          for (int64_t code = 0; code < mm.codes(); ++code) {
            const int64_t w = isSigned && code >= mm.codes() / 2 ? code - mm.codes() : code;
            ASSERT_EQ(multiples[static_cast<size_t>(code)], int64_t{a} * w)
                << multiplierFormName(form) << " B=" << bits << " signed=" << isSigned << " a=" << a
                << " w=" << w;
          }
        }
        EXPECT_EQ(mm.multiple(-3, mm.minWeight()), -3 * int64_t{mm.minWeight()});
        EXPECT_EQ(mm.multiple(-3, mm.maxWeight()), -3 * int64_t{mm.maxWeight()});
      }
}

TEST(MassMultiplier, SignedWeightsNegateMagnitudes) {
  // Magnitudes 1..128 plus negators: one per odd magnitude (64) for the shared forms, one per
  // negative product (128) for the independent forms, in one more stage.
  const MassMultiplierCost pairs = massMultiplierCost(MultiplierForm::SharedPairs, 8, true);
  EXPECT_EQ(pairs.products, 255);
  EXPECT_EQ(pairs.negators, 64);
  EXPECT_EQ(pairs.adders, 63);        // odd magnitudes 3..127
  EXPECT_EQ(pairs.pipelineStages, 3); // magnitudes <= 128 have <= 4 signed digits, + negation
  const MassMultiplierCost csd = massMultiplierCost(MultiplierForm::SignedDigit, 8, true);
  EXPECT_EQ(csd.negators, 128);
  EXPECT_EQ(csd.pipelineStages, 2);
  int64_t csdSum = 0;
  for (int m = 1; m <= 128; ++m)
    csdSum += nafWeight(m) - 1;
  EXPECT_EQ(csd.adders, csdSum);
}

TEST(MassMultiplier, ConstructionIsDeterministic) {
  for (MultiplierForm form : kForms) {
    const MassMultiplier a(9, true, form), b(9, true, form);
    ASSERT_EQ(a.nodes().size(), b.nodes().size());
    for (size_t i = 0; i < a.nodes().size(); ++i) {
      EXPECT_EQ(a.nodes()[i].coefficient, b.nodes()[i].coefficient);
      EXPECT_EQ(a.nodes()[i].operands.size(), b.nodes()[i].operands.size());
    }
    EXPECT_EQ(a.cost(), b.cost());
  }
}

TEST(MassMultiplier, RegistersCountRetainedValues) {
  // SignedDigit B=2: products a, 2a, 3a = 4a - a; one stage holding a and 3a.
  EXPECT_EQ(massMultiplierCost(MultiplierForm::SignedDigit, 2).registers, 2);
  // SharedPairs B=3: 3a, 5a, 7a at stage 1 from a: a, 3a, 5a, 7a registered once.
  const MassMultiplierCost c = massMultiplierCost(MultiplierForm::SharedPairs, 3);
  EXPECT_EQ(c.pipelineStages, 1);
  EXPECT_EQ(c.registers, 4);
  // B = 1 unsigned is wiring only.
  EXPECT_EQ(massMultiplierCost(MultiplierForm::SharedPairs, 1).pipelineStages, 0);
  EXPECT_EQ(massMultiplierCost(MultiplierForm::SharedPairs, 1).registers, 0);
}

TEST(SplitIndex, TwelveBitsAreTwoSixBitLookups) {
  // digest §3 variants / §9: a 6-bit mass multiplier indexed twice gives 12-bit products.
  const MassMultiplier narrow(6, false, MultiplierForm::SharedPairs);
  for (int32_t a : sampleInputs(20)) {
    for (int32_t w = 0; w < 4096; ++w)
      ASSERT_EQ(splitIndexProduct(narrow, a, w, 12), int64_t{a} * w) << a << " " << w;
    for (int32_t w = -2048; w < 2048; ++w)
      ASSERT_EQ(splitIndexProduct(narrow, a, w, 12, true), int64_t{a} * w) << a << " " << w;
  }
  const MassMultiplier four(4, false, MultiplierForm::SignedDigit);
  EXPECT_EQ(splitIndexProduct(four, -1000, 4095, 12), -4095000);
  EXPECT_EQ(splitIndexProduct(four, std::numeric_limits<int32_t>::min(),
                              std::numeric_limits<int32_t>::min(), 32, true),
            int64_t{1} << 62);
  const MassMultiplierCost c = splitIndexCost(MultiplierForm::SharedPairs, 12, 6);
  EXPECT_EQ(c.lookupsPerProduct, 2);
  EXPECT_EQ(c.muxInputs, 64);
  EXPECT_EQ(c.recombineAdders, 1);
  EXPECT_EQ(c.products, 63);
  EXPECT_EQ(c.adders, massMultiplierCost(MultiplierForm::SharedPairs, 6).adders);
  EXPECT_EQ(splitIndexCost(MultiplierForm::SharedPairs, 12, 6, true).recombineAdders, 2);
  EXPECT_EQ(splitIndexCost(MultiplierForm::SignedDigit, 12, 4).lookupsPerProduct, 3);
  EXPECT_LT(c.adders, massMultiplierCost(MultiplierForm::SharedPairs, 12).adders);
}

TEST(BreakEven, WiredProductsWinAboveTheBreakEvenConsumerCount) {
  const AreaModel wired{.inputBits = 8, .muxCellCost = 0.25, .wiredProducts = true};
  const MassMultiplierCost pairs = massMultiplierCost(MultiplierForm::SharedPairs, 8);
  // Direct 8 x 8 array multiplier: 7 adders of 16 bits.
  EXPECT_DOUBLE_EQ(independentMultipliersArea(8, 1, wired), 112.0);
  // Shared: 127 adders of 17 bits = 2159 cells; wired consumers pay nothing: 2159 / 112.
  EXPECT_DOUBLE_EQ(massMultiplierArea(pairs, 0, wired), 2159.0);
  const std::optional<int64_t> k = breakEvenConsumers(pairs, wired);
  ASSERT_TRUE(k.has_value());
  EXPECT_EQ(*k, 20);
  EXPECT_GE(massMultiplierArea(pairs, *k - 1, wired), independentMultipliersArea(8, *k - 1, wired));
  EXPECT_LT(massMultiplierArea(pairs, *k, wired), independentMultipliersArea(8, *k, wired));
  // The unshared construction breaks even later; a CNN input feeds 64 x 9 = 576 weights.
  const std::optional<int64_t> kCsd =
      breakEvenConsumers(massMultiplierCost(MultiplierForm::SignedDigit, 8), wired);
  ASSERT_TRUE(kCsd.has_value());
  EXPECT_GT(*kCsd, *k);
  EXPECT_LT(*kCsd, 576);
}

TEST(BreakEven, SelectorMultiplexorsCanOutweighAMultiplier) {
  // A 256-input selector of 17 bits is 255 * 17 mux cells; at 1/4 adder cell each that exceeds
  // a 112-cell multiplier per consumer, so the mass multiplier never wins on area.
  const AreaModel muxed{.inputBits = 8, .muxCellCost = 0.25, .wiredProducts = false};
  const MassMultiplierCost pairs = massMultiplierCost(MultiplierForm::SharedPairs, 8);
  EXPECT_DOUBLE_EQ(massMultiplierArea(pairs, 1, muxed), 2159.0 + 255 * 17 * 0.25);
  EXPECT_FALSE(breakEvenConsumers(pairs, muxed).has_value());
  // With cheap enough selection it wins again.
  const AreaModel cheapMux{.inputBits = 8, .muxCellCost = 0.01, .wiredProducts = false};
  const std::optional<int64_t> k = breakEvenConsumers(pairs, cheapMux);
  ASSERT_TRUE(k.has_value());
  EXPECT_LT(massMultiplierArea(pairs, *k, cheapMux), independentMultipliersArea(8, *k, cheapMux));
  EXPECT_GE(massMultiplierArea(pairs, *k - 1, cheapMux),
            independentMultipliersArea(8, *k - 1, cheapMux));
}

TEST(MassMultiplierErrors, BadArgumentsThrowOneLineErrors) {
  expectConfigError([] { MassMultiplier(0, false, MultiplierForm::SharedPairs); }, "weightBits",
                    "weightBits=0 is out of range 1..16");
  expectConfigError([] { massMultiplierCost(MultiplierForm::ShiftedTerms, 17); }, "weightBits",
                    "weightBits=17 is out of range 1..16");
  expectConfigError([] { analyticPipelineStages(MultiplierForm::SharedQuads, 63); }, "weightBits",
                    "out of range 1..62");
  const MassMultiplier mm(4, true, MultiplierForm::SignedDigit);
  expectConfigError([&] { mm.multiple(1, 8); }, "weight", "weight 8 is outside -8..7");
  std::vector<int64_t> tooFew(15);
  expectConfigError([&] { mm.compute(1, tooFew); }, "multiples", "expected 16");
  const MassMultiplier narrow(5, false, MultiplierForm::SharedPairs);
  expectConfigError([&] { splitIndexProduct(narrow, 1, 1, 12); }, "weightBits",
                    "not a multiple of chunkBits=5");
  expectConfigError([&] { splitIndexProduct(narrow, 1, 1024, 10); }, "weight",
                    "weight 1024 is outside 0..1023");
  expectConfigError([&] { splitIndexProduct(mm, 1, 1, 8); }, "narrow", "unsigned narrow");
  expectConfigError([] { splitIndexCost(MultiplierForm::SharedPairs, 12, 5); }, "chunkBits",
                    "chunkBits=5 does not divide weightBits=12");
  expectConfigError([] { splitIndexCost(MultiplierForm::SharedPairs, 12, 0); }, "chunkBits",
                    "chunkBits=0 is out of range 1..16");
}

/// Prints the table of docs/arch/StreamMassMultiplier.md: run
/// `stream_mass_multiplier_test --gtest_also_run_disabled_tests
///  --gtest_filter='*PrintDocTable'`.
TEST(MassMultiplierDoc, DISABLED_PrintDocTable) {
  std::string table = "| B |";
  for (MultiplierForm form : kForms)
    table += fmt::format(" {} adders / stages |", multiplierFormName(form));
  table += " SharedQuads adder circuits |\n|---|---|---|---|---|---|\n";
  for (int bits = 2; bits <= 12; ++bits) {
    table += fmt::format("| {} |", bits);
    for (MultiplierForm form : kForms) {
      const MassMultiplierCost c = massMultiplierCost(form, bits);
      table += fmt::format(" {} / {} |", c.adders, c.pipelineStages);
    }
    table +=
        fmt::format(" {} |\n", massMultiplierCost(MultiplierForm::SharedQuads, bits).adderCircuits);
  }
  table += "\n| form, B = 8 | signed | adders | adder circuits | negators | stages | adder "
           "levels | registers |\n|---|---|---|---|---|---|---|---|\n";
  for (MultiplierForm form : kForms)
    for (bool isSigned : {false, true}) {
      const MassMultiplierCost c = massMultiplierCost(form, 8, isSigned);
      table += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} |\n", multiplierFormName(form),
                           isSigned ? "yes" : "no", c.adders, c.adderCircuits, c.negators,
                           c.pipelineStages, c.adderLevels, c.registers);
    }
  std::fputs(table.c_str(), stdout);
}

} // namespace
} // namespace nnaccel::arch::stream
