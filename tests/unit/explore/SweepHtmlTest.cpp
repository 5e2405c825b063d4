/// \file
/// Tests of the sweep's HTML page (explore/SweepHtml.h): the bar charts name each point by its
/// parameter values, not its index; cycles and energy are drawn against each numeric parameter
/// that varies; the table groups thousands; and the page is deterministic.
#include "nnaccel/explore/SweepHtml.h"

#include <gtest/gtest.h>

namespace {

using namespace nnaccel::explore;

SweepResult twoPointSweep() {
  SweepResult r;
  r.spec.model = "lenet5";
  r.spec.engine = "systolic";
  r.spec.config = "server";
  r.spec.params = {Param{"array.rows", {"32", "64"}}, Param{"clock_mhz", {"700"}}};
  for (size_t i = 0; i < 2; ++i) {
    PointResult p;
    p.index = i;
    p.values = {i == 0 ? "32" : "64", "700"};
    p.status = PointStatus::Ok;
    p.cycles = 1000 - 100 * static_cast<int64_t>(i);
    p.energyPj = 5e6 + 1e6 * static_cast<double>(i);
    p.timeUs = static_cast<double>(p.cycles) / 700;
    r.points.push_back(p);
  }
  rankPoints(r.points, Objective::Cycles);
  return r;
}

TEST(SweepHtml, BarsAreLabelledByParameterValues) {
  const std::string html = renderSweepHtml(twoPointSweep());
  const size_t bars = html.find("sweep-cycles");
  ASSERT_NE(bars, std::string::npos);
  EXPECT_NE(html.find(">rows=32 clock_mhz=700<", bars), std::string::npos);
  EXPECT_NE(html.find(">rows=64 clock_mhz=700<", bars), std::string::npos);
  EXPECT_EQ(html, renderSweepHtml(twoPointSweep()));
}

TEST(SweepHtml, CyclesAndEnergyAreDrawnAgainstEachVaryingNumericParameter) {
  const std::string html = renderSweepHtml(twoPointSweep());
  EXPECT_NE(html.find("data-chart=\"sweep-cycles-by-array.rows\""), std::string::npos);
  EXPECT_NE(html.find("data-chart=\"sweep-energy-by-array.rows\""), std::string::npos);
  // clock_mhz takes one value: no chart against it; it names the line instead.
  EXPECT_EQ(html.find("sweep-cycles-by-clock_mhz"), std::string::npos);
  EXPECT_NE(html.find("clock_mhz=700: array.rows = 64, 900"), std::string::npos);
  // A parameter that is not a number (a flow sequence) gets no axis.
  SweepResult r = twoPointSweep();
  r.points[0].values[0] = "[1, 2]";
  EXPECT_EQ(renderSweepHtml(r).find("sweep-cycles-by-array.rows"), std::string::npos);
}

TEST(SweepHtml, TheTableGroupsThousands) {
  SweepResult r = twoPointSweep();
  r.points[0].cycles = 1234567;
  EXPECT_NE(renderSweepHtml(r).find("<td>1,234,567</td>"), std::string::npos);
}

} // namespace
