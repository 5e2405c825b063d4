// The component library (src/tech/Arithmetic.cpp, Storage.cpp, Logic.cpp, Components.cpp): each
// class gives its published figures at its source's node, interpolates between them as documented,
// scales with the node, and refuses what it cannot price.
#include "nnaccel/tech/Components.h"

#include "../../support/ErrorOf.h"

#include <cmath>
#include <gtest/gtest.h>

namespace nnaccel::tech {
namespace {

ComponentCost at45(ComponentClass cls, int64_t width, double vdd = 0.9) {
  return costOf(ComponentSpec{.cls = cls, .widthBits = width}, node("45nm", vdd));
}

TEST(Components, ArithmeticIsTheHorowitzAndDallyTableAt45nm) {
  EXPECT_DOUBLE_EQ(at45(ComponentClass::IntAdder, 8).readEnergyPj, 0.03);
  EXPECT_DOUBLE_EQ(at45(ComponentClass::IntAdder, 32).areaUm2, 137);
  EXPECT_DOUBLE_EQ(at45(ComponentClass::IntMultiplier, 8).readEnergyPj, 0.2);
  EXPECT_DOUBLE_EQ(at45(ComponentClass::IntMultiplier, 8).areaUm2, 282);
  EXPECT_NEAR(at45(ComponentClass::IntMultiplier, 32).readEnergyPj, 3.1, 1e-12);
  EXPECT_DOUBLE_EQ(at45(ComponentClass::FpMultiplier, 32).areaUm2, 7700);
  EXPECT_DOUBLE_EQ(at45(ComponentClass::FpAdder, 16).readEnergyPj, 0.4);
  // Between the published widths: linear for adders, a power law for multipliers.
  EXPECT_DOUBLE_EQ(at45(ComponentClass::IntAdder, 24).readEnergyPj, 0.075);
  EXPECT_NEAR(at45(ComponentClass::IntMultiplier, 16).readEnergyPj, 0.2 * std::sqrt(15.5), 1e-9);
  EXPECT_GT(at45(ComponentClass::IntMultiplier, 8).leakageW, 0);
}

TEST(Components, WidthsWithoutAFigureAreConfigErrors) {
  const std::string fp = test::errorOf([] { at45(ComponentClass::FpAdder, 8); }, ErrorKind::Config);
  EXPECT_NE(fp.find("16 and 32 bits"), std::string::npos) << fp;
  test::errorOf([] { at45(ComponentClass::IntMultiplier, 0); }, ErrorKind::Config);
  test::errorOf([] { at45(ComponentClass::IntAdder, 65); }, ErrorKind::Config);
  test::errorOf(
      [] {
        costOf(
            ComponentSpec{
                .cls = ComponentClass::Sram, .widthBits = 64, .capacityBytes = 4, .banks = 1},
            node("45nm"));
      },
      ErrorKind::Config);
  test::errorOf([] { costOf(ComponentSpec{.cls = ComponentClass::FlipFlopFifo}, node("7nm")); },
                ErrorKind::Config);
}

TEST(Components, SramModelPassesThroughTheCactiRunsItIsFittedTo) {
  const auto sram = [](int64_t bytes, int64_t width, int64_t banks = 1) {
    return costOf(ComponentSpec{.cls = ComponentClass::Sram,
                                .widthBits = width,
                                .capacityBytes = bytes,
                                .banks = banks},
                  node("45nm"));
  };
  EXPECT_NEAR(sram(131072, 64).readEnergyPj, 32.286, 1e-6);
  EXPECT_NEAR(sram(131072, 64).writeEnergyPj, 26.065, 1e-6);
  EXPECT_NEAR(sram(65536, 256).readEnergyPj, 51.799, 1e-6);
  EXPECT_NEAR(sram(65536, 256).areaUm2, 199065.1, 1e-3);
  EXPECT_NEAR(sram(768, 32).areaUm2, 1419.8, 1e-6);
  EXPECT_NEAR(sram(131072, 64).leakageW, 3.18e-12 * 131072 * 8, 1e-8);
  // Bigger arrays cost more per access; banking a big one makes each access cheaper.
  EXPECT_LT(sram(8192, 64).readEnergyPj, sram(131072, 64).readEnergyPj);
  EXPECT_LT(sram(131072, 64, 4).readEnergyPj, sram(131072, 64).readEnergyPj);
  // Below the plug-in's 768 B minimum an array is priced as 768 B.
  EXPECT_EQ(sram(256, 8).readEnergyPj, sram(768, 8).readEnergyPj);
}

TEST(Components, SramPortsGrowTheCellByTwoPitchesEachAndTheAccessLinearly) {
  const auto sram = [](int64_t ports) {
    return costOf(
        ComponentSpec{
            .cls = ComponentClass::Sram, .widthBits = 64, .capacityBytes = 4096, .ports = ports},
        node("45nm"));
  };
  const ComponentCost one = sram(1), two = sram(2), twelve = sram(12);
  // CACTI 7's cell: (10 + 5 (P-1)) x (14.6 + 5 (P-1)) F^2; its runs: 2.09x and 31.2x the area.
  EXPECT_NEAR(two.areaUm2 / one.areaUm2, 15 * 19.6 / 146, 1e-12);
  EXPECT_NEAR(two.areaUm2 / one.areaUm2, 2.09, 0.1);
  EXPECT_NEAR(twelve.areaUm2 / one.areaUm2, 31.15, 0.05 * 31.15);
  // The runs' access energies: 1.21x and 3.27x (read), 1.24x and 3.58x (write).
  EXPECT_NEAR(two.readEnergyPj / one.readEnergyPj, 1.21, 0.01);
  EXPECT_NEAR(twelve.readEnergyPj / one.readEnergyPj, 3.27, 0.02);
  EXPECT_NEAR(twelve.writeEnergyPj / one.writeEnergyPj, 3.58, 0.02);
  EXPECT_NEAR(twelve.leakageW / one.leakageW, 15.8 / 4.74, 0.02);
  EXPECT_EQ(
      describe({.cls = ComponentClass::Sram, .widthBits = 32, .capacityBytes = 8192, .ports = 2}),
      "sram 8KiB x 32b, 2 ports");
  const std::string e = test::errorOf([&] { sram(17); }, ErrorKind::Config);
  EXPECT_NE(e.find("an SRAM of 17 ports: 1 to 16 are priced"), std::string::npos) << e;
  test::errorOf([&] { sram(0); }, ErrorKind::Config);
}

TEST(Components, RegistersFifosAndTablesComposeTheirCells) {
  // Accelergy's reference table prices a 16-bit register read at 0.144 pJ (0.009 pJ per bit).
  const ComponentCost r =
      costOf(ComponentSpec{.cls = ComponentClass::Register, .widthBits = 16}, node("45nm"));
  EXPECT_NEAR(r.readEnergyPj, 0.144, 1e-12);
  EXPECT_NEAR(r.areaUm2, 16 * 5.98, 1e-9);
  const ComponentCost f =
      costOf(ComponentSpec{.cls = ComponentClass::FlipFlopFifo, .widthBits = 16, .depth = 50},
             node("45nm"));
  EXPECT_NEAR(f.areaUm2, 50 * r.areaUm2, 1e-9);
  const ComponentCost lut =
      costOf(ComponentSpec{.cls = ComponentClass::LookupTable, .widthBits = 8, .indexBits = 8},
             node("45nm"));
  EXPECT_GT(lut.readEnergyPj, 0);
  EXPECT_GT(lut.areaUm2, 0);
  test::errorOf(
      [] {
        costOf(ComponentSpec{.cls = ComponentClass::LookupTable, .indexBits = 30}, node("45nm"));
      },
      ErrorKind::Config);
}

TEST(Components, MultiplexersAreTreesOfTheLibrarysTwoInputCell) {
  // Nangate 45 nm MUX2_X1: 1.862 um^2, 35.93 nW; a k-input n-bit tree is (k - 1) n cells. One
  // selection: n bits x 0.5 activity x (log2 k cells at 3.097 fJ + k data pins at 1/2 C V^2,
  // 0.946 fF at 1.1 V).
  const ProcessNode lib = node("45nm", 1.1);
  const ComponentCost two =
      costOf(ComponentSpec{.cls = ComponentClass::Multiplexer, .widthBits = 1, .inputs = 2}, lib);
  EXPECT_NEAR(two.areaUm2, 1.862, 1e-12);
  EXPECT_NEAR(two.leakageW, 35.93e-9, 1e-18);
  const double pinFj = 0.5 * 0.946 * 1.1 * 1.1;
  EXPECT_NEAR(two.readEnergyPj, 0.5 * (3.09675 + 2 * pinFj) * 1e-3, 1e-12);
  const ComponentCost wide = costOf(
      ComponentSpec{.cls = ComponentClass::Multiplexer, .widthBits = 16, .inputs = 256}, lib);
  EXPECT_NEAR(wide.areaUm2, 255 * 16 * 1.862, 1e-6);
  EXPECT_NEAR(wide.readEnergyPj, 16 * 0.5 * (8 * 3.09675 + 256 * pinFj) * 1e-3, 1e-12);
  // A non-power-of-two fan-in rounds its depth up.
  const ComponentCost five =
      costOf(ComponentSpec{.cls = ComponentClass::Multiplexer, .widthBits = 1, .inputs = 5}, lib);
  EXPECT_NEAR(five.readEnergyPj, 0.5 * (3 * 3.09675 + 5 * pinFj) * 1e-3, 1e-12);
  EXPECT_EQ(
      describe(ComponentSpec{.cls = ComponentClass::Multiplexer, .widthBits = 16, .inputs = 256}),
      "multiplexer 256:1 x 16b");
  for (const ComponentSpec& bad :
       {ComponentSpec{.cls = ComponentClass::Multiplexer, .widthBits = 8, .inputs = 1},
        ComponentSpec{.cls = ComponentClass::Multiplexer, .widthBits = 0, .inputs = 4}})
    test::errorOf([&] { costOf(bad, lib); }, ErrorKind::Config);
}

TEST(Components, ArbitersFollowTheDsentRunsBetweenTheirSizes) {
  const auto arbiter = [](int64_t n) {
    return costOf(ComponentSpec{.cls = ComponentClass::Arbiter, .inputs = n}, node("45nm", 1.0));
  };
  // At DSENT's own 45 nm and 1.0 V the runs come back: 16 requesters 0.835 pJ on 1,828 um^2.
  EXPECT_NEAR(arbiter(16).readEnergyPj, 0.835, 1e-9);
  EXPECT_NEAR(arbiter(16).areaUm2, 1828, 1e-6);
  EXPECT_NEAR(arbiter(4).readEnergyPj, 0.0815, 1e-9);
  // Between runs a power law: 12 requesters lie between 8 and 16, nearer 16 in logs.
  const double t = std::log(12.0 / 8) / std::log(2.0);
  EXPECT_NEAR(arbiter(12).areaUm2, 429 * std::pow(1828.0 / 429, t), 1e-6);
  // O(N^2) priority bits: 64 requesters extend the last pair's law (about 4x the area of 32).
  EXPECT_NEAR(arbiter(64).areaUm2 / arbiter(32).areaUm2, 7530.0 / 1828, 1e-9);
  // Leakage at logic's rate, not DSENT's LVT figure.
  EXPECT_GT(arbiter(16).leakageW, 0);
  EXPECT_LT(arbiter(16).leakageW, 594e-6 / 10);
  const std::string e = test::errorOf([&] { arbiter(1); }, ErrorKind::Config);
  EXPECT_NE(e.find("an arbiter of 1 requesters: 2 to 1024 are priced"), std::string::npos) << e;
  test::errorOf([&] { arbiter(1025); }, ErrorKind::Config);
  EXPECT_GT(arbiter(1024).areaUm2, arbiter(64).areaUm2);
  EXPECT_EQ(describe({.cls = ComponentClass::Arbiter, .inputs = 16}), "arbiter of 16");
}

TEST(Components, SerialLinksCostTheSameFigureAtEveryNode) {
  const auto link = [](int64_t bits, const char* at) {
    return costOf(ComponentSpec{.cls = ComponentClass::SerialLink, .widthBits = bits}, node(at));
  };
  // Poulton et al.: 0.54 pJ per bit, no area per lane published.
  EXPECT_NEAR(link(128, "28nm").readEnergyPj, 128 * 0.54, 1e-9);
  EXPECT_EQ(link(128, "7nm").readEnergyPj, link(128, "45nm").readEnergyPj);
  EXPECT_EQ(link(128, "16nm").areaUm2, 0.0);
  const std::string e = test::errorOf([&] { link(0, "16nm"); }, ErrorKind::Config);
  EXPECT_NE(e.find("a serial link word of 0 bits: widths 1 to 65536 are priced"), std::string::npos)
      << e;
}

TEST(Components, WiresCostPerBitAndMillimetreAndBarelyScale) {
  // Keckler et al.: 240 fJ per bit, mm and transition at 40 nm, 150 fJ at 10 nm; half the bits
  // toggle. No area (routed over logic).
  const auto wire = [](double mm, const char* at) {
    return costOf(
        ComponentSpec{.cls = ComponentClass::Wire, .widthBits = 128, .lengthUm = mm * 1e3},
        node(at));
  };
  const ComponentCost w = wire(2, "16nm");
  const double t = std::log(40.0 / 16) / std::log(4.0);
  EXPECT_NEAR(w.readEnergyPj, 128 * 2 * 0.5 * 0.240 * std::pow(0.150 / 0.240, t), 1e-12);
  EXPECT_EQ(w.areaUm2, 0.0);
  EXPECT_NEAR(wire(4, "16nm").readEnergyPj, 2 * w.readEnergyPj, 1e-12);
  // 45 nm to 7 nm: the wire keeps more than half its energy, logic about a tenth.
  EXPECT_GT(wire(1, "7nm").readEnergyPj / wire(1, "45nm").readEnergyPj, 0.5);
  test::errorOf(
      [] {
        costOf(ComponentSpec{.cls = ComponentClass::Wire, .widthBits = 8, .lengthUm = -1},
               node("45nm"));
      },
      ErrorKind::Config);
}

TEST(Components, EveryFigureScalesWithTheNode) {
  for (ComponentClass cls :
       {ComponentClass::IntAdder, ComponentClass::IntMultiplier, ComponentClass::FpAdder,
        ComponentClass::Register, ComponentClass::Multiplexer}) {
    SCOPED_TRACE(std::string(componentClassName(cls)));
    const ComponentSpec s{.cls = cls, .widthBits = 16};
    // Each class's figures are at its source's supply (0.9 V; the cell library's 1.1 V).
    const ProcessNode source = node("45nm", cls == ComponentClass::Multiplexer ? 1.1 : 0.9);
    const ComponentCost big = costOf(s, source), small = costOf(s, node("7nm"));
    EXPECT_NEAR(small.readEnergyPj / big.readEnergyPj, energyScale(source, node("7nm")), 1e-9);
    EXPECT_NEAR(small.areaUm2 / big.areaUm2, 0.059, 1e-9);
    EXPECT_NEAR(small.leakageW / big.leakageW, 0.059, 1e-9);
    EXPECT_FALSE(small.source.empty());
  }
}

} // namespace
} // namespace nnaccel::tech
