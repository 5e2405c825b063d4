/// \file
/// Tests of running validations (src/validate/Runner.cpp, Output.cpp): report paths read the
/// numbers `simulate --report` writes (top level, totals, one layer by name, a sum over layers
/// by op), every bad path is a one-line error naming it, the shipped broadcast-reads validation
/// reproduces all of seed 004's read counts end to end, and a row outside its tolerance or a
/// failed claim is reported as such, in the text and in the JSON rows.
#include "../../support/ErrorOf.h"
#include "nnaccel/validate/Validation.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

using namespace nnaccel;
using namespace nnaccel::validate;
using nnaccel::test::errorOf;

namespace {

constexpr const char* kReport = R"({"area_mm2": 2.5,
  "layers": [{"name": "conv1", "op": "Conv", "cycles": 10, "counts": {"reads": 3}},
             {"name": "layer4.1.conv", "op": "Conv", "cycles": 20, "counts": {"reads": 4}},
             {"name": "relu", "op": "Relu", "cycles": 1}],
  "total": {"cycles": 31, "counts": {"reads": 7}}})";

TEST(ValidationReportPath, ReadsNumbersBySelector) {
  EXPECT_DOUBLE_EQ(reportValue(kReport, "area_mm2"), 2.5);
  EXPECT_DOUBLE_EQ(reportValue(kReport, "total.counts.reads"), 7);
  EXPECT_DOUBLE_EQ(reportValue(kReport, "layer[layer4.1.conv].cycles"), 20);
  EXPECT_DOUBLE_EQ(reportValue(kReport, "layers[op=Conv].cycles"), 30);
  EXPECT_DOUBLE_EQ(reportValue(kReport, "layers[op=Conv].counts.reads"), 7);
  EXPECT_DOUBLE_EQ(reportValue(kReport, "layers[*].cycles"), 31);
}

TEST(ValidationReportPath, BadPathsNameThemselves) {
  const auto bad = [](const std::string& path) {
    return errorOf([&] { reportValue(kReport, path); }, ErrorKind::Config);
  };
  EXPECT_EQ(bad("total.energy"), "'total.energy': 'energy' is not in the run's report");
  EXPECT_EQ(bad("total"), "'total': names no number in the run's report");
  EXPECT_EQ(bad("layer[conv9].cycles"),
            "'layer[conv9].cycles': no layer of the run's report matches 'conv9'");
  EXPECT_EQ(bad("layers[op=Conv.cycles"), "'layers[op=Conv.cycles': unclosed '['");
  EXPECT_EQ(bad("layers[*].counts.reads"), "'layers[*].counts.reads': 'counts' is not in the "
                                           "run's report");
}

TEST(ValidationRun, BroadcastReadsReproducesSeed004) {
  const ValidationResult r = runValidation(validationNamed("broadcast-reads"), {});
  ASSERT_EQ(r.runs.size(), 5u);
  EXPECT_TRUE(r.verified());
  for (const RowResult& row : r.rows) {
    EXPECT_TRUE(row.agrees) << row.spec.name << ": measured " << row.measured;
    ASSERT_TRUE(row.ratio.has_value());
  }
  EXPECT_EQ(r.agreeing(), static_cast<int>(r.rows.size()));
  const std::string text = formatResult(r);
  EXPECT_NE(text.find("9 of 9 figures agree with the source; every verified run is bit-exact"),
            std::string::npos)
      << text;
  const nlohmann::json j = nlohmann::json::parse(resultJson(r));
  ASSERT_EQ(j["rows"].size(), 9u);
  EXPECT_EQ(j["rows"][0]["name"], "FIG. 7: reads of row X0-X3, 1x3 with broadcasting");
  EXPECT_EQ(j["rows"][0]["published"], 4.0);
  EXPECT_EQ(j["rows"][0]["measured"], 4.0);
  EXPECT_EQ(j["rows"][0]["unit"], "reads");
  EXPECT_EQ(j["rows"][0]["source"], "seed 004 para 0087-0088, FIG. 7 (digest 004 section 3.6)");
  EXPECT_EQ(j["verified"], true);
}

TEST(ValidationRun, DisagreementsAndFailedClaimsAreReported) {
  const Validation v = parseValidation(R"(name: off
title: figures that do not hold
runs:
  row:
    arch: broadcast
    preset: fig8
    layer: {op: Conv, input: [1, 1, 1, 18], out_channels: 1, kernel: [1, 3]}
rows:
  - name: reads
    measured: "row:total.counts.activation_reads"
    published: 14
    unit: reads
    source: "made up"
    note: "the method reads each activation once"
  - name: fewer than the baseline
    measured: {ratio: ["row:total.counts.activation_reads",
                       "row:total.counts.activation_reads_no_broadcast"]}
    claim: "> 1"
    unit: x
    source: "made up"
)",
                                       "off.yaml");
  const ValidationResult r = runValidation(v, {});
  ASSERT_EQ(r.rows.size(), 2u);
  EXPECT_DOUBLE_EQ(r.rows[0].measured, 18);
  EXPECT_DOUBLE_EQ(*r.rows[0].ratio, 18.0 / 14.0); // outside the default 20 % tolerance
  EXPECT_FALSE(r.rows[0].agrees);
  EXPECT_DOUBLE_EQ(r.rows[1].measured, 18.0 / 48.0);
  EXPECT_FALSE(r.rows[1].agrees);
  const std::string text = formatResult(r);
  EXPECT_NE(text.find("OUTSIDE"), std::string::npos) << text;
  EXPECT_NE(text.find("does not hold"), std::string::npos) << text;
  EXPECT_NE(text.find("reads: the method reads each activation once"), std::string::npos) << text;
  EXPECT_NE(text.find("0 of 2 figures agree"), std::string::npos) << text;
}

TEST(ValidationRun, ARunThatCannotSimulateNamesTheRun) {
  const Validation v = parseValidation(R"(name: broken
title: a run the engine refuses
runs:
  big:
    arch: sparse
    model: lenet5
    set: {pe_array.rows: 0}
rows:
  - {name: cycles, measured: "big:total.cycles", claim: "> 1", unit: cycles, source: "none"}
)",
                                       "broken.yaml");
  const std::string message = errorOf([&] { runValidation(v, {}); }, ErrorKind::Config);
  EXPECT_EQ(message.rfind("broken.yaml: 'runs.big': ", 0), 0u) << message;
}

} // namespace
