// An engine's inventory through the technology model (src/arch/common/Technology.cpp): the
// clock network and control added as shares of the finished chip and of its peak power, the
// shares a config overrides, and the report fields the inventory fills.
#include "nnaccel/arch/common/Technology.h"

#include <gtest/gtest.h>

namespace nnaccel::arch::common {
namespace {

Inventory sample(const TechnologyConfig& t) {
  return priceInventory(
      processNodeOf(t),
      {{"mul", {.cls = tech::ComponentClass::IntMultiplier, .widthBits = 8}, 1000, "array"},
       {"buf",
        {.cls = tech::ComponentClass::Sram, .widthBits = 64, .capacityBytes = 64 * 1024},
        4,
        "buffer"}});
}

TEST(Overheads, ClockAndControlAreSharesOfTheFinishedChip) {
  const TechnologyConfig t{.node = "28nm"};
  Inventory inv = sample(t);
  const double partsMm2 = inv.areaMm2(), partsLeakageW = inv.leakageW();
  double partsPjPerCycle = 0;
  for (const PricedComponent& p : inv.parts)
    partsPjPerCycle += p.cost.readEnergyPj * static_cast<double>(p.use.count);
  addOverheads(inv, t, 500);
  const tech::ChipShares s = tech::publishedChipShares();
  // Areas: each its share of the whole chip, the other parts the rest.
  EXPECT_NEAR(inv.groupAreaMm2("control"), s.controlArea * inv.areaMm2(), 1e-12);
  EXPECT_NEAR(inv.groupAreaMm2("clock_network"), s.clockArea * inv.areaMm2(), 1e-12);
  EXPECT_NEAR(inv.areaMm2() - partsMm2, (s.controlArea + s.clockArea) * inv.areaMm2(), 1e-12);
  // Control leaks at logic's rate; the clock network's power share covers its own leakage.
  const double controlLeakageW = inv.leakageW() - partsLeakageW;
  EXPECT_NEAR(controlLeakageW, tech::logicLeakageWPerUm2() * inv.groupAreaMm2("control") * 1e6,
              1e-15);
  EXPECT_EQ(inv.part("clock_network").cost.leakageW, 0);
  // The clock network is its share of the chip's peak power: every part acting once per
  // cycle, and the leakage (W x 1e6 / MHz = pJ per cycle).
  const double clockPj = inv.part("clock_network").cost.readEnergyPj;
  const double othersPj = partsPjPerCycle + inv.leakageW() * 1e6 / 500;
  EXPECT_NEAR(clockPj / (clockPj + othersPj), s.clockPower, 1e-12);
  EXPECT_DOUBLE_EQ(inv.summary().clockPjPerCycle, clockPj);
  EXPECT_DOUBLE_EQ(inv.summary().clockPj(1000), 1000 * clockPj);
  // `arch cost` says what they are.
  const engines::CostTable table = inv.costTable({});
  EXPECT_EQ(table.components.back().name, "clock_network");
  EXPECT_EQ(table.components.back().what, "4.48 % of peak power, 0.87 % of the chip's area");
  EXPECT_NEAR(table.areaMm2(), inv.areaMm2(), 1e-12);
}

TEST(Overheads, AConfigOverridesEachShare) {
  TechnologyConfig t{.node = "16nm"};
  t.clockPowerShare = 0.25;
  t.clockAreaShare = 0;
  t.controlAreaShare = 0.1;
  Inventory inv = sample(t);
  const double partsMm2 = inv.areaMm2();
  addOverheads(inv, t, 1000);
  EXPECT_NEAR(inv.groupAreaMm2("control"), partsMm2 / 0.9 * 0.1, 1e-12);
  EXPECT_EQ(inv.groupAreaMm2("clock_network"), 0);
  t.clockPowerShare = 0;
  Inventory none = sample(t);
  addOverheads(none, t, 1000);
  EXPECT_EQ(none.summary().clockPjPerCycle, 0);
}

} // namespace
} // namespace nnaccel::arch::common
