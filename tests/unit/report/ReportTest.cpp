/// \file
/// Tests of the run report: finalize() sums and utilization, the JSON form parsed back with
/// nlohmann (every field, exact values, key order), and the table (rows, totals, HOST marker and
/// notes, baseline section with ratios, verdict lines).
#include "nnaccel/report/Report.h"

#include "nnaccel/report/TextTable.h"

#include <algorithm>
#include <cstdint>
#include <gtest/gtest.h>
#include <iterator>
#include <nlohmann/json.hpp>
#include <sstream>

namespace {

using namespace nnaccel::report;
using Json = nlohmann::ordered_json;

LayerStats layer(const std::string& name, int64_t macs, int64_t cycles) {
  LayerStats l;
  l.name = name;
  l.op = "Conv";
  l.shape = "1x8x16x16";
  l.unit = "array";
  l.usefulMacs = macs;
  l.issuedMacs = macs * 2;
  l.streamedElements = macs / 4;
  l.instructions = 10;
  l.cycles = cycles;
  l.busyCycles = cycles / 2;
  l.stallCycles = cycles / 4;
  l.sbuf = {100, 200};
  l.psum = {40, 80};
  l.dram = {2048, 1024};
  l.energyPj = 1.5e6;
  l.causes.compute = cycles / 2;
  l.causes.memory = cycles / 4;
  l.energy.compute = 1.0e6;
  l.energy.dram = 0.25e6;
  return l;
}

/// Two array layers and one host-fallback layer on a 16-PE engine.
RunReport sample() {
  RunReport r;
  r.engine = "systolic";
  r.config = "small";
  r.model = "lenet5";
  r.dtype = "int8";
  r.peCount = 16;
  r.clockMhz = 1000;
  r.exact = true;
  r.layers.push_back(layer("conv1", 1600, 200));
  r.layers.back().addBreakdown("pe.stream", 150);
  r.layers.back().addBreakdown("dma.busy", 30);
  r.layers.back().addBreakdown("pe.stream", 10); // merged into the first entry
  r.layers.push_back(layer("conv2", 3200, 400));
  r.layers.back().addBreakdown("dma.busy", 70);
  r.layers.back().addBreakdown("pe.weightload", 5);
  LayerStats host = layer("softmax", 0, 0);
  host.op = "Softmax";
  host.unit = "host";
  host.hostFallback = true;
  host.note = "Softmax has no systolic lowering";
  host.energyPj = 0;
  host.energy = {};
  r.layers.push_back(host);
  r.finalize();
  return r;
}

std::string lineWith(const std::string& text, const std::string& needle) {
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.find(needle) != std::string::npos) {
      return line;
    }
  }
  return "";
}

TEST(Report, AddBreakdownMergesKeys) {
  const RunReport r = sample();
  ASSERT_EQ(r.layers[0].breakdown.size(), 2u);
  EXPECT_EQ(r.layers[0].breakdown[0], (std::pair<std::string, int64_t>{"pe.stream", 160}));
  EXPECT_EQ(r.layers[0].breakdown[1], (std::pair<std::string, int64_t>{"dma.busy", 30}));
}

TEST(Report, FinalizeSumsEveryCounter) {
  const RunReport r = sample();
  const LayerStats& t = r.total;
  EXPECT_EQ(t.name, "total");
  EXPECT_EQ(t.usefulMacs, 4800);
  EXPECT_EQ(t.issuedMacs, 9600);
  EXPECT_EQ(t.streamedElements, 1200);
  EXPECT_EQ(t.instructions, 30);
  EXPECT_EQ(t.cycles, 600);
  EXPECT_EQ(t.busyCycles, 300);
  EXPECT_EQ(t.stallCycles, 150);
  EXPECT_EQ(t.sbuf.readBytes, 300);
  EXPECT_EQ(t.sbuf.writeBytes, 600);
  EXPECT_EQ(t.psum.readBytes, 120);
  EXPECT_EQ(t.psum.writeBytes, 240);
  EXPECT_EQ(t.dram.readBytes, 3 * 2048);
  EXPECT_EQ(t.dram.writeBytes, 3 * 1024);
  EXPECT_DOUBLE_EQ(t.energyPj, 3.0e6);
  // Breakdown merged by key, in first-appearance order.
  const std::vector<std::pair<std::string, int64_t>> breakdown = {
      {"pe.stream", 160}, {"dma.busy", 100}, {"pe.weightload", 5}};
  EXPECT_EQ(t.breakdown, breakdown);
}

TEST(Report, FinalizeComputesUtilization) {
  RunReport r = sample();
  EXPECT_DOUBLE_EQ(r.layers[0].utilization, 1600.0 / (16.0 * 200.0));
  EXPECT_DOUBLE_EQ(r.layers[1].utilization, 3200.0 / (16.0 * 400.0));
  EXPECT_DOUBLE_EQ(r.layers[2].utilization, 0.0); // zero cycles
  EXPECT_DOUBLE_EQ(r.total.utilization, 4800.0 / (16.0 * 600.0));
  // Finalizing twice gives the same totals (total is recomputed, not accumulated).
  r.finalize();
  EXPECT_EQ(r.total.cycles, 600);
  EXPECT_EQ(r.total.breakdown.size(), 3u);
  // No PEs: utilization 0, never a division by zero.
  r.peCount = 0;
  r.finalize();
  EXPECT_DOUBLE_EQ(r.total.utilization, 0.0);
  EXPECT_DOUBLE_EQ(r.layers[0].utilization, 0.0);
}

TEST(Report, FinalizeOfAnEmptyReport) {
  RunReport r;
  r.peCount = 4;
  r.finalize();
  EXPECT_EQ(r.total.cycles, 0);
  EXPECT_DOUBLE_EQ(r.total.utilization, 0.0);
  EXPECT_NE(r.formatTable().find("NOT CHECKED"), std::string::npos);
  EXPECT_EQ(Json::parse(r.toJson())["layers"].size(), 0u);
}

// A run priced through the technology model: area by component at the top level, static
// energy per layer from the leakage and the layer's time, and the summary's energy per
// inference and average power (docs/report-schema.md).
TEST(Report, TechnologyGivesAreaStaticEnergyAndPower) {
  RunReport r = sample();
  r.technology = {"7nm", 0.7, 2.5, {{"pe_array", 1.5}, {"sbuf", 1.0}}, 0.02};
  r.finalize();
  // conv1: 200 cycles at 1000 MHz = 200 ns; 0.02 W x 200 ns = 4 nJ = 4000 pJ.
  EXPECT_DOUBLE_EQ(r.layers[0].staticEnergyPj, 4000);
  EXPECT_DOUBLE_EQ(r.total.staticEnergyPj, 0.02 * 600e-9 * 1e12);
  const Json j = Json::parse(r.toJson());
  EXPECT_EQ(j["technology"], (Json{{"node", "7nm"}, {"vdd_v", 0.7}}));
  EXPECT_EQ(j["area_mm2"], 2.5);
  EXPECT_EQ(j["area_mm2_by_component"], (Json{{"pe_array", 1.5}, {"sbuf", 1.0}}));
  double sum = 0;
  for (const auto& item : j["area_mm2_by_component"].items())
    sum += item.value().get<double>();
  EXPECT_DOUBLE_EQ(sum, j["area_mm2"].get<double>());
  EXPECT_DOUBLE_EQ(j["layers"][0]["static_energy_pj"].get<double>(), 4000);
  const double perInference = r.total.energyPj + r.total.staticEnergyPj;
  EXPECT_DOUBLE_EQ(j["energy_per_inference_pj"].get<double>(), perInference);
  EXPECT_DOUBLE_EQ(j["average_power_w"].get<double>(), perInference * 1e-12 / 600e-9);
  const std::string table = r.formatTable();
  EXPECT_NE(table.find("technology: 7nm at 0.7 V; area 2.5 mm2 (pe_array 60.0%, sbuf 40.0%); "
                       "leakage 20 mW"),
            std::string::npos)
      << table;
  const std::string csv = RunReport::csvHeader() + r.toCsvRows();
  EXPECT_NE(csv.find(",static_energy_pj,technology,area_mm2,verified\n"), std::string::npos);
  EXPECT_NE(csv.find(",4000,7nm at 0.7 V,2.5,"), std::string::npos) << csv;
}

TEST(Report, JsonParsesBackWithEveryField) {
  RunReport r = sample();
  r.baseline.push_back({"conv1", "dilated: zero-inserted kernel", {}, {}});
  r.baseline[0].method = {100, 1000, 50, 7, {10, 20}, {30, 40}};
  r.baseline[0].baseline = {400, 9000, 300, 28, {11, 21}, {31, 41}};
  r.verdict = {true, true, "int8 reference executor (bit-exact)", "", 10};
  r.layers[0].metrics = {{"w_density", 0.35}, {"speedup", 2.5}};
  r.layers[0].counts = {{"accumulator_rmw", 77}};
  r.layers[1].counts = {{"accumulator_rmw", 3}};
  r.finalize();
  r.summary = {{"dense baseline", "2.50x"}};
  const Json j = Json::parse(r.toJson());
  std::vector<std::string> keys;
  for (const auto& item : j.items()) {
    keys.push_back(item.key());
  }
  EXPECT_EQ(keys, (std::vector<std::string>{"schema",
                                            "schema_version",
                                            "engine",
                                            "config",
                                            "model",
                                            "dtype",
                                            "pe_count",
                                            "clock_mhz",
                                            "peak_macs_per_cycle",
                                            "dram_bytes_per_cycle",
                                            "on_chip_bytes_per_cycle",
                                            "exact",
                                            "technology",
                                            "area_mm2",
                                            "area_mm2_by_component",
                                            "leakage_w",
                                            "static_energy_pj",
                                            "energy_per_inference_pj",
                                            "average_power_w",
                                            "layers",
                                            "total",
                                            "baseline",
                                            "summary",
                                            "verdict",
                                            "interrupted",
                                            "config_yaml"}));
  // Without a technology: the fields are null and the run has no static energy.
  EXPECT_TRUE(j["technology"].is_null());
  EXPECT_TRUE(j["area_mm2"].is_null());
  EXPECT_EQ(j["static_energy_pj"], 0.0);
  EXPECT_EQ(j["energy_per_inference_pj"], j["total"]["energy_pj"]);
  EXPECT_EQ(j["schema"], "nnaccel.report");
  EXPECT_EQ(j["schema_version"], kSchemaVersion);
  EXPECT_EQ(j["summary"], (Json{{"dense baseline", "2.50x"}}));
  EXPECT_EQ(j["layers"][0]["metrics"], (Json{{"w_density", 0.35}, {"speedup", 2.5}}));
  EXPECT_EQ(j["layers"][0]["counts"], (Json{{"accumulator_rmw", 77}}));
  EXPECT_EQ(j["total"]["counts"], (Json{{"accumulator_rmw", 80}}));
  EXPECT_EQ(j["baseline"][0]["method"]["energy_pj"], 0.0);
  EXPECT_EQ(j["engine"], "systolic");
  EXPECT_EQ(j["config"], "small");
  EXPECT_EQ(j["model"], "lenet5");
  EXPECT_EQ(j["dtype"], "int8");
  EXPECT_EQ(j["pe_count"], 16);
  EXPECT_EQ(j["clock_mhz"], 1000.0);
  EXPECT_EQ(j["exact"], true);
  ASSERT_EQ(j["layers"].size(), 3u);
  const Json& c1 = j["layers"][0];
  EXPECT_EQ(c1["name"], "conv1");
  EXPECT_EQ(c1["op"], "Conv");
  EXPECT_EQ(c1["shape"], "1x8x16x16");
  EXPECT_EQ(c1["unit"], "array");
  EXPECT_EQ(c1["host_fallback"], false);
  EXPECT_EQ(c1["useful_macs"], 1600);
  EXPECT_EQ(c1["issued_macs"], 3200);
  EXPECT_EQ(c1["streamed_elements"], 400);
  EXPECT_EQ(c1["instructions"], 10);
  EXPECT_EQ(c1["cycles"], 200);
  EXPECT_EQ(c1["busy_cycles"], 100);
  EXPECT_EQ(c1["stall_cycles"], 50);
  EXPECT_EQ(c1["breakdown"], (Json{{"pe.stream", 160}, {"dma.busy", 30}}));
  EXPECT_EQ(c1["sbuf"], (Json{{"read_bytes", 100}, {"write_bytes", 200}}));
  EXPECT_EQ(c1["psum"]["write_bytes"], 80);
  EXPECT_EQ(c1["dram"]["read_bytes"], 2048);
  EXPECT_EQ(c1["energy_pj"], 1.5e6);
  EXPECT_DOUBLE_EQ(c1["utilization"].get<double>(), 0.5);
  EXPECT_EQ(j["layers"][2]["host_fallback"], true);
  EXPECT_EQ(j["layers"][2]["note"], "Softmax has no systolic lowering");
  EXPECT_EQ(j["total"]["cycles"], 600);
  EXPECT_EQ(j["total"]["useful_macs"], 4800);
  EXPECT_EQ(j["total"]["breakdown"]["dma.busy"], 100);
  ASSERT_EQ(j["baseline"].size(), 1u);
  EXPECT_EQ(j["baseline"][0]["layer"], "conv1");
  EXPECT_EQ(j["baseline"][0]["what"], "dilated: zero-inserted kernel");
  EXPECT_EQ(j["baseline"][0]["method"]["streamed_elements"], 100);
  EXPECT_EQ(j["baseline"][0]["method"]["memory_ops"], 7);
  EXPECT_EQ(j["baseline"][0]["baseline"]["cycles"], 300);
  EXPECT_EQ(j["baseline"][0]["baseline"]["dram"]["write_bytes"], 21);
  EXPECT_EQ(j["baseline"][0]["baseline"]["sbuf"]["read_bytes"], 31);
  EXPECT_EQ(j["verdict"], (Json{{"checked", true},
                                {"passed", true},
                                {"reference", "int8 reference executor (bit-exact)"},
                                {"detail", ""},
                                {"compared_elements", 10}}));
}

TEST(Report, JsonKeepsLargeNumbersExact) {
  RunReport r = sample();
  r.layers[0].cycles = 123456789012345;
  r.layers[0].usefulMacs = 987654321098765;
  r.finalize();
  const Json j = Json::parse(r.toJson());
  EXPECT_EQ(j["layers"][0]["cycles"].get<int64_t>(), 123456789012345);
  EXPECT_EQ(j["total"]["useful_macs"].get<int64_t>(), 987654321098765 + 3200);
  // ... while the table abbreviates them.
  EXPECT_NE(lineWith(r.formatTable(), "conv1").find("123T"), std::string::npos) << r.formatTable();
}

TEST(Report, JsonIsDeterministic) {
  EXPECT_EQ(sample().toJson(), sample().toJson());
  EXPECT_EQ(sample().formatTable(), sample().formatTable());
}

TEST(Report, TableHasRowsTotalsAndHostMarker) {
  const std::string table = sample().formatTable();
  EXPECT_EQ(table.rfind("systolic 'small': 16 PEs at 1000 MHz, model lenet5, int8, exact array "
                        "model\n",
                        0),
            0u)
      << table;
  const std::string header = lineWith(table, "layer");
  for (const char* column : {"op", "shape", "unit", "MACs", "cycles", "busy%", "util%", "DRAM KiB",
                             "energy uJ", "host"}) {
    EXPECT_NE(header.find(column), std::string::npos) << column << "\n" << header;
  }
  const std::string conv2 = lineWith(table, "conv2");
  // conv2: 3.20K MACs, 400 cycles, busy 50.0%, util 50.0%, 3.0 KB DRAM, 1.500 uJ.
  for (const char* cell : {"Conv", "1x8x16x16", "array", "3.20K", "400", "50.0", "3.0", "1.500"}) {
    EXPECT_NE(conv2.find(cell), std::string::npos) << cell << "\n" << conv2;
  }
  EXPECT_EQ(conv2.find("HOST"), std::string::npos);
  const std::string softmax = lineWith(table, "softmax");
  EXPECT_NE(softmax.find("HOST"), std::string::npos) << softmax;
  const std::string total = lineWith(table, "total  ");
  for (const char* cell : {"4.80K", "600", "9.0", "3.000"}) {
    EXPECT_NE(total.find(cell), std::string::npos) << cell << "\n" << total;
  }
  EXPECT_NE(table.find("total: 600 cycles (0.6 us at 1000 MHz), 4,800 MACs, utilization 50.0%, "
                       "DRAM 9,216 bytes, energy 3.000 uJ\n"),
            std::string::npos)
      << table;
  EXPECT_NE(table.find("HOST: 1 of 3 layers ran on the host, charged by the host model (link "
                       "transfers and host compute): 0 cycles (0.0% of the total), 0.000 uJ "
                       "(0.0% of the energy):\n  1 layer (Softmax): Softmax has no systolic "
                       "lowering: softmax\n"),
            std::string::npos)
      << table;
  EXPECT_EQ(table.find("baseline vs method"), std::string::npos);
  // The verdict is the last line.
  EXPECT_NE(table.find("\nNOT CHECKED: outputs were not compared against a reference\n"),
            std::string::npos);
  // Numbers are right-aligned under their header.
  EXPECT_EQ(header.find("MACs") + 4, conv2.find("3.20K") + 5) << header << "\n" << conv2;
  EXPECT_EQ(header.find("MACs") + 4, total.find("4.80K") + 5) << header << "\n" << total;
}

TEST(Report, ABaselineThatCannotRunIsListedNotDropped) {
  RunReport r = sample();
  BaselineRow row;
  row.layer = "aspp.rate18";
  row.applicable = false;
  row.what = "the zero-inserted kernel does not fit the state buffer";
  r.baseline.push_back(row);
  const std::string table = r.formatTable();
  const std::string rest = table.substr(table.find("baseline vs method:\n"));
  EXPECT_NE(lineWith(rest, "aspp.rate18").find("(baseline not applicable)"), std::string::npos)
      << rest;
  EXPECT_NE(rest.find("  aspp.rate18: baseline not applicable: the zero-inserted kernel does "
                      "not fit the state buffer\n"),
            std::string::npos)
      << rest;
  EXPECT_EQ(rest.find("streamed elements"), std::string::npos) << rest; // no made-up figures
  const auto j = nlohmann::json::parse(r.toJson());
  EXPECT_EQ(j["baseline"][0]["applicable"], false);
  EXPECT_EQ(j["baseline"][0]["layer"], "aspp.rate18");
}

TEST(Report, TableBaselineSectionWithRatios) {
  RunReport r = sample();
  BaselineRow row;
  row.layer = "up1";
  row.what = "transposed: zero insertion + rotated weight copy";
  row.method = {1000, 16000, 500, 10, {2048, 0}, {0, 0}};
  row.baseline = {4000, 64000, 2000, 40, {8192, 2048}, {0, 0}};
  r.baseline.push_back(row);
  const std::string table = r.formatTable();
  const size_t section = table.find("baseline vs method:\n");
  ASSERT_NE(section, std::string::npos) << table;
  const std::string rest = table.substr(section);
  const std::string streamed = lineWith(rest, "streamed elements");
  EXPECT_NE(streamed.find("up1"), std::string::npos) << streamed;
  EXPECT_NE(streamed.find("1.00K"), std::string::npos) << streamed;
  EXPECT_NE(streamed.find("4.00K"), std::string::npos) << streamed;
  EXPECT_NE(streamed.find("4.00x"), std::string::npos) << streamed;
  EXPECT_NE(lineWith(rest, "MACs issued").find("4.00x"), std::string::npos);
  EXPECT_NE(lineWith(rest, "cycles").find("4.00x"), std::string::npos);
  EXPECT_NE(lineWith(rest, "memory ops").find("4.00x"), std::string::npos);
  EXPECT_NE(lineWith(rest, "DRAM bytes").find("5.00x"), std::string::npos);
  EXPECT_NE(lineWith(rest, "SBUF bytes").find("1.00x"), std::string::npos); // 0 vs 0
  EXPECT_NE(rest.find("  up1: baseline = transposed: zero insertion + rotated weight copy\n"),
            std::string::npos)
      << rest;
}

TEST(Report, VerdictLines) {
  RunReport r = sample();
  r.verdict = {true, true, "int8 reference executor (bit-exact)", "", 1234567};
  std::string table = r.formatTable();
  EXPECT_NE(table.find("\nVERIFIED: lenet5 on systolic 'small' matches the int8 reference "
                       "executor (bit-exact), 1,234,567 elements\n"),
            std::string::npos)
      << table;
  r.verdict = {true, false, "int8 reference executor (bit-exact)",
               "layer 'conv2' element 17: got 5, expected 6", 1234567};
  table = r.formatTable();
  EXPECT_NE(table.find("\nMISMATCH: lenet5 on systolic 'small' differs from the int8 reference "
                       "executor (bit-exact): layer 'conv2' element 17: got 5, expected 6 "
                       "(1,234,567 elements compared)\n"),
            std::string::npos)
      << table;
  EXPECT_EQ(table.find("VERIFIED"), std::string::npos);
}

TEST(Report, FinalizePutsUnattributedCyclesAndEnergyIntoOther) {
  const RunReport r = sample();
  const LayerStats& c1 = r.layers[0]; // 200 cycles: 100 compute + 50 memory attributed
  EXPECT_EQ(c1.causes.compute, 100);
  EXPECT_EQ(c1.causes.memory, 50);
  EXPECT_EQ(c1.causes.other, 50);
  EXPECT_EQ(c1.causes.sum(), c1.cycles);
  EXPECT_DOUBLE_EQ(c1.energy.other, 0.25e6);
  EXPECT_DOUBLE_EQ(c1.energy.sum(), c1.energyPj);
  // The total's causes and parts are the layers' sums, and still add up.
  EXPECT_EQ(r.total.causes.compute, 100 + 200);
  EXPECT_EQ(r.total.causes.sum(), r.total.cycles);
  EXPECT_DOUBLE_EQ(r.total.energy.sum(), r.total.energyPj);
  const Json j = Json::parse(r.toJson());
  EXPECT_EQ(j["layers"][0]["cycles_by_cause"], (Json{{"compute", 100},
                                                     {"memory", 50},
                                                     {"fill_drain", 0},
                                                     {"conflict", 0},
                                                     {"sync", 0},
                                                     {"idle", 0},
                                                     {"host", 0},
                                                     {"other", 50}}));
  EXPECT_EQ(j["layers"][0]["energy_pj_by_component"]["dram"], 0.25e6);
  EXPECT_EQ(j["layers"][0]["energy_pj_by_component"]["clock"], 0);
}

TEST(Report, FinalizeChargesTheClockNetworkEveryCycleOnce) {
  RunReport r = sample();
  const double before = r.layers[0].energyPj;
  r.technology.node = "16nm";
  r.technology.clockPjPerCycle = 10;
  r.finalize();
  r.finalize();                       // again: nothing charged twice
  const LayerStats& c1 = r.layers[0]; // 200 cycles
  EXPECT_DOUBLE_EQ(c1.energy.clock, 2000);
  EXPECT_DOUBLE_EQ(c1.energyPj, before + 2000);
  EXPECT_DOUBLE_EQ(c1.energy.sum(), c1.energyPj);
  EXPECT_DOUBLE_EQ(r.total.energy.clock, 10.0 * static_cast<double>(r.total.cycles));
  const Json j = Json::parse(r.toJson());
  EXPECT_EQ(j["total"]["energy_pj_by_component"]["clock"],
            10.0 * static_cast<double>(r.total.cycles));
  const std::string header = RunReport::csvHeader();
  EXPECT_NE(header.find(",energy_host_pj,energy_clock_pj,energy_other_pj,"), std::string::npos);
}

/// RFC 4180 split of one CSV line: commas outside quotes, doubled quotes inside.
std::vector<std::string> csvFields(const std::string& line) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char ch = line[i];
    if (ch == '"') {
      if (quoted && i + 1 < line.size() && line[i + 1] == '"') {
        out.back() += '"';
        ++i;
      } else {
        quoted = !quoted;
      }
    } else if (ch == ',' && !quoted) {
      out.emplace_back();
    } else {
      out.back() += ch;
    }
  }
  return out;
}

TEST(Report, CsvHasOneRowPerLayerPlusTotalWithTheHeaderColumns) {
  RunReport r = sample();
  r.layers[2].name = "soft,max \"x\""; // a model's name with a comma and quotes
  r.layers[0].effectualMacs = 77;
  r.finalize();
  const std::string header = RunReport::csvHeader();
  ASSERT_EQ(header.back(), '\n');
  const std::vector<std::string> columns = csvFields(header.substr(0, header.size() - 1));
  std::istringstream in(r.toCsvRows());
  std::vector<std::vector<std::string>> lines;
  for (std::string line; std::getline(in, line);)
    lines.push_back(csvFields(line));
  ASSERT_EQ(lines.size(), 4u); // three layers + total
  for (const auto& l : lines)
    EXPECT_EQ(l.size(), columns.size());
  const auto col = [&](const std::string& name) {
    const auto it = std::find(columns.begin(), columns.end(), name);
    EXPECT_NE(it, columns.end()) << name;
    return static_cast<size_t>(it - columns.begin());
  };
  EXPECT_EQ(lines[0][col("layer")], "conv1");
  EXPECT_EQ(lines[0][col("cycles")], "200");
  EXPECT_EQ(lines[0][col("cause_other")], "50");
  EXPECT_EQ(lines[0][col("effectual_macs")], "77");
  EXPECT_EQ(lines[3][col("effectual_macs")], "77"); // the total sums it
  EXPECT_EQ(lines[2][col("layer")], "soft,max \"x\"");
  EXPECT_EQ(lines[3][col("layer")], "total");
  EXPECT_EQ(lines[3][col("cycles")], "600");
  EXPECT_EQ(lines[3][col("schema_version")], std::to_string(kSchemaVersion));
  EXPECT_EQ(lines[3][col("verified")], "unchecked");

  // A run that did not happen: the same columns, no figures, the reason (quoted) in `verified`.
  const std::string notRun =
      RunReport::csvNotRunRow("stream", "large@budget:x", "m", "needs 3 chips, \"large\"");
  ASSERT_EQ(notRun.back(), '\n');
  const std::vector<std::string> row = csvFields(notRun.substr(0, notRun.size() - 1));
  ASSERT_EQ(row.size(), columns.size()) << notRun;
  EXPECT_EQ(row[col("engine")], "stream");
  EXPECT_EQ(row[col("layer")], "(model)");
  EXPECT_EQ(row[col("cycles")], "");
  EXPECT_EQ(row[col("energy_other_pj")], "");
  EXPECT_EQ(row[col("verified")], "not mapped: needs 3 chips, \"large\"");
}

} // namespace

namespace nnaccel::report {
namespace {

TEST(Report, EngineMetricsBecomeColumnsAndSummaryLines) {
  RunReport r = sample();
  r.layers[0].metrics = {{"w_density", 0.35}, {"dense_cycles", 12345}};
  r.layers[1].metrics = {{"speedup", 2.5}};
  r.finalize();
  r.summary = {{"dense baseline", "2.50x faster"}};
  r.baseline.push_back({"conv1", "dense", {}, {}});
  r.baseline[0].method.energyPj = 1e6;
  r.baseline[0].baseline.energyPj = 3e6;
  const std::string table = r.formatTable();
  // Columns in order of first appearance, before the host column; absent metrics are blank.
  const std::string header = table.substr(0, table.find('\n', table.find('\n') + 1));
  EXPECT_LT(header.find("w_density"), header.find("dense_cycles")) << table;
  EXPECT_LT(header.find("dense_cycles"), header.find("speedup")) << table;
  EXPECT_LT(header.find("speedup"), header.find("host")) << table;
  EXPECT_NE(table.find("0.35"), std::string::npos) << table;
  EXPECT_NE(table.find("12.3K"), std::string::npos) << table;
  EXPECT_NE(table.find("2.50"), std::string::npos) << table;
  EXPECT_NE(table.find("\ndense baseline: 2.50x faster\n"), std::string::npos) << table;
  const std::vector<std::string> energy = [&] {
    std::istringstream in(table.substr(table.find("baseline vs method:")));
    for (std::string line; std::getline(in, line);)
      if (line.find("energy uJ") != std::string::npos) {
        std::istringstream w(line);
        return std::vector<std::string>(std::istream_iterator<std::string>(w), {});
      }
    return std::vector<std::string>{};
  }();
  EXPECT_EQ(energy, (std::vector<std::string>{"energy", "uJ", "1.000", "3.000", "3.00x"})) << table;
}

} // namespace
} // namespace nnaccel::report

namespace {

// One thousands grouping for the reports, compare and the CLI (report/TextTable.h), safe at the
// ends of int64_t.
TEST(TextTableNumbers, GroupThousandsHandlesSignsAndTheInt64Extremes) {
  using nnaccel::report::groupThousands;
  EXPECT_EQ(groupThousands(0), "0");
  EXPECT_EQ(groupThousands(999), "999");
  EXPECT_EQ(groupThousands(1000), "1,000");
  EXPECT_EQ(groupThousands(-1234567), "-1,234,567");
  EXPECT_EQ(groupThousands(INT64_MAX), "9,223,372,036,854,775,807");
  EXPECT_EQ(groupThousands(INT64_MIN), "-9,223,372,036,854,775,808");
}

} // namespace

TEST(RunReport, HostLayersAreGroupedByOpAndReason) {
  // Repeated reasons print once, with the count and the first names (issue 23).
  std::vector<LayerStats> layers;
  for (int i = 0; i < 5; ++i)
    layers.push_back(LayerStats{.name = "add" + std::to_string(i),
                                .op = "Add",
                                .hostFallback = true,
                                .note = "no unit adds two tensors"});
  layers.push_back(LayerStats{.name = "conv", .op = "Conv"});
  layers.push_back(LayerStats{.name = "soft", .op = "Softmax", .hostFallback = true});
  EXPECT_EQ(hostFallbackGroups(layers, "  "),
            "  5 layers (Add): no unit adds two tensors: add0, add1, add2 and 2 more\n"
            "  1 layer (Softmax): runs on the host: soft\n");
  EXPECT_EQ(hostFallbackGroups(layers, "", 10).substr(0, 64),
            "5 layers (Add): no unit adds two tensors: add0, add1, add2, add3");
  EXPECT_EQ(hostFallbackGroups({layers[5]}, "  "), "");
}
