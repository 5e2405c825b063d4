/// \file
/// End-to-end tests of the broadcast engine on the command line (seed 004: 1xN kernel
/// decomposition with activation broadcasting): `nnaccel simulate --arch broadcast` on LeNet-5
/// with the fig8 preset, the default preset and a config file (the int8 verdict, the JSON
/// report, --timing-only, --baseline), `nnaccel sweep vector-width` on LeNet-5 and on a small
/// hand-written 3x3 model (one best choice per layer, the kernel summary lines, the CSV cross-
/// checked against the table and against `simulate`), and every error path with its exact message
/// and exit code.
#include "CliSupport.h"
#include "nnaccel/frontend/Onnx.h"
#include "nnaccel/ir/Graph.h"
#include "nnaccel/ir/ShapeInference.h"

#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

namespace fs = std::filesystem;
using namespace nnaccel;
using namespace nnaccel::clitest;

namespace {

/// An ONNX file x[1,8,12,12] -> Conv a (16 filters, 3x3, stride 1, pad 1) -> Relu -> Conv b (16
/// filters, 3x3, stride 2, pad 1) -> y[1,16,6,6], with deterministic non-zero weights: two
/// kernel types ("3x3 s1", "3x3 s2"), the patent's main case.
void writeThreeByThreeModel(const std::string& path) {
  ir::Graph g;
  g.name = "conv3x3";
  g.opsetVersion = 13;
  const ir::ValueId x = g.addValue("x", DType::F32, {1, 8, 12, 12});
  g.inputs = {x};
  auto weights = [&](const std::string& name, int64_t filters, int64_t channels) {
    Tensor w(DType::F32, {filters, channels, 3, 3});
    auto v = w.values<float>();
    for (size_t i = 0; i < v.size(); ++i)
      v[i] = static_cast<float>(static_cast<int64_t>((i * 37) % 17) - 8) / 16.0f;
    return g.addConstant(name, std::move(w));
  };
  auto conv = [&](const std::string& name, ir::ValueId in, int64_t channels, int64_t stride) {
    ir::Node n;
    n.op = ir::OpKind::Conv;
    n.name = name;
    n.opset = 13;
    n.inputs = {in, weights(name + ".w", 16, channels)};
    n.attrs.set("kernel_shape", std::vector<int64_t>{3, 3});
    n.attrs.set("strides", std::vector<int64_t>{stride, stride});
    n.attrs.set("pads", std::vector<int64_t>{1, 1, 1, 1});
    n.outputs = {g.addValue(name + ".out", DType::F32)};
    const ir::ValueId out = n.outputs[0];
    g.addNode(std::move(n));
    return out;
  };
  const ir::ValueId a = conv("a", x, 8, 1);
  ir::Node relu;
  relu.op = ir::OpKind::Relu;
  relu.name = "a.relu";
  relu.opset = 13;
  relu.inputs = {a};
  relu.outputs = {g.addValue("a.relu.out", DType::F32)};
  const ir::ValueId r = relu.outputs[0];
  g.addNode(std::move(relu));
  g.outputs = {conv("b", r, 16, 2)};
  ir::inferShapes(g);
  frontend::exportOnnxFile(g, path);
}

/// One CSV row of `sweep vector-width --csv`.
struct CsvPoint {
  std::string layer, op, kernel;
  int64_t n = 0, p = 0, cycles = 0, reads = 0;
  double energyPj = 0;
  bool best = false;
};

/// Parses the CSV (no quoted fields in these models' names); fails the test on a bad row.
std::vector<CsvPoint> parseSweepCsv(const std::string& text) {
  std::istringstream in(text);
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "layer,op,kernel,n,p,cycles,activation_reads,energy_pj,best");
  std::vector<CsvPoint> points;
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    std::istringstream fields(line);
    for (std::string field; std::getline(fields, field, ',');)
      f.push_back(field);
    EXPECT_EQ(f.size(), 9u) << line;
    if (f.size() != 9)
      continue;
    points.push_back(CsvPoint{f[0], f[1], f[2], std::stoll(f[3]), std::stoll(f[4]),
                              std::stoll(f[5]), std::stoll(f[6]), std::stod(f[7]), f[8] == "1"});
    EXPECT_TRUE(f[8] == "0" || f[8] == "1") << line;
  }
  return points;
}

/// "12,345" -> 12345.
int64_t parseGrouped(std::string text) {
  text.erase(std::remove(text.begin(), text.end(), ','), text.end());
  return std::stoll(text);
}

/// "1.25x": \p num / \p den as the sweep table prints a speedup.
std::string ratioText(int64_t num, int64_t den) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2fx", static_cast<double>(num) / static_cast<double>(den));
  return text;
}

class BroadcastCli : public CliFixture {
protected:
  BroadcastCli() : CliFixture("broadcast_") {}

  nlohmann::json readJson(const std::string& name) const {
    return nlohmann::json::parse(readFile(path(name)));
  }
};

// --- simulate -----------------------------------------------------------------------------------

TEST_F(BroadcastCli, SimulateOnFig8VerifiesAndReports) {
  const Result r = run("simulate lenet5 --arch broadcast --preset fig8 --report out.json");
  ASSERT_EQ(r.exitCode, 0) << r.err << r.out;
  for (const char* text : {"c1 ", "c3 ", "c5 ", "total",
                           "\nVERIFIED: lenet5 on broadcast 'fig8' matches the int8 reference "
                           "executor (bit-exact), ",
                           "\nwrote out.json\n"})
    EXPECT_NE(r.out.find(text), std::string::npos) << text << "\n" << r.out;
  const nlohmann::json j = readJson("out.json");
  EXPECT_EQ(j.at("engine"), "broadcast");
  EXPECT_EQ(j.at("config"), "fig8");
  EXPECT_EQ(j.at("model"), "lenet5");
  EXPECT_EQ(j.at("dtype"), "int8");
  // The one column of 4 PEs of FIGs. 7 and 8, 16 MAC lanes each.
  EXPECT_EQ(j.at("pe_count"), 4);
  EXPECT_EQ(j.at("peak_macs_per_cycle"), 64);
  EXPECT_EQ(j.at("verdict").at("checked"), true);
  EXPECT_EQ(j.at("verdict").at("passed"), true);
  EXPECT_GT(j.at("verdict").at("compared_elements").get<int64_t>(), 0);
  EXPECT_TRUE(j.at("baseline").empty()) << "rows only with --baseline";
  std::set<std::string> layers;
  for (const nlohmann::json& l : j.at("layers"))
    layers.insert(l.at("name").get<std::string>());
  for (const char* name : {"c1", "c3", "c5", "f6", "f7"})
    EXPECT_EQ(layers.count(name), 1u) << name;
  // Deterministic: the same run prints the same report.
  EXPECT_EQ(run("simulate lenet5 --arch broadcast --preset fig8").out,
            r.out.substr(0, r.out.find("wrote out.json")));
}

TEST_F(BroadcastCli, SimulateOnTheDefaultPresetAndAConfigFile) {
  const Result r = run("simulate lenet5 --arch broadcast");
  ASSERT_EQ(r.exitCode, 0) << r.err << r.out;
  EXPECT_NE(r.out.find("\nVERIFIED: lenet5 on broadcast 'npu' matches the int8 reference "
                       "executor (bit-exact), "),
            std::string::npos)
      << r.out;
  EXPECT_EQ(run("simulate lenet5 --arch broadcast --preset npu").out, r.out);
  // `arch show` prints a config file that runs the same machine.
  const Result show = run("arch show broadcast --preset fig8");
  ASSERT_EQ(show.exitCode, 0) << show.err;
  writeText("fig8.yaml", show.out);
  const Result file = run("simulate lenet5 --arch broadcast --config fig8.yaml");
  ASSERT_EQ(file.exitCode, 0) << file.err;
  EXPECT_EQ(file.out, run("simulate lenet5 --arch broadcast --preset fig8").out);
}

TEST_F(BroadcastCli, TimingOnlySkipsTheVerification) {
  const Result r = run("simulate lenet5 --arch broadcast --preset fig8 --timing-only "
                       "--report t.json");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find("\nNOT CHECKED: outputs were not compared against a reference"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("VERIFIED"), std::string::npos) << r.out;
  const nlohmann::json t = readJson("t.json");
  EXPECT_EQ(t.at("verdict").at("checked"), false);
  // The timing does not depend on whether the outputs are compared.
  ASSERT_EQ(run("simulate lenet5 --arch broadcast --preset fig8 --report v.json").exitCode, 0);
  EXPECT_EQ(t.at("total").at("cycles"), readJson("v.json").at("total").at("cycles"));
}

TEST_F(BroadcastCli, BaselineAddsTheBaselineSection) {
  const Result r = run("simulate lenet5 --arch broadcast --preset fig8 --baseline --report "
                       "b.json");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find("\nbaseline vs method:\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\nVERIFIED: lenet5 on broadcast 'fig8' "), std::string::npos) << r.out;
  const nlohmann::json j = readJson("b.json");
  ASSERT_FALSE(j.at("baseline").empty()) << j.dump(2);
  std::set<std::string> rows;
  for (const nlohmann::json& row : j.at("baseline")) {
    rows.insert(row.at("layer").get<std::string>());
    EXPECT_GT(row.at("method").at("cycles").get<int64_t>(), 0) << row.dump();
    EXPECT_GT(row.at("baseline").at("cycles").get<int64_t>(), 0) << row.dump();
  }
  // Every convolution of LeNet-5 is compared with its baselines.
  for (const char* conv : {"c1", "c3", "c5"})
    EXPECT_EQ(rows.count(conv), 1u) << conv << "\n" << j.at("baseline").dump(2);
  const Result plain = run("simulate lenet5 --arch broadcast --preset fig8");
  EXPECT_EQ(plain.out.find("baseline vs method:"), std::string::npos);
}

TEST_F(BroadcastCli, SimulateUsageErrors) {
  expectError("simulate lenet5 --arch broadcast --dtype fp32", 2,
              "the broadcast engine models int8 operands with int32 accumulation (fp16/bf16 are "
              "not modelled); --dtype fp32 is not available (see 'nnaccel simulate --help')");
  expectError("simulate lenet5 --arch broadcast --exact", 2,
              "--exact applies to the systolic engine (see 'nnaccel simulate --help')");
  expectError("simulate lenet5 --arch broadcast --program x.nnx", 2,
              "--program applies to the systolic engine (see 'nnaccel simulate --help')");
  expectError("simulate lenet5 --arch broadcast --threads 1", 2,
              "--threads applies to the sparse engine (see 'nnaccel simulate --help')");
  expectError("simulate lenet5 --arch broadcast --preset nope", 2,
              "no broadcast preset named 'nope' (presets: npu, fig8)");
  expectError("simulate lenet5 --arch broadcast --preset npu --config x.yaml", 2,
              "--preset excludes --config (see 'nnaccel simulate --help')");
}

TEST_F(BroadcastCli, SimulateConfigFileErrors) {
  writeText("typo.yaml", "bogus_key: 1\n");
  expectErrorPrefix("simulate lenet5 --arch broadcast --config typo.yaml", 1,
                    "typo.yaml: 'bogus_key': unknown key (expected one of: ");
  expectError("simulate lenet5 --arch broadcast --config missing.yaml", 1,
              "missing.yaml: cannot open file (No such file or directory)");
  fs::create_directories(path("configs"));
  expectError("simulate lenet5 --arch broadcast --config configs", 1,
              "configs: is a directory, not a config file");
}

TEST_F(BroadcastCli, HelpNamesTheBroadcastEngine) {
  const Result simulate = run("simulate --help");
  ASSERT_EQ(simulate.exitCode, 0);
  EXPECT_NE(simulate.out.find("broadcast: the conventional 1x1"), std::string::npos)
      << simulate.out;
  const Result sweep = run("sweep --help");
  ASSERT_EQ(sweep.exitCode, 0);
  EXPECT_NE(sweep.out.find("vector-width"), std::string::npos) << sweep.out;
  const Result vw = run("sweep vector-width --help");
  ASSERT_EQ(vw.exitCode, 0);
  for (const char* option :
       {"--arch", "--preset", "--config", "--widths", "--group-sizes", "--csv"})
    EXPECT_NE(vw.out.find(option), std::string::npos) << option << "\n" << vw.out;
}

// --- sweep vector-width -------------------------------------------------------------------------

TEST_F(BroadcastCli, SweepPrintsTheBestChoicePerLayerAndWritesCsv) {
  const std::string args =
      "sweep vector-width lenet5 --arch broadcast --preset fig8 --widths 5,1,3 --group-sizes "
      "4,2 --csv sweep.csv";
  const Result r = run(args);
  ASSERT_EQ(r.exitCode, 0) << r.err << r.out;
  EXPECT_EQ(r.out.rfind("vector-width sweep of 'lenet5' on broadcast 'fig8' (1 column x 4 PEs; "
                        "widths N 1,3,5, group sizes P 2,4; timing only, not verified)\n",
                        0),
            0u)
      << r.out;
  EXPECT_NE(r.out.find("\nwrote sweep.csv\n"), std::string::npos) << r.out;
  const std::vector<std::string> header = rowStartingWith(r.out, "layer");
  ASSERT_GE(header.size(), 8u) << r.out;
  EXPECT_EQ(std::vector<std::string>(header.end() - 5, header.end()),
            (std::vector<std::string>{"best", "cycles", "reads", "vs", "N1"}));

  const std::vector<CsvPoint> csv = parseSweepCsv(readFile(path("sweep.csv")));
  std::map<std::string, std::vector<CsvPoint>> byLayer;
  for (const CsvPoint& p : csv)
    byLayer[p.layer].push_back(p);
  // LeNet-5's convolutions are all 5x5 stride 1.
  for (const char* conv : {"c1", "c3", "c5"}) {
    ASSERT_EQ(byLayer.count(conv), 1u) << conv;
    const std::vector<CsvPoint>& points = byLayer[conv];
    EXPECT_EQ(points.front().kernel, "5x5 s1");
    // P = 2 holds N = 1 only (P >= N); P = 4 holds N = 1 and 3, not 5: three points.
    std::set<std::pair<int64_t, int64_t>> np;
    for (const CsvPoint& p : points)
      np.insert({p.n, p.p});
    EXPECT_EQ(np, (std::set<std::pair<int64_t, int64_t>>{{1, 2}, {1, 4}, {3, 4}})) << conv;
    // Exactly one best point: the fewest cycles, then the fewest reads, then the smallest N.
    const auto best = std::find_if(points.begin(), points.end(), [](auto& p) { return p.best; });
    ASSERT_NE(best, points.end()) << conv;
    EXPECT_EQ(std::count_if(points.begin(), points.end(), [](auto& p) { return p.best; }), 1);
    for (const CsvPoint& p : points) {
      EXPECT_GE(p.cycles, best->cycles) << conv;
      EXPECT_GT(p.cycles, 0) << conv;
      if (p.cycles == best->cycles) {
        EXPECT_GE(p.reads, best->reads) << conv;
      }
    }
    // The table row repeats the best point: its name, cycles and reads, and the speedup over
    // N = 1 at the same P (>= 1 since the best has the fewest cycles).
    const std::vector<std::string> row = rowStartingWith(r.out, conv);
    ASSERT_GE(row.size(), 7u) << r.out;
    EXPECT_EQ(row[1], "Conv") << r.out;
    EXPECT_EQ(row[row.size() - 4], "N" + std::to_string(best->n) + "/P" + std::to_string(best->p));
    EXPECT_EQ(parseGrouped(row[row.size() - 3]), best->cycles);
    EXPECT_EQ(parseGrouped(row[row.size() - 2]), best->reads);
    const auto conventional = std::find_if(points.begin(), points.end(),
                                           [&](auto& p) { return p.n == 1 && p.p == best->p; });
    ASSERT_NE(conventional, points.end());
    EXPECT_EQ(row.back(), ratioText(conventional->cycles, best->cycles));
  }
  // One summary line for the kernel type, counting the three convolutions.
  const std::string summary = lineWith(r.out, "5x5 s1: best N=");
  EXPECT_NE(summary.find("/"), std::string::npos) << r.out;
  EXPECT_EQ(summary.rfind("5x5 s1: best N=", 0), 0u) << summary;
  // Deterministic, and the order of --widths/--group-sizes does not matter.
  EXPECT_EQ(run("sweep vector-width lenet5 --arch broadcast --preset fig8 --widths 1,3,5 "
                "--group-sizes 2,4 --csv sweep.csv")
                .out,
            r.out);
}

TEST_F(BroadcastCli, SweepPointMatchesTheSimulatedLayer) {
  // npu picks N per layer (report metric "N") in groups of 4: the sweep's (N, 4) point of each
  // layer has that simulation's cycles, activation reads and energy.
  writeThreeByThreeModel(path("conv3x3.onnx"));
  ASSERT_EQ(run("simulate conv3x3.onnx --arch broadcast --timing-only --report s.json").exitCode,
            0);
  const nlohmann::json report = readJson("s.json");
  const Result r = run("sweep vector-width conv3x3.onnx --arch broadcast --widths 1,2,3 "
                       "--group-sizes 4 --csv p.csv");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const std::vector<CsvPoint> points = parseSweepCsv(readFile(path("p.csv")));
  int compared = 0;
  for (const nlohmann::json& l : report.at("layers")) {
    if (l.at("unit") != "array")
      continue;
    const std::string name = l.at("name").get<std::string>();
    const auto n = static_cast<int64_t>(l.at("metrics").at("N").get<double>());
    const auto point = std::find_if(points.begin(), points.end(), [&](const CsvPoint& p) {
      return p.layer == name && p.n == n && p.p == 4;
    });
    ASSERT_NE(point, points.end()) << name << " N=" << n;
    EXPECT_EQ(point->cycles, l.at("cycles").get<int64_t>()) << name;
    EXPECT_EQ(point->reads, static_cast<int64_t>(l.at("metrics").at("reads").get<double>()))
        << name;
    EXPECT_NEAR(point->energyPj, l.at("energy_pj").get<double>(), 1e-3) << name;
    ++compared;
  }
  EXPECT_EQ(compared, 2) << report.at("layers").dump(2);
}

TEST_F(BroadcastCli, SweepSummarizesEachKernelType) {
  writeThreeByThreeModel(path("conv3x3.onnx"));
  const Result r = run("sweep vector-width conv3x3.onnx --arch broadcast --csv c.csv");
  ASSERT_EQ(r.exitCode, 0) << r.err << r.out;
  EXPECT_EQ(r.out.rfind("vector-width sweep of 'conv3x3' on broadcast 'npu' (8 columns x 8 PEs; "
                        "widths N 1,2,3,4,5, group sizes P 2,4,8; timing only, not verified)\n",
                        0),
            0u)
      << r.out;
  for (const auto& [layer, kernel] : {std::pair{"a", "3x3 s1"}, std::pair{"b", "3x3 s2"}}) {
    const std::vector<std::string> row = rowStartingWith(r.out, layer);
    ASSERT_GE(row.size(), 4u) << r.out;
    EXPECT_EQ(row[2] + " " + row[3], kernel) << r.out;
    // One line per kernel type, its only layer counted.
    const std::string summary = lineWith(r.out, std::string(kernel) + ": best N=");
    EXPECT_EQ(summary.rfind(std::string(kernel) + ": best N=", 0), 0u) << r.out;
    EXPECT_NE(summary.find(" in 1/1 layers"), std::string::npos) << summary;
  }
  // A 3-wide kernel takes N <= 3: N = 4 and 5 are clipped to 3, the same decomposition, listed
  // once. P = 2 holds N = 1, 2; P = 4 and 8 hold N = 1, 2, 3.
  for (const char* layer : {"a", "b"}) {
    std::multiset<std::pair<int64_t, int64_t>> np;
    for (const CsvPoint& p : parseSweepCsv(readFile(path("c.csv"))))
      if (p.layer == layer)
        np.insert({p.n, p.p});
    EXPECT_EQ(np, (std::multiset<std::pair<int64_t, int64_t>>{
                      {1, 2}, {2, 2}, {1, 4}, {2, 4}, {3, 4}, {1, 8}, {2, 8}, {3, 8}}))
        << layer;
  }
}

TEST_F(BroadcastCli, SweepErrors) {
  expectError("sweep vector-width lenet5 --arch sparse", 2,
              "vector-width sweeps need the broadcast engine (--arch broadcast) (see 'nnaccel "
              "sweep vector-width --help')");
  expectError("sweep vector-width lenet5", 2,
              "vector-width sweeps need the broadcast engine (--arch broadcast) (see 'nnaccel "
              "sweep vector-width --help')");
  expectError("sweep vector-width lenet5 --arch broadcast --widths 1,0", 2,
              "--widths: expected an integer >= 1, got '0' (see 'nnaccel sweep vector-width "
              "--help')");
  expectError("sweep vector-width lenet5 --arch broadcast --group-sizes x", 2,
              "--group-sizes: expected an integer >= 1, got 'x' (see 'nnaccel sweep vector-width "
              "--help')");
  // fig8 has one column of 4 PEs: neither 3 nor 8 divides it.
  expectError("sweep vector-width lenet5 --arch broadcast --preset fig8 --group-sizes 8,3", 2,
              "--group-sizes: no (N, P) point is feasible on broadcast 'fig8': a group size must "
              "divide the 4 PEs of a column and hold N (group sizes 3,8; widths 1,2,3,4,5) (see "
              "'nnaccel sweep vector-width --help')");
  expectError("sweep vector-width lenet5 --arch broadcast --preset nope", 2,
              "no broadcast preset named 'nope' (presets: npu, fig8)");
  // The CSV path is checked before the sweep runs.
  expectError("sweep vector-width lenet5 --arch broadcast --csv nodir/s.csv", 1,
              "nodir/s.csv: cannot open file for writing (No such file or directory)");
}

} // namespace
