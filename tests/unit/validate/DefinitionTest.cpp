/// \file
/// Tests of validation definitions (src/validate/Definition.cpp): every built-in definition
/// parses and names a registered engine, a minimal definition reads back field by field, and
/// each malformed definition is refused in one line naming the file and the dotted key.
#include "../../support/ErrorOf.h"
#include "nnaccel/engines/Engine.h"
#include "nnaccel/validate/Validation.h"

#include <gtest/gtest.h>

using namespace nnaccel;
using namespace nnaccel::validate;
using nnaccel::test::errorOf;

namespace {

constexpr const char* kMinimal = R"(name: tiny
title: one row
runs:
  a:
    arch: broadcast
    preset: fig8
    layer: {op: Conv, input: [1, 1, 1, 6], out_channels: 1, kernel: [1, 3], pads: [0, 0, 0, 2]}
    options: {threads: 1}
    weight_densities: {"*": 0.5, conv1: 0.25}
rows:
  - name: reads
    measured: {ratio: ["a:total.cycles", "a:total.counts.activation_reads"]}
    published: 4
    unit: reads
    source: "a paragraph"
    tolerance: 0.1
  - name: claim
    measured: "a:total.cycles"
    claim: "> 1"
    unit: x
    source: "qualitative"
)";

/// kMinimal with \p from replaced by \p to (which must occur once).
std::string edited(const std::string& from, const std::string& to) {
  std::string s = kMinimal;
  const auto at = s.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return s.replace(at, from.size(), to);
}

std::string configError(const std::string& yaml) {
  return errorOf([&] { parseValidation(yaml, "t.yaml"); }, ErrorKind::Config);
}

TEST(ValidationDefinition, MinimalReadsBack) {
  const Validation v = parseValidation(kMinimal, "t.yaml");
  EXPECT_EQ(v.name, "tiny");
  ASSERT_EQ(v.runs.size(), 1u);
  const RunSpec& r = v.runs[0];
  EXPECT_EQ(r.arch, "broadcast");
  ASSERT_TRUE(r.layer.has_value());
  EXPECT_EQ(r.layer->input, (std::vector<int64_t>{1, 1, 1, 6}));
  EXPECT_EQ(r.layer->pads, (std::vector<int64_t>{0, 0, 0, 2}));
  EXPECT_EQ(r.layer->strides, (std::vector<int64_t>{1, 1}));
  EXPECT_EQ(r.options.at("threads"), 1);
  EXPECT_DOUBLE_EQ(r.weightDensities.at("*"), 0.5);
  ASSERT_EQ(v.rows.size(), 2u);
  EXPECT_EQ(v.rows[0].measure.path, "a:total.cycles");
  EXPECT_EQ(v.rows[0].measure.denominator, "a:total.counts.activation_reads");
  EXPECT_DOUBLE_EQ(*v.rows[0].published, 4.0);
  EXPECT_DOUBLE_EQ(v.rows[0].tolerance, 0.1);
  EXPECT_FALSE(v.rows[1].published.has_value());
  EXPECT_EQ(v.rows[1].claim, "> 1");
  EXPECT_DOUBLE_EQ(v.rows[1].tolerance, 0.2); // the default
}

TEST(ValidationDefinition, BuiltinsParseAndNameEngines) {
  const auto& all = builtinValidations();
  ASSERT_FALSE(all.empty());
  for (const Validation& v : all) {
    EXPECT_FALSE(v.title.empty()) << v.name;
    for (const RunSpec& r : v.runs)
      EXPECT_TRUE(engines::isEngine(r.arch)) << v.name << " run " << r.name;
    for (const RowSpec& row : v.rows)
      EXPECT_FALSE(row.source.empty()) << v.name << ": " << row.name;
    EXPECT_EQ(&validationNamed(v.name), &v);
  }
  EXPECT_EQ(errorOf([] { validationNamed("broadcast-read"); }),
            "no validation named 'broadcast-read' (did you mean 'broadcast-reads'?) (see "
            "'nnaccel validate')");
}

TEST(ValidationDefinition, MalformedDefinitionsNameTheKey) {
  EXPECT_EQ(configError(edited("title: one row\n", "")), "t.yaml: 'title': missing");
  EXPECT_EQ(configError(edited("title: one row", "title: one row\nextra: 1")),
            "t.yaml: 'extra': unknown key");
  EXPECT_EQ(configError(edited("preset: fig8", "preset: fig8\n    model: lenet5")),
            "t.yaml: 'runs.a': give exactly one of 'model' and 'layer'");
  EXPECT_EQ(configError(edited("op: Conv", "op: Gemm")),
            "t.yaml: 'runs.a.layer.op': expected Conv or ConvTranspose, got 'Gemm'");
  EXPECT_EQ(configError(edited("kernel: [1, 3]", "kernel: [1]")),
            "t.yaml: 'runs.a.layer.kernel': expected a list of 2 integers");
  EXPECT_EQ(configError(edited("input: [1, 1, 1, 6]", "input: [1, 0, 1, 6]")),
            "t.yaml: 'runs.a.layer.input[1]': must be >= 1 (got 0)");
  EXPECT_EQ(configError(edited("conv1: 0.25", "conv1: 1.5")),
            "t.yaml: 'runs.a.weight_densities.conv1': a density must lie in (0, 1], got 1.5");
  EXPECT_EQ(configError(edited("published: 4", "published: four")),
            "t.yaml: 'rows[0].published': expected a number, got 'four'");
  EXPECT_EQ(configError(edited("claim: \"> 1\"", "claim: \"=> 2\"")),
            "t.yaml: 'rows[1].claim': expected a comparison and a number ('> 1', '>= 100', '< 1', "
            "'<= 1', '== 1'), got '=> 2'");
  ASSERT_TRUE(parseClaim(">= 100").has_value());
  EXPECT_EQ(parseClaim(">= 100")->op, ">=");
  EXPECT_DOUBLE_EQ(parseClaim(">= 100")->value, 100);
  EXPECT_FALSE(parseClaim(">=100").has_value());
  EXPECT_FALSE(parseClaim("> many").has_value());
  EXPECT_EQ(configError(edited("    published: 4\n", "")),
            "t.yaml: 'rows[0]': give exactly one of 'published' (a number) and 'claim' (what "
            "the source states without a number)");
  EXPECT_EQ(configError(edited("\"a:total.cycles\"", "\"b:total.cycles\"")),
            "t.yaml: 'rows[0].measured': no run named 'b' (did you mean 'a'?)");
  EXPECT_EQ(configError(edited("measured: \"a:total.cycles\"", "measured: \"total.cycles\"")),
            "t.yaml: 'rows[1].measured': expected RUN:PATH, got 'total.cycles'");
  EXPECT_EQ(configError(edited("tolerance: 0.1", "tolerance: -1")),
            "t.yaml: 'rows[0].tolerance': must be >= 0");
  std::string withReduced = kMinimal;
  withReduced.append("reduced:\n  zz: {arch: sparse, model: lenet5}\n");
  EXPECT_EQ(configError(withReduced), "t.yaml: 'reduced.zz': no run of that name to replace");
  EXPECT_EQ(configError("name: [unclosed"),
            "t.yaml: not valid YAML: yaml-cpp: error at line 1, column 1: end of sequence "
            "flow not found");
}

TEST(ValidationDefinition, ARunNoRowMeasuresIsRefused) {
  const std::string yaml = edited("rows:", "  b:\n    arch: sparse\n    model: lenet5\nrows:");
  EXPECT_EQ(configError(yaml), "t.yaml: 'runs.b': no row measures this run");
}

} // namespace
