/// \file
/// End-to-end tests of `nnaccel prune`: prune a zoo model and an exported ONNX file to a global
/// density and to per-layer densities from a `--weight-densities` JSON file (and its older name
/// `--densities`), check the printed table, re-import the written model and count its non-zero
/// weights layer by layer, run it with `nnaccel run`, and every error path (both or neither
/// density option, both names of the file option, bad density, bad JSON, unknown or unprunable
/// layer, unreadable densities file, unwritable output) with its exact message and exit code,
/// writing nothing.
#include "CliSupport.h"
#include "nnaccel/frontend/Onnx.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>

namespace fs = std::filesystem;
using namespace nnaccel;
using namespace nnaccel::clitest;

namespace {

/// Non-zero weights (input 1) per prunable layer of the ONNX file \p path, by layer name.
std::map<std::string, std::pair<int64_t, int64_t>> weightCounts(const std::string& path) {
  const ir::Graph g = frontend::importOnnxFile(path);
  std::map<std::string, std::pair<int64_t, int64_t>> out;
  for (const ir::Node& n : g.nodes()) {
    if (n.op != ir::OpKind::Conv && n.op != ir::OpKind::Gemm) {
      continue;
    }
    const Tensor& w = *g.value(n.inputs[1]).constant;
    const auto v = w.values<float>();
    out[n.name] = {w.numElements(),
                   std::count_if(v.begin(), v.end(), [](float x) { return x != 0.0f; })};
  }
  return out;
}

/// LeNet-5's prunable layers and their weight counts.
const std::map<std::string, int64_t> kLenetWeights = {
    {"c1", 150}, {"c3", 2400}, {"c5", 48000}, {"f6", 10080}, {"f7", 840}};

class PruneCli : public CliFixture {
protected:
  PruneCli() : CliFixture("prune_") {}

  /// CliFixture::expectError, and the failed command wrote no output model.
  void expectError(const std::string& args, int exitCode, const std::string& message) const {
    CliFixture::expectError(args, exitCode, message);
    EXPECT_FALSE(fs::exists(dir_ / "p.onnx")) << args;
  }
};

TEST_F(PruneCli, GlobalDensityOnAZooModelThenRun) {
  const Result r = run("prune lenet5 --density 0.5 -o p.onnx");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(r.out.rfind("pruned 'lenet5': 5 layers, 61,470 weights, density 1.0000 -> 0.5000\n", 0),
            0u)
      << r.out;
  EXPECT_EQ(rowStartingWith(r.out, "layer"),
            (std::vector<std::string>{"layer", "op", "weights", "non-zero", "density", "target",
                                      "kept", "achieved"}));
  EXPECT_EQ(
      rowStartingWith(r.out, "c1"),
      (std::vector<std::string>{"c1", "Conv", "150", "150", "1.0000", "0.5000", "75", "0.5000"}));
  // The seeded zoo weights hold a few exact zeros (one in c5, one in f6): already pruned.
  EXPECT_EQ(rowStartingWith(r.out, "f6"),
            (std::vector<std::string>{"f6", "Gemm", "10,080", "10,079", "0.9999", "0.5000", "5,040",
                                      "0.5000"}));
  EXPECT_EQ(rowStartingWith(r.out, "total"),
            (std::vector<std::string>{"total", "61,470", "61,468", "1.0000", "30,735", "0.5000"}));
  EXPECT_NE(r.out.find("\nwrote p.onnx\n"), std::string::npos) << r.out;

  // The written model has exactly round(0.5 x count) non-zeros per layer ...
  const auto counts = weightCounts(path("p.onnx"));
  ASSERT_EQ(counts.size(), kLenetWeights.size());
  for (const auto& [name, weights] : kLenetWeights) {
    EXPECT_EQ(counts.at(name), std::make_pair(weights, weights / 2)) << name;
  }
  // ... and loads and runs everywhere.
  const Result ran = run("run p.onnx");
  EXPECT_EQ(ran.exitCode, 0) << ran.err;
  EXPECT_NE(ran.out.find("output 'output': f32 1x10"), std::string::npos) << ran.out;
  const Result info = run("info p.onnx");
  EXPECT_EQ(info.exitCode, 0) << info.err;

  // Pruning the pruned model again to the same density changes nothing; it is deterministic.
  const Result again = run("prune p.onnx --density 0.5 -o p2.onnx");
  ASSERT_EQ(again.exitCode, 0) << again.err;
  EXPECT_EQ(rowStartingWith(again.out, "c3"),
            (std::vector<std::string>{"c3", "Conv", "2,400", "1,200", "0.5000", "0.5000", "1,200",
                                      "0.5000"}));
  const Result twice = run("prune lenet5 --density 0.5 -o p3.onnx");
  ASSERT_EQ(twice.exitCode, 0) << twice.err;
  EXPECT_EQ(readFile(path("p3.onnx")), readFile(path("p.onnx")));
}

TEST_F(PruneCli, PerLayerDensitiesFromJsonOnAnOnnxFile) {
  ASSERT_EQ(run("zoo export lenet5 lenet5.onnx").exitCode, 0);
  writeText("d.json", R"({"c1": 0.2, "f7": 1, "default": 0.1})");
  const Result r = run("prune lenet5.onnx --weight-densities d.json -o p.onnx");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const auto counts = weightCounts(path("p.onnx"));
  EXPECT_EQ(counts.at("c1").second, 30);
  EXPECT_EQ(counts.at("c3").second, 240);
  EXPECT_EQ(counts.at("c5").second, 4800);
  EXPECT_EQ(counts.at("f6").second, 1008);
  EXPECT_EQ(counts.at("f7").second, 840);
  EXPECT_EQ(
      rowStartingWith(r.out, "c1"),
      (std::vector<std::string>{"c1", "Conv", "150", "150", "1.0000", "0.2000", "30", "0.2000"}));
  EXPECT_EQ(run("run p.onnx").exitCode, 0);

  // Without "default", unlisted layers stay dense (target "-").
  writeText("only.json", R"({"c5": 0.05})");
  const Result only = run("prune lenet5 --weight-densities only.json -o q.onnx");
  ASSERT_EQ(only.exitCode, 0) << only.err;
  EXPECT_EQ(rowStartingWith(only.out, "c1"),
            (std::vector<std::string>{"c1", "Conv", "150", "150", "1.0000", "-", "150", "1.0000"}));
  EXPECT_EQ(rowStartingWith(only.out, "c5"),
            (std::vector<std::string>{"c5", "Conv", "48,000", "47,999", "1.0000", "0.0500", "2,400",
                                      "0.0500"}));
  const auto q = weightCounts(path("q.onnx"));
  EXPECT_EQ(q.at("c3").second, 2400);
  EXPECT_EQ(q.at("c5").second, 2400);
}

TEST_F(PruneCli, EveryLayerOfTheFileWithinOneWeight) {
  // Densities that do not divide the layers' weight counts: each layer keeps round(d x weights)
  // non-zeros (c5 had one exact zero already: 47,999 non-zeros, more than it keeps).
  writeText("w.json", R"({"c1": 0.33, "c3": 0.071, "c5": 0.0123, "f6": 0.777, "f7": 0.5})");
  const std::map<std::string, double> wanted = {
      {"c1", 0.33}, {"c3", 0.071}, {"c5", 0.0123}, {"f6", 0.777}, {"f7", 0.5}};
  const Result r = run("prune lenet5 --weight-densities w.json -o p.onnx");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const auto counts = weightCounts(path("p.onnx"));
  ASSERT_EQ(counts.size(), wanted.size());
  for (const auto& [name, d] : wanted) {
    const auto [weights, nonZeros] = counts.at(name);
    EXPECT_EQ(weights, kLenetWeights.at(name)) << name;
    EXPECT_LE(std::abs(static_cast<double>(nonZeros) - d * static_cast<double>(weights)), 0.5)
        << name << ": " << nonZeros << " of " << weights;
  }
  EXPECT_EQ(counts.at("c1").second, 50);  // 49.5 rounds away from zero
  EXPECT_EQ(counts.at("c5").second, 590); // 590.4
  // The older name of the option reads the same file the same way.
  const Result old = run("prune lenet5 --densities w.json -o q.onnx");
  ASSERT_EQ(old.exitCode, 0) << old.err;
  EXPECT_EQ(readFile(path("q.onnx")), readFile(path("p.onnx")));
}

TEST_F(PruneCli, DensityOptionErrors) {
  writeText("d.json", R"({"c1": 0.5})");
  expectError("prune lenet5 --density 0.5 --weight-densities d.json -o p.onnx", 2,
              "give exactly one of --density and --weight-densities (see 'nnaccel prune --help')");
  expectError("prune lenet5 --density 0.5 --densities d.json -o p.onnx", 2,
              "give exactly one of --density and --weight-densities (see 'nnaccel prune --help')");
  expectError("prune lenet5 -o p.onnx", 2,
              "give exactly one of --density and --weight-densities (see 'nnaccel prune --help')");
  expectError("prune lenet5 --weight-densities d.json --densities d.json -o p.onnx", 2,
              "--weight-densities: At Most 1 required but received 2 (see 'nnaccel prune "
              "--help')");
  for (const char* bad : {"1.5", "0", "-0.5", "abc", "0.5x", "nan"}) {
    expectError(std::string("prune lenet5 --density ") + bad + " -o p.onnx", 2,
                std::string("--density: expected a number in (0, 1], got '") + bad +
                    "' (see 'nnaccel prune --help')");
  }
  expectError("prune lenet5 --density 0.5", 2, "--output is required (see 'nnaccel prune --help')");
}

TEST_F(PruneCli, DensitiesFileErrors) {
  writeText("syntax.json", "{\"c1\": 0.5,");
  expectError("prune lenet5 --weight-densities syntax.json -o p.onnx", 2,
              "syntax.json: invalid JSON: parse error at line 1, column 12: syntax error while "
              "parsing object key - unexpected end of input; expected string literal");
  writeText("array.json", "[0.5]");
  expectError("prune lenet5 --weight-densities array.json -o p.onnx", 2,
              "array.json: expected a JSON object {\"layer name\": density, ...}, got array");
  writeText("range.json", R"({"c1": 2})");
  expectError("prune lenet5 --weight-densities range.json -o p.onnx", 2,
              "range.json: 'c1': density must be in (0, 1], got 2");
  writeText("type.json", R"({"c1": "half"})");
  expectError("prune lenet5 --weight-densities type.json -o p.onnx", 2,
              "type.json: 'c1': expected a density (a number in (0, 1]), got string");
  writeText("unknown.json", R"({"c1": 0.5, "conv9": 0.5})");
  expectError("prune lenet5 --weight-densities unknown.json -o p.onnx", 2,
              "unknown.json: 'conv9': no layer of that name in the model (prunable layers: c1, "
              "c3, c5, f6, f7)");
  writeText("pool.json", R"({"s2": 0.5})");
  expectError("prune lenet5 --weight-densities pool.json -o p.onnx", 2,
              "pool.json: 's2': names a node of type AveragePool, not a prunable layer (Conv, "
              "ConvTranspose, Gemm or MatMul with a constant f32 weight; prunable layers: c1, c3, "
              "c5, f6, f7)");
  expectError("prune lenet5 --weight-densities missing.json -o p.onnx", 1,
              "missing.json: cannot open file (No such file or directory)");
}

TEST_F(PruneCli, UnwritableOutput) {
  expectError("prune lenet5 --density 0.5 -o /nonexistent-dir/p.onnx", 1,
              "/nonexistent-dir/p.onnx: cannot open file for writing (No such file or directory)");
  fs::create_directories(dir_ / "outdir");
  expectError("prune lenet5 --density 0.5 -o outdir", 1,
              "outdir: cannot open file for writing (Is a directory)");
}

TEST_F(PruneCli, HelpListsTheOptions) {
  const Result r = run("prune --help");
  EXPECT_EQ(r.exitCode, 0);
  for (const char* option : {"MODEL", "--density", "--weight-densities", "--densities", "--output",
                             "--dim", "--batch"}) {
    EXPECT_NE(r.out.find(option), std::string::npos) << option << "\n" << r.out;
  }
}

} // namespace
