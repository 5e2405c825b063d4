// Process nodes and the Stillmaker–Baas scaling (src/tech/Node.cpp): the published anchors
// (the authors' erratum, the area table) and the rules for names, supplies and 28 nm.
#include "nnaccel/tech/Node.h"

#include "../../support/ErrorOf.h"

#include <algorithm>
#include <cmath>
#include <gtest/gtest.h>

namespace nnaccel::tech {
namespace {

TEST(Node, NamesTheNodesTheIssueAsksForAndTheirPtmSupplies) {
  const std::vector<std::string> names = nodeNames();
  for (const char* n : {"45nm", "28nm", "16nm", "7nm"})
    EXPECT_NE(std::find(names.begin(), names.end(), n), names.end()) << n;
  EXPECT_EQ(node("16").name, "16nm");
  EXPECT_EQ(node("16nm").vddV, 0.85); // PTM-MG 16 nm
  EXPECT_EQ(node("45nm").vddV, 1.0);  // PTM 45 nm HP card
  EXPECT_EQ(node("7nm").vddV, 0.7);
  EXPECT_EQ(node("28nm").vddV, 0.9);
  EXPECT_EQ(node("45nm", 0.9).vddV, 0.9);
  EXPECT_EQ(node("45nm", 0.9).vddSource, "configured");
}

TEST(Node, UnknownNamesAndSuppliesAreOneLineConfigErrors) {
  const std::string e = test::errorOf([] { node("22nm"); }, ErrorKind::Config);
  EXPECT_NE(e.find("unknown process node '22nm'"), std::string::npos) << e;
  EXPECT_NE(e.find("28nm"), std::string::npos) << e;
  const std::string v = test::errorOf([] { node("7nm", 3.0); }, ErrorKind::Config);
  EXPECT_NE(v.find("supply 3 V"), std::string::npos) << v;
  test::errorOf([] { node("45nm", 0.1); }, ErrorKind::Config);
}

// The authors' erratum: "EnergyFactor_x = 0.8367(0.9)^2 - 0.4341(0.9) + 0.1701 = 0.4571;
// EnergyFactor_y = 3.755(1.3)^2 - 4.398(1.3) + 1.975 = 2.604; E_x = 0.4571/2.604 x 1 pJ/Op =
// 0.1755 pJ/Op" (65 nm at 1.3 V to 32 nm at 0.9 V).
TEST(Node, EnergyScalingReproducesTheAuthorsWorkedExample) {
  EXPECT_NEAR(energyScale(node("65nm", 1.3), node("32nm", 0.9)), 0.1755, 5e-4);
  EXPECT_DOUBLE_EQ(energyScale(node("16nm"), node("16nm")), 1.0);
  // Energy per action falls at every smaller node at its nominal supply.
  const std::vector<std::string> names = nodeNames();
  for (size_t i = 1; i < names.size(); ++i)
    EXPECT_LT(energyScale(node(names[i - 1]), node(names[i])), 1.0) << names[i];
}

TEST(Node, AreaScalingIsThePublishedTableAnd28nmLiesBetweenItsNeighbours) {
  EXPECT_DOUBLE_EQ(areaScale(node("45nm"), node("7nm")), 0.059);
  EXPECT_DOUBLE_EQ(areaScale(node("7nm"), node("45nm")), 17);
  EXPECT_DOUBLE_EQ(areaScale(node("16nm"), node("16nm")), 1.0);
  // 28 nm: geometric in log(feature size) between 32 and 20 nm.
  const double t = std::log(32.0 / 28.0) / std::log(32.0 / 20.0);
  EXPECT_NEAR(areaScale(node("45nm"), node("28nm")), std::pow(0.46, 1 - t) * std::pow(0.21, t),
              1e-12);
  EXPECT_NEAR(areaScale(node("28nm"), node("28nm")), 1.0, 0.02); // the table is rounded
  const double e28 = energyScale(node("45nm"), node("28nm"));
  EXPECT_LT(e28, energyScale(node("45nm"), node("32nm")));
  EXPECT_GT(e28, energyScale(node("45nm"), node("20nm")));
}

} // namespace
} // namespace nnaccel::tech
