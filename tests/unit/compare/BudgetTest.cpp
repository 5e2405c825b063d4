/// \file
/// Tests of the compare budget: the default is the shipped file, a budget file overrides it key
/// by key, every engine's derived config has the budget's multipliers, clock and DRAM bandwidth
/// (and its SRAM, to the bytes integer division leaves over), is named for the budget, and a
/// budget an engine cannot be arranged as is refused with that engine and the reason.
#include "nnaccel/compare/Budget.h"

#include "nnaccel/arch/stream/Config.h"
#include "nnaccel/arch/systolic/Config.h"
#include "nnaccel/engines/TypedEngine.h"
#include "nnaccel/support/Error.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <string>

namespace {

using namespace nnaccel;
using namespace nnaccel::compare;

/// The value of the knob \p key of \p engine's section (text for a preset, else the real).
std::string knobText(const Budget& b, const std::string& engine, const std::string& key) {
  const engines::BudgetKnob& k = engines::knob(b.section(engine).knobs, key);
  return k.kind == engines::BudgetKnob::Kind::Preset ? k.text : std::to_string(k.real);
}

std::string parseBudgetError(const std::string& text) {
  try {
    parseBudget(text, "e.yaml");
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

std::string refusal(const Budget& b, const std::string& engine) {
  try {
    deriveConfig(b, engine);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(Budget, DefaultIsTheShippedFile) {
  const Budget b = defaultBudget();
  EXPECT_EQ(b.name, "default");
  EXPECT_EQ(b.file, "default.yaml");
  EXPECT_EQ(b.multipliers, 1024);
  EXPECT_EQ(b.sramBytes, 2 << 20);
  EXPECT_EQ(knobText(b, "systolic", "preset"), "server");
  // Every registered engine has its section, with the knobs it declares.
  ASSERT_EQ(b.engines.size(), engines::engineNames().size());
  for (const Budget::EngineSection& s : b.engines)
    EXPECT_EQ(s.knobs, engines::engineNamed(s.engine).budgetKnobs()) << s.engine;
  // toYaml reads back to the same budget.
  const Budget again = parseBudget(toYaml(b), "again.yaml");
  EXPECT_EQ(again.multipliers, b.multipliers);
  EXPECT_EQ(again.engines, b.engines);
}

TEST(Budget, AFileOverridesTheDefaultKeyByKey) {
  const Budget b = parseBudget("multipliers: 256\nsparse:\n  ia_share: 0.25\n", "b.yaml");
  EXPECT_EQ(b.name, "custom");
  EXPECT_EQ(b.file, "b.yaml");
  EXPECT_EQ(b.multipliers, 256);
  EXPECT_EQ(knobText(b, "sparse", "ia_share"), std::to_string(0.25));
  EXPECT_EQ(b.sramBytes, defaultBudget().sramBytes);
  EXPECT_EQ(b.section("broadcast"), defaultBudget().section("broadcast"));
}

TEST(Budget, BadFilesNameTheKey) {
  const auto message = [](const std::string& text) {
    try {
      parseBudget(text, "b.yaml");
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::Config);
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_EQ(message("sram_bytes: 10\n"), "b.yaml: 'sram_bytes': must be >= 1024 (got 10)");
  EXPECT_EQ(message("systolic:\n  psum_share: 0\n"),
            "b.yaml: 'systolic.psum_share': must be > 0 (got 0)");
  EXPECT_EQ(message("systolic:\n  psum_share: 1\n"),
            "b.yaml: 'systolic.psum_share': must be between 0 and 1, exclusive (got 1)");
  EXPECT_EQ(message("sparse:\n  preset: scn\n"),
            "b.yaml: 'sparse.preset': unknown sparse preset 'scn' (expected one of: scnn, "
            "scnn-isca17, tiny)");
  EXPECT_NE(message("clock: 5\n").find("'clock': unknown key"), std::string::npos);
  EXPECT_NE(message("multipliers: [1\n").find("b.yaml"), std::string::npos);
}

TEST(Budget, EveryEngineGetsTheBudgetsResources) {
  const Budget b = parseBudget("name: even\nmultipliers: 4096\nsram_bytes: 4194304\n"
                               "clock_mhz: 700\ndram_bytes_per_cycle: 24\n",
                               "even.yaml");
  for (const char* engine : {"systolic", "sparse", "broadcast"}) {
    const engines::EngineConfig c = deriveConfig(b, engine);
    const engines::Resources r = engines::resources(c);
    EXPECT_EQ(c.engine(), engine);
    EXPECT_EQ(r.multipliers, 4096) << engine;
    EXPECT_EQ(r.clockMhz, 700) << engine;
    EXPECT_EQ(r.dramBytesPerCycle, 24) << engine;
    EXPECT_LE(r.sramBytes, 4194304) << engine;
    EXPECT_GT(r.sramBytes, 4194304 - 8192) << engine;
    EXPECT_NE(c.name().find("@budget:even"), std::string::npos) << c.name();
  }
  // The systolic array is as square as the multipliers allow.
  const engines::EngineConfig systolic = deriveConfig(b, "systolic");
  const auto& s = systolic.as<arch::systolic::SystolicConfig>();
  EXPECT_EQ(s.peRows, 64);
  EXPECT_EQ(s.peCols, 64);
  EXPECT_LE(s.psumMaxTileRows * s.psumMaxTileCols, s.psumEntriesPerColumn);
}

TEST(Budget, StreamTakesWholeChipsOnly) {
  Budget b = defaultBudget();
  EXPECT_NE(refusal(b, "stream").find("less than one large chip's 294912 multiply-select cells"),
            std::string::npos);
  b.multipliers = 2 * 294912;
  const engines::EngineConfig c = deriveConfig(b, "stream");
  EXPECT_EQ(c.as<arch::stream::StreamConfig>().chips, 2);
  EXPECT_EQ(engines::resources(c).multipliers, 2 * 294912);
  b.multipliers = 294912 + 1000;
  EXPECT_NE(refusal(b, "stream").find("not a whole number of large chips"), std::string::npos);
}

TEST(Budget, ImpossibleArrangementsAreRefusedWithTheEngine) {
  Budget b = defaultBudget();
  b.multipliers = 1000; // not a multiple of a sparse PE's 16 multipliers
  EXPECT_NE(refusal(b, "sparse").find("'sparse': 1000 multipliers are not a whole number"),
            std::string::npos);
  b.multipliers = 884736; // 6912 broadcast columns: over the schema's limit
  b.sramBytes = 64 << 20;
  EXPECT_NE(refusal(b, "broadcast").find("'pe_array.columns': must be <= 1024"), std::string::npos);
  b = defaultBudget();
  b.sramBytes = 4096; // nothing left for the activation RAMs of 64 PEs
  EXPECT_NE(refusal(b, "sparse").find("leave no activation RAM"), std::string::npos);
  EXPECT_THROW(deriveConfig(defaultBudget(), "tpu"), Error);
}

TEST(Budget, AreaAndPowerBudgetsTakeTheLargestMachineThatFits) {
  Budget b = parseBudget("node: 16nm\narea_mm2: 2\n", "iso.yaml");
  EXPECT_EQ(b.node, "16nm");
  for (const char* engine : {"systolic", "sparse", "broadcast"}) {
    SCOPED_TRACE(engine);
    const engines::EngineConfig c = deriveConfig(b, engine);
    const BudgetCost cost = budgetCost(c);
    EXPECT_EQ(cost.table.node, "16nm"); // every engine priced at the budget's node
    EXPECT_LE(cost.areaMm2, 2.0);
    // One more of the engine's units (a PE, a column, a multiplier) no longer fits.
    const int64_t unit = engines::engineNamed(engine).budgetMultiplierUnit(b.section(engine).knobs);
    Budget larger = b;
    larger.areaMm2 = 0;
    larger.multipliers = engines::resources(c).multipliers + unit;
    larger.sramBytes = b.sramBytes * larger.multipliers / b.multipliers;
    EXPECT_GT(budgetCost(deriveConfig(larger, engine)).areaMm2, 2.0);
  }
  // 1,021 systolic multipliers are a 1 x 1021 array, larger than 1,020 (30 x 34): the bisection
  // can stop below a count that fits, and the scan above it finds it.
  b = parseBudget("node: 16nm\narea_mm2: 4.02\n", "iso.yaml");
  EXPECT_GE(engines::resources(deriveConfig(b, "systolic")).multipliers, 1020);
  // No size can be arranged at all (too little SRAM for any PE's activation RAM): the refusal
  // says why the smallest cannot.
  b = parseBudget("area_mm2: 4\nsram_bytes: 4096\n", "tiny-sram.yaml");
  EXPECT_NE(refusal(b, "sparse").find("(the smallest: "), std::string::npos)
      << refusal(b, "sparse");
  EXPECT_NE(refusal(b, "sparse").find("leave no activation RAM"), std::string::npos)
      << refusal(b, "sparse");
  // A peak-power budget: leakage plus every component acting each cycle.
  b = parseBudget("node: 16nm\npower_w: 0.5\n", "p.yaml");
  const BudgetCost p = budgetCost(deriveConfig(b, "systolic"));
  EXPECT_LE(p.peakPowerW, 0.5);
  EXPECT_GT(p.peakPowerW, p.table.leakageW());
  // Stream is costed in whole large chips: it gets as many as fit, and when none does the
  // refusal says what one takes.
  b = parseBudget("area_mm2: 4\n", "s.yaml");
  EXPECT_NE(refusal(b, "stream")
                .find("no stream machine of 294912 to 18874368 multipliers fits "
                      "4 mm2 (the smallest, 294912 multipliers, takes "),
            std::string::npos)
      << refusal(b, "stream");
  const BudgetCost oneChip = budgetCost(engines::engineNamed("stream").preset("large"));
  b = parseBudget(fmt::format("area_mm2: {}\n", 3.5 * oneChip.areaMm2), "s.yaml");
  EXPECT_EQ(deriveConfig(b, "stream").as<arch::stream::StreamConfig>().chips, 3);
  // Nothing fits: refused with the engine and the figure.
  b = parseBudget("area_mm2: 0.0001\n", "tiny.yaml");
  EXPECT_NE(refusal(b, "sparse")
                .find("no sparse machine of 16 to 65536 multipliers fits 0.0001 mm2 (the "
                      "smallest, 16 multipliers, takes "),
            std::string::npos)
      << refusal(b, "sparse");
}

TEST(Budget, TheNodeMustBeKnown) {
  try {
    parseBudget("node: 3nm\n", "n.yaml");
    ADD_FAILURE() << "accepted 3nm";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("n.yaml: 'node': unknown process node '3nm' (expected "
                                         "auto or one of: 180nm"),
              std::string::npos)
        << e.what();
  }
  EXPECT_NE(std::string(parseBudgetError("area_mm2: -1\n")).find("'area_mm2': must be >= 0"),
            std::string::npos);
}

} // namespace
