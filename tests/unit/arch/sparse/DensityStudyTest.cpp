/// \file
/// Tests of the sparse engine's density study (src/arch/sparse/DensityStudy.cpp): the
/// densities of one point (densityPoint) for every combination of profile files and --axis,
/// the pruned weights of a point following the file layer by layer to one weight, and the
/// study run through the engine's registry with profile files: its CSV, its title and its
/// errors (a profile naming no layer) before any point runs.
#include "ErrorOf.h"
#include "nnaccel/arch/sparse/Studies.h"
#include "nnaccel/driver/ModelLoader.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>

namespace nnaccel::arch::sparse {
namespace {

passes::PruneSpec spec(std::optional<double> density, std::map<std::string, double> perLayer,
                       std::string source) {
  passes::PruneSpec s;
  s.density = density;
  s.perLayer = std::move(perLayer);
  s.source = std::move(source);
  return s;
}

TEST(DensityPoint, WithoutFilesTheValueIsEveryLayersDensity) {
  const DensityProfiles both;
  EXPECT_FALSE(both.scales());
  const DensityPoint p = densityPoint(both, 0.3);
  ASSERT_TRUE(p.weights.has_value());
  EXPECT_EQ(p.weights->density, 0.3);
  EXPECT_TRUE(p.weights->perLayer.empty());
  EXPECT_EQ(p.activations.density, 0.3);
  EXPECT_TRUE(p.activations.perLayer.empty());

  // Off the axis and without a file: the model's own weights, the computed activations.
  DensityProfiles weightsOnly;
  weightsOnly.sweepActivations = false;
  const DensityPoint w = densityPoint(weightsOnly, 0.3);
  ASSERT_TRUE(w.weights.has_value());
  EXPECT_EQ(w.weights->density, 0.3);
  EXPECT_TRUE(w.activations.empty());
  DensityProfiles activationsOnly;
  activationsOnly.sweepWeights = false;
  const DensityPoint a = densityPoint(activationsOnly, 0.3);
  EXPECT_FALSE(a.weights.has_value());
  EXPECT_EQ(a.activations.density, 0.3);
}

TEST(DensityPoint, FilesOnTheAxisAreScaledLayerByLayer) {
  DensityProfiles p;
  p.weights = spec(0.25, {{"c1", 0.2}, {"c3", 0.5}}, "w.json");
  p.activations = spec(std::nullopt, {{"c3", 0.4}, {"c5", 0.3}}, "a.json");
  EXPECT_TRUE(p.scales());
  const DensityPoint at = densityPoint(p, 0.5);
  ASSERT_TRUE(at.weights.has_value());
  EXPECT_EQ(at.weights->density, 0.125);
  EXPECT_EQ(at.weights->perLayer, (std::map<std::string, double>{{"c1", 0.1}, {"c3", 0.25}}));
  EXPECT_EQ(at.weights->source, "w.json"); // errors still name the file
  // A file without "default" leaves the layers it does not name alone at every point.
  EXPECT_FALSE(at.activations.density.has_value());
  EXPECT_EQ(at.activations.perLayer, (std::map<std::string, double>{{"c3", 0.2}, {"c5", 0.15}}));
  EXPECT_EQ(at.activations.source, "a.json");
  EXPECT_EQ(at.activations.of("c1"), std::nullopt);
  // At 1 the point is the files exactly.
  const DensityPoint one = densityPoint(p, 1.0);
  EXPECT_EQ(one.weights->perLayer, p.weights->perLayer);
  EXPECT_EQ(one.activations.perLayer, p.activations->perLayer);
}

TEST(DensityPoint, AFileOffTheAxisIsHeld) {
  DensityProfiles p;
  p.weights = spec(0.25, {{"c1", 0.2}}, "w.json");
  p.sweepWeights = false;
  EXPECT_FALSE(p.scales()); // the swept operand (activations) has no file: a density axis
  for (const double v : {0.1, 0.7}) {
    const DensityPoint at = densityPoint(p, v);
    ASSERT_TRUE(at.weights.has_value());
    EXPECT_EQ(at.weights->density, 0.25);
    EXPECT_EQ(at.weights->perLayer, p.weights->perLayer);
    EXPECT_EQ(at.activations.density, v);
  }
  // An activation file held while the weights are swept.
  DensityProfiles q;
  q.activations = spec(std::nullopt, {{"c3", 0.4}}, "a.json");
  q.sweepActivations = false;
  EXPECT_FALSE(q.scales());
  const DensityPoint at = densityPoint(q, 0.2);
  EXPECT_EQ(at.weights->density, 0.2);
  EXPECT_EQ(at.activations.perLayer, (std::map<std::string, double>{{"c3", 0.4}}));
  EXPECT_EQ(at.activations.source, "a.json");
  // One file on the axis makes it a scale even when the other operand has none.
  DensityProfiles r;
  r.weights = spec(std::nullopt, {{"c1", 0.2}}, "w.json");
  EXPECT_TRUE(r.scales());
  EXPECT_EQ(densityPoint(r, 0.5).activations.density, 0.5);
}

TEST(DensityPoint, PrunedWeightsFollowTheScaledFileToOneWeight) {
  const ir::Graph model = driver::loadModel("lenet5");
  DensityProfiles p;
  p.weights = spec(0.0123, {{"c1", 0.33}, {"c3", 0.071}, {"f6", 0.777}}, "w.json");
  for (const double scale : {0.25, 0.6, 1.0}) {
    SCOPED_TRACE(scale);
    ir::Graph g = model;
    const passes::PruneReport report = passes::magnitudePrune(g, *densityPoint(p, scale).weights);
    ASSERT_EQ(report.layers.size(), 5u);
    for (const passes::LayerPruneResult& l : report.layers) {
      const auto named = p.weights->perLayer.find(l.name);
      const double wanted =
          scale * (named != p.weights->perLayer.end() ? named->second : *p.weights->density);
      EXPECT_LE(std::abs(static_cast<double>(l.kept) - wanted * static_cast<double>(l.weights)),
                0.5)
          << l.name << ": " << l.kept << " of " << l.weights;
    }
  }
}

/// The sparse engine's density study, through the registry as `sweep density` finds it.
engines::Study study() {
  for (engines::Study& s : engines::engineNamed("sparse").studies())
    if (s.name == "density")
      return s;
  ADD_FAILURE() << "no density study";
  return {};
}

class DensityStudyFiles : public ::testing::Test {
protected:
  void SetUp() override {
    // One folder per test: ctest runs the tests of this program in parallel.
    dir_ = std::filesystem::temp_directory_path() /
           ("nnaccel_density_study_test_" +
            std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    std::filesystem::create_directories(dir_);
  }
  std::string write(const std::string& name, const std::string& text) const {
    const std::string p = (dir_ / name).string();
    std::ofstream(p) << text;
    return p;
  }
  std::filesystem::path dir_;
};

TEST_F(DensityStudyFiles, DeclaresTheProfileOptions) {
  const engines::Study s = study();
  std::map<std::string, engines::StudyOption::Kind> kinds;
  for (const engines::StudyOption& o : s.options)
    kinds[o.name] = o.kind;
  using Kind = engines::StudyOption::Kind;
  EXPECT_EQ(kinds, (std::map<std::string, Kind>{{"densities", Kind::Numbers},
                                                {"weight-densities", Kind::File},
                                                {"activation-densities", Kind::File},
                                                {"axis", Kind::Choice}}));
  EXPECT_EQ(s.options.back().choices, (std::vector<std::string>{"both", "weights", "activations"}));
}

TEST_F(DensityStudyFiles, RunsTheScaledProfiles) {
  const ir::Graph g = driver::loadModel("lenet5");
  const engines::EngineConfig config = engines::engineNamed("sparse").preset("scnn");
  engines::StudyArgs args;
  args.values["densities"] = {1.0, 0.5};
  const std::string w = write("w.json", R"({"c1": 0.2, "c3": 0.5, "default": 0.25})");
  args.texts["weight-densities"] = w;
  args.texts["axis"] = "weights";
  const engines::StudyResult r = study().run(g, config, args);
  EXPECT_EQ(r.failure, "");
  EXPECT_NE(r.text.find("(weights magnitude-pruned to " + w +
                        "'s densities x the scale; activations computed from the input)\n"),
            std::string::npos)
      << r.text;
  std::istringstream csv(r.csv);
  std::string line;
  std::getline(csv, line);
  EXPECT_EQ(line, "scale,weight_density,activation_density,cycles,dense_cycles,speedup,energy_pj,"
                  "dense_energy_pj,energy_ratio,oracle_cycles,verified");
  // Ascending: 0.5 then 1. Weights kept: 15 + 600 + 6,000 + 1,260 + 105 of 61,470, then twice.
  std::vector<std::pair<double, double>> points; // (scale, weight density)
  std::vector<std::string> activation;
  while (std::getline(csv, line)) {
    std::vector<std::string> cells;
    std::istringstream fields(line);
    for (std::string cell; std::getline(fields, cell, ',');)
      cells.push_back(cell);
    ASSERT_EQ(cells.size(), 11u) << line;
    EXPECT_EQ(cells.back(), "1") << line;
    points.emplace_back(std::stod(cells[0]), std::stod(cells[1]));
    activation.push_back(cells[2]);
  }
  ASSERT_EQ(points.size(), 2u) << r.csv;
  EXPECT_EQ(points[0].first, 0.5);
  EXPECT_NEAR(points[0].second, 7980 / 61470.0, 1 / 61470.0);
  EXPECT_EQ(points[1].first, 1.0);
  EXPECT_NEAR(points[1].second, 15960 / 61470.0, 1 / 61470.0);
  // Activations off the axis, without a file: the model computes them, the same at both points
  // up to the pruned weights' effect on c3's and c5's inputs (so below 1, not synthetic).
  for (const std::string& a : activation)
    EXPECT_LT(std::stod(a), 1.0) << a;
}

TEST_F(DensityStudyFiles, AProfileNamingNoLayerFailsBeforeAnyPoint) {
  const ir::Graph g = driver::loadModel("lenet5");
  const engines::EngineConfig config = engines::engineNamed("sparse").preset("scnn");
  int points = 0;
  engines::StudyArgs args;
  args.progress = [&](const std::string&) { ++points; };
  const std::string a = write("a.json", R"({"c3": 0.5, "conv9": 0.25})");
  args.texts["activation-densities"] = a;
  EXPECT_EQ(test::errorOf([&] { study().run(g, config, args); }),
            a + ": 'conv9': activation density 0.25 names no layer of model 'lenet5'");
  args.texts.clear();
  const std::string w = write("w.json", R"({"s2": 0.5})");
  args.texts["weight-densities"] = w;
  EXPECT_EQ(test::errorOf([&] { study().run(g, config, args); }),
            w + ": 's2': names a node of type AveragePool, not a prunable layer (Conv, "
                "ConvTranspose, Gemm or MatMul with a constant f32 weight; prunable layers: c1, "
                "c3, c5, f6, f7)");
  args.texts["weight-densities"] = (dir_ / "missing.json").string();
  EXPECT_EQ(test::errorOf([&] { study().run(g, config, args); }, ErrorKind::Io),
            (dir_ / "missing.json").string() + ": cannot open file (No such file or directory)");
  EXPECT_EQ(points, 0);
}

} // namespace
} // namespace nnaccel::arch::sparse
