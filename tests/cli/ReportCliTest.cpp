/// \file
/// End-to-end tests of the report outputs of `simulate`, `compare` and `sweep`: the HTML report is
/// rendered in headless Chromium (Debian's chromium, installed by scripts/bootstrap) and every
/// chart must be present and draw marks; the page must be self-contained; --screenshot writes a
/// PNG; the CSV has the documented columns; `compare` keeps an engine that cannot take the
/// budget in every output with its reason; and the error paths of the new options.
#include "CliSupport.h"

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <regex>

namespace {

using nnaccel::clitest::CliFixture;
using nnaccel::clitest::countLines;
using nnaccel::clitest::lineWith;
using nnaccel::clitest::readFile;
using Json = nlohmann::json;

class ReportCli : public CliFixture {
protected:
  ReportCli() : CliFixture("report_") {}

  /// Renders \p html in headless Chromium and returns the page's chart check: chart id -> marks
  /// drawn with a non-zero size (HtmlPage's inline script writes it into #chart-check).
  Json renderedChartCheck(const std::string& html) const {
    // The file:// URL with every byte but unreserved ones and '/' percent-encoded.
    std::string url = "file://";
    for (unsigned char ch : std::filesystem::absolute(html).string()) {
      if (std::isalnum(ch) != 0 || ch == '/' || ch == '-' || ch == '.' || ch == '_' || ch == '~')
        url += static_cast<char>(ch);
      else
        url += fmt::format("%{:02X}", ch);
    }
    const std::string dom = path("dom.html");
    const std::string cmd =
        fmt::format("chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run "
                    "--disable-background-networking --disable-component-update --disable-sync "
                    "--user-data-dir='{}' --dump-dom '{}' >'{}' 2>/dev/null",
                    path("profile"), url, dom);
    const int status = std::system(cmd.c_str());
    EXPECT_EQ(status, 0) << "headless Chromium failed (is Debian's chromium installed? "
                            "scripts/bootstrap installs it): "
                         << cmd;
    const std::string text = readFile(dom);
    const std::regex check(R"re(<pre id="chart-check">([^<]*)</pre>)re");
    std::smatch m;
    if (!std::regex_search(text, m, check)) {
      ADD_FAILURE() << "no #chart-check in the rendered page";
      return Json::object();
    }
    std::string json = m[1].str();
    // The DOM dump escapes quotes in text nodes only as &quot; when needed; undo entities.
    for (const auto& [entity, ch] :
         {std::pair<std::string, std::string>{"&quot;", "\""}, {"&amp;", "&"}}) {
      for (size_t at = json.find(entity); at != std::string::npos; at = json.find(entity, at))
        json.replace(at, entity.size(), ch);
    }
    return Json::parse(json);
  }

  /// The page must open offline: no external scripts, styles, images or fonts.
  static void expectSelfContained(const std::string& html) {
    EXPECT_EQ(html.find("src="), std::string::npos);
    EXPECT_EQ(html.find("<link"), std::string::npos);
    EXPECT_EQ(html.find("@import"), std::string::npos);
    EXPECT_EQ(html.find("url("), std::string::npos);
    EXPECT_EQ(html.find("https://"), std::string::npos);
  }
};

TEST_F(ReportCli, SimulateHtmlRendersEveryChartWithMarks) {
  const auto r = run("simulate lenet5 --arch systolic --preset small --html r.html --csv r.csv "
                     "--report r.json");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const std::string html = readFile(path("r.html"));
  expectSelfContained(html);
  EXPECT_NE(html.find("config used"), std::string::npos);
  const Json check = renderedChartCheck(path("r.html"));
  for (const char* chart : {"systolic-cycles", "systolic-utilization", "systolic-traffic",
                            "systolic-energy", "systolic-roofline"}) {
    ASSERT_TRUE(check.contains(chart)) << chart << " missing: " << check.dump();
    EXPECT_GT(check[chart].get<int>(), 0) << chart << " draws nothing";
  }
  // CSV: the header and one row per layer plus the total.
  const std::string csv = readFile(path("r.csv"));
  EXPECT_EQ(csv.rfind("schema_version,engine,config,model,dtype,layer,op,unit,", 0), 0u);
  const Json report = Json::parse(readFile(path("r.json")));
  EXPECT_EQ(countLines(csv), report["layers"].size() + 2);
  EXPECT_EQ(report["schema_version"], 1);
  EXPECT_NE(lineWith(csv, ",total,"), "");
}

TEST_F(ReportCli, CompareWritesEveryFormAndKeepsUnmappedEngines) {
  // A file name the browser would misread unencoded ('#' starts a URL fragment).
  const auto r = run("compare lenet5 --archs systolic,sparse,broadcast,stream --html 'c #1.html' "
                     "--screenshot --csv c.csv --report c.json");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  // The default budget (1024 multipliers) holds no stream chip: the reason, not a gap.
  EXPECT_NE(lineWith(r.out, "stream: not mapped:").find("multiply-select cells"), std::string::npos)
      << r.out;
  for (const char* engine : {"systolic", "sparse", "broadcast"}) {
    const auto row = nnaccel::clitest::rowStartingWith(r.out.substr(r.out.find("totals:")), engine);
    ASSERT_FALSE(row.empty()) << engine;
    EXPECT_EQ(row.back(), "bit-exact") << engine;
  }
  const Json j = Json::parse(readFile(path("c.json")));
  ASSERT_EQ(j["engines"].size(), 4u);
  EXPECT_EQ(j["engines"][3]["status"], "not_mapped");
  EXPECT_EQ(j["engines"][0]["resources"]["multipliers"], 1024);
  EXPECT_EQ(j["engines"][1]["resources"]["multipliers"], 1024);
  EXPECT_EQ(j["engines"][2]["resources"]["multipliers"], 1024);
  EXPECT_NE(lineWith(readFile(path("c.csv")), ",stream,").find("not mapped"), std::string::npos);
  const std::string html = readFile(path("c #1.html"));
  expectSelfContained(html);
  const Json check = renderedChartCheck(path("c #1.html"));
  // The engines' own per-layer charts too: the sparse array's slots and speed-up, broadcast's
  // re-use and reads.
  for (const char* chart :
       {"compare-cycles", "compare-energy", "compare-dram", "sparse-cycles", "broadcast-roofline",
        "systolic-energy", "sparse-counts-slots", "sparse-metric-speedup", "broadcast-counts-reuse",
        "broadcast-metric-reads"}) {
    ASSERT_TRUE(check.contains(chart)) << chart << " missing: " << check.dump();
    EXPECT_GT(check[chart].get<int>(), 0) << chart;
  }
  const std::string png = readFile(path("c #1.png"));
  ASSERT_GT(png.size(), 1000u);
  EXPECT_EQ(png.substr(1, 3), "PNG");
}

TEST_F(ReportCli, SweepHtmlPlotsTheParetoFront) {
  const auto r = run("sweep lenet5 --arch systolic --preset small --param array.rows=8,16 "
                     "--param array.cols=8,16 --pareto cycles,multipliers --timing-only "
                     "--html s.html");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const std::string html = readFile(path("s.html"));
  expectSelfContained(html);
  const Json check = renderedChartCheck(path("s.html"));
  // Four points, with the front joined by a line: at least the points and the line.
  ASSERT_TRUE(check.contains("sweep-pareto")) << check.dump();
  EXPECT_GE(check["sweep-pareto"].get<int>(), 5);
  EXPECT_EQ(check["sweep-cycles"].get<int>(), 4);
  EXPECT_EQ(check["sweep-energy"].get<int>(), 4);
  // Cycles and energy against each parameter: four points each.
  for (const char* chart : {"sweep-cycles-by-array.rows", "sweep-energy-by-array.cols"}) {
    ASSERT_TRUE(check.contains(chart)) << chart << " missing: " << check.dump();
    EXPECT_EQ(check[chart].get<int>(), 4) << chart;
  }
}

TEST_F(ReportCli, CompareBudgetDerivesEqualResources) {
  writeText("b.yaml", "name: small\nmultipliers: 256\nsram_bytes: 524288\nclock_mhz: 500\n"
                      "dram_bytes_per_cycle: 8\n");
  const auto r = run("compare lenet5 --archs systolic,sparse,broadcast --budget b.yaml "
                     "--timing-only --report c.json");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const Json j = Json::parse(readFile(path("c.json")));
  for (const Json& e : j["engines"]) {
    EXPECT_EQ(e["status"], "ok") << e["engine"] << ": " << e["error"];
    EXPECT_EQ(e["resources"]["multipliers"], 256) << e["engine"];
    EXPECT_EQ(e["resources"]["clock_mhz"], 500.0) << e["engine"];
    EXPECT_EQ(e["resources"]["dram_bytes_per_cycle"], 8.0) << e["engine"];
    // Integer division of the SRAM over PEs may leave a few bytes unassigned, never more.
    EXPECT_LE(e["resources"]["sram_bytes"].get<int64_t>(), 524288) << e["engine"];
    EXPECT_GE(e["resources"]["sram_bytes"].get<int64_t>(), 524288 - 4096) << e["engine"];
  }
  const auto show = run("compare --show-budget --budget b.yaml lenet5");
  EXPECT_NE(show.out.find("multipliers: 256"), std::string::npos) << show.out;
}

TEST_F(ReportCli, Errors) {
  expectError("simulate lenet5 --screenshot", 2,
              "--screenshot renders the HTML report; give --html FILE too (see 'nnaccel "
              "simulate --help')");
  expectError("sweep lenet5 --arch systolic --param array.rows=8 --screenshot", 2,
              "--screenshot renders the HTML report; give --html FILE too (see 'nnaccel "
              "sweep --help')");
  expectErrorPrefix("compare lenet5 --archs systolic,tpu", 2, "--archs: ");
  writeText("bad.yaml", "multipliers: 0\n");
  expectError("compare lenet5 --budget bad.yaml", 1,
              "bad.yaml: 'multipliers': must be >= 1 (got 0)");
  writeText("share.yaml", "systolic:\n  psum_share: 1.5\n");
  expectError("compare lenet5 --budget share.yaml", 1,
              "share.yaml: 'systolic.psum_share': must be between 0 and 1, exclusive (got 1.5)");
  writeText("unknown.yaml", "multiplers: 64\n");
  expectErrorPrefix("compare lenet5 --budget unknown.yaml", 1,
                    "unknown.yaml: 'multiplers': unknown key");
  expectErrorPrefix("compare lenet5 --budget missing.yaml", 1, "missing.yaml: ");
  // A budget an engine cannot be arranged as: that engine's row says why, the run goes on.
  writeText("odd.yaml", "multipliers: 1000\n");
  const auto r = run("compare lenet5 --archs sparse,systolic --budget odd.yaml --timing-only");
  EXPECT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(lineWith(r.out, "sparse: not mapped:").find("not a whole number of scnn PEs"),
            std::string::npos)
      << r.out;
  // A budget whose derived config breaks the engine's own schema names the engine's key.
  writeText("huge.yaml", "multipliers: 884736\nsram_bytes: 67108864\n");
  const auto huge = run("compare lenet5 --archs broadcast --budget huge.yaml --timing-only");
  EXPECT_EQ(huge.exitCode, 0) << huge.err;
  EXPECT_NE(lineWith(huge.out, "broadcast: not mapped:")
                .find("impossible broadcast config: 'pe_array.columns': must be <= 1024"),
            std::string::npos)
      << huge.out;
}

} // namespace
