/// \file
/// Tests of the position code tables (formats/CodeTable.h): every built-in table exactly as in
/// digest §3.4, code widths, lookups, the parser (letters, separators, round trip) and each of
/// its rejection rules with the error naming the source.
#include "nnaccel/arch/sparse/formats/CodeTable.h"

#include "SparseTestSupport.h"
#include "nnaccel/support/Error.h"

#include <gtest/gtest.h>
#include <string>

using namespace nnaccel;
using namespace nnaccel::arch::sparse::formats;

namespace {

/// Expects \p fn to throw nnaccel::Error of \p kind whose message contains \p needle.
using test_support::expectError;

} // namespace

TEST(CodeTable, BuiltinTablesMatchTheFigures) {
  // Digest §3.4. Fig. 4C weights: R9 omitted to reach R10.
  EXPECT_EQ(CodeTable::fig4cWeights().toString(),
            "R0 R1 R2 R3 R4 R5 R6 R7 R8 R10 S0 S1 S2 S3 K0 K1");
  // Fig. 4C IA: follows digest erratum 9, code 10 is X16 unless the printed Y16 is asked for.
  EXPECT_EQ(CodeTable::fig4cActivations().toString(),
            "R0 R1 R2 R3 R4 R5 R6 R7 R8 R10 R16 R24 S0 S1 S2 S3");
  EXPECT_EQ(CodeTable::fig4cActivations(true).toString(),
            "R0 R1 R2 R3 R4 R5 R6 R7 R8 R10 S16 R24 S0 S1 S2 S3");
  // Fig. 5A: follows digest erratum 8, the spurious "18" of the text is not in the table.
  EXPECT_EQ(CodeTable::fig5a().toString(),
            "R0 R1 R2 R3 R4 R5 R6 R7 R12 R16 R24 R32 R48 R64 R96 R128");
  EXPECT_EQ(CodeTable::fig5b().toString(), "R0 R1 R2 R3 R4 R5 R6 R7 S0 S1 S2 S3 S4 S5 S6 S7");
  EXPECT_EQ(CodeTable::fig5c().toString(), "R0 R1 R2 R3 R4 R5 R6 R7 R8 R9 R10 S0 S1 S2 S3 S4");
  EXPECT_EQ(CodeTable::fig5d().toString(), "R0 R1 R2 R3 R4 R5 R6 R7 R8 R9 R10 R11 R12 R13 K0 K1");
  // Fig. 5E: follows digest erratum 8, four S codes (the text says three).
  EXPECT_EQ(CodeTable::fig5e().toString(), "R0 R1 R2 R3 R4 R5 R6 R7 R8 R9 S0 S1 S2 S3 K0 K1");
  EXPECT_EQ(CodeTable::zeroRunLength(2).toString(), "R0 R1 R2 R3");
  // Fig. 4C weights and Fig. 5E differ only at code 9.
  const CodeTable w4c = CodeTable::fig4cWeights();
  const CodeTable w5e = CodeTable::fig5e();
  for (size_t i = 0; i < 16; ++i) {
    EXPECT_EQ(w4c[i] == w5e[i], i != 9) << i;
  }
}

TEST(CodeTable, SizesBitsAndLookups) {
  for (const CodeTable& t :
       {CodeTable::fig4cWeights(), CodeTable::fig4cActivations(), CodeTable::fig5a(),
        CodeTable::fig5b(), CodeTable::fig5c(), CodeTable::fig5d(), CodeTable::fig5e()}) {
    EXPECT_EQ(t.size(), 16u) << t.name();
    EXPECT_EQ(t.bits(), 4) << t.name();
  }
  EXPECT_EQ(CodeTable::zeroRunLength(1).bits(), 1);
  EXPECT_EQ(CodeTable::zeroRunLength(16).size(), 65536u);
  EXPECT_EQ(CodeTable::zeroRunLength(16).bits(), 16);
  EXPECT_EQ(CodeTable::parse("R0", "t").bits(), 1); // at least one bit
  EXPECT_EQ(CodeTable::parse("R0 R1 R2 R3 R4", "t").bits(), 3);

  const CodeTable t = CodeTable::fig4cWeights();
  EXPECT_EQ(t.find(CodeKind::Run, 10), 9);
  EXPECT_EQ(t.find(CodeKind::Run, 9), -1);
  EXPECT_EQ(t.find(CodeKind::Row, 2), 12);
  EXPECT_EQ(t.find(CodeKind::Channel, 1), 15);
  EXPECT_EQ(t.find(CodeKind::Channel, 2), -1);
  const auto runs = t.arguments(CodeKind::Run);
  EXPECT_EQ(std::vector<int32_t>(runs.begin(), runs.end()),
            (std::vector<int32_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 10}));
  EXPECT_TRUE(t.has(CodeKind::Channel));
  EXPECT_FALSE(CodeTable::fig5b().has(CodeKind::Channel));
  EXPECT_FALSE(CodeTable::fig5a().has(CodeKind::Row));
  EXPECT_EQ(t[14], (Code{CodeKind::Channel, 0}));
}

TEST(CodeTable, ParseAcceptsLettersSeparatorsAndRoundTrips) {
  const CodeTable t = CodeTable::parse(" x0, X1\ty2\n s3 k1 r7 ", "user.yaml");
  EXPECT_EQ(t.toString(), "R0 R1 S2 S3 K1 R7");
  EXPECT_EQ(t.name(), "user.yaml");
  EXPECT_EQ(t.find(CodeKind::Run, 7), 5);
  for (const CodeTable& builtin : {CodeTable::fig4cWeights(), CodeTable::fig4cActivations(true),
                                   CodeTable::fig5a(), CodeTable::fig5d()}) {
    EXPECT_EQ(CodeTable::parse(builtin.toString(), "rt"), builtin) << builtin.name();
  }
}

TEST(CodeTable, BuiltinByName) {
  EXPECT_EQ(CodeTable::builtin("fig4c-weights"), CodeTable::fig4cWeights());
  EXPECT_EQ(CodeTable::builtin("fig4c-ia"), CodeTable::fig4cActivations());
  EXPECT_EQ(CodeTable::builtin("fig4c-ia-y16"), CodeTable::fig4cActivations(true));
  EXPECT_EQ(CodeTable::builtin("fig5a"), CodeTable::fig5a());
  EXPECT_EQ(CodeTable::builtin("fig5b"), CodeTable::fig5b());
  EXPECT_EQ(CodeTable::builtin("fig5c"), CodeTable::fig5c());
  EXPECT_EQ(CodeTable::builtin("fig5d"), CodeTable::fig5d());
  EXPECT_EQ(CodeTable::builtin("fig5e"), CodeTable::fig5e());
  EXPECT_EQ(CodeTable::builtin("zrl4"), CodeTable::zeroRunLength(4));
  EXPECT_EQ(CodeTable::builtin("fig5e").name(), "fig5e");
  expectError([] { CodeTable::builtin("fig6"); }, ErrorKind::Config, "fig6");
  expectError([] { CodeTable::builtin("zrl17"); }, ErrorKind::Config, "unknown code table");
  expectError([] { CodeTable::builtin("zrlx"); }, ErrorKind::Config, "unknown code table");
}

TEST(CodeTable, ParseErrorsNameTheSource) {
  expectError([] { CodeTable::parse("R0 Q1", "arch.yaml"); }, ErrorKind::Config,
              "arch.yaml: bad code 'Q1'");
  expectError([] { CodeTable::parse("R0 R", "arch.yaml"); }, ErrorKind::Config, "bad code 'R'");
  expectError([] { CodeTable::parse("R0 R-1", "arch.yaml"); }, ErrorKind::Config, "bad code 'R-1'");
  expectError([] { CodeTable::parse("R0 R+1", "arch.yaml"); }, ErrorKind::Config, "bad code 'R+1'");
  expectError([] { CodeTable::parse("R0 S1x", "arch.yaml"); }, ErrorKind::Config, "bad code 'S1x'");
  expectError([] { CodeTable::parse("R0 R99999999999", "arch.yaml"); }, ErrorKind::Config,
              "bad code");
  expectError([] { CodeTable::parse("R0 S1 X0", "arch.yaml"); }, ErrorKind::Config,
              "arch.yaml: duplicate code R0");
  expectError([] { CodeTable::parse("S0 K1", "arch.yaml"); }, ErrorKind::Config,
              "no run (R/X) code");
  expectError([] { CodeTable::parse(" , ", "arch.yaml"); }, ErrorKind::Config, "has no codes");
  std::string big;
  for (int i = 0; i <= 65536; ++i) {
    big += 'R';
    big += std::to_string(i);
    big += ' ';
  }
  expectError([&] { CodeTable::parse(big, "big.txt"); }, ErrorKind::Config,
              "big.txt: code table has more than 65536 codes");
  expectError(
      [] {
        CodeTable("t", {{CodeKind::Run, -1}});
      },
      ErrorKind::Config, "negative argument");
  std::vector<Code> tooMany(65537);
  for (size_t i = 0; i < tooMany.size(); ++i) {
    tooMany[i] = {CodeKind::Run, static_cast<int32_t>(i)};
  }
  expectError([&] { CodeTable("t", tooMany); }, ErrorKind::Config, "at most 65536");
  expectError([] { CodeTable::zeroRunLength(0); }, ErrorKind::Usage, "[1, 16]");
  expectError([] { CodeTable::zeroRunLength(17); }, ErrorKind::Usage, "got 17");
}
