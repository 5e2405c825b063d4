/// \file
/// Tests of the comparison run and its forms on LeNet-5: every engine asked for keeps its
/// place (a refused one with its reason), the verified runs are bit-exact, the text, JSON and
/// CSV forms carry the same engines, and the results do not depend on the run.
#include "nnaccel/compare/Compare.h"

#include "nnaccel/driver/ModelLoader.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sstream>

namespace {

using namespace nnaccel;
using namespace nnaccel::compare;

TEST(Compare, KeepsEveryEngineWithItsResultOrReason) {
  const ir::Graph g = driver::loadModel("lenet5");
  const Comparison c =
      compareModel(g, defaultBudget(), {"systolic", "stream", "broadcast"}, engines::RunOptions{});
  ASSERT_EQ(c.runs.size(), 3u);
  EXPECT_TRUE(c.runs[0].report.has_value());
  EXPECT_TRUE(c.runs[0].report->verdict.passed);
  EXPECT_FALSE(c.runs[1].report.has_value());
  EXPECT_NE(c.runs[1].error.find("multiply-select cells"), std::string::npos);
  EXPECT_FALSE(c.runs[1].internalError);
  EXPECT_TRUE(c.runs[2].report->verdict.passed);

  const std::string text = formatComparison(c);
  EXPECT_NE(text.find("stream: not mapped:"), std::string::npos);
  // Every LeNet-5 layer runs on the engines (Tanh as a lookup table): no host layer to list.
  EXPECT_EQ(text.find("runs on the host (H)"), std::string::npos);
  EXPECT_NE(text.find("host layers"), std::string::npos);
  EXPECT_NE(text.find("0/12   bit-exact"), std::string::npos) << text;

  const nlohmann::json j = nlohmann::json::parse(comparisonJson(c));
  EXPECT_EQ(j["schema"], "nnaccel.compare");
  ASSERT_EQ(j["engines"].size(), 3u);
  EXPECT_EQ(j["engines"][1]["status"], "not_mapped");
  EXPECT_TRUE(j["engines"][1]["report"].is_null());
  EXPECT_EQ(j["engines"][0]["report"]["engine"], "systolic");

  // CSV: the header, every layer of the two runs plus their totals, one row for stream.
  std::istringstream csv(comparisonCsv(c));
  size_t rows = 0, streamRows = 0;
  for (std::string line; std::getline(csv, line); ++rows)
    if (line.find(",stream,") != std::string::npos) {
      ++streamRows;
      EXPECT_NE(line.find("not mapped:"), std::string::npos) << line;
    }
  EXPECT_EQ(rows,
            1 + (c.runs[0].report->layers.size() + 1) + (c.runs[2].report->layers.size() + 1) + 1);
  EXPECT_EQ(streamRows, 1u);
}

TEST(Compare, IsDeterministic) {
  const ir::Graph g = driver::loadModel("lenet5");
  engines::RunOptions o;
  o.verify = false;
  const Comparison a = compareModel(g, defaultBudget(), {"systolic", "sparse"}, o);
  const Comparison b = compareModel(g, defaultBudget(), {"systolic", "sparse"}, o);
  EXPECT_EQ(comparisonJson(a), comparisonJson(b));
  EXPECT_EQ(renderComparisonHtml(a), renderComparisonHtml(b));
}

} // namespace

namespace nnaccel::compare {
namespace {

TEST(Compare, HtmlChartsEveryLayerAcrossTheEngines) {
  const ir::Graph g = driver::loadModel("lenet5");
  engines::RunOptions o;
  o.verify = false;
  const Comparison c = compareModel(g, defaultBudget(), {"systolic", "broadcast"}, o);
  const std::string html = renderComparisonHtml(c);
  for (const char* id : {"compare-layer-cycles", "compare-layer-energy", "compare-layer-dram"})
    EXPECT_NE(html.find(id), std::string::npos) << id;
  // Every layer of either engine is a category of the per-layer charts.
  const size_t at = html.find("compare-layer-cycles");
  const size_t end = html.find("compare-layer-energy");
  for (const EngineRun& r : c.runs)
    for (const report::LayerStats& l : r.report->layers)
      EXPECT_NE(html.substr(at, end - at).find(">" + l.name + "<"), std::string::npos) << l.name;
}

} // namespace
} // namespace nnaccel::compare
